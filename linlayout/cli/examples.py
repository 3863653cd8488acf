"""``linlayout examples``: list the built-in layout pairs, or write them as layout files."""

from __future__ import annotations

import argparse

from .. import examples


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    if args.write is None:
        print(examples.listing())
        return 0
    for path in examples.write_files(args.write):
        print(path)
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``examples`` subcommand."""
    e = sub.add_parser("examples", help="list the built-in examples (or write them as files)")
    e.add_argument("--write", metavar="DIR", default=None,
                   help="write each example's layouts as JSON files: DIR/NAME/store.json, "
                        "load.json and row_major.json (the tile's row-major memory)")
    e.set_defaults(func=run)
