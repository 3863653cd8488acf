"""``linlayout convert``: every way to convert a tensor between two distributed layouts."""

from __future__ import annotations

import argparse

from ..conversion import DEFAULT_WEIGHTS, plan_conversion
from ..errors import LayoutError
from ..layout import LinearLayout
from ..show.conversion import conversion_report
from ..triton import parse_type
from .common import (CliError, add_hardware_args, check_roles, dumps, hardware_kwargs,
                     load_layout)


def _layout(text: str, flag: str, element_bits: int | None) -> tuple[LinearLayout, int | None]:
    """A layout argument and the element bits it implies: a Triton tensor type
    (``tensor<64x64xf16, #ttg.blocked<{…}>>``, its element type giving the bits) or what
    :func:`~linlayout.cli.common.load_layout` reads."""
    if text.lstrip().startswith("tensor<"):
        try:
            t = parse_type(text)
            return t.layout, t.element_bits
        except LayoutError as exc:
            raise CliError(f"{flag}: {exc}") from None
    layout = load_layout(text, flag, element_bits)
    check_roles({flag: (text, layout)})
    return layout, None


def _weights(items: list[str] | None) -> dict[str, float]:
    """``--weight KIND=W`` arguments as a mapping."""
    out: dict[str, float] = {}
    for item in items or []:
        kind, sep, value = item.partition("=")
        try:
            if not sep:
                raise ValueError
            out[kind.strip()] = float(value)
        except ValueError:
            raise CliError(f"--weight takes KIND=NUMBER (e.g. bar.sync=20), got {item!r}") \
                from None
    return out


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    src, src_bits = _layout(args.src, "--src", args.element_bits)
    dst, dst_bits = _layout(args.dst, "--dst", args.element_bits)
    bits = args.element_bits
    if bits is None:
        if src_bits is not None and dst_bits is not None and src_bits != dst_bits:
            raise CliError(f"--src holds {src_bits}-bit and --dst {dst_bits}-bit elements; "
                           "a conversion keeps the element type (give --element-bits)")
        bits = src_bits if src_bits is not None else dst_bits
    if bits is None:
        raise CliError("--element-bits is required unless a layout is a Triton tensor type "
                       "(e.g. 16 for fp16)")
    plan = plan_conversion(src, dst, bits, **hardware_kwargs(args),
                           weights=_weights(args.weight), target=args.target,
                           wide_source=args.wide_source)
    title = f"convert: {args.src} -> {args.dst}, {bits}-bit elements"
    report = conversion_report(plan, title)
    print(dumps(report.to_dict()) if args.json else report.to_text())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``convert`` subcommand."""
    c = sub.add_parser("convert", help="plan a layout conversion: registers, shuffles or "
                                       "shared memory, each costed with its bound",
                       description="Every path that converts a tensor from --src to --dst "
                                   "(register renaming, warp shuffles, a shared-memory round "
                                   "trip), its instructions per thread, wavefronts, scratch "
                                   "bytes, barriers, weighted cost and lower bound, and the "
                                   "cheapest.")
    forms = ("a Triton tensor type ('tensor<64x64xf16, #ttg.blocked<{...}>>'), a JSON layout "
             "file, a CuTe atom name or CuTe TV text ending in 'on MxN'")
    c.add_argument("--src", metavar="LAYOUT", required=True,
                   help=f"the layout the tensor is in: {forms}")
    c.add_argument("--dst", metavar="LAYOUT", required=True, help="the layout it must end in")
    c.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element: 8, 16, 32 or 64 (default: the tensor type's)")
    c.add_argument("--weight", metavar="KIND=W", action="append",
                   help="override one cost weight, e.g. bar.sync=20; kinds: "
                        + ", ".join(DEFAULT_WEIGHTS))
    add_hardware_args(c)
    c.add_argument("--target", metavar="TARGET", default=None,
                   help="Triton target whose own path is costed beside the plan: cuda:80, "
                        "cuda:90, cuda:100, hip:gfx942, hip:gfx950 (default: the hardware "
                        "preset's, cuda:90 for NVIDIA)")
    c.add_argument("--wide-source", action="store_true",
                   help="the source's 8/16-bit elements sit one to a 32-bit register, as a "
                        "gather or a redux.sync reduction leaves them: packing them is "
                        "priced on every path (NVIDIA: a prmt per word of two 16-bit "
                        "elements), Triton's included")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)
