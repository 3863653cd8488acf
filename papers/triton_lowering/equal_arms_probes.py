#!/usr/bin/env python
"""Held-out probes for LLVM's fold of an argmin's tie-break on equal integer values
(``fold_equal_arms`` in ``linlayout/triton/combine.py``: LLVM's InstCombine, not Triton),
generated after the rule was written.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~8 min)::

    python papers/triton_lowering/equal_arms_probes.py          # writes tests/data/triton_equal_arms_probes.json.gz
    python papers/triton_lowering/equal_arms_probes.py --check  # compare, write nothing

The rule: an integer ``select(c, a, b)`` whose condition ORs terms that AND in ``a == b``
does not depend on those terms (both arms are then the same integer), so once the index of
an argmin is unused LLVM folds the value's combine to ``smin``/``smax`` and, on AMD, the
reloads of the index in the last cross-warp round die with the shuffles that fed it. Each
Gluon probe is a two-operand ``gl.reduce`` (values and ``i32`` indices) over a 2-D tile in a
random ``BlockedLayout`` with warps along the reduced axis, keeping only the value (80%) or
the index or both; its combine is one of: Triton's argmin shape ``lt | (eq & i1 < i2)``, an
argmax with the terms and factors in the other order and ``b == a``, a pure ``lt`` (no
tie-break), and two controls the rule must not fold — ``lt | (ne & i1 < i2)`` and a value
that adds the index. i8/i16/i32/i64 and f16/f32 values (floats never fold: ``-0.0 == +0.0``),
2 to 8 warps, gfx942/gfx950 (three quarters) and cuda:80/90/100; seed 2602, 70 probes. A
second batch (seed 2603, 50 probes) draws only what the rule decides: AMD, integer values,
the value kept, a tie-break combine, with one in five a float or ``!=`` control. Then
every AMD integer tie-break kernel where LLVM dropped reloads gets two twins with the same
layout: ``f32`` values and a ``!=`` tie-break, where the rule must not fold.

It prints, per probe, whether ``linlayout``'s prediction equals the assembly (NVIDIA: counts
by opcode width; AMD: LDS bytes per thread) and exits 1 on any mismatch.
"""

from __future__ import annotations

import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import main_then_compare  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_equal_arms_probes.json.gz"
#: (seed, probes, focused): the first batch as described; the second ("focused", seed 2603)
#: draws only the cases the rule decides — AMD, integer values, value kept, a tie-break
#: combine — with one in five a float or ``!=`` control.
BATCHES = ((2602, 70, False), (2603, 50, True))
COMBINES = ("lt_eq", "eq_gt", "lt", "ne_ctrl", "add_ctrl")


def build() -> dict:
    import triton
    from corpus import strip_locs
    from reduce_probes import _layouts, compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""
    targets = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
               "cuda100": GPUTarget("cuda", 100, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
               "gfx950": GPUTarget("hip", "gfx950", 64)}

    @gluon.jit
    def c_lt_eq(v1, i1, v2, i2):
        keep = (v1 < v2) | ((v1 == v2) & (i1 < i2))
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def c_eq_gt(v1, i1, v2, i2):
        keep = ((i1 < i2) & (v2 == v1)) | (v1 > v2)
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def c_lt(v1, i1, v2, i2):
        keep = v1 < v2
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def c_ne_ctrl(v1, i1, v2, i2):
        keep = (v1 < v2) | ((v1 != v2) & (i1 < i2))
        return gl.where(keep, v1, v2), gl.where(keep, i1, i2)

    @gluon.jit
    def c_add_ctrl(v1, i1, v2, i2):
        keep = (v1 < v2) | ((v1 == v2) & (i1 < i2))
        return gl.where(keep, v1, v2) + (i1 & 1).to(v1.dtype), gl.where(keep, i1, i2)

    @gluon.jit
    def g2(X, Y, Z, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, AXIS: gl.constexpr,
           COMB: gl.constexpr, KEEP: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        offs = rm[:, None] * N + rn[None, :]
        x = gl.load(X + offs)
        idx = offs.to(gl.int32)
        if COMB == 0:
            v, i = gl.reduce((x, idx), AXIS, c_lt_eq)
        elif COMB == 1:
            v, i = gl.reduce((x, idx), AXIS, c_eq_gt)
        elif COMB == 2:
            v, i = gl.reduce((x, idx), AXIS, c_lt)
        elif COMB == 3:
            v, i = gl.reduce((x, idx), AXIS, c_ne_ctrl)
        else:
            v, i = gl.reduce((x, idx), AXIS, c_add_ctrl)
        if AXIS == 0:
            r = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        else:
            r = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        if KEEP != 1:
            gl.store(Y + r, v)
        if KEEP != 0:
            gl.store(Z + r, i)

    types = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
             "f32": "*fp32"}
    def _draw(rng, focused, probes) -> int:
        """Compile one drawn probe into ``probes``; 1 when a new one was added."""
        amd = focused or rng.random() < 0.75
        tname = rng.choice(["gfx942", "gfx950"] if amd else ["cuda80", "cuda90", "cuda100"])
        lanes = 64 if amd else 32
        warps = rng.choice([2, 4, 8])
        if focused:
            control = rng.random() < 0.2
            comb = rng.choice(["lt_eq", "eq_gt"] if not control else ["ne_ctrl", "lt_eq"])
            keep = 0
            ty = rng.choice(["i8", "i16", "i32", "i64"])
            if control and comb == "lt_eq":
                ty = rng.choice(["f16", "f32"])
        else:
            comb = rng.choice(COMBINES)
            keep = 0 if rng.random() < 0.8 else rng.choice([1, 2])
            ty = rng.choice(["i8", "i16", "i32", "i64", "i32", "i64", "f16", "f32"])
        shape = rng.choice([[64, 64], [32, 128], [128, 32], [16, 256], [256, 16]])
        axis = rng.randrange(2)
        lays = [x for x in _layouts(rng, shape, lanes, warps, 12) if x[2][axis] > 1]
        if not lays:
            return 0
        return _make(probes, comb, keep, ty, shape, axis, lays[0], tname, warps)

    def _make(probes, comb, keep, ty, shape, axis, lay, tname, warps) -> int:
        """Compile one probe into ``probes`` (its parameters kept in ``params``)."""
        spt, tpw, wpc, order = lay
        name = (f"{comb}_k{keep}_{ty}_{'x'.join(map(str, shape))}_a{axis}"
                f"_s{''.join(map(str, spt))}_t{'.'.join(map(str, tpw))}"
                f"_w{''.join(map(str, wpc))}_o{''.join(map(str, order))}_{tname}")
        if name in probes:
            return 0
        sig = {"X": types[ty], "Y": types[ty], "Z": "*i32", "M": "constexpr",
               "N": "constexpr", "L": "constexpr", "AXIS": "constexpr",
               "COMB": "constexpr", "KEEP": "constexpr"}
        src = GluonASTSource(fn=g2, signature=sig, constexprs={
            "M": shape[0], "N": shape[1],
            "L": gl.BlockedLayout(list(spt), list(tpw), list(wpc), list(order)),
            "AXIS": axis, "COMB": COMBINES.index(comb), "KEEP": keep})
        entry, _ = compile_probe(src, targets[tname], warps, "equal_arms",
                                 "equal_arms_probes.py")
        entry["ttgir"] = strip_locs(entry["ttgir"])
        del entry["set"]
        probes[name] = entry | {"target": tname}
        params[name] = (comb, keep, ty, shape, axis, lay, tname, warps)
        return 1

    probes: dict = {}
    params: dict = {}
    for seed, count, focused in BATCHES:
        rng = random.Random(seed)
        made = 0
        while made < count:
            made += _draw(rng, focused, probes)
    # twins: every AMD integer tie-break kernel where LLVM dropped reloads, again with f32
    # values and with a != tie-break -- the same layouts, where the rule must not fold
    for name in sorted(params):
        comb, keep, ty, shape, axis, lay, tname, warps = params[name]
        e = probes[name]
        lds_loads = sum(n * int(re.search(r"(\d+)$", k).group(1)) // 8
                        * (2 if re.match(r"ds_read2", k) else 1)
                        for k, n in e["counts"].items() if k.startswith("ds_read"))
        if tname.startswith("gfx") and comb in ("lt_eq", "eq_gt") and keep == 0 \
                and ty.startswith("i") and lds_loads < e["preopt"]["load"]:
            _make(probes, comb, keep, "f32", shape, axis, lay, tname, warps)
            _make(probes, "ne_ctrl", keep, ty, shape, axis, lay, tname, warps)
    print(f"{len(probes)} probes compiled")
    return {"triton_version": triton.__version__, "probes": probes}


def compare(data: dict) -> int:
    """Print linlayout's prediction against the assembly per probe; the mismatches."""
    from tests.check.shared_memory.asm_counts import lds_bytes, predicted_counts, ptx_counts

    bad = 0
    for name, e in sorted(data["probes"].items()):
        got, totals = predicted_counts(e["ttgir"], name)
        if e["target"].startswith("gfx"):
            got, want = totals, lds_bytes(e["counts"])
        else:
            want = ptx_counts(e["counts"])
        ok = got == want
        bad += not ok
        print(f"{'ok ' if ok else 'BAD'} {name}" + ("" if ok else f"  {got} vs {want}"))
    print(f"{len(data['probes']) - bad}/{len(data['probes'])} equal the assembly")
    return bad


def main(argv: list[str] | None = None) -> int:
    return main_then_compare(__doc__, OUT, build, compare, argv)


if __name__ == "__main__":
    sys.exit(main())
