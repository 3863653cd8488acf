"""linlayout.layout.core: the constructor, the accessors, ``apply`` and equality.

Triton's documented semantics (bases, dims, the inferring constructor), immutability, copies,
the validation of every constructor argument, and the fast paths of the constructor and of
``apply`` against their plain definitions (on inputs that must leave the fast path too:
numpy ints, bools, mapping proxies).
"""

from __future__ import annotations

import copy
import pickle
import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, f2

from tests.support import BASE_LAYOUT, layouts, random_layouts, reg_lane_layout


SETTINGS = settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


L = LinearLayout


# ---------------------------------------------------------------------------- accessors and apply
def test_bases_dims_and_apply_of_a_4x4_layout():
    L = reg_lane_layout()
    assert L.bases == {"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]}
    assert L.in_dims == {"register": 4, "lane": 4}
    assert L.out_dims == {"dim0": 4, "dim1": 4}
    assert L.apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}
    assert list(L.apply({"register": 3, "lane": 1})) == ["dim0", "dim1"]  # out-dim order
    assert L.apply({}) == {"dim0": 0, "dim1": 0}  # missing in dims are 0
    assert L.in_dim_names == ("register", "lane") and L.out_dim_names == ("dim0", "dim1")
    assert L.rank == 4 and L.is_surjective and L.is_injective and L.is_invertible


def test_package_docstring_example_holds():
    L = LinearLayout({"register": [[1]], "lane": [[2]]}, out_dims={"dim0": 4})
    assert L.apply({"register": 1, "lane": 1}) == {"dim0": 3}
    assert L.matrix.tolist() == [[1, 0], [0, 1]]


def test_apply_is_xor_of_bases():
    L = LinearLayout({"register": [[3, 1], [1, 2]]}, out_dims={"dim0": 4, "dim1": 4})
    assert L.apply({"register": 1}) == {"dim0": 3, "dim1": 1}
    assert L.apply({"register": 2}) == {"dim0": 1, "dim1": 2}
    assert L.apply({"register": 3}) == {"dim0": 2, "dim1": 3}


def test_apply_matches_triton_apply_test():
    # Triton: Apply
    ll = L({"in1": [[4, 2], [2, 1], [1, 0]], "in2": [[1, 2], [2, 1]]}, {"out1": 8, "out2": 4})
    assert ll.apply({"in2": 0, "in1": 1}) == {"out1": 4, "out2": 2}
    assert ll.apply({"in2": 1, "in1": 0}) == {"out1": 1, "out2": 2}


# ---------------------------------------------------------------------------- construction, immutability, equality
def test_public_attributes_are_read_only_and_inputs_are_copied():
    L = reg_lane_layout()
    b = L.bases
    b["register"][0][0] = 3
    b["lane"].append([1, 1])
    b["warp"] = []
    assert L.bases == {"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]}
    d = L.in_dims
    d["warp"] = 2
    o = L.out_dims
    o["dim0"] = 8
    assert L.in_dims == {"register": 4, "lane": 4} and L.out_dims == {"dim0": 4, "dim1": 4}
    # public attributes are read-only properties and no attribute can be added (slots); the
    # private "_" slots are deliberately unguarded (a __setattr__ guard costs ~0.3 µs per
    # layout built, a fifth of a small compose)
    for attr, value in [("bases", {}), ("out_dims", {}), ("columns", ()), ("rank", 0),
                        ("foo", 1)]:
        with pytest.raises(AttributeError):
            setattr(L, attr, value)
    with pytest.raises(AttributeError):
        del L.bases
    assert L == reg_lane_layout()
    # input containers are copied too
    src = {"register": [[1, 0]]}
    outs = {"dim0": 2, "dim1": 1}
    M = LinearLayout(src, out_dims=outs)
    src["register"][0][0] = 0
    outs["dim0"] = 4
    assert M.bases == {"register": [[1, 0]]} and M.out_dims == {"dim0": 2, "dim1": 1}


def test_copies_and_pickles_equal_the_original():
    L = reg_lane_layout()
    for other in (copy.copy(L), copy.deepcopy(L), pickle.loads(pickle.dumps(L))):
        assert other == L and hash(other) == hash(L)
        assert other.apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}


def test_out_dim_names_alone_infer_sizes_and_need_surjectivity():
    L = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [4, 0]]}, ["dim0", "dim1"])
    assert L.out_dims == {"dim0": 8, "dim1": 2}  # next power of two above every value
    with pytest.raises(LayoutError, match="not surjective"):
        LinearLayout({"register": [[1], [4]]}, ["dim0"])  # size 8, but 2 is never reached
    assert LinearLayout({}) == LinearLayout.empty()
    assert LinearLayout({"register": []}, ["dim0"]).out_dims == {"dim0": 1}


def test_require_surjective_rejects_unreached_outputs():
    LinearLayout({"register": [[1]]}, {"dim0": 2}, require_surjective=True)
    with pytest.raises(LayoutError, match="not surjective"):
        LinearLayout({"register": [[1]]}, {"dim0": 4}, require_surjective=True)


def test_size_one_dims_and_the_empty_layout():
    L = LinearLayout({"register": [], "lane": [[1, 0]]}, out_dims={"dim0": 2, "dim1": 1})
    assert L.in_dims == {"register": 1, "lane": 2}
    assert L.apply({"register": 0, "lane": 1}) == {"dim0": 1, "dim1": 0}
    E = LinearLayout.empty()
    assert E.in_dims == {} and E.out_dims == {} and E.bases == {}
    assert E.apply({}) == {}
    assert E.total_in_bits == 0 and E.total_out_bits == 0 and E.is_invertible
    assert E * L == L and L * E == L


@SETTINGS
@given(layouts())
def test_equal_layouts_hash_alike_and_differ_from_other_values(L):
    M = LinearLayout(L.bases, L.out_dims)
    assert M == L and hash(M) == hash(L) and len({L, M}) == 1
    bigger = {**L.out_dims, "dim1": L.out_dims["dim1"] * 2}
    assert LinearLayout(L.bases, bigger) != L
    assert L != "not a layout"


def test_equality_is_ordered_like_triton():
    A = LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})
    B = LinearLayout({"lane": [[2]], "register": [[1]]}, {"dim0": 4})
    assert A != B  # in-dim order matters (Triton compares bases in order)
    assert A.transpose_outs(["dim0"]) is A


# ---------------------------------------------------------------------------- errors
OUTS = {"dim0": 4, "dim1": 4}


@pytest.mark.parametrize(
    "bases, out_dims, match",
    [
        ({"register": [[1]]}, OUTS, "'register'.*1 entries"),  # wrong image length
        ({"register": [[1, 0, 0]]}, OUTS, "'register'.*3 entries"),
        ({"lane": [[-1, 0]]}, OUTS, "'lane'.*negative.*'dim0'"),
        ({"lane": [[0, 4]]}, OUTS, "'lane'.*'dim1'.*size 4"),  # value ≥ out size
        ({"register": [[1, 0]]}, {"dim0": 3, "dim1": 4}, "'dim0'.*power of two"),
        ({"register": [[1, 0]]}, {"dim0": 0, "dim1": 4}, "'dim0'.*power of two"),
        ({"register": [[1, 0]]}, {"dim0": 4, "dim1": "4"}, "'dim1'"),
        ({"register": [[1, 0]]}, {"dim0": True, "dim1": 4}, "'dim0'"),
        ({3: [[1, 0]]}, OUTS, "in-dim names.*3"),  # non-string names
        ({"": [[1, 0]]}, OUTS, "in-dim names"),
        ({"register": [[1]]}, {7: 4}, "out-dim names.*7"),
        ({"register": [[True, 0]]}, OUTS, "'register'.*bool"),  # bool values
        ({"register": [[1.0, 0]]}, OUTS, "'register'.*not an int"),
        ({"register": [1, 0]}, OUTS, "'register'"),  # image is not a list
        ({"register": "ab"}, OUTS, "'register'"),
        ({"register": [[1, 0]]}, None, "out_dims is required"),
        ({"register": [[1, 0]]}, "dim0", "out_dims"),
        ({"register": [[1]]}, ["dim0", "dim0"], "distinct"),
    ],
)
def test_constructor_rejects_bad_bases_and_out_dims(bases, out_dims, match):
    with pytest.raises(LayoutError, match=match):
        LinearLayout(bases, out_dims)


def test_constructor_rejects_non_mapping_bases():
    with pytest.raises(LayoutError, match="mapping"):
        LinearLayout([[1, 0]], OUTS)


def test_apply_rejects_unknown_dims_and_values_outside():
    L = reg_lane_layout()
    with pytest.raises(LayoutError, match="'warp'"):
        L.apply({"warp": 0})
    with pytest.raises(LayoutError, match="'register'.*outside"):
        L.apply({"register": 4})
    with pytest.raises(LayoutError, match="'lane'.*outside"):
        L.apply({"lane": -1})
    with pytest.raises(LayoutError, match="'lane'.*bool"):
        L.apply({"lane": True})
    with pytest.raises(LayoutError, match="'lane'"):
        L.apply({"lane": 1.5})
    with pytest.raises(LayoutError, match="mapping"):
        L.apply(3)


# ---------------------------------------------------------------------------- fast paths
@settings(max_examples=150, deadline=None)
@given(random_layouts(max_out_bits=14), st.booleans())
def test_constructor_fast_path_equals_slow_path(L, as_tuples):
    bases = L.bases
    if as_tuples:
        bases = {n: tuple(tuple(img) for img in imgs) for n, imgs in bases.items()}
    fast = LinearLayout(bases, L.out_dims)
    # a mapping proxy is not a dict: the constructor takes its general path
    slow = LinearLayout(types.MappingProxyType(bases), types.MappingProxyType(L.out_dims))
    assert fast == slow == L
    assert fast.columns == slow.columns and all(type(c) is int for c in fast.columns)


def test_constructor_fast_path_leaves_on_odd_input():
    outs = {"dim0": 4, "dim1": 4}
    # numpy ints are accepted (operator.index) and stored as plain ints
    L = LinearLayout({"lane": [[np.int64(1), np.uint8(2)]]}, outs)
    assert L.bases == {"lane": [[1, 2]]} and all(type(c) is int for c in L.columns)
    assert LinearLayout({"lane": np.array([[1, 2], [2, 1]])}, outs).bases == \
        {"lane": [[1, 2], [2, 1]]}
    for bad, match in [({"lane": [{1, 2}]}, "lane"),  # a set has no order
                       ({"lane": [[1, True]]}, "bool"),
                       ({"lane": [[1, 2, 0]]}, "3 entries"),
                       ({"lane": [[4, 0]]}, "size 4"),
                       ({"lane": [[0, -1]]}, "negative"),
                       ({"lane": ["ab"]}, "lane")]:
        with pytest.raises(LayoutError, match=match):
            LinearLayout(bad, outs)
    # sizes: only plain positive powers of two take the fast path; others are re-read
    assert LinearLayout({"lane": [[1]]}, {"dim0": np.int64(2)}).out_dims == {"dim0": 2}
    with pytest.raises(LayoutError, match="power of two"):
        LinearLayout({"lane": [[1]]}, {"dim0": 6})


@settings(max_examples=150, deadline=None)
@given(random_layouts(max_out_bits=10), st.data())
def test_apply_fast_path_equals_definition(L, data):
    point = {n: data.draw(st.integers(0, s - 1), label=n) for n, s in L.in_dims.items()
             if data.draw(st.booleans(), label=f"give {n}")}
    got = L.apply(point)
    flat = 0
    for name, value in point.items():
        offset = sum(L.in_bits(n) for n in L.in_dim_names[:L.in_dim_names.index(name)])
        flat |= value << offset
    out = f2.apply(L.columns, flat)
    expect, shift = {}, 0
    for n in L.out_dim_names:
        expect[n] = out >> shift & (L.out_dims[n] - 1)
        shift += L.out_bits(n)
    assert got == expect and list(got) == list(L.out_dim_names)
    # numpy ints leave the fast path and give the same answer
    assert L.apply({n: np.int64(v) for n, v in point.items()}) == expect


def test_apply_fast_path_errors_name_the_dim():
    L = LinearLayout.identity_1d(8, "lane", "dim0")
    for bad, match in [({"lane": 8}, "outside"), ({"lane": -1}, "outside"),
                       ({"lane": False}, "bool"), ({"warp": 0}, "'warp'"),
                       ({("lane",): 0}, "unknown"), ([("lane", 1)], "mapping")]:
        with pytest.raises(LayoutError, match=match):
            L.apply(bad)


def test_unchecked_constructor_says_so():
    assert "unchecked" in LinearLayout.unchecked.__doc__.lower()


NAMED = [
    (lambda: BASE_LAYOUT.apply({"warp": 1}), "'warp'"),
    (lambda: BASE_LAYOUT.in_bits("warp"), "'warp'"),
    (lambda: BASE_LAYOUT.out_bits("dim2"), "'dim2'"),
]


@pytest.mark.parametrize("call, match", NAMED, ids=[m for _, m in NAMED])
def test_messages_name_the_offending_dim(call, match):
    with pytest.raises(LayoutError, match=match):
        call()
