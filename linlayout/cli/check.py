"""``linlayout check``: bank conflicts of every shared-memory access in TTGIR files.

Reads Triton GPU IR (``kernel.asm["ttgir"]``, ``MLIR_ENABLE_DUMP=1`` output), lists each
``local_alloc`` with a value, ``local_store``, ``local_load``, ``async_copy_global_to_local``
and ``convert_layout`` with its conflict degree and wavefronts, and suggests a conflict-free
shared layout (Triton attribute text) for buffers that conflict. Exit status 1 when an access
exceeds ``--max-degree``; 2 on unreadable input.
"""

from __future__ import annotations

import argparse

from .common import CliError, add_hardware_args, dumps, hardware_kwargs, table


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise CliError(f"cannot read TTGIR file {path!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CliError(f"TTGIR file {path!r} is not UTF-8 text: {exc.reason}") from None


def _cell(v) -> str:
    return "-" if v is None else str(v)


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    from ..triton.analysis import check_module
    from ..triton.ttgir import read_ttgir

    if args.max_degree < 1:
        raise CliError(f"--max-degree must be at least 1, got {args.max_degree}")
    results = []
    for path in args.files:
        module = read_ttgir(_read(path), path)
        reports = check_module(module, **hardware_kwargs(args))
        results.append((path, reports))
    worst = max((r.degree for _, reps in results for r in reps if r.degree is not None),
                default=1)
    ok = worst <= args.max_degree
    if args.json:
        ops = []
        for path, reps in results:
            for r in reps:
                d = {"file": path}
                d.update(r.to_dict())
                ops.append(d)
        print(dumps({"ops": ops, "max_degree": args.max_degree, "worst_degree": worst,
                     "ok": ok}))
        return 0 if ok else 1
    for n, (path, reps) in enumerate(results):
        if n:
            print()
        print(path)
        if not reps:
            print("  no shared-memory accesses")
            continue
        rows = []
        for r in reps:
            a = r.access
            flag = ""
            if r.degree is not None and r.degree > args.max_degree:
                flag = "FAIL"
            elif r.degree is None and r.note:
                flag = "no smem" if "no shared memory" in r.note else "skipped"
            rows.append((a.line, a.op, _cell(a.result), _cell(a.memdesc), a.element_type,
                         _cell(r.vector_elems), _cell(r.degree), _cell(r.instructions_per_warp),
                         _cell(r.wavefronts_per_warp), _cell(r.wavefront_floor), flag))
        print(table(("line", "op", "result", "memdesc", "type", "vector (elems)", "degree",
                     "instr/warp", "wavefronts/warp", "floor (wavefronts)", "status"), rows))
        seen = set()
        for r in reps:
            a = r.access
            if r.suggestion and (a.root, r.suggestion) not in seen:
                seen.add((a.root, r.suggestion))
                print(f"  suggestion for {a.root or a.memdesc} (line {a.line}): {r.suggestion}"
                      f"  -> worst degree {r.suggestion_degree}")
            elif r.degree is not None and r.degree > 1 and not r.suggestion and r.note:
                print(f"  line {a.line}: {r.note}")
            elif r.degree is None and r.note.startswith("not analysed"):
                print(f"  line {a.line}: {r.note}")
    word = "ok" if ok else "FAIL"
    cmp = "<=" if ok else ">"
    print(f"{word}: worst degree {worst} {cmp} --max-degree {args.max_degree}")
    return 0 if ok else 1


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    c = sub.add_parser(
        "check", help="bank conflicts of every shared-memory access in TTGIR files",
        description="Exit status 1 when an access exceeds --max-degree, 2 on unreadable "
                    "input.")
    c.add_argument("files", nargs="+", metavar="FILE", help="TTGIR (Triton GPU IR) text")
    c.add_argument("--max-degree", type=int, default=1, metavar="K",
                   help="largest acceptable conflict degree (default 1: conflict-free)")
    add_hardware_args(c)
    c.add_argument("--json", action="store_true", help="machine-readable output")
    c.set_defaults(func=run)

