#!/usr/bin/env python
"""Gluon source that ``linlayout.triton.to_gluon(..., target=...)`` writes, compiled for that
target by Triton 3.9.0: is every export accepted by the compiler it is meant for?

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~2 min)::

    python papers/cute_gluon/gluon_target_exports.py          # writes tests/data/gluon_target_exports.json
    python papers/cute_gluon/gluon_target_exports.py --check  # compare, write nothing

For each target (cuda:80, cuda:90, hip:gfx942) and each distributed layout of a 64x64 tile —
the mma v2 accumulator on 1, 2, 4 and 8 warps in every warp split, its A and B dot operands
(kWidth 2 and 4, named with ``operand=``), the same accumulators as a wgmma (v3) layout where
four warps allow it, random blocked layouts and random permutation (``linear``) layouts — the
script asks linlayout for the Gluon source with ``target=``, evaluates it with
``triton.experimental.gluon.language`` and compiles a kernel that converts a blocked tile into
that layout and stores it. The fixture records the source and whether it compiled (with the
error if not). ``tests/triton/test_gluon_targets.py`` checks, without Triton, that linlayout
still writes the same source and that every entry compiled: no export names an encoding its
target rejects (a ``version=[3, 0]`` layout below sm_90, an mma layout on AMD).
"""

from __future__ import annotations

import json
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "data" / "gluon_target_exports.json"

TARGETS = {"cuda:80": ("cuda", 80, 32), "cuda:90": ("cuda", 90, 32),
           "hip:gfx942": ("hip", "gfx942", 64)}


def layouts(target: str, rng: random.Random) -> list[tuple[str, object, int | None]]:
    """(what, linlayout layout, operand) for one target."""
    from linlayout import LinearLayout
    from linlayout.triton import blocked, dot_operand, nvidia_mma

    out: list[tuple[str, object, int | None]] = []
    shape = [64, 64]
    lanes = TARGETS[target][2]
    if target.startswith("cuda"):
        for warps in ([1, 1], [2, 1], [1, 2], [4, 1], [2, 2], [1, 4], [8, 1], [4, 2]):
            mma = nvidia_mma(2, warps, [16, 8])
            out.append((f"mma v2 {warps}", mma.to_linear_layout(shape), None))
            for op in (0, 1):
                for kw in (2, 4):
                    d = dot_operand(op, mma, kw)
                    out.append((f"dot op{op} kWidth {kw} of mma v2 {warps}",
                                d.to_linear_layout(shape), op))
        for warps in ([4, 1], [8, 1]):
            v3 = nvidia_mma(3, warps, [16, 64, 16])
            out.append((f"mma v3 {warps} 16x64x16", v3.to_linear_layout(shape), None))
    for i in range(6):
        spt = [1 << rng.randint(0, 2) for _ in range(2)]
        tpw = [1, 1]
        for _ in range(lanes.bit_length() - 1):
            tpw[rng.randrange(2)] *= 2
        wpc = [1, 1]
        for _ in range(2):
            wpc[rng.randrange(2)] *= 2
        if all(s * t * w <= 64 for s, t, w in zip(spt, tpw, wpc)):
            out.append((f"blocked {spt} {tpw} {wpc}",
                        blocked(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]])).to_linear_layout(shape),
                        None))
        cols = list(range(12))
        rng.shuffle(cols)
        lb = lanes.bit_length() - 1

        def to(b: int) -> list[int]:
            return [1 << (b - 6), 0] if b >= 6 else [0, 1 << b]

        bases = {"lane": [to(c) for c in cols[:lb]], "warp": [to(c) for c in cols[lb:lb + 2]],
                 "register": [to(c) for c in cols[lb + 2:]]}
        out.append((f"linear {i}", LinearLayout(bases, out_dims={"dim0": 64, "dim1": 64}), None))
    return out


def build() -> dict:
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    from linlayout.triton import to_gluon

    @gluon.jit
    def convert(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        y = gl.convert_layout(x, D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    rng = random.Random(7)
    entries = []
    for target, (backend, arch, lanes) in TARGETS.items():
        for what, layout, operand in layouts(target, rng):
            source = to_gluon(layout, 16, target=target, operand=operand)
            warps = 1 << len(layout.bases.get("warp", []))
            entry = {"target": target, "what": what, "operand": operand,
                     "layout": layout.to_dict(), "source": source}
            try:
                D = eval(source, {"gl": gl})  # noqa: S307 - linlayout's own expression
                L = gl.BlockedLayout([1, 1], [1, lanes], [warps, 1], [1, 0])
                sig = {"X": "*fp16", "Y": "*fp16", "M": "constexpr", "N": "constexpr",
                       "L": "constexpr", "D": "constexpr"}
                src = GluonASTSource(fn=convert, signature=sig,
                                     constexprs={"M": 64, "N": 64, "L": L, "D": D})
                triton.compile(src, target=GPUTarget(backend, arch, lanes),
                               options={"num_warps": warps})
                entry["compiled"] = True
            except Exception as exc:  # a rejected export is the finding this records
                entry["compiled"] = False
                entry["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
            entries.append(entry)
    ok = sum(e["compiled"] for e in entries)
    print(f"{ok} of {len(entries)} exports compiled")
    return {"triton_version": triton.__version__, "exports": entries}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args(argv)
    data = build()
    if args.check:
        same = json.loads(OUT.read_text()) == data
        print("fixture up to date" if same else "fixture differs")
        return 0 if same else 1
    OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
