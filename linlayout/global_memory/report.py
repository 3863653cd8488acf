"""What a warp's global-memory access costs: :class:`GlobalAccessReport`.

Global memory is served in 32-byte **sectors** (four to a 128-byte cache **line**): a
warp-level ``ld.global``/``st.global`` costs one memory transaction per distinct sector its
lanes touch (CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory"). A warp that
moves ``useful_bytes_per_warp`` distinct bytes needs at least ``⌈useful / sector_bytes⌉``
sectors (the floor); the efficiency is the share of the fetched sector bytes that the warp
uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["GlobalAccessReport"]


@dataclass(frozen=True)
class GlobalAccessReport:
    """The exact cost of one warp's global-memory access (one distributed layout against one
    global-memory placement of the tensor).

    Every warp issues ``instructions_per_warp`` instructions; each lane moves
    ``vector_elems`` consecutive elements per instruction (``access_bytes`` bytes, at most 16:
    ``ld.global.v4.b32``).

    Attributes:
        element_bits: bits per element (8, 16, 32 or 64).
        vector_elems: elements each lane moves per instruction.
        instructions_per_warp: warp-level instructions one warp issues for its share.
        sectors_per_instruction: distinct ``sector_bytes`` sectors one instruction touches
            (the most over instructions, warps and base placements).
        lines_per_instruction: distinct ``line_bytes`` lines one instruction touches (the
            most, likewise).
        sectors_per_warp: sectors one warp touches, summed over its instructions (a sector
            touched by two instructions counts twice: two transactions); the most over warps
            and base placements.
        lines_per_warp: lines summed over the warp's instructions, likewise.
        useful_bytes_per_warp: distinct bytes of the tensor one warp moves (broadcast copies
            counted once).
        useful_bytes_per_instruction: distinct bytes one instruction moves.
        sector_bytes: bytes per sector (32 on NVIDIA).
        line_bytes: bytes per cache line (128 on NVIDIA).
        base_alignment_bytes: the tensor's first byte is a multiple of this; below
            ``line_bytes`` the counts are the worst over the base placements it allows.
        method: ``"closed form"`` (F₂-linear addresses, a subspace-dimension count) or
            ``"enumeration"`` (the brute-force simulator: general strides, a base aligned to
            less than a line, or :func:`~linlayout.global_memory.simulate_global_access`).
    """

    element_bits: int
    vector_elems: int
    instructions_per_warp: int
    sectors_per_instruction: int
    lines_per_instruction: int
    sectors_per_warp: int
    lines_per_warp: int
    useful_bytes_per_warp: int
    useful_bytes_per_instruction: int
    sector_bytes: int = 32
    line_bytes: int = 128
    base_alignment_bytes: int = 256
    method: str = "closed form"

    @property
    def access_bytes(self) -> int:
        """Bytes each lane moves per instruction: ``vector_elems · element_bits / 8``."""
        return self.vector_elems * self.element_bits // 8

    @property
    def sector_floor(self) -> int:
        """``⌈useful_bytes_per_warp / sector_bytes⌉``: no placement and no instruction moves
        the warp's bytes in fewer sectors."""
        return -(-self.useful_bytes_per_warp // self.sector_bytes)

    @property
    def efficiency(self) -> float:
        """``useful_bytes_per_warp / (sectors_per_warp · sector_bytes)``: the share of the
        fetched bytes the warp uses; 1.0 when every byte of every sector is used once."""
        return self.useful_bytes_per_warp / (self.sectors_per_warp * self.sector_bytes)

    @property
    def coalesced(self) -> bool:
        """The warp touches no more sectors than its bytes need: ``sectors_per_warp ==
        sector_floor``."""
        return self.sectors_per_warp == self.sector_floor

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field and the derived ``access_bytes``, ``sector_floor``,
        ``efficiency`` (rounded to 4 places) and ``coalesced``."""
        return {
            "method": self.method,
            "element_bits": self.element_bits,
            "vector_elems": self.vector_elems,
            "access_bytes": self.access_bytes,
            "instructions_per_warp": self.instructions_per_warp,
            "sectors_per_instruction": self.sectors_per_instruction,
            "lines_per_instruction": self.lines_per_instruction,
            "sectors_per_warp": self.sectors_per_warp,
            "lines_per_warp": self.lines_per_warp,
            "useful_bytes_per_instruction": self.useful_bytes_per_instruction,
            "useful_bytes_per_warp": self.useful_bytes_per_warp,
            "sector_floor": self.sector_floor,
            "efficiency": round(self.efficiency, 4),
            "coalesced": self.coalesced,
            "sector_bytes": self.sector_bytes,
            "line_bytes": self.line_bytes,
            "base_alignment_bytes": self.base_alignment_bytes,
        }
