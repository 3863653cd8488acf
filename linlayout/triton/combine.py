"""Which operands each result of a ``tt.reduce`` combine region depends on.

A ``tt.reduce`` with ``n`` operands has a combine region with ``2n`` block arguments (the
accumulators ``0 … n-1``, then the new values ``n … 2n-1``) ending in ``tt.reduce.return``
with ``n`` values. Result ``j`` of the reduce depends on operand ``k`` when the ``j``-th
returned value is computed (through the region's SSA definitions) from argument ``k`` or
``n + k``: an argmin's index depends on the values (the comparison picks it), a pair of
independent sums does not. ``linlayout check`` uses this to know which of a reduction's
reloads Triton's lowering leaves dead when one result is unused.
"""

from __future__ import annotations

import re

__all__ = ["COMMUTATIVE", "combine_dependencies", "single_combiner"]

#: Combine ops whose operands may come in either order (MLIR's ``Commutative`` trait).
COMMUTATIVE = frozenset({"arith.addi", "arith.andi", "arith.ori", "arith.xori", "arith.muli",
                         "arith.minsi", "arith.minui", "arith.maxsi", "arith.maxui",
                         "arith.addf", "arith.mulf", "arith.maxnumf", "arith.minnumf",
                         "arith.maximumf", "arith.minimumf"})
_OPNAME = re.compile(r"^([\w.]+)\s+(.*)$")

_NAME = re.compile(r"%[\w$.-]+")
_ARG = re.compile(r"(%[\w$.-]+)\s*:")
_DEF = re.compile(r"^\s*(%[\w$.-]+(?:\s*:\s*\d+)?(?:\s*,\s*%[\w$.-]+)*)\s*=\s*(.*)$")
_RETURN = re.compile(r"^\s*(?:\"tt\.reduce\.return\"|tt\.reduce\.return)\b(.*)$")
#: Region text longer than this is not analysed (every result then depends on every operand).
MAX_REGION_CHARS = 200_000


def _strip_loc(line: str) -> str:
    i = line.find(" loc(")
    return line[:i] if i >= 0 else line


def combine_dependencies(region: str, operands: int) -> tuple[frozenset[int], ...] | None:
    """For each result of a ``tt.reduce``, the operand indices it depends on.

    Args:
        region: the text of the combine region, from the ``^bb0(…)`` line to the
            ``tt.reduce.return`` line (the op's first and closing lines excluded).
        operands: the number of operands ``n`` of the reduce.

    Returns:
        ``n`` frozensets (result ``j`` → operands it reads), or None when the region is not the
        flat, single-block form this reader understands (nested regions, a second block,
        no ``tt.reduce.return`` with ``n`` values, text over :data:`MAX_REGION_CHARS`) — the
        caller must then assume that every result depends on every operand.

    Source: the ``tt.reduce`` op definition (``include/triton/Dialect/Triton/IR/TritonOps.td``,
    Triton 3.9: ``combineOp`` region, ``tt.reduce.return``).
    """
    if not isinstance(region, str) or not isinstance(operands, int) or operands < 1 \
            or len(region) > MAX_REGION_CHARS:
        return None
    deps: dict[str, frozenset[int]] = {}
    returned: list[frozenset[int]] | None = None
    seen_block = False
    for raw in region.splitlines():
        line = raw.strip()
        if not line.startswith("^"):
            line = _strip_loc(line)
        if not line or line.startswith("//"):
            continue
        if line.startswith("^"):
            if seen_block:
                return None  # a second block: not the flat form
            seen_block = True
            args = _ARG.findall(line[line.find("(") + 1:])
            if len(args) != 2 * operands:
                return None
            for i, a in enumerate(args):
                deps[a] = frozenset({i % operands})
            continue
        if "{" in line or "}" in line:
            return None  # a nested region (scf.if …)
        m = _RETURN.match(line)
        if m:
            values = _NAME.findall(m.group(1).split(":", 1)[0])
            if len(values) != operands:
                return None
            returned = [deps.get(v, frozenset()) for v in values]
            continue
        m = _DEF.match(line)
        if m:
            used = frozenset().union(*(deps.get(v, frozenset())
                                       for v in _NAME.findall(m.group(2))))
            for r in _NAME.findall(m.group(1)):
                deps[r] = used
    if not seen_block or returned is None:
        return None
    return tuple(returned)


def single_combiner(region: str, operands: int) -> str | None:
    """The one combine op of a single-operand ``tt.reduce`` (``"arith.addi"``), or None.

    Triton's ``ReduceOp::getSingleCombiner`` (``lib/Dialect/Triton/IR/Ops.cpp``, Triton 3.9):
    one operand, and the returned value is defined by an op with two operands — the block's
    two arguments, in order, or swapped when the op is commutative (:data:`COMMUTATIVE`).
    Other ops in the region do not matter. ``region`` is the text
    :func:`combine_dependencies` reads; None also when it is not that flat form.
    """
    if operands != 1 or combine_dependencies(region, operands) is None:
        return None
    args: list[str] = []
    defs: dict[str, tuple[str, list[str]]] = {}
    returned = None
    for raw in region.splitlines():
        line = _strip_loc(raw.strip()) if not raw.strip().startswith("^") else raw.strip()
        if line.startswith("^"):
            args = _ARG.findall(line[line.find("(") + 1:])
            continue
        m = _RETURN.match(line)
        if m:
            values = _NAME.findall(m.group(1).split(":", 1)[0])
            returned = values[0] if values else None
            continue
        m = _DEF.match(line)
        if m:
            names = _NAME.findall(m.group(1))
            op = _OPNAME.match(m.group(2).strip())
            if len(names) == 1 and op:
                used = _NAME.findall(op.group(2).split(":", 1)[0])
                defs[names[0]] = (op.group(1).strip('"'), used)
    if returned not in defs or len(args) != 2:
        return None
    name, used = defs[returned]
    if used == args or (used == args[::-1] and name in COMMUTATIVE):
        return name
    return None
