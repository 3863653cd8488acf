"""What an access costs: per instruction, and for the warp's whole share of the tile.

A :class:`ConflictReport` describes one side of a shared-memory access (a distributed layout
storing to or loading from a memory layout) as the hardware executes it: each warp issues
``instructions_per_warp`` instructions of the same shape, each split into ``phases`` groups of
lanes, each phase taking ``degree`` wavefronts (the most distinct words asked of one bank).
What the warp pays is the total::

    wavefronts_per_warp = instructions_per_warp · phases · degree

against the floor set by bandwidth: a wavefront serves at most one row of banks
(``row_bytes``: 128 bytes on NVIDIA), so a warp that moves ``bytes_per_warp`` distinct bytes
needs at least ``⌈bytes_per_warp / row_bytes⌉`` wavefronts, and at least ``⌈bytes_per_warp /
(warp_size · max_access_bytes)⌉`` instructions (every lane moving the widest access: 16 bytes
on NVIDIA, ``ld.shared.v4.b32`` or ``ldmatrix.x4``).

Worked example (NVIDIA, a warp reading a 32×32 fp32 tile column by column from a row-major
buffer, 1 element per lane per instruction): 32 instructions, each 32-way conflicted in its
single phase, so 1024 wavefronts per warp against a floor of ⌈4096 / 128⌉ = 32: efficiency
1/32. A swizzle that removes the conflict brings it to 32 wavefronts, the floor; vectorising 4
elements per lane would also bring the instructions from 32 to their floor of 8.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..hardware.instructions import DEFAULT as DEFAULT_INSTRUCTION

__all__ = ["ConflictReport"]


@dataclass(frozen=True)
class ConflictReport:
    """The cost of one warp-level shared-memory access pattern (one side of a transfer).

    Made by :func:`linlayout.bank_conflicts` (Lemma 9.4 of the Linear Layouts paper, arXiv
    2505.23819, generalised to sub-word accesses: ``docs/theory.md`` §2) and
    :func:`linlayout.simulate_bank_access`; wavefronts and phases are those of the hardware
    model (``docs/hardware-model.md``). Counts are per warp or per instruction as named; sizes
    in bits or bytes as named.

    Attributes:
        degree: n-way conflict degree: the largest number of distinct bank words any bank is
            asked for within one phase (max over warps, instructions and phases). 1 means
            conflict-free.
        wavefronts_per_instruction: wavefronts of one warp-level instruction, summed over its
            phases (``phases · degree``; all phases cost the same because the layout is
            linear). The warp's total is :attr:`wavefronts_per_warp`.
        vector_elems: elements each lane moves per instruction.
        phases: phases per instruction.
        lanes_per_phase: lanes served together in one phase.
        access_bits: bits each lane moves per instruction (``vector_elems · element_bits``).
        element_bits: bits per element.
        instructions_per_warp: distinct warp-level instructions one warp issues to move its
            share of the tile (every warp issues as many).
        bytes_per_warp: distinct bytes of the tile one warp moves (its registers × lanes,
            broadcast copies counted once).
        row_bytes: bytes one wavefront can serve: ``num_banks · bank_bytes`` of the hardware
            model (128 on NVIDIA).
        max_instruction_bytes: bytes the widest instruction moves: ``warp_size ·
            max_access_bytes`` (512 on NVIDIA).
        conflict_offsets: element offsets (flat ints over the memory's offset bits) spanning
            the conflicting directions: a basis of ``span(segment bits) ∩ (span(Λ) + Z)``;
            its length is ``log2(degree)``. Empty when conflict-free or from the simulator.
        instruction: ``"ld/st.shared"`` or the ldmatrix/stmatrix variant counted (for those,
            a phase is one 8×8 matrix, ``vector_elems`` the elements of one 16-byte row and
            ``lanes_per_phase`` its 8 rows), or an AMD LDS mnemonic.
        uneven_wavefronts_per_warp: set only for padded layouts whose instructions do not all
            cost the same (padding is not linear): the exact wavefronts of the costliest
            warp, summed over its instructions; ``wavefronts_per_instruction`` is then the
            costliest instruction. None otherwise.
    """

    degree: int
    wavefronts_per_instruction: int
    vector_elems: int
    phases: int
    lanes_per_phase: int
    access_bits: int
    element_bits: int
    instructions_per_warp: int
    bytes_per_warp: int
    row_bytes: int
    max_instruction_bytes: int
    conflict_offsets: tuple[int, ...] = field(default=(), compare=False)
    instruction: str = DEFAULT_INSTRUCTION
    uneven_wavefronts_per_warp: int | None = None

    @property
    def conflict_free(self) -> bool:
        """True when ``degree == 1``."""
        return self.degree == 1

    @property
    def wavefronts_per_warp(self) -> int:
        """What the warp pays: ``instructions_per_warp · wavefronts_per_instruction``, or
        :attr:`uneven_wavefronts_per_warp` when that is set."""
        if self.uneven_wavefronts_per_warp is not None:
            return self.uneven_wavefronts_per_warp
        return self.instructions_per_warp * self.wavefronts_per_instruction

    @property
    def wavefront_floor(self) -> int:
        """``⌈bytes_per_warp / row_bytes⌉``: no memory layout and no instruction moves the
        warp's bytes in fewer wavefronts."""
        return -(-self.bytes_per_warp // self.row_bytes)

    @property
    def instruction_floor(self) -> int:
        """``⌈bytes_per_warp / max_instruction_bytes⌉``: the fewest instructions that can move
        the warp's bytes (every lane at the widest access)."""
        return -(-self.bytes_per_warp // self.max_instruction_bytes)

    @property
    def efficiency(self) -> float:
        """``wavefront_floor / wavefronts_per_warp``: 1.0 at the bandwidth floor."""
        return self.wavefront_floor / self.wavefronts_per_warp

    @property
    def at_floor(self) -> bool:
        """The warp pays exactly the wavefront floor."""
        return self.wavefronts_per_warp == self.wavefront_floor

    @property
    def extra_wavefronts(self) -> int:
        """Wavefronts beyond one per phase, per instruction: ``wavefronts_per_instruction −
        phases``.

        Triton's ``get_shared_bank_conflicts`` reports ``degree − 1`` instead (per phase); the
        two agree for single-phase accesses (up to 32 bits per lane on NVIDIA).
        """
        return self.wavefronts_per_instruction - self.phases

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field (but ``conflict_offsets``) and the whole-warp totals."""
        return {
            "instruction": self.instruction,
            "vector_elems": self.vector_elems,
            "access_bits": self.access_bits,
            "degree": self.degree,
            "phases": self.phases,
            "lanes_per_phase": self.lanes_per_phase,
            "wavefronts_per_instruction": self.wavefronts_per_instruction,
            "instructions_per_warp": self.instructions_per_warp,
            "wavefronts_per_warp": self.wavefronts_per_warp,
            "bytes_per_warp": self.bytes_per_warp,
            "wavefront_floor": self.wavefront_floor,
            "instruction_floor": self.instruction_floor,
            "efficiency": round(self.efficiency, 4),
        }
