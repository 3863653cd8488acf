"""The scratch layout Triton 3.9.0 picks for a ``convert_layout`` through shared memory.

A reproduction of ``transferWithinBlockSwizzling`` (Triton
``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/ConvertLayoutOpToLLVM.cpp``; the AMD/generic
twin in ``lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp``) and of the search in
``lib/Tools/GenericSwizzling.cpp``:

1. broadcast registers are removed from both layouts; tensors are flattened (``dim0`` the
   fastest-varying bits) and every basis is a flat position;
2. each side lists the instruction *tiles* it may use (``getSrcDstTiles``): ``ld/st.shared``
   always; on NVIDIA ``stmatrix`` on the source side (sm_90+) and ``ldmatrix`` on the
   destination side (sm_75+) for elements up to 32 bits, and their ``.trans`` forms for 16-bit
   elements;
3. for every (source tile, destination tile) pair whose lane requirements both layouts meet
   (``optimalSwizzlingTile``) a scratch layout is built: ``vector`` bases (the common
   register bases filling a 128-bit access, then the tile's lanes), ``segment`` bases chosen
   by ``computeSegment`` to avoid bank conflicts, ``bank`` bases completing the space
   (``complementBasis``), and ``reps`` (bases in registers on both sides: the conversion runs
   in that many store → barrier → load rounds);
4. the pair with the fewest read + write bank conflicts wins, ties going to more rounds;
   without any pair, ``optimalSwizzlingLdSt`` builds an ``ld/st.shared`` layout: its vector
   (``getVecBasisLdSt``) is the common registers, and under a 32-bit word one side's
   registers that the other side holds in warps (so that side stores or loads a wider
   vector), then warp bases; the lanes of one wavefront (``getLaneTile``: the first lanes, or
   the AMD 128-bit load tile of ``getSharedLdStTiles``) decide the segments; when the vector
   is under 128 bits the bank bases held in registers of the side that filled the word come
   first, so that side vectorises further — only on targets with at most 32 banks
   (:func:`reorders_bank_bases`: ``optimalSwizzlingLdSt`` guards the reordering with
   ``numBanks <= 32``, added by Triton's pull request 11169 before the 3.9 branch); on gfx950
   (64 banks) the bank bases stay in ``complementBasis`` order. The 3.9.0 wheel's LLVM IR
   agrees (``papers/triton_lowering/gfx950_bank_order_probes.py``: one-warp 8- and 16-bit
   converts with no register in common, 10 of whose 16 gfx950 kernels the guard decides).

Each side is then lowered on the chosen layout like a ``local_store``/``local_load``
(``lowerLdStShared`` or ``lowerLdStMatrix``, falling back to ``ld/st`` when the matrix tile
does not fit).

The source versions readable here bracket 3.9.0 (it has the ``numBanks`` argument of the newer
``GenericSwizzling.cpp``); where they differ, the rules that reproduce the 3.9.0 wheel's PTX
are used.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import f2
from .._checks import instance_of, log2_exact
from ..errors import LayoutError
from ..layout import LinearLayout

__all__ = ["ScratchPlan", "compute_segment", "drop_broadcast_registers", "optimal_swizzling_ldst",
           "reorders_bank_bases", "triton_scratch_layout"]

#: ``LocalMemOpTile``s: (lanes that hold contiguous elements, lanes that supply addresses).
LD_ST = ((), (0, 1, 2))
MATRIX = ((0, 1), (2, 3, 4))
MATRIX_TRANS = ((2, 3, 4), (0, 1))


@dataclass(frozen=True)
class ScratchPlan:
    """Triton's scratch layout for one conversion.

    Attributes:
        memory: the scratch layout, in dims ``vector, bank, segment, reps`` → the tensor.
        store_tile: ``"ld/st"``, ``"matrix"`` or ``"matrix.trans"`` (the source side).
        load_tile: the same for the destination side.
        reps: store → barrier → load rounds.
        conflicts: Triton's own estimate ``(read, write)`` of extra wavefronts.
    """

    memory: LinearLayout
    store_tile: str
    load_tile: str
    reps: int
    conflicts: tuple[int, int]


def drop_broadcast_registers(layout: LinearLayout) -> LinearLayout:
    """``layout`` without its zero register bases and without a ``block`` dim of size 1
    (Triton's ``actionRemoveBroadcastedRegs``)."""
    bases = {}
    for name, imgs in layout.bases.items():
        if name == "register":
            imgs = [img for img in imgs if any(img)]
        bases[name] = [list(i) for i in imgs]
    return LinearLayout(bases, dict(layout.out_dims))


def _operands(src: LinearLayout, dst: LinearLayout, element_bits: int, bank_bits: int
              ) -> tuple[LinearLayout, LinearLayout]:
    """Both layouts without broadcast registers, after checking the arguments: LayoutError
    when the widths are not powers of two in range or the layouts describe different
    tensors."""
    log2_exact(element_bits, "element_bits", 1, 128)
    log2_exact(bank_bits, "bank_bits", 32)
    src, dst = drop_broadcast_registers(src), drop_broadcast_registers(dst)
    if dict(src.out_dims) != dict(dst.out_dims):
        raise LayoutError(f"convert between different tensors: {src.out_dims} vs "
                          f"{dst.out_dims}")
    return src, dst


def _flat(layout: LinearLayout, dim: str) -> list[int]:
    return list(layout.dim_columns(dim))


def _intersection(b1: list[int], b2: list[int]) -> list[int]:
    """``intersectionBasis``: for unit vectors the common ones in ``b1``'s order."""
    pow2 = all(x and not x & (x - 1) for x in b1 + b2 if x)
    if pow2:
        s2 = set(b2)
        return [b for b in b1 if b and b in s2]
    return list(f2.intersection([b for b in b1 if b], [b for b in b2 if b]))


def _complement(basis: list[int], dim: int) -> list[int]:
    """``complementBasis``: the unit vectors of the positions that are not pivots of the
    row-reduced echelon form of ``basis``, lowest first. The pivots are the *lowest* set bits
    (``f2reduce::inplace_rref_strided`` eliminates on ``m & -m``, and ``complementBasis``
    reads each row's pivot with ``__builtin_ctzll``)."""
    piv: dict[int, int] = {}
    for v in basis:
        while v:
            low = v & -v
            if low not in piv:
                piv[low] = v
                break
            v ^= piv[low]
    return [1 << i for i in range(dim) if (1 << i) not in piv]


def compute_segment(bank_src: list[int], bank_dst: list[int], dim: int,
                    length: int) -> list[int]:
    """Triton's ``computeSegment`` (``lib/Tools/GenericSwizzling.cpp``): ``length`` segment
    bases (flat ints over ``dim`` tensor bits) avoiding each side's vector + tile bases
    ``bank_src``/``bank_dst``, taken as *sets of basis vectors*: the unit vectors in neither
    set first; if too few, the two set differences (sorted, the smaller first) paired by
    position and XORed, and where even those do not fit, unpaired vectors (accepted
    conflicts). Exact for unit-vector bases; on general bases the result may be dependent."""
    s_src = {b for b in bank_src if b}
    s_dst = {b for b in bank_dst if b}
    seg = [1 << b for b in range(dim) if (1 << b) not in s_src and (1 << b) not in s_dst]
    if len(seg) >= length:
        return seg[:length]
    a = sorted(v for v in s_src if v not in s_dst)
    b = sorted(v for v in s_dst if v not in s_src)
    if len(a) > len(b):
        a, b = b, a
    log_conf = min(max(0, length - len(a) - len(seg)), len(a))
    for i in range(log_conf, len(a)):
        seg.append(a[i] ^ b[i])
    seg.extend(a[:log_conf])
    seg.extend(b[:log_conf])
    return seg[:length]


def _build(src: LinearLayout, dst: LinearLayout, bits: int, vbasis: list[int],
           tile_src: list[int], tile_dst: list[int], leave_reps: int,
           bank_bits: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """``optimalSwizzling`` + ``buildReps``: (vector, bank, segment, reps) flat bases."""
    dim = src.total_out_bits
    bank_s = vbasis + tile_src
    bank_d = vbasis + tile_dst
    len_b = min(max(0, (bank_bits // ((1 << len(vbasis)) * bits)).bit_length() - 1),
                dim - len(vbasis))
    len_s = dim - len_b - len(vbasis)
    sbasis = compute_segment(bank_s, bank_d, dim, len_s)
    bbasis = _complement(vbasis + sbasis, dim)
    regs_s = set(_flat(src, "register"))
    regs_d = set(_flat(dst, "register"))
    seg, reps = [], []
    for s in sbasis:
        if s in regs_s and s in regs_d:
            if leave_reps > 0:
                leave_reps -= 1
                seg.append(s)
            else:
                reps.append(s)
        else:
            seg.append(s)
    return vbasis, bbasis, seg, reps


def _tile(a: LinearLayout, b: LinearLayout, n_reg_a: int, n_reg_b: int,
          lanes_a: tuple[int, ...], lanes_b: tuple[int, ...]) -> list[int] | None:
    """``optimalSwizzlingTile``: the common vector tile of two instruction tiles, or None."""
    if n_reg_a < n_reg_b:
        return _tile(b, a, n_reg_b, n_reg_a, lanes_b, lanes_a)
    reg_a, reg_b = _flat(a, "register"), _flat(b, "register")
    lane_a, lane_b = _flat(a, "lane"), _flat(b, "lane")
    if any(i >= len(lane_a) for i in lanes_a) or any(i >= len(lane_b) for i in lanes_b):
        return None
    vb = _intersection(reg_a, reg_b)
    if len(vb) < n_reg_b:
        return None
    vb = vb[:n_reg_b]
    tile_a = [lane_a[i] for i in lanes_a]
    tile_b = [lane_b[i] for i in lanes_b]
    if any(x == 0 for x in tile_a + tile_b):
        return None
    if lanes_b:
        try:
            cvt = b.invert_and_compose(a)  # b's hardware -> a's hardware
        except LayoutError:
            return None
        names = cvt.out_dim_names
        ri, li = names.index("register") if "register" in names else -1, names.index("lane")
        lane_imgs = cvt.bases.get("lane", [])
        for i in range(n_reg_a - n_reg_b):
            img = lane_imgs[lanes_b[i]]
            if ri < 0 or img[ri] == 0:
                return None
        tail = lanes_b[len(lanes_b) - len(lanes_a):] if lanes_a else ()
        for ia, ib in zip(lanes_a, tail):
            if lane_imgs[ib][li] != 1 << ia:
                return None
    return vb + tile_b


def _side_tile(addr: tuple[int, ...], regs: list[int], lanes: list[int],
               vbasis: list[int]) -> list[int] | None:
    """``getTile``: the first ``3 − len(addr)`` registers outside the vector, then the
    address lanes."""
    need = 3 - len(addr)
    tile = [r for r in regs if r not in vbasis][:need]
    if len(tile) < need or any(i >= len(lanes) for i in addr):
        return None
    return tile + [lanes[i] for i in addr]


def _vec_basis_ldst(src: LinearLayout, dst: LinearLayout, bits: int
                    ) -> tuple[list[int], bool | None]:
    """``getVecBasisLdSt``: the registers common to both sides (at most 128 bits); under a
    32-bit word, filled with one side's registers that the other side holds in warps (the
    side with more, ties to the lowest), then warp bases, up to one word. Returns the
    vector bases and whether the source filled the word (None when nothing was added)."""
    reg_s, reg_d = _flat(src, "register"), _flat(dst, "register")
    vb = _intersection(reg_s, reg_d)[:max(0, (128 // bits).bit_length() - 1)]
    if (1 << len(vb)) * bits >= 32:
        return vb, None
    per_bank = (32 // bits).bit_length() - 1
    warp_s = [w for w in _flat(src, "warp") if w]
    warp_d = [w for w in _flat(dst, "warp") if w]
    block_s = _flat(src, "block")
    rs = _intersection([r for r in reg_s if r not in vb], warp_d) if warp_d else []
    rd = _intersection([r for r in reg_d if r not in vb], warp_s) if warp_s else []
    if len(rs) == len(rd) and rs:
        src_fills = min(rs) < min(rd)
    else:
        src_fills = len(rs) > len(rd)
    vb = vb + (rs if src_fills else rd)
    if len(vb) < per_bank and warp_s and warp_d:
        vb = vb + _intersection(warp_s, warp_d)
    i = 0
    while len(vb) < per_bank and (i < len(warp_s) or i < len(warp_d)):
        if i < len(warp_s) and warp_s[i] not in vb:
            vb.append(warp_s[i])
        if len(vb) < per_bank and i < len(warp_d) and warp_d[i] not in vb \
                and warp_d[i] not in block_s:
            vb.append(warp_d[i])
        i += 1
    return vb[:per_bank], src_fills


def _lane_tile(lanes: list[int], vec_elems: int, bits: int, num_banks: int,
               addr: tuple[int, ...] | None = None) -> list[int]:
    """``getLaneTile``: the lanes of one wavefront — the first ``len(lanes) − log2 phases``,
    or the target's address lanes (``getSharedLdStTiles``)."""
    if addr is not None:
        return [lanes[i] for i in addr]
    log2_vec = (max(1, vec_elems * bits // 32)).bit_length() - 1
    phase = max(0, log2_vec + len(lanes) - (num_banks.bit_length() - 1))
    return lanes[:len(lanes) - phase]


def _layout(src: LinearLayout, parts: tuple[list[int], list[int], list[int], list[int]]
            ) -> LinearLayout:
    v, b, s, r = parts
    return LinearLayout.from_columns(v + b + s + r, {"vector": 1 << len(v), "bank": 1 << len(b),
                                                     "segment": 1 << len(s), "reps": 1 << len(r)},
                                     dict(src.out_dims))


def triton_scratch_layout(src: LinearLayout, dst: LinearLayout, element_bits: int, *,
                          stmatrix: bool = False, ldmatrix: bool = False,
                          bank_bits: int = 1024,
                          amd_load_lanes: tuple[int, ...] | None = None) -> ScratchPlan:
    """The scratch layout Triton 3.9.0 builds to convert ``src`` into ``dst``.

    Args:
        src, dst: distributed layouts (register/lane/warp[/block] → the same tensor); the
            ``block`` dim must be trivial.
        element_bits: bits per element as moved (pointers 64, sub-byte types 8).
        stmatrix, ldmatrix: whether the target has them (sm_90+ / sm_75+, NVIDIA only).
        bank_bits: bits in one row of banks (32 banks × 32 bits on NVIDIA and CDNA3, 64 on
            CDNA4).
        amd_load_lanes: the lanes of one ``ds_read_b128`` wavefront on AMD
            (``getSharedLdStTiles``: ``(0, 1, 4)`` on CDNA3, ``(0, 1, 3, 4)`` on CDNA4), None
            elsewhere.

    Returns:
        A :class:`ScratchPlan`.

    Raises:
        LayoutError: the layouts do not describe the same tensor; ``element_bits`` is not a
            power of two from 1 to 128 or ``bank_bits`` not one from 32; ``src`` or ``dst``
            not a LinearLayout.
    """
    instance_of(src, LinearLayout, "src")
    instance_of(dst, LinearLayout, "dst")
    src, dst = _operands(src, dst, element_bits, bank_bits)
    bits = element_bits
    total = max(0, (128 // bits).bit_length() - 1)
    src_tiles = [("ld/st", LD_ST)]
    dst_tiles = [("ld/st", LD_ST)]
    if bits <= 32:
        if stmatrix:
            src_tiles.append(("matrix", MATRIX))
            if bits == 16:
                src_tiles.append(("matrix.trans", MATRIX_TRANS))
        if ldmatrix:
            dst_tiles.append(("matrix", MATRIX))
            if bits == 16:
                dst_tiles.append(("matrix.trans", MATRIX_TRANS))
    reg_s, reg_d = _flat(src, "register"), _flat(dst, "register")
    lane_s, lane_d = _flat(src, "lane"), _flat(dst, "lane")
    best = None
    for sname, (scontig, saddr) in src_tiles:
        for dname, (dcontig, daddr) in dst_tiles:
            n_s, n_d = total - len(scontig), total - len(dcontig)
            if n_s < 0 or n_d < 0:
                continue
            vb = _tile(src, dst, n_s, n_d, scontig, dcontig)
            if vb is None:
                continue
            ts = _side_tile(saddr, reg_s, lane_s, vb)
            td = _side_tile(daddr, reg_d, lane_d, vb)
            if ts is None or td is None:
                continue
            leave = min(len(scontig) + len(saddr) - 3, len(dcontig) + len(daddr) - 3)
            parts = _build(src, dst, bits, vb, ts, td, leave, bank_bits)
            seg = parts[2]
            write = (1 << len(f2.intersection(seg, ts))) - 1 if seg and ts else 0
            read = (1 << len(f2.intersection(seg, td))) - 1 if seg and td else 0
            key = (read + write, -len(parts[3]))
            if best is None or key < best[0]:
                best = (key, parts, sname, dname, (read, write))
    if best is not None:
        _, parts, sname, dname, conf = best
        return ScratchPlan(_layout(src, parts), sname, dname, 1 << len(parts[3]), conf)
    return optimal_swizzling_ldst(src, dst, bits, bank_bits=bank_bits,
                                  amd_load_lanes=amd_load_lanes)


def reorders_bank_bases(vector_bits: int, num_banks: int) -> bool:
    """Whether Triton 3.9.0's ``optimalSwizzlingLdSt`` (``lib/Tools/GenericSwizzling.cpp``)
    moves the bank bases one side holds in registers to the front of the ``bank`` dim, so
    that side's accesses widen past the scratch vector: when the vector is under 128 bits
    (``log2Vec < 2``, ``log2Vec`` counting 32-bit words) and the target has at most 32 banks
    (the ``numBanks <= 32`` guard of Triton's pull request 11169, "Restrict low-vector
    swizzle reorder to <=32 banks": on gfx950's 64 banks the reordered layout's contiguous
    ``ds_read_b64`` raced, so the bank bases keep their ``complementBasis`` order there).

    Args:
        vector_bits: bits in one scratch vector (``vector`` dim size × element bits).
        num_banks: the target's shared-memory banks (32 on NVIDIA and CDNA3, 64 on CDNA4).

    Raises:
        LayoutError: either argument is not a positive power of two.
    """
    log2_exact(vector_bits, "vector_bits")
    log2_exact(num_banks, "num_banks")
    return vector_bits < 128 and num_banks <= 32


def optimal_swizzling_ldst(src: LinearLayout, dst: LinearLayout, element_bits: int, *,
                           bank_bits: int = 1024,
                           amd_load_lanes: tuple[int, ...] | None = None) -> ScratchPlan:
    """Triton's ``optimalSwizzlingLdSt`` (``lib/Tools/GenericSwizzling.cpp``): the
    ``ld/st.shared`` scratch layout :func:`triton_scratch_layout` falls back to when no
    instruction tile pair fits (module docstring, step 4) — also the function Triton's
    ``unittest/Dialect/TritonGPU/SwizzleTest.cpp`` exercises on its own. The ``bank`` bases
    come in ``complementBasis`` order, those one side holds in registers first where
    :func:`reorders_bank_bases` holds (vector under 128 bits, at most 32 banks).

    Args and errors: as :func:`triton_scratch_layout` (no matrix tiles).

    Returns:
        A :class:`ScratchPlan` with ``ld/st`` on both sides; ``conflicts`` is Triton's own
        estimate (``bankConflictsLdSt``): ``2^dim(segment ∩ tile) − 1`` extra wavefronts per
        side, with each side's wavefront lanes as its tile. On layouts whose bases are not
        unit vectors the segment, chosen as Triton does on sets of basis vectors, may depend
        on the other bases: ``memory`` is then not a bijection (check its rank).
    """
    src, dst = _operands(src, dst, element_bits, bank_bits)
    bits = element_bits
    reg_s, reg_d = _flat(src, "register"), _flat(dst, "register")
    vb, src_fills = _vec_basis_ldst(src, dst, bits)
    num_banks = bank_bits // 32
    load_addr = None
    if amd_load_lanes is not None and (1 << len(vb)) * bits == 128:
        load_addr = amd_load_lanes
    ts = _lane_tile(_flat(src, "lane"), 1 << len(vb), bits, num_banks)
    td = _lane_tile(_flat(dst, "lane"), 1 << len(vb), bits, num_banks, load_addr)
    parts = _build(src, dst, bits, vb, ts, td, 0, bank_bits)
    if reorders_bank_bases((1 << len(vb)) * bits, num_banks):
        v, b, sg, r = parts
        in_s = [i for i, x in enumerate(b) if x in reg_s]
        in_d = [i for i, x in enumerate(b) if x in reg_d]
        if src_fills is True:
            order = in_s
        elif src_fills is False:
            order = in_d
        else:
            order = in_s if len(in_s) > len(in_d) else in_d
        order = order + [i for i in range(len(b)) if i not in order]
        parts = (v, [b[i] for i in order], sg, r)
    seg = parts[2]
    write = (1 << len(f2.intersection(seg, ts))) - 1 if seg and ts else 0
    read = (1 << len(f2.intersection(seg, td))) - 1 if seg and td else 0
    return ScratchPlan(_layout(src, parts), "ld/st", "ld/st", 1 << len(parts[3]), (read, write))
