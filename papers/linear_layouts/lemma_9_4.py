"""Lemma 9.4 of the Linear Layouts paper, and its sub-word generalisation, checked by brute force.

Lemma 9.4 (arXiv 2505.23819): when a memory layout's offset bits split into vector | bank |
segment and each lane moves at least one bank word, a warp access takes
``2^dim(span(M_seg) ∩ span(lanes of a phase))`` wavefronts per phase. linlayout generalises it
to sub-word accesses (docs/theory.md §2, ``linlayout/conflicts/closed_form.py``): with ``Z`` the vector plus
within-word offset bits, the degree is ``2^(rank(Λ ≫ z) − rank((Λ ≫ z) mod 2^(seg_lo−z)))``.

Three parts, each comparing a prediction with a simulation that lists bank words lane by lane
(``papers/f2np.py``; numpy over lanes and banks, no subspace algebra):

A. **Every subspace pair, tensor coordinates** (d ≤ ``--max-d``, default 6): every segment
   subspace ``S`` and every lane subspace ``L`` of F₂ᵈ (``dim L ≤ 5``, ``dim S ≤ d − 2`` so a
   row has ≥ 4 banks), 32-bit elements, one element per lane: the memory layout has ``S`` as
   its segment span and a unit-vector complement as banks (``2^(d − dim S)`` banks), the lanes
   are a basis of ``L`` padded with broadcast lanes, all 32 in one phase (the lemma is a
   statement about requests served together). Prediction ``2^dim(S ∩ L)`` (ranks,
   vectorised) against the simulated degree.
B. **Every lane subspace, offset coordinates, every access shape** (d ≤ ``--max-d``): in
   offset coordinates the segment span is fixed (the top offset bits), so enumerating every
   subspace ``U`` as the span of the lanes' offsets covers every (segment span, lane span,
   bank complement) triple of part A's tensor picture at once, for any element size. For
   NVIDIA with 4, 8 and 32 banks and the AMD CDNA3/CDNA4 models, every element size
   1…128 bits, every vector width, and three orderings of the lanes (echelon, reversed,
   random mix — the order decides the phases): the simulator, the vectorised closed form and
   linlayout's own ``count_offsets`` must agree on degree and wavefronts; plain Lemma 9.4 must
   never over-count, and must be exact when there are no vector or within-word bits.
C. **Sampling, d = 7 … 16, end to end**: random general (non-unit) memory bijections and
   distributed layouts (registers, lanes with broadcasts, warps; NVIDIA and AMD models) through
   :func:`linlayout.bank_conflicts` against :func:`linlayout.simulate_bank_access`.
D. **Sampling, d = 7 … 16, offset coordinates**: random lane offsets (with broadcasts), every
   model, element size and vector width, numpy simulator against ``count_offsets``.

Exit status 0 when every check passes.

Run:  python papers/linear_layouts/lemma_9_4.py [--max-d 6] [--samples 2000] [--no-progress]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import f2np  # noqa: E402

from linlayout import LinearLayout, bank_conflicts, f2, simulate_bank_access  # noqa: E402
from linlayout.conflicts.closed_form import count_offsets  # noqa: E402
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA, bank_model  # noqa: E402

U64 = np.uint64


def part_a(max_d: int, progress: bool) -> tuple[bool, list[str]]:
    """Every (segment subspace, lane subspace) pair in tensor coordinates."""
    lines, ok = [], True
    for d in range(2, max_d + 1):
        subs = list(f2np.subspaces(d))
        lanes = [s for s in subs if len(s) <= 5]
        lane_arr = np.zeros((len(lanes), 5), dtype=U64)
        for i, s in enumerate(lanes):
            lane_arr[i, :len(s)] = s
        lane_dim = np.array([len(s) for s in lanes])
        segs = [s for s in subs if len(s) <= d - 2]
        pairs = mism = 0
        hist: dict[int, int] = {}
        for seg in f2np.progress(segs, total=len(segs), desc=f"A d={d}", enabled=progress):
            k = len(seg)
            bank = f2.complement(seg, d)
            cols = list(bank) + sorted(seg)
            inv = np.array(f2.inverse(cols), dtype=U64)
            table = f2np.span_table(inv)  # tensor element -> offset
            lane_offs = table[lane_arr.astype(np.intp)]
            # all 32 lanes in one phase: the lemma's statement about simultaneous requests
            deg, _ = f2np.simulate_degree(lane_offs, 0, 5, banks_log2=d - k, phase_masks=())
            both = np.concatenate(
                [np.broadcast_to(np.array(seg, dtype=U64), (len(lanes), k)), lane_arr], axis=1)
            dim = k + lane_dim - f2np.rank(both, d)
            pred = 1 << dim
            mism += int((pred != deg).sum())
            pairs += len(lanes)
            for v, c in zip(*np.unique(dim, return_counts=True)):
                hist[int(v)] = hist.get(int(v), 0) + int(c)
        ok &= mism == 0
        dist = ", ".join(f"{1 << e}: {c:,}" for e, c in sorted(hist.items()))
        lines.append(f"  d={d}: {len(segs):,} segment subspaces x {len(lanes):,} lane subspaces "
                     f"= {pairs:,} pairs, mismatches {mism}  (degree: pairs = {dist})")
    return ok, lines


def _lane_orders(basis: tuple[int, ...], warp_log2: int, rng: random.Random) -> list[list[int]]:
    """Three lane lists spanning the same subspace: echelon+zeros, zeros+reversed, a random mix."""
    pad = [0] * (warp_log2 - len(basis))
    a = list(basis) + pad
    b = pad + list(reversed(basis))
    while True:  # a random invertible warp_log2 x warp_log2 mix keeps the span
        mix = [rng.getrandbits(warp_log2) for _ in range(warp_log2)]
        if f2.rank(mix) == warp_log2:
            break
    c = [f2.apply(a, m) for m in mix]
    return [a, b, c]


def part_b(max_d: int, progress: bool, seed: int) -> tuple[bool, list[str]]:
    """Every lane subspace in offset coordinates, every access shape, three lane orders."""
    rng = random.Random(seed)
    lines, ok = [], True
    models = [("NVIDIA 4 banks", NVIDIA.with_banks(4)), ("NVIDIA 8 banks", NVIDIA.with_banks(8)),
              ("NVIDIA 32 banks", NVIDIA), ("AMD_CDNA3", AMD_CDNA3), ("AMD_CDNA4", AMD_CDNA4)]
    total = mism = plain_under = plain_over = plain_wrong_z0 = 0
    per_model: dict[str, int] = {}
    for d in range(1, max_d + 1):
        subs = list(f2np.subspaces(d))
        for name, hw in f2np.progress(models, total=len(models), desc=f"B d={d}",
                                      enabled=progress):
            warp = hw.warp_size.bit_length() - 1
            lane_lists = [lst for s in subs if len(s) <= warp
                          for lst in _lane_orders(s, warp, rng)]
            arr = np.array(lane_lists, dtype=U64)
            for e_log2 in range(8):
                model = bank_model(1 << e_log2, hardware=hw)
                for k in range(0, min(model.max_vector_log2, d) + 1):
                    deg, wav = f2np.simulate_degree(
                        arr, k, e_log2, banks_log2=model.banks_log2, warp_log2=warp,
                        word_log2=model.word_log2, phase_masks=model.phase_masks(k))
                    z = max(k, model.within_word_bits)
                    phase_ids = model.phase_lanes(k)
                    phase = np.stack([f2np.apply(arr, np.uint64(v)) for v in phase_ids]
                                     or [np.zeros(len(arr), dtype=U64)], axis=1)
                    cf = 1 << f2np.closed_form_log2_degree(phase, z, model.seg_lo, d)
                    seg = np.array([1 << j for j in range(model.seg_lo, d)], dtype=U64)
                    if len(seg):
                        both = np.concatenate(
                            [phase, np.broadcast_to(seg, (len(arr), len(seg)))], axis=1)
                        plain = 1 << (f2np.rank(phase, d) + len(seg) - f2np.rank(both, d))
                    else:
                        plain = np.ones(len(arr), dtype=np.int64)
                    regs = [1 << i for i in range(k)]
                    lib_deg = np.empty(len(arr), dtype=np.int64)
                    lib_wav = np.empty(len(arr), dtype=np.int64)
                    for i, lanes in enumerate(lane_lists):
                        rep = count_offsets(lanes, regs, k, model, with_basis=False)
                        lib_deg[i], lib_wav[i] = rep.degree, rep.wavefronts_per_instruction
                    bad = (deg != cf) | (deg != lib_deg) | (wav != lib_wav)
                    mism += int(bad.sum())
                    total += len(arr)
                    per_model[name] = per_model.get(name, 0) + len(arr)
                    plain_over += int((plain > deg).sum())
                    plain_under += int((plain < deg).sum())
                    if z == 0:
                        plain_wrong_z0 += int((plain != deg).sum())
    ok &= mism == 0 and plain_over == 0 and plain_wrong_z0 == 0
    lines.append(f"  {total:,} configurations (d = 1…{max_d}; "
                 + ", ".join(f"{n}: {c:,}" for n, c in per_model.items()) + ")")
    lines.append(f"  simulated == vectorised closed form == linlayout count_offsets: "
                 f"{total - mism:,} / {total:,}")
    lines.append(f"  plain Lemma 9.4 over-counts: {plain_over}; wrong without vector/within-word "
                 f"bits: {plain_wrong_z0}; under-counts (sub-word or vector cases the "
                 f"generalisation exists for): {plain_under:,}")
    return ok, lines


def _random_layouts(rng: random.Random, d: int, hw_name: str):
    """A random general memory bijection and a random distributed layout on a 2-D tensor."""
    hw = {"NVIDIA": NVIDIA, "AMD_CDNA3": AMD_CDNA3, "AMD_CDNA4": AMD_CDNA4}[hw_name]
    warp = hw.warp_size.bit_length() - 1
    a0 = rng.randint(1, d - 1)
    out = {"dim0": 1 << a0, "dim1": 1 << (d - a0)}
    split = lambda c: [c & ((1 << a0) - 1), c >> a0]  # noqa: E731

    def bijection() -> list[int]:
        while True:
            cols = [rng.getrandbits(d) for _ in range(d)]
            if f2.rank(cols) == d:
                return cols
    mem = LinearLayout({"offset": [split(c) for c in bijection()]}, out)
    cols = bijection()
    lanes = cols[:warp]
    lanes = [0 if rng.random() < 0.1 else (rng.choice(cols) if rng.random() < 0.1 else c)
             for c in lanes]
    nwarp = rng.randint(0, 2)
    warps = cols[warp:warp + nwarp]
    regs = cols[warp + nwarp:]
    if rng.random() < 0.2 and regs:
        regs = regs + [regs[0] ^ (regs[-1] if len(regs) > 1 else 0)]
    dist = LinearLayout({"register": [split(c) for c in regs], "lane": [split(c) for c in lanes],
                         "warp": [split(c) for c in warps]}, out)
    return dist, mem, hw


def part_c(samples: int, progress: bool, seed: int, d_hi: int = 16) -> tuple[bool, list[str]]:
    """Random end-to-end layouts, d = 7 … d_hi: library closed form vs library brute force."""
    rng = random.Random(seed)
    ok, lines = True, []
    per_d = {d: max(2, samples // (1 << max(0, d - 10))) for d in range(7, d_hi + 1)}
    n = mism = 0
    for d in f2np.progress(list(per_d), total=len(per_d), desc="C", enabled=progress):
        for _ in range(per_d[d]):
            hw_name = rng.choice(["NVIDIA", "NVIDIA", "AMD_CDNA3", "AMD_CDNA4"])
            dist, mem, hw = _random_layouts(rng, d, hw_name)
            bits = 1 << rng.randint(0, 7)
            try:
                cf = bank_conflicts(dist, mem, element_bits=bits, hardware=hw)
            except Exception as exc:  # a layout the counter rejects must be rejected by both
                try:
                    simulate_bank_access(dist, mem, element_bits=bits, hardware=hw)
                    mism += 1
                    lines.append(f"  d={d}: closed form raised {exc!r}, simulator did not")
                except Exception:
                    pass
                continue
            bf = simulate_bank_access(dist, mem, element_bits=bits, hardware=hw)
            n += 1
            if (cf.degree, cf.wavefronts_per_instruction, cf.vector_elems, cf.instructions_per_warp) != \
                    (bf.degree, bf.wavefronts_per_instruction, bf.vector_elems, bf.instructions_per_warp):
                mism += 1
    ok &= mism == 0
    lines.append(f"  {n:,} random layout pairs, d = 7…{d_hi} "
                 f"({', '.join(f'd={d}: {c}' for d, c in per_d.items())}); "
                 f"bank_conflicts == simulate_bank_access on {n - mism:,}")
    return ok, lines


def part_d(samples: int, progress: bool, seed: int, d_hi: int = 16) -> tuple[bool, list[str]]:
    """Random lane offsets, d = 7 … d_hi, every model/size/vector: numpy simulator vs count_offsets."""
    rng = random.Random(seed + 1)
    models = [NVIDIA, NVIDIA.with_banks(8), AMD_CDNA3, AMD_CDNA4]
    n = mism = 0
    for d in f2np.progress(range(7, d_hi + 1), total=d_hi - 6, desc="D", enabled=progress):
        for _ in range(samples):
            hw = rng.choice(models)
            warp = hw.warp_size.bit_length() - 1
            model = bank_model(1 << rng.randint(0, 7), hardware=hw)
            k = rng.randint(0, model.max_vector_log2)
            lanes = [0 if rng.random() < 0.15 else rng.getrandbits(d) for _ in range(warp)]
            deg, wav = f2np.simulate_degree(
                np.array([lanes], dtype=U64), k, model.element_log2,
                banks_log2=model.banks_log2, warp_log2=warp, word_log2=model.word_log2,
                phase_masks=model.phase_masks(k))
            rep = count_offsets(lanes, [1 << i for i in range(k)], k, model, with_basis=False)
            n += 1
            mism += (rep.degree, rep.wavefronts_per_instruction) != (int(deg[0]), int(wav[0]))
    return mism == 0, [f"  {n:,} random lane-offset configurations ({samples} per d, d = 7…{d_hi}); "
                       f"count_offsets == simulation on {n - mism:,}"]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-d", type=int, default=6, help="exhaustive up to this d (default 6)")
    ap.add_argument("--samples", type=int, default=200,
                    help="random pairs per d in part C up to d = 10, halving per d above")
    ap.add_argument("--max-sample-d", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    progress = not args.no_progress
    ok = True
    for title, fn in (
        ("A. every (segment, lane) subspace pair, tensor coordinates, 32-bit scalar access",
         lambda: part_a(args.max_d, progress)),
        ("B. every lane subspace in offset coordinates x every element size, vector width, "
         "bank count and lane order", lambda: part_b(args.max_d, progress, args.seed)),
        ("C. random general layouts end to end (linlayout closed form vs brute force)",
         lambda: part_c(args.samples, progress, args.seed, args.max_sample_d)),
        ("D. random lane offsets in offset coordinates (numpy simulator vs linlayout count_offsets)",
         lambda: part_d(10 * args.samples, progress, args.seed, args.max_sample_d)),
    ):
        t0 = time.perf_counter()
        good, lines = fn()
        ok &= good
        print(f"{title}  [{'ok' if good else 'FAILED'}, {time.perf_counter() - t0:.1f} s]")
        for line in lines:
            print(line)
    print("\nall claims reproduced" if ok else "\nSOME CLAIMS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
