"""A ``ttg.num-warps`` on a ``tt.func`` governs the ops of that function over the module's:
Triton 3.9's ``lookupNumWarps`` takes the innermost count (partition, function, module).
The accept/refuse pattern below was checked by parsing each module with Triton 3.9 (its
layout verifier: "Layout has 4 warps per CTA, but the context requires 8 warps per CTA")."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check import check_module
from linlayout.triton import read_ttgir
from linlayout.triton.allocation import shared_allocation
from linlayout.triton.warp_specialize import FunctionWarps, find_function_warps


def _kernel(module_warps: int | None, function_warps: object, layout_warps: int) -> str:
    own = f' attributes {{"ttg.num-warps" = {function_warps} : i32}}' \
        if function_warps is not None else ""
    mod = f'"ttg.num-warps" = {module_warps} : i32, ' if module_warps is not None else ""
    return f"""\
#blocked = #ttg.blocked<{{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [{layout_warps}], order = [0]}}>
#shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}}>
#smem = #ttg.shared_memory
module attributes {{{mod}"ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"}} {{
  tt.func public @k(%a: tensor<1024xf32, #blocked>){own} {{
    %t = ttg.local_alloc %a : (tensor<1024xf32, #blocked>) -> !ttg.memdesc<1024xf32, #shared, #smem, mutable>
    tt.return
  }}
}}
"""


# (module, function, layout) -> whether Triton 3.9 accepts the module
@pytest.mark.parametrize("module_warps, function_warps, layout_warps, ok", [
    (4, None, 4, True), (4, None, 8, False), (4, 8, 8, True), (4, 8, 4, False),
    (None, 8, 8, True), (None, 8, 4, False), (8, 2, 2, True),
])
def test_the_functions_warps_govern_its_ops(module_warps, function_warps, layout_warps, ok):
    module = read_ttgir(_kernel(module_warps, function_warps, layout_warps))
    assert module.num_warps == module_warps  # the function's attribute is not the module's
    expect = (function_warps, "@k's ttg.num-warps") if function_warps else \
        (module_warps, "ttg.num-warps")
    assert module.warps_at(6) == expect == module.function_warps_at(6)
    [op] = check_module(module).ops
    assert (op.status.value != "not analysed") == ok
    if not ok:
        assert f"over {layout_warps} warps where the op runs on {expect[0]} ({expect[1]})" \
            in op.note


@pytest.mark.parametrize("value, message", [
    ("8.5", r"@k's ttg.num-warps is '8\.5', not an integer"),
    ("4RPS", r"@k's ttg.num-warps is '4RPS', not an integer"),
    ("3", r"@k's ttg.num-warps is 3; a function runs a power-of-two number of warps"),
    ("0", r"@k's ttg.num-warps is 0"),
    ("-4", r"@k's ttg.num-warps is -4"),
    ("9" * 40, r"more than 18 digits|digits"),
])
def test_a_bad_function_count_is_refused(value, message):
    with pytest.raises(LayoutError, match=message):
        read_ttgir(_kernel(4, value, 4))


def test_spans_and_a_partition_inside_the_function():
    # Triton 3.9 accepts this module: the default region runs on the function's 8 warps, the
    # partition on its own 2
    text = """\
#b8 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]}>
#b2 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:100"} {
  tt.func private @decl(%p: !tt.ptr<f32>) attributes {"ttg.num-warps" = 1 : i32}
  tt.func public @k(%p: !tt.ptr<f32>) attributes {"ttg.num-warps" = 8 : i32} {
    ttg.warp_specialize(%p)
    default {
      %0 = tt.splat %p : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #b8>
      ttg.warp_yield
    }
    partition0(%q: !tt.ptr<f32>) num_warps(2) {
      %1 = tt.splat %q : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #b2>
      ttg.warp_return
    } : (!tt.ptr<f32>) -> ()
    tt.return
  }
  tt.func public @other(%p: !tt.ptr<f32>) {
    tt.return
  }
}
"""
    assert find_function_warps(text) == (FunctionWarps("k", 8, 5, 16),)
    module = read_ttgir(text)
    assert module.warps_at(8) == (8, "@k's ttg.num-warps")
    assert module.warps_at(12) == (2, "partition0's num_warps")
    assert module.function_warps_at(12) == (8, "@k's ttg.num-warps")
    assert module.warps_at(18) == (4, "ttg.num-warps")  # @other


def test_a_module_count_on_a_function_line_only_is_not_the_modules():
    text = _kernel(None, 8, 8)
    assert read_ttgir(text).num_warps is None
    # the module's own count is read even when a function's comes first in the text
    first = text.replace('module attributes {"ttg.num-ctas"',
                         'module attributes {"ttg.num-ctas"').replace(
        'ttg.target = "cuda:90"} {', 'ttg.target = "cuda:90", "ttg.num-warps" = 2 : i32} {')
    assert read_ttgir(first).num_warps == 2


def _atomic(module_warps: int, function_warps: int) -> str:
    return f"""\
module attributes {{"ttg.num-warps" = {module_warps} : i32, "ttg.num-ctas" = 1 : i32, "ttg.threads-per-warp" = 32 : i32, ttg.target = "cuda:90"}} {{
  tt.func public @k(%p: !tt.ptr<f32>, %q: !tt.ptr<f32>) attributes {{"ttg.num-warps" = {function_warps} : i32}} {{
    %c = arith.constant 1.000000e+00 : f32
    %true = arith.constant true
    %0 = tt.atomic_rmw fadd, acq_rel, gpu, %p, %c, %true : (!tt.ptr<f32>, f32, i1) -> f32
    tt.store %q, %0 : !tt.ptr<f32>
    tt.return
  }}
}}
"""


def test_a_used_scalar_atomic_in_a_one_warp_function_of_a_wider_module_is_refused():
    # probe compile with Triton 3.9: the lowering asserts (broadcastScalarAtomicResult: no
    # allocation.offset), its allocation sized for the function's 1 warp
    [op] = [r for r in check_module(read_ttgir(_atomic(4, 1))).ops if r.access.op == "atomic_rmw"]
    assert op.status.value == "not analysed"
    assert "Triton 3.9 fails to compile it" in op.note


def test_a_scalar_atomic_is_lowered_with_the_modules_warps_and_sized_with_the_functions():
    # probe compile with Triton 3.9 of a 4-warp function in a 1-warp module: no shared memory
    # in the PTX (the lowering's shuffle for one warp), yet its scratch is allocated
    module = read_ttgir(_atomic(1, 4))
    [op] = [r for r in check_module(module).ops if r.access.op == "atomic_rmw"]
    assert op.status.value == "no shared memory" and "one warp" in op.note
    alloc, _ = shared_allocation(module.text, 1, (), {}, 4)
    assert alloc is not None and alloc.size_bytes > 0
    alloc, _ = shared_allocation(module.text, 1, (), {})
    assert alloc is not None and alloc.size_bytes == 0
