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


def test_an_op_llvm_merges_to_two_widths_is_counted_and_costed_by_the_suggestion():
    """smem_blocked_xorlinear_linear_b32_32x64_w1_8a6dda (llvm_merge set, sm_90): its load
    is 16 ``ld.shared.v2.b32`` and 32 ``ld.shared.b32`` per thread (LLVM's SLP vectoriser
    keeps mixed XOR constants apart); both are counted, and the suggestion for its buffer
    is ranked with them (the trip compiled it: tests/check/test_suggestion_trip.py)."""
    from linlayout.check import check_module
    from linlayout.check.report import OpStatus
    from linlayout.triton.ttgir import read_ttgir
    from tests.check.shared_memory.triton_fixtures import entries

    name = "smem_blocked_xorlinear_linear_b32_32x64_w1_8a6dda_cuda90"
    report = check_module(read_ttgir(entries("llvm_merge")[name]["ttgir"], name))
    load = next(o for o in report.ops if o.access.op == "local_load")
    assert load.status is OpStatus.COUNTED
    rows = {i.emitted.opcode: i.report for i in load.instructions}
    assert {k: (r.instructions_per_warp, r.degree, r.wavefronts_per_warp)
            for k, r in rows.items()} == {"ld.shared.v2.b32": (16, 8, 256),
                                          "ld.shared.b32": (32, 8, 256)}
    assert (load.degree, load.wavefronts_per_warp, load.instructions_per_warp) == (8, 512, 48)
    s = load.suggestion
    assert s is not None and s.degree == 1
    # store 16 x 4 + load 16 x 4 wavefronts, each at its floor: the load is in the cost
    assert (s.wavefronts_per_warp, s.instructions_per_warp) == (128, 32)
