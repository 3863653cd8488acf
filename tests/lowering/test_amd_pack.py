"""AMD's packing of 8/16-bit elements and 8-bit in-thread byte permutes
(linlayout/lowering/amd_pack.py); the counts are those of the gfx942/gfx950 AMDGCN of
papers/triton_lowering/shuffle_probes.py."""

from __future__ import annotations

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering import convert_path
from linlayout.lowering.amd_pack import (SourceWord, dwordx2_pack_permutes, inthread_permutes,
                                         pack_permutes, source_words)
from tests.lowering.warp_pairs import layout


def w(word, byte, width):
    return SourceWord((word,), byte, width)


@pytest.mark.parametrize("pack,bits,n", [
    ((w(0, 0, 4), w(0, 2, 4)), 16, 0),          # one loaded register, in order
    ((w(0, 2, 4), w(0, 0, 4)), 16, 1),          # swapped halves
    ((w(0, 0, 2), w(1, 0, 2)), 16, 1),          # two ushort loads
    ((w(0, 0, 1), w(1, 0, 1)), 8, 0),           # two bytes of two registers: v_or_b32_sdwa
    ((w(0, 0, 2), w(0, 1, 2)), 8, 1),           # two bytes of one register
    ((w(0, 0, 4), w(0, 1, 4), w(0, 2, 4), w(0, 3, 4)), 8, 0),
    ((w(0, 0, 2), w(0, 1, 2), w(1, 0, 2), w(1, 1, 2)), 8, 0),  # v_lshl_or_b32
    ((w(0, 0, 4), w(1, 0, 4), w(0, 1, 4), w(1, 1, 4)), 8, 1),  # two dwords
    ((w(0, 0, 1), w(1, 0, 1), w(2, 0, 1), w(3, 0, 1)), 8, 2),  # four ubyte loads
    # the low bytes of four 32-bit shuffle results: v_lshlrev_b16 and SDWA ors
    (tuple(SourceWord((i,), 0, 4, True) for i in range(4)), 8, 0),
    ((SourceWord((0,), 0, 4, True), SourceWord((1,), 0, 4, True)), 16, 1),
    # two f16 values LLVM proves canonical: one v_pack_b32_f16; one of them alone: v_perm
    ((SourceWord((0,), 0, 4, True, True), SourceWord((1,), 0, 4, True, True)), 16, 0),
    ((SourceWord((0,), 0, 4, True, True), SourceWord((1,), 0, 4, True)), 16, 1),
    ((SourceWord((0,), 0, 4, True, True), w(1, 0, 2)), 16, 1),
    # computed and zero-extended bytes mixed: a half pays when its high byte is zero-extended
    ((w(0, 0, 1), SourceWord((1,), 0, 4, True), w(2, 0, 1), SourceWord((3,), 0, 4, True)),
     8, 0),
    ((SourceWord((0,), 0, 4, True), w(1, 0, 1), SourceWord((2,), 0, 4, True),
      SourceWord((3,), 0, 4, True)), 8, 1),
    ((SourceWord((0,), 0, 4, True), SourceWord((1,), 0, 4, True), w(2, 0, 1), w(3, 0, 1)),
     8, 1),
    # two computed bytes in 16-bit slots: one v_perm_b32 zero-filling the bytes between
    ((SourceWord((0,), 0, 4, True), SourceWord((1,), 0, 4, True)), 8, 1),
    ((w(0, 0, 1), SourceWord((1,), 0, 4, True)), 8, 1),
    # a low half under a computed high half (a gfx942 bf16 combine): one v_bfi_b32, no
    # v_perm_b32; two high halves, or a high half under a low one: one v_perm_b32
    ((w(0, 0, 2), SourceWord((1,), 2, 4, True)), 16, 0),
    ((SourceWord((0,), 0, 4, True), SourceWord((1,), 2, 4, True)), 16, 0),
    ((SourceWord((0,), 2, 4, True), SourceWord((1,), 2, 4, True)), 16, 1),
    ((SourceWord((0,), 2, 4, True), w(1, 0, 2)), 16, 1),
])
def test_pack_permutes(pack, bits, n):
    assert pack_permutes(pack, bits) == n


def test_pack_permutes_refuses_other_shapes():
    with pytest.raises(LayoutError, match="packed register"):
        pack_permutes((w(0, 0, 4),) * 4, 16)


def test_source_words_follow_the_load_run():
    # registers: col 1, row 1, col 2 -> a run of 4 columns: one dword per row
    src = layout([1, 8, 2], [4, 16, 32, 64, 128], [], 5, 3)
    words = source_words(src, 8, 1, 8)
    assert [x.byte for x in words] == [0, 1, 0, 1, 2, 3, 2, 3]
    assert len({x.word for x in words}) == 2 and {x.width_bytes for x in words} == {4}
    # without a load every element is its own zero-extended register
    assert {x.width_bytes for x in source_words(src, 8)} == {1}
    with pytest.raises(LayoutError, match="contiguous_dim"):
        source_words(src, 8, 2, 8)


@pytest.mark.parametrize("offsets,n", [
    ((0, 1, 2, 3), 0), ((4, 5, 6, 7), 0),      # one loaded word in order
    ((0, 4, 1, 5), 0), ((0, 4, 2, 6), 0),      # (w0.b0, w1.b0) under a half of word 0
    ((2, 6, 3, 7), 1), ((1, 5, 3, 7), 1),      # the other register of those loads
    ((0, 4, 5, 6), 1),                         # the other half wholly of word 1
    ((1, 0, 2, 3), 0), ((5, 0, 6, 7), 0),      # the load's first byte as a high byte
    ((3, 2, 1, 0), 0),                         # one word reversed: the same
    ((0, 1, 4, 5), 1), ((0, 2, 4, 6), 1), ((2, 3, 0, 1), 1),
])
def test_dwordx2_pack_permutes(offsets, n):
    assert dwordx2_pack_permutes(offsets) == n


def test_dwordx2_pack_permutes_refuses_other_offsets():
    for bad in ((0, 1, 2), (0, 1, 2, 8), (0, 0, 1, 2), [0, 1, 2, 3], (0, 1, 2, True)):
        with pytest.raises(LayoutError, match="dwordx2"):
            dwordx2_pack_permutes(bad)


def test_source_words_name_the_load_and_pack_permutes_follows_dwordx2_loads():
    # registers: col 4, col 1, col 2 -> 8 contiguous bytes per thread, one dwordx2
    src = layout([4, 1, 2], [8, 16, 32, 64, 128, 256], [], 6, 3)
    words = source_words(src, 8, 1, 8)
    assert {x.load_bytes for x in words} == {8} and len({x.load for x in words}) == 1
    assert [x.load_byte for x in words] == [0, 4, 1, 5, 2, 6, 3, 7]
    # (w0.b0, w1.b0, w0.b1, w1.b1): shifts and SDWA ors; its partner: one v_perm_b32
    assert pack_permutes(words[:4], 8) == 0 and pack_permutes(words[4:], 8) == 1
    # the same bytes from a 16-byte run (one dwordx4): one v_perm_b32 each
    wide = source_words(layout([4, 1, 2, 8], [16, 32, 64, 128, 256, 512], [], 6, 4), 8, 1, 16)
    assert {x.load_bytes for x in wide} == {16}
    assert pack_permutes(wide[:4], 8) == 1
    # no load: no load named
    assert {x.load for x in source_words(src, 8)} == {None}


def test_inthread_permutes():
    # whole registers moved: nothing; a byte swap inside each register: one each
    assert inthread_permutes([4, 5, 6, 7, 0, 1, 2, 3], [w(i, 0, 1) for i in range(8)]) == 0
    assert inthread_permutes([1, 0, 2, 3, 5, 4, 6, 7], [w(0, b, 4) for b in range(4)]
                             + [w(1, b, 4) for b in range(4)]) == 2
    with pytest.raises(LayoutError, match="permutation"):
        inthread_permutes([0, 1, 2], [w(0, 0, 1)] * 3)


def test_convert_path_packs_by_source_load():
    # two 16-bit elements a thread holds along dim1 are packed for one register/lane swap
    src = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    dst = layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6)
    loose = convert_path(src, dst, 16, "hip:gfx942").counts
    loaded = convert_path(src, dst, 16, "hip:gfx942", source_load=(1, 64)).counts
    # the two packed registers were each one loaded register: two v_perm_b32 fewer
    assert loose["v_perm_b32"] == loaded["v_perm_b32"] + 2 == 5
    assert convert_path(src, dst, 16, "cuda:90", source_load=(1, 64)).counts == \
        convert_path(src, dst, 16, "cuda:90").counts  # NVIDIA unchanged


def test_inthread_swap_on_amd_only():
    src = layout([1, 2, 4, 8], [16, 32, 64, 128, 256, 512], [], 5, 5)
    dst = layout([2, 1, 4, 8], [16, 32, 64, 128, 256, 512], [], 5, 5)
    amd = convert_path(src, dst, 8, "hip:gfx942", source_load=(1, 32))
    assert amd.path == "registers" and amd.counts == {"v_perm_b32": 4}
    assert convert_path(src, dst, 8, "cuda:90").instructions == ()
    assert convert_path(src, dst, 16, "hip:gfx942").instructions == ()


@pytest.mark.parametrize("bad", [(1,), (1, 2, 3), ("1", 2), (5, 8), (True, 8), 3])
def test_convert_path_refuses_a_bad_source_load(bad):
    src = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    with pytest.raises(LayoutError, match="source_load"):
        convert_path(src, src, 16, "hip:gfx942", source_load=bad)


def test_source_words_of_a_producer_leaving_32_bit_registers():
    src = layout([1, 2], [4, 8, 16, 32, 64], [], 0, 7)
    words = source_words(src, 8, wide=True)
    assert len(words) == 4 and all(x.opaque and x.width_bytes == 4 for x in words)
    assert not any(x.opaque for x in source_words(src, 8))


def _flat(reg, lane, size):
    from linlayout.layout import LinearLayout

    return LinearLayout({"register": [[c] for c in reg], "lane": [[c] for c in lane],
                         "warp": [], "block": []}, {"dim0": size})


def test_source_words_follow_the_producer_values():
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED, RAW

    src = _flat([1, 2], [4, 8, 16, 32, 64, 128], 256)
    words = source_words(src, 16, values=(RAW, COMPUTED, CANONICAL, CANONICAL))
    assert words[0] == SourceWord((0,), 0, 2)
    assert words[1] == SourceWord((1,), 0, 4, True)
    assert words[2] == SourceWord((2,), 0, 4, True, True)
    assert pack_permutes(words[2:], 16) == 0 and pack_permutes(words[:2], 16) == 1
    from linlayout.lowering.amd_pack import HIGH

    assert source_words(src, 16, values=(HIGH,) * 4)[0] == SourceWord((0,), 2, 4, True)
    for bad in ((RAW,) * 3, (RAW, RAW, RAW, "loaded"), [RAW] * 4):
        with pytest.raises(LayoutError, match="values"):
            source_words(src, 16, values=bad)


def test_convert_path_packs_canonical_f16_for_nothing():
    """The 16-bit register/lane swap above on gfx942: its two packed registers cost one
    v_perm_b32 each from elements as loaded one per register, none from f16 values LLVM
    proves canonical (v_pack_b32_f16); the swap's own permutes stay."""
    from linlayout.lowering.amd_pack import CANONICAL, COMPUTED

    src = layout([1, 32], [2, 4, 8, 16, 64], [], 1, 6)
    dst = layout([2, 32], [1, 4, 8, 16, 64], [], 1, 6)
    loose = convert_path(src, dst, 16, "hip:gfx942").counts
    done = convert_path(src, dst, 16, "hip:gfx942", source_values=(CANONICAL,) * 4).counts
    half = convert_path(src, dst, 16, "hip:gfx942",
                        source_values=(CANONICAL, COMPUTED) * 2).counts
    assert loose["v_perm_b32"] == done["v_perm_b32"] + 2 == half["v_perm_b32"] == 5
    with pytest.raises(LayoutError, match="values"):
        convert_path(src, dst, 16, "hip:gfx942", source_values=(CANONICAL,))


@pytest.mark.parametrize("junk", [None, 1.5, "ab", [None, None], {"x": 1}])
def test_a_pack_that_is_not_source_words_is_a_layout_error(junk):
    from linlayout.lowering.amd_pack import pack_permute_bounds, pack_permutes

    with pytest.raises(LayoutError, match="pack"):
        pack_permutes(junk, 8)
    with pytest.raises(LayoutError, match="pack"):
        pack_permute_bounds(junk, 8)


def test_a_permlane_pair_is_one_permute_and_refuses_junk():
    from linlayout.errors import LayoutError
    from linlayout.lowering.amd_pack import SourceWord, permlane_pair_permutes

    a, b = SourceWord((0,), 2, 4), SourceWord((0,), 3, 4)
    assert permlane_pair_permutes(a, b) == 1
    with pytest.raises(LayoutError):
        permlane_pair_permutes(a, "b")
