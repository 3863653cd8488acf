"""The ``linlayout`` command: synthesize swizzles, count bank conflicts, show layouts.

Subcommands::

    linlayout synthesize [--example NAME | --src FILE --dst FILE --element-bits N] [--json]
    linlayout conflicts --layout FILE --memory FILE --element-bits N [--max-degree K] [--json]
    linlayout show FILE [--element-bits N]
    linlayout examples

Layout files are JSON ``{"bases": {in_dim: [[...], ...]}, "out_dims": {name: size}}``
(:meth:`LinearLayout.to_dict`). Exit status: 0 success; 1 ``conflicts`` found a degree above
``--max-degree``; 2 bad input — then stderr holds one line ``linlayout: error: …`` (argparse
usage errors also exit 2, with argparse's own usage text).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from typing import Any

from . import examples
from .conflicts import bank_conflicts
from .kinds import is_distributed
from .errors import LayoutError
from .formula import offset_formula
from .layout import LinearLayout
from .render import grid_distributed, grid_memory
from .swizzle import SwizzleResult, synthesize_swizzle

__all__ = ["main"]

PROG = "linlayout"
#: Display names of tensor dims for built-in examples (the article calls them m and n).
EXAMPLE_NAMES = {"transpose": {"dim0": "m", "dim1": "n"}}


class CliError(Exception):
    """Bad command-line input; the message becomes the one-line error."""


def _load_layout(path: str, what: str) -> LinearLayout:
    """Read a JSON layout file; CliError naming the file on any problem."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except OSError as exc:
        raise CliError(f"cannot read {what} file {path!r}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{what} file {path!r} is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise CliError(f"{what} file {path!r} is not UTF-8 text: {exc.reason}") from None
    try:
        return LinearLayout.from_dict(data)
    except (LayoutError, ValueError, TypeError, KeyError) as exc:
        raise CliError(f"{what} file {path!r}: {exc}") from None


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned columns separated by ' | '."""
    cells = [list(map(str, header))] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def _synthesize_text(title: str, result: SwizzleResult, formula: str) -> str:
    rows = [
        (side, rep.vector_elems, rep.degree, rep.wavefronts)
        for side, rep in (("store", result.store), ("load", result.load))
    ]
    b = result.bound
    if result.optimal:
        verdict = "proven optimal: yes"
    else:
        verdict = (f"proven optimal: no (lower bound: vector {b.vector_elems}, store degree "
                   f"{b.store_degree}, load degree {b.load_degree})")
    return "\n".join([
        title,
        "",
        "shared-memory layout (offset bits -> tensor coordinates):",
        str(result.layout),
        "",
        formula,
        "",
        _table(("side", "vector", "degree", "wavefronts"), rows),
        "",
        verdict,
        f"bound: {b.argument}",
    ])


def _cmd_synthesize(args: argparse.Namespace) -> int:
    if args.src or args.dst:
        if args.example:
            raise CliError("give either --example or --src/--dst, not both")
        if not (args.src and args.dst):
            raise CliError("--src and --dst go together: give both layout files")
        if args.element_bits is None:
            raise CliError("--element-bits is required with --src/--dst (e.g. 16 for fp16)")
        store = _load_layout(args.src, "--src")
        load = _load_layout(args.dst, "--dst")
        element_bits = args.element_bits
        names = None
        title = f"synthesize: store {args.src}, load {args.dst}, {element_bits}-bit elements"
        example = None
    else:
        example = args.example or examples.DEFAULT
        ex = examples.get(example)
        store, load = ex.store, ex.load
        element_bits = ex.element_bits if args.element_bits is None else args.element_bits
        names = EXAMPLE_NAMES.get(example)
        title = f"example {example} ({element_bits}-bit elements): {ex.description}"
    result = synthesize_swizzle(store, load, element_bits=element_bits,
                                num_banks=args.num_banks, bank_bytes=args.bank_bytes)
    formula = offset_formula(result.layout, names)
    if args.json:
        out = result.to_dict()
        out["formula"] = formula
        if example is not None:
            out["example"] = example
        print(_dumps(out))
    else:
        print(_synthesize_text(title, result, formula))
    return 0


def _cmd_conflicts(args: argparse.Namespace) -> int:
    layout = _load_layout(args.layout, "--layout")
    memory = _load_layout(args.memory, "--memory")
    if args.max_degree < 1:
        raise CliError(f"--max-degree must be at least 1, got {args.max_degree}")
    rep = bank_conflicts(layout, memory, element_bits=args.element_bits,
                         num_banks=args.num_banks, bank_bytes=args.bank_bytes,
                         vector_elems=args.vector_elems)
    ok = rep.degree <= args.max_degree
    if args.json:
        out = rep.to_dict()
        out["max_degree"] = args.max_degree
        out["ok"] = ok
        print(_dumps(out))
    else:
        print(_table(
            ("degree", "wavefronts", "vector", "phases", "lanes/phase", "instructions"),
            [(rep.degree, rep.wavefronts, rep.vector_elems, rep.phases,
              rep.lanes_per_phase, rep.instructions)],
        ))
        word = "ok" if ok else "FAIL"
        cmp = "<=" if ok else ">"
        print(f"{word}: degree {rep.degree} {cmp} --max-degree {args.max_degree}")
    return 0 if ok else 1


def _cmd_show(args: argparse.Namespace) -> int:
    layout = _load_layout(args.file, "layout")
    if is_distributed(layout):
        print(grid_distributed(layout))
    else:
        grid = grid_memory(layout, args.element_bits, num_banks=args.num_banks,
                           bank_bytes=args.bank_bytes)
        print(offset_formula(layout))
        print(grid)
    return 0


def _cmd_examples(args: argparse.Namespace) -> int:
    for name in examples.names():
        ex = examples.get(name)
        print(f"{name}: {ex.description} ({ex.element_bits}-bit elements)")
    return 0


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Linear layouts over F2: exact shared-memory bank conflicts and "
                    "provably optimal swizzles.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def hw(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--num-banks", type=int, default=32, metavar="N", help="banks per row (default 32)")
        sp.add_argument("--bank-bytes", type=int, default=4, metavar="N",
                        help="bytes per bank word (default 4)")

    s = sub.add_parser("synthesize", help="optimal shared-memory layout for a store/load pair",
                       description="Without arguments: the built-in example "
                                   f"{examples.DEFAULT!r}.")
    s.add_argument("--example", metavar="NAME", help="built-in example (see `linlayout examples`)")
    s.add_argument("--src", metavar="FILE", help="JSON layout of the store (distributed)")
    s.add_argument("--dst", metavar="FILE", help="JSON layout of the load (distributed)")
    s.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element (required with --src/--dst; overrides the example's)")
    hw(s)
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=_cmd_synthesize)

    c = sub.add_parser("conflicts", help="bank conflicts of one warp access",
                       description="Exit status 1 when the degree exceeds --max-degree.")
    c.add_argument("--layout", required=True, metavar="FILE", help="distributed layout (JSON)")
    c.add_argument("--memory", required=True, metavar="FILE", help="shared-memory layout (JSON)")
    c.add_argument("--element-bits", type=int, required=True, metavar="N")
    hw(c)
    c.add_argument("--vector-elems", type=int, metavar="N",
                   help="elements per lane per access (default: widest the layouts allow)")
    c.add_argument("--max-degree", type=int, default=1, metavar="K",
                   help="largest acceptable conflict degree (default 1: conflict-free)")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=_cmd_conflicts)

    sh = sub.add_parser("show", help="print a layout as a grid",
                        description="A distributed layout (in dims among register, lane, warp, "
                                    "block) shows lane:register per element; a shared-memory "
                                    "layout (offset or vector/bank/segment) shows its offset "
                                    "formula and offset/bank per element.")
    sh.add_argument("file", metavar="FILE", help="JSON layout file")
    sh.add_argument("--element-bits", type=int, default=32, metavar="N",
                    help="bits per element for memory layouts (default 32)")
    hw(sh)
    sh.set_defaults(func=_cmd_show)

    e = sub.add_parser("examples", help="list the built-in examples")
    e.set_defaults(func=_cmd_examples)
    return p


_INT_LIST = re.compile(r"\[\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\]")


def _dumps(data: Any) -> str:
    """Indented JSON with lists of ints kept on one line (``[0, 1]``), still valid JSON."""
    text = json.dumps(data, indent=2, ensure_ascii=False)
    return _INT_LIST.sub(lambda m: "[" + ", ".join(re.split(r"\s*,\s*", m.group(1))) + "]", text)


def _one_line(msg: str) -> str:
    return " ".join(str(msg).split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``linlayout`` command.

    Args:
        argv: arguments without the program name; default ``sys.argv[1:]``.

    Returns:
        The exit status: 0 success, 1 ``conflicts`` above ``--max-degree``, 2 bad input (one
        ``linlayout: error: …`` line on stderr) or a usage error. Never raises for bad input.
    """
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return args.func(args)
    except (CliError, LayoutError, OSError, json.JSONDecodeError,
            ValueError, TypeError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"{PROG}: error: {_one_line(msg)}", file=sys.stderr)
        return 2
