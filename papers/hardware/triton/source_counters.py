"""Per-instruction shared-memory counters of Triton kernels, from Nsight Compute's source page.

``investigate_on_gpu.sh`` profiles chosen kernels with ``--section SourceCounters`` and prints
the report's source page as CSV (``ncu --import R --page source --csv --print-source sass``):
one block per profiled launch, headed by ``"Kernel Name","<function>"``, then one row per SASS
instruction with its ``Instructions Executed`` (warp-level), ``L1 Wavefronts Shared`` and
``L1 Wavefronts Shared Ideal``. The blocks name the CUDA function (``k_max1``), which several
cases share, so the case names are given in launch order::

    python3 source_counters.py CSV CASE [CASE ...] [--out source_counters.json]

merges, per case, the shared-memory instructions (``LDS``/``STS``/``LDSM``/``STSM``: SASS text,
warps that executed it, wavefronts, ideal wavefronts) and their sums by side into ``--out``.
``compare.py`` reads that file: where the whole-kernel pipe counters exceed check's prediction
but every instruction's own wavefronts sum to it exactly, the excess is on no instruction.
Standard library only.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOADS, STORES = ("LDS", "LDSM"), ("STS", "STSM")


def _num(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def blocks(text: str) -> list[tuple[str, list[dict]]]:
    """``[(function, rows), …]`` in launch order; each row a dict of the CSV's columns."""
    out = []
    for part in text.split('"Kernel Name",')[1:]:
        head, _, body = part.partition("\n")
        name = head.strip().strip(",").strip('"')
        rows = list(csv.DictReader(io.StringIO(body)))
        out.append((name, rows))
    return out


def shared_rows(rows: list[dict]) -> dict:
    """The shared-memory instructions of one launch and their sums by side."""
    instrs = []
    sums = {"load": 0, "store": 0, "load_ideal": 0, "store_ideal": 0,
            "instructions_load": 0, "instructions_store": 0}
    for r in rows:
        sass = (r.get("Source") or "").strip()
        op = sass.split()[0] if sass else ""
        if op.startswith("@"):
            op = sass.split()[1]
        base = op.split(".")[0]
        side = "load" if base in LOADS else "store" if base in STORES else None
        if side is None:
            continue
        e = {"sass": sass, "side": side,
             "executed": _num(r.get("Instructions Executed", "0")),
             "wavefronts": _num(r.get("L1 Wavefronts Shared", "0")),
             "ideal": _num(r.get("L1 Wavefronts Shared Ideal", "0"))}
        instrs.append(e)
        sums[side] += e["wavefronts"]
        sums[side + "_ideal"] += e["ideal"]
        sums["instructions_" + side] += e["executed"]
    return {"instructions": instrs, "sums": sums}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("csv", type=Path)
    ap.add_argument("cases", nargs="+", help="case names in launch order")
    ap.add_argument("--out", type=Path, default=HERE / "source_counters.json")
    args = ap.parse_args(argv)
    found = blocks(args.csv.read_text(encoding="utf-8"))
    if len(found) != len(args.cases):
        print(f"source_counters.py: {len(found)} launches in the CSV, {len(args.cases)} "
              "case names given", file=sys.stderr)
        return 2
    doc = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    for case, (function, rows) in zip(args.cases, found):
        doc[case] = {"function": function, **shared_rows(rows)}
    args.out.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {len(found)} cases to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
