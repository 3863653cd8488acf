"""Shuffles of tt.scan (linlayout/check/registers/scan.py): equal to the sm_90 PTX of the
probes they were read from (Triton 3.9)."""

from __future__ import annotations

import pytest

from linlayout.check.registers import scan_shuffles
from linlayout.lowering import Target
from tests.check.registers.test_reduce import blocked


@pytest.mark.parametrize("spt,tpw,wpc,order,axis,bits,up,idx", [
    ([1, 4], [4, 8], [1, 1], [1, 0], 0, 32, 192, 64),
    ([1, 4], [4, 8], [1, 1], [1, 0], 1, 32, 64, 16),
    ([1, 4], [4, 8], [1, 1], [1, 0], 1, 64, 128, 32),
    ([2, 2], [8, 4], [2, 1], [1, 0], 0, 32, 64, 0),   # across warps: totals via shared
    ([2, 2], [8, 4], [2, 1], [1, 0], 1, 32, 48, 16),
    ([1, 2], [2, 16], [1, 2], [0, 1], 0, 16, 64, 32),
    ([1, 1], [1, 32], [1, 1], [1, 0], 1, 32, 384, 64),
])
def test_nvidia(spt, tpw, wpc, order, axis, bits, up, idx):
    ems, _ = scan_shuffles(blocked((32, 64), spt, tpw, wpc, order), axis, (bits,),
                           Target.parse("cuda:90"))
    want = {"shfl.sync.up.b32": up} | ({"shfl.sync.idx.b32": idx} if idx else {})
    assert {e.opcode: e.per_thread for e in ems} == want


def test_nothing_along_lanes():
    lay = blocked((32, 64), [1, 1], [1, 32], [1, 1], [1, 0])
    assert scan_shuffles(lay, 0, (32,), Target.parse("cuda:90")) == ((), "")
    assert scan_shuffles(lay, 0, (32,), Target.parse("hip:gfx942")) == ((), "")


# sm_80 PTX of 64x32 f32 cumsums along dim 0 with no lane on it (Triton 3.9): warps along the
# axis keep the dead extra shuffleUp per chunk; one warp along it emits nothing
@pytest.mark.parametrize("spt,wpc,bits,up", [
    ([1, 1], [2, 1], 32, 32), ([2, 1], [2, 1], 32, 16), ([4, 1], [4, 1], 32, 4),
    ([1, 1], [2, 2], 64, 64), ([2, 1], [1, 2], 32, 0),
])
def test_nvidia_warps_along_the_axis_without_lanes(spt, wpc, bits, up):
    lay = blocked((64, 32 * wpc[1]), spt, [1, 32], wpc, [1, 0])
    ems, _ = scan_shuffles(lay, 0, (bits,), Target.parse("cuda:80"))
    assert {e.opcode: e.per_thread for e in ems} == ({"shfl.sync.up.b32": up} if up else {})
    assert scan_shuffles(lay, 0, (bits,), Target.parse("hip:gfx942")) == ((), "")


# the gfx942/gfx950 AMDGCN of the cumsum probes (papers/triton_lowering/shuffle_probes.py):
# LLVM deletes the dead shuffles (the extra shuffleUp with one element per thread along the
# axis, the last chunk's shuffleIdx)
@pytest.mark.parametrize("shape,spt,tpw,wpc,order,axis,bits,n", [
    ((16, 128), [1, 4], [16, 4], [1, 1], [0, 1], 1, 32, 31),
    ((32, 64), [2, 2], [16, 4], [1, 1], [0, 1], 1, 64, 124),
    ((32, 64), [2, 1], [2, 32], [2, 1], [1, 0], 1, 16, 88),
    ((16, 128), [4, 2], [4, 16], [1, 2], [0, 1], 0, 16, 12),
    ((32, 128), [2, 1], [8, 8], [2, 2], [1, 0], 1, 16, 48),
])
def test_amd(shape, spt, tpw, wpc, order, axis, bits, n):
    ems, note = scan_shuffles(blocked(shape, spt, tpw, wpc, order), axis, (bits,),
                              Target.parse("hip:gfx942"))
    assert {e.opcode: e.per_thread for e in ems} == {"ds_bpermute_b32": n} and note == ""


GFX942 = Target.parse("hip:gfx942")


def _values(shape, spt, tpw, wpc, order, axis, element_type="f16", combiner="arith.maxnumf",
            target=GFX942, reverse=False):
    from linlayout.check.registers.scan import scan_result_values

    bits = 8 if element_type.endswith("8") else 16
    return scan_result_values(blocked(shape, spt, tpw, wpc, order, 64), axis, bits,
                              element_type, target, combiner, reverse)


def test_amd_scan_results_canonical_where_llvm_proves_it():
    """gfx942, f16 max along 8 lanes with two elements a thread (a compiled probe: two
    v_perm_b32 and two v_pack_b32_f16): each chunk's first element is a select with the
    value as loaded (unproven), its last the warpScan's three selects over combines."""
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED

    got = _values((16, 64), [2, 2], [8, 8], [1, 2], [0, 1], 0)
    assert len(got) == 8 and set(got[::2]) == {COMPUTED} and set(got[1::2]) == {CANONICAL}
    # 16 lanes: four selects, still proven; 32 lanes: five, not
    assert _values((32, 4), [2, 1], [16, 4], [1, 1], [0, 1], 0)[1] == CANONICAL
    assert _values((64, 2), [2, 1], [32, 2], [1, 1], [0, 1], 0)[1] == COMPUTED
    # a reverse scan flips its results back with shuffles
    assert set(_values((16, 64), [2, 2], [8, 8], [1, 2], [0, 1], 0, reverse=True)) == {COMPUTED}


def test_amd_scan_across_warps_leaves_the_first_block_unproven():
    """Warps along the axis: the totals go through predicated shared-memory stores (new basic
    blocks), so the first axis block's results select values of another block; the later
    blocks are combines (a compiled gfx950 probe: one v_perm_b32 for eight pairs)."""
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED

    got = _values((16, 128), [1, 2], [16, 4], [1, 2], [1, 0], 1)
    assert got[:2] == (COMPUTED, COMPUTED) and set(got[2:]) == {CANONICAL}


def test_amd_scan_bytes_raw_only_as_loaded():
    from linlayout.lowering.amd_pack import COMPUTED, RAW

    # lanes along the axis: every result is a select or a combine
    assert set(_values((16, 64), [2, 2], [8, 8], [1, 2], [0, 1], 0, "i8", "arith.addi")) \
        == {COMPUTED}
    # no lane nor warp along the axis: the first element of a chunk is the value as loaded
    got = _values((4, 64), [4, 1], [1, 64], [1, 1], [0, 1], 0, "i8", "arith.addi")
    assert got == (RAW, COMPUTED, COMPUTED, COMPUTED)


def test_gfx950_bf16_scan_results_pack_where_they_are_combines():
    """gfx950 converts two bf16 min/max results and packs them in one v_cvt_pk_bf16_f32; a
    select in between (the warpScan's, the first thread's) leaves them apart."""
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED

    gfx950 = Target.parse("hip:gfx950")
    # no lane along the axis, one warp: in-thread prefixes; the first element as loaded
    got = _values((4, 64), [4, 1], [1, 64], [1, 1], [0, 1], 0, "bf16", "arith.maxnumf",
                  gfx950)
    assert got == (COMPUTED, CANONICAL, CANONICAL, CANONICAL)
    got = _values((16, 64), [2, 2], [8, 8], [1, 2], [0, 1], 0, "bf16", "arith.minnumf",
                  gfx950)
    assert set(got) == {COMPUTED}  # every result is a select


def test_gfx942_bf16_scan_results_in_high_halves_where_they_are_combines():
    """gfx942 rounds a bf16 combine in f32 with integer ops, leaving it in the register's
    high half (HIGH); the value as loaded is RAW, a select or shuffle result COMPUTED (a low
    half): a low half under a HIGH one joins with one v_bfi_b32, no v_perm_b32 (a compiled
    probe: four v_bfi_b32 and four v_perm_b32 for eight pairs)."""
    from linlayout.check.registers.scan import bf16_high_halves
    from linlayout.lowering.amd_pack import COMPUTED, HIGH, RAW

    got = _values((4, 64), [4, 1], [1, 64], [1, 1], [0, 1], 0, "bf16", "arith.addf")
    assert got == (RAW, HIGH, HIGH, HIGH)
    got = _values((16, 64), [2, 2], [8, 8], [1, 2], [0, 1], 0, "bf16", "arith.addf")
    assert set(got) == {COMPUTED}  # every result is a select
    assert bf16_high_halves("bf16", GFX942, "arith.addf")
    assert bf16_high_halves("bf16", GFX942, "arith.maxnumf")
    assert not bf16_high_halves("f16", GFX942, "arith.addf")
    assert not bf16_high_halves("bf16", Target.parse("cuda:90"), "arith.addf")


def test_gfx950_bf16_add_is_rounded_with_integer_ops_min_max_natively():
    """On gfx950 Triton emulates a bf16 add, sub or mul in f32 and rounds it with integer ops
    as on gfx942 (HIGH halves, no v_cvt_pk_bf16_f32: a compiled add scan joins its pairs with
    v_perm_b32); only min/max lower to a native bf16 intrinsic whose results pack in one
    v_cvt_pk_bf16_f32 (CANONICAL, the test above)."""
    from linlayout.check.registers.scan import bf16_high_halves, packs_floats
    from linlayout.lowering.amd_pack import HIGH, RAW

    gfx950 = Target.parse("hip:gfx950")
    for op in ("arith.addf", "arith.subf", "arith.mulf"):
        assert bf16_high_halves("bf16", gfx950, op)
        assert not packs_floats("bf16", gfx950, op)
    for op in ("arith.maxnumf", "arith.minnumf"):
        assert not bf16_high_halves("bf16", gfx950, op)
        assert packs_floats("bf16", gfx950, op)
    got = _values((4, 64), [4, 1], [1, 64], [1, 1], [0, 1], 0, "bf16", "arith.addf",
                  target=gfx950)
    assert got == (RAW, HIGH, HIGH, HIGH)


@pytest.mark.parametrize("element_type,combiner,target", [
    ("bf16", "arith.maximumf", GFX942),      # a float combine not known
    ("f16", "arith.maximumf", GFX942),       # a float combine not known
    ("f16", None, GFX942),
    ("f32", "arith.addf", GFX942),           # 32 bits: nothing packs
    ("f16", "arith.addf", Target.parse("cuda:90")),
])
def test_amd_scan_values_not_modelled(element_type, combiner, target):
    assert _values((16, 64), [2, 2], [8, 8], [1, 2], [0, 1], 0, element_type, combiner,
                   target) is None


# reverse scans (reverse = true): the lowering's reverse-minus-forward difference of the same
# tiles (papers/triton_lowering/register_redraw_probes.py and its exploration): two flips, one
# shuffleXor by warpSize - 1 per register and 32 bits, whatever lies along the axis
@pytest.mark.parametrize("shape,tpw,wpc,axis,bits,regs", [
    ((16, 16), [2, 16], [1, 1], 0, 32, 8),
    ((64, 64), [1, 32], [2, 2], 1, 32, 32),
    ((256, 8), [4, 8], [1, 1], 0, 64, 64),
    ((8, 256), [1, 32], [1, 2], 1, 16, 32),
    ((256, 2), [16, 2], [4, 1], 1, 32, 4),
])
def test_a_reverse_scan_flips_every_register_twice_on_nvidia(shape, tpw, wpc, axis, bits, regs):
    lay = blocked(shape, [1, 1], tpw, wpc, [1, 0])
    cuda = Target.parse("cuda:90")
    fwd = {e.opcode: e.per_thread for e in scan_shuffles(lay, axis, (bits,), cuda)[0]}
    rev = {e.opcode: e.per_thread for e in scan_shuffles(lay, axis, (bits,), cuda, True)[0]}
    halves = 2 if bits == 64 else 1
    assert rev == {**fwd, "shfl.sync.bfly.b32": 2 * regs * halves}


@pytest.mark.parametrize("shape,tpw,wpc,axis,bits,regs", [
    ((16, 16), [4, 16], [1, 1], 0, 32, 4),
    ((256, 8), [8, 8], [1, 1], 0, 64, 32),
    ((128, 32), [2, 32], [4, 1], 1, 8, 16),
    ((256, 2), [32, 2], [4, 1], 1, 32, 2),
])
def test_a_reverse_scan_flips_with_bpermute_on_gfx942_and_three_moves_on_gfx950(
        shape, tpw, wpc, axis, bits, regs):
    lay = blocked(shape, [1, 1], tpw, wpc, [1, 0])
    n = 2 * regs * (2 if bits == 64 else 1)
    gfx942, gfx950 = Target.parse("hip:gfx942"), Target.parse("hip:gfx950")
    fwd = {e.opcode: e.per_thread for e in scan_shuffles(lay, axis, (bits,), gfx942)[0]}
    rev = {e.opcode: e.per_thread for e in scan_shuffles(lay, axis, (bits,), gfx942, True)[0]}
    assert rev == {**fwd, "ds_bpermute_b32": fwd.get("ds_bpermute_b32", 0) + n}
    fwd = {e.opcode: e.per_thread for e in scan_shuffles(lay, axis, (bits,), gfx950)[0]}
    rev = {e.opcode: e.per_thread for e in scan_shuffles(lay, axis, (bits,), gfx950, True)[0]}
    assert rev == {**fwd, "v_permlane32_swap_b32": n, "v_permlane16_swap_b32": n,
                   "v_mov_b32_dpp": fwd.get("v_mov_b32_dpp", 0) + n}
