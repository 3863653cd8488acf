"""Synthesis at its limits: many loads and big padded tiles, and how the time scales.

Run from the repository root:  python benchmarks/bench_limits.py [--quick] [--no-write]

Prints a markdown table (and writes ``benchmarks/LIMITS.md`` unless ``--no-write``):
``synthesize_swizzle`` with the ``transpose-128`` load repeated (identical loads are merged
into one side) and with distinct random loads (the search stops at ``MAX_ASSIGNMENTS``
examined assignments and the ``node_limit`` segment budget), and ``synthesize_padding`` on
tiles up to ``MAX_PADDING_ELEMENTS``. Speed is reported, never asserted.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from linlayout import LinearLayout, clear_caches, examples, synthesize_swizzle
from linlayout.synthesis import MAX_ASSIGNMENTS, MAX_LOADS, MAX_PADDING_ELEMENTS, synthesize_padding

HERE = Path(__file__).resolve().parent


def _rand(seed: int, dim0: int = 128, dim1: int = 128) -> LinearLayout:
    warps = dim0 * dim1 // (16 * 32)
    return LinearLayout.random({"register": 16, "lane": 32, "warp": warps},
                               {"dim0": dim0, "dim1": dim1}, rng=seed, surjective=True)


def _timed(fn):
    clear_caches()
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = ["| case | loads | seconds | optimal | wavefronts / bound |", "|---|---|---|---|---|"]
    ex = examples.get("transpose-128")
    for n in ((1, 4, 12) if args.quick else (1, 4, 8, 12, 16)):
        r, s = _timed(lambda: synthesize_swizzle(ex.store, [ex.load] * n,
                                                 element_bits=ex.element_bits))
        rows.append(f"| transpose-128, load repeated | {n} | {s:.3f} | {r.optimal} | "
                    f"{r.wavefronts_per_warp} / {r.bound.wavefronts_per_warp} |")
    store = _rand(0)
    for n in ((2, 4, 6) if args.quick else (2, 4, 6, 8, 10, MAX_LOADS)):
        loads = [_rand(i) for i in range(1, n + 1)]
        r, s = _timed(lambda: synthesize_swizzle(store, loads, element_bits=16))
        rows.append(f"| random 128x128, distinct loads | {n} | {s:.3f} | {r.optimal} | "
                    f"{r.wavefronts_per_warp} / {r.bound.wavefronts_per_warp} |")
    rows += ["", "| synthesize_padding tile | elements | seconds |", "|---|---|---|"]
    sizes = ((32, 64), (64, 64)) if args.quick else ((32, 64), (64, 64), (64, 128), (128, 128))
    for d0, d1 in sizes:
        lay = _rand(7, d0, d1)
        _, s = _timed(lambda: synthesize_padding(lay, lay, element_bits=16))
        rows.append(f"| {d0}x{d1} | {d0 * d1} | {s:.3f} |")
    report = "\n".join([
        "# Synthesis at its limits", "",
        f"Caps: MAX_LOADS = {MAX_LOADS} distinct loads, MAX_ASSIGNMENTS = {MAX_ASSIGNMENTS}, "
        f"MAX_PADDING_ELEMENTS = {MAX_PADDING_ELEMENTS}.", "", *rows, ""])
    print(report)
    if not args.no_write:
        (HERE / "LIMITS.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
