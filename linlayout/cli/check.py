"""``linlayout check``: the shared-memory instructions Triton emits for every op of TTGIR files,
their exact bank conflicts, and better layouts.

Reads Triton GPU IR (``kernel.asm["ttgir"]`` or ``MLIR_ENABLE_DUMP=1`` output: the last TTGIR
section, or the one ``--pass NAME`` picks) and reports, per op, the instructions Triton 3.9
emits (PTX or AMDGCN spelling, count per thread, vector), their conflict degree and wavefronts
per warp, the op's Python source line, and whole-kernel totals; buffers that conflict get a
better Triton layout, converts get ``synthesize_swizzle``'s scratch layout beside Triton's.
The hardware model follows ``ttg.target`` (``--hardware`` overrides). Exit status 1 when an
access exceeds ``--max-degree``; 2 when a file cannot be read (the others are still reported).
"""

from __future__ import annotations

import argparse
import sys

from .common import CliError, dumps, one_line, table


def _cell(v) -> str:
    return "-" if v is None else str(v)


def _hardware(args: argparse.Namespace):
    from ..hardware import PRESETS

    if args.hardware is None and args.num_banks is None and args.bank_bytes is None:
        return None
    model = PRESETS[args.hardware or "NVIDIA"]
    if args.num_banks is not None or args.bank_bytes is not None:
        model = model.with_banks(num_banks=args.num_banks, bank_bytes=args.bank_bytes)
    return model


def _check_file(path: str, args: argparse.Namespace, hardware):
    from ..errors import LayoutError
    from ..triton.analysis import check_module
    from ..triton.lowering.ops import module_target
    from ..triton.report import file_report
    from ..triton.ttgir import read_ttgir

    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as exc:
        return {"file": path, "error": f"cannot read TTGIR file {path!r}: "
                                       f"{exc.strerror or exc}"}, None
    except UnicodeDecodeError as exc:
        return {"file": path, "error": f"TTGIR file {path!r} is not UTF-8 text: "
                                       f"{exc.reason}"}, None
    try:
        module = read_ttgir(text, path, pass_name=args.pass_name)
        reports = check_module(module, hardware=hardware)
        hw = hardware or module_target(module).hardware()
    except LayoutError as exc:
        return {"file": path, "error": one_line(exc)}, None
    return file_report(path, module, reports, hw), reports


def _print_text(entry: dict, reports, max_degree: int) -> None:
    print(f"{entry['file']}  (target {entry['target'] or '-'}, {entry['hardware']}"
          + (f", {entry['section']}" if entry["section"] else "") + ")")
    if not reports:
        print("  no shared-memory accesses")
        return
    rows = []
    for r in reports:
        a = r.access
        flag = ""
        if r.degree is not None and r.degree > max_degree:
            flag = "FAIL"
        elif r.note.startswith("not analysed"):
            flag = "skipped"
        elif not r.uses_shared:
            flag = "no smem"
        ins = r.instructions or ()
        if not ins:
            rows.append((a.line, _cell(a.source), a.op, "-", "-", "-", _cell(r.degree), "-",
                         "-", flag))
            continue
        for k, i in enumerate(ins):
            e = i.emitted
            rep = i.report
            count = f" x{e.per_thread}" if e.per_thread is not None else ""
            rows.append((a.line if k == 0 else "", _cell(a.source) if k == 0 else "",
                         a.op if k == 0 else "", f"{e.opcode}{count}",
                         _cell(e.vector_elems), a.element_type if k == 0 else "",
                         _cell(rep.degree if rep else None),
                         _cell(rep.instructions_per_warp if rep else None),
                         _cell(rep.wavefronts_per_warp if rep else None),
                         flag if k == 0 else ""))
    print(table(("line", "source", "op", "instruction x per thread", "vector (elems)", "type",
                 "degree", "instr/warp", "wavefronts/warp", "status"), rows))
    seen = set()
    for r in reports:
        a = r.access
        if r.suggestion and (a.root, r.suggestion) not in seen:
            seen.add((a.root, r.suggestion))
            print(f"  suggestion for {a.root or a.memdesc} (line {a.line}): {r.suggestion}"
                  f"  -> worst degree {r.suggestion_degree}")
        if r.suggestion and r.suggestion_instructions:
            now = ", ".join(f"{i.emitted.opcode} x{i.emitted.per_thread}"
                            for i in r.instructions)
            then = ", ".join(f"{e.opcode} x{e.per_thread}" for e in r.suggestion_instructions)
            if now != then:
                print(f"    line {a.line} would become {then} (now {now})")
        elif r.degree is not None and r.degree > 1 and not r.suggestion and r.note:
            print(f"  line {a.line}: {r.note}")
        elif r.degree is None and r.note.startswith("not analysed"):
            print(f"  line {a.line}: {r.note}")
        alt = r.alternative
        if alt and alt["saving"]["wavefronts_per_warp"] > 0:
            print(f"  line {a.line} convert: Triton's scratch costs {r.wavefronts_per_warp} "
                  f"wavefronts / {r.instructions_per_warp} instructions per warp; "
                  f"synthesize_swizzle's {alt['wavefronts_per_warp']} / "
                  f"{alt['instructions_per_warp']} (saves "
                  f"{alt['saving']['wavefronts_per_warp']} wavefronts)")
    t = entry["totals"]
    per = ", ".join(f"{k} x{v}" for k, v in t["per_thread"].items()) or "-"
    b = t["shared_bytes_per_thread"]
    print(f"  totals per thread: {per}; shared bytes per thread: load {b['load']}, "
          f"store {b['store']}")
    print(f"  totals per warp: {t['instructions_per_warp']} instructions, "
          f"{t['wavefronts_per_warp']} wavefronts (floor {t['wavefront_floor']})")


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (usage errors raise CliError)."""
    if args.max_degree < 1:
        raise CliError(f"--max-degree must be at least 1, got {args.max_degree}")
    hardware = _hardware(args)
    entries = [_check_file(p, args, hardware) for p in args.files]
    errors = [e for e, _ in entries if "error" in e]
    good = [(e, r) for e, r in entries if "error" not in e]
    worst = max((r.degree for _, reps in good for r in reps if r.degree is not None), default=1)
    ok = worst <= args.max_degree
    for e in errors:
        print(f"linlayout: error: {e['error']}", file=sys.stderr)
    status = 2 if errors else (0 if ok else 1)
    if args.json:
        ops = []
        for e, _ in good:
            for op in e["ops"]:
                ops.append({"file": e["file"], **op})
        print(dumps({"files": [e for e, _ in entries], "ops": ops,
                     "max_degree": args.max_degree, "worst_degree": worst, "ok": ok,
                     "errors": len(errors)}))
        return status
    if not good:
        return status
    for n, (e, reps) in enumerate(good):
        if n:
            print()
        _print_text(e, reps, args.max_degree)
    word = "ok" if ok else "FAIL"
    cmp = "<=" if ok else ">"
    tail = f"; {len(errors)} file(s) could not be read" if errors else ""
    print(f"{word}: worst degree {worst} {cmp} --max-degree {args.max_degree}{tail}")
    return status


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    from ..hardware import PRESETS

    c = sub.add_parser(
        "check", help="shared-memory instructions and bank conflicts of every op in TTGIR files",
        description="Exit status 1 when an access exceeds --max-degree, 2 when a file cannot "
                    "be read (the other files are still reported).")
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
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)
