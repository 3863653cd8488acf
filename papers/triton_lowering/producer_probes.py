#!/usr/bin/env python
"""Held-out probes of where a producer leaves 8/16-bit values: a gather, a reduction or a scan
feeding a ``convert_layout``, the convert's register instructions compared with Triton's
lowering.

Run with Triton 3.9.0 installed (CPU only; about 3 s a probe, three compiles each)::

    python papers/triton_lowering/producer_probes.py                 # writes the fixture
    python papers/triton_lowering/producer_probes.py --check         # compile, compare with it
    python papers/triton_lowering/producer_probes.py --compare-only  # the committed fixture
    python papers/triton_lowering/producer_probes.py --marks         # recompile marked probes

The rule under test (``linlayout.check.registers.wide_sources``): Triton shuffles 32-bit
values, so a warp-local gather whose results are its shuffles' results (NVIDIA: one source
register per column, no select; AMD: a lane along the axis, whose 16-bit selects are 32-bit
``v_cndmask_b32``) and a reduction whose last round is ``redux.sync`` (NVIDIA) leave each
8/16-bit element in a 32-bit register, and a convert packing them pays for it: on NVIDIA one
``prmt.b32`` per word of two 16-bit elements (free from 16-bit registers); on AMD four bytes of
four such registers pack with shifts and SDWA ors, no ``v_perm_b32``. The probes were drawn
(seed :data:`SEED`) after that rule was written: ``gl.gather``, ``gl.reduce`` (max or add,
kept at the element type) and ``gl.associative_scan`` of random ``BlockedLayout`` tiles
(``f16``, ``i16``, ``i8``; 1, 2 or 4 warps; cuda:80/90, gfx942/gfx950), each result converted
to another random blocked layout and stored.

Each probe's stored TTGIR is compiled twice with Triton 3.9.0: as Triton lowers it (LLVM's
``-O3`` middle end skipped, as ``lowering_reference.py`` does) and in full. The fixture keeps,
per convert line, the opcodes of both assemblies (``"lowering"``, ``"final"``) and the same
on the data path only (``"data"``: ``{"lowering": ..., "final": ...}``, counted by
``cvt_heldout_probes.asm_lines(asm, data=True)``: ``datapath.py`` leaves out the opcodes that
compute an address or a lane index, which ``check`` does not report; ``docs/triton-lowering.md``,
"What is counted: the data path"). :func:`compare` puts ``linlayout check --json``'s register
instructions on each convert line (``prmt``/``selp``/``shfl``;
``v_perm``/``v_cndmask``/``ds_bpermute``/DPP/``v_permlane``) next to the lowering's on the
data path, prints every difference, the final assembly's where it differs and the opcodes the
data path left out, and exits 1 on a difference that ``tests/data/known_mismatches.json``
(set ``producer``) does not list. A probe whose lowering has an instruction only the
assembly with ``-O3`` skipped has is compared with the final assembly instead (what runs):
``tests/data/llvm_respelling.json`` marks it ``{"check": "final"}`` with the cause, the
convert's line and the counts of Triton's IR, the lowering and the final assembly there
(:func:`reference`); a mark that records the difference wrongly or is not needed is counted
as a difference (:func:`marks_differ`), and ``--marks`` recompiles the marked probes to check
the recorded counts, the IR's included (:func:`mark_evidence`).
``tests/check/test_producer_probes.py`` replays the fixture without Triton.
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
from fixture import read_fixture  # noqa: E402
from probe_compile import (assembly_records, check_ops, compile_gluon,  # noqa: E402
                           known_mismatches, probe_arguments, run_probes, split)

OUT = ROOT / "tests" / "data" / "triton_producer_probes.json.gz"
SEED = 9413
N_PROBES = int(os.environ.get("N_PROBES", 120))
TARGETS = ("cuda80", "cuda90", "gfx942", "gfx950")
KINDS = ("gather", "reduce", "scan")
#: register-exchange opcodes compared (outside inline assembly)
REGISTER_OPS = re.compile(r"^(shfl\.sync\.\w+\.b32|redux\.sync\.\w+|selp\.[bfsu](?:16|32|64)|"
                          r"prmt\.b32|ds_bpermute_b32|ds_swizzle_b32|v_permlane\w+|"
                          r"v_mov_b32_dpp|v_\w+_dpp|v_cndmask_b32(?:_e32|_e64|_sdwa)?|"
                          r"v_perm_b32)$")


def normalised(op: str) -> str:
    """One name per instruction: ``_e32``/``_e64``/``_sdwa`` encodings (an SDWA select reads
    a 16-bit half in place) and typed ``selp`` spellings dropped, DPP-fused ops counted as
    the DPP move."""
    op = re.sub(r"_(e32|e64|sdwa)$", "", op)
    op = re.sub(r"^selp\.[fsu](\d+)$", r"selp.b\1", op)
    return re.sub(r"^v_\w+_dpp$", "v_mov_b32_dpp", op)


def convert_lines(ttgir: str) -> list[int]:
    """The 1-based lines of the TTGIR's ``ttg.convert_layout`` ops."""
    return [i + 1 for i, s in enumerate(ttgir.splitlines()) if "ttg.convert_layout" in s]


def build(seed: int = SEED, n: int = N_PROBES) -> dict:
    """Compile the probes (Triton 3.9.0)."""
    import triton
    from cvt_heldout_probes import asm_lines
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def combine_max(a, b):
        return gl.maximum(a, b)

    @gluon.jit
    def combine_add(a, b):
        return a + b

    @gluon.jit
    def p_gather(X, I, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
                 D: gl.constexpr, AXIS: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        i = gl.load(I + rm[:, None] * N + rn[None, :])
        y = gl.convert_layout(gl.gather(x, i, AXIS), D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    @gluon.jit
    def p_reduce(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr,
                 AXIS: gl.constexpr, ADD: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        if ADD:
            r = gl.reduce(x, AXIS, combine_add)
        else:
            r = gl.reduce(x, AXIS, combine_max)
        y = gl.convert_layout(r, D)
        if AXIS == 0:
            gl.store(Y + gl.arange(0, N, layout=D), y)
        else:
            gl.store(Y + gl.arange(0, M, layout=D), y)

    @gluon.jit
    def p_scan(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr,
               AXIS: gl.constexpr, ADD: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        if ADD:
            s = gl.associative_scan(x, AXIS, combine_add)
        else:
            s = gl.associative_scan(x, AXIS, combine_max)
        y = gl.convert_layout(s, D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    rng = random.Random(seed)

    def blocked(M: int, N: int, lanes: int, warps: int, warp_dim: int | None = None):
        for _ in range(200):
            spt = [1 << rng.randint(0, 3), 1 << rng.randint(0, 3)]
            tpw, wpc = split(rng, lanes), split(rng, warps, along=warp_dim)
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))
        return gl.BlockedLayout([1, 1], [1, lanes], [warps, 1], [1, 0])

    def column_gather(axis: int, lanes: int, warps: int) -> tuple[int, int, object]:
        """(M, N, layout): lanes span the gather axis, no register along it, warps off it
        (one source register per gather column)."""
        size = rng.choice([s for s in (4, 8, 16, 32) if s <= lanes])
        tpw, wpc, spt = [1, 1], [1, 1], [1, 1]
        tpw[axis], tpw[1 - axis] = size, lanes // size
        wpc[1 - axis] = warps
        spt[1 - axis] = 1 << rng.randint(0, 3)
        shape = [0, 0]
        shape[axis] = size
        shape[1 - axis] = spt[1 - axis] * tpw[1 - axis] * warps * rng.choice([1, 2])
        return shape[0], shape[1], gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))

    def lanes_along(axis: int, M: int, N: int, lanes: int, warps: int):
        """A blocked layout with half or all of a warp's lanes along ``axis`` (where a
        reduction may be one ``redux.sync`` per accumulator)."""
        for _ in range(200):
            tpw = [1, 1]
            tpw[axis] = rng.choice([lanes // 2, lanes])
            tpw[1 - axis] = lanes // tpw[axis]
            spt = [1 << rng.randint(0, 3), 1 << rng.randint(0, 3)]
            wpc = split(rng, warps)
            if all(a * b * c <= d for a, b, c, d in zip(spt, tpw, wpc, (M, N))):
                return gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))
        return blocked(M, N, lanes, warps)

    def blocked_1d(size: int, lanes: int, warps: int):
        return gl.BlockedLayout([1 << rng.randint(0, 3)], [lanes], [warps], [0])

    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    while len(probes) < n and sum(fails.values()) < 4 * n:
        tname = rng.choice(TARGETS)
        lanes = 32 if tname.startswith("cuda") else 64
        kind = rng.choice(KINDS)
        warps = rng.choice([1, 2, 4])
        ty = rng.choice(["*fp16", "*i16", "*i16", "*i8"])
        bits = 8 if ty == "*i8" else 16
        M, N = rng.choice([(16, 64), (32, 32), (64, 16), (32, 64), (64, 32), (16, 128)])
        while M * N < 2 * lanes * warps:
            M *= 2
        axis = rng.randint(0, 1)
        const = {"M": M, "N": N, "AXIS": axis}
        sig = {"X": ty, "Y": ty}
        if kind == "gather":
            if rng.random() < 0.5:
                M, N, L = column_gather(axis, lanes, warps)
                const.update({"M": M, "N": N})
            else:  # warps off the gather axis (warp-local) three times in four
                L = blocked(M, N, lanes, warps, 1 - axis if rng.random() < 0.75 else None)
            D = blocked(M, N, lanes, warps)
            fn = p_gather
            sig = {"X": ty, "I": "*i32", "Y": ty}
        elif kind == "reduce":
            L = lanes_along(axis, M, N, lanes, warps) if rng.random() < 0.5 else \
                blocked(M, N, lanes, warps)
            D = blocked_1d(N if axis == 0 else M, lanes, warps)
            fn = p_reduce
            const["ADD"] = rng.random() < 0.5
        else:
            L = blocked(M, N, lanes, warps)
            D = blocked(M, N, lanes, warps)
            fn = p_scan
            const["ADD"] = rng.random() < 0.5
        const.update({"L": L, "D": D})
        sig.update({k: "constexpr" for k in const})
        name = f"{kind}_b{bits}_{ty[1:]}_{M}x{N}_ax{axis}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
        try:
            ttgir = compile_gluon(fn, sig, const, tname, warps)
            lines = convert_lines(ttgir)
            record = assembly_records(ttgir, tname, lambda asm, data: {
                str(c): asm_lines(asm, data).get(f"probe.ttgir:{c}", {}) for c in lines})
        except Exception as e:  # noqa: BLE001 - a layout Triton rejects is skipped
            fails[type(e).__name__] += 1
            continue
        probes[name] = {"target": tname, "ttgir": ttgir, **record}
        if len(probes) % 10 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "seed": seed, "probes": probes}


def predicted(ops: list[dict]) -> dict[str, dict[str, int]]:
    """``{convert line: {opcode: per thread}}``: check's register instructions on each
    convert's line."""
    out: dict = collections.defaultdict(collections.Counter)
    for o in ops:
        if o["kind"] != "convert":
            continue
        out[str(o["line"])]  # a convert with no register instruction is compared too
        for i in o["instructions"]:
            op = i.get("ptx") or i.get("isa") or ""
            if i.get("space") == "register" and i.get("per_thread") and REGISTER_OPS.match(op):
                out[str(o["line"])][normalised(op)] += i["per_thread"]
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def observed(by_line: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The register opcodes of an assembly record (``"lowering"`` or ``"final"``, whole or
    from ``"data"``), by convert line, normalised."""
    out = {}
    for line, counts in sorted(by_line.items()):
        c: collections.Counter = collections.Counter()
        for op, k in counts.items():
            if REGISTER_OPS.match(op):
                c[normalised(op)] += k
        out[line] = dict(sorted(c.items()))
    return out


def wide_lines(ttgir: str) -> set[str]:
    """The convert lines whose operand a producer left in 32-bit registers (where the rule
    under test applies)."""
    from linlayout.check.registers import wide_sources
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    module = read_ttgir(ttgir)
    accesses = find_accesses(module)
    wide = wide_sources(accesses, module_target(module))
    return {str(a.line) for a in accesses
            if a.kind == "convert" and a.operands and a.operands[0] in wide}


def address_arithmetic(p: dict, label: str) -> dict[str, dict[str, int]]:
    """The compared opcodes of a probe's ``label`` assembly (``"lowering"`` or ``"final"``)
    that the data path leaves out, by convert line (``{}`` where it leaves none out)."""
    out = {}
    for line, whole in observed(p[label]).items():
        cut = observed(p["data"][label]).get(line, {})
        gone = {op: n - cut.get(op, 0) for op, n in whole.items() if n != cut.get(op, 0)}
        if gone:
            out[line] = gone
    return out


def reference(fixture_set: str, name: str) -> str:
    """The assembly record (``"lowering"`` or ``"final"``) ``check`` is compared with on probe
    ``name`` of ``fixture_set``: the final assembly where ``tests/data/llvm_respelling.json``
    marks the probe ``{"check": "final"}`` (:func:`respelling.final_marks`: a difference that
    only the assembly with ``-O3`` skipped has, with its cause), else Triton's lowering."""
    from respelling import follows_final

    return "final" if name in follows_final(fixture_set) else "lowering"


def unexplained(p: dict, mark: dict) -> dict[str, list[int]]:
    """Where probe ``p``'s final assembly differs from its lowering otherwise than ``mark``
    (an entry of ``llvm_respelling.json``: ``"line"`` and ``"counts"``, ``{opcode:
    {"lowering": n, "final": n, ...}}``) records, both on the data path and normalised:
    ``{"line opcode": [lowering, final]}`` for every compared opcode on a convert line whose
    two counts are not the recorded ones (a recorded opcode must differ as recorded; any
    other must not differ). ``{}`` when the mark explains the whole difference."""
    low, fin = observed(p["data"]["lowering"]), observed(p["data"]["final"])
    out = {}
    for line in sorted(set(low) | set(fin)):
        a, b = low.get(line, {}), fin.get(line, {})
        for op in sorted(set(a) | set(b) | (set(mark["counts"]) if line == mark["line"]
                                             else set())):
            got = [a.get(op, 0), b.get(op, 0)]
            want = mark["counts"].get(op) if line == mark["line"] else None
            expected = [want["lowering"], want["final"]] if want else [got[0], got[0]]
            if got != expected:
                out[f"{line} {op}"] = got
    return out


def marks_differ(data: dict, fixture_set: str) -> int:
    """Print each probe ``llvm_respelling.json`` marks ``{"check": "final"}`` in
    ``fixture_set`` and return how many marks are wrong: a probe not in ``data``, a final
    assembly that differs from the lowering otherwise than the mark records
    (:func:`unexplained`), or a mark not needed (``check`` already equals the lowering)."""
    from respelling import final_marks

    bad = 0
    for name, mark in sorted(final_marks(fixture_set).items()):
        p = data["probes"].get(name)
        if p is None:
            print(f"MARK {name}: no such probe")
            bad += 1
            continue
        extra = unexplained(p, mark)
        needed = predicted(check_ops(p["ttgir"])) != observed(p["data"]["lowering"])
        bad += bool(extra) + (not needed)
        print(f"MARK {name} ({mark['cause']}): line {mark['line']} {mark['counts']}"
              + (f"; NOT EXPLAINED {extra}" if extra else "")
              + ("" if needed else "; NOT NEEDED: check equals the lowering"))
    return bad


def ir_selects(ll: str) -> dict[str, dict[str, int]]:
    """``lowering_reference.ir_counts`` of AMD LLVM IR text ``ll`` (``{"file:line": {opcode:
    n}}``), leaving out each ``select`` whose two values are the same value: it selects
    nothing, and instruction selection folds it (no ``v_cndmask_b32`` in either assembly)."""
    from lowering_reference import ir_counts

    same = re.compile(r"= select (?:\w+ )*i1 [^,]+, ([^,]+), \1(?:,|$)")
    return ir_counts("\n".join(s for s in ll.splitlines() if not same.search(s)), amd=True)


def mark_evidence(data: dict, fixture_set: str) -> int:
    """Recompile each marked probe of ``fixture_set`` (Triton 3.9.0, with and without
    ``-O3``) and compare the counts its mark records on its line with Triton's LLVM IR before
    ``-O3`` (:func:`ir_selects`) and the two assemblies on the data path; print them and
    return the number of marks whose counts differ."""
    from cvt_heldout_probes import asm_lines
    from lowering_reference import compile_probe
    from respelling import final_marks

    bad = 0
    for name, mark in sorted(final_marks(fixture_set).items()):
        p = data["probes"][name]
        key = f"probe.ttgir:{mark['line']}"
        low, _, pre = compile_probe(p["ttgir"], p["target"], o3=False)
        fin = compile_probe(p["ttgir"], p["target"], o3=True)[0]
        got = {"ir": ir_selects(pre).get(key, {}),
               "lowering": observed({key: asm_lines(low, True).get(key, {})})[key],
               "final": observed({key: asm_lines(fin, True).get(key, {})})[key]}
        for op, want in sorted(mark["counts"].items()):
            seen = {label: got[label].get(op, 0) for label in ("ir", "lowering", "final")}
            ok = seen == want
            bad += not ok
            print(f"{'ok' if ok else 'MISMATCH'} {name} line {mark['line']} {op}: "
                  f"recorded {want}, compiled {seen}")
    return bad


def compare(data: dict, fixture_set: str = "producer") -> int:
    """Print every probe whose prediction differs from what it is compared with on the data
    path (what ``check`` reports; Triton's lowering, or the final assembly where
    ``llvm_respelling.json`` marks the probe: :func:`reference`), what the data path left
    out, and a tally; return the number of differences not listed in
    ``tests/data/known_mismatches.json`` (set ``fixture_set``) plus the wrong marks
    (:func:`marks_differ`)."""
    known = known_mismatches(fixture_set)
    bad = marks_differ(data, fixture_set)
    tally: collections.Counter = collections.Counter()
    final_differs = 0
    applies = 0
    for name, p in sorted(data["probes"].items()):
        pred = predicted(check_ops(p["ttgir"]))
        low, fin = observed(p["data"]["lowering"]), observed(p["data"]["final"])
        ref = fin if reference(fixture_set, name) == "final" else low
        for label in ("lowering", "final"):
            gone = address_arithmetic(p, label)
            if gone:
                print(f"address arithmetic {name} ({label}): {gone}")
        rule = bool(wide_lines(p["ttgir"]))
        applies += rule
        same = pred == ref
        kind = name.split("_")[0]
        tally[(p["target"], kind, same)] += 1
        tally[("rule" if rule else "other", "", same)] += 1
        if low != fin:
            final_differs += 1
            print(f"FINAL {name}: lowering {low} final {fin}")
        if not same:
            bad += name not in known
            print(f"DIFF {name}: predicted {pred} {reference(fixture_set, name)} {ref}"
                  + (f" (known: {known[name]})" if name in known else ""))
    for (a, b, _) in sorted({(a, b, 0) for a, b, _ in tally}):
        print(f"{a} {b}".strip() + f": {tally[(a, b, True)]} equal, {tally[(a, b, False)]} not")
    total = len(data["probes"])
    print(f"producers leaving 32-bit registers in {applies} of {total} probes; final assembly "
          f"differs from the lowering in {final_differs} (data path)")
    print(f"all: {sum(n for (a, b, s), n in tally.items() if s and a not in ('rule', 'other'))}"
          f" of {total} equal to Triton's lowering (data path; the final assembly where "
          "marked)")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = probe_arguments(__doc__)
    ap.add_argument("--marks", action="store_true",
                    help="recompile the probes llvm_respelling.json marks, check its counts")
    args = ap.parse_args(argv)
    if args.marks:
        return 1 if mark_evidence(read_fixture(OUT), "producer") else 0
    return run_probes(OUT, args, build, compare)


if __name__ == "__main__":
    sys.exit(main())
