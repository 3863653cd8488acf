"""``linlayout show``: a layout as a text grid, and optionally as a picture (PNG or SVG)."""

from __future__ import annotations

import argparse

from ..show.render import layout_text
from .common import CliError, add_hardware_args, hardware_kwargs, load_layout


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    pictures = [p for p in (args.png, args.svg) if p]
    if args.png and not args.png.lower().endswith(".png"):
        raise CliError(f"--png needs a path ending in .png, got {args.png!r}")
    if args.svg and not args.svg.lower().endswith(".svg"):
        raise CliError(f"--svg needs a path ending in .svg, got {args.svg!r}")
    if pictures:
        try:  # checked before any output
            __import__("matplotlib")
        except ImportError:
            raise CliError('pictures need matplotlib: pip install "linlayout[plot]"') from None
    layout = load_layout(args.file, "layout", args.element_bits)
    hw = hardware_kwargs(args)
    print(layout_text(layout, args.element_bits, **hw))
    if pictures:
        from ..show.pictures import draw_layout, save

        fig = draw_layout(layout, element_bits=args.element_bits, **hw)
        for path in pictures:
            save(fig, path)
            print(f"wrote {path}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``show`` subcommand."""
    sh = sub.add_parser("show", help="print a layout as a grid (and draw it: --png/--svg)",
                        description="A distributed layout (in dims among register, lane, warp, "
                                    "block) shows lane:register per element; a shared-memory "
                                    "layout (offset or vector/bank/segment) shows its offset "
                                    "formula and offset/bank per element. --png/--svg also "
                                    "draw it (colour = lane or bank, with its F2 matrix); they "
                                    "need matplotlib: pip install \"linlayout[plot]\".")
    sh.add_argument("file", metavar="FILE",
                    help="JSON layout file, CuTe atom name or CuTe layout text")
    sh.add_argument("--element-bits", type=int, default=32, metavar="N",
                    help="bits per element for memory layouts (default 32)")
    sh.add_argument("--png", metavar="OUT", help="also draw the layout into this PNG file")
    sh.add_argument("--svg", metavar="OUT", help="also draw the layout into this SVG file")
    add_hardware_args(sh)
    sh.set_defaults(func=run)
