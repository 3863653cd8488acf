"""CUTLASS's MMA, copy and shared-memory atoms (and AMD's MFMA/WMMA operands) as layouts, by
name.

Each atom is transcribed from its CUTLASS header (CuTe text below, as ``cute::print`` writes
it) and converted with :func:`linlayout.cute.tv_layout`; ``tests/cute/test_atoms.py`` checks
every one, at every element size it accepts, against the maps NVIDIA's pycute computes
(``tests/data/cute_atoms.json``, written by ``papers/cute_gluon/generate_cute_fixtures.py``).

Names are ``<atom>.<part>``, case-insensitive (so CUTLASS's own spelling works:
``SM75_U32x4_LDSM_N.dst``):

* ``sm80_16x8x16.A`` / ``.B`` / ``.C`` — ``MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>`` (also
  the F32-accumulator and BF16 variants): A on the ``(m, k)`` 16×16 tile, B on ``(n, k)`` 8×16
  (CuTe writes B as N×K), C on ``(m, n)`` 16×8; elements; one warp. Likewise
  ``sm80_16x8x8_tf32``, ``sm80_16x8x32_s8`` and ``sm80_8x8x4_f64`` (the TF32, int8 and FP64
  atoms of CUTLASS's SM80 GEMM configurations).
* ``sm90_64xN.C`` (N = 8, 16, 32, 64, 128, 256) — ``SM90::GMMA::CLayout_64xN``, the
  accumulator of every ``SM90_64xNxK`` wgmma, ``(m, n)``; 128 threads (4 warps).
* ``sm90_64x16.A`` — ``SM90::GMMA::ALayout_64x16``, the register A operand of the RS wgmma
  for 16-bit types, ``(m, k)`` 64×16; 128 threads. ``sm90_64x8.A`` (32-bit types, K = 8) and
  ``sm90_64x32.A`` (8-bit, K = 32) likewise (``ALayout_64x8``, ``ALayout_64x32``).
* ``sm70_8x8x4_tn.A``/``.B``/``.C``, ``sm70_8x8x4_nt.A``/``.B``, ``sm70_8x8x4_f32.C`` —
  Volta's ``mma.sync.m8n8k4`` (``MMA_Traits<SM70_8x8x4_F16F16F16F16_TN>`` and ``_NT``, the
  F32 accumulator ``SM70_8x8_32b``). Eight logical threads per MMA, a *quad pair*: CUTLASS's
  ``ThrID = (_4,_2):(_1,_16)`` puts logical thread ``t`` on lane ``t % 4 + 16·(t / 4)``; the
  distributed layout has lane bits 2 and 3 (the warp's four quad pairs, four independent MMAs)
  as broadcasts — every quad pair holds the same positions of its own MMA.
* ``sm75_16x8x8.A``/``.B``/``.C`` (``SM75_16x8x8_F32F16F16F32_TN``, f16/bf16 inputs; C f16
  or f32) and ``sm75_8x8x16_s8.A``/``.B``/``.C`` (``SM75_8x8x16_S32S8S8S32_TN``).
* ``sm89_16x8x32_fp8.A``/``.B``/``.C`` — ``SM89_16x8x32_F32E4M3E4M3F32_TN`` (every e4m3/e5m2
  pairing; C f32 or f16).
* ``sm120_16x8x32_f8f6f4.A``/``.B``/``.C`` — ``SM120_16x8x32_TN`` (f8/f6/f4 in 8-bit
  containers: the SM80 int8 layouts); ``sm120_16x8x64_mxf4.A``/``.B``/``.C``/``.SFA``/``.SFB``
  — the block-scaled ``SM120_16x8x64_TN_VS`` (4-bit A/B; ``SFA``/``SFB`` say which scale
  factor each thread supplies for each k of the 16×64 / 8×64 tile, CUTLASS's ``SFALayout``,
  ``SFBLayout``; half the threads are broadcasts). ``ldmatrix.x1/.x2/.x4`` and
  their ``.trans`` forms; ``sm90_u32x{1,2,4}_stsm_n``, ``sm90_u16x{2,4,8}_stsm_t`` —
  ``stmatrix``; ``sm80_cp_async_u128`` — ``cp.async`` of 16 bytes
  (``SM80_CP_ASYNC_CACHEALWAYS/CACHEGLOBAL<uint128_t>``), ``sm80_cp_async_u64`` and
  ``sm80_cp_async_u32`` (8 and 4 bytes, ``CACHEALWAYS``). Each has ``.src`` and ``.dst``
  (CUTLASS's ``SrcLayout``/``DstLayout``); the bare name is CUTLASS's ``RefLayout``, the
  register side of ldmatrix/stmatrix.
* ``sm100_tmem_{32dp32b,16dp32b,16dp64b,16dp128b,16dp256b}1x`` — the register side of
  tcgen05's tensor-memory loads and stores (``Copy_Traits<SM100_TMEM_LOAD_…>::DstLayout``,
  which is the STORE's ``SrcLayout``): one warp over its sub-partition's data-path lanes
  (``dim1``, 32 or 16 of them) and the bits of each lane's row (``dim0``); in bits, 32-bit
  elements.
* ``sm90_gmma_{k,mn}_{inter,sw32,sw64,sw128}`` — the wgmma shared-memory operand atoms
  ``GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`` (PTX ISA "Shared Memory Matrix
  Layout" of wgmma: 8 rows of 16/32/64/128 bytes, K-major or MN-major, with the swizzle of that
  width on byte addresses), and tcgen05's ``sm100_umma_mn_sw128_32b`` (``UMMA::
  Layout_MN_SW128_32B_Atom``, 128-byte swizzle with 32-byte atomicity). These are
  **shared-memory layouts** (``offset -> (mn, k)``), in bits in CUTLASS, so they take
  ``element_bits``. ``sm90_tma_{none,sw32,sw64,sw128}`` are the same boxes as TMA writes them
  with that swizzle mode (a box whose inner dimension is one swizzle row; ``none``: 16 bytes):
  the K-major GMMA atoms under the names a TMA user looks for.
* ``amd_mfma_f32_32x32x8_f16``, ``amd_mfma_f32_16x16x16_f16`` (CDNA3, ``v_mfma_…`` also
  bf16), ``amd_mfma_f32_32x32x16_f16``, ``amd_mfma_f32_16x16x32_f16`` (CDNA4),
  ``amd_wmma_f32_16x16x16_f16_gfx11`` (RDNA3: A and B replicated in both half-waves) and
  ``amd_wmma_f32_16x16x16_f16_gfx12`` (RDNA4), each ``.A``/``.B``/``.C``: one wavefront
  (64 lanes for MFMA, 32 for WMMA), named as Composable Kernel names the instructions, written
  from the AMD ISA manuals' operand layouts (lane ``l``, value ``v``; e.g. MFMA 32×32×8 A:
  ``m = l % 32``, ``k = 4·(l / 32) + v``; C: ``n = l % 32``, ``m = 8·(v / 4) + 4·(l / 32) +
  v % 4``). ``tests/cute/test_atoms.py`` checks each against Triton's ``amd_mfma``/``amd_wmma``
  and ``dot_op`` encodings (:mod:`linlayout.triton`).

**Conventions.** A is ``(m, k)``, B ``(n, k)`` (CuTe writes B as N×K), C ``(m, n)``; the tile
is column-major (``dim0`` fastest).

**Units.** MMA atoms are in elements (any width the instruction takes). Copy atoms are in
**bits** in CUTLASS; ``element_bits`` applies ``upcast<element_bits>`` exactly as
``Copy_Atom<Op, T>`` does (:func:`linlayout.cute.upcast`), so it is required for them. The
ldmatrix/stmatrix tile is the ``8·nmat`` rows of 16 bytes the instruction moves: ``dim0`` is
the element within the 16-byte row, ``dim1`` the row (row ``8j + r`` is row ``r`` of matrix
``j``); CuTe's flat index ``(128 / element_bits)·row + column`` is that tile, column-major.

Source: CUTLASS ``include/cute/atom/mma_traits_sm80.hpp``,
``include/cute/atom/mma_traits_sm90_gmma.hpp`` (``CLayout_64xN``, ``ALayout_64x16``),
``include/cute/atom/copy_traits_sm75.hpp``, ``include/cute/atom/copy_traits_sm90.hpp``
(stmatrix = ldmatrix with ``SrcLayout`` and ``DstLayout`` swapped),
``include/cute/atom/copy_traits_sm80.hpp``, ``mma_traits_sm70.hpp``, ``mma_traits_sm75.hpp``,
``mma_traits_sm89.hpp``, ``mma_traits_sm120.hpp``, ``mma_traits_sm100.hpp`` (UMMA atoms); AMD
"CDNA3 Instruction Set Architecture" and "CDNA4 ISA" (section "Matrix fused-multiply-add
(MFMA)", the dependency/operand layout tables), "RDNA3 ISA" / "RDNA4 ISA" (section "Wave
Matrix Multiply Accumulate (WMMA)"); PTX ISA sections "Matrix Fragments for
mma.m16n8k16 with floating point type" (and the m16n8k8 / m16n8k32 / m8n8k4 ones),
"Warp-level matrix load instruction: ldmatrix", "Warp-level matrix store instruction:
stmatrix", "Register Fragments and Shared Memory Matrix Layouts" (wgmma), "cp.async".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import as_int, shown
from ..errors import LayoutError
from ..layout import LinearLayout
from .cutelayout import CuteLayout
from .inttuple import product
from .parse import parse_cute
from .bits import coordinate_images
from .memory import parse_layout
from .recast import upcast
from .tv import tv_layout

__all__ = ["Atom", "atom", "atom_info", "atom_names", "atoms", "is_atom_name"]


@dataclass(frozen=True)
class Atom:
    """One side of one CUTLASS atom.

    Attributes:
        name: the linlayout name (``"sm80_16x8x16.A"``).
        cutlass: the C++ type it is (``"MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>::ALayout"``);
            for an AMD atom, the instruction and operand.
        layout: the CuTe TV layout text, in ``units``.
        tile_shape: the tile its index runs over, column-major, in ``units``.
        tile_dims: what ``dim0, dim1, …`` mean (``("m", "k")``).
        units: ``"elements"`` or ``"bits"``.
        element_bits: the element widths it accepts (for ``"bits"``: the ``upcast`` it takes).
        header: the CUTLASS header that defines it (for AMD atoms, the ISA manuals).
        instruction: the PTX instruction.
        role: what the layout says: ``"registers"`` (what each thread holds),
            ``"shared-memory rows"`` (whose address each thread supplies), or
            ``"shared-memory layout"`` (a memory atom: ``offset -> (mn, k)``, not a
            thread-value map).
        thr_id: CUTLASS's ``ThrID`` (logical thread -> lane) when it is not the identity
            (SM70's quad pairs), else None.
        warp_size: lanes per warp (wavefront) of the instruction: 32, or 64 for AMD MFMA.
        bit_dim: which tile dim is in bits for a bit-unit atom (0, or 1 for K-major memory
            atoms).
    """

    name: str
    cutlass: str
    layout: str
    tile_shape: tuple[int, ...]
    tile_dims: tuple[str, ...]
    units: str
    element_bits: tuple[int, ...]
    header: str
    instruction: str
    role: str
    thr_id: str | None = None
    warp_size: int = 32
    bit_dim: int = 0

    @property
    def is_memory(self) -> bool:
        """True for a shared-memory layout atom (not a thread-value map)."""
        return self.role == MEMORY

    @property
    def threads(self) -> int:
        """Threads of the atom (size of the thread mode; logical threads where ``thr_id``
        maps them to lanes; 0 for a memory atom)."""
        if self.is_memory:
            return 0
        return product(parse_cute(self.layout).modes()[0][0])

    def cute(self, element_bits: int | None = None) -> CuteLayout:
        """The TV layout, upcast to ``element_bits``-bit elements for a bit-unit atom.

        Raises:
            LayoutError: ``element_bits`` missing for a bit-unit atom, or not one it accepts.
        """
        cl = parse_cute(self.layout)
        bits = self._bits(element_bits)
        if bits is None:
            return cl
        if self.is_memory:  # upcast the inner layout; the swizzle stays on byte addresses
            return CuteLayout(upcast(cl.inner(), bits).shape, upcast(cl.inner(), bits).stride,
                              cl.swizzle, pointer_bits=bits)
        return upcast(cl, bits)

    def tile(self, element_bits: int | None = None) -> tuple[int, ...]:
        """The tile in elements (for a bit-unit atom, its first dim divided by the width)."""
        bits = self._bits(element_bits)
        if bits is None:
            return self.tile_shape
        t = list(self.tile_shape)
        t[self.bit_dim] //= bits
        return tuple(t)

    def linear_layout(self, element_bits: int | None = None) -> LinearLayout:
        """The distributed layout (``register, lane, warp -> dim0 …``), or for a memory atom
        the memory layout (``offset -> dim0, dim1``); see :func:`atom`."""
        if self.is_memory:
            got = parse_layout(self.cute(element_bits))
            if not isinstance(got, LinearLayout):  # pragma: no cover (the atoms have no gaps)
                raise LayoutError(f"{self.name}: not a linear memory layout")
            return got
        if self.thr_id is None:
            return tv_layout(self.cute(element_bits), self.tile(element_bits),
                             warp_size=self.warp_size)
        return _on_lanes(tv_layout(self.cute(element_bits), self.tile(element_bits)),
                         self.thr_id, self.warp_size)

    def _bits(self, element_bits: int | None) -> int | None:
        if element_bits is None:
            if self.units == "bits":
                raise LayoutError(
                    f"{self.name} is in bits (CUTLASS copy traits); give element_bits, one of "
                    f"{list(self.element_bits)}, to recast it as Copy_Atom<Op, T> does"
                )
            return None
        e = as_int(element_bits, "element_bits")
        if e not in self.element_bits:
            raise LayoutError(f"{self.name} takes {list(self.element_bits)}-bit elements, not {e}")
        return e if self.units == "bits" else None


#: :attr:`Atom.role` of a shared-memory layout atom.
MEMORY = "shared-memory layout"


def _on_lanes(logical: LinearLayout, thr_id: str, warp_size: int) -> LinearLayout:
    """A layout over logical threads (its ``lane`` bases) placed on lanes by CUTLASS's
    ``ThrID``: lane bit ``j`` takes the basis of the logical thread bit ``ThrID`` sends to lane
    ``2^j``; lane bits ``ThrID`` never sets are broadcasts (other, independent MMAs)."""
    images = [img for mode in coordinate_images(parse_cute(thr_id)) for img in mode]
    logical_lanes = logical.bases["lane"] + logical.bases["warp"]
    zero = [0] * len(logical.out_dims)
    lanes = [zero] * (warp_size.bit_length() - 1)
    for i, img in enumerate(images):
        lanes[img.bit_length() - 1] = logical_lanes[i]
    return LinearLayout({"register": logical.bases["register"], "lane": lanes, "warp": []},
                        out_dims=logical.out_dims)


_MMA80 = "include/cute/atom/mma_traits_sm80.hpp"
_MMA70 = "include/cute/atom/mma_traits_sm70.hpp"
_MMA75 = "include/cute/atom/mma_traits_sm75.hpp"
_MMA89 = "include/cute/atom/mma_traits_sm89.hpp"
_MMA120 = "include/cute/atom/mma_traits_sm120.hpp"
_UMMA = "include/cute/atom/mma_traits_sm100.hpp"
_TMEM = "include/cute/atom/copy_traits_sm100.hpp"
_CDNA = "AMD CDNA3/CDNA4 ISA, MFMA operand layouts"
_RDNA = "AMD RDNA3/RDNA4 ISA, WMMA operand layouts"
_GMMA = "include/cute/atom/mma_traits_sm90_gmma.hpp"
_LDSM = "include/cute/atom/copy_traits_sm75.hpp"
_STSM = "include/cute/atom/copy_traits_sm90.hpp"
_CPASYNC = "include/cute/atom/copy_traits_sm80.hpp"


def _catalogue() -> dict[str, Atom]:
    out: list[Atom] = []
    mma = "mma.sync.aligned.m16n8k16.row.col (f16/bf16 inputs)"
    t80 = "MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>"
    out += [
        Atom("sm80_16x8x16.A", f"{t80}::ALayout",
             "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", (16, 16), ("m", "k"),
             "elements", (16,), _MMA80, mma, "registers"),
        Atom("sm80_16x8x16.B", f"{t80}::BLayout",
             "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", (8, 16), ("n", "k"),
             "elements", (16,), _MMA80, mma, "registers"),
        Atom("sm80_16x8x16.C", f"{t80}::CLayout (SM80_16x8_Row)",
             "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"),
             "elements", (16, 32), _MMA80, mma, "registers"),
    ]
    more = [  # (name, traits, ptx, {part: (layout, tile, dims, widths)})
        ("sm80_16x8x8_tf32", "MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>",
         "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", {
             "A": ("((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", (16, 8), ("m", "k"), (32,)),
             "B": ("((_4,_8),_2):((_8,_1),_32)", (8, 8), ("n", "k"), (32,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (32,))}),
        ("sm80_16x8x32_s8", "MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>",
         "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", {
             "A": ("((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))", (16, 32), ("m", "k"), (8,)),
             "B": ("((_4,_8),(_4,_2)):((_32,_1),(_8,_128))", (8, 32), ("n", "k"), (8,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (32,))}),
        ("sm80_8x8x4_f64", "MMA_Traits<SM80_8x8x4_F64F64F64F64_TN>",
         "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", {
             "A": ("((_4,_8),_1):((_8,_1),_0)", (8, 4), ("m", "k"), (64,)),
             "B": ("((_4,_8),_1):((_8,_1),_0)", (8, 4), ("n", "k"), (64,)),
             "C": ("((_4,_8),_2):((_16,_1),_8)", (8, 8), ("m", "n"), (64,))}),
    ]
    more += [
        ("sm75_16x8x8", "MMA_Traits<SM75_16x8x8_F32F16F16F32_TN>",
         "mma.sync.aligned.m16n8k8.row.col (f16/bf16 inputs)", {
             "A": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "k"), (16,)),
             "B": ("((_4,_8),_2):((_16,_1),_8)", (8, 8), ("n", "k"), (16,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (16, 32))}),
        ("sm75_8x8x16_s8", "MMA_Traits<SM75_8x8x16_S32S8S8S32_TN>",
         "mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32", {
             "A": ("((_4,_8),_4):((_32,_1),_8)", (8, 16), ("m", "k"), (8,)),
             "B": ("((_4,_8),_4):((_32,_1),_8)", (8, 16), ("n", "k"), (8,)),
             "C": ("((_4,_8),_2):((_16,_1),_8)", (8, 8), ("m", "n"), (32,))}),
        ("sm89_16x8x32_fp8", "MMA_Traits<SM89_16x8x32_F32E4M3E4M3F32_TN>",
         "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 (and e5m2)", {
             "A": ("((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))", (16, 32), ("m", "k"), (8,)),
             "B": ("((_4,_8),(_4,_2)):((_32,_1),(_8,_128))", (8, 32), ("n", "k"), (8,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (16, 32))}),
        ("sm120_16x8x32_f8f6f4", "MMA_Traits<SM120_16x8x32_TN<…>>",
         "mma.sync.aligned.kind::f8f6f4.m16n8k32.row.col", {
             "A": ("((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))", (16, 32), ("m", "k"), (8,)),
             "B": ("((_4,_8),(_4,_2)):((_32,_1),(_8,_128))", (8, 32), ("n", "k"), (8,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (16, 32))}),
        ("sm120_16x8x64_mxf4", "MMA_Traits<SM120::BLOCKSCALED::SM120_16x8x64_TN_VS<…>>",
         "mma.sync.aligned.kind::mxf4nvf4.block_scale.m16n8k64.row.col", {
             "A": ("((_4,_8),(_8,_2,_2)):((_128,_1),(_16,_8,_512))", (16, 64), ("m", "k"),
                   (4,)),
             "B": ("((_4,_8),(_8,_2)):((_64,_1),(_8,_256))", (8, 64), ("n", "k"), (4,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (16, 32)),
             "SFA": ("((_2,_2,_8),_64):((_8,_0,_1),_16)", (16, 64), ("m", "k"), (8,)),
             "SFB": ("((_4,_8),_64):((_0,_1),_8)", (8, 64), ("n", "k"), (8,))}),
    ]
    headers = {"sm75": _MMA75, "sm89": _MMA89, "sm120": _MMA120, "sm80": _MMA80}
    for name, traits, ptx_ins, parts in more:
        for part, (text, tile, dims, widths) in parts.items():
            out.append(Atom(f"{name}.{part}", f"{traits}::{part}Layout", text, tile, dims,
                            "elements", widths, headers[name.split("_")[0]], ptx_ins,
                            "registers"))
    quad = "(_4,_2):(_1,_16)"  # SM70_QuadPair
    m884 = "mma.sync.aligned.m8n8k4 (Volta; one MMA per quad pair)"
    row, col = "(_8,_4):(_1,_8)", "((_4,_2),_4):((_8,_4),_1)"
    for name, traits, text, tile, dims, widths in (
            ("sm70_8x8x4_tn.A", "SM70_8x8x4_F16F16F16F16_TN>::ALayout (SM70_8x4_Row)", row,
             (8, 4), ("m", "k"), (16,)),
            ("sm70_8x8x4_tn.B", "SM70_8x8x4_F16F16F16F16_TN>::BLayout (SM70_8x4_Row)", row,
             (8, 4), ("n", "k"), (16,)),
            ("sm70_8x8x4_tn.C", "SM70_8x8x4_F16F16F16F16_TN>::CLayout (SM70_8x8_16b)",
             "(_8,_8):(_1,_8)", (8, 8), ("m", "n"), (16,)),
            ("sm70_8x8x4_nt.A", "SM70_8x8x4_F16F16F16F16_NT>::ALayout (SM70_8x4_Col)", col,
             (8, 4), ("m", "k"), (16,)),
            ("sm70_8x8x4_nt.B", "SM70_8x8x4_F16F16F16F16_NT>::BLayout (SM70_8x4_Col)", col,
             (8, 4), ("n", "k"), (16,)),
            ("sm70_8x8x4_f32.C", "SM70_8x8x4_F32F16F16F32_TN>::CLayout (SM70_8x8_32b)",
             "((_2,_2,_2),(_2,_2,_2)):((_1,_16,_4),(_8,_2,_32))", (8, 8), ("m", "n"), (32,))):
        out.append(Atom(name, f"MMA_Traits<{traits}", text, tile, dims, "elements", widths,
                        _MMA70, m884, "registers", thr_id=quad))
    for n in (8, 16, 32, 64, 128, 256):
        out.append(Atom(
            f"sm90_64x{n}.C", f"SM90::GMMA::CLayout_64x{n}",
            f"((_4,_8,_4),(_2,_2,_{n // 8})):((_128,_1,_16),(_64,_8,_512))", (64, n),
            ("m", "n"), "elements", (16, 32), _GMMA,
            f"wgmma.mma_async.sync.aligned.m64n{n}k* (accumulator)", "registers"))
    for k, bits, text in ((8, 32, "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))"),
                          (16, 16, "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))"),
                          (32, 8, "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))")):
        out.append(Atom(
            f"sm90_64x{k}.A", f"SM90::GMMA::ALayout_64x{k}", text, (64, k), ("m", "k"),
            "elements", (bits,), _GMMA,
            f"wgmma.mma_async.sync.aligned.m64nNk{k} (A from registers, {bits}-bit)",
            "registers"))
    ldsm = {  # nmat: (SrcLayout = smem rows, DstLayout = registers), bits
        ("u32", 1): ("((_8,_4),_128):((_128,_0),_1)", "(_32,_32):(_32,_1)"),
        ("u32", 2): ("((_16,_2),_128):((_128,_0),_1)", "(_32,(_32,_2)):(_32,(_1,_1024))"),
        ("u32", 4): ("(_32,_128):(_128,_1)", "(_32,(_32,_4)):(_32,(_1,_1024))"),
        ("u16", 1): ("((_8,_4),_128):((_128,_0),_1)",
                     "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))"),
        ("u16", 2): ("((_16,_2),_128):((_128,_0),_1)",
                     "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))"),
        ("u16", 4): ("(_32,_128):(_128,_1)",
                     "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))"),
    }
    for (kind, nmat), (rows, regs) in ldsm.items():
        trans = kind == "u16"
        count = nmat * (2 if trans else 1)
        suffix = "t" if trans else "n"
        bits = (16,) if trans else (8, 16, 32)
        tile, dims = (128, 8 * nmat), ("column", "row")
        ptx = ".trans" if trans else ""
        ld = f"SM75_{kind.upper()}x{count}_LDSM_{suffix.upper()}"
        st = f"SM90_{kind.upper()}x{count}_STSM_{suffix.upper()}"
        ld_ins = f"ldmatrix.sync.aligned.m8n8.x{nmat}{ptx}.shared.b16"
        st_ins = f"stmatrix.sync.aligned.m8n8.x{nmat}{ptx}.shared.b16"
        out += [
            Atom(f"{ld.lower()}.src", f"Copy_Traits<{ld}>::SrcLayout", rows, tile, dims,
                 "bits", bits, _LDSM, ld_ins, "shared-memory rows"),
            Atom(f"{ld.lower()}.dst", f"Copy_Traits<{ld}>::DstLayout", regs, tile, dims,
                 "bits", bits, _LDSM, ld_ins, "registers"),
            Atom(f"{st.lower()}.src", f"Copy_Traits<{st}>::SrcLayout", regs, tile, dims,
                 "bits", bits, _STSM, st_ins, "registers"),
            Atom(f"{st.lower()}.dst", f"Copy_Traits<{st}>::DstLayout", rows, tile, dims,
                 "bits", bits, _STSM, st_ins, "shared-memory rows"),
        ]
    for nbits in (32, 64, 128):
        cp = f"(_1,_{nbits}):(_0,_1)"
        cg = " (and CACHEGLOBAL)" if nbits == 128 else ""
        cp_ins = (f"cp.async.ca{'/.cg' if nbits == 128 else ''}.shared.global [dst], [src], "
                  f"{nbits // 8}")
        for side in ("src", "dst"):
            out.append(Atom(f"sm80_cp_async_u{nbits}.{side}",
                            f"Copy_Traits<SM80_CP_ASYNC_CACHEALWAYS<uint{nbits}_t>>::"
                            f"{side.capitalize()}Layout{cg}",
                            cp, (nbits,), ("element",), "bits",
                            tuple(b for b in (8, 16, 32, 64, 128) if b <= nbits), _CPASYNC,
                            cp_ins, "registers" if side == "src" else "shared memory"))
    out += _tmem_atoms() + _memory_atoms() + _amd_atoms()
    return {a.name.lower(): a for a in out}


def _tmem_atoms() -> list[Atom]:
    """tcgen05.ld/st register sides (module docstring), in bits."""
    shapes = {  # CUTLASS name suffix: (DstLayout of the LOAD, tile = ValID's (bits, dps))
        "32dp32b1x": ("(_32,_32):(_32,_1)", (32, 32)),
        "16dp32b1x": ("((_16,_2),_32):((_64,_32),_1)", (64, 16)),
        "16dp64b1x": ("((_2,_2,_8),_32):((_512,_32,_64),_1)", (64, 16)),
        "16dp128b1x": ("((_4,_8),(_32,_2)):((_32,_128),(_1,_1024))", (128, 16)),
        "16dp256b1x": ("((_4,_8),(_64,_2)):((_64,_256),(_1,_2048))", (256, 16)),
    }
    out = []
    for suffix, (text, tile) in shapes.items():
        shape = suffix[:-2].replace("dp", "x")  # 32dp32b -> 32x32b
        out.append(Atom(f"sm100_tmem_{suffix}", f"Copy_Traits<SM100_TMEM_LOAD_{suffix}>::"
                        f"DstLayout (= SM100_TMEM_STORE_{suffix}::SrcLayout)", text, tile,
                        ("bit", "dp"), "bits", (32,), _TMEM,
                        f"tcgen05.ld/tcgen05.st .{shape}.x1 (registers; dim1 = TMEM lane "
                        "(data path) of the warp's sub-partition)", "registers"))
    return out


def _memory_atoms() -> list[Atom]:
    """GMMA/UMMA shared-memory atoms and the TMA boxes (module docstring), in bits."""
    out = []
    widths = (8, 16, 32, 64)
    wg = "wgmma.mma_async shared-memory operand (matrix descriptor)"
    for b, mode, span in ((0, "inter", 128), (1, "sw32", 256), (2, "sw64", 512),
                          (3, "sw128", 1024)):
        k = f"Sw<{b},4,3> o smem_ptr[1b](unset) o (_8,_{span}):(_{span},_1)"
        mn = f"Sw<{b},4,3> o smem_ptr[1b](unset) o (_{span},_8):(_1,_{span})"
        out += [
            Atom(f"sm90_gmma_k_{mode}", f"SM90::GMMA::Layout_K_{mode.upper()}_Atom<T>", k,
                 (8, span), ("mn", "k"), "bits", widths, _GMMA, wg, MEMORY, bit_dim=1),
            Atom(f"sm90_gmma_mn_{mode}", f"SM90::GMMA::Layout_MN_{mode.upper()}_Atom<T>", mn,
                 (span, 8), ("mn", "k"), "bits", widths, _GMMA, wg, MEMORY),
            Atom(f"sm90_tma_{'none' if b == 0 else mode}",
                 f"SM90::GMMA::Layout_K_{mode.upper()}_Atom<T> (the TMA box)", k,
                 (8, span), ("row", "column"), "bits", widths, _GMMA,
                 f"cp.async.bulk.tensor (TMA), swizzle {'none' if b == 0 else mode}, box inner "
                 f"dimension {span // 8} bytes", MEMORY, bit_dim=1),
        ]
    out.append(Atom("sm100_umma_mn_sw128_32b", "SM100::UMMA::Layout_MN_SW128_32B_Atom<T>",
                    "Sw<2,5,2> o smem_ptr[1b](unset) o (_1024,_4):(_1,_1024)", (1024, 4),
                    ("mn", "k"), "bits", (8, 16, 32), _UMMA,
                    "tcgen05.mma shared-memory operand, 128B swizzle with 32B atomicity", MEMORY))
    return out


def _amd_atoms() -> list[Atom]:
    """AMD MFMA (64 lanes) and WMMA (32 lanes) atoms from the ISA operand tables (module
    docstring), in CuTe's TV form: index ``m + M·k`` etc., column-major."""
    mfma = {  # name: (A = B text, tile of A, C text, C tile, widths, ISA)
        "amd_mfma_f32_32x32x8_f16": ("((_32,_2),_4):((_1,_128),_32)", (32, 8),
                                     "((_32,_2),(_4,_4)):((_32,_4),(_1,_8))", (32, 32),
                                     "v_mfma_f32_32x32x8_f16 (CDNA3; also bf16_1k)"),
        "amd_mfma_f32_16x16x16_f16": ("((_16,_4),_4):((_1,_64),_16)", (16, 16),
                                      "((_16,_4),_4):((_16,_4),_1)", (16, 16),
                                      "v_mfma_f32_16x16x16_f16 (CDNA3; also bf16_1k)"),
        "amd_mfma_f32_32x32x16_f16": ("((_32,_2),_8):((_1,_256),_32)", (32, 16),
                                      "((_32,_2),(_4,_4)):((_32,_4),(_1,_8))", (32, 32),
                                      "v_mfma_f32_32x32x16_f16 (CDNA4; also bf16)"),
        "amd_mfma_f32_16x16x32_f16": ("((_16,_4),_8):((_1,_128),_16)", (16, 32),
                                      "((_16,_4),_4):((_16,_4),_1)", (16, 16),
                                      "v_mfma_f32_16x16x32_f16 (CDNA4; also bf16)"),
    }
    wmma = {
        "amd_wmma_f32_16x16x16_f16_gfx11": ("((_16,_2),_16):((_1,_0),_16)",
                                            "((_16,_2),_8):((_16,_1),_2)",
                                            "v_wmma_f32_16x16x16_f16 (RDNA3, wave32)"),
        "amd_wmma_f32_16x16x16_f16_gfx12": ("((_16,_2),_8):((_1,_128),_16)",
                                            "((_16,_2),_8):((_16,_8),_1)",
                                            "v_wmma_f32_16x16x16_f16 (RDNA4, wave32)"),
    }
    out = []
    for name, (ab, tile, c, ctile, ins) in mfma.items():
        out += [Atom(f"{name}.A", f"{ins}: A (src0)", ab, tile, ("m", "k"), "elements", (16,),
                     _CDNA, ins, "registers", warp_size=64),
                Atom(f"{name}.B", f"{ins}: B (src1)", ab, tile, ("n", "k"), "elements", (16,),
                     _CDNA, ins, "registers", warp_size=64),
                Atom(f"{name}.C", f"{ins}: C/D (src2, vdst)", c, ctile, ("m", "n"), "elements",
                     (32,), _CDNA, ins, "registers", warp_size=64)]
    for name, (ab, c, ins) in wmma.items():
        out += [Atom(f"{name}.A", f"{ins}: A", ab, (16, 16), ("m", "k"), "elements", (16,),
                     _RDNA, ins, "registers"),
                Atom(f"{name}.B", f"{ins}: B", ab, (16, 16), ("n", "k"), "elements", (16,),
                     _RDNA, ins, "registers"),
                Atom(f"{name}.C", f"{ins}: C/D (f32)", c, (16, 16), ("m", "n"), "elements",
                     (32,), _RDNA, ins, "registers")]
    return out


_ATOMS = _catalogue()
#: Bare copy-atom names: CUTLASS's RefLayout (the register side).
_REF = {**{n.rsplit(".", 1)[0]: n for n in _ATOMS if "_ldsm_" in n and n.endswith(".dst")},
        **{n.rsplit(".", 1)[0]: n for n in _ATOMS if "_stsm_" in n and n.endswith(".src")},
        **{f"sm80_cp_async_u{b}": f"sm80_cp_async_u{b}.src" for b in (32, 64, 128)}}


def atom_names() -> list[str]:
    """Every atom name :func:`atom` accepts (without the bare copy-atom aliases), sorted.

    Example::

        >>> [n for n in atom_names() if n.startswith("sm80_16x8x16")]
        ['sm80_16x8x16.A', 'sm80_16x8x16.B', 'sm80_16x8x16.C']

    Source: the CUTLASS headers each atom is transcribed from (module docstring).

    Raises:
        nothing.
    """
    return sorted(a.name for a in _ATOMS.values())


def atoms() -> list[Atom]:
    """Every :class:`Atom`, sorted by name.

    Source: the CUTLASS headers each atom is transcribed from (module docstring).

    Raises:
        nothing.
    """
    return [_ATOMS[n.lower()] for n in atom_names()]


def atom_info(name: Any) -> Atom:
    """The :class:`Atom` called ``name`` (case-insensitive; a bare copy-atom name is its
    register side).

    Raises:
        LayoutError: an unknown name (the message lists close matches and how to list all).

    Source: the CUTLASS headers each atom is transcribed from (module docstring).
    """
    if not isinstance(name, str):
        raise LayoutError(f"an atom name is a string, got {type(name).__name__}")
    key = name.strip().lower()
    key = _REF.get(key, key)
    if key in _ATOMS:
        return _ATOMS[key]
    stem = key.split(".")[0]
    close = [a.name for k, a in _ATOMS.items() if k.startswith(stem[:6])][:6]
    hint = f"; close: {', '.join(close)}" if close else ""
    raise LayoutError(f"unknown CuTe atom {shown(name)}{hint} (linlayout.cute.atom_names() lists "
                      "them all)")


def is_atom_name(name: Any) -> bool:
    """True when :func:`atom_info` knows ``name``.

    Raises:
        nothing: anything that is not a known name gives False.
    """
    if not isinstance(name, str):
        return False
    key = name.strip().lower()
    return _REF.get(key, key) in _ATOMS


def atom(name: str, element_bits: int | None = None) -> LinearLayout:
    """A CUTLASS atom's thread-value layout as a linlayout distributed layout.

    Args:
        name: an atom name (module docstring), e.g. ``"sm80_16x8x16.A"``,
            ``"sm75_u32x4_ldsm_n"``.
        element_bits: the element width; required for copy atoms (CUTLASS defines them in
            bits and ``Copy_Atom<Op, T>`` upcasts by ``sizeof_bits<T>``); optional for MMA
            atoms (checked against the widths the instruction takes when given).

    Returns:
        ``register, lane, warp -> dim0, dim1, …`` over the atom's tile (:attr:`Atom.tile`,
        dims as :attr:`Atom.tile_dims`); for a shared-memory atom (``sm90_gmma_*``,
        ``sm90_tma_*``, ``sm100_umma_*``) the memory layout ``offset -> dim0, dim1``.

    Raises:
        LayoutError: an unknown name, or a missing or unsupported ``element_bits``.

    Example::

        >>> atom("sm80_16x8x16.C").bases["register"]
        [[0, 1], [8, 0]]
        >>> atom("sm75_u32x4_ldsm_n", element_bits=16).bases["lane"]
        [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]
    """
    return atom_info(name).linear_layout(element_bits)
