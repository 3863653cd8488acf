"""linlayout._memo: one memoisation policy — bounded, registered caches emptied together."""

from __future__ import annotations

import linlayout
from linlayout import _memo, examples


def test_memoize_is_a_bounded_lru_cache_that_clear_caches_empties():
    calls = []

    @_memo.memoize(2)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    assert [square(3), square(3), square(4), square(5), square(3)] == [9, 9, 16, 25, 9]
    assert calls == [3, 4, 5, 3]  # 3 was evicted by 4 and 5 (two entries)
    linlayout.clear_caches()
    square(5)
    assert calls[-1] == 5 and square.cache_info().currsize == 1


def test_clear_caches_empties_the_synthesis_cache():
    ex = examples.get("transpose")
    first = linlayout.synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert linlayout.synthesize_swizzle(ex.store, ex.load, element_bits=32) is first
    linlayout.clear_caches()
    again = linlayout.synthesize_swizzle(ex.store, ex.load, element_bits=32)
    assert again is not first and again.layout == first.layout
