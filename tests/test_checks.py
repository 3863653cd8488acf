"""linlayout._checks: the argument checks every public function shares.

Each helper accepts what its docstring says (ints through ``__index__``, so numpy ints too)
and rejects anything else with a LayoutError that starts with the argument's name as the caller
knows it (``what``) and quotes the bad value. Bools are never ints here.
"""

from __future__ import annotations

import random
import re
import types
from collections import OrderedDict

import numpy as np
import pytest

from linlayout import LayoutError
from linlayout._checks import (
    as_int,
    bit_vector,
    dim_name,
    int_list,
    log2_exact,
    need_mapping,
    power_of_two,
    random_source,
)


def test_as_int_accepts_anything_with_index():
    assert as_int(3, "x") == 3 and as_int(-2, "x") == -2
    value = as_int(np.int64(3), "x")
    assert value == 3 and type(value) is int


@pytest.mark.parametrize("bad, match", [
    (True, "x must be an int, got the bool True"),
    (2.0, "x must be an int, got 2.0"),
    ("3", "x must be an int, got '3'"),
    (None, "x must be an int, got None"),
])
def test_as_int_rejects_bools_and_non_integers(bad, match):
    with pytest.raises(LayoutError, match=f"^{match}$"):
        as_int(bad, "x")


def test_bit_vector_accepts_non_negative_ints():
    assert bit_vector(0, "v") == 0 and bit_vector(0b101, "v") == 5
    assert bit_vector(np.uint8(7), "v") == 7


@pytest.mark.parametrize("bad, match", [
    (-1, "v must be a non-negative int bit vector, got -1"),
    (False, "v must be a non-negative int bit vector, got the bool False"),
    (1.5, "v must be a non-negative int bit vector, got 1.5"),
])
def test_bit_vector_rejects_negatives_bools_and_non_integers(bad, match):
    with pytest.raises(LayoutError, match=f"^{match}$"):
        bit_vector(bad, "v")


def test_log2_exact_returns_the_log2_of_a_power_of_two_in_range():
    assert [log2_exact(v, "s") for v in (1, 2, 8, 1 << 40)] == [0, 1, 3, 40]
    assert log2_exact(np.int32(4), "s") == 2
    assert log2_exact(8, "s", 1, 8) == 3 and log2_exact(4, "s", 4) == 2


@pytest.mark.parametrize("bad, lo, hi, match", [
    (6, 1, None, "s must be a positive power of two, got 6"),
    (0, 1, None, "s must be a positive power of two, got 0"),
    (-4, 1, None, "s must be a positive power of two, got -4"),
    (16, 1, 8, "s must be a power of two between 1 and 8, got 16"),
    (2, 4, None, "s must be a power of two at least 4, got 2"),
    (True, 1, None, "s must be an int power of two, got True"),
    ("8", 1, None, "s must be an int power of two, got '8'"),
])
def test_log2_exact_names_the_accepted_range(bad, lo, hi, match):
    with pytest.raises(LayoutError, match=f"^{match}$"):
        log2_exact(bad, "s", lo, hi)


def test_power_of_two_returns_the_value_and_zero_only_when_allowed():
    assert power_of_two(4, "p") == 4 and power_of_two(1, "p") == 1
    assert power_of_two(0, "p", allow_zero=True) == 0
    for bad, match in [(0, "p must be a positive power of two, got 0"),
                       (6, "p must be a positive power of two, got 6"),
                       (True, "p must be an int, got the bool True")]:
        with pytest.raises(LayoutError, match=f"^{match}$"):
            power_of_two(bad, "p")


def test_int_list_returns_a_tuple_of_ints():
    assert int_list([1, 2], "l") == (1, 2)
    assert int_list((4, np.int64(8)), "l", pow2=True, length=2) == (4, 8)
    assert int_list([], "l") == ()


@pytest.mark.parametrize("bad, kwargs, match", [
    ("12", {}, "l must be a list of ints, got '12'"),
    (5, {}, "l must be a list of ints, got 5"),
    ([1, "a"], {}, r"l\[1\] must be an int, got 'a'"),
    ([1, 3], {"pow2": True}, r"l\[1\] must be a positive power of two, got 3"),
    ([1, 2], {"length": 3}, "l has 2 entries but the rank is 3; give one per dimension"),
])
def test_int_list_names_the_bad_entry(bad, kwargs, match):
    with pytest.raises(LayoutError, match=f"^{match}$"):
        int_list(bad, "l", **kwargs)


def test_dim_name_accepts_non_empty_strings():
    assert dim_name("lane", "in-dim") == "lane"

    class Name(str):
        pass

    assert dim_name(Name("x"), "in-dim") == "x"


@pytest.mark.parametrize("bad, what, match", [
    ("", "in-dim", "in-dim names must be non-empty strings, got ''"),
    (3, "out-dim", "out-dim names must be non-empty strings, got 3"),
    (None, "in-dim", "in-dim names must be non-empty strings, got None"),
    (b"lane", "in-dim", "in-dim names must be non-empty strings, got b'lane'"),
])
def test_dim_name_rejects_empty_and_non_strings(bad, what, match):
    with pytest.raises(LayoutError, match=f"^{match}$"):
        dim_name(bad, what)


def test_need_mapping_accepts_any_mapping():
    for ok in ({}, {"lane": 1}, OrderedDict(), types.MappingProxyType({"a": 1})):
        assert need_mapping(ok, "bases") is None


@pytest.mark.parametrize("bad, match", [
    ([], r"bases must be a mapping \{name: value\}, got list"),
    ("ab", r"bases must be a mapping \{name: value\}, got str"),
    ([("lane", 1)], r"bases must be a mapping \{name: value\}, got list"),
])
def test_need_mapping_rejects_everything_else(bad, match):
    with pytest.raises(LayoutError, match=f"^{match}$"):
        need_mapping(bad, "bases")


def test_random_source_from_a_generator_a_seed_or_none():
    rng = random.Random(1)
    assert random_source(rng) is rng  # the caller's generator, not a copy
    assert random_source(5).random() == random.Random(5).random()  # a seed is reproducible
    assert type(random_source(None)) is random.Random


@pytest.mark.parametrize("bad", [True, "seed", 1.5, [1]])
def test_random_source_rejects_other_values(bad):
    message = f"rng must be a random.Random, an int seed or None, got {bad!r}"
    with pytest.raises(LayoutError, match=f"^{re.escape(message)}$"):
        random_source(bad)


# ----------------------------------------------------------------------------- size limits
def test_ints_past_max_int_bits_are_refused_without_printing_them():
    from linlayout._checks import MAX_INT_BITS, as_int, bit_vector, log2_exact, power_of_two

    huge = 10 ** 5000  # str() of it raises ValueError under Python's default digit limit
    for check in (as_int, bit_vector, log2_exact, power_of_two):
        with pytest.raises(LayoutError, match=rf"int of \d+ bits; at most {MAX_INT_BITS}"):
            check(huge, "x")
    assert as_int(1 << (MAX_INT_BITS - 1), "x") == 1 << (MAX_INT_BITS - 1)
    with pytest.raises(LayoutError):
        as_int(1 << MAX_INT_BITS, "x")


def test_shown_is_bounded_and_never_raises():
    from linlayout._checks import shown

    class Hostile:
        def __repr__(self):
            raise RuntimeError("no")

    assert shown(10 ** 5000).startswith("<an int of")
    assert shown([10 ** 5000]) == "<a list>"
    assert shown(Hostile()) == "<a Hostile>"
    assert len(shown("x" * 10_000)) <= 120
    assert shown("dim0") == "'dim0'"
