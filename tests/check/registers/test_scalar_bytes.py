"""The byte permutes of an AMD full-wavefront reduction's scalar byte totals
(linlayout/check/registers/scalar_bytes.py): counted on the reduction's line, where the final
AMDGCN (with -O3) runs them, as many as AMDGPU's instruction selection spends joining them
for the convert's stores."""

from __future__ import annotations

import pytest

from linlayout.check.registers import move_scalar_byte_permutes
from linlayout.check.registers.reduce import reduce_leaves_scalar_bytes
from linlayout.check.registers.scalar_bytes import scalar_byte_reductions
from linlayout.check.shared_memory.ops import predict_module
from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.triton.ttgir import find_accesses, read_ttgir
from tests.check.registers.test_reduce import _slice, blocked

#: the xfail that led here: an i8 add over all 64 lanes, 4 totals per thread stored as two
#: ds_write_b16 words (compiled: 2 v_perm_b32 on the reduce's line 10 after -O3)
TTGIR = """#blocked = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [1, 64], warpsPerCTA = [4, 1], order = [1, 0]}}>
#blocked1 = #ttg.blocked<{{sizePerThread = [{d}], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:{arch}", "ttg.threads-per-warp" = 64 : i32}} {{
  tt.func public @p(%X: !tt.ptr<{t}>, %Y: !tt.ptr<{t}>) {{
    %rn = tt.make_range {{end = 128 : i32, start = 0 : i32}} : tensor<128xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>>
    %a = tt.splat %X : !tt.ptr<{t}> -> tensor<16x128x!tt.ptr<{t}>, #blocked>
    %x = tt.load %a : tensor<16x128x!tt.ptr<{t}>, #blocked>
    %n = arith.constant 0 : i32
    %m = arith.constant 1 : i32
    %r = "tt.reduce"(%x) <{{axis = 1 : i32}}> ({{
    ^bb0(%p0: {t}, %p1: {t}):
      %s = arith.addi %p0, %p1 : {t}
      tt.reduce.return %s : {t}
    }}) : (tensor<16x128x{t}, #blocked>) -> tensor<16x{t}, #ttg.slice<{{dim = 1, parent = #blocked}}>>
    %y = ttg.convert_layout %r : tensor<16x{t}, #ttg.slice<{{dim = 1, parent = #blocked}}>> -> tensor<16x{t}, #blocked1>
    %o = tt.make_range {{end = 16 : i32, start = 0 : i32}} : tensor<16xi32, #blocked1>
    %b = tt.splat %Y : !tt.ptr<{t}> -> tensor<16x!tt.ptr<{t}>, #blocked1>
    %c = tt.addptr %b, %o : tensor<16x!tt.ptr<{t}>, #blocked1>, tensor<16xi32, #blocked1>
    tt.store %c, %y : tensor<16x!tt.ptr<{t}>, #blocked1>
    tt.return
  }}
}}
"""


def _permutes(text: str) -> dict[str, int]:
    out = {}
    for a, p in predict_module(read_ttgir(text)):
        if a.op in ("reduce", "convert_layout") and not isinstance(p, LayoutError):
            out[a.op] = sum(e.per_thread or 0 for e in p.registers if e.opcode == "v_perm_b32")
    return out


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_byte_pairs_of_scalar_totals_are_counted_on_the_reduction(arch):
    assert _permutes(TTGIR.format(d=8, t="i8", arch=arch)) == \
        {"reduce": 2, "convert_layout": 0}


def test_bytes_stored_one_at_a_time_cost_no_permute():
    assert _permutes(TTGIR.format(d=1, t="i8", arch="gfx942")) == \
        {"reduce": 0, "convert_layout": 0}


def test_sixteen_bit_totals_pack_for_free():
    assert _permutes(TTGIR.format(d=8, t="i16", arch="gfx942")) == \
        {"reduce": 0, "convert_layout": 0}


def test_the_reduction_is_found_by_its_result():
    module = read_ttgir(TTGIR.format(d=8, t="i8", arch="gfx942"))
    assert scalar_byte_reductions(find_accesses(module), Target.parse("hip:gfx942")) == \
        {"%r": 10}
    assert scalar_byte_reductions(find_accesses(module), Target.parse("cuda:90")) == {}


def test_a_partial_warp_reduction_leaves_vector_registers():
    gfx = Target.parse("hip:gfx942")
    full = ((16, 64), [8, 1], [1, 64], [1, 1], [0, 1])
    half = ((32, 32), [1, 4], [32, 2], [1, 1], [0, 1])
    assert reduce_leaves_scalar_bytes(blocked(*full, 64), _slice(*full, 1), 1, 8, gfx)
    assert not reduce_leaves_scalar_bytes(blocked(*full, 64), _slice(*full, 1), 1, 16, gfx)
    assert not reduce_leaves_scalar_bytes(blocked(*half, 64), _slice(*half, 0), 0, 8, gfx)


def test_bad_arguments():
    with pytest.raises(LayoutError):
        move_scalar_byte_permutes([("x", 1)], Target.parse("hip:gfx942"))
    with pytest.raises(LayoutError):
        move_scalar_byte_permutes([], "gfx942")
    assert move_scalar_byte_permutes([], Target.parse("hip:gfx942")) == []
