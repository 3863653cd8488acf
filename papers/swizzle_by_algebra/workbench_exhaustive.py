"""All 2^20 configurations of the article's swizzle workbench, simulated and predicted.

"Swizzle by hand, swizzle by algebra" (§03–§05) lets the reader fold each of the
four row bits m_0..m_3 of a 16×32 fp32 tile into any subset of the five column bits n_0..n_4:
row bit m_j gets a mask c_j ⊆ {n_0..n_4}, so there are 32^4 = 2^20 = 1,048,576 configurations.
The memory layout of a configuration is

    offset(m, n) = 32·m + (n ⊕ mask(m)),   mask(m) = ⊕_{j : m_j = 1} c_j

— bank bits map to n_0..n_4, segment bit j maps to m_j ⊕ c_j (the [[I, C], [0, I]] matrix of
§04). One warp stores the tile by rows (step r: lane t writes (m = r, n = t)) and loads it by
column pairs (step r: lane t reads (m = t mod 16, n = 2r + ⌊t/16⌋)).

The article claims (§05) that Lemma 9.4's prediction — a warp instruction takes
2^dim(span(M_seg) ∩ span(lanes)) wavefronts — equals the simulated count on every one of the
2^20 configurations, that the store is always conflict-free, and (independence rule) that the
load is conflict-free exactly when c_0..c_3 and n_0 are linearly independent, which happens in
30·28·24·16 = 322,560 configurations. This script checks all of it:

* **simulated**: for every configuration and every one of the 16 register steps of both
  accesses, the 32 lanes' element offsets from the formula above, their bank words, and the
  most distinct words any bank is asked for (``f2np.simulate`` machinery: numpy over lanes and
  banks, no subspace algebra);
* **predicted**: Lemma 9.4 through ranks, ``dim(S ∩ L) = rank S + rank L − rank(S ∪ L)``,
  by Gaussian elimination over F₂ vectorised across configurations (``f2np.rank``);
* the distribution of load wavefronts against the closed count of 4×4 matrices over F₂ by
  rank (each c_j has two preimages modulo n_0, hence the factor 2^4);
* a random sample of configurations (plus the article's three named swizzles) through
  linlayout's own :func:`linlayout.bank_conflicts` and :func:`linlayout.simulate_bank_access`.

Exit status 0 when every claim holds, 1 otherwise.

Run:  python papers/swizzle_by_algebra/workbench_exhaustive.py [--sample N] [--steps S]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import f2np  # noqa: E402

from linlayout import LinearLayout, bank_conflicts, examples, simulate_bank_access  # noqa: E402

#: Tensor bits: dim0 = m (4 bits, flat bits 0-3), dim1 = n (5 bits, flat bits 4-8).
M_BITS, N_BITS = 4, 5
D = M_BITS + N_BITS
CONFIGS = 1 << (M_BITS * N_BITS)  # 2^20
#: Lane images in tensor bits (flat ints): store lanes t_i -> n_i; load lanes t_0..t_3 -> m_0..m_3, t_4 -> n_0.
STORE_LANES = [1 << (M_BITS + i) for i in range(N_BITS)]
LOAD_LANES = [1 << i for i in range(M_BITS)] + [1 << M_BITS]
#: The article's §05 table: masks c_j (as n-bit ints) and the read wavefronts it states.
NAMED = {
    "unswizzled": ((0, 0, 0, 0), 16),
    "XOR m": ((1, 2, 4, 8), 2),
    "XOR 2m": ((2, 4, 8, 16), 1),
}
PREDICTED_CONFLICT_FREE = 30 * 28 * 24 * 16


def masks_of(config: np.ndarray) -> np.ndarray:
    """``(N,)`` configuration indices → ``(N, 4)`` masks c_j (5-bit ints over n_0..n_4)."""
    c = np.asarray(config, dtype=np.int64)
    return np.stack([(c >> (N_BITS * j)) & 31 for j in range(M_BITS)], axis=-1)


def config_of(masks: tuple[int, ...]) -> int:
    return sum(m << (N_BITS * j) for j, m in enumerate(masks))


def predicted_log2(masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lemma 9.4 for the load and the store: ``dim(span(M_seg) ∩ span(lanes))`` per config.

    ``M_seg`` = {m_j ⊕ c_j} in tensor bits; the dimension of the intersection is
    ``rank(M_seg) + rank(lanes) − rank(M_seg ∪ lanes)``, all by vectorised elimination.
    """
    n = masks.shape[0]
    seg = (np.left_shift(1, np.arange(M_BITS))[None, :] | (masks << M_BITS)).astype(np.uint64)
    out = []
    for lanes in (LOAD_LANES, STORE_LANES):
        lane_arr = np.broadcast_to(np.array(lanes, dtype=np.uint64), (n, len(lanes)))
        both = np.concatenate([seg, lane_arr], axis=1)
        dim = f2np.rank(seg, D) + f2np.rank(lane_arr[:1], D)[0] - f2np.rank(both, D)
        out.append(dim)
    return out[0], out[1]


def simulated(masks: np.ndarray, steps: range) -> tuple[np.ndarray, ...]:
    """Simulate both accesses bank word by bank word, for the given register steps.

    Returns ``(load_min, load_max, load_total, store_min, store_max, store_total)``: the
    least and most wavefronts any one instruction (register step) took, and their sum.
    """
    mask_of_m = f2np.span_table(masks.astype(np.uint64)).astype(np.int32)  # (N, 16)
    t = np.arange(32, dtype=np.int32)
    res = []
    for side in ("load", "store"):
        per_step = []
        for r in steps:
            if side == "load":
                m = t & 15
                col = 2 * r + (t >> 4)
                offsets = 32 * m[None, :] + (col[None, :] ^ mask_of_m[:, m])
            else:
                offsets = 32 * r + (t[None, :] ^ mask_of_m[:, r:r + 1])
            # 32-bit elements: bank word = element offset; bank = word mod 32.
            per_step.append(f2np.bank_degree(offsets, 5))
        ps = np.stack(per_step, axis=1)  # (N, steps): one phase per instruction
        res += [ps.min(axis=1), ps.max(axis=1), ps.sum(axis=1)]
    return tuple(res)


def _run_chunk(bounds: tuple[int, int, int]):
    """Predict and simulate configurations ``lo … hi-1`` (a worker task)."""
    lo, hi, nsteps = bounds
    masks = masks_of(np.arange(lo, hi))
    t0 = time.perf_counter()
    lp, sp = predicted_log2(masks)
    t1 = time.perf_counter()
    sims = simulated(masks, range(nsteps))
    return lp, sp, sims, (t1 - t0, time.perf_counter() - t1)


def rank_count(m: int, n: int, r: int) -> int:
    """Number of m×n matrices over F₂ of rank r: ∏_{i<r} (2^m − 2^i)(2^n − 2^i) / (2^r − 2^i)."""
    num = den = 1
    for i in range(r):
        num *= ((1 << m) - (1 << i)) * ((1 << n) - (1 << i))
        den *= (1 << r) - (1 << i)
    return num // den


def memory_layout(masks: tuple[int, ...]) -> LinearLayout:
    """The workbench configuration as a linlayout memory layout (offset bits: 5 bank, 4 segment)."""
    bank = [[0, 1 << i] for i in range(N_BITS)]
    seg = [[1 << j, int(masks[j])] for j in range(M_BITS)]
    return LinearLayout({"offset": bank + seg}, {"dim0": 16, "dim1": 32})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=2000,
                    help="random configurations also checked with linlayout (default 2000)")
    ap.add_argument("--steps", type=int, default=16,
                    help="register steps simulated per access, 1-16 (default all 16)")
    ap.add_argument("--chunk", type=int, default=1 << 16, help="configurations per batch")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=0,
                    help="worker processes (default: one per CPU; 1 = in this process)")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    steps = range(max(1, min(16, args.steps)))
    t0 = time.perf_counter()

    load_pred = np.empty(CONFIGS, dtype=np.int64)
    store_pred = np.empty(CONFIGS, dtype=np.int64)
    sim = [np.empty(CONFIGS, dtype=np.int64) for _ in range(6)]
    bounds = [(lo, min(CONFIGS, lo + args.chunk), len(steps))
              for lo in range(0, CONFIGS, args.chunk)]
    jobs = args.jobs or os.cpu_count() or 1
    if jobs > 1:
        pool = ProcessPoolExecutor(max_workers=jobs)
        results = pool.map(_run_chunk, bounds)
    else:
        pool = None
        results = map(_run_chunk, bounds)
    cpu = [0.0, 0.0]
    for (lo, hi, _), (lp, sp, sims, secs) in f2np.progress(
            zip(bounds, results), total=len(bounds), desc="workbench",
            enabled=not args.no_progress):
        load_pred[lo:hi], store_pred[lo:hi] = lp, sp
        cpu[0] += secs[0]
        cpu[1] += secs[1]
        for arr, val in zip(sim, sims):
            arr[lo:hi] = val
    if pool is not None:
        pool.shutdown()
    load_min, load_max, load_total, store_min, store_max, store_total = sim
    elapsed = time.perf_counter() - t0

    ok = True

    def claim(text: str, holds: bool) -> None:
        nonlocal ok
        ok &= bool(holds)
        print(f"  [{'ok' if holds else 'FAILED'}] {text}")

    nsteps = len(steps)
    load_match = (load_min == load_max) & (load_max == (1 << load_pred))
    store_match = (store_min == store_max) & (store_max == (1 << store_pred))
    both_free_pred = (load_pred == 0) & (store_pred == 0)
    both_free_sim = (load_max == 1) & (store_max == 1)
    print(f"Swizzle workbench: {CONFIGS:,} configurations x {nsteps} register steps x 32 lanes, "
          f"load and store ({elapsed:.1f} s wall, {jobs} process(es); closed form "
          f"{cpu[0]:.1f} s, simulation {cpu[1]:.1f} s of CPU)")
    print(f"  prediction == simulation, load : {int(load_match.sum()):,} / {CONFIGS:,}")
    print(f"  prediction == simulation, store: {int(store_match.sum()):,} / {CONFIGS:,}")
    print(f"  conflict-free for load and store: {int(both_free_sim.sum()):,} simulated, "
          f"{int(both_free_pred.sum()):,} predicted; independence rule 30·28·24·16 = "
          f"{PREDICTED_CONFLICT_FREE:,}")
    claim("Lemma 9.4 prediction equals the simulated wavefronts of every load instruction",
          load_match.all())
    claim("... and of every store instruction", store_match.all())
    claim("the store is conflict-free in every configuration", (store_max == 1).all())
    claim(f"exactly {PREDICTED_CONFLICT_FREE:,} configurations are conflict-free both ways",
          int(both_free_sim.sum()) == PREDICTED_CONFLICT_FREE == int(both_free_pred.sum()))
    claim("a whole access takes (steps) x (wavefronts per instruction)",
          (load_total == nsteps * load_max).all() and (store_total == nsteps * store_max).all())

    print("\n  load wavefronts per instruction: configurations (simulated) vs 16 x #(4x4 F2 "
          "matrices of rank 4 - log2 w)")
    print(f"  {'wavefronts':>10} {'simulated':>11} {'closed count':>13}")
    dist_ok = True
    for e in range(5):
        w = 1 << e
        got = int((load_max == w).sum())
        expect = 16 * rank_count(4, 4, 4 - e)
        dist_ok &= got == expect
        print(f"  {w:>10} {got:>11,} {expect:>13,}")
    claim("the load's wavefront distribution equals the rank count", dist_ok)

    print("\n  the article's table (§05):")
    print(f"  {'swizzle':<12} {'masks c_0..c_3':<22} {'article':>7} {'predicted':>9} {'simulated':>9}")
    for name, (masks, stated) in NAMED.items():
        c = config_of(masks)
        pred, got = 1 << int(load_pred[c]), int(load_max[c])
        row = " ".join(f"{m:05b}"[::-1] for m in masks)
        claim(f"{name:<12} {row:<22} {stated:>7} {pred:>9} {got:>9}", pred == got == stated)

    rng = random.Random(args.seed)
    sample = [config_of(m) for m, _ in NAMED.values()]
    sample += [rng.randrange(CONFIGS) for _ in range(args.sample)]
    ex = examples.get("transpose")
    disagree = 0
    t1 = time.perf_counter()
    for c in f2np.progress(sample, total=len(sample), desc="linlayout sample",
                           enabled=not args.no_progress):
        mem = memory_layout(tuple(int(x) for x in masks_of(np.array([c]))[0]))
        for side, sim_max, pred in ((ex.load, load_max, load_pred),
                                    (ex.store, store_max, store_pred)):
            cf = bank_conflicts(side, mem, element_bits=32)
            bf = simulate_bank_access(side, mem, element_bits=32)
            if not (cf.wavefronts_per_instruction == bf.wavefronts_per_instruction == int(sim_max[c]) == 1 << int(pred[c])
                    and cf.instructions_per_warp == bf.instructions_per_warp == 16):
                disagree += 1
    print(f"\n  linlayout cross-check on {len(sample):,} configurations "
          f"({time.perf_counter() - t1:.1f} s): bank_conflicts and simulate_bank_access agree "
          f"with both vectorised counts on {len(sample) - disagree:,}")
    claim("linlayout.bank_conflicts == linlayout.simulate_bank_access == vectorised counts "
          "on the sample", disagree == 0)

    print("\nall claims reproduced" if ok else "\nSOME CLAIMS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
