"""The global layout-order suggestion names an order only when the layout's lanes (or a
thread's consecutive registers) do not already run along the contiguous dim
(``linlayout.check.global_memory.suggest.fastest_dim``)."""

from __future__ import annotations

from linlayout.check import check_module
from linlayout.check.global_memory.suggest import fastest_dim, filled_blocked
from linlayout.triton import read_ttgir
from linlayout.triton.axisinfo import layout_order
from linlayout.triton.encodings.distributed import BlockedEncoding

KERNEL = """#blocked = #ttg.blocked<{BLOCKED}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%X: !tt.ptr<i8>, %s: i32) {
    %rm = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %rn = tt.make_range {end = N : i32, start = 0 : i32} : tensor<Nxi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %a = tt.expand_dims %rm {axis = 1 : i32} : tensor<32xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<32x1xi32, #blocked>
    %ss = tt.splat %s : i32 -> tensor<32x1xi32, #blocked>
    %a1 = arith.muli %a, %ss : tensor<32x1xi32, #blocked>
    %b = tt.expand_dims %rn {axis = 0 : i32} : tensor<Nxi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1xNxi32, #blocked>
    %a2 = tt.broadcast %a1 : tensor<32x1xi32, #blocked> -> tensor<32xNxi32, #blocked>
    %b2 = tt.broadcast %b : tensor<1xNxi32, #blocked> -> tensor<32xNxi32, #blocked>
    %o = arith.addi %a2, %b2 : tensor<32xNxi32, #blocked>
    %p = tt.splat %X : !tt.ptr<i8> -> tensor<32xNx!tt.ptr<i8>, #blocked>
    %q = tt.addptr %p, %o : tensor<32xNx!tt.ptr<i8>, #blocked>, tensor<32xNxi32, #blocked>
    %v = tt.load %q : tensor<32xNx!tt.ptr<i8>, #blocked>
    tt.return
  }
}
"""


def _load(blocked: str, n: int = 32):
    text = KERNEL.replace("{BLOCKED}", blocked).replace("xN", f"x{n}").replace(
        "end = N", f"end = {n}").replace("<Nx", f"<{n}x")
    (g,) = check_module(read_ttgir(text)).global_ops
    return g


def test_lanes_along_the_contiguous_dim_get_no_order_suggestion():
    # a 32x16 i8 tile, one element per thread, 16 lanes along dim 1 then 2 rows: its linear
    # encoding's order starts at dim 0 (the registers repeat rows), but the lanes already
    # run along the contiguous dim; the two 16-byte rows per request (runtime row stride)
    # are what costs the second sector, and no order fixes that
    g = _load("{sizePerThread = [1, 1], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], "
              "order = [1, 0]}", n=16)
    lay = g.op.pointer_type.layout
    assert layout_order(lay)[0] == 0 and fastest_dim(lay, layout_order(lay), 1) == 1
    assert not g.cost.coalesced
    assert "order starting" not in g.suggestion


def test_lanes_across_the_contiguous_dim_get_a_costed_blocked_layout():
    # 32 lanes down dim 0 (runtime row stride: a sector per lane); the registers run along
    # dim 1, so the linear encoding's order starts at dim 1: the lanes decide. The order
    # alone keeps each instruction's 32x1 lane box; the lanes laid out again along dim 1
    # (Triton's blocked builder) touch 8 sectors per warp, and that layout, written back,
    # costs exactly that
    g = _load("{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [1, 4], "
              "order = [0, 1]}")
    assert not g.cost.coalesced and g.cost.sectors_per_warp == 256
    want = ("#ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], "
            "warpsPerCTA = [4, 1], order = [1, 0]}>")
    assert g.suggestion.endswith(f"{want} touches 8 sectors per warp instead of 256")
    assert "fastest dim is 0" in g.suggestion
    after = _load(want[len("#ttg.blocked<"):-1])
    assert after.cost.sectors_per_warp == 8 and "order" not in after.suggestion


def test_filled_blocked_follows_tritons_builder():
    enc = BlockedEncoding((1, 4), (32, 1), (1, 4), (0, 1))
    # 64x16 over 4 elements per thread along dim 1: 4 threads fill dim 1, the rest dim 0
    got = filled_blocked(enc, (1, 0), (64, 16))
    assert (got.threads_per_warp, got.warps_per_cta, got.order) == ((8, 4), (4, 1), (1, 0))
    # a tile smaller than the CTA: the last dim of the order takes what is left
    got = filled_blocked(enc, (1, 0), (2, 8))
    assert (got.threads_per_warp, got.warps_per_cta) == ((16, 2), (4, 1))
