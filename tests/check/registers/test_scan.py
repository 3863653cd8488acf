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
