"""The shared-memory swizzle modes and their numbers in every encoding.

:class:`SwizzleMode` names each mode once (``"none"``, ``"32B"``, ``"64B"``, ``"96B"``,
``"128B"``, ``"128B_atom_32B"``, ``"128B_atom_32B_flip_8B"``, ``"128B_atom_64B"``) and keeps
apart the numberings that disagree: the driver's ``CUtensorMapSwizzle``, PTX
``tensormap.replace``'s ``.swizzle_mode``/``.swizzle_atomicity``, and the tcgen05 and wgmma
shared-memory descriptors' layout-type fields. It also carries each mode's geometry — the
``(target bit, source bit)`` XOR pairs on byte addresses, swizzle width, atomicity, repeat
period, base-offset modulus — and its CuTe ``Swizzle<B,M,S>``. :func:`swizzle_mode` looks a mode
up by name. The package docstring (:mod:`linlayout.ptx`) teaches what the modes do.
"""

from __future__ import annotations

import enum
import operator
from dataclasses import dataclass
from typing import Any

from .._checks import as_int, shown
from ..cute import cute_from_xor_pairs, format_cute_swizzle
from ..errors import LayoutError

__all__ = ["LINE_BYTES", "SwizzleMode", "cute_name", "swizzle_mode"]

#: Bytes per shared-memory line: the swizzles permute chunks inside 128-byte lines.
LINE_BYTES = 128


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
        return _SPECS_BY_VALUE[self._value_]  # a str key: no Python-level enum __hash__

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
#: :data:`_SPECS` keyed by the modes' values (what :attr:`SwizzleMode._spec` reads).
_SPECS_BY_VALUE = {m.value: spec for m, spec in _SPECS.items()}


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

    Source: PTX ISA §5.5.7 "Swizzling Modes" (the modes and their atomicities); the CUDA
    driver API's ``CUtensorMapSwizzle`` (``cuda.h``) for the driver names.
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
            f"a bare int ({shown(mode)}) is ambiguous: CUtensorMapSwizzle, PTX tensormap.replace and "
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
        f"unknown swizzle mode {shown(mode)}; use one of "
        f"{[m.value for m in SwizzleMode]} (or CU_TENSOR_MAP_SWIZZLE_* names)"
    )


def cute_name(mode: Any) -> str | None:
    """CuTe's printed swizzle of the mode's address map (``"Sw<3,4,3>"``), or None.

    None for ``128B_atom_32B_flip_8B``, which needs two CuTe swizzles (see
    :attr:`SwizzleMode.cute`).

    Raises:
        LayoutError: unknown mode.

    Source: CUTLASS ``include/cute/swizzle.hpp`` (``print(Swizzle<B,M,S>)`` writes
    ``Sw<B,M,S>``).

    Example::

        >>> cute_name("128B_atom_32B")
        'Sw<2,5,2>'
    """
    m = swizzle_mode(mode)
    return format_cute_swizzle(*m.cute) if m.cute else None
