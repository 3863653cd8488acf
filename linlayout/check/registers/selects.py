"""Selector selects shared between the shuffle converts of one function
(:func:`share_selector_selects`).

A warp-shuffle convert of 8- or 16-bit elements packed into words picks, per lane, the
selector of each lane-dependent ``prmt.b32`` with a select of two constants on a lane bit
(``transferWithinWarp`` in Triton 3.9's ``ConvertLayoutOpToLLVM.cpp``). That select depends
only on the lane id and the two constants, so two converts of one function that need the
same one emit the same LLVM-dialect operation twice, and the common subexpression
elimination Triton runs right after ``ConvertTritonGPUToLLVM`` (``make_llir`` in
``third_party/nvidia/backend/compiler.py``: ``add_cse``) keeps only the first — where the
first dominates the second. Triton has lowered ``scf`` to a control-flow graph by then
(``add_scf_to_cf``), so a convert before a loop or branch dominates the converts in its body
and after it, while one inside a loop body or a branch dominates only what follows it in
that body. This is Triton's own lowering (its LLVM IR before ``-O3`` has one select), not a
later LLVM pass.
"""

from __future__ import annotations

from dataclasses import replace

from ..._checks import string
from ..shared_memory.predict import Prediction, prediction_pairs

__all__ = ["region_paths", "share_selector_selects"]

#: the select opcodes a selector select is counted under (NVIDIA, AMD)
SELECT_OPCODES = ("selp.b32", "v_cndmask_b32")


def region_paths(text: str) -> dict[int, tuple[int, ...]]:
    """``{1-based line: the lines that open the regions enclosing it, outermost first}`` of
    an MLIR text, from its braces: a line ending in ``{`` opens a region (after the line
    itself is placed), one starting with ``}`` closes one first (``} else {`` does both).
    A block dominates another of the same function when its path is a prefix of the other's
    (straight-line code, ``scf.for``/``scf.if`` bodies as Triton lowers them to blocks).

    Raises:
        LayoutError: ``text`` is not a string.
    """
    string(text, "text")
    stack: list[int] = []
    out: dict[int, tuple[int, ...]] = {}
    for i, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if s.startswith("}") and stack:
            stack.pop()
        out[i] = tuple(stack)
        if s.endswith("{"):
            stack.append(i)
    return out


def share_selector_selects(pairs: list, text: str) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)`` in file order, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with each op's
    selector selects (``Prediction.extra["selector_selects"]``) that an earlier op of a
    dominating block (:func:`region_paths` of the module ``text``), or the same op, already
    emitted taken off its select count (``selp.b32`` / ``v_cndmask_b32``), and the note
    saying how many. Errors and ops without selector selects pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs; ``text`` is not a string.
    """
    prediction_pairs(pairs)
    paths = region_paths(text)
    seen: list[tuple[tuple[int, ...], tuple]] = []
    out = []
    for a, pred in pairs:
        keys = pred.extra.get("selector_selects", ()) if isinstance(pred, Prediction) else ()
        if not keys:
            out.append((a, pred))
            continue
        path = paths.get(a.line, ())
        shared, own = 0, []
        for key in keys:
            if key in own or any(k == key and path[:len(p)] == p for p, k in seen):
                shared += 1
            else:
                own.append(key)
        seen.extend((path, k) for k in own)
        if shared:
            pred = _fewer_selects(pred, shared)
        out.append((a, pred))
    return out


def _fewer_selects(pred: Prediction, shared: int) -> Prediction:
    regs, left = [], shared
    for e in pred.registers:
        if left and e.opcode in SELECT_OPCODES and e.per_thread:
            take = min(left, e.per_thread)
            left -= take
            e = replace(e, per_thread=e.per_thread - take)
        if e.per_thread != 0:
            regs.append(e)
    shared -= left
    if not shared:
        return pred
    note = (f"{shared} selector select{'s' if shared != 1 else ''} shared with an earlier "
            "convert (Triton's CSE after lowering)")
    return replace(pred, registers=tuple(regs), note=f"{pred.note}; {note}")
