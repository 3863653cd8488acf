"""linlayout.errors: one exception family, raised by every bad input.

LayoutError is a ValueError; NotInvertibleError, NotLinearError and LayoutParseError are
LayoutErrors, each raised where its docstring says.
"""

from __future__ import annotations

import pytest

from linlayout import (
    LayoutError,
    LayoutParseError,
    LinearLayout,
    NotInvertibleError,
    NotLinearError,
    Subspace,
)

from tests.support import BASE_LAYOUT


L = LinearLayout
BASE = BASE_LAYOUT


def test_a_bad_layout_raises_a_value_error():
    with pytest.raises(ValueError):
        LinearLayout({"register": [[5]]}, {"dim0": 4})


def test_each_error_subclass_is_raised_where_documented():
    assert issubclass(NotLinearError, LayoutError) and issubclass(LayoutParseError, LayoutError)
    assert issubclass(LayoutError, ValueError)
    with pytest.raises(NotLinearError):
        L.from_function(lambda p: p["i"] + 1 if p["i"] else 0, {"i": 4}, {"o": 8})
    with pytest.raises(LayoutParseError):
        L.parse("LinearLayout(")
    with pytest.raises(NotInvertibleError, match="not in the image"):
        L({"r": [[1]]}, {"o": 4}).least_squares(L({"s": [[2]]}, {"o": 4}))
    with pytest.raises(NotInvertibleError, match="surjective"):
        BASE.invert_and_compose(L({"x": [[1, 0]]}, {"dim0": 4, "dim1": 4}))
    with pytest.raises(LayoutError, match="not in the ambient"):
        Subspace([2]).complement(Subspace([1]))
