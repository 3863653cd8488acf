#!/usr/bin/env python
"""Held-out probes of NVIDIA integer reductions: the register instructions of every
``tt.reduce`` (its ``redux.sync`` or butterfly shuffles and the packing of its own
``convert_layout``s) and of every convert after it, compared with Triton's lowering.

Run with Triton 3.9.0 installed (CPU only; about 5 s a probe, three compiles each)::

    python papers/triton_lowering/redux_heldout_probes.py                 # writes the fixture
    python papers/triton_lowering/redux_heldout_probes.py --check         # compile, compare
    python papers/triton_lowering/redux_heldout_probes.py --compare-only  # the committed fixture

The rules under test (``linlayout.check.registers.reduce``): on NVIDIA sm_80+ an in-warp
round of a one-operand integer reduction whose combine op is one ``add``/``min``/``max``/
``and``/``or``/``xor`` is ``redux.sync`` (``redux_instructions``) where enough lanes lie
along the axis; such a round leaves 8/16-bit partial results in 32-bit registers, so the
converts that follow it — inside the reduction (to ``getInterLayout`` before a cross-warp
round, or to the result layout) and after it — pay for packing them (``redux_rounds``,
``reduce_leaves_words``: one ``prmt.b32`` per word of two 16-bit elements, three per word of
four bytes), while butterfly rounds and float sums (no ``redux.sync``) leave registers of
the element's width. The first draw (seed :data:`SEED`, 100 probes, not tuned) was made after
those rules were written; before, they were checked on two exploration kernels only. It
showed two more rules (the selects that feed a ``redux.sync``: ``redux_selects``; an 8-bit
shuffle convert unpacks only the bytes its destination keeps); a second draw
(:data:`AFTER`) was made after them. A third, 8-bit heavy (:data:`BYTES`), was made after
the selects of two constant ``prmt`` selectors shared between the converts of a function
were modelled (``linlayout.check.registers.selects``: Triton's CSE after lowering). All three
are in the fixture, each probe with its ``"seed"``; ``--add`` compiles only the draws the
fixture lacks. A fourth draw (:data:`FRESH`, 8-bit heavy as the third) was made after NVPTX's
selection of an 8-bit reduction's reloaded byte extracts was modelled
(``linlayout.lowering.byte_extracts``): ``--fresh`` writes it to its own fixture
(:data:`FRESH_OUT`, set ``redux_fresh``; ``tests/check/test_redux_fresh_probes.py``).

Two families of Gluon kernels on cuda:80, cuda:90 and cuda:100:

* ``r2``: a 2-D tile in a random ``BlockedLayout`` (or a ``SliceLayout`` of a random 3-D
  one), 1 to 8 warps, half of the draws with half or all of a warp's lanes along the reduced
  axis and warps along it one time in three (a cross-warp round through shared memory),
  reduced over either axis and the result converted to a random 1-D blocked layout;
* ``r3``: a 3-D tile reduced over one axis, the 2-D result (a slice layout) converted to a
  random blocked layout, reduced again over one of its axes and converted to a 1-D layout —
  two reductions with converts between them.

Element types ``i8``, ``i16``, ``i32``, ``u8``, ``u16`` (combine ``add``, ``max``, ``min``,
``xor``, ``and``, ``or``; unsigned ``max``/``min`` are ``maxui``/``minui``) and ``f16``/``bf16``
sums (no ``redux.sync``), every reduction kept at its element type (a ``gl.reduce`` with a
Gluon combine function, no promotion).

Each probe's TTGIR is compiled again from its stored text twice: as Triton lowers it
(LLVM's ``-O3`` middle end skipped, as ``lowering_reference.py`` does) and in full. The
fixture keeps, per TTGIR line of a ``tt.reduce`` or a ``ttg.convert_layout``, the register
opcodes (``redux.sync``, ``shfl.sync``, ``selp``, ``prmt``; outside inline assembly) and the
shared-memory opcodes of both assemblies, whole and on the data path (``"data"``,
``datapath.py``). :func:`compare` puts ``linlayout check --json``'s instructions on each such
line next to the lowering's on the data path — register opcodes on every line, shared-memory
opcodes on the reduce lines (a reduction's round trips are its own) — prints every difference
and exits 1 on one that ``tests/data/known_mismatches.json`` (set ``redux_heldout``) does not
list. ``tests/check/test_redux_heldout_probes.py`` replays the fixture without Triton.
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
from datapath import data_path_lines  # noqa: E402
from fixture import read_fixture  # noqa: E402
from probe_compile import (assembly_records, check_ops, compile_gluon,  # noqa: E402
                           known_mismatches, probe_arguments, run_probes, split)

OUT = ROOT / "tests" / "data" / "triton_redux_heldout_probes.json.gz"
SEED = 5309
N_PROBES = int(os.environ.get("N_PROBES", 100))
#: a second draw (seed, probes), made after the rules the first one showed were added
AFTER = (5311, 60)
#: the element types drawn (a probe's type is one of these, uniformly)
MIX = ("i8", "i8", "i16", "i16", "u8", "u16", "i32", "f16", "bf16")
#: a third draw (seed, probes, types), 8-bit heavy, made after selector selects shared between
#: converts were modelled
BYTES = (5317, 60, ("i8", "i8", "u8", "u8", "i16", "f16"))
#: a fourth draw (seed, probes, types), made after NVPTX's selection of the byte extracts of an
#: 8-bit reduction's reloaded words was modelled; its own fixture
FRESH = (5323, 40, BYTES[2])
FRESH_OUT = ROOT / "tests" / "data" / "triton_redux_fresh_probes.json.gz"
TARGETS = ("cuda80", "cuda90", "cuda100")
#: register opcodes compared (outside inline assembly)
REGISTER_OPS = re.compile(r"^(shfl\.sync\.\w+\.b32|redux\.sync(?:\.\w+)+|selp\.[bfsu](?:16|32|64)|"
                          r"prmt\.b32)$")
SHARED_OPS = re.compile(r"^(ld\.shared|st\.shared)")
SHARED_WIDTH = re.compile(r"^(ld|st)\.shared(?:\.v(\d))?\.[bsu](\d+)$")
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
#: (name, element type, combine ops it is drawn with)
TYPES = {"i8": ("*i8", ("add", "max", "min", "xor", "and", "or")),
         "i16": ("*i16", ("add", "max", "min", "xor", "and", "or")),
         "i32": ("*i32", ("add", "max", "min", "xor", "and", "or")),
         "u8": ("*u8", ("add", "max", "min", "xor")),
         "u16": ("*u16", ("add", "max", "min", "xor")),
         "f16": ("*fp16", ("add",)),
         "bf16": ("*bf16", ("add",))}
COMBINES = ("add", "max", "min", "xor", "and", "or")


def normalised(op: str) -> str:
    """One name per instruction: typed ``selp`` spellings as ``selp.b<bits>``."""
    return re.sub(r"^selp\.[fsu](\d+)$", r"selp.b\1", op)


def line_counts(asm: str, data: bool = False) -> dict[int, dict[str, int]]:
    """``{TTGIR line: {opcode: count}}``: the register opcodes (outside inline assembly) and
    shared-memory opcodes of a PTX text by the ``.loc`` line they are attributed to;
    ``data``: those on the data path only (``datapath.py``)."""
    on = data_path_lines(asm, False) if data else None
    out: dict = collections.defaultdict(collections.Counter)
    cur, inline = None, False
    for i, raw in enumerate(asm.splitlines()):
        s = raw.strip()
        if "begin inline asm" in s:
            inline = True
        if "end inline asm" in s:
            inline = False
        m = LOC.match(s)
        if m:
            cur = int(m.group(2))
            continue
        if cur is None or not s or s.startswith(("//", ".", "{", "}")) or s.endswith(":"):
            continue
        op = s.split()[0].rstrip(",")
        if op.startswith("@"):
            op = s.split()[1]
        if on is not None and i not in on:
            continue
        if (REGISTER_OPS.match(op) and not inline) or SHARED_OPS.match(op):
            out[cur][normalised(op)] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def op_lines(ttgir: str) -> list[int]:
    """The 1-based TTGIR lines of the ``tt.reduce`` and ``ttg.convert_layout`` ops."""
    return [i + 1 for i, s in enumerate(ttgir.splitlines())
            if "ttg.convert_layout" in s or re.search(r'"?tt\.reduce"?\(', s)]


def build(seed: int = SEED, n: int = N_PROBES, types: tuple[str, ...] = MIX) -> dict:
    """Compile the probes (Triton 3.9.0), each of an element type drawn from ``types``."""
    import triton
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def c_add(a, b):
        return a + b

    @gluon.jit
    def c_max(a, b):
        return gl.maximum(a, b)

    @gluon.jit
    def c_min(a, b):
        return gl.minimum(a, b)

    @gluon.jit
    def c_xor(a, b):
        return a ^ b

    @gluon.jit
    def c_and(a, b):
        return a & b

    @gluon.jit
    def c_or(a, b):
        return a | b

    @gluon.jit
    def reduce_by(x, axis: gl.constexpr, kind: gl.constexpr):
        if kind == 0:
            r = gl.reduce(x, axis, c_add)
        elif kind == 1:
            r = gl.reduce(x, axis, c_max)
        elif kind == 2:
            r = gl.reduce(x, axis, c_min)
        elif kind == 3:
            r = gl.reduce(x, axis, c_xor)
        elif kind == 4:
            r = gl.reduce(x, axis, c_and)
        else:
            r = gl.reduce(x, axis, c_or)
        return r

    @gluon.jit
    def r2(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr,
           AXIS: gl.constexpr, KIND: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        y = gl.convert_layout(reduce_by(x, AXIS, KIND), D)
        if AXIS == 0:
            gl.store(Y + gl.arange(0, N, layout=D), y)
        else:
            gl.store(Y + gl.arange(0, M, layout=D), y)

    @gluon.jit
    def r3(X, Y, A: gl.constexpr, B: gl.constexpr, C: gl.constexpr, L: gl.constexpr,
           D2: gl.constexpr, D1: gl.constexpr, AX1: gl.constexpr, AX2: gl.constexpr,
           R: gl.constexpr, KIND: gl.constexpr):
        ra = gl.arange(0, A, layout=gl.SliceLayout(1, gl.SliceLayout(2, L)))
        rb = gl.arange(0, B, layout=gl.SliceLayout(0, gl.SliceLayout(2, L)))
        rc = gl.arange(0, C, layout=gl.SliceLayout(0, gl.SliceLayout(1, L)))
        x = gl.load(X + ra[:, None, None] * (B * C) + rb[None, :, None] * C
                    + rc[None, None, :])
        z = gl.convert_layout(reduce_by(x, AX1, KIND), D2)
        y = gl.convert_layout(reduce_by(z, AX2, KIND), D1)
        gl.store(Y + gl.arange(0, R, layout=D1), y)

    rng = random.Random(seed)

    def blocked(shape: list[int], warps: int, axis: int | None = None, lanes_bias: bool = False,
                warps_along: bool = False):
        """A random blocked layout fitting ``shape``; ``lanes_bias``: half or all of the
        lanes along ``axis``; ``warps_along``: warps mostly along ``axis``."""
        dims = len(shape)
        for _ in range(400):
            spt = [1 << rng.randint(0, 2) for _ in range(dims)]
            if lanes_bias and axis is not None:
                tpw = [1] * dims
                tpw[axis] = rng.choice([16, 32])
                tpw[rng.choice([d for d in range(dims) if d != axis])] *= 32 // tpw[axis]
            else:
                tpw = split(rng, 32, dims)
            wpc = split(rng, warps, dims, axis if warps_along else None, 0.8)
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, shape)):
                order = list(range(dims))
                rng.shuffle(order)
                return gl.BlockedLayout(spt, tpw, wpc, order)
        return None

    def blocked_1d(warps: int):
        return gl.BlockedLayout([1 << rng.randint(0, 2)], [32], [warps], [0])

    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    while len(probes) < n and sum(fails.values()) < 4 * n:
        tname = rng.choice(TARGETS)
        family = "r3" if rng.random() < 0.3 else "r2"
        warps = rng.choice([1, 2, 4, 8])
        ty = rng.choice(list(types))
        ptr, kinds = TYPES[ty]
        kind = rng.choice(kinds)
        sig = {"X": ptr, "Y": ptr}
        lanes_bias = rng.random() < 0.5
        warps_along = rng.random() < 1 / 3
        if family == "r2":
            M, N = rng.choice([(16, 64), (32, 32), (64, 16), (32, 64), (64, 32), (16, 128),
                               (8, 256), (128, 8)])
            axis = rng.randint(0, 1)
            if rng.random() < 0.25:  # a slice of a 3-D blocked layout
                L3 = blocked([M, N, 2], warps, axis, lanes_bias, warps_along)
                L = gl.SliceLayout(2, L3) if L3 is not None else None
            else:
                L = blocked([M, N], warps, axis, lanes_bias, warps_along)
            D = blocked_1d(warps)
            const = {"M": M, "N": N, "L": L, "D": D, "AXIS": axis,
                     "KIND": COMBINES.index(kind)}
            shape = f"{M}x{N}_ax{axis}"
            fn = r2
        else:
            A, B, C = rng.choice([(4, 8, 32), (8, 8, 16), (16, 4, 16), (4, 32, 8), (8, 16, 8),
                                  (2, 16, 32)])
            ax1 = rng.randint(0, 2)
            L = blocked([A, B, C], warps, ax1, lanes_bias, warps_along)
            rest = [s for d, s in enumerate((A, B, C)) if d != ax1]
            ax2 = rng.randint(0, 1)
            D2 = blocked(rest, warps, ax2, rng.random() < 0.5, rng.random() < 1 / 3)
            D1 = blocked_1d(warps)
            const = {"A": A, "B": B, "C": C, "L": L, "D2": D2, "D1": D1, "AX1": ax1,
                     "AX2": ax2, "R": rest[1 - ax2], "KIND": COMBINES.index(kind)}
            shape = f"{A}x{B}x{C}_ax{ax1}{ax2}"
            fn = r3
        if any(v is None for v in const.values()):
            fails["no layout"] += 1
            continue
        sig.update({k: "constexpr" for k in const})
        name = f"{family}_{ty}_{kind}_{shape}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
        try:
            ttgir = compile_gluon(fn, sig, const, tname, warps)
            record = assembly_records(ttgir, tname, lambda asm, data: {
                str(c): v for c, v in line_counts(asm, data).items()})
        except Exception as e:  # noqa: BLE001 - a layout Triton rejects is skipped
            fails[type(e).__name__] += 1
            print(f"  skipped {name}: {type(e).__name__}: {str(e)[:120]}", flush=True)
            continue
        probes[name] = {"target": tname, "ttgir": ttgir, "seed": seed, **record}
        if len(probes) % 10 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def _compared(op: str, reduce_line: bool) -> str | None:
    """The key ``op`` is compared under: a register opcode as itself; on a reduce's line a
    shared-memory access as the bytes per thread of its side (``"ld.shared bytes"``; vector
    spellings differ between the lowering and LLVM's merges); None: not compared."""
    if REGISTER_OPS.match(op):
        return op
    m = SHARED_WIDTH.match(op)
    if reduce_line and m:
        return f"{m.group(1)}.shared bytes"
    return None


def _tally(pairs, reduce_line: bool) -> dict[str, int]:
    out: collections.Counter = collections.Counter()
    for op, n in pairs:
        key = _compared(op, reduce_line)
        if key is not None and n:
            m = SHARED_WIDTH.match(op)
            out[key] += n * (int(m.group(2) or 1) * int(m.group(3)) // 8
                             if key.endswith("bytes") else 1)
    return dict(sorted(out.items()))


def reduce_lines(ttgir: str) -> set[str]:
    """The TTGIR lines (as strings) of the ``tt.reduce`` ops."""
    return {str(i + 1) for i, s in enumerate(ttgir.splitlines())
            if re.search(r'"?tt\.reduce"?\(', s)}


def predicted(ttgir: str) -> dict[str, dict[str, int]]:
    """``{line: {opcode: per thread}}``: ``check``'s instructions on each reduce and convert
    line (register opcodes; on a reduce's line the shared-memory bytes per thread of each
    side too)."""
    out: dict = {}
    for o in check_ops(ttgir):
        if o["op"] != "reduce" and o["kind"] != "convert":
            continue
        out[str(o["line"])] = _tally(
            ((normalised(i.get("ptx") or ""), i.get("per_thread") or 0)
             for i in o["instructions"]), o["op"] == "reduce")
    return dict(sorted(out.items()))


def observed(ttgir: str, by_line: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    """The compared opcodes of an assembly record (``"lowering"`` or ``"final"``, whole or
    from ``"data"``) on every reduce and convert line, counted as :func:`predicted` does."""
    reduces = reduce_lines(ttgir)
    return {str(c): _tally(by_line.get(str(c), {}).items(), str(c) in reduces)
            for c in op_lines(ttgir)}


def redux_lines(ttgir: str) -> dict[str, list[bool]]:
    """``{reduce line: per in-warp round, whether it is a redux.sync round leaving 32-bit
    registers}`` (``linlayout.check.registers.reduce.redux_rounds``), for the 8/16-bit
    one-operand reduces ``check`` analyses."""
    from linlayout.check.registers.reduce import redux_rounds
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.triton.ttgir import find_accesses, read_ttgir

    module = read_ttgir(ttgir)
    target = module_target(module)
    out = {}
    for a in find_accesses(module):
        m = re.search(r"axis\s*=\s*(\d+)", a.attrs or "")
        if a.op != "reduce" or a.distributed is None or m is None:
            continue
        out[str(a.line)] = redux_rounds(a.distributed.layout, int(m.group(1)), a.element_bits,
                                        target, a.combiner)
    return out


def compare(data: dict, known_set: str = "redux_heldout") -> int:
    """Print every probe whose prediction differs from the lowering on the data path, and a
    tally; return the number of differences not listed in
    ``tests/data/known_mismatches.json`` (set ``known_set``)."""
    known = known_mismatches(known_set)
    bad = 0
    tally: collections.Counter = collections.Counter()
    final_differs = 0
    for name, p in sorted(data["probes"].items()):
        pred = predicted(p["ttgir"])
        low = observed(p["ttgir"], p["data"]["lowering"])
        fin = observed(p["ttgir"], p["data"]["final"])
        rounds = redux_lines(p["ttgir"])
        rule = any(any(r) for r in rounds.values())
        redux = any("redux" in op for c in low.values() for op in c)
        same = pred == low
        for key in (p["target"], f"seed {p['seed']}", name.split("_")[0], name.split("_")[1],
                    "rule applies" if rule else "rule does not apply",
                    "redux.sync" if redux else "no redux.sync"):
            tally[(key, same)] += 1
        if low != fin:
            final_differs += 1
        if not same:
            bad += name not in known
            diff = {ln: (pred.get(ln), low.get(ln)) for ln in sorted(set(pred) | set(low))
                    if pred.get(ln) != low.get(ln)}
            print(f"DIFF {name}: (predicted, lowering) by line {diff}"
                  + (" (known)" if name in known else ""))
    for key in sorted({k for k, _ in tally}):
        print(f"{key}: {tally[(key, True)]} equal, {tally[(key, False)]} not")
    total = len(data["probes"])
    equal = sum(n for (k, s), n in tally.items() if s and k in TARGETS)
    for seed in sorted({p["seed"] for p in data["probes"].values()}):
        print(f"seed {seed}: {tally[(f'seed {seed}', True)]} of "
              f"{tally[(f'seed {seed}', True)] + tally[(f'seed {seed}', False)]} equal")
    print(f"final assembly differs from the lowering in {final_differs} (data path)")
    print(f"all: {equal} of {total} equal to Triton's lowering (data path)")
    return bad


def main(argv: list[str] | None = None) -> int:
    ap = probe_arguments(__doc__)
    ap.add_argument("--add", action="store_true",
                    help="compile only the draws whose seed the fixture lacks, add them")
    ap.add_argument("--fresh", action="store_true",
                    help="the fourth draw (FRESH), in its own fixture (FRESH_OUT)")
    args = ap.parse_args(argv)
    if args.fresh:
        return run_probes(FRESH_OUT, args, lambda: build(*FRESH),
                          lambda data: compare(data, "redux_fresh"))

    def build_all() -> dict:
        draws = ((SEED, N_PROBES), AFTER, BYTES)
        if args.add:
            data = read_fixture(OUT)
            have = {p["seed"] for p in data["probes"].values()}
            draws = tuple(d for d in draws if d[0] not in have)
        else:
            data = {"probes": {}}
        for draw in draws:
            fresh = build(*draw)
            data["triton_version"] = fresh["triton_version"]
            data["probes"].update(fresh["probes"])
        return data

    return run_probes(OUT, args, build_all, compare)


if __name__ == "__main__":
    sys.exit(main())
