"""Bank conflicts of AMD LDS instructions (:mod:`linlayout.hardware.lds`).

:func:`lds_bank_conflicts` turns an instruction into what the generic counters take — a fixed
vector width, the instruction's bank model, and for transpose loads the addressed layout — and
counts with the closed form (or the simulator): :mod:`.closed_form` / :mod:`.simulate` for
linear memory, :mod:`.padded` for padded memory. :func:`~linlayout.bank_conflicts` and
:func:`~linlayout.simulate_bank_access` (:mod:`.dispatch`) also accept the mnemonics directly
(``instruction="ds_read_b128"``) and delegate here. This module is an adapter above the
engines and the padded adapter; none of them imports it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace

from .. import f2
from ..errors import LayoutError
from ..hardware.access import plan_access
from ..hardware.instructions import parse_instruction
from ..hardware.lds import lds_hardware, lds_instruction, transpose_address_layout
from ..hardware.model import AMD_CDNA4, HardwareModel, bank_model
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .closed_form import linear_bank_conflicts
from .padded import padded_bank_conflicts, simulate_padded_access
from .report import ConflictReport
from .simulate import simulate_access

__all__ = ["check_direct_to_lds", "lds_bank_conflicts"]


def lds_bank_conflicts(
    layout: LinearLayout,
    memory: LinearLayout | PaddedLayout,
    *,
    element_bits: int,
    instruction: str,
    hardware: HardwareModel | None = None,
    simulate: bool = False,
    vector_elems: int | None = None,
) -> ConflictReport:
    """Bank conflicts of one AMD LDS instruction kind moving ``layout`` to/from ``memory``.

    Args:
        layout: the distributed layout (for ``ds_read_b64_tr_b*``: the layout the lanes
            *receive*, e.g. a dot operand), wave64.
        memory: linear or :class:`~linlayout.layout.padded.PaddedLayout` shared layout.
        element_bits: bits per element; ``bytes_per_lane · 8`` must be a multiple.
        instruction: a mnemonic of :data:`linlayout.hardware.lds.LDS_INSTRUCTIONS`.
        hardware: ``AMD_CDNA3`` or ``AMD_CDNA4`` (default ``AMD_CDNA4``).
        simulate: count with the brute-force simulator instead of the closed form.
        vector_elems: must be None (the instruction fixes its width; accepted so that
            :func:`linlayout.bank_conflicts` can pass its own argument through).

    Returns:
        A :class:`ConflictReport` with ``instruction`` set to the mnemonic. For the dual
        ``ds_read2*``/``ds_write2*`` forms it describes one half (a b32/b64 access);
        ``instructions_per_warp`` counts halves, two per merged instruction.

    Raises:
        LayoutError: ``vector_elems`` given, unknown instruction, wrong hardware (see
            :func:`~linlayout.hardware.lds.lds_hardware`), an element width the instruction
            does not move, a layout that cannot use the instruction's vector, and for
            ``global_load_lds_*`` a memory layout that does not place lane ``l``'s vector at
            ``base + size·l`` (:func:`check_direct_to_lds`).

    Source: :mod:`linlayout.hardware.lds` (per instruction).
    """
    if vector_elems is not None:
        raise LayoutError(f"vector_elems does not apply to {instruction} (its width is fixed)")
    instr = lds_instruction(instruction)
    hw = lds_hardware(instr, AMD_CDNA4 if hardware is None else hardware)
    if instr.transpose_bits and element_bits != instr.transpose_bits:
        raise LayoutError(f"{instr.name} moves {instr.transpose_bits}-bit elements; "
                          f"element_bits is {element_bits}")
    bits = instr.bytes_per_lane * 8
    if element_bits > bits or bits % element_bits:
        raise LayoutError(f"{instr.name} moves {bits} bits per lane; {element_bits}-bit "
                          "elements do not fit")
    lay = transpose_address_layout(layout, element_bits) if instr.transpose_bits else layout
    if instr.direct:
        check_direct_to_lds(lay, memory, element_bits=element_bits,
                            bytes_per_lane=instr.bytes_per_lane)
    vector = bits // element_bits
    if simulate:
        model = bank_model(element_bits, hw)
        ld_st = parse_instruction(None)
        if isinstance(memory, PaddedLayout):
            rep = simulate_padded_access(lay, memory, model, ld_st, vector_elems=vector)
        else:
            rep = simulate_access(lay, memory, model, ld_st, vector_elems=vector)
    elif isinstance(memory, PaddedLayout):
        rep = padded_bank_conflicts(lay, memory, element_bits=element_bits,
                                    vector_elems=vector, hardware=hw)
    else:
        rep = linear_bank_conflicts(lay, memory, element_bits=element_bits,
                                    vector_elems=vector, hardware=hw)
    return replace(rep, instruction=instr.name)


def check_direct_to_lds(layout: LinearLayout, memory: LinearLayout | PaddedLayout, *,
                        element_bits: int, bytes_per_lane: int) -> None:
    """Check that a direct-to-LDS copy can write ``layout`` into ``memory``.

    ``global_load_lds_*`` writes lane ``l``'s ``bytes_per_lane`` bytes at ``M0 + size·l``, so
    in every instruction (every warp, block and register group) the lanes' vectors must be
    contiguous and in lane order in the (padded) buffer: padding only at ``64·size``-byte
    boundaries (Triton PR #7929; AMD ``Utility.cpp``: "lanes in a warp have to write
    contiguously to shared memory").

    Raises:
        LayoutError: a lane's vector elsewhere (the message names the lane and the address).
    """
    padded = memory if isinstance(memory, PaddedLayout) else None
    lin = padded.linear if padded is not None else memory
    plan = plan_access(layout, lin, 6)
    inv = f2.inverse(plan.memory_cols)
    table = padded.all_padded_offsets() if padded is not None else None
    mask = (1 << plan.offset_bits) - 1
    v = bytes_per_lane * 8 // element_bits

    def span(cols):
        return f2.images([f2.apply(inv, c) for c in cols])

    regs = span(plan.register)
    groups = defaultdict(list)
    for r in regs:
        groups[(r & mask) // v].append(r)
    lanes = span(plan.lane)
    for base in span(plan.warp + plan.block):
        for members in groups.values():
            starts = []
            for lane_off in lanes:
                offs = sorted({(base ^ lane_off ^ r) & mask for r in members})
                addr = [table[o] if table is not None else o for o in offs]
                if len(addr) != v or addr[-1] - addr[0] != v - 1:
                    raise LayoutError(f"global_load_lds: a lane's {bytes_per_lane} bytes are not "
                                      "contiguous in shared memory")
                starts.append(addr[0])
            for lane, s in enumerate(starts):
                if s != starts[0] + lane * v:
                    raise LayoutError(
                        f"global_load_lds writes lane {lane} at M0 + {lane * bytes_per_lane} "
                        f"bytes, but the memory layout puts its data at "
                        f"{(s - starts[0]) * element_bits // 8} bytes; lanes must write "
                        "contiguously in lane order (pad only at "
                        f"{64 * bytes_per_lane}-byte boundaries)")
