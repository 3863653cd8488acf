"""NVPTX's selection of the byte extracts of a loaded 8-bit word
(:mod:`linlayout.lowering.byte_extracts`), replayed from small LLVM IR kernels compiled with
Triton 3.9's LLVM (``tests/data/nvptx_byte_extracts.json``, written by
``papers/triton_lowering/byte_extract_isel.py``)."""

from __future__ import annotations

import json

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering.byte_extracts import (BYTE_READERS, built_word_permutes,
                                              byte_extract_permutes, pair_is_half_word,
                                              word_extract_permutes)
from tests.support import ROOT

DATA = json.loads((ROOT / "tests" / "data" / "nvptx_byte_extracts.json").read_text(
    encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(DATA["cases"]))
def test_each_byte_costs_what_nvptx_selected(name):
    case = DATA["cases"][name]
    want = [byte_extract_permutes(b, case["readers"][b]) for b in range(4)]
    for target, got in case["prmt_by_byte"].items():
        assert got == want, (name, target)


def test_the_fixture_reaches_every_reader_kind_and_every_free_byte_zero():
    kinds = {k for c in DATA["cases"].values() for r in c["readers"] for k in r}
    assert kinds == BYTE_READERS
    zero_free = [c for c in DATA["cases"].values()
                 if all(n[0] == 0 for n in c["prmt_by_byte"].values())]
    assert {k for c in zero_free for k in c["readers"][0]} == {
        "zext_arith", "zext_partitioned", "store_byte", "sext", "signed_byte"}
    assert set(next(iter(DATA["cases"].values()))["prmt_by_byte"]) == {"sm_80", "sm_90",
                                                                      "sm_100"}


@pytest.mark.parametrize("source", sorted(DATA["moved_words"]))
def test_a_shuffled_or_selected_word_costs_what_a_loaded_one_does(source):
    """A warp-shuffle convert's moved word (a shfl.sync.bfly result, or a select of it),
    unpacked as Triton does, read by every case's readers: the same selection."""
    by_case = DATA["moved_words"][source]
    assert set(by_case) == set(DATA["cases"])
    for name, by_target in by_case.items():
        readers = DATA["cases"][name]["readers"]
        want = [byte_extract_permutes(b, readers[b]) for b in range(4)]
        assert set(by_target) == {"sm_80", "sm_90", "sm_100"}
        for target, got in by_target.items():
            assert got == want, (source, name, target)


@pytest.mark.parametrize("read", sorted(DATA["built_moved_words"]))
def test_a_shuffled_word_of_loaded_bytes_costs_what_a_stored_one_does(read):
    """A warp-shuffle convert packing four loaded bytes into a register builds the word as a
    store does: the same byte shuffles."""
    by_key = DATA["built_moved_words"][read]
    assert set(by_key) == set(DATA["built_words"])
    for key, by_target in by_key.items():
        want = built_word_permutes((i // 4, i % 4) for i in map(int, key.split(",")))
        assert set(by_target) == {"sm_80", "sm_90", "sm_100"}
        assert set(by_target.values()) == {want}, (read, key)


@pytest.mark.parametrize("key", sorted(DATA["built_words"]))
def test_a_stored_word_of_loaded_bytes_costs_what_nvptx_selected(key):
    want = built_word_permutes((i // 4, i % 4) for i in map(int, key.split(",")))
    assert set(DATA["built_words"][key].values()) == {want}


def test_bytes_of_more_words_cost_one_permute_per_word_beyond_the_first():
    assert built_word_permutes([(0, 0), (1, 0), (2, 0), (2, 1)]) == 2
    assert built_word_permutes([(0, 0), (2, 0), (1, 0), (3, 0)]) == 3
    for bad in ([(0, 0)] * 3, [(0, 4)] * 4, [(0, 0, 0)] * 4, [(0, True)] * 4):
        with pytest.raises(LayoutError):
            built_word_permutes(bad)


@pytest.mark.parametrize("key", sorted(DATA["stored_pairs"]))
def test_a_stored_pair_half_word_has_its_extracts_on_the_stores_line(key):
    """The kernel loads one word on line 10 and stores byte pairs on line 20."""
    b = list(map(int, key.split(",")))
    moved = sum(2 for j in range(0, len(b), 2) if pair_is_half_word([(0, b[j]), (0, b[j + 1])]))
    want = {k: v for k, v in (("10", len(b) - moved), ("20", moved)) if v}
    by_target = DATA["stored_pairs"][key]
    assert set(by_target) == {"sm_80", "sm_90", "sm_100"}
    for target, got in by_target.items():
        assert got == want, (key, target)


def test_pair_is_half_word():
    assert pair_is_half_word([(3, 2), (3, 3)])
    assert not pair_is_half_word([(3, 1), (3, 2)])
    assert not pair_is_half_word([(0, 0), (1, 1)])
    assert not pair_is_half_word([(0, 1), (0, 0)])
    for bad in ([(0, 0)], [(0, 4), (0, 5)], [(0, 0, 0)] * 2, [(0, True), (0, 1)]):
        with pytest.raises(LayoutError):
            pair_is_half_word(bad)


def test_words():
    assert word_extract_permutes(["zext"]) == 4
    assert word_extract_permutes(["sext"]) == 3
    assert word_extract_permutes(["zext_arith"]) == 3
    assert word_extract_permutes(["zext_partitioned"]) == 3
    assert word_extract_permutes(["zext_partitioned", "zext"]) == 4
    assert word_extract_permutes(["zext", "signed_byte"]) == 8
    assert word_extract_permutes([]) == 0


@pytest.mark.parametrize("byte, readers", [(4, ["zext"]), (-1, ["zext"]), (0, ["trunc"]),
                                           (True, ["zext"]), ("0", ["zext"])])
def test_bad_input_is_refused(byte, readers):
    with pytest.raises(LayoutError):
        byte_extract_permutes(byte, readers)


@pytest.mark.parametrize("junk", [None, 1.5, True])
def test_sources_that_are_not_pairs_are_a_layout_error(junk):
    from linlayout.lowering.byte_extracts import built_word_permutes

    with pytest.raises(LayoutError, match="pairs"):
        built_word_permutes(junk)
