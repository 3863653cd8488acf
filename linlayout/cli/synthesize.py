"""``linlayout synthesize``: the optimal shared-memory layout for a store and its loads."""

from __future__ import annotations

import argparse

from .. import examples
from ..show.formula import offset_formula
from ..ptx import match_tma_mode
from ..swizzle import SwizzleResult, synthesize_swizzle
from .common import CliError, add_hardware_args, dumps, hardware_kwargs, load_layout, table


#: Display names of tensor dims for built-in examples (the article calls them m and n).
EXAMPLE_NAMES = {"transpose": {"dim0": "m", "dim1": "n"}}


def _synthesize_text(title: str, result: SwizzleResult, formula: str,
                     tma_line: str | None = None) -> str:
    names = ["load"] if len(result.loads) == 1 else [f"load {i}" for i in range(len(result.loads))]
    sides = [("store", result.store)] + list(zip(names, result.loads))
    plain = all(rep.instruction == "ld/st.shared" for _, rep in sides)
    header = ("side", "vector", "degree", "wavefronts") + (() if plain else ("instruction",))
    rows = [
        (side, rep.vector_elems, rep.degree, rep.wavefronts)
        + (() if plain else (rep.instruction,))
        for side, rep in sides
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
        table(header, rows),
        "",
        verdict,
        f"bound: {b.argument}",
    ])


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    if args.src or args.dst:
        if args.example:
            raise CliError("give either --example or --src/--dst, not both")
        if not (args.src and args.dst):
            raise CliError("--src and --dst go together: give both layout files")
        if args.element_bits is None:
            raise CliError("--element-bits is required with --src/--dst (e.g. 16 for fp16)")
        store = load_layout(args.src, "--src")
        loads = [load_layout(path, "--dst") for path in args.dst]
        load = loads[0] if len(loads) == 1 else loads
        element_bits = args.element_bits
        names = None
        title = (f"synthesize: store {args.src}, load {', '.join(args.dst)}, "
                 f"{element_bits}-bit elements")
        example = None
    else:
        example = args.example or examples.DEFAULT
        ex = examples.get(example)
        store, load = ex.store, ex.load
        element_bits = ex.element_bits if args.element_bits is None else args.element_bits
        names = EXAMPLE_NAMES.get(example)
        title = f"example {example} ({element_bits}-bit elements): {ex.description}"
    result = synthesize_swizzle(store, load, element_bits=element_bits, **hardware_kwargs(args),
                                vectors=args.vectors, instructions=args.instructions,
                                fixed=args.fixed)
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
    s.add_argument("--dst", metavar="FILE", action="append",
                   help="JSON layout of the load (distributed); repeat for several loads")
    s.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element (required with --src/--dst; overrides the example's)")
    add_hardware_args(s)
    s.add_argument("--vectors", choices=("common", "auto", "per_side"), default="common",
                   help="auto/per_side: a side may use a wider vector of its own when that "
                        "lowers the wavefronts (auto) or wavefronts then instructions "
                        "(default common)")
    s.add_argument("--instructions", choices=("auto",), default=None,
                   help="auto: let each side use ldmatrix/stmatrix when that costs less")
    s.add_argument("--fixed", metavar="MODE", default=None,
                   help="only layouts TMA writes with this swizzle mode (none, 32B, 64B, 128B, …)")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=run)
