"""Draw the pictures of the documentation into docs/figures/ (needs matplotlib).

Every figure is drawn by the library's own picture functions, from layouts the pages build in
their tested code blocks:

* ``tv_sm80_16x8x16_C.png`` — the ``mma.sync.m16n8k16`` accumulator as a CUTLASS-style
  thread/value grid (:func:`linlayout.show.tv_pictures.draw_tv`).
* ``mma_sm80_16x8x16.png`` — A, B and C of that atom around the product
  (:func:`linlayout.show.mma_picture.draw_mma_atom`).
* ``tv_sm90_64x64_C_warp1.png`` — the wgmma accumulator of four warps, zoomed to warp 1.
* ``hierarchy_smem.png`` — a 64×64 fp16 shared-memory layout written with nested CuTe modes,
  coloured by bank, with the lines of its hierarchy.
* ``gemm_cp_async_banks.png`` — the GEMM page's cp.async copy (16 bytes per thread) coloured by
  the bank each element lands in under the 128-byte TMA swizzle.
* ``gemm_ldmatrix_row_major.png``, ``gemm_ldmatrix_128B.png`` — the GEMM page's ``ldmatrix.x4``
  read of the A operand from an unswizzled and from the 128B-swizzled tile, the first
  instruction outlined by wavefront (:func:`linlayout.show.copy_picture.draw_copy`): 32
  wavefronts against 4.
* ``tv_amd_mfma_32x32x8_A.png`` — the A operand of AMD's ``v_mfma_f32_32x32x8_f16``: one
  64-lane wavefront, coloured by lane.

Run from the repository root:  python docs/make_figures.py [--out DIR]
(``tests/test_make_figures.py`` runs it into a temporary folder.)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from linlayout import cute, examples, ptx  # noqa: E402
from linlayout.show.copy_picture import draw_copy  # noqa: E402
from linlayout.show.mma_picture import draw_mma_atom  # noqa: E402
from linlayout.show.pictures import draw_memory, save  # noqa: E402
from linlayout.show.tv_pictures import add_hierarchy, draw_tv  # noqa: E402

#: The CuTe text of the hierarchical shared-memory layout drawn.
NESTED = "Sw<3,3,3> o _0 o ((_8,_8),(_8,_8)):((_64,_512),(_1,_8))"


def figures() -> dict:
    """``{file name: function drawing it}``, in the order of the module docstring."""
    tma = ptx.tma_tile_layout("128B", element_bits=16, rows=64, cols=64)
    row_major = cute.parse_layout("(_64,_64):(_64,_1)")
    operand = examples.get("gemm-operand").load  # Triton's mma v2 dot operand, 4 warps

    def nested():
        mem = cute.parse_layout(NESTED)
        fig = draw_memory(mem, 16, label=None, names={"dim0": "m", "dim1": "k"},
                          title=f"{NESTED}: colour = bank, lines = its nested modes")
        add_hierarchy(fig.axes[0], mem, NESTED)
        return fig

    def copy(memory, name):
        return draw_copy(operand, memory, element_bits=16, instruction="ldmatrix.x4",
                         max_rows=16, title=f"ldmatrix.x4 of the A operand from {name}")

    return {
        "tv_sm80_16x8x16_C.png": lambda: draw_tv(
            cute.atom("sm80_16x8x16.C"), names={"dim0": "m", "dim1": "n"},
            title="sm80_16x8x16.C (mma.sync m16n8k16 accumulator): T<thread>V<value>"),
        "mma_sm80_16x8x16.png": lambda: draw_mma_atom("sm80_16x8x16"),
        "tv_sm90_64x64_C_warp1.png": lambda: draw_tv(
            cute.atom("sm90_64x64.C"), warp=1, names={"dim0": "m", "dim1": "n"}),
        "hierarchy_smem.png": nested,
        "gemm_cp_async_banks.png": lambda: draw_tv(
            cute.tiled_tv_layout("(_16,_8):(_8,_1)", "(_1,_8):(_0,_1)"), color_by="bank",
            memory=tma, element_bits=16, label="t:r", names={"dim0": "m", "dim1": "k"},
            title="cp.async, 16 bytes per thread: colour = bank under the 128B swizzle"),
        "gemm_ldmatrix_row_major.png": lambda: copy(row_major, "an unswizzled (row-major) tile"),
        "gemm_ldmatrix_128B.png": lambda: copy(tma, "the 128B-swizzled tile"),
        "tv_amd_mfma_32x32x8_A.png": lambda: draw_tv(
            cute.atom("amd_mfma_f32_32x32x8_f16.A"), color_by="lane",
            names={"dim0": "m", "dim1": "k"},
            title="amd_mfma_f32_32x32x8_f16.A: a 64-lane wavefront, colour = lane"),
    }


def main(argv: list[str] | None = None) -> list[Path]:
    """Draw every figure into ``--out`` (default docs/figures/); returns the paths written."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(HERE / "figures"), help="folder to write into")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, draw in figures().items():
        path = out / name
        save(draw(), str(path), dpi=100)
        print(f"wrote {path}")
        written.append(path)
    return written


if __name__ == "__main__":
    main()
