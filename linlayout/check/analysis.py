"""``linlayout check``'s analysis: for every shared-memory op of a TTGIR module, the
instructions Triton 3.9.0 emits, their exact bank conflicts, and better layouts.

:func:`check_module` predicts each op's lowering with :mod:`linlayout.check.shared_memory`
(``ldmatrix``/``stmatrix``, ``ld/st.shared`` at Triton's vector, ``cp.async``, AMD
``ds_read``/``ds_write``/``ds_read_b64_tr_b16``/direct-to-LDS copies, Triton's own scratch
layout for ``convert_layout``, the private scratch of reductions, histograms and scalar
atomics; TMA copies, wgmma/tcgen05 operand reads and tensor-memory ops named without a count)
and counts every lane access exactly with :func:`linlayout.bank_conflicts` on the module's
hardware (``ttg.target``: NVIDIA, AMD CDNA3 for gfx942, CDNA4 for gfx950; ``hardware=``
overrides). A view (``memdesc_subslice``/``memdesc_index``) is analysed inside its
allocation: the offset of a view XORs every address with one constant, which moves no access
between banks; on a ``padded_shared`` buffer each vector's alignment is checked at the view's
offset (a dynamic stage index: every stage).

Better layouts:

* a buffer with an access of degree > 1 gets the cheapest layout Triton can express for all
  of its accesses (:func:`~linlayout.check.suggest.suggest_layout`), with the instructions
  Triton would then emit;
* a ``convert_layout`` through shared memory is counted as Triton executes it (its scratch
  layout) and :func:`linlayout.synthesize_swizzle`'s layout for the pair is shown beside it
  with the saving in wavefronts and instructions per warp.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import replace

from .._checks import instance_of
from ..errors import LayoutError
from ..hardware.access import AccessFault
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..synthesis import synthesize_swizzle
from ..triton.encodings.padded import PaddedSharedEncoding
from ..triton.to_triton import to_triton_text
from ..triton.ttgir import Access, TTGIRModule, buffer_root, find_accesses, view_parents
from .global_memory import check_global
from .registers import (MERGE_WORDS, load_sources, load_vectors, scalar_sources,
                        store_destinations, truncated_sources, wide_sources,
                        widen_split_loads)
from ..triton.axisinfo import analyse_axis_info
from ..triton.limits import MAX_MODULE_LINES
from .count import is_lane_access, side_fault, try_count
from ..lowering.emitted import Emitted
from .report import (Alternative, InstructionReport, KernelReport, OpReport, OpStatus,
                     PermuteRange, StoreMerge)
from ..lowering.vectorise import access_map, largest_vectorisation
from .shared_memory import Prediction
from .shared_memory.predict import PERMUTE_BOUNDS
from .shared_memory.ops import cached_copy, embed_in_buffer, module_target, predict_module
from .shared_memory.sunk_loads import executing_warps, sunk_loads_per_thread
from .suggest import BufferSide, skipped_search, suggest_layout
from .conversion import convert_saving
from ..lowering.target import Target

_RESULT = re.compile(r"^\s*(%[\w$.-]+)\s*=")

__all__ = ["check_module", "fault_note", "triton_vector_elems"]


def triton_vector_elems(dist: LinearLayout, memory: LinearLayout, element_bits: int) -> int:
    """The ``ld/st.shared`` vector width Triton's generic lowering picks for this access
    (``largestVectorisation``, Triton ``lib/Tools/LayoutUtils.cpp``: the largest ``v ≤ 128 /
    bits`` such that ``log2 v`` registers map exactly to offsets ``1 … v/2`` in any order and
    every other basis to a multiple of ``v``).

    Raises:
        LayoutError: the layouts do not fit together (different out dims, not a bijection).
    """
    return largest_vectorisation(access_map(dist, memory, element_bits))


def _report(a: Access, pred: Prediction, target: Target, hardware: HardwareModel) -> OpReport:
    instrs = []
    for side in pred.sides:
        lane = is_lane_access(side)
        fault = side_fault(side, hardware)
        if fault is not None:
            instrs.append(InstructionReport(side.emitted, None, fault_note(fault), fault, lane))
            continue
        rep, why = try_count(side, hardware)
        note = why
        if rep is None and not why and side.emitted.per_thread is not None \
                and side.emitted.side != "none":
            note = "not modelled by the bank counter"
        instrs.append(InstructionReport(side.emitted, rep, note, None, lane))
    instrs.extend(InstructionReport(e) for e in pred.registers)
    note = pred.note
    if not pred.analysed:
        status = OpStatus.NOT_ANALYSED
    elif not pred.uses_shared:
        status = OpStatus.NO_SHARED_MEMORY
    elif any(i.fault is not None for i in instrs):
        status = OpStatus.MISALIGNED
        bad = next(i for i in instrs if i.fault is not None)
        note = f"{bad.emitted.opcode} {bad.note}" + (f"; {note}" if note else "")
    elif any(i.not_counted for i in instrs) or not any(i.report is not None for i in instrs):
        status = OpStatus.NOT_COUNTED
    else:
        status = OpStatus.COUNTED
    return OpReport(a, status, tuple(instrs), note, target, may_merge=_store_merge(pred),
                    may_pack=_permute_range(pred))


def _store_merge(pred: Prediction) -> StoreMerge | None:
    """The other outcome of a convert whose byte stores LLVM's SelectionDAG may merge
    (:func:`.registers.pack_stored_words` left the words in ``extra``)."""
    words = pred.extra.get(MERGE_WORDS, 0)
    if not words:
        return None
    now = next((e for e in pred.registers if e.opcode == "v_perm_b32"), None)
    base = (now.per_thread or 0) if now is not None else 0
    return StoreMerge(words, Emitted("permute", "v_perm_b32", base + words, None, 32, 0, ""))


def _result_name(text: str) -> str | None:
    """The SSA name an op's text defines (``%x = …``), or None."""
    m = _RESULT.match(text)
    return m.group(1) if m else None


def _permute_range(pred: Prediction) -> PermuteRange | None:
    """The range of the convert's ``v_perm_b32`` LLVM may spend (``pred.extra`` holds its
    :data:`~.shared_memory.predict.PERMUTE_BOUNDS`), or None."""
    fewer, more, why = pred.extra.get(PERMUTE_BOUNDS, (0, 0, ()))
    if not fewer and not more:
        return None
    now = next((e for e in pred.registers if e.opcode == "v_perm_b32"), None)
    base = (now.per_thread or 0) if now is not None else 0
    return PermuteRange(base, max(0, base - fewer), base + more, tuple(why))


def _sink_loads(module: TTGIRModule, a: Access, r: OpReport, target: Target,
                stores: dict[int, tuple[int, int]]) -> OpReport:
    """Split off the ``ld.shared`` loads of ``r`` that ptxas sinks under the predicate of the
    store ending the kernel (:mod:`.shared_memory.sunk_loads`): they become their own entry,
    with the warps that execute them and, where free lane bits select its phases, the
    phases only storing lanes ask for."""
    loads = [k for k, i in enumerate(r.instructions)
             if i.emitted.side == "load" and i.emitted.opcode.startswith("ld.shared")]
    if len(loads) != 1:
        return r
    k = loads[0]
    ins = r.instructions[k]
    e, rep = ins.emitted, ins.report
    if rep is None or e.per_thread is None or not e.vector_elems \
            or rep.uneven_wavefronts_per_warp is not None:
        return r
    try:
        store = executing_warps(module, a, target)
    except LayoutError:
        return r
    if store is None or store.line not in stores:
        return r
    sunk = sunk_loads_per_thread(e.per_thread, e.vector_elems, *stores[store.line])
    if sunk == 0:
        return r
    warps = module.warps_at(a.line)[0] or 1
    per_phase = max(1, rep.lanes_per_phase)
    inside = store.free_lanes & (per_phase - 1)
    phase_bits = bin(store.free_lanes // per_phase).count("1")
    note = (f"runs in {store.warps} of {warps} warps: ptxas sinks it under the predicate of "
            "the store ending the kernel")
    if inside and rep.access_bits > 32:
        sunk_rep = replace(rep, instructions_per_warp=sunk,
                           bytes_per_warp=rep.bytes_per_warp * sunk // e.per_thread)
        note += ("; its wavefronts are counted as if every lane ran it (free lane bits inside "
                 "a phase of an 8- or 16-byte load: not measured)")
    else:
        phases = max(1, rep.phases >> phase_bits)
        sunk_rep = replace(rep, instructions_per_warp=sunk, phases=phases,
                           wavefronts_per_instruction=rep.wavefronts_per_instruction
                           * phases // rep.phases,
                           bytes_per_warp=rep.bytes_per_warp * sunk // e.per_thread
                           >> bin(store.free_lanes).count("1"))
        if phase_bits:
            note += (f"; only storing lanes run it: {phases} of its {rep.phases} phases")
    sunk_ins = replace(ins, emitted=replace(e, per_thread=sunk), report=sunk_rep,
                       warps_executing=store.warps,
                       note=f"{ins.note}; {note}" if ins.note else note)
    if not (sunk == e.per_thread == 1):
        # several loads, or a load feeding one of several stores: ptxas's scheduler decides
        # (measured both ways); count every warp running them, and give the other outcome
        may = (f"ptxas may sink the last {sunk} of these {e.per_thread} loads under the "
               "predicate of the store ending the kernel (its scheduler decides: measured "
               f"both ways): then they run in {store.warps} of {warps} warps, "
               f"{sunk_rep.wavefronts_per_warp} wavefront"
               f"{'s' if sunk_rep.wavefronts_per_warp != 1 else ''} per such warp")
        return replace(r, instructions=r.instructions[:k] + (
            replace(ins, may_sink=sunk_ins, note=f"{ins.note}; {may}" if ins.note else may),)
            + r.instructions[k + 1:])
    rest = []
    if e.per_thread > sunk:
        n = e.per_thread - sunk
        rest = [replace(ins, emitted=replace(e, per_thread=n),
                        report=replace(rep, instructions_per_warp=n,
                                       bytes_per_warp=rep.bytes_per_warp * n // e.per_thread))]
    instrs = r.instructions[:k] + tuple(rest) + (sunk_ins,) + r.instructions[k + 1:]
    op_note = f"{sunk} of its {e.opcode} per thread {note}"
    return replace(r, instructions=instrs, note=f"{r.note}; {op_note}" if r.note else op_note)


def fault_note(fault: AccessFault) -> str:
    """The note of a misaligned instruction: the first faulting thread and register, its byte
    address and why (``"misaligned: warp 0 lane 1 register 0, byte address 132: …"``)."""
    where = f"block {fault.block} " if fault.block else ""
    return (f"misaligned: {where}warp {fault.warp} lane {fault.lane} register "
            f"{fault.register}, byte address {fault.byte_address}: {fault.reason}")


def _alternative(a: Access, r: OpReport, hardware: HardwareModel) -> Alternative | None:
    """``synthesize_swizzle``'s layout for a convert, beside Triton's scratch: the cheapest
    layout as Triton lowers a ``local_alloc``/``local_load`` pair through it on the module's
    target (``lowering="triton"``), so the saving is what rewriting the convert that way
    really saves."""
    if r.wavefronts_per_warp is None or r.store is None or r.load is None:
        return None
    assert a.distributed is not None and a.destination is not None
    try:
        s = synthesize_swizzle(a.distributed.layout, a.destination.layout,
                               element_bits=max(8, a.element_bits), hardware=hardware,
                               lowering="triton",
                               target=r.target.name if r.target is not None else None)
    except LayoutError:
        return None
    wf = s.store.wavefronts_per_warp + s.load.wavefronts_per_warp
    ins = s.store.instructions_per_warp + s.load.instructions_per_warp
    try:
        text = to_triton_text(s.layout, a.element_bits if a.element_bits in (8, 16, 32, 64)
                              else None)
    except LayoutError:
        text = None
    return Alternative(text, s.vector_elems, max(s.store.degree, s.load.degree), wf, ins,
                       r.wavefronts_per_warp - wf, (r.instructions_per_warp or 0) - ins)


def check_module(module: TTGIRModule, *, hardware: HardwareModel | None = None,
                 suggest: bool = True) -> KernelReport:
    """Instructions and bank conflicts of every shared-memory op of ``module``.

    Args:
        module: from :func:`~linlayout.triton.ttgir.read_ttgir`.
        hardware: the bank model; default the module's (``ttg.target`` /
            ``ttg.threads-per-warp``: NVIDIA, AMD_CDNA3, AMD_CDNA4).
        suggest: compute better layouts (buffers with conflicts, converts).

    Returns:
        A :class:`~linlayout.check.report.KernelReport`: one
        :class:`~linlayout.check.report.OpReport` per op, in file order, and the hardware
        used. An op that cannot be analysed (a layout without a linear form) gets status
        :attr:`~linlayout.check.report.OpStatus.NOT_ANALYSED` and a note; it does not stop
        the file.

    Raises:
        LayoutError: an unknown ``ttg.target``; ``module`` not a TTGIR module; a module of
            more than :data:`~linlayout.triton.limits.MAX_MODULE_LINES` lines.

    Source: Triton 3.9.0's lowering of each op (module docstring; the rules and their checks
    against compiled kernels are in ``docs/triton-lowering.md``).
    """
    target = module_target(instance_of(module, TTGIRModule, "module"))
    lines = module.text.lstrip("\n").count("\n") + 1  # dump sections are padded with "\n"
    if lines > MAX_MODULE_LINES:
        raise LayoutError(f"{module.path or 'the module'}: {lines} lines; at most "
                          f"{MAX_MODULE_LINES} (MAX_MODULE_LINES) are analysed (a real kernel's "
                          "TTGIR has a few thousand): pass one kernel's TTGIR")
    hw = hardware or target.hardware()
    reports: list[OpReport] = []
    groups: dict[str, list[int]] = defaultdict(list)
    sides: dict[int, BufferSide] = {}
    axis = analyse_axis_info(module)
    global_ops = check_global(module, target, axis)
    async_vectors = {g.op.line: g.prediction.vector_elems for g in global_ops
                     if g.prediction is not None and g.op.short == "async_copy_global_to_local"}
    shared_vectors: dict[int, int] = {}
    stores = {g.op.line: (g.prediction.per_thread, g.prediction.vector_elems)
              for g in global_ops if g.prediction is not None and g.op.short == "store"
              and g.prediction.per_thread and g.prediction.vector_elems}
    sources = load_sources(module, axis)
    truncated = truncated_sources(module)
    # where a convert's operand sits, as predict_module prices its packing: the planner's
    # saving compares Triton's path and the plan with the same packing
    accesses = find_accesses(module)
    wide = wide_sources(accesses, target)
    packed = truncated | scalar_sources(accesses, target)
    # loads Triton emits narrower than a thread's run: LLVM may merge the runs or not, and
    # a convert of the result packs its bytes either way (AMD: its v_perm_b32 range)
    split = {name: sources[name] for g in global_ops
             if g.prediction is not None and g.prediction.may_merge is not None
             and g.op.short in ("load", "buffer_load")
             for name in [_result_name(g.op.text)] if name in sources}
    for a, pred in widen_split_loads(
            predict_module(module, target, async_vectors, sources, truncated,
                           store_destinations(module, axis),
                           load_vectors(module, target, axis)), split, target):
        if not isinstance(pred, LayoutError) and a.op == "async_copy_global_to_local":
            for side in pred.sides:
                if side.emitted.opcode.startswith("cp.async") and side.emitted.vector_elems:
                    shared_vectors[a.line] = side.emitted.vector_elems
        if isinstance(pred, LayoutError):
            reports.append(OpReport(a, OpStatus.NOT_ANALYSED, note=f"not analysed: {pred}",
                                    target=target))
            continue
        r = _report(a, pred, target, hw)
        if a.kind in ("convert", "load") and r.uses_shared:
            r = _sink_loads(module, a, r, target, stores)
        if a.kind == "convert" and suggest and r.degree is not None:
            r = replace(r, alternative=_alternative(a, r, hw))
        if a.kind == "convert" and suggest and a.op == "convert_layout" \
                and a.distributed is not None and a.destination is not None:
            operand = a.operands[0] if a.operands else None
            saving = convert_saving(a.distributed.layout, a.destination.layout,
                                    max(8, a.element_bits), target, hw,
                                    sources.get(operand) if operand else None,
                                    operand in packed, wide_source=operand in wide)
            if saving is not None:
                r = replace(r, convert_saving=saving)
        if a.kind in ("store", "load") and r.degree is not None \
                and not isinstance(a.memory.encoding, PaddedSharedEncoding):
            # padded buffers get no layout suggestion here
            assert a.memory is not None and a.distributed is not None
            idx = len(reports)
            async_copy = a.op in ("async_copy_global_to_local", "buffer_load_to_local")
            sides[idx] = BufferSide(a.line, a.kind,
                                    embed_in_buffer(a.distributed.layout, a.memory.layout),
                                    max(8, a.element_bits), async_copy,
                                    (a.max_vector_elems or (1 if a.masked else 0))
                                    if async_copy else None)
            groups[a.root or a.memdesc or f"line{a.line}"].append(idx)
        reports.append(r)
    if suggest:
        _suggest_buffers(module, reports, groups, sides, target, hw)
    if any(v < async_vectors.get(line, v) for line, v in shared_vectors.items()):
        # the destination's layout cut a cp.async narrower than AxisInfo's vector
        global_ops = check_global(module, target, axis, async_vectors=shared_vectors)
    return KernelReport(module.path, module.target, module.threads_per_warp, module.section,
                        hw, tuple(reports), global_ops)


def _under(side: BufferSide, layout: LinearLayout | None, target: Target
           ) -> tuple[Emitted, ...]:
    """The instructions of one access if its buffer had ``layout``."""
    if layout is None:
        return ()
    try:
        p = cached_copy(side.kind, side.dist, layout, side.bits, target, side.async_copy,
                        side.contiguity)
    except LayoutError:
        return ()
    return tuple(s.emitted for s in p.sides)


def _suggest_buffers(module: TTGIRModule, reports: list[OpReport],
                     groups: dict[str, list[int]], sides: dict[int, BufferSide],
                     target: Target, hw: HardwareModel) -> None:
    parents = view_parents(module)
    ttng = {buffer_root(n, parents) for n in module.ttng_uses}
    for root, members in groups.items():
        worst = max(reports[i].degree or 1 for i in members)
        if worst <= 1:
            continue
        first = reports[members[0]].access
        assert first.memory is not None
        skipped = skipped_search([sides[i] for i in members], first.memory.layout)
        try:
            best = None if skipped else suggest_layout(
                [sides[i] for i in members], first.memory.layout, target, hw, root in ttng,
                first.memory.encoding)
        except LayoutError:
            best = None
        for i in members:
            r = reports[i]
            if (r.degree or 1) <= 1:
                continue
            if skipped:
                reports[i] = replace(r, note=f"{r.note}; {skipped}".lstrip("; "))
            elif best is None:
                reports[i] = replace(r, note=f"{r.note}; no shared layout does better for all "
                                             f"accesses of buffer {root}".lstrip("; "))
            elif best.degree >= worst:
                reports[i] = replace(r, note=f"the best layout found ({best.basis}) is not "
                                             f"better: degree {best.degree}")
            else:
                reports[i] = replace(r, suggestion=best,
                                     note=f"suggestion for buffer {root}: {best.basis}",
                                     suggestion_instructions=_under(sides[i], best.layout,
                                                                    target))
