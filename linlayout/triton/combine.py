"""Which operands each result of a ``tt.reduce`` combine region depends on.

A ``tt.reduce`` with ``n`` operands has a combine region with ``2n`` block arguments (the
accumulators ``0 … n-1``, then the new values ``n … 2n-1``) ending in ``tt.reduce.return``
with ``n`` values. Result ``j`` of the reduce depends on operand ``k`` when the ``j``-th
returned value is computed (through the region's SSA definitions) from argument ``k`` or
``n + k``: an argmin's index depends on the values (the comparison picks it), a pair of
independent sums does not. ``linlayout check`` uses this to know which of a reduction's
reloads Triton's lowering leaves dead when one result is unused.

With ``fold_equal_arms`` the dependencies are the ones LLVM's optimiser leaves (LLVM's
InstCombine, not Triton): an integer ``arith.select %c, %a, %b`` whose condition is an
``arith.ori`` of terms, some of which are an ``arith.andi`` with the factor
``arith.cmpi eq, %a, %b``, does not depend on those terms — when they hold, ``%a == %b`` and
both arms give the same integer, so InstCombine drops them once nothing else uses the
condition (an argmin's tie-break on equal values, ``lt | (eq & i1 < i2)``, becomes
``smin(a, b)``: the value no longer reads the index). Floats are left alone: equal floats
may differ (``-0.0 == +0.0``).
"""

from __future__ import annotations

import re

__all__ = ["COMMUTATIVE", "combine_dependencies", "combine_op_count", "single_combiner"]

#: Combine ops whose operands may come in either order (MLIR's ``Commutative`` trait).
COMMUTATIVE = frozenset({"arith.addi", "arith.andi", "arith.ori", "arith.xori", "arith.muli",
                         "arith.minsi", "arith.minui", "arith.maxsi", "arith.maxui",
                         "arith.addf", "arith.mulf", "arith.maxnumf", "arith.minnumf",
                         "arith.maximumf", "arith.minimumf"})
_OPNAME = re.compile(r"^([\w.]+)\s+(.*)$")

_NAME = re.compile(r"%[\w$.-]+")
_ARG = re.compile(r"(%[\w$.-]+)\s*:")
_DEF = re.compile(r"^\s*(%[\w$.-]+(?:\s*:\s*\d+)?(?:\s*,\s*%[\w$.-]+)*)\s*=\s*(.*)$")
_RETURN = re.compile(r"^\s*(?:\"tt\.(?:reduce|scan)\.return\"|tt\.(?:reduce|scan)\.return)\b(.*)$")
#: Region text longer than this is not analysed (every result then depends on every operand).
MAX_REGION_CHARS = 200_000


def _strip_loc(line: str) -> str:
    i = line.find(" loc(")
    return line[:i] if i >= 0 else line


def combine_dependencies(region: str, operands: int, fold_equal_arms: bool = False
                         ) -> tuple[frozenset[int], ...] | None:
    """For each result of a ``tt.reduce``, the operand indices it depends on.

    Args:
        region: the text of the combine region, from the ``^bb0(…)`` line to the
            ``tt.reduce.return`` line (the op's first and closing lines excluded).
        operands: the number of operands ``n`` of the reduce.
        fold_equal_arms: drop the condition terms of an integer select that only hold when
            both arms are equal (LLVM's InstCombine; see the module docstring).

    Returns:
        ``n`` frozensets (result ``j`` → operands it reads), or None when the region is not the
        flat, single-block form this reader understands (nested regions, a second block,
        no ``tt.reduce.return`` with ``n`` values, text over :data:`MAX_REGION_CHARS`) — the
        caller must then assume that every result depends on every operand.

    Source: the ``tt.reduce`` op definition (``include/triton/Dialect/Triton/IR/TritonOps.td``,
    Triton 3.9: ``combineOp`` region, ``tt.reduce.return``); the fold: LLVM's InstCombine
    (select of an ``or`` split into nested selects, whose arms are replaced under the
    equality the condition implies), seen on Triton 3.9's AMD argmin kernels
    (``papers/triton_lowering/unused_result_probes.py``).
    """
    if not isinstance(region, str) or not isinstance(operands, int) or operands < 1 \
            or len(region) > MAX_REGION_CHARS:
        return None
    deps: dict[str, frozenset[int]] = {}
    defs: dict[str, tuple[str, list[str], str, str]] = {}
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
            names = _NAME.findall(m.group(1))
            op = _OPNAME.match(m.group(2).strip())
            if op and len(names) == 1:
                body, _, ty = op.group(2).partition(":")
                defs[names[0]] = (op.group(1).strip('"'), _NAME.findall(body), body.strip(),
                                  ty.strip())
            used = frozenset().union(*(deps.get(v, frozenset())
                                       for v in _NAME.findall(m.group(2))))
            if fold_equal_arms and len(names) == 1:
                used = _folded(names[0], defs, deps, used)
            for r in names:
                deps[r] = used
    if not seen_block or returned is None:
        return None
    return tuple(returned)


_INT = re.compile(r"^i\d+$")


def _folded(name: str, defs: dict, deps: dict, used: frozenset[int]) -> frozenset[int]:
    """The dependencies of ``name`` once InstCombine has dropped the terms of an integer
    select's condition that imply equal arms (``used`` when ``name`` is no such select)."""
    op, args, _, ty = defs[name] if name in defs else ("", [], "", "")
    if op != "arith.select" or len(args) != 3 or not _INT.match(ty):
        return used
    cond, a, b = args

    def tree(n: str, kind: str) -> list[str]:
        d = defs.get(n)
        if d is None or d[0] != kind or len(d[1]) != 2:
            return [n]
        return tree(d[1][0], kind) + tree(d[1][1], kind)

    def is_equality(n: str) -> bool:
        d = defs.get(n)
        return d is not None and d[0] == "arith.cmpi" and d[2].startswith("eq,") \
            and sorted(d[1]) == sorted([a, b])

    kept = [t for t in tree(cond, "arith.ori")
            if not any(is_equality(f) for f in tree(t, "arith.andi"))]
    out = deps.get(a, frozenset()) | deps.get(b, frozenset())
    for t in kept:
        out |= deps.get(t, frozenset())
    return out


def single_combiner(region: str, operands: int) -> str | None:
    """The one combine op of a single-operand ``tt.reduce`` or ``tt.scan``
    (``"arith.addi"``), or None.

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


def combine_op_count(region: str) -> int | None:
    """The number of ops in the one block of a ``tt.reduce``/``tt.scan`` combine region,
    its ``tt.reduce.return`` (or ``tt.scan.return``) not counted; None when ``region`` is not
    one block ending in a return (or is longer than :data:`MAX_REGION_CHARS`).

    Triton 3.9 vectorises a reduction's in-thread step only for a region of one op and the
    return (``ReduceOpHelper::getInThreadVectorizeOpKind``, ``lib/Analysis/Utility.cpp``:
    the block holds two operations); :func:`single_combiner` also accepts regions with ops
    that do not feed the result.
    """
    if not isinstance(region, str) or len(region) > MAX_REGION_CHARS:
        return None
    blocks = 0
    ops = 0
    returned = False
    for raw in region.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if line.startswith("^"):
            blocks += 1
            continue
        if _RETURN.match(line):
            returned = True
            continue
        if line.startswith(("})", "}")):
            continue
        ops += 1
    return ops if blocks == 1 and returned else None
