"""``linlayout examples``: list the built-in layout pairs."""

from __future__ import annotations

import argparse

from .. import examples


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    print(examples.listing())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``examples`` subcommand."""
    e = sub.add_parser("examples", help="list the built-in examples")
    e.set_defaults(func=run)
