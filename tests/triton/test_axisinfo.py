"""Triton's AxisInfo over TTGIR text: each visitor's rule, hints, loops, the readings."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.triton import read_ttgir
from linlayout.triton.axisinfo import (MAX_DIVISOR, AxisInfo, alignment, analyse_axis_info,
                                       contig_per_thread, contiguity, layout_order,
                                       mask_alignment, unique_registers)

BLOCKED = ("#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], "
           "warpsPerCTA = [4], order = [0]}>\n"
           "#b2 = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], "
           "warpsPerCTA = [4, 1], order = [1, 0]}>\n")
HEAD = ('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", '
        '"ttg.threads-per-warp" = 32 : i32} {\n'
        "  tt.func public @k(%X: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 "
        "{tt.divisibility = 16 : i32}, %m: i32) {\n")
TAIL = "    tt.return\n  }\n}\n"


def _module(body: str):
    return read_ttgir(BLOCKED + HEAD + body + TAIL)


def _info(body: str, name: str) -> AxisInfo:
    return analyse_axis_info(_module(body)).values[name]


T = "tensor<1024xi32, #blocked>"
P = "tensor<1024x!tt.ptr<f32>, #blocked>"


def test_make_range_and_constants():
    body = (f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %c = arith.constant dense<4> : {T}\n"
            "    %s = arith.constant 48 : i32\n"
            "    %z = arith.constant 0 : i32\n")
    a = analyse_axis_info(_module(body)).values
    assert a["%r"] == AxisInfo((1024,), (MAX_DIVISOR,), (1,))
    assert a["%c"] == AxisInfo((1,), (4,), (1024,), 4)
    assert a["%s"] == AxisInfo((1,), (16,), (1,), 48)
    assert a["%z"].divisibility == (MAX_DIVISOR,)


def test_arguments_take_their_hints():
    a = analyse_axis_info(_module("")).values
    assert a["%X"].divisibility == (16,) and a["%n"].divisibility == (16,)
    assert a["%m"] == AxisInfo.pessimistic(1)


def test_addptr_scales_divisibility_by_element_bytes():
    body = (f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %c = arith.constant dense<1> : {T}\n"
            f"    %o = arith.addi %r, %c : {T}\n"
            f"    %p = tt.splat %X : !tt.ptr<f32> -> {P}\n"
            f"    %q = tt.addptr %p, %r : {P}, {T}\n"
            f"    %u = tt.addptr %p, %o : {P}, {T}\n")
    a = analyse_axis_info(_module(body)).values
    assert a["%o"].contiguity == (1024,) and a["%o"].divisibility == (1,)
    assert a["%q"] == AxisInfo((1024,), (16,), (1,))
    assert a["%u"].divisibility == (4,)  # one f32 past a 16-byte boundary


def test_mul_div_rem_and_compare():
    body = (f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %c = arith.constant dense<64> : {T}\n"
            f"    %d = arith.divsi %r, %c : {T}\n"
            f"    %e = arith.remsi %r, %c : {T}\n"
            f"    %f = arith.muli %r, %c : {T}\n"
            f"    %n2 = tt.splat %n : i32 -> {T}\n"
            f"    %k = arith.cmpi slt, %r, %n2 : {T}\n"
            f"    %k2 = arith.cmpi slt, %r, %e : {T}\n")
    a = analyse_axis_info(_module(body)).values
    assert a["%d"].constancy == (64,) and a["%d"].contiguity == (1,)
    assert a["%e"].contiguity == (64,)
    assert a["%f"].contiguity == (1,) and a["%f"].divisibility == (64,)
    assert a["%k"].constancy == (16,)  # gcd(contiguity 1024, divisibilities ∞ and 16)
    assert a["%k2"].constancy == (1,)


def test_expand_dims_and_broadcast():
    s1 = "tensor<32xi32, #ttg.slice<{dim = 0, parent = #b2}>>"
    s2 = "tensor<1x32xi32, #b2>"
    s3 = "tensor<16x32xi32, #b2>"
    body = (f"    %r = tt.make_range {{end = 32 : i32, start = 0 : i32}} : {s1}\n"
            f"    %e = tt.expand_dims %r {{axis = 0 : i32}} : {s1} -> {s2}\n"
            f"    %b = tt.broadcast %e : {s2} -> {s3}\n")
    a = analyse_axis_info(_module(body)).values
    assert a["%e"] == AxisInfo((1, 32), (1, MAX_DIVISOR), (1, 1))
    assert a["%b"] == AxisInfo((1, 32), (1, MAX_DIVISOR), (16, 1))


def test_op_hints_override():
    body = (f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %n2 = tt.splat %m : i32 -> {T}\n"
            f"    %o = arith.addi %n2, %r {{tt.divisibility = dense<16> : tensor<1xi32>, "
            f"tt.contiguity = dense<8> : tensor<1xi32>}} : {T}\n")
    assert _info(body, "%o") == AxisInfo((8,), (16,), (1,))


def test_unknown_ops_are_pessimistic():
    body = ("    %p = tt.get_program_id x : i32\n"
            f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %x = arith.xori %r, %r : {T}\n")
    a = analyse_axis_info(_module(body)).values
    assert a["%p"] == AxisInfo.pessimistic(1)
    assert a["%x"].contiguity == (1,)


def test_loop_carried_pointer_reaches_a_fixpoint():
    body = (f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %p = tt.splat %X : !tt.ptr<f32> -> {P}\n"
            f"    %q = tt.addptr %p, %r : {P}, {T}\n"
            f"    %c = arith.constant dense<1025> : {T}\n"
            "    %c0 = arith.constant 0 : i32\n"
            "    %c32 = arith.constant 32 : i32\n"
            f"    %res = scf.for %i = %c0 to %n step %c32 iter_args(%a = %q) -> ({P})  : i32 {{\n"
            f"      %v = tt.load %a : {P}\n"
            f"      %a2 = tt.addptr %a, %c : {P}, {T}\n"
            f"      scf.yield %a2 : {P}\n"
            "    }\n")
    ax = analyse_axis_info(_module(body))
    assert ax.values["%i"] == AxisInfo((1,), (32,), (1,))
    assert ax.values["%a"] == AxisInfo((1024,), (4,), (1,))  # 1025 f32 steps: 4-byte aligned
    assert ax.values["%res"] == ax.values["%a"]
    assert [g.name for g in ax.global_ops] == ["tt.load"]
    assert ax.strides["%a"] == (1,)


def test_global_ops_and_readings():
    body = (f"    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : {T}\n"
            f"    %p = tt.splat %X : !tt.ptr<f32> -> {P}\n"
            f"    %q = tt.addptr %p, %r : {P}, {T}\n"
            f"    %n2 = tt.splat %n : i32 -> {T}\n"
            f"    %k = arith.cmpi slt, %r, %n2 : {T}\n"
            f"    %v = tt.load %q, %k : {P}\n"
            "    %w = arith.constant dense<1.0> : tensor<1024xf32, #blocked>\n"
            "    tt.store %q, %w, %k : tensor<1024x!tt.ptr<f32>, #blocked>\n"
            "    %o = tt.atomic_rmw fadd, relaxed, gpu, %q, %w, %k : "
            "(tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xf32, #blocked>, "
            "tensor<1024xi1, #blocked>) -> tensor<1024xf32, #blocked>\n")
    ax = analyse_axis_info(_module(body))
    load, store, atom = ax.global_ops
    assert (load.pointer, load.mask, store.mask, atom.mask) == ("%q", "%k", "%k", "%k")
    assert not atom.result_used
    t = load.pointer_type
    assert layout_order(t.layout) == [0] and contig_per_thread(t.layout) == [4]
    assert unique_registers(t) == 8
    assert alignment(ax.info("%q"), t, 32) == 4
    assert contiguity(ax.info("%q"), t, 32) == 4
    assert mask_alignment(ax.info("%k"), t) == 16


def test_bad_module_argument():
    with pytest.raises(LayoutError):
        analyse_axis_info("not a module")


def _nested(depth: int) -> str:
    head = ('module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", '
            '"ttg.threads-per-warp" = 32 : i32} {\n  tt.func @k(%n: i32) {\n'
            "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n")
    body = "".join(f"    %r{i} = scf.for %i{i} = %c0 to %n step %c1 iter_args(%a{i} = %c0) "
                   "-> (i32)  : i32 {\n" for i in range(depth))
    body += "    scf.yield %c1 : i32\n    }\n" * depth
    return head + body + "    tt.return\n  }\n}\n"


def test_nested_loops_settle_without_blowing_up():
    ax = analyse_axis_info(read_ttgir(_nested(30)))
    assert ax.complete
    # 0 joined with 1 each iteration: divisibility 1
    assert ax.values["%a29"] == AxisInfo((1,), (1,), (1,))
    # past MAX_REGION_NESTING the reader refuses up front, with a LayoutError saying so
    with pytest.raises(LayoutError, match="nest more than"):
        read_ttgir(_nested(2000))


@pytest.mark.parametrize("junk", ["}}}}}}\n" * 50, "{\n" * 3000, "%x = tt.load\n",
                                  "scf.yield %a, %b\n}\n", "%y = arith.addi %q\n"])
def test_malformed_text_is_no_crash(junk):
    """Junk is analysed or refused with a LayoutError (3000 open braces nest too deep)."""
    text = _nested(1).replace("    tt.return", junk + "    tt.return")
    try:
        module = read_ttgir(text)
    except LayoutError:
        return
    analyse_axis_info(module)


def test_constants_wrap_to_64_bits_as_triton_holds_them():
    # 40 squarings of 2^40: unwrapped, an integer of 2^40 digits (the analysis hung); Triton's
    # AxisInfo holds constants as int64_t
    body = "    %m0 = arith.constant 1099511627776 : i64\n" + "".join(
        f"    %m{k + 1} = arith.muli %m{k}, %m{k} : i64\n" for k in range(40))
    assert _info(body, "%m1").constant == 0  # 2^80 wraps to 0
    assert _info(body, "%m40").constant == 0
    body = ("    %a = arith.constant 576460752303423488 : i64\n"
            "    %c = arith.constant 16 : i64\n"
            "    %b = arith.muli %a, %c : i64\n")  # 2^59 · 16 = 2^63 wraps to -2^63
    assert _info(body, "%b").constant == -(1 << 63)


def test_a_constant_wider_than_64_bits_is_unknown():
    # was `1 << 99999999999999`: MemoryError (exit 3)
    info = analyse_axis_info(_module("    %q = arith.constant 5 : i99999999999999\n"))
    assert info.values.get("%q") is None or info.values["%q"].constant is None


@pytest.mark.parametrize("body, match", [
    # fuzz (seed 7391): a 5000-digit literal was a ValueError (Python's 4,300-digit limit)
    ("    %q = arith.constant " + "9" * 5000 + " : i32\n",
     "line 5: arith.constant: an integer with 5000 digits"),
    # %q:900000000 named 9·10^8 results one by one: minutes and gigabytes
    ("    %q:900000000 = arith.constant 1 : i32\n", r"900000000 results; at most 4096 "
     r"\(MAX_OP_RESULTS\)"),
], ids=["5000 digits", "9e8 results"])
def test_numbers_no_module_holds_are_refused(body, match):
    with pytest.raises(LayoutError, match=match):
        analyse_axis_info(_module(body))


def test_a_hint_repeated_over_another_rank_is_ignored():
    # dense<16> : tensor<99999999999xi32> repeated 16 once per element: MemoryError (exit 3)
    text = (BLOCKED + HEAD.replace("%m: i32)", "%m: i32 {tt.divisibility = dense<16> : "
                                   "tensor<99999999999xi32>})") + TAIL)
    assert analyse_axis_info(read_ttgir(text)).values["%m"] == \
        analyse_axis_info(_module("")).values["%m"]
