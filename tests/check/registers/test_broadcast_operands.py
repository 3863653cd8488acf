"""AMD reductions of a broadcast operand (linlayout/check/registers/broadcast_operands.py):
the first round's shuffle once per distinct value, as the gfx942/gfx950 lowering of compiled
argmax reductions has it (Triton 3.9; NVIDIA unchanged)."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check import check_module
from linlayout.check.registers.broadcast_operands import broadcast_dims, first_round_copies
from linlayout.triton import read_ttgir
from tests.check.registers.test_reduce import blocked

_KERNEL = """#blocked = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = {tpw}, warpsPerCTA = [1, 1], order = [1, 0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @k(%X: !tt.ptr<f32>, %Y: !tt.ptr<i32>) {{
    %r = tt.make_range {{end = {n} : i32, start = 0 : i32}} : tensor<{n}xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>>
    %e = tt.expand_dims %r {{axis = 0 : i32}} : tensor<{n}xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>> -> tensor<1x{n}xi32, #blocked>
    %i = tt.broadcast %e : tensor<1x{n}xi32, #blocked> -> tensor<{m}x{n}xi32, #blocked>
    %p = tt.splat %X : !tt.ptr<f32> -> tensor<{m}x{n}x!tt.ptr<f32>, #blocked>
    %x = tt.load %p : tensor<{m}x{n}x!tt.ptr<f32>, #blocked>
    %v:2 = "tt.reduce"(%x, %i) <{{axis = 1 : i32}}> ({{
    ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
      %g = arith.cmpf ogt, %a, %c : f32
      %s = arith.select %g, %a, %c : f32
      %t = arith.select %g, %b, %d : i32
      tt.reduce.return %s, %t : f32, i32
    }}) : (tensor<{m}x{n}xf32, #blocked>, tensor<{m}x{n}xi32, #blocked>) -> (tensor<{m}xf32, #ttg.slice<{{dim = 1, parent = #blocked}}>>, tensor<{m}xi32, #ttg.slice<{{dim = 1, parent = #blocked}}>>)
    tt.return
  }}
}}
"""


def _shuffles(m, n, tpw, target):
    lanes = 32 if target.startswith("cuda") else 64
    text = _KERNEL.format(m=m, n=n, tpw=tpw, target=target, lanes=lanes)
    (op,) = [o for o in check_module(read_ttgir(text)).ops if o.access.op == "reduce"]
    return {i.emitted.opcode: i.emitted.per_thread for i in op.instructions
            if i.emitted.side == "shuffle"}


def test_broadcast_dims_reads_the_size_one_dims_of_each_broadcast():
    text = ("%i = tt.broadcast %e : tensor<1x32xi32, #blocked> -> tensor<16x32xi32, #blocked>\n"
            "%j = tt.broadcast %f : tensor<16x1x!tt.ptr<f32>, #b> -> tensor<16x32x!tt.ptr<f32>, #b>")
    assert broadcast_dims(text) == {"%i": frozenset({0}), "%j": frozenset({1})}
    with pytest.raises(LayoutError):
        broadcast_dims(None)


@pytest.mark.parametrize("shape,spt,tpw,axis,dims,copies", [
    ((32, 32), [1, 1], [2, 32], 1, {0}, 16),  # every accumulator holds the same index
    ((32, 32), [1, 2], [2, 32], 1, {0}, 1),   # an in-thread step: combine results of their own
    ((32, 32), [1, 1], [2, 32], 1, {1}, 1),   # broadcast along the axis: distinct rows
    ((64, 8), [1, 1], [8, 8], 1, {0}, 8),
])
def test_first_round_copies(shape, spt, tpw, axis, dims, copies):
    lay = blocked(shape, spt, tpw, [1, 1], [1, 0])
    assert first_round_copies(lay, axis, frozenset(dims)) == copies


# the lowering of f32 argmax reductions (papers/triton_lowering/register_redraw_probes.py's
# exploration): gfx942 32x32 [2, 32] has 17 ds_bpermute (16 for the values, 1 for the indices
# at mask 16), 64x8 [8, 8] has 50 DPP moves (mask 4, two moves, once for the indices);
# cuda:90 keeps one shfl.sync.bfly per accumulator
@pytest.mark.parametrize("m,n,tpw,target,want", [
    (32, 32, [2, 32], "hip:gfx942", {"ds_bpermute_b32": 17, "v_mov_b32_dpp": 160}),
    (32, 32, [2, 32], "hip:gfx950", {"v_permlane16_swap_b32": 17, "v_mov_b32_dpp": 160}),
    (64, 8, [8, 8], "hip:gfx942", {"v_mov_b32_dpp": 50}),
    (32, 32, [1, 32], "cuda:90", {"shfl.sync.bfly.b32": 320}),
])
def test_a_broadcast_index_is_shuffled_once_in_the_first_round_on_amd(m, n, tpw, target, want):
    assert _shuffles(m, n, tpw, target) == want
