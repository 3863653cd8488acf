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
import sys
from collections.abc import Sequence

from ..errors import LayoutError
from . import check, conflicts, examples, ptx, show, synthesize
from .common import PROG, CliError, one_line

__all__ = ["main"]


#: Subcommand modules, each with ``register(subparsers)``; add new subcommands here.
COMMANDS = (synthesize, conflicts, show, examples, ptx, check)


def parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Linear layouts over F2: exact shared-memory bank conflicts and "
                    "provably optimal swizzles.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for module in COMMANDS:
        module.register(sub)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``linlayout`` command.

    Args:
        argv: arguments without the program name; default ``sys.argv[1:]``.

    Returns:
        The exit status: 0 success, 1 ``conflicts`` above ``--max-degree``, 2 bad input (one
        ``linlayout: error: …`` line on stderr) or a usage error. Never raises for bad input.
    """
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        return args.func(args)
    except (CliError, LayoutError, OSError, json.JSONDecodeError,
            ValueError, TypeError, KeyError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"{PROG}: error: {one_line(msg)}", file=sys.stderr)
        return 2
