"""The ``linlayout`` command: synthesize swizzles, count bank conflicts, check kernels.

Subcommands, one module each (named after it)::

    linlayout synthesize [--example NAME | --src FILE --dst FILE ... --element-bits N] [--json]
    linlayout conflicts --layout FILE --memory FILE --element-bits N [--max-degree K] [--json]
    linlayout coalescing --layout L --memory M --element-bits N [--min-efficiency X] [--json]
    linlayout check FILE ... [--max-degree K] [--json]
    linlayout convert --src L --dst L [--element-bits N] [--weight KIND=W] [--json]
    linlayout show FILE [--element-bits N] [--png OUT | --svg OUT]
    linlayout ptx MODE [--element-bits N] [--json]
    linlayout examples [--write DIR]
    linlayout --version

Layout files are JSON ``{"bases": {in_dim: [[...], ...]}, "out_dims": {name: size}}``
(:meth:`LinearLayout.to_dict`). Wherever a layout file is taken, a CuTe atom name
(``sm80_16x8x16.A``, :func:`linlayout.cute.atom_names`) or CuTe layout text
(``"Sw<3,4,3> o _0 o (_64,_64):(_64,_1)"``; a thread-value layout ending in ``on 16x8``) works
too (:func:`linlayout.cli.common.load_layout`).

``--json`` documents start with ``"schema_version"``; their JSON Schemas ship in
``linlayout/data/schemas/`` (:mod:`linlayout.show.schemas`). The full reference, kept true by
the test suite: ``docs/cli.md``.

Exit status:

* 0 — success;
* 1 — ``conflicts`` or ``check`` found a degree above ``--max-degree``, ``coalescing`` an
  efficiency below ``--min-efficiency`` (default 1.0), or ``check`` found a
  ``MISALIGNED`` op (an instruction Triton emits has a misaligned address or a padding gap
  inside a vector: the kernel faults or moves wrong data), or ``check --strict`` found a lane
  access it could not count or an op it could not analyse;
* 2 — bad input: stderr holds one line ``linlayout: error: …`` (argparse usage errors also
  exit 2, with argparse's usage text; ``check`` reports the files it could read first);
* 3 — an internal error, i.e. a bug in linlayout, never the user's input: stderr says so, with
  the exception, and asks for a report (``LINLAYOUT_DEBUG=1`` prints the traceback);
* 141 — the reader of stdout went away (``linlayout … | head``): nothing is printed on stderr,
  as for any Unix tool killed by SIGPIPE (128 + 13).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import os
import sys
import traceback
from collections.abc import Iterable, Sequence

from ..errors import LayoutError
from .._checks import cut
from .common import MAX_MESSAGE_CHARS, PROG, CliError, one_line

__all__ = ["COMMANDS", "EXIT_BAD_INPUT", "EXIT_BROKEN_PIPE", "EXIT_INTERNAL_ERROR", "command_of",
           "main", "parser"]

#: Exit status for bad input (one ``linlayout: error:`` line).
EXIT_BAD_INPUT = 2
#: Exit status for a bug in linlayout (an exception that is not a bad-input error).
EXIT_INTERNAL_ERROR = 3
#: Exit status when stdout is a pipe whose reader has gone (128 + SIGPIPE), as a shell reports
#: a process killed by SIGPIPE.
EXIT_BROKEN_PIPE = 141


#: The subcommands in the order ``--help`` lists them, each with its one-line help (the same
#: text its module's ``register`` gives). A subcommand is the module ``linlayout.cli.<name>``
#: with ``register(subparsers)``; add new subcommands here. Only the module of the command
#: being run is imported (:func:`parser`), so ``linlayout --version`` and each subcommand load
#: only what they need.
COMMANDS: dict[str, str] = {
    "synthesize": "optimal shared-memory layout for a store/load pair",
    "conflicts": "bank conflicts of one warp access",
    "coalescing": "sectors and lines of one warp's global access",
    "show": "print a layout as a grid (and draw it: --png/--svg)",
    "examples": "list the built-in examples (or write them as files)",
    "ptx": "a PTX/TMA swizzle mode as an F2 layout",
    "check": "shared- and global-memory instructions of every op in TTGIR files, with their "
               "bank conflicts and sectors",
    "convert": "plan a layout conversion: registers, shuffles or shared memory, each costed "
               "with its bound",
}


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose usage errors (``invalid int value: '…'``) echo a bad argument
    cut to :data:`~linlayout.cli.common.MAX_MESSAGE_CHARS` characters, not whole; the
    subcommands' parsers are of this class too."""

    def error(self, message: str):
        super().error(cut(message, MAX_MESSAGE_CHARS))


def parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser.

    Args:
        commands: the subcommands registered in full (their modules imported, their options
            known); every other one is listed by name and one-line help only, which is all
            ``linlayout --help``, ``--version`` and argparse's "invalid choice" error need.
            Default: every subcommand in full.

    Raises:
        KeyError: a name in ``commands`` that is no subcommand (:data:`COMMANDS`).
    """
    full = set(COMMANDS) if commands is None else set(commands)
    unknown = full - set(COMMANDS)
    if unknown:
        raise KeyError(f"no subcommand {sorted(unknown)}; choose from {list(COMMANDS)}")
    p = _Parser(
        prog=PROG,
        description="Linear layouts over F2: exact shared-memory bank conflicts and "
                    "provably optimal swizzles.",
    )
    from .. import __version__

    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, summary in COMMANDS.items():
        if name in full:
            importlib.import_module(f"{__name__}.{name}").register(sub)
        else:
            sub.add_parser(name, help=summary)
    return p


def command_of(argv: Sequence[str]) -> str | None:
    """The subcommand ``argv`` runs: its first argument that is no option (the top-level
    options ``-h``, ``--help`` and ``--version`` take no value), if that names a subcommand;
    else None."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``linlayout`` command.

    Args:
        argv: arguments without the program name; default ``sys.argv[1:]``.

    Returns:
        The exit status (module docstring): 0 success, 1 a degree above ``--max-degree`` or a
        misaligned op (``check``), 2
        bad input or a usage error (one ``linlayout: error: …`` line on stderr), 3 an internal
        error, 141 stdout's reader went away (nothing printed). Never raises.
    """
    if argv is None:
        argv = sys.argv[1:]
    command = command_of(argv)
    try:
        args = parser([command] if command else []).parse_args(argv)
    except SystemExit as exc:  # argparse: --help (0) or usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return status
    except BrokenPipeError:
        return _broken_pipe()
    except (CliError, LayoutError, OSError, json.JSONDecodeError) as exc:
        if isinstance(exc, OSError) and exc.errno == errno.EPIPE:
            return _broken_pipe()
        print(f"{PROG}: error: {one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug: say so, never blame the input
        from .. import __version__

        print(f"{PROG}: internal error: {type(exc).__name__}: {one_line(exc)} — this is a bug "
              f"in linlayout {__version__}, not a problem with your input; please report it "
              "with the command line and its input files (set LINLAYOUT_DEBUG=1 for the "
              "traceback)", file=sys.stderr)
        if os.environ.get("LINLAYOUT_DEBUG"):
            traceback.print_exc()
        return EXIT_INTERNAL_ERROR


def _broken_pipe() -> int:
    """The reader of stdout has gone: say nothing, and keep Python from complaining when it
    flushes stdout at exit (point it at devnull)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # stdout is no real file (tests capture it)
        pass
    return EXIT_BROKEN_PIPE
