"""Predictions for every op of a TTGIR module (the input of ``linlayout check``)."""

from __future__ import annotations

import dataclasses
import math
import re
from collections import Counter
from collections.abc import Mapping

from ...errors import LayoutError
from ...hardware.kinds import embed_at_origin
from ...layout import LinearLayout
from ...triton.limits import mlir_int, result_count
from ...triton.parse import TritonType
from ...triton.ttgir import Access, TTGIRModule, find_accesses
from ...layout.padded import PaddedLayout
from ...triton.encodings.padded import PaddedSharedEncoding
from ...lowering.local import predict_async_copy, predict_padded_local
from ...lowering.vectorise import access_map
from ...lowering.emitted import Emitted
from ...lowering.scratch import drop_broadcast_registers, triton_scratch_layout
from .predict import (Prediction, Side, amd_paired, moved_bits, predict_convert, predict_copy, predict_named,
                      predict_private)
from ...lowering.target import Target
from ..registers import (move_scalar_byte_permutes, pack_stored_words, produced_values,
                         scalar_sources, share_broadcast_shuffles,
                         share_selector_selects, truncated_words, wide_sources,
                         widen_loaded_bytes,
                         with_registers)
from ..target import check_lanes, parse_target
from ..._memo import memoize
from ...triton.allocation import SharedAllocation, shared_allocation
from .reduce import reduce_steps
from .truncated_readout import narrow_truncated_readouts
from .warp_specialize import predict_warp_specialize
from ...triton.warp_specialize import warp_specialize_lines

__all__ = ["atomic_scratch_bytes", "cached_copy", "convert_scratch_bytes", "kernel_terms",
           "embed_in_buffer",
           "gather_scratch_bytes", "histogram_scratch_bytes", "layout_of",
           "module_allocation", "module_target", "predict_access", "predict_module",
           "reduce_scratch_bytes", "scan_scratch_bytes"]


def module_target(module: TTGIRModule) -> Target:
    """The :class:`~.target.Target` of a module (``ttg.target``, ``ttg.threads-per-warp``).

    Raises:
        LayoutError: an unknown ``ttg.target``.
    """
    return parse_target(module.target, module.threads_per_warp)


def embed_in_buffer(dist: LinearLayout, memory: LinearLayout) -> LinearLayout:
    """``dist`` with the out-dim sizes of ``memory``: the tensor of a view (``memdesc``
    subslice or pipeline stage) placed inside its larger allocation, so that the two layouts
    can be compared by :func:`linlayout.bank_conflicts` and the simulator
    (:func:`linlayout.hardware.kinds.embed_at_origin`).

    Raises:
        LayoutError: an out dim of ``dist`` is missing from ``memory`` or larger there.
    """
    return embed_at_origin(dist, memory)


@memoize(4096)
def cached_copy(kind: str, dist: LinearLayout, memory: LinearLayout, bits: int, target: Target,
                async_copy: bool = False, contiguity: int | None = None, other: bool = False,
                buffer_op: bool = False, kernel_terms: frozenset = frozenset()) -> Prediction:
    """:func:`~.predict.predict_copy`, cached per arguments (a file with hundreds of
    identical accesses, or a layout search costing the same access on many candidates, pays
    once)."""
    return predict_copy(kind, dist, memory, bits, target, async_copy=async_copy,
                        contiguity=contiguity, has_other=other, buffer_op=buffer_op,
                        kernel_terms=kernel_terms)


@memoize(1024)
def _convert(src: LinearLayout, dst: LinearLayout, bits: int, target: Target,
             source_load: tuple[int, int] | None = None,
             packed_source: bool = False, wide_source: bool = False,
             source_values: tuple[str, ...] | None = None) -> Prediction:
    return predict_convert(src, dst, bits, target, source_load, packed_source,
                           wide_source=wide_source, source_values=source_values)


@memoize(4096)
def layout_of(t: TritonType) -> LinearLayout:
    """``t.layout``, cached per type (encodings and shapes repeat across a file).

    Raises:
        LayoutError: the encoding has no linear layout for this shape.
    """
    return t.layout


def predict_access(a: Access, target: Target,
                   source_load: tuple[int, int] | None = None,
                   packed_source: bool = False, wide_source: bool = False,
                   source_values: tuple[str, ...] | None = None,
                   load_vector: int | None = None,
                   kernel_terms: frozenset = frozenset()) -> Prediction:
    """The instructions one access lowers to (results cached per layouts, element width and
    target: a file with hundreds of identical accesses costs one analysis). ``source_load``:
    for a convert whose operand a global load produced, ``(dim, contiguity)`` of its
    addresses (:func:`linlayout.check.registers.load_sources`; AMD packing depends on it);
    ``packed_source``: its operand is a float truncation to 16 bits, which packs for free
    (:func:`linlayout.check.registers.truncated_sources`); ``wide_source``: a gather or
    reduction left its 8/16-bit elements in 32-bit registers
    (:func:`linlayout.check.registers.wide_sources`), which packing pays for;
    ``source_values``: what a scan or reduction left in each register
    (:func:`linlayout.check.registers.produced_values`; AMD packing depends on it). For a
    ``tt.reduce``, ``source_load`` and ``source_values`` say the same of its operand (the
    vectors of its in-thread step pack as they say:
    :func:`linlayout.check.registers.reduce.in_thread_pack_permutes`), and ``load_vector``
    gives the elements of each vector of that load in Triton's IR
    (:func:`linlayout.check.registers.load_vectors`). ``kernel_terms``: for a register ⇄
    shared copy, the leaf terms of the module's other lane/warp expressions (the function
    :func:`kernel_terms`).

    Raises:
        LayoutError: the op's layouts cannot be turned into linear layouts or do not fit, a
            tensor layout covers another number of lanes than the target's warp
            (:func:`~linlayout.check.target.check_lanes`), or a copy's tensor and memdesc
            differ in shape (an async copy: Triton's verifier lets it through, its lowering
            is not modelled).
    """
    for t in (a.distributed, a.destination):
        check_lanes(t, target)
    if a.kind in ("store", "load"):
        assert a.memory is not None and a.distributed is not None
        if a.distributed.shape != a.memory.shape:
            # local copies of another shape are refused by the reader (Triton's verifier
            # rejects them); an async copy's verifier does not compare the shapes
            raise LayoutError(f"a copy of a {list(a.distributed.shape)} tensor into a memdesc "
                              f"of shape {list(a.memory.shape)}: the lowering of a copy whose "
                              "shapes differ is not modelled")
        if isinstance(a.memory.encoding, PaddedSharedEncoding):
            return _padded(a, target)
        memory = layout_of(a.memory)
        dist = embed_in_buffer(layout_of(a.distributed), memory)
        bits = moved_bits(a.element_bits, a.element_type)
        async_copy = a.op in ("async_copy_global_to_local", "buffer_load_to_local")
        cap = None
        if async_copy:
            # the contiguity attribute when the compiler printed one; else the pointers'
            # own contiguity (the layout's) unless a mask of unknown alignment cuts it to 1
            cap = a.max_vector_elems or (1 if a.masked else 0)
        return cached_copy(a.kind, dist, memory, bits, target, async_copy, cap, a.has_other,
                           a.op == "buffer_load_to_local", kernel_terms)
    if a.kind == "convert":
        assert a.distributed is not None and a.destination is not None
        bits = moved_bits(a.element_bits, a.element_type)
        return _f64_selects(_convert(layout_of(a.distributed), layout_of(a.destination), bits,
                                     target, source_load, packed_source, wide_source,
                                     source_values),
                             a.element_type)
    if a.kind == "scratch":
        m = re.search(r"axis\s*=\s*(\d+)", a.attrs)
        axis = mlir_int(m.group(1), "axis") if m else None
        operand = layout_of(a.distributed) if a.distributed is not None else None
        result = layout_of(a.destination) if a.destination is not None else None
        count = a.result.split(":", 1)[1] if a.result and ":" in a.result else ""
        n = max(1, result_count(count, f"line {a.line}: result count")) \
            if count.isdigit() else 1
        if a.op in ("atomic_rmw", "atomic_cas") and not a.result_used:
            return Prediction((), "the old value is not used: no shared memory",
                              uses_shared=False)
        bits = tuple(moved_bits(t.element_bits, t.element_type) for t in a.operand_types)
        elem = moved_bits(a.element_bits, a.element_type) if a.element_bits else 32
        if a.op in ("atomic_rmw", "atomic_cas") and a.destination is not None:
            elem = moved_bits(a.destination.element_bits, a.destination.element_type)
        pred = predict_private(a.op, operand, result, elem, target, axis, n,
                               bits if len(bits) == n else (), a.results_used, a.combine)
        pred = with_registers(pred, a.op, operand, result, axis,
                              bits if len(bits) == n else (elem,) * n, target,
                              a.element_type.startswith(("i", "ui")),
                              tuple(layout_of(t) for t in a.operand_types), a.combiner,
                              element_type=a.element_type, combine_ops=a.combine_ops,
                              source_load=source_load, source_values=source_values,
                              load_vector=load_vector,
                              reverse=bool(re.search(r"reverse\s*=\s*true", a.attrs)))
        return _f64_selects(pred, a.element_type) if a.op == "gather" else pred
    return predict_named(a.op, target)


def _f64_selects(pred: Prediction, element_type: str) -> Prediction:
    """``pred`` with NVIDIA's 64-bit selects spelled as the PTX spells them for ``f64``
    values: LLVM's NVPTX backend prints a ``select`` on ``double`` as ``selp.f64`` (on
    ``i64`` as ``selp.b64``); the 32-bit and narrower selects Triton emits are on integers."""
    if element_type != "f64" or not any(e.opcode == "selp.b64" for e in pred.registers):
        return pred
    return dataclasses.replace(pred, registers=tuple(
        dataclasses.replace(e, opcode="selp.f64") if e.opcode == "selp.b64" else e
        for e in pred.registers))


@memoize(1024)
def padded_of(t: TritonType) -> PaddedLayout:
    """The :class:`~linlayout.PaddedLayout` of a ``padded_shared`` memdesc (cached).

    Raises:
        LayoutError: the encoding does not cover the allocation shape.
    """
    return t.encoding.to_padded_layout(t.layout_shape)


def _padded(a: Access, target: Target) -> Prediction:
    """A copy to or from a ``padded_shared`` buffer: planned on the linear remap, the vector
    capped at the smallest interval (Triton's ``getMinInterval`` cap), counted on the padded
    layout."""
    padded = padded_of(a.memory)
    dist = embed_in_buffer(layout_of(a.distributed), padded.linear)
    bits = moved_bits(a.element_bits, a.element_type)
    m = access_map(dist, padded.linear, bits)
    interval = min(iv for iv, _ in padded.pairs)
    pairs = ", ".join(f"{iv}:+{pad}" for iv, pad in padded.pairs)
    note = f"padded [{pairs}]: vectors capped at {interval} elements"
    base = view_base(a, padded)
    if base:
        note += f"; view at element {base} of its allocation"
    if a.op in ("async_copy_global_to_local", "buffer_load_to_local"):
        cap = a.max_vector_elems or (1 if a.masked else 0)
        cap = min(cap, interval) if cap else interval
        ems = predict_async_copy(m, target, cap, a.has_other, a.op == "buffer_load_to_local")
        return Prediction(tuple(Side(e, dist, padded, base, stage_shift(a, padded, e))
                                for e in ems), note)
    e = predict_padded_local(a.kind, m, target, interval)
    side = Side(e, dist, padded, base, stage_shift(a, padded, e))
    if target.is_nvidia:
        return Prediction((side,), note)
    return Prediction(amd_paired(side, m, tuple(padded.pairs)), note)


def stage_shift(a: Access, padded: PaddedLayout, e: Emitted) -> int:
    """The padded start of the pipeline stage (``memdesc_index``) that ``a`` copies through
    which misaligns ``e``'s vector, else of its first stage: stage ``i`` starts at the padded
    position of unpadded element ``i · n`` (``n`` elements per buffer; the intervals count
    across buffers — Triton 3.9's lowering, checked by compiling in
    ``papers/triton_lowering/padded_fault_probes.py``); 0 for no stage."""
    if not a.view_stages:
        return 0
    n = padded.offset_elems
    nbytes = (e.vector_elems or 1) * max(8, e.element_bits) // 8
    ebytes = max(8, e.element_bits) // 8
    starts = [i * n + sum((i * n // iv) * p for iv, p in padded.pairs) for i in a.view_stages]
    return next((s for s in starts if (s * ebytes) % nbytes), starts[0])


def view_base(a: Access, padded: PaddedLayout) -> int:
    """The unpadded offset, in ``padded``'s allocation, of the first element of the
    ``memdesc_subslice`` view ``a`` copies through (0 for the allocation itself or a view
    whose offset is not known statically): the linear component applied to the view's
    offsets. Triton 3.9 places the view at that offset, padded (checked by compiling:
    ``papers/triton_lowering/padded_fault_probes.py``).

    Raises:
        LayoutError: the offsets do not match the allocation's rank or lie outside it.
    """
    if not a.view_offset or not any(a.view_offset):
        return 0
    dims = list(padded.linear.out_dims)
    sizes = list(padded.linear.out_dims.values())
    if len(dims) != len(a.view_offset) or any(not 0 <= o < n
                                               for o, n in zip(a.view_offset, sizes)):
        raise LayoutError(f"line {a.line}: subslice offsets {list(a.view_offset)} do not fit "
                          f"the allocation shape {sizes}")
    point = dict(zip(dims, a.view_offset))
    return padded.linear.invert().apply(point)["offset"]


def kernel_terms(module: TTGIRModule, accesses, target: Target) -> dict[int, frozenset]:
    """For each register ⇄ shared copy among ``accesses`` (``id`` of the access → terms): the
    leaf terms (:func:`~linlayout.lowering.llvm_merge.expression_terms`) of the module's
    other lane/warp expressions that LLVM sees in one function — the other copies' offsets
    with a different expression, and the index of every ``tt.make_range`` (``emitIndices``
    of its layout's lane and warp bases along its one dimension). NVIDIA only (empty
    elsewhere). Left out (not modelled): async copies, padded buffers, accesses whose layouts
    do not fit, the offsets of converts through scratch and of other ops that compute
    indices.

    Raises:
        LayoutError: ``target`` not a :class:`~linlayout.lowering.target.Target`.
    """
    from ...lowering.llvm_merge import expression_terms, thread_terms
    from ...triton.parse import parse_type

    if not isinstance(target, Target):
        raise LayoutError(f"target must be a Target, got {type(target).__name__}")
    if not target.is_nvidia:
        return {}
    terms: dict[int, frozenset] = {}
    for a in accesses:
        if a.kind not in ("store", "load") or a.memory is None or a.distributed is None \
                or a.op in ("async_copy_global_to_local", "buffer_load_to_local") \
                or isinstance(a.memory.encoding, PaddedSharedEncoding):
            continue
        try:
            memory = layout_of(a.memory)
            dist = embed_in_buffer(layout_of(a.distributed), memory)
            terms[id(a)] = thread_terms(access_map(dist, memory,
                                                   moved_bits(a.element_bits, a.element_type)))
        except LayoutError:
            continue
    if not terms:
        return {}
    ranges: set = set()
    for m in _MAKE_RANGE.finditer(module.text):
        try:
            layout = layout_of(parse_type(m.group(1), module.aliases))
        except LayoutError:
            continue
        if len(layout.out_dims) != 1:
            continue
        (size,) = layout.out_dims.values()
        cols = list(layout.dim_columns("lane"))
        if (module.num_warps or 1) > 1:
            cols += list(layout.dim_columns("warp"))
        ranges |= expression_terms(cols, max(size.bit_length() - 1, 0))
    return _other_copies_terms(terms, frozenset(ranges))


def _other_copies_terms(terms: dict[int, frozenset], ranges: frozenset
                        ) -> dict[int, frozenset]:
    """``ranges`` and the terms of every distinct expression of ``terms`` but each copy's own,
    per copy: linear in the copies (a leaf counted once per distinct expression holding
    it), where a union over every pair of copies is quadratic."""
    holders = Counter(t for expression in set(terms.values()) for t in expression)
    every = frozenset(holders)
    return {k: ranges | (every - frozenset(t for t in mine if holders[t] == 1))
            for k, mine in terms.items()}


#: ``tt.make_range {…} : tensor<…>``: the result type of a ``tt.make_range``
_MAKE_RANGE = re.compile(r"tt\.make_range\b.*\}\s*:\s*(tensor<.*)$", re.M)


def predict_module(module: TTGIRModule, target: Target | None = None,
                   async_vectors: Mapping[int, int] | None = None,
                   source_loads: Mapping[str, tuple[int, int]] | None = None,
                   packed_sources: frozenset[str] = frozenset(),
                   stored_values: Mapping[str, tuple[int, int]] | None = None,
                   load_vectors: Mapping[str, int] | None = None
                   ) -> list[tuple[Access, Prediction | LayoutError]]:
    """Every access of ``module`` with its :class:`~.predict.Prediction`, or the
    :class:`~linlayout.LayoutError` that stopped it (one bad op does not stop the file).
    ``async_vectors`` maps the line of a ``ttg.async_copy_global_to_local`` to the vector
    Triton's AxisInfo gives it (:mod:`linlayout.check.global_memory`); it replaces the
    ``contiguity`` attribute (or the layout's own width) there. ``source_loads`` maps the SSA
    name of a global load's result to ``(dim, contiguity)`` of its addresses
    (:func:`linlayout.check.registers.load_sources`): a convert of it packs for free what the
    load already packed (AMD). ``packed_sources``: SSA names of float truncations to 16 bits
    (:func:`linlayout.check.registers.truncated_sources`), whose converts pack for free (AMD).
    A convert of a gather's or reduction's result that sits in 32-bit registers pays for
    packing it (:func:`linlayout.check.registers.wide_sources`), as does one of an ``i32``
    tensor truncated to ``i16`` on NVIDIA (:func:`linlayout.check.registers.truncated_words`); one of an AMD reduction's
    16-bit results held in scalar registers packs for free
    (:func:`linlayout.check.registers.scalar_sources`); one of a scan's or reduction's
    results packs as what each register holds says (AMD:
    :func:`linlayout.check.registers.produced_values`). ``stored_values`` maps the SSA
    name of a value a global store writes to ``(dim, contiguity)`` of its addresses
    (:func:`linlayout.check.registers.store_destinations`): an AMD 8-bit convert through
    shared memory whose result is stored pays for the words LLVM builds for the store
    (:func:`linlayout.check.registers.pack_stored_words`). ``load_vectors`` maps the SSA name
    of a global load's result to the elements of each vector Triton's IR loads
    (:func:`linlayout.check.registers.load_vectors`): a 16-bit AMD reduction of it whose
    final assembly LLVM re-packs counts Triton's lowering of its in-thread vectors
    (:func:`linlayout.check.registers.reduce.in_thread_pack_permutes`).

    Raises:
        LayoutError: an unknown ``ttg.target`` (when ``target`` is not given).
    """
    target = target or module_target(module)
    out: list[tuple[Access, Prediction | LayoutError]] = []
    seen_tmem_alloc = False
    accesses = find_accesses(module)
    wide = wide_sources(accesses, target) | truncated_words(module, target)
    packed_sources = packed_sources | scalar_sources(accesses, target)
    produced = produced_values(accesses, target)
    shared = kernel_terms(module, accesses, target)
    for a in accesses:
        if async_vectors and a.op == "async_copy_global_to_local" and a.line in async_vectors:
            a = dataclasses.replace(a, max_vector_elems=async_vectors[a.line])
        if a.op == "tmem_alloc":
            if seen_tmem_alloc:
                out.append((a, Prediction((), "tensor memory; its base address was read "
                                              "once, at the first tmem_alloc",
                                          uses_shared=False)))
                continue
            seen_tmem_alloc = True
        try:
            reduce = a.op == "reduce" and len(a.operands) == 1
            load = source_loads.get(a.operands[0]) if source_loads and \
                (a.kind == "convert" or reduce) and a.operands else None
            packed = a.kind == "convert" and bool(a.operands) and a.operands[0] in packed_sources
            operand = a.operands[0] if (a.kind == "convert" or reduce) and a.operands else None
            vector = load_vectors.get(operand) if load_vectors and reduce and operand \
                else None
            for t in (a.distributed, a.destination):
                check_lanes(t, target, module.num_ctas, module.warps_at(a.line))
            pred = predict_access(a, target, load, packed,
                                  operand in wide and a.kind == "convert",
                                  produced.get(operand) if operand and not packed else None,
                                  vector, shared.get(id(a), frozenset()))
            scalar_atomic = a.op in ("atomic_rmw", "atomic_cas") and \
                (a.destination is None or a.destination.kind != "tensor")
            if scalar_atomic and a.result_used and module.num_warps not in (None, 1) \
                    and module.function_warps_at(a.line)[0] == 1:
                # Triton 3.9 sizes the op's scratch with the function's warps (1: none) and
                # lowers it with the module's (more: through shared memory), and its lowering
                # asserts (broadcastScalarAtomicResult: no allocation.offset)
                raise LayoutError(
                    f"a scalar atomic whose result is used, in a function of 1 warp "
                    f"({module.function_warps_at(a.line)[1]}) in a module of "
                    f"{module.num_warps} (ttg.num-warps): Triton 3.9 fails to compile it "
                    "(it allocates no scratch for one warp but lowers for the module's "
                    "warps); give the function and the module the same ttg.num-warps")
            if scalar_atomic and module.num_warps == 1:
                # one warp: the old value reaches the other lanes by a shuffle (the same rule
                # as a tensor atomic whose copies stay within a warp)
                pred = Prediction((), "one warp: the old value is broadcast by a shuffle, "
                                      "no shared memory", uses_shared=False)
            out.append((a, pred))
        except LayoutError as exc:
            out.append((a, exc))
    if module.warp_specialize or "ttg.warp_specialize" in module.text:
        out = sorted(out + _warp_specialize(module, target, out), key=lambda ap: ap[0].line)
    out = move_scalar_byte_permutes(out, target)
    out = share_broadcast_shuffles(out, module.text, target)
    out = narrow_truncated_readouts(out, module.text, target)
    out = pack_stored_words(out, stored_values or {}, target)
    return widen_loaded_bytes(share_selector_selects(out, module.text), module.text, target)


def convert_scratch_bytes(predictions: list[tuple[Access, Prediction | LayoutError]]
                          ) -> dict[int, int]:
    """The scratch bytes Triton's allocator gives each ``ttg.convert_layout`` and
    ``tt.reduce`` of ``predictions`` (:func:`predict_module`'s pairs), by line. A convert: 0
    where it stays in registers or shuffles, else ``elements of one round × max(8, element
    bits) / 8`` of its scratch layout (``getNumScratchElemsSwizzledCvt``); a reduce: the
    largest cross-warp round, summed over its operands (:func:`reduce_scratch_bytes`); a
    scan on a blocked layout (:func:`scan_scratch_bytes`); a gather, histogram or tensor
    atomic from its types (:func:`gather_scratch_bytes`, :func:`histogram_scratch_bytes`,
    :func:`atomic_scratch_bytes`). Converts, reduces and scans whose prediction failed are
    left out (the module is then not placed)."""
    out: dict[int, int] = {}
    for a, p in predictions:
        if isinstance(p, LayoutError):
            continue
        if a.op == "convert_layout":
            if not p.uses_shared:
                out[a.line] = 0
            elif p.plan is not None:
                elems = (1 << len(p.plan.memory.columns)) // p.plan.reps
                out[a.line] = elems * max(8, a.element_bits) // 8
        elif a.op in ("reduce", "scan"):
            nbytes = reduce_scratch_bytes(a) if a.op == "reduce" else scan_scratch_bytes(a)
            if nbytes is not None:
                out[a.line] = nbytes
    for a, _ in predictions:  # sized from the types alone, whatever the prediction
        size = _TYPE_SIZED.get(a.op)
        if size is not None:
            nbytes = size(a)
            if nbytes is not None:
                out[a.line] = nbytes
    return out


def histogram_scratch_bytes(a: Access) -> int | None:
    """Triton 3.9's scratch for a ``tt.histogram`` access (``Allocation.cpp``,
    ``defaultAllocationAnalysisScratchSizeFn``): ``max(bins, lanes per warp) × result
    element bytes``. None when the result type or its layout is not known."""
    t = a.destination
    if t is None:
        return None
    try:
        lanes = layout_of(t).in_dims.get("lane", 1)
    except LayoutError:
        return None
    return max(math.prod(t.shape), lanes) * t.element_bits // 8


def atomic_scratch_bytes(a: Access) -> int | None:
    """Triton 3.9's scratch for a ``tt.atomic_rmw``/``tt.atomic_cas`` access
    (``getRepShapeForAtomic`` in ``Allocation.cpp``): 0 when the result is unused or is a
    tensor whose warps (and blocks) hold no copies of one element (``getFreeVariableMasks``
    0 for them; copies among a warp's lanes are exchanged by shuffles, as Triton's allocator
    and lowering do on compiled kernels); else the result's elements ×
    ``max(8, element bits) / 8``. None for a scalar result
    (:func:`~linlayout.triton.allocation.scalar_atomic_bytes` sizes it) or a layout not
    known."""
    if not a.result_used:
        return 0
    t = a.destination
    if t is None or t.kind != "tensor":
        return None  # a scalar: the allocator replay sizes it from the op's text
    try:
        masks = layout_of(t).free_variable_masks()
    except LayoutError:
        return None
    if not (masks.get("warp") or masks.get("block")):
        return 0
    return math.prod(t.shape) * max(8, t.element_bits) // 8


def gather_scratch_bytes(a: Access) -> int | None:
    """Triton 3.9's ``GatherLoweringHelper::getScratchSizeInBytes`` for a ``tt.gather``
    access: 0 when the gather is warp-local (``isWarpLocal``: no warp or block bit of the
    source or index layout moves along the gather axis, both map warps and blocks the same
    way onto the other dims, and lanes too), else the whole source tensor, its elements ×
    ``⌈bits/8⌉``. None when the axis or a layout is not known."""
    m = re.search(r"axis\s*=\s*(\d+)", a.attrs)
    if m is None or len(a.operand_types) < 2:
        return None
    src_t, idx_t = a.operand_types[0], a.operand_types[1]
    try:
        src, idx = layout_of(src_t), layout_of(idx_t)
    except LayoutError:
        return None
    axis_dim = f"dim{int(m.group(1))}"
    others = [d for d in src.out_dim_names if d != axis_dim]
    if axis_dim not in src.out_dim_names or set(others) != set(idx.out_dim_names) - {axis_dim}:
        return None

    def sub(lay: LinearLayout, ins: list[str], outs: list[str]) -> LinearLayout:
        return lay.sublayout([d for d in lay.in_dim_names if d in ins],
                             [d for d in lay.out_dim_names if d in outs])

    def zero(lay: LinearLayout) -> bool:
        return not any(any(v) for vs in lay.bases.values() for v in vs)

    warp_block = ["block", "warp"]
    local = zero(sub(src, warp_block, [axis_dim])) and zero(sub(idx, warp_block, [axis_dim])) \
        and sub(src, warp_block, others) == sub(idx, warp_block, others) \
        and sub(src, ["lane"], others) == sub(idx, ["lane"], others)
    if local:
        return 0
    return math.prod(src_t.shape) * -(-src_t.element_bits // 8)


_TYPE_SIZED = {"histogram": histogram_scratch_bytes, "gather": gather_scratch_bytes,
               "atomic_rmw": atomic_scratch_bytes, "atomic_cas": atomic_scratch_bytes}


def scan_scratch_bytes(a: Access) -> int | None:
    """Triton 3.9's ``ScanLoweringHelper::getScratchSizeInBytes`` for a ``tt.scan`` access
    on a ``#ttg.blocked`` operand that fills its tile (no broadcast): 0 with one warp along
    the axis, else ``Σ ⌈bits/8⌉`` over the operands times ``warps × threads and elements per
    thread off the axis × blocks along and off the axis``. None for other layouts (their
    ``getThreadsPerWarp``/``getWarpsPerCTA`` through a linear encoding are not modelled)."""
    m = re.search(r"axis\s*=\s*(\d+)", a.attrs)
    t = a.distributed
    enc = getattr(t, "encoding", None)
    cga = getattr(enc, "cga", None)
    if m is None or t is None or getattr(enc, "mnemonic", "") != "blocked" \
            or (cga is not None and getattr(cga, "bases", ())):
        return None
    axis = int(m.group(1))
    spt, tpw, wpc = enc.size_per_thread, enc.threads_per_warp, enc.warps_per_cta
    shape = t.shape
    if axis >= len(shape) or any(s < a_ * b * c for s, a_, b, c in zip(shape, spt, tpw, wpc)):
        return None
    if wpc[axis] == 1:
        return 0
    tile = [a_ * b * c for a_, b, c in zip(spt, tpw, wpc)]
    blocks_off = 1
    for d, (s, w) in enumerate(zip(shape, tile)):
        if d != axis:
            blocks_off *= -(-s // w)
    elems = (math.prod(wpc) * (math.prod(tpw) // tpw[axis]) * (math.prod(spt) // spt[axis])
             * -(-shape[axis] // tile[axis]) * blocks_off)
    types = a.operand_types or (t,)
    return sum(-(-x.element_bits // 8) for x in types) * elems


def reduce_scratch_bytes(a: Access) -> int | None:
    """Triton 3.9's ``ReduceOpHelper::getScratchSizeInBytes`` for a ``tt.reduce`` access: over
    the cross-warp rounds (:func:`~.reduce.reduce_steps`), the largest sum over operands of
    the elements of the round's scratch layout (``getNumScratchElemsSwizzledCvt`` with plain
    ``ld/st`` tiles) times the operand's bytes; 0 without a cross-warp round. None when the
    operand layout or axis is not known."""
    m = re.search(r"axis\s*=\s*(\d+)", a.attrs)
    if m is None or a.distributed is None:
        return None
    try:
        operand = layout_of(a.distributed)
        steps = [st for st in reduce_steps(operand, None, int(m.group(1))) if st[0] == "round"]
        bits = [moved_bits(t.element_bits, t.element_type) for t in a.operand_types] or \
            [moved_bits(a.element_bits, a.element_type)]
        best = 0
        for _, src, dst in steps:
            src, dst = drop_broadcast_registers(src), drop_broadcast_registers(dst)
            total = 0
            for b in bits:
                plan = triton_scratch_layout(src, dst, b)
                total += (1 << len(plan.memory.columns)) // plan.reps * max(8, b) // 8
            best = max(best, total)
        return best
    except LayoutError:
        return None


def module_allocation(module: TTGIRModule,
                      predictions: list[tuple[Access, Prediction | LayoutError]]
                      ) -> tuple[SharedAllocation | None, str]:
    """Triton's shared-memory offsets for ``module``
    (:func:`~linlayout.triton.allocation.shared_allocation`), its converts' scratch sized
    from their ``predictions`` (:func:`convert_scratch_bytes`); ``(None, why)`` where the
    replay does not place the module."""
    own = module.functions[0].warps if len(module.functions) == 1 else None
    return shared_allocation(module.text, module.num_warps or 4, module.warp_specialize,
                             convert_scratch_bytes(predictions), own)


def _warp_specialize(module: TTGIRModule, target: Target,
                     predictions: list[tuple[Access, Prediction | LayoutError]]
                     ) -> list[tuple[Access, Prediction | LayoutError]]:
    """The ``ttg.warp_specialize`` regions as accesses with their predictions
    (:mod:`.warp_specialize`); their buffers' offsets come from Triton's allocator, replayed
    where the module's buffers are all of the kinds it sizes
    (:func:`~linlayout.triton.allocation.shared_allocation`)."""
    regions = module.warp_specialize
    allocation, _ = module_allocation(module, predictions)
    preds = predict_warp_specialize(regions, module.num_warps or 4, target, allocation)
    out: list[tuple[Access, Prediction | LayoutError]] = [
        (Access(r.line, "warp_specialize", "named", None, None, None, None, None, None, "", 0),
         p) for r, p in zip(regions, preds)]
    read = {r.line for r in regions}
    for line in warp_specialize_lines(module.text):
        if line not in read:
            # its state bytes and captures move through shared memory too: say so rather
            # than leave the op out of the report
            out.append((Access(line, "warp_specialize", "named", None, None, None, None, None,
                               None, "", 0),
                        LayoutError("its region was not read: each capture needs one type in "
                                    "the '} : (…) -> ()' after its last partition, and each "
                                    "partition a 'partitionN(…) num_warps(N) {' header, as "
                                    "Triton prints them")))
    return out
