"""The factorisation Triton 3.9 uses to convert a layout inside a warp with shuffles.

A conversion that keeps every element in its warp is a permutation ``P`` of the hardware
index bits — the register bits ``r_0 … r_{R-1}`` and the lane bits ``l_0 … l_{L-1}`` — once
broadcast registers are removed and the smaller side is padded with zero bases. Triton
(``getWarpLayoutConvertDecomposition`` and ``getTranspositionSelectors``,
``lib/Analysis/Utility.cpp``; the proof sketch in the Linear Layouts paper, arXiv 2505.23819
§5.3) writes it as

    P = P_mixed ∘ P_lane ∘ P_reg

where ``P_reg`` and ``P_lane`` permute register bits and lane bits only and ``P_mixed`` is a
product of disjoint transpositions ``(r_i l_j)``. ``P_reg`` is free (a renaming of
registers); each mixed transposition costs selects and shuffles; a nontrivial ``P_lane``
turns the butterfly shuffles into indexed ones. ``cvtNeedsWarpShuffle`` accepts the shuffle
path only for fewer than two mixed transpositions.

When elements are narrower than 32 bits, ``2**n_pack`` of them are packed into one 32-bit
register before the shuffles (``n_pack = min(log2 clamp(32 / element_bits, 1, 4),
R - m)``); register bits below ``n_pack`` are then *bytes* of a register, moved by
``prmt`` (byte permute) instead of ``selp``: each mixed transposition carries the four
``prmt`` selectors (:class:`Transposition`).

This module reproduces that factorisation exactly (including the order of the
transpositions and the selectors, which decide what is emitted); :mod:`.shuffle` lowers it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import f2
from .._checks import instance_of
from ..errors import LayoutError
from ..layout import LinearLayout

__all__ = ["PLAIN_BOTTOM", "PLAIN_TOP", "Transposition", "WarpDecomposition", "decompose",
           "hardware_permutation", "warp_broadcast_bits", "warp_lane_columns"]

#: ``prmt`` selectors that keep both halves in place: a ``selp`` does the job.
PLAIN_TOP = 0x3210
PLAIN_BOTTOM = 0x7654


@dataclass(frozen=True)
class Transposition:
    """One mixed transposition ``(r_register l_lane)`` with its byte-permute selectors.

    Attributes:
        register: the register bit (counted over packed registers plus ``n_pack`` byte bits:
            the 32-bit register index bit is ``register - n_pack``).
        lane: the lane bit.
        top_pre, bottom_pre: ``prmt`` selectors of the stage before the shuffle.
        top_post, bottom_post: those of the stage after it. ``0x3210``/``0x7654`` mean a
            plain ``selp``.
    """

    register: int
    lane: int
    top_pre: int = PLAIN_TOP
    bottom_pre: int = PLAIN_BOTTOM
    top_post: int = PLAIN_TOP
    bottom_post: int = PLAIN_BOTTOM

    def plain(self, pre: bool) -> bool:
        """Whether the stage (before the shuffle when ``pre``) is a ``selp`` stage."""
        if pre:
            return self.top_pre == PLAIN_TOP and self.bottom_pre == PLAIN_BOTTOM
        return self.top_post == PLAIN_TOP and self.bottom_post == PLAIN_BOTTOM

    @property
    def shippable(self) -> bool:
        """Triton's ``isShippable``: the out-of-place ``Ship`` method applies (no register
        mixes bytes of two registers on both sides of the shuffle)."""
        pre, post = self.top_pre, self.top_post
        return pre == post or (pre, post) in ((0x5140, 0x6240), (0x6420, 0x5410),
                                              (0x3210, 0x3120))


@dataclass(frozen=True)
class WarpDecomposition:
    """Triton's ``DecomposedWarpConversion``.

    Attributes:
        register_perm: ``P_reg`` as the image index of each register bit.
        lane_perm: ``P_lane`` as the image index of each lane bit.
        transpositions: the mixed transpositions, in emission order.
        n_pack: log2 of the elements packed per 32-bit register.
        register_bits: register bits after padding (broadcast removed).
        lane_bits: lane bits after padding, the destination's warp bits included.
        warp_bits: how many of the last ``lane_bits`` are the destination's warp bits — a
            conversion whose warp bases differ only by source lanes (a source broadcast
            over all or some warp bits, :func:`warp_broadcast_bits`) is converted
            within each warp as if the warp id were the high bits of the lane id (the
            thread id ``lane + warp·lanes``): the shuffle index reads them, while a select on
            such a bit reads the lane id, where it is always 0. Zero otherwise.
    """

    register_perm: tuple[int, ...]
    lane_perm: tuple[int, ...]
    transpositions: tuple[Transposition, ...]
    n_pack: int
    register_bits: int
    lane_bits: int
    warp_bits: int = 0

    @property
    def hardware_lane_bits(self) -> int:
        """Lane bits of the hardware lane id (``lane_bits - warp_bits``)."""
        return self.lane_bits - self.warp_bits

    @property
    def lane_perm_trivial(self) -> bool:
        """``P_lane`` is the identity: the shuffles are butterflies (``shfl.bfly``)."""
        return all(v == i for i, v in enumerate(self.lane_perm))

    def apply_register_perm(self, index: int) -> int:
        """``P_reg`` applied to a register index."""
        out = 0
        for b, img in enumerate(self.register_perm):
            if index >> b & 1:
                out ^= 1 << img
        return out

    def lane_perm_inverse(self) -> tuple[int, ...]:
        """``P_lane⁻¹`` as image indices."""
        inv = [0] * len(self.lane_perm)
        for i, v in enumerate(self.lane_perm):
            inv[v] = i
        return tuple(inv)


def _unit_index(v: int) -> int:
    """The index of a unit vector (LayoutError otherwise: Triton's walk needs a
    permutation)."""
    if v == 0 or v & (v - 1):
        raise LayoutError("the conversion inside a warp is not a permutation of register and "
                          "lane bits (a basis mixes several bits); Triton's shuffle "
                          "decomposition does not apply")
    return v.bit_length() - 1


def _padded(cols: list[int], n: int) -> list[int]:
    return cols + [0] * (n - len(cols))


def decompose(src: LinearLayout, dst: LinearLayout, element_bits: int) -> WarpDecomposition:
    """Triton's ``getWarpLayoutConvertDecomposition(src, dst, element_bits)``.

    ``src`` and ``dst`` are distributed layouts of one tensor (in dims register/lane/…);
    only their register and lane bases are read: call it for conversions that keep data in
    each warp. Broadcast (zero) register bases are removed first; the register and lane dims
    are padded with zero bases to the larger side. When the warp bases differ only by what
    the source's lanes hold (:func:`warp_broadcast_bits`: a source broadcast over all or
    some warp bits), the destination's warp bits join its lane bits as the high bits of
    the thread id (``WarpDecomposition.warp_bits``), each with the column
    ``dst.warp[i] ^ src.warp[i]`` (:func:`warp_lane_columns`): what the 3.9 wheel's code
    for such converts computes (checked on compiled kernels,
    ``papers/triton_lowering/shuffle_probes.py``, ``cvt_warp_slice_probes.py``).

    Raises:
        LayoutError: the register/lane conversion is not a permutation of hardware bits
            (Triton's cycle walk assumes one), or a layout has no lane dim.
    """
    nxt, n_reg, n_lane, n_warp = hardware_permutation(src, dst)
    n = n_reg + n_lane
    reg_perm = [0] * n_reg
    lane_perm = [0] * n_lane
    mixed: list[tuple[int, int]] = []
    seen = [False] * n
    for start in range(n):
        if seen[start]:
            continue
        cur = start
        reg_start = lane_start = lane_end = reg_end = -1
        while True:
            seen[cur] = True
            nx = nxt[cur]
            cur_reg, nx_reg = cur < n_reg, nx < n_reg
            if cur_reg and nx_reg:
                reg_perm[cur] = nx
            elif not cur_reg and not nx_reg:
                lane_perm[cur - n_reg] = nx - n_reg
            elif cur_reg:
                reg_start, lane_start = cur, nx - n_reg
            else:
                reg_end, lane_end = nx, cur - n_reg
            if reg_end >= 0:
                # (.. r_m l_j .. l_k r_i ..) = (r_i l_j) (.. r_m r_i ..) (l_j .. l_k)
                reg_perm[reg_start] = reg_end
                lane_perm[lane_end] = lane_start
                mixed.append((reg_end, lane_start))
                reg_start = lane_start = lane_end = reg_end = -1
            cur = nx
            if cur == start:
                break
    m = len(mixed)
    prelim = min(4, max(1, 32 // element_bits)).bit_length() - 1
    n_pack = max(0, min(prelim, n_reg - m))
    trans = _selectors(mixed, reg_perm, n_pack)
    return WarpDecomposition(tuple(reg_perm), tuple(lane_perm), tuple(trans), n_pack, n_reg,
                             n_lane, n_warp)


def hardware_permutation(src: LinearLayout, dst: LinearLayout
                         ) -> tuple[list[int], int, int, int]:
    """The permutation ``P`` of hardware index bits that a conversion within each warp is,
    as :func:`decompose` builds it (``getWarpLayoutConvertDecomposition``: broadcast
    registers removed, register and lane dims padded with zero bases, zero columns paired
    in order — the source's zero warp columns, when the destination's warp bits join the
    lanes, before its zero register and lane columns: measured, Triton's lowering then
    folds the transpositions' lane conditions where the other order would condition them
    on a lane bit the source broadcasts).

    Returns:
        ``(image, register_bits, lane_bits, warp_bits)``: ``image[b]`` is the destination
        bit that source bit ``b`` becomes, bits numbered registers first, then lanes (the
        destination's warp bits, when :func:`warp_broadcast_bits` is nonzero, last).

    Raises:
        LayoutError: as :func:`decompose`.
    """
    s_reg = [c for c in src.dim_columns("register") if c]
    t_reg = [c for c in dst.dim_columns("register") if c]
    s_lane, t_lane = list(src.dim_columns("lane")), list(dst.dim_columns("lane"))
    n_warp = warp_broadcast_bits(src, dst)
    if n_warp:
        width = max(len(s_lane), len(t_lane))
        s_lane = _padded(s_lane, width + n_warp)
        t_lane = _padded(t_lane, width) + list(warp_lane_columns(src, dst))
    n_reg = max(len(s_reg), len(t_reg))
    n_lane = max(len(s_lane), len(t_lane))
    s_cols = _padded(s_reg, n_reg) + _padded(s_lane, n_lane)
    t_cols = _padded(t_reg, n_reg) + _padded(t_lane, n_lane)
    n = n_reg + n_lane
    # the skeleton of P: T⁻¹ ∘ S (free variables zero, as Triton's lstsq); then the zero
    # columns: common zeros are fixed points, the others are paired in order
    sols = f2.solve_many(t_cols, s_cols)
    perm: list[int] = []
    for i, x in enumerate(sols):
        if x is None:
            raise LayoutError("the conversion moves elements between warps: not a shuffle "
                              "conversion")
        perm.append(x)
    src_zero = [i for i in range(n) if s_cols[i] == 0 and t_cols[i] != 0]
    dst_zero = [i for i in range(n) if t_cols[i] == 0 and s_cols[i] != 0]
    # the source's warp bits (appended last, all zero there) pair first: with a broadcast
    # source lane bit, the other order conditions the transpositions on that lane bit
    # where Triton's lowering folds them (papers/triton_lowering/README.md, "Sources
    # broadcast over some warp bits": 8f9dfd, then 16 of 16 held-out kernels)
    first = n - n_warp
    src_zero = [i for i in src_zero if i >= first] + [i for i in src_zero if i < first]
    for i in range(n):
        if s_cols[i] == 0 and t_cols[i] == 0:
            perm[i] = 1 << i
    for a, b in zip(src_zero, dst_zero):
        perm[a] = 1 << b
    nxt = [_unit_index(v) for v in perm]
    if sorted(nxt) != list(range(n)):
        raise LayoutError("the conversion inside a warp is not a permutation of register and "
                          "lane bits; Triton's shuffle decomposition does not apply")
    return nxt, n_reg, n_lane, n_warp


def warp_broadcast_bits(src: LinearLayout, dst: LinearLayout) -> int:
    """The destination's warp bits (all of them) when the convert stays within each warp
    although the warp bases differ: the warp bases differ only where the **source's** is
    zero (the source is broadcast over that warp bit), every destination warp basis
    differs from the source's of the same index by a vector the source's **lanes** hold
    (``dst.warp[i] ^ src.warp[i]`` in the span of ``src.lane``), and at least one differs.
    Each destination thread then finds its elements in the lanes of its own warp — the
    source is broadcast over the warp bits where its basis is zero, so every warp holds
    those elements — and the warp id only picks which lanes it reads (the destination's
    warp bits join the lane bits as the high bits of the thread id, with the columns
    ``dst.warp[i] ^ src.warp[i]``; see :func:`hardware_permutation`).

    0 otherwise: the warp bases are equal (the minimal conversion drops the warp dim), the
    layouts have different warp counts, a difference needs the source's registers
    (Triton's decomposition requires that source registers do not depend on the warp:
    shared memory) or another warp, or a warp basis the source does not broadcast
    differs: even where the difference is held by the source's lanes (every element then
    stays in its warp), Triton 3.9 goes through shared memory (measured, not read from
    its source: ``papers/triton_lowering/cvt_lane_warp_probes.py``, 13 of 13 compiled
    kernels whose destination changes such a warp basis by source lanes).

    A source broadcast over every warp (each warp holds the whole tensor) is the case
    first measured; a source broadcast over some warp bits (a slice of a blocked layout
    whose sliced dim had warps) follows the same rule. Both checked on compiled kernels
    (``papers/triton_lowering/shuffle_probes.py``, ``papers/triton_lowering/cvt_warp_slice_probes.py``);
    the rule is read from Triton's description of ``getWarpLayoutConvertDecomposition``
    (``include/triton/Analysis/Utility.h``: "warp/CTA-dependent lane selection", "source
    registers must not depend on warp/CTA coordinates") and the held-out compiles, not from
    the 3.9 source of ``cvtNeedsWarpShuffle``, which was not available.

    Raises:
        LayoutError: ``src`` or ``dst`` not a LinearLayout; never for layouts of one
            tensor (other inputs as ``f2``).
    """
    instance_of(src, LinearLayout, "src")
    instance_of(dst, LinearLayout, "dst")
    s_warp, t_warp = src.dim_columns("warp"), dst.dim_columns("warp")
    if len(s_warp) != len(t_warp) or tuple(s_warp) == tuple(t_warp):
        return 0
    if any(s and s != t for s, t in zip(s_warp, t_warp)):
        return 0  # a warp bit the source does not broadcast changes: shared memory
    lanes = f2.echelon(list(src.dim_columns("lane")))
    if not all(f2.in_span(s ^ t, lanes) for s, t in zip(s_warp, t_warp)):
        return 0
    return len(t_warp)


def warp_lane_columns(src: LinearLayout, dst: LinearLayout) -> tuple[int, ...]:
    """Per destination warp basis, the tensor offset its warp bit adds to the source lanes
    a thread reads (``dst.warp[i] ^ src.warp[i]``, 0 where the bases are equal) — the
    destination columns :func:`hardware_permutation` appends to the lane columns when
    :func:`warp_broadcast_bits` is nonzero; () when it is 0.

    Raises:
        LayoutError: as :func:`warp_broadcast_bits`.

    Source: as :func:`warp_broadcast_bits` (compiled kernels,
    ``papers/triton_lowering/cvt_warp_slice_probes.py``).
    """
    if not warp_broadcast_bits(src, dst):
        return ()
    return tuple(s ^ t for s, t in zip(src.dim_columns("warp"), dst.dim_columns("warp")))


def _permute_selector(sel: int, bit: int, n_pack: int) -> int:
    """Exchange the selector nibble bit of byte bit ``bit`` with the high (register) bit."""
    lo = bit + (2 - n_pack)
    hi_mask = 0x4444
    lo_mask = (0x1111 << lo) & 0xFFFF
    fixed = sel & ~hi_mask & ~lo_mask & 0xFFFF
    shift = 2 - lo
    return (fixed | ((hi_mask & sel) >> shift) | ((lo_mask & sel) << shift)) & 0xFFFF


def _selectors(mixed: list[tuple[int, int]], reg: list[int], n_pack: int
               ) -> list[Transposition]:
    """``getTranspositionSelectors``: fold permutations of the low (byte) register bits into
    the mixed transpositions as ``prmt`` selectors; ``reg`` (``P_reg``) is updated in
    place."""
    if n_pack == 0:
        return [Transposition(r, l) for r, l in mixed]

    def gen(head: int, tail: int, low_bits) -> tuple[int, int]:
        top, bot = PLAIN_TOP, PLAIN_BOTTOM
        for b in low_bits:
            top, bot = _permute_selector(top, b, n_pack), _permute_selector(bot, b, n_pack)
            if b != head and b != tail:
                reg[b] = b
        return top, bot

    paired = {r for r, _ in mixed}

    def nxt(b: int) -> int:
        return reg[b]

    def next_high_free(p: tuple[int, int]) -> bool:
        cur = p[0]
        while True:
            if cur >= n_pack:
                return cur == p[0] or cur not in paired
            cur = nxt(cur)
            if cur == p[0]:
                return False

    mixed = [p for p in mixed if next_high_free(p)] + [p for p in mixed
                                                       if not next_high_free(p)]

    def prev(b: int) -> int:
        tail, cur = b, nxt(b)
        while cur != b:
            tail, cur = cur, nxt(cur)
        return tail

    def find_partner(low: int, pre: list[int]) -> int:
        if n_pack == 2:
            other = 1 - low
            b = nxt(other)
            if nxt(low) == low and b >= n_pack and b not in paired and other not in paired:
                pre.append(other)
                reg[prev(other)] = b
                paired.add(b)
                return b
        cand = n_pack
        while cand in paired:
            cand += 1
        paired.add(cand)
        return cand

    out: list[Transposition] = []
    for r_bit, l_bit in mixed:
        cycle = [r_bit]
        c = nxt(r_bit)
        while c != r_bit:
            cycle.append(c)
            c = nxt(c)

        def boundary(b: int) -> bool:
            return b >= n_pack or (b in paired and b != r_bit)

        fwd = next((i for i, b in enumerate(cycle) if boundary(b)), len(cycle))
        rev = cycle[::-1]
        bwd = next((i for i, b in enumerate(rev) if boundary(b)), len(rev))
        post = cycle[:fwd]
        pre = rev[:bwd]
        partner = -1
        if fwd != len(cycle):
            f = cycle[fwd]
            if f == r_bit or f not in paired:
                head = partner = f
            else:
                head = post[0]
                pre.append(head)
                post = post[:1]
                paired.discard(head)
            tail = rev[bwd]
            if tail < n_pack and tail in paired:
                pre.insert(0, tail)
        else:
            if nxt(r_bit) != r_bit and nxt(r_bit) in paired:
                pre.pop(0)
                post.pop()
                paired.discard(post[0])
                head, tail = r_bit, nxt(r_bit)
            else:
                if len(post) == 2:
                    post.pop()
                head = tail = pre[0]
        if partner < 0:
            partner = find_partner(head, pre)
        top_post, bot_post = gen(head, tail, list(reversed(post)))
        top_pre, bot_pre = gen(head, tail, pre)
        reg[tail] = head
        info = Transposition(partner, l_bit, top_pre, bot_pre, top_post, bot_post)
        if pre:
            sel = 0x6240 if n_pack - pre[-1] == 2 else 0x5410
            at = next((i for i, t in enumerate(out) if t.top_post == sel), len(out))
            out.insert(at, info)
        else:
            out.append(info)
    if n_pack == 2 and reg[0] == 1 and reg[1] == 0 and out:
        # (r0 r1) of P_reg folded into the last transposition; Triton 3.9's PTX applies it
        # before the shuffle (P_reg acts first), not after as the public source's walk does
        last = out[-1]
        out[-1] = Transposition(last.register, last.lane, 0x3120, 0x7564,
                                last.top_post, last.bottom_post)
    return out
