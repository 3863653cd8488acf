"""linlayout.ptx.tcgen05: the tcgen05/wgmma shared-memory atoms against CUTLASS's
definitions and PTX's table of atom shapes, and their equivalence with TMA tiles.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout import ptx
from linlayout.cute import cute_swizzle_offset


#: CUTLASS's shared-memory atoms "in units of bits": (swizzle, shape, stride) with shape/stride
#: (mode 0 = MN, mode 1 = K). GMMA: include/cute/atom/mma_traits_sm90_gmma.hpp
#: (Layout_{MN,K}_{INTER,SW32,SW64,SW128}_Atom_Bits); UMMA: include/cute/atom/mma_traits_sm100.hpp
#: (Layout_MN_SW128_32B_Atom_Bits). Layout_*_Atom<T> = upcast<sizeof_bits<T>>(…_Bits).
CUTLASS_ATOMS_BITS = {
    ("none", "MN"): ((0, 4, 3), (128, 8), (1, 128)),
    ("32B", "MN"): ((1, 4, 3), (256, 8), (1, 256)),
    ("64B", "MN"): ((2, 4, 3), (512, 8), (1, 512)),
    ("128B", "MN"): ((3, 4, 3), (1024, 8), (1, 1024)),
    ("none", "K"): ((0, 4, 3), (8, 128), (128, 1)),
    ("32B", "K"): ((1, 4, 3), (8, 256), (256, 1)),
    ("64B", "K"): ((2, 4, 3), (8, 512), (512, 1)),
    ("128B", "K"): ((3, 4, 3), (8, 1024), (1024, 1)),
    ("128B_atom_32B", "MN"): ((2, 5, 2), (1024, 4), (1, 1024)),
}


def cutlass_bit_address(key, eb, mn, k):
    """Bit address of element (mn, k) in Layout_*_Atom<T> for a T of ``eb`` bits: the upcast
    divides the stride-1 mode's extent by eb, so element (mn, k) sits at the bit coordinate of
    the _Bits layout scaled along that mode; the swizzle acts on the byte address
    (swizzle_ptr, include/cute/pointer_swizzle.hpp)."""
    (B, M, S), shape, stride = CUTLASS_ATOMS_BITS[key]
    coord = (mn * eb, k) if stride[0] == 1 else (mn, k * eb)
    bit = coord[0] * stride[0] + coord[1] * stride[1]
    return cute_swizzle_offset(B, M, S, bit >> 3) * 8 + (bit & 7)


#: PTX Table 55 (128-bit elements), (MN, K).
TABLE_55 = {("128B_atom_32B", "MN"): (8, 4), ("128B", "MN"): (8, 8), ("128B", "K"): (8, 8),
            ("64B", "MN"): (4, 8), ("64B", "K"): (8, 4), ("32B", "MN"): (2, 8),
            ("32B", "K"): (8, 2), ("none", "MN"): (1, 8), ("none", "K"): (8, 1)}


@pytest.mark.parametrize("key", sorted(CUTLASS_ATOMS_BITS))
@pytest.mark.parametrize("eb", [4, 8, 16, 32, 64, 128])
def test_tcgen05_atom_equals_cutlass(key, eb):
    mode, major = key
    atom = ptx.tcgen05_atom(mode, major, eb)
    _, shape_bits, stride = CUTLASS_ATOMS_BITS[key]
    mn_ext = shape_bits[0] // eb if stride[0] == 1 else shape_bits[0]
    k_ext = shape_bits[1] // eb if stride[1] == 1 else shape_bits[1]
    assert atom.out_dims == {"dim0": mn_ext, "dim1": k_ext}
    # Table 55 shape scaled along the leading dimension
    tmn, tk = TABLE_55[key]
    scale = 128 // eb
    assert (mn_ext, k_ext) == ((tmn * scale, tk) if major == "MN" else (tmn, tk * scale))
    inv = atom.invert()
    for mn in range(mn_ext):
        for k in range(k_ext):
            e = inv.apply({"dim0": mn, "dim1": k})["offset"]
            assert e * eb == cutlass_bit_address(key, eb, mn, k)


def test_tcgen05_atom_examples_and_tma_equivalence():
    assert ptx.tcgen05_atom("128B", "K", 16).out_dims == {"dim0": 8, "dim1": 64}
    assert ptx.tcgen05_atom("128B", "MN", 32).out_dims == {"dim0": 32, "dim1": 8}  # tf32 example
    for key in TABLE_55:
        for eb in (8, 16, 32):
            atom = ptx.tcgen05_atom(*key, eb)
            got = ptx.match_tma_mode(atom, eb)
            assert got is not None and got.mode is ptx.swizzle_mode(key[0])
            assert got.inner_dim == ("dim1" if key[1] == "K" else "dim0")
    # K-major atom == the TMA tile with one atom row per box
    assert ptx.tcgen05_atom("64B", "K", 16) == ptx.tma_tile_layout(
        "64B", element_bits=16, rows=8, cols=32)


def test_tcgen05_atom_rejects_modes_without_atoms():
    with pytest.raises(LayoutError, match="MN-major only"):
        ptx.tcgen05_atom("128B_atom_32B", "K", 16)
    for mode in ("96B", "128B_atom_32B_flip_8B", "128B_atom_64B"):
        with pytest.raises(LayoutError, match="no tcgen05"):
            ptx.tcgen05_atom(mode, "MN", 16)
    with pytest.raises(LayoutError, match="major"):
        ptx.tcgen05_atom("128B", "row", 16)
    with pytest.raises(LayoutError, match="element_bits"):
        ptx.tcgen05_atom("128B", "K", 6)
    assert ptx.tcgen05_atom("128B", "n", 16) == ptx.tcgen05_atom("128B", "MN", 16)
    assert ptx.tcgen05_atom("128B", "K-major", 16) == ptx.tcgen05_atom("128B", "K", 16)
