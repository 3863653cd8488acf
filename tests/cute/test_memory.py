"""linlayout.cute.memory: CuTe layouts as memory layouts, against pycute's evaluation."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.cute import index_layout, parse_layout
from linlayout.triton import nvmma_shared, swizzled_shared

from .fixtures import cute_fixtures


def test_every_fixture_layout_against_pycute():
    """Each layout in the fixture was evaluated by pycute at every coordinate. parse_layout
    accepts only maps that are linear bijections (relative to their start), and then equals
    the brute-force inverse; on offset 0 it accepts exactly those."""
    accepted = refused = 0
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
        accepted += 1
        assert want is not None, entry["cute"]
        assert M.bases["offset"] == want, entry["cute"]
        assert M.in_dims == {"offset": entry["size"]}
    assert accepted > 150 and refused > 60


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
    ("(_4):(_3)", r"mode 0 \(_4:_3\).*carries"),
    ("(_8,_8):(_-8,_1)", "negative"),
    ("(_8,_8):(_0,_1)", r"mode 0 \(_8:_0\) has stride 0, a broadcast"),
    ("(_8,_8):(_16,_1)", r"mode 0 \(_8:_16\) reaches offset 112.*cosize 120 > size 64"),
    ("((_8,_2),_8):((_8,_128),_1)", r"mode 0.1 \(_2:_128\) reaches"),
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
