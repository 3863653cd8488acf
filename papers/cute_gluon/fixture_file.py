"""The command line the fixture generators share: write the fixture, or check it is current."""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Callable


def main(build: Callable[[], dict], dumps: Callable[[dict], str], out: pathlib.Path,
         root: pathlib.Path, doc: str) -> int:
    """Write ``dumps(build())`` to ``out``; with ``--check``, compare instead (exit 1 when the
    file differs)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the file, write nothing")
    args = ap.parse_args()
    text = dumps(build())
    if args.check:
        ok = out.exists() and out.read_text() == text
        print(f"{out.relative_to(root)} {'up to date' if ok else 'differs'}")
        return 0 if ok else 1
    out.write_text(text)
    print(f"wrote {out.relative_to(root)} ({len(text)} bytes)")
    return 0
