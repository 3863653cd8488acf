"""Read whole TTGIR files and list their shared-memory accesses.

A TTGIR file (``MLIR_ENABLE_DUMP=1``, ``TRITON_KERNEL_DUMP=1`` or ``kernel.asm["ttgir"]``) starts
with attribute aliases (``#blocked = #ttg.blocked<…>``) and then prints one operation per line.
:func:`read_ttgir` keeps the aliases, the module attributes (``ttg.threads-per-warp`` …) and every
operation line that touches shared memory or a view of it; :func:`find_accesses` turns those into
:class:`Access` records: which distributed layout meets which shared layout, at which line.

Operations understood:

* stores: ``ttg.local_alloc %v`` (an allocation with an initial value), ``ttg.local_store``,
  ``ttg.async_copy_global_to_local`` (``cp.async``; its ``contiguity`` caps the vector);
* loads: ``ttg.local_load``;
* ``ttg.convert_layout``: a register-to-register conversion, through a scratch buffer the
  compiler picks when warps exchange data;
* views, followed back to their allocation: ``ttg.memdesc_index`` / ``memdesc_subview`` /
  ``memdesc_subslice`` (same layout), ``scf.for`` ``iter_args``; ``memdesc_trans``,
  ``memdesc_reshape`` and ``memdesc_reinterpret`` start a new buffer (their layout differs);
* ``ttng.*`` operations (TMA copies, wgmma/tcgen05 operands) mark a buffer as needing an
  ``nvmma_shared`` layout; they are not lane accesses and are not counted.

Both ``ttg.`` and the older ``triton_gpu.`` spellings are accepted.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._checks import instance_of
from ..errors import LayoutError
from .limits import MAX_FILE_BYTES, MAX_OPS, MAX_REGION_NESTING, clip, result_count
from .combine import combine_dependencies, combine_op_count, single_combiner
from .parse import TritonType, mlir_int, parse_aliases, parse_type_at
from .source import (LineIndex, module_attribute, normalize_line_breaks, read_text_file,
                     strip_bom)
from .warp_specialize import (FunctionWarps, Partition, WarpSpecialize, find_function_warps,
                              find_partitions, find_warp_specialize, partition_segments)

__all__ = ["Access", "Op", "TTGIRModule", "ViewParents", "buffer_root", "find_accesses",
           "read_ttgir", "split_sections", "view_offsets", "view_parents",
           "view_stages"]

# Every pattern applied to a whole file stays inside one line (``[^\S\n]`` is whitespace other
# than a line break) and is anchored so that no character is scanned from more than one start:
# the reader is linear in the file's size.
_WS = r"[^\S\n]*"
_OP_RE = re.compile(
    rf"^{_WS}(?:(?P<res>%[\w$.#:-]+(?:{_WS},{_WS}%[\w$.#:-]+)*){_WS}={_WS})?"
    r"(?P<q>\"?)(?P<name>(?:ttg|triton_gpu|ttng|triton_nvidia_gpu|scf|tt|amdg)\.[\w.]+)\b(?P=q)",
    re.M,
)
#: The line closing a generic ``tt.reduce``/``tt.scan`` region: ``}) : (…) -> …``.
_CLOSE_RE = re.compile(rf"^{_WS}\}}\){_WS}:", re.M)
#: How many lines after a generic scratch op its closing line may be.
_REGION_LINES = 400
#: Every SSA name token (maximal munch: a name ``%x`` is used where this yields ``%x``).
_USE_RE = re.compile(r"%[\w$.-]+")
#: A use of one result of a multi-result op (``%r#1``).
_RESULT_USE_RE = re.compile(r"(%[\w$.-]+)#(\d{1,3})\b")
_MODULE_RE = re.compile(rf"^{_WS}(?:module|tt\.func|func\.func)\b", re.M)
#: What every operation name starts with: lines without it are skipped at C speed.
_NAME_HINT = re.compile(r"(?:ttg|triton_gpu|ttng|triton_nvidia_gpu|scf|tt|amdg)\.")
#: A type without nested ``<…>`` (``tensor<64x64xf16, #blocked>``): its text is its cache key.
_SIMPLE_TYPE = re.compile(r"(?:tensor|!ttg\.memdesc|!tt\.memdesc|!triton_gpu\.memdesc)?<[^<>\n]*>")


def _op_matches(text: str):
    """``_OP_RE.finditer(text)``, visiting only lines that contain an operation name."""
    pos = 0
    while True:
        h = _NAME_HINT.search(text, pos)
        if h is None:
            return
        j = text.rfind("\n", pos, h.start())
        m = _OP_RE.match(text, pos if j < 0 else j + 1)
        if m is not None:
            yield m
        e = text.find("\n", h.end())
        if e < 0:
            return
        pos = e + 1
_SSA_RE = re.compile(r"%[\w$.-]+(?:#\d+)?")
_TYPE_STARTS = ("tensor<", "!ttg.memdesc<", "!tt.memdesc<", "!triton_gpu.memdesc<")

#: Operation names (after the dialect) this reader keeps.
_KEEP = {
    "local_alloc", "local_store", "local_load", "async_copy_global_to_local", "convert_layout",
    "memdesc_index", "memdesc_subview", "memdesc_subslice", "memdesc_trans", "memdesc_reshape",
    "memdesc_reinterpret", "for", "buffer_load_to_local",
}
#: ``tt`` operations whose lowering uses a private scratch buffer.
_SCRATCH = {"reduce", "scan", "histogram", "gather", "atomic_rmw", "atomic_cas"}
#: ``ttng`` operations reported by name (TMA copies, MMA reading shared operands, TMEM).
_NAMED = {"async_tma_copy_global_to_local", "async_tma_copy_local_to_global",
          "async_tma_gather", "async_tma_scatter", "async_tma_reduce", "warp_group_dot",
          "tc_gen5_mma", "tc_gen5_mma_scaled", "tmem_alloc", "tmem_load", "tmem_store",
          "tmem_copy", "tensormap_create"}
_VIEW_SAME = {"memdesc_index", "memdesc_subview", "memdesc_subslice"}
_VIEW_NEW = {"memdesc_trans", "memdesc_reshape", "memdesc_reinterpret"}


@dataclass(frozen=True)
class Op:
    """One operation line.

    Attributes:
        line: 1-based line number in the file.
        name: the full operation name (``"ttg.local_load"``).
        results: SSA names defined (``("%x_5",)``).
        operands: SSA names used before the type signature, in order.
        types: the ``tensor``/``memdesc`` types of the signature, in order.
        attrs: the ``{…}`` attribute dictionary text, if any.
        text: the line without its ``loc(…)``.
        source: ``file.py:line`` from the op's ``loc(…)``, or None.
        result_used: whether a later line uses a result (checked for scratch ops only).
        results_used: for a scratch op with several results (``%r:2``), whether a later line
            uses each (``%r#0``, ``%r#1``); empty otherwise.
        combine: for a ``tt.reduce``, the operands each result depends on through the combine
            region as LLVM's optimiser leaves it (:func:`~.combine.combine_dependencies` with
            ``fold_equal_arms``), or None when not known.
        combiner: for a one-operand ``tt.reduce`` or ``tt.scan``, its single combine op
            (:func:`~.combine.single_combiner`: ``"arith.addi"``), or None.
        combine_ops: for a ``tt.reduce`` or ``tt.scan``, the ops of its combine region
            other than the return (:func:`~.combine.combine_op_count`), or None.
    """

    line: int
    name: str
    results: tuple[str, ...]
    operands: tuple[str, ...]
    types: tuple[TritonType, ...]
    attrs: str
    text: str
    source: str | None = None
    result_used: bool = True
    results_used: tuple[bool, ...] = ()
    combine: tuple[frozenset[int], ...] | None = None
    combiner: str | None = None
    combine_ops: int | None = None

    @property
    def short(self) -> str:
        """The name after the dialect prefix (``"local_load"``)."""
        return self.name.split(".", 1)[1]


@dataclass(frozen=True)
class TTGIRModule:
    """A parsed TTGIR file: aliases, module attributes and the operations kept.

    Attributes:
        aliases: ``{name: Encoding or MemorySpace}`` from the ``#name = …`` lines.
        threads_per_warp: ``ttg.threads-per-warp`` (if absent: 64 for a ``hip:`` target,
            else 32).
        num_warps: the module's ``ttg.num-warps`` (None if absent); a function's own
            ``ttg.num-warps`` is in ``functions``.
        num_ctas: ``ttg.num-ctas``, the CTAs of a cluster (1 if absent).
        target: ``ttg.target`` such as ``"cuda:90"`` (None if absent).
        ops: the operations that touch shared memory, in file order.
        ttng_uses: SSA names used by ``ttng.*`` operations (TMA copies, wgmma, tcgen05).
        iter_args: ``{loop-carried name: initial value}`` from ``scf.for``, and each loop
            result (``%r#i``, or ``%r`` for one) to its iter_arg's initial value.
        path: the file name, when read from a file.
        section: the ``MLIR_ENABLE_DUMP`` pass section analysed (``"IR Dump Before
            ConvertTritonGPUToLLVM"`` …), None for a plain TTGIR file.
        sections: the pass names of every TTGIR section of a dump, in file order.
        warp_specialize: the ``ttg.warp_specialize`` regions
            (:func:`~.warp_specialize.find_warp_specialize`).
        text: the analysed module's text (padded with empty lines to its line numbers), for
            analyses that read every op (:mod:`linlayout.triton.axisinfo`).
        partitions: the worker partition regions of its ``ttg.warp_specialize`` ops, with
            their lines and warps (:func:`~.warp_specialize.find_partitions`).
        functions: the ``tt.func`` bodies that set their own ``ttg.num-warps``, with their
            lines and warps (:func:`~.warp_specialize.find_function_warps`).
    """

    aliases: Mapping[str, Any]
    threads_per_warp: int
    num_warps: int | None
    target: str | None
    ops: tuple[Op, ...]
    ttng_uses: tuple[str, ...] = ()
    iter_args: Mapping[str, str] = field(default_factory=dict)
    path: str | None = None
    section: str | None = None
    sections: tuple[str, ...] = ()
    warp_specialize: tuple[WarpSpecialize, ...] = ()
    text: str = field(default="", repr=False, compare=False)
    num_ctas: int = 1
    partitions: tuple[Partition, ...] = ()
    functions: tuple[FunctionWarps, ...] = ()

    def warps_at(self, line: int) -> tuple[int | None, str]:
        """The warps that run the op at ``line`` and where that number comes from: the
        ``num_warps`` of the ``ttg.warp_specialize`` partition holding the line, else the
        ``ttg.num-warps`` of the ``tt.func`` holding it, else the module's ``ttg.num-warps``
        (None when the module has none) — :meth:`function_warps_at` outside partitions.
        Triton 3.9's layout verifier requires every tensor layout of an op to cover exactly
        these warps (``lookupNumWarps``, ``TritonGPU/IR/Dialect.cpp``: the innermost count
        from the op outwards)."""
        if self.partitions:
            starts, owners = self._segments
            p = owners[bisect.bisect_right(starts, line) - 1]
            if p is not None:
                return p.warps, f"partition{p.index}'s num_warps"
        return self.function_warps_at(line)

    def function_warps_at(self, line: int) -> tuple[int | None, str]:
        """The warps of the function holding ``line`` and where that number comes from: the
        function's own ``ttg.num-warps`` (``("8", "@k's ttg.num-warps")``), else the module's
        (``"ttg.num-warps"``; None when it has none). Partitions are not looked at
        (:meth:`warps_at` does)."""
        if self.functions:
            starts, owners = self._function_segments
            f = owners[bisect.bisect_right(starts, line) - 1]
            if f is not None:
                return f.warps, f"@{f.name}'s ttg.num-warps"
        return self.num_warps, "ttg.num-warps"

    @functools.cached_property
    def _segments(self) -> tuple[tuple[int, ...], tuple[Partition | None, ...]]:
        return partition_segments(self.partitions)

    @functools.cached_property
    def _function_segments(self) -> tuple[tuple[int, ...], tuple[FunctionWarps | None, ...]]:
        # a function's header line holds no op, so its body starts the line after
        return partition_segments(self.functions)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Access:
    """One warp-level shared-memory access found in a TTGIR file.

    Attributes:
        line: 1-based line of the operation.
        op: short operation name (``"local_load"``, ``"local_alloc"``, …).
        kind: ``"store"``, ``"load"`` or ``"convert"``.
        result: the SSA name the operation defines, if any.
        memdesc: the shared buffer's SSA name as used by the operation (None for converts).
        root: the allocation the buffer is a view of (for suggestions), or None.
        distributed: the register-side tensor type (the pointer tensor for async copies; the
            source for converts).
        memory: the memdesc type (None for converts).
        destination: the destination tensor type of a convert (else None).
        element_type: the stored element type (``"f16"`` …).
        element_bits: bits per element in memory.
        max_vector_elems: a cap on elements per lane (``contiguity`` of async copies), or None.
        source: ``file.py:line`` of the op (from ``loc``), or None.
        attrs: the op's attribute text (``axis``, ``contiguity`` …).
        has_other: an async copy with ``other`` (AMD writes it with a plain store).
        operands: the op's SSA operands.
        masked: an async copy with a ``mask``.
        result_used: whether the op's result is used (scalar atomics only pay for it then).
        operand_types: the tensor types of a scratch op's operands, in order (a
            multi-operand ``tt.reduce`` such as an argmax moves each with its own width).
        results_used: per result of a multi-result scratch op, whether it is used (empty:
            all are).
        combine: for a ``tt.reduce``, the operands each result depends on (None: unknown).
        combiner: for a one-operand ``tt.reduce`` or ``tt.scan``, its single combine op
            (``"arith.addi"``; :func:`~.combine.single_combiner`), or None.
        combine_ops: for a ``tt.reduce`` or ``tt.scan``, the ops of its combine region other
            than the return (:func:`~.combine.combine_op_count`), or None.
        view_offset: for a copy through a ``memdesc_subslice`` view, the element coordinates
            of the view's first element in the allocation (per dim of ``memory``'s
            allocation shape; :func:`view_offsets`), else ``()`` (at the origin, or not
            known statically).
        view_stages: for a copy through a ``memdesc_index`` view (a pipeline stage), the
            buffer indices it may select (one for a constant index, every one for a dynamic
            index; :func:`view_stages`), else ``()``.

    ``kind`` is ``"store"``/``"load"`` (a register ⇄ shared copy), ``"convert"``,
    ``"scratch"`` (``tt.reduce``/``scan``/``histogram``/``gather``/scalar atomics: a private
    scratch buffer, ``distributed`` = the operand, ``destination`` = the result) or
    ``"named"`` (TMA copies, wgmma/tcgen05 and tensor-memory ops: ``distributed`` None).
    """

    line: int
    op: str
    kind: str
    result: str | None
    memdesc: str | None
    root: str | None
    distributed: TritonType | None
    memory: TritonType | None
    destination: TritonType | None
    element_type: str
    element_bits: int
    max_vector_elems: int | None = None
    source: str | None = None
    attrs: str = ""
    has_other: bool = False
    operands: tuple[str, ...] = ()
    masked: bool = False
    result_used: bool = True
    operand_types: tuple[TritonType, ...] = ()
    results_used: tuple[bool, ...] = ()
    combine: tuple[frozenset[int], ...] | None = None
    view_offset: tuple[int, ...] = ()
    view_stages: tuple[int, ...] = ()
    combiner: str | None = None
    combine_ops: int | None = None


def _strip_loc(line: str) -> str:
    """Drop a trailing top-level ``loc(…)``."""
    i = line.rfind(" loc(")
    if i >= 0 and line.rstrip().endswith(")"):
        return line[:i]
    return line


def _split_signature(text: str) -> tuple[str, str]:
    """``operands-and-attrs : types`` split at the first top-level ``" : "``."""
    depth = 0
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "-" and i + 1 < n and text[i + 1] == ">":
            i += 2
            continue
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == ":" and depth == 0 and text[i - 1:i] == " " and text[i + 1:i + 2] == " ":
            return text[:i], text[i + 1:]
        i += 1
    return text, ""


def _top_level_braces(text: str) -> tuple[str, str]:
    """Split off ``{…}`` attribute dictionaries (top level) from operand text."""
    out, attrs = [], []
    depth = 0
    cur = []
    for c in text:
        if c == "{":
            if depth == 0:
                out.append("".join(cur))
                cur = []
            depth += 1
            cur.append(c)
        elif c == "}":
            depth -= 1
            cur.append(c)
            if depth == 0:
                attrs.append("".join(cur))
                cur = []
        else:
            cur.append(c)
    if depth == 0:
        out.append("".join(cur))
    else:
        attrs.append("".join(cur))
    return "".join(out), " ".join(attrs)


def _parse_types(text: str, start: int, end: int, aliases: Mapping[str, Any],
                 where: str, index: LineIndex | None = None,
                 cache: dict[str, TritonType] | None = None) -> tuple[TritonType, ...]:
    """The tensor/memdesc types in ``text[start:end]`` (positions index the whole file, so
    errors name the right line and column). ``cache`` keeps the types already read from the
    same text with the same aliases, keyed by their text, so that a type repeated on every
    line is parsed once."""
    types = []
    i = start
    depth = 0
    while i < end:
        if text.startswith(_TYPE_STARTS, i):
            t, i = _type_at(text, i, aliases, where, index, cache)
            types.append(t)
            continue
        c = text[i]
        if c == "<" and depth == 0:
            # the bare memdesc form `-> <128x32xf16, #shared, ...>`
            j = i - 1
            while j >= start and text[j] in " \t":
                j -= 1
            if j - 1 >= start and text[j - 1:j + 1] == "->":
                t, i = _type_at(text, i, aliases, where, index, cache)
                types.append(t)
                continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    return tuple(types)


#: The start of a ``// -----// IR Dump Before <Pass> … //----- //`` header line; the rest of
#: the line is checked by :func:`_section_header` without a regex.
def _type_at(text: str, i: int, aliases: Mapping[str, Any], where: str,
             index: LineIndex | None, cache: dict[str, TritonType] | None
             ) -> tuple[TritonType, int]:
    """:func:`parse_type_at` (tolerant), through ``cache`` for types without nested ``<…>``."""
    m = _SIMPLE_TYPE.match(text, i) if cache is not None else None
    if m is not None:
        hit = cache.get(m.group(0))
        if hit is not None:
            return hit, m.end()
    t, j = parse_type_at(text, i, aliases, where, tolerant=True, lines=index)
    if m is not None and j == m.end():
        cache[m.group(0)] = t
    return t, j


_SECTION_RE = re.compile(rf"^//{_WS}-----//{_WS}IR Dump (?:Before|After) ", re.M)
_LOC_DEF_RE = re.compile(rf"^#(loc\d*){_WS}={_WS}(loc\(.*\)){_WS}$", re.M)
_TTGIR_FUNC_RE = re.compile(rf"^{_WS}tt\.func\b", re.M)


def _resolve_loc(text: str, locs: Mapping[str, str], depth: int = 0,
                 memo: dict[str, str | None] | None = None) -> str | None:
    """``file.py:line`` of a ``loc(…)`` body: a file location, a name wrapping one
    (``loc("x"(#loc3))``), an alias, or a call site (the caller's line: the user's code).

    ``memo`` keeps each alias's answer, so a file reading every alias once costs each body one
    resolution (a ``fused[…]`` of aliases of fused aliases would otherwise branch at every
    level)."""
    if depth > 50:
        return None
    t = text.strip()
    if t.startswith("loc(") and t.endswith(")"):
        t = t[4:-1].strip()
    if t.startswith("#"):
        name = t[1:]
        if memo is not None and name in memo:
            return memo[name]
        body = locs.get(name)
        if memo is not None:
            memo[name] = None  # a cycle back to this alias resolves to nothing
        r = None if body is None else _resolve_loc(body, locs, depth + 1, memo)
        if memo is not None:
            memo[name] = r
        return r
    m = re.match(r'"((?:[^"\\]|\\.)*)":(\d+)(?::\d+)?$', t)
    if m:
        return f"{m.group(1).replace(chr(92), '/').rsplit('/', 1)[-1]}:{m.group(2)}"
    if t.startswith("callsite("):
        inner = t[len("callsite("):-1]
        depth_p = 0
        for i in range(len(inner)):
            c = inner[i]
            if c in "([":
                depth_p += 1
            elif c in ")]":
                depth_p -= 1
            elif depth_p == 0 and inner.startswith(" at ", i):
                return _resolve_loc(inner[i + 4:], locs, depth + 1, memo) or \
                    _resolve_loc(inner[:i], locs, depth + 1, memo)
        return None
    m = re.match(r'"(?:[^"\\]|\\.)*"\((.*)\)$', t)
    if m:
        return _resolve_loc(m.group(1), locs, depth + 1, memo)
    if t.startswith("fused["):
        for part in re.findall(r'"[^"]*":\d+:\d+|#loc\d*', t):
            r = _resolve_loc(part, locs, depth + 1, memo)
            if r:
                return r
    return None


def _trailing_loc(line: str) -> str | None:
    """The trailing top-level ``loc(…)`` of an op line, or None."""
    i = line.rfind(" loc(")
    if i >= 0 and line.rstrip().endswith(")"):
        return line[i + 1:].rstrip()
    return None


def _section_header(text: str, m: re.Match) -> tuple[str, int] | None:
    """The pass name of a header started by ``m`` and the offset of its line's end, or None
    when the line does not end with ``//----- //`` (not a header)."""
    eol = text.find("\n", m.end())
    eol = len(text) if eol < 0 else eol
    line = text[m.end():eol].rstrip()
    if not line.endswith("//"):
        return None
    rest = line[:-2].rstrip()
    if not rest.endswith("//-----"):
        return None
    head = rest[:-len("//-----")]
    name = head.split(None, 1)[0] if head[:1] and not head[0].isspace() else ""
    return (name, eol) if name else None


def split_sections(text: str) -> list[tuple[str, int, str]]:
    """``MLIR_ENABLE_DUMP`` output cut at its ``// -----// IR Dump Before <Pass> …`` headers:
    ``(pass name, first line number, text)`` per section (one unnamed section for a plain
    file). Each section has its own aliases: a pass may redefine ``#blocked``. Linear in the
    text's size; line numbers count ``\n`` only."""
    heads = []
    for m in _SECTION_RE.finditer(text):
        h = _section_header(text, m)
        if h is not None:
            heads.append((m.start(), h[0], h[1]))
    if not heads:
        return [("", 1, text)]
    out = []
    line, at = 1, 0
    for k, (start, name, eol) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(text)
        line += text.count("\n", at, eol)
        at = eol
        out.append((name, line + 1, text[eol + 1:end]))
    return out


def _is_ttgir(section: str) -> bool:
    return bool(_TTGIR_FUNC_RE.search(section)) and "llvm.func" not in section


def _source_text(source: str | os.PathLike, path: str | None) -> tuple[str, str | None]:
    if isinstance(source, os.PathLike) or (
            isinstance(source, str) and "\n" not in source and len(source) < 4096
            and not source.lstrip().startswith(("#", "module", "//", "tt.func"))
            and os.path.isfile(source)):
        name = os.fspath(source)
        return read_text_file(name), path or name
    if not isinstance(source, str):
        raise LayoutError(f"TTGIR must be text or a path, got {type(source).__name__}")
    if source and len(source) < 4096 and not any(c.isspace() for c in source) and (
            "/" in source or source.endswith((".ttgir", ".mlir", ".txt", ".log"))):
        raise LayoutError(f"no file {clip(source)!r}: pass TTGIR text, or the path of an "
                          "existing file")
    if len(source) > MAX_FILE_BYTES:
        raise LayoutError(f"TTGIR text of {len(source)} characters; at most {MAX_FILE_BYTES} "
                          f"({MAX_FILE_BYTES >> 20} MiB) are read")
    return normalize_line_breaks(strip_bom(source)), path


def _module_int(text: str, name: str, where: str) -> int | None:
    """The integer of the module attribute ``ttg.<name>`` (or ``triton_gpu.<name>``), None
    when the text has none. The same attribute on a ``tt.func`` line is the function's, not
    the module's (:func:`~.warp_specialize.find_function_warps`), and is skipped, as is one
    inside a ``//`` comment (:func:`~.source.module_attribute`).

    Raises:
        LayoutError: the value is not a decimal integer (``"ttg.num-warps" = 4x : i32``),
            or has too many digits (:func:`~.limits.mlir_int`).
    """
    value = module_attribute(text, name)
    if value is None:
        return None
    if not re.fullmatch(r"-?\d+", value):
        raise LayoutError(f"{where}ttg.{name} is {value[:20]!r}, not an integer: write "
                          f'it as MLIR does ("ttg.{name}" = 4 : i32)')
    return mlir_int(value, f"{where}ttg.{name}")


def read_ttgir(source: str | os.PathLike, path: str | None = None, *,
               pass_name: str | None = None) -> TTGIRModule:
    """Parse TTGIR text or a TTGIR file.

    Args:
        source: the file contents, or a path (``pathlib.Path``, or a string naming an
            existing file).
        path: a name for error messages (``"kernel.ttgir: line 12, column 40: …"``); the
            path itself when ``source`` is one.
        pass_name: for ``MLIR_ENABLE_DUMP`` output, the section to analyse: the last one
            whose pass (``IR Dump Before <Pass>``) contains this text. Default: the last
            TTGIR section (the input of ``ConvertTritonGPUToLLVM``).

    Returns:
        A :class:`TTGIRModule` (line numbers count from the start of the whole file).

    Raises:
        LayoutError: an unreadable path, or a string without whitespace that looks like one
            (a ``/``, or ending in ``.ttgir``/``.mlir``/``.txt``/``.log``) naming no file; the
            text has no ``module``/``tt.func`` and no
            shared-memory operation (it is probably not TTGIR); no section matches
            ``pass_name`` (the message lists the passes); an alias or a type of a kept
            operation is malformed (the message names the line and column);
            ``ttg.num-warps``, ``ttg.num-ctas``, a ``warp_specialize`` partition's
            ``num_warps`` or a ``tt.func``'s own ``ttg.num-warps`` is not a power of two
            (Triton's verifier requires one), or a module or function count is not an
            integer.
    """
    text, path = _source_text(source, path)
    where = f"{path}: " if path else ""
    sections = split_sections(text)
    names = tuple(n for n, _, t in sections if n and _is_ttgir(t))
    if len(sections) == 1:
        chosen = sections[0]
    else:
        cands = [s for s in sections if _is_ttgir(s[2])]
        if pass_name is not None:
            cands = [s for s in cands if pass_name.lower() in s[0].lower()]
            if not cands:
                raise LayoutError(f"{where}no TTGIR section of the dump matches pass "
                                  f"{pass_name!r}; passes: {', '.join(dict.fromkeys(names))}")
        if not cands:
            raise LayoutError(f"{where}the dump has no TTGIR section (no 'tt.func' outside "
                              "LLVM IR)")
        chosen = cands[-1]
    name, first_line, body = chosen
    _check_extent(body, first_line, where)
    padded = "\n" * (first_line - 1) + body
    mod = _read_text(padded, path, where)
    return TTGIRModule(mod.aliases, mod.threads_per_warp, mod.num_warps, mod.target, mod.ops,
                       mod.ttng_uses, mod.iter_args, path,
                       f"IR Dump Before {name}" if name else None, names,
                       mod.warp_specialize, padded, mod.num_ctas, mod.partitions,
                       mod.functions)


_BRACE_RE = re.compile(r"^[ \t]*\}|\{[ \t]*\r?$", re.MULTILINE)


def _check_extent(body: str, first_line: int, where: str) -> None:
    """Refuse a module (or dump section) whose regions (lines ending in ``{``, closed by lines
    starting with ``}``) nest deeper than :data:`MAX_REGION_NESTING`, before any analysis
    keeps each line's enclosing regions. One regex pass over the braces at line ends."""
    depth = 0
    for m in _BRACE_RE.finditer(body):
        if m.group().endswith("}"):
            depth = max(0, depth - 1)
            continue
        depth += 1
        if depth > MAX_REGION_NESTING:
            line = first_line + body.count("\n", 0, m.start())
            raise LayoutError(f"{where}line {line}: regions nest more than "
                              f"{MAX_REGION_NESTING} deep (MAX_REGION_NESTING); real "
                              "kernels nest a handful of loops and branches")


class _Lines:
    """The text of one module with its line index: each line's text on request, and the
    closing lines of generic regions found once, front to back."""

    def __init__(self, text: str, index: LineIndex):
        self.text = text
        self.index = index
        self._close: re.Match | None = None
        self._close_line = 0
        self._from = -1
        #: types already read, by their text (see :func:`_parse_types`)
        self.types: dict[str, TritonType] = {}

    def line_at(self, start: int) -> tuple[str, int]:
        """The line starting at offset ``start`` (without ``\n`` or a final ``\r``) and the
        offset of its end."""
        end = self.text.find("\n", start)
        end = len(self.text) if end < 0 else end
        line = self.text[start:end]
        return (line[:-1] if line.endswith("\r") else line), end

    def close_after(self, end: int, lineno: int) -> tuple[int, int] | None:
        """``(offset, line number)`` of the first region-closing line after the line ending at
        ``end`` (line ``lineno``), if it lies within :data:`_REGION_LINES` lines. Calls come in
        file order and a search resumes only past the last closing line found, so all calls
        together scan the text once."""
        after = end + 1
        if self._from < 0 or after < self._from or (
                self._close is not None and self._close.start() < after):
            self._close = _CLOSE_RE.search(self.text, after)
            self._from = after
            if self._close is not None:
                self._close_line = self.index.line(self._close.start())
        if self._close is None or self._close_line - lineno >= _REGION_LINES:
            return None
        return self._close.start(), self._close_line


def _read_text(text: str, path: str | None, where: str) -> TTGIRModule:
    """One module's text (a whole file or one dump section, padded to its line numbers).

    Linear in the text's size: one pass finds the operation lines, one line index serves every
    line number, and result uses are found in one more pass."""
    index = LineIndex(text)
    try:
        aliases = parse_aliases(text, tolerant=True, lines=index)
    except LayoutError as exc:
        raise LayoutError(f"{where}{exc}") from None
    locs = {m.group(1): m.group(2) for m in _LOC_DEF_RE.finditer(text)}
    loc_memo: dict[str, str | None] = {}
    target = module_attribute(text, "target", r'"([^"\n]*)"')
    tpw = _module_int(text, "threads-per-warp", where)
    if tpw is None:
        tpw = 64 if target is not None and target.strip().startswith("hip:") else 32
    nw = _module_int(text, "num-warps", where)
    if nw is not None and (nw < 1 or nw & (nw - 1)):
        # Triton's verifier: num_warps is a power of two; the sunk-load and allocation
        # replays divide by it and size scratch with it
        raise LayoutError(f"{where}ttg.num-warps is {nw}; a CTA has a power-of-two number of "
                          "warps (1, 2, 4, …)")
    ctas = _module_int(text, "num-ctas", where)
    ctas = 1 if ctas is None else ctas
    if ctas < 1 or ctas & (ctas - 1):
        raise LayoutError(f"{where}ttg.num-ctas is {ctas}; a cluster has a power-of-two number "
                          "of CTAs (1, 2, 4, …)")
    ops: list[Op] = []
    ttng_uses: list[str] = []
    iter_args: dict[str, str] = {}
    lines = _Lines(text, index)
    types_cache = lines.types
    #: scratch ops with results: (index in ops, result names, where "later" starts)
    pending_uses: list[tuple[int, list[str], int]] = []
    lineno, counted_to = 1, 0
    for mo in _op_matches(text):
        start = mo.start()
        lineno += text.count("\n", counted_to, start)
        counted_to = start
        line, end = lines.line_at(start)
        at = mo.end() - start  # the op name's end, in the line
        name = mo.group("name")
        dialect, _, short = name.partition(".")
        loc = _trailing_loc(line)
        source = _resolve_loc(loc, locs, 0, loc_memo) if loc else None
        body = _strip_loc(line)
        results = tuple(r.strip() for r in mo.group("res").split(",")) if mo.group("res") else ()
        if dialect in ("ttng", "triton_nvidia_gpu"):
            head, sig = _split_signature(body[at:])
            ttng_uses.extend(_SSA_RE.findall(head))
            if short in _NAMED:
                operand_text, attrs = _top_level_braces(head)
                sig_start = start + at + len(head) + 1
                try:
                    types = _parse_types(text, sig_start, sig_start + len(sig), aliases, where,
                                         index, types_cache)
                except LayoutError:
                    types = ()
                _keep(ops, Op(lineno, name, results, tuple(_SSA_RE.findall(operand_text)),
                              types, attrs, body.strip(), source), where)
            continue
        if short == "for" and dialect == "scf":
            pairs = re.findall(r"(%[\w$.-]+)\s*=\s*(%[\w$.-]+(?:#\d+)?)",
                               body[body.find("iter_args"):] if "iter_args" in body else "")
            for a, b in pairs:
                iter_args[a] = b
            iter_args.update(_loop_results(results, [b for _, b in pairs]))
            continue
        if dialect == "tt" and short in _SCRATCH:
            op = _scratch_op(text, lines, start, end, lineno, mo, name, results, aliases,
                             where, locs, loc_memo, source)
            if op is not None:
                if op.results:
                    pending_uses.append((len(ops), [_base(r).split(":")[0] for r in op.results],
                                         min(end + 1, len(text))))
                _keep(ops, op, where)
            continue
        if dialect not in ("ttg", "triton_gpu", "amdg") or short not in _KEEP:
            continue
        head, sig = _split_signature(body[at:])
        operand_text, attrs = _top_level_braces(head)
        operands = tuple(_SSA_RE.findall(operand_text))
        sig_start = start + at + len(head) + 1
        types = _parse_types(text, sig_start, sig_start + len(sig), aliases, where, index,
                             types_cache)
        _keep(ops, Op(lineno, name, results, operands, types, attrs, body.strip(), source),
              where)
    if pending_uses:
        _mark_unused(text, ops, pending_uses)
    if not ops and not _MODULE_RE.search(text):
        raise LayoutError(f"{where}no MLIR module, function or shared-memory operation found; "
                          "pass a TTGIR dump (e.g. kernel.asm['ttgir'] or MLIR_ENABLE_DUMP=1 "
                          "output)")
    try:
        partitions = find_partitions(text)
        regions = find_warp_specialize(text)
        functions = find_function_warps(text)
    except LayoutError as exc:
        raise LayoutError(f"{where}{exc}") from None
    return TTGIRModule(aliases, tpw, nw, target, tuple(ops), tuple(ttng_uses), iter_args, path,
                       warp_specialize=regions, num_ctas=ctas, partitions=partitions,
                       functions=functions)


def _keep(ops: list[Op], op: Op, where: str) -> None:
    """Append ``op``, refusing a module with more than :data:`MAX_OPS` kept operations."""
    if len(ops) >= MAX_OPS:
        raise LayoutError(f"{where}line {op.line}: more than {MAX_OPS} shared-memory operations "
                          "in one module; real kernels have at most a few hundred")
    ops.append(op)


def _mark_unused(text: str, ops: list[Op], pending: list[tuple[int, list[str], int]]) -> None:
    """Set ``result_used`` of each scratch op in ``pending`` (whether a result name appears
    after the op's line) from one scan of the text's SSA names."""
    wanted = {n for _, names, _ in pending for n in names}
    last: dict[str, int] = {}
    for m in _USE_RE.finditer(text):
        if m.group(0) in wanted:
            last[m.group(0)] = m.start()
    for k, names, later in pending:
        used = any(last.get(n, -1) >= later for n in names)
        if not used:
            ops[k] = dataclasses.replace(ops[k], result_used=False)
    multi = {}  # %r -> (op index, result count, later) for results printed as %r:n
    for k, _, later in pending:
        for r in ops[k].results:
            m = re.fullmatch(r"(%[\w$.-]+):(\d+)", r.strip())
            if m and 1 < int(m.group(2)) <= 64:
                multi[m.group(1)] = (k, int(m.group(2)), later)
    if not multi:
        return
    seen: dict[tuple[str, int], int] = {}
    for m in _RESULT_USE_RE.finditer(text):
        if m.group(1) in multi:
            key = (m.group(1), int(m.group(2)))
            seen[key] = m.start()
    for name, (k, n, later) in multi.items():
        flags = tuple(seen.get((name, i), -1) >= later for i in range(n))
        ops[k] = dataclasses.replace(ops[k], results_used=flags)


def _scratch_op(text: str, lines: _Lines, start: int, end: int, lineno: int, mo: re.Match,
                name: str, results: tuple[str, ...], aliases: Mapping[str, Any], where: str,
                locs: Mapping[str, str], loc_memo: dict[str, str | None],
                source: str | None) -> Op | None:
    """A ``tt.reduce``/``tt.scan`` (generic form: the types are on the line closing the
    combine region, ``}) : (tensor<…>) -> tensor<…>``) or a one-line ``tt.histogram``,
    ``tt.gather``, ``tt.atomic_*``. ``start``/``end`` delimit the op's line (line ``lineno``)
    in ``text``."""
    line, _ = lines.line_at(start)
    body = _strip_loc(line)
    at = mo.end() - start
    rest = body[at:]
    if mo.group("q"):
        close = lines.close_after(end, lineno)
        if close is None:
            return None
        cstart, _ = close
        cl, _ = lines.line_at(cstart)
        loc = _trailing_loc(cl)
        if loc:
            source = _resolve_loc(loc, locs, 0, loc_memo) or source
        cbody = _strip_loc(cl)
        k = cbody.index(":") + 1
        types = _parse_types(text, cstart + k, cstart + len(cbody), aliases, where, lines.index,
                             lines.types)
        paren = rest[:rest.find(")") + 1] if ")" in rest else rest
        operands = tuple(_SSA_RE.findall(paren))
        attrs = rest[len(paren):]
        combine = combiner = combine_ops = None
        if name.endswith(".reduce") and operands:
            combine = combine_dependencies(text[end + 1:cstart], len(operands),
                                           fold_equal_arms=True)
        if name.endswith((".reduce", ".scan")) and operands:
            combiner = single_combiner(text[end + 1:cstart], len(operands))
            combine_ops = combine_op_count(text[end + 1:cstart])
        return Op(lineno, name, results, operands, types, attrs, body.strip(), source,
                  combine=combine, combiner=combiner, combine_ops=combine_ops)
    head, sig = _split_signature(rest)
    operand_text, attrs = _top_level_braces(head)
    sig_start = start + at + len(head) + 1
    types = _parse_types(text, sig_start, sig_start + len(sig), aliases, where, lines.index,
                         lines.types)
    return Op(lineno, name, results, tuple(_SSA_RE.findall(operand_text)), types, attrs,
              body.strip(), source)


class ViewParents(dict):
    """``{view: the buffer it views}`` (a dict) that also answers :meth:`root` — the
    allocation at the end of a chain of views — in amortised constant time: each name's root
    is found once and kept, so looking up every view of a chain of ``n`` views costs ``O(n)``,
    not ``O(n²)``. Changing the mapping after a :meth:`root` call is not supported."""

    def __init__(self, *args: Any, **kwargs: Any):
        """As ``dict(...)``."""
        super().__init__(*args, **kwargs)
        self._roots: dict[str, str] = {}
        self._cycle: set[str] = set()

    def root(self, name: str | None) -> str | None:
        """Follow ``name`` through the views to a name that is not a view (None stays None).
        A name on a cycle of views (malformed input) is its own root; a name leading into a
        cycle ends at the first name of the cycle it reaches."""
        if name is None or name not in self:
            return name
        if name in self._roots:
            return self._roots[name]
        path: list[str] = []
        on_path: dict[str, int] = {}
        cur: str | None = name
        while cur is not None and cur in self and cur not in self._roots and cur not in on_path:
            on_path[cur] = len(path)
            path.append(cur)
            cur = self[cur]
        if cur is not None and cur in on_path:  # a new cycle: path[k:]
            k = on_path[cur]
            for n in path[k:]:
                self._roots[n] = n
                self._cycle.add(n)
            path = path[:k]
            end = cur
        elif cur is not None and cur in self._roots:
            end = cur if cur in self._cycle else self._roots[cur]
        else:
            end = cur
        for n in path:
            self._roots[n] = end
        return self._roots[name]


def _root(name: str | None, parents: Mapping[str, str]) -> str | None:
    if isinstance(parents, ViewParents):
        return parents.root(name)
    seen = set()
    while name is not None and name in parents and name not in seen:
        seen.add(name)
        name = parents[name]
    return name


def _base(name: str) -> str:
    """``%acc#2`` -> ``%acc`` (a result of a multi-result op)."""
    return name.split("#", 1)[0]


def _loop_results(results: tuple[str, ...], inits: list[str]) -> dict[str, str]:
    """``{result of an scf.for: the initial value of its iter_arg}``: a loop printed
    ``%r:3 = scf.for … iter_args(%a = %x, %b = %y, %c = %z)`` gives ``%r#0 -> %x``,
    ``%r#1 -> %y``, ``%r#2 -> %z``; a one-result loop ``%r = scf.for`` gives ``%r -> %x``.
    Result ``i`` is the value yielded for iter_arg ``i``; for a memdesc, Triton's pipelined
    loops yield views of the buffer the initial value views (``memdesc_index`` of one
    allocation), so the initial value names its allocation, as for the loop's own block
    arguments (MLIR ``scf.for``: results match ``iter_args`` in order)."""
    if len(results) != 1 or not inits:
        return {}
    name, _, count = results[0].partition(":")
    if not count:
        return {name: inits[0]}
    if not count.isdigit():
        return {}
    return {f"{name}#{i}": b
            for i, b in enumerate(inits[:result_count(count, f"{name}:{count[:20]}")])}


def _ref(name: str, parents: Mapping[str, str]) -> str:
    """``name`` as a key of ``parents``: a loop result ``%r#2`` keeps its index where the
    loop maps it (:func:`_loop_results`); any other ``%x#2`` is its op's ``%x``."""
    return name if name in parents else _base(name)


def view_parents(module: TTGIRModule) -> ViewParents:
    """``{view: the buffer it views}`` for ``memdesc_index``/``subview``/``subslice`` results,
    loop-carried memdescs and a loop's memdesc results (``%r#i``); follow it to the allocation with :func:`buffer_root` (amortised
    constant time per lookup: :class:`ViewParents` remembers each root)."""
    parents = ViewParents(module.iter_args)
    for a, b in module.iter_args.items():
        parents[a] = _ref(b, module.iter_args)
    for op in module.ops:
        if op.short in _VIEW_SAME and op.results and op.operands:
            parents[op.results[0]] = _ref(op.operands[0], parents)
    return parents


_SUBSLICE = re.compile(r"memdesc_subslice\s+%[\w$.#-]+\s*\[([\d,\s]+)\]")


def view_offsets(module: TTGIRModule) -> dict[str, tuple[int, ...]]:
    """``{view: element coordinates of its first element in the buffer it slices}`` for
    every ``ttg.memdesc_subslice`` result (static offsets, printed ``%buf[32, 0]``), summed
    along chains of subslices of the same rank. A ``memdesc_index`` stage or a loop-carried
    view ends a chain (its offset is not followed).

    Source: Triton 3.9 ``MemDescSubsliceOp`` (``TritonGPUOps.td``: static ``offsets``, the
    result type carrying the allocation shape); its lowering places the view at the
    allocation's layout applied to those offsets (checked by compiling, see
    ``papers/triton_lowering/padded_fault_probes.py``).
    """
    out: dict[str, tuple[int, ...]] = {}
    for op in module.ops:
        if op.short != "memdesc_subslice" or not op.results or not op.operands:
            continue
        m = _SUBSLICE.search(op.text)
        if not m:
            continue
        offs = tuple(mlir_int(x.strip(), "subslice offset")
                     for x in m.group(1).split(",") if x.strip())
        parent = out.get(_base(op.operands[0]))
        if parent is not None and len(parent) == len(offs):
            offs = tuple(a + b for a, b in zip(parent, offs))
        out[op.results[0]] = offs
    return out


_CONST_INDEX = re.compile(r"%c(\d+)_i\d+")


def view_stages(module: TTGIRModule) -> dict[str, tuple[int, ...]]:
    """``{view: the buffer indices it may select}`` for every ``ttg.memdesc_index`` result
    (and the subslices of one): ``(i,)`` for a constant index (MLIR prints an integer
    constant as ``%c<i>_i32``), ``(0, …, n − 1)`` for any other index into ``n`` buffers.

    Source: Triton 3.9 ``MemDescIndexOp`` (``TritonGPUOps.td``); its lowering moves the base
    by ``index`` times the size of one buffer (with a ``padded_shared`` layout, its padded
    size; checked by compiling, see ``papers/triton_lowering/padded_fault_probes.py``).
    """
    out: dict[str, tuple[int, ...]] = {}
    for op in module.ops:
        if not op.results or not op.operands:
            continue
        if op.short == "memdesc_index" and len(op.operands) >= 2 and op.types \
                and op.types[0].kind == "memdesc" and op.types[0].shape:
            n = op.types[0].shape[0]
            m = _CONST_INDEX.fullmatch(op.operands[1])
            i = int(m.group(1)) if m else None
            out[op.results[0]] = (i,) if i is not None and i < n else tuple(range(n))
        elif op.short in _VIEW_SAME and _base(op.operands[0]) in out:
            out[op.results[0]] = out[_base(op.operands[0])]
    return out


def buffer_root(name: str, parents: Mapping[str, str]) -> str:
    """The allocation a memdesc SSA name views (itself if it is not a view). Amortised
    constant time when ``parents`` is a :class:`ViewParents` (from :func:`view_parents`),
    the length of the chain otherwise."""
    root = _root(_ref(name, parents), parents)
    return root if root is not None else name


def find_accesses(module: TTGIRModule) -> list[Access]:
    """The shared-memory accesses of a module, in file order.

    Raises:
        LayoutError: an access operation lacks the types it needs (a malformed line), naming
            the line; a ``local_alloc`` (with a value), ``local_store`` or ``local_load``
            whose tensor and memdesc differ in shape or element type (:func:`_same_types`);
            ``module`` not a :class:`TTGIRModule`.
    """
    instance_of(module, TTGIRModule, "module")
    where = f"{module.path}: " if module.path else ""
    parents = view_parents(module)
    offsets = view_offsets(module)
    stages = view_stages(module)
    accesses: list[Access] = []

    def bad(op: Op, what: str) -> LayoutError:
        return LayoutError(f"{where}line {op.line}: {op.name} {what}: {op.text[:120]}")

    def tensors(op: Op) -> list[TritonType]:
        return [t for t in op.types if t.kind == "tensor"]

    def memdescs(op: Op) -> list[TritonType]:
        return [t for t in op.types if t.kind == "memdesc"]

    for op in module.ops:
        s = op.short
        if s in _VIEW_SAME or s in _VIEW_NEW:
            continue
        if s == "local_alloc":
            if not op.operands:
                continue  # allocation without a value: nothing is written here
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms:
                raise bad(op, "needs a tensor operand type and a memdesc result type")
            res = op.results[0] if op.results else None
            _same_types(op, ts[0], ms[-1], where)
            accesses.append(_make(op, "store", res, res, _root(res, parents), ts[0], ms[-1]))
        elif s == "local_store":
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms or len(op.operands) < 2:
                raise bad(op, "needs 'value, memdesc : tensor<…> -> !ttg.memdesc<…>'")
            md = _base(op.operands[1])
            _same_types(op, ts[0], ms[0], where)
            accesses.append(dataclasses.replace(
                _make(op, "store", None, md, buffer_root(op.operands[1], parents), ts[0],
                      ms[0]),
                view_offset=offsets.get(md, ()),
                view_stages=stages.get(md, ())))
        elif s == "local_load":
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms or not op.operands:
                raise bad(op, "needs 'memdesc : !ttg.memdesc<…> -> tensor<…>'")
            md = _base(op.operands[0])
            res = op.results[0] if op.results else None
            _same_types(op, ts[0], ms[0], where)
            accesses.append(dataclasses.replace(
                _make(op, "load", res, md, buffer_root(op.operands[0], parents), ts[0], ms[0]),
                view_offset=offsets.get(md, ()),
                view_stages=stages.get(md, ())))
        elif s in ("async_copy_global_to_local", "buffer_load_to_local"):
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms or len(op.operands) < 2:
                raise bad(op, "needs 'pointers, memdesc : tensor<…x!tt.ptr<…>> -> <…>'")
            if s == "buffer_load_to_local":  # %base[%offsets] into %buffer
                mi = re.search(r"\binto\s+(%[\w$.-]+(?:#\d+)?)", op.text)
                raw = mi.group(1) if mi else op.operands[-1]
            else:
                raw = op.operands[1]
            md = _base(raw)
            m = re.search(r"contiguity\s*=\s*(\d+)", op.attrs)
            cap = mlir_int(m.group(1), "contiguity") if m else None
            res = op.results[0] if op.results else None
            other = bool(re.search(r"\bother\s+%", op.text))
            a = _make(op, "store", res, md, buffer_root(raw, parents), ts[0], ms[0], cap,
                      other)
            accesses.append(dataclasses.replace(
                a, masked=bool(re.search(r"\bmask\s+%", op.text)),
                view_offset=offsets.get(md, ()),
                view_stages=stages.get(md, ())))
        elif s == "convert_layout":
            ts = tensors(op)
            if len(ts) < 2:
                raise bad(op, "needs 'tensor<…> -> tensor<…>'")
            res = op.results[0] if op.results else None
            src, dst = ts[0], ts[1]
            accesses.append(Access(op.line, s, "convert", res, None, None, src, None, dst,
                                   src.element_type, src.element_bits, None, op.source,
                                   op.attrs, False, op.operands))
        elif s in _SCRATCH:
            ts = tensors(op)
            res = op.results[0] if op.results else None
            src = ts[0] if ts else None
            dst = ts[-1] if len(ts) > 1 else None
            accesses.append(Access(op.line, s, "scratch", res, None, None, src, None, dst,
                                   src.element_type if src else "",
                                   src.element_bits if src else 0, None, op.source, op.attrs,
                                   False, op.operands, False, op.result_used,
                                   tuple(ts[:len(op.operands)]), op.results_used, op.combine,
                                   combiner=op.combiner, combine_ops=op.combine_ops))
        elif s in _NAMED:
            res = op.results[0] if op.results else None
            # the data buffer, not an mbarrier (a 1-D i64 memdesc)
            ms = [m for m in memdescs(op) if not (m.rank == 1 and m.element_type == "i64")]
            accesses.append(Access(op.line, s, "named", res, None, None, None,
                                   ms[0] if ms else None, None,
                                   ms[0].element_type if ms else "",
                                   ms[0].element_bits if ms else 0, None, op.source, op.attrs,
                                   False, op.operands))
    return accesses


def _same_types(op: Op, tensor: TritonType, memdesc: TritonType, where: str) -> None:
    """Refuse a register ⇄ shared copy whose tensor does not have its memdesc's shape and
    element type. The memdesc is the operand's own type — a ``memdesc_subslice`` or
    ``memdesc_index`` view's shape, not its allocation's — so a view legitimately smaller than
    its buffer passes; a copy of another shape was counted as if it moved part of the buffer
    (or more than it).

    Raises:
        LayoutError: the shapes or element types differ, naming the line.

    Source: Triton 3.9 ``verifyMemoryOpTypes`` (``lib/Dialect/TritonGPU/IR/Ops.cpp``, called
    by ``LocalLoadOp``, ``LocalStoreOp`` and ``LocalAllocOp::verify``): "source shape […] must
    match [destination shape …]"; checked by parsing such modules with Triton 3.9, whose
    verifier rejects them.
    """
    if tensor.shape != memdesc.shape:
        raise LayoutError(f"{where}line {op.line}: {op.name} moves a tensor of shape "
                          f"{list(tensor.shape)} through a memdesc of shape "
                          f"{list(memdesc.shape)}; they must match (Triton's verifier "
                          "rejects the module)")
    if tensor.element_type != memdesc.element_type:
        raise LayoutError(f"{where}line {op.line}: {op.name} moves {tensor.element_type} "
                          f"elements through a memdesc of {memdesc.element_type}; they must "
                          "match (Triton's verifier rejects the module)")


def _make(op: Op, kind: str, result: str | None, memdesc: str | None, root: str | None,
          dist: TritonType, mem: TritonType, cap: int | None = None,
          other: bool = False) -> Access:
    return Access(op.line, op.short, kind, result, memdesc, root, dist, mem, None,
                  mem.element_type, mem.element_bits, cap, op.source, op.attrs, other,
                  op.operands)
