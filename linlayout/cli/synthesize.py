"""``linlayout synthesize``: the optimal shared-memory layout for a store and its loads."""

from __future__ import annotations

import argparse

from .. import examples
from ..lowering.target import target_for
from ..show.synthesis import synthesis_report
from ..synthesis import Transfer, synthesize_padding, synthesize_swizzle
from .common import (CliError, add_hardware_args, check_roles, dumps, hardware_kwargs,
                     load_layout)


def _instructions(text: str | None, nsides: int) -> object:
    """``--instructions``: None, ``auto``, or one comma-separated entry per side."""
    if text is None or text == "auto":
        return text
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != nsides:
        raise CliError(f"--instructions needs 'auto' or {nsides} comma-separated entries "
                       f"(store first, then each load), got {text!r}")
    return [None if p in ("", "none", "ld/st", "ld/st.shared") else p for p in parts]


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    if args.src or args.dst:
        if args.example:
            raise CliError("give either --example or --src/--dst, not both")
        if not (args.src and args.dst):
            raise CliError("--src and --dst go together: give both layout files")
        if args.element_bits is None:
            raise CliError("--element-bits is required with --src/--dst (e.g. 16 for fp16)")
        store = load_layout(args.src, "--src", args.element_bits)
        loads = [load_layout(path, "--dst", args.element_bits) for path in args.dst]
        for flag, path, layout in [("--src", args.src, store)] + [
                ("--dst", path, L) for path, L in zip(args.dst, loads)]:
            check_roles({flag: (path, layout)})
        load = loads[0] if len(loads) == 1 else loads
        element_bits = args.element_bits
        title = (f"synthesize: store {args.src}, load {', '.join(args.dst)}, "
                 f"{element_bits}-bit elements")
        example = None
    else:
        example = args.example or examples.DEFAULT
        ex = examples.get(example)
        store, load = ex.store, ex.load
        element_bits = ex.element_bits if args.element_bits is None else args.element_bits
        title = None  # the report's: the example's name and description
    nsides = 1 + (len(load) if isinstance(load, list) else 1)
    triton = args.lowering == "triton"
    if args.target is not None:
        # refused before the search, not after it (an empty or AMD-on-NVIDIA --target was
        # an error only once the swizzle and padding searches had run: 12 s)
        target_for(args.target, hardware_kwargs(args)["hardware"])
    result = synthesize_swizzle(store, load, element_bits=element_bits, **hardware_kwargs(args),
                                objective=args.objective, weights=args.weights,
                                instructions=_instructions(args.instructions, nsides),
                                fixed=args.fixed, lowering=args.lowering,
                                target=args.target if triton else None)
    padding = None
    if args.padding:
        padding = synthesize_padding(store, load, element_bits=element_bits,
                                     **hardware_kwargs(args), objective=args.objective,
                                     weights=args.weights)
    transfer = Transfer.make(store, load, element_bits=element_bits, **hardware_kwargs(args),
                             weights=args.weights)
    report = synthesis_report(result, title=title, example=example, padding=padding,
                              transfer=transfer, target=args.target, explain=args.explain)
    print(dumps(report.to_dict()) if args.json else report.to_text())
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``synthesize`` subcommand."""
    s = sub.add_parser("synthesize", help="optimal shared-memory layout for a store/load pair",
                       description="Without arguments: the built-in example "
                                   f"{examples.DEFAULT!r}.")
    s.add_argument("--example", metavar="NAME", help="built-in example (see `linlayout examples`)")
    s.add_argument("--src", metavar="FILE",
                   help="layout of the store (distributed): JSON file, CuTe atom name or CuTe "
                        "TV text ending in 'on MxN'")
    s.add_argument("--dst", metavar="FILE", action="append",
                   help="layout of the load (distributed), same forms; repeat for several loads")
    s.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element (required with --src/--dst; overrides the example's)")
    add_hardware_args(s)
    s.add_argument("--objective", choices=("wavefronts", "instructions"), default="wavefronts",
                   help="minimise total wavefronts per warp, then instructions (default), or "
                        "the other order")
    s.add_argument("--weights", type=int, nargs="+", metavar="W",
                   help="how often each side runs (store first, then each load), e.g. 1 4")
    s.add_argument("--instructions", metavar="auto|S,L,…", default=None,
                   help="auto: each side may use ldmatrix/stmatrix when that costs less; or "
                        "one entry per side: none (ld/st.shared), ldmatrix.x4, stmatrix.x2.trans, "
                        "auto, or tma for a store done by a TMA copy (with --fixed MODE)")
    s.add_argument("--fixed", metavar="MODE", default=None,
                   help="only layouts TMA writes with this swizzle mode (none, 32B, 64B, 128B, …)")
    s.add_argument("--lowering", choices=("hardware", "triton"), default="hardware",
                   help="hardware (default): each side at the widest vector the layout admits; "
                        "triton: each side as Triton 3.9 lowers local_store/local_load through "
                        "the printed layout (stmatrix/ldmatrix where the tile fits), and the "
                        "cheapest layout under that")
    s.add_argument("--target", metavar="TARGET", default=None,
                   help="Triton target for --lowering triton and the Triton cost line: "
                        "cuda:80, cuda:90, cuda:100, hip:gfx942, hip:gfx950 (default: the "
                        "hardware preset's, cuda:90 for NVIDIA)")
    s.add_argument("--padding", action="store_true",
                   help="also search padded layouts (row-major remap + interval:+pad) and report "
                        "the best beside the swizzle, with its memory overhead in bytes")
    s.add_argument("--explain", action="store_true",
                   help="say, for every offset bit, which constraint put it there (a side's "
                        "vector, a bank bit free to choose, a segment bit avoiding or forced "
                        "into a side's phase span)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=run)
