"""``linlayout ptx``: a hardware swizzle mode as an F2 matrix, a formula and its chunk table."""

from __future__ import annotations

import argparse

from .. import ptx
from ..show.ptx import ptx_report
from .common import CliError, dumps


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    m = ptx.swizzle_mode(args.mode)
    eb = args.element_bits
    if eb < 1 or eb > 128 or eb & (eb - 1):
        raise CliError(f"--element-bits must be a power of two from 1 to 128, got {eb}")
    report = ptx_report(m, eb, png=args.png)
    if args.png:
        try:
            report.save_png(args.png)
        except ImportError:
            raise CliError(
                "--png needs matplotlib, which is not installed; pictures come with the plot "
                "extra (pip install matplotlib)"
            ) from None
        except OSError as exc:
            raise CliError(f"cannot write --png file {args.png!r}: "
                           f"{exc.strerror or exc}") from None
    print(dumps(report.to_dict()) if args.json else report.to_text())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ptx`` subcommand."""
    names = [m.value for m in ptx.SwizzleMode]
    p = sub.add_parser(
        "ptx", help="a PTX/TMA swizzle mode as an F2 layout",
        description="Print a hardware swizzle mode's numberings, its address map as an F2 "
                    "matrix and formula, the TMA tile formula, and the 8-line chunk table. "
                    f"Modes: {', '.join(names)}.")
    p.add_argument("mode", metavar="MODE", help=f"one of {', '.join(names)}")
    p.add_argument("--element-bits", type=int, default=8, metavar="N",
                   help="bits per element for the tile formula and atoms (default 8: bytes)")
    p.add_argument("--png", metavar="FILE", help="also draw the chunk table (needs matplotlib)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)
