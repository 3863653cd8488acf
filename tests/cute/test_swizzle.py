"""linlayout.cute: CuTe's Swizzle<B,M,S> against CUTLASS's definitions, the XOR-pair helpers
ptx shares, recognising a swizzle in a layout, and the Sw<B,M,S> text form.
"""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout import ptx
from linlayout.cute import (
    apply_xor_pairs,
    cute_from_xor_pairs,
    cute_swizzle,
    cute_swizzle_offset,
    format_cute_swizzle,
    parse_cute_swizzle,
    to_cute_swizzle,
    xor_pairs,
    xor_pairs_layout,
)
from linlayout.cute.swizzle import MAX_SWIZZLE_BITS, check_swizzle


TRIPLES = [(b, m, s) for b in range(0, 4) for m in range(0, 5)
           for s in list(range(b, b + 4)) + list(range(-b - 3, -b + 1)) if abs(s) >= b]


def positive_shift_formula(B, M, S, a):
    """CUTLASS include/cute/swizzle.hpp's diagram for S >= 0 ("AA = ZZ xor YY": the B bits at
    M + S are XORed into the B bits at M), written out: a ^ ((a & (((1<<B)-1) << (M+S))) >> S)."""
    return a ^ ((a & (((1 << B) - 1) << (M + S))) >> S)


def cute_reference(B, M, S, a):
    """CUTLASS include/cute/swizzle.hpp, read independently: yyy = mask << (M + max(0,S)),
    result = a ^ shiftr(a & yyy, S) with shiftr a left shift for negative S."""
    yyy = ((1 << B) - 1) << (M + max(0, S))
    x = a & yyy
    return a ^ (x >> S if S >= 0 else x << -S)


@pytest.mark.parametrize("B,M,S", TRIPLES)
def test_cute_swizzle_against_the_definitions(B, M, S):
    L = cute_swizzle(B, M, S)
    size = L.in_dims["offset"]
    for a in range(size):
        v = cute_swizzle_offset(B, M, S, a)
        assert v == cute_reference(B, M, S, a)
        if S >= 0:
            assert v == positive_shift_formula(B, M, S, a)
        assert L.apply_flat(a) == v
    if B:
        assert to_cute_swizzle(L) == (B, M, S)
    else:
        assert to_cute_swizzle(L) == (0, 4, 3)


@pytest.mark.parametrize("B,M,S", TRIPLES)
def test_xor_pairs_are_the_swizzle(B, M, S):
    """The bit-pair helpers that ptx shares: same map as the functor, and back to the triple."""
    pairs = xor_pairs(B, M, S)
    assert len(pairs) == B and all(abs(s - t) == abs(S) for t, s in pairs)
    L = cute_swizzle(B, M, S)
    size = L.in_dims["offset"]
    assert xor_pairs_layout(pairs, size) == L
    for a in range(size):
        assert apply_xor_pairs(pairs, a) == cute_reference(B, M, S, a)
    assert cute_from_xor_pairs(pairs) == ((B, M, S) if B else (0, 4, 3))
    assert cute_from_xor_pairs(list(reversed(pairs))) == cute_from_xor_pairs(pairs)


def test_xor_pair_helpers_refuse_bad_pairs():
    assert cute_from_xor_pairs(((5, 7), (6, 8), (3, 7))) is None  # the 8-byte flip
    assert cute_from_xor_pairs(((4, 5), (5, 6))) is None  # |S| < B
    assert cute_from_xor_pairs(((4, 7), (6, 9))) is None  # gap in the targets
    for bad in ("47", 7, [(4,)], [(4, 7, 1)], [("4", 7)], [(-1, 7)], [(True, 7)]):
        with pytest.raises(LayoutError):
            cute_from_xor_pairs(bad)
        with pytest.raises(LayoutError):
            xor_pairs_layout(bad, 256)
    with pytest.raises(LayoutError, match="writes bit 8"):
        xor_pairs_layout(((8, 4),), 256)
    with pytest.raises(LayoutError, match="power of two"):
        xor_pairs_layout(((4, 7),), 100)
    # a source beyond the range drops out of the restriction
    assert xor_pairs_layout(((4, 9),), 256) == cute_swizzle(0, 4, 3, 256)


def test_to_cute_swizzle_rejects_non_swizzles():
    assert to_cute_swizzle(ptx.swizzle_layout("128B_atom_32B_flip_8B")) is None
    # one source feeding two targets
    two = LinearLayout.from_columns([1, 2, 4, 8 | 1 | 2], {"offset": 16}, {"offset": 16})
    assert to_cute_swizzle(two) is None
    # a plain permutation of bits
    perm = LinearLayout.from_columns([2, 1, 4, 8], {"offset": 16}, {"offset": 16})
    assert to_cute_swizzle(perm) is None
    # |S| < B (overlapping read and written bits) is not a CuTe swizzle
    overl = LinearLayout.from_columns([1, 2, 4 | 1, 8 | 2, 16 | 4], {"offset": 32}, {"offset": 32})
    assert to_cute_swizzle(overl) is None
    # non-contiguous targets
    gap = LinearLayout.from_columns([1, 2, 4, 8, 16 | 1, 32 | 4], {"offset": 64}, {"offset": 64})
    assert to_cute_swizzle(gap) is None
    rng = random.Random(5)
    for _ in range(200):
        cols = list(range(6))
        rng.shuffle(cols)
        L = LinearLayout.from_columns([1 << c for c in cols], {"offset": 64}, {"offset": 64})
        assert to_cute_swizzle(L) in (None, (0, 4, 3))


def test_to_cute_swizzle_needs_one_square_in_dim():
    with pytest.raises(LayoutError, match="one in dim"):
        to_cute_swizzle(LinearLayout({"a": [[1]], "b": [[2]]}, {"x": 4}))
    with pytest.raises(LayoutError, match="same size"):
        to_cute_swizzle(LinearLayout({"a": [[1]]}, {"x": 4}))
    with pytest.raises(LayoutError):
        to_cute_swizzle("Sw<3,4,3>")


def test_cute_swizzle_rejects_bad_triples():
    for args in ((-1, 4, 3), (1, -1, 3), (3, 4, 2), (2, 0, -1), (True, 4, 3), (1.0, 4, 3)):
        with pytest.raises(LayoutError):
            cute_swizzle(*args)
    with pytest.raises(LayoutError, match="power of two"):
        cute_swizzle(3, 4, 3, 1000)
    with pytest.raises(LayoutError, match="writes bit"):
        cute_swizzle(3, 4, -3, 128)  # writes bits 7..9
    assert cute_swizzle(3, 4, 3, 128) == ptx.swizzle_layout("none", 128)  # sources out of range
    with pytest.raises(LayoutError):
        cute_swizzle_offset(3, 4, 3, -1)


def test_sw_text_parses_and_formats_back():
    assert parse_cute_swizzle("Sw<3,4,3>") == (3, 4, 3)
    assert parse_cute_swizzle(" Swizzle< 2 , 5 , 2 > ") == (2, 5, 2)
    assert parse_cute_swizzle("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)") == (3, 4, 3)
    assert parse_cute_swizzle("Sw<1,0,-3>") == (1, 0, -3)
    for B, M, S in TRIPLES:
        assert parse_cute_swizzle(format_cute_swizzle(B, M, S)) == (B, M, S)
    for bad in ("Sw<1,4>", "Swz<1,4,3>", "Sw<3,4,2>", "Sw<1,2,3> o Sw<1,3,4>", ""):
        with pytest.raises(LayoutError):
            parse_cute_swizzle(bad)
    with pytest.raises(LayoutError):
        parse_cute_swizzle(343)
    with pytest.raises(LayoutError):
        format_cute_swizzle(3, 4, 1)


# ----------------------------------------------------------------------------- size limits
@pytest.mark.parametrize("call", [
    lambda: cute_swizzle(2**70, 0, 2**70),
    lambda: cute_swizzle(2**20, 0, 2**20),
    lambda: cute_swizzle(3, 2**70, 3),
    lambda: cute_swizzle_offset(2**70, 0, 2**70, 5),
    lambda: parse_cute_swizzle("Swizzle<" + "1" * 5000 + ",0,1>"),
    lambda: parse_cute_swizzle("Sw<999999,0,999999>"),
])
def test_oversize_swizzles_are_refused_promptly(call):
    # Once an OverflowError, or a B-long tuple of pairs that exhausted memory.
    with pytest.raises(LayoutError, match="at most"):
        call()


def test_largest_accepted_swizzle():
    assert check_swizzle(21, 22, 21) == (21, 22, 21)  # M + B + |S| = 64
    with pytest.raises(LayoutError, match=f"at most {MAX_SWIZZLE_BITS}"):
        check_swizzle(21, 23, 21)
