"""``ttg.warp_specialize`` regions in TTGIR text: partitions, their warps, their captures.

A warp-specialised kernel (Gluon ``gl.warp_specialize``, or ``tl.range(...,
warp_specialize=True)`` on sm_100) prints::

    ttg.warp_specialize(%a, %b) attributes {…}
    default { … ttg.warp_yield … }
    partition0(%arg5: i32, %arg6: !tt.ptr<f32>) num_warps(1) { … ttg.warp_return }
    partition1(…) num_warps(4) { … }
    } : (i32, !tt.ptr<f32>) -> ()

The operands are the *explicit captures*: values the worker partitions receive from the
default warps. :func:`find_warp_specialize` lists each region with its partitions' warp
counts, the capture types, which captures Triton rematerialises instead of passing them
through shared memory (kernel arguments and short chains of pure operations on them), and
which captures each partition uses. ``linlayout check`` turns these into the shared-memory
instructions of Triton's lowering (:mod:`linlayout.check.shared_memory.warp_specialize`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import LayoutError
from .limits import MAX_PARTITION_WARPS, mlir_int
from .source import code_end

__all__ = ["FunctionWarps", "Partition", "WarpSpecialize", "find_function_warps",
           "find_partitions", "find_warp_specialize", "partition_segments", "split_types",
           "warp_specialize_lines"]

_WS = re.compile(r"^[ \t]*(?:%[^=\n]*=[ \t]*)?ttg\.warp_specialize\((?P<ops>[^)\n]*)\)", re.M)
_PARTITION = re.compile(r"^[ \t]*partition(\d+)\((?P<args>.*)\)[ \t]*num_warps\((\d+)\)[ \t]*\{",
                        re.M)
_CLOSE = re.compile(r"^[ \t]*\}[ \t]*:[ \t]*\((?P<types>.*)\)[ \t]*->", re.M)
_NAME = re.compile(r"%[\w$.-]+")
_DEF = re.compile(r"^[ \t]*(%[\w$.-]+)(?::\d+)?[ \t]*=[ \t]*\"?([\w.]+)\"?(.*)$", re.M)
_FUNC = re.compile(r"^[ \t]*tt\.func\b(.*)$", re.M)
#: A ``tt.func`` header line, and a ``ttg.num-warps`` attribute on it.
_FUNC_HEAD = re.compile(r"^[ \t]*tt\.func\b[^\n]*", re.M)
_FUNC_WARPS = re.compile(r'"?(?:ttg|triton_gpu)\.num-warps"?[ \t]*=[ \t]*(-?[\w.]+)')
_FUNC_NAME = re.compile(r'@([\w$.-]+|"[^"\n]*")')
#: Operations Triton's ``elideTrivialCaptures`` can rematerialise (pure once lowered to the
#: LLVM dialect): integer/float arithmetic and constants, program ids, pointer arithmetic on
#: scalars and shared allocations (an address inside the shared-memory base).
_PURE_PREFIXES = ("arith.", "math.")
_PURE_OPS = {"tt.get_program_id", "tt.get_num_programs", "tt.addptr", "tt.int_to_ptr",
             "tt.ptr_to_int", "tt.bitcast", "ttg.local_alloc", "ttg.memdesc_index",
             "ttg.memdesc_subslice", "ttg.memdesc_trans", "ttg.memdesc_reshape",
             "ttg.memdesc_reinterpret"}
#: A line that closes a region (starts with ``}``) or opens one (ends with ``{``).
_BRACE = re.compile(r"^[ \t]*\}|\{[ \t]*\r?$", re.M)
#: ``findTrivialSubcomputation`` gives up beyond this many operations.
MAX_REMAT_OPS = 16
#: At most this many regions are read from one file.
MAX_REGIONS = 256


@dataclass(frozen=True)
class WarpSpecialize:
    """One ``ttg.warp_specialize`` region.

    Attributes:
        line: 1-based line of the ``ttg.warp_specialize`` op.
        partition_warps: the ``num_warps`` of each worker partition, in order.
        capture_types: the type text of each explicit capture, in order.
        trivial: per capture, whether Triton rematerialises it in the partitions instead of
            passing it through shared memory.
        used: per partition, per capture, whether the partition uses it.
    """

    line: int
    partition_warps: tuple[int, ...]
    capture_types: tuple[str, ...]
    trivial: tuple[bool, ...]
    used: tuple[tuple[bool, ...], ...]


@dataclass(frozen=True)
class Partition:
    """One worker partition region of a ``ttg.warp_specialize``: the lines its ops occupy and
    the warps that run them.

    Attributes:
        index: ``k`` of ``partition<k>``.
        warps: its ``num_warps(…)`` (an entry of the op's ``partitionNumWarps``).
        first_line: 1-based line of the ``partition<k>(…) num_warps(…) {`` header.
        last_line: 1-based line of the ``}`` closing its region.
    """

    index: int
    warps: int
    first_line: int
    last_line: int


@dataclass(frozen=True)
class FunctionWarps:
    """A ``tt.func`` carrying its own ``ttg.num-warps`` attribute (``tt.func public @k(…)
    attributes {"ttg.num-warps" = 8 : i32} {``): the lines of its body and its warps.

    Attributes:
        name: the function's symbol (``"k"``).
        warps: its ``ttg.num-warps``.
        first_line: 1-based line of the ``tt.func`` header.
        last_line: 1-based line of the ``}`` closing its body.
    """

    name: str
    warps: int
    first_line: int
    last_line: int


def find_function_warps(text: str) -> tuple[FunctionWarps, ...]:
    """Every ``tt.func`` of a TTGIR text that sets its own ``ttg.num-warps``, in file order,
    with the line span of its body.

    An op inside such a function runs on the function's warps, not the module's: Triton
    3.9's ``lookupNumWarps`` walks from the op outwards and takes the first count it meets —
    an enclosing ``warp_specialize`` partition's ``num_warps``, then a ``ttg.num-warps`` on
    the function, then the module's (``TritonGPU/IR/Dialect.cpp``; checked by parsing with
    Triton 3.9: a layout over the module's 4 warps inside a function of 8 is refused, "the
    context requires 8 warps per CTA", one over 8 accepted, and a partition inside the
    function still uses its own ``num_warps``). Spans come from the braces at line ends as
    in :func:`find_partitions`; a header without a body (a declaration) spans nothing, one
    whose body is never closed spans to the end of the text. One pass over the text.

    Raises:
        LayoutError: the attribute is not a decimal integer (``"ttg.num-warps" = 8.5``), has
            more than :data:`~.limits.MAX_INT_DIGITS` digits, or is not a power of two
            (Triton's verifier requires one of the module's, and a function's count stands
            in for it).
    """
    if not isinstance(text, str) or "num-warps" not in text:
        return ()
    heads = {}
    for m in _FUNC_HEAD.finditer(text):
        head = m.group()
        a = _FUNC_WARPS.search(head, 0, code_end(head))  # not in a // comment
        if a is None:
            continue
        n = _FUNC_NAME.search(head)
        name = n.group(1).strip('"') if n else "?"
        warps = function_warps(a.group(1), name)
        body = head.rstrip(" \t\r")
        if body.endswith("{"):
            heads[m.start() + len(body) - 1] = (name, warps)
    return tuple(FunctionWarps(name, warps, first, last)
                 for (name, warps), first, last in _region_spans(text, heads))


def function_warps(value: str, name: str) -> int:
    """The ``ttg.num-warps`` text ``value`` of function ``@name``, checked as
    :func:`find_function_warps` says."""
    label = f"@{clip_digits(name)}'s ttg.num-warps"
    if not re.fullmatch(r"-?\d+", value):
        raise LayoutError(f"{label} is {value[:20]!r}, not an integer: write it as MLIR does "
                          '(attributes {"ttg.num-warps" = 4 : i32})')
    warps = mlir_int(value, label)
    if warps < 1 or warps & (warps - 1):
        raise LayoutError(f"{label} is {warps}; a function runs a power-of-two number of "
                          "warps (1, 2, 4, …)")
    return warps


def _region_spans(text: str, heads: dict) -> list[tuple[object, int, int]]:
    """``(payload, first line, last line)`` of each region opened at an offset of ``heads``
    (the offset of its header's final ``{`` → payload), from the braces at line ends: a line
    ending in ``{`` opens a region, one starting with ``}`` closes one; a region never closed
    ends at the text's last line. One pass over the text."""
    out: list[tuple[object, int, int]] = []
    stack: list[tuple[object, int] | None] = []
    line, counted = 1, 0
    for b in _BRACE.finditer(text):
        line += text.count("\n", counted, b.start())
        counted = b.start()
        if b.group().lstrip().startswith("}"):
            if stack:
                top = stack.pop()
                if top is not None:
                    out.append((top[0], top[1], line))
            continue
        brace = text.rfind("{", b.start(), b.end())
        stack.append((heads[brace], line) if brace in heads else None)
    last = line + text.count("\n", counted)
    out.extend((t[0], t[1], last) for t in stack if t is not None)
    return out


def find_partitions(text: str) -> tuple[Partition, ...]:
    """Every worker partition region of a TTGIR text, in file order, with its line span.

    Found from the partition headers and the braces at line ends alone (a line ending in
    ``{`` opens a region, one starting with ``}`` closes one, ``} else {`` does both), so a
    partition is placed even where :func:`find_warp_specialize` skips its region (captures
    it cannot read). A header whose region is never closed (a truncated file) spans to the
    end of the text. One pass over the text; at most :data:`MAX_REGIONS` × 16 partitions.

    An op inside a partition runs on that partition's warps: Triton 3.9's layout verifier
    takes the warp count of an op's context from the enclosing partition's ``num_warps``
    before the module's ``ttg.num-warps`` (``lookupNumWarps``, ``TritonGPU/IR/Dialect.cpp``;
    ``test/TritonGPU/invalid.mlir``: "the context requires 2 warps per CTA").

    Raises:
        LayoutError: a ``num_warps(…)`` that is not a power of two (``WarpSpecializeOp::
            verify``: "number of warps … must be a power of 2"), is above
            :data:`~.limits.MAX_PARTITION_WARPS` or has more than
            :data:`~.limits.MAX_INT_DIGITS` digits.
    """
    if not isinstance(text, str) or "num_warps(" not in text:
        return ()
    heads = {}
    for m in _PARTITION.finditer(text):
        if len(heads) >= MAX_REGIONS * 16:
            break
        _partition_warps(m)
        heads[m.end() - 1] = m  # the offset of the header's '{'
    if not heads:
        return ()
    out = [_partition(m, first, last) for m, first, last in _region_spans(text, heads)]
    return tuple(sorted(out, key=lambda p: p.first_line))


def partition_segments(partitions: tuple[Partition, ...]
                       ) -> tuple[tuple[int, ...], tuple[Partition | None, ...]]:
    """``(starts, owners)``: from line ``starts[i]`` up to the next start, the ops belong to
    partition ``owners[i]`` (None: to no partition) — the innermost partition whose region
    holds the line (its header excluded, its closing line included). Look a line up with
    ``bisect.bisect_right(starts, line) - 1``: logarithmic, where scanning every partition
    for every op cost ``ops × partitions`` (thousands of each in hostile text). Partitions
    from :func:`find_partitions` nest or are disjoint (braces match); any others are taken
    in order, a later start inside an earlier one being the inner one. Any objects with
    ``first_line`` and ``last_line`` are placed the same way (:class:`FunctionWarps` too).

    Raises nothing: any tuple of :class:`Partition` is placed. Source: Triton 3.9's warp
    count of an op's context (:func:`find_partitions`).
    """
    events = []
    for k, p in enumerate(partitions):
        events.append((p.first_line + 1, 1, k))
        events.append((p.last_line + 1, 0, k))
    events.sort()
    starts: list[int] = [0]
    owners: list[Partition | None] = [None]
    stack: list[int] = []
    i = 0
    while i < len(events):
        at = events[i][0]
        while i < len(events) and events[i][0] == at:
            _, kind, k = events[i]
            if kind:
                stack.append(k)
            elif k in stack:
                stack.remove(k)
            i += 1
        owner = partitions[stack[-1]] if stack else None
        if owners[-1] is not owner:
            starts.append(at)
            owners.append(owner)
    return tuple(starts), tuple(owners)


def clip_digits(digits: str) -> str:
    """A run of digits (or a name) short enough for a message (``"12345…"`` past 8
    characters)."""
    return digits if len(digits) <= 8 else digits[:8] + "…"


def _partition_warps(m: re.Match) -> int:
    """The ``num_warps(…)`` of a partition header, checked as :func:`find_partitions` says."""
    warps = mlir_int(m.group(3), f"partition{clip_digits(m.group(1))} num_warps")
    if warps < 1 or warps & (warps - 1):
        raise LayoutError(f"partition{clip_digits(m.group(1))} has num_warps({warps}); a "
                          "partition runs a power-of-two number of warps (1, 2, 4, …), as "
                          "Triton's verifier requires")
    if warps > MAX_PARTITION_WARPS:
        raise LayoutError(f"partition{clip_digits(m.group(1))} has num_warps({warps}); at most "
                          f"{MAX_PARTITION_WARPS} (MAX_PARTITION_WARPS) are read: a CTA holds "
                          "32 warps")
    return warps


def _partition(m: re.Match, first: int, last: int) -> Partition:
    return Partition(mlir_int(m.group(1), "partition index"), _partition_warps(m), first, last)


def split_types(text: str) -> list[str]:
    """``"i32, !tt.ptr<f32>, tensor<4x4xf16, #blocked>"`` split at top-level commas.

    A comma inside ``<>``, ``()``, ``[]`` or ``{}`` is kept; each part is stripped of
    surrounding white space and an empty last part dropped. Takes any text (MLIR type lists
    as TTGIR prints them; assembly operand lists such as ``"%r1, [%r2+4], {%r3, %r4}"``),
    raises nothing, and returns ``[]`` for blank text."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _strip_loc(s: str) -> str:
    return re.sub(r"\bloc\((?:[^()]|\([^()]*\))*\)", "", s)


def _trivial(name: str, func_args: set[str], defs: dict[str, tuple[str, str]]) -> bool:
    """``findTrivialSubcomputation``: ``name`` comes from kernel arguments through at most
    :data:`MAX_REMAT_OPS` pure operations."""
    seen: set[str] = set()
    todo = [name]
    ops = 0
    while todo:
        n = todo.pop().split("#", 1)[0]
        if n in seen or n in func_args:
            continue
        seen.add(n)
        if n not in defs:
            return False  # a block argument of a loop or region
        op, rest = defs[n]
        operands = _NAME.findall(_strip_loc(rest).split(" : ")[0])
        if not (op.startswith(_PURE_PREFIXES) or op in _PURE_OPS):
            return False
        if op == "ttg.local_alloc" and operands:
            return False  # an allocation with an initial value stores: not pure
        ops += 1
        if ops > MAX_REMAT_OPS:
            return False
        todo.extend(operands)
    return True


def warp_specialize_lines(text: str) -> tuple[int, ...]:
    """The 1-based line of every ``ttg.warp_specialize`` op of a TTGIR text (at most
    :data:`MAX_REGIONS`), read or not by :func:`find_warp_specialize`: a line missing from
    its regions is a region it skipped. Raises nothing; one pass over the text."""
    if not isinstance(text, str) or "ttg.warp_specialize" not in text:
        return ()
    out: list[int] = []
    line, counted = 1, 0
    for m in _WS.finditer(text):
        if len(out) >= MAX_REGIONS:
            break
        line += text.count("\n", counted, m.start())
        counted = m.start()
        out.append(line)
    return tuple(out)


def find_warp_specialize(text: str) -> tuple[WarpSpecialize, ...]:
    """Every ``ttg.warp_specialize`` region of a TTGIR text, in file order (at most
    :data:`MAX_REGIONS`; a region whose partitions or closing line cannot be found is
    skipped).

    Source: ``WarpSpecializeOp`` (``include/triton/Dialect/TritonGPU/IR/TritonGPUOps.td``)
    and ``elideTrivialCaptures`` (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/
    ConvertWarpSpecializeToLLVM.cpp``), Triton 3.9.

    Raises:
        LayoutError: a partition's ``num_warps(…)`` refused as :func:`find_partitions`
            refuses it (more than :data:`~.limits.MAX_INT_DIGITS` digits was a ``ValueError``
            past Python's 4,300-digit limit; 2^32 warps a hang).
    """
    if not isinstance(text, str) or "ttg.warp_specialize" not in text:
        return ()
    func_args: set[str] = set()
    for m in _FUNC.finditer(text):
        func_args.update(re.findall(r"(%[\w$.-]+)\s*:", m.group(1)))
    defs = {m.group(1): (m.group(2), m.group(3)) for m in _DEF.finditer(text)}
    out = []
    heads = []
    for m in _WS.finditer(text):
        if len(heads) >= MAX_REGIONS:
            break
        heads.append(m)
    close = None
    line, counted = 1, 0
    for k, m in enumerate(heads):
        if close is None or close.start() < m.end():
            close = _CLOSE.search(text, m.end())  # closes come in order: one pass in all
            if close is None:
                break
        end = close.start()
        if k + 1 < len(heads):
            end = min(end, heads[k + 1].start())
        line += text.count("\n", counted, m.start())
        counted = m.start()
        captures = _NAME.findall(m.group("ops"))
        types = split_types(_strip_loc(close.group("types")))
        parts = list(_PARTITION.finditer(text, m.end(), end))
        if not parts or len(types) != len(captures) or end != close.start():
            continue
        used = []
        for i, p in enumerate(parts):
            args = re.findall(r"(%[\w$.-]+)\s*:", _strip_loc(p.group("args")))
            body_end = parts[i + 1].start() if i + 1 < len(parts) else end
            body = set(_NAME.findall(text[p.end():body_end]))
            used.append(tuple(a in body for a in args[:len(captures)])
                        + (False,) * max(0, len(captures) - len(args)))
        trivial = tuple(_trivial(c, func_args, defs) for c in captures)
        out.append(WarpSpecialize(line, tuple(_partition_warps(p) for p in parts),
                                  tuple(types),
                                  trivial, tuple(used)))
    return tuple(out)
