"""Time synthesize_swizzle on the job a compiler runs; write benchmarks/SYNTHESIS.md.

Run from the repository root:  python benchmarks/bench_synthesis.py [--quick] [--no-write]

Inputs (:mod:`synthesis_cases`, reproducible without Triton): 300 random pairs of Triton
encodings, 60 tiles written once and read by three loads, and the built-in examples. Every
call is **cold**: :func:`linlayout.clear_caches` empties every cache of the package first (the
result cache and every per-layout or per-shape table), so a call pays for everything a first
call pays for. Each call is timed alone, in CPU time of the process (``time.process_time``:
the machine may be shared), best of three cold calls per input; the tables give the median,
90th percentile and worst over the inputs, and how many inputs took more than 3 ms.
Repeated identical calls (the result cache) are timed separately and are never the headline.

When Triton 3.9 is importable (``pip install triton==3.9.*``, CPU is enough; run that
Python with ``PYTHONPATH`` at this checkout), its C++ ``optimalSwizzlingLdSt`` and ``optimalSwizzling`` with sm_90's
ld/st.shared, ldmatrix and stmatrix tiles (:mod:`triton_cpp`, through ctypes) are timed on
the same pairs in the same process, interleaved call by call with ours, and the per-pair
ratios are reported; otherwise the absolute numbers only.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import linlayout as ll  # noqa: E402
from synthesis_cases import example_pairs, random_pairs, random_tiles  # noqa: E402
import triton_cpp  # noqa: E402

#: Repetitions per input (the best is kept).
REPEAT = 3
#: The speed goals: no slow tail, and medians against Triton 3.9's C++.
TAIL_MS = 3.0
TILE_MEDIAN_MS, TILE_MAX_MS = 2.0, 20.0
LDST_RATIO, TILES_RATIO = 3.0, 1.0


#: The clock: CPU time of this process (on a shared machine, wall time also counts the
#: other processes' turns; both sides of every ratio are measured with the same clock).
clock = time.process_time


def cold(fn) -> float:
    """Seconds of one call of ``fn`` after emptying every cache of the package."""
    ll.clear_caches()
    t0 = clock()
    fn()
    return clock() - t0


def timed(fn) -> float:
    """Seconds of one call of ``fn`` (nothing emptied)."""
    t0 = clock()
    fn()
    return clock() - t0


def summary(values: list[float]) -> dict:
    """Median, 10th/90th percentiles and worst of ``values``."""
    q = (statistics.quantiles(values, n=10, method="inclusive") if len(values) > 1
         else [values[0]] * 9)
    return {"median": statistics.median(values), "p10": q[0], "p90": q[-1],
            "max": max(values)}


def stats_ms(times: list[float]) -> dict:
    """:func:`summary` of times in seconds, in ms."""
    return {k: v * 1e3 for k, v in summary(times).items()}


def distribution(items: list[tuple], kw: dict) -> tuple[list[float], list[bool]]:
    """Best-of-REPEAT cold seconds of each input, and whether each result is proven optimal."""
    times, proven = [], []
    for store, load, bits, _ in items:
        result = None

        def call():
            nonlocal result
            result = ll.synthesize_swizzle(store, load, element_bits=bits, **kw)

        times.append(min(cold(call) for _ in range(REPEAT)))
        proven.append(result.optimal)
    return times, proven


def against_triton(items: list[tuple], harness) -> dict[str, list[tuple[float, float]]]:
    """Per pair, best-of-REPEAT (ours, Triton) seconds for the default synthesis against
    optimalSwizzlingLdSt and for ``instructions="auto"`` against optimalSwizzling with tiles,
    each of our calls cold and every call interleaved with Triton's."""
    out: dict[str, list[tuple[float, float]]] = {"ldst": [], "tiles": []}
    for store, load, bits, _ in items:
        src, dst = harness.convert(store), harness.convert(load)
        harness.tiles(bits)  # built once per width, as Triton's lowering does
        for job, kw, theirs in (("ldst", {}, harness.ldst),
                                ("tiles", {"instructions": "auto"}, harness.with_tiles)):
            ours_t, their_t = [], []
            for _ in range(REPEAT):
                ours_t.append(cold(lambda: ll.synthesize_swizzle(store, load, element_bits=bits,
                                                                 **kw)))
                their_t.append(timed(lambda: theirs(src, dst, bits)))
            out[job].append((min(ours_t), min(their_t)))
    return out


def row(label: str, times: list[float], proven: list[bool]) -> str:
    s = stats_ms(times)
    slow = sum(t * 1e3 > TAIL_MS for t in times)
    opt = f"{sum(proven)}/{len(times)}"
    return (f"| {label} | {len(times)} | {s['median']:.3f} ms | {s['p90']:.3f} ms | "
            f"{s['max']:.2f} ms | {slow} | {opt} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the inputs")
    parser.add_argument("--no-write", action="store_true", help="print the report only")
    args = parser.parse_args()
    pairs, tiles, exs = random_pairs(), random_tiles(), example_pairs()
    if args.quick:
        pairs, tiles = pairs[::5], tiles[::5]
    harness, why = triton_cpp.load()
    lines = ["# Synthesis paths", "",
             "Written by `python benchmarks/bench_synthesis.py" +
             (" --quick" if args.quick else "") + "`. Every call cold "
             "(`linlayout.clear_caches()` first), timed alone, best of "
             f"{REPEAT} per input, CPU time of the process (`time.process_time`, for "
             "both sides of every ratio: the machine is shared); inputs from "
             "`benchmarks/synthesis_cases.py` (random Triton encodings, fixed seeds).",
             f"Machine: {platform.machine()}, Python {platform.python_version()}; Triton: "
             f"{why}.", ""]
    goals = []
    if harness is not None:
        got = against_triton(pairs, harness)
        lines += ["## Against Triton's C++ (same pairs, same process, interleaved)", "",
                  "Each pair: our cold call and Triton's call alternately, best of "
                  f"{REPEAT} each; the ratio is taken per pair (ours / Triton's).", "",
                  "| job | linlayout median (p90, max) | Triton 3.9 C++ median (max) | "
                  "ratio median (p10–p90) |", "|---|---|---|---|"]
        names = {"ldst": ("default `synthesize_swizzle` vs `optimalSwizzlingLdSt`", LDST_RATIO),
                 "tiles": ('`instructions="auto"` vs `optimalSwizzling` with sm_90 tiles',
                           TILES_RATIO)}
        for job, (label, goal) in names.items():
            ours = stats_ms([a for a, _ in got[job]])
            theirs = stats_ms([b for _, b in got[job]])
            ratio = summary([a / b for a, b in got[job]])
            lines.append(f"| {label} | {ours['median']:.3f} ms ({ours['p90']:.3f}, "
                         f"{ours['max']:.2f}) | {theirs['median']:.3f} ms "
                         f"({theirs['max']:.2f}) | {ratio['median']:.2f}× "
                         f"({ratio['p10']:.2f}–{ratio['p90']:.2f}) |")
            goals.append(f"- {label}: median ratio {ratio['median']:.2f}× against a goal of "
                         f"≤ {goal:g}× — {'met' if ratio['median'] <= goal else 'NOT met'}")
        lines.append("")
    lines += ["## Cold calls", "",
              "| inputs | calls | median | 90th percentile | worst | over 3 ms | "
              "proven optimal |", "|---|---|---|---|---|---|---|"]
    dists, optimal = {}, {}
    for label, items, kw in (
            ("random Triton pairs (store + load)", pairs, {}),
            ('random Triton pairs, instructions="auto"', pairs, {"instructions": "auto"}),
            ('random Triton pairs, lowering="triton"', pairs, {"lowering": "triton"}),
            ("random Triton tiles (store + 3 loads)", tiles, {}),
            ("built-in examples", exs, {}),
            ('built-in examples, instructions="auto"', exs, {"instructions": "auto"})):
        times, proven = distribution(items, kw)
        dists[label], optimal[label] = times, proven
        lines.append(row(label, times, proven))
    pair_t, tile_t = dists["random Triton pairs (store + load)"], \
        dists["random Triton tiles (store + 3 loads)"]
    tile_s = stats_ms(tile_t)
    goals = [f"- random pairs: worst {max(pair_t) * 1e3:.2f} ms against ≤ {TAIL_MS:g} ms — "
             f"{'met' if max(pair_t) * 1e3 <= TAIL_MS else 'NOT met'} "
             f"({sum(t * 1e3 > TAIL_MS for t in pair_t)} over)",
             f"- three-load tiles: median {tile_s['median']:.2f} ms (≤ {TILE_MEDIAN_MS:g}: "
             f"{'met' if tile_s['median'] <= TILE_MEDIAN_MS else 'NOT met'}), worst "
             f"{tile_s['max']:.1f} ms (≤ {TILE_MAX_MS:g}: "
             f"{'met' if tile_s['max'] <= TILE_MAX_MS else 'NOT met'})"] + goals
    # the result cache: the same call again
    hits = []
    for store, load, bits, _ in pairs[:50]:
        ll.synthesize_swizzle(store, load, element_bits=bits)
        hits.append(min(timed(lambda: ll.synthesize_swizzle(store, load, element_bits=bits))
                        for _ in range(REPEAT)))
    slow = [i for i, t in enumerate(pair_t) if t * 1e3 > TAIL_MS]
    unproven = [i for i in slow if not optimal["random Triton pairs (store + load)"][i]]
    tail = ([f"The random pairs over {TAIL_MS:g} ms (indices {slow} of "
             "`synthesis_cases.random_pairs()`) are those whose search builds many "
             "constructions or scans many prefixes (up to 32 for one that meets a shorter "
             f"side's rank condition) before building the first; {len(unproven)} of them end "
             "not proven optimal, their fallbacks (the widest common vector, the simple "
             "layouts) built and counted too.", ""] if slow else [])
    lines += ["", "Repeated identical calls (answered by the result cache; not a cold call): "
              f"median {statistics.median(hits) * 1e6:.1f} µs over {len(hits)} pairs.", "",
              "## Against the speed goals", "", *goals, "", *tail,
              "A speed-up must not change a result: `python benchmarks/synthesis_cases.py "
              "--write before.json` on the old checkout, then `--compare before.json` on the "
              "new one, checks every input here under every variant (default, "
              '`instructions="auto"`, `lowering="triton"`): the same layouts, or the same costs '
              "and optimality — or the same layout with a higher bound proven (optimal only "
              "from False to True, where the result costs the new bound; listed one by one).",
              ""]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        (HERE / "SYNTHESIS.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
