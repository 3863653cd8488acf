"""linlayout.check.suggest: candidates are costed with the instructions Triton would emit
on them."""

from __future__ import annotations

from linlayout.hardware import NVIDIA
from linlayout.triton import parse_encoding
from linlayout.check.target import parse_target
from linlayout.check.suggest import BufferSide, cost_on, suggest_layout

ROW = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>"
COL = "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>"
PLAIN = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>"


def test_transpose_buffer_gets_a_conflict_free_layout():
    row = parse_encoding(ROW).to_linear_layout([64, 64])
    col = parse_encoding(COL).to_linear_layout([64, 64])
    plain = parse_encoding(PLAIN).to_linear_layout([64, 64])
    sides = [BufferSide(1, "store", row, 16), BufferSide(2, "load", col, 16)]
    target = parse_target("cuda:90")
    deg, wf, ins = cost_on(sides, plain, target, NVIDIA)
    assert deg == 8 and ins == 4 + 32
    best = suggest_layout(sides, plain, target, NVIDIA)
    assert best is not None and best.degree == 1 and best.wavefronts_per_warp < wf
    assert best.text.startswith("#ttg.")
    # a repeated access costs the same per copy: counted once, multiplied
    assert cost_on(sides + sides, plain, target, NVIDIA) == (deg, 2 * wf, 2 * ins)
