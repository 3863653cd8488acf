"""Argument checks shared by the whole package (package-internal).

Every public function validates its arguments with these helpers, so a bad value raises
:class:`~linlayout.LayoutError` with the same wording wherever it is passed. Each helper takes
``what``, the name of the argument as the caller's user knows it (``"element_bits"``,
``"size of out dim 'dim0'"``, ``"bases['lane'][2]"``), and puts it at the front of the message.

Nothing here knows about layouts; the checks that need a :class:`~linlayout.LinearLayout` live
with it (:mod:`linlayout.layout`).
"""

from __future__ import annotations

import operator
import os
import random
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import LayoutError

__all__ = [
    "MAX_INT_BITS",
    "as_int",
    "cut",
    "shown",
    "bit_vector",
    "dim_name",
    "instance_of",
    "int_list",
    "log2_exact",
    "need_mapping",
    "power_of_two",
    "random_source",
    "sequence_of",
    "string",
    "file_path",
]


def cut(text: str, limit: int) -> str:
    """``text`` itself when at most ``limit`` characters, else its first ``limit - 1`` and an
    ellipsis (a message that echoes a huge input stays readable)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def shown(value: Any, limit: int = 120) -> str:
    """``repr(value)`` for an error message, bounded: an int too long to print usefully is
    described by its bit length (``repr`` of an int over 4300 digits raises ValueError), a
    long repr is cut to ``limit`` characters, and a repr that raises is replaced by the type.
    """
    if type(value) is int and value.bit_length() > 64:
        return f"<an int of {value.bit_length()} bits>"
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a hostile __repr__ or an int past the digit limit
        return f"<a {type(value).__name__}>"
    return cut(text, limit)


#: Widest int any argument may be: 2048 bits (617 decimal digits), below the floor of
#: ``sys.set_int_max_str_digits`` (640 digits), so every accepted int can be printed in a
#: message whatever the interpreter's setting. No size, shift or bit vector of a layout is
#: anywhere near it.
MAX_INT_BITS = 2048


def _fits(value: int, what: str) -> int:
    if value.bit_length() > MAX_INT_BITS:
        raise LayoutError(f"{what} is an int of {value.bit_length()} bits; at most "
                          f"{MAX_INT_BITS} bits are accepted")
    return value


def as_int(value: Any, what: str) -> int:
    """``value`` as an int (anything with ``__index__``, not a bool), of at most
    :data:`MAX_INT_BITS` bits.

    Raises:
        LayoutError: ``value`` is a bool, not an integer, or wider than :data:`MAX_INT_BITS`.
    """
    if type(value) is int:
        return _fits(value, what)
    if isinstance(value, bool):
        raise LayoutError(f"{what} must be an int, got the bool {shown(value)}")
    try:
        return _fits(operator.index(value), what)
    except TypeError:
        raise LayoutError(f"{what} must be an int, got {shown(value)}") from None


def bit_vector(value: Any, what: str) -> int:
    """``value`` as a non-negative int (a vector of F₂ⁿ, bit ``i`` = coordinate ``i``).

    Raises:
        LayoutError: a bool, not an integer, or negative.
    """
    if isinstance(value, bool):
        raise LayoutError(f"{what} must be a non-negative int bit vector, got the bool {shown(value)}")
    try:
        v = operator.index(value)
    except TypeError:
        raise LayoutError(f"{what} must be a non-negative int bit vector, got {shown(value)}") from None
    if v < 0:
        raise LayoutError(f"{what} must be a non-negative int bit vector, got {shown(v)}")
    return _fits(v, what)


def log2_exact(value: Any, what: str, lo: int = 1, hi: int | None = None) -> int:
    """log2 of ``value``, which must be a power of two in ``[lo, hi]``.

    Args:
        value: the argument (an int; bools are refused).
        what: its name, for the message.
        lo, hi: the accepted range (``hi`` None: no upper limit).

    Raises:
        LayoutError: not an int, not a power of two, or outside the range.
    """
    if type(value) is not int:
        if isinstance(value, bool):
            raise LayoutError(f"{what} must be an int power of two, got {shown(value)}")
        try:
            value = operator.index(value)
        except TypeError:
            raise LayoutError(f"{what} must be an int power of two, got {shown(value)}") from None
    _fits(value, what)
    if value < 1 or value & (value - 1) or value < lo or (hi is not None and value > hi):
        if lo <= 1 and hi is None:
            raise LayoutError(f"{what} must be a positive power of two, got {shown(value)}")
        span = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        raise LayoutError(f"{what} must be a power of two {span}, got {shown(value)}")
    return value.bit_length() - 1


def power_of_two(value: Any, what: str, allow_zero: bool = False) -> int:
    """``value`` itself, which must be a positive power of two (or 0 when allowed).

    Raises:
        LayoutError: not an int, or not a power of two.
    """
    v = as_int(value, what)
    if allow_zero and v == 0:
        return 0
    if v < 1 or v & (v - 1):
        raise LayoutError(f"{what} must be a positive power of two, got {shown(v)}")
    return v


def int_list(seq: Any, what: str, *, pow2: bool = False,
             length: int | None = None) -> tuple[int, ...]:
    """A sequence of ints (each a positive power of two with ``pow2``), of ``length`` entries
    when given.

    Raises:
        LayoutError: not a sequence (a string is refused), an entry that is not an int (or not
            a power of two), or the wrong length (the message calls it the rank).
    """
    if isinstance(seq, (str, bytes)) or not isinstance(seq, Sequence):
        raise LayoutError(f"{what} must be a list of ints, got {shown(seq)}")
    out = tuple(power_of_two(x, f"{what}[{i}]") if pow2 else as_int(x, f"{what}[{i}]")
                for i, x in enumerate(seq))
    if length is not None and len(out) != length:
        raise LayoutError(f"{what} has {len(out)} entries but the rank is {length}; "
                          f"give one per dimension")
    return out


def dim_name(name: Any, what: str) -> str:
    """A dimension name: a non-empty string.

    Raises:
        LayoutError: anything else (``what`` says which kind of dim, e.g. ``"in-dim"``).
    """
    if type(name) is not str or not name:
        if not isinstance(name, str) or not name:
            raise LayoutError(f"{what} names must be non-empty strings, got {shown(name)}")
    return name


def instance_of(value: Any, cls: type, what: str) -> Any:
    """``value`` itself, which must be an instance of ``cls`` (a public entry point's check
    of an object argument, so that None or a string ends in LayoutError, not AttributeError).

    Raises:
        LayoutError: anything else (the message names ``what`` and the class).
    """
    if not isinstance(value, cls):
        raise LayoutError(f"{what} must be a {cls.__name__}, got {shown(value)}")
    return value


def need_mapping(value: Any, what: str) -> None:
    """Raise LayoutError unless ``value`` is a mapping (``{name: value}``)."""
    if type(value) is not dict and not isinstance(value, Mapping):
        raise LayoutError(f"{what} must be a mapping {{name: value}}, got {type(value).__name__}")


def random_source(rng: Any) -> random.Random:
    """A ``random.Random`` from one, an int seed, or None (fresh entropy).

    Raises:
        LayoutError: anything else.
    """
    if isinstance(rng, random.Random):
        return rng
    if rng is None or (isinstance(rng, int) and not isinstance(rng, bool)):
        return random.Random(rng)
    raise LayoutError(f"rng must be a random.Random, an int seed or None, got {shown(rng)}")


def sequence_of(value: Any, cls: type | tuple[type, ...], what: str) -> tuple:
    """``value`` as a tuple, which must be a list or tuple (any non-string sequence) whose
    every entry is an instance of ``cls`` (a class or a tuple of classes).

    Raises:
        LayoutError: not a sequence (a string is refused), or an entry of another type (the
            message names its index).
    """
    names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise LayoutError(f"{what} must be a list of {names}, got {shown(value)}")
    for i, x in enumerate(value):
        if not isinstance(x, cls):
            raise LayoutError(f"{what}[{i}] must be a {names}, got {shown(x)}")
    return tuple(value)


def string(value: Any, what: str) -> str:
    """``value`` itself, which must be a str.

    Raises:
        LayoutError: anything else.
    """
    if not isinstance(value, str):
        raise LayoutError(f"{what} must be a string, got {shown(value)}")
    return value


def file_path(value: Any, what: str) -> str:
    """``value`` as a str path: a str or an ``os.PathLike`` giving one.

    Raises:
        LayoutError: anything else (bytes paths included), or a path with a NUL character
            (which the operating system's calls refuse with a bare ``ValueError``).
    """
    p = value
    if isinstance(value, os.PathLike):
        p = os.fspath(value)
    if isinstance(p, str):
        if "\0" in p:
            raise LayoutError(f"{what} {shown(p)} contains a NUL character; no file has such "
                              "a name")
        return p
    raise LayoutError(f"{what} must be a file path (a str or a pathlib.Path), got {shown(value)}")

