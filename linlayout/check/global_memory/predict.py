"""Which global-memory instructions Triton 3.9 emits for each global op, and how wide.

NVIDIA (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/LoadStoreOpToLLVM.cpp``, Triton 3.9):
``tt.load``/``tt.store`` move ``vec = min(128 / pointee bits, getContiguity(ptr))`` elements per
instruction, cut to the mask's alignment when masked; each vector is one inline-asm
``ld.global``/``st.global`` of ``nWords`` words of ``min(vec · bits, max(32, bits))`` bits
(``ld.global.v4.b32``, ``ld.global.b16``, ``st.global.v2.b64`` …), with the cache modifier
(``.ca``/``.cg``/``.cs``/``.cv``; stores ``.wb``/``.cg``/``.cs``/``.wt``) in the opcode, one per
``vec`` distinct elements a thread holds (``getUniqueElemsPerThread``).
``ttg.async_copy_global_to_local`` (``AsyncCopyGlobalToLocalOpConversion``) takes
``max(min(getContiguity(src), mask alignment), contiguity attribute)`` elements, at most 16
bytes: ``cp.async.cg.shared.global`` for 16 bytes, ``.ca`` for 4 and 8.

AMD (``third_party/amd/lib/TritonAMDGPUToLLVM/LoadStoreOpToLLVM.cpp`` and ``Utility.cpp``):
the same vector rule (``getVectorSize``) for ``tt.load``/``tt.store``, emitted as LLVM vector
loads the backend selects as ``global_load_dword``/``dwordx2``/``dwordx4``,
``global_load_ushort``/``ubyte`` (stores ``global_store_*``); ``amdg.buffer_load``/
``buffer_store`` take the offsets' contiguity and the base pointer's alignment
(``getVectorSize(ptr, offset)``) and become ``buffer_load_*``/``buffer_store_*``.
Atomics: on NVIDIA Triton's own PTX (``atom``/``red`` with scope, order, operation, vector or
packed type: ``red.global.gpu.relaxed.add.f32``, ``atom.global.gpu.acq_rel.add.v4.f32``,
``atom.global.acq_rel.gpu.cas.b32``); on AMD the mnemonic LLVM's backend selects
(``global_atomic_add_f32``, ``global_atomic_smax_x2``, a ``global_atomic_cmpswap`` loop at
system scope); an f16/bf16 add packs two elements (``global_atomic_pk_add_bf16``) or, with
vector 1, pairs lanes at run time with two scalar fallbacks (``AtomicRMWOpConversion`` and
``AtomicRMWEmitter::emitPairedAtomicForEvenTID``; :attr:`GlobalPrediction.fallbacks`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..._checks import instance_of, string
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.target import Target
from ..target import check_lanes
from ...triton.axisinfo import (AxisInfo, GlobalOp, ModuleAxisInfo, contiguity,
                                mask_alignment, pointee_bits, unique_registers)
from ...triton.parse import TritonType

__all__ = ["GlobalMerge", "GlobalPrediction", "address_run", "amd_atomic_name",
           "amd_buffer_atomic_name", "amd_cas_loop_load", "amd_global_name", "atomic_fields",
           "held_block",
           "nvidia_atomic_name", "nvidia_global_name", "predict_global"]


@dataclass(frozen=True)
class GlobalMerge:
    """The other outcome of an AMD global or buffer load or store narrower than the run of
    consecutive addresses a thread holds: LLVM's AMDGPU back end (``-O3`` code generation:
    the ``LoadStoreVectorizer`` pass, SelectionDAG's ``DAGCombiner::mergeConsecutiveStores``
    for stores, ``SILoadStoreOptimizer`` after selection; which of them merges a given access
    was not separated) may join each thread's accesses of one run into wider ones whatever
    their alignment (the measured kernels' pointers have no ``tt.divisibility``), or not;
    nothing in the TTGIR says which (measured on Triton 3.9.0's final AMDGCN:
    ``docs/triton-lowering.md``, "AMD global accesses LLVM may merge").

    Attributes:
        opcode: the instruction if every run merges (``global_store_dwordx4``).
        per_thread: its count per thread.
        vector_elems: elements per instruction and lane.
        vector_bytes: bytes per instruction and lane (at most 16).
        run: the run (elements) the merge spans (:func:`address_run`).
    """

    opcode: str
    per_thread: int
    vector_elems: int
    vector_bytes: int
    run: int


@dataclass(frozen=True)
class GlobalPrediction:
    """The instruction one global op lowers to.

    Attributes:
        side: ``"load"``, ``"store"`` (``cp.async`` reads global: ``"load"``) or
            ``"atomic"``.
        opcode: Triton's opcode (``"ld.global.v4.b32"``, ``"global_load_dwordx4"``,
            ``"cp.async.cg.shared.global"``).
        per_thread: instructions per thread.
        vector_elems: elements per instruction and lane.
        element_bits: bits per element in memory.
        vector_bytes: bytes per instruction and lane.
        contiguity: ``getContiguity`` of the pointer (elements), before the mask.
        mask_alignment: the mask's alignment (None without a mask).
        note: what limited the vector, or why the count is approximate.
        fallbacks: further static instructions of the op on a path taken at run time
            instead of ``opcode``, as ``(opcode, per_thread)``, one element each (an AMD
            16-bit float add whose lane pair cannot be packed: two scalar atomics); empty for
            most ops.
        run: elements of the longest run of consecutive addresses a thread holds whole
            (:func:`address_run`; 1 where not computed: atomics, scalars, ``cp.async``).
        may_merge: on AMD, for a load or store (``tt.load``/``tt.store``,
            ``amdg.buffer_load``/``buffer_store``, the latter only with a vector of 4 bytes or
            more) whose vector is narrower than ``run`` (at most 16 bytes), the instruction if
            LLVM's back end merges every run
            (:class:`GlobalMerge`); the final AMDGCN has between ``per_thread`` and its
            count (each run merged or not, sometimes in part). ``opcode`` and ``per_thread``
            stay Triton's IR. None otherwise.
        loop_load: on AMD, for an atomic LLVM expands into compare-and-swap loops
            (:func:`amd_cas_loop_load`), ``(opcode, per_thread)`` of the plain load of the
            containing aligned word each loop begins with (``global_load_dword``,
            ``global_load_dwordx2`` for 64 bits; ``s_load_dword`` for a scalar pointer's
            uniform address): one per expanded atomic and thread, added by
            LLVM's ``AtomicExpand`` pass, so not in Triton's IR, :meth:`instructions` or the
            totals; the final AMDGCN has it. None otherwise.
    """

    side: str
    opcode: str
    per_thread: int
    vector_elems: int
    element_bits: int
    vector_bytes: int
    contiguity: int
    mask_alignment: int | None
    note: str = ""
    fallbacks: tuple[tuple[str, int], ...] = ()
    run: int = 1
    may_merge: GlobalMerge | None = None
    loop_load: tuple[str, int] | None = None

    def instructions(self) -> tuple[tuple[str, int], ...]:
        """Every static instruction of the op, ``(opcode, per_thread)``: ``opcode`` first,
        then the :attr:`fallbacks`."""
        return ((self.opcode, self.per_thread),) + self.fallbacks


def nvidia_global_name(side: str, vec: int, bits: int, attrs: str = "") -> str:
    """The ``ld.global``/``st.global`` opcode of ``vec`` elements of ``bits`` bits.

    Source: ``LoadOpConversion``/``StoreOpConversion`` (``maxWordWidth = max(32, bits)``,
    ``width = min(vec · bits, maxWordWidth)``, ``nWords = vec · bits / width``).
    """
    total = vec * bits
    width = min(total, max(32, bits))
    words = max(1, total // width)
    mods = ""
    if side == "load" and re.search(r"isVolatile\s*=\s*true", attrs):
        mods += ".volatile"
    m = re.search(r"(?:cacheModifier|cache_modifier)\s*=\s*(\w+)", attrs)
    cache = m.group(1).lower() if m else ""
    allowed = ("ca", "cg", "cs", "cv") if side == "load" else ("wb", "cg", "cs", "wt")
    base = "ld" if side == "load" else "st"
    name = f"{base}{'.volatile' if mods else ''}.global"
    if cache in allowed:
        name += f".{cache}"
    m = re.search(r"(?:evictionPolicy|eviction_policy)\s*=\s*(\w+)", attrs)
    ev = m.group(1).lower() if m else ""
    if ev in ("evict_first", "evict_last"):
        name += f".L1::{ev}.L2::cache_hint"
    return f"{name}{f'.v{words}' if words > 1 else ''}.b{width}"


def amd_global_name(side: str, nbytes: int, buffer: bool = False) -> str:
    """``global_load_dwordx4``/``global_store_short``/``buffer_load_dword`` … of ``nbytes``
    bytes (the instruction LLVM's AMDGPU backend selects for that vector)."""
    kind = "buffer" if buffer else "global"
    verb = "load" if side == "load" else "store"
    if nbytes >= 4:
        n = nbytes // 4
        suffix = "dword" if n == 1 else f"dwordx{n}"
    elif nbytes == 2:
        suffix = "ushort" if side == "load" else "short"
    else:
        suffix = "ubyte" if side == "load" else "byte"
    return f"{kind}_{verb}_{suffix}"


def predict_global(op: GlobalOp, axis: ModuleAxisInfo, target: Target) -> GlobalPrediction:
    """The instruction ``op`` lowers to on ``target``, from its AxisInfo.

    Raises:
        LayoutError: the op is a scalar buffer op, has no encoding, or its layout has no
            linear form, or covers another number of lanes than the target's warp
            (:func:`~linlayout.check.target.check_lanes`).
    """
    ptype = op.pointer_type
    check_lanes(ptype, target)
    if (ptype is None or ptype.kind != "tensor") and op.short in ("load", "store"):
        return _scalar(op, target)
    if (ptype is None or ptype.kind != "tensor") and op.short in ("atomic_rmw", "atomic_cas"):
        # a scalar atomic: one element, predicated to one thread (``AtomicRMWOpConversion``/
        # ``AtomicCASOpConversion``: vec = 1, numElems = 1 for a non-tensor pointer)
        bits = max(8, pointee_bits(op.element_type))
        return _atomic(op, target, 1, 1, bits, 1, None, False)
    if ptype is None or ptype.kind != "tensor" or ptype.encoding is None:
        raise LayoutError(f"{op.name} at line {op.line}: a scalar or unencoded access "
                          "(one instruction per thread; not analysed)")
    short = op.short
    bits_ax = pointee_bits(op.element_type or ptype.element_type)
    bits = max(8, bits_ax)
    buffer = short.startswith("buffer")
    info = axis.info(op.pointer)
    if buffer:
        contig = contiguity(info, ptype, bits_ax)
        base = axis.info(op.base)
        if base is not None:
            contig = min(contig, max(1, base.divisibility[0] // max(1, bits_ax // 8)))
    else:
        contig = contiguity(info, ptype, bits_ax)
    vec = max(1, min(128 // bits, contig))
    malign = None
    note = ""
    if op.mask is not None:
        malign = mask_alignment(axis.info(op.mask), ptype)
        if malign < vec:
            note = f"vector cut from {vec} to {malign} by the mask's alignment"
        vec = min(vec, malign)
    elems = unique_registers(ptype)
    if short in ("async_copy_global_to_local", "buffer_load_to_local"):
        m = re.search(r"contiguity\s*=\s*(\d+)", op.attrs)
        hint = int(m.group(1)) if m else 1
        vec = max(1, min(max(vec, hint), 128 // bits))
        if target.is_nvidia:
            nbytes = vec * bits // 8
            if nbytes < 4:
                raise LayoutError(f"cp.async of {nbytes} bytes per lane (vector {vec}): "
                                  "Triton refuses copies under 4 bytes")
            name = "cp.async.cg.shared.global" if nbytes == 16 else "cp.async.ca.shared.global"
            return GlobalPrediction("load", name, elems // vec, vec, bits, nbytes, contig,
                                    malign, note)
        raise LayoutError("AMD direct-to-LDS copies are counted with the shared-memory ops")
    side = "load" if short in ("load", "buffer_load") else \
        "store" if short in ("store", "buffer_store") else "atomic"
    if side == "atomic":
        return _atomic(op, target, elems, vec, bits, contig, malign, buffer)
    nbytes = vec * bits // 8
    run = address_run(info, ptype, axis.info(op.mask) if op.mask is not None else None,
                      op.mask is not None)
    if target.is_nvidia:
        name = nvidia_global_name(side, vec, bits, op.attrs)
    else:
        name = amd_global_name(side, nbytes, buffer)
    pred = GlobalPrediction(side, name, max(1, elems // vec), vec, bits, nbytes, contig, malign,
                            note, run=run)
    return pred if target.is_nvidia else _amd_merge(pred, buffer)


def address_run(info: AxisInfo | None, ttype: TritonType, mask: AxisInfo | None = None,
                masked: bool = False) -> int:
    """Elements of the longest run whose addresses AxisInfo proves consecutive and which one
    thread holds whole, alignment aside — what LLVM's back end can join into one access
    whatever Triton's vector: over the tensor's dims, the largest
    ``min(contiguity[d], held_block(layout, d))`` (AxisInfo's ``contiguity`` of the pointer or
    offsets, :func:`held_block`), capped for a masked op by the mask's ``constancy[d]``
    (elements one predicate covers; ``mask`` None with ``masked``: 1). At least 1. Unlike
    :func:`~linlayout.triton.axisinfo.contiguity` (Triton's vector), no divisibility cap, any
    dim, any register order.

    Raises:
        LayoutError: ``ttype`` has no linear layout.
    """
    if info is None or ttype.kind != "tensor":
        return 1
    best = 1
    for d in range(min(info.rank, len(ttype.layout.out_dim_names))):
        run = min(info.contiguity[d], held_block(ttype.layout, d))
        if masked:
            run = min(run, mask.constancy[d] if mask is not None and d < mask.rank else 1)
        best = max(best, run)
    return best


def held_block(layout: LinearLayout, dim: int) -> int:
    """The largest ``k`` (elements, a power of two) such that each thread holds whole aligned
    blocks of ``k`` consecutive elements along output dim ``dim`` (an index into
    ``layout.out_dim_names``), in any register order: the register bases include
    ``1, 2, …, k/2`` along ``dim`` wherever they sit. For the leading register bases in order
    this is Triton's ``getContigPerThread``; LLVM's back end merges by address, whatever the
    register order.

    Raises:
        LayoutError: ``layout`` is not a :class:`~linlayout.layout.LinearLayout` or ``dim``
            not an index of its output dims.
    """
    instance_of(layout, LinearLayout, "layout")
    rank = len(layout.out_dim_names)
    if type(dim) is not int or not 0 <= dim < rank:
        raise LayoutError(f"dim must be an output dim index below {rank}, got {dim!r}")
    regs = {tuple(b) for b in layout.bases.get("register", [])}
    k = 1
    while tuple(k if i == dim else 0 for i in range(rank)) in regs:
        k *= 2
    return k


#: the most bytes one AMD global load or store moves per lane (``global_load_dwordx4``)
MAX_AMD_BYTES = 16


#: the narrowest buffer access LLVM's AMDGPU back end merges (bytes): buffer loads and stores
#: are intrinsic calls, which the IR ``LoadStoreVectorizer`` (plain loads and stores only)
#: leaves alone, and ``SILoadStoreOptimizer`` (``getInstClass``) pairs only the
#: ``BUFFER_LOAD_DWORD``/``BUFFER_STORE_DWORD`` families, never ``_ubyte``/``_ushort``
MIN_MERGED_BUFFER_BYTES = 4


def _amd_merge(pred: GlobalPrediction, buffer: bool) -> GlobalPrediction:
    """``pred`` with :attr:`GlobalPrediction.may_merge` set where LLVM's AMDGPU back end may
    join a thread's accesses of one :func:`address_run`: a load or store (``tt.load``/
    ``tt.store``, ``amdg.buffer_load``/``buffer_store``) whose vector (bytes) is under
    ``min(run · element bytes, 16)``. The merged instruction moves that many bytes; the note
    says LLVM decides; ``buffer`` names it ``buffer_*``. A buffer op whose vector is under
    :data:`MIN_MERGED_BUFFER_BYTES` gets none (no LLVM pass merges it; its note says so).

    Source: ``llvm/lib/Transforms/Vectorize/LoadStoreVectorizer.cpp`` (``LoadInst``/
    ``StoreInst`` only) and ``llvm/lib/Target/AMDGPU/SILoadStoreOptimizer.cpp``
    (``getInstClass``: MUBUF only in the ``BUFFER_LOAD_DWORD``/``BUFFER_STORE_DWORD``
    families)."""
    ebytes = pred.element_bits // 8
    nbytes = min(MAX_AMD_BYTES, pred.run * ebytes)
    if ebytes == 0 or nbytes <= pred.vector_bytes:
        return pred
    if buffer and pred.vector_bytes < MIN_MERGED_BUFFER_BYTES:
        why = (f"a thread holds runs of {pred.run} consecutive elements, but LLVM's back end "
               f"merges no buffer access under {MIN_MERGED_BUFFER_BYTES} bytes, so "
               f"{pred.opcode} x{pred.per_thread} stays")
        return replace(pred, note="; ".join(x for x in (pred.note, why) if x))
    name = amd_global_name(pred.side, nbytes, buffer)
    per = max(1, pred.per_thread * pred.vector_bytes // nbytes)
    merge = GlobalMerge(name, per, nbytes // ebytes, nbytes, pred.run)
    why = (f"LLVM's back end may merge each run of {pred.run} consecutive elements a thread "
           f"holds into {name} x{per} (measured: usually every run, sometimes some or none, "
           f"fewer where masked; LLVM's back end decides, so the count is Triton's IR, "
           f"{pred.opcode} x{pred.per_thread})")
    return replace(pred, may_merge=merge,
                   note="; ".join(x for x in (pred.note, why) if x))


def _scalar(op: GlobalOp, target: Target) -> GlobalPrediction:
    """A ``tt.load``/``tt.store`` of one scalar (``!tt.ptr<T>``, no tensor): one access of
    one element per thread, predicated to one lane by Triton (``LoadOpConversion`` /
    ``StoreOpConversion`` in ``third_party/{nvidia,amd}/lib/TritonGPUToLLVM/
    LoadStoreOpToLLVM.cpp`` count a scalar as one element per thread, vector 1)."""
    side = op.short
    bits = max(8, pointee_bits(op.element_type))
    if target.is_nvidia:
        name = nvidia_global_name(side, 1, bits, op.attrs)
    else:
        name = amd_global_name(side, bits // 8)
    return GlobalPrediction(side, name, 1, 1, bits, bits // 8, 1, None,
                            "a scalar access: one element per thread")


#: ``tt.atomic_rmw`` kinds → (PTX operation, type-suffix letter) (``emitPtxAtomicRMWImpl``).
_NV_RMW = {"add": ("add", "u"), "max": ("max", "s"), "min": ("min", "s"),
           "umax": ("max", "u"), "umin": ("min", "u"), "and": ("and", "b"),
           "or": ("or", "b"), "xor": ("xor", "b"), "exch": ("exch", "b")}
#: ``tt.atomic_rmw`` kinds → the AMDGCN mnemonic stem LLVM's AMDGPU backend selects.
_AMD_RMW = {"add": "add", "max": "smax", "min": "smin", "umax": "umax", "umin": "umin",
            "and": "and", "or": "or", "xor": "xor", "exch": "swap"}


def atomic_fields(op: GlobalOp) -> tuple[str, str, str]:
    """``(kind, sem, scope)`` of a ``tt.atomic_rmw`` (``fadd, acq_rel, gpu``) or
    ``tt.atomic_cas`` (kind ``"cas"``); empty strings where the text does not say."""
    rest = op.text.split(op.name, 1)[-1]
    words = re.findall(r"\w+", rest.split("%", 1)[0])
    if op.short in ("atomic_cas", "buffer_atomic_cas"):
        words = ["cas"] + words
    words += [""] * 3
    return words[0], words[1], words[2]


def nvidia_atomic_name(kind: str, sem: str, scope: str, element_type: str, bits: int,
                       vec: int, packed: int, red: bool) -> str:
    """The PTX opcode of one NVIDIA global atomic (``emitPtxAtomicRMWImpl``/
    ``emitPtxAtomicCAS`` in ``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM``, Triton 3.9):
    ``{atom|red}.global.{scope}.{sem}.{op}[.v{vec}].{type}`` (``add.noftz.f16``,
    ``add.f32``, ``add.u32``, ``max.s64``, ``exch.b32``, ``add.noftz.f16x2`` packed), and for
    CAS ``atom.global.{sem}.{scope}.cas.b{bits}``."""
    if kind == "cas":
        return f"atom.global.{sem}.{scope}.cas.b{bits}"
    if kind == "fadd":
        opname = "add.noftz" if bits == 16 else "add"
        suffix = ("bf" if element_type == "bf16" else "f") + str(bits)
        suffix += "x2" if packed == 2 and bits == 16 else ""
    else:
        opname, letter = _NV_RMW[kind]
        suffix = f"{letter}{bits}"
    v = f".v{vec}" if vec > 1 else ""
    return f"{'red' if red else 'atom'}.global.{scope}.{sem}.{opname}{v}.{suffix}"


def _atomic_args(kind: object, element_type: object, bits: object) -> None:
    """Checks the arguments the AMD atomic namers share (their docstrings)."""
    string(kind, "kind")
    string(element_type, "element_type")
    if type(bits) is not int or bits not in (8, 16, 32, 64):
        raise LayoutError(f"bits must be 8, 16, 32 or 64 (an element width), got {bits!r}")


def amd_atomic_name(kind: str, scope: str, element_type: str, bits: int,
                    packed: bool = False) -> str | None:
    """The AMDGCN mnemonic LLVM's AMDGPU backend selects for one global atomic on gfx942/
    gfx950 (measured on Triton 3.9.0's output by ``papers/global_memory/atomic_probes.py``):
    ``global_atomic_{add,smax,smin,umax,umin,and,or,xor,swap}`` (``_x2`` for 64 bits),
    ``global_atomic_add_f32``/``_f64``, ``global_atomic_cmpswap[_x2]`` for CAS — and for a
    system-scope atomic other than an integer add or an exchange, which LLVM expands into a
    compare-and-swap loop. A 16-bit float add (``f16``/``bf16``) is
    ``global_atomic_pk_add_f16``/``_bf16`` when ``packed`` (two elements, ``<2 x half>``) below
    system scope; a scalar one, or a packed one at system scope, is a 32-bit
    ``global_atomic_cmpswap`` loop. An 8- or 16-bit atomic of any other kind but ``and``/
    ``or``/``xor`` (integer ``add``, ``max``, ``min``, ``umax``, ``umin``, ``exch``, ``cas``)
    is a 32-bit ``global_atomic_cmpswap`` loop on the containing aligned word: LLVM's
    ``AtomicExpand`` (``expandPartwordAtomicRMW``/``expandPartwordCmpXchg``) because
    ``SITargetLowering::shouldExpandAtomicRMWInIR`` asks for a compare-and-swap expansion of
    every integer type but i32/i64 (``atomicSupportedIfLegalIntType``, exchange:
    ``isAtomicRMWLegalXChgTy``) and AMDGPU's narrowest ``cmpxchg`` is 32 bits; ``and``/``or``/
    ``xor`` are widened to a 32-bit atomic of the word instead (``widenPartwordAtomicRMW``),
    named as the 32-bit one. None for a kind with no mnemonic here.

    Args:
        kind: Triton's RMW kind (``add``, ``fadd``, ``max``, ``umax``, …, ``exch``) or ``cas``.
        scope: the memory scope (``gpu``, ``cta``, ``sys``).
        element_type: the MLIR element type (``f16``, ``bf16``, ``f32``, ``i32``, …).
        bits: the element width in bits, 8, 16, 32 or 64.
        packed: two 16-bit elements per instruction.

    Raises:
        LayoutError: a name not a string, ``bits`` not 8/16/32/64, ``packed`` not a bool.
    """
    _atomic_args(kind, element_type, bits)
    string(scope, "scope")
    instance_of(packed, bool, "packed")
    x2 = "_x2" if bits == 64 else ""
    if kind == "fadd" and bits == 16:
        if packed and scope != "sys" and element_type in ("f16", "bf16"):
            return f"global_atomic_pk_add_{element_type}"
        return "global_atomic_cmpswap"
    if kind == "cas" or (scope == "sys" and kind not in ("add", "exch")) or \
            (bits < 32 and kind not in ("and", "or", "xor")):
        return f"global_atomic_cmpswap{x2}"
    if kind == "fadd":
        return f"global_atomic_add_f{bits}" if bits in (32, 64) else None
    stem = _AMD_RMW.get(kind)
    return f"global_atomic_{stem}{x2}" if stem else None


def amd_buffer_atomic_name(kind: str, element_type: str, bits: int) -> str:
    """The AMDGCN mnemonic of one ``amdg.buffer_atomic_rmw``/``buffer_atomic_cas`` (an
    ``llvm.amdgcn.raw.ptr.buffer.atomic.*`` intrinsic, which LLVM selects directly: no
    compare-and-swap expansion; Triton converts no system-scope atomic to a buffer one):
    ``buffer_atomic_{add,smax,smin,umax,umin,and,or,xor,swap,cmpswap}`` (``_x2`` for 64
    bits), ``buffer_atomic_add_f32``/``_f64`` and the packed ``buffer_atomic_pk_add_f16``/
    ``_bf16`` (``BufferAtomicRMWOpConversion``: two 16-bit elements per instruction); the
    family name ``buffer_atomic`` for a kind or width with no mnemonic here.

    Args:
        kind: Triton's RMW kind (``add``, ``fadd``, ``max``, …, ``exch``) or ``cas``.
        element_type: the MLIR element type (``f16``, ``bf16``, ``f32``, ``i32``, …).
        bits: the element width in bits, 8, 16, 32 or 64.

    Raises:
        LayoutError: a name not a string, or ``bits`` not 8/16/32/64.
    """
    _atomic_args(kind, element_type, bits)
    x2 = "_x2" if bits == 64 else ""
    if kind == "cas":
        return f"buffer_atomic_cmpswap{x2}"
    if kind == "fadd":
        if bits == 16 and element_type in ("f16", "bf16"):
            return f"buffer_atomic_pk_add_{element_type}"
        return f"buffer_atomic_add_f{bits}" if bits in (32, 64) else "buffer_atomic"
    stem = _AMD_RMW.get(kind)
    return f"buffer_atomic_{stem}{x2}" if stem else "buffer_atomic"


def amd_cas_loop_load(kind: str, bits: int, instructions: Sequence[tuple[str, int]],
                      uniform: bool = False) -> tuple[str, int] | None:
    """The loads an AMD global atomic's compare-and-swap loops begin with, ``(opcode,
    per_thread)``, or None when it has no loop.

    LLVM's ``AtomicExpand`` pass (``insertRMWCmpXchgLoop`` for an ``atomicrmw``, also under
    ``expandPartwordAtomicRMW``; ``expandPartwordCmpXchg`` for an 8/16-bit ``cmpxchg``) puts
    one plain load of the word the loop swaps (the containing aligned 32-bit word for 8/16-bit
    elements, else the element's own width) before each loop: ``global_load_dword``
    (``global_load_dwordx2`` for 64 bits), one per expanded atomic and thread. Every
    ``global_atomic_cmpswap[_x2]`` in ``instructions`` (as :func:`amd_atomic_name` names them)
    is such a loop except a native 32/64-bit ``cas`` (``shouldExpandAtomicCmpXchgInIR`` leaves
    a global ``cmpxchg`` alone). Buffer atomics (``llvm.amdgcn.raw.ptr.buffer.atomic.*``
    intrinsics, not ``atomicrmw``) are never expanded: pass none. ``uniform``: the address
    is the same in every lane (an atomic on a scalar ``!tt.ptr``); AMDGPU then selects the
    load through scalar memory, ``s_load_dword`` (``s_load_dwordx2``), as it does a uniform
    load nothing before it may write (``AMDGPUAnnotateUniformValues``: ``amdgpu.noclobber``;
    measured on 3 of 3 fresh scalar 16-bit float adds, a fit: a store to global memory before
    the atomic may make it a ``global_load_dword`` instead).

    Args:
        kind: Triton's RMW kind or ``cas``.
        bits: the element width, 8, 16, 32 or 64.
        instructions: the op's ``(opcode, per_thread)`` pairs
            (:meth:`GlobalPrediction.instructions`).
        uniform: the atomic's address is uniform (a scalar pointer).

    Raises:
        LayoutError: ``kind`` not a string, ``bits`` not 8/16/32/64, ``instructions`` not
            pairs of an opcode string and a count (an int >= 0), or ``uniform`` not a bool.

    Source: LLVM's ``AtomicExpand`` pass (``expandPartwordCmpXchg``,
    ``insertRMWCmpXchgLoop``) as AMDGPU's ``SIISelLowering`` asks for it, measured on the
    final gfx942/gfx950 AMDGCN (``papers/global_memory/amd_cas_loop_probes.py``).
    """
    string(kind, "kind")
    if type(bits) is not int or bits not in (8, 16, 32, 64):
        raise LayoutError(f"bits must be 8, 16, 32 or 64 (an element width), got {bits!r}")
    if not isinstance(instructions, Sequence) or not all(
            isinstance(i, tuple) and len(i) == 2 and isinstance(i[0], str)
            and type(i[1]) is int and i[1] >= 0 for i in instructions):
        raise LayoutError(f"instructions must be (opcode, per_thread) pairs, got "
                          f"{instructions!r}")
    instance_of(uniform, bool, "uniform")
    if kind == "cas" and bits >= 32:
        return None
    n = sum(c for o, c in instructions if o.startswith("global_atomic_cmpswap"))
    if n == 0:
        return None
    width = "dwordx2" if bits == 64 else "dword"
    return (f"s_load_{width}" if uniform else f"global_load_{width}", n)


def _with_loop_load(pred: GlobalPrediction, kind: str, buffer: bool,
                    op: GlobalOp) -> GlobalPrediction:
    """``pred`` (an AMD atomic ``op``) with :attr:`GlobalPrediction.loop_load` set
    (:func:`amd_cas_loop_load`; uniform for a scalar pointer) and said in its note."""
    uniform = op.pointer_type is None or op.pointer_type.kind != "tensor"
    load = None if buffer else amd_cas_loop_load(kind, pred.element_bits,
                                                 pred.instructions(), uniform)
    if load is None:
        return pred
    why = (f"each compare-and-swap loop LLVM expands this atomic into begins with a load of "
           f"the {'64' if pred.element_bits == 64 else '32'}-bit word: {load[0]} x{load[1]} "
           f"in the final AMDGCN, not in Triton's IR"
           + (" (a uniform address: through scalar memory, unless a store before it may "
              "write the word)" if uniform else ""))
    return replace(pred, loop_load=load, note="; ".join(x for x in (pred.note, why) if x))


def _atomic(op: GlobalOp, target: Target, elems: int, vec: int, bits: int, contig: int,
            malign: int | None, buffer: bool) -> GlobalPrediction:
    """``tt.atomic_rmw``/``tt.atomic_cas`` (``AtomicRMWOpConversion``/
    ``AtomicCASOpConversion``): on NVIDIA ``vec`` elements per instruction only for ``fadd``
    of f16/bf16/f32 on sm_90+ (``supportsVectorized``), else one element — two packed for
    ``f16`` (``f16x2``); ``red`` when the result is unused, the order ``relaxed``/``release``
    and the kind not ``exch``, else ``atom``; a bf16 ``fadd`` below sm_90 is an LLVM
    ``atomicrmw`` that LLVM expands into a 32-bit compare-and-swap loop. CAS: one element
    each. On AMD one element per instruction, named by :func:`amd_atomic_name` (buffer
    atomics by :func:`amd_buffer_atomic_name`), except 16-bit float adds
    (:func:`_amd_half_add`)."""
    kind, sem, scope = atomic_fields(op)
    element_type = op.element_type
    if (not target.is_nvidia and kind == "fadd" and element_type in ("f16", "bf16")
            and op.short in ("atomic_rmw", "buffer_atomic_rmw")):
        return _with_loop_load(
            _amd_half_add(op, elems, vec, bits, contig, malign, buffer, scope), kind, buffer,
            op)
    per, packed, note = vec, 1, ""
    if op.short in ("atomic_cas", "buffer_atomic_cas"):
        per = 1
    elif not (target.is_nvidia and target.cc >= 90 and kind == "fadd"
              and element_type in ("f16", "bf16", "f32")):
        packed = min(vec, 2) if element_type == "f16" and target.is_nvidia else 1
        per = packed
    if target.is_nvidia:
        red = (not op.result_used and kind not in ("exch", "cas")
               and sem in ("relaxed", "release"))
        if kind == "fadd" and element_type == "bf16" and target.cc < 90:
            name = "atom.relaxed.gpu.global.cas.b32"
            note = "bf16 add below sm_90: LLVM's compare-and-swap loop (its static count)"
        elif kind in _NV_RMW or kind in ("fadd", "cas"):
            name = nvidia_atomic_name(kind, sem, scope, element_type, bits,
                                      per if packed == 1 else 1, packed, red)
        else:
            name = "red.global" if red else "atom.global"
            note = f"atomic kind {kind!r} named by family"
    else:
        exact = amd_buffer_atomic_name(kind, element_type, bits) if buffer else \
            amd_atomic_name(kind, scope, element_type, bits)
        name = exact or "global_atomic"
        if exact is None or exact == "buffer_atomic":
            note = "named by family (LLVM's expansion of this atomic is not modelled)"
        elif exact.startswith("global_atomic_cmpswap") and (kind != "cas" or bits < 32):
            note = ("a compare-and-swap loop LLVM expands a system-scope atomic into"
                    if bits >= 32 else f"a compare-and-swap loop on the containing 32-bit word "
                    f"LLVM expands a {bits}-bit atomic into")
    pred = GlobalPrediction("atomic", name, max(1, elems // per), per, bits, per * bits // 8,
                            contig, malign, note)
    return pred if target.is_nvidia else _with_loop_load(pred, kind, buffer, op)


def _amd_half_add(op: GlobalOp, elems: int, vec: int, bits: int, contig: int,
                  malign: int | None, buffer: bool, scope: str) -> GlobalPrediction:
    """An f16/bf16 ``fadd`` on gfx942/gfx950 (CDNA3/CDNA4), from the AMD backend's
    ``AtomicRMWOpConversion`` (``third_party/amd/lib/TritonAMDGPUToLLVM/
    LoadStoreOpToLLVM.cpp``) and ``AtomicRMWEmitter::emitPairedAtomicForEvenTID``
    (``AtomicRMWOpsEmitter.cpp``), Triton 3.9:

    * a tensor whose vector (``getVectorSize``: contiguity and alignment, cut by the mask's
      alignment) is 2 or more: ``vec = min(vec, 2)``, one ``<2 x T>`` atomic per two
      elements (``global_atomic_pk_add_f16``/``_bf16``);
    * vector 1 (``applyPackingF16``: CDNA, a 16-bit float add, ``vec == 1``): per element the
      even lane takes its odd neighbour's value by DPP and branches at run time — a packed
      atomic when its address is 4-byte aligned, the neighbour's is the next element and both
      lanes are active, else two scalar atomics (its own element and the neighbour's). The
      three are static in the code whatever the layout or whether the result is used: one
      packed plus two scalar per element and thread (the scalar ones LLVM's 32-bit
      compare-and-swap loops, ``global_atomic_cmpswap``);
    * a scalar pointer: one scalar atomic (a compare-and-swap loop);
    * a buffer atomic (``BufferAtomicRMWOpConversion``): ``vec = 2`` (cut by the mask's
      alignment), ``buffer_atomic_pk_add_f16``/``_bf16`` (:func:`amd_buffer_atomic_name`).

    At system scope LLVM expands the packed add too (``global_atomic_cmpswap``)."""
    if op.pointer_type is None or op.pointer_type.kind != "tensor":
        return GlobalPrediction("atomic", "global_atomic_cmpswap", 1, 1, bits, bits // 8,
                                contig, malign, "a 16-bit float add: LLVM's compare-and-swap "
                                "loop")
    if buffer:
        per = 2 if malign is None or malign >= 2 else 1
        return GlobalPrediction("atomic", amd_buffer_atomic_name("fadd", op.element_type, bits),
                                max(1, elems // per), per, bits, per * bits // 8, contig,
                                malign)
    if vec >= 2:
        name = amd_atomic_name("fadd", scope, op.element_type, bits, packed=True)
        return GlobalPrediction("atomic", name or "global_atomic", max(1, elems // 2), 2, bits,
                                bits // 4, contig, malign,
                                "" if scope != "sys" else "a compare-and-swap loop LLVM "
                                "expands a system-scope packed add into")
    name = amd_atomic_name("fadd", scope, op.element_type, bits, packed=True)
    return GlobalPrediction(
        "atomic", name or "global_atomic", elems, 1, bits, bits // 8, contig, malign,
        "a 16-bit float add with vector 1: per element the even lane of each pair issues a "
        "packed add at run time when the pair is adjacent, aligned and active, else two "
        "scalar atomics (compare-and-swap loops); all three are in the code",
        fallbacks=(("global_atomic_cmpswap", 2 * elems),))
