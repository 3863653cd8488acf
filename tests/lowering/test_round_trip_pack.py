"""The byte permutes around a convert's round trip through shared memory
(``linlayout.lowering.round_trip_pack``); the compiled-code checks are the probe fixtures
(``tests/check/test_cvt_heldout_probes.py``, ``tests/lowering/test_shuffle_probes.py``)."""

from __future__ import annotations

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.lowering.emitted import Emitted
from linlayout.lowering.round_trip_pack import round_trip_permutes, stored_word_permutes
from linlayout.lowering.vectorise import AccessMap
from tests.lowering.warp_pairs import layout

# 8 registers per thread along dim 1, in order: element offsets 1, 2, 4 in the scratch
SRC = layout([1, 2, 4], [8, 16, 32, 64, 128], [], 0, 8)
IN_ORDER = AccessMap((1, 2, 4), (8, 16, 32, 64, 128), ())


def _side(op: str, side: str, per: int, vec: int, bits: int) -> Emitted:
    return Emitted(side, op, per, vec, bits, vec * bits // 8)


def _counts(ems) -> dict:
    return {e.opcode: e.per_thread for e in ems}


def test_nvidia_bytes_cost_three_prmt_per_stored_word_and_four_per_loaded_word():
    st = (_side("st.shared.v2.b32", "store", 1, 8, 8),)
    ld = (_side("ld.shared.b32", "load", 2, 4, 8),)
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, ld, 8, Target.parse("cuda:90"))) \
        == {"prmt.b32": 6 + 8}
    sub = (_side("ld.shared.v2.b8", "load", 4, 2, 8),)
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, sub, 8, Target.parse("cuda:90"))) \
        == {"prmt.b32": 6}


def test_nvidia_ldmatrix_registers_extract_each_byte():
    st = (_side("st.shared.v2.b32", "store", 1, 8, 8),)
    ld = (_side("ldmatrix.sync.aligned.m8n8.x2.shared.b16", "load", 1, 8, 8),)
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, ld, 8, Target.parse("cuda:90"))) \
        == {"prmt.b32": 6 + 8}


def test_nvidia_multi_word_loads_extract_each_byte():
    st = (_side("st.shared.v2.b32", "store", 1, 8, 8),)
    ld = (_side("ld.shared.v2.b32", "load", 1, 8, 8),)
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, ld, 8, Target.parse("cuda:80"))) \
        == {"prmt.b32": 6 + 8}


def test_nvidia_two_byte_stores_and_16_bit_elements_pack_nothing():
    st = (_side("st.shared.v2.b8", "store", 4, 2, 8),)
    ld = (_side("ld.shared.b8", "load", 8, 1, 8),)
    assert round_trip_permutes(SRC, IN_ORDER, st, ld, 8, Target.parse("cuda:90")) == ()
    st16 = (_side("st.shared.v4.b32", "store", 1, 8, 16),)
    assert round_trip_permutes(SRC, IN_ORDER, st16, st16, 16, Target.parse("cuda:90")) == ()
    st32 = (_side("st.shared.v4.b32", "store", 2, 4, 32),)
    assert round_trip_permutes(SRC, IN_ORDER, st32, st32, 32, Target.parse("cuda:90")) == ()


def test_nvidia_16_bit_halves_of_32_bit_registers_cost_a_prmt_per_stored_word():
    """A gather's shuffle results or a redux.sync's: NVPTX joins two with prmt.b32 0x5410."""
    cuda = Target.parse("cuda:80")
    st = (_side("st.shared.v4.b32", "store", 1, 8, 16),)
    ld = (_side("ld.shared.v4.b32", "load", 1, 8, 16),)
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, ld, 16, cuda, wide_source=True)) \
        == {"prmt.b32": 4}
    pair = (_side("st.shared.b32", "store", 4, 2, 16),)  # a two-element vector
    assert _counts(round_trip_permutes(SRC, IN_ORDER, pair, ld, 16, cuda, wide_source=True)) \
        == {"prmt.b32": 4}
    alone = (_side("st.shared.b16", "store", 8, 1, 16),)
    assert round_trip_permutes(SRC, IN_ORDER, alone, ld, 16, cuda, wide_source=True) == ()
    # bytes cost three per word whatever registers they come from
    st8 = (_side("st.shared.v2.b32", "store", 1, 8, 8),)
    assert round_trip_permutes(SRC, IN_ORDER, st8, (), 8, cuda, wide_source=True) == \
        round_trip_permutes(SRC, IN_ORDER, st8, (), 8, cuda)


def test_amd_bytes_of_32_bit_shuffle_results_pack_with_no_permute():
    st = (_side("ds_write_b64", "store", 1, 8, 8),)
    gfx = Target.parse("hip:gfx942")
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, (), 8, gfx)) == {"v_perm_b32": 4}
    assert round_trip_permutes(SRC, IN_ORDER, st, (), 8, gfx, wide_source=True) == ()


def test_amd_16_bit_words_pack_unless_loaded_in_order():
    st = (_side("ds_write_b32", "store", 4, 2, 16),)
    gfx = Target.parse("hip:gfx942")
    # one element per register (any producer but a load): a v_perm_b32 per stored word
    assert _counts(round_trip_permutes(SRC, IN_ORDER, st, (), 16, gfx)) == {"v_perm_b32": 4}
    # loaded contiguously along dim 1: each word is a loaded register, in order
    assert round_trip_permutes(SRC, IN_ORDER, st, (), 16, gfx, source_load=(1, 8)) == ()
    # a float truncation builds its words itself
    assert round_trip_permutes(SRC, IN_ORDER, st, (), 16, gfx, packed_source=True) == ()
    # the stored pair is registers 0 and 4: halves of two loaded registers, one v_perm each
    swapped = AccessMap((4, 2, 1), (8, 16, 32, 64, 128), ())
    assert _counts(round_trip_permutes(SRC, swapped, st, (), 16, gfx, source_load=(1, 2))) \
        == {"v_perm_b32": 4}


def test_amd_two_byte_stores_pack_with_no_permute():
    st = (_side("ds_write_b16", "store", 4, 2, 8),)
    assert round_trip_permutes(SRC, IN_ORDER, st, (), 8, Target.parse("hip:gfx950")) == ()


def test_bad_arguments():
    with pytest.raises(LayoutError):
        round_trip_permutes(SRC, IN_ORDER, (), (), 16, Target.parse("cuda:90"), wide_source=1)
    with pytest.raises(LayoutError):
        round_trip_permutes("src", IN_ORDER, (), (), 8, Target.parse("cuda:90"))
    with pytest.raises(LayoutError):
        round_trip_permutes(SRC, IN_ORDER, (), (), 8, "cuda:90")


# the destination: columns 0, 1 then row 1 in registers (Triton stores 4-byte vectors); the
# scratch vector is [column 0, row 1]: each stored word takes one 16-bit half of two words
_DST = layout([1, 2, 8], [4, 16, 32, 64, 128, 256], [], 6, 3)
_LOAD = AccessMap((1, 4, 2), (8, 16, 32, 64, 128, 256), ())


def test_amd_store_vectors_from_two_loaded_halves_cost_one_permute_each():
    b32 = (_side("ds_read_b32", "load", 2, 4, 8),)
    gfx950 = Target.parse("gfx950")
    assert stored_word_permutes(_DST, _LOAD, b32, 8, gfx950, (1, 8)) == 2
    # not counted: contiguity under 4 (byte stores: SelectionDAG merges them or not), 8-byte
    # loads, zero-extended 2-byte loads, NVIDIA, 16-bit elements
    assert stored_word_permutes(_DST, _LOAD, b32, 8, gfx950, (1, 2)) == 0
    assert stored_word_permutes(_DST, _LOAD, (_side("ds_read_b64", "load", 1, 8, 8),), 8,
                                gfx950, (1, 8)) == 0
    assert stored_word_permutes(_DST, _LOAD, (_side("ds_read_u16", "load", 4, 2, 8),), 8,
                                gfx950, (1, 8)) == 0
    assert stored_word_permutes(_DST, _LOAD, b32, 8, Target.parse("sm_90"), (1, 8)) == 0
    assert stored_word_permutes(_DST, _LOAD, b32, 16, gfx950, (1, 8)) == 0
    with pytest.raises(LayoutError):
        stored_word_permutes(_DST, _LOAD, b32, 8, gfx950, "dim 1")


# the same tensor with a row first in registers: Triton stores it byte by byte; its words are
# the same registers' bytes (offsets 0, 1 and 4, 5 of the scratch)
_BYTES = layout([8, 1, 2], [4, 16, 32, 64, 128, 256], [], 6, 3)
_BYTES_LOAD = AccessMap((2, 1, 4), (8, 16, 32, 64, 128, 256), ())


def test_amd_byte_stores_cost_a_permute_per_word_only_if_merged():
    b32 = (_side("ds_read_b32", "load", 2, 4, 8),)
    gfx942 = Target.parse("gfx942")
    # Triton stores bytes: no word, unless SelectionDAG merges them (each word: one v_perm)
    assert stored_word_permutes(_BYTES, _BYTES_LOAD, b32, 8, gfx942, (1, 8)) == 0
    assert stored_word_permutes(_BYTES, _BYTES_LOAD, b32, 8, gfx942, (1, 8), merged=True) == 2
    # Triton's own 4-byte vectors: merged changes nothing
    assert stored_word_permutes(_DST, _LOAD, b32, 8, gfx942, (1, 8), merged=True) == 2
    # no word of four consecutive bytes (contiguity 2), 8-byte loads, NVIDIA: nothing
    assert stored_word_permutes(_BYTES, _BYTES_LOAD, b32, 8, gfx942, (1, 2), merged=True) == 0
    assert stored_word_permutes(_BYTES, _BYTES_LOAD, (_side("ds_read_b64", "load", 1, 8, 8),),
                                8, gfx942, (1, 8), merged=True) == 0
    assert stored_word_permutes(_BYTES, _BYTES_LOAD, b32, 8, Target.parse("sm_90"), (1, 8),
                                merged=True) == 0
    with pytest.raises(LayoutError):
        stored_word_permutes(_BYTES, _BYTES_LOAD, b32, 8, gfx942, (1, 8), merged=1)
