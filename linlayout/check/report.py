"""What ``linlayout check`` finds, as values: one :class:`KernelReport` per TTGIR module, one
:class:`OpReport` per op, one :class:`InstructionReport` per instruction kind the op lowers to.

Rendering lives in :mod:`linlayout.check.render` (text and JSON); nothing here prints.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..conflicts import ConflictReport
from ..hardware.access import AccessFault
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..triton.ttgir import Access
from .global_memory.report import GlobalOpReport
from ..lowering.emitted import Emitted
from ..lowering.target import Target
from .conversion import ConvertSaving

__all__ = ["Alternative", "InstructionReport", "KernelReport", "KernelTotals", "OpReport",
           "OpStatus", "PermuteRange", "StoreMerge", "Suggestion"]


class OpStatus(enum.Enum):
    """How far the analysis of one op got.

    * ``COUNTED`` — at least one instruction's bank conflicts are counted exactly, and every
      lane access through a layout is;
    * ``MISALIGNED`` — an instruction Triton emits is illegal on its buffer: a vector (or an
      ``ldmatrix``/``stmatrix`` row) whose address is not a multiple of its size, or with a
      padding gap inside (:func:`linlayout.hardware.access.access_fault`); the code traps or
      moves wrong data. The instruction is kept, without a cost, with its
      :class:`~linlayout.hardware.access.AccessFault`;
    * ``NOT_COUNTED`` — the op uses shared memory but not all of it is counted: nothing is
      counted (TMA copies, wgmma/tcgen05 operand reads through descriptors, private scratch
      without a layout; the instructions are still named), or a lane access through a layout
      that the bank counter does not model (:attr:`InstructionReport.not_counted`, with the
      counter's reason in its note);
    * ``NO_SHARED_MEMORY`` — the op stays in registers, warp shuffles or tensor memory;
    * ``NOT_ANALYSED`` — its layouts could not be read or lowered (the note says why); the
      rest of the file is still analysed.
    """

    COUNTED = "counted"
    MISALIGNED = "misaligned"
    NOT_COUNTED = "not counted"
    NO_SHARED_MEMORY = "no shared memory"
    NOT_ANALYSED = "not analysed"


@dataclass(frozen=True)
class InstructionReport:
    """One predicted instruction of an op with its exact cost.

    Attributes:
        emitted: the :class:`~linlayout.lowering.emitted.Emitted` instruction (opcode, count per
            thread, vector).
        report: its :class:`~linlayout.ConflictReport` (None when not a modelled lane access).
        note: why it is not counted, if it is not.
        fault: the first illegal vector (:class:`~linlayout.hardware.access.AccessFault`)
            when the instruction is misaligned on its buffer, else None (then ``report`` is
            None: a faulting instruction has no cost).
        lane_access: the lanes address shared memory through known layouts
            (:func:`linlayout.check.count.is_lane_access`), so a count is expected.
        warps_executing: how many warps of the CTA execute it when fewer than all do (a
            plain ``ld.shared`` ptxas sinks under the predicate of the stores that end the
            kernel: :func:`linlayout.check.shared_memory.sunk_loads.executing_warps`), else
            None (every warp executes it). The per-warp counts are those of a warp that
            executes it.
        may_sink: where ptxas may or may not sink the last of these loads below the store
            ending the kernel (its scheduler decides), what they would be then: an
            :class:`InstructionReport` of those loads with their ``warps_executing``; the
            counts of this entry assume every warp runs them. None otherwise.
    """

    emitted: Emitted
    report: ConflictReport | None = None
    note: str = ""
    fault: AccessFault | None = None
    lane_access: bool = False
    warps_executing: int | None = None
    may_sink: InstructionReport | None = None

    @property
    def not_counted(self) -> bool:
        """A lane access through layouts, legal, that the bank counter could not count (a
        modelling gap: the note gives the counter's reason)."""
        return self.lane_access and self.report is None and self.fault is None


@dataclass(frozen=True)
class Suggestion:
    """The best shared layout found for a buffer (:func:`linlayout.check.suggest.suggest_layout`).

    Attributes:
        text: the layout as Triton text (``#ttg.swizzled_shared<…>``, ``#ttg.shared_linear<…>``).
        degree: the worst conflict degree of all the buffer's accesses on it.
        wavefronts_per_warp: their total wavefronts per warp.
        instructions_per_warp: their total instructions per warp.
        basis: how it was found (the ``swizzled_shared`` parameters or the synthesized pair).
        layout: the layout itself (``offset`` → ``dim0, dim1, …``), or None.
    """

    text: str
    degree: int
    wavefronts_per_warp: int
    instructions_per_warp: int
    basis: str
    layout: LinearLayout | None = None


@dataclass(frozen=True)
class Alternative:
    """:func:`linlayout.synthesize_swizzle`'s scratch layout for a ``convert_layout``, beside
    the one Triton uses.

    Attributes:
        layout: the layout as Triton text, or None when Triton cannot spell it.
        vector_elems: its common vector width (elements).
        degree: the worst degree of its store and load.
        wavefronts_per_warp, instructions_per_warp: its store plus load, per warp.
        saving_wavefronts_per_warp, saving_instructions_per_warp: Triton's scratch minus this
            (positive: this is cheaper).
    """

    layout: str | None
    vector_elems: int
    degree: int
    wavefronts_per_warp: int
    instructions_per_warp: int
    saving_wavefronts_per_warp: int
    saving_instructions_per_warp: int


@dataclass(frozen=True)
class StoreMerge:
    """The other outcome of a convert whose result Triton stores byte by byte (AMD, 8-bit,
    after a round trip through shared memory): LLVM's SelectionDAG may merge a thread's
    byte stores of one 4-byte word into one wider store
    (``DAGCombiner::mergeConsecutiveStores``), word by word, or leave them
    ``global_store_byte``; nothing in the TTGIR says which (measured on gfx942/gfx950: every
    word, or one of two, merged; ``papers/triton_lowering/amd_byte_pack_probes.py``). A merged word whose 16-bit halves are in-order halves of two
    ``ds_read_b32`` scratch words costs one ``v_perm_b32`` on the convert's line
    (:func:`linlayout.lowering.round_trip_pack.stored_word_permutes` with ``merged``).

    Attributes:
        words: such words per thread; each one that merges adds one ``v_perm_b32``.
        permutes: the convert's ``v_perm_b32`` per thread if every one of them merges (the
            op's own count plus ``words``); between the two when only some do.
    """

    words: int
    permutes: Emitted


@dataclass(frozen=True)
class PermuteRange:
    """The range of ``v_perm_b32`` per thread LLVM may spend on a convert's line where it
    packs bytes in ways the TTGIR does not decide (AMD, 8-bit): which of two spellings its
    instruction selection picks for a pair of loaded bytes in 16-bit slots
    (:func:`linlayout.lowering.amd_pack.pack_permute_bounds`), or whether it builds a
    round trip's stored words on the convert's line or on the store's
    (:func:`linlayout.lowering.round_trip_pack.stored_word_bounds`). The op's own count
    (``per_thread``) lies between ``low`` and ``high``; a byte-store merge
    (:class:`StoreMerge`) adds its words on top.

    Attributes:
        per_thread: the op's ``v_perm_b32`` as ``check`` counts them.
        low, high: the fewest and the most the final AMDGCN may have.
        reasons: why, one text per kind of packing left open.
    """

    per_thread: int
    low: int
    high: int
    reasons: tuple[str, ...]


@dataclass(frozen=True)
class OpReport:
    """The verdict on one op.

    Attributes:
        access: the :class:`~linlayout.triton.ttgir.Access` (line, op, types, source).
        status: how far the analysis got (:class:`OpStatus`).
        instructions: the predicted :class:`InstructionReport` s, stores first.
        note: how the instructions were decided, why a value is missing, or what the
            suggestion is based on.
        target: the module's :class:`~linlayout.check.target.Target`.
        suggestion: a better shared layout for this op's buffer (accesses of degree > 1), or
            None.
        suggestion_instructions: the instructions Triton would emit for this access under the
            suggestion (the vectorisation it gains or loses), else empty.
        alternative: for converts through shared memory, the synthesized scratch layout
            (:class:`Alternative`), else None.
        convert_saving: for converts, linlayout's register/shuffle plan where it costs less
            than Triton's path (:class:`~linlayout.check.conversion.ConvertSaving`), else None.
        may_merge: for a convert whose result Triton stores byte by byte, the register
            instructions if LLVM's SelectionDAG merges those bytes into words
            (:class:`StoreMerge`), where that changes them; else None. The op's
            ``instructions`` count no merge.
        may_pack: for an AMD 8-bit convert whose byte packing LLVM may spell with more or
            fewer ``v_perm_b32`` than counted (:class:`PermuteRange`), else None.
    """

    access: Access
    status: OpStatus
    instructions: tuple[InstructionReport, ...] = ()
    note: str = ""
    target: Target | None = field(default=None, compare=False)
    suggestion: Suggestion | None = None
    suggestion_instructions: tuple[Emitted, ...] = ()
    alternative: Alternative | None = None
    convert_saving: ConvertSaving | None = None
    may_merge: StoreMerge | None = None
    may_pack: PermuteRange | None = None

    @property
    def uses_shared(self) -> bool:
        """False for ops that stay in registers, shuffles or tensor memory."""
        return self.status is not OpStatus.NO_SHARED_MEMORY

    @property
    def fault(self) -> AccessFault | None:
        """The first faulting vector of the op's first misaligned instruction, or None."""
        return next((i.fault for i in self.instructions if i.fault is not None), None)

    @property
    def not_counted(self) -> tuple[InstructionReport, ...]:
        """The op's legal lane accesses the bank counter could not count."""
        return tuple(i for i in self.instructions if i.not_counted)

    @property
    def reports(self) -> tuple[ConflictReport, ...]:
        """The counted instructions' reports."""
        return tuple(i.report for i in self.instructions if i.report is not None)

    @property
    def degree(self) -> int | None:
        """The worst conflict degree of the counted instructions (1 = conflict-free), or None
        when nothing is counted."""
        return max((r.degree for r in self.reports), default=None)

    @property
    def vector_elems(self) -> int | None:
        """Elements per lane of the first counted instruction, or None."""
        return next((i.emitted.vector_elems for i in self.instructions
                     if i.report is not None), None)

    @property
    def report(self) -> ConflictReport | None:
        """The one counted instruction's report of a load or store, else None."""
        reps = self.reports
        return reps[0] if self.access.kind in ("store", "load") and len(reps) == 1 else None

    def _side(self, side: str) -> ConflictReport | None:
        if self.access.kind != "convert":
            return None
        return next((i.report for i in self.instructions
                     if i.report is not None and i.emitted.side == side), None)

    @property
    def store(self) -> ConflictReport | None:
        """The store side of a convert through shared memory, else None."""
        return self._side("store")

    @property
    def load(self) -> ConflictReport | None:
        """The load side of a convert through shared memory, else None."""
        return self._side("load")

    @property
    def wavefronts_per_instruction(self) -> int | None:
        """Wavefronts of one warp-level instruction of a load or store (None for converts and
        ops with several instructions)."""
        return None if self.report is None else self.report.wavefronts_per_instruction

    @property
    def instructions_per_warp(self) -> int | None:
        """Instructions one warp issues for the whole tile (all counted instructions)."""
        reps = self.reports
        return sum(r.instructions_per_warp for r in reps) if reps else None

    @property
    def wavefronts_per_warp(self) -> int | None:
        """Wavefronts one warp pays for the whole tile (all counted instructions)."""
        reps = self.reports
        return sum(r.wavefronts_per_warp for r in reps) if reps else None

    @property
    def wavefront_floor(self) -> int | None:
        """The fewest wavefronts the bytes a warp moves could take."""
        reps = self.reports
        return sum(r.wavefront_floor for r in reps) if reps else None


@dataclass(frozen=True)
class KernelTotals:
    """Whole-kernel totals (straight-line code: each op once, loop bodies not multiplied).

    Attributes:
        per_thread: ``{opcode: instructions per thread}``, sorted by opcode.
        shared_bytes_per_thread: ``{"load": bytes, "store": bytes}`` per thread.
        instructions_per_warp, wavefronts_per_warp, wavefront_floor: sums over the counted
            instructions.
        ops: ops reported.
        not_analysed: ops whose status is :attr:`OpStatus.NOT_ANALYSED`.
    """

    per_thread: dict[str, int]
    shared_bytes_per_thread: dict[str, int]
    instructions_per_warp: int
    wavefronts_per_warp: int
    wavefront_floor: int
    ops: int
    not_analysed: int

    @classmethod
    def of(cls, ops: Sequence[OpReport]) -> KernelTotals:
        """The totals of ``ops``."""
        per: Counter = Counter()
        nbytes = {"load": 0, "store": 0}
        ins = wf = floor = skipped = 0
        for r in ops:
            skipped += r.status is OpStatus.NOT_ANALYSED
            for i in r.instructions:
                e = i.emitted
                if e.per_thread is None:
                    continue
                per[e.opcode] += e.per_thread
                if e.side in nbytes:
                    nbytes[e.side] += e.bytes_per_thread
            if r.instructions_per_warp is not None:
                ins += r.instructions_per_warp
                wf += r.wavefronts_per_warp or 0
                floor += r.wavefront_floor or 0
        return cls(dict(sorted(per.items())), nbytes, ins, wf, floor, len(ops), skipped)


@dataclass(frozen=True)
class KernelReport:
    """Every op of one TTGIR module, with the hardware it was counted on.

    Attributes:
        file: the path or name the module was read from (None for anonymous text).
        target: the module's ``ttg.target`` text (``"cuda:90"``, ``"hip:gfx942"``), or None.
        threads_per_warp: ``ttg.threads-per-warp``.
        section: the ``MLIR_ENABLE_DUMP`` section analysed, or None.
        hardware: the bank model every count used.
        ops: one :class:`OpReport` per op, in file order.
        global_ops: one :class:`~linlayout.check.global_memory.GlobalOpReport` per
            global-memory op (``tt.load``/``tt.store``/atomics/``cp.async``/AMD buffer ops),
            in file order.
    """

    file: str | None
    target: str | None
    threads_per_warp: int
    section: str | None
    hardware: HardwareModel
    ops: tuple[OpReport, ...]
    global_ops: tuple[GlobalOpReport, ...] = ()

    @property
    def totals(self) -> KernelTotals:
        """The whole-kernel totals (:class:`KernelTotals`)."""
        return KernelTotals.of(self.ops)

    @property
    def worst_degree(self) -> int | None:
        """The worst conflict degree over every counted op, or None when none is counted."""
        return max((r.degree for r in self.ops if r.degree is not None), default=None)

    @property
    def misaligned(self) -> tuple[OpReport, ...]:
        """The ops whose emitted instructions fault on their buffer
        (:attr:`OpStatus.MISALIGNED`): a ``check`` with any fails."""
        return tuple(r for r in self.ops if r.status is OpStatus.MISALIGNED)

    @property
    def not_counted(self) -> tuple[InstructionReport, ...]:
        """Every legal lane access of the module the bank counter could not count
        (:attr:`OpReport.not_counted`); named-only ops and private scratch without a layout
        are not among them."""
        return tuple(i for r in self.ops for i in r.not_counted)
