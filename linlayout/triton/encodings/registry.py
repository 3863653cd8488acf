"""The encodings by MLIR mnemonic: which class reads ``#ttg.<mnemonic><…>``, and the helpers
every ``from_attribute`` shares.

Each encoding class declares its attribute:

* ``mnemonic`` (printed by Triton 3.9) and ``mnemonic_aliases`` (older spellings it also
  reads, e.g. ``mma`` for ``nvidia_mma``);
* ``attribute_keys``: the keys its ``{key = value, …}`` body may hold (others raise);
* ``attribute_syntax``: the form of the body inside ``<…>`` —

  - ``"dict"``: ``<{key = value, …}>`` (almost every encoding);
  - ``"dict_then_keys"``: ``<{…}, key = value, …>``, the trailing keys read and ignored
    (``shared_linear``'s ``alignment`` as some Triton versions print it);
  - ``"pairs_then_dict"``: ``<[I:+P, …] {…}>`` (``padded_shared``); ``from_attribute`` then
    also takes ``pairs=[(I, P), …]``;

* a classmethod ``from_attribute(body, at)`` building it from the body the MLIR reader
  (:mod:`linlayout.triton.parse`) produced: a dict of syntax values (ints, bools, strings,
  lists, dicts, and encodings for nested ``#…`` attributes).

:func:`register_encoding` (a class decorator) adds a class; adding an encoding touches its
own module only. :func:`encoding_class` looks a mnemonic up. :class:`AttributeBody` wraps a
body with its position in the text and checks keys, required values, bases, CGA layouts and
parents with the messages of :mod:`linlayout.triton.parse`.

Source: the attribute definitions and their assembly formats in
``include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td`` and the custom parsers in
``lib/Dialect/TritonGPU/IR/Dialect.cpp`` (Triton 3.9).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TypeVar

from ...errors import LayoutError
from ...layout import LinearLayout
from .base import CGALayout, Encoding, cga_layout_from_split

__all__ = [
    "ATTRIBUTE_SYNTAXES",
    "AttributeBody",
    "MAX_LAYOUT_DEPTH",
    "UnsupportedEncoding",
    "clip",
    "dict_body_mnemonics",
    "encoding_class",
    "layout_depth",
    "mnemonics",
    "register_encoding",
    "registered_classes",
]

#: The body forms :mod:`linlayout.triton.parse` reads (module docstring).
ATTRIBUTE_SYNTAXES = ("dict", "dict_then_keys", "pairs_then_dict")

#: Longest chain of layouts inside layouts (``slice`` of ``slice`` of … through aliases or
#: inline). Real files chain at most 3 (slice of dot_op of mma).
MAX_LAYOUT_DEPTH = 16

#: mnemonic (and alias) -> class
_BY_MNEMONIC: dict[str, type[Encoding]] = {}

E = TypeVar("E", bound=type)


def clip(text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` characters (with ``…``), so messages stay bounded."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def layout_depth(enc: Any) -> int:
    """How many layouts are chained through ``parent`` (1 for a layout without a parent);
    stops counting past :data:`MAX_LAYOUT_DEPTH` + 1."""
    depth = 1
    while depth <= MAX_LAYOUT_DEPTH and isinstance(getattr(enc, "parent", None), Encoding):
        enc = enc.parent
        depth += 1
    return depth


# ----------------------------------------------------------------------------- the registry
def register_encoding(cls: E) -> E:
    """Class decorator: ``cls`` reads ``#ttg.<cls.mnemonic>`` (and its ``mnemonic_aliases``).

    Raises:
        TypeError: ``cls`` is not an :class:`Encoding` with a ``mnemonic``, a
            ``from_attribute`` classmethod and a known ``attribute_syntax``, or one of its
            mnemonics is taken by another class.
    """
    if not (isinstance(cls, type) and issubclass(cls, Encoding)) or not cls.mnemonic:
        raise TypeError("register_encoding expects an Encoding subclass with a mnemonic, got "
                        f"{cls!r}")
    if not callable(getattr(cls, "from_attribute", None)):
        raise TypeError(f"{cls.__name__} has no from_attribute classmethod")
    if cls.attribute_syntax not in ATTRIBUTE_SYNTAXES:
        raise TypeError(f"{cls.__name__}.attribute_syntax must be one of {ATTRIBUTE_SYNTAXES}")
    for name in (cls.mnemonic, *cls.mnemonic_aliases):
        other = _BY_MNEMONIC.get(name)
        if other is not None and other is not cls:
            raise TypeError(f"mnemonic {name!r} is taken by {other.__name__}")
        _BY_MNEMONIC[name] = cls
    return cls


def encoding_class(mnemonic: str) -> type[Encoding] | None:
    """The class that reads ``#ttg.<mnemonic><…>``, or None when no class does."""
    return _BY_MNEMONIC.get(mnemonic)


def mnemonics() -> list[str]:
    """Every mnemonic read (aliases included), sorted."""
    return sorted(_BY_MNEMONIC)


def registered_classes() -> list[type[Encoding]]:
    """The registered classes, one each, sorted by mnemonic."""
    return sorted(set(_BY_MNEMONIC.values()), key=lambda c: c.mnemonic)


def dict_body_mnemonics() -> list[str]:
    """The main mnemonics (no aliases) whose body is a ``{key = value, …}`` dict, sorted:
    the list the reader's "not a layout linlayout knows" message gives."""
    return sorted(c.mnemonic for c in registered_classes()
                  if c.attribute_syntax in ("dict", "dict_then_keys"))


# ----------------------------------------------------------------------------- bodies
class AttributeBody(dict):
    """An attribute's ``{key = value, …}`` body (a dict of syntax values) with what its
    messages need: the class's ``mnemonic`` and the attribute's position in the text.

    Args:
        body: the parsed dict.
        mnemonic: the class's main mnemonic (messages say ``#ttg.<mnemonic>``).
        at: the position (``"line 3, column 9"``), or a function returning it (computed only
            for a message).
    """

    def __init__(self, body: Mapping[str, Any], mnemonic: str,
                 at: str | Callable[[], str] = "the given attribute body"):
        if not isinstance(body, Mapping):
            raise LayoutError(f"an attribute body must be a dict of values, got "
                              f"{type(body).__name__}")
        super().__init__(body)
        self.mnemonic = mnemonic
        self._at = at

    @classmethod
    def of(cls, owner: type[Encoding], body: Mapping[str, Any],
           at: str | Callable[[], str] = "the given attribute body") -> AttributeBody:
        """``body`` for ``owner.from_attribute``, its keys checked against
        ``owner.attribute_keys``.

        Raises:
            LayoutError: ``malformed MLIR at …: #ttg.<mnemonic> has unknown key(s) […]``.
        """
        b = cls(body, owner.mnemonic, at)
        known = owner.attribute_keys
        unknown = sorted(set(b) - set(known))
        if unknown:
            raise LayoutError(f"malformed MLIR at {b.at}: #ttg.{b.mnemonic} has unknown "
                              f"key(s) {clip(str(unknown))}; known: {sorted(known)}")
        return b

    @property
    def at(self) -> str:
        """The attribute's position in the text."""
        return self._at() if callable(self._at) else self._at

    def need(self, key: str) -> Any:
        """The value of a required key.

        Raises:
            LayoutError: ``malformed MLIR at …: #ttg.<mnemonic> needs '<key>'``.
        """
        if key not in self:
            raise LayoutError(f"malformed MLIR at {self.at}: #ttg.{self.mnemonic} needs '{key}'")
        return self[key]

    def need_list(self, key: str) -> list[Any]:
        """The value of a required key that must be a list.

        Raises:
            LayoutError: the key is missing or its value is not a list.
        """
        v = self.need(key)
        if not isinstance(v, list):
            raise LayoutError(f"malformed MLIR at {self.at}: #ttg.{self.mnemonic} needs "
                              f"'{key}' to be a list such as [1, 0], got {clip(repr(v), 60)}")
        return v

    def bases(self, v: Any, what: str) -> list[list[Any]]:
        """``v`` if it is a list of lists (bases).

        Raises:
            LayoutError: ``'<what>' must be a list of bases …``.
        """
        if not isinstance(v, list) or not all(isinstance(b, list) for b in v):
            raise LayoutError(f"malformed MLIR at {self.at}: '{what}' must be a list of bases "
                              f"such as [[0, 1], [1, 0]], got {clip(repr(v), 60)}")
        return v

    def cga(self, rank: int) -> CGALayout | None:
        """The CGA layout: ``CGALayout = [[…]]`` (Triton 3.9) or the ``CTAsPerCGA /
        CTASplitNum / CTAOrder`` triple (Triton ≤ 3.5, missing entries defaulted as Triton
        did); None when the body names neither (one CTA).

        Raises:
            LayoutError: malformed bases or an inconsistent triple.
        """
        if "CGALayout" in self:
            v = self.bases(self["CGALayout"], "CGALayout")
            return CGALayout(rank, tuple(tuple(b) for b in v))
        legacy = [k for k in ("CTAsPerCGA", "CTASplitNum", "CTAOrder") if k in self]
        if legacy:
            per = self.get("CTAsPerCGA", [1] * rank)
            split = self.get("CTASplitNum", per)
            order = self.get("CTAOrder", list(range(rank - 1, -1, -1)))
            return cga_layout_from_split(per, split, order)
        return None

    def parent(self, v: Any) -> Encoding:
        """``v`` (a nested attribute) as a parent layout.

        Raises:
            LayoutError: ``v`` is an :class:`UnsupportedEncoding`, not an encoding, or nests
                :data:`MAX_LAYOUT_DEPTH` layouts deep.
        """
        if isinstance(v, UnsupportedEncoding):
            # Name the parent's problem once, cut short: a chain of such parents must not
            # repeat (and re-quote) every message below it.
            raise LayoutError(f"at {self.at} the parent layout is unsupported: "
                              f"{clip(v.reason)}")
        if isinstance(v, Encoding):
            if layout_depth(v) >= MAX_LAYOUT_DEPTH:
                raise LayoutError(f"malformed MLIR at {self.at}: layouts nest (parent of "
                                  f"parent of …) more than {MAX_LAYOUT_DEPTH} deep; no Triton "
                                  "layout does")
            return v
        raise LayoutError(f"malformed MLIR at {self.at}: 'parent' must be a layout attribute, "
                          f"got {clip(repr(v), 80)}")

    @contextmanager
    def invalid(self) -> Iterator[None]:
        """Context for building the encoding: a :class:`LayoutError` from the values (not one
        already saying ``malformed MLIR``) becomes ``invalid #ttg.<mnemonic> at …: <message>``.
        """
        try:
            yield
        except LayoutError as exc:
            msg = str(exc)
            if msg.startswith("malformed MLIR"):
                raise
            raise LayoutError(f"invalid #ttg.{self.mnemonic} at {self.at}: {msg}") from None


# ----------------------------------------------------------------------------- unsupported
@dataclass(frozen=True)
class UnsupportedEncoding(Encoding):
    """A well-formed attribute linlayout cannot turn into a linear layout (TTGIR reading only:
    one odd layout must not stop the whole file). Its ``to_linear_layout`` raises ``reason``.

    Attributes:
        name: the attribute's mnemonic as written.
        reason: why it is unsupported (the message a strict reader raises).
    """

    name: str
    reason: str
    kind = "unsupported"
    mnemonic = "unsupported"

    @property
    def rank(self) -> int:
        """-1: an unsupported attribute has no known rank."""
        return -1

    def to_linear_layout(self, shape: Sequence[int]) -> LinearLayout:
        """Raises :class:`LayoutError` with :attr:`reason`."""
        raise LayoutError(self.reason)

    def text(self) -> str:
        """``#ttg.<name><…>`` (the body is not kept)."""
        return f"#ttg.{self.name}<…>"

    def __repr__(self) -> str:  # bounded: a reason never embeds another repr in full
        return f"UnsupportedEncoding({self.name!r}, {clip(self.reason)!r})"
