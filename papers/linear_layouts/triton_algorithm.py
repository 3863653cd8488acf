"""Triton's generic swizzling algorithm, re-expressed in Python from its documentation.

Source: ``lib/Tools/GenericSwizzling.cpp`` in triton-lang/triton (the ld.shared/st.shared
path, ``optimalSwizzlingLdSt``, in the version with ``numBanks`` and lane tiles that
``unittest/Dialect/TritonGPU/SwizzleTest.cpp`` exercises), read for its comments and the steps
they describe. This is an independent re-expression of those steps on linlayout's flat-int
columns, not a translation of the C++. It exists so that ``compare_synthesizers.py`` can put
Triton's choice next to :func:`linlayout.synthesize_swizzle` on the same layout pairs, each
measured by the same exact counter. The steps, as Triton documents them:

1. **Vector** (``getVecBasisLdSt``): the register bases common to both layouts (for unit
   vectors: those of the source that also occur in the destination, in source order;
   otherwise the intersection of the spans, computed as the orthogonal complement of the sum
   of the orthogonal complements), capped at 128-bit accesses. If that is narrower than a
   32-bit bank word, it is filled up to one word: first with one side's remaining registers
   that are *warp* bases of the other side (the side with more of them; on a tie the one with
   the smaller basis), then with warp bases common to both, then with warp bases of either
   side in turn — different warps never conflict — and trimmed to one word.
2. **Tiles** (``getLaneTile``): each side's lanes, minus the last
   ``max(0, log2(vector_bits / 32) + lane_bits − log2(num_banks))`` (the lanes the hardware
   serves in other phases).
3. **Segment** (``computeSegment``): the unit vectors in neither side's ``vector + tile`` set;
   if too few, the set differences ``A = src − dst``, ``B = dst − src`` (as *sets of basis
   vectors*), sorted, smaller first, paired by position and XORed; pairs that do not fit are
   replaced by unpaired ``A`` and ``B`` vectors (accepted conflicts).
4. **Bank**: the unit vectors at the non-pivot positions of the reduced row-echelon form of
   ``vector + segment`` (pivot = lowest set bit, as Triton's ``f2reduce``); when the vector
   is narrower than 128 bits, bank bases that are registers of the side that filled the
   vector (else of the side with more of them) are moved first, so that side can vectorise
   further.
5. **Reps** (``buildReps``): segment bases that are registers of both sides become a ``reps``
   dim (the tile is reused).

Step 3 treats subspaces as sets of basis vectors, which is exact only when both sides' bases
are unit vectors; on general linear layouts it can pick dependent segment vectors (then the
result is not a bijection — reported here as ``valid = False``) or conflicting ones.

Triton's own conflict estimate (``bankConflictsLdSt``) is re-expressed too: per side,
``2^dim(span(segment) ∩ span(tile))`` − 1 extra wavefronts with the tile of step 2; it does
not model the within-word sharing of sub-word elements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from linlayout import LinearLayout, f2

__all__ = ["TritonSwizzle", "triton_swizzle", "triton_estimate"]


@dataclass(frozen=True)
class TritonSwizzle:
    """The result of the re-expressed algorithm.

    Attributes:
        layout: memory layout with in dims ``vector, bank, segment, reps`` (empty dims dropped),
            or ``None`` when the chosen bases are dependent (``valid`` is False).
        valid: the bases form a bijection onto the tensor.
        vector: vector bases (flat tensor ints), in order.
        bank, segment, reps: the other bases.
        estimate: Triton's own ``(write, read)`` extra-wavefront estimate (``degree − 1``).
        notes: what happened on the way (for the report).
    """

    layout: LinearLayout | None
    valid: bool
    vector: tuple[int, ...]
    bank: tuple[int, ...]
    segment: tuple[int, ...]
    reps: tuple[int, ...]
    estimate: tuple[int, int] | None
    notes: tuple[str, ...] = field(default=())


def _is_unit(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


def _rref_low(vectors: list[int]) -> list[int]:
    """Reduced row-echelon rows with the pivot at each row's lowest set bit (f2reduce style)."""
    rows: list[int] = []
    for v in vectors:
        for r in rows:
            if v & (r & -r):
                v ^= r
        if v:
            low = v & -v
            rows = [r ^ v if r & low else r for r in rows]
            rows.append(v)
    return rows


def _orthogonal(vectors: list[int], d: int) -> list[int]:
    """Basis of {x : popcount(x & v) even for all v} in F₂ᵈ: one vector per non-pivot column."""
    rows = _rref_low(vectors)
    pivots = {(r & -r).bit_length() - 1: r for r in rows}
    out = []
    for col in range(d):
        if col in pivots:
            continue
        x = 1 << col
        for p, r in pivots.items():
            if r >> col & 1:
                x ^= 1 << p
        out.append(x)
    return out


def _unit_complement(vectors: list[int], d: int) -> list[int]:
    """Unit vectors at the non-pivot columns of the low-pivot RREF of ``vectors``."""
    pivots = {(r & -r).bit_length() - 1 for r in _rref_low(vectors)}
    return [1 << c for c in range(d) if c not in pivots]


def _intersection(b1: list[int], b2: list[int], d: int) -> list[int]:
    """Triton's intersection: set membership for unit vectors, else orthogonal complements."""
    if all(_is_unit(b) for b in b1) and all(_is_unit(b) for b in b2):
        other = set(b2)
        return [b for b in b1 if b in other]
    return _orthogonal(_orthogonal(b1, d) + _orthogonal(b2, d), d)


def _log2(x: int) -> int:
    return max(x, 1).bit_length() - 1


def _vector(reg_s: list[int], reg_d: list[int], warp_s: list[int], warp_d: list[int],
            block_s: list[int], bits: int, d: int) -> tuple[list[int], bool | None]:
    """Step 1. Returns (vector bases, which side filled the bank word: True src, False dst,
    None when the common registers already fill it)."""
    vec = _intersection(reg_s, reg_d, d)[: _log2(128 // bits)]
    src_fills: bool | None = None
    if (1 << len(vec)) * bits < 32:
        per_word = _log2(32 // bits)
        ws = [w for w in warp_s if w]
        wd = [w for w in warp_d if w]
        rs = _intersection([r for r in reg_s if r not in vec], wd, d)
        rd = _intersection([r for r in reg_d if r not in vec], ws, d)
        if rs and len(rs) == len(rd):
            src_fills = min(rs) < min(rd)
        else:
            src_fills = len(rs) > len(rd)
        vec = vec + (rs if src_fills else rd)
        if len(vec) < per_word:
            vec = vec + _intersection(ws, wd, d)
        i = 0
        while len(vec) < per_word and (i < len(ws) or i < len(wd)):
            if i < len(ws) and ws[i] not in vec:
                vec.append(ws[i])
            if len(vec) < per_word and i < len(wd) and wd[i] not in vec and wd[i] not in block_s:
                vec.append(wd[i])
            i += 1
        vec = vec[:per_word]
    return vec, src_fills


def _tile(lanes: list[int], vector_len: int, bits: int, num_banks: int) -> list[int]:
    """Step 2: the lanes served in one phase."""
    log2_vec = _log2(max(1, (1 << vector_len) * bits // 32))
    drop = max(0, log2_vec + len(lanes) - _log2(num_banks))
    return lanes[: len(lanes) - drop]


def set_difference_segment(bank_s: list[int], bank_d: list[int], block: list[int], d: int,
             want: int) -> list[int]:
    """Step 3 (computeSegment), on sets of basis vectors."""
    set_s = {x for x in bank_s + block if x}
    set_d = {x for x in bank_d + block if x}
    seg = [1 << b for b in range(d) if (1 << b) not in set_s and (1 << b) not in set_d]
    if len(seg) >= want:
        return seg[:want]
    a = sorted(x for x in set_s if x not in set_d)
    b = sorted(x for x in set_d if x not in set_s)
    if len(a) > len(b):
        a, b = b, a
    conflicts = min(max(0, want - len(a) - len(seg)), len(a))
    seg += [a[i] ^ b[i] for i in range(conflicts, len(a))]
    seg += a[:conflicts] + b[:conflicts]
    return seg[:want]


def triton_estimate(segment: list[int], tile_s: list[int], tile_d: list[int],
                    d: int) -> tuple[int, int]:
    """Triton's ``(write, read)`` estimate: ``2^dim(segment ∩ tile) − 1`` per side."""
    write = (1 << len(_intersection(segment, tile_s, d))) - 1
    read = (1 << len(_intersection(segment, tile_d, d))) - 1
    return write, read


def triton_swizzle(src: LinearLayout, dst: LinearLayout, element_bits: int,
                   num_banks: int = 32) -> TritonSwizzle:
    """Run the re-expressed Triton algorithm on a (store, load) pair.

    Args:
        src, dst: distributed layouts (in dims among register, lane, warp, block) over the same
            out dims; ``dst``'s out dims are put in ``src``'s order.
        element_bits: bits per element (1 … 128).
        num_banks: 32-bit banks per row (Triton's ``bankBits = num_banks · 32``).

    Returns:
        A :class:`TritonSwizzle` (``layout`` is None when the bases are dependent).
    """
    dst = dst.transpose_outs(src.out_dim_names)
    d = src.total_out_bits
    notes: list[str] = []
    # Triton removes broadcast (zero) registers before synthesis.
    reg_s = [x for x in src.dim_columns("register") if x]
    reg_d = [x for x in dst.dim_columns("register") if x]
    lane_s = list(src.dim_columns("lane"))
    lane_d = list(dst.dim_columns("lane"))
    block = [x for x in src.dim_columns("block") if x]
    if block:
        raise ValueError("layouts spanning several CTAs (block bases) are not handled here")
    vec, src_fills = _vector(reg_s, reg_d, list(src.dim_columns("warp")),
                             list(dst.dim_columns("warp")), block, element_bits, d)
    tile_s = _tile(lane_s, len(vec), element_bits, num_banks)
    tile_d = _tile(lane_d, len(vec), element_bits, num_banks)
    len_bank = min(_log2(num_banks * 32 // ((1 << len(vec)) * element_bits)),
                   d - len(vec) - len(block))
    len_seg = d - len_bank - len(vec) - len(block)
    seg = set_difference_segment(vec + tile_s, vec + tile_d, block, d, len_seg)
    bank = _unit_complement(vec + seg + block, d)
    if _log2(max(1, (1 << len(vec)) * element_bits // 32)) < 2:
        in_s = [b for b in bank if b in reg_s]
        in_d = [b for b in bank if b in reg_d]
        if src_fills is None:
            first = in_s if len(in_s) > len(in_d) else in_d
        else:
            first = in_s if src_fills else in_d
        bank = first + [b for b in bank if b not in first]
    reps = [x for x in seg if x in set(reg_s) and x in set(reg_d)]
    seg_only = [x for x in seg if x not in reps]
    cols = vec + bank + seg_only + reps
    valid = len(cols) == d - len(block) and f2.rank(cols + block) == d
    layout = None
    if valid:
        names = [("vector", vec), ("bank", bank), ("segment", seg_only), ("reps", reps)]
        layout = LinearLayout.from_columns([c for _, cs in names for c in cs],
                                           {n: 1 << len(c) for n, c in names if c},
                                           src.out_dims)
    else:
        notes.append(f"vector+bank+segment bases have rank {f2.rank(cols + block)} of {d}: "
                     "not a bijection")
    est = triton_estimate(seg_only, tile_s, tile_d, d) if valid else None
    return TritonSwizzle(layout=layout, valid=valid, vector=tuple(vec), bank=tuple(bank),
                         segment=tuple(seg_only), reps=tuple(reps), estimate=est,
                         notes=tuple(notes))
