"""``linlayout conflicts``: bank conflicts of one warp access, with a CI exit code."""

from __future__ import annotations

import argparse

from ..conflicts import bank_conflicts
from ..layout import LinearLayout
from .common import CliError, add_hardware_args, dumps, hardware_kwargs, load_layout, table


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    layout = load_layout(args.layout, "--layout", args.element_bits)
    memory = load_layout(args.memory, "--memory", args.element_bits)
    note = None
    if layout.out_dims != memory.out_dims and set(layout.out_dims) == set(memory.out_dims) and \
            all(s <= memory.out_dims[n] for n, s in layout.out_dims.items()):
        # a warp's tile (e.g. an MMA atom) inside a larger shared-memory tile: at its origin
        note = (f"the layout covers {list(layout.out_dims.values())} of the memory's "
                f"{[memory.out_dims[n] for n in layout.out_dims]}: counted at the tile's origin")
        layout = LinearLayout(layout.bases, out_dims={n: memory.out_dims[n]
                                                      for n in layout.out_dim_names})
    if args.max_degree < 1:
        raise CliError(f"--max-degree must be at least 1, got {args.max_degree}")
    rep = bank_conflicts(layout, memory, element_bits=args.element_bits,
                         **hardware_kwargs(args), instruction=args.instruction,
                         vector_elems=args.vector_elems)
    ok = rep.degree <= args.max_degree
    if args.json:
        out = rep.to_dict()
        out["max_degree"] = args.max_degree
        out["ok"] = ok
        if note:
            out["note"] = note
        print(dumps(out))
    else:
        print(table(
            ("instruction", "vector (elems)", "degree", "phases", "lanes/phase",
             "wavefronts/instr", "instr/warp", "wavefronts/warp", "floor (wavefronts)",
             "bytes/warp"),
            [(rep.instruction, rep.vector_elems, rep.degree, rep.phases, rep.lanes_per_phase,
              rep.wavefronts_per_instruction, rep.instructions_per_warp,
              rep.wavefronts_per_warp, rep.wavefront_floor, rep.bytes_per_warp)],
        ))
        if note:
            print(f"note: {note}")
        word = "ok" if ok else "FAIL"
        cmp = "<=" if ok else ">"
        print(f"{word}: degree {rep.degree} {cmp} --max-degree {args.max_degree}")
    return 0 if ok else 1


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
                        "('Sw<3,4,3> o _0 o (_64,_64):(_64,_1)')")
    c.add_argument("--element-bits", type=int, required=True, metavar="N")
    add_hardware_args(c)
    c.add_argument("--instruction", metavar="NAME",
                   help="ld.shared/st.shared (default), ldmatrix/stmatrix.x{1,2,4}[.trans], or an "
                        "AMD LDS instruction (ds_read_b128, ds_read2_b64, ds_read_b64_tr_b16, "
                        "global_load_lds_dwordx4, …; with --hardware AMD_CDNA3/AMD_CDNA4)")
    c.add_argument("--vector-elems", type=int, metavar="N",
                   help="elements per lane per access (default: widest the layouts allow)")
    c.add_argument("--max-degree", type=int, default=1, metavar="K",
                   help="largest acceptable conflict degree (default 1: conflict-free)")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)
