"""linlayout.triton.encodings.sampling: random encodings and (store, load) pairs."""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError
from linlayout.triton import parse_encoding
from linlayout.triton.encodings.sampling import KINDS, random_distributed, random_pair


@pytest.mark.parametrize("kind", KINDS)
def test_random_encodings_print_and_parse_back(kind):
    rng = random.Random(7)
    for _ in range(10):
        enc, desc = random_distributed(rng, kinds=[kind])
        assert desc and parse_encoding(enc.text()) == enc
        enc.to_linear_layout([64, 64])


def test_random_pairs_share_a_shape():
    store, load, bits, desc = random_pair(random.Random(3))
    assert store.out_dims == load.out_dims and bits in (8, 16, 32) and "->" in desc


def test_bad_arguments():
    with pytest.raises(LayoutError, match="num_warps"):
        random_distributed(random.Random(0), num_warps=3)
    with pytest.raises(LayoutError, match="kinds"):
        random_distributed(random.Random(0), kinds=["nope"])
