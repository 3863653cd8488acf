"""NVIDIA reductions whose result is only used truncated: the read-out loads narrowed
(:func:`narrow_truncated_readouts`).

``tl.sum``/``tl.max``/``tl.min`` of an ``i8``/``i16`` tile reduce at ``i32`` (Triton
promotes the operand with ``arith.extsi``) and the kernel truncates the result back
(``.to(tl.int8)``, or ``x - r[None, :]`` at ``i8``). When the reduction ends by moving its
totals to the result layout through shared memory (the ``"result"`` step of
:func:`.reduce.reduce_steps`: a store, a barrier, one scalar ``ld.shared.b32`` per result
register, Triton's ``load`` of ``i32``) and every use of the result is an ``arith.trunci`` to
``k`` bits (through ``tt.expand_dims``/``tt.broadcast``/``tt.reshape``, which move no data),
NVPTX's DAG combiner folds each ``trunc (load i32)`` into a load of the low ``k`` bits
(little-endian: the same address): ``ld.shared.b8``/``ld.shared.b16``. The same bytes of the
same words are read, so the wavefronts are the load's as counted. Triton's own lowering
already has it (instruction selection, no ``-O3``); a cross-warp round's reload, which
feeds the combine at full width, is not narrowed, nor is a vector read-out (not measured),
nor anything on AMD (whose read-outs stay ``ds_read_b32`` on the probes).

Written from 30 compiled ``i8``/``i16`` reductions over axis 0 with 2 to 8 warps (cuda:80,
cuda:90, gfx942; the 15 NVIDIA ones with a scalar read-out narrowed, the others unchanged)
and checked on 30 more of another seed, all equal; found on a held-out draw
(``papers/triton_lowering/register_redraw_probes.py --third``, seed 71333).
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..._checks import instance_of, string
from ...errors import LayoutError
from ...lowering.emitted import Emitted
from ...lowering.names import nvidia_ld_st
from ...lowering.target import Target
from ...triton.ttgir import Access
from .predict import Prediction, predict_convert, prediction_pairs
from .reduce import reduce_steps

__all__ = ["narrow_truncated_readouts", "truncated_use_bits"]

_PASS_THROUGH = ("tt.expand_dims", "tt.broadcast", "tt.reshape")
_DEF = re.compile(r'^\s*(%[\w$.-]+)(?::\d+)?\s*=\s*"?([\w.]+)')
_TRUNC_TO = re.compile(r"\bto\s+tensor<(?:\d+x)+i(\d+)\b")
_AXIS = re.compile(r"axis\s*=\s*(\d+)")


def truncated_use_bits(text: str, name: str) -> int | None:
    """The width every use of SSA value ``name`` in TTGIR text ``text`` truncates it to:
    following ``tt.expand_dims``/``tt.broadcast``/``tt.reshape`` results, every use ends in an
    ``arith.trunci`` to the same ``k``-bit integer tensor; else (another use, no use, two
    widths) None.

    Raises:
        LayoutError: ``text`` or ``name`` is not a string.

    Source: the TTGIR's def-use chains (SSA names, one op a line).
    """
    string(text, "text")
    string(name, "name")
    lines = text.splitlines()
    widths: set[int] = set()
    todo, seen = [name], set()
    while todo:
        cur = todo.pop()
        if cur in seen:
            continue
        seen.add(cur)
        use = re.compile(re.escape(cur) + r"(?![\w$.#-])")
        found = False
        for line in lines:
            m = _DEF.match(line)
            if m and m.group(1) == cur:
                continue
            if not use.search(line.split(" loc(")[0]):
                continue
            found = True
            if m is None:
                return None
            if m.group(2) in _PASS_THROUGH:
                todo.append(m.group(1))
            elif m.group(2) == "arith.trunci":
                t = _TRUNC_TO.search(line)
                if t is None:
                    return None
                widths.add(int(t.group(1)))
            else:
                return None
        if not found and cur == name:
            return None
    return widths.pop() if len(widths) == 1 else None


def narrow_truncated_readouts(pairs: list, text: str, target: Target) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)``, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with, on NVIDIA,
    each one-operand ``tt.reduce`` whose result every use truncates to ``k`` bits
    (:func:`truncated_use_bits` of the module ``text``) reading its result out of shared
    memory with ``k``-bit loads: the scalar ``ld.shared.b32`` of its final move to the result
    layout (the ``"result"`` step of :func:`.reduce.reduce_steps`, when it goes through
    shared memory) become ``ld.shared.b8``/``.b16`` (module docstring), with a note. Other
    ops, AMD and errors pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs; ``text`` not a string;
            ``target`` not a Target.

    Source: NVPTX's DAG combine of ``trunc (load)`` (LLVM's ``DAGCombiner::ReduceLoadWidth``)
    on Triton 3.9's reduce read-out (``ReduceOpToLLVM.cpp``); measured (module docstring).
    """
    prediction_pairs(pairs)
    string(text, "text")
    instance_of(target, Target, "target")
    if not target.is_nvidia:
        return list(pairs)
    out = []
    for a, pred in pairs:
        out.append((a, _narrowed(a, pred, text, target)))
    return out


def _narrowed(a: Access, pred, text: str, target: Target):
    m = _AXIS.search(a.attrs)
    if a.op != "reduce" or not isinstance(pred, Prediction) or m is None or not a.result \
            or ":" in a.result or len(a.operand_types) != 1 or a.distributed is None \
            or a.destination is None or a.destination.kind != "tensor" \
            or a.element_bits != 32:
        return pred
    bits = truncated_use_bits(text, a.result)
    if bits not in (8, 16):
        return pred
    try:
        steps = reduce_steps(a.distributed.layout, a.destination.layout, int(m.group(1)))
    except LayoutError:
        return pred
    if not steps or steps[-1][0] != "result":
        return pred
    last = predict_convert(steps[-1][1], steps[-1][2], 32, target)
    tail = tuple(last.sides)
    if not last.uses_shared or not tail or pred.sides[-len(tail):] != tail:
        return pred
    head = pred.sides[:-len(tail)]
    new, narrowed = [], 0
    for side in tail:
        e = side.emitted
        if e.side == "load" and e.vector_elems == 1 and e.element_bits == 32 \
                and e.opcode == nvidia_ld_st("load", 1, 32):
            e = Emitted("load", nvidia_ld_st("load", 1, bits), e.per_thread, 1, 32,
                        bits // 8, e.counter)
            narrowed += e.per_thread or 0
            side = replace(side, emitted=e)
        new.append(side)
    if not narrowed:
        return pred
    note = (f"the result is only used truncated to {bits} bits: its read-out loads are "
            f"ld.shared.b{bits} (NVPTX narrows each trunc of a loaded i32)")
    return replace(pred, sides=head + tuple(new), note=f"{pred.note}; {note}")
