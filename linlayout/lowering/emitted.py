"""The record of one kind of shared-memory instruction Triton emits for a TTGIR op."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Emitted"]


@dataclass(frozen=True)
class Emitted:
    """One instruction kind an op lowers to, with its static count per thread.

    Attributes:
        side: ``"store"`` (writes shared memory), ``"load"`` (reads it), ``"atomic"``
            (read-modify-write) or ``"none"`` (named only: TMA, wgmma/tcgen05 operands).
        opcode: the PTX (NVIDIA) or ISA (AMD) spelling, e.g. ``"st.shared.v4.b32"``,
            ``"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"``, ``"ds_read_b64_tr_b16"``.
        per_thread: instructions per thread in straight-line code (a loop body counted once),
            or None when not predicted (TMA, MMA operand reads).
        vector_elems: elements each lane moves per instruction (for ldmatrix/stmatrix: the
            elements of one 16-byte row), or None.
        element_bits: bits per element as moved (sub-byte and ``i1`` values move as bytes).
        bytes_per_lane: bytes one lane moves per instruction (0 when not a lane access).
        counter: the instruction name for :func:`linlayout.bank_conflicts` (``None`` for
            ``ld/st.shared``, ``"ldmatrix.x4.trans"``, …), or ``""`` when the bank counter
            does not model this instruction.
    """

    side: str
    opcode: str
    per_thread: int | None
    vector_elems: int | None
    element_bits: int
    bytes_per_lane: int
    counter: str | None = None

    @property
    def bytes_per_thread(self) -> int:
        """Bytes one thread moves with these instructions (0 when not counted)."""
        return (self.per_thread or 0) * self.bytes_per_lane
