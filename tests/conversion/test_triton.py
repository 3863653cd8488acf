"""Triton 3.9's own path beside ``plan_conversion``'s plan, costed under the same weights."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, plan_conversion
from linlayout.conversion import execute_shared
from linlayout.conversion.triton import kind_of
from linlayout.hardware import AMD_CDNA3
from linlayout.triton import blocked, nvidia_mma

ROW = blocked([1, 4], [8, 4], [4, 1], [1, 0])
MMA = nvidia_mma(2, [4, 1], [16, 8])


def _lay(enc, shape):
    return enc.to_linear_layout(shape)


def test_equal_layouts_cost_nothing_on_either_side():
    lay = _lay(ROW, [32, 32])
    plan = plan_conversion(lay, lay, 16)
    assert plan.triton.path == "none" and plan.triton.cost == 0 and plan.saving == 0
    assert plan.triton.target == "cuda:90"


def test_a_lane_permutation_is_shuffled_by_triton_too():
    src = _lay(blocked([1, 1], [8, 4], [1, 1], [1, 0]), [8, 4])
    dst = _lay(blocked([1, 1], [4, 8], [1, 1], [0, 1]), [8, 4])
    plan = plan_conversion(src, dst, 32, target="cuda:80")
    t = plan.triton
    assert t.path == "shuffle" and t.target == "cuda:80"
    assert t.opcodes == {"shfl.sync.idx.b32": 2, "selp.b32": 2}
    assert t.instructions["shfl"] == 2 and t.instructions["selp"] == 2
    assert t.cost == 3.0 and plan.saving == t.cost - plan.best.cost == 1.0


def test_in_warp_transpose_triton_goes_through_shared_memory():
    src = _lay(blocked([1, 4], [8, 4], [4, 1], [1, 0]), [32, 32])
    dst = _lay(blocked([4, 1], [2, 16], [4, 1], [0, 1]), [32, 32])
    plan = plan_conversion(src, dst, 32)
    t = plan.triton
    assert t.path == "shared" and t.barriers == 1 and t.scratch_bytes == 32 * 32 * 4
    assert t.instructions["st.shared"] == t.instructions["ld.shared"] == 4
    assert t.cost == t.wavefronts + 8 and plan.saving == t.cost - plan.best.cost >= 0
    d = plan.to_dict()
    assert d["triton"]["path"] == "shared" and d["saving"] == plan.saving


def test_across_warps_triton_and_plan_both_use_shared_memory():
    plan = plan_conversion(_lay(MMA, [64, 64]), _lay(ROW, [64, 64]), 16)
    assert plan.triton.path == "shared" and plan.best.path == "shared_memory"
    # the plan's scratch layout is optimal: never costlier than Triton's
    assert plan.saving >= 0


def test_weights_apply_to_triton_too():
    src = _lay(blocked([1, 4], [8, 4], [4, 1], [1, 0]), [32, 32])
    dst = _lay(blocked([4, 1], [2, 16], [4, 1], [0, 1]), [32, 32])
    a = plan_conversion(src, dst, 32)
    b = plan_conversion(src, dst, 32, weights={"bar.sync": 20})
    assert b.triton.cost == a.triton.cost + 12


def test_amd_shuffle_opcodes_are_costed():
    src = _lay(blocked([1, 1], [16, 4], [1, 1], [1, 0]), [16, 4])
    dst = _lay(blocked([1, 1], [4, 16], [1, 1], [0, 1]), [16, 4])
    plan = plan_conversion(src, dst, 32, hardware=AMD_CDNA3)
    assert plan.triton.target == "hip:gfx942"
    if plan.triton.path == "shuffle":
        assert plan.triton.instructions["shfl"] == sum(
            n for op, n in plan.triton.opcodes.items() if kind_of(op) == "shfl") > 0


@pytest.mark.parametrize("target,match", [("cuda:xx", "unknown target"),
                                          ("hip:gfx942", "64-lane warps")])
def test_bad_targets(target, match):
    lay = _lay(ROW, [32, 32])
    with pytest.raises(LayoutError, match=match):
        plan_conversion(lay, lay, 16, target=target)


@pytest.mark.parametrize("opcode,kind", [
    ("shfl.sync.idx.b32", "shfl"), ("ds_bpermute_b32", "shfl"), ("v_mov_b32_dpp", "shfl"),
    ("v_permlane16_swap_b32", "shfl"), ("selp.b64", "selp"), ("v_cndmask_b32", "selp"),
    ("prmt.b32", "prmt"), ("v_perm_b32", "prmt"), ("st.shared.v4.b32", "st.shared"),
    ("stmatrix.sync.aligned.m8n8.x4.shared.b16", "st.shared"), ("ds_write_b128", "st.shared"),
    ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ld.shared"), ("ds_read_b64", "ld.shared"),
    ("mov.b32", "mov")])
def test_kind_of(opcode, kind):
    assert kind_of(opcode) == kind


def test_kind_of_refuses_a_non_string():
    with pytest.raises(LayoutError, match="opcode"):
        kind_of(3)


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90"])
def test_matrix_scratch_is_planned_as_cheap_as_tritons(target):
    # a 64x64 f16 row-major -> column-major convert (corpus p_cvt_rowmajor_to_colmajor_f16):
    # Triton's scratch is read by ldmatrix.x4.trans; the shared-memory family's matrix
    # variant finds a layout as cheap, and its bound proves nothing is cheaper
    src = _lay(blocked([1, 8], [4, 8], [4, 1], [1, 0]), [64, 64])
    dst = _lay(blocked([8, 1], [8, 4], [1, 4], [0, 1]), [64, 64])
    plan = plan_conversion(src, dst, 16, target=target)
    shared = plan.path("shared_memory")
    assert plan.triton.path == "shared" and plan.saving == 0 and plan.best is shared
    assert shared.method == "matrix" and "ldmatrix" in shared.plan.load.instruction
    assert shared.cost == shared.bound == plan.triton.cost == 40 and plan.optimal
    assert execute_shared(plan.problem, shared.plan.layout).correct


def test_a_truncated_source_is_priced_as_triton_packs_it():
    # gfx942: a 16-bit convert whose operand is an f32 truncation packs its pairs for free, so
    # Triton's path costs the 8 v_perm_b32 less; the plan's own stages price it alike
    from tests.lowering.warp_pairs import layout
    src = layout([1, 256, 16, 128], [64, 2, 8, 32, 4, 512], [], 6, 4)
    dst = layout([1, 256, 16, 2], [64, 128, 8, 32, 4, 512], [], 6, 4)
    loose = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942")
    packed = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942",
                             packed_source=True)
    assert packed.triton.opcodes == {"v_cndmask_b32": 12, "v_mov_b32_dpp": 4}
    assert loose.triton.opcodes == packed.triton.opcodes | {"v_perm_b32": 8}
    assert packed.triton.cost < loose.triton.cost
    assert packed.best.cost <= packed.triton.cost
    with pytest.raises(LayoutError, match="packed_source"):
        plan_conversion(src, dst, 16, hardware=AMD_CDNA3, packed_source=1)


def test_tritons_selector_selects_are_their_own_kind():
    """A packed register bit exchanged with a lane bit: Triton's three ``prmt`` take their
    selectors from three ``selp.b32`` of two constants each. The opcodes stay as the PTX
    has them (what ``check`` reports); by kind they are ``selector`` — lane-index
    arithmetic, priced by the ``selector`` weight, as the packed exchange's selectors are."""
    from linlayout.conversion.triton import register_kinds, selector_selects
    from linlayout.lowering import convert_path
    from tests.conversion.support import warp_layout

    src = warp_layout([1, 2, 4, 8, 16, 32, 64], 2, 7)
    dst = warp_layout([4, 2, 1, 8, 16, 32, 64], 2, 7)
    cp = convert_path(src, dst, 8, "cuda:90")
    assert cp.counts == {"shfl.sync.bfly.b32": 1, "selp.b32": 3, "prmt.b32": 3}
    assert selector_selects(cp.lowering) == 3
    kinds = register_kinds(cp.counts, cp.lowering)
    assert (kinds["selp"], kinds["selector"], kinds["prmt"]) == (0, 3, 3)
    assert register_kinds(cp.counts)["selp"] == 3  # without the lowering: all data selects
    plan = plan_conversion(src, dst, 8)
    assert plan.triton.opcodes == cp.counts and plan.triton.instructions == kinds
    assert plan.triton.cost == 2.5 and plan.saving >= 0
    dear = plan_conversion(src, dst, 8, weights={"selector": 0.5})
    assert dear.triton.cost == 4 and dear.saving >= 0
    with pytest.raises(LayoutError):
        selector_selects("not a lowering")


def test_amd_in_thread_byte_permutes_are_priced_as_check_counts_them():
    """AMD's 8-bit register renaming (``ConvertLayoutOpInThreadSwap``) emits ``v_perm_b32``:
    Triton's path is priced with exactly the permutes the compiled probes show (every fifth
    ``inthread`` probe of ``triton_amd_shuffle_probes.json.gz``), not as free."""
    from linlayout.check.registers import load_sources
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.check.shared_memory.predict import moved_bits
    from linlayout.conversion import ConversionProblem
    from linlayout.conversion.triton import triton_choice
    from linlayout.hardware import AMD_CDNA4
    from linlayout.triton.ttgir import find_accesses, read_ttgir
    from tests.check.shared_memory.triton_fixtures import entries

    probes = sorted(c for c in entries("amd_shuffle") if c.startswith("inthread"))[::5]
    assert len(probes) >= 10
    priced = 0
    for case in probes:
        e = entries("amd_shuffle")[case]
        module = read_ttgir(e["ttgir"], case)
        target = module_target(module)
        loads = load_sources(module)
        (a,) = [a for a in find_accesses(module) if a.kind == "convert"]
        hardware = AMD_CDNA4 if target.arch == "gfx950" else AMD_CDNA3
        problem = ConversionProblem.make(a.distributed.layout, a.destination.layout,
                                         moved_bits(a.element_bits, a.element_type), hardware)
        t = triton_choice(problem, target, None, loads.get(a.operands[0]))
        want = {k: n for k, n in e["data"]["counts"].items() if k == "v_perm_b32"}
        assert t.path == "registers" and t.opcodes == want, case
        assert t.instructions["prmt"] == want.get("v_perm_b32", 0), case
        assert t.cost == 0.5 * t.instructions["prmt"], case
        priced += bool(want)
    assert priced
