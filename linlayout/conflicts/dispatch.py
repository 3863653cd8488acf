"""The public counters: :func:`bank_conflicts` and :func:`simulate_bank_access`.

They route each access to the module that counts it, and add nothing else:

* an AMD LDS mnemonic as ``instruction`` → :mod:`.lds` (which counts on linear or padded
  memory);
* a :class:`~linlayout.layout.padded.PaddedLayout` as ``memory`` → :mod:`.padded`;
* anything else → the engines on linear layouts: :mod:`.closed_form` (Lemma 9.4 generalised)
  and :mod:`.simulate` (brute force).

Layering inside :mod:`linlayout.conflicts` (nothing imports upward): :mod:`.report` and the
access rule :mod:`linlayout.hardware.access` ← the engines :mod:`.closed_form`,
:mod:`.simulate` ← the adapter :mod:`.padded` ← the adapter :mod:`.lds` ← this module.
"""

from __future__ import annotations

from ..hardware.instructions import parse_instruction
from ..hardware.lds import is_lds_instruction
from ..hardware.model import HardwareModel, bank_model
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .closed_form import linear_bank_conflicts
from .lds import lds_bank_conflicts
from .padded import padded_bank_conflicts, simulate_padded_access
from .report import ConflictReport
from .simulate import simulate_access

__all__ = ["bank_conflicts", "simulate_bank_access"]


def bank_conflicts(
    layout: LinearLayout,
    memory: LinearLayout | PaddedLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
) -> ConflictReport:
    """Exact bank conflicts of a warp storing or loading ``layout`` into/from ``memory``.

    Args:
        layout: distributed layout, in dims among ``register, lane, warp, block`` → tensor out
            dims. A lane dim smaller than the warp is padded with broadcast (zero) lanes.
        memory: shared-memory layout, a bijection with in dims ``offset`` (elements)
            [+ ``block``] or ``vector, bank, segment`` [+ ``reps``] (flattened in that order)
            onto the same out dims with the same sizes; or a
            :class:`~linlayout.layout.padded.PaddedLayout` (counted by
            :func:`linlayout.conflicts.padded.padded_bank_conflicts`).
        element_bits: bits per element, a power of two from 1 to the widest access (128).
        vector_elems: elements per lane per instruction; default the widest ``2^k`` such that
            memory offsets ``0..2^k-1`` are held in one thread's registers, every lane's,
            warp's and block's run of offsets starts on a multiple of ``2^k`` (else no single
            instruction moves it), and ``2^k · element_bits`` fits the widest access (128 bits).
        hardware: a :class:`linlayout.hardware.HardwareModel` (default ``NVIDIA``; presets
            ``AMD_CDNA3``, ``AMD_CDNA4``; ``NVIDIA.with_banks(num_banks=16)`` for other bank
            counts): banks, bank words, warp size, widest access and phases.
        instruction: ``"ld.shared"`` (a load: a wide load whose lane pairs share an address is
            served packed) or ``"st.shared"``, vectorised; default None, the direction unstated,
            counted as a store (the report names it ``"ld/st.shared"`` whatever the
            direction); or a matrix
            instruction ``"ldmatrix.x4"``, ``"stmatrix.x2.trans"``, …
            (:mod:`linlayout.hardware.instructions`), or an AMD LDS mnemonic (``"ds_read_b128"``,
            ``"ds_read2_b64"``, ``"ds_read_b64_tr_b16"``, ``"global_load_lds_dwordx4"``, …;
            :mod:`linlayout.hardware.lds`, counted by
            :func:`linlayout.conflicts.lds.lds_bank_conflicts`, default hardware
            ``AMD_CDNA4``); ``vector_elems`` does not apply to those.

    Returns:
        A :class:`ConflictReport`: degree, wavefronts per instruction, vector width, phases,
        and the warp's whole-tile cost (instructions and wavefronts per warp, the bytes it
        moves and the floors they imply).

    Raises:
        LayoutError: invalid dims, sizes or parameters; a vector the registers cannot back; a
            lane whose access leaves its CTA's shared memory (memory ``block`` bits); a
            matrix instruction the layouts cannot use (the message says why).
        NotInvertibleError: the memory layout is not a bijection.

    Source: Lemma 9.4 of the Linear Layouts paper (arXiv 2505.23819), generalised to sub-word
    accesses (:mod:`.closed_form`); verified against :func:`simulate_bank_access`.
    """
    if instruction is not None and is_lds_instruction(instruction):
        return lds_bank_conflicts(layout, memory, element_bits=element_bits,
                                  instruction=instruction, hardware=hardware, simulate=False,
                                  vector_elems=vector_elems)
    if isinstance(memory, PaddedLayout):
        return padded_bank_conflicts(layout, memory, element_bits=element_bits,
                                     vector_elems=vector_elems, hardware=hardware,
                                     instruction=instruction)
    return linear_bank_conflicts(layout, memory, element_bits=element_bits,
                                 vector_elems=vector_elems, hardware=hardware,
                                 instruction=instruction)


def simulate_bank_access(
    layout: LinearLayout,
    memory: LinearLayout | PaddedLayout,
    *,
    element_bits: int,
    vector_elems: int | None = None,
    hardware: HardwareModel | None = None,
    instruction: str | None = None,
    limit: int | None = None,
) -> ConflictReport:
    """Count bank conflicts by enumerating every lane's words (the ground truth).

    Arguments, defaults, result and errors are those of :func:`linlayout.bank_conflicts`; the
    default vector width is found by enumerating the registers' span, and each lane's phase by
    evaluating the hardware's phase masks on its lane id. The cost is one step per
    (block, warp, register, lane) combination plus one per memory location, so keep tensors
    below ~2^16 elements. ``conflict_offsets`` is left empty.

    ``memory`` may be a :class:`~linlayout.layout.padded.PaddedLayout`: each element's offset
    then goes through the padding before it becomes a bank word, the default vector is capped
    by the padding, and (padding being non-linear) the report gives the worst phase and the
    worst instruction instead of requiring all to agree.

    For ldmatrix/stmatrix it replays the instruction: every lane's elements must sit where the
    instruction delivers them (16-byte rows, lane ``4r + j`` holding bytes ``4j…4j+3`` of row
    ``r``, or the ``.trans`` arrangement: PTX ISA §9.7.14.5.15 "ldmatrix" and §9.7.14.5.16
    "stmatrix"), and each matrix's 8 rows are one phase. The bank words and phases are those of
    the hardware model (``docs/hardware-model.md``); the count checks Lemma 9.4 of the Linear
    Layouts paper (arXiv 2505.23819) as :func:`linlayout.bank_conflicts` generalises it.

    ``limit`` (default :data:`~.simulate.MAX_SIMULATION_STEPS`) caps that work: memory locations plus
    (block, warp, register, lane) combinations; a larger access is refused up front.

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts`; the work exceeds ``limit`` (the
            message gives both and points to the closed form); or the instructions of one
            access disagree (impossible for linear layouts; a guard against bugs).
    """
    if is_lds_instruction(instruction):
        return lds_bank_conflicts(layout, memory, element_bits=element_bits,
                                  instruction=instruction, hardware=hardware, simulate=True,
                                  vector_elems=vector_elems)
    model = bank_model(element_bits, hardware)
    instr = parse_instruction(instruction)
    if isinstance(memory, PaddedLayout):
        return simulate_padded_access(layout, memory, model, instr, vector_elems=vector_elems,
                                      limit=limit)
    return simulate_access(layout, memory, model, instr, vector_elems=vector_elems,
                           limit=limit)
