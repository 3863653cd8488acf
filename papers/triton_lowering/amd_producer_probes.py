#!/usr/bin/env python
"""Held-out probes of how AMD packs a scan's or a reduction's 8/16-bit results for the
``convert_layout`` that follows: the convert's register instructions compared with Triton's
lowering on gfx942 and gfx950.

Run with Triton 3.9.0 installed (CPU only; about 3 s a probe, three compiles each)::

    python papers/triton_lowering/amd_producer_probes.py                 # writes the fixture
    python papers/triton_lowering/amd_producer_probes.py --check         # compile, compare
    python papers/triton_lowering/amd_producer_probes.py --compare-only  # the committed fixture
    python papers/triton_lowering/amd_producer_probes.py --third         # the third draw
    python papers/triton_lowering/amd_producer_probes.py --marks [--third]  # marked probes
    python papers/triton_lowering/amd_producer_probes.py --fourth        # the fourth draw
    python papers/triton_lowering/amd_producer_probes.py --bf16-evidence # its bf16 probes' IR

The rule under test (``linlayout.check.registers.produced_values``, written before these
probes were drawn): ``check`` follows Triton's ``ScanOpToLLVM.cpp`` value by value (in-thread
prefix, ``warpScan`` selects, ``AddPartialReduceOneWarp`` or, across warps, predicated
shared-memory stores that end the basic block and ``AddPartialReduce``) and takes a
partial-warp reduction's results to be its combine op's; an ``f16`` result that LLVM's
``isCanonicalized`` proves canonical (a float combine, or selects of such at most four deep,
in the same basic block) packs with ``v_pack_b32_f16``, any other 16-bit pair with one
``v_perm_b32``; a byte computed in a 32-bit register packs with shifts and SDWA ors, a
zero-extended one (as loaded, or reloaded from shared memory) by a byte-provider
``v_perm_b32`` when it is a 16-bit half's high byte. The probes (seed :data:`SEED`, drawn
after that rule) are ``gl.associative_scan`` (forward and reverse) and ``gl.reduce`` (lanes
along the axis fewer than a warp's, warps along it or not) of ``f16``, ``bf16``, ``i16`` and
``i8`` tiles in random ``BlockedLayout``s with an add, max or min combine, each result
converted to another random blocked layout and stored.

Each probe's TTGIR is compiled as Triton lowers it (LLVM's ``-O3`` middle end skipped) and in
full; the fixture keeps, per convert line, the opcodes of both assemblies and the same on the
data path (``"data"``, ``datapath.py``), as ``producer_probes.py`` does, whose comparison
this script reuses (known differences: ``tests/data/known_mismatches.json``, set
``amd_producer``; the probes compared with the final assembly instead, marked in
``tests/data/llvm_respelling.json``: ``producer_probes.reference``).
``tests/check/test_amd_producer_probes.py`` replays the fixture without Triton.
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

import producer_probes as pp  # noqa: E402  (the shared comparison)
from fixture import read_fixture  # noqa: E402
from probe_compile import (assembly_records, check_ops, compile_gluon,  # noqa: E402
                           known_mismatches, probe_arguments, run_probes, split)

OUT = ROOT / "tests" / "data" / "triton_amd_producer_probes.json.gz"
SEED = 7741
N_PROBES = int(os.environ.get("N_PROBES", 80))
TARGETS = ("gfx942", "gfx950")
TYPES = ("*fp16", "*fp16", "*bf16", "*i16", "*i8", "*i8")
COMBINES = ("add", "max", "min")
#: every combine a probe may use; a probe's ``OP`` constexpr is its index here
ALL_COMBINES = ("add", "max", "min", "sub", "mul")
#: the draws of the first three sets (their fixtures depend on these exact choices)
WARPS = (1, 1, 2, 4)
KINDS = ("scan", "scan", "reduce")
KNOWN_SET = "amd_producer"
#: the register opcodes the fourth draw records: ``cvt_heldout_probes.REGISTER_OPS``'s AMD
#: ones and the SDWA spelling of ``v_cndmask_b32`` (a select that reads a gfx942 ``bf16`` in
#: the high half where the integer rounding left it, ``src1_sel:WORD_1``), one select as any
#: other. The first three draws record ``REGISTER_OPS`` as they were made (regenerated with
#: this one, the third's final-assembly record of ``reduce_b8_i8_64x16_ax1_w1_min_365b12_gfx950``
#: would gain one ``v_cndmask_b32_sdwa``; the lowering records compared are the same)
SDWA_RECORDED_OPS = re.compile(r"^(ds_bpermute_b32|ds_swizzle_b32|v_permlane\w+|v_perm_b32|"
                               r"v_cndmask_b32(?:_e\d+|_sdwa)?|\w+_dpp)$")
#: ``--confirm``: a second draw, made after the two rules the first one added (``bf16``
#: conversion pairs on gfx950, computed byte pairs), weighted to the types they cover
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_amd_producer_confirm_probes.json.gz"
CONFIRM_SEED = 7742
CONFIRM_N = 40
CONFIRM_TYPES = ("*bf16", "*bf16", "*bf16", "*i8", "*i8", "*i8", "*fp16", "*i16")
#: ``--third``: a third draw, made after gfx942's ``bf16`` high halves were modelled
THIRD_OUT = ROOT / "tests" / "data" / "triton_amd_producer_third_probes.json.gz"
THIRD_SEED = 7752
THIRD_N = 120
THIRD_TYPES = ("*i8", "*i16", "*fp16", "*bf16")
#: ``--fourth``: a fourth draw, made after gfx950's ``bf16`` add/sub/mul were found to round
#: as on gfx942, weighted to ``bf16`` (gfx950 with every combine; gfx942 scans and
#: reductions whose results leave low halves under high halves), 1 to 8 warps
FOURTH_OUT = ROOT / "tests" / "data" / "triton_amd_producer_fourth_probes.json.gz"
FOURTH_SEED = 7763
FOURTH_N = 100
FOURTH_TYPES = ("*bf16",) * 6 + ("*fp16", "*i16")
FOURTH_COMBINES = ALL_COMBINES
FOURTH_WARPS = (1, 2, 4, 8)
FOURTH_KINDS = ("scan", "reduce")


def build(seed: int = SEED, n: int = N_PROBES, types: tuple[str, ...] = TYPES,
          combines: tuple[str, ...] = COMBINES, warp_counts: tuple[int, ...] = WARPS,
          kinds: tuple[str, ...] = KINDS, sdwa_selects: bool = False) -> dict:
    """Compile the probes (Triton 3.9.0): ``n`` drawn with ``seed``, each choosing a target,
    a kind, a warp count, a type and a combine uniformly from the tuples given (repeats
    weight a choice); the defaults are the first draw's, which the ``--confirm`` and
    ``--third`` draws share. ``sdwa_selects``: record ``v_cndmask_b32_sdwa`` too
    (:data:`SDWA_RECORDED_OPS`)."""
    import triton
    from cvt_heldout_probes import REGISTER_OPS, asm_lines

    recorded = SDWA_RECORDED_OPS if sdwa_selects else REGISTER_OPS
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def combine_add(a, b):
        return a + b

    @gluon.jit
    def combine_max(a, b):
        return gl.maximum(a, b)

    @gluon.jit
    def combine_min(a, b):
        return gl.minimum(a, b)

    @gluon.jit
    def combine_sub(a, b):
        return a - b

    @gluon.jit
    def combine_mul(a, b):
        return a * b

    @gluon.jit
    def p_reduce(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr,
                 AXIS: gl.constexpr, OP: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        if OP == 0:
            r = gl.reduce(x, AXIS, combine_add)
        elif OP == 1:
            r = gl.reduce(x, AXIS, combine_max)
        elif OP == 2:
            r = gl.reduce(x, AXIS, combine_min)
        elif OP == 3:
            r = gl.reduce(x, AXIS, combine_sub)
        else:
            r = gl.reduce(x, AXIS, combine_mul)
        y = gl.convert_layout(r, D)
        if AXIS == 0:
            gl.store(Y + gl.arange(0, N, layout=D), y)
        else:
            gl.store(Y + gl.arange(0, M, layout=D), y)

    @gluon.jit
    def p_scan(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr,
               AXIS: gl.constexpr, OP: gl.constexpr, REV: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        if OP == 0:
            s = gl.associative_scan(x, AXIS, combine_add, reverse=REV)
        elif OP == 1:
            s = gl.associative_scan(x, AXIS, combine_max, reverse=REV)
        elif OP == 2:
            s = gl.associative_scan(x, AXIS, combine_min, reverse=REV)
        elif OP == 3:
            s = gl.associative_scan(x, AXIS, combine_sub, reverse=REV)
        else:
            s = gl.associative_scan(x, AXIS, combine_mul, reverse=REV)
        y = gl.convert_layout(s, D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    rng = random.Random(seed)

    def blocked(M: int, N: int, warps: int, axis: int | None = None, lanes_axis: int = 0):
        """A random blocked layout of 64 lanes; with ``lanes_axis``, that many lanes along
        ``axis`` (a partial warp)."""
        for _ in range(300):
            spt = [1 << rng.randint(0, 3), 1 << rng.randint(0, 3)]
            if lanes_axis:
                tpw = [1, 1]
                tpw[axis] = lanes_axis
                tpw[1 - axis] = 64 // lanes_axis
            else:
                tpw = split(rng, 64)
            wpc = split(rng, warps, along=axis if axis is not None and rng.random() < 0.5
                        else None)
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))
        return gl.BlockedLayout([1, 1], [1, 64], [warps, 1], [1, 0])

    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    while len(probes) < n and sum(fails.values()) < 4 * n:
        tname = rng.choice(TARGETS)
        kind = rng.choice(kinds)
        warps = rng.choice(warp_counts)
        ty = rng.choice(types)
        bits = 8 if ty == "*i8" else 16
        M, N = rng.choice([(16, 64), (32, 32), (64, 16), (32, 64), (64, 32), (16, 128),
                           (128, 16), (64, 64)])
        while M * N < 2 * 64 * warps:
            M *= 2
        axis = rng.randint(0, 1)
        combine = combines[rng.randrange(len(combines))]
        const = {"M": M, "N": N, "AXIS": axis, "OP": ALL_COMBINES.index(combine)}
        if kind == "reduce":
            L = blocked(M, N, warps, axis, rng.choice([2, 4, 8, 16, 32]))
            D = gl.BlockedLayout([1 << rng.randint(0, 3)], [64], [warps], [0])
            fn = p_reduce
            rev = False
        else:
            L = blocked(M, N, warps, axis)
            D = blocked(M, N, warps)
            fn = p_scan
            rev = rng.random() < 0.2
            const["REV"] = rev
        const.update({"L": L, "D": D})
        sig = {"X": ty, "Y": ty, **{k: "constexpr" for k in const}}
        name = (f"{kind}_b{bits}_{ty[1:]}_{M}x{N}_ax{axis}_w{warps}_{combine}"
                f"{'_rev' if rev else ''}_{rng.getrandbits(24):06x}_{tname}")
        try:
            ttgir = compile_gluon(fn, sig, const, tname, warps)
            lines = pp.convert_lines(ttgir)
            if not lines:
                fails["no convert"] += 1
                continue
            record = assembly_records(ttgir, tname, lambda asm, data: {
                str(c): asm_lines(asm, data, recorded).get(f"probe.ttgir:{c}", {})
                for c in lines})
        except Exception as e:  # noqa: BLE001 - a layout or type Triton rejects is skipped
            fails[type(e).__name__] += 1
            continue
        probes[name] = {"target": tname, "ttgir": ttgir, **record}
        if len(probes) % 10 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "seed": seed, "probes": probes}


def modelled_lines(ttgir: str) -> set[str]:
    """The convert lines whose operand a scan or reduction produced whose result registers
    ``check`` models (:func:`linlayout.check.registers.produced_values`)."""
    from linlayout.check.registers import produced_values
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    module = read_ttgir(ttgir)
    accesses = find_accesses(module)
    made = produced_values(accesses, module_target(module))
    return {str(a.line) for a in accesses
            if a.kind == "convert" and a.operands and a.operands[0] in made}


def compare(data: dict, known_set: str = KNOWN_SET) -> int:
    """Print every probe whose prediction differs on the data path from what it is compared
    with (Triton's lowering, or the final assembly where ``tests/data/llvm_respelling.json``
    marks the probe: ``producer_probes.reference``), and a tally by target, producer and
    type; return the number of differences not listed in ``tests/data/known_mismatches.json``
    (set ``known_set``, also the fixture set's name) plus the wrong marks
    (``producer_probes.marks_differ``)."""
    known = known_mismatches(known_set)
    bad = pp.marks_differ(data, known_set)
    tally: collections.Counter = collections.Counter()
    for name, p in sorted(data["probes"].items()):
        pred = pp.predicted(check_ops(p["ttgir"]))
        label = pp.reference(known_set, name)
        low = pp.observed(p["data"][label])
        same = pred == low
        kind, ty = name.split("_")[0], name.split("_")[2]
        tally[(p["target"], kind, same)] += 1
        tally[(ty, "", same)] += 1
        tally[("modelled" if modelled_lines(p["ttgir"]) else "not modelled", "", same)] += 1
        if not same:
            bad += name not in known
            print(f"DIFF {name}: predicted {pred} {label} {low}"
                  + (" (known)" if name in known else ""))
    for (a, b, _) in sorted({(a, b, 0) for a, b, _ in tally}):
        print(f"{a} {b}".strip() + f": {tally[(a, b, True)]} equal, {tally[(a, b, False)]} not")
    total = len(data["probes"])
    equal = sum(n for (a, b, s), n in tally.items() if s and a in TARGETS)
    print(f"all: {equal} of {total} equal to Triton's lowering (data path; the final "
          "assembly where marked)")
    return bad


def low_under_high_pairs(ttgir: str) -> int:
    """The 16-bit pairs ``check`` prices as one ``v_bfi_b32`` (a low half under a computed
    high half, :func:`linlayout.lowering.amd_pack.pack_permutes`) on its way through a TTGIR
    text, counted by wrapping ``pack_permutes`` where the lowering modules call it (with the
    package's caches emptied first, :func:`linlayout.clear_caches`, so that no result cached
    before is reused uncounted)."""
    from linlayout import clear_caches
    from linlayout.conversion import exchange
    from linlayout.lowering import amd_pack, convert, round_trip_pack

    count = 0
    original = amd_pack.pack_permutes

    def counting(pack, element_bits):
        nonlocal count
        if element_bits == 16 and len(pack) == 2 and pack[0].word != pack[1].word \
                and pack[0].byte == 0 and pack[1].opaque and pack[1].byte == 2:
            count += 1
        return original(pack, element_bits)

    users = (amd_pack, convert, round_trip_pack, exchange)
    clear_caches()
    for m in users:
        m.pack_permutes = counting
    try:
        check_ops(ttgir)
    finally:
        for m in users:
            m.pack_permutes = original
    return count


def bf16_evidence(data: dict) -> None:
    """For each ``bf16`` probe of ``data``: how Triton's IR (``-O3`` skipped) computes the
    combine (``llvm.maxnum/minnum.bf16``, ``f32`` arithmetic with an integer rounding,
    ``<2 x bfloat>`` vector ops), the ``v_cvt_pk_bf16_f32`` and ``v_bfi_b32`` of its
    assembly, and the low-under-high pairs ``check`` prices (:func:`low_under_high_pairs`);
    then a tally (Triton 3.9.0 needed)."""
    import triton
    from probe_compile import gpu_target, private_triton_cache
    from triton._C.libtriton import llvm

    tally: collections.Counter = collections.Counter()
    orig = llvm.optimize_module
    llvm.optimize_module = lambda mod, *a, **kw: None
    try:
        for name, p in sorted(data["probes"].items()):
            parts = name.split("_")
            if parts[2] != "bf16":
                continue
            with private_triton_cache() as d:  # the key does not see the skipped -O3
                path = pathlib.Path(d) / "probe.ttgir"
                path.write_text(p["ttgir"], encoding="utf-8")
                k = triton.compile(str(path), target=gpu_target(p["target"]))
            ll, asm = k.asm["llir"], k.asm["amdgcn"]
            native = bool(re.search(r"llvm\.(maxnum|minnum)\.bf16", ll))
            f32 = bool(re.search(r"= f(add|sub|mul) float", ll))
            vector = bool(re.search(r"= f\w+ <2 x bfloat>", ll))
            cvt = asm.count("v_cvt_pk_bf16_f32")
            bfi = asm.count("v_bfi_b32")
            pairs = low_under_high_pairs(p["ttgir"])
            print(f"{name}: native {native}, f32 {f32}, vector {vector}, "
                  f"v_cvt_pk_bf16_f32 {cvt}, v_bfi_b32 {bfi}, low-under-high pairs {pairs}")
            tally[(p["target"], parts[6], "native" if native else "f32" if f32 else "?",
                   "cvt_pk" if cvt else "no cvt_pk")] += 1
            tally[("v_bfi_b32 == pairs", bfi == pairs)] += 1
    finally:
        llvm.optimize_module = orig
    for key, n in sorted(tally.items(), key=str):
        print(" ".join(map(str, key)), n)


def main(argv: list[str] | None = None) -> int:
    ap = probe_arguments(__doc__)
    ap.add_argument("--confirm", action="store_true",
                    help=f"the second draw (seed {CONFIRM_SEED}, {CONFIRM_N} probes)")
    ap.add_argument("--third", action="store_true",
                    help=f"the third draw (seed {THIRD_SEED}, {THIRD_N} probes)")
    ap.add_argument("--marks", action="store_true",
                    help="recompile the probes llvm_respelling.json marks in the chosen set, "
                         "check the counts it records")
    ap.add_argument("--fourth", action="store_true",
                    help=f"the fourth draw (seed {FOURTH_SEED}, {FOURTH_N} probes)")
    ap.add_argument("--bf16-evidence", action="store_true",
                    help="compile the fourth draw's bf16 probes and print how Triton "
                         "computes each combine and the v_bfi_b32 pairs (no fixture written)")
    args = ap.parse_args(argv)
    if args.marks:
        out, name = ((CONFIRM_OUT, "_confirm") if args.confirm else
                     (THIRD_OUT, "_third") if args.third else
                     (FOURTH_OUT, "_fourth") if args.fourth else (OUT, ""))
        return 1 if pp.mark_evidence(read_fixture(out), KNOWN_SET + name) else 0
    if args.bf16_evidence:
        bf16_evidence(read_fixture(FOURTH_OUT))
        return 0
    if args.fourth:
        return run_probes(FOURTH_OUT, args,
                          lambda: build(FOURTH_SEED, FOURTH_N, FOURTH_TYPES, FOURTH_COMBINES,
                                        FOURTH_WARPS, FOURTH_KINDS, sdwa_selects=True),
                          lambda data: compare(data, KNOWN_SET + "_fourth"))
    if args.confirm:
        return run_probes(CONFIRM_OUT, args,
                          lambda: build(CONFIRM_SEED, CONFIRM_N, CONFIRM_TYPES),
                          lambda data: compare(data, KNOWN_SET + "_confirm"))
    if args.third:
        return run_probes(THIRD_OUT, args, lambda: build(THIRD_SEED, THIRD_N, THIRD_TYPES),
                          lambda data: compare(data, KNOWN_SET + "_third"))
    return run_probes(OUT, args, build, compare)


if __name__ == "__main__":
    sys.exit(main())
