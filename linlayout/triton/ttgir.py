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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import LayoutError
from .parse import TritonType, mlir_int, parse_aliases, parse_type_at

__all__ = ["Access", "Op", "TTGIRModule", "buffer_root", "find_accesses", "read_ttgir",
           "view_parents"]

_OP_RE = re.compile(
    r"^\s*(?:(?P<res>%[\w$.#:-]+(?:\s*,\s*%[\w$.#:-]+)*)\s*=\s*)?"
    r"(?P<name>(?:ttg|triton_gpu|ttng|triton_nvidia_gpu|scf|tt)\.[\w.]+)\b"
)
_SSA_RE = re.compile(r"%[\w$.-]+(?:#\d+)?")
_TYPE_STARTS = ("tensor<", "!ttg.memdesc<", "!tt.memdesc<", "!triton_gpu.memdesc<")

#: Operation names (after the dialect) this reader keeps.
_KEEP = {
    "local_alloc", "local_store", "local_load", "async_copy_global_to_local", "convert_layout",
    "memdesc_index", "memdesc_subview", "memdesc_subslice", "memdesc_trans", "memdesc_reshape",
    "memdesc_reinterpret", "for",
}
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
    """

    line: int
    name: str
    results: tuple[str, ...]
    operands: tuple[str, ...]
    types: tuple[TritonType, ...]
    attrs: str
    text: str

    @property
    def short(self) -> str:
        """The name after the dialect prefix (``"local_load"``)."""
        return self.name.split(".", 1)[1]


@dataclass(frozen=True)
class TTGIRModule:
    """A parsed TTGIR file: aliases, module attributes and the operations kept.

    Attributes:
        aliases: ``{name: Encoding or MemorySpace}`` from the ``#name = …`` lines.
        threads_per_warp: ``ttg.threads-per-warp`` (32 if absent).
        num_warps: ``ttg.num-warps`` (None if absent).
        target: ``ttg.target`` such as ``"cuda:90"`` (None if absent).
        ops: the operations that touch shared memory, in file order.
        ttng_uses: SSA names used by ``ttng.*`` operations (TMA copies, wgmma, tcgen05).
        iter_args: ``{loop-carried name: initial value}`` from ``scf.for``.
        path: the file name, when read from a file.
    """

    aliases: Mapping[str, Any]
    threads_per_warp: int
    num_warps: int | None
    target: str | None
    ops: tuple[Op, ...]
    ttng_uses: tuple[str, ...] = ()
    iter_args: Mapping[str, str] = field(default_factory=dict)
    path: str | None = None


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
    """

    line: int
    op: str
    kind: str
    result: str | None
    memdesc: str | None
    root: str | None
    distributed: TritonType
    memory: TritonType | None
    destination: TritonType | None
    element_type: str
    element_bits: int
    max_vector_elems: int | None = None


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
                 where: str) -> tuple[TritonType, ...]:
    """The tensor/memdesc types in ``text[start:end]`` (positions index the whole file, so
    errors name the right line and column)."""
    types = []
    i = start
    depth = 0
    while i < end:
        if text.startswith(_TYPE_STARTS, i):
            t, i = parse_type_at(text, i, aliases, where, tolerant=True)
            types.append(t)
            continue
        c = text[i]
        if c == "<" and depth == 0:
            # the bare memdesc form `-> <128x32xf16, #shared, ...>`
            j = i - 1
            while j >= start and text[j] in " \t":
                j -= 1
            if j - 1 >= start and text[j - 1:j + 1] == "->":
                t, i = parse_type_at(text, i, aliases, where, tolerant=True)
                types.append(t)
                continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        i += 1
    return tuple(types)


def read_ttgir(text: str, path: str | None = None) -> TTGIRModule:
    """Parse TTGIR text.

    Args:
        text: the file contents.
        path: a name for error messages (``"kernel.ttgir: line 12, column 40: …"``).

    Returns:
        A :class:`TTGIRModule`.

    Raises:
        LayoutError: the text has no ``module``/``tt.func`` and no shared-memory operation
            (it is probably not TTGIR), or an alias or a type of a kept operation is
            malformed (the message names the line and column).
    """
    if not isinstance(text, str):
        raise LayoutError(f"TTGIR must be text, got {type(text).__name__}")
    where = f"{path}: " if path else ""
    try:
        aliases = parse_aliases(text, tolerant=True)
    except LayoutError as exc:
        raise LayoutError(f"{where}{exc}") from None
    m = re.search(r'"?ttg\.threads-per-warp"?\s*=\s*(\d+)', text) or re.search(
        r'"?triton_gpu\.threads-per-warp"?\s*=\s*(\d+)', text)
    tpw = mlir_int(m.group(1), f"{where}ttg.threads-per-warp") if m else 32
    m = re.search(r'"?(?:ttg|triton_gpu)\.num-warps"?\s*=\s*(\d+)', text)
    nw = mlir_int(m.group(1), f"{where}ttg.num-warps") if m else None
    m = re.search(r'(?:ttg|triton_gpu)\.target"?\s*=\s*"([^"]*)"', text)
    target = m.group(1) if m else None
    ops: list[Op] = []
    ttng_uses: list[str] = []
    iter_args: dict[str, str] = {}
    offset = 0
    saw_module = False
    for lineno, raw in enumerate(text.splitlines(keepends=True), start=1):
        line_start = offset
        offset += len(raw)
        line = raw.rstrip("\n")
        if not saw_module and re.match(r"\s*(module\b|tt\.func\b|func\.func\b)", line):
            saw_module = True
        mo = _OP_RE.match(line)
        if not mo:
            continue
        name = mo.group("name")
        dialect, _, short = name.partition(".")
        body = _strip_loc(line)
        if dialect in ("ttng", "triton_nvidia_gpu"):
            ttng_uses.extend(_SSA_RE.findall(_split_signature(body[mo.end():])[0]))
            continue
        if short == "for" and dialect == "scf":
            for a, b in re.findall(r"(%[\w$.-]+)\s*=\s*(%[\w$.-]+(?:#\d+)?)",
                                   body[body.find("iter_args"):] if "iter_args" in body else ""):
                iter_args[a] = b
            continue
        if dialect not in ("ttg", "triton_gpu") or short not in _KEEP:
            continue
        results = tuple(r.strip() for r in mo.group("res").split(",")) if mo.group("res") else ()
        head, sig = _split_signature(body[mo.end():])
        operand_text, attrs = _top_level_braces(head)
        operands = tuple(_SSA_RE.findall(operand_text))
        sig_start = line_start + mo.end() + len(head) + 1
        types = _parse_types(text, sig_start, sig_start + len(sig), aliases, where)
        ops.append(Op(lineno, name, results, operands, types, attrs, body.strip()))
    if not ops and not saw_module:
        raise LayoutError(f"{where}no MLIR module, function or shared-memory operation found; "
                          "pass a TTGIR dump (e.g. kernel.asm['ttgir'] or MLIR_ENABLE_DUMP=1 "
                          "output)")
    return TTGIRModule(aliases, tpw, nw, target, tuple(ops), tuple(ttng_uses), iter_args, path)


def _root(name: str | None, parents: Mapping[str, str]) -> str | None:
    seen = set()
    while name is not None and name in parents and name not in seen:
        seen.add(name)
        name = parents[name]
    return name


def _base(name: str) -> str:
    """``%acc#2`` -> ``%acc`` (a result of a multi-result op)."""
    return name.split("#", 1)[0]


def view_parents(module: TTGIRModule) -> dict[str, str]:
    """``{view: the buffer it views}`` for ``memdesc_index``/``subview``/``subslice`` results and
    loop-carried memdescs; follow it to the allocation with :func:`buffer_root`."""
    parents: dict[str, str] = {a: _base(b) for a, b in module.iter_args.items()}
    for op in module.ops:
        if op.short in _VIEW_SAME and op.results and op.operands:
            parents[op.results[0]] = _base(op.operands[0])
    return parents


def buffer_root(name: str, parents: Mapping[str, str]) -> str:
    """The allocation a memdesc SSA name views (itself if it is not a view)."""
    root = _root(_base(name), parents)
    return root if root is not None else name


def find_accesses(module: TTGIRModule) -> list[Access]:
    """The shared-memory accesses of a module, in file order.

    Raises:
        LayoutError: an access operation lacks the types it needs (a malformed line), naming
            the line.
    """
    where = f"{module.path}: " if module.path else ""
    parents = view_parents(module)
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
            accesses.append(_make(op, "store", res, res, _root(res, parents), ts[0], ms[-1]))
        elif s == "local_store":
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms or len(op.operands) < 2:
                raise bad(op, "needs 'value, memdesc : tensor<…> -> !ttg.memdesc<…>'")
            md = _base(op.operands[1])
            accesses.append(_make(op, "store", None, md, _root(md, parents), ts[0], ms[0]))
        elif s == "local_load":
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms or not op.operands:
                raise bad(op, "needs 'memdesc : !ttg.memdesc<…> -> tensor<…>'")
            md = _base(op.operands[0])
            res = op.results[0] if op.results else None
            accesses.append(_make(op, "load", res, md, _root(md, parents), ts[0], ms[0]))
        elif s == "async_copy_global_to_local":
            ts, ms = tensors(op), memdescs(op)
            if not ts or not ms or len(op.operands) < 2:
                raise bad(op, "needs 'pointers, memdesc : tensor<…x!tt.ptr<…>> -> <…>'")
            md = _base(op.operands[1])
            m = re.search(r"contiguity\s*=\s*(\d+)", op.attrs)
            cap = mlir_int(m.group(1), "contiguity") if m else None
            res = op.results[0] if op.results else None
            accesses.append(_make(op, "store", res, md, _root(md, parents), ts[0], ms[0], cap))
        elif s == "convert_layout":
            ts = tensors(op)
            if len(ts) < 2:
                raise bad(op, "needs 'tensor<…> -> tensor<…>'")
            res = op.results[0] if op.results else None
            src, dst = ts[0], ts[1]
            accesses.append(Access(op.line, s, "convert", res, None, None, src, None, dst,
                                   src.element_type, src.element_bits))
    return accesses


def _make(op: Op, kind: str, result: str | None, memdesc: str | None, root: str | None,
          dist: TritonType, mem: TritonType, cap: int | None = None) -> Access:
    return Access(op.line, op.short, kind, result, memdesc, root, dist, mem, None,
                  mem.element_type, mem.element_bits, cap)
