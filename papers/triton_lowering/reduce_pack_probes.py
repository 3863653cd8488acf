#!/usr/bin/env python
"""Probes of how an AMD reduction packs its partial results for the cross-warp store:
``v_pack_b32_f16`` or ``v_perm_b32`` on the reduction's line, compared with
``linlayout check``.

Run with Triton 3.9.0 installed (CPU only; about 4 s a probe, two compiles each)::

    python papers/triton_lowering/reduce_pack_probes.py                 # writes the fixture
    python papers/triton_lowering/reduce_pack_probes.py --check         # compile, compare
    python papers/triton_lowering/reduce_pack_probes.py --compare-only  # the committed fixture
    python papers/triton_lowering/reduce_pack_probes.py --seed N --out /tmp/x.json.gz
    python papers/triton_lowering/reduce_pack_probes.py --confirm       # the i16 draw below

The rule under test (``linlayout.check.registers.reduce.round_result_kinds``): a round of a
one-operand AMD reduction that combines something (two or more registers or a lane bit along
the axis) and is not a whole-wavefront round leaves the combine op's own results in the
registers that the ``convert_layout`` after it packs (to ``getInterLayout`` for the next
round through shared memory, or to the result layout). Triton 3.9's lowering stores two
16-bit partial results as one word (``insertelement <2 x half>`` twice, ``store <2 x
half>``); LLVM's AMDGPU instruction selection makes that ``build_vector`` one
``v_pack_b32_f16`` when ``isCanonicalized`` proves both halves canonical (``f16`` float
arithmetic, min and max results are), else one ``v_perm_b32``. ``check`` counts the
``v_pack_b32_f16`` and no ``v_perm_b32`` for such words.

The probes: ``gl.reduce`` of an ``f16``/``bf16``/``i16``/``i8`` tile (add, max, min, mul)
with warps along the reduced axis (so a cross-warp round exists), 16 or 32 lanes along it
(partial wavefronts; 64 with probability 0.2), converted to a random 1-D blocked layout and
stored, on gfx942/gfx950. Each is compiled twice (Triton's lowering with ``-O3`` skipped,
in a private cache, and the final assembly); ``v_perm_b32``, ``v_pack_b32_f16`` and
``v_cvt_pk_bf16_f32`` are recorded on the reduction's line (data path) and compared with
``check`` against both (``v_perm_b32`` and ``v_pack_b32_f16``). Where ``check`` follows the lowering by design (16-bit reductions
LLVM's SLP vectoriser re-packs: ``slp_repacked``), the final assembly is not expected to
agree; the tally says which.

``--confirm`` writes ``tests/data/triton_reduce_pack_confirm_probes.json.gz`` instead (set
``reduce_pack_confirm``): :data:`CONFIRM_SEED` with ``i16`` tiles only (:data:`CONFIRM_TYPES`),
drawn after the refined condition of ``slp_repacked`` for ``i16`` min/max was committed (with
``--check``/``--compare-only`` as above; ``--seed N --types i16`` draws the same mix to
``/tmp``).

Seeds: :data:`SEED` (the committed fixture) and :data:`HELD_OUT_SEED` (compiled to ``/tmp``),
both drawn after the rule was committed; the rule was read off three ``f16`` kernels of an
exploration draw (``scalar_byte_probes.py --explore 405517``). See
``papers/triton_lowering/README.md``, "Cross-warp packing of partial results".
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from probe_compile import (assembly_records, check_ops, compile_gluon,  # noqa: E402
                           known_mismatches, probe_arguments, run_probes)

OUT = ROOT / "tests" / "data" / "triton_reduce_pack_probes.json.gz"
SEED = 52817
HELD_OUT_SEED = 52819
N_PROBES = int(os.environ.get("N_PROBES", 40))
TARGETS = ("gfx942", "gfx950")
TYPES = ("*fp16", "*fp16", "*fp16", "*fp16", "*bf16", "*bf16", "*i16", "*i8")
COMBINES = ("add", "max", "min", "mul")
KNOWN_SET = "reduce_pack"
#: ``--confirm``: the ``i16``-only draw held out from ``slp_repacked``'s refined ``i16`` min/max
#: condition (``papers/triton_lowering/README.md``, "``i16`` min/max re-packed by ``-O3``")
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_reduce_pack_confirm_probes.json.gz"
CONFIRM_SEED = 733901
CONFIRM_TYPES = ("*i16",)
CONFIRM_SET = "reduce_pack_confirm"
PERMUTE = "v_perm_b32"
PACK_F16 = "v_pack_b32_f16"
#: the packing instructions recorded (``v_cvt_pk_bf16_f32`` too: on gfx950 it is also the
#: rounding of ``bf16`` arithmetic, e.g. the in-thread ``<2 x bfloat>`` vectors)
PACK_OPS = re.compile(r"^(v_perm_b32|v_pack_b32_f16|v_cvt_pk_bf16_f32)$")
#: the instructions compared: those ``check`` counts for packing (``v_cvt_pk_bf16_f32`` is
#: left out: ``check`` does not count ``bf16`` rounding; the held-out draw, seed 52819, was
#: first compared with it, see the README)
COMPARED = re.compile(r"^(v_perm_b32|v_pack_b32_f16)$")


def build(seed: int = SEED, n: int = N_PROBES, types: tuple[str, ...] = TYPES) -> dict:
    """Compile ``n`` probes drawn with ``seed`` from the element types ``types`` (Triton
    3.9.0)."""
    import triton
    from scalar_byte_probes import _kernel, op_lines
    from triton.experimental.gluon import language as gl

    from cvt_heldout_probes import asm_lines

    p_reduce = _kernel()
    rng = random.Random(seed)
    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    while len(probes) < n and sum(fails.values()) < 4 * n:
        tname = rng.choice(TARGETS)
        ty = rng.choice(types)
        bits = 8 if ty == "*i8" else 16
        op = rng.randrange(len(COMBINES))
        axis = rng.randint(0, 1)
        warps = rng.choice([2, 4, 8])
        spt = [1, 1]
        spt[axis] = rng.choice([1, 2, 4])
        spt[1 - axis] = rng.choice([1, 2])
        lanes = 64 if rng.random() < 0.2 else rng.choice([16, 32])
        tpw = [1, 1]
        tpw[axis], tpw[1 - axis] = lanes, 64 // lanes
        wpc = [1, 1]
        wpc[axis] = warps
        shape = [a * b * c for a, b, c in zip(spt, tpw, wpc)]
        shape[1 - axis] *= 1 << rng.randint(0, 1)
        M, N = shape
        L = gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))
        D = gl.BlockedLayout([1 << rng.randint(0, 3)], [64], [warps], [0])
        const = {"M": M, "N": N, "AXIS": axis, "OP": op, "L": L, "D": D}
        name = (f"rpack_b{bits}_{ty[1:]}_{M}x{N}_ax{axis}_w{warps}_l{lanes}"
                f"_{COMBINES[op]}_{rng.getrandbits(24):06x}_{tname}")
        sig = {"X": ty, "Y": ty, **{k: "constexpr" for k in const}}
        try:
            ttgir = compile_gluon(p_reduce, sig, const, tname, warps)
        except Exception as e:  # noqa: BLE001 - a layout Triton rejects is skipped
            fails[type(e).__name__] += 1
            continue
        lines = op_lines(ttgir)
        if "reduce" not in lines:
            fails["no reduce"] += 1
            continue
        record = assembly_records(ttgir, tname, lambda asm, data: {
            c: asm_lines(asm, data, PACK_OPS).get(f"probe.ttgir:{c}", {})
            for c in lines.values()})
        probes[name] = {"target": tname, "ttgir": ttgir, **record}
        if len(probes) % 8 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "seed": seed, "probes": probes}


def reduce_line(ttgir: str) -> str:
    """The ``tt.reduce``'s line (1-based, as text)."""
    for i, s in enumerate(ttgir.splitlines(), 1):
        if '"tt.reduce"' in s:
            return str(i)
    raise ValueError("no tt.reduce in the probe")


def predicted(ttgir: str) -> dict[str, int]:
    """``check``'s packing instructions on the reduction's line."""
    line = reduce_line(ttgir)
    out: collections.Counter = collections.Counter()
    for o in check_ops(ttgir):
        if str(o["line"]) != line:
            continue
        for i in o["instructions"]:
            if i.get("per_thread") and COMPARED.match(i.get("isa") or ""):
                out[i["isa"]] += i["per_thread"]
    return dict(sorted(out.items()))


def observed(p: dict, label: str) -> dict[str, int]:
    """The same counts off a probe's ``label`` assembly (data path)."""
    return dict(sorted((op, n) for op, n in
                       p["data"][label].get(reduce_line(p["ttgir"]), {}).items()
                       if COMPARED.match(op)))


def slp_domain(ttgir: str) -> bool:
    """Whether ``check`` says the reduction is one whose final assembly LLVM's SLP
    vectoriser re-packs (its note)."""
    line = reduce_line(ttgir)
    return any("SLP vectoriser" in (o.get("note") or "") for o in check_ops(ttgir)
               if str(o["line"]) == line)


def reference(p: dict) -> dict[str, int]:
    """What ``check`` is scored against on the reduction's line: Triton's lowering where it
    says LLVM's SLP vectoriser re-packs the reduction (:func:`slp_domain`; it counts the
    lowering there by design), else the final assembly."""
    return observed(p, "lowering" if slp_domain(p["ttgir"]) else "final")


def compare(data: dict, known_set: str = KNOWN_SET) -> int:
    """Print each probe's prediction against its lowering and final assembly and a tally;
    return the number of probes whose prediction differs from its :func:`reference` that
    ``tests/data/known_mismatches.json`` (set ``known_set``) does not list."""
    known = known_mismatches(known_set)
    tally: collections.Counter = collections.Counter()
    bad = 0
    for name, p in sorted(data["probes"].items()):
        pred, low, fin = predicted(p["ttgir"]), observed(p, "lowering"), observed(p, "final")
        slp = slp_domain(p["ttgir"])
        same = pred == (low if slp else fin)
        ty = name.split("_")[2]
        tally[("as scored", ty, same)] += 1
        tally[("as scored", "all", same)] += 1
        tally[("lowering", "all", pred == low)] += 1
        tally[("final", "all", pred == fin)] += 1
        tally[("v_pack_b32_f16 equal to the lowering", "", pred.get(PACK_F16, 0) ==
               low.get(PACK_F16, 0))] += 1
        tally[("v_perm_b32 equal to the lowering", "", pred.get(PERMUTE, 0) ==
               low.get(PERMUTE, 0))] += 1
        bad += not same and name not in known
        print(f"{'ok  ' if same else 'DIFF'} {name}: check {pred} lowering {low} "
              f"final {fin}{' (slp: scored against the lowering)' if slp else ''}"
              + (" (known)" if not same and name in known else ""))
    for key in sorted({(a, b) for a, b, _ in tally}):
        print(f"{key[0]} {key[1]}".strip() + f": {tally[(*key, True)]} equal, "
              f"{tally[(*key, False)]} not")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = probe_arguments(__doc__)
    ap.add_argument("--seed", type=int, default=None,
                    help="draw with this seed instead (written to --out, not the fixture)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--types", choices=("mix", "i16"), default="mix",
                    help="with --seed: the usual type mix, or i16 tiles only")
    ap.add_argument("--confirm", action="store_true",
                    help="the i16 draw held out from slp_repacked (set reduce_pack_confirm)")
    args = ap.parse_args(argv)
    if args.confirm:
        return run_probes(CONFIRM_OUT, args,
                          lambda: build(CONFIRM_SEED, N_PROBES, CONFIRM_TYPES),
                          lambda data: compare(data, CONFIRM_SET))
    if args.seed is not None:
        out = pathlib.Path(args.out or f"/tmp/reduce_pack_{args.seed}.json.gz")
        types = CONFIRM_TYPES if args.types == "i16" else TYPES
        return run_probes(out, args, lambda: build(args.seed, N_PROBES, types), compare)
    return run_probes(OUT, args, build, compare)


if __name__ == "__main__":
    sys.exit(main())
