"""linlayout.layout.dims: the dim lists and bit-field bookkeeping under LinearLayout.

Each function on small hand-worked examples (those of the module docstring first); remap and
spread also against moving the bits one by one, and the merged dim order of a product against
Triton's SupremumTest.
"""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.layout.dims import (
    dim_tables,
    dims_arg,
    locate,
    names_arg,
    out_spec,
    permutation,
    prefix_sums,
    remap,
    scatter,
    split_by_dim,
    split_flat,
    spread,
    supremum,
)


L = LinearLayout


def test_product_orders_dims_like_triton_supremum_tests():
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


# ---------------------------------------------------------------------------- flat values
def test_split_flat_reads_each_out_dim_from_the_low_bits_up():
    # the module docstring's example: dim0 has 2 bits, dim1 one
    assert split_flat((("dim0", 2), ("dim1", 1)), 0b101) == (1, 1)
    assert split_flat((("dim0", 0), ("dim1", 3)), 0b101) == (0, 5)  # a size-1 dim reads 0
    assert split_flat((), 7) == ()


def test_prefix_sums_and_split_by_dim_lay_out_consecutive_fields():
    assert prefix_sums([2, 0, 3]) == [0, 2, 2]
    ins = (("register", 2), ("lane", 1), ("warp", 0))
    assert split_by_dim(ins, [1, 2, 4]) == {"register": [1, 2], "lane": [4], "warp": []}


def test_locate_finds_the_dim_of_a_flat_input_bit():
    ins = (("register", 2), ("block", 0), ("lane", 1))
    assert [locate(ins, i) for i in range(3)] == [("register", 0), ("register", 1), ("lane", 0)]
    with pytest.raises(IndexError):
        locate(ins, 3)


# ---------------------------------------------------------------------------- moving fields
def test_remap_moves_fields_and_drops_the_rest():
    # the module docstring's example: move dim1 (bit 2) below dim0 (bits 0-1)
    assert remap([0b101], [(0, 0b11, 1), (2, 0b1, 0)]) == [0b011]
    assert remap([0b1011, 0b0110], [(2, 0b11, 0)]) == [0b10, 0b01]  # one field, shifted down
    assert remap([0b1011], [(0, 0b11, 0)]) == [0b11]  # one field in place: a mask
    # three fields in place: bits outside them are dropped
    assert remap([0b110101], [(0, 0b1, 0), (1, 0b11, 1), (3, 0b111, 3)]) == [0b110101]
    assert remap([0b110101], [(0, 0b1, 0), (3, 0b111, 3)]) == [0b110001]
    # three fields reordered: bit 0 -> 5, bits 1-2 -> 0-1, bits 3-5 -> 2-4
    assert remap([0b110101], [(0, 0b1, 5), (1, 0b11, 0), (3, 0b111, 2)]) == [0b111010]
    assert remap([], [(0, 1, 0)]) == []


def test_remap_agrees_with_moving_bits_one_by_one():
    rng = random.Random(0)
    for _ in range(300):
        widths = [rng.randint(0, 3) for _ in range(rng.randint(1, 4))]
        sources = prefix_sums(widths)
        order = rng.sample(range(len(widths)), len(widths))
        targets = dict(zip(order, prefix_sums([widths[i] for i in order])))
        spec = [(sources[i], (1 << w) - 1, targets[i]) for i, w in enumerate(widths)
                if rng.random() < 0.8]
        cols = [rng.getrandbits(sum(widths) + 2) for _ in range(3)]
        expect = []
        for c in cols:
            out = 0
            for src, mask, dst in spec:
                for b in range(mask.bit_length()):
                    out |= (c >> (src + b) & 1) << (dst + b)
            expect.append(out)
        assert remap(cols, spec) == expect, (cols, spec)


def test_spread_moves_consecutive_fields_to_increasing_places():
    # bits 0-1 stay, bits 2.. move up to bit 4
    assert spread([0b1101, 0b0111], [(0, 0), (2, 4)]) == [0b110001, 0b010011]
    assert spread([0b1101], [(1, 0)]) == [0b110]  # below the first field: dropped
    assert spread([0b101], [(0, 3)]) == [0b101000]
    assert spread([0b110101], [(0, 1), (2, 5), (4, 9)]) == [0b11000100010]
    assert spread([5, 6], []) == [0, 0]


def test_spread_agrees_with_moving_bits_one_by_one():
    rng = random.Random(1)
    for _ in range(300):
        widths = [rng.randint(0, 3) for _ in range(rng.randint(1, 4))]
        starts = prefix_sums(widths)
        first = rng.randint(0, 2)
        fields, dst = [], rng.randint(0, 3)
        for s, w in zip(starts, widths):
            fields.append((first + s, dst))
            dst += w + rng.randint(0, 3)
        cols = [rng.getrandbits(first + sum(widths) + 3) for _ in range(3)]
        expect = []
        for c in cols:
            out = 0
            for i, (s, d) in enumerate(fields):
                top = fields[i + 1][0] if i + 1 < len(fields) else c.bit_length()
                for b in range(s, max(s, top)):
                    out |= (c >> b & 1) << (d + b - s)
            expect.append(out)
        assert spread(cols, fields) == expect, (cols, fields)


def test_scatter_sends_bit_j_to_its_position():
    assert scatter(0b101, [3, 0, 7]) == 0b10001000
    assert scatter(0b11, [1, 0]) == 0b11
    assert scatter(0, [5]) == 0


# ---------------------------------------------------------------------------- dim lists
def test_supremum_merges_two_dim_orders_like_triton():
    def sup(a, b):
        return [n for n, _ in supremum(tuple((n, 1) for n in a), tuple((n, 2) for n in b),
                                       tuple(a), tuple(b), "in")]

    # the docstring's examples
    assert sup("ab", "cb") == list("acb")
    assert sup("ab", "ac") == list("abc")
    assert sup("ab", "ca") == list("cab")
    assert sup("ab", "ab") == list("ab") and sup("ab", "cd") == list("abcd")
    # log2 sizes add; a dim only one side has keeps its own
    assert supremum((("a", 1), ("b", 2)), (("b", 3), ("c", 1)), ("a", "b"), ("b", "c"),
                    "in") == [("a", 1), ("b", 5), ("c", 1)]
    with pytest.raises(LayoutError, match="in dims common to both layouts must appear in the "
                                          r"same relative order; 'a' is out of order"):
        sup("ab", "ba")


def test_dim_tables_index_the_bits_of_every_dim():
    t = dim_tables((("register", 2), ("lane", 1)), (("dim0", 2), ("dim1", 3)))
    assert t.in_offsets == {"register": 0, "lane": 2}
    assert t.in_spec == {"register": (0, 4), "lane": (2, 2)}
    assert t.out_shifts == {"dim0": 0, "dim1": 2}
    assert t.out_fields == (("dim0", 0, 0b11), ("dim1", 2, 0b111))
    assert (t.in_names, t.out_names) == (("register", "lane"), ("dim0", "dim1"))
    # moving dim1 to bit 0 and dropping dim0
    assert out_spec(t, {"dim1": 0}) == [(2, 0b111, 0)]


def test_names_arg_takes_one_name_or_several():
    assert names_arg("lane", "dims") == ["lane"]
    assert names_arg(["a", "b", "a"], "dims") == ["a", "b"]  # repeats dropped, order kept
    with pytest.raises(LayoutError, match="dims must be a dim name or a list of names, got 3"):
        names_arg(3, "dims")
    with pytest.raises(LayoutError, match="dim names must be non-empty strings, got ''"):
        names_arg(["a", ""], "dims")


def test_dims_arg_reads_sizes_as_log2():
    assert dims_arg({"a": 4, "b": 1}, "in_dims", "in-dim") == [("a", 2), ("b", 0)]
    assert dims_arg([("a", 2)], "in_dims", "in-dim") == [("a", 1)]
    for bad, match in [("ab", r"in_dims must be \{name: size\} or \[\(name, size\), ...\]"),
                       ([("a", 2, 3)], r"in_dims must be \{name: size\}"),
                       (5, r"in_dims must be \{name: size\}"),
                       ({"a": 3}, "size of in-dim 'a' must be a positive power of two, got 3"),
                       ([("a", 2), ("a", 4)], r"in_dims repeats a name: \['a', 'a'\]")]:
        with pytest.raises(LayoutError, match=match):
            dims_arg(bad, "in_dims", "in-dim")


def test_permutation_names_the_missing_dims():
    assert permutation(["b", "a"], ("a", "b"), "in", "transpose_ins") == ["b", "a"]
    assert permutation("a", ("a",), "in", "transpose_ins") == ["a"]
    for bad in (["a"], ["a", "a"], ["a", 1]):
        with pytest.raises(LayoutError, match=r"transpose_ins needs a permutation of \['a', "
                                              r"'b'\], got .* \(missing in dims \['b'\]\)"):
            permutation(bad, ("a", "b"), "in", "transpose_ins")
    with pytest.raises(LayoutError, match=r"needs a permutation of \['a', 'b'\], got 3$"):
        permutation(3, ("a", "b"), "in", "transpose_ins")
