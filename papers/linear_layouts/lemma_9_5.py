"""Lemma 9.5 of the Linear Layouts paper, checked by enumeration, and the construction behind it.

Lemma 9.5 (arXiv 2505.23819): inside F₂ᵈ the largest subspace meeting ``span(U)`` and
``span(V)`` only in 0 has dimension ``d − max(dim U, dim V)``. It is what makes a
conflict-free swizzle exist (a segment span avoiding both sides' lane spans) and what
certifies the synthesizer's answer optimal. Four parts:

A. **The maximum, by enumeration** (d ≤ ``--max-d``, default 6): for *every* pair of subspaces
   ``(U, V)`` of F₂ᵈ, the largest ``T`` with ``T ∩ U = T ∩ V = 0`` is found by trying *every*
   subspace ``T`` (each subspace as the bitmask of its 2ᵈ elements; "meets only in 0" is
   ``mask_T & mask_U == 1``; the search over T is a boolean matrix product per dimension).
B. **The construction** :func:`linlayout.f2.avoiding_sequence` on every pair (d ≤
   ``--max-d-seq``, default 5), with ``Z = 0`` and with ``Z = U ∩ V``: the sequence has
   ``d − dim Z`` vectors and every prefix ``T_j`` meets ``Z`` only in 0 and meets ``U`` and
   ``V`` in the least possible dimension, ``max(0, j − (d − dim X))`` — so its first
   ``d − max(dim U, dim V)`` vectors reach the maximum of part A (ranks vectorised in numpy).
C. **Sampling up to d = 16**: the same prefix property for random general subspaces.
D. **Set differences are not enough**: the unit-vector construction (basis vectors in neither
   set, then XORs of the set differences ``U∖V``, ``V∖U`` paired by position — Triton's
   ``computeSegment``) reaches the maximum on every pair of unit-vector subspaces but not on
   general ones; counted on random pairs.

Run:  python papers/linear_layouts/lemma_9_5.py [--max-d 6] [--max-d-seq 5] [--samples 1000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import f2np  # noqa: E402

from linlayout import f2  # noqa: E402
from linlayout.lowering.scratch import compute_segment  # noqa: E402

U64 = np.uint64


def element_mask(basis: tuple[int, ...]) -> int:
    """The 2ᵈ-bit mask of a subspace's elements (bit x set iff x is in the span)."""
    m = 0
    for x in f2.span_elements(basis):
        m |= 1 << x
    return m


def part_a(max_d: int) -> tuple[bool, list[str]]:
    ok, lines = True, []
    for d in range(1, max_d + 1):
        subs = list(f2np.subspaces(d))
        masks = np.array([element_mask(s) for s in subs], dtype=U64)
        dims = np.array([len(s) for s in subs])
        meets_only_zero = (masks[:, None] & masks[None, :]) == U64(1)  # (S, S)
        best = np.zeros((len(subs), len(subs)), dtype=np.int64)
        for k in range(1, d + 1):
            a = meets_only_zero[:, dims == k].astype(np.float32)
            exists = (a @ a.T) > 0.5  # some T of dim k avoids both U and V
            best = np.where(exists, k, best)
        lemma = d - np.maximum(dims[:, None], dims[None, :])
        bad = int((best != lemma).sum())
        ok &= bad == 0
        lines.append(f"  d={d}: {len(subs):,} subspaces, {len(subs) ** 2:,} ordered pairs (U, V), "
                     f"each against all {len(subs):,} T: max dim T == d - max(dim U, dim V) on "
                     f"{len(subs) ** 2 - bad:,}")
    return ok, lines


def _prefix_dims(seq: np.ndarray, x: np.ndarray, d: int) -> np.ndarray:
    """dim(T_j ∩ X) for every prefix T_j of each sequence: ``(N, L+1)``."""
    n, length = seq.shape
    dim_x = f2np.rank(x, d)
    out = np.zeros((n, length + 1), dtype=np.int64)
    for j in range(1, length + 1):
        out[:, j] = j + dim_x - f2np.rank(np.concatenate([seq[:, :j], x], axis=1), d)
    return out


def check_sequences(cases: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]],
                    d: int) -> tuple[int, int]:
    """Run avoiding_sequence on (U, V, Z) cases; return (cases, failures) of the prefix property."""
    fails = 0
    # group by sequence length (d - dim Z) so the arrays are rectangular
    groups: dict[int, list] = {}
    for u, v, z in cases:
        seq = f2.avoiding_sequence(u, v, z, d)
        if len(seq) != d - len(f2.echelon(z)) or f2.rank(list(seq) + list(z)) != d:
            fails += 1
            continue
        groups.setdefault(len(seq), []).append((u, v, z, seq))
    for length, items in groups.items():
        def pad(vs, w):
            arr = np.zeros((len(items), max(w, 1)), dtype=U64)
            for i, row in enumerate(vs):
                arr[i, :len(row)] = row
            return arr
        seq = pad([it[3] for it in items], length)[:, :length]
        us = pad([it[0] for it in items], d)
        vs = pad([it[1] for it in items], d)
        zs = pad([it[2] for it in items], d)
        du, dv = f2np.rank(us, d), f2np.rank(vs, d)
        j = np.arange(length + 1)[None, :]
        want_u = np.maximum(0, j - (d - du[:, None]))
        want_v = np.maximum(0, j - (d - dv[:, None]))
        got_u, got_v = _prefix_dims(seq, us, d), _prefix_dims(seq, vs, d)
        got_z = _prefix_dims(seq, zs, d)
        bad = (got_u != want_u).any(axis=1) | (got_v != want_v).any(axis=1) | (got_z != 0).any(axis=1)
        fails += int(bad.sum())
    return len(cases), fails


def part_b(max_d: int, progress: bool) -> tuple[bool, list[str]]:
    ok, lines = True, []
    for d in range(1, max_d + 1):
        subs = list(f2np.subspaces(d))
        n = fails = 0
        batch: list = []
        for i, u in enumerate(f2np.progress(subs, total=len(subs), desc=f"B d={d}",
                                            enabled=progress)):
            for v in subs:
                batch.append((u, v, ()))
                inter = f2.intersection(u, v)
                if inter:
                    batch.append((u, v, inter))
            if len(batch) >= 20000 or i == len(subs) - 1:
                bn, bf = check_sequences(batch, d)
                n, fails, batch = n + bn, fails + bf, []
        ok &= fails == 0
        lines.append(f"  d={d}: {len(subs) ** 2:,} pairs, {n:,} (U, V, Z) cases: every prefix "
                     f"optimal on {n - fails:,}")
    return ok, lines


def random_subspace(rng: random.Random, d: int, dim: int, unit: bool) -> tuple[int, ...]:
    if unit:
        return tuple(1 << i for i in rng.sample(range(d), dim))
    while True:
        vs = [rng.getrandbits(d) for _ in range(dim)]
        if f2.rank(vs) == dim:
            return tuple(vs)


def part_c(samples: int, progress: bool, seed: int) -> tuple[bool, list[str]]:
    rng = random.Random(seed)
    ok, lines, total = True, [], 0
    for d in f2np.progress(range(7, 17), total=10, desc="C", enabled=progress):
        cases = []
        for _ in range(samples):
            u = random_subspace(rng, d, rng.randint(0, d), False)
            v = random_subspace(rng, d, rng.randint(0, d), False)
            inter = list(f2.intersection(u, v))
            rng.shuffle(inter)
            z = tuple(inter[:rng.randint(0, len(inter))])
            cases.append((u, v, z))
        n, fails = check_sequences(cases, d)
        total += n
        ok &= fails == 0
        if fails:
            lines.append(f"  d={d}: {fails} of {n} failed")
    lines.append(f"  {total:,} random (U, V, Z ⊆ U ∩ V) cases, {samples} per d for d = 7…16: "
                 f"every prefix optimal" if ok else "  failures above")
    return ok, lines


def part_d(samples: int, seed: int) -> tuple[bool, list[str]]:
    rng = random.Random(seed + 1)
    lines = []
    ok = True
    for unit in (True, False):
        reached = n = 0
        for _ in range(samples):
            d = rng.randint(6, 16)
            u = random_subspace(rng, d, rng.randint(1, d - 1), unit)
            v = random_subspace(rng, d, rng.randint(1, d - 1), unit)
            want = d - max(len(u), len(v))
            seg = compute_segment(list(u), list(v), d, want)
            good = (len(seg) == want and f2.rank(seg) == want
                    and f2.rank(seg + list(u)) == want + len(u)
                    and f2.rank(seg + list(v)) == want + len(v))
            reached += good
            n += 1
            ours = f2.avoiding_sequence(u, v, (), d)[:want]
            ok &= (f2.rank(ours + list(u)) == want + len(u)
                   and f2.rank(ours + list(v)) == want + len(v))
        kind = "unit-vector" if unit else "general"
        lines.append(f"  {kind:<11} pairs: set differences reach d - max(dim U, dim V) on "
                     f"{reached:,} / {n:,}; avoiding_sequence on all {n:,}" if ok else "  FAILED")
        if unit:
            ok &= reached == n
    return ok, lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-d", type=int, default=6, help="part A up to this d (default 6)")
    ap.add_argument("--max-d-seq", type=int, default=5, help="part B up to this d (default 5)")
    ap.add_argument("--samples", type=int, default=1000, help="random cases per d (C) / kind (D)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    progress = not args.no_progress
    ok = True
    for title, fn in (
        ("A. max over all subspaces T, every pair (U, V)", lambda: part_a(args.max_d)),
        ("B. linlayout.f2.avoiding_sequence on every pair, Z = 0 and Z = U ∩ V",
         lambda: part_b(args.max_d_seq, progress)),
        ("C. avoiding_sequence on random general subspaces, d = 7…16",
         lambda: part_c(args.samples, progress, args.seed)),
        ("D. set-difference construction (Triton's computeSegment) vs avoiding_sequence",
         lambda: part_d(args.samples, args.seed)),
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
