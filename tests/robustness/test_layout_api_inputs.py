"""LinearLayout's whole public API — every method of every module of linlayout.layout —
given bad arguments raises LayoutError: never another exception, never an abort.

Each public method is called with a valid argument list, then with each argument replaced in
turn by junk values; every call must return or raise LayoutError.
``test_the_walk_covers_the_public_api`` fails when a public name is added without an entry
here. (Which dim each error message names is checked with the module that raises it, in
``tests/layout/``; Subspace's walk is in ``tests/test_subspace.py``, the synthesis-level
walks are with their modules.)
"""

from __future__ import annotations

import numpy as np
import pytest

from linlayout import LinearLayout, NotInvertibleError

from tests.support import BASE_LAYOUT, GF2, walk_with_junk


L = LinearLayout
BASE = BASE_LAYOUT
IDENT = L({"dim0": [[1, 0], [2, 0]], "dim1": [[0, 1], [0, 2]]}, {"dim0": 4, "dim1": 4})


# name -> (receiver, valid positional args, valid keyword args)
WALK = {
    "__init__": (LinearLayout, (BASE.bases, BASE.out_dims), {"require_surjective": True}),
    "apply": (BASE, ({"register": 1},), {}),
    "apply_flat": (BASE, (3,), {}),
    "flat_input": (BASE, ({"register": 1, "lane": 2},), {}),
    "compose": (BASE, (IDENT,), {}),
    "concat_ins": (BASE, (L({"warp": [[1, 0]]}, BASE.out_dims),), {}),
    "concat_outs": (BASE, (L({"register": [[1], [0]], "lane": [[0], [0]], "block": []},
                             {"x": 2}),), {}),
    "contiguous_elems_along": (BASE, ("dim0", "register"), {}),
    "dim_columns": (BASE, ("register",), {}),
    "divide_left": (BASE, (L.identity_1d(4, "register", "dim0"),), {}),
    "divide_right": (BASE, (L.identity_1d(4, "lane", "dim1"),), {}),
    "from_columns": (L, ([1, 2], {"register": 4}, {"dim0": 4}), {}),
    "from_dict": (L, (BASE.to_dict(),), {}),
    "from_function": (L, (lambda p: p["i"], {"i": 4}, {"o": 4}), {"max_checks": 16, "rng": 0}),
    "from_galois": (L, (GF2(np.eye(2, dtype=np.uint8)), {"r": 4}, {"o": 4}), {}),
    "from_matrix": (L, (np.eye(2, dtype=np.uint8), {"r": 4}, {"o": 4}), {}),
    "identity_1d": (L, (4, "i", "o"), {}),
    "zeros_1d": (L, (4, "i", "o", 2), {}),
    "strided_1d": (L, (4, 2, "i", "o"), {}),
    "in_bits": (BASE, ("register",), {}),
    "out_bits": (BASE, ("dim0",), {}),
    "invert_and_compose": (BASE, (IDENT,), {}),
    "is_trivial_over": (BASE, (["block"],), {}),
    "least_squares": (BASE, (IDENT,), {}),
    "parse": (L, (repr(BASE),), {}),
    "quotient": (BASE, (["dim0"],), {}),
    "random": (L, ({"r": 4}, {"o": 4}),
               {"kind": "unit", "broadcast": 0.5, "surjective": True, "rng": 1}),
    "remove_zero_bases": (BASE, ("register",), {}),
    "rename_in_dim": (BASE, ("register", "reg"), {}),
    "rename_out_dim": (BASE, ("dim0", "d0"), {}),
    "reshape_ins": (BASE, ({"x": 16},), {}),
    "reshape_outs": (BASE, ({"y": 16},), {}),
    "resize_in_dim": (BASE, ("register", 8), {}),
    "resize_out_dim": (BASE, ("dim0", 8), {}),
    "squeeze_ins": (BASE, ("block",), {}),
    "squeeze_outs": (BASE, ([],), {}),
    "sublayout": (BASE, (["register"], ["dim0"]), {}),
    "sublayout_is_zero": (BASE, (["register"], ["dim0"]), {}),
    "transpose_ins": (BASE, (["lane", "register", "block"],), {}),
    "transpose_outs": (BASE, (["dim1", "dim0"],), {}),
}


# public names that take no arguments (properties and nullary methods): nothing to get wrong
# except the layout itself, covered by test_nullary_methods_on_bad_layouts
NULLARY = {
    "bases", "columns", "dim_tables", "empty", "in_dims_log2", "out_dims_log2", "flatten_ins", "flatten_outs", "free_variable_masks",
    "image", "in_dim_names", "in_dims", "invert", "is_injective", "is_invertible",
    "is_surjective", "kernel", "matrix", "num_consecutive_in_out", "out_dim_names",
    "out_dims", "pseudoinvert", "rank", "squeeze", "to_dict", "to_galois", "total_in_bits",
    "total_out_bits",
}


# constructors documented as unchecked (for callers that established every invariant): they
# validate nothing by design, so junk is not walked through them
UNCHECKED = {"unchecked"}


def test_the_walk_covers_the_public_api():
    public = {n for n in dir(LinearLayout) if not n.startswith("_")}
    assert public | {"__init__"} == set(WALK) | NULLARY | UNCHECKED


def test_every_argument_survives_junk():
    walk_with_junk(WALK)


def test_nullary_methods_on_bad_layouts():
    with pytest.raises(NotInvertibleError, match="not invertible"):
        L({"register": [[1], [1]]}, {"dim0": 4}).invert()
    with pytest.raises(NotInvertibleError, match="surjective"):
        L({"register": [[1], [1]]}, {"dim0": 4}).pseudoinvert()
    for lay in (L.empty(), L({"r": []}, {}), L({}, {"o": 4}), BASE):
        for name in NULLARY - {"invert", "pseudoinvert", "empty"}:
            value = getattr(lay, name)
            if callable(value):
                value()


def test_operators_follow_python_protocol():
    with pytest.raises(TypeError):
        BASE * 3  # noqa: B018
    with pytest.raises(TypeError):
        3 * BASE  # noqa: B018
    assert (BASE == 3) is False
