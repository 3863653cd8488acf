"""The butterfly shuffles Triton 3.9 emits for a ``tt.reduce`` (``ReduceOpToLLVM.cpp``,
``reduceWithinWarps`` and ``warpReduce``; ``TargetInfo::shuffleXor``/``warpReduce`` of each
backend).

Each in-warp round combines, for every accumulator a thread holds (its registers after the
in-thread step: one per distinct position off the axis), the lanes along the axis: one
``shuffleXor`` per lane bit along the axis and operand, by that lane bit. The first round
runs on the operand's layout; each cross-warp round (:mod:`..shared_memory.reduce`: the
partial results moved to ``getInterLayout``) runs another on the lanes that received the
warp bits. Per shuffle, by target:

* NVIDIA: ``shfl.sync.bfly.b32`` (two for a 64-bit value), or ``redux.sync`` (PTX ISA,
  ``redux.sync``; :func:`redux_instructions`) when the reduce has one operand and its combine
  region is one integer ``add``/``and``/``or``/``xor``/``min``/``max`` — or, on sm_100, an
  f32 ``max``/``min`` — (``matchReduxKind``, ``getSingleCombiner``) on sm_80+, and
  ``TargetInfo::warpReduce`` takes it for the round's lanes, with the ``selp`` s that choose
  what each lane lets in (:func:`redux_selects`). When the combine op is not known
  (no TTGIR region), a full-warp integer round is not counted (the note says so);
* AMD: by lane mask, as :func:`linlayout.lowering.convert` (DPP for 1, 2, 4 (two) and 8,
  ``ds_bpermute_b32`` for 16 and 32, ``v_permlane16/32_swap_b32`` on gfx950); a reduction
  over all 64 lanes of one operand is ``warpReduce``'s DPP sequence: six ``v_mov_b32_dpp``
  per accumulator (checked on compiled kernels, ``papers/triton_lowering/shuffle_probes.py``).
"""

from __future__ import annotations

from ... import f2
from ..._checks import instance_of, string
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.amd_pack import CANONICAL, COMPUTED, pack_permutes, source_words
from ...lowering.convert import amd_xor, convert_path
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ..shared_memory.reduce import inter_layout, reduce_steps, reduced_layout
from ._args import bits_tuple, checked
from .scan import FLOAT_COMBINERS, packs_floats

__all__ = ["REDUX_INTEGER", "REDUX_FLOAT", "REDUX_NOT_IDEMPOTENT", "REDUX_ZERO_IDENTITY",
           "SCALARISED_16", "SLP_REPACKED_16", "SLP_REPACKED_16_FOUR", "SLP_REPACKED_16_SWAP",
           "VECTOR_COMBINERS_16", "VECTOR_COMBINERS_F32",
           "first_round_redux", "in_thread_pack_permutes",
           "in_thread_vector_pairs", "lowered_load", "reduce_leaves_scalar_bytes",
           "reduce_leaves_scalars",
           "reduce_leaves_words", "reduce_result_values", "reduce_rounds",
           "round_result_kinds", "reduce_shuffles",
           "redux_instructions", "redux_rounds", "redux_selects", "round_reads_out",
           "slp_repacked"]

#: Integer combine ops ``redux.sync`` implements: the PTX operation and 32-bit type.
REDUX_INTEGER = {"arith.addi": ("add", "s32"), "arith.andi": ("and", "b32"),
                 "arith.ori": ("or", "b32"), "arith.xori": ("xor", "b32"),
                 "arith.minsi": ("min", "s32"), "arith.minui": ("min", "u32"),
                 "arith.maxsi": ("max", "s32"), "arith.maxui": ("max", "u32")}
#: f32 combine ops ``redux.sync`` implements on sm_100 (``.NaN``: NaN-propagating).
REDUX_FLOAT = {"arith.maxnumf": "max.f32", "arith.minnumf": "min.f32",
               "arith.maximumf": "max.NaN.f32", "arith.minimumf": "min.NaN.f32"}

#: Combine ops whose identity, on the 32-bit widened value, is zero (``add``, ``or``,
#: ``xor``, unsigned ``max``): a partitioned ``redux.sync`` round spends one select fewer.
REDUX_ZERO_IDENTITY = frozenset({"arith.addi", "arith.ori", "arith.xori", "arith.maxui"})
#: Combine ops that count a value held twice twice (not idempotent): where lanes hold copies,
#: a ``redux.sync`` round lets one copy in and puts the identity in the others.
REDUX_NOT_IDEMPOTENT = frozenset({"arith.addi", "arith.xori"})

#: Combine ops whose in-thread step Triton 3.9 vectorises on 16-bit elements
#: (``ReduceOpHelper::getInThreadVectorizeOpKind``): float ops on ``f16``/``bf16``, integer
#: ops on ``i16`` only.
VECTOR_COMBINERS_16 = {"float": frozenset({"arith.addf", "arith.mulf", "arith.minnumf",
                                           "arith.maxnumf", "arith.minimumf",
                                           "arith.maximumf"}),
                       "int": frozenset({"arith.addi", "arith.muli", "arith.minsi",
                                         "arith.maxsi", "arith.minui", "arith.maxui"})}
#: ... and on ``f32`` (where the target supports 32-bit packed ops).
VECTOR_COMBINERS_F32 = frozenset({"arith.addf", "arith.mulf"})


def _axis(layout: LinearLayout, axis: int) -> int:
    key = f"dim{axis}"
    if key not in layout.out_dim_names:
        raise LayoutError(f"tt.reduce axis {axis} is not a dim of the operand "
                          f"({dict(layout.out_dims)}); use an axis below "
                          f"{len(layout.out_dims)}")
    return layout.out_dim_names.index(key)


def _accumulators(layout: LinearLayout, k: int) -> int:
    """Registers left after the in-thread step: one per distinct position off the axis."""
    names = layout.out_dim_names
    cols = []
    for img in layout.bases.get("register", []):
        flat = 0
        shift = 0
        for i, n in enumerate(names):
            if i != k:
                flat |= img[i] << shift
            shift += layout.out_bits(n)
        cols.append(flat)
    return 1 << f2.rank(cols)


def _lane_masks(layout: LinearLayout, k: int) -> list[int]:
    return [1 << i for i, img in enumerate(layout.bases.get("lane", [])) if img[k]]


def _broadcast_lanes(layout: LinearLayout) -> int:
    """The lane bits whose basis is zero (lanes holding copies), as a mask."""
    return sum(1 << i for i, img in enumerate(layout.bases.get("lane", [])) if not any(img))


def _round_layouts(operand: LinearLayout, axis: int) -> list[LinearLayout]:
    """The layout each in-warp round runs on: the operand's, then each ``getInterLayout``."""
    out = [operand]
    layout = reduced_layout(operand, axis)
    n = 0
    while layout.out_dims[f"dim{axis}"] != 1 and n < 3:
        tmp = inter_layout(layout, axis)
        out.append(tmp)
        layout = reduced_layout(tmp, axis)
        n += 1
    return out


def reduce_rounds(operand: LinearLayout, axis: int) -> list[tuple[int, list[int]]]:
    """``(accumulators, lane masks)`` of every in-warp round of a reduction of ``operand``
    along ``axis``, in order.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    k = _axis(operand, axis)
    return [(_accumulators(lay, k), _lane_masks(lay, k))
            for lay in _round_layouts(operand, axis)]


def redux_instructions(combiner: str | None, bits: int, target: Target, reduce_lanes: int,
                       broadcast_lanes: int = 0) -> dict[str, int] | None:
    """The ``redux.sync`` instructions per accumulator of one in-warp round, or None when
    Triton 3.9 uses butterfly shuffles for it.

    Args:
        combiner: the reduce's single combine op (``"arith.addi"``;
            :func:`linlayout.triton.combine.single_combiner`), or None.
        bits: the operand's element bits (8 to 64).
        target: the compilation target (``redux.sync`` needs NVIDIA sm_80+, 32 lanes).
        reduce_lanes: the lane bits along the reduced axis, as a mask.
        broadcast_lanes: the lane bits that hold copies (zero basis), as a mask.

    Returns:
        ``{opcode: count}`` per accumulator: one ``redux.sync`` for the whole warp; two when
        one other lane bit splits the warp into two groups (each group reduced apart, the
        other group's values replaced by the identity); a 64-bit integer on a full warp as
        32-bit pieces — three ``add`` (two 16-bit halves of the low word and the high word)
        or two of the others (the high word, then the low word unsigned). None: not
        NVIDIA sm_80+ with 32 lanes, no single combine op ``redux.sync`` implements, more
        than one lane bit off the axis and not broadcast, a partial warp of 64-bit values,
        or fewer lanes along the axis than ``warpReduce``'s threshold (4, or 16 with two
        groups; min/max on sm_100: 2, or 8).

    Raises:
        LayoutError: ``target`` is not a Target, ``combiner`` not a string or None, or a
            count or mask that is not a non-negative int.

    Source: ``TargetInfo::warpReduce``, ``matchReduxKind``
    (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp``), Triton 3.9; checked on
    compiled kernels (``papers/triton_lowering/redux_probes.py``).
    """
    instance_of(target, Target, "target")
    if combiner is not None:
        string(combiner, "combiner")
    for v, what in ((bits, "bits"), (reduce_lanes, "reduce_lanes"),
                    (broadcast_lanes, "broadcast_lanes")):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise LayoutError(f"{what} must be a non-negative int, got {v!r}")
    if not target.is_nvidia or target.cc < 80 or target.threads_per_warp != 32 \
            or combiner is None:
        return None
    if combiner in REDUX_INTEGER:
        kind, ptx_type = REDUX_INTEGER[combiner]
        if bits > 64:
            return None
    elif combiner in REDUX_FLOAT and target.cc // 10 == 10 and bits == 32:
        kind, ptx_type = REDUX_FLOAT[combiner].split(".", 1)
    else:
        return None
    full = 31
    group = full & ~(reduce_lanes | broadcast_lanes)
    if bin(group).count("1") > 1:
        return None
    partitioned = group != 0
    if reduce_lanes != full:
        if bits > 32:
            return None
        fast = kind in ("min", "max") and target.cc >= 100
        least = (8 if partitioned else 2) if fast else (16 if partitioned else 4)
        if 1 << bin(reduce_lanes).count("1") < least:
            return None
    if bits == 64:
        if kind == "add":
            return {"redux.sync.add.s32": 3}
        if kind in ("min", "max"):
            low = f"redux.sync.{kind}.u32"
            high = f"redux.sync.{kind}.{ptx_type}"
            return {high: 1, low: 1} if high != low else {low: 2}
        return {f"redux.sync.{kind}.{ptx_type}": 2}
    return {f"redux.sync.{kind}.{ptx_type}": 2 if partitioned else 1}


def redux_selects(combiner: str | None, bits: int, target: Target, reduce_lanes: int,
                  broadcast_lanes: int = 0) -> dict[str, int]:
    """The selects per accumulator that feed the ``redux.sync`` instructions of one in-warp
    round (:func:`redux_instructions`), ``{}`` where there are none or the round is not a
    ``redux.sync`` round.

    * **Partitioned** (one lane bit off the axis splits the warp into two groups, two
      ``redux.sync``): each group is reduced apart. Before the first ``redux.sync`` the lanes
      of the other group put the combine op's identity in (a select on that lane bit),
      before the second the lanes of the first group do, and a third select picks each
      lane's own group's result: three ``select`` s per accumulator in Triton's LLVM IR.
      Where the identity of the widened 32-bit value is zero (:data:`REDUX_ZERO_IDENTITY`),
      NVPTX's instruction selection spells the select that keeps the value when the lane bit
      is set as an ``and`` with the negated lane bit (``neg.s32``, computed once), not a
      ``selp``: two ``selp.b32`` per accumulator; otherwise three (``selp.f32`` for the f32
      ``min``/``max`` of sm_100).
    * **Lanes holding copies** (``broadcast_lanes``, not partitioned) and a combine op that
      is not idempotent (:data:`REDUX_NOT_IDEMPOTENT`: ``add``, ``xor``): only the lanes
      whose broadcast bits are zero let their value in, the others the identity: one
      ``selp.b32`` per accumulator. ``min``/``max``/``and``/``or`` need none.

    Args and errors: as :func:`redux_instructions`.

    Source: ``TargetInfo::warpReduce``
    (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp``) and
    ``ReduceOpToLLVM.cpp``, Triton 3.9, as its LLVM IR before ``-O3`` and NVPTX's assembly of
    it show; measured on held-out compiled reductions
    (``papers/triton_lowering/redux_heldout_probes.py``).
    """
    redux = redux_instructions(combiner, bits, target, reduce_lanes, broadcast_lanes)
    if redux is None or bits > 32:
        return {}
    if 31 & ~(reduce_lanes | broadcast_lanes):
        if combiner in REDUX_FLOAT:
            return {"selp.f32": 3}
        return {"selp.b32": 2 if combiner in REDUX_ZERO_IDENTITY else 3}
    if 31 & broadcast_lanes and combiner in REDUX_NOT_IDEMPOTENT:
        return {"selp.b32": 1}
    return {}


def reduce_shuffles(operand: LinearLayout, axis: int, operand_bits: tuple[int, ...],
                    target: Target, integer: bool = False, combiner: str | None = None
                    ) -> tuple[tuple[Emitted, ...], str]:
    """The lane-exchange instructions per thread of a ``tt.reduce`` and a note.

    Args:
        operand: the operand's distributed layout.
        axis: the reduced dim.
        operand_bits: each operand's moved bits.
        target: the compilation target.
        integer: the operands are integers (with ``combiner`` unknown, a full-warp round on
            NVIDIA may be ``redux.sync``: not counted, said in the note).
        combiner: the single combine op of a one-operand reduce (``"arith.addi"``), or
            None; with it, each round's ``redux.sync`` is counted where Triton uses it
            (:func:`redux_instructions`), with the selects of a partitioned round
            (:func:`redux_selects`).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    axis = checked(operand, axis, target)
    operand_bits = bits_tuple(operand_bits)
    lanes = target.threads_per_warp
    out: dict[str, int] = {}
    notes = []
    k = _axis(operand, axis)
    for layout in _round_layouts(operand, axis):
        accs, masks = _accumulators(layout, k), _lane_masks(layout, k)
        if not masks:
            continue
        full = len(masks) == lanes.bit_length() - 1
        for bits in operand_bits:
            halves = 2 if bits == 64 else 1
            redux = redux_instructions(combiner, bits, target, sum(masks),
                                       _broadcast_lanes(layout)) \
                if len(operand_bits) == 1 else None
            if redux is not None:
                redux = {**redux, **redux_selects(combiner, bits, target, sum(masks),
                                                  _broadcast_lanes(layout))}
                for op, n in redux.items():
                    out[op] = out.get(op, 0) + accs * n
                continue
            if target.is_nvidia:
                if combiner is None and full and integer and bits <= 32 and target.cc >= 80:
                    notes.append("a full-warp integer round may be one redux.sync per "
                                 "accumulator: not counted")
                    continue
                out["shfl.sync.bfly.b32"] = out.get("shfl.sync.bfly.b32", 0) + \
                    accs * len(masks) * halves
            elif full and len(operand_bits) == 1:
                out["v_mov_b32_dpp"] = out.get("v_mov_b32_dpp", 0) + 6 * accs * halves
            else:
                for m in masks:
                    op, n = amd_xor(m, str(target.arch))
                    out[op] = out.get(op, 0) + accs * n * halves
    ems = tuple(Emitted("select" if op.startswith("selp") else "shuffle", op, n, None, 32, 0, "")
                for op, n in out.items() if n)
    return ems, "; ".join(dict.fromkeys(notes))


def reduce_leaves_words(operand: LinearLayout, result: LinearLayout | None, axis: int,
                        element_bits: int, target: Target, combiner: str | None) -> bool:
    """Whether a one-operand ``tt.reduce`` leaves each 8- or 16-bit result in a 32-bit
    register whose upper bits are unknown (the convert that packs the results then pays for
    it: :func:`linlayout.lowering.convert_path`, ``wide_source``).

    ``redux.sync`` works on 32-bit registers: Triton widens a narrower operand, reduces and
    truncates the result, which NVPTX leaves in the 32-bit register. That is the result when
    the last in-warp round (:func:`reduce_rounds`) is a ``redux.sync``
    (:func:`redux_instructions`) and no move to the result layout through shared memory or
    shuffles follows it (a register renaming keeps the registers). Butterfly rounds end in
    the combine op, a 16-bit register (``max.s16``, ``add.f16``): False; so on AMD.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``ReduceOpConversion`` (``lib/Conversion/TritonGPUToLLVM/ReduceOpToLLVM.cpp``),
    ``TargetInfo::warpReduce`` (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp``),
    Triton 3.9; measured on compiled reductions feeding converts
    (``papers/triton_lowering/producer_probes.py``).
    """
    if result is not None:
        instance_of(result, LinearLayout, "result")
    rounds = redux_rounds(operand, axis, element_bits, target, combiner)
    if not rounds[-1]:
        return False
    return _kept_by_result(operand, result, axis, element_bits, target)


def redux_rounds(operand: LinearLayout, axis: int, element_bits: int, target: Target,
                 combiner: str | None) -> list[bool]:
    """Per in-warp round of a one-operand reduction (:func:`reduce_rounds`, in order),
    whether it leaves its 8- or 16-bit partial results in 32-bit registers: a
    ``redux.sync`` round (:func:`redux_instructions`) on NVIDIA. The ``convert_layout`` that
    follows such a round (to ``getInterLayout`` or to the result layout) pays for packing
    them (:func:`linlayout.lowering.convert_path`, ``wide_source``).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.
    """
    axis = checked(operand, axis, target)
    (element_bits,) = bits_tuple((element_bits,))
    k = _axis(operand, axis)
    out = []
    for layout in _round_layouts(operand, axis):
        masks = _lane_masks(layout, k)
        out.append(element_bits in (8, 16) and target.is_nvidia and bool(masks) and
                   redux_instructions(combiner, element_bits, target, sum(masks),
                                      _broadcast_lanes(layout)) is not None)
    return out


def first_round_redux(operand: LinearLayout, axis: int, element_bits: int, target: Target,
                      combiner: str | None) -> str | None:
    """How the first in-warp round of a one-operand reduction of ``operand`` (the round on
    the operand's own layout, :func:`reduce_rounds`) reads its values when it is a
    ``redux.sync`` round (:func:`redux_instructions`): ``"partitioned"`` (one lane bit off
    the axis splits the warp into two groups; each value is read by two selects, one per
    group's ``redux.sync``: :func:`redux_selects`) or ``"full"`` (one ``redux.sync``, the
    value read as it is, or through one select where lanes hold copies); None where that
    round is not a ``redux.sync`` round or the operand has no lane along ``axis``.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``TargetInfo::warpReduce``
    (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/TargetInfo.cpp``), Triton 3.9, as its
    LLVM IR before ``-O3`` shows.
    """
    axis = checked(operand, axis, target)
    (element_bits,) = bits_tuple((element_bits,))
    k = _axis(operand, axis)
    masks = _lane_masks(operand, k)
    if not masks:
        return None
    broadcast = _broadcast_lanes(operand)
    if redux_instructions(combiner, element_bits, target, sum(masks), broadcast) is None:
        return None
    return "partitioned" if 31 & ~(sum(masks) | broadcast) else "full"


def _kept_by_result(operand: LinearLayout, result: LinearLayout | None, axis: int,
                    element_bits: int, target: Target) -> bool:
    """Whether the last round's registers are the reduce's results: no move to the result
    layout follows it, or one that only renames registers."""
    steps = reduce_steps(operand, result, axis)
    if steps and steps[-1][0] == "result":
        _, src, dst = steps[-1]
        return convert_path(src, dst, element_bits, target).path in ("none", "registers")
    return True


def reduce_leaves_scalars(operand: LinearLayout, result: LinearLayout | None, axis: int,
                          element_bits: int, target: Target) -> bool:
    """Whether a one-operand ``tt.reduce`` on AMD leaves each 16-bit result in a scalar
    register, so that a convert packs two results for nothing: its last round reduces all 64
    lanes (``warpReduce``'s DPP sequence), which ends by reading the total out of lane 63
    (``v_readlane_b32``: the value is the same in every lane), and LLVM packs two scalars
    with ``s_pack_ll_b32_b16``, no ``v_perm_b32``. 8-bit results still pay, on the
    reduction's line (:func:`reduce_leaves_scalar_bytes`).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``TargetInfo::warpReduce`` (``third_party/amd/lib/TritonAMDGPUToLLVM/
    TargetInfo.cpp``), Triton 3.9; measured on compiled gfx942/gfx950 reductions feeding
    converts (``papers/triton_lowering/producer_probes.py``).
    """
    axis = checked(operand, axis, target)
    (element_bits,) = bits_tuple((element_bits,))
    if result is not None:
        instance_of(result, LinearLayout, "result")
    if element_bits != 16 or target.is_nvidia:
        return False
    return _read_out(operand, result, axis, element_bits, target)


def reduce_leaves_scalar_bytes(operand: LinearLayout, result: LinearLayout | None, axis: int,
                               element_bits: int, target: Target) -> bool:
    """Whether a one-operand ``tt.reduce`` on AMD leaves each 8-bit result in a scalar
    register: its last round reduces all 64 lanes (``warpReduce``'s DPP sequence, read out of
    lane 63 with ``v_readlane_b32``) and no move to the result layout follows it, as
    :func:`reduce_leaves_scalars` says of 16-bit results. Unlike those, two such bytes stored
    as one word still cost ``v_perm_b32`` (:mod:`.scalar_bytes`), and after ``-O3`` they sit
    on the reduction's line.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``TargetInfo::warpReduce`` (``third_party/amd/lib/TritonAMDGPUToLLVM/
    TargetInfo.cpp``), Triton 3.9, as LLVM's AMDGPU instruction selection selects it;
    measured on compiled gfx942/gfx950 reductions
    (``papers/triton_lowering/scalar_byte_probes.py``).
    """
    axis = checked(operand, axis, target)
    (element_bits,) = bits_tuple((element_bits,))
    if result is not None:
        instance_of(result, LinearLayout, "result")
    if element_bits != 8 or target.is_nvidia:
        return False
    return _read_out(operand, result, axis, element_bits, target)


def _read_out(operand: LinearLayout, result: LinearLayout | None, axis: int,
              element_bits: int, target: Target) -> bool:
    """The last round reduces a whole wavefront and the result keeps its registers."""
    k = _axis(operand, axis)
    last = _round_layouts(operand, axis)[-1]
    if len(_lane_masks(last, k)) != target.threads_per_warp.bit_length() - 1:
        return False
    return _kept_by_result(operand, result, axis, element_bits, target)


def reduce_result_values(operand: LinearLayout, result: LinearLayout | None, axis: int,
                         element_bits: int, element_type: str, target: Target,
                         combiner: str | None) -> tuple[str, ...] | None:
    """What a one-operand ``tt.reduce`` on AMD leaves in each non-broadcast result register,
    for a convert that packs them (:data:`linlayout.lowering.amd_pack.VALUE_KINDS`), or None
    where it is not modelled (NVIDIA; not 8/16 bits; a float type other than ``f16`` and
    gfx950's ``bf16`` min/max (:func:`.scan.packs_floats`) or a combine op not known; a scalar
    result; nothing to reduce along the axis).

    When the last in-warp round is a partial warp's (``shuffleXor`` by DPP,
    ``ds_swizzle``/``ds_bpermute`` or a permlane swap, then the combine) and no move to the
    result layout follows it (:func:`_kept_by_result`), every result is the combine op's
    own: an ``f16`` float combine (:data:`.scan.FLOAT_COMBINERS`) leaves values LLVM knows
    canonical (:data:`CANONICAL`: two pack with ``v_pack_b32_f16``; gfx950 ``bf16``
    conversion results with ``v_cvt_pk_bf16_f32``), an integer one
    :data:`COMPUTED` values (bytes packed with shifts and SDWA ors). A full-warp last round
    (``warpReduce``'s DPP sequence read out to scalar registers:
    :func:`reduce_leaves_scalars`) and results moved through shared memory or shuffles are
    left as they are modelled today (None). So are the other ``bf16`` reductions (gfx942, and
    gfx950's add/sub/mul): each result is the combine region's own, emulated in ``f32`` with
    an integer rounding that leaves it in a high half
    (:data:`linlayout.lowering.amd_pack.HIGH`). That holds for the in-thread step
    too: Triton's AMD lowering combines a thread's registers as a tree of ``<2 x bfloat>``
    ops, which gfx950 rounds with ``v_cvt_pk_bf16_f32``, but it ends with the combine region
    on the last vector's two halves (measured on the fourth draw of
    ``papers/triton_lowering/amd_producer_probes.py``, ``--bf16-evidence``). Two high halves
    cost one ``v_perm_b32``, as two registers of loaded elements do.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``ReduceOpToLLVM.cpp`` and ``TargetInfo::shuffleXor`` (AMD), Triton 3.9;
    ``isCanonicalized`` of LLVM's AMDGPU back end; measured on compiled reductions feeding
    converts (``papers/triton_lowering/producer_probes.py``, ``amd_producer_probes.py``).
    """
    axis = checked(operand, axis, target)
    (element_bits,) = bits_tuple((element_bits,))
    string(element_type, "element_type")
    if combiner is not None:
        string(combiner, "combiner")
    if result is not None:
        instance_of(result, LinearLayout, "result")
    if target.is_nvidia or element_bits not in (8, 16) or combiner is None or result is None:
        return None
    floating = element_type.startswith(("f", "bf"))
    if floating and (not packs_floats(element_type, target, combiner) or
                     combiner not in FLOAT_COMBINERS):
        return None
    k = _axis(operand, axis)
    if operand.out_dims[f"dim{axis}"] == 1:
        return None
    last = _round_layouts(operand, axis)[-1]
    if len(_lane_masks(last, k)) == target.threads_per_warp.bit_length() - 1:
        return None
    if not _kept_by_result(operand, result, axis, element_bits, target):
        return None
    n = 1 << sum(1 for img in result.bases.get("register", []) if any(img))
    return (CANONICAL if floating else COMPUTED,) * n


def round_result_kinds(operand: LinearLayout, axis: int, element_bits: int,
                       element_type: str, target: Target, combiner: str | None
                       ) -> list[str | None]:
    """Per in-warp round of a one-operand AMD reduction (:func:`reduce_rounds`, in order),
    what that round leaves in every register its ``convert_layout`` packs — the move of the
    partial results to ``getInterLayout`` for the next round, or the last round's move to
    the result layout (:func:`linlayout.check.shared_memory.reduce.reduce_steps`, the same
    index) — as a kind of :data:`linlayout.lowering.amd_pack.VALUE_KINDS`, or None where
    they are not followed (the convert then counts them as loaded: one element per
    register).

    A round that combines something — two or more registers along the axis (the in-thread
    step) or a lane bit along it (``shuffleXor``, then the combine) — leaves the combine op's
    own results, as :func:`reduce_result_values` says of a reduction's results: an ``f16``
    float combine (:data:`.scan.FLOAT_COMBINERS`) or a gfx950 ``bf16`` min/max
    (:func:`.scan.packs_floats`) :data:`CANONICAL` values, so that two of them stored as one
    word (``store <2 x half>``, Triton's ``insertelement`` pair) are one
    ``v_pack_b32_f16`` (one ``v_cvt_pk_bf16_f32``) and no ``v_perm_b32`` — LLVM's AMDGPU
    instruction selection takes ``V_PACK_B32_F16`` for a ``v2f16`` ``build_vector`` only
    when ``SITargetLowering::isCanonicalized`` proves both halves canonical (a float
    arithmetic, min or max result is); an integer combine :data:`COMPUTED` values. None:
    NVIDIA, not 8/16 bits, the combine op not known, other ``bf16`` combines (their
    results sit in high halves and pack as loaded values do), a round that only moves values
    (one register and no lane along the axis: the values are the operand's, or those
    loaded from the scratch), and a round over the whole wavefront (its totals are read out
    to scalar registers: :func:`round_reads_out`).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``ReduceOpConversion`` (``ReduceOpToLLVM.cpp``: ``reduceWithinWarps``, then
    ``convert_layout`` to ``getInterLayout``), Triton 3.9, as its LLVM IR before ``-O3``
    shows (``insertelement <2 x half>`` of two ``fadd``/``minnum`` results, ``store <2 x
    half>``); ``is_canonicalized_2`` (``AMDGPUInstructions.td``) and ``isCanonicalized``
    (``SIISelLowering.cpp``); measured on compiled gfx942/gfx950 reductions
    (``papers/triton_lowering/reduce_pack_probes.py``).
    """
    axis = checked(operand, axis, target)
    (element_bits,) = bits_tuple((element_bits,))
    string(element_type, "element_type")
    if combiner is not None:
        string(combiner, "combiner")
    layouts = _round_layouts(operand, axis)
    if target.is_nvidia or element_bits not in (8, 16) or combiner is None:
        return [None] * len(layouts)
    floating = element_type.startswith(("f", "bf"))
    if floating and (not packs_floats(element_type, target, combiner) or
                     combiner not in FLOAT_COMBINERS):
        return [None] * len(layouts)
    kind = CANONICAL if floating else COMPUTED
    k = _axis(operand, axis)
    full = target.threads_per_warp.bit_length() - 1
    out: list[str | None] = []
    for layout in layouts:
        masks = _lane_masks(layout, k)
        regs = sum(1 for img in layout.bases.get("register", []) if img[k])
        out.append(kind if (masks or regs) and len(masks) != full else None)
    return out


def _supports_packed(target: Target, bits: int) -> bool:
    """``TargetInfo::supportBitwidth16Elementwise``/``supportBitwidth32Elementwise``: AMD 16
    bits always, 32 bits on CDNA2/3/4 (gfx90a, gfx942, gfx950); NVIDIA 16 bits from sm_90,
    32 bits from sm_100."""
    if target.is_nvidia:
        return target.cc >= (90 if bits == 16 else 100)
    if bits == 16:
        return True
    return str(target.arch) in ("gfx90a", "gfx942", "gfx950")


def in_thread_vector_pairs(operand: LinearLayout, axis: int, element_type: str,
                           combiner: str | None, combine_ops: int | None, target: Target
                           ) -> tuple[tuple[int, int], ...] | None:
    """The register pairs a one-operand ``tt.reduce``'s in-thread step packs into
    ``<2 x T>`` vectors, or None where Triton 3.9 does not vectorise it.

    ``ReduceOpConversion::reduceWithinThreads`` (``lib/Conversion/TritonGPUToLLVM/
    ReduceOpToLLVM.cpp``) vectorises when ``ReduceOpHelper::getInThreadVectorizeOpKind``
    (``lib/Analysis/Utility.cpp``) names a kind: a thread holds at least 4 registers along
    the axis (broadcast registers dropped), one operand, a combine region of one op
    (``combine_ops == 1``) among :data:`VECTOR_COMBINERS_16` on a 16-bit element (integer
    ops on ``i16`` only) or :data:`VECTOR_COMBINERS_F32` on ``f32``, and the target supports
    such packed ops (:func:`_supports_packed`). It then reorders the registers
    (``moveAxisBasesToFront`` with ``isVectorized``: the first register basis stays first,
    the other bases along the axis follow) and packs consecutive registers two by two
    (``packVectorized``): every pair is the registers that differ in the first register
    basis only.

    Args:
        operand: the operand's distributed layout.
        axis: the reduced dim.
        element_type: the operand's element type (``"i16"``, ``"f16"``, ``"bf16"``,
            ``"f32"`` …).
        combiner: the single combine op (:func:`linlayout.triton.combine.single_combiner`)
            or None.
        combine_ops: the combine region's op count
            (:func:`linlayout.triton.combine.combine_op_count`) or None.
        target: the compilation target.

    Returns:
        ``((low, high), …)``: indices of the non-broadcast registers (in register order,
        as :func:`linlayout.lowering.amd_pack.source_words` numbers them), low element
        first; one pair per two registers.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.
    """
    axis = checked(operand, axis, target)
    string(element_type, "element_type")
    if combiner is not None:
        string(combiner, "combiner")
    if combine_ops is not None and (isinstance(combine_ops, bool) or
                                    not isinstance(combine_ops, int)):
        raise LayoutError(f"combine_ops must be an int or None, got {combine_ops!r}")
    if combiner is None or combine_ops != 1:
        return None
    if element_type in ("f16", "bf16"):
        ok = combiner in VECTOR_COMBINERS_16["float"] and _supports_packed(target, 16)
    elif element_type in ("i16", "ui16"):
        ok = combiner in VECTOR_COMBINERS_16["int"] and _supports_packed(target, 16)
    elif element_type == "f32":
        ok = combiner in VECTOR_COMBINERS_F32 and _supports_packed(target, 32)
    else:
        ok = False
    if not ok:
        return None
    k = _axis(operand, axis)
    regs = [img for img in operand.bases.get("register", []) if any(img)]
    if sum(1 for img in regs if img[k]) < 2:  # axisPack < 4
        return None
    return tuple((i, i | 1) for i in range(0, 1 << len(regs), 2))


#: the in-thread vectors whose final assembly LLVM's ``-O3`` re-packs in its own pairs (its SLP
#: vectoriser, LLVM, not Triton) once a thread holds two or more accumulators: ``f16`` float
#: combines (``arith.addf``/``mulf``/``minnumf``/``maxnumf``/``minimumf``/``maximumf``) and the
#: ``i16`` mul; there :func:`in_thread_pack_permutes` counts Triton's lowering
#: (:func:`slp_repacked`)
SLP_REPACKED_16 = {"f16": VECTOR_COMBINERS_16["float"], "i16": frozenset({"arith.muli"}),
                   "ui16": frozenset({"arith.muli"})}
#: the ``i16`` min and max, which ``-O3`` re-packs only with four or more accumulators a
#: thread, or two or more with two of: a vectorised in-thread step, a gfx950
#: ``v_permlane16_swap`` step, a ``v_permlane32_swap`` step (:func:`slp_repacked`)
SLP_REPACKED_16_FOUR = frozenset({"arith.minsi", "arith.maxsi", "arith.minui", "arith.maxui"})
#: the ``i16`` add, which ``-O3`` re-packs with two or more accumulators a thread and two of:
#: a vectorised in-thread step, a gfx950 ``v_permlane16_swap`` step, a ``v_permlane32_swap``
#: step — the ``i16`` min/max condition without its four-accumulator case
#: (:func:`slp_repacked`)
SLP_REPACKED_16_SWAP = frozenset({"arith.addi"})


def _permlane_steps(operand: LinearLayout, k: int, target: Target) -> int:
    """How many steps of the first in-warp round of a reduction along out dim ``k`` exchange
    over lane bit 4 or 5 by gfx950's ``v_permlane16/32_swap_b32`` (:func:`linlayout.lowering.
    convert.amd_xor`: ``shuffleXor`` by 16 or 32, a swap and a select of its two results):
    0, 1 or 2; 0 off gfx950 and for a whole-wavefront round (``warpReduce``'s DPP sequence)."""
    masks = _lane_masks(operand, k)
    if str(target.arch) != "gfx950" or len(masks) == target.threads_per_warp.bit_length() - 1:
        return 0
    return sum(1 for m in masks if m in (16, 32))


def slp_repacked(operand: LinearLayout, axis: int, element_type: str, combiner: str | None,
                 target: Target) -> bool:
    """Whether LLVM's ``-O3`` re-packs a 16-bit AMD reduction's scalar steps in its own
    ``<2 x T>`` pairs, so that the final assembly's ``v_perm_b32`` on the reduction's line are
    LLVM's (its SLP vectoriser), not Triton's. Each accumulator's scalar chain (the last
    vector's two halves combined, then one cross-lane step per lane bit) is the same as the
    others', and the SLP vectoriser bundles such chains into ``<2 x T>`` chains, joining and
    splitting the pairs with permutes. It does so (accumulators: :func:`reduce_rounds`,
    registers left after the in-thread step):

    * an ``f16`` float combine or an ``i16`` mul (:data:`SLP_REPACKED_16`): two or more
      accumulators;
    * an ``i16`` min or max (:data:`SLP_REPACKED_16_FOUR`): four or more accumulators;
      or two or more with at least two of: a vectorised in-thread step (two or more
      register bits along the axis, :func:`in_thread_vector_pairs`), a step of the first
      round over lane bit 4, one over lane bit 5 — each by a gfx950 ``v_permlane*_swap``
      (a partial-wavefront round), whose select of its two results SLP pairs too. With
      two accumulators otherwise (gfx942, 16 or fewer lanes or the whole wavefront along
      the axis, one swap step and no in-thread vectors) the final assembly keeps Triton's
      scalar chains.

    * an ``i16`` add (:data:`SLP_REPACKED_16_SWAP`): two or more accumulators with at
      least two of the same three (a vectorised in-thread step, a permlane16 swap step, a
      permlane32 swap step), whatever the number of accumulators. InstCombine first
      scalarises the add's in-thread vectors (:data:`SCALARISED_16`); the SLP vectoriser
      then pairs the accumulators' first rounds (from the in-thread step's vectors or the
      swaps' ``select`` s of their two ``i32`` results on: an ``icmp``/``select`` of ``<2
      x i32>``, then ``<2 x i16>`` adds at every step). With one of the three (even with
      four accumulators) the first round stays scalar.

    Not modelled: a cross-warp round of one step (two warps along the axis) whose two
    partial results a thread reloads as one ``<2 x i16>`` word, which SLP pairs in some
    ``i16`` kernels (min, max and add; gfx942 and gfx950) and not in others of the same
    counts; and on gfx942 (no swap; its lane exchanges are DPP and ``ds_bpermute``) first
    rounds of ``i16`` min/max or add with two or four accumulators and a ``ds_bpermute``
    step, paired in some kernels and not in others.

    With one accumulator there is nothing to pair (the final assembly then keeps Triton's
    ``f16`` min/max/add and ``i16`` min/max vectors on ``-O3``'s merged loads; a mul's it
    may scalarise: not modelled). SLP's pairing of gfx942 ``i16`` min/max with two
    accumulators outside the condition above (a cross-warp round of one step, or a first
    round with a ``ds_bpermute`` step; not in other kernels of the same counts) is not
    modelled either (see above).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: the LLVM IR after ``-O3`` of compiled gfx942/gfx950 reductions (a
    ``shufflevector`` transposing two accumulators' vectors, then ``<2 x i32>`` DPP pairs).
    In ``papers/triton_lowering/scalar_byte_probes.py``'s ``--vector`` draw, the final
    assembly differs from Triton's vectors on ``-O3``'s loads for all 9 ``f16``/``i16``-mul
    reductions with two or more accumulators and for none of the 3 (``f16``) with one; so in
    30 exploration kernels (14 of 14 with two or more; with one, the 2 ``f16`` min/max/add
    equal, 3 of 4 muls with no ``v_perm_b32`` left). The ``i16`` min/max condition was
    read off 25 exploration ``i16`` min/max kernels compiled for it
    (``reduce_pack_probes.py``'s kernel, not committed: ``<2 x i16>`` operations added by
    ``-O3``, and the final assembly's ``v_perm_b32``) and the ``reduce_pack`` probe dd0f21
    (gfx950, a permlane16 swap round; the same kernel for gfx942 is not re-packed), then
    refined on two later draws (three kernels with two accumulators, no in-thread vectors
    and two swap steps re-packed; ``papers/triton_lowering/README.md``). The ``i16`` add
    condition was read off the ``-O3`` LLVM IR and the reduction's line of gfx950 ``i16``
    add reductions of the committed fixtures and five ``i16`` draws (the first round paired
    in all 10 with two or more accumulators and two of the three; in none of the others:
    one of the three, e.g. 13f884 and 3f6ef4 with one swap step, whose final assembly
    differs by their cross-warp round, or 4b8e80 with four accumulators and one swap step)
    — a fit, held out on a later draw (``papers/triton_lowering/README.md``, "`i16` add
    re-packed by `-O3`"). Rules
    read off those kernels
    (LLVM's cost model is not modelled); the ``f16``/mul rule held out on three later draws,
    ``-O3`` re-packed the reduction's line of 30 of the 31 kernels it names
    (``papers/triton_lowering/README.md``, "SLP-re-packed reductions"; the ``i16``
    min/max condition's held-out draws: "`i16` min/max re-packed by `-O3`").
    """
    axis = checked(operand, axis, target)
    string(element_type, "element_type")
    if combiner is not None:
        string(combiner, "combiner")
    if target.is_nvidia:
        return False
    k = _axis(operand, axis)
    accs = _accumulators(operand, k)
    if combiner in SLP_REPACKED_16.get(element_type, ()):
        return accs >= 2
    if element_type not in ("i16", "ui16") or combiner not in (SLP_REPACKED_16_FOUR |
                                                                 SLP_REPACKED_16_SWAP):
        return False
    if accs >= 4 and combiner in SLP_REPACKED_16_FOUR:
        return True
    vectorised = sum(1 for img in operand.bases.get("register", []) if img[k]) >= 2
    return accs >= 2 and vectorised + _permlane_steps(operand, k, target) >= 2


def lowered_load(operand: LinearLayout, source_load: tuple[int, int],
                 load_vector: int) -> tuple[int, int]:
    """``(dim, contiguity)`` of a 16-bit operand's global load as Triton's lowering (``-O3``
    skipped) leaves it in registers, for :func:`linlayout.lowering.amd_pack.source_words`.

    Triton's ``LoadOpConversion`` (``LoadStoreOpToLLVM.cpp``) loads ``<vec x T>`` vectors,
    ``vec`` = ``load_vector`` (AxisInfo's alignment, ``getVectorSize``: a pointer argument
    without ``tt.divisibility`` gives 1). Each register's index along a dim is the thread's
    part ``xor`` the register's offset, the thread's part built from the thread id's bits
    (lane bits, then warp bits above them) that reach the dim, masked and shifted to their
    place (``applyLinearLayout``, ``Utility.cpp``): ``lshr`` where a bit moves down, ``shl``
    (no ``nuw``) where it moves up, and ``lshr`` by 0 where it stays in place. AMDGPU's back
    end, with the middle end skipped, joins two such loads into one wider load only when
    every thread id bit along the dim moves down (a dim held in registers only has no
    thread part at all, and is joined too): not with a ``shl`` in the thread's part (a lane
    or warp basis whose value's bit lies above the thread id bit it comes from), and not
    with an ``lshr`` by 0 (a bit kept in place: lane bits 2 to 5 reaching column bits 2 to
    5 under 4 columns a thread). Measured: the same IR with that ``shl`` marked ``nuw
    nsw``, with the ``xor`` an ``or disjoint`` (what ``-O3``'s InstCombine makes of it),
    or without the ``lshr`` by 0 (the mask fed on directly), is joined; an ``lshr`` by 1
    in its place joins the pairs its known bits allow (why LLVM does not see through the
    shift by 0 is not traced). So the contiguity is ``contiguity`` where the back end
    joins them, else ``min(contiguity, load_vector)``. Block (CTA) bases along the dim are
    treated as not joined (not measured).

    Raises:
        LayoutError: ``source_load`` not ``(dim, contiguity)`` of a dim of ``operand``;
            ``load_vector`` not a positive int.

    Source: Triton 3.9's LLVM IR before ``-O3`` and its AMDGCN (``global_load_ushort`` vs
    ``global_load_dword*``): the rule predicts which of 80 compiled gfx942/gfx950 16-bit
    reductions with a register pair along the load's dim have their loads joined in the
    lowering, all 80 (read off them, a fit), and all 29 of a later draw
    (``papers/triton_lowering/README.md``, "SLP-re-packed reductions"); the bit kept in
    place was read off two ``i16`` min kernels of later draws (c4dd21, 856460: 8
    ``global_load_ushort`` where the rule had said joined) and the back end run on their
    edited LLVM IR (``papers/triton_lowering/README.md``, "`i16` add re-packed by `-O3`").
    """
    instance_of(operand, LinearLayout, "operand")
    if not (isinstance(source_load, tuple) and len(source_load) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in source_load)
            and 0 <= source_load[0] < len(operand.out_dims) and source_load[1] >= 1):
        raise LayoutError(f"source_load must be (dim, contiguity) of a dim of the operand "
                          f"({dict(operand.out_dims)}), got {source_load!r}")
    if isinstance(load_vector, bool) or not isinstance(load_vector, int) or load_vector < 1:
        raise LayoutError(f"load_vector must be a positive int, got {load_vector!r}")
    dim, contig = source_load
    lanes = operand.bases.get("lane", [])
    thread = [(i, img[dim]) for i, img in enumerate(lanes)] + \
        [(len(lanes) + i, img[dim]) for i, img in enumerate(operand.bases.get("warp", []))]
    not_down = any(v and v.bit_length() - 1 >= bit for bit, v in thread) or \
        any(img[dim] for img in operand.bases.get("block", []))
    return (dim, min(contig, load_vector)) if not_down else (dim, contig)


#: combine ops whose in-thread ``<2 x i16>`` vectors LLVM's ``-O3`` takes apart:
#: InstCombine scalarises each extract of a binary op of ``insertelement`` vectors, and the
#: scalar ``v_add_u16`` reads the loaded halves itself (SDWA), so no ``v_perm_b32`` is left
#: (measured on three gfx942/gfx950 ``i16`` add reductions)
SCALARISED_16 = frozenset({"arith.addi"})


def in_thread_pack_permutes(operand: LinearLayout, axis: int, element_type: str,
                            combiner: str | None, combine_ops: int | None, target: Target,
                            source_load: tuple[int, int] | None = None,
                            source_values: tuple[str, ...] | None = None, *,
                            load_vector: int | None = None) -> int:
    """The ``v_perm_b32`` per thread that build the ``<2 x T>`` vectors of a 16-bit AMD
    reduction's in-thread step (:func:`in_thread_vector_pairs`); 0 where it is not
    vectorised or not 16 bits, and on NVIDIA (two 16-bit registers join with ``mov.b32``,
    not counted).

    Each vector is an ``insertelement`` pair at the reduction's location; LLVM's AMDGPU
    instruction selection builds it as it packs any two 16-bit elements into one register
    (:func:`linlayout.lowering.amd_pack.pack_permutes`): nothing when the two are already
    the halves of one register in order (a load that merged them: ``source_load`` =
    ``(dim, contiguity)`` of the operand's global load,
    :func:`linlayout.check.registers.load_sources`), nothing for two ``f16`` values LLVM
    knows canonical (``source_values``, what a scan or reduction producer left:
    :func:`linlayout.check.registers.produced_values`), else one ``v_perm_b32``. The
    vector ops' results stay packed (``v_pk_*``) and the last one is unpacked without
    permutes. Two cases spend none: ``bf16`` (gfx942 and gfx950 have no packed ``bf16``
    arithmetic: instruction selection splits the vector ops, and their ``insertelement`` s
    with them) and an ``i16`` add (:data:`SCALARISED_16`: ``-O3`` scalarises it), but where
    :func:`slp_repacked` names it (Triton's lowering is counted there, below).

    Where the final assembly keeps Triton's vectors, what is counted is the final assembly:
    Triton's vectors as AMDGPU selects them, from the loads as ``-O3`` leaves them (a
    thread's consecutive 16-bit loads joined into dwords: ``source_load``'s contiguity).
    That is ``i16`` min/max (calls InstCombine leaves whole) and ``f16`` min/max/add with
    one accumulator a thread (a mul with one, ``-O3`` may scalarise: not modelled, counted
    the same), and ``i16`` min/max with two or three outside :func:`slp_repacked`'s
    domain. Where :func:`slp_repacked` says so, LLVM's ``-O3``
    (its SLP vectoriser, LLVM, not Triton) re-packs the scalar and cross-lane steps in its
    own pairs (not modelled), and what is counted is Triton's lowering (``-O3`` skipped),
    loads included: given ``load_vector`` (Triton's vector of the load, elements), the
    halves of a pair sit in one register only as :func:`lowered_load` says (within one of
    Triton's vectors, or where the back end joins Triton's loads before ``-O3``).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type;
            ``source_values`` not one kind per non-broadcast register.

    Source: ``ReduceOpConversion::reduceWithinThreads``/``packVectorized``
    (``ReduceOpToLLVM.cpp``) and ``ReduceOpHelper::getInThreadVectorizeOpKind``/
    ``moveAxisBasesToFront`` (``lib/Analysis/Utility.cpp``), Triton 3.9, as its LLVM IR
    before ``-O3`` shows; measured on compiled gfx942/gfx950 reductions
    (``papers/triton_lowering/scalar_byte_probes.py``).
    """
    pairs = in_thread_vector_pairs(operand, axis, element_type, combiner, combine_ops, target)
    if pairs is None or target.is_nvidia or element_type not in ("i16", "ui16", "f16"):
        return 0
    if combiner in SCALARISED_16 and (load_vector is None or source_load is None or
                                      not slp_repacked(operand, axis, element_type, combiner,
                                                       target)):
        return 0
    if source_load is not None:
        if load_vector is not None and slp_repacked(operand, axis, element_type, combiner,
                                                    target):
            source_load = lowered_load(operand, source_load, load_vector)
        dim, contig = source_load
        words = source_words(operand, 16, dim, contig)
    else:
        words = source_words(operand, 16, values=source_values)
    return sum(pack_permutes((words[lo], words[hi]), 16) for lo, hi in pairs)


def round_reads_out(operand: LinearLayout, axis: int, operand_bits: tuple[int, ...],
                    target: Target) -> list[bool]:
    """Per in-warp round of a reduction (:func:`reduce_rounds`, in order), whether it ends
    with each total in a scalar register: on AMD a round of one operand over the whole
    wavefront is ``TargetInfo::warpReduce``'s DPP sequence, read out of lane 63 with
    ``v_readlane_b32``. The ``convert_layout`` after such a round (to ``getInterLayout``, or
    to the result layout) stores or shuffles those scalars: 16-bit totals pack with the
    scalar ``s_pack_ll_b32_b16`` (no ``v_perm_b32``), 8-bit ones with one ``v_perm_b32`` per
    two-byte word (:mod:`.scalar_bytes`).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``TargetInfo::warpReduce`` (``third_party/amd/lib/TritonAMDGPUToLLVM/
    TargetInfo.cpp``), Triton 3.9; measured on compiled gfx942/gfx950 reductions
    (``papers/triton_lowering/scalar_byte_probes.py``).
    """
    axis = checked(operand, axis, target)
    operand_bits = bits_tuple(operand_bits)
    k = _axis(operand, axis)
    full = target.threads_per_warp.bit_length() - 1
    return [not target.is_nvidia and len(operand_bits) == 1 and
            len(_lane_masks(layout, k)) == full for layout in _round_layouts(operand, axis)]
