"""Which side a one-warp ``convert_layout`` with no register in common vectorises, gfx950 vs
gfx942 (Triton 3.9.0, CPU only).

Triton's ``optimalSwizzlingLdSt`` (``lib/Tools/GenericSwizzling.cpp``) puts, when the scratch
vector is under 128 bits, the bank bases held in registers of one side first, so that side
vectorises. The 3.9.0 wheel's LLVM IR shows that reordering on gfx942 (32 banks) but not on
gfx950 (64 banks), where the bank bases stay in ``complementBasis`` order.
``linlayout.lowering.scratch.optimal_swizzling_ldst`` models that. This script draws random
one-warp 8- and 16-bit pairs (64 lanes, 128 to 1024 elements, the destination's registers
taken from the source's lanes), compiles them for both targets, and compares the vector widths
of the LDS stores and loads in Triton's LLVM IR (before ``-O3``) with ``linlayout check``'s.

    python papers/triton_lowering/gfx950_bank_order_probes.py            # 24 pairs
    python papers/triton_lowering/gfx950_bank_order_probes.py --pairs 40 --seed 7

Prints one line per kernel and exits 1 on any mismatch. It writes no fixture: the cases it
found are covered by ``tests/data/triton_cvt_fresh_probes.json.gz``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys

from cvt_heldout_probes import check_json
from probe_compile import gpu_target

TYPES = {8: "*i8", 16: "*fp16"}


def _draw(rng: random.Random) -> tuple[int, int, int, list[int], list[int], list[int], list[int]]:
    """(bits, M, N, src regs, src lanes, dst regs, dst lanes) as flat tensor bits."""
    bits = rng.choice([8, 16])
    dim = rng.choice([7, 8, 9, 10] if bits == 8 else [7, 8, 9])
    m = 1 << rng.randint(2, dim - 2)
    n = (1 << dim) // m
    flat = [1 << k for k in range(dim)]
    rng.shuffle(flat)
    reg, lane = flat[6:], flat[:6]
    pool = list(lane)
    rng.shuffle(pool)
    t_reg = pool[:len(reg)]
    t_lane = [b for b in flat if b not in t_reg]
    rng.shuffle(t_lane)
    return bits, m, n, reg, lane, t_reg, t_lane


def _widths(llir: str, op: str) -> list[int]:
    pat = (r"store <(\d+) x (?:i\d+|half)>[^\n]*addrspace\(3\)" if op == "store"
           else r"load <(\d+) x (?:i\d+|half)>, ptr addrspace\(3\)")
    return sorted({int(w) for w in re.findall(pat, llir)})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=24, help="random pairs to draw")
    ap.add_argument("--seed", type=int, default=2, help="random seed")
    args = ap.parse_args(argv)

    import triton
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def g_cvt(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        y = gl.convert_layout(x, D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    def linear(reg, lane, m, n):
        nb = n.bit_length() - 1
        rc = lambda c: [c >> nb, c & ((1 << nb) - 1)]  # noqa: E731 - flat bit -> [row, col]
        return gl.DistributedLinearLayout([rc(c) for c in reg], [rc(c) for c in lane], [], [],
                                          [m, n])

    rng = random.Random(args.seed)
    bad = total = 0
    for i in range(args.pairs):
        bits, m, n, reg, lane, t_reg, t_lane = _draw(rng)
        for tname in ("gfx950", "gfx942"):
            src = GluonASTSource(
                g_cvt, signature={"X": TYPES[bits], "Y": TYPES[bits], "M": "constexpr",
                                  "N": "constexpr", "L": "constexpr", "D": "constexpr"},
                constexprs={"M": m, "N": n, "L": linear(reg, lane, m, n),
                            "D": linear(t_reg, t_lane, m, n)})
            k = triton.compile(src, target=gpu_target(tname), options={"num_warps": 1})
            triton_w = (_widths(k.asm["llir"], "store"), _widths(k.asm["llir"], "load"))
            ins = [x for op in check_json(k.asm["ttgir"])["ops"] if op["kind"] == "convert"
                   for x in op["instructions"] if x["space"] == "shared"]
            check_w = tuple(sorted({x["vector_elems"] for x in ins if x["side"] == side})
                            for side in ("store", "load"))
            ok = triton_w == check_w
            total += 1
            bad += not ok
            print(f"{i:3d} {tname} i{bits} {m}x{n}: Triton store/load vectors {triton_w}, "
                  f"check {check_w} {'ok' if ok else 'MISMATCH'}", flush=True)
    print(f"{total - bad}/{total} kernels match")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
