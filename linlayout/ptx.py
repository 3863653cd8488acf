"""The hardware's fixed shared-memory swizzles (TMA, tcgen05/wgmma, CuTe) as F₂ layouts.

**The algebra.** Every PTX/TMA swizzle mode XORs a few bits of the *absolute* shared-memory
byte address into lower bits. 128B (PTX ISA §5.5.7, "Swizzling Modes") permutes the eight
16-byte chunks of each 128-byte line by the line index mod 8::

    swizzled(a) = a ⊕ 16·(⌊a/128⌋ & 7)        # address bits 7,8,9 flip bits 4,5,6

Each output bit is the XOR of input bits, so the map is a :class:`LinearLayout` on byte
offsets. 2-bit worked example (the 32B swizzle seen on address bits 4 and 7 only, written as
``x = chunk + 2·line``)::

    L(x) = x ⊕ line              columns: bit 0 (chunk) -> 0b01, bit 1 (line) -> 0b11
    line 0: chunks 0, 1 stay     line 1: chunk 0 <-> chunk 1    (PTX's 32B table: "1 0 3 2 …")

The modes, as ``(target bit, source bit)`` pairs on byte addresses. Each is checked against
every 16-byte-cell table of PTX ISA §5.5.7 "Swizzling Modes" and CUDA C++ Programming Guide
§10.29.3.2 "The Swizzle Modes" (``tests/test_ptx.py``, ``papers/ptx_swizzles``):

=========================  =========================  ====================  ==============
mode                       XOR pairs                   repeats after         CuTe
=========================  =========================  ====================  ==============
``none``                   —                           (128 B line)          ``Sw<0,4,3>``
``32B``                    4←7                         256 B                 ``Sw<1,4,3>``
``64B``                    4←7, 5←8                    512 B                 ``Sw<2,4,3>``
``96B``                    4←7 (rows are 96 B!)        256 B                 address map only
``128B``                   4←7, 5←8, 6←9               1024 B                ``Sw<3,4,3>``
``128B_atom_32B``          5←7, 6←8                    512 B                 ``Sw<2,5,2>``
``128B_atom_32B_flip_8B``  5←7, 6←8, 3←7               512 B                 none (two)
``128B_atom_64B``          6←7                         256 B                 ``Sw<1,6,1>``
=========================  =========================  ====================  ==============

**Where the algebra stops.**

* *Base offsets* (:func:`buffer_layout`). Relative to a buffer at byte ``base`` the map is
  ``o ↦ swizzled(base + o) − base``. For a 128-byte-aligned base (what TMA requires) with
  ``k = base/128`` and ``n`` source bits it is ``o ↦ o ⊕ T(((o >> 7) + k) mod 2ⁿ)``: linear iff
  ``k ≡ 0 (mod 2ⁿ)``, i.e. the base is aligned to the repeat period; affine iff adding ``k``
  mod ``2ⁿ`` is affine, which holds iff ``n − tz(k) ≤ 2`` (with ``t = tz(k)``, the carry into
  row bit ``t + 2`` is ``y_t ∧ y_{t+1}`` or ``y_t ∨ y_{t+1}``, not an XOR of bits). So
  32B/96B/64B/atom modes are affine at every 128-aligned base, and 128B (n = 3) exactly when
  the base is 256-byte aligned. Other bases are decided by exhaustive check (e.g. 32B at base
  64 is linear; most others leave the buffer).
* *96B* (:func:`swizzle96_cell`): the address map equals 32B's, but a 96B box packs rows of 96
  bytes, and ``row ↦ 96·row`` is not F₂-linear (``96 ⊕ 192 = 160 ≠ 288``); it is modelled on
  (row, 16-byte cell) coordinates by an explicit evaluator, and asking for a linear
  (row, column) layout raises :class:`LayoutError`.
* *CuTe*: ``128B_atom_32B_flip_8B`` is the composition ``Sw<1,3,4> ∘ Sw<2,5,2>`` (its written
  bits 3, 5, 6 are not contiguous), so no single ``Swizzle<B,M,S>`` expresses it. The 96B mode
  has no CuTe form as a tile (its 96-byte rows are not a power-of-two layout), although its
  address map is ``Sw<1,4,3>``. ``128B_atom_64B``, although a sub-mode of 128B, *is* a single
  CuTe swizzle, ``Sw<1,6,1>``: PTX §5.5.7's 64-byte-atomicity table ("0 1 2 3 | 4 5 6 7" /
  "4 5 6 7 | 0 1 2 3", then repeat) swaps the two 64-byte halves of odd lines only, so the one
  address bit 7 flips bit 6.

**Numberings.** The driver's ``CUtensorMapSwizzle``, PTX ``tensormap.replace``'s
``.swizzle_mode``/``.swizzle_atomicity`` fields, and the tcgen05 and wgmma shared-memory
descriptors' layout-type fields all number the modes differently; :class:`SwizzleMode` keeps
each numbering separate and an int is never accepted as a mode name.

Units: names say ``_bytes`` or ``_elems``/``element_bits``; the ``offset`` dims of
:func:`swizzle_layout` and :func:`buffer_layout` are bytes, those of :func:`tma_tile_layout`
and :func:`tcgen05_atom` are elements (``element_bits`` bits each).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import permutations
from typing import Any

from . import f2
from ._checks import as_int, log2_exact
from .cute import (
    apply_xor_pairs,
    cute_from_xor_pairs,
    format_cute_swizzle,
    xor_pairs_layout,
)
from .errors import LayoutError
from .kinds import memory_columns
from .layout import LinearLayout

__all__ = [
    "AffineLayout",
    "SwizzleMode",
    "TCGEN05_ATOM_SHAPES",
    "TmaMatch",
    "address_formula",
    "base_offset",
    "buffer_layout",
    "buffer_offset",
    "chunk_table",
    "cute_name",
    "format_chunk_table",
    "match_tma_mode",
    "swizzle96_address",
    "swizzle96_cell",
    "swizzle_layout",
    "swizzle_mode",
    "swizzled_address",
    "tcgen05_atom",
    "tma_matches",
    "tma_tile_layout",
]

#: Bytes per shared-memory line: the swizzles permute chunks inside 128-byte lines.
LINE_BYTES = 128
#: Default extent of :func:`swizzle_layout` and :func:`buffer_layout`: eight 128-byte lines,
#: the longest repeat period (128B) and the 8-line tables of PTX ISA §5.5.7.
DEFAULT_SIZE_BYTES = 1024
#: TMA's largest box extent per dimension, in elements (cuTensorMapEncodeTiled: boxDim <= 256).
MAX_BOX_ELEMS = 256


@dataclass(frozen=True)
class _Spec:
    pairs: tuple[tuple[int, int], ...]  # (target bit, source bit) on byte addresses
    span_bytes: int | None  # swizzle width (CUDA guide Table 12 "Swizzle width")
    atomicity_bytes: int | None  # PTX Table 14 swizzle-atomicity
    cu: int | None  # CUtensorMapSwizzle
    cu_name: str | None
    ptx_mode: int  # tensormap.replace .swizzle_mode
    ptx_atomicity: int | None  # tensormap.replace .swizzle_atomicity
    tcgen05: int | None  # tcgen05 shared-memory descriptor, bits 61-63
    wgmma: int | None  # wgmma matrix descriptor, bits 62-63
    base_modulus: int  # base offset = (address / 128) % base_modulus (PTX §5.5.7)
    summary: str


class SwizzleMode(enum.Enum):
    """The shared-memory swizzle modes, by name, with every hardware numbering kept apart.

    Values are the names used throughout linlayout: ``"none"``, ``"32B"``, ``"64B"``,
    ``"96B"``, ``"128B"``, ``"128B_atom_32B"``, ``"128B_atom_32B_flip_8B"``,
    ``"128B_atom_64B"``. Use :func:`swizzle_mode` to accept a name, an enum member or a driver
    name (``"CU_TENSOR_MAP_SWIZZLE_128B"``); use the ``from_*`` class methods to decode a
    number, always saying which numbering it is in.

    Numberings (each property returns None where the encoding has no such mode):

    ======================= ===== ============ ================ ======== ======
    mode                     CU    PTX mode     PTX atomicity    tcgen05  wgmma
    ======================= ===== ============ ================ ======== ======
    none                     0     0            — (Table 14)     0        0
    32B                      1     1            0 (16B)          6        3
    64B                      2     2            0 (16B)          4        2
    96B                      —     4            0 (16B)          —        —
    128B                     3     3            0 (16B)          2        1
    128B_atom_32B            4     3            1 (32B)          1        —
    128B_atom_32B_flip_8B    5     3            2 (32B+8B flip)  —        —
    128B_atom_64B            6     3            3 (64B)          —        —
    ======================= ===== ============ ================ ======== ======

    Sources:

    * CU: CUDA driver API enum ``CUtensorMapSwizzle`` (``cuda.h``, ``CUtensorMapSwizzle_enum``:
      ``CU_TENSOR_MAP_SWIZZLE_NONE = 0``, then ``_32B``, ``_64B``, ``_128B``,
      ``_128B_ATOM_32B``, ``_128B_ATOM_32B_FLIP_8B``, ``_128B_ATOM_64B`` numbered on to 6, the
      last three since CUDA 12.8; the same values in ``cuda.bindings.driver``), the ``swizzle``
      argument of ``cuTensorMapEncodeTiled``. There is no driver value for 96B.
    * PTX mode / atomicity: PTX ISA, ``tensormap.replace`` (#data-movement-and-conversion-
      instructions-tensormap-replace), fields ``.swizzle_mode`` (0 none, 1 32B, 2 64B, 3 128B,
      4 96B) and ``.swizzle_atomicity`` (0 16B, 1 32B, 2 32B + 8B flip, 3 64B); the same
      encodings are LLVM's ``nvvm::TensormapSwizzleMode``/``TensormapSwizzleAtomicity``
      (``llvm/include/llvm/IR/NVVMIntrinsicUtils.h``), which gates 96B to sm_103a. Valid
      mode/atomicity pairs: PTX §5.5.7 Table 14.
    * tcgen05: PTX ISA, tcgen05 shared memory descriptor (#tcgen05-shared-memory-desc-layout),
      bits 61–63: 0 none, 1 128B with 32B atomicity, 2 128B, 4 64B, 6 32B; CUTLASS
      ``UMMA::LayoutType`` (``include/cute/arch/mma_sm100_desc.hpp``: ``SWIZZLE_NONE = 0,
      SWIZZLE_128B_BASE32B = 1, SWIZZLE_128B = 2, SWIZZLE_64B = 4, SWIZZLE_32B = 6``).
    * wgmma: PTX ISA, wgmma matrix descriptor (#asynchronous-warpgroup-level-matrix-shared-
      memory-layout-matrix-descriptor), bits 62–63: 0 none (interleave), 1 128B, 2 64B, 3 32B;
      CUTLASS ``GMMA::LayoutType`` (``include/cute/arch/mma_sm90_desc.hpp``:
      ``INTERLEAVE = 0, B128 = 1, B64 = 2, B32 = 3``).

    Example::

        >>> m = SwizzleMode.from_cu_tensor_map_swizzle(3)
        >>> m.value, m.tcgen05_layout_type, m.wgmma_layout_type, m.ptx_swizzle_mode
        ('128B', 2, 1, 3)
    """

    NONE = "none"
    SWIZZLE_32B = "32B"
    SWIZZLE_64B = "64B"
    SWIZZLE_96B = "96B"
    SWIZZLE_128B = "128B"
    SWIZZLE_128B_ATOM_32B = "128B_atom_32B"
    SWIZZLE_128B_ATOM_32B_FLIP_8B = "128B_atom_32B_flip_8B"
    SWIZZLE_128B_ATOM_64B = "128B_atom_64B"

    # ------------------------------------------------------------------ numberings
    @property
    def _spec(self) -> _Spec:
        return _SPECS[self]

    @property
    def cu_tensor_map_swizzle(self) -> int | None:
        """The driver's ``CUtensorMapSwizzle`` value (0–6), or None (96B has none)."""
        return self._spec.cu

    @property
    def cu_tensor_map_swizzle_name(self) -> str | None:
        """``"CU_TENSOR_MAP_SWIZZLE_128B"`` etc., or None (96B)."""
        return self._spec.cu_name

    @property
    def ptx_swizzle_mode(self) -> int:
        """PTX ``tensormap.replace`` ``.swizzle_mode`` value.

        0 none, 1 32B, 2 64B, 3 128B (all four 128B sub-modes), 4 96B.
        """
        return self._spec.ptx_mode

    @property
    def ptx_swizzle_atomicity(self) -> int | None:
        """PTX ``tensormap.replace`` ``.swizzle_atomicity`` value (0 16B, 1 32B, 2 32B + 8B flip,
        3 64B); None for ``none`` (Table 14 lists no atomicity for no swizzling)."""
        return self._spec.ptx_atomicity

    @property
    def tcgen05_layout_type(self) -> int | None:
        """tcgen05 shared-memory descriptor swizzling mode (bits 61–63), or None."""
        return self._spec.tcgen05

    @property
    def wgmma_layout_type(self) -> int | None:
        """wgmma matrix-descriptor swizzle mode (bits 62–63), or None."""
        return self._spec.wgmma

    # ------------------------------------------------------------------ geometry
    @property
    def xor_pairs(self) -> tuple[tuple[int, int], ...]:
        """``(target bit, source bit)`` pairs on byte addresses: bit ``target ^= bit source``."""
        return self._spec.pairs

    @property
    def span_bytes(self) -> int | None:
        """Swizzle width in bytes (32, 64, 96, 128; None for ``none``): CUDA guide Table 12, and
        the largest TMA box inner dimension the mode allows."""
        return self._spec.span_bytes

    @property
    def atomicity_bytes(self) -> int | None:
        """Bytes kept intact while swizzling (16, 32 or 64; None for ``none``): PTX Table 14.
        The 8-byte flip moves 8-byte halves, see :attr:`granularity_bytes`."""
        return self._spec.atomicity_bytes

    @property
    def granularity_bytes(self) -> int | None:
        """The smallest unit that moves intact: ``2^(lowest written bit)`` (16 for the 16-byte
        modes, 8 for the 8-byte flip, 32/64 for the atom modes, None for ``none``)."""
        if not self._spec.pairs:
            return None
        return 1 << min(t for t, _ in self._spec.pairs)

    @property
    def repeat_bytes(self) -> int:
        """Bytes after which the pattern repeats: ``2^(highest source bit + 1)``; 128 (one
        line) for ``none``. Equals PTX §5.5.7's "starting address of the repeating pattern"
        (1024/256/512/256 for 128B/96B/64B/32B) and CUDA guide Table 12's "repeats after"."""
        if not self._spec.pairs:
            return LINE_BYTES
        return 1 << (max(s for _, s in self._spec.pairs) + 1)

    @property
    def base_modulus(self) -> int:
        """``m`` in PTX §5.5.7's ``base offset = (dstMem / 128) % m`` (8 for the 128B family,
        4 for 64B, 2 for 32B and 96B, 1 for ``none``)."""
        return self._spec.base_modulus

    @property
    def cute(self) -> tuple[int, int, int] | None:
        """CuTe ``Swizzle<B,M,S>`` of the byte-address map, or None when no single one exists
        (the 8-byte flip). For 96B this describes the address map only (see module notes).
        Derived from :attr:`xor_pairs` (:func:`linlayout.cute.cute_from_xor_pairs`)."""
        return cute_from_xor_pairs(self._spec.pairs)

    @property
    def summary(self) -> str:
        """One line in words."""
        return self._spec.summary

    # ------------------------------------------------------------------ decoding numbers
    @classmethod
    def from_cu_tensor_map_swizzle(cls, value: int) -> SwizzleMode:
        """Decode a driver ``CUtensorMapSwizzle`` value (0–6).

        Raises:
            LayoutError: not one of 0–6.
        """
        return _decode(value, "cu_tensor_map_swizzle", "CUtensorMapSwizzle")

    @classmethod
    def from_ptx(cls, swizzle_mode: int, swizzle_atomicity: int | None = 0) -> SwizzleMode:
        """Decode PTX ``tensormap.replace`` ``.swizzle_mode`` and ``.swizzle_atomicity``.

        Args:
            swizzle_mode: 0 none, 1 32B, 2 64B, 3 128B, 4 96B.
            swizzle_atomicity: 0 16B (default), 1 32B, 2 32B + 8B flip, 3 64B. Ignored for
                ``swizzle_mode = 0`` (Table 14 lists none).

        Raises:
            LayoutError: unknown values, or a combination Table 14 does not allow (only 128B
                takes atomicities other than 16B).
        """
        mode_v = as_int(swizzle_mode, "swizzle_mode")
        if mode_v == 0:
            return cls.NONE
        atom_v = 0 if swizzle_atomicity is None else as_int(swizzle_atomicity, "swizzle_atomicity")
        for m in cls:
            if _SPECS[m].ptx_mode == mode_v and _SPECS[m].ptx_atomicity == atom_v:
                return m
        if mode_v not in (1, 2, 3, 4):
            raise LayoutError(
                f".swizzle_mode must be 0 (none), 1 (32B), 2 (64B), 3 (128B) or 4 (96B); "
                f"got {mode_v}"
            )
        if atom_v not in (0, 1, 2, 3):
            raise LayoutError(
                f".swizzle_atomicity must be 0 (16B), 1 (32B), 2 (32B + 8B flip) or 3 (64B); "
                f"got {atom_v}"
            )
        raise LayoutError(
            f".swizzle_mode {mode_v} only takes .swizzle_atomicity 0 (16B) (PTX §5.5.7 Table "
            f"14: only 128B swizzling has 32B, 32B + 8B flip and 64B atomicity); got {atom_v}"
        )

    @classmethod
    def from_tcgen05_layout_type(cls, value: int) -> SwizzleMode:
        """Decode a tcgen05 shared-memory descriptor swizzle field (0, 1, 2, 4, 6).

        Raises:
            LayoutError: any other value (3, 5, 7 are unused).
        """
        return _decode(value, "tcgen05_layout_type", "tcgen05 descriptor layout type")

    @classmethod
    def from_wgmma_layout_type(cls, value: int) -> SwizzleMode:
        """Decode a wgmma matrix-descriptor swizzle field (0–3).

        Raises:
            LayoutError: any other value.
        """
        return _decode(value, "wgmma_layout_type", "wgmma descriptor layout type")

    def __str__(self) -> str:
        return self.value


_P16 = ((4, 7), (5, 8), (6, 9))  # 16-byte chunks: line bits 7, 8, 9 flip chunk bits 4, 5, 6
_SPECS: dict[SwizzleMode, _Spec] = {
    SwizzleMode.NONE: _Spec(
        pairs=(), span_bytes=None, atomicity_bytes=None,
        cu=0, cu_name="CU_TENSOR_MAP_SWIZZLE_NONE", ptx_mode=0, ptx_atomicity=None,
        tcgen05=0, wgmma=0, base_modulus=1,
        summary="no swizzle: every byte stays where it is"),
    SwizzleMode.SWIZZLE_32B: _Spec(
        pairs=_P16[:1], span_bytes=32, atomicity_bytes=16,
        cu=1, cu_name="CU_TENSOR_MAP_SWIZZLE_32B", ptx_mode=1, ptx_atomicity=0,
        tcgen05=6, wgmma=3, base_modulus=2,
        summary="16-byte chunks swapped in pairs on odd 128-byte lines"),
    SwizzleMode.SWIZZLE_64B: _Spec(
        pairs=_P16[:2], span_bytes=64, atomicity_bytes=16,
        cu=2, cu_name="CU_TENSOR_MAP_SWIZZLE_64B", ptx_mode=2, ptx_atomicity=0,
        tcgen05=4, wgmma=2, base_modulus=4,
        summary="16-byte chunks XOR-permuted within 64 bytes by line mod 4"),
    SwizzleMode.SWIZZLE_96B: _Spec(
        pairs=_P16[:1], span_bytes=96, atomicity_bytes=16,
        cu=None, cu_name=None, ptx_mode=4, ptx_atomicity=0,
        tcgen05=None, wgmma=None, base_modulus=2,
        summary="32B's address map applied to boxes with 96-byte rows"),
    SwizzleMode.SWIZZLE_128B: _Spec(
        pairs=_P16, span_bytes=128, atomicity_bytes=16,
        cu=3, cu_name="CU_TENSOR_MAP_SWIZZLE_128B", ptx_mode=3, ptx_atomicity=0,
        tcgen05=2, wgmma=1, base_modulus=8,
        summary="16-byte chunks XOR-permuted within 128 bytes by line mod 8"),
    SwizzleMode.SWIZZLE_128B_ATOM_32B: _Spec(
        pairs=((5, 7), (6, 8)), span_bytes=128, atomicity_bytes=32,
        cu=4, cu_name="CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B", ptx_mode=3, ptx_atomicity=1,
        tcgen05=1, wgmma=None, base_modulus=8,
        summary="32-byte units XOR-permuted within 128 bytes by line mod 4"),
    SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B: _Spec(
        pairs=((5, 7), (6, 8), (3, 7)), span_bytes=128, atomicity_bytes=32,
        cu=5, cu_name="CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B_FLIP_8B", ptx_mode=3, ptx_atomicity=2,
        tcgen05=None, wgmma=None, base_modulus=8,
        summary="128B_atom_32B plus a swap of the 8-byte halves of every 16 bytes on odd lines"),
    SwizzleMode.SWIZZLE_128B_ATOM_64B: _Spec(
        pairs=((6, 7),), span_bytes=128, atomicity_bytes=64,
        cu=6, cu_name="CU_TENSOR_MAP_SWIZZLE_128B_ATOM_64B", ptx_mode=3, ptx_atomicity=3,
        tcgen05=None, wgmma=None, base_modulus=8,
        summary="the two 64-byte halves of odd 128-byte lines swapped"),
}


def _decode(value: Any, attr: str, what: str) -> SwizzleMode:
    v = as_int(value, what)
    for m in SwizzleMode:
        if getattr(m, attr) == v:
            return m
    valid = ", ".join(f"{getattr(m, attr)} ({m.value})" for m in SwizzleMode
                      if getattr(m, attr) is not None)
    raise LayoutError(f"{what} {v} is not a swizzle mode; valid values: {valid}")


def swizzle_mode(mode: Any) -> SwizzleMode:
    """Coerce a mode given by name (or enum member) to :class:`SwizzleMode`.

    Args:
        mode: a :class:`SwizzleMode`; one of the names ``"none"``, ``"32B"``, ``"64B"``,
            ``"96B"``, ``"128B"``, ``"128B_atom_32B"``, ``"128B_atom_32B_flip_8B"``,
            ``"128B_atom_64B"`` (case-insensitive); an enum member name (``"SWIZZLE_128B"``);
            or a driver name (``"CU_TENSOR_MAP_SWIZZLE_128B"``).

    Raises:
        LayoutError: unknown name, or an int (the numberings disagree: use
            ``SwizzleMode.from_cu_tensor_map_swizzle`` / ``from_ptx`` /
            ``from_tcgen05_layout_type`` / ``from_wgmma_layout_type``).

    Example::

        >>> swizzle_mode("CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B").value
        '128B_atom_32B'
    """
    if isinstance(mode, SwizzleMode):
        return mode
    is_int = False
    if not isinstance(mode, (str, bool)):
        try:
            operator.index(mode)
            is_int = True
        except TypeError:
            pass
    if is_int:
        raise LayoutError(
            f"a bare int ({mode}) is ambiguous: CUtensorMapSwizzle, PTX tensormap.replace and "
            "the tcgen05/wgmma descriptors number the modes differently; use a name such as "
            "'128B' or SwizzleMode.from_cu_tensor_map_swizzle / from_ptx / "
            "from_tcgen05_layout_type / from_wgmma_layout_type"
        )
    if isinstance(mode, str):
        key = mode.strip().lower()
        for m in SwizzleMode:
            names = {m.value.lower(), m.name.lower()}
            if m.cu_tensor_map_swizzle_name:
                names.add(m.cu_tensor_map_swizzle_name.lower())
            if key in names:
                return m
    raise LayoutError(
        f"unknown swizzle mode {mode!r}; use one of "
        f"{[m.value for m in SwizzleMode]} (or CU_TENSOR_MAP_SWIZZLE_* names)"
    )


def _element_bits(element_bits: Any) -> int:
    eb = as_int(element_bits, "element_bits")
    if eb < 1 or eb > 128 or eb & (eb - 1):
        raise LayoutError(
            f"element_bits must be a power of two from 1 to 128 (e.g. 16 for fp16), got {eb}"
        )
    return eb


# ---------------------------------------------------------------------------- address maps
def swizzled_address(mode: Any, address: int) -> int:
    """Where the hardware puts the byte whose unswizzled shared-memory address is ``address``.

    Args:
        mode: a swizzle mode (see :func:`swizzle_mode`).
        address: absolute shared-memory **byte** address (non-negative int). The pattern is
            anchored at absolute addresses (multiples of :attr:`SwizzleMode.repeat_bytes`); a
            buffer at a non-aligned base sees a shifted pattern, see :func:`buffer_layout`.

    Returns:
        The swizzled byte address. Every mode is an involution (applying it twice gives the
        address back), so this also answers "which byte is stored at ``address``".

    Raises:
        LayoutError: unknown mode or a negative address.

    Source: PTX ISA §5.5.7 "Swizzling Modes" (tables for none/32B/64B/96B/128B and the 32B
    and 64B atomicity sub-modes; the 8-byte flip "at every alternate shared memory line");
    CUDA C++ Programming Guide §10.29.3.2 "The Swizzle Modes" (Table 11).

    Example::

        >>> swizzled_address("128B", 128 + 16)   # line 1, chunk 1 -> chunk 0
        128
    """
    spec = swizzle_mode(mode)
    a = as_int(address, "address")
    if a < 0:
        raise LayoutError(f"address must be a non-negative byte address, got {a}")
    return apply_xor_pairs(spec.xor_pairs, a)


def swizzle_layout(mode: Any, size_bytes: int = DEFAULT_SIZE_BYTES) -> LinearLayout:
    """The mode's address map on byte offsets ``[0, size_bytes)`` as a LinearLayout.

    Args:
        mode: a swizzle mode (see :func:`swizzle_mode`). ``"96B"`` gives its address map,
            which equals 32B's (the 96-byte rows are what is not linear; see
            :func:`swizzle96_cell`).
        size_bytes: a power of two; default 1024, which covers every mode's repeat period.
            Smaller sizes give the restriction (still a bijection).

    Returns:
        In dim ``offset`` (bytes) -> out dim ``offset`` (bytes), each of size ``size_bytes``;
        ``layout.apply({"offset": a}) == {"offset": swizzled_address(mode, a)}``.

    Raises:
        LayoutError: unknown mode or a size that is not a power of two.

    Source: as :func:`swizzled_address`.

    Example::

        >>> swizzle_layout("32B", 256).columns
        (1, 2, 4, 8, 16, 32, 64, 144)
    """
    m = swizzle_mode(mode)
    # Written bits (<= 6) lie below source bits (>= 7), so the restriction to [0, size) is exact.
    n = log2_exact(size_bytes, "size_bytes")
    return xor_pairs_layout(m.xor_pairs, 1 << n)


def address_formula(mode: Any) -> str:
    """The address map as a one-line formula on the byte address ``a``.

    Returns:
        e.g. ``"swizzled(a) = a ⊕ 16·(⌊a/128⌋ & 7)"`` for 128B (``⊕`` is XOR, ``·``
        multiplies, ``⌊a/128⌋`` is integer division); ``"swizzled(a) = a"`` for none.

    Raises:
        LayoutError: unknown mode.

    Example::

        >>> address_formula("128B_atom_32B_flip_8B")
        'swizzled(a) = a ⊕ 32·(⌊a/128⌋ & 3) ⊕ 8·(⌊a/128⌋ & 1)'
    """
    m = swizzle_mode(mode)
    runs: list[list[tuple[int, int]]] = []
    for t, s in sorted(m.xor_pairs, key=lambda p: (p[1] - p[0], p[1])):
        if runs and runs[-1][-1][1] + 1 == s and runs[-1][-1][0] + 1 == t:
            runs[-1].append((t, s))
        else:
            runs.append([(t, s)])
    runs.sort(key=lambda r: -r[0][0])
    terms = []
    for run in runs:
        t0, s0 = run[0]
        terms.append(f"{1 << t0}·(⌊a/{1 << s0}⌋ & {(1 << len(run)) - 1})")
    return "swizzled(a) = " + " ⊕ ".join(["a"] + terms)


def chunk_table(mode: Any, lines: int = 8, cell_bytes: int = 16) -> list[list[int]]:
    """PTX ISA §5.5.7's tables: for each 128-byte line, the cell stored at each position.

    Args:
        mode: a swizzle mode.
        lines: how many 128-byte lines (from address 0, aligned to the repeat period).
        cell_bytes: cell size in bytes (a power of two dividing 128). Must not be larger than
            what the mode keeps intact (16 for the 16-byte modes, 8 for the 8-byte flip, 32/64
            for the atom modes), or cells would be split.

    Returns:
        ``table[line][pos]`` = index (within the line) of the cell whose data the hardware
        stores at position ``pos`` of ``line``. Because every mode is an involution this is
        also where cell ``pos`` goes. E.g. 128B: line 1 is ``[1, 0, 3, 2, 5, 4, 7, 6]``.

    Raises:
        LayoutError: unknown mode, bad ``lines``, or a ``cell_bytes`` the mode would split.

    Source: PTX ISA §5.5.7 "Swizzling Modes" tables (16-byte cells, numbered per line).

    Example::

        >>> chunk_table("64B", lines=4)[3]
        [3, 2, 1, 0, 7, 6, 5, 4]
    """
    m = swizzle_mode(mode)
    nl = as_int(lines, "lines")
    if nl < 1:
        raise LayoutError(f"lines must be at least 1, got {nl}")
    cb = as_int(cell_bytes, "cell_bytes")
    if cb < 1 or cb > LINE_BYTES or cb & (cb - 1):
        raise LayoutError(f"cell_bytes must be a power of two from 1 to 128, got {cb}")
    g = m.granularity_bytes
    if g is not None and cb > g:
        raise LayoutError(
            f"the {m.value} swizzle moves {g}-byte units, so {cb}-byte cells would not stay "
            f"intact; "
            f"use cell_bytes <= {g}"
        )
    table = []
    for line in range(nl):
        row = []
        for pos in range(LINE_BYTES // cb):
            src = apply_xor_pairs(m.xor_pairs, line * LINE_BYTES + pos * cb)  # involution: inverse = itself
            row.append((src % LINE_BYTES) // cb)
        table.append(row)
    return table


def format_chunk_table(mode: Any, lines: int = 8, cell_bytes: int | None = None) -> str:
    """:func:`chunk_table` as text, cells grouped by the mode's atomicity (as PTX ISA §5.5.7
    prints its 32- and 64-byte-atomicity tables, e.g. ``| 2 3 | 0 1 | 6 7 | 4 5 |``).

    Args:
        cell_bytes: default 16, or 8 for ``128B_atom_32B_flip_8B`` (so the flip shows).

    Returns:
        One line per 128-byte line, e.g. ``"line 1: 2 3 | 0 1 | 6 7 | 4 5"`` for
        ``128B_atom_32B``.

    Raises:
        LayoutError: as :func:`chunk_table`.
    """
    m = swizzle_mode(mode)
    if cell_bytes is None:
        cell_bytes = 8 if m is SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B else 16
    table = chunk_table(m, lines, cell_bytes)
    group = max(1, (m.atomicity_bytes or 16) // cell_bytes)
    width = len(str(LINE_BYTES // cell_bytes - 1))
    out = []
    for i, row in enumerate(table):
        cells = [str(c).rjust(width) for c in row]
        groups = [" ".join(cells[j:j + group]) for j in range(0, len(cells), group)]
        out.append(f"line {i}: " + (" | " if group > 1 else " ").join(groups))
    return "\n".join(out)


# ---------------------------------------------------------------------------- base offsets
def base_offset(mode: Any, address: int) -> int:
    """The swizzle base offset of a buffer starting at ``address`` (PTX §5.5.7 formulas).

    Args:
        mode: a swizzle mode. The 128B sub-modes use the 128-byte formula.
        address: the buffer's absolute shared-memory byte address (``dstMem``).

    Returns:
        ``(address / 128) % 8`` for the 128B modes, ``% 4`` for 64B, ``% 2`` for 32B and 96B,
        0 for none. It is 0 exactly when the address is on the boundary where the pattern
        starts (for 128-byte-aligned addresses): 1024/512/256/256 bytes for 128B/64B/32B/96B.
        The CUDA guide (Table 11) adds it to the row index: ``smem[y][((y+offset)%8)^x]``.

    Raises:
        LayoutError: unknown mode or a negative address.

    Source: PTX ISA §5.5.7 (base offset table); CUDA C++ Programming Guide §10.29.3.2,
    Table 11 "Swizzle Pattern Pointer Offset Formula and Index Relation".

    Example::

        >>> base_offset("128B", 0x2280)
        5
    """
    m = swizzle_mode(mode)
    a = as_int(address, "address")
    if a < 0:
        raise LayoutError(f"address must be a non-negative byte address, got {a}")
    return (a // LINE_BYTES) % m.base_modulus


def buffer_offset(mode: Any, base: int, offset: int) -> int:
    """Buffer-relative swizzled offset: ``swizzled_address(mode, base + offset) - base``.

    The exact (possibly non-affine) map that :func:`buffer_layout` expresses when it can. It
    may be negative or past the buffer when ``base`` is not 128-byte aligned.

    Raises:
        LayoutError: unknown mode, negative ``base`` or ``offset``.

    Example::

        >>> buffer_offset("128B", 256, 0)      # base offset 2: row 0 uses phase 2
        32
    """
    m = swizzle_mode(mode)
    b, o = as_int(base, "base"), as_int(offset, "offset")
    if b < 0 or o < 0:
        raise LayoutError(f"base and offset must be non-negative, got base={b}, offset={o}")
    return apply_xor_pairs(m.xor_pairs, b + o) - b


@dataclass(frozen=True)
class AffineLayout:
    """An F₂-affine map ``x ↦ linear(x) ⊕ constant``.

    Attributes:
        linear: the linear part, a :class:`LinearLayout`.
        constant: the image of 0: one int per out dim of ``linear``, in out-dim order (the
            same shape as one basis image).

    ``apply`` and ``apply_flat`` evaluate the map; :attr:`is_linear` is ``constant`` all
    zero. :func:`buffer_layout` returns one: a swizzle seen from a buffer whose base is not
    aligned to the repeat period is, at best, affine.

    Raises (constructor):
        LayoutError: ``linear`` is not a LinearLayout, or ``constant`` has the wrong length or a
            value outside its out dim.

    Example::

        >>> a = buffer_layout("32B", 128, 256)
        >>> a.constant, a.apply({"offset": 0}), a.is_linear
        ((16,), {'offset': 16}, False)
    """

    linear: LinearLayout
    constant: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.linear, LinearLayout):
            raise LayoutError(f"linear must be a LinearLayout, got {type(self.linear).__name__}")
        if isinstance(self.constant, (str, bytes)) or not isinstance(self.constant, Iterable):
            raise LayoutError(f"constant must be a tuple of ints, got {self.constant!r}")
        const = tuple(as_int(c, "constant entry") for c in self.constant)
        outs = self.linear.out_dims
        if len(const) != len(outs):
            raise LayoutError(
                f"constant {const} needs one int per out dim {list(outs)}"
            )
        for v, (name, size) in zip(const, outs.items()):
            if v < 0 or v >= size:
                raise LayoutError(f"constant {v} for out dim {name!r} is outside [0, {size})")
        object.__setattr__(self, "constant", const)

    @property
    def is_linear(self) -> bool:
        """True when the constant is zero (the map is linear)."""
        return not any(self.constant)

    def _flat_constant(self) -> int:
        flat, s = 0, 0
        for v, size in zip(self.constant, self.linear.out_dims.values()):
            flat |= v << s
            s += size.bit_length() - 1
        return flat

    def apply_flat(self, x: int) -> int:
        """Evaluate on a flat input (in dims concatenated); returns the flat output."""
        return self.linear.apply_flat(x) ^ self._flat_constant()

    def apply(self, inputs: Mapping[str, int]) -> dict[str, int]:
        """Evaluate at one point: ``linear.apply(inputs)`` XOR ``constant``, per out dim.

        Raises:
            LayoutError: as :meth:`LinearLayout.apply`.
        """
        out = self.linear.apply(inputs)
        return {n: v ^ c for (n, v), c in zip(out.items(), self.constant)}

    def to_dict(self) -> dict[str, Any]:
        """``{"linear": {"bases", "out_dims"}, "constant": [...]}`` (JSON-ready)."""
        return {"linear": self.linear.to_dict(), "constant": list(self.constant)}

    def __str__(self) -> str:
        consts = ", ".join(f"{n}={c}" for n, c in zip(self.linear.out_dim_names, self.constant))
        return f"{self.linear}\nthen XOR the constant ({consts})"


def _affine_alignment(m: SwizzleMode) -> int:
    """Base alignment that makes the buffer map affine, for 128-aligned bases."""
    n = len({s for _, s in m.xor_pairs})
    return LINE_BYTES << max(0, n - 2)


def buffer_layout(mode: Any, base: int, size_bytes: int = DEFAULT_SIZE_BYTES) -> AffineLayout:
    """The swizzle seen from a buffer at byte ``base``: buffer offset -> swizzled buffer offset.

    The map is ``f(o) = swizzled_address(mode, base + o) − base`` on ``o`` in
    ``[0, size_bytes)`` (bytes). When is it F₂-affine? For a 128-byte-aligned base
    (TMA requires 128-byte alignment, CUDA guide §10.29.3.2) write ``k = base / 128`` and let
    ``n`` be the number of source bits of the mode (1 for 32B/96B/128B_atom_64B, 2 for 64B
    and the 32-byte-atom modes, 3 for 128B). Then ``f(o) = o ⊕ T(((o >> 7) + k) mod 2ⁿ)``
    with ``T`` linear — the CUDA guide's ``smem[y][((y + offset) % 8) ^ x]``. So

    * ``f`` is **linear** iff ``k ≡ 0 (mod 2ⁿ)``: the base is aligned to the repeat period;
    * ``f`` is **affine** iff ``y ↦ y + k (mod 2ⁿ)`` is, i.e. iff ``n − tz(k) ≤ 2`` (``tz`` =
      trailing zeros): the carry into row bit ``tz(k) + 2`` is an AND or OR of row bits. That
      holds at every 128-aligned base for all modes except 128B, which is affine exactly when
      the base is 256-byte aligned (e.g. base 128: rows run 1,2,…,7,0 and ``3 = 1 + 2`` has a
      carry that XOR cannot express);
    * bases that are not 128-byte aligned are decided exactly by evaluating every offset:
      usually swizzled offsets leave the buffer (the 128-byte lines straddle its start), a few
      stay affine (e.g. 32B at base 64: the carry into bit 7 is ``o₆``, which is linear).

    The answer is periodic in ``base`` with the mode's repeat period.

    Args:
        mode: a swizzle mode (96B: its address map, equal to 32B's).
        base: the buffer's absolute shared-memory byte address (non-negative).
        size_bytes: buffer size, a power of two (default 1024: one 128B repeat period).

    Returns:
        :class:`AffineLayout` with in dim ``offset`` (bytes) -> out dim ``offset`` (bytes);
        its ``constant`` is ``(0,)`` exactly when the map is linear. Verified against
        :func:`buffer_offset` on every offset before it is returned.

    Raises:
        LayoutError: unknown mode, negative base, bad size; or the map is not F₂-affine on
            ``[0, size_bytes)`` — the message gives the offending offset, the reason and the
            alignment that fixes it.

    Source: PTX ISA §5.5.7 (base offset formulas), CUDA C++ Programming Guide §10.29.3.2
    Table 11 (index relation ``((y+offset)%8)^x``); the characterisation above is ours and is
    checked against brute force over every offset and every base in ``tests/test_ptx.py``.

    Example::

        >>> buffer_layout("128B", 1024).is_linear
        True
        >>> buffer_layout("128B", 512).constant      # base offset 4: rows start at phase 4
        (64,)
    """
    m = swizzle_mode(mode)
    b = as_int(base, "base")
    if b < 0:
        raise LayoutError(f"base must be a non-negative byte address, got {b}")
    n = log2_exact(size_bytes, "size_bytes")
    size = 1 << n
    pairs = m.xor_pairs
    vals = [apply_xor_pairs(pairs, b + o) - b for o in range(size)]
    for o, v in enumerate(vals):
        if not 0 <= v < size:
            raise LayoutError(
                f"with base {b} the {m.value} swizzle moves buffer offset {o} to {v}, outside "
                f"the buffer [0, {size}): the pattern's 128-byte lines straddle the buffer's "
                f"{'start' if v < 0 else 'end'}, so no map on the buffer exists; align the base "
                f"to 128 bytes (TMA requires it) or use buffer_offset() for the exact values"
            )
    c = vals[0]
    cols = [vals[1 << i] ^ c for i in range(n)]
    # Evaluate the candidate affine map on every offset (Gray-code order, one XOR each).
    pred = [c] * size
    for o in range(1, size):
        low = (o & -o).bit_length() - 1
        pred[o] = pred[o & (o - 1)] ^ cols[low]
    if pred != vals:
        o = next(i for i in range(size) if pred[i] != vals[i])
        bits = [1 << i for i in range(n) if o >> i & 1]
        hint = ""
        if b % LINE_BYTES == 0:
            hint = (f"; base offset {base_offset(m, b)} is added to the line index with carries "
                    f"(CUDA guide Table 11: ((y + offset) % {m.base_modulus}) ^ x); align the "
                    f"base to {_affine_alignment(m)} bytes for an affine map or "
                    f"{m.repeat_bytes} bytes for a linear one")
        raise LayoutError(
            f"the {m.value} swizzle seen from base {b} is not F2-affine: offset {o} = "
            f"{' ⊕ '.join(map(str, bits))} maps to {vals[o]}, but an affine map would give "
            f"{pred[o]} (from f(0) = {c} and the images of the single bits){hint}; use "
            "buffer_offset() for the exact values"
        )
    lin = LinearLayout.from_columns(cols, {"offset": size}, {"offset": size})
    return AffineLayout(lin, (c,))


# ---------------------------------------------------------------------------- 96B
def _check_96_args(row: Any, cell: Any, base: Any) -> tuple[int, int, int]:
    r, c, b = as_int(row, "row"), as_int(cell, "cell"), as_int(base, "base")
    if r < 0:
        raise LayoutError(f"row must be non-negative, got {r}")
    if not 0 <= c < 6:
        raise LayoutError(f"a 96-byte row holds 16-byte cells 0..5, got cell {c}")
    if b < 0 or b % LINE_BYTES:
        raise LayoutError(
            f"base must be a non-negative multiple of 128 bytes (TMA's shared-memory "
            f"alignment), got {b}"
        )
    return r, c, b


def swizzle96_address(row: int, cell: int, base: int = 0) -> int:
    """96B mode: buffer-relative byte address of 16-byte ``cell`` of 96-byte ``row``.

    A 96B box packs rows of 96 bytes (six 16-byte cells) one after another; the hardware then
    applies 32B's address map (PTX §5.5.7: the 96B table equals the 32B table, the pattern
    starts on 256-byte boundaries, base offset ``(dstMem/128) % 2``)::

        address(row, cell) = swizzled_address("96B", base + 96·row + 16·cell) − base

    This is not F₂-linear in ``(row, cell)``: ``row ↦ 96·row`` has carries (rows 1 and 2 start
    at 96 and 192, row 3 at 288 ≠ 96 ⊕ 192 = 160). Hence this explicit evaluator.

    Args:
        row: row index (non-negative).
        cell: 16-byte cell within the row, 0..5.
        base: the buffer's absolute byte address, a multiple of 128 (default 0).

    Returns:
        The byte address relative to ``base``.

    Raises:
        LayoutError: a cell outside 0..5, a negative row, or a base that is not a non-negative
            multiple of 128.

    Example::

        >>> [swizzle96_address(1, c) for c in range(6)]   # row 1 spans bytes 96..191
        [96, 112, 144, 128, 176, 160]
    """
    r, c, b = _check_96_args(row, cell, base)
    return apply_xor_pairs(SwizzleMode.SWIZZLE_96B.xor_pairs, b + 96 * r + 16 * c) - b


def swizzle96_cell(row: int, cell: int, base: int = 0) -> tuple[int, int]:
    """96B mode on (row, 16-byte cell) coordinates: where cell ``(row, cell)`` is stored.

    The swizzle only flips address bit 4 (swaps the two 16-byte halves of an aligned 32-byte
    pair), and 96 is a multiple of 32, so a cell never leaves its row: the result is
    ``(row, cell ^ b)`` with ``b`` = bit 7 of ``base + 96·row + 16·cell`` — a permutation of
    each row's cells that depends non-linearly on ``row``.

    Args:
        row, cell, base: as :func:`swizzle96_address`.

    Returns:
        ``(row, cell)`` of the 96-byte-row grid where the data lands.

    Raises:
        LayoutError: as :func:`swizzle96_address`.

    Example::

        >>> [swizzle96_cell(1, c)[1] for c in range(6)]
        [0, 1, 3, 2, 5, 4]
    """
    r2, byte = divmod(swizzle96_address(row, cell, base), 96)
    return r2, byte // 16


# ---------------------------------------------------------------------------- TMA tiles
def _box_problem(m: SwizzleMode, eb: int, inner_elems: int, rows_total: int,
                 box_inner_bytes: int) -> str | None:
    """Why a TMA box of this shape cannot produce the tile, or None when it can."""
    if m is SwizzleMode.SWIZZLE_96B:
        return ("the 96B mode packs 96-byte rows (row r starts at byte 96·r), and r ↦ 96·r is "
                "not F2-linear (rows 1 and 2 start at 96 and 192, row 3 at 288 ≠ 96 ⊕ 192); "
                "no LinearLayout describes its tiles. Use ptx.swizzle96_cell(row, cell) or "
                "swizzle96_address(row, cell) for the exact map (its address map alone is "
                "swizzle_layout('96B'))")
    g = m.granularity_bytes
    if g is not None and eb > 8 * g:
        return (f"the {m.value} swizzle moves {g}-byte units, which would split "
                f"{eb}-bit elements")
    inner_bits = inner_elems * eb
    if inner_bits < 128:
        return (f"the inner (contiguous) dimension holds {inner_bits} bits, but TMA moves "
                "whole 16-byte chunks; it needs at least 16 bytes (128 bits)")
    inner_bytes = inner_bits // 8
    B = box_inner_bytes
    if B < 16 or B & (B - 1):
        return f"box_inner_bytes must be a power of two of at least 16, got {B}"
    if B > inner_bytes:
        return f"box_inner_bytes {B} exceeds the tile's inner dimension of {inner_bytes} bytes"
    if m.span_bytes is not None and B > m.span_bytes:
        return (f"the {m.value} swizzle allows a box inner dimension of at most "
                f"{m.span_bytes} bytes (CUDA guide Table 12), got {B}")
    if m.atomicity_bytes is not None and B < m.atomicity_bytes:
        return (f"the {m.value} swizzle keeps {m.atomicity_bytes}-byte units intact, so the box "
                f"inner dimension must be at least {m.atomicity_bytes} bytes, got {B}")
    if B * 8 // eb > MAX_BOX_ELEMS:
        return (f"a box inner dimension of {B} bytes is {B * 8 // eb} elements, more than TMA's "
                f"{MAX_BOX_ELEMS}")
    if B < inner_bytes and (rows_total * B) % LINE_BYTES:
        return (f"{inner_bytes // B} boxes of {rows_total}×{B} bytes would start at offsets "
                f"that are not 128-byte aligned (TMA's shared-memory alignment)")
    return None


def _default_box(m: SwizzleMode, eb: int, inner_elems: int) -> int:
    inner_bytes = max(16, inner_elems * eb // 8)
    cap = m.span_bytes if m.span_bytes is not None else MAX_BOX_ELEMS * eb // 8
    return max(16, min(inner_bytes, cap))


def _tma_offset(m: SwizzleMode, eb: int, sizes: Sequence[int], box_inner_bytes: int,
                coords: Sequence[int]) -> int:
    """Element offset of one element of a TMA-written tile (the direct hardware model).

    ``sizes``/``coords`` list the tile's dims innermost (contiguous) first. The inner dim is
    cut into boxes of ``box_inner_bytes``; box ``j`` is written after box ``j-1`` (each box
    holds every row); inside a box, rows of ``box_inner_bytes`` follow each other densely;
    then the hardware swizzles the byte address.
    """
    box_elems = box_inner_bytes * 8 // eb
    j, cc = divmod(coords[0], box_elems)
    r, stride = 0, 1
    for c, s in zip(coords[1:], sizes[1:]):
        r += c * stride
        stride *= s
    bit = ((j * stride + r) * box_inner_bytes) * 8 + cc * eb
    byte, sub = divmod(bit, 8)
    sw_bit = apply_xor_pairs(m.xor_pairs, byte) * 8 + sub
    assert sw_bit % eb == 0
    return sw_bit // eb


def _tma_layout(m: SwizzleMode, eb: int, out_dims: Mapping[str, int], order: Sequence[str],
                box_inner_bytes: int) -> LinearLayout:
    """Memory layout (offset in elements -> tensor dims) of a TMA tile; dims ``order`` inner
    first. Parameters must already be valid (see _box_problem)."""
    sizes = [out_dims[d] for d in order]
    cols = []
    for name, size in out_dims.items():
        if size == 1:  # a dim of size 1 has no bits (and no place in the box order)
            continue
        k = order.index(name)
        for i in range(size.bit_length() - 1):
            coords = [0] * len(order)
            coords[k] = 1 << i
            cols.append(_tma_offset(m, eb, sizes, box_inner_bytes, coords))
    inv = f2.inverse(cols) if cols else []
    total = 1
    for s in out_dims.values():
        total *= s
    return LinearLayout.from_columns(inv, {"offset": total}, dict(out_dims))


def tma_tile_layout(mode: Any, *, element_bits: int, rows: int, cols: int,
                    box_inner_bytes: int | None = None) -> LinearLayout:
    """The shared-memory layout TMA writes for a ``rows × cols`` tile with a swizzle mode.

    Model (the one Triton's ``NVMMASharedEncoding`` uses, checked against it in the tests):
    the contiguous dim (``dim1``, the box's ``boxDim[0]``) is cut into boxes of
    ``box_inner_bytes``; box ``j`` is written after box ``j − 1``; inside a box row ``r``
    occupies bytes ``[r·B, (r+1)·B)``; then the hardware applies :func:`swizzled_address` to
    the absolute address. The buffer is assumed aligned to the mode's repeat period (else see
    :func:`buffer_layout`).

    Args:
        mode: a swizzle mode other than 96B.
        element_bits: bits per element (power of two, 1–128).
        rows: size of ``dim0`` (a power of two).
        cols: size of ``dim1`` in elements (a power of two; at least 16 bytes).
        box_inner_bytes: the TMA box's inner dimension in bytes (a power of two, 16 up to the
            swizzle width, at least the atomicity). Default: ``min(row bytes, swizzle width)``
            (for none: the row, up to 256 elements).

    Returns:
        In dim ``offset`` (**elements**) -> out dims ``dim0`` (row) and ``dim1`` (column).

    Raises:
        LayoutError: 96B (its 96-byte rows are not F₂-linear: use :func:`swizzle96_cell`),
            sizes that are not powers of two, a box TMA cannot issue (inner dimension under 16
            bytes or above the swizzle width, under the atomicity, over 256 elements, boxes not
            128-byte aligned), or elements split by the swizzle.

    Source: CUDA C++ Programming Guide §10.29.3.2 (Table 12: swizzle width, inner dimension
    limit, repeat); PTX ISA §5.5.7.

    Example::

        >>> from linlayout.formula import offset_formula
        >>> L = tma_tile_layout("128B", element_bits=16, rows=8, cols=64)
        >>> offset_formula(L, {"dim0": "row", "dim1": "col"})
        'offset = 64·row + (col ⊕ 8·row)'
    """
    m = swizzle_mode(mode)
    eb = _element_bits(element_bits)
    r_log = log2_exact(rows, "rows")
    c_log = log2_exact(cols, "cols")
    B = _default_box(m, eb, 1 << c_log) if box_inner_bytes is None else \
        as_int(box_inner_bytes, "box_inner_bytes")
    problem = _box_problem(m, eb, 1 << c_log, 1 << r_log, B)
    if problem:
        raise LayoutError(problem)
    return _tma_layout(m, eb, {"dim0": 1 << r_log, "dim1": 1 << c_log}, ["dim1", "dim0"], B)


@dataclass(frozen=True)
class TmaMatch:
    """A TMA swizzle mode (and box) that writes a given shared-memory layout exactly.

    Attributes:
        mode: the :class:`SwizzleMode`.
        box_inner_bytes: the box's inner dimension (``boxDim[0]·element size``) in bytes.
        dim_order: the tensor dims in TMA box order, innermost (contiguous) first.
        boxes: TMA copies along the inner dimension (``inner bytes / box_inner_bytes``); box
            ``j`` is written right after box ``j − 1``.
        element_bits: bits per element.
    """

    mode: SwizzleMode
    box_inner_bytes: int
    dim_order: tuple[str, ...]
    boxes: int
    element_bits: int

    @property
    def inner_dim(self) -> str:
        """The contiguous tensor dim (TMA's ``boxDim[0]``)."""
        return self.dim_order[0]

    def describe(self) -> str:
        """e.g. ``"realisable as CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)"``."""
        name = self.mode.cu_tensor_map_swizzle_name or f"the {self.mode.value} swizzle"
        extra = f", {self.boxes} boxes along {self.inner_dim}" if self.boxes > 1 else ""
        return f"realisable as {name} (box inner dimension {self.box_inner_bytes} bytes{extra})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: mode name, driver name and value, box, dims, boxes."""
        return {
            "mode": self.mode.value,
            "cu_tensor_map_swizzle": self.mode.cu_tensor_map_swizzle_name,
            "cu_tensor_map_swizzle_value": self.mode.cu_tensor_map_swizzle,
            "box_inner_bytes": self.box_inner_bytes,
            "inner_dim": self.inner_dim,
            "dim_order": list(self.dim_order),
            "boxes": self.boxes,
            "element_bits": self.element_bits,
        }


#: Order in which :func:`match_tma_mode` tries modes: simplest first. 96B is absent (its tiles
#: are not linear; on power-of-two rows its address map is 32B's, so 32B is reported).
MATCH_ORDER = (
    SwizzleMode.NONE,
    SwizzleMode.SWIZZLE_32B,
    SwizzleMode.SWIZZLE_64B,
    SwizzleMode.SWIZZLE_128B,
    SwizzleMode.SWIZZLE_128B_ATOM_64B,
    SwizzleMode.SWIZZLE_128B_ATOM_32B,
    SwizzleMode.SWIZZLE_128B_ATOM_32B_FLIP_8B,
)


def tma_matches(memory_layout: LinearLayout, element_bits: int) -> list[TmaMatch]:
    """Every (mode, dim order, box) with which TMA writes ``memory_layout`` exactly.

    See :func:`match_tma_mode`; this returns all matches in preference order.

    Raises:
        LayoutError, NotInvertibleError: as :func:`match_tma_mode`.
    """
    eb = _element_bits(element_bits)
    cols, offset_bits = memory_columns(memory_layout)
    if len(cols) != offset_bits:
        raise LayoutError(
            "match_tma_mode works on one CTA's tile: the layout has a 'block' dim; pass "
            "memory.sublayout(['offset'], …) restricted to one CTA"
        )
    out_dims = memory_layout.out_dims
    if not cols:
        return []
    # memory_columns gives offset -> tensor in canonical in-dim order (vector, bank, segment
    # flatten into the offset); the forward map tensor -> element offset is its inverse.
    target = f2.inverse(list(cols))
    return [match for match, cand in _tma_candidates(MATCH_ORDER, out_dims, eb)
            if list(f2.inverse(list(cand.columns))) == target]


def _tma_candidates(modes: Sequence[SwizzleMode], out_dims: Mapping[str, int], eb: int
                    ) -> list[tuple[TmaMatch, LinearLayout]]:
    """Every (mode, dim order, box) TMA can issue for the tile, with the layout it writes."""
    big = [d for d, s in out_dims.items() if s > 1]
    found: list[tuple[TmaMatch, LinearLayout]] = []
    if not big:
        return found
    for m in modes:
        for order in permutations(big):
            inner = out_dims[order[0]]
            rows_total = 1
            for d in order[1:]:
                rows_total *= out_dims[d]
            inner_bytes = inner * eb // 8
            if inner * eb < 128:
                continue
            B = inner_bytes
            while B >= 16:
                if _box_problem(m, eb, inner, rows_total, B) is None:
                    cand = _tma_layout(m, eb, out_dims, list(order), B)
                    found.append((TmaMatch(m, B, tuple(order), inner_bytes // B, eb), cand))
                B //= 2
    return found


def tma_layouts(mode: Any, out_dims: Mapping[str, int], element_bits: int
                ) -> list[tuple[TmaMatch, LinearLayout]]:
    """Every shared-memory layout TMA can write for a tile of ``out_dims`` with one mode.

    One per choice of contiguous dim, order of the other dims and box inner size (the choice
    space :func:`match_tma_mode` searches), as ``(TmaMatch, layout)`` pairs; the layouts have
    in dim ``offset`` (elements). Empty when TMA cannot issue any box for the tile.

    Raises:
        LayoutError: an unknown mode, 96B (not F₂-linear), or bad ``element_bits``.
    """
    m = swizzle_mode(mode)
    if m is SwizzleMode.SWIZZLE_96B:
        raise LayoutError("96B swizzling has 96-byte rows, which are not F2-linear; "
                          "use swizzle96_cell for its addresses")
    return _tma_candidates([m], dict(out_dims), _element_bits(element_bits))


def match_tma_mode(memory_layout: LinearLayout, element_bits: int) -> TmaMatch | None:
    """A TMA swizzle mode and box with which TMA writes ``memory_layout`` exactly, or None.

    "Realises" means: for every element of the tile, the byte offset where TMA puts it (with
    the buffer aligned to the mode's repeat period) equals the byte offset the layout gives it.
    TMA's tile is the one of :func:`tma_tile_layout`, generalised to any number of dims and
    any choice of contiguous dim: the contiguous dim is cut into boxes of ``B`` bytes (box
    ``j`` written after box ``j − 1``), rows of ``B`` bytes are dense inside a box (the other
    dims in box order, first fastest), and the address is swizzled. Tried: every mode except
    96B (simplest first: none, 32B, 64B, 128B, then the 128B sub-modes), every order of the
    dims, every power-of-two ``B`` that TMA can issue, widest first.

    Args:
        memory_layout: a shared-memory layout (in dims ``offset`` or ``vector, bank, segment``
            [+ ``reps``], offsets in **elements**), a bijection onto the tile; no ``block``
            dim.
        element_bits: bits per element (power of two, 1–128).

    Returns:
        The first :class:`TmaMatch` (``.describe()`` gives e.g. ``"realisable as
        CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)"``), or None when no TMA
        mode writes this layout (e.g. swizzles at a granularity finer than 16 bytes, or XOR
        patterns the hardware does not have).

    Raises:
        LayoutError: invalid in dims, a ``block`` dim, or bad ``element_bits``;
        NotInvertibleError: the layout is not a bijection.

    Source: CUDA C++ Programming Guide §10.29.3.2 (Table 12), PTX ISA §5.5.7.

    Example::

        >>> atom = tcgen05_atom("128B", "K", 16)
        >>> match_tma_mode(atom, 16).describe()
        'realisable as CU_TENSOR_MAP_SWIZZLE_128B (box inner dimension 128 bytes)'
    """
    found = tma_matches(memory_layout, element_bits)
    return found[0] if found else None


# ---------------------------------------------------------------------------- tcgen05 atoms
#: PTX ISA §9.7.16.10.6 Table 55, "Layout for swizzle atoms" (128-bit elements), as
#: ``(MN extent, K extent)``: for smaller elements the leading dimension (MN for MN-major, K
#: for K-major) is multiplied by ``128 / element_bits``. 128B with 32B atomicity is MN-major
#: only ("–" for K).
TCGEN05_ATOM_SHAPES: dict[tuple[SwizzleMode, str], tuple[int, int]] = {
    (SwizzleMode.SWIZZLE_128B_ATOM_32B, "MN"): (8, 4),
    (SwizzleMode.SWIZZLE_128B, "MN"): (8, 8),
    (SwizzleMode.SWIZZLE_128B, "K"): (8, 8),
    (SwizzleMode.SWIZZLE_64B, "MN"): (4, 8),
    (SwizzleMode.SWIZZLE_64B, "K"): (8, 4),
    (SwizzleMode.SWIZZLE_32B, "MN"): (2, 8),
    (SwizzleMode.SWIZZLE_32B, "K"): (8, 2),
    (SwizzleMode.NONE, "MN"): (1, 8),
    (SwizzleMode.NONE, "K"): (8, 1),
}


def _major(major: Any) -> str:
    if isinstance(major, str):
        key = major.strip().upper().replace("-MAJOR", "").replace("_MAJOR", "")
        if key in ("K",):
            return "K"
        if key in ("MN", "M", "N"):
            return "MN"
    raise LayoutError(f"major must be 'K' or 'MN' (also 'M' or 'N'), got {major!r}")


def tcgen05_atom(mode: Any, major: str, element_bits: int) -> LinearLayout:
    """The tcgen05 (and wgmma) shared-memory swizzle atom as a memory layout.

    Args:
        mode: ``"none"``, ``"32B"``, ``"64B"``, ``"128B"`` or ``"128B_atom_32B"`` (the modes
            with a tcgen05 descriptor layout type).
        major: ``"K"`` (K contiguous) or ``"MN"`` (M or N contiguous).
        element_bits: bits per element (power of two, 1–128; 16 for fp16/bf16, 32 for tf32).

    Returns:
        In dim ``offset`` (**elements**) -> out dims ``dim0`` (MN index) and ``dim1`` (K
        index), of the shape of PTX Table 55 scaled to the element size: e.g. 128B K-major
        fp16 is 8 × 64, 128B MN-major tf32 is 32 × 8. The byte offset of element ``(mn, k)``
        equals CUTLASS's ``Layout_{K,MN}_SW{32,64,128}_Atom`` / ``Layout_*_INTER_Atom`` and
        ``UMMA::Layout_MN_SW128_32B_Atom``: ``Swizzle<B,M,S>`` applied to the byte address of
        ``(T, W·8):(1, T)`` (MN-major) or ``(8, T):(T, 1)`` (K-major) bits, ``T`` = the atom's
        row bits. It is also exactly what TMA writes with the same mode and a box inner
        dimension of one atom row (:func:`tma_tile_layout`).

    Raises:
        LayoutError: a mode without a tcgen05 layout type (96B, the 8-byte flip, 64B
            atomicity), the K-major form of 128B with 32B atomicity (Table 55 has "–"), an
            unknown ``major``, or bad ``element_bits``.

    Source: PTX ISA §9.7.16.10.6 "Shared Memory Layout and Swizzling", Table 55; CUTLASS
    ``include/cute/atom/mma_traits_sm90_gmma.hpp`` (``GMMA::Layout_*_Atom_Bits``) and
    ``include/cute/atom/mma_traits_sm100.hpp`` (``UMMA::Layout_MN_SW128_32B_Atom_Bits``).

    Example::

        >>> tcgen05_atom("128B", "K", 16).out_dims
        {'dim0': 8, 'dim1': 64}
    """
    m = swizzle_mode(mode)
    mj = _major(major)
    eb = _element_bits(element_bits)
    if m.tcgen05_layout_type is None:
        raise LayoutError(
            f"the {m.value} mode has no tcgen05 shared-memory descriptor layout type; tcgen05 "
            "atoms exist for none, 32B, 64B, 128B and 128B_atom_32B"
        )
    shape = TCGEN05_ATOM_SHAPES.get((m, mj))
    if shape is None:
        raise LayoutError(
            f"PTX Table 55 has no K-major atom for {m.value} (128B swizzling with 32B "
            "atomicity is MN-major only, '–' for K); use major='MN' or the 128B mode"
        )
    scale = 128 // eb
    mn, k = shape
    if mj == "MN":
        out = {"dim0": mn * scale, "dim1": k}
        order = ["dim0", "dim1"]
        row_bytes = mn * 16
    else:
        out = {"dim0": mn, "dim1": k * scale}
        order = ["dim1", "dim0"]
        row_bytes = k * 16
    rows_total = out[order[1]]
    problem = _box_problem(m, eb, out[order[0]], rows_total, row_bytes)
    if problem:  # pragma: no cover - the table's shapes are all valid boxes
        raise LayoutError(problem)
    return _tma_layout(m, eb, out, order, row_bytes)


def cute_name(mode: Any) -> str | None:
    """CuTe's printed swizzle of the mode's address map (``"Sw<3,4,3>"``), or None.

    Raises:
        LayoutError: unknown mode.
    """
    m = swizzle_mode(mode)
    return format_cute_swizzle(*m.cute) if m.cute else None
