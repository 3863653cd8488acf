"""``linlayout.triton.combine``: which operands each result of a reduce's combine reads."""

from __future__ import annotations

from linlayout.triton.combine import combine_dependencies

ARGMIN = """\
    ^bb0(%arg2: f32 loc(callsite(#loc1 at #loc8)), %arg3: i32 loc(#loc1), %arg4: f32, %arg5: i32):
      %lt = arith.cmpf olt, %arg2, %arg4 : f32 loc(#loc34)
      %value_ret = arith.select %lt, %arg2, %arg4 : f32 loc(#loc35)
      %index_ret = arith.select %lt, %arg3, %arg5 : i32 loc(#loc36)
      tt.reduce.return %value_ret, %index_ret : f32, i32 loc(#loc24)
"""

INDEPENDENT = """\
    ^bb0(%a: f32, %b: i32, %c: f32, %d: i32):
      %4 = arith.addf %a, %c : f32
      %5 = arith.maxsi %b, %d : i32
      tt.reduce.return %4, %5 : f32, i32
"""


def test_an_argmin_index_reads_the_values_and_the_values_do_not_read_the_index():
    assert combine_dependencies(ARGMIN, 2) == (frozenset({0}), frozenset({0, 1}))


def test_independent_reductions_read_only_their_own_operand():
    assert combine_dependencies(INDEPENDENT, 2) == (frozenset({0}), frozenset({1}))


def test_forms_it_does_not_understand_are_unknown():
    nested = INDEPENDENT.replace("%5 = arith.maxsi %b, %d : i32",
                                 "%5 = scf.if %x -> i32 {\n scf.yield %b : i32\n }")
    assert combine_dependencies(nested, 2) is None
    assert combine_dependencies(INDEPENDENT, 3) is None  # wrong argument count
    assert combine_dependencies("", 1) is None
    one_value = INDEPENDENT.replace("tt.reduce.return %4, %5", "tt.reduce.return %4")
    assert combine_dependencies(one_value, 2) is None
