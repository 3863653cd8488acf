"""The shuffles Triton 3.9 emits for a ``tt.scan`` (``ScanOpToLLVM.cpp``: ``warpScan``,
``AddPartialReduce`` and ``AddPartialReduceOneWarp``).

Each thread first scans its contiguous elements along the axis; then, for every chunk (the
last element of each run of contiguous elements, per position off the axis), ``warpScan``
runs a Hillis–Steele scan over the lanes along the axis: ``shfl.sync.up.b32`` once per lane
bit along the axis plus one (the PTX of the probes has ``log2(lanes) + 1`` per chunk). When
one warp holds the whole axis and a thread holds several chunks along it, every chunk then
reads the running total of the last lane of the previous chunk with one
``shfl.sync.idx.b32``; across warps the totals go through shared
memory instead (:mod:`..shared_memory.scan`). 64-bit values take two shuffles each. With no
lane along the axis there is no ``warpScan`` round, yet when warps lie along it the extra
``shuffleUp`` per chunk is still emitted on NVIDIA (dead, kept by NVPTX); within one warp
nothing is.

AMD lowers every one of these shuffles to one ``ds_bpermute_b32`` (two for 64 bits), which
LLVM, unlike NVPTX with ``shfl.sync``, deletes where its result is dead: the extra
``shuffleUp`` per chunk only feeds the thread's other elements along the axis (gone when a
thread holds one), and the last chunk's ``shuffleIdx`` of each output feeds no later chunk.
Checked on compiled kernels (``papers/triton_lowering/shuffle_probes.py``).

A ``reverse`` scan (``reverse = true``) runs the forward scan between two flips
(``reverseValues``): each flip reads every register in reverse order through one
``shuffleXor`` by ``warpSize - 1`` (every lane bit, whatever lies along the axis), one per
32-bit piece of each operand's value (:func:`flip_shuffles`): ``shfl.sync.bfly.b32`` on
NVIDIA, ``ds_bpermute_b32`` on gfx942, and on gfx950 ``v_permlane32_swap_b32``,
``v_permlane16_swap_b32`` and one DPP move (``row_mirror``) each. Measured on compiled
forward and reverse scans of the same tiles, ``papers/triton_lowering/register_redraw_probes.py``.

:func:`scan_result_values` follows the same lowering value by value to say what each result
register holds when a convert packs it on AMD (:mod:`linlayout.lowering.amd_pack`).
"""

from __future__ import annotations

from ..._checks import instance_of, string
from ...layout import LinearLayout
from ...lowering.amd_pack import CANONICAL, COMPUTED, HIGH, RAW
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ..shared_memory.scan import scan_shape
from ._args import bits_tuple, checked

__all__ = ["BF16_NATIVE_COMBINERS", "FLOAT_COMBINERS", "bf16_high_halves", "canonical_within",
           "flip_shuffles", "float_packs", "packs_floats", "scan_result_values",
           "scan_shuffles"]

#: float combine ops whose result LLVM's AMDGPU back end takes as canonical whatever their
#: operands (``isCanonicalized``: arithmetic flushes or keeps denormals as the mode says;
#: ``f16`` min/max too, since ``f16`` denormals are kept on gfx9)
FLOAT_COMBINERS = frozenset({"arith.addf", "arith.subf", "arith.mulf", "arith.maxnumf",
                             "arith.minnumf"})
#: ``bf16`` combine ops Triton 3.9 lowers for gfx950 to a native ``bf16`` LLVM intrinsic
#: (``llvm.maxnum.bf16``/``llvm.minnum.bf16``), which the AMDGPU back end computes in ``f32``
#: and converts back with ``v_cvt_pk_bf16_f32``; Triton emulates ``bf16`` add, sub and mul in
#: ``f32`` with an integer rounding instead, as on gfx942 (measured on compiled gfx950
#: scans, ``papers/triton_lowering/amd_producer_probes.py``)
BF16_NATIVE_COMBINERS = frozenset({"arith.maxnumf", "arith.minnumf"})
#: the depth at which LLVM's ``isCanonicalized`` stops looking through selects and answers no
CANONICAL_DEPTH = 5
#: registers per thread beyond ``2**MAX_REGISTER_BITS`` are not followed (no Triton kernel
#: holds that many; the symbolic lowering is linear in them)
MAX_REGISTER_BITS = 16

# values of the symbolic lowering: leaves and two-operand nodes
_IN, _SHFL, _SMEM, _OTHER_BLOCK = "in", "shfl", "smem", "block"


def _comb(a: object, b: object) -> tuple:
    return ("comb", a, b)


def _sel(a: object, b: object) -> tuple:
    return ("sel", a, b)


def canonical_within(value: object, depth: int = CANONICAL_DEPTH) -> bool:
    """Whether LLVM's ``isCanonicalized`` (``SIISelLowering.cpp``) proves a value of the
    symbolic scan lowering canonical: a combine result yes, a select when both its values
    are within one level less, anything else (the operand as loaded, a shuffle or
    shared-memory load, a value of another basic block) no; at depth 0, no. Measured on
    compiled ``f16`` select chains: four selects over an ``fadd`` pack with
    ``v_pack_b32_f16``, five with ``v_perm_b32``."""
    if depth <= 0 or not isinstance(value, tuple):
        return False
    if value[0] == "comb":
        return True
    return canonical_within(value[1], depth - 1) and canonical_within(value[2], depth - 1)


def packs_floats(element_type: str, target: Target, combiner: str | None) -> bool:
    """Whether two 16-bit float results of ``element_type`` combined by ``combiner`` (an
    ``arith`` op name) can pack in one instruction on ``target`` (:func:`float_packs` says
    which): ``f16`` on any AMD target (``v_pack_b32_f16``); ``bf16`` on gfx950 only for a
    native ``bf16`` op (:data:`BF16_NATIVE_COMBINERS`: Triton emits ``llvm.maxnum.bf16`` /
    ``llvm.minnum.bf16``, which LLVM computes in ``f32`` and rounds with
    ``v_cvt_pk_bf16_f32``). Other ``bf16`` results are followed by :func:`bf16_high_halves`
    instead."""
    return element_type == "f16" or (element_type == "bf16" and str(target.arch) == "gfx950"
                                     and combiner in BF16_NATIVE_COMBINERS)


def bf16_high_halves(element_type: str, target: Target, combiner: str | None) -> bool:
    """Whether the combine results of ``element_type`` combined by ``combiner`` sit in the
    high half of a 32-bit register (:data:`~linlayout.lowering.amd_pack.HIGH`): ``bf16`` on
    an AMD target, where Triton computes the op in ``f32`` and rounds it to ``bf16`` with
    integer ops (the rounding bias added, ``v_bfe_u32``/``v_add3_u32``, a NaN select) that
    leave the result in the ``f32``'s high half: on gfx942 for every op, on gfx950 for all
    but :data:`BF16_NATIVE_COMBINERS` (``arith.addf``/``subf``/``mulf`` of ``bf16`` are
    emulated so on gfx950 too: the LLVM IR has ``fadd float`` and the integer rounding, no
    ``fptrunc``, and the assembly no ``v_cvt_pk_bf16_f32``). Measured on gfx942 and gfx950
    scans (``papers/triton_lowering/amd_producer_probes.py``)."""
    return element_type == "bf16" and not target.is_nvidia and \
        not packs_floats(element_type, target, combiner)


def float_packs(value: object, element_type: str) -> bool:
    """Whether a float result of the symbolic lowering packs for free with a partner that
    does too: an ``f16`` value :func:`canonical_within` proves canonical; a ``bf16`` value
    that is the combine's own result (Triton computes ``bf16`` in ``f32`` and converts back;
    gfx950 converts and packs two such in one ``v_cvt_pk_bf16_f32``, and a select of them in
    between leaves a ``v_perm_b32``: measured on hand-written LLVM IR and on the probes of
    ``amd_producer_probes.py``)."""
    if element_type == "bf16":
        return isinstance(value, tuple) and value[0] == "comb"
    return canonical_within(value)


def _axis_bits(operand: LinearLayout, k: int) -> tuple[list[int], list[int], int, int] | None:
    """(contiguous register bits along the axis, block register bits along it, lanes with
    distinct data along it, warps along it) of a blocked-like layout, or None when a
    register basis mixes the axis with another dim."""
    along = sorted(img[k] for d in ("lane", "warp") for img in operand.bases.get(d, [])
                   if img[k])
    low = along[0] if along else None
    contig, blocks = [], []
    for i, img in enumerate(operand.bases.get("register", [])):
        if not img[k]:
            continue
        if any(v for j, v in enumerate(img) if j != k):
            return None
        (contig if low is None or img[k] < low else blocks).append(i)
    if [operand.bases["register"][i][k] for i in contig] != [1 << j for j in range(len(contig))]:
        return None
    lanes = 1 << sum(1 for img in operand.bases.get("lane", []) if img[k])
    warps = 1 << sum(1 for img in operand.bases.get("warp", []) if img[k])
    return contig, blocks, lanes, warps


def scan_result_values(operand: LinearLayout, axis: int, element_bits: int,
                       element_type: str, target: Target, combiner: str | None,
                       reverse: bool = False) -> tuple[str, ...] | None:
    """What a one-operand ``tt.scan`` leaves in each result register, for an AMD convert
    that packs them (:data:`linlayout.lowering.amd_pack.VALUE_KINDS`, one per register in
    order), or None where it is not modelled (NVIDIA; not 8/16 bits; a float type other
    than ``f16`` and ``bf16``; a combine op that is not
    one known op; more than ``2**MAX_REGISTER_BITS`` registers; a broadcast register, or a
    register basis mixing the axis with another dim). A ``reverse`` scan ends by flipping
    the values back with shuffles: every result is a shuffle's, :data:`COMPUTED`.

    Triton 3.9's ``ScanOpToLLVM.cpp`` is followed value by value: the in-thread prefix of
    each contiguous chunk (``scanThreadContiguousElements``), the ``warpScan`` rounds on its
    last element (a shuffle, the combine, a select of it and the old value), then either
    ``AddPartialReduceOneWarp`` (one warp along the axis: the previous lane's total by
    ``shuffleUp``, selects on the first lane and thread) or, with warps along the axis,
    ``storeWarpAccumulator`` — predicated shared-memory stores, each its own basic block, so
    every value computed before is another block's value to LLVM's instruction selection —
    and ``AddPartialReduce`` (the warps' totals reloaded, combined, selected). A select whose
    predicate is a constant (the first lane when no lane lies along the axis) is folded.
    Each result is then:

    * ``f16`` with a float combine (:data:`FLOAT_COMBINERS`): :data:`CANONICAL` where
      :func:`canonical_within` proves it, else :data:`COMPUTED`; gfx950 ``bf16`` with a
      min/max combine (:func:`packs_floats`): :data:`CANONICAL` where the value is the
      combine's own (:func:`float_packs`);
      other ``bf16`` (:func:`bf16_high_halves`): :data:`HIGH` where it is the combine's own,
      :data:`RAW` as loaded, else :data:`COMPUTED` (a select or shuffle result sits in a low
      half);
    * 8-bit: :data:`RAW` where it is the operand as loaded or a shared-memory reload (a
      zero-extended byte LLVM matches as a byte provider), else :data:`COMPUTED`;
    * other 16-bit values: :data:`COMPUTED` (two of them cost one ``v_perm_b32`` anyway).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``ScanOpToLLVM.cpp`` (Triton 3.9); ``isCanonicalized`` and the ``v_pack_b32_f16``
    pattern of LLVM's AMDGPU back end; measured on compiled scans feeding converts
    (``papers/triton_lowering/producer_probes.py``, ``amd_producer_probes.py``).
    """
    axis = checked(operand, axis, target)
    string(element_type, "element_type")
    if combiner is not None:
        string(combiner, "combiner")
    if target.is_nvidia or element_bits not in (8, 16) or combiner is None:
        return None
    floating = element_type.startswith(("f", "bf"))
    high = bf16_high_halves(element_type, target, combiner)
    if floating and (not (packs_floats(element_type, target, combiner) or high) or
                     combiner not in FLOAT_COMBINERS):
        return None
    k = operand.out_dim_names.index(f"dim{axis}")
    bits = _axis_bits(operand, k)
    if bits is None or not all(any(img) for img in operand.bases.get("register", [])) \
            or len(operand.bases.get("register", [])) > MAX_REGISTER_BITS:
        return None
    if reverse:
        return (COMPUTED,) * (1 << len(operand.bases.get("register", [])))
    contig, blocks, lanes, warps = bits
    n_regs = len(operand.bases.get("register", []))
    per = 1 << len(contig)

    def pos(r: int, which: list[int]) -> int:
        return sum(1 << j for j, b in enumerate(which) if r >> b & 1)

    def chunk_of(r: int) -> tuple[int, int]:
        """(parallel key, block) of register ``r``."""
        mask = sum(1 << b for b in contig + blocks)
        return r & ~mask, pos(r, blocks)

    def reg(base: int, e: int) -> int:
        return base | sum(1 << b for j, b in enumerate(contig) if e >> j & 1)

    total = 1 << n_regs
    vals: list[object] = [_IN] * total
    for r in range(total):  # scanThreadContiguousElements
        e = pos(r, contig)
        if e:
            vals[r] = _comb(vals[reg(r & ~sum(1 << b for b in contig), e - 1)], _IN)
    rounds = max(0, lanes.bit_length() - 1)
    lasts = [r for r in range(total) if pos(r, contig) == per - 1]
    for r in lasts:  # warpScan
        for _ in range(rounds):
            vals[r] = _sel(_comb(_SHFL, vals[r]), vals[r])
    if warps > 1:
        old = [_OTHER_BLOCK] * total
        acc: dict[int, object] = {}
        masked: dict[int, object] = {}
        for r in lasts:
            par, blk = chunk_of(r)
            for _ in range(warps):  # the totals of the warps along the axis, reloaded
                if par not in acc:
                    acc[par] = masked[par] = _SMEM
                    continue
                acc[par] = _comb(acc[par], _SMEM)
                masked[par] = _sel(acc[par], masked[par])
            temp = _comb(masked[par], old[r])
            vals[r] = _sel(temp, old[r]) if blk == 0 else temp
            last = _sel(_SHFL, masked[par])
            base = r & ~sum(1 << b for b in contig)
            for e in range(per - 1):
                lv = _comb(last, old[reg(base, e)])
                vals[reg(base, e)] = _sel(lv, old[reg(base, e)]) if blk == 0 else lv
            masked[par] = acc[par]
    elif total > 1:
        carry: dict[int, object] = {}
        for r in lasts:
            par, blk = chunk_of(r)
            if blk == 0:
                carry[par] = vals[r]
            else:
                vals[r] = _comb(carry[par], vals[r])
            last = vals[r]
            if lanes > 1:
                last = _sel(carry[par], _SHFL)
                if blocks:
                    carry[par] = _SHFL
            elif blocks:
                carry[par] = vals[r]
            base = r & ~sum(1 << b for b in contig)
            for e in range(per - 1):
                lv = _comb(last, vals[reg(base, e)])
                if blk == 0:
                    # the first thread keeps its value; with no lane along the axis every
                    # thread is the first (the predicate folds)
                    lv = _sel(vals[reg(base, e)], lv) if lanes > 1 else vals[reg(base, e)]
                vals[reg(base, e)] = lv
    out = []
    for v in vals:
        if high:
            out.append(HIGH if isinstance(v, tuple) and v[0] == "comb" else
                       RAW if v == _IN else COMPUTED)
        elif floating:
            out.append(CANONICAL if float_packs(v, element_type) else COMPUTED)
        elif element_bits == 8:
            out.append(RAW if v in (_IN, _SMEM) else COMPUTED)
        else:
            out.append(COMPUTED)
    return tuple(out)


def flip_shuffles(operand: LinearLayout, operand_bits: tuple[int, ...], target: Target
                  ) -> dict[str, int]:
    """``{opcode: per_thread}`` of the two flips around a ``reverse`` ``tt.scan`` of
    ``operand`` (each operand's width in ``operand_bits``): Triton 3.9's ``reverseValues``
    (``ScanOpToLLVM.cpp``), before and after the forward scan, reads each register in reverse
    order through one ``shuffleXor`` by ``warpSize - 1``, for every register that holds its
    own element and every operand, one per 32 bits. A ``shuffleXor`` by 63 on AMD is
    ``ds_bpermute_b32`` on gfx942 and three instructions on gfx950
    (``v_permlane32_swap_b32``, ``v_permlane16_swap_b32`` and a ``row_mirror`` DPP move).

    Raises:
        LayoutError: an argument of the wrong type.

    Source: ``ScanOpToLLVM.cpp`` (``reverseValues``); measured on forward and reverse scans
    of the same tiles on cuda:90, gfx942 and gfx950 (the lowering's ``reverse - forward``
    difference, 27 pairs) and on the reverse scans of
    ``papers/triton_lowering/register_redraw_probes.py``.
    """
    instance_of(operand, LinearLayout, "operand")
    instance_of(target, Target, "target")
    operand_bits = bits_tuple(operand_bits)
    registers = 1 << sum(1 for img in operand.bases.get("register", []) if any(img))
    pieces = 2 * registers * sum(2 if bits == 64 else 1 for bits in operand_bits)
    if target.is_nvidia:
        return {"shfl.sync.bfly.b32": pieces}
    if str(target.arch) == "gfx950":
        return {"v_permlane32_swap_b32": pieces, "v_permlane16_swap_b32": pieces,
                "v_mov_b32_dpp": pieces}
    return {"ds_bpermute_b32": pieces}


def scan_shuffles(operand: LinearLayout, axis: int, operand_bits: tuple[int, ...],
                  target: Target, reverse: bool = False) -> tuple[tuple[Emitted, ...], str]:
    """The shuffles per thread of a ``tt.scan`` of ``operand`` along ``axis`` and a note;
    a ``reverse`` scan adds its two flips (:func:`flip_shuffles`).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.
    """
    ems, note = _forward_shuffles(operand, axis, operand_bits, target)
    if not reverse:
        return ems, note
    counts = {e.opcode: e.per_thread for e in ems}
    for op, n in flip_shuffles(operand, operand_bits, target).items():
        counts[op] = counts.get(op, 0) + n
    return tuple(Emitted("shuffle", op, n, None, 32, 0, "") for op, n in counts.items()), note


def _forward_shuffles(operand: LinearLayout, axis: int, operand_bits: tuple[int, ...],
                      target: Target) -> tuple[tuple[Emitted, ...], str]:
    axis = checked(operand, axis, target)
    operand_bits = bits_tuple(operand_bits)
    shape = scan_shape(operand, axis)
    k = operand.out_dim_names.index(f"dim{axis}")
    lane_bits = sum(1 for img in operand.bases.get("lane", []) if img[k])
    if not lane_bits and not (target.is_nvidia and shape.warps > 1):
        return (), ""
    chunks = shape.chunks * shape.outputs
    if target.is_nvidia:
        extra_up, idx_chunks = 1, chunks
    else:
        top = max((img[k] for d in ("lane", "warp") for img in operand.bases.get(d, [])
                   if img[k]), default=0)
        inner = any(img[k] and img[k] < top for img in operand.bases.get("register", []))
        extra_up, idx_chunks = (1 if inner else 0), (shape.chunks - 1) * shape.outputs
    up = idx = 0
    for bits in operand_bits:
        halves = 2 if bits == 64 else 1
        up += chunks * (lane_bits + extra_up) * halves
        if shape.warps == 1 and shape.chunks > 1:
            idx += idx_chunks * halves
    if not target.is_nvidia:
        return (Emitted("shuffle", "ds_bpermute_b32", up + idx, None, 32, 0, ""),), ""
    ems = [Emitted("shuffle", "shfl.sync.up.b32", up, None, 32, 0, "")]
    if idx:
        ems.append(Emitted("shuffle", "shfl.sync.idx.b32", idx, None, 32, 0, ""))
    return tuple(ems), ""
