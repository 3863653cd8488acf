"""``linlayout synthesize``: the optimal shared-memory layout for a store/load pair."""

from __future__ import annotations

import argparse

from .. import examples
from ..formula import offset_formula
from ..ptx import match_tma_mode
from ..swizzle import SwizzleResult, synthesize_swizzle
from .common import CliError, add_hardware_args, dumps, load_layout, table


#: Display names of tensor dims for built-in examples (the article calls them m and n).
EXAMPLE_NAMES = {"transpose": {"dim0": "m", "dim1": "n"}}


def _synthesize_text(title: str, result: SwizzleResult, formula: str,
                     tma_line: str | None = None) -> str:
    rows = [
        (side, rep.vector_elems, rep.degree, rep.wavefronts)
        for side, rep in (("store", result.store), ("load", result.load))
    ]
    b = result.bound
    if result.optimal:
        verdict = "proven optimal: yes"
    else:
        verdict = (f"proven optimal: no (lower bound: vector {b.vector_elems}, store degree "
                   f"{b.store_degree}, load degree {b.load_degree})")
    return "\n".join([
        title,
        "",
        "shared-memory layout (offset bits -> tensor coordinates):",
        str(result.layout),
        "",
        formula,
        *([tma_line] if tma_line else []),
        "",
        table(("side", "vector", "degree", "wavefronts"), rows),
        "",
        verdict,
        f"bound: {b.argument}",
    ])


def run(args: argparse.Namespace) -> int:
    if args.src or args.dst:
        if args.example:
            raise CliError("give either --example or --src/--dst, not both")
        if not (args.src and args.dst):
            raise CliError("--src and --dst go together: give both layout files")
        if args.element_bits is None:
            raise CliError("--element-bits is required with --src/--dst (e.g. 16 for fp16)")
        store = load_layout(args.src, "--src")
        load = load_layout(args.dst, "--dst")
        element_bits = args.element_bits
        names = None
        title = f"synthesize: store {args.src}, load {args.dst}, {element_bits}-bit elements"
        example = None
    else:
        example = args.example or examples.DEFAULT
        ex = examples.get(example)
        store, load = ex.store, ex.load
        element_bits = ex.element_bits if args.element_bits is None else args.element_bits
        names = EXAMPLE_NAMES.get(example)
        title = f"example {example} ({element_bits}-bit elements): {ex.description}"
    result = synthesize_swizzle(store, load, element_bits=element_bits,
                                num_banks=args.num_banks, bank_bytes=args.bank_bytes)
    formula = offset_formula(result.layout, names)
    tma = match_tma_mode(result.layout, element_bits)
    if args.json:
        out = result.to_dict()
        out["formula"] = formula
        out["tma_mode"] = tma.to_dict() if tma else None
        if example is not None:
            out["example"] = example
        print(dumps(out))
    else:
        # Only a positive note: "not realisable" would be noise for most synthesized layouts
        # (the JSON always carries "tma_mode", null when no TMA mode writes the layout).
        print(_synthesize_text(title, result, formula, tma.describe() if tma else None))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``synthesize`` subcommand."""
    s = sub.add_parser("synthesize", help="optimal shared-memory layout for a store/load pair",
                       description="Without arguments: the built-in example "
                                   f"{examples.DEFAULT!r}.")
    s.add_argument("--example", metavar="NAME", help="built-in example (see `linlayout examples`)")
    s.add_argument("--src", metavar="FILE", help="JSON layout of the store (distributed)")
    s.add_argument("--dst", metavar="FILE", help="JSON layout of the load (distributed)")
    s.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element (required with --src/--dst; overrides the example's)")
    add_hardware_args(s)
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=run)
