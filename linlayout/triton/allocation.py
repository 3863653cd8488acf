"""Triton 3.9's shared-memory allocator, replayed on a TTGIR text: the byte offset of every
buffer, where the module's buffers are all of the kinds modelled here.

Triton places its shared buffers in ``lib/Analysis/Allocation.cpp``
(``AllocationAnalysis``), after ``scf`` is lowered to control flow and before the TTGIR is
lowered to LLVM, so the offsets never appear in the TTGIR a user dumps. The analysis has
three steps, each replayed here:

1. **buffers and sizes** (``getValuesAndSizes``): an explicit buffer per ``ttg.local_alloc``
   in shared memory (its allocation shape's elements × element bytes; alignment the
   ``alignment`` attribute, else the encoding's — ``swizzled_shared`` 16 bytes,
   ``shared_linear`` its ``alignment`` parameter, ``padded_shared`` 16 bytes and its
   padding counted (:func:`padded_elems`),
   ``nvmma_shared`` 128 × ``swizzlingByteWidth``/16, at least 128); a scratch buffer per op
   that needs one (128-byte aligned) — ``ttg.warp_specialize`` is sized here (its packed
   capture struct: integers and floats ``ceil(bits/8)`` bytes, pointers and tensor
   descriptors 8, a shared memdesc ``8 + 4·rank``; 8-byte aligned), ``ttg.convert_layout``,
   ``tt.reduce`` and ``tt.scan`` by the caller (``scratch``: ``linlayout check`` passes the sizes of the
   scratch layouts it predicts), as are ``tt.gather``, ``tt.histogram`` and tensor atomics
   whose result is used; a scalar atomic's used result is sized here
   (:func:`scalar_atomic_bytes`), as is ``ttng.tensormap_create``'s (the 128-byte
   descriptor it builds; equal to Triton's allocator on the TMA-descriptor matmuls of
   ``papers/global_memory/heldout.py``); and the function's own scratch, one state
   byte per worker warp (``getTotalPartitionWarps`` after ``AllocateWarpGroups`` padded the
   partitions to whole warp groups; 4-byte aligned), live for the whole function. A module
   with any other op that may need scratch (a convert, reduce, scan, gather, histogram or
   tensor atomic the caller did not size, calls) or a
   partitioned buffer is not placed: :func:`shared_allocation` says why.
2. **liveness** (``resolveLiveness``): operations numbered in post-order (an op after the
   ops of its regions); an explicit buffer lives from its ``local_alloc`` to the last use of
   it or of a view of it (``memdesc_*`` results, ``scf.for`` iter_args and results), a use
   inside a loop or a ``ttg.warp_specialize`` counting at that op's number (the value stays
   live across the whole loop once ``scf`` is control flow); a scratch buffer lives at its
   op alone. Once ``scf`` is control flow (``SCFToControlFlow``), an ``scf.for``'s
   iter_args are arguments of its condition block, fed by the initial values and by the
   ``scf.yield`` on the back edge, and its results are those same arguments: so a buffer
   that reaches an iter_arg (as its initial value or as a yielded value) has that argument
   as an alias (``SharedMemoryAliasAnalysis``, ``resolveAliasBufferLiveness``), live from
   the top of the loop to the argument's last use, in the loop or after it. The induction
   variable and the iter_args are the loop's own arguments, not uses of it.
3. **offsets** (``computeOffsets``): buffers sorted by size, largest first (stable),
   ``calculateStarts`` puts each in the lowest free slot whose liveness it alone fits, then
   first-fit graph colouring moves every buffer that overlaps a live buffer past it, until no
   two live buffers overlap (buffers in different regions of one ``ttg.warp_specialize``
   overlap at any time).

``papers/triton_lowering/allocation_probes.py`` runs Triton's own pass
(``allocate_shared_memory_nv``) on every TTGIR fixture and compares each buffer's offset.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from .limits import mlir_int, result_count
from .source import module_attribute
from .warp_specialize import WarpSpecialize, split_types

__all__ = ["SharedAllocation", "SharedBuffer", "padded_elems", "place_buffers",
           "scalar_atomic_bytes", "shared_allocation"]

#: Ops that may need a scratch buffer whose size is not modelled here.
SCRATCH_OPS = frozenset({"ttg.convert_layout", "tt.reduce", "tt.scan", "tt.gather",
                         "tt.histogram", "tt.call", "ttng.tensormap_create",
                         "ttg.linear_apply", "tt.atomic_poll", "ttg.local_atomic_scatter_rmw"})
ATOMIC_OPS = frozenset({"tt.atomic_rmw", "tt.atomic_cas"})
#: Region ops a value stays live across as a whole once ``scf`` is control flow.
_WHOLE_REGION_OPS = frozenset({"scf.for", "scf.while", "ttg.warp_specialize"})
_VIEW_PREFIX = ("ttg.memdesc_", "triton_gpu.memdesc_")
#: Alignment in bytes of an op's scratch buffer (``getScratchValueSize``).
SCRATCH_ALIGNMENT = 128
#: The most buffers placed (each colouring round is quadratic in them).
MAX_BUFFERS = 256
#: The most colouring rounds (Triton repeats until no two live buffers overlap; real modules
#: settle in one or two).
MAX_ROUNDS = 64
_FULL = (0, 1 << 64)

_OP = re.compile(r"^\s*(?:(?P<res>%[\w$.#:-]+(?:\s*,\s*%[\w$.#:-]+)*)\s*=\s*)?"
                 r"\"?(?P<name>[a-z_]+\.[\w.]+)\"?")
_SSA = re.compile(r"%[\w$.-]+(?:#\d+)?")
_ALIAS = re.compile(r"^\s*(#[\w$.-]+)\s*=\s*(.*)$", re.M)
_BITS = {"i1": 8, "i8": 8, "i16": 16, "i32": 32, "i64": 64, "f16": 16, "bf16": 16,
         "f32": 32, "f64": 64, "f8E4M3FN": 8, "f8E5M2": 8, "f8E4M3FNUZ": 8, "f8E5M2FNUZ": 8,
         "f8E4M3B11FNUZ": 8, "index": 32}


@dataclass(frozen=True)
class SharedBuffer:
    """One buffer of Triton's allocator.

    Attributes:
        kind: ``"alloc"`` (a ``ttg.local_alloc``), ``"captures"`` (a
            ``ttg.warp_specialize``'s capture struct), ``"state"`` (the function's
            worker-warp state bytes) or ``"scratch"`` (an op's scratch, sized by the caller).
        line: the 1-based line of the op owning it (the ``tt.func`` line for ``"state"``).
        size_bytes: its size in bytes.
        alignment_bytes: its offset is a multiple of this.
        live: ``(first, end)`` op numbers it is live over (half-open, post-order numbers).
        region: ``(line of a ttg.warp_specialize, region index)`` it is allocated in, or None.
        offset_bytes: its byte offset from the start of the kernel's shared memory.
    """

    kind: str
    line: int
    size_bytes: int
    alignment_bytes: int
    live: tuple[int, int]
    region: tuple[int, int] | None = None
    offset_bytes: int = 0


@dataclass(frozen=True)
class SharedAllocation:
    """The placed buffers of a module (:func:`shared_allocation`).

    Attributes:
        buffers: every buffer with its offset, in Triton's buffer order.
        size_bytes: the shared memory the kernel allocates (Triton's ``ttg.shared``).
    """

    buffers: tuple[SharedBuffer, ...]
    size_bytes: int

    def offset(self, kind: str, line: int | None = None) -> int | None:
        """The offset in bytes of the first buffer of ``kind`` (at ``line`` when given)."""
        for b in self.buffers:
            if b.kind == kind and (line is None or b.line == line):
                return b.offset_bytes
        return None


def _intersects(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _align(n: int, a: int) -> int:
    return -(-n // a) * a


def place_buffers(buffers: list[SharedBuffer]) -> tuple[list[SharedBuffer], int]:
    """Triton's ``computeOffsets`` on ``buffers`` (in Triton's buffer order): the buffers with
    their ``offset_bytes`` set, in the input order, and the total size in bytes.

    Source: ``AllocationAnalysis::computeOffsets``/``calculateStarts``/``allocate``
    (``lib/Analysis/Allocation.cpp``, Triton 3.9).

    Raises:
        ValueError: more than :data:`MAX_BUFFERS` buffers, or no fixpoint within
            :data:`MAX_ROUNDS` colouring rounds.
    """
    if len(buffers) > MAX_BUFFERS:
        raise ValueError(f"{len(buffers)} shared buffers; at most {MAX_BUFFERS} are placed")
    n = len(buffers)
    order = sorted(range(n), key=lambda i: -buffers[i].size_bytes)
    offset = [0] * n
    # calculateStarts: slots (offset, live range), kept sorted by offset, ties in insertion
    # order (a std::multimap).
    slots: list[tuple[int, int, tuple[int, int]]] = [(0, 0, _FULL)]
    seq = 1
    todo = list(order)
    while todo and slots:
        slots.sort(key=lambda s: (s[0], s[1]))
        start, _, rng = slots.pop(0)
        chosen = None
        for i in todo:
            live = buffers[i].live
            if _intersects(live, rng) and not any(_intersects(s[2], live) for s in slots):
                chosen = i
                break
        if chosen is None:
            continue
        b = buffers[chosen]
        offset[chosen] = _align(start, b.alignment_bytes)
        x = b.live
        new = [(offset[chosen] + b.size_bytes, (max(rng[0], x[0]), min(rng[1], x[1])))]
        if rng[0] < x[0]:
            new.append((start, (rng[0], x[1])))
        if x[1] < rng[1]:
            new.append((start, (x[0], rng[1])))
        for off, r in new:
            slots.append((off, seq, r))
            seq += 1
        todo.remove(chosen)

    def interference() -> dict[int, list[int]]:
        graph: dict[int, list[int]] = {}
        for x in order:
            for y in order:
                if x == y:
                    continue
                bx, by = buffers[x], buffers[y]
                sx = (offset[x], offset[x] + bx.size_bytes)
                sy = (offset[y], offset[y] + by.size_bytes)
                if not _intersects(sx, sy):
                    continue
                async_pair = (bx.region is not None and by.region is not None
                              and bx.region[0] == by.region[0] and bx.region != by.region)
                if _intersects(bx.live, by.live) or async_pair:
                    graph.setdefault(x, []).append(y)
        return graph

    graph = interference()
    rounds = 0
    while True:
        colors = {i: (0 if i == order[0] else -1) for i in order}
        for x in order:
            taken = {colors[y] for y in graph.get(x, []) if colors[y] >= 0}
            colors[x] = next(c for c in range(n + 1) if c not in taken)
        for x in order:
            new_off = 0
            for y in graph.get(x, []):
                new_off = max(new_off, offset[y] + buffers[y].size_bytes)
            if colors[x] != 0:
                offset[x] = _align(new_off, buffers[x].alignment_bytes)
        graph = interference()
        rounds += 1
        if not graph:
            break
        if rounds >= MAX_ROUNDS:
            raise ValueError(f"no placement after {MAX_ROUNDS} colouring rounds")
    size = max((offset[i] + buffers[i].size_bytes for i in range(n)), default=0)
    placed = [SharedBuffer(b.kind, b.line, b.size_bytes, b.alignment_bytes, b.live, b.region,
                           offset[i]) for i, b in enumerate(buffers)]
    return placed, size


@dataclass
class _Op:
    line: int
    name: str
    results: list[str]
    operands: list[str]
    text: str
    parent: "_Op | None"
    region: int = 0
    number: int = 0
    first: int = 0
    children: list["_Op"] | None = None


def _read_ops(text: str) -> tuple[list[_Op], dict[str, _Op], int, int]:
    """The op tree (flat list, parent links), the region-argument owners, the ``tt.func``
    line and the function count."""
    ops: list[_Op] = []
    stack: list[_Op | None] = [None]
    region_index: list[int] = [0]
    args: dict[str, _Op] = {}
    func_line, funcs = 0, 0
    for lineno, raw in enumerate(text.split("\n"), 1):
        s = raw.strip()
        if not s or s.startswith(("#", "//", "^")):
            continue
        if s.startswith("}"):
            last_opened = None
            if len(stack) > 1:
                last_opened = stack.pop()
                region_index.pop()
            if s.endswith("{") and last_opened is not None:  # `} else {`
                stack.append(last_opened)
                region_index.append(region_index[-1] + 1)
            continue
        m = _OP.match(s)
        if s.startswith(("default", "partition")) and s.endswith("{"):
            owner = _ws_owner(ops)
            pm = re.match(r"partition(\d+)", s)
            k = mlir_int(pm.group(1), "partition index") + 1 if pm else 0
            if owner is not None:
                for a in re.findall(r"(%[\w$.-]+)\s*:", s):
                    args[a] = owner
            stack.append(owner)
            region_index.append(k)
            continue
        if not m or m.group("name") in ("module",):
            if s.endswith("{"):
                stack.append(stack[-1])
                region_index.append(region_index[-1])
            continue
        name = m.group("name")
        if name in ("tt.func", "func.func"):
            funcs += 1
            func_line = lineno
            stack.append(stack[-1])
            region_index.append(region_index[-1])
            continue
        body = s[m.end():]
        results = []
        if m.group("res"):
            for r in m.group("res").split(","):
                r = r.strip()
                if ":" in r:
                    base, k = r.split(":", 1)
                    results += [f"{base}#{i}" for i in range(result_count(k, f"{base}:{k[:20]}"))]
                else:
                    results.append(r)
        operands = _SSA.findall(body.split(" : ")[0])
        if name in ("scf.for", "scf.while"):
            # the induction variable and the iter_args (`%arg = %init`) are the region's
            # arguments, defined here, not operands the loop reads
            defined = set(re.findall(r"(%[\w$.-]+)\s*=", body))
            operands = [o for o in operands if o not in defined]
        op = _Op(lineno, name, results, operands, s, stack[-1], region_index[-1])
        ops.append(op)
        if name == "scf.for":
            for a in re.findall(r"(%[\w$.-]+)\s*=", body):
                args[a] = op
        if s.endswith("{"):
            stack.append(op)
            region_index.append(0)
    return ops, args, func_line, funcs


def _ws_owner(ops: list[_Op]) -> _Op | None:
    for op in reversed(ops):
        if op.name == "ttg.warp_specialize":
            return op
    return None


def _number(ops: list[_Op]) -> None:
    """Post-order numbers: an op after the ops of its regions."""
    kids: dict[int, list[_Op]] = {}
    roots = []
    for op in ops:
        if op.parent is None:
            roots.append(op)
        else:
            kids.setdefault(id(op.parent), []).append(op)
    counter = 0
    todo: list[tuple[_Op, bool]] = [(r, False) for r in reversed(roots)]
    while todo:
        op, done = todo.pop()
        if done:
            op.number = counter
            counter += 1
            continue
        op.first = counter  # the first number of its subtree: where its regions start
        todo.append((op, True))
        todo.extend((c, False) for c in reversed(kids.get(id(op), [])))


def _resolve(token: str, aliases: dict[str, str], depth: int = 0) -> str:
    """An attribute alias (``#shared``) replaced by its definition."""
    if token.startswith("#") and token in aliases and depth < 8:
        return _resolve(aliases[token], aliases, depth + 1)
    return token


def _memdesc(sig: str, aliases: dict[str, str]) -> tuple[list[int], int, str, str] | None:
    """(allocation shape, element bits, encoding text, memory space text) of a memdesc type."""
    i = sig.find("!ttg.memdesc<")
    if i < 0:
        return None
    depth, j = 0, i + len("!ttg.memdesc")
    for j in range(i + len("!ttg.memdesc"), len(sig)):
        if sig[j] == "<":
            depth += 1
        elif sig[j] == ">":
            depth -= 1
            if depth == 0:
                break
    parts = split_types(sig[i + len("!ttg.memdesc<"):j])
    if len(parts) < 3:
        return None
    dims = parts[0].split("x")
    shape = [mlir_int(d, "a memdesc shape") for d in dims[:-1] if d.isdigit()]
    elem = dims[-1]
    bits = _BITS.get(elem, 64 if elem.startswith("!tt.ptr") else 0)
    if not bits:
        return None
    alloc = [p for p in parts[3:] if re.fullmatch(r"\d+(x\d+)*", p)]
    if alloc:
        shape = [mlir_int(d, "a memdesc allocation shape") for d in alloc[0].split("x")]
    enc = _resolve(parts[1], aliases)
    space = _resolve(parts[2], aliases)
    return shape, bits, enc, space


def _alloc_alignment(op: _Op, enc: str) -> int | None:
    m = re.search(r"\balignment\s*=\s*(\d+)", op.text.split(" : ")[0])
    if m:
        return mlir_int(m.group(1), "alignment")
    if "swizzled_shared" in enc:
        return 16
    if "shared_linear" in enc:
        m = re.search(r"\balignment\s*=\s*(\d+)", enc)
        return mlir_int(m.group(1), "alignment") if m else None
    if "padded_shared" in enc:
        return 16
    if "nvmma_shared" in enc:
        w = re.search(r"swizzlingByteWidth\s*=\s*(\d+)", enc)
        width = mlir_int(w.group(1), "swizzlingByteWidth") if w else 0
        return 128 * max(1, width // 16)
    return None


def _capture_bytes(t: str, aliases: dict[str, str]) -> int | None:
    t = t.strip()
    if t.startswith(("!tt.ptr", "!tt.tensordesc")):
        return 8
    if t.startswith("!ttg.memdesc"):
        md = _memdesc(t, aliases)
        if md is None:
            return None
        shape_txt = t[len("!ttg.memdesc<"):].split(",")[0]
        rank = len(shape_txt.split("x")) - 1
        return 8 + 4 * rank if "shared_memory" in md[3] else 8
    m = re.fullmatch(r"[if](\d+)|bf16|index", t)
    if m:
        return 2 if t == "bf16" else 4 if t == "index" else \
            -(-mlir_int(m.group(1), f"element type {t[:24]}") // 8)
    return None


def padded_elems(elems: int, enc: str) -> int | None:
    """Elements a ``#ttg.padded_shared<[I:+P, …] …>`` allocation of ``elems`` elements
    spans, padding included: ``P`` elements after every ``I``, none after the last
    (``PaddedSharedEncodingAttr::getPaddedSize``). None when the intervals are not read."""
    m = re.search(r"padded_shared<\[([^\]]*)\]", enc)
    pairs = re.findall(r"(\d+)\s*:\s*\+\s*(\d+)", m.group(1)) if m else []
    if not pairs:
        return None
    ints = [(mlir_int(i, "padding interval"), mlir_int(p, "padding")) for i, p in pairs]
    return elems + sum((elems - 1) // i * p for i, p in ints if i > 0)


def scalar_atomic_bytes(op_text: str) -> int | None:
    """The scratch of a ``tt.atomic_rmw``/``tt.atomic_cas`` line whose used result is a
    scalar: one element, ``max(8, bits) / 8`` bytes (``getRepShapeForAtomic`` and
    ``defaultAllocationAnalysisScratchSizeFn`` in ``lib/Analysis/Allocation.cpp``); a
    one-warp kernel needs none (:func:`shared_allocation` applies that, as Triton's
    allocator does on compiled kernels). None for a tensor result or a type not read."""
    m = re.search(r"->\s*([\w!<>.]+)\s*$", op_text.split(" loc(")[0].rstrip())
    if m is None or m.group(1).startswith("tensor"):
        return None
    bits = _BITS.get(m.group(1))
    return max(8, bits) // 8 if bits else None


def shared_allocation(text: str, default_warps: int,
                      regions: tuple[WarpSpecialize, ...] = (),
                      scratch: Mapping[int, int] | None = None,
                      function_warps: int | None = None
                      ) -> tuple[SharedAllocation | None, str]:
    """Triton 3.9's shared-memory offsets for the one ``tt.func`` of a TTGIR ``text``, or
    ``(None, why)`` when the module holds a buffer this replay does not size.

    Args:
        text: the TTGIR module.
        default_warps: the module's ``ttg.num-warps``.
        regions: its ``ttg.warp_specialize`` regions
            (:func:`~.warp_specialize.find_warp_specialize`).
        scratch: the scratch bytes of ops this module cannot size itself, by line (a
            ``ttg.convert_layout``'s, ``tt.reduce``'s, ``tt.scan``'s, ``tt.gather``'s,
            ``tt.histogram``'s or a tensor atomic's with a used result, 0 where none is
            needed); such an op at a line not given makes the module not placed.
        function_warps: the function's own ``ttg.num-warps``, if it sets one
            (:func:`~.warp_specialize.find_function_warps`): a scalar atomic's scratch is
            sized with the op's warps (none for one warp), the worker-warp state bytes with
            the module's (``AllocateWarpGroups`` reads the module; a probe compile with
            Triton 3.9 allocated a used scalar atomic's scratch in a 4-warp function of a
            1-warp module, and none in a 1-warp function of a 4-warp module).

    Raises:
        LayoutError: an integer of more than :data:`~.limits.MAX_INT_DIGITS` digits (a
            result count, a memdesc dim, ``ttg.num-ctas``), or an op of more than
            :data:`~.limits.MAX_OP_RESULTS` results (``%r:N``).

    Source: ``AllocationAnalysis`` (``lib/Analysis/Allocation.cpp``),
    ``LocalAllocOp::getAlignmentOrDefault``, ``WarpSpecializeOp::getCaptureSize``,
    ``AllocateWarpGroups`` (Triton 3.9).
    """
    if not isinstance(text, str):
        return None, "no TTGIR text"
    aliases = {m.group(1): m.group(2).strip() for m in _ALIAS.finditer(text)}
    ctas = module_attribute(text, "num-ctas", r"(\d+)")  # not in a // comment
    if ctas and mlir_int(ctas, "ttg.num-ctas") != 1:
        return None, "more than one CTA: cluster layouts are not placed"
    ops, region_args, func_line, funcs = _read_ops(text)
    if funcs != 1:
        return None, "not one tt.func"
    _number(ops)
    uses: dict[str, list[_Op]] = {}
    for op in ops:
        for o in op.operands:
            uses.setdefault(o, []).append(op)
    defs = {r: op for op in ops for r in op.results}
    scratch = scratch or {}
    sized: set[int] = set()
    for op in ops:
        if op.name == "ttng.tensormap_create" and op.line not in scratch:
            # the descriptor is built in a 128-byte scratch (``TMA_SIZE_BYTES``), 128-byte
            # aligned like every scratch buffer
            scratch = {**scratch, op.line: 128}
        if op.name in SCRATCH_OPS:
            if op.line in scratch and scratch[op.line] >= 0:
                sized.add(id(op))
                continue
            return None, f"{op.name} at line {op.line} may need scratch memory of a size " \
                         "not modelled"
        if op.name in ATOMIC_OPS and any(uses.get(r) for r in op.results):
            if op.line in scratch and scratch[op.line] >= 0:
                sized.add(id(op))
                continue
            nbytes = scalar_atomic_bytes(op.text)
            op_warps = default_warps if function_warps is None else function_warps
            if nbytes is not None and op_warps == 1 and not regions:
                nbytes = 0  # one warp: the old value is broadcast by a shuffle
            if nbytes is not None:
                scratch = {**scratch, op.line: nbytes}
                sized.add(id(op))
                continue
            return None, f"{op.name} at line {op.line}: its used result needs scratch memory"
    buffers: list[SharedBuffer] = []
    # explicit buffers: local_alloc in shared memory, in pre-order (= file order)
    for op in ops:
        if op.name not in ("ttg.local_alloc", "triton_gpu.local_alloc"):
            continue
        md = _memdesc(op.text, aliases)
        if md is None:
            return None, f"local_alloc at line {op.line}: type not read"
        shape, bits, enc, space = md
        if "shared_memory" not in space:
            continue
        if "partitioned" in enc:
            return None, f"local_alloc at line {op.line}: a partitioned layout"
        align = _alloc_alignment(op, enc)
        if align is None:
            return None, f"local_alloc at line {op.line}: alignment of its layout not modelled"
        elems = padded_elems(math.prod(shape), enc) if "padded_shared" in enc \
            else math.prod(shape)
        if elems is None:
            return None, f"local_alloc at line {op.line}: padding intervals not read"
        size = elems * bits // 8
        live = _liveness(op, uses, defs, region_args)
        if live is None:
            return None, f"local_alloc at line {op.line}: its views are not followed"
        region = _region_of(op)
        buffers.append(SharedBuffer("alloc", op.line, size, align, live, region))
    # scratch buffers: the function's state bytes first (the walk starts at the function),
    # then each op's in pre-order (file order; a warp_specialize before its regions' ops)
    ws_ops = [op for op in ops if op.name == "ttg.warp_specialize"]
    by_line = {r.line: r for r in regions}
    if ws_ops:
        if any(op.line not in by_line for op in ws_ops):
            return None, "a ttg.warp_specialize region was not read"
        total = max(sum(r.partition_warps) for r in regions)
        padded = _align(default_warps + total, 4) - default_warps
        buffers.append(SharedBuffer("state", func_line, padded, 4, _FULL))
    for op in ops:
        size, align, kind = 0, SCRATCH_ALIGNMENT, "scratch"
        if op.name == "ttg.warp_specialize":
            sizes = [_capture_bytes(t, aliases) for t in by_line[op.line].capture_types]
            if any(x is None for x in sizes):
                return None, f"warp_specialize at line {op.line}: a capture type not sized"
            size, align, kind = sum(sizes), 8, "captures"  # type: ignore[arg-type]
        elif id(op) in sized:
            size = scratch[op.line]
        if size:
            buffers.append(SharedBuffer(kind, op.line, size, align,
                                        (op.number, op.number + 1), _region_of(op)))
    if not buffers:
        return SharedAllocation((), 0), ""
    try:
        placed, size = place_buffers(buffers)
    except ValueError as exc:
        return None, str(exc)
    return SharedAllocation(tuple(placed), size), ""


def _region_of(op: _Op) -> tuple[int, int] | None:
    p, child = op.parent, op
    while p is not None:
        if p.name == "ttg.warp_specialize":
            return (p.line, child.region)
        child, p = p, p.parent
    return None


def _lifted(use: _Op, home: _Op | None) -> int:
    """The number a use counts at for a value defined in the region of ``home`` (None: the
    function body): a use inside a loop or a ``ttg.warp_specialize`` below ``home`` counts
    at that op."""
    n = use.number
    p = use.parent
    while p is not None and p is not home:
        if p.name in _WHOLE_REGION_OPS:
            n = max(n, p.number)
        p = p.parent
    return n


def _iter_args(loop: _Op) -> list[tuple[str, str]]:
    """``(block argument, initial value)`` of each ``iter_args`` entry of an ``scf.for``."""
    m = re.search(r"iter_args\((.*?)\)\s*->", loop.text)
    return re.findall(r"(%[\w$.-]+)\s*=\s*(%[\w$.-]+(?:#\d+)?)", m.group(1)) if m else []


def _liveness(alloc: _Op, uses: dict[str, list[_Op]], defs: dict[str, _Op],
              region_args: dict[str, _Op]) -> tuple[int, int] | None:
    """[first, end) numbers of a local_alloc's buffer: the hull of the live ranges of its
    value and of every alias (views, ``scf.for`` block arguments and results, ``scf.if``
    results)."""
    start = alloc.number
    end = alloc.number + 1
    seen: set[str] = set()
    todo = list(alloc.results)
    home = {r: alloc.parent for r in alloc.results}
    while todo:
        v = todo.pop()
        if v in seen:
            continue
        seen.add(v)
        if len(seen) > 4096:
            return None
        for u in uses.get(v, []):
            end = max(end, _lifted(u, home[v]) + 1)
            if u.name.startswith(_VIEW_PREFIX):
                for r in u.results:
                    home[r] = u.parent
                    todo.append(r)
            elif u.name == "scf.for":
                for k, (arg, init) in enumerate(_iter_args(u)):
                    if init == v:
                        start = min(start, u.first)
                        home[arg] = u
                        todo.append(arg)
                        if k < len(u.results):
                            home[u.results[k]] = u.parent
                            todo.append(u.results[k])
            elif u.name == "scf.yield" and u.parent is not None:
                if u.parent.name == "scf.for":
                    # the yielded value becomes the loop's block argument (and, on the last
                    # trip, its result): an alias live from the top of the loop, in its
                    # condition block, to the argument's last use
                    loop = u.parent
                    args = _iter_args(loop)
                    for k, o in enumerate(u.operands):
                        if o != v:
                            continue
                        if k < len(args):
                            start = min(start, loop.first)
                            home[args[k][0]] = loop
                            todo.append(args[k][0])
                        if k < len(loop.results):
                            home[loop.results[k]] = loop.parent
                            todo.append(loop.results[k])
                elif u.parent.name == "scf.if":
                    k = u.operands.index(v)
                    if k < len(u.parent.results):
                        r = u.parent.results[k]
                        home[r] = u.parent.parent
                        todo.append(r)
                else:
                    return None
            elif u.name in ("scf.while", "scf.condition", "cf.br", "cf.cond_br"):
                return None
    return start, end
