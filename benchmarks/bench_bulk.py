"""Bulk throughput: how many layouts per second get an exact wavefront count.

Run from the repository root:  python benchmarks/bench_bulk.py [--quick] [--no-write]
(``--no-write`` prints only; otherwise the report also goes to benchmarks/BULK.md.)

A search over swizzles, a fuzzer or a dataset of kernels asks for millions of counts. The
vectorised path is ``papers/f2np.py``: the closed form of ``linlayout.conflicts`` (ranks over
F₂ by Gaussian elimination vectorised across configurations with numpy bit operations) and a
numpy bank simulator. Measured in one run, layouts per second:

* the article's workbench — all 2^20 swizzle configurations of the 16×32 fp32 transpose,
  load and store predicted (``papers/swizzle_by_algebra/workbench_exhaustive.py``);
* random offset-space configurations (32 lanes with broadcasts, 16-bit offsets, 16-bit
  elements, 4-element vectors — two phases): the vectorised closed form, the vectorised
  simulator, linlayout's per-call engine ``count_offsets``, the full per-layout
  ``bank_conflicts`` (validation, inversion, counting), galois computing the same two ranks
  per configuration, and Triton's counter per layout when Triton is installed.

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "papers"))
sys.path.insert(0, str(HERE.parent / "papers" / "swizzle_by_algebra"))
sys.path.insert(0, str(HERE))
import f2np  # noqa: E402

import linlayout as ll  # noqa: E402
from linlayout import bank_conflicts, examples  # noqa: E402
from linlayout.conflicts.closed_form import count_offsets  # noqa: E402
from linlayout.hardware import bank_model  # noqa: E402

U64 = np.uint64


def rate(n: int, seconds: float) -> str:
    r = n / seconds
    if r >= 1e6:
        return f"{r / 1e6:,.2f} M/s"
    if r >= 1e3:
        return f"{r / 1e3:,.1f} k/s"
    return f"{r:,.0f} /s"


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.1f} ms"
    return f"{seconds * 1e6:,.1f} µs"


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller batches")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    quick = args.quick
    rows = []

    # 1. the workbench: 2^20 configurations, closed form for load and store
    import workbench_exhaustive as wb

    nconf = (1 << 16) if quick else wb.CONFIGS
    masks = wb.masks_of(np.arange(nconf))
    t = timed(lambda: wb.predicted_log2(masks), 1 if not quick else 3)
    rows.append(("workbench: Lemma 9.4 prediction, load + store (f2np.rank)", nconf, t))
    sim_n = 1 << (14 if quick else 16)
    t = timed(lambda: wb.simulated(masks[:sim_n], range(16)), 1)
    rows.append(("workbench: numpy simulation, 16 register steps x 2 accesses", sim_n, t))

    # 2. random offset-space configurations
    rng = random.Random(0)
    n = (1 << 15) if quick else (1 << 18)
    d, k, e_log2 = 16, 2, 4
    model = bank_model(16)
    lanes = np.array([[0 if rng.random() < 0.1 else rng.getrandbits(d) for _ in range(5)]
                      for _ in range(n)], dtype=U64)
    phase_ids = model.phase_lanes(k)
    phase = np.stack([f2np.apply(lanes, U64(v)) for v in phase_ids], axis=1)
    z = max(k, model.within_word_bits)
    t_cf = timed(lambda: f2np.closed_form_log2_degree(phase, z, model.seg_lo, d))
    rows.append((f"random configurations: vectorised closed form (f2np), d = {d}", n, t_cf))
    t_sim = timed(lambda: f2np.simulate_degree(lanes, k, e_log2,
                                               phase_masks=model.phase_masks(k)), 1)
    rows.append(("random configurations: vectorised simulator (f2np)", n, t_sim))
    lane_lists = lanes[: n // 16].tolist()
    regs = [1 << i for i in range(k)]
    m = len(lane_lists)
    t_co = timed(lambda: [count_offsets(x, regs, k, model, with_basis=False)
                          for x in lane_lists], 1)
    rows.append(("random configurations: linlayout count_offsets, one call each", m, t_co))

    # the full per-layout path on real layouts: bank_conflicts on the 16x32 transpose
    ex = examples.get("transpose")
    mems = []
    for c in rng.sample(range(wb.CONFIGS), 2000 if not quick else 300):
        mems.append(wb.memory_layout(tuple(int(x) for x in wb.masks_of(np.array([c]))[0])))
    t_bc = timed(lambda: [bank_conflicts(ex.load, mm, element_bits=32) for mm in mems], 1)
    rows.append(("layouts: linlayout bank_conflicts, one LinearLayout pair each", len(mems), t_bc))

    # galois: the same two ranks per configuration
    galois_note = ""
    try:
        import galois

        gf = galois.GF(2)
        hi = (phase >> U64(z)).astype(np.int64)
        bank_mask = (1 << (model.seg_lo - z)) - 1
        g_n = 200 if quick else 1000

        def galois_ranks():
            for row in hi[:g_n]:
                bits = ((row[:, None] >> np.arange(d - z)) & 1).astype(np.uint8)
                low = ((row[:, None] & bank_mask) >> np.arange(d - z) & 1).astype(np.uint8)
                np.linalg.matrix_rank(gf(bits)) - np.linalg.matrix_rank(gf(low))
        t_g = timed(galois_ranks, 1)
        rows.append(("random configurations: galois, the same two ranks each", g_n, t_g))
        galois_note = f"galois {galois.__version__}"
    except ImportError:
        galois_note = "galois not installed"

    # Triton's counter, one layout pair per call
    triton_note = "Triton not installed"
    t_tri = None
    try:
        from bench_conflicts import load_triton

        counter, why = load_triton()
        if counter is not None:
            number = 200 if quick else 2000
            _, t_tri = counter.measure(ex.load, mems[0], 32, number)
            rows.append(("layouts: Triton get_shared_bank_conflicts, one pair each", number,
                         t_tri * number))
            triton_note = f"Triton {counter.version}"
        else:
            triton_note = f"Triton not measured ({why})"
    except Exception as exc:  # pragma: no cover - depends on the Triton install
        triton_note = f"Triton not measured ({type(exc).__name__})"

    base = n / t_cf
    lines = ["| path | batch | time | throughput | vs vectorised closed form |",
             "|---|---|---|---|---|"]
    for name, cnt, secs in rows:
        lines.append(f"| {name} | {cnt:,} | {fmt_time(secs)} | {rate(cnt, secs)} | "
                     f"{(cnt / secs) / base:,.3g}× |")
    report = "\n".join([
        "# Bulk throughput",
        "",
        "Written by `python benchmarks/bench_bulk.py` (best of up to 3 runs).",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}, numpy {np.__version__}, linlayout "
        f"{ll.__version__}; {galois_note}; {triton_note}.",
        "",
        "The vectorised path (`papers/f2np.py`) counts every configuration of a batch at once; "
        "the per-call paths pay Python (or binding) overhead per layout. Throughput is "
        "configurations (layout pairs) per second; the last column divides by the vectorised "
        "closed form's.",
        "",
        *lines,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "BULK.md").write_text(report, encoding="utf-8")
    sys.stdout.flush()
    if t_tri is not None:
        os._exit(0)  # skip nanobind's leak report at interpreter exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
