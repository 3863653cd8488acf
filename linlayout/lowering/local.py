"""Triton 3.9.0's lowering of ``local_alloc``/``local_store``/``local_load`` and async copies.

NVIDIA (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/MemoryOpToLLVM.cpp``:
``LocalAllocOpConversion``, ``LocalStoreOpConversion``, ``LocalLoadOpConversion``): stores try
``stmatrix`` (sm_90+, non-transposed then ``.trans``), loads try ``ldmatrix`` (sm_75+), each
only when the access fits the matrix tile (:func:`~.vectorise.matrix_tile`); otherwise the
generic ``lowerLocalLdSt`` path emits ``ld/st.shared`` at
:func:`~.vectorise.largest_vectorisation`. The choice depends on the layouts only, not on the
kind of register layout (a ``blocked`` layout that fits the tile uses ``ldmatrix`` too).

AMD (``third_party/amd/lib/TritonAMDGPUToLLVM/MemoryOpToLLVM.cpp``): loads use
``ds_read_b64_tr_b16``/``_b8`` on CDNA4 when the access fits
(:func:`~.vectorise.transposed_read_tile`), everything else the generic path.

Async copies (``LoadStoreOpToLLVM.cpp``, ``AsyncCopyGlobalToLocalOpConversion`` on both
backends, ``BufferLoadToLocalOpConversion`` on AMD): the vector is capped by the op's
``contiguity`` attribute (without it: by the register layout, or 1 when a mask of unknown
alignment is applied) and registers may not be permuted; ``cp.async.cg`` for
16 bytes, ``cp.async.ca`` for 4/8; AMD direct-to-LDS moves 4 bytes per lane (16 on CDNA4) and
writes the ``other`` value of masked lanes with a plain LDS store.
"""

from __future__ import annotations

from .._checks import as_int, instance_of
from ..errors import LayoutError
from ..hardware.lds import is_lds_instruction
from .emitted import Emitted
from .names import amd_lds, cp_async, matrix_name, nvidia_ld_st
from .target import Target
from .vectorise import AccessMap, largest_vectorisation, matrix_tile, transposed_read_tile

__all__ = ["ld_st", "predict_async_copy", "predict_local"]


def ld_st(side: str, m: AccessMap, target: Target, vector_elems: int) -> Emitted:
    """The plain vectorised access of ``vector_elems`` elements per lane, per thread
    ``R / vector_elems`` times."""
    bits = max(8, m.element_bits)
    nbytes = vector_elems * bits // 8
    opcode = nvidia_ld_st(side, vector_elems, bits) if target.is_nvidia else amd_lds(side, nbytes)
    return Emitted(side, opcode, max(1, m.registers_per_thread // vector_elems), vector_elems,
                   bits, nbytes, amd_counter(opcode, target))


def amd_counter(opcode: str, target: Target) -> str | None:
    """The counter's instruction for an AMD opcode: the mnemonic itself when
    :mod:`linlayout.hardware.lds` models it (its own lane grouping per phase: e.g.
    ``ds_write_b128`` on CDNA3, the transposed reads' addressed layout, the direct-to-LDS lane
    order), else None (a plain vector on the target's preset)."""
    if target.is_nvidia:
        return None
    return opcode if is_lds_instruction(opcode) else None


def matrix(side: str, m: AccessMap, n: int, trans: bool) -> Emitted:
    """``ldmatrix``/``stmatrix`` ``.x{n}``: one per ``4·n`` bytes of a thread's registers."""
    bits = m.element_bits
    per = max(1, m.registers_per_thread * bits // (32 * n))
    counter = f"{'ld' if side == 'load' else 'st'}matrix.x{n}{'.trans' if trans else ''}"
    return Emitted(side, matrix_name(side, n, trans), per, 128 // bits, bits, 4 * n, counter)


def predict_local(side: str, m: AccessMap, target: Target) -> Emitted:
    """The instruction a ``local_store``/``local_alloc`` (``side="store"``) or ``local_load``
    (``"load"``) lowers to, with its per-thread count.

    Raises:
        LayoutError: an element width the backend cannot move; ``m`` not an
            :class:`~.vectorise.AccessMap` or ``target`` not a :class:`~.target.Target`.

    Source: Triton 3.9's ``lowerLocalLdSt`` and the matrix and AMD paths (module docstring:
    ``MemoryOpToLLVM.cpp`` of each backend).
    """
    instance_of(m, AccessMap, "m")
    instance_of(target, Target, "target")
    if target.is_nvidia and m.element_bits <= 32:
        if (side == "load" and target.cc >= 75) or (side == "store" and target.cc >= 90):
            for trans in (False, True):
                n = matrix_tile(m, trans, b8_trans=target.cc >= 100)
                if n is not None:
                    return matrix(side, m, n, trans)
    if not target.is_nvidia and side == "load" and target.has_ds_read_tr \
            and transposed_read_tile(m):
        bits = m.element_bits
        name = f"ds_read_b64_tr_b{bits}"
        return Emitted(side, name, m.registers_per_thread * bits // 64, 64 // bits, bits, 8,
                       amd_counter(name, target) or "")
    return ld_st(side, m, target, largest_vectorisation(m))


def predict_padded_local(side: str, m: AccessMap, target: Target,
                         min_interval_elems: int) -> Emitted:
    """``local_store``/``local_load`` of a ``padded_shared`` buffer: no ldmatrix/stmatrix
    (Triton lowers padded buffers with plain vectors), the vector capped at the smallest
    padding interval; on gfx950 a transposed read when its 64-bit tile fits in an interval.

    Source: ``lowerLocalLdSt`` (``maybeMaxVecElems = getMinInterval()``) and the AMD
    ``ds_read_tr`` lowering (``elemsPerVec = min(elemsPerVec, minInterval)``), Triton 3.9.

    Raises:
        LayoutError: an argument of the wrong type.
    """
    instance_of(m, AccessMap, "m")
    instance_of(target, Target, "target")
    min_interval_elems = as_int(min_interval_elems, "min_interval_elems")
    if not target.is_nvidia and side == "load" and target.has_ds_read_tr \
            and transposed_read_tile(m) and min_interval_elems * m.element_bits >= 64:
        bits = m.element_bits
        name = f"ds_read_b64_tr_b{bits}"
        return Emitted(side, name, m.registers_per_thread * bits // 64, 64 // bits, bits, 8,
                       amd_counter(name, target) or "")
    return ld_st(side, m, target, largest_vectorisation(m, max_vec=min_interval_elems))


def predict_async_copy(m: AccessMap, target: Target, contiguity: int | None,
                       has_other: bool, buffer_op: bool = False) -> list[Emitted]:
    """The instructions of ``ttg.async_copy_global_to_local`` (``buffer_op``:
    ``amdg.buffer_load_to_local``) into the access ``m``.

    Raises:
        LayoutError: a vector no asynchronous copy can move (under 4 bytes per lane); an
            argument of the wrong type.

    Source: Triton 3.9's ``AsyncCopyGlobalToLocalOpConversion`` (``LoadStoreOpToLLVM.cpp``
    of each backend; module docstring).
    """
    instance_of(m, AccessMap, "m")
    instance_of(target, Target, "target")
    if contiguity is not None:
        contiguity = as_int(contiguity, "contiguity")
    bits = max(8, m.element_bits)
    v = largest_vectorisation(m, max_vec=contiguity or None, permute=False)
    if target.is_nvidia:
        nbytes = v * bits // 8
        if nbytes < 4:
            raise LayoutError(f"cp.async needs 4, 8 or 16 bytes per lane; this copy moves "
                              f"{nbytes} (contiguity {contiguity or 1} × {bits} bits)")
        return [Emitted("store", cp_async(nbytes), m.registers_per_thread // v, v, bits,
                        nbytes, None)]
    widest = 16 if target.arch == "gfx950" else 4
    nbytes = min(v * bits // 8, widest)
    if nbytes >= 16:
        nbytes = 16
    elif nbytes >= 4:
        nbytes = 4
    else:
        raise LayoutError(f"direct-to-LDS copies need 4 bytes per lane (16 on gfx950); this "
                          f"copy moves {v * bits // 8}")
    v = nbytes * 8 // bits
    suffix = "dwordx4" if nbytes == 16 else "dword"
    name = f"buffer_load_{suffix} lds" if buffer_op else f"global_load_lds_{suffix}"
    out = [Emitted("store", name, m.registers_per_thread // v, v, bits, nbytes,
                   amd_counter(name, target) or "")]
    if has_other:
        out.append(ld_st("store", m, target, v))
    return out
