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


ARGMIN_TIE_BREAK = """\
    ^bb0(%arg3: {t}, %arg4: i32, %arg5: {t}, %arg6: i32):
      %lt = {cmp}, %arg3, %arg5 : {t}
      %keep = {eq}, %arg3, %arg5 : {t}
      %keep_7 = arith.cmpi slt, %arg4, %arg6 : i32
      %keep_8 = arith.andi %keep, %keep_7 : i1
      %keep_9 = arith.ori %lt, %keep_8 : i1
      %3 = arith.select %keep_9, %arg3, %arg5 : {t}
      %4 = arith.select %keep_9, %arg4, %arg6 : i32
      tt.reduce.return %3, %4 : {t}, i32
"""


def _tie_break(ty: str, eq: str = "arith.cmpi eq") -> str:
    cmp = "arith.cmpi slt" if ty.startswith("i") else "arith.cmpf olt"
    if not ty.startswith("i") and eq == "arith.cmpi eq":
        eq = "arith.cmpf oeq"
    return ARGMIN_TIE_BREAK.format(t=ty, cmp=cmp, eq=eq)


def test_an_integer_tie_break_on_equal_values_is_folded_away_as_llvm_does():
    region = _tie_break("i64")
    assert combine_dependencies(region, 2) == (frozenset({0, 1}), frozenset({0, 1}))
    assert combine_dependencies(region, 2, fold_equal_arms=True) == \
        (frozenset({0}), frozenset({0, 1}))


def test_floats_and_other_predicates_keep_the_index():
    for region in (_tie_break("f32"), _tie_break("i32", eq="arith.cmpi ne")):
        assert combine_dependencies(region, 2, fold_equal_arms=True) == \
            (frozenset({0, 1}), frozenset({0, 1}))


def test_the_fold_sees_swapped_terms_and_operands():
    region = """\
    ^bb0(%a: i8, %i: i32, %b: i8, %j: i32):
      %gt = arith.cmpi sgt, %a, %b : i8
      %ilt = arith.cmpi slt, %i, %j : i32
      %eq = arith.cmpi eq, %b, %a : i8
      %t = arith.andi %ilt, %eq : i1
      %c = arith.ori %t, %gt : i1
      %v = arith.select %c, %a, %b : i8
      %k = arith.select %c, %i, %j : i32
      tt.reduce.return %v, %k : i8, i32
"""
    assert combine_dependencies(region, 2, fold_equal_arms=True) == \
        (frozenset({0}), frozenset({0, 1}))
