"""linlayout.examples: the built-in layout pairs that ``linlayout synthesize`` runs.

Each example is a store and a load over the same tensor (distributed layouts, every element
held), shipped inside the package; the default comes first. That each can be made conflict-free
is the synthesizer's claim (``tests/synthesis/test_synthesize.py``).
"""

from __future__ import annotations

import dataclasses

import pytest

from linlayout import LayoutError, examples
from linlayout.hardware import is_distributed


def test_names_list_the_default_first():
    names = examples.names()
    assert names[0] == examples.DEFAULT == "transpose"
    assert len(names) == len(set(names)) >= 3
    assert {"transpose", "blocked-mma", "transpose-128"} <= set(names)


def test_get_without_a_name_is_the_default():
    assert examples.get() == examples.get(examples.DEFAULT)


@pytest.mark.parametrize("name", examples.names())
def test_each_example_is_a_store_and_a_load_over_one_tensor(name):
    ex = examples.get(name)
    assert ex.name == name and ex.description and ex.source
    assert ex.element_bits in (8, 16, 32, 64)
    assert ex.store.out_dims == ex.load.out_dims
    for side in (ex.store, ex.load):
        assert is_distributed(side) and side.is_surjective  # every element is held
    assert ex.store != ex.load


def test_the_article_transpose_stores_rows_and_loads_columns():
    ex = examples.get("transpose")
    assert ex.store.out_dims == {"dim0": 16, "dim1": 32} and ex.element_bits == 32
    assert ex.store.bases["lane"] == [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]  # along a row
    assert ex.load.bases["lane"][:4] == [[1, 0], [2, 0], [4, 0], [8, 0]]  # down a column


def test_examples_are_frozen_values():
    ex = examples.get("transpose")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.element_bits = 16


def test_an_unknown_name_lists_the_choices():
    with pytest.raises(LayoutError, match=r"no example 'nope'; choose one of \['transpose', "):
        examples.get("nope")


def test_listing_is_what_linlayout_examples_prints(capsys):
    from tests.support import run_cli

    text = examples.listing()
    lines = text.splitlines()
    assert len(lines) == len(examples.names()) and lines[0].startswith("transpose: ")
    assert all(line.endswith("-bit elements)") for line in lines)
    code, out, err = run_cli(capsys, "examples")
    assert (code, err) == (0, "") and out == text + "\n"
