"""Text and JSON of the global-memory rows of ``linlayout check``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .report import GlobalOpReport

__all__ = ["global_dict", "global_notes", "global_rows", "global_totals"]


def _instruction(g: GlobalOpReport, key: str) -> dict:
    p = g.prediction
    assert p is not None
    c = g.cost
    d = {"space": "global", "side": p.side, key: p.opcode, "per_thread": p.per_thread,
         "vector_elems": p.vector_elems, "vector_bytes": p.vector_bytes,
         "sector_bytes": c.sector_bytes if c else None,
         "sectors_per_request": c.sectors_per_instruction if c else None,
         "lines_per_request": c.lines_per_instruction if c else None,
         "sectors_per_warp": c.sectors_per_warp if c else None,
         "sector_floor": c.sector_floor if c else None,
         "efficiency": round(c.efficiency, 4) if c else None,
         "coalesced": c.coalesced if c else None}
    m = p.may_merge
    if m is not None:
        d["may_merge"] = {key: m.opcode, "per_thread": m.per_thread,
                          "vector_elems": m.vector_elems, "vector_bytes": m.vector_bytes,
                          "run": m.run}
    if p.loop_load is not None:
        d["loop_load"] = {key: p.loop_load[0], "per_thread": p.loop_load[1]}
    return d


def _fallbacks(g: GlobalOpReport, key: str) -> list[dict]:
    """The JSON entries of an op's run-time fallback instructions (one element each, marked
    ``"fallback": true``; sectors not counted)."""
    p = g.prediction
    assert p is not None
    nbytes = max(1, p.element_bits // 8)
    return [{"space": "global", "side": p.side, key: opcode, "per_thread": n,
             "vector_elems": 1, "vector_bytes": nbytes, "sector_bytes": None,
             "sectors_per_request": None, "lines_per_request": None,
             "sectors_per_warp": None, "sector_floor": None, "efficiency": None,
             "coalesced": None, "fallback": True} for opcode, n in p.fallbacks]


def global_dict(g: GlobalOpReport, nvidia: bool) -> dict:
    """The JSON object of one global op: ``line, op, pointer, mask, element_type, contiguity,
    mask_alignment, instructions: [{"space": "global", "side", "ptx"|"isa", "per_thread",
    "vector_elems", "vector_bytes", "sector_bytes" (32 on NVIDIA; on AMD 128: a vector-L1
    cache line), "sectors_per_request", "lines_per_request",
    "sectors_per_warp", "sector_floor", "efficiency", "coalesced"}], status`` (+ ``note``,
    ``suggestion``); on AMD an instruction LLVM's back end may merge carries
    ``"may_merge": {"isa", "per_thread", "vector_elems", "vector_bytes", "run"}`` (the
    instruction if every thread's run merges; its own fields stay Triton's IR); an AMD atomic
    LLVM expands into compare-and-swap loops carries ``"loop_load": {"isa", "per_thread"}``
    (the load of the word each loop begins with, not in Triton's IR); an op with
    run-time fallback instructions (an AMD 16-bit float add) lists them after its own, each
    with ``"fallback": true``."""
    key = "ptx" if nvidia else "isa"
    p = g.prediction
    out = {"line": g.op.line, "op": g.op.short, "pointer": g.op.pointer, "mask": g.op.mask,
           "element_type": g.op.element_type,
           "contiguity": p.contiguity if p else None,
           "mask_alignment": p.mask_alignment if p else None,
           "instructions": [_instruction(g, key)] + _fallbacks(g, key) if p else [],
           "status": "not analysed" if p is None else
           ("counted" if g.cost is not None else "not counted")}
    if g.note:
        out["note"] = g.note
    if g.suggestion:
        out["suggestion"] = g.suggestion
    return out


def global_totals(ops: Sequence[GlobalOpReport]) -> dict:
    """Whole-kernel global totals: ``per_thread`` by opcode (run-time fallbacks included: the
    static code; Triton's IR, no merge by LLVM's back end and no compare-and-swap loop's load
    counted),
    ``global_bytes_per_thread`` (load/store/atomic; an op's fallbacks move the same elements
    as its own instruction and add none), ``sectors_per_warp`` and
    ``sector_floor`` over the counted ops, ``ops`` and ``not_analysed``."""
    per: Counter = Counter()
    nbytes = {"load": 0, "store": 0, "atomic": 0}
    sectors = floor = skipped = 0
    for g in ops:
        p = g.prediction
        if p is None:
            skipped += 1
            continue
        per[p.opcode] += p.per_thread
        nbytes[p.side] += p.per_thread * p.vector_bytes
        for opcode, n in p.fallbacks:  # static instructions; their bytes are the op's own
            per[opcode] += n
        if g.cost is not None:
            sectors += g.cost.sectors_per_warp
            floor += g.cost.sector_floor
    return {"per_thread": dict(sorted(per.items())), "global_bytes_per_thread": nbytes,
            "sectors_per_warp": sectors, "sector_floor": floor, "ops": len(ops),
            "not_analysed": skipped}


def global_rows(ops: Sequence[GlobalOpReport]) -> list[tuple]:
    """The rows of a kernel's global ops in ``check``'s one table per kernel: ``(line, source,
    op, "global", "instruction x per thread" (run-time fallbacks after a ``+``; on AMD
    ``(may merge: wider x n)`` where LLVM's back end may merge the thread's runs, ``(loop
    load: global_load_dword x n)`` for an atomic's compare-and-swap loops), vector_elems,
    type, degree "-", instr/warp "-", wavefronts/warp "-", sectors/request, sectors/warp,
    efficiency, status)``, one per op."""
    rows = []
    for g in ops:
        p, c = g.prediction, g.cost
        source = "-" if g.op.source is None else g.op.source
        if p is None:
            rows.append((g.op.line, source, g.op.short, "global", "-", "-", g.op.element_type,
                         "-", "-", "-", "-", "-", "-", "skipped"))
            continue
        instr = " + ".join(f"{o} x{n}" for o, n in p.instructions())
        if p.may_merge is not None:
            instr += f" (may merge: {p.may_merge.opcode} x{p.may_merge.per_thread})"
        if p.loop_load is not None:
            instr += f" (loop load: {p.loop_load[0]} x{p.loop_load[1]})"
        rows.append((g.op.line, source, g.op.short, "global", instr,
                     p.vector_elems, g.op.element_type, "-", "-", "-",
                     "-" if c is None else c.sectors_per_instruction,
                     "-" if c is None else c.sectors_per_warp,
                     "-" if c is None else f"{c.efficiency:.2f}",
                     "" if c is None or c.coalesced else "uncoalesced"))
    return rows


def global_notes(ops: Sequence[GlobalOpReport]) -> list[str]:
    """The notes and suggestions of a kernel's global ops (a note shared by several ops is
    printed once) and its global totals per thread and per warp (sectors and their floor);
    empty when the kernel has none."""
    if not ops:
        return []
    lines = []
    notes: dict[str, list[int]] = {}
    for g in ops:
        if g.note:
            notes.setdefault(g.note, []).append(g.op.line)
    for note, at in notes.items():
        lines.append(f"  line {', '.join(map(str, at))}: {note}")
    for g in ops:
        if g.suggestion:
            lines.append(f"  line {g.op.line} suggestion: {g.suggestion}")
    t = global_totals(ops)
    per = ", ".join(f"{op} x{n}" for op, n in t["per_thread"].items()) or "-"
    b = t["global_bytes_per_thread"]
    lines.append(f"  global totals per thread: {per}; global bytes per thread: load "
                 f"{b['load']}, store {b['store']}, atomic {b['atomic']}")
    lines.append(f"  global totals per warp: {t['sectors_per_warp']} sectors "
                 f"(floor {t['sector_floor']})")
    return lines
