"""linlayout.cute.atoms: every named CUTLASS atom against pycute (tests/data/cute_atoms.json)."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, bank_conflicts
from linlayout.cute import (atom, atom_info, atom_names, atoms, is_atom_name, parse_cute,
                            tv_layout, upcast)
from linlayout.triton import nvidia_mma

from .fixtures import cute_fixtures


def fixture_atoms():
    return [(a["name"], a["element_bits"], a) for a in cute_fixtures()["atoms"]]


@pytest.mark.parametrize("name,bits,want", fixture_atoms(),
                         ids=[f"{n}-{b}" for n, b, _ in fixture_atoms()])
def test_atom_against_pycute(name, bits, want):
    info = atom_info(name)
    assert info.cute(bits).text() == want["cute"]
    assert list(info.tile(bits)) == want["tile"]
    # SM70's layouts are over the logical threads of a quad pair (ThrID places them on lanes)
    L = atom(name, bits) if info.thr_id is None else tv_layout(info.cute(), info.tile())
    assert want["bases"] is not None
    assert L.bases["lane"] + L.bases["warp"] == want["bases"]["thread"]
    assert L.bases["register"] == want["bases"]["value"]
    assert list(L.out_dims.values()) == want["tile"]
    assert info.threads == want["threads"]


def test_every_atom_and_width_is_covered_by_the_fixture():
    covered = {(n, b) for n, b, _ in fixture_atoms()}
    listed = {(a.name.lower(), b if a.units == "bits" else None)
              for a in atoms() for b in a.element_bits
              if not a.is_memory and a.header.startswith("include/cute")}
    assert {(n.lower(), b) for n, b in covered} == listed


def test_names():
    names = atom_names()
    assert "sm80_16x8x16.A" in names and "sm90_64x128.C" in names
    assert len(names) == len(set(names)) == len(atoms())
    assert atom("SM80_16x8x16.a") == atom("sm80_16x8x16.A")
    # CUTLASS's spelling, and the bare name = RefLayout = the register side
    assert atom("SM75_U32x4_LDSM_N", 16) == atom("sm75_u32x4_ldsm_n.dst", 16)
    assert atom("SM90_U32x4_STSM_N", 16) == atom("sm90_u32x4_stsm_n.src", 16)
    assert is_atom_name("sm80_cp_async_u128") and not is_atom_name("(_8):(_1)")
    # atom_names() lists each atom once: a copy atom's bare name (docs/cli.md's
    # `sm80_cp_async_u64`) is not listed, it is an alias of its listed RefLayout side
    assert "sm80_cp_async_u64" not in names and "sm75_u32x4_ldsm_n" not in names
    for bare, side in [("sm80_cp_async_u64", ".src"), ("SM75_U32x4_LDSM_N", ".dst"),
                       ("sm90_u32x4_stsm_n", ".src")]:
        assert is_atom_name(bare)
        assert atom_info(bare).name == bare.lower() + side and atom_info(bare).name in names
        assert atom(bare, 16) == atom(bare + side, 16)
    assert not is_atom_name(3)
    with pytest.raises(LayoutError, match="close: sm80_16x8x16"):
        atom("sm80_16x8x16.D")
    with pytest.raises(LayoutError, match="atom_names"):
        atom("nonsense")
    with pytest.raises(LayoutError, match="string"):
        atom_info(None)


def test_units_and_element_bits():
    with pytest.raises(LayoutError, match="in bits"):
        atom("sm75_u32x4_ldsm_n")
    with pytest.raises(LayoutError, match=r"takes \[16\]-bit"):
        atom("sm75_u16x8_ldsm_t", 8)
    with pytest.raises(LayoutError, match=r"takes \[16\]-bit"):
        atom("sm80_16x8x16.A", 32)
    assert atom("sm80_16x8x16.C", 32) == atom("sm80_16x8x16.C")
    # the bit layout itself: 4 matrices of 8 rows x 128 bits
    info = atom_info("sm75_u32x4_ldsm_n.dst")
    assert info.units == "bits" and info.tile_shape == (128, 32)
    assert info.tile(16) == (8, 32) and info.tile(8) == (16, 32)


def test_ldmatrix_fragment_is_linlayouts_ldmatrix():
    """The mma A operand read by ldmatrix.x4 from a 16x16 tile: the atom's register side
    matches what bank_conflicts models for ldmatrix (lane 4r+j holds bytes 4j..4j+3 of row r)
    and a row-major unswizzled 16x16 half tile is 2-way conflicted, a swizzled one free."""
    from linlayout.cute import parse_layout

    A = atom("sm80_16x8x16.A")
    plain = bank_conflicts(A, parse_layout("(_16,_16):(_16,_1)"), element_bits=16,
                           instruction="ldmatrix.x4")
    swz = bank_conflicts(A, parse_layout("Sw<1,3,3> o _0 o (_16,_16):(_16,_1)"),
                         element_bits=16, instruction="ldmatrix.x4")
    assert (plain.degree, swz.degree) == (2, 1)


def test_gmma_accumulator_is_triton_mma_v3():
    for n in (8, 16, 64, 256):
        C = atom(f"sm90_64x{n}.C")
        T = nvidia_mma(3, [4, 1], [16, n, 16]).to_linear_layout([64, n])
        assert {k: C.bases[k] for k in ("register", "lane", "warp")} == \
            {k: T.bases[k] for k in ("register", "lane", "warp")}


def test_upcast():
    assert upcast("(_1,_128):(_0,_1)", 16).text() == "(_1,_8):(_0,_1)"
    assert upcast("((_8,_4),_128):((_128,_0),_1)", 16).text() == "((_8,_4),_8):((_8,_0),_1)"
    assert upcast("(_4):(_-32)", 16).text() == "(_4):(_-2)"
    with pytest.raises(LayoutError, match="Divisibility"):
        upcast("(_4):(_3)", 16)
    with pytest.raises(LayoutError, match="plain layout"):
        upcast("Sw<3,4,3> o _0 o (_8):(_1)", 16)
    with pytest.raises(LayoutError, match="power of two"):
        upcast("(_8):(_1)", 12)
    assert parse_cute(upcast("(_8):(_1)", 1)) == parse_cute("(_8):(_1)")
