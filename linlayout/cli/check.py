"""``linlayout check``: the shared-memory instructions Triton emits for every op of TTGIR files,
their exact bank conflicts, and better layouts.

Reads Triton GPU IR (``kernel.asm["ttgir"]`` or ``MLIR_ENABLE_DUMP=1`` output: the last TTGIR
section, or the one ``--pass NAME`` picks) and reports, per op, the instructions Triton 3.9
emits (PTX or AMDGCN spelling, count per thread, vector), their conflict degree and wavefronts
per warp, the op's Python source line, and whole-kernel totals; buffers that conflict get a
better Triton layout, converts get ``synthesize_swizzle``'s scratch layout beside Triton's.
The hardware model follows ``ttg.target`` (``--hardware`` overrides). An op whose emitted
instruction is illegal on its buffer (a vector misaligned by padding, or with a padding gap
inside) is ``MISALIGNED`` and fails the run; lane accesses the bank counter cannot count are
``not counted`` and, with ops that could not be analysed, make the verdict ``incomplete``
(never ``ok``). Exit status 1 when an access exceeds ``--max-degree`` or an op is misaligned
(with ``--strict`` also when the run is incomplete); 2 when a file cannot be read (the
others are still reported).
"""

from __future__ import annotations

import argparse
import sys

from .common import CliError


def _hardware(args: argparse.Namespace):
    from ..hardware import PRESETS

    if args.hardware is None and args.num_banks is None and args.bank_bytes is None:
        return None
    model = PRESETS[args.hardware or "NVIDIA"]
    if args.num_banks is not None or args.bank_bytes is not None:
        model = model.with_banks(num_banks=args.num_banks, bank_bytes=args.bank_bytes)
    return model


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (usage errors raise CliError)."""
    from ..check import FileError, check_files, passes, render_json, render_text

    if args.max_degree < 1:
        raise CliError(f"--max-degree must be at least 1, got {args.max_degree}")
    results = check_files(args.files, hardware=_hardware(args), pass_name=args.pass_name)
    errors = [r for r in results if isinstance(r, FileError)]
    for e in errors:
        print(f"linlayout: error: {e.message}", file=sys.stderr)
    if args.pass_name is not None:
        for r in results:
            if not isinstance(r, FileError) and r.section is None:
                print(f"linlayout: note: {r.file} is one TTGIR module, not MLIR_ENABLE_DUMP "
                      f"output; --pass {args.pass_name} does not apply to it",
                      file=sys.stderr)
    ok = passes(results, args.max_degree, args.strict)
    text = render_json(results, args.max_degree, args.strict) if args.json else \
        render_text(results, args.max_degree, args.strict)
    if text:
        print(text)
    return 2 if errors else (0 if ok else 1)


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    from ..hardware import PRESETS

    c = sub.add_parser(
        "check", help="shared- and global-memory instructions of every op in TTGIR files, "
                      "with their bank conflicts and sectors",
        description="Exit status 1 when an access exceeds --max-degree or an op is "
                    "MISALIGNED (an instruction Triton emits has a misaligned address or a "
                    "padding gap inside a vector: the code faults or moves wrong data), 2 when "
                    "a file cannot be read (the other files are still reported). Lane "
                    "accesses the bank counter cannot count are shown as 'not counted'; with "
                    "ops that could not be analysed they make the verdict 'incomplete' (never "
                    "'ok'), exit status 0 unless --strict.")
    c.add_argument("files", nargs="+", metavar="FILE",
                   help="TTGIR (Triton GPU IR) text or MLIR_ENABLE_DUMP=1 output")
    c.add_argument("--max-degree", type=int, default=1, metavar="K",
                   help="largest acceptable conflict degree (default 1: conflict-free)")
    c.add_argument("--pass", dest="pass_name", default=None, metavar="NAME",
                   help="in a MLIR_ENABLE_DUMP file, analyse the last section whose pass name "
                        "contains NAME (default: the last TTGIR section)")
    c.add_argument("--hardware", choices=sorted(PRESETS), default=None,
                   help="bank model (default: from the module's ttg.target: NVIDIA, "
                        "AMD_CDNA3 for gfx942, AMD_CDNA4 for gfx950)")
    c.add_argument("--num-banks", type=int, default=None, metavar="N",
                   help="banks per row (default: the model's)")
    c.add_argument("--bank-bytes", type=int, default=None, metavar="N",
                   help="bytes per bank word (default: the model's)")
    c.add_argument("--strict", action="store_true",
                   help="also fail (exit status 1) when a lane access could not be counted "
                        "or an op could not be analysed (the verdict says 'incomplete')")
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)
