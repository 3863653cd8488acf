"""linlayout.ptx.modes: every swizzle mode's number in every encoding, and its CuTe triple.

The numberings (CUtensorMapSwizzle, PTX tensormap.replace's swizzle_mode/swizzle_atomicity and
Table 14 of valid combinations, the tcgen05 and wgmma descriptors' layout types) disagree with
each other; each is checked against its source and kept apart.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout import ptx
from linlayout.ptx import SwizzleMode as SM
from linlayout.cute import cute_swizzle, format_cute_swizzle, to_cute_swizzle


EXPECTED_NUMBERS = {
    # mode: (CUtensorMapSwizzle, PTX swizzle_mode, PTX swizzle_atomicity, tcgen05, wgmma)
    "none": (0, 0, None, 0, 0),
    "32B": (1, 1, 0, 6, 3),
    "64B": (2, 2, 0, 4, 2),
    "96B": (None, 4, 0, None, None),
    "128B": (3, 3, 0, 2, 1),
    "128B_atom_32B": (4, 3, 1, 1, None),
    "128B_atom_32B_flip_8B": (5, 3, 2, None, None),
    "128B_atom_64B": (6, 3, 3, None, None),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_NUMBERS))
def test_each_mode_has_its_documented_numbers(name):
    m = ptx.swizzle_mode(name)
    cu, pm, pa, tc, wg = EXPECTED_NUMBERS[name]
    assert m.value == name
    assert m.cu_tensor_map_swizzle == cu
    assert m.ptx_swizzle_mode == pm
    assert m.ptx_swizzle_atomicity == pa
    assert m.tcgen05_layout_type == tc
    assert m.wgmma_layout_type == wg
    if cu is not None:
        assert SM.from_cu_tensor_map_swizzle(cu) is m
        assert m.cu_tensor_map_swizzle_name == "CU_TENSOR_MAP_SWIZZLE_" + (
            "NONE" if name == "none" else name.upper())
        assert ptx.swizzle_mode(m.cu_tensor_map_swizzle_name) is m
    assert SM.from_ptx(pm, pa) is m
    if tc is not None:
        assert SM.from_tcgen05_layout_type(tc) is m
    if wg is not None:
        assert SM.from_wgmma_layout_type(wg) is m


def test_numberings_disagree_and_are_kept_apart():
    # the same number names different modes in different encodings
    assert SM.from_cu_tensor_map_swizzle(1).value == "32B"
    assert SM.from_tcgen05_layout_type(1).value == "128B_atom_32B"
    assert SM.from_wgmma_layout_type(1).value == "128B"
    assert SM.from_ptx(1).value == "32B"
    assert SM.from_cu_tensor_map_swizzle(2).value == "64B"
    assert SM.from_tcgen05_layout_type(2).value == "128B"
    with pytest.raises(LayoutError, match="ambiguous"):
        ptx.swizzle_mode(3)


@pytest.mark.parametrize("call,value", [
    (SM.from_cu_tensor_map_swizzle, 7), (SM.from_tcgen05_layout_type, 3),
    (SM.from_tcgen05_layout_type, 5), (SM.from_tcgen05_layout_type, 7),
    (SM.from_wgmma_layout_type, 4), (SM.from_cu_tensor_map_swizzle, -1),
])
def test_unknown_numbers_raise(call, value):
    with pytest.raises(LayoutError, match="valid values"):
        call(value)


def test_from_ptx_validates_table_14():
    assert SM.from_ptx(0, 3) is SM.NONE  # no atomicity for no swizzling
    assert SM.from_ptx(3, 2).value == "128B_atom_32B_flip_8B"
    with pytest.raises(LayoutError, match="Table 14"):
        SM.from_ptx(2, 1)  # 64B with 32B atomicity is not a valid combination
    with pytest.raises(LayoutError, match="swizzle_mode must be"):
        SM.from_ptx(5)
    with pytest.raises(LayoutError, match="swizzle_atomicity must be"):
        SM.from_ptx(3, 4)
    with pytest.raises(LayoutError):
        SM.from_ptx(True)


def test_swizzle_mode_reads_names_in_any_case():
    assert ptx.swizzle_mode("128b") is SM.SWIZZLE_128B
    assert ptx.swizzle_mode("SWIZZLE_128B_ATOM_64B") is SM.SWIZZLE_128B_ATOM_64B
    assert ptx.swizzle_mode(" none ") is SM.NONE
    assert str(SM.SWIZZLE_64B) == "64B"
    for bad in ("256B", None, 1.5, "", True):
        with pytest.raises(LayoutError):
            ptx.swizzle_mode(bad)


def test_each_mode_is_its_cute_swizzle():
    expected = {"none": (0, 4, 3), "32B": (1, 4, 3), "64B": (2, 4, 3), "96B": (1, 4, 3),
                "128B": (3, 4, 3), "128B_atom_32B": (2, 5, 2), "128B_atom_32B_flip_8B": None,
                "128B_atom_64B": (1, 6, 1)}
    for name, triple in expected.items():
        m = ptx.swizzle_mode(name)
        assert m.cute == triple
        assert to_cute_swizzle(ptx.swizzle_layout(m)) == triple
        if triple:
            assert ptx.swizzle_layout(m) == cute_swizzle(*triple, 1024)
            assert ptx.cute_name(m) == format_cute_swizzle(*triple)
    # the flip is the composition of two CuTe swizzles (they commute: disjoint read/write bits)
    a, b = cute_swizzle(2, 5, 2, 1024), cute_swizzle(1, 3, 4, 1024)
    assert a.compose(b) == b.compose(a) == ptx.swizzle_layout("128B_atom_32B_flip_8B")
    assert ptx.cute_name("128B_atom_32B_flip_8B") is None
