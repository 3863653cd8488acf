"""Shared pieces of the ``linlayout`` subcommands: reading layout files, tables, JSON, errors."""

from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any

from .._checks import cut, shown
from ..errors import LayoutError
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from ..show.text import dumps, table

__all__ = ["LAYOUT_FORMS", "PROG", "CliError", "add_hardware_args", "check_roles", "dumps",
           "hardware_kwargs", "load_layout", "one_line", "table"]

PROG = "linlayout"


class CliError(Exception):
    """Bad command-line input; the message becomes the one-line error."""


#: How the error for an unreadable layout argument lists what is accepted.
LAYOUT_FORMS = ("a JSON layout file, a CuTe atom name (e.g. sm80_16x8x16.A; "
                "linlayout.cute.atom_names() lists them) or CuTe layout text (e.g. "
                "'Sw<3,4,3> o _0 o (_64,_64):(_64,_1)', or a thread-value layout with its tile: "
                "'((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8')")


def load_layout(path: str, what: str, element_bits: int | None = None, *,
                padded: bool = False) -> LinearLayout | PaddedLayout:
    """A layout argument: a JSON layout file (if that file exists), else CuTe text as
    :func:`linlayout.cute.read_layout` reads it — an atom name (copy atoms take
    ``element_bits``), a shared-memory layout, or, ending in ``on MxN``, a thread-value layout
    over that tile. A padded shared-memory layout (``(_64,_64):(_72,_1)``) only where
    ``padded`` is True. CliError naming the argument and the three accepted forms on any
    problem."""
    if os.path.isfile(path):
        return _load_json(path, what)
    from .. import cute

    if cute.is_atom_name(path):
        if cute.atom_info(path).units == "bits" and element_bits is None:
            raise CliError(f"{what} {path!r} is a copy atom in bits; give --element-bits")
        try:
            return cute.read_layout(path, element_bits)
        except LayoutError as exc:
            raise CliError(f"{what} {path!r}: {exc}") from None
    try:
        got = cute.read_layout(path, element_bits)
    except LayoutError as exc:
        looks_cute = bool(re.search(r"[():<]", path))
        if looks_cute:
            raise CliError(f"{what} {shown(path)}: {exc}") from None
        raise CliError(f"{what} {shown(path)} is no file, atom name or CuTe layout; give "
                       f"{LAYOUT_FORMS}") from None
    if isinstance(got, PaddedLayout) and not padded:
        raise CliError(f"{what} {shown(path)} is a padded shared-memory layout (pairs "
                       f"{list(got.pairs)}); only 'linlayout conflicts --memory' takes one")
    return got


def _load_json(path: str, what: str) -> LinearLayout:
    """Read a JSON layout file; CliError naming the file on any problem."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh, parse_int=lambda t: _cli_int(t, f"{what} file {path!r}"),
                             parse_constant=_no_constant,
                             object_pairs_hook=lambda p: _unique_keys(p, f"{what} file {path!r}"))
    except OSError as exc:
        raise CliError(f"cannot read {what} file {path!r}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{what} file {path!r} is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise CliError(f"{what} file {path!r} is not UTF-8 text: {exc.reason}") from None
    except RecursionError:
        raise CliError(f"{what} file {path!r} nests JSON too deeply to be a layout") from None
    try:
        return LinearLayout.from_dict(data)
    except LayoutError as exc:
        raise CliError(f"{what} file {path!r}: {exc}") from None


def _unique_keys(pairs: list[tuple[str, object]], what: str) -> dict:
    """A JSON object as a dict; CliError when a key repeats (Python's ``json`` keeps the last
    one without a word, so ``{"register": …, "register": …}`` silently lost a dim's bases)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise CliError(f"{what} gives the key {shown(key)} twice in one object; give it "
                           "once")
        out[key] = value
    return out


#: Most digits of an integer read from a layout file or argument: far above any size or basis,
#: and below the interpreter's own limit (``sys.set_int_max_str_digits``, at least 640).
MAX_INT_DIGITS = 600


def _cli_int(text: str, what: str) -> int:
    """``int(text)`` for a decimal token, CliError past :data:`MAX_INT_DIGITS` digits."""
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise CliError(f"{what} holds an integer with {digits} digits; at most "
                       f"{MAX_INT_DIGITS} are accepted")
    return int(text)


def _no_constant(name: str) -> Any:
    raise CliError(f"{name} is not a layout value (JSON layout files hold integers)")


#: Most characters of a message on the error line: an error that echoes a huge argument (a
#: 120 KB string given as a layout) is cut, with an ellipsis, not printed whole.
MAX_MESSAGE_CHARS = 400


def one_line(msg: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """``msg`` on one line: every run of whitespace (newlines included) becomes one space; cut
    to ``limit`` characters with an ellipsis."""
    return cut(" ".join(str(msg).split()), limit)


def add_hardware_args(sp: argparse.ArgumentParser) -> None:
    """``--hardware`` (a preset), and ``--num-banks`` / ``--bank-bytes`` overrides."""
    from ..hardware import PRESETS

    sp.add_argument("--hardware", choices=sorted(PRESETS), default="NVIDIA",
                    help="hardware model: banks, warp size, phases (default NVIDIA)")
    sp.add_argument("--num-banks", type=int, default=None, metavar="N",
                    help="banks per row (default: the model's: 32, or 64 for AMD_CDNA4)")
    sp.add_argument("--bank-bytes", type=int, default=None, metavar="N",
                    help="bytes per bank word (default: the model's, 4)")


def hardware_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """``{"hardware": model}`` for the library calls: the ``--hardware`` preset with the
    ``--num-banks`` / ``--bank-bytes`` overrides applied (LayoutError if they are invalid)."""
    from ..hardware import PRESETS

    model = PRESETS[args.hardware]
    if args.num_banks is not None or args.bank_bytes is not None:
        model = model.with_banks(num_banks=args.num_banks, bank_bytes=args.bank_bytes)
    return {"hardware": model}


#: In dims of a shared-memory layout (``offset``, or the synthesizer's three).
_MEMORY_DIMS = frozenset({"offset", "vector", "bank", "segment"})


def _is_memory(layout: LinearLayout | PaddedLayout) -> bool:
    return isinstance(layout, PaddedLayout) or bool(_MEMORY_DIMS & set(layout.in_dim_names))


def check_roles(distributed: dict[str, tuple[str, LinearLayout]],
                memory: tuple[str, str, LinearLayout] | None = None) -> None:
    """Refuse, with a hint that fits, a shared-memory layout given where a distributed
    (thread) layout is expected, or the other way round.

    Args:
        distributed: ``{flag: (argument text, layout)}`` of the arguments that take a
            distributed layout (``--layout``, ``--src``, ``--dst``).
        memory: ``(flag, argument text, layout)`` of the argument that takes a shared-memory
            layout (``--memory``), if any.

    Raises:
        CliError: a distributed argument holds a memory layout (the hint: the arguments are
            swapped, or a CuTe thread-value layout lacks its ``on MxN`` tile), or the memory
            argument holds a distributed layout.
    """
    swapped = memory is not None and not _is_memory(memory[2])
    for flag, (text, layout) in distributed.items():
        if not _is_memory(layout):
            continue
        if swapped:
            raise CliError(f"{flag} {text!r} is a shared-memory layout and {memory[0]} "
                           f"{memory[1]!r} a distributed one: swap them ({flag} takes the "
                           f"threads' layout, {memory[0]} the shared-memory one)")
        if not os.path.isfile(text) and re.search(r"[():]", text) and "<" not in text:
            raise CliError(f"{flag} {text!r} reads as a shared-memory layout (CuTe text "
                           f"without a tile); a CuTe thread-value layout names its tile: "
                           f"write it as '{text} on MxN', e.g. '… on 16x8'")
        raise CliError(f"{flag} {text!r} is a shared-memory layout (in dims "
                       f"{list(layout.in_dim_names)}); {flag} takes a distributed layout, "
                       f"with in dims among register, lane, warp, block")
    if swapped:
        raise CliError(f"{memory[0]} {memory[1]!r} is a distributed layout (in dims "
                       f"{list(memory[2].in_dim_names)}); {memory[0]} takes a shared-memory "
                       f"layout, with in dim 'offset'")
