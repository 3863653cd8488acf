"""How Triton 3.9 converts a layout inside a warp with shuffles, instruction by instruction.

``transferWithinWarp`` (``lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp``) takes
the factorisation of :mod:`.decompose` and emits, per thread:

1. the source registers (broadcast removed, repeated when the destination has more), renamed
   by ``P_reg``; elements under 32 bits packed ``2**n_pack`` to a 32-bit register;
2. either the out-of-place **Ship** method — one mixed transposition, ``P_lane`` trivial, and
   the transposition "shippable": per pair of registers one value is chosen (``selp`` or
   ``prmt``), sent with one butterfly shuffle and merged back (two ``selp``/``prmt``) —
   or the in-place **Swap** method: per mixed transposition one stage of ``selp``/``prmt``
   over all registers, then one shuffle per register (a butterfly ``shfl.sync.bfly`` with the
   XOR of the transpositions' lanes that register needs, skipped where none; an indexed
   ``shfl.sync.idx`` from ``P_lane⁻¹(lane) ⊕ mask`` for every register when ``P_lane`` is
   not trivial), then the second ``selp``/``prmt`` stage;
3. unpacking, and the destination's registers (extra ones dropped, broadcast ones copied).

Two points where the selector walk of the public source (``getTranspositionSelectors``)
and Triton 3.9's compiled code part, both settled on the PTX, run lane by lane
(``papers/conversion/stage_probes.py``): low (byte) register bits the walk folds into the
``prmt`` selectors are moved by those selectors only — the wheel's ``P_reg`` no longer
renames them, which the source's bookkeeping still does — and a register swap ``(r0 r1)``
of four packed bytes is folded into the selectors *before* the shuffle (``0x3120``/``0x7564``,
the first stage acting right after ``P_reg``). This module follows the compiled code: it
solves ``P_reg`` as the renaming the stages need (:func:`lower_warp_shuffle`), which is
Triton's on every probe.

This module builds that code as a small value graph (:func:`lower_warp_shuffle`), counts
each instruction as ``transferWithinWarp`` builds it and after common-subexpression
elimination, folding of a ``select`` with equal arms and of identity byte permutes, and
dead-code elimination — the clean-ups MLIR's ``cse``/canonicaliser already apply before
Triton hands the module to LLVM (its LLVM IR before ``-O3`` has exactly these counts on every
shuffle probe of ``papers/triton_lowering/shuffle_probes.py``, and LLVM keeps them in the
PTX) — and can *execute* the graph lane by lane (:meth:`WarpShuffleLowering.execute`) to
prove it yields the destination layout. 64-bit values move as two 32-bit shuffles
(``shuffleXor``/``shuffleIdx`` split them) but one ``selp.b64`` per select.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from .._checks import instance_of
from ..errors import LayoutError
from ..layout import LinearLayout
from .decompose import (PLAIN_BOTTOM, PLAIN_TOP, Transposition, WarpDecomposition, decompose,
                        hardware_permutation)

__all__ = ["WarpShuffleLowering", "live_prmt_selectors", "lower_warp_shuffle",
           "selector_select_keys", "unpacked_bytes"]

# node kinds of the value graph
_IN, _PACK, _UNPACK, _CONST, _SELECT, _PRMT, _BFLY, _IDX = range(8)


@dataclass
class _Graph:
    """Nodes as tuples ``(kind, *operands)``; ``emitted`` counts each build call (Triton's
    own instructions, before LLVM)."""

    nodes: list[tuple] = field(default_factory=list)
    emitted: Counter = field(default_factory=Counter)

    def add(self, *node) -> int:
        self.nodes.append(node)
        if node[0] in (_SELECT, _PRMT, _BFLY, _IDX, _PACK, _UNPACK):
            self.emitted[node[0]] += 1
        return len(self.nodes) - 1

    def const(self, v: int) -> int:
        return self.add(_CONST, v)


@dataclass(frozen=True)
class WarpShuffleLowering:
    """Triton's warp-shuffle lowering of one conversion.

    Attributes:
        decomposition: the :class:`~.decompose.WarpDecomposition` it implements.
        method: ``"ship"`` or ``"swap"``.
        element_bits: bits per element as moved.
        triton_counts: instructions per thread by kind as ``transferWithinWarp`` builds them,
            before any clean-up: ``"shuffle"``, ``"select"``, ``"permute"``, ``"pack"``,
            ``"unpack"`` (a 64-bit shuffle counts once here).
        counts: the same after CSE, select/permute folding and dead code — Triton's LLVM IR
            before ``-O3`` and, but for packing, the PTX —
            with the shuffles also split by kind: ``"shuffle_bfly"`` (and
            ``"shuffle_bfly_<mask>"`` per XOR mask) and ``"shuffle_idx"``.
        outputs: the value-graph node of each destination register (broadcast removed).
        graph: the value graph's nodes, ``(kind, *operands)`` each.
        packs: each live packed 32-bit register as the source registers (index among the
            source's non-broadcast registers) of its elements, low bytes first — what the
            target's packing code has to assemble (:mod:`.amd_pack`).
    """

    decomposition: WarpDecomposition
    method: str
    element_bits: int
    triton_counts: dict
    counts: dict
    outputs: tuple[int, ...]
    graph: tuple = ()
    packs: tuple[tuple[int, ...], ...] = ()

    def execute(self, src: LinearLayout, lanes: int, warp: int = 0) -> list[list[tuple]]:
        """Run the graph on every lane of warp ``warp``: ``result[r][lane]`` is the tensor
        element (out-dim coordinates) destination register ``r`` of ``lane`` ends up
        holding. The warp matters only when the warp bases differ by source lanes
        (``decomposition.warp_bits``; a source broadcast over all or some warp bits): the
        indexed shuffles then read the warp id as the high bits of the thread id, and the
        source's kept warp bits select its elements.

        Raises:
            LayoutError: a byte permute or unpack mixes bytes of different elements (the
                lowering would be wrong).
        """
        return _execute(self, src, lanes, warp)


def lower_warp_shuffle(src: LinearLayout, dst: LinearLayout, element_bits: int
                       ) -> WarpShuffleLowering:
    """Triton's ``transferWithinWarp`` for ``src`` → ``dst`` (both keep each element in its
    warp), as a value graph with its instruction counts.

    Raises:
        LayoutError: the conversion is not a permutation of register and lane bits (see
            :func:`~.decompose.decompose`).
    """
    d = decompose(src, dst, element_bits)
    n_src = 1 << len([c for c in src.dim_columns("register") if c])
    n_dst = 1 << len([c for c in dst.dim_columns("register") if c])
    if not d.warp_bits:
        d = _with_residual_register_perm(d, src, dst, element_bits)
    g, outputs = _build(d, n_src, n_dst)
    names = {_SELECT: "select", _PRMT: "permute", _BFLY: "shuffle", _IDX: "shuffle",
             _PACK: "pack", _UNPACK: "unpack"}
    triton_counts: Counter = Counter()
    for k, c in g.emitted.items():
        triton_counts[names[k]] += c
    after, packs = _clean_counts(g, outputs, d.hardware_lane_bits)
    return WarpShuffleLowering(d, "ship" if _ships(d) else "swap", element_bits,
                               dict(sorted(triton_counts.items())), after, outputs,
                               tuple(g.nodes), packs)


def _build(d: WarpDecomposition, n_src: int, n_dst: int) -> tuple[_Graph, tuple[int, ...]]:
    """The value graph of ``transferWithinWarp`` for ``d`` and its output nodes."""
    g = _Graph()
    n = max(n_src, 1 << d.register_bits)
    vals: list[int] = [0] * n
    for i in range(n):
        vals[d.apply_register_perm(i)] = g.add(_IN, i % n_src)
    e = 1 << d.n_pack
    if e > 1:
        vals = [g.add(_PACK, tuple(vals[i:i + e])) for i in range(0, n, e)]
    trans = d.transpositions
    if _ships(d):
        vals = _ship(g, vals, d.n_pack, trans[0])
    else:
        vals = _swap(g, vals, d, trans)
    if e > 1:
        vals = [g.add(_UNPACK, v, k) for v in vals for k in range(e)]
    return g, tuple(vals[:n_dst])


def _ships(d: WarpDecomposition) -> bool:
    trans = d.transpositions
    return len(trans) == 1 and d.lane_perm_trivial and trans[0].shippable


def _with_residual_register_perm(d: WarpDecomposition, src: LinearLayout, dst: LinearLayout,
                                 element_bits: int) -> WarpDecomposition:
    """``d`` with ``P_reg`` replaced by the register renaming its stages need.

    Triton's selector walk folds low (byte) register bits of ``P_reg`` into the ``prmt``
    selectors; ``P_reg`` must then no longer move them. Rather than trusting the walk's
    bookkeeping, the renaming is solved for: the stages are run once with no renaming
    (every register labelled by its index), which gives the bit permutation ``Q`` they
    apply, and ``P_reg = Q⁻¹ ∘ P`` on the register bits. Triton 3.9's compiled code packs
    registers exactly so (its PTX, run lane by lane, reaches the destination on every probe
    of ``papers/conversion/stage_probes.py``); where ``Q⁻¹ ∘ P`` is not a register
    permutation, ``d`` is returned unchanged."""
    n_reg, n_lane = d.register_bits, d.lane_bits
    if n_reg == 0:
        return d
    plain = WarpDecomposition(tuple(range(n_reg)), d.lane_perm, d.transpositions, d.n_pack,
                              n_reg, n_lane, d.warp_bits)
    held = _stage_moves(plain, max(element_bits, 8))
    if held is None:
        return d
    # the stages move register k of lane l' to output register r of lane l: invert on the
    # unit vectors of P's images
    perm = list(d.register_perm)
    full = hardware_permutation(src, dst)[0]
    for b in range(n_reg):
        img = full[b]
        r, lane = (1 << img, 0) if img < n_reg else (0, 1 << (img - n_reg))
        k, lane_from = held[r][lane]
        if lane_from or k == 0 or k & (k - 1):
            return d
        perm[b] = k.bit_length() - 1
    if sorted(perm) != list(range(n_reg)):
        return d
    return WarpDecomposition(tuple(perm), d.lane_perm, d.transpositions, d.n_pack, n_reg,
                             n_lane, d.warp_bits)


@lru_cache(maxsize=1024)
def _stage_moves(plain: WarpDecomposition, element_bits: int
                 ) -> tuple[tuple[tuple, ...], ...] | None:
    """The stages of ``plain`` (no register renaming) run on every lane, each register
    labelled ``(index, lane)``: per output register, per lane, the label it ends up holding;
    None when the stages do not run (an unpack of bytes that are not one element). Cached:
    many converts share one decomposition, and the result depends on nothing else."""
    n = 1 << plain.register_bits
    g, outputs = _build(plain, n, n)
    return _run_lanes(tuple(g.nodes), outputs, plain.n_pack, element_bits,
                      1 << plain.lane_bits)


#: the value of a (node, lane) whose evaluation by :func:`_run` raises LayoutError
_POISON = object()


def _run_lanes(nodes: tuple, outputs: tuple[int, ...], n_pack: int, element_bits: int,
               lanes: int) -> tuple[tuple[tuple, ...], ...] | None:
    """:func:`_run` in warp 0 with every source register labelled ``(index, lane)``, all
    lanes of a node at once (nodes in index order: a node's operands come before it).

    Returns None exactly where :func:`_run` raises LayoutError: a (node, lane) whose check
    fails is poisoned, and the poison spreads through every use that :func:`_run`
    evaluates (all operands; of a select, the arm its lane takes), so an output is
    poisoned iff :func:`_run` evaluates a failing (node, lane) to reach it."""
    e = 1 << n_pack
    slot_bytes = 4 // e if e > 1 else 0
    elem_bytes = max(1, element_bits // 8)
    need: set[int] = set()
    stack = list(outputs)
    while stack:
        i = stack.pop()
        if i in need:
            continue
        need.add(i)
        node = nodes[i]
        kind = node[0]
        if kind == _PACK:
            stack += node[1]
        elif kind == _SELECT:
            stack += (node[2], node[3])
        elif kind == _PRMT:
            stack += (node[1], node[2], node[3])
        elif kind not in (_IN, _CONST):
            stack.append(node[1])
    P = _POISON
    rng = range(lanes)
    vals: dict[int, list] = {}
    for i in sorted(need):
        node = nodes[i]
        kind = node[0]
        if kind == _IN:
            v = [(node[1], lane) for lane in rng]
        elif kind == _CONST:
            v = [node[1]] * lanes
        elif kind == _PACK:
            parts = [vals[x] for x in node[1]]
            v = []
            for lane in rng:
                bs: list = []
                for part in parts:
                    el = part[lane]
                    if el is P:
                        bs = P
                        break
                    for j in range(slot_bytes):
                        bs.append((el, j) if j < elem_bytes else None)
                v.append(bs if bs is P else tuple(bs))
        elif kind == _UNPACK:
            src, k = vals[node[1]], node[2]
            v = []
            for lane in rng:
                w = src[lane]
                if w is P:
                    v.append(P)
                    continue
                bs = w[k * slot_bytes:(k + 1) * slot_bytes]
                el = bs[0][0] if bs[0] else None
                want = tuple((el, j) if j < elem_bytes else None for j in range(slot_bytes))
                v.append(P if el is None or tuple(bs) != want else el)
        elif kind == _SELECT:
            bit, a, b = node[1][1], vals[node[2]], vals[node[3]]
            v = [b[lane] if lane >> bit & 1 else a[lane] for lane in rng]
        elif kind == _PRMT:
            va, vb, vs = vals[node[1]], vals[node[2]], vals[node[3]]
            v = []
            for lane in rng:
                a, b, sel = va[lane], vb[lane], vs[lane]
                if a is P or b is P or sel is P:
                    v.append(P)
                    continue
                both = tuple(a) + tuple(b)
                v.append(tuple(both[(sel >> (4 * j)) & 7] for j in range(4)))
        elif kind == _BFLY:
            src, x = vals[node[1]], node[2]
            v = [src[(lane ^ x) % lanes] for lane in rng]
        else:
            src, inv, mask = vals[node[1]], node[2], node[3]
            v = []
            for lane in rng:
                perm = 0
                for bit, img in enumerate(inv):
                    if lane >> bit & 1:
                        perm |= 1 << img
                v.append(src[(perm ^ mask) % lanes])
        vals[i] = v
    out = tuple(tuple(vals[o]) for o in outputs)
    if any(x is P for row in out for x in row):
        return None
    return out


def _pairs(num_regs: int, r_idx: int):
    tile = 1 << (r_idx + 1)
    for base in range(0, num_regs, tile):
        for i in range(tile // 2):
            yield base + i, base + i + (1 << r_idx)


def _ship_diagonal(post: int) -> tuple[int, int]:
    if post == 0x3120:
        return 0x7564, 0x7564
    high = (post & 0x4444) >> 2
    s10 = post ^ ((high << 1) if post & 0x1000 else high)
    return s10, s10 ^ 0x4444


def _ship(g: _Graph, vals: list[int], n_pack: int, t: Transposition) -> list[int]:
    r_idx = t.register - n_pack
    cond = ("lane", t.lane)
    out = list(vals)
    plain = t.top_pre == PLAIN_TOP and t.top_post == PLAIN_TOP
    for r0, r1 in _pairs(len(vals), r_idx):
        v0, v1 = vals[r0], vals[r1]
        if plain:
            ship = g.add(_SELECT, cond, v1, v0)
            sh = g.add(_BFLY, ship, 1 << t.lane)
            out[r0] = g.add(_SELECT, cond, v0, sh)
            out[r1] = g.add(_SELECT, cond, sh, v1)
        else:
            sel = g.add(_SELECT, cond, g.const(t.bottom_pre), g.const(t.top_pre))
            ship = g.add(_PRMT, v0, v1, sel)
            sh = g.add(_BFLY, ship, 1 << t.lane)
            d10, d01 = _ship_diagonal(t.top_post)
            s1 = g.add(_SELECT, cond, g.const(t.top_post), g.const(d01))
            s2 = g.add(_SELECT, cond, g.const(d10), g.const(t.bottom_post ^ 0x4444))
            out[r0] = g.add(_PRMT, v0, sh, s1)
            out[r1] = g.add(_PRMT, v1, sh, s2)
    return out


def _swap(g: _Graph, vals: list[int], d: WarpDecomposition,
          trans: tuple[Transposition, ...]) -> list[int]:
    inv = d.lane_perm_inverse()
    n_pack = d.n_pack

    def stage(vals: list[int], t: Transposition, pre: bool) -> list[int]:
        r_idx = t.register - n_pack
        lane = inv[t.lane] if pre else t.lane
        cond = ("lane", lane)
        top, bot = (t.top_pre, t.bottom_pre) if pre else (t.top_post, t.bottom_post)
        out = list(vals)
        for r0, r1 in _pairs(len(vals), r_idx):
            v0, v1 = vals[r0], vals[r1]
            if top == PLAIN_TOP and bot == PLAIN_BOTTOM:
                out[r0] = g.add(_SELECT, cond, v0, v1)
                out[r1] = g.add(_SELECT, cond, v1, v0)
            else:
                s01 = bot if pre else top ^ 0x4444
                s11 = top if pre else bot ^ 0x4444
                s1 = g.add(_SELECT, cond, g.const(top), g.const(s01))
                s2 = g.add(_SELECT, cond, g.const(bot), g.const(s11))
                out[r0] = g.add(_PRMT, v0, v1, s1)
                out[r1] = g.add(_PRMT, v0, v1, s2)
        return out

    for t in trans:
        vals = stage(vals, t, True)
    trivial = d.lane_perm_trivial
    for r in range(len(vals)):
        mask = 0
        for t in trans:
            if r >> (t.register - n_pack) & 1:
                mask |= 1 << inv[t.lane]
        if trivial:
            if mask:
                vals[r] = g.add(_BFLY, vals[r], mask)
        else:
            vals[r] = g.add(_IDX, vals[r], inv, mask)
    for t in trans:
        vals = stage(vals, t, False)
    return vals


def _clean_counts(g: _Graph, outputs: tuple[int, ...], lane_bits: int
                  ) -> tuple[dict, tuple[tuple[int, ...], ...]]:
    counts, packs, _ = _cleaned(g.nodes, outputs, lane_bits)
    return counts, packs


def _cleaned(nodes, outputs: tuple[int, ...], lane_bits: int
             ) -> tuple[dict, tuple[tuple[int, ...], ...], set]:
    """Instruction counts after CSE, folding and dead-code elimination, and the live packed
    registers' source registers. A select on a lane bit at or above ``lane_bits`` (a warp
    bit of the thread id, read from the lane id where it is 0) folds to its first arm."""
    return _cleaned_keys(nodes, outputs, lane_bits, {})


def _cleaned_keys(nodes, outputs: tuple[int, ...], lane_bits: int, canon: dict
                  ) -> tuple[dict, tuple[tuple[int, ...], ...], set]:
    """:func:`_cleaned`, filling ``canon`` with each visited node's canonical key."""

    def key_of(i: int):
        if i in canon:
            return canon[i]
        node = nodes[i]
        kind = node[0]
        if kind == _CONST:
            c = ("c", node[1])
        elif kind == _IN:
            c = ("in", node[1])
        elif kind == _PACK:
            c = ("pack", tuple(key_of(x) for x in node[1]))
        elif kind == _UNPACK:
            c = ("unpack", key_of(node[1]), node[2])
        elif kind == _SELECT:
            a, b = key_of(node[2]), key_of(node[3])
            c = a if a == b or node[1][1] >= lane_bits else ("sel", node[1], a, b)
        elif kind == _PRMT:
            a, b, s = key_of(node[1]), key_of(node[2]), key_of(node[3])
            if s == ("c", PLAIN_TOP):
                c = a
            elif s == ("c", PLAIN_BOTTOM):
                c = b
            else:
                c = ("prmt", a, b, s)
        elif kind == _BFLY:
            c = ("bfly", key_of(node[1]), node[2])
        else:
            c = ("idx", key_of(node[1]), node[2], node[3])
        canon[i] = c
        return c

    live: set = set()

    def mark(c) -> None:
        if not isinstance(c, tuple) or c in live:
            return
        live.add(c)
        for x in c[1:]:
            if isinstance(x, tuple) and x and isinstance(x[0], str):
                mark(x)
            elif isinstance(x, tuple):
                for y in x:
                    if isinstance(y, tuple):
                        mark(y)

    for o in outputs:
        mark(key_of(o))
    names = {"sel": "select", "prmt": "permute", "bfly": "shuffle", "idx": "shuffle",
             "pack": "pack", "unpack": "unpack"}
    out: Counter = Counter()
    for c in live:
        if c[0] in names:
            out[names[c[0]]] += 1
            if c[0] == "bfly":
                out["shuffle_bfly"] += 1
                out[f"shuffle_bfly_{c[2]}"] += 1
            elif c[0] == "idx":
                out["shuffle_idx"] += 1
    packs = sorted(tuple(x[1] for x in c[1]) for c in live if c[0] == "pack")
    return dict(sorted(out.items())), tuple(packs), live


def live_prmt_selectors(low: WarpShuffleLowering) -> list[int]:
    """The constants of the lane-dependent ``prmt`` selectors that survive clean-up, sorted
    (each ``select`` of two selector constants counted once, as its ``selp`` of two
    immediates appears once in the PTX). For comparing with compiled code
    (``papers/conversion/stage_probes.py``)."""
    _, _, live = _cleaned(low.graph, low.outputs, low.decomposition.hardware_lane_bits)
    sels = {c[3] for c in live if c[0] == "prmt"}
    out: list[int] = []
    for s in sels:
        if isinstance(s, tuple) and s[0] == "sel" and s[2][0] == "c" and s[3][0] == "c":
            out += [s[2][1], s[3][1]]
    return sorted(out)


def selector_select_keys(low: WarpShuffleLowering) -> tuple[tuple[int, int, int], ...]:
    """The selects of two constant ``prmt`` selectors that survive clean-up, each as
    ``(hardware lane bit, selector if the bit is 0, selector if it is 1)``, sorted. Two such
    selects with the same key are one value in Triton's LLVM dialect: the common
    subexpression elimination Triton 3.9 runs after ``ConvertTritonGPUToLLVM`` (``make_llir``
    in ``third_party/nvidia/backend/compiler.py``) keeps the first, so a later convert in a
    dominated block pays nothing for it (``linlayout.check.registers.selects``).

    Args:
        low: a warp-shuffle lowering (:func:`lower_warp_shuffle`'s result).

    Returns:
        The keys, one per distinct surviving select (empty when the convert has none).

    Raises:
        LayoutError: ``low`` is not a :class:`WarpShuffleLowering`."""
    instance_of(low, WarpShuffleLowering, "low")
    _, _, live = _cleaned(low.graph, low.outputs, low.decomposition.hardware_lane_bits)
    return tuple(sorted((c[1][1], c[2][1], c[3][1]) for c in live
                        if c[0] == "sel" and c[2][0] == "c" and c[3][0] == "c"))


def unpacked_bytes(low: WarpShuffleLowering) -> tuple[int | None, ...]:
    """Per destination register (broadcast removed, in order) of a lowering that packs
    several elements per 32-bit register, the byte of the moved register its element is
    unpacked from — Triton's ``extractelement`` of that byte from the ``<4 x i8>`` (or
    ``<2 x i16>``) ``bitcast`` of a shuffled or selected word — or None where the word
    moved through no shuffle, select or byte permute (the unpack reads the packing's own
    build, which LLVM folds back to the element) or nothing is packed.

    Args:
        low: a warp-shuffle lowering (:func:`lower_warp_shuffle`'s result).

    Returns:
        One entry per destination register: an int ``0 <= k < 2**n_pack``, or None.

    Raises:
        LayoutError: ``low`` is not a :class:`WarpShuffleLowering`.

    Source: ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``), Triton 3.9, as its LLVM
    IR before ``-O3`` shows (a ``bitcast`` of each moved ``i32`` to ``<4 x i8>``, one
    ``extractelement`` per live byte).
    """
    instance_of(low, WarpShuffleLowering, "low")
    if low.decomposition.n_pack == 0:
        return (None,) * len(low.outputs)
    canon: dict = {}
    nodes = low.graph
    _cleaned_keys(nodes, low.outputs, low.decomposition.hardware_lane_bits, canon)
    out: list[int | None] = []
    for o in low.outputs:
        c = canon.get(o)
        moved = isinstance(c, tuple) and c[0] == "unpack" and c[1][0] != "pack"
        out.append(c[2] if moved else None)
    return tuple(out)


def _execute(low: WarpShuffleLowering, src: LinearLayout, lanes: int,
             warp: int = 0) -> list[list[tuple]]:
    reg_cols = [i for i, c in enumerate(src.dim_columns("register")) if c]

    def element(i: int, lane: int) -> tuple:
        full = 0
        for b, pos in enumerate(reg_cols):
            if i >> b & 1:
                full |= 1 << pos
        where = {"register": full, "lane": lane}
        if "warp" in src.in_dim_names:  # a source broadcast over only some warp bits
            where["warp"] = warp
        out = src.apply(where)
        return tuple(out.values())

    return _run(low, lanes, element, warp)


def _run(low: WarpShuffleLowering, lanes: int, element, warp: int = 0) -> list[list[tuple]]:
    """Evaluate the graph on every lane; ``element(i, lane)`` labels source register ``i``
    of ``lane``."""
    d = low.decomposition
    nodes = low.graph
    e = 1 << d.n_pack
    slot_bytes = 4 // e if e > 1 else 0
    elem_bytes = max(1, low.element_bits // 8)

    memo: dict[tuple[int, int], object] = {}

    def lane_bit_zero(cond, lane: int) -> bool:
        return not (lane >> cond[1] & 1)

    def ev(i: int, lane: int):
        k = (i, lane)
        if k in memo:
            return memo[k]
        node = nodes[i]
        kind = node[0]
        if kind == _IN:
            v = element(node[1], lane)
        elif kind == _CONST:
            v = node[1]
        elif kind == _PACK:
            bs: list = []
            for x in node[1]:
                el = ev(x, lane)
                for j in range(slot_bytes):
                    bs.append((el, j) if j < elem_bytes else None)
            v = tuple(bs)
        elif kind == _UNPACK:
            bs = ev(node[1], lane)[node[2] * slot_bytes:(node[2] + 1) * slot_bytes]
            el = bs[0][0] if bs[0] else None
            want = tuple((el, j) if j < elem_bytes else None for j in range(slot_bytes))
            if el is None or tuple(bs) != want:
                raise LayoutError(f"unpacked bytes {bs} do not form one element")
            v = el
        elif kind == _SELECT:
            v = ev(node[2], lane) if lane_bit_zero(node[1], lane) else ev(node[3], lane)
        elif kind == _PRMT:
            a, b, s = ev(node[1], lane), ev(node[2], lane), ev(node[3], lane)
            both = tuple(a) + tuple(b)
            v = tuple(both[(s >> (4 * j)) & 7] for j in range(4))
        elif kind == _BFLY:
            v = ev(node[1], (lane ^ node[2]) % lanes)
        else:
            inv, mask = node[2], node[3]
            tid = lane | warp * lanes
            perm = 0
            for bit, img in enumerate(inv):
                if tid >> bit & 1:
                    perm |= 1 << img
            v = ev(node[1], (perm ^ mask) % lanes)
        memo[k] = v
        return v

    return [[ev(o, lane) for lane in range(lanes)] for o in low.outputs]
