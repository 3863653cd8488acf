"""linlayout.layout.dims: the dim lists and bit-field bookkeeping under LinearLayout."""

from __future__ import annotations

from linlayout import LinearLayout


L = LinearLayout


def test_triton_supremum_of_dim_names():
    # Triton: SupremumTest.{IdenticalLists, NonUniqueSupremumFirstListPriority,
    # NonUniqueSupremumAlternate, DifferentLengths, OneEmptyList}, seen through operator*
    def sup(x, y):
        a = L({n: [] for n in x}, {})
        b = L({n: [] for n in y}, {})
        return list((a * b).in_dims)

    assert sup("abc", "abc") == list("abc")
    assert sup("ab", "ac") == list("abc")
    assert sup("ab", "bc") == list("abc")
    assert sup("abc", "ad") == list("abcd")
    assert sup("ab", "") == list("ab") and sup("", "") == []
    assert sup("ab", "cb") == list("acb")  # outer's own dims go before a later shared dim
