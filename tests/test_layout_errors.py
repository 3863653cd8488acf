"""Every public method, given bad arguments, raises LayoutError (never another exception, never
an abort) — and where a dim is at fault, the message names it.

Two walks:

* ``test_every_argument_survives_junk``: each public method of LinearLayout and Subspace is
  called with a valid argument list, then with each argument replaced in turn by junk values;
  every call must return or raise LayoutError. ``test_the_walk_covers_the_public_api`` fails
  when a public name is added without an entry here.
* ``test_messages_name_the_offending_dim``: targeted bad calls with the expected dim named.
"""

from __future__ import annotations

import numpy as np
import pytest

from linlayout import (
    LayoutError,
    LayoutParseError,
    LinearLayout,
    NotInvertibleError,
    NotLinearError,
    Subspace,
)

from strategies import GF2

L = LinearLayout
BASE = L({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]], "block": []},
         {"dim0": 4, "dim1": 4})
IDENT = L({"dim0": [[1, 0], [2, 0]], "dim1": [[0, 1], [0, 2]]}, {"dim0": 4, "dim1": 4})
U = Subspace([0b011, 0b100])

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
SUBSPACE_WALK = {
    "complement": (U, (8,), {}),
    "quotient": (U, (Subspace([1]),), {}),
    "random_element": (U, (3,), {}),
    "representative": (U, (5,), {}),
    "to_galois": (U, (4,), {}),
    "from_galois": (Subspace, ([[1, 0], [0, 1]],), {}),
    "full": (Subspace, (3,), {}),
    "__contains__": (U, (3,), {}),
    "__init__": (Subspace, ([1, 2],), {}),
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
SUBSPACE_NULLARY = {"basis", "dim", "nbits", "zero"}
# constructors documented as unchecked (for callers that established every invariant): they
# validate nothing by design, so junk is not walked through them
UNCHECKED = {"unchecked"}
SUBSPACE_UNCHECKED = {"from_echelon"}

JUNK = [None, 0, -1, 3, 2.5, True, float("nan"), "", "nope", "dim0", "register", b"x", [],
        ["nope"], [3], [[1]], [("x", 3)], {}, {"nope": 3}, {"register": 3}, {3: 4}, object(),
        L.empty(), Subspace([7])]


def test_the_walk_covers_the_public_api():
    public = {n for n in dir(LinearLayout) if not n.startswith("_")}
    assert public | {"__init__"} == set(WALK) | NULLARY | UNCHECKED
    public = {n for n in dir(Subspace) if not n.startswith("_")}
    assert public | {"__contains__", "__init__"} == \
        set(SUBSPACE_WALK) | SUBSPACE_NULLARY | SUBSPACE_UNCHECKED


@pytest.mark.parametrize("method", [getattr(LinearLayout, n) for n in sorted(UNCHECKED)]
                         + [getattr(Subspace, n) for n in sorted(SUBSPACE_UNCHECKED)])
def test_unchecked_constructors_say_so(method):
    assert "unchecked" in method.__doc__.lower()


def _call(table, name, args, kwargs):
    receiver = table[name][0]
    if name == "__init__":  # the constructor: the receiver is the class
        return receiver(*args, **kwargs)
    return getattr(receiver, name)(*args, **kwargs)


@pytest.mark.parametrize("table", [WALK, SUBSPACE_WALK], ids=["LinearLayout", "Subspace"])
def test_every_argument_survives_junk(table):
    for name, (_, args, kwargs) in table.items():
        _call(table, name, args, kwargs)  # the valid call works
        slots = [(i, None) for i in range(len(args))] + [(None, k) for k in kwargs]
        for i, key in slots:
            for junk in JUNK:
                a = list(args)
                kw = dict(kwargs)
                if key is None:
                    a[i] = junk
                else:
                    kw[key] = junk
                try:
                    _call(table, name, a, kw)
                except LayoutError:
                    pass
                except Exception as exc:  # pragma: no cover - the failure report
                    pytest.fail(f"{name}({a}, {kw}) raised {type(exc).__name__}: {exc}")


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


NAMED = [
    (lambda: BASE.apply({"warp": 1}), "'warp'"),
    (lambda: BASE.in_bits("warp"), "'warp'"),
    (lambda: BASE.out_bits("dim2"), "'dim2'"),
    (lambda: BASE.compose(L({"dim0": [[1], [2]]}, {"o": 4})), "'dim1'"),
    (lambda: BASE.compose(L({"dim0": [[1]], "dim1": [[2], [1]]}, {"o": 4})), "'dim0'"),
    (lambda: BASE.resize_in_dim("warp", 4), "'warp'"),
    (lambda: BASE.resize_in_dim("register", 3), "'register'"),
    (lambda: BASE.resize_out_dim("dim2", 4), "'dim2'"),
    (lambda: BASE.resize_out_dim("dim1", 6), "'dim1'"),
    (lambda: BASE.rename_in_dim("warp", "x"), "'warp'"),
    (lambda: BASE.rename_in_dim("register", "lane"), "'lane'"),
    (lambda: BASE.rename_out_dim("dim0", "dim1"), "'dim1'"),
    (lambda: BASE.squeeze_ins("register"), "'register'"),
    (lambda: BASE.squeeze_outs("dim0"), "'dim0'"),
    (lambda: BASE.concat_ins(BASE), "'register'"),
    (lambda: BASE.concat_ins(L({"warp": [[1]]}, {"dim0": 4})), "'dim1'"),
    (lambda: BASE.concat_outs(BASE), "'dim0'"),
    (lambda: BASE.concat_outs(L({"lane": [[1]]}, {"x": 2})), "'register'"),
    (lambda: BASE.sublayout("warp", "dim0"), "'warp'"),
    (lambda: BASE.sublayout_is_zero("register", "dim9"), "'dim9'"),
    (lambda: BASE.remove_zero_bases("warp"), "'warp'"),
    (lambda: BASE.contiguous_elems_along("dim9"), "'dim9'"),
    (lambda: BASE.contiguous_elems_along("dim0", "warp"), "'warp'"),
    (lambda: BASE.least_squares(L({"r": [[1, 0]]}, {"dim0": 8, "dim1": 1})), "'dim0'"),
    (lambda: BASE.least_squares(L({"r": [[1]]}, {"x": 2})), "'x'"),
    (lambda: L({"r": [[1, 0]]}, {"dim0": 4, "dim1": 4}).least_squares(
        L({"w": [[0, 1]]}, {"dim0": 4, "dim1": 4})), "w=1"),
    (lambda: BASE.invert_and_compose(L({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 4})), "'dim0'"),
    (lambda: BASE.invert_and_compose(L({"lane": [[1]]}, {"dim0": 4})), "'dim1'"),
    (lambda: BASE.transpose_ins(["register", "lane"]), "'block'"),
    (lambda: BASE.transpose_outs(["dim0"]), "'dim1'"),
    (lambda: BASE.reshape_ins({"x": 8}), "'x'"),
    (lambda: BASE.reshape_outs({"y": 3}), "'y'"),
    (lambda: L.from_columns([1], {"r": 2}, {"o": 3}), "'o'"),
    (lambda: L.from_function(lambda p: {"o": 9}, {"i": 2}, {"o": 4}), "'o'"),
    (lambda: L.from_function(lambda p: {"p": 0}, {"i": 2}, {"o": 4}), "'o'"),
    (lambda: L.from_function(lambda p: 5, {"i": 2}, {"o": 4, "q": 2}), "'q'"),
    (lambda: L.strided_1d(4, 3, "i", "o"), "stride"),
    (lambda: L.random({"r": 2}, {"o": 4}, surjective=True), "surjective"),
    (lambda: L.random({"r": 2}, {"o": 3}), "'o'"),
    (lambda: L.identity_1d(4, "", "o"), "in-dim"),
]


@pytest.mark.parametrize("call, match", NAMED, ids=[m for _, m in NAMED])
def test_messages_name_the_offending_dim(call, match):
    with pytest.raises(LayoutError, match=match):
        call()


def test_error_subclasses():
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
