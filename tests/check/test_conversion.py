"""``check`` shows linlayout's register/shuffle plan where it beats Triton's path."""

from __future__ import annotations

from linlayout import LinearLayout
from linlayout.check import check_module
from linlayout.check.conversion import convert_saving
from linlayout.check.render import op_dict, render_text
from linlayout.hardware import NVIDIA
from linlayout.lowering import Target
from linlayout.triton import read_ttgir

TEXT = """#a = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
#b = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"} {
  tt.func @f(%x: tensor<16x16xf32, #a>) {
    %y = ttg.convert_layout %x : tensor<16x16xf32, #a> -> tensor<16x16xf32, #b>
    %z = ttg.convert_layout %x : tensor<16x16xf32, #a> -> tensor<16x16xf32, #a>
    tt.return
  }
}
"""


def test_a_shuffle_plan_beats_tritons_round_trip():
    ops = check_module(read_ttgir(TEXT)).ops
    s = ops[0].convert_saving
    assert s is not None and s.path == "shuffle" and s.triton_path == "shared"
    # Triton's scratch: 2 rounds (store, bar, load, bar, store, bar, load) = 3 barriers; its
    # instructions and wavefronts are what check predicts for the op itself
    assert s.saving == s.triton_cost - s.cost > 0 and s.triton_barriers == 3
    assert s.triton_wavefronts == ops[0].wavefronts_per_warp
    assert s.triton_opcodes == {i.emitted.opcode: i.emitted.per_thread
                                for i in ops[0].instructions}
    assert s.text().startswith("a shuffle plan: ") and "Triton's round trip through shared " \
        "memory" in s.text()
    d = op_dict(ops[0])["convert_saving"]
    assert d["path"] == "shuffle" and d["triton"]["path"] == "shared" and d["saving"] == s.saving
    assert ops[1].convert_saving is None  # equal layouts: nothing to save


def test_text_report_names_the_saving():
    k = check_module(read_ttgir(TEXT))
    text = render_text([k])
    assert "convert: a shuffle plan:" in text


def test_no_saving_without_suggestions_or_across_warps():
    assert check_module(read_ttgir(TEXT), suggest=False).ops[0].convert_saving is None
    src = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [32]],
                        "warp": [[64]]}, {"dim0": 128})
    dst = LinearLayout({"register": [[64]], "lane": [[2], [4], [8], [16], [32]],
                        "warp": [[1]]}, {"dim0": 128})
    assert convert_saving(src, dst, 32, Target.parse("cuda:90"), NVIDIA) is None
    assert convert_saving(src, dst, 12, Target.parse("cuda:90"), NVIDIA) is None  # bad width


def test_the_saving_prices_tritons_path_with_the_producing_load():
    # AMD, 16-bit, one register/lane exchange: Triton shuffles; whether packing costs
    # v_perm_b32 depends on the load that produced the source, as in the convert's own
    # prediction, and the planner now sees the same load
    from linlayout import plan_conversion
    from linlayout.hardware import AMD_CDNA3
    from linlayout.lowering import convert_path

    src = LinearLayout({"register": [[1], [2]], "lane": [[4], [8], [16], [32], [64], [128]]},
                       {"dim0": 256})
    dst = LinearLayout({"register": [[1], [128]], "lane": [[4], [8], [16], [32], [64], [2]]},
                       {"dim0": 256})
    target = Target.parse("hip:gfx942")
    for load in (None, (0, 2)):
        assert convert_saving(src, dst, 16, target, AMD_CDNA3, load) is None  # as cheap
        plan = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target=target,
                               source_load=load)
        assert plan.triton.opcodes == convert_path(src, dst, 16, target, load).counts


def test_the_saving_after_a_gather_or_reduction_prices_tritons_packing_as_check_counts_it():
    """Converts of producer probes (``papers/triton_lowering/producer_probes.py``) whose
    operand a ``redux.sync`` reduction or a gather left one element to a 32-bit register
    (NVIDIA: 8 prmt.b32 join the 16-bit halves Triton's round trip stores; AMD: the bytes
    pack for nothing) or an AMD reduction left in scalar registers (packed for nothing):
    the planner prices Triton's path with the same packing as the convert's own
    prediction, so the saving compares like with like."""
    from tests.check.shared_memory.triton_fixtures import entries

    probes = {"reduce_b16_i16_16x128_ax1_w1_5d37ae_cuda90": 8,
              "gather_b8_i8_64x16_ax1_w1_145c3c_gfx950": 0,
              "reduce_b16_i16_32x64_ax1_w1_150398_gfx950": 0}
    for name, permutes in probes.items():
        ops = check_module(read_ttgir(entries("producer")[name]["ttgir"], name)).ops
        (op,) = [r for r in ops if r.access.op == "convert_layout"]
        counted = {i.emitted.opcode: i.emitted.per_thread for i in op.instructions}
        s = op.convert_saving
        assert s is not None and s.triton_opcodes == counted, name
        assert counted.get("prmt.b32", counted.get("v_perm_b32", 0)) == permutes, name
