"""NVIDIA reductions whose result is only used truncated read it out with narrow loads
(linlayout/check/shared_memory/truncated_readout.py), as the lowering of compiled i8/i16
sums, maxima and minima over axis 0 has it (Triton 3.9, cuda:80/90; gfx942 unchanged)."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check import check_module
from linlayout.check.shared_memory.truncated_readout import (narrow_truncated_readouts,
                                                            truncated_use_bits)
from linlayout.triton import read_ttgir

_KERNEL = """#blocked = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [{l0}, {l1}], warpsPerCTA = [8, 1], order = [1, 0]}}>
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 8 : i32, ttg.target = "{target}", "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @k(%X: !tt.ptr<i8>, %Y: !tt.ptr<i8>) {{
    %p = tt.splat %X : !tt.ptr<i8> -> tensor<128x8x!tt.ptr<i8>, #blocked>
    %x = tt.load %p : tensor<128x8x!tt.ptr<i8>, #blocked>
    %w = arith.extsi %x : tensor<128x8xi8, #blocked> to tensor<128x8xi32, #blocked>
    %r = "tt.reduce"(%w) <{{axis = 0 : i32}}> ({{
    ^bb0(%a: i32, %b: i32):
      %s = arith.addi %a, %b : i32
      tt.reduce.return %s : i32
    }}) : (tensor<128x8xi32, #blocked>) -> tensor<8xi32, #ttg.slice<{{dim = 0, parent = #blocked}}>>
    {use}
    tt.return
  }}
}}
"""
_TRUNC = ("%e = tt.expand_dims %r {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = "
          "#blocked}>> -> tensor<1x8xi32, #blocked>\n    %t = arith.trunci %e : tensor<1x8xi32, "
          "#blocked> to tensor<1x8xiK, #blocked>")
_WIDE = ("%e = tt.expand_dims %r {axis = 0 : i32} : tensor<8xi32, #ttg.slice<{dim = 0, parent = "
         "#blocked}>> -> tensor<1x8xi32, #blocked>\n    %t = arith.addi %e, %e : "
         "tensor<1x8xi32, #blocked>")


def _loads(target, use, lanes=(4, 8)):
    n = 32 if target.startswith("cuda") else 64
    text = _KERNEL.format(target=target, lanes=n, use=use, l0=lanes[0] * n // 32, l1=lanes[1])
    (op,) = [o for o in check_module(read_ttgir(text)).ops if o.access.op == "reduce"]
    return [i.emitted.opcode for i in op.instructions if i.emitted.side == "load"], text


@pytest.mark.parametrize("k", [8, 16])
def test_the_read_out_of_a_truncated_result_is_narrow_on_nvidia(k):
    loads, text = _loads("cuda:80", _TRUNC.replace('iK', f'i{k}'))
    assert truncated_use_bits(text, "%r") == k
    assert loads == ["ld.shared.b32", f"ld.shared.b{k}"]  # the round's reload stays 32-bit


def test_a_result_used_at_full_width_or_on_amd_keeps_its_loads():
    loads, text = _loads("cuda:80", _WIDE)
    assert truncated_use_bits(text, "%r") is None
    assert loads == ["ld.shared.b32", "ld.shared.b32"]
    loads, _ = _loads("hip:gfx942", _TRUNC.replace('iK', 'i8'))
    assert "ds_read_u8" not in loads and all(op.startswith("ds_read") for op in loads)


def test_truncated_use_bits_needs_every_use_truncated_alike():
    text = ("%a = tt.broadcast %r : tensor<1x8xi32, #b> -> tensor<4x8xi32, #b>\n"
            "%b = arith.trunci %a : tensor<4x8xi32, #b> to tensor<4x8xi8, #b>\n"
            "%c = arith.trunci %r : tensor<1x8xi32, #b> to tensor<1x8xi16, #b>")
    assert truncated_use_bits(text, "%a") == 8
    assert truncated_use_bits(text, "%r") is None  # two widths
    assert truncated_use_bits(text, "%zz") is None  # no use
    with pytest.raises(LayoutError):
        truncated_use_bits(None, "%r")


def test_narrow_truncated_readouts_refuses_junk():
    with pytest.raises(LayoutError):
        narrow_truncated_readouts([("x", 1)], "", None)
