"""Interleaved A/B timing of two checkouts: is a refactor free?

Run from the repository root:

    python benchmarks/compare_checkouts.py --base REV [--rounds 3]

checks ``REV`` out into a temporary git worktree and times, alternately in fresh processes
(``PYTHONPATH`` pointing at each checkout), three jobs on the same inputs:

* ``synthesize``: cold ``synthesize_swizzle`` (its result cache emptied before each call) on
  the ``convert_layout`` pairs of every fourth kernel of the Triton corpus and the built-in
  examples;
* ``check``: ``check_module`` on those kernels with every cache emptied first;
* ``bank_conflicts``: 300 calls on the article's column read from a row-major tile.

It prints the minimum over rounds of each job for both checkouts, in milliseconds, and their
ratio. Only public names are used (``check_module`` from ``linlayout.check`` or, in older
checkouts, ``linlayout.triton``), so any two revisions compare. Speed is reported, never
asserted.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The timing job, run in a fresh interpreter inside each checkout.
JOB = r'''
import functools, gc, gzip, json, sys, time
import linlayout as ll
from linlayout import examples
from linlayout.triton import read_ttgir
try:
    from linlayout.check import check_module
except ImportError:  # before linlayout.check existed
    from linlayout.triton import check_module

def clear_all():
    ll.synthesize_swizzle.cache_clear()
    for o in gc.get_objects():
        if isinstance(o, functools._lru_cache_wrapper) and \
                getattr(o, "__module__", "").startswith("linlayout"):
            o.cache_clear()

def ops_of(report):
    return report.ops if hasattr(report, "ops") else report

corpus = json.loads(gzip.decompress(open(sys.argv[1], "rb").read()))["files"]
modules = [read_ttgir(corpus[n]["ttgir"], n) for n in sorted(corpus)[::4]]
pairs = []
for m in modules:
    for op in ops_of(check_module(m, suggest=False)):
        a = op.access
        if a.kind == "convert" and a.distributed is not None and a.destination is not None:
            pairs.append((a.distributed.layout, a.destination.layout, max(8, a.element_bits)))
for name in ("transpose", "blocked-mma", "transpose-128", "gemm-operand"):
    ex = examples.get(name)
    pairs.append((ex.store, ex.load, ex.element_bits))

def synthesize():
    total = 0.0
    for store, load, bits in pairs:
        ll.synthesize_swizzle.cache_clear()
        t0 = time.perf_counter()
        try:
            ll.synthesize_swizzle(store, load, element_bits=bits)
        except ll.LayoutError:
            pass
        total += time.perf_counter() - t0
    return total

def check():
    clear_all()
    t0 = time.perf_counter()
    for m in modules:
        check_module(m)
    return time.perf_counter() - t0

ex = examples.get("transpose")
row_major = ll.LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0],
                                        [4, 0], [8, 0]]}, out_dims={"dim0": 16, "dim1": 32})
def bank():
    t0 = time.perf_counter()
    for _ in range(300):
        ll.bank_conflicts(ex.load, row_major, element_bits=32)
    return time.perf_counter() - t0

print(json.dumps({"synthesize": synthesize(), "check": check(), "bank_conflicts": bank(),
                  "pairs": len(pairs)}))
'''


def run_job(checkout: Path, corpus: Path) -> dict:
    """One timing run in a fresh process with ``checkout`` first on the import path."""
    out = subprocess.run([sys.executable, "-c", JOB, str(corpus)], cwd=checkout,
                         env={"PYTHONPATH": str(checkout), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, help="the revision to compare against (git rev)")
    ap.add_argument("--rounds", type=int, default=3, help="alternations (default 3)")
    args = ap.parse_args(argv)
    corpus = ROOT / "tests" / "data" / "triton_lowering.json.gz"
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base), args.base],
                       cwd=ROOT, check=True)
        try:
            runs: dict[str, list[dict]] = {"base": [], "this": []}
            for _ in range(args.rounds):
                runs["base"].append(run_job(base, corpus))
                runs["this"].append(run_job(ROOT, corpus))
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=ROOT,
                           check=False)
    print(f"{'job':16} {'base ' + args.base[:12]:>20} {'this checkout':>16} {'ratio':>7}")
    for job in ("synthesize", "check", "bank_conflicts"):
        b = min(r[job] for r in runs["base"]) * 1e3
        t = min(r[job] for r in runs["this"]) * 1e3
        print(f"{job:16} {b:17.1f} ms {t:13.1f} ms {t / b:7.3f}")
    print(f"({runs['this'][0]['pairs']} synthesis pairs; minimum of {args.rounds} alternating "
          "rounds, fresh processes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
