"""F₂ linear algebra and a shared-memory bank simulator, vectorised across a batch with numpy.

The reproductions in ``papers/`` and the bulk benchmark check millions of configurations at
once; :mod:`linlayout.f2` works on one Python int at a time, which is right for a compiler
but too slow for that. Here a *batch* of vectors is a numpy ``uint64`` array whose last axis
lists the vectors of one configuration (bit ``i`` of an entry is coordinate ``i``, as in
:mod:`linlayout.f2`), and every function works on all configurations at once.

Two independent ways to count a warp's wavefronts live here, so that they can check each other:

* :func:`closed_form_log2_degree` — the subspace formula of ``linlayout.conflicts`` (Lemma 9.4
  of the Linear Layouts paper, arXiv 2505.23819, generalised to sub-word accesses), through
  :func:`rank` (Gaussian elimination over F₂, vectorised across the batch);
* :func:`simulate_degree` — lists the bank words every lane of a phase touches, counts the
  distinct words per bank and takes the maximum. No subspace algebra.

Import it from a script in ``papers/`` or ``benchmarks/`` by putting ``papers/`` on
``sys.path`` (the scripts do this). numpy only; no linlayout import.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations, product

import numpy as np

__all__ = [
    "rank",
    "apply",
    "span_table",
    "popcount",
    "subspaces",
    "count_subspaces",
    "closed_form_log2_degree",
    "access_words",
    "bank_degree",
    "simulate_degree",
    "progress",
]

U64 = np.uint64
_POP16 = np.array([bin(i).count("1") for i in range(1 << 16)], dtype=np.uint8)


def popcount(x: np.ndarray) -> np.ndarray:
    """Number of set bits of each entry of an unsigned integer array (any shape, ≤ 64 bits)."""
    x = np.asarray(x).astype(U64)
    out = np.zeros(x.shape, dtype=np.int64)
    for s in range(0, 64, 16):
        out += _POP16[((x >> U64(s)) & U64(0xFFFF)).astype(np.intp)]
    return out


def rank(vectors: np.ndarray, nbits: int = 64) -> np.ndarray:
    """Dimension of the span of each configuration's vectors.

    Args:
        vectors: ``(..., m)`` unsigned ints; the last axis holds the ``m`` vectors of one
            configuration, each a bit vector of at most 64 bits.
        nbits: bits per vector (only checked: every vector must fit).

    Returns:
        ``(...)`` int64 ranks.

    Gaussian elimination over F₂ for every configuration at once, vector by vector: vector
    ``i`` is reduced by the basis vectors found before it (each has a *pivot*, its lowest set
    bit, that no later basis vector contains), and if something is left it joins the basis
    with its lowest set bit as pivot. ``m(m−1)/2`` numpy passes of ``(...)``-shaped arrays,
    independent of ``nbits``.

    Raises:
        ValueError: a vector has bits at or above ``nbits``.
    """
    v = np.asarray(vectors, dtype=U64)
    squeeze = v.ndim == 1
    if squeeze:
        v = v[None, :]
    if nbits < 64 and v.size and int(v.max()) >> nbits:
        raise ValueError(f"a vector does not fit in {nbits} bits")
    shape = v.shape[:-1]
    m = v.shape[-1]
    v = v.reshape(int(np.prod(shape, dtype=np.int64)), m)
    n = v.shape[0]
    basis = np.zeros((n, m), dtype=U64)
    pivot = np.zeros((n, m), dtype=U64)
    out = np.zeros(n, dtype=np.int64)
    zero = U64(0)
    for i in range(m):
        x = v[:, i].copy()
        for j in range(i):
            x ^= np.where((x & pivot[:, j]) != zero, basis[:, j], zero)
        basis[:, i] = x
        pivot[:, i] = x & (~x + U64(1))  # lowest set bit (0 when x == 0)
        out += x != zero
    out = out.reshape(shape)
    return out[0] if squeeze else out


def apply(columns: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Apply linear maps given by columns to inputs, batched.

    Args:
        columns: ``(..., n)`` unsigned ints: column ``i`` is the image of ``1 << i``.
        x: inputs, broadcastable against ``columns[..., 0]``.

    Returns:
        XOR of ``columns[..., i]`` over the set bits ``i`` of ``x`` (shape of the broadcast).
    """
    columns = np.asarray(columns, dtype=U64)
    x = np.asarray(x, dtype=U64)
    out = np.zeros(np.broadcast_shapes(columns.shape[:-1], x.shape), dtype=U64)
    for i in range(columns.shape[-1]):
        bit = (x >> U64(i)) & U64(1)
        out ^= np.where(bit.astype(bool), columns[..., i], U64(0))
    return out


def span_table(columns: np.ndarray) -> np.ndarray:
    """All ``2^n`` images of maps with ``n`` columns: ``out[..., x] = apply(columns, x)``.

    Args:
        columns: ``(..., n)`` unsigned ints.

    Returns:
        ``(..., 2^n)`` uint64 (Gray-code free: built by doubling, ``out[x | 2^i] = out[x] ^ c_i``).
    """
    columns = np.asarray(columns, dtype=U64)
    out = np.zeros(columns.shape[:-1] + (1,), dtype=U64)
    for i in range(columns.shape[-1]):
        out = np.concatenate([out, out ^ columns[..., i:i + 1]], axis=-1)
    return out


def subspaces(d: int) -> Iterator[tuple[int, ...]]:
    """Every subspace of F₂ᵈ, once, as its reduced row-echelon basis (ints, leading bit descending).

    A subspace of dimension ``k`` is fixed by its pivot positions ``p_1 > … > p_k`` and, in
    each basis vector, free bits below its pivot that are not other pivots. The count is the
    Gaussian binomial sum (:func:`count_subspaces`): 2, 5, 16, 67, 374, 2825 for d = 1…6.
    """
    for k in range(d + 1):
        for pivots in combinations(range(d - 1, -1, -1), k):
            pset = set(pivots)
            free = [[j for j in range(p) if j not in pset] for p in pivots]
            for bits in product(*[range(1 << len(f)) for f in free]):
                basis = []
                for p, f, b in zip(pivots, free, bits):
                    v = 1 << p
                    for i, j in enumerate(f):
                        if b >> i & 1:
                            v |= 1 << j
                    basis.append(v)
                yield tuple(basis)


def count_subspaces(d: int, k: int | None = None) -> int:
    """Number of subspaces of F₂ᵈ (of dimension ``k`` if given): Gaussian binomials at q = 2."""
    def gauss(n: int, r: int) -> int:
        num = den = 1
        for i in range(r):
            num *= (1 << (n - i)) - 1
            den *= (1 << (i + 1)) - 1
        return num // den
    if k is not None:
        return gauss(d, k)
    return sum(gauss(d, r) for r in range(d + 1))


def closed_form_log2_degree(lane_offs: np.ndarray, z: int, seg_lo: int, nbits: int) -> np.ndarray:
    """log2 of the conflict degree of one phase, by the subspace formula (batched).

    Args:
        lane_offs: ``(..., p)`` element offsets of the ``p`` lane bits of one phase.
        z: ``max(k, w)``: vector bits plus, for elements narrower than a bank word, the
            within-word bits (the lowest offset bits).
        seg_lo: first segment bit of the element offset, ``log2(row_bits / element_bits)``.
        nbits: bits of the element offset.

    Returns:
        ``(...)`` ints ``e`` with degree ``2^e``: ``e = rank(Λ >> z) − rank((Λ >> z) mod
        2^(seg_lo−z))``, which equals ``dim(span(segment bits) ∩ (span(Λ) + Z))`` minus the
        within-word part — the formula of ``linlayout.conflicts`` (docs/theory.md §2).
    """
    lane_offs = np.asarray(lane_offs, dtype=U64)
    hi = lane_offs >> U64(z)
    bank_mask = U64((1 << max(seg_lo - z, 0)) - 1)
    width = max(nbits - z, 1)
    return rank(hi, width) - rank(hi & bank_mask, width)


def access_words(offsets: np.ndarray, element_log2: int, word_log2: int = 5) -> np.ndarray:
    """Bank-word indices an element touches: ``(...)`` offsets → ``(..., words_per_element)``.

    A word is ``2^word_log2`` bits; an element of ``2^element_log2`` bits at element offset
    ``x`` covers bits ``[x·e, (x+1)·e)``, i.e. word ``x·e // 32`` when ``e ≤ 32`` and words
    ``x·(e/32) … x·(e/32) + e/32 − 1`` when ``e > 32``.
    """
    offsets = np.asarray(offsets).astype(np.int64)
    if element_log2 <= word_log2:
        return (offsets >> (word_log2 - element_log2))[..., None]
    per = 1 << (element_log2 - word_log2)
    return offsets[..., None] * per + np.arange(per)


def _degree_bitmap(bank: np.ndarray, seg: np.ndarray, nbanks: int) -> np.ndarray:
    """Max over banks of distinct segments, ``seg < 64``: one presence bitmap per bank.

    Every request ORs the bit of its segment into its bank's bitmap (``np.bitwise_or.at``, so
    repeated words are counted once); the degree is the largest popcount.
    """
    r, length = bank.shape
    top = int(seg.max()) if seg.size else 0
    dtype = np.uint16 if top < 16 else np.uint32 if top < 32 else U64
    pres = np.zeros(r * nbanks, dtype=dtype)
    idx = bank.astype(np.intp, copy=False) + (np.arange(r, dtype=np.intp) * nbanks)[:, None]
    bits = np.left_shift(dtype(1), seg.astype(dtype, copy=False))
    np.bitwise_or.at(pres, idx.ravel(), bits.ravel())
    counts = _POP16[pres] if dtype == np.uint16 else popcount(pres)
    return counts.reshape(r, nbanks).max(axis=1).astype(np.int64)


def _degree_sort(bank: np.ndarray, seg: np.ndarray) -> np.ndarray:
    """Max over banks of distinct segments by sorting (bank, segment) keys; any size."""
    key = (bank.astype(np.int64) << 40) | seg.astype(np.int64)
    s = np.sort(key, axis=-1)
    b = s >> 40
    newk = np.ones(s.shape, dtype=bool)
    newk[:, 1:] = s[:, 1:] != s[:, :-1]
    newb = np.ones(s.shape, dtype=bool)
    newb[:, 1:] = b[:, 1:] != b[:, :-1]
    c = np.cumsum(newk, axis=1)
    start = np.maximum.accumulate(np.where(newb, c, 0), axis=1)
    return (c - start + 1).max(axis=1)


def bank_degree(words: np.ndarray, banks_log2: int) -> np.ndarray:
    """Conflict degree of each request set: the most distinct words any one bank is asked for.

    Args:
        words: ``(..., L)`` bank-word indices requested together (one phase of one warp
            instruction); repeated words are served once (broadcast / merged store).
        banks_log2: log2 of the number of banks (word ``w`` lives in bank ``w mod 2^b``).

    Returns:
        ``(...)`` int64 degrees (1 = conflict-free).
    """
    words = np.asarray(words)
    if words.dtype.kind not in "iu":
        raise TypeError(f"words must be integers, got {words.dtype}")
    shape = words.shape[:-1]
    w = words.reshape(-1, words.shape[-1])
    nb = 1 << banks_log2
    bank = w & (nb - 1)
    seg = w >> banks_log2
    if w.size and seg.max() < 64:
        out = _degree_bitmap(bank, seg, nb)
    else:
        out = _degree_sort(bank, seg)
    return out.reshape(shape)


def simulate_degree(lane_offs: np.ndarray, vector_log2: int, element_log2: int,
                    banks_log2: int = 5, word_log2: int = 5, warp_log2: int = 5,
                    phase_masks: tuple[int, ...] | None = None,
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Brute-force degree and wavefronts of one warp instruction, batched.

    Args:
        lane_offs: ``(N, warp_log2)`` element offset of each lane bit (zeros = broadcast);
            lane ``t`` reads the elements at offsets ``P(t) ^ j`` for ``j < 2^vector_log2``
            (the vector is the lowest offset bits).
        vector_log2, element_log2: log2 of the vector (elements) and the element (bits).
        banks_log2, word_log2, warp_log2: log2 of the banks, bits per bank word, lanes.
        phase_masks: lane masks whose parities index the phase (as
            ``linlayout.hardware.HardwareModel.phase_masks``); default: by lane id,
            ``row_bits / max(access_bits, word_bits)`` consecutive lanes per phase
            (docs/hardware-model.md: 8-byte accesses in 2 half-warp phases, 16-byte in 4).

    Returns:
        ``(degree, wavefronts)``, each ``(N,)``: max and sum over the phases of the most
        distinct words any bank is asked for.
    """
    lane_offs = np.asarray(lane_offs, dtype=U64)
    n = lane_offs.shape[0]
    table = span_table(lane_offs).astype(np.int64)  # (N, 2^warp): offset of each lane
    if phase_masks is None:
        access_log2 = max(vector_log2 + element_log2, word_log2)
        p = min(warp_log2, word_log2 + banks_log2 - access_log2)
        phase_masks = tuple(1 << i for i in range(p, warp_log2))
    lanes = np.arange(1 << warp_log2)
    phase_id = np.zeros(lanes.shape, dtype=np.int64)
    for j, m in enumerate(phase_masks):
        phase_id |= (popcount(lanes & m) & 1) << j
    order = np.argsort(phase_id, kind="stable")  # lanes grouped by phase
    nphase = 1 << len(phase_masks)
    table = table[:, order]
    elems = table[:, :, None] ^ np.arange(1 << vector_log2)[None, None, :]  # (N, lanes, v)
    words = access_words(elems, element_log2, word_log2)  # (N, lanes, v, words/element)
    words = words.reshape(n, nphase, -1)
    deg = bank_degree(words, banks_log2)  # (N, nphase)
    return deg.max(axis=1), deg.sum(axis=1)


def progress(iterable, total: int | None = None, desc: str = "", enabled: bool = True):
    """Wrap ``iterable`` in a tqdm progress bar when tqdm is installed (stderr), else a no-op."""
    if not enabled:
        return iterable
    try:
        from tqdm import tqdm
    except ImportError:
        return iterable
    return tqdm(iterable, total=total, desc=desc, leave=False, mininterval=0.5)
