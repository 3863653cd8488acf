"""The byte permutes of an AMD reduction's scalar byte totals, counted on the reduction's line
(:func:`move_scalar_byte_permutes`).

A ``tt.reduce`` of one 8-bit operand whose last round covers the whole wavefront ends, in
Triton 3.9's ``TargetInfo::warpReduce`` (AMD), by reading each total out of lane 63 with
``v_readlane_b32`` into a scalar register
(:func:`~.reduce.reduce_leaves_scalar_bytes`). The ``convert_layout`` that stores these
totals to shared memory (or shuffles them) builds each stored (or shuffled) vector of bytes
from them, and AMDGPU's instruction selection joins scalar bytes with ``v_perm_b32``: one
per 2-byte ``ds_write_b16`` word, and per 32-bit word as for any byte held one to a register
(:func:`linlayout.lowering.amd_pack.pack_permutes`), where bytes in vector registers would
be joined with shifts and ors. Triton emits that vector build at the convert's location,
but LLVM's ``-O3`` middle end (InstCombine) rebuilds it as one vector of the 16-bit values
read out, truncated to bytes, at the reduction's location; so the final assembly (what
runs) has the permutes on the reduction's line. ``check`` counts them there, with the
instructions the convert's own line keeps. This models AMDGPU instruction selection and
LLVM's InstCombine, not Triton: Triton's lowering (its LLVM IR with ``-O3`` skipped) has as
many permutes, on the convert's line. Measured on held-out compiled kernels
(``papers/triton_lowering/scalar_byte_probes.py``, gfx942/gfx950).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..._checks import instance_of, sequence_of
from ...errors import LayoutError
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ...triton.ttgir import Access
from ..shared_memory.predict import Prediction, prediction_pairs, triton_emitted
from .reduce import reduce_leaves_scalar_bytes

__all__ = ["move_scalar_byte_permutes", "scalar_byte_reductions"]

_AXIS = re.compile(r"axis\s*=\s*(\d+)")
_PERMUTE = "v_perm_b32"
#: the opcodes that make a convert a shuffle one (with DPP, ``*_dpp``)
_LANE_EXCHANGES = ("ds_bpermute", "ds_swizzle", "v_permlane")


def scalar_byte_reductions(accesses: list[Access], target: Target) -> dict[str, int]:
    """``{SSA name: line}``: the results of one-operand 8-bit AMD ``tt.reduce`` ops that
    leave each total in a scalar register (:func:`~.reduce.reduce_leaves_scalar_bytes`),
    with the reduce's line. Empty on NVIDIA. An op whose layouts fail is left out (it is
    reported as not analysed).

    Raises:
        LayoutError: ``accesses`` not Access records or ``target`` not a Target.
    """
    accesses = sequence_of(accesses, Access, "accesses")
    instance_of(target, Target, "target")
    out: dict[str, int] = {}
    if target.is_nvidia:
        return out
    for a in accesses:
        if a.op != "reduce" or not a.result or ":" in a.result or a.distributed is None \
                or a.element_bits != 8 or len(a.operand_types) != 1:
            continue
        m = _AXIS.search(a.attrs)
        if m is None:
            continue
        result = a.destination.layout if a.destination is not None and \
            a.destination.kind == "tensor" else None
        try:
            if reduce_leaves_scalar_bytes(a.distributed.layout, result, int(m.group(1)),
                                          a.element_bits, target):
                out[a.result] = a.line
        except LayoutError:
            continue
    return out


def move_scalar_byte_permutes(pairs: list, target: Target) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)`` in file order, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with the byte
    permutes of every convert of a reduction's scalar byte totals
    (:func:`scalar_byte_reductions`) that moves data (through shared memory or by warp
    shuffles) counted on the reduction instead: one ``v_perm_b32`` per ``ds_write_b16`` of
    two bytes, plus the ``v_perm_b32`` the convert's packing of 32-bit words (stored, or
    shuffled) counts, taken off the convert and added to the reduce, each with a note.
    Errors, other ops, converts that only rename registers (not measured), NVIDIA, and
    converts whose reduce was not predicted pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of (Access, Prediction or LayoutError)
            pairs; ``target`` is not a Target.

    Source: AMDGPU instruction selection of Triton 3.9's vector build of a convert's stored
    bytes (``ConvertLayoutOpToLLVM.cpp``) and LLVM's InstCombine; measured on compiled
    gfx942/gfx950 kernels (``papers/triton_lowering/scalar_byte_probes.py``).
    """
    prediction_pairs(pairs)
    instance_of(target, Target, "target")
    reductions = scalar_byte_reductions([a for a, _ in pairs], target)
    if not reductions:
        return list(pairs)
    out = list(pairs)
    where = {a.line: i for i, (a, p) in enumerate(out)
             if a.op == "reduce" and isinstance(p, Prediction)}
    for i, (a, pred) in enumerate(out):
        if a.kind != "convert" or not a.operands or a.operands[0] not in reductions \
                or not isinstance(pred, Prediction) or not (pred.uses_shared or any(
                    e.opcode.startswith(_LANE_EXCHANGES) or e.opcode.endswith("_dpp")
                    for e in pred.registers)):
            continue
        j = where.get(reductions[a.operands[0]])
        if j is None:
            continue
        pairs_stored = sum(e.per_thread or 0 for e in triton_emitted(pred.sides)
                           if e.opcode == "ds_write_b16"
                           and e.element_bits == 8 and e.vector_elems == 2)
        words = sum(e.per_thread or 0 for e in pred.registers if e.opcode == _PERMUTE)
        n = pairs_stored + words
        if not n:
            continue
        kept = tuple(e for e in pred.registers if e.opcode != _PERMUTE)
        out[i] = (a, replace(pred, registers=kept, note=_joined(
            pred.note, f"{n} {_PERMUTE} joining the reduction's scalar byte totals counted "
                       f"on its line {reductions[a.operands[0]]} (after -O3)")))
        r, rp = out[j]
        out[j] = (r, replace(rp, registers=_added(rp.registers, n), note=_joined(
            rp.note, f"{n} {_PERMUTE} joining its scalar byte totals for the convert on "
                     f"line {a.line} (AMDGPU selection; on this line after -O3)")))
    return out


def _added(registers: tuple[Emitted, ...], n: int) -> tuple[Emitted, ...]:
    for k, e in enumerate(registers):
        if e.opcode == _PERMUTE:
            return registers[:k] + (replace(e, per_thread=(e.per_thread or 0) + n),) + \
                registers[k + 1:]
    return registers + (Emitted("permute", _PERMUTE, n, None, 32, 0, ""),)


def _joined(note: str, more: str) -> str:
    return f"{note}; {more}" if note else more
