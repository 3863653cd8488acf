"""linlayout.cute.memory: CuTe layouts as memory layouts, against pycute's evaluation."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, PaddedLayout, bank_conflicts
from linlayout.cute import index_layout, parse_layout
from linlayout.triton import nvmma_shared, swizzled_shared

from .fixtures import cute_fixtures


def test_every_fixture_layout_against_pycute():
    """Each layout in the fixture was evaluated by pycute at every coordinate. parse_layout
    accepts only maps that are linear bijections (relative to their start), and then equals
    the brute-force inverse; on offset 0 it accepts exactly those."""
    accepted = refused = padded = 0
    for entry in cute_fixtures()["layouts"]:
        want = entry["memory_bases"]
        try:
            M = parse_layout(entry["cute"])
        except LayoutError:
            refused += 1
            if want is not None:
                assert " o _0 o " not in entry["cute"] and " o 0 o " not in entry["cute"] \
                    and " o " in entry["cute"], entry["cute"]  # only offsets are refused early
            continue
        if isinstance(M, PaddedLayout):  # a compact layout with gaps: pycute's every offset
            padded += 1
            sizes = list(M.linear.out_dims.values())
            for i, off in enumerate(entry["offsets"]):
                coord = []
                for n in sizes:
                    coord.append(i % n)
                    i //= n
                assert M.element_offset(coord) == (off, 0), entry["cute"]
            continue
        accepted += 1
        assert want is not None, entry["cute"]
        assert M.bases["offset"] == want, entry["cute"]
        assert M.in_dims == {"offset": entry["size"]}
    assert accepted > 150 and refused > 30 and padded >= 5


@pytest.mark.parametrize("text,offset,coord", [
    ("(_64,_64):(_64,_1)", 64 * 3 + 5, {"dim0": 3, "dim1": 5}),
    ("(_64,_64):(_1,_64)", 64 * 3 + 5, {"dim0": 5, "dim1": 3}),
    ("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", 64, {"dim0": 1, "dim1": 8}),
    ("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)", 64, {"dim0": 1, "dim1": 8}),
    ("((_8,_8),_64):((_64,_512),_1)", 512, {"dim0": 8, "dim1": 0}),  # (0,1) -> index 8
    ("_8:_1", 5, {"dim0": 5}),
])
def test_offsets_map_to_coordinates(text, offset, coord):
    assert parse_layout(text).apply({"offset": offset}) == coord


def same_memory(a: LinearLayout, b: LinearLayout) -> bool:
    """Equal maps, ignoring an empty 'block' in dim (Triton's shared encodings carry one)."""
    return (a.bases["offset"], a.out_dims) == (b.bases["offset"], b.out_dims) and not any(
        b.bases.get("block", []))


def test_cutlass_atoms_are_triton_layouts():
    """The SM80 f16 GEMM atom is Triton's swizzled_shared(8, 1, 8); GMMA's K_SW128 atom for
    halves is nvmma_shared 128B (the research cross-check, here without Triton)."""
    assert same_memory(parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"),
                       swizzled_shared(8, 1, 8, [1, 0]).to_linear_layout([8, 64]))
    assert same_memory(parse_layout("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"),
                       nvmma_shared(128, 16).to_linear_layout([8, 64]))
    assert same_memory(parse_layout("Sw<3,4,3> o smem_ptr[16b](unset) o (_64,_8):(_1,_64)"),
                       nvmma_shared(128, 16, transposed=True).to_linear_layout([64, 8]))


@pytest.mark.parametrize("text,match", [
    ("(_4,_3):(_1,_4)", r"mode 1 \(_3:_4\): the shape 3 is not a power of two"),
    ("(_4,_4):(_1,_2)", r"mode 1 \(_4:_2\).*mode 0 \(_4:_1\).*carries"),
    ("(_4,_2):(_3,_4)", r"mode 0 \(_4:_3\).*carries.*nor is it a padded layout"),
    ("(_8,_8):(_-8,_1)", "negative"),
    ("(_8,_8):(_0,_1)", r"mode 0 \(_8:_0\) has stride 0, a broadcast"),
    ("(_2,_2,_2):(_1,_4,_32)", r"mode 2 \(_2:_32\) reaches offset 32.*cosize 38 > size 8"),
    ("((_8,_2),_8):((_8,_160),_1)", r"mode 0.1 \(_2:_160\).*carries.*nor is it a padded"),
    ("(_8,_8):(_20,_1)", "nor is it a padded layout"),  # pad 12: not a power of two
    ("(_2,_2):(_3,_4)", r"mode 0 \(_2:_3\) has the stride 3, not a power of two"),
    ("Sw<1,2,-3> o _0 o (_4,_4):(_4,_1)", "XORs index bit 2 into bit 5, outside"),
    ("Sw<3,3,3> o _64 o (_8,_64):(_64,_1)", "not a multiple of the size 512"),
    ("Sw<3,3,3> o _256 o (_4,_64):(_64,_1)", "turns the offset 256 into 288.*constant 32"),
    ("Sw<3,3,3> o _64 o (_4,_64):(_128,_1)", "gaps"),  # a slice of a larger layout
])
def test_refusals_name_the_mode_and_the_reason(text, match):
    with pytest.raises(LayoutError, match=match):
        parse_layout(text)


def test_offsets_that_keep_the_map_linear():
    base = parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    # a multiple of the size that the swizzle leaves a multiple of the size: same tile
    assert parse_layout("Sw<3,3,3> o _512 o (_8,_64):(_64,_1)") == base
    # no swizzle: any offset only moves the start
    assert parse_layout("Sw<0,4,3> o _5 o (_8,_64):(_64,_1)") == \
        parse_layout("(_8,_64):(_64,_1)")


def test_index_layout_is_the_cute_direction():
    L = index_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    assert L.in_dims == {"dim0": 8, "dim1": 64} and L.out_dims == {"offset": 512}
    assert L.invert() == parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    B = index_layout("(_4,_8):(_0,_1)")  # broadcasts are fine in this direction
    assert B.bases["dim0"] == [[0], [0]] and B.out_dims == {"offset": 8}
    with pytest.raises(LayoutError, match="offset 0"):
        index_layout("Sw<3,3,3> o _512 o (_8,_64):(_64,_1)")


def test_result_is_a_memory_layout_the_library_takes():
    from linlayout import bank_conflicts
    from linlayout.cute import atom

    M = parse_layout("Sw<3,3,3> o _0 o (_16,_16):(_16,_1)")
    assert isinstance(M, LinearLayout)
    rep = bank_conflicts(atom("sm80_16x8x16.A"), M, element_bits=16)
    assert rep.degree >= 1


# ----------------------------------------------------------------------------- padded
@pytest.mark.parametrize("text,pairs", [
    ("(_64,_64):(_72,_1)", ((64, 8),)),                       # row-major, rows padded by 8
    ("(_64,_64):(_1,_68)", ((64, 4),)),                       # column-major
    ("((_8,_8),_64):((_72,_576),_1)", ((64, 8),)),            # hierarchical rows
    ("(_32,_4,_64):(_64,_2112,_1)", ((2048, 64),)),           # padding per 32x64 slab only
    ("(_16,_4,_64):(_72,_1216,_1)", ((64, 8), (1024, 64))),   # two pairs add up
])
def test_padded_layouts_are_padded_layouts(text, pairs):
    from itertools import product as cartesian

    from linlayout.cute import parse_cute
    P = parse_layout(text)
    assert isinstance(P, PaddedLayout) and P.pairs == pairs
    cl = parse_cute(text)
    sizes = list(P.linear.out_dims.values())
    for coord in cartesian(*(range(n) for n in sizes)):
        assert P.element_offset(list(coord)) == (cl(*coord) if len(sizes) > 1 else
                                                 cl(coord[0]), 0)


def test_padded_counts_like_triton_padded_shared():
    """``(_64,_64):(_72,_1)`` is ``#ttg.padded_shared<[64:+8] {order = [1, 0], shape = [64,
    64]}>``: the same PaddedLayout, so bank_conflicts counts both alike."""
    from linlayout.cute import atom
    from linlayout.hardware.kinds import embed_at_origin
    from linlayout.triton import blocked, padded_shared
    cute_p = parse_layout("(_64,_64):(_72,_1)")
    tri_p = padded_shared([(64, 8)], order=[1, 0], shape=[64, 64]).to_padded_layout([64, 64])
    assert cute_p.pairs == tri_p.pairs
    assert cute_p.linear.bases["offset"] == tri_p.linear.bases["offset"]
    reg = blocked([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout([64, 64])
    for bits in (8, 16, 32):
        assert bank_conflicts(reg, cute_p, element_bits=bits) == \
            bank_conflicts(reg, tri_p, element_bits=bits)
    # the mma A fragment (16x16, K-major) read from the tile's corner with ld.shared
    frag = embed_at_origin(atom("sm80_16x8x16.A"), cute_p.linear)
    assert bank_conflicts(frag, cute_p, element_bits=16).degree == 1   # +8 halves: no conflict
    assert bank_conflicts(frag, parse_layout("(_64,_64):(_64,_1)"), element_bits=16).degree == 8
