"""``linlayout coalescing``: sectors and lines of one warp's global access, with a CI exit
code."""

from __future__ import annotations

import argparse

from ..layout import LinearLayout
from ..show.coalescing import coalescing_verdict
from .common import CliError, dumps, load_layout

#: The prefix of a ``--memory`` argument that gives strides instead of a layout.
STRIDES_PREFIX = "strides:"


def load_memory(text: str, element_bits: int) -> LinearLayout | tuple[int, ...]:
    """``--memory``: ``strides:S0,S1,…`` (elements, one per tensor dim in the layout's
    out-dim order), else a layout argument (:func:`~linlayout.cli.common.load_layout`)."""
    if text.startswith(STRIDES_PREFIX):
        parts = text[len(STRIDES_PREFIX):].split(",")
        try:
            return tuple(int(p) for p in parts)
        except ValueError:
            raise CliError(f"--memory {text!r}: strides are comma-separated integers, e.g. "
                           "strides:64,1") from None
    return load_layout(text, "--memory", element_bits)


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    layout = load_layout(args.layout, "--layout", args.element_bits)
    memory = load_memory(args.memory, args.element_bits)
    if not 0 < args.min_efficiency <= 1:
        raise CliError(f"--min-efficiency must be in (0, 1], got {args.min_efficiency}")
    verdict = coalescing_verdict(layout, memory, element_bits=args.element_bits,
                                 min_efficiency=args.min_efficiency,
                                 vector_elems=args.vector_elems, sector_bytes=args.sector_bytes,
                                 line_bytes=args.line_bytes,
                                 base_alignment_bytes=args.base_alignment,
                                 lanes_per_warp=args.lanes)
    print(dumps(verdict.to_dict()) if args.json else verdict.to_text())
    return 0 if verdict.ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``coalescing`` subcommand."""
    c = sub.add_parser("coalescing", help="sectors and lines of one warp's global access",
                       description="Exact 32-byte sectors and 128-byte lines a warp's global "
                                   "access touches. Exit status 1 when the efficiency (useful "
                                   "bytes / sector bytes) is below --min-efficiency.")
    c.add_argument("--layout", required=True, metavar="L",
                   help="distributed layout: JSON file, CuTe atom name or CuTe TV text ending "
                        "in 'on MxN'")
    c.add_argument("--memory", required=True, metavar="M",
                   help="where each element sits, in elements: a JSON layout file or CuTe "
                        "text ('(_64,_64):(_64,_1)'), or strides 'strides:64,1' (one per "
                        "tensor dim, in the layout's out-dim order)")
    c.add_argument("--element-bits", type=int, required=True, metavar="N",
                   help="8, 16, 32 or 64")
    c.add_argument("--vector-elems", type=int, metavar="N",
                   help="elements per lane per access (default: widest the layouts allow)")
    c.add_argument("--sector-bytes", type=int, default=32, metavar="N",
                   help="bytes per sector (default 32)")
    c.add_argument("--line-bytes", type=int, default=128, metavar="N",
                   help="bytes per cache line (default 128)")
    c.add_argument("--base-alignment", type=int, default=256, metavar="N",
                   help="the tensor's base is a multiple of N bytes (default 256, cudaMalloc); "
                        "below a line the worst placement is counted")
    c.add_argument("--lanes", type=int, choices=(32, 64), default=32, metavar="N",
                   help="lanes per warp: 32 (NVIDIA, the default) or 64 (an AMD wave64 "
                        "wavefront); one request is one warp's access")
    c.add_argument("--min-efficiency", type=float, default=1.0, metavar="X",
                   help="smallest acceptable efficiency in (0, 1] (default 1.0: every fetched "
                        "sector byte used)")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)
