"""Butterfly shuffles of tt.reduce (linlayout/check/registers/reduce.py): the counts equal
the sm_90 PTX / gfx942 AMDGCN of the probes they were read from (Triton 3.9)."""

from __future__ import annotations

import pytest

from linlayout.check.registers import reduce_shuffles
from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.triton.parse import parse_type


def blocked(shape, spt, tpw, wpc, order, lanes=32):
    text = (f"tensor<{shape[0]}x{shape[1]}xf32, #ttg.blocked<{{sizePerThread = {spt}, "
            f"threadsPerWarp = {tpw}, warpsPerCTA = {wpc}, order = {order}}}>>")
    return parse_type(text).layout


def counts(layout, axis, bits, target, integer=False):
    ems, note = reduce_shuffles(layout, axis, (bits,), Target.parse(target), integer)
    return {e.opcode: e.per_thread for e in ems}, note


@pytest.mark.parametrize("spt,tpw,wpc,order,axis,bits,want", [
    ([1, 4], [4, 8], [1, 1], [1, 0], 0, 32, 16),
    ([1, 4], [4, 8], [1, 1], [1, 0], 1, 32, 24),
    ([1, 4], [4, 8], [1, 1], [1, 0], 1, 64, 48),
    ([2, 2], [8, 4], [2, 1], [1, 0], 0, 32, 64),   # two in-warp rounds: 48 + 16
    ([1, 2], [2, 16], [1, 2], [0, 1], 1, 32, 80),  # 64 + 16
    ([1, 1], [1, 32], [1, 1], [1, 0], 1, 16, 160),
])
def test_nvidia(spt, tpw, wpc, order, axis, bits, want):
    got, _ = counts(blocked((32, 64), spt, tpw, wpc, order), axis, bits, "cuda:90")
    assert got == {"shfl.sync.bfly.b32": want}


def test_full_warp_integer_reduction_is_left_to_redux():
    got, note = counts(blocked((32, 64), [1, 1], [1, 32], [1, 1], [1, 0]), 1, 32, "cuda:90",
                       integer=True)
    assert got == {} and "redux.sync" in note


@pytest.mark.parametrize("spt,tpw,wpc,order,axis,target,want", [
    ([1, 4], [4, 16], [1, 1], [1, 0], 0, "hip:gfx942", {"ds_bpermute_b32": 16}),
    ([1, 4], [4, 16], [1, 1], [1, 0], 0, "hip:gfx950",
     {"v_permlane32_swap_b32": 8, "v_permlane16_swap_b32": 8}),
    ([1, 4], [4, 16], [1, 1], [1, 0], 1, "hip:gfx942", {"v_mov_b32_dpp": 40}),
    ([2, 2], [8, 8], [2, 1], [1, 0], 0, "hip:gfx942",
     {"ds_bpermute_b32": 32, "v_mov_b32_dpp": 32}),
    ([1, 1], [1, 64], [1, 1], [1, 0], 1, "hip:gfx942", {"v_mov_b32_dpp": 192}),
    ([1, 2], [2, 32], [1, 2], [0, 1], 1, "hip:gfx942",
     {"ds_bpermute_b32": 32, "v_mov_b32_dpp": 80}),
])
def test_amd(spt, tpw, wpc, order, axis, target, want):
    got, _ = counts(blocked((32, 128), spt, tpw, wpc, order), axis, 32, target)
    assert got == want


def test_bad_axis():
    with pytest.raises(LayoutError, match="axis"):
        counts(blocked((32, 64), [1, 4], [4, 8], [1, 1], [1, 0]), 2, 32, "cuda:90")
