"""Costs of the shared-memory tiles of Triton's tutorial kernels: ours, Triton's, TMA's, the floor.

Each row is one tile a tutorial kernel moves through shared memory — written by the
coalesced ``#ttg.blocked`` layout Triton gives a global load (``sizePerThread`` one 16-byte
vector along the contiguous dim) and read back in the layout the next op needs — with the
encodings Triton 3.9 picks for the NVIDIA ``mma.sync`` path (sm80):

* matmul (tutorial 03): the A tile (BLOCK_M×BLOCK_K) and the B tile (BLOCK_K×BLOCK_N) read as
  dot operands of an mma v2 accumulator, 8/16/32-bit;
* flash attention forward (tutorial 06): Q and V as dot operands, K read transposed;
* transposes (``tl.trans``): a tile written row-wise and read column-wise, 8/16/32-bit.

Columns (per warp, both sides summed; "wf" = wavefronts, "instr" = instructions):

* floor — ⌈bytes / 128⌉ wavefronts per side, summed;
* synthesized — :func:`linlayout.synthesize_swizzle` (``ld/st.shared``), proven optimal or not;
* with ldmatrix — the same with ``instructions="auto"`` (ldmatrix/stmatrix allowed);
* Triton's algorithm — ``papers/linear_layouts/triton_algorithm.py`` (its ld/st path);
* best TMA mode — the cheapest layout any TMA swizzle mode writes for the tile;
* row-major — the unswizzled tile.

Run:  python papers/synthesis/tutorial_table.py
Exit status 1 when any alternative is cheaper than the synthesized layout.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "linear_layouts"))

from triton_algorithm import triton_swizzle  # noqa: E402

from linlayout import LinearLayout, bank_conflicts, ptx, synthesize_swizzle  # noqa: E402
from linlayout.triton import blocked, dot_operand, nvidia_mma  # noqa: E402


def coalesced(shape: list[int], bits: int, warps: int, order: list[int]) -> LinearLayout:
    """Triton's coalesced global-load layout: 16 bytes per thread along the fast dim."""
    fast = order[0]
    vec = min(128 // bits, shape[fast])
    threads_fast = min(32, shape[fast] // vec)
    spt, tpw, wpc = [1, 1], [1, 1], [1, 1]
    spt[fast] = vec
    tpw[fast], tpw[1 - fast] = threads_fast, 32 // threads_fast
    wpc[1 - fast] = warps
    return blocked(spt, tpw, wpc, order).to_linear_layout(shape)


def cases():
    out = []
    for bits in (8, 16, 32):
        kw = max(1, 32 // bits)
        bk = 64 if bits < 32 else 32
        acc = nvidia_mma(2, [2, 2], [16, 8])
        out.append((f"matmul A 128x{bk}", bits, coalesced([128, bk], bits, 4, [1, 0]),
                    dot_operand(0, acc, k_width=kw).to_linear_layout([128, bk])))
        out.append((f"matmul B {bk}x128", bits, coalesced([bk, 128], bits, 4, [1, 0]),
                    dot_operand(1, acc, k_width=kw).to_linear_layout([bk, 128])))
        out.append((f"matmul B {bk}x128 (K-major)", bits, coalesced([bk, 128], bits, 4, [0, 1]),
                    dot_operand(1, acc, k_width=kw).to_linear_layout([bk, 128])))
    attn = nvidia_mma(2, [4, 1], [16, 8])
    out.append(("attention Q 128x64", 16, coalesced([128, 64], 16, 4, [1, 0]),
                dot_operand(0, attn, k_width=2).to_linear_layout([128, 64])))
    out.append(("attention K^T 64x64", 16, coalesced([64, 64], 16, 4, [0, 1]),
                dot_operand(1, attn, k_width=2).to_linear_layout([64, 64])))
    out.append(("attention V 64x64", 16, coalesced([64, 64], 16, 4, [1, 0]),
                dot_operand(1, attn, k_width=2).to_linear_layout([64, 64])))
    for bits in (8, 16, 32):
        out.append(("transpose 64x64", bits, coalesced([64, 64], bits, 4, [1, 0]),
                    coalesced([64, 64], bits, 4, [0, 1])))
    return out


def cost(memory: LinearLayout, store, load, bits: int) -> tuple[int, int]:
    reps = [bank_conflicts(s, memory, element_bits=bits) for s in (store, load)]
    return (sum(r.wavefronts_per_warp for r in reps), sum(r.instructions_per_warp for r in reps))


def fmt(c) -> str:
    return f"{c[0]} wf, {c[1]} instr"


def main() -> int:
    rows, bad = [], 0
    for name, bits, store, load in cases():
        r = synthesize_swizzle(store, load, element_bits=bits)
        mine = (r.wavefronts_per_warp, r.instructions_per_warp)
        auto = synthesize_swizzle(store, load, element_bits=bits, instructions="auto")
        floor = r.wavefront_floor
        t = triton_swizzle(store, load, bits)
        tc = cost(t.layout, store, load, bits) if t.layout is not None else None
        tma = None
        for mode in ptx.MATCH_ORDER:
            for _, mem in ptx.tma_layouts(mode, store.out_dims, bits):
                c = cost(mem, store, load, bits)
                if tma is None or c < tma[0]:
                    tma = (c, mode.value)
        names = list(store.out_dims)
        rm = cost(LinearLayout({"offset": [[0, 1 << i] for i in range(store.out_bits(names[1]))]
                                + [[1 << i, 0] for i in range(store.out_bits(names[0]))]},
                               store.out_dims), store, load, bits)
        alts = [c for c in (tc, tma[0] if tma else None, rm) if c is not None]
        if any(c < mine for c in alts):
            bad += 1
        rows.append((name, bits, floor, fmt(mine) + (" ✓" if r.optimal else " (unproven)"),
                     fmt((auto.wavefronts_per_warp, auto.instructions_per_warp)),
                     fmt(tc) if tc else "invalid", f"{fmt(tma[0])} ({tma[1]})" if tma else "-",
                     fmt(rm)))
    header = ("tile", "bits", "floor (wf)", "synthesized", "with ldmatrix", "Triton's algorithm",
              "best TMA mode", "row-major")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    print(f"\n{len(rows)} tiles; ✓ = proven optimal. Alternatives cheaper than the synthesized "
          f"layout: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
