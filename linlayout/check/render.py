"""``linlayout check``'s two renderings of its results: text (:func:`render_text`) and JSON
(:func:`to_json`, :func:`render_json`).

The JSON of one file::

    {"file": "k.ttgir", "target": "cuda:90", "threads_per_warp": 32, "hardware": "NVIDIA",
     "section": null, "ops": [op, …], "totals": {…}, "global_ops": [global op, …],
     "global_totals": {…}}

or, for a file that could not be read, ``{"file": …, "error": "…"}``. Each op carries
``"instructions": [{"side": "store"|"load"|…, "ptx"|"isa": opcode, "per_thread": N,
"vector_elems": v, "degree": d, "wavefronts_per_warp": w}, …]`` (``ptx`` on NVIDIA targets,
``isa`` on AMD; ``"warps_executing": n`` where only ``n`` of the CTA's warps execute the
instruction, ``"may_sink": {"per_thread", "warps_executing", "wavefronts_per_warp"}`` where
ptxas's scheduler may make the last loads run in fewer warps; a shared-memory entry has ``"space": "shared"``; an instruction that stays in registers — a convert's warp shuffles, selects
and byte permutes, ``"side": "shuffle"|"select"|"permute"`` — has ``"space": "register"``), its ``"source"`` (``file.py:line`` from ``loc``), and ``"suggestion"`` /
``"alternative"`` when a better layout exists, ``"may_merge": {"words", "isa", "per_thread"}``
where LLVM's SelectionDAG may merge the byte stores of the convert's result (AMD: each of
``words`` merged words adds one ``v_perm_b32`` on the convert's line; ``per_thread``: all
merged, :class:`~linlayout.check.report.StoreMerge`), ``"may_pack": {"isa", "per_thread",
"low", "high", "reasons"}`` where LLVM may pack the convert's bytes with fewer or more
``v_perm_b32`` than counted (AMD: the final count lies in ``low … high``, plus any
``may_merge`` words; :class:`~linlayout.check.report.PermuteRange`), and its ``"status"`` (the
:class:`~linlayout.check.report.OpStatus` value: ``"counted"``, ``"misaligned"``,
``"not counted"``, ``"no shared memory"``, ``"not analysed"``); a misaligned op carries
``"fault": {"warp", "lane", "register", "byte_address", "reason"}`` (its first illegal
vector) and fails the run. Each global op (``tt.load``, ``tt.store``, atomics, ``cp.async``,
AMD buffer ops: :mod:`linlayout.check.global_memory`) carries ``"instructions"`` entries with
``"space": "global"``, ``"sectors_per_request"`` and ``"efficiency"``; global inefficiency is
reported, never a failure. The document ``linlayout check --json`` prints, for one file or
several, lists them in the order given, each op once (under its file)::

    {"schema_version": 1, "files": [file, …], "max_degree": K, "worst_degree": d,
     "ok": bool, "complete": bool, "not_counted": n, "not_analysed": m, "strict": bool,
     "errors": n}

``"ok"`` is false when an op is misaligned or the worst degree exceeds ``max_degree``, and
with ``strict`` also when the run is not ``"complete"`` (:func:`~linlayout.check.files.passes`):
``"complete"`` is false when a lane access could not be counted (``"not_counted"`` of them)
or an op could not be analysed (``"not_analysed"``) — :func:`~linlayout.check.files.complete`. Its JSON Schema is
``linlayout/data/schemas/check.json`` (:func:`linlayout.show.schemas.schema`).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._checks import as_int, sequence_of
from ..show.schemas import versioned
from ..show.text import dumps, table
from .registers.private import SLP_NOTE
from ..lowering.convert import REGISTER_SIDES
from ..lowering.emitted import Emitted
from .global_memory.render import global_dict, global_notes, global_rows, global_totals
from .files import (FileError, complete, misaligned_ops, not_analysed_ops,
                    not_counted_instructions, passes, worst_degree)
from .report import Alternative, InstructionReport, KernelReport, KernelTotals, OpReport, OpStatus

__all__ = ["kernel_dict", "op_dict", "render_json", "render_text", "to_json", "totals_dict"]


def _opcode_key(report: OpReport) -> str:
    return "isa" if report.target is not None and not report.target.is_nvidia else "ptx"


def _instruction_dict(i: InstructionReport, key: str) -> dict:
    e = i.emitted
    d = {"space": "shared", "side": e.side, key: e.opcode, "per_thread": e.per_thread,
         "vector_elems": e.vector_elems,
         "degree": i.report.degree if i.report else None,
         "wavefronts_per_warp": i.report.wavefronts_per_warp if i.report else None}
    if i.report is not None:
        d["instructions_per_warp"] = i.report.instructions_per_warp
        d["wavefronts_per_instruction"] = i.report.wavefronts_per_instruction
    if i.note:
        d["note"] = i.note
    if i.warps_executing is not None:
        d["warps_executing"] = i.warps_executing
    if i.may_sink is not None and i.may_sink.report is not None:
        d["may_sink"] = {"per_thread": i.may_sink.emitted.per_thread,
                         "warps_executing": i.may_sink.warps_executing,
                         "wavefronts_per_warp": i.may_sink.report.wavefronts_per_warp}
    if e.side in REGISTER_SIDES:
        d["space"] = "register"
    return d


def _emitted_dict(e: Emitted, key: str) -> dict:
    return {"side": e.side, key: e.opcode, "per_thread": e.per_thread,
            "vector_elems": e.vector_elems}


def _alternative_dict(a: Alternative) -> dict:
    return {"layout": a.layout, "vector_elems": a.vector_elems, "degree": a.degree,
            "wavefronts_per_warp": a.wavefronts_per_warp,
            "instructions_per_warp": a.instructions_per_warp,
            "saving": {"wavefronts_per_warp": a.saving_wavefronts_per_warp,
                       "instructions_per_warp": a.saving_instructions_per_warp}}


def op_dict(r: OpReport) -> dict:
    """The JSON object of one op: ``line, source, op, kind, result, memdesc, element_type,
    element_bits, uses_shared_memory, instructions[...], vector_elems, degree,
    wavefronts_per_instruction, instructions_per_warp, wavefronts_per_warp, wavefront_floor,
    suggestion`` (+ ``suggestion_degree``, ``suggestion_instructions``, ``alternative``,
    ``convert_saving``, ``may_merge``, ``may_pack``, ``note``), ``status`` (+ ``fault`` for a misaligned
    op)."""
    a = r.access
    key = _opcode_key(r)
    out = {
        "line": a.line,
        "source": a.source,
        "op": a.op,
        "kind": a.kind,
        "result": a.result,
        "memdesc": a.memdesc,
        "element_type": a.element_type,
        "element_bits": a.element_bits,
        "uses_shared_memory": r.uses_shared,
        "instructions": [_instruction_dict(i, key) for i in r.instructions],
        "vector_elems": r.vector_elems,
        "degree": r.degree,
        "wavefronts_per_instruction": r.wavefronts_per_instruction,
        "instructions_per_warp": r.instructions_per_warp,
        "wavefronts_per_warp": r.wavefronts_per_warp,
        "wavefront_floor": r.wavefront_floor,
        "suggestion": r.suggestion.text if r.suggestion else None,
    }
    if r.suggestion is not None:
        out["suggestion_degree"] = r.suggestion.degree
        out["suggestion_instructions"] = [_emitted_dict(e, key)
                                          for e in r.suggestion_instructions]
    if r.alternative is not None:
        out["alternative"] = _alternative_dict(r.alternative)
    if r.convert_saving is not None:
        out["convert_saving"] = r.convert_saving.to_dict()
    if r.may_merge is not None:
        e = r.may_merge.permutes
        out["may_merge"] = {"words": r.may_merge.words, key: e.opcode,
                            "per_thread": e.per_thread}
    if r.may_pack is not None:
        e = r.may_pack
        out["may_pack"] = {key: "v_perm_b32", "per_thread": e.per_thread, "low": e.low,
                           "high": e.high, "reasons": list(e.reasons)}
    if r.note:
        out["note"] = r.note
    out["status"] = r.status.value
    f = r.fault
    if f is not None:
        out["fault"] = {"warp": f.warp, "lane": f.lane, "register": f.register,
                        "byte_address": f.byte_address, "reason": f.reason}
        if f.block:
            out["fault"]["block"] = f.block
    return out


def totals_dict(t: KernelTotals) -> dict:
    """The JSON object of whole-kernel totals (:class:`~linlayout.check.report.KernelTotals`
    field names)."""
    return {"per_thread": dict(t.per_thread),
            "shared_bytes_per_thread": dict(t.shared_bytes_per_thread),
            "instructions_per_warp": t.instructions_per_warp,
            "wavefronts_per_warp": t.wavefronts_per_warp, "wavefront_floor": t.wavefront_floor,
            "ops": t.ops, "not_analysed": t.not_analysed}


def kernel_dict(k: KernelReport | FileError) -> dict:
    """The JSON object of one checked file (see the module docstring)."""
    if isinstance(k, FileError):
        return {"file": k.file, "error": k.message}
    nvidia = k.target is None or not k.target.startswith("hip")
    return {"file": k.file, "target": k.target, "threads_per_warp": k.threads_per_warp,
            "hardware": k.hardware.name, "section": k.section,
            "ops": [op_dict(r) for r in k.ops], "totals": totals_dict(k.totals),
            "global_ops": [global_dict(g, nvidia) for g in k.global_ops],
            "global_totals": global_totals(k.global_ops)}


def to_json(results: Sequence[KernelReport | FileError], max_degree: int = 1,
            strict: bool = False) -> dict:
    """The JSON document of a ``check`` run over several files (module docstring).

    Args:
        results: one entry per file, in the order given.
        max_degree: the largest acceptable conflict degree (``ok`` compares against it).
        strict: ``check --strict``: ``ok`` also needs every access counted and every op
            analysed.

    Raises:
        LayoutError: ``results`` not reports, or ``max_degree`` not an int.

    Source: the versioned document of ``docs/cli.md``, "JSON output" (its JSON Schema ships in
    ``linlayout/data/schemas/check.json``).
    """
    results = sequence_of(results, (KernelReport, FileError), "results")
    max_degree = as_int(max_degree, "max_degree")
    files = [kernel_dict(k) for k in results]
    worst = worst_degree(results)
    errors = sum(isinstance(k, FileError) for k in results)
    return versioned({"files": files, "max_degree": max_degree, "worst_degree": worst,
                      "ok": passes(results, max_degree, bool(strict)),
                      "complete": complete(results),
                      "not_counted": not_counted_instructions(results),
                      "not_analysed": not_analysed_ops(results), "strict": bool(strict),
                      "errors": errors})


def render_json(results: Sequence[KernelReport | FileError], max_degree: int = 1,
                strict: bool = False) -> str:
    """:func:`to_json` as text (indented; lists of ints on one line).

    Raises:
        LayoutError: as :func:`to_json`.
    """
    return dumps(to_json(results, max_degree, strict))


def _cell(v) -> str:
    return "-" if v is None else str(v)


def _status(r: OpReport, max_degree: int) -> str:
    if r.status is OpStatus.MISALIGNED:
        return "MISALIGNED"
    if r.degree is not None and r.degree > max_degree:
        return "FAIL"
    if r.status is OpStatus.NOT_ANALYSED:
        return "skipped"
    if r.status is OpStatus.NO_SHARED_MEMORY:
        return "no smem"
    if r.not_counted:
        return "not counted"
    return ""


def _op_rows(r: OpReport, max_degree: int) -> list[tuple]:
    a = r.access
    flag = _status(r, max_degree)
    if not r.instructions:
        return [(a.line, _cell(a.source), a.op, "-", "-", "-", "-", _cell(r.degree), "-", "-",
                 "-", "-", "-", flag)]
    rows = []
    for k, i in enumerate(r.instructions):
        e = i.emitted
        rep = i.report
        count = f" x{e.per_thread}" if e.per_thread is not None else ""
        space = "register" if e.side in REGISTER_SIDES else "shared"
        rows.append((a.line if k == 0 else "", _cell(a.source) if k == 0 else "",
                     a.op if k == 0 else "", space, f"{e.opcode}{count}",
                     _cell(e.vector_elems), a.element_type if k == 0 else "",
                     _cell(rep.degree if rep else None),
                     _cell(rep.instructions_per_warp if rep else None),
                     _cell(rep.wavefronts_per_warp if rep else None), "-", "-", "-",
                     flag if k == 0 else ""))
    return rows


#: The columns of ``check``'s one table per kernel: shared-memory and register rows fill
#: degree to wavefronts, global rows sectors and efficiency.
COLUMNS = ("line", "source", "op", "space", "instruction x per thread", "vector (elems)",
           "type", "degree", "instr/warp", "wavefronts/warp", "sectors/request",
           "sectors/warp", "efficiency", "status")


def _notes(k: KernelReport) -> list[str]:
    lines = []
    seen = set()
    for r in k.ops:
        a = r.access
        s = r.suggestion
        if s and (a.root, s.text) not in seen:
            seen.add((a.root, s.text))
            lines.append(f"  suggestion for {a.root or a.memdesc} (line {a.line}): {s.text}"
                         f"  -> worst degree {s.degree}")
        if s and r.suggestion_instructions:
            now = ", ".join(f"{i.emitted.opcode} x{i.emitted.per_thread}"
                            for i in r.instructions)
            then = ", ".join(f"{e.opcode} x{e.per_thread}" for e in r.suggestion_instructions)
            if now != then:
                lines.append(f"    line {a.line} would become {then} (now {now})")
        elif r.degree is not None and r.degree > 1 and not s and r.note:
            lines.append(f"  line {a.line}: {r.note}")
        elif r.degree is None and r.status is OpStatus.NOT_ANALYSED:
            lines.append(f"  line {a.line}: {r.note}")
        for i in r.instructions:
            if i.fault is not None:
                lines.append(f"  line {a.line}: {i.emitted.opcode} {i.note}")
            elif i.not_counted:
                lines.append(f"  line {a.line}: {i.emitted.opcode} not counted: {i.note}")
            if i.warps_executing is not None or i.may_sink is not None:
                lines.append(f"  line {a.line}: {i.emitted.opcode} x{i.emitted.per_thread} "
                             f"{i.note}")
        if r.convert_saving is not None:
            lines.append(f"  line {a.line} convert: {r.convert_saving.text()}")
        if r.may_merge is not None:
            m = r.may_merge
            now = m.permutes.per_thread - m.words
            lines.append(f"  line {a.line} convert: Triton stores its result byte by byte; "
                         f"LLVM's SelectionDAG may merge a thread's bytes of a word into one "
                         f"store (DAGCombiner::mergeConsecutiveStores, word by word): "
                         f"{m.permutes.opcode} x{now} to x{m.permutes.per_thread} per thread "
                         f"(one per merged word of {m.words})")
        if r.may_pack is not None:
            p = r.may_pack
            lines.append(f"  line {a.line} convert: v_perm_b32 x{p.per_thread} counted; LLVM "
                         f"may spend x{p.low} to x{p.high} per thread ("
                         + "; ".join(p.reasons) + ")")
        if SLP_NOTE in r.note:
            lines.append(f"  line {a.line} reduce: {SLP_NOTE}")
        alt = r.alternative
        if alt and alt.saving_wavefronts_per_warp > 0:
            lines.append(f"  line {a.line} convert: Triton's scratch costs "
                         f"{r.wavefronts_per_warp} wavefronts / {r.instructions_per_warp} "
                         f"instructions per warp; synthesize_swizzle's "
                         f"{alt.wavefronts_per_warp} / {alt.instructions_per_warp} (saves "
                         f"{alt.saving_wavefronts_per_warp} wavefronts)")
    return lines


def _kernel_text(k: KernelReport, max_degree: int) -> list[str]:
    lines = [f"{k.file}  (target {k.target or '-'}, {k.hardware.name}"
             + (f", {k.section}" if k.section else "") + ")"]
    groups = [(r.access.line, 0, _op_rows(r, max_degree)) for r in k.ops]
    groups += [(row[0], 1, [row]) for row in global_rows(k.global_ops)]
    groups.sort(key=lambda g: (g[0], g[1]))
    if groups:
        lines.append(table(COLUMNS, [row for _, _, rows in groups for row in rows]))
    if not k.ops:
        lines.append("  no shared-memory accesses")
        return lines + global_notes(k.global_ops)
    lines.extend(_notes(k))
    t = k.totals
    per = ", ".join(f"{op} x{n}" for op, n in t.per_thread.items()) or "-"
    b = t.shared_bytes_per_thread
    lines.append(f"  totals per thread: {per}; shared bytes per thread: load {b['load']}, "
                 f"store {b['store']}")
    lines.append(f"  totals per warp: {t.instructions_per_warp} instructions, "
                 f"{t.wavefronts_per_warp} wavefronts (floor {t.wavefront_floor})")
    return lines + global_notes(k.global_ops)


def render_text(results: Sequence[KernelReport | FileError], max_degree: int = 1,
                strict: bool = False) -> str:
    """The text report of a ``check`` run: one table per readable file, one row per predicted
    instruction in line order — shared memory, registers (shuffles, selects, permutes) and
    global memory, told apart by the ``space`` column (:data:`COLUMNS`) — then its
    suggestions, faults, instructions not counted, and the shared and global totals per
    thread and per warp with their floors (wavefronts, sectors), then the verdict line:

    * ``ok: worst degree d <= --max-degree K`` — everything was counted and passes;
    * ``incomplete: worst degree d <= --max-degree K over what was counted; n instruction(s)
      not counted; m op(s) not analysed`` — it passes as far as it was counted, but some
      lane accesses were not counted or ops not analysed (never ``ok``);
    * ``FAIL: …`` — an op is misaligned (``n op(s) misaligned``), the worst degree exceeds
      ``K``, or, with ``strict``, the run is incomplete (`` (--strict)`` appended).

    Files that could not be read are counted in the verdict, not shown (the command line
    prints their errors on stderr). Empty when no file could be read.

    Raises:
        LayoutError: ``results`` not reports, or ``max_degree`` not an int.

    Source: what ``linlayout check`` prints (``docs/cli.md``, "check").
    """
    results = sequence_of(results, (KernelReport, FileError), "results")
    max_degree = as_int(max_degree, "max_degree")
    good = [k for k in results if isinstance(k, KernelReport)]
    if not good:
        return ""
    blocks = ["\n".join(_kernel_text(k, max_degree)) for k in good]
    worst = worst_degree(results)
    ok = passes(results, max_degree, bool(strict))
    whole = complete(results)
    errors = len(results) - len(good)
    bad = misaligned_ops(results)
    skipped = not_counted_instructions(results)
    unread = not_analysed_ops(results)
    head = f"{bad} op(s) misaligned (the instructions Triton emits fault); " if bad else ""
    tail = (" over what was counted" if not whole else "") \
        + (f"; {skipped} instruction(s) not counted" if skipped else "") \
        + (f"; {unread} op(s) not analysed" if unread else "") \
        + (" (--strict)" if strict and not whole and not ok else "") \
        + (f"; {errors} file(s) could not be read" if errors else "")
    word = "FAIL" if not ok else "ok" if whole else "incomplete"
    verdict = (f"{word}: {head}worst degree {worst} "
               f"{'<=' if worst <= max_degree else '>'} --max-degree {max_degree}{tail}")
    return "\n\n".join(blocks) + "\n" + verdict
