#!/usr/bin/env python
"""CUTLASS's own shared-memory layout atoms, counted against the copy atoms that use them.

For every ``SmemLayoutAtom`` that CUTLASS's SM80 GEMM configurations, its CuTe tutorials and
its SM90 collective builders choose, this script takes the atom as CuTe prints it, tiles it
(``tile_to_shape``) to the tile one access touches, and counts with
:func:`linlayout.bank_conflicts` the copy atoms that write and read it — ``cp.async`` tiled
copies, ``ldmatrix``/``stmatrix`` through the MMA fragments, ``UniversalCopy`` and
``AutoVectorizingCopy`` loads — giving the conflict degree, wavefronts and instructions per
warp against the bandwidth floor. Where CUTLASS intends a pairing to be conflict-free (table
column "intends") a degree above 1 is a mismatch. The SM90 GMMA atoms are also checked to be
what their engines need: written by TMA with the matching swizzle mode
(:func:`linlayout.ptx.match_tma_mode`) and equal to the wgmma canonical layout (Triton's
``nvmma_shared`` of that swizzle width). Exit status 1 on any mismatch::

    python papers/cute_gluon/cutlass_smem_atoms.py

What "intends" rests on:

* SM80 (``test/unit/gemm/device/default_gemm_configuration.hpp``,
  ``examples/cute/tutorial/sgemm_sm80.cu``, ``examples/cute/tutorial/hopper/wgmma_sm90.cu``):
  each swizzled atom is paired with ``cp.async`` 16-byte writes and ``ldmatrix`` reads
  ("Swizzles for LDSM and 128b k-major loads", sgemm_sm80.cu) — conflict-free;
* SM90 epilogue (``sm90_get_smem_store_op_for_accumulator`` with
  ``sm90_get_epilogue_smem_swizzle_layout_atom``, ``include/cutlass/epilogue/collective/
  builders/``): ``stmatrix`` of the accumulator into the selected GMMA atom — conflict-free;
* SM90 RS mainloop (``rs_smem_selector``, ``include/cutlass/gemm/collective/builders/
  sm90_common.inl``): for MN-major 32-bit A "Fall into SW32 due to free bank conflict" —
  SW32 conflict-free; the other choices are printed with their cost, no claim;
* rows marked "—" carry no claim (a ``UniversalCopy`` fallback, or an alternative the
  selector does not pick); they are printed so that each choice's cost can be compared.

One warp's access is counted at the tile's origin. Every other warp, k-block and pipeline
stage touches the same atoms at offsets that differ by a constant that the swizzle maps
linearly — every address XORed with one constant — which permutes banks uniformly, so its
count is the same. The FP64 configurations' readers (``DefaultCopy`` through a TiledMMA that
permutes M "for load vectorization") are not modelled; their cp.async writers are.

``--drop-swizzles`` is the negative control: the same pairings without the swizzles must show
conflicts (and the script exits 1).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from linlayout import LayoutError, LinearLayout, bank_conflicts, simulate_bank_access  # noqa: E402
from linlayout.cute import (  # noqa: E402
    CuteLayout,
    atom,
    parse_layout,
    tile_to_shape,
    tiled_tv_layout,
    upcast,
)
from linlayout.ptx import match_tma_mode  # noqa: E402
from linlayout.triton import NvmmaSharedEncoding, express, to_gluon  # noqa: E402

DGC = "default_gemm_configuration.hpp"


@dataclass(frozen=True)
class Access:
    """One copy of one warp into or out of a tiled atom."""

    where: str          # the CUTLASS configuration
    atom_name: str      # the SmemLayoutAtom as written in CUTLASS
    smem: str           # the atom, as CuTe prints it
    element_bits: int
    tile: tuple[int, int]   # what tile_to_shape covers for this access
    copy: str           # the copy atom, as CUTLASS names it
    dist: LinearLayout  # the warp's (register, lane, warp) -> tile coordinates
    instruction: str | None = None
    vector_elems: int | None = None
    intends: bool | None = True   # CUTLASS intends conflict-free (None: no claim)


def cp_async(thr: str, val: str) -> LinearLayout:
    return tiled_tv_layout(thr, val)


def gmma(name: str, bits: int) -> str:
    """GMMA::Layout_{name}_Atom<T> for a T of ``bits`` bits, as cute::print writes it."""
    B, shape, stride = {
        "MN_INTER": (0, (128, 8), (1, 128)), "MN_SW32": (1, (256, 8), (1, 256)),
        "MN_SW64": (2, (512, 8), (1, 512)), "MN_SW128": (3, (1024, 8), (1, 1024)),
        "K_INTER": (0, (8, 128), (128, 1)), "K_SW32": (1, (8, 256), (256, 1)),
        "K_SW64": (2, (8, 512), (512, 1)), "K_SW128": (3, (8, 1024), (1024, 1)),
    }[name]  # include/cute/atom/mma_traits_sm90_gmma.hpp, "in units of bits"
    lay = upcast(CuteLayout(shape, stride), bits)
    return f"Sw<{B},4,3> o smem_ptr[{bits}b](unset) o {lay.text()}"


def sm80_accesses() -> list[Access]:
    f16k64 = "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"
    f16m = "Sw<3,3,3> o _0 o (_64,_8):(_1,_64)"
    f16k32 = "Sw<2,3,3> o _0 o (_8,_32):(_32,_1)"
    tf32k32 = "Sw<3,2,3> o _0 o (_8,_32):(_32,_1)"
    tf32k16 = "Sw<2,2,3> o _0 o (_8,_16):(_16,_1)"
    tf32m = "Sw<3,2,3> o _0 o (_32,_8):(_1,_32)"
    s8k = "Sw<2,4,3> o _0 o (_16,_64):(_64,_1)"
    f64k = "Sw<2,0,4> o _0 o (_4,_16):(_1,_4)"
    f64m = "Sw<2,2,2> o _0 o (_16,_4):(_1,_16)"
    tut = "Sw<3,3,3> o _0 o (_8,(_8,_8)):(_8,(_1,_64))"
    A16, Atf, As8 = atom("sm80_16x8x16.A"), atom("sm80_16x8x8_tf32.A"), atom("sm80_16x8x32_s8.A")
    return [
        Access("sgemm_sm80.cu gemm_tn (half_t)", "composition(Sw<3,3,3>, (8,(8,8)):(8,(1,64)))",
               tut, 16, (16, 64), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr 16x8 k-major",
               cp_async("(_16,_8):(_8,_1)", "(_1,_8):(_0,_1)")),
        Access("sgemm_sm80.cu gemm_tn (half_t)", "composition(Sw<3,3,3>, (8,(8,8)):(8,(1,64)))",
               tut, 16, (16, 64), "SM75_U32x4_LDSM_N (A fragment)", A16, "ldmatrix.x4"),
        Access(f"{DGC} half_t K-major", "composition(Sw<3,3,3>, (8,64):(64,1))", f16k64, 16,
               (16, 64), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8):(8,1)",
               cp_async("(_16,_8):(_8,_1)", "(_1,_8):(_0,_1)")),
        Access(f"{DGC} half_t K-major", "composition(Sw<3,3,3>, (8,64):(64,1))", f16k64, 16,
               (16, 64), "SM75_U32x4_LDSM_N (A fragment)", A16, "ldmatrix.x4"),
        Access(f"{DGC} half_t M-major", "composition(Sw<3,3,3>, (64,8):(1,64))", f16m, 16,
               (128, 8), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8):(1,16)",
               cp_async("(_16,_8):(_1,_16)", "(_8,_1):(_1,_0)")),
        Access(f"{DGC} half_t M-major", "composition(Sw<3,3,3>, (64,8):(1,64))", f16m, 16,
               (64, 16), "SM75_U16x8_LDSM_T (A fragment)", A16, "ldmatrix.x4.trans"),
        Access(f"{DGC} half_t K-major, kblock 32", "composition(Sw<2,3,3>, (8,32):(32,1))",
               f16k32, 16, (32, 32), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (32,4):(4,1)",
               cp_async("(_32,_4):(_4,_1)", "(_1,_8):(_0,_1)")),
        Access(f"{DGC} half_t K-major, kblock 32", "composition(Sw<2,3,3>, (8,32):(32,1))",
               f16k32, 16, (16, 32), "SM75_U32x4_LDSM_N (A fragment)", A16, "ldmatrix.x4"),
        Access(f"{DGC} tfloat32_t K-major", "composition(Sw<3,2,3>, (8,32):(32,1))", tf32k32,
               32, (16, 32), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8):(8,1)",
               cp_async("(_16,_8):(_8,_1)", "(_1,_4):(_0,_1)")),
        Access(f"{DGC} tfloat32_t K-major", "composition(Sw<3,2,3>, (8,32):(32,1))", tf32k32,
               32, (16, 32), "SM75_U32x4_LDSM_N (tf32 A fragment)", Atf, "ldmatrix.x4"),
        Access(f"{DGC} tfloat32_t K-major, kblock 16", "composition(Sw<2,2,3>, (8,16):(16,1))",
               tf32k16, 32, (32, 16), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (32,4):(4,1)",
               cp_async("(_32,_4):(_4,_1)", "(_1,_4):(_0,_1)")),
        Access(f"{DGC} tfloat32_t K-major, kblock 16", "composition(Sw<2,2,3>, (8,16):(16,1))",
               tf32k16, 32, (16, 16), "SM75_U32x4_LDSM_N (tf32 A fragment)", Atf, "ldmatrix.x4"),
        Access(f"{DGC} tfloat32_t M-major", "composition(Sw<3,2,3>, (32,8):(1,32))", tf32m, 32,
               (64, 8), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8):(1,16)",
               cp_async("(_16,_8):(_1,_16)", "(_4,_1):(_1,_0)")),
        Access(f"{DGC} tfloat32_t M-major", "composition(Sw<3,2,3>, (32,8):(1,32))", tf32m, 32,
               (32, 8), "UniversalCopy<tfloat32_t> (tf32 A fragment)", Atf, None, 1,
               intends=None),
        Access(f"{DGC} int8_t K-major (A and B)", "composition(Sw<2,4,3>, (16,64):(64,1))", s8k,
               8, (32, 64), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (32,4):(4,1)",
               cp_async("(_32,_4):(_4,_1)", "(_1,_16):(_0,_1)")),
        Access(f"{DGC} int8_t K-major (A and B)", "composition(Sw<2,4,3>, (16,64):(64,1))", s8k,
               8, (16, 64), "SM75_U32x4_LDSM_N, uint8_t (int8 A fragment)", As8, "ldmatrix.x4"),
        Access(f"{DGC} double K-major", "composition(Sw<2,0,4>, (4,16):(1,4))", f64k, 64,
               (8, 16), "SM80_CP_ASYNC_CACHEALWAYS<double> thr (8,16):(16,1)",
               cp_async("(_8,_16):(_16,_1)", "(_1,_1):(_0,_0)")),
        Access(f"{DGC} double M-major", "composition(Sw<2,2,2>, (16,4):(1,16))", f64m, 64,
               (32, 8), "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8):(1,16)",
               cp_async("(_16,_8):(_1,_16)", "(_2,_1):(_1,_0)")),
        Access("hopper/wgmma_sm90.cu gemm_tn (half_t)", "GMMA::Layout_K_SW128_Atom<half_t>",
               gmma("K_SW128", 16), 16, (16, 64),
               "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8):(8,1)",
               cp_async("(_16,_8):(_8,_1)", "(_1,_8):(_0,_1)")),
        Access("hopper/wgmma_sm90.cu gemm_nt (half_t)", "GMMA::Layout_MN_SW128_Atom<half_t>",
               gmma("MN_SW128", 16), 16, (128, 8),
               "SM80_CP_ASYNC_CACHEALWAYS<uint128_t> thr (16,8) m-major",
               cp_async("(_16,_8):(_1,_16)", "(_8,_1):(_1,_0)")),
    ]


def sm90_accesses() -> list[Access]:
    out = []
    epi = "sm90_get_smem_store_op_for_accumulator"
    for name, width in (("K_SW128", 64), ("K_SW64", 32), ("K_SW32", 16), ("K_INTER", 8)):
        op = "SM90_U32x4_STSM_N" if width % 16 == 0 else "SM90_U32x2_STSM_N"
        ins = "stmatrix.x4" if width % 16 == 0 else "stmatrix.x2"
        out.append(Access(f"{epi}: half_t D, N-major, epilogue tile 64x{width}",
                          f"GMMA::Layout_{name}_Atom<half_t>", gmma(name, 16), 16, (64, width),
                          f"{op} (CLayout_64x{width})", atom(f"sm90_64x{width}.C"), ins))
    for name in ("MN_SW128", "MN_SW64", "MN_SW32", "MN_INTER"):
        out.append(Access(f"{epi}: half_t D, M-major, epilogue tile 64x32",
                          f"GMMA::Layout_{name}_Atom<half_t>", gmma(name, 16), 16, (64, 32),
                          "SM90_U16x8_STSM_T (CLayout_64x32)", atom("sm90_64x32.C"),
                          "stmatrix.x4.trans"))
    rs = "rs_smem_selector + AutoVectorizingCopy"
    for name in ("MN_SW32", "MN_SW128", "MN_SW64", "MN_INTER"):
        out.append(Access(f"{rs}: tfloat32_t A, MN-major (\"free bank conflict\")",
                          f"GMMA::Layout_{name}_Atom<tfloat32_t>", gmma(name, 32), 32, (64, 8),
                          "AutoVectorizingCopy (ALayout_64x8)", atom("sm90_64x8.A"),
                          intends=True if name == "MN_SW32" else None))
    for name in ("K_SW128", "K_SW64", "K_SW32", "K_INTER"):
        k = {"K_SW128": 64, "K_SW64": 32, "K_SW32": 16, "K_INTER": 16}[name]
        out.append(Access(f"{rs}: half_t A, K-major", f"GMMA::Layout_{name}_Atom<half_t>",
                          gmma(name, 16), 16, (64, k), "AutoVectorizingCopy (ALayout_64x16)",
                          atom("sm90_64x16.A"), intends=True if name == "K_SW128" else None))
    return out


def count(a: Access, drop_swizzle: bool = False):
    """The closed-form count, and whether the brute-force simulator agrees with it."""
    tiled = tile_to_shape(a.smem, list(a.tile))
    if drop_swizzle:  # the negative control: the same atom without its swizzle
        tiled = CuteLayout(tiled.shape, tiled.stride)
    memory = parse_layout(tiled)
    dist = LinearLayout(a.dist.bases, out_dims={n: memory.out_dims[n]
                                                for n in a.dist.out_dim_names})
    rep = bank_conflicts(dist, memory, element_bits=a.element_bits, instruction=a.instruction,
                         vector_elems=a.vector_elems)
    sim = simulate_bank_access(dist, memory, element_bits=a.element_bits,
                               instruction=a.instruction,
                               vector_elems=None if a.instruction else rep.vector_elems)
    return rep, (sim.degree, sim.wavefronts_per_warp) == (rep.degree, rep.wavefronts_per_warp)


def gmma_checks() -> tuple[list[tuple], int]:
    """Each GMMA atom, at its own shape: TMA writes it with the atom's swizzle mode; it is the
    wgmma (nvmma_shared) layout of that width; and its Gluon source. tile_to_shape places the
    repeats at multiples of the atom's size, which is the swizzle's period (1024, 512, 256
    bytes), so each repeat is the same atom again."""
    rows, bad = [], 0
    width = {"INTER": 0, "SW32": 32, "SW64": 64, "SW128": 128}
    for major in ("K", "MN"):
        for kind in ("SW128", "SW64", "SW32", "INTER"):
            for bits in (8, 16, 32):
                text = gmma(f"{major}_{kind}", bits)
                M = parse_layout(text)
                tma = match_tma_mode(M, bits)
                want_tma = "none" if kind == "INTER" else f"{width[kind]}B"
                enc = express(M, bits, prefer="nvmma")
                nvmma = (isinstance(enc, NvmmaSharedEncoding)
                         and enc.swizzling_byte_width == width[kind]
                         and enc.transposed == (major == "MN"))
                got_tma = tma.mode.value if tma else "-"
                ok = got_tma == want_tma and nvmma
                bad += not ok
                rows.append((f"Layout_{major}_{kind}_Atom", bits, text,
                             got_tma, "yes" if nvmma else "NO",
                             to_gluon(M, bits, prefer="nvmma"), "ok" if ok else "MISMATCH"))
    return rows, bad


def table(header, rows) -> str:
    cells = [list(map(str, header))] + [[str(c) for c in r] for r in rows]
    w = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [" | ".join(c.ljust(x) for c, x in zip(r, w)).rstrip() for r in cells]
    lines.insert(1, "-+-".join("-" * x for x in w))
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drop-swizzles", action="store_true",
                    help="negative control: count every pairing without the atom's swizzle "
                         "(the script must then report mismatches and exit 1)")
    args = ap.parse_args(argv)
    bad = 0
    for title, accesses in (("SM80 (and the Hopper cp.async tutorial)", sm80_accesses()),
                            ("SM90 epilogue and RS mainloop", sm90_accesses())):
        rows = []
        for a in accesses:
            try:
                r, agrees = count(a, args.drop_swizzles)
            except LayoutError as exc:
                bad += 1
                rows.append((a.where, a.atom_name, a.copy, "ERROR", str(exc), "", "", "", "",
                             "", "MISMATCH"))
                continue
            free = r.degree == 1
            verdict = "—" if a.intends is None else ("ok" if free == a.intends else "MISMATCH")
            if not agrees:
                verdict = "MISMATCH (simulator)"
            bad += verdict == "MISMATCH"
            rows.append((a.where, a.atom_name, a.copy, r.instruction, r.vector_elems, r.degree,
                         r.wavefronts_per_warp, r.instructions_per_warp, r.wavefront_floor,
                         {True: "conflict-free", None: "—"}[a.intends], verdict))
        print(f"== {title}: one warp's access, {len(rows)} pairings")
        print(table(("configuration", "smem atom", "copy atom", "instruction", "vec",
                     "degree", "wavefronts/warp", "instr/warp", "floor", "CUTLASS intends",
                     "verdict"), rows))
        print()
    if args.drop_swizzles:
        print(f"{bad} mismatch(es) without the swizzles (expected: some)")
        return 1 if bad else 0
    rows, gbad = gmma_checks()
    bad += gbad
    print(f"== SM90 GMMA atoms: one TMA box of their swizzle mode, one wgmma swizzle atom "
          f"({len(rows)} atoms)")
    print(table(("atom", "bits", "layout", "TMA mode", "= nvmma_shared", "Gluon", "verdict"),
                rows))
    print()
    print("all pairings as CUTLASS intends" if not bad else f"{bad} MISMATCH(ES)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
