"""``linlayout show``: a layout as a text grid, and optionally as a picture (PNG or SVG).

``--picture`` picks the picture: ``layout`` (the grid above its F₂ matrix), ``tv`` (a
CUTLASS-style thread/value grid), ``mma`` (A, B and C of an MMA atom) or ``copy`` (the layout
copied into ``--memory``, the first instruction outlined by wavefront).
"""

from __future__ import annotations

import argparse
import os
import re

from ..errors import LayoutError
from ..show.render import layout_text
from .common import CliError, add_hardware_args, hardware_kwargs, load_layout

PICTURES = ("layout", "tv", "mma", "copy")


def _cute_text(arg: str | None) -> str | None:
    """The argument when it is CuTe layout text (not a file or an atom name), else None."""
    if arg is None or os.path.isfile(arg):
        return None
    from .. import cute

    return None if cute.is_atom_name(arg) or not re.search(r"[():]", arg) else arg


def _check_flags(args: argparse.Namespace) -> list[str]:
    """The picture paths; CliError for flags that do not go together."""
    pictures = [p for p in (args.png, args.svg) if p]
    if args.png and not args.png.lower().endswith(".png"):
        raise CliError(f"--png needs a path ending in .png, got {args.png!r}")
    if args.svg and not args.svg.lower().endswith(".svg"):
        raise CliError(f"--svg needs a path ending in .svg, got {args.svg!r}")
    if args.picture == "copy" and not args.memory:
        raise CliError("--picture copy needs --memory MEM (the shared-memory layout)")
    if args.color_by == "bank" and not args.memory:
        raise CliError("--color-by bank needs --memory MEM (the shared-memory layout)")
    tv_only = [f for f, v in (("--warp", args.warp), ("--label", args.label),
                              ("--color-by", args.color_by)) if v is not None]
    if tv_only and args.picture not in ("tv", "mma"):
        raise CliError(f"{tv_only[0]} goes with --picture tv (or mma)")
    if args.instruction and args.picture != "copy":
        raise CliError("--instruction goes with --picture copy")
    if pictures:
        from ..show.mpl_start import import_for_drawing

        try:  # checked before any output; a one-shot process skips matplotlib's property docs
            import_for_drawing(svg=bool(args.svg))
        except ImportError:
            raise CliError('pictures need matplotlib: pip install "linlayout[plot]"') from None
    elif args.picture != "layout" or args.memory or args.hierarchy:
        raise CliError("--picture, --memory and --hierarchy draw a picture: give --png or --svg")
    return pictures


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    pictures = _check_flags(args)
    hw = hardware_kwargs(args)
    label = None if args.label == "none" else (args.label or "tv")
    if args.picture == "mma":
        from ..show.mma_picture import mma_atom_parts

        try:
            parts = mma_atom_parts(args.file, args.element_bits)
        except LayoutError as exc:
            raise CliError(f"--picture mma takes an MMA atom name: {exc}") from None
        fig = None
        if pictures:  # drawn before any output: its errors print nothing else
            from ..show.mma_picture import draw_mma_atom

            fig = draw_mma_atom(args.file, element_bits=args.element_bits, label=label,
                                color_by=args.color_by or "thread")
        for name, layout in zip("ABC", parts[:3]):
            print(f"{name}:\n{layout_text(layout, args.element_bits, **hw)}")
        if fig is not None:
            _save(fig, pictures)
        return 0
    layout = load_layout(args.file, "layout", args.element_bits)
    memory = load_layout(args.memory, "--memory", args.element_bits) if args.memory else None
    text = layout_text(layout, args.element_bits, **hw)
    fig = _draw(args, layout, memory, label, hw) if pictures else None  # errors before output
    print(text)
    if fig is not None:
        _save(fig, pictures)
    return 0


def _draw(args: argparse.Namespace, layout, memory, label, hw):
    """The figure of a layout picture (``--picture layout``, ``tv`` or ``copy``)."""
    from ..hardware.kinds import is_distributed
    from ..show.pictures import draw_layout

    hierarchy = args.hierarchy or (None if is_distributed(layout) else _cute_text(args.file))
    if args.picture == "tv":
        from ..show.tv_pictures import draw_tv

        return draw_tv(layout, label=label, color_by=args.color_by or "thread", memory=memory,
                       element_bits=args.element_bits, warp=args.warp,
                       hierarchy=args.hierarchy, **hw)
    if args.picture == "copy":
        from ..show.copy_picture import draw_copy

        return draw_copy(layout, memory, element_bits=args.element_bits,
                         instruction=args.instruction, **hw)
    fig = draw_layout(layout, element_bits=args.element_bits, **hw)
    if hierarchy:
        from ..show.tv_pictures import add_hierarchy

        add_hierarchy(fig.axes[0], layout, hierarchy)
    return fig


def _save(fig, paths: list[str]) -> None:
    from ..show.pictures import save

    for path in paths:
        save(fig, path)
        print(f"wrote {path}")


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``show`` subcommand."""
    sh = sub.add_parser("show", help="print a layout as a grid (and draw it: --png/--svg)",
                        description="A distributed layout (in dims among register, lane, warp, "
                                    "block) shows lane:register per element; a shared-memory "
                                    "layout (offset or vector/bank/segment) shows its offset "
                                    "formula and offset/bank per element. --png/--svg also "
                                    "draw it (--picture: layout, tv, mma or copy); they "
                                    "need matplotlib: pip install \"linlayout[plot]\".")
    sh.add_argument("file", metavar="FILE",
                    help="JSON layout file, CuTe atom name or CuTe layout text (with "
                         "--picture mma: an MMA atom name, e.g. sm80_16x8x16)")
    sh.add_argument("--element-bits", type=int, default=32, metavar="N",
                    help="bits per element for memory layouts (default 32)")
    sh.add_argument("--png", metavar="OUT", help="also draw the layout into this PNG file")
    sh.add_argument("--svg", metavar="OUT", help="also draw the layout into this SVG file")
    sh.add_argument("--picture", choices=PICTURES, default="layout",
                    help="layout: the grid and its F2 matrix (default); tv: a CUTLASS-style "
                         "thread/value grid; mma: A, B and C of an MMA atom; copy: FILE "
                         "copied into --memory, the first instruction outlined by wavefront")
    sh.add_argument("--memory", metavar="MEM",
                    help="the shared-memory layout (for --picture copy and --color-by bank)")
    sh.add_argument("--label", choices=("tv", "t:r", "none"), default=None,
                    help="tv/mma cell labels: T<thread>V<value> (default), thread:value, "
                         "or none")
    sh.add_argument("--color-by", choices=("thread", "lane", "warp", "bank"), default=None,
                    help="tv/mma cell colour (default thread; bank needs --memory)")
    sh.add_argument("--warp", type=int, metavar="N",
                    help="tv: zoom to the cells warp N holds (the others grey)")
    sh.add_argument("--hierarchy", metavar="CUTE",
                    help="draw the lines of this CuTe layout's nested modes (default for CuTe "
                         "text FILE: its own)")
    sh.add_argument("--instruction", metavar="INSTR",
                    help="copy: the instruction (default ld/st.shared; ldmatrix.x4, "
                         "stmatrix.x2.trans, …)")
    add_hardware_args(sh)
    sh.set_defaults(func=run)
