"""Where a convert's result goes: for a tensor a global store writes, the dim along which the
store's pointer runs over consecutive addresses and how far (AxisInfo's contiguity). On AMD,
LLVM builds each 4-byte vector Triton stores of an 8-bit round trip's result from the
registers the convert loaded from shared memory, with a ``v_perm_b32`` on the convert's line
where its halves come from two loaded words (:func:`pack_stored_words`,
:func:`linlayout.lowering.round_trip_pack.stored_word_permutes`). Where Triton stores the
result byte by byte, LLVM's SelectionDAG may merge a thread's bytes of a word into one store
or not (``DAGCombiner::mergeConsecutiveStores``): the words that would then cost a
``v_perm_b32`` are the other outcome, kept in the prediction's ``extra``
(:data:`MERGE_WORDS`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from ..._checks import instance_of, sequence_of
from ...lowering.emitted import Emitted
from ...errors import LayoutError
from ...lowering.convert import shuffle_permute_bounds
from ...lowering.round_trip_pack import (SPLIT_LOAD_REASON, STORED_WORD_REASON,
                                        round_trip_permute_bounds, round_trip_permutes,
                                        stored_word_bounds, stored_word_permutes)
from ...lowering.scratch import drop_broadcast_registers
from ...lowering.target import Target
from ...lowering.vectorise import access_map
from ...triton.axisinfo import ModuleAxisInfo
from ...triton.ttgir import Access, TTGIRModule
from ._args import module_axis
from ..shared_memory.predict import (PERMUTE_BOUNDS, Prediction, add_permute_bounds,
                                     to_offsets, triton_emitted)

__all__ = ["MERGE_WORDS", "pack_stored_words", "store_destinations", "widen_split_loads"]

#: The key of a :class:`~linlayout.check.shared_memory.predict.Prediction`'s ``extra``
#: under which :func:`pack_stored_words` leaves, for a convert whose result Triton stores
#: byte by byte, how many 4-byte words per thread would each cost one more ``v_perm_b32``
#: on the convert's line if LLVM's SelectionDAG merged their byte stores
#: (``DAGCombiner::mergeConsecutiveStores``; each word merges or not on its own).
MERGE_WORDS = "merge_words"

_STORE = re.compile(r"^\s*tt\.store\s+(%[\w$.-]+)\s*,\s*(%[\w$.-]+)\s*(?::|$)")


def store_destinations(module: TTGIRModule, axis: ModuleAxisInfo | None = None
                       ) -> dict[str, tuple[int, int]]:
    """``{SSA name of a value a global store writes: (dim, contiguity_elems)}``: for each
    unmasked ``tt.store``, the tensor dim along which its pointer runs over consecutive
    addresses (the one with the largest AxisInfo contiguity) and that contiguity. Stores
    with a mask, and stores whose pointer is contiguous along no dim, are left out.

    Raises:
        LayoutError: ``module`` is not a TTGIR module or ``axis`` not a ModuleAxisInfo.

    Source: Triton 3.9's AxisInfo (``lib/Analysis/AxisInfo.cpp``) of ``tt.store``'s pointer.
    """
    axis = module_axis(module, axis)
    out: dict[str, tuple[int, int]] = {}
    for op in axis.global_ops:
        if op.name != "tt.store" or op.mask is not None:
            continue
        m = _STORE.match(op.text)
        info = axis.info(op.pointer)
        if m is None or info is None or m.group(1) != op.pointer:
            continue
        contig = info.contiguity
        dim = max(range(len(contig)), key=lambda d: contig[d])
        if contig[dim] > 1:
            out[m.group(2)] = (dim, contig[dim])
    return out


def pack_stored_words(pairs: list, stored: Mapping[str, tuple[int, int]],
                      target: Target) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)``, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with each AMD
    8-bit ``convert_layout`` through shared memory whose result a global store writes
    (``stored``: :func:`store_destinations`) charged the ``v_perm_b32`` that build the
    store's 4-byte vectors from the loaded scratch registers
    (:func:`linlayout.lowering.round_trip_pack.stored_word_permutes`). Where Triton stores
    that result byte by byte, the words that would cost a ``v_perm_b32`` each if LLVM's
    SelectionDAG merged their bytes (``stored_word_permutes(..., merged=True)``) are left
    in the prediction's ``extra[MERGE_WORDS]`` (words per thread, when any), the count
    itself unchanged. The other words LLVM may build on the convert's line or on the
    store's (:func:`linlayout.lowering.round_trip_pack.stored_word_bounds`) widen its
    :data:`~linlayout.check.shared_memory.predict.PERMUTE_BOUNDS`. Other ops pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs; ``target`` not a Target.

    Source: LLVM's InstCombine, SelectionDAG (``DAGCombiner::mergeConsecutiveStores``) and
    AMDGPU ``v_perm_b32`` selection (LLVM, not Triton), measured on the final gfx942/gfx950 AMDGCN
    (``papers/triton_lowering/amd_byte_pack_probes.py``).
    """
    sequence_of(pairs, tuple, "pairs")
    instance_of(target, Target, "target")
    if target.is_nvidia or not stored:
        return list(pairs)
    out = []
    for a, pred in pairs:
        store = stored.get(a.result) if isinstance(a, Access) and a.result else None
        if store is None or a.op != "convert_layout" or a.element_bits != 8 \
                or not isinstance(pred, Prediction) or pred.plan is None \
                or a.destination is None:
            out.append((a, pred))
            continue
        lean = drop_broadcast_registers(a.destination.layout)
        loads = triton_emitted(pred.sides, "load")
        m = access_map(lean, to_offsets(pred.plan.memory), 8)
        n = stored_word_permutes(lean, m, loads, 8, target, store)
        words = stored_word_permutes(lean, m, loads, 8, target, store, merged=True) - n
        if words > 0:  # byte stores: one v_perm_b32 per word SelectionDAG merges
            pred = replace(pred, extra={**pred.extra, MERGE_WORDS: words})
        more = stored_word_bounds(lean, m, loads, 8, target, store)
        pred = add_permute_bounds(pred, 0, more, STORED_WORD_REASON)
        out.append((a, _with_permutes(pred, n) if n else pred))
    return out


def _with_permutes(pred: Prediction, n: int) -> Prediction:
    regs = list(pred.registers)
    for k, e in enumerate(regs):
        if e.opcode == "v_perm_b32":
            regs[k] = replace(e, per_thread=(e.per_thread or 0) + n)
            break
    else:
        regs.append(Emitted("permute", "v_perm_b32", n, None, 32, 0, ""))
    return replace(pred, registers=tuple(regs))


def widen_split_loads(pairs: list, split: Mapping[str, tuple[int, int]],
                      target: Target) -> list:
    """``pairs`` (as :func:`pack_stored_words` takes them) with each AMD 8-bit
    ``convert_layout`` of a global load's result whose runs LLVM may merge or leave apart
    (``split``: ``{SSA name: (dim, contiguity)}`` of loads Triton emits narrower than the
    run a thread holds — their global ``may_merge``) given the range of ``v_perm_b32`` its
    packing then spans (:func:`linlayout.lowering.round_trip_pack.round_trip_permute_bounds`
    for a round trip's stores, :func:`linlayout.lowering.convert.shuffle_permute_bounds` on
    the shuffle path), in its
    :data:`~linlayout.check.shared_memory.predict.PERMUTE_BOUNDS`; the count itself (runs
    merged) unchanged. Other ops pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs; ``split`` not such a mapping;
            ``target`` not a Target.

    Source: LLVM's load-store vectoriser and AMDGPU instruction selection, measured on the
    final gfx942/gfx950 AMDGCN (``papers/triton_lowering/amd_byte_pack_probes.py``).
    """
    sequence_of(pairs, tuple, "pairs")
    instance_of(target, Target, "target")
    if not isinstance(split, Mapping) or not all(
            isinstance(v, tuple) and len(v) == 2 and all(type(x) is int for x in v)
            for v in split.values()):
        raise LayoutError(f"split must map SSA names to (dim, contiguity), got {split!r}")
    if target.is_nvidia or not split:
        return list(pairs)
    out = []
    for a, pred in pairs:
        load = split.get(a.operands[0]) if isinstance(a, Access) and a.operands else None
        if load is None or a.op != "convert_layout" or a.element_bits != 8 \
                or not isinstance(pred, Prediction) or a.distributed is None \
                or a.destination is None:
            out.append((a, pred))
            continue
        src = a.distributed.layout
        try:
            if pred.plan is not None:
                lean = drop_broadcast_registers(src)
                stores = triton_emitted(pred.sides, "store")
                loads = triton_emitted(pred.sides, "load")
                m = access_map(lean, to_offsets(pred.plan.memory), 8)
                n = sum(e.per_thread or 0 for e in round_trip_permutes(
                    lean, m, stores, loads, 8, target, load))
                low, high = round_trip_permute_bounds(lean, m, stores, loads, 8, target, load)
                pred = add_permute_bounds(pred, n - low, high - n, SPLIT_LOAD_REASON)
            else:
                span = shuffle_permute_bounds(src, a.destination.layout, 8, target, load,
                                              split=True)
                if span is not None:
                    now = next((e.per_thread or 0 for e in pred.registers
                                if e.opcode == "v_perm_b32"), 0)
                    f0, m0, _ = pred.extra.get(PERMUTE_BOUNDS, (0, 0, ()))
                    pred = add_permute_bounds(pred, max(0, now - span[0] - f0),
                                              max(0, span[1] - now - m0), SPLIT_LOAD_REASON)
        except LayoutError:
            pass
        out.append((a, pred))
    return out
