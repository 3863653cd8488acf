"""Read Triton's MLIR text: layout attributes and ``tensor`` / ``!ttg.memdesc`` types.

Accepted syntax (Triton 3.9 as printed by its compiler, plus the older spellings still found in
dumps):

* attributes ``#ttg.<mnemonic><{key = value, …}>`` for ``blocked``, ``slice``,
  ``nvidia_mma``, ``dot_op``, ``amd_mfma``, ``amd_wmma``, ``linear``, ``generic_linear``,
  ``swizzled_shared``, ``nvmma_shared``, ``amd_rotating_shared``, ``shared_linear``; the
  ``#triton_gpu.`` prefix and ``CTAsPerCGA / CTASplitNum / CTAOrder`` (Triton ≤ 3.5);
  ``#ttg.shared`` with ``hasLeadingOffset`` (Triton ≤ 3.2); ``amd_wmma`` / ``amd_mfma`` with
  ``warpsPerCTA`` or ``versionMajor`` (pre-3.9);
* alias references ``#blocked1`` once ``#blocked1 = …`` is known (pass ``aliases``);
* types ``tensor<64x64xf16, #enc>``, ``tensor<64x!tt.ptr<f16>, #enc>``,
  ``!ttg.memdesc<2x64x64xf16, #shared, #smem, mutable[, allocShape]>`` (also ``!tt.memdesc``
  and the bare ``<…>`` that ``ttg.async_copy_global_to_local`` prints).

Element widths (``element_bits``) are the bits one element occupies in memory: ``f16``/``bf16``
16, ``f32``/``tf32`` 32, ``f64`` 64, every ``f8E…`` 8, ``iN``/``uiN``/``siN`` N except ``i1``,
which Triton stores as a byte (8), 4-bit ``f4E2M1FN``/``i4`` 4, pointers 64.

Every malformed input raises :class:`linlayout.LayoutError` naming the line and column and what
was expected there.

Example::

    >>> from linlayout.triton import parse_type
    >>> t = parse_type("tensor<32x16xf16, #ttg.blocked<{sizePerThread = [1, 4], "
    ...                "threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>>")
    >>> t.shape, t.element_bits, t.layout.out_dims
    ((32, 16), 16, {'dim0': 32, 'dim1': 16})
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._checks import shown, string
from .._memo import memoize
from ..errors import LayoutError
from ..layout import LinearLayout
from .encodings import Encoding
from .encodings.registry import UnsupportedEncoding, dict_body_mnemonics, encoding_class
from .encodings.shared import LegacySharedEncoding
from .limits import (MAX_ALIASES, MAX_NAME_CHARS, MAX_NESTING, MAX_TYPE_ELEMENTS, clip,
                     int_token, mlir_int)
from .source import LineIndex

__all__ = [
    "MemorySpace",
    "TritonType",
    "UnsupportedEncoding",
    "element_bits",
    "mlir_int",
    "parse_aliases",
    "parse_attribute",
    "parse_encoding",
    "parse_type",
]

_DIALECTS = ("ttg", "triton_gpu")
_TMEM_DIALECTS = ("ttng", "triton_nvidia_gpu")

@dataclass(frozen=True)
class MemorySpace:
    """A non-layout attribute such as ``#ttg.shared_memory`` (kept by name).

    Source: the TritonGPU dialects' memory-space attributes (``#ttg.shared_memory``,
    ``#ttng.tensor_memory``).
    """

    name: str


@dataclass(frozen=True)
class TritonType:
    """A parsed ``tensor<…>`` or ``!ttg.memdesc<…>`` type.

    Attributes:
        kind: ``"tensor"`` or ``"memdesc"``.
        shape: the shape as written, ``dim0`` first.
        element_type: the element type as written (``"f16"``, ``"!tt.ptr<f16>"``).
        element_bits: bits one element occupies in memory (see the module docstring).
        encoding: the layout attribute, or None when the type has none.
        alloc_shape: the allocation shape (memdescs; equals ``shape`` unless the type names
            one, as ``memdesc_subslice`` results do).
        memory_space: e.g. ``"shared_memory"`` (memdescs), else None.
        mutable: the memdesc is ``mutable``.
    """

    kind: str
    shape: tuple[int, ...]
    element_type: str
    element_bits: int
    encoding: Encoding | None
    alloc_shape: tuple[int, ...]
    memory_space: str | None = None
    mutable: bool = False

    @property
    def rank(self) -> int:
        """The layout's rank: the encoding's, else the shape's. A memdesc may have more dims
        than its encoding (``2x128x32`` with a rank-2 encoding): the leading ones index
        buffers."""
        if self.encoding is None or isinstance(self.encoding, UnsupportedEncoding):
            return len(self.shape)
        return self.encoding.rank

    @property
    def view_shape(self) -> tuple[int, ...]:
        """The last :attr:`rank` dims of ``shape``: what one access covers."""
        return self.shape[len(self.shape) - self.rank:]

    @property
    def layout_shape(self) -> tuple[int, ...]:
        """The shape the layout is built for: ``shape`` for tensors, the last :attr:`rank` dims
        of ``alloc_shape`` for memdescs (Triton's ``toLinearLayout(MemDescType)``)."""
        if self.kind == "memdesc":
            return self.alloc_shape[len(self.alloc_shape) - self.rank:]
        return self.shape

    @property
    def layout(self) -> LinearLayout:
        """The encoding's layout at :attr:`layout_shape`.

        Raises:
            LayoutError: the type has no encoding, or the shape does not suit it.
        """
        if self.encoding is None:
            raise LayoutError(f"the {self.kind} type has no layout encoding; add one, e.g. "
                              "tensor<64x64xf16, #ttg.blocked<{...}>>")
        try:
            return _encoding_layout(self.encoding, self.layout_shape)
        except TypeError:  # pragma: no cover - an unhashable encoding built by hand
            return self.encoding.to_linear_layout(self.layout_shape)


@memoize(4096)
def _encoding_layout(encoding: Encoding, shape: tuple[int, ...]) -> LinearLayout:
    """``encoding.to_linear_layout(shape)``, cached: a file repeats a few types on every line
    and each access asks for its layouts more than once."""
    return encoding.to_linear_layout(shape)


# ----------------------------------------------------------------------------- element types
_FLOAT_BITS = {"f16": 16, "bf16": 16, "f32": 32, "tf32": 32, "f64": 64, "f128": 128,
               "f80": 128, "index": 64}


def element_bits(element_type: str) -> int:
    """Bits one element of an MLIR element type occupies in (shared) memory.

    Raises:
        LayoutError: the type is not a known integer, float or pointer type.
    """
    t = string(element_type, "element_type").strip()
    if t.startswith("!tt.ptr"):
        return 64
    if t in _FLOAT_BITS:
        return _FLOAT_BITS[t]
    if t.startswith("f8") or t == "f8":
        return 8
    if t.startswith("f6"):
        return 8
    if t.startswith("f4"):
        return 4
    m = re.fullmatch(r"(?:u|s)?i(\d{1,18})", t)
    if m:
        n = int(m.group(1))
        if n == 1:
            return 8  # Triton keeps i1 in a byte in memory
        if n < 1 or n & (n - 1):
            raise LayoutError(f"element type {shown(t)} is not a power-of-two width")
        return n
    raise LayoutError(f"unknown element type {shown(t)}; expected f16, bf16, f32, f64, f8E4M3FN, "
                      "i1…i64 or !tt.ptr<…>")


# ----------------------------------------------------------------------------- the scanner
_IDENT = re.compile(r"[A-Za-z_][\w$.]*")
_INT = re.compile(r"-?\d+")
_TYPED_SUFFIX = re.compile(r"[iuf]\d+")
_DIM = re.compile(r"(\d+)x")
_ELEMENT = re.compile(r"[A-Za-z_][\w]*")
_DIGIT = re.compile(r"\d")

class _Parser:
    def __init__(self, text: str, aliases: Mapping[str, Any] | None, where: str = "",
                 tolerant: bool = False, lines: LineIndex | None = None):
        if not isinstance(text, str):
            raise LayoutError(f"expected MLIR text (a str), got {type(text).__name__}")
        self.s = text
        #: line numbers of ``text``, built on the first error unless the caller shares one
        self.lines = lines
        self.i = 0
        self.aliases = aliases if isinstance(aliases, dict) else dict(aliases or {})
        self.where = where
        self.depth = 0
        #: unsupported (but well-formed) attributes become UnsupportedEncoding, not errors
        self.tolerant = tolerant

    def skip_balanced(self) -> None:
        """Skip from just after a ``<`` to just after its matching ``>``."""
        depth = 1
        n = len(self.s)
        while self.i < n and depth:
            c = self.s[self.i]
            if c == "-" and self.s.startswith("->", self.i):
                self.i += 2
                continue
            if c == "<":
                depth += 1
            elif c == ">":
                depth -= 1
            self.i += 1
        if depth:
            raise self.error("a closing '>'")

    # -- positions and errors
    def pos(self, i: int | None = None) -> str:
        i = self.i if i is None else i
        if self.lines is None:
            self.lines = LineIndex(self.s)
        return f"{self.where}line {self.lines.line(i)}, column {self.lines.column(i)}"

    def error(self, expected: str, i: int | None = None) -> LayoutError:
        i = self.i if i is None else i
        found = self.s[i:i + 20].split("\n")[0]
        found = repr(found) if found else "the end of the text"
        return LayoutError(f"malformed MLIR at {self.pos(i)}: expected {expected}, found {found}")

    def ws(self) -> None:
        s, n = self.s, len(self.s)
        while self.i < n and s[self.i] in " \t\r\n":
            self.i += 1

    def peek(self, tok: str) -> bool:
        self.ws()
        return self.s.startswith(tok, self.i)

    def take(self, tok: str) -> bool:
        if self.peek(tok):
            self.i += len(tok)
            return True
        return False

    def expect(self, tok: str, what: str | None = None) -> None:
        if not self.take(tok):
            raise self.error(what or f"{shown(tok)}")

    def at_end(self) -> bool:
        self.ws()
        return self.i >= len(self.s)

    def ident(self, what: str = "a name") -> str:
        self.ws()
        m = _IDENT.match(self.s, self.i)
        if not m:
            raise self.error(what)
        if m.end() - m.start() > MAX_NAME_CHARS:
            raise LayoutError(f"malformed MLIR at {self.pos()}: a name of {m.end() - m.start()} "
                              f"characters ({clip(m.group(0), 40)}); at most {MAX_NAME_CHARS}")
        self.i = m.end()
        return m.group(0)

    def integer(self) -> int:
        self.ws()
        m = _INT.match(self.s, self.i)
        if not m:
            raise self.error("an integer")
        value = int_token(m.group(0), self.pos)
        self.i = m.end()
        return value

    def enter(self) -> None:
        """One more level of nesting; LayoutError past :data:`MAX_NESTING`."""
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise LayoutError(f"malformed MLIR at {self.pos()}: brackets and attributes nest "
                              f"more than {MAX_NESTING} levels deep; no Triton layout does")

    # -- values inside attribute dictionaries
    def value(self) -> Any:
        self.ws()
        c = self.s[self.i:self.i + 1]
        if c in "[{#" and c:
            self.enter()
            try:
                if c == "[":
                    return self.list_()
                if c == "{":
                    return self.dict_()
                return self.attribute()
            finally:
                self.depth -= 1
        if c == '"':
            j = self.s.find('"', self.i + 1)
            if j < 0:
                raise self.error("a closing '\"'")
            v = self.s[self.i + 1:j]
            self.i = j + 1
            return v
        if c == "-" or c.isdigit():
            v = self.integer()
            if self.peek(":") and not self.peek("::"):
                # typed integer such as `16 : i32`
                save = self.i
                self.take(":")
                self.ws()
                if _TYPED_SUFFIX.match(self.s, self.i):
                    self.ident()
                else:
                    self.i = save
            return v
        word = self.ident("a value (int, true/false, list, dict or #attribute)")
        if word == "true":
            return True
        if word == "false":
            return False
        return word

    def list_(self) -> list[Any]:
        self.expect("[")
        out: list[Any] = []
        if self.take("]"):
            return out
        while True:
            out.append(self.value())
            if self.take("]"):
                return out
            self.expect(",", "',' or ']'")

    def dict_(self) -> dict[str, Any]:
        self.expect("{")
        out: dict[str, Any] = {}
        if self.take("}"):
            return out
        while True:
            start = self.i
            key = self.key()
            if key in out:
                raise LayoutError(f"malformed MLIR at {self.pos(start)}: key {shown(key)} is given "
                                  "twice")
            if self.take("="):
                out[key] = self.value()
            else:
                out[key] = True  # unit attribute
            if self.take("}"):
                return out
            self.expect(",", "',' or '}'")

    def key(self) -> str:
        self.ws()
        if self.s.startswith('"', self.i):
            j = self.s.find('"', self.i + 1)
            if j < 0:
                raise self.error("a closing '\"'")
            k = self.s[self.i + 1:j]
            self.i = j + 1
            return k
        return self.ident("a key")

    # -- attributes
    def attribute(self) -> Any:
        """``#dialect.mnemonic<…>``, ``#dialect.mnemonic`` or an alias ``#name``."""
        start = self.i
        self.expect("#", "'#'")
        name = self.ident("an attribute name after '#'")
        if "." not in name:
            if name not in self.aliases:
                shown_name = clip(name, 60)
                known = sorted(self.aliases)
                listed = ", ".join("#" + clip(a, 40) for a in known[:10])
                more = f" and {len(known) - 10} more" if len(known) > 10 else ""
                raise LayoutError(
                    f"malformed MLIR at {self.pos(start)}: unknown attribute alias #{shown_name}; "
                    f"define it first ('#{shown_name} = #ttg.…') or pass aliases="
                    + (f" (known: {listed}{more})" if known else "")
                )
            return self.aliases[name]
        dialect, _, mnemonic = name.partition(".")
        if dialect in _TMEM_DIALECTS:
            return self.tensor_memory_attribute(mnemonic, start)
        if dialect not in _DIALECTS:
            raise LayoutError(f"malformed MLIR at {self.pos(start)}: #{name} is not a Triton GPU "
                              "attribute (expected #ttg.… or #triton_gpu.…)")
        if not self.peek("<"):
            if mnemonic in ("shared_memory", "tensor_memory"):
                return MemorySpace(mnemonic)
            raise self.error(f"'<' after #{name}")
        self.expect("<")
        cls = encoding_class(mnemonic)
        if cls is None:
            reason = (f"#ttg.{mnemonic} at {self.pos(start)} is not a layout linlayout "
                      f"knows; supported: {', '.join(dict_body_mnemonics())}")
            if not self.tolerant:
                raise LayoutError(reason)
            self.skip_balanced()
            return UnsupportedEncoding(mnemonic, reason)
        if cls.attribute_syntax == "pairs_then_dict":
            return self.pairs_then_dict(cls, mnemonic, start)
        body = self.dict_()
        if cls.attribute_syntax == "dict_then_keys":
            while self.take(","):  # read and dropped
                self.key()
                self.expect("=")
                self.value()
        self.expect(">", "'>'")
        try:
            return cls.from_attribute(body, lambda: self.pos(start))
        except LayoutError as exc:
            if not self.tolerant:
                raise
            return UnsupportedEncoding(mnemonic, str(exc))

    def pairs_then_dict(self, cls: type[Encoding], mnemonic: str, start: int) -> Encoding:
        """The body of ``#ttg.padded_shared<…>`` after ``<``: ``[I:+P, …] {…}>``
        (``PaddedSharedEncodingAttr::parse``, Triton ``Dialect.cpp``), handed to
        ``cls.from_attribute(body, at, pairs=…)``.

        In tolerant mode (``linlayout check``) an invalid attribute, malformed text inside
        its ``<…>`` included, becomes an :class:`UnsupportedEncoding` carrying the reason, so
        one bad buffer does not stop the file.
        """
        body_start = self.i
        try:
            self.expect("[", "'[' opening the interval:+padding pairs")
            pairs = []
            while True:
                interval = self.integer()
                self.expect(":", "':' between interval and padding")
                self.expect("+", "'+' before the padding")
                pairs.append((interval, self.integer()))
                if not self.take(","):
                    break
            self.expect("]", "']' closing the interval:+padding pairs")
            body = self.dict_()
            self.expect(">", "'>'")
            return cls.from_attribute(body, lambda: self.pos(start), pairs=pairs)
        except LayoutError as exc:
            if not self.tolerant:
                raise
            self.i = body_start
            self.skip_balanced()
            return UnsupportedEncoding(mnemonic, str(exc))

    def tensor_memory_attribute(self, mnemonic: str, start: int) -> Any:
        """``#ttng.tensor_memory`` (a memory space) or ``#ttng.tensor_memory_encoding<…>``
        / ``#ttng.tensor_memory_scales_encoding<…>`` (Blackwell TMEM layouts, see Triton's
        ``TritonNvidiaGPUAttrDefs.td``): kept as :class:`MemorySpace` / an
        :class:`UnsupportedEncoding` — tensor memory is not shared memory."""
        if not self.peek("<"):
            return MemorySpace(mnemonic)
        self.expect("<")
        self.skip_balanced()
        return UnsupportedEncoding(mnemonic, f"#ttng.{mnemonic} at {self.pos(start)} is a "
                                             "tensor-memory (TMEM) layout, not shared memory")

    # -- types
    def shape_and_element(self) -> tuple[list[int], str]:
        """``64x64xf16`` or ``64x!tt.ptr<f16>``: dims then the element type."""
        dims: list[int] = []
        self.ws()
        while True:
            m = _DIM.match(self.s, self.i)
            if not m:
                break
            dims.append(int_token(m.group(1), self.pos))
            self.i = m.end()
        start = self.i
        if self.s.startswith("!tt.ptr<", self.i):
            depth = 0
            j = self.i
            while j < len(self.s):
                if self.s[j] == "<":
                    depth += 1
                elif self.s[j] == ">":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if depth:
                raise self.error("a closing '>' for !tt.ptr<…>", start)
            self.i = j + 1
            elt = self.s[start:self.i]
        else:
            m = _ELEMENT.match(self.s, self.i)
            if not m:
                raise self.error("a shape like 64x64xf16")
            self.i = m.end()
            elt = m.group(0)
            if re.fullmatch(r"\d+", elt):  # pragma: no cover - guarded by the regex
                raise self.error("an element type")
        return dims, elt

    def type_(self) -> TritonType:
        self.ws()
        start = self.i
        if self.take("tensor<"):
            kind = "tensor"
        elif self.take("!ttg.memdesc<") or self.take("!tt.memdesc<") or self.take(
                "!triton_gpu.memdesc<") or self.take("memdesc<"):
            kind = "memdesc"
        elif self.take("<"):
            kind = "memdesc"  # the bare form printed by async_copy_global_to_local
        else:
            raise self.error("a type: tensor<…> or !ttg.memdesc<…>")
        dims, elt = self.shape_and_element()
        if not dims and kind == "tensor":
            raise self.error("a shape such as 64x64 before the element type", start)
        try:
            bits = element_bits(elt)
        except LayoutError as exc:
            raise LayoutError(f"malformed MLIR at {self.pos(start)}: {exc}") from None
        encoding: Encoding | None = None
        space: str | None = None
        mutable = False
        alloc: list[int] | None = None
        while self.take(","):
            self.ws()
            if self.s.startswith("#", self.i):
                a_start = self.i
                attr = self.attribute()
                if isinstance(attr, MemorySpace):
                    space = attr.name
                elif isinstance(attr, Encoding):
                    if encoding is not None:
                        raise LayoutError(f"malformed MLIR at {self.pos(a_start)}: a second "
                                          "layout encoding in one type")
                    encoding = attr
                else:
                    raise LayoutError(f"malformed MLIR at {self.pos(a_start)}: {shown(attr)} is not "
                                      "a layout encoding or memory space")
            elif self.take("mutable"):
                mutable = True
            elif _DIGIT.match(self.s, self.i):
                alloc = []
                while True:
                    alloc.append(self.integer())
                    if not self.take("x"):
                        break
            else:
                raise self.error("an encoding (#…), 'mutable' or an allocation shape")
        self.expect(">", "'>' closing the type")
        if alloc is None:
            alloc = list(dims)
        elif len(alloc) < len(dims):
            raise LayoutError(f"malformed MLIR at {self.pos(start)}: allocation shape {alloc} "
                              f"has fewer dims than the shape {dims}")
        # Leading memdesc dims beyond the encoding's rank count buffers (3x128x64 for three
        # pipeline stages) and need not be powers of two; the laid-out dims must be.
        laid = len(dims)
        if kind == "memdesc" and encoding is not None and 0 < encoding.rank < len(dims):
            laid = encoding.rank
        for d in dims[len(dims) - laid:] + alloc[len(alloc) - laid:]:
            if d < 1 or d & (d - 1):
                raise LayoutError(f"malformed MLIR at {self.pos(start)}: dimension {d} of "
                                  f"{dims} is not a power of two; linear layouts need "
                                  "power-of-two shapes")
        for what, sizes in (("shape", dims), ("allocation shape", alloc)):
            if math.prod(sizes) > MAX_TYPE_ELEMENTS:
                raise LayoutError(f"malformed MLIR at {self.pos(start)}: the {what} "
                                  f"{clip(str(sizes), 80)} has {math.prod(sizes)} elements; at "
                                  f"most {MAX_TYPE_ELEMENTS} "
                                  f"(2^{MAX_TYPE_ELEMENTS.bit_length() - 1}) are read; no "
                                  "GPU's shared memory or registers hold more")
        if encoding is not None and encoding.rank not in (-1, len(dims)) and not (
                kind == "memdesc" and encoding.rank < len(dims)):
            raise LayoutError(f"malformed MLIR at {self.pos(start)}: the encoding has rank "
                              f"{encoding.rank} but the shape {dims} has rank {len(dims)}")
        return TritonType(kind, tuple(dims), elt, bits, encoding, tuple(alloc), space, mutable)


def _resolve_aliases(aliases: Mapping[str, Any] | None) -> dict[str, Any]:
    if aliases is None:
        return {}
    if not isinstance(aliases, Mapping):
        raise LayoutError("aliases must be a mapping {name: Encoding or attribute text}, got "
                          f"{type(aliases).__name__}")
    out: dict[str, Any] = {}
    for k, v in aliases.items():
        if not isinstance(k, str):
            raise LayoutError(f"alias names must be str, got {type(k).__name__}")
        name = k[1:] if k.startswith("#") else k
        if isinstance(v, str):
            v = parse_encoding(v, out) if v.strip().startswith("#") else v
        out[name] = v
    return out


# ----------------------------------------------------------------------------- public API
def parse_encoding(text: str, aliases: Mapping[str, Any] | None = None) -> Encoding:
    """Parse one layout attribute (``#ttg.blocked<{…}>`` or an alias) into an encoding.

    Args:
        text: the attribute text.
        aliases: ``{name: Encoding or attribute text}`` for ``#name`` references
            (:func:`parse_aliases` builds it from a file's ``#name = …`` lines).

    Raises:
        LayoutError: malformed text (with line and column), unknown attribute or key,
            invalid parameters, or trailing text.

    Source: the attribute syntax of Triton 3.9's TritonGPU dialects (``TritonGPUAttrDefs.td``
    and each attribute's ``parse`` in ``Dialect.cpp``).
    """
    p = _Parser(text, _resolve_aliases(aliases))
    start = p.i
    v = p.value() if p.peek("#") else None
    if v is None:
        raise p.error("a layout attribute starting with '#'")
    if not p.at_end():
        raise p.error("the end of the attribute")
    if not isinstance(v, Encoding):
        raise LayoutError(f"{shown(text.strip())} at {p.pos(start)} is not a layout encoding")
    if isinstance(v, LegacySharedEncoding):
        raise LayoutError("a legacy #ttg.shared<{hasLeadingOffset = true}> depends on the "
                          "element type; parse the whole memdesc type with parse_type")
    return v


def parse_attribute(text: str, shape: Sequence[int],
                    aliases: Mapping[str, Any] | None = None) -> LinearLayout:
    """The linear layout of a bare attribute at ``shape`` (Triton's ``toLinearLayout``).

    Args:
        text: ``#ttg.…<{…}>`` or an alias name.
        shape: sizes per dim, ``dim0`` first (the allocation shape for shared layouts).
        aliases: as in :func:`parse_encoding`.

    Returns:
        A :class:`LinearLayout` (``register, lane, warp, block`` or ``offset, block`` →
        ``dim0 …``).

    Raises:
        LayoutError: malformed text or a shape the encoding cannot take.
    """
    return parse_encoding(text, aliases).to_linear_layout(shape)


def parse_type(text: str, aliases: Mapping[str, Any] | None = None) -> TritonType:
    """Parse ``tensor<…>`` or ``!ttg.memdesc<…>`` (see the module docstring).

    Args:
        text: the type text.
        aliases: as in :func:`parse_encoding`.

    Returns:
        A :class:`TritonType` with ``.layout``, ``.shape`` and ``.element_bits``.

    Raises:
        LayoutError: malformed text (with line and column), non-power-of-two dims, unknown
            element types or encodings.
    """
    p = _Parser(text, _resolve_aliases(aliases))
    t = p.type_()
    if not p.at_end():
        raise p.error("the end of the type")
    return _finish(t)


def _finish(t: TritonType) -> TritonType:
    if isinstance(t.encoding, LegacySharedEncoding):
        enc = t.encoding.with_bits(t.element_bits)
        return TritonType(t.kind, t.shape, t.element_type, t.element_bits, enc, t.alloc_shape,
                          t.memory_space, t.mutable)
    return t


def parse_aliases(text: str, *, tolerant: bool = False,
                  lines: LineIndex | None = None) -> dict[str, Any]:
    """The ``#name = …`` definitions at the top of a TTGIR/MLIR file.

    Layout attributes become encodings, memory spaces :class:`MemorySpace`; other aliases
    (``#loc…``, ``#ttng.…``) are skipped. Later definitions may use earlier ones.

    Args:
        text: the file.
        tolerant: a well-formed attribute without a linear layout (``padded_shared``, an
            unknown mnemonic, parameters linlayout rejects) becomes an
            :class:`UnsupportedEncoding` instead of an error.
        lines: ``text``'s :class:`~linlayout.triton.source.LineIndex` when the caller has
            one (else one is built on the first error).

    Raises:
        LayoutError: a layout alias is malformed (with its line and column), or there are
            more than :data:`~linlayout.triton.limits.MAX_ALIASES` of them.

    Source: MLIR's attribute aliases (``#name = <attribute>``), as Triton prints them
    at the top of a TTGIR file.
    """
    if not isinstance(text, str):
        raise LayoutError(f"expected MLIR text (a str), got {type(text).__name__}")
    out: dict[str, Any] = {}
    p = _Parser(text, out, tolerant=tolerant, lines=lines)  # one parser, one alias table
    parsed = 0
    for m in _ALIAS_LINE.finditer(text):
        name, value_at = m.group(1), m.end() - 1
        if name.startswith("loc") or not text.startswith(_LAYOUT_PREFIXES, value_at):
            continue
        parsed += 1
        if parsed > MAX_ALIASES:  # definitions, a redefinition counted again
            raise LayoutError(f"malformed MLIR at {p.pos(m.start(1))}: more than {MAX_ALIASES} "
                              "layout aliases; real files define tens")
        p.i, p.depth = value_at, 0
        out[name] = p.attribute()
    return out


#: The start of an alias definition line, up to the ``#`` of its value. No part can
#: backtrack more than the name's length, so the scan is linear in the file size.
_ALIAS_LINE = re.compile(r"^[ \t\r\f\v\ufeff]*#([A-Za-z_][\w$.]*)[ \t]*=[ \t]*#", re.M)
_LAYOUT_PREFIXES = ("#ttg.", "#triton_gpu.", "#ttng.", "#triton_nvidia_gpu.")


def parse_type_at(text: str, i: int, aliases: Mapping[str, Any], where: str = "",
                  tolerant: bool = False, lines: LineIndex | None = None
                  ) -> tuple[TritonType, int]:
    """Parse a type starting at offset ``i`` of ``text`` (for the TTGIR reader); returns the
    type and the offset after it.

    Args:
        text: the whole file (or dump section).
        i: where the type starts.
        aliases: ``{name: Encoding or MemorySpace}`` for ``#name`` references.
        where: a prefix for error messages (``"kernel.ttgir: "``).
        tolerant: unsupported encodings become :class:`UnsupportedEncoding`.
        lines: ``text``'s :class:`~linlayout.triton.source.LineIndex`, shared by every call
            on the same text so that an error costs no recount of the text.

    Raises:
        LayoutError: a malformed type (with its line and column).
    """
    p = _Parser(text, aliases, where, tolerant, lines)
    p.i = i
    t = p.type_()
    return _finish(t), p.i
