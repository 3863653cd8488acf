"""linlayout.cute.atoms against the instruction set manuals: every MMA atom beyond SM80/SM90
against the fragment formulas of the PTX ISA (lane ``l``, ``groupID = l / 4``,
``threadID_in_group = l % 4``, value ``i``), the shared-memory atoms against PTX's swizzle
and TMA, the AMD atoms against Triton's own AMD encodings.

The CUTLASS transcription of the same atoms is checked against pycute in test_atoms.py."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.cute import atom, atom_info, atoms, is_atom_name, parse_layout

from .fixtures import cute_fixtures


def holds(name: str, bits: int | None = None) -> dict[tuple[int, int], tuple[int, ...]]:
    """``(lane, value) -> tile coordinate`` of an atom, every lane and value."""
    L = atom(name, bits)
    out = {}
    for lane in range(1 << len(L.bases["lane"])):
        for v in range(1 << len(L.bases["register"])):
            got = L.apply({"register": v, "lane": lane, "warp": 0})
            out[lane, v] = tuple(got[d] for d in L.out_dim_names)
    return out


def expect(formula, lanes: int, values: int) -> dict[tuple[int, int], tuple[int, ...]]:
    return {(lane, v): formula(lane, v) for lane in range(lanes) for v in range(values)}


# ----------------------------------------------------------------------------- NVIDIA mma.sync
def test_sm70_m8n8k4_quad_pairs():
    """PTX ISA 9.7.14.5.1 "Matrix Fragments for mma.m8n8k4 with .f16 floating point type":
    A (.row) and C/D (.f16) of each quad pair: row = %laneid % 4 (+4 for lanes 16-31),
    col = i. Lanes 4-15 and 20-31 are the other three quad pairs, each its own MMA: the same
    positions of their own tiles."""
    def row(lane, i):
        return (lane % 4 + (4 if lane >= 16 else 0), i)
    assert holds("sm70_8x8x4_tn.A") == expect(row, 32, 4)
    assert holds("sm70_8x8x4_tn.B") == expect(row, 32, 4)     # B .col: the N x K transpose
    assert holds("sm70_8x8x4_tn.C") == expect(row, 32, 8)
    assert atom_info("sm70_8x8x4_tn.A").threads == 8          # CUTLASS's logical threads


def test_sm75_m16n8k8():
    """PTX ISA 9.7.14.5.7 "Matrix Fragments for mma.m16n8k8" (.f16/.bf16): A: row = groupID
    (+8 for a2, a3), col = threadID_in_group·2 + (i & 1); B: row (k) = threadID_in_group·2 +
    i, col (n) = groupID; C: as A."""
    def a(lane, i):
        return (lane // 4 + 8 * (i >> 1), (lane % 4) * 2 + (i & 1))
    assert holds("sm75_16x8x8.A") == expect(a, 32, 4)
    assert holds("sm75_16x8x8.C") == expect(a, 32, 4)
    assert holds("sm75_16x8x8.B") == expect(lambda l, i: (l // 4, (l % 4) * 2 + i), 32, 2)


def test_sm75_m8n8k16_int8():
    """PTX ISA 9.7.14.5.4 "Matrix Fragments for mma.m8n8k16": A (.s8): row = groupID, col =
    threadID_in_group·4 + i; B: row (k) = threadID_in_group·4 + i, col = groupID; C (.s32):
    row = groupID, col = threadID_in_group·2 + i."""
    frag = expect(lambda l, i: (l // 4, (l % 4) * 4 + i), 32, 4)
    assert holds("sm75_8x8x16_s8.A") == frag and holds("sm75_8x8x16_s8.B") == frag
    assert holds("sm75_8x8x16_s8.C") == expect(lambda l, i: (l // 4, (l % 4) * 2 + i), 32, 2)


@pytest.mark.parametrize("name", ["sm89_16x8x32_fp8", "sm120_16x8x32_f8f6f4"])
def test_m16n8k32_8bit(name):
    """PTX ISA 9.7.14.5.8 "Matrix Fragments for mma.m16n8k32" (.e4m3/.e5m2, and the
    f8f6f4 kind in 8-bit containers): A: row = groupID (+8 for a4-a7, a12-a15), col =
    threadID_in_group·4 + (i & 3) (+16 for i >= 8); B: row (k) = threadID_in_group·4 +
    (i & 3) (+16 for i >= 4), col = groupID; C/D: row = groupID (+8 for c2, c3), col =
    threadID_in_group·2 + (i & 1)."""
    def a(lane, i):
        return (lane // 4 + 8 * ((i >> 2) & 1), (lane % 4) * 4 + (i & 3) + 16 * (i >> 3))
    assert holds(f"{name}.A") == expect(a, 32, 16)
    assert holds(f"{name}.B") == expect(
        lambda l, i: (l // 4, (l % 4) * 4 + (i & 3) + 16 * (i >> 2)), 32, 8)
    assert holds(f"{name}.C") == expect(
        lambda l, i: (l // 4 + 8 * (i >> 1), (l % 4) * 2 + (i & 1)), 32, 4)


def test_sm120_m16n8k64_block_scaled_4bit():
    """PTX ISA 9.7.14.5.x "Matrix Fragments for mma.m16n8k64" (.e2m1, kind::mxf4nvf4):
    A: row = groupID (+8 for a8-a15, a24-a31), col = threadID_in_group·8 + (i & 7) (+32 for
    i >= 16); B: row (k) = threadID_in_group·8 + (i & 7) (+32 for i >= 8), col = groupID."""
    def a(lane, i):
        return (lane // 4 + 8 * ((i >> 3) & 1), (lane % 4) * 8 + (i & 7) + 32 * (i >> 4))
    assert holds("sm120_16x8x64_mxf4.A") == expect(a, 32, 32)
    assert holds("sm120_16x8x64_mxf4.B") == expect(
        lambda l, i: (l // 4, (l % 4) * 8 + (i & 7) + 32 * (i >> 3)), 32, 16)
    # the scale factors: one per row (m) and k; CUTLASS's SFALayout uses the even lanes of
    # each pair (lane bit 1 is a broadcast), SFBLayout one lane per n (lane bits 0-1 broadcast)
    sfa = holds("sm120_16x8x64_mxf4.SFA")
    assert sfa[0b00010, 5] == sfa[0, 5] == (0, 5) and sfa[1, 0] == (8, 0)
    sfb = holds("sm120_16x8x64_mxf4.SFB")
    assert all(sfb[lane, 7] == (lane // 4, 7) for lane in range(32))


def test_cp_async_sizes():
    """cp.async moves 4, 8 or 16 bytes per thread (PTX ISA 9.7.9.25.3 "cp.async": cp-size
    4, 8, 16; .cg only 16): the register side is one vector of that many bytes."""
    for nbytes, bits, count in ((4, 16, 2), (8, 16, 4), (16, 16, 8), (4, 32, 1), (8, 8, 8)):
        L = atom(f"sm80_cp_async_u{nbytes * 8}", bits)
        assert 1 << len(L.bases["register"]) == count and L.out_dims == {"dim0": count}
    with pytest.raises(LayoutError, match=r"takes \[8, 16, 32\]-bit"):
        atom("sm80_cp_async_u32", 64)
    assert "CACHEGLOBAL" in atom_info("sm80_cp_async_u128.src").cutlass
    assert "CACHEGLOBAL" not in atom_info("sm80_cp_async_u64.src").cutlass


def test_tcgen05_tensor_memory_fragments():
    """PTX ISA, tcgen05 "Matrix fragments for tcgen05.ld/st" (32-bit registers, one warp on
    its sub-partition's data-path lanes): .32x32b — thread l holds lane l's 32-bit column;
    .16x256b — r0, r1: row l / 4, columns 2·(l % 4) + {0, 1}; r2, r3: row l / 4 + 8."""
    assert holds("sm100_tmem_32dp32b1x", 32) == expect(lambda l, i: (0, l), 32, 1)
    assert holds("sm100_tmem_16dp256b1x", 32) == expect(
        lambda l, i: (2 * (l % 4) + (i & 1), l // 4 + 8 * (i >> 1)), 32, 4)
    # 16x64b, 16x128b, 16x32b: every TMEM position exactly once per warp (CUTLASS's layouts,
    # checked against pycute in test_atoms.py)
    for name, bits_per_row in (("16dp32b1x", 64), ("16dp64b1x", 64), ("16dp128b1x", 128)):
        got = holds(f"sm100_tmem_{name}", 32)
        assert sorted(got.values()) == sorted((c, r) for c in range(bits_per_row // 32)
                                              for r in range(16))


# ----------------------------------------------------------------------------- shared memory
def swizzled_byte(addr: int, b: int) -> int:
    """PTX ISA 9.7.15.5.1 / 9.7.16.10.6 (wgmma, tcgen05 "Shared Memory Layout and
    Swizzling"): the 16-byte chunk index within each 2^b·128-byte repeat is XORed with the
    128-byte row index modulo 2^b (the 32B, 64B and 128B modes: b = 1, 2, 3)."""
    return addr ^ (((addr >> 7) & ((1 << b) - 1)) << 4)


@pytest.mark.parametrize("mode,b,span", [("inter", 0, 16), ("sw32", 1, 32), ("sw64", 2, 64),
                                         ("sw128", 3, 128)])
@pytest.mark.parametrize("bits", [8, 16, 32, 64])
def test_gmma_atoms(mode, b, span, bits):
    """8 rows of ``span`` bytes; K-major: row = mn, contiguous k; MN-major: row = k,
    contiguous mn; each element at its swizzled byte address."""
    from linlayout.ptx import tcgen05_atom
    per_row = span * 8 // bits
    nbytes = bits // 8
    for major, name in (("K", f"sm90_gmma_k_{mode}"), ("MN", f"sm90_gmma_mn_{mode}")):
        M = atom(name, bits)
        assert list(M.out_dims.values()) == ([8, per_row] if major == "K" else [per_row, 8])
        for off in range(M.in_dims["offset"]):
            mn, k = (M.apply({"offset": off})[d] for d in ("dim0", "dim1"))
            row, col = (mn, k) if major == "K" else (k, mn)
            assert swizzled_byte((row * per_row + col) * nbytes, b) == off * nbytes
        tc = tcgen05_atom("none" if b == 0 else f"{span}B", major, bits)
        assert M.bases["offset"] == tc.bases["offset"]
    T = atom(f"sm90_tma_{'none' if b == 0 else mode}", bits)
    assert T == atom(f"sm90_gmma_k_{mode}", bits)


def test_gmma_atoms_against_pycute_fixture():
    """The pycute-evaluated GMMA atoms of cute_atoms.json (every coordinate)."""
    seen = 0
    for entry in cute_fixtures()["layouts"]:
        note = entry["note"]
        if not note.startswith("GMMA::Layout_"):
            continue
        kind = note[len("GMMA::Layout_"):note.index("_Atom")]          # e.g. K_SW128
        bits = int(note[note.index("<") + 1:note.index("-bit")])
        M = atom(f"sm90_gmma_{kind.lower()}", bits)
        assert M.bases["offset"] == entry["memory_bases"], note
        seen += 1
    assert seen == 32


def test_umma_mn_sw128_32b_is_tcgen05():
    from linlayout.ptx import tcgen05_atom
    for bits in (8, 16, 32):
        assert atom("sm100_umma_mn_sw128_32b", bits).bases["offset"] == \
            tcgen05_atom("128B_atom_32B", "MN", bits).bases["offset"]


def test_tma_boxes_are_what_tma_writes():
    from linlayout.ptx.tma import tma_box_layout
    for mode, span in (("none", 16), ("sw32", 32), ("sw64", 64), ("sw128", 128)):
        for bits in (8, 16, 32):
            M = atom(f"sm90_tma_{mode}", bits)
            ptx_mode = "none" if mode == "none" else f"{span}B"
            T = tma_box_layout(ptx_mode, {"dim0": 8, "dim1": span * 8 // bits},
                               ["dim1", "dim0"], bits, span)
            assert M.bases["offset"] == T.bases["offset"], (mode, bits)


def test_memory_atoms_by_name_are_memory_layouts():
    info = atom_info("SM90_GMMA_K_SW128")
    assert info.is_memory and info.threads == 0 and info.tile(16) == (8, 64)
    assert info.cute(16).text() == "Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"
    assert atom("sm90_gmma_k_sw128", 16) == parse_layout(info.cute(16))
    with pytest.raises(LayoutError, match="in bits"):
        atom("sm90_gmma_k_sw128")


# ----------------------------------------------------------------------------- AMD
def _triton(name: str):
    """Triton's own encoding for an AMD atom (one wave), as (A, B, C) on (m,k), (k,n), (m,n)."""
    from linlayout.triton import amd_mfma, amd_wmma, dot_operand
    if "mfma" in name:
        m, _, k = (int(x) for x in name.split("_")[3].split("x"))
        version = 3 if m * k == 256 else 4
        parent = amd_mfma(version, [1, 1], [m, m, k], False)
        kw = 4 if version == 3 else 8
        return (dot_operand(0, parent, kw).to_linear_layout([m, k]),
                dot_operand(1, parent, kw).to_linear_layout([k, m]),
                parent.to_linear_layout([m, m]))
    version = 1 if name.endswith("gfx11") else 2
    parent = amd_wmma(version, False, warps_per_cta=[1, 1])
    kw = 16 if version == 1 else 8
    return (dot_operand(0, parent, kw).to_linear_layout([16, 16]),
            dot_operand(1, parent, kw).to_linear_layout([16, 16]),
            parent.to_linear_layout([16, 16]))


AMD = sorted({a.name.rsplit(".", 1)[0] for a in atoms() if a.name.startswith("amd_")})


@pytest.mark.parametrize("name", AMD)
def test_amd_atoms_are_tritons_encodings(name):
    """Each AMD atom, written from the ISA operand tables, equals Triton 3.9's amd_mfma /
    amd_wmma encoding (C) and its dot_op operands (A; B transposed: Triton's B is K x N)."""
    A, B, C = (atom(f"{name}.{p}") for p in "ABC")
    tA, tB, tC = _triton(name)
    keys = ("register", "lane")
    assert {k: A.bases[k] for k in keys} == {k: tA.bases[k] for k in keys}
    assert {k: C.bases[k] for k in keys} == {k: tC.bases[k] for k in keys}
    assert {k: [v[::-1] for v in B.bases[k]] for k in keys} == {k: tB.bases[k] for k in keys}
    assert len(A.bases["lane"]) == (6 if "mfma" in name else 5)


#: ``(lanes, values of A and B, A[m][k] and B[n][k] of lane l / value v, values of C,
#: C[m][n] of lane l / value v)`` per AMD atom, from the operand-layout tables of the AMD
#: CDNA3/CDNA4 ISA (MFMA; wave64) and RDNA3/RDNA4 ISA (WMMA; wave32, f32 accumulator).
AMD_ISA = {
    "amd_mfma_f32_16x16x16_f16": (64, 4, lambda l, v: (l % 16, 4 * (l // 16) + v), 4,
                                  lambda l, v: (4 * (l // 16) + v, l % 16)),
    "amd_mfma_f32_16x16x32_f16": (64, 8, lambda l, v: (l % 16, 8 * (l // 16) + v), 4,
                                  lambda l, v: (4 * (l // 16) + v, l % 16)),
    "amd_mfma_f32_32x32x8_f16": (64, 4, lambda l, v: (l % 32, 4 * (l // 32) + v), 16,
                                 lambda l, v: (8 * (v // 4) + 4 * (l // 32) + v % 4, l % 32)),
    "amd_mfma_f32_32x32x16_f16": (64, 8, lambda l, v: (l % 32, 8 * (l // 32) + v), 16,
                                  lambda l, v: (8 * (v // 4) + 4 * (l // 32) + v % 4, l % 32)),
    # RDNA3: lanes 16-31 hold a copy of lanes 0-15's A and B rows; C rows interleave halves
    "amd_wmma_f32_16x16x16_f16_gfx11": (32, 16, lambda l, v: (l % 16, v), 8,
                                        lambda l, v: (2 * v + l // 16, l % 16)),
    "amd_wmma_f32_16x16x16_f16_gfx12": (32, 8, lambda l, v: (l % 16, 8 * (l // 16) + v), 8,
                                        lambda l, v: (8 * (l // 16) + v, l % 16)),
}


def test_every_amd_atom_has_its_isa_formula():
    assert sorted(AMD_ISA) == AMD


@pytest.mark.parametrize("name", sorted(AMD_ISA))
def test_amd_atom_isa_formula(name):
    """Every lane and value of A (M x K), B (N x K, as CuTe) and C (M x N) against the ISA's
    operand layout, e.g. CDNA3 v_mfma_f32_32x32x8_f16: A: lane l, value v holds
    A[l % 32][4·(l / 32) + v]; C/D: D[8·(v / 4) + 4·(l / 32) + v % 4][l % 32]."""
    lanes, ab_values, ab, c_values, c = AMD_ISA[name]
    assert holds(f"{name}.A") == expect(ab, lanes, ab_values)
    assert holds(f"{name}.B") == expect(ab, lanes, ab_values)
    assert holds(f"{name}.C") == expect(c, lanes, c_values)


def test_every_atom_name_works_in_the_cli_reader():
    from linlayout.cute import read_layout
    for a in atoms():
        bits = a.element_bits[0] if a.units == "bits" else None
        assert is_atom_name(a.name)
        assert read_layout(a.name, bits) == a.linear_layout(bits)
