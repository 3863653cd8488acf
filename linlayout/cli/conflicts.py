"""``linlayout conflicts``: bank conflicts of one warp access, with a CI exit code."""

from __future__ import annotations

import argparse
import os
import sys

from ..cute import byte_swizzle_hint
from ..show.conflicts import conflict_verdict
from .common import (PROG, CliError, add_hardware_args, check_roles, dumps, hardware_kwargs,
                     load_layout)


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    layout = load_layout(args.layout, "--layout", args.element_bits)
    memory = load_layout(args.memory, "--memory", args.element_bits, padded=True)
    check_roles({"--layout": (args.layout, layout)}, ("--memory", args.memory, memory))
    if args.max_degree < 1:
        raise CliError(f"--max-degree must be at least 1, got {args.max_degree}")
    verdict = conflict_verdict(layout, memory, element_bits=args.element_bits,
                               max_degree=args.max_degree, **hardware_kwargs(args),
                               instruction=args.instruction, vector_elems=args.vector_elems,
                               explain=args.explain)
    print(dumps(verdict.to_dict()) if args.json else verdict.to_text())
    if not verdict.ok and not os.path.isfile(args.memory):
        hint = byte_swizzle_hint(args.memory, args.element_bits)
        if hint:
            print(f"{PROG}: hint: {hint}", file=sys.stderr)
    return 0 if verdict.ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``conflicts`` subcommand."""
    c = sub.add_parser("conflicts", help="bank conflicts of one warp access",
                       description="Exit status 1 when the degree exceeds --max-degree.")
    c.add_argument("--layout", required=True, metavar="FILE",
                   help="distributed layout: JSON file, CuTe atom name (sm80_16x8x16.A) or "
                        "CuTe TV text ending in 'on MxN'; a smaller tile is counted at the "
                        "memory's origin")
    c.add_argument("--memory", required=True, metavar="FILE",
                   help="shared-memory layout: JSON file or CuTe text "
                        "('Sw<3,4,3> o _0 o (_64,_64):(_64,_1)'; padded strides such as "
                        "'(_64,_64):(_72,_1)' count as #ttg.padded_shared)")
    c.add_argument("--element-bits", type=int, required=True, metavar="N",
                   help="bits per element (16 for fp16/bf16, 32 for fp32); CuTe text and "
                        "layout files count offsets in elements of this size")
    add_hardware_args(c)
    c.add_argument("--instruction", metavar="NAME",
                   help="ld.shared (a load: wide loads whose lanes n, n^1 or n, n^2 share an "
                        "address are served with their return packed), st.shared; default: "
                        "direction unstated, counted as a store; ldmatrix/stmatrix.x{1,2,4}"
                        "[.trans], or an "
                        "AMD LDS instruction (ds_read_b128, ds_read2_b64, ds_read_b64_tr_b16, "
                        "global_load_lds_dwordx4, …; with --hardware AMD_CDNA3/AMD_CDNA4)")
    c.add_argument("--vector-elems", type=int, metavar="N",
                   help="elements per lane per access (default: widest the layouts allow)")
    c.add_argument("--max-degree", type=int, default=1, metavar="K",
                   help="largest acceptable conflict degree (default 1: conflict-free)")
    c.add_argument("--explain", action="store_true",
                   help="also say why: per phase the lanes, the worst bank's words and the "
                        "colliding offset bits (after the table; under \"explain\" in --json)")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)
