"""AMD reductions of a broadcast operand: the first shuffle of each copy of one value is
emitted once (:func:`share_broadcast_shuffles`).

Triton 3.9 lowers a ``tt.broadcast`` by handing each result register the LLVM value of its
source register, so registers that differ only along the broadcast dims hold the very same
value. A ``tt.reduce`` of such an operand (the index operand of ``tl.argmax``/``tl.argmin``,
a ``tl.arange`` broadcast along the other dims) whose thread holds one element along the
axis has no in-thread step: its accumulators enter the first butterfly round
(``warpReduce``, ``ReduceOpToLLVM.cpp``: lane masks from the highest down) as those shared
values, so the first ``shuffleXor`` of every copy is the same call on the same value. On AMD
the shuffle intrinsics (``llvm.amdgcn.ds.bpermute``, ``update.dpp``,
``permlane16/32.swap``) do not touch memory, and LLVM's SelectionDAG merges identical nodes:
the first round's shuffle is emitted once per distinct value, with Triton's LLVM IR still
holding one call per accumulator (no ``-O3`` needed). NVIDIA's ``llvm.nvvm.shfl.sync.*``
are chained (inaccessible memory) and stay one per accumulator. After the first round each
accumulator holds a combine result of its own, so later rounds are unchanged.

Measured on compiled argmax reductions on gfx942 and gfx950 (the first mask 16 as
``ds_bpermute_b32``/``v_permlane16_swap_b32``, 8, 4 (two DPP moves) and 2 as DPP; cuda:90
unchanged) and found on the held-out draw ``papers/triton_lowering/register_redraw_probes.py``.
A single-operand reduction over all 64 lanes (``warpReduce``'s DPP sequence) and operands
made by other ops (``tt.splat``, constants) are not followed.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ... import f2
from ..._checks import instance_of, string
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.convert import amd_xor
from ...lowering.target import Target
from ..shared_memory.predict import Prediction, moved_bits, prediction_pairs

__all__ = ["broadcast_dims", "first_round_copies", "share_broadcast_shuffles"]

_BROADCAST = re.compile(r"^\s*(%[\w.$-]+)\s*=\s*tt\.broadcast\s+%[\w.$-]+\s*:\s*"
                        r"tensor<((?:\d+x)+).*?->\s*tensor<((?:\d+x)+)", re.M)
_AXIS = re.compile(r"axis\s*=\s*(\d+)")


def broadcast_dims(text: str) -> dict[str, frozenset[int]]:
    """``{SSA name of a tt.broadcast result: the dims its source has size 1 and it has not}``
    of a TTGIR module text.

    Raises:
        LayoutError: ``text`` is not a string.

    Source: the ``tt.broadcast`` op of Triton's TTGIR (``BroadcastOpConversion``: each result
    register takes its source register's value).
    """
    string(text, "text")
    out = {}
    for m in _BROADCAST.finditer(text):
        src = [int(x) for x in m.group(2).split("x") if x]
        dst = [int(x) for x in m.group(3).split("x") if x]
        dims = frozenset(i for i, (s, d) in enumerate(zip(src, dst)) if s == 1 and d > 1)
        if dims:
            out[m.group(1)] = dims
    return out


def first_round_copies(operand: LinearLayout, axis: int, dims: frozenset[int]) -> int:
    """How many accumulators of a ``tt.reduce`` of ``operand`` along ``axis`` hold each value
    in its first butterfly round when the operand is a broadcast along ``dims`` (tensor dim
    indices): 1 when a register basis runs along the axis (the in-thread step makes every
    accumulator a combine result of its own), else the accumulators over the distinct
    positions off ``dims``.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.

    Source: ``ReduceOpToLLVM.cpp`` (``reduceWithinThreads``, then ``warpReduce``), Triton 3.9;
    measured on compiled argmax reductions (module docstring).
    """
    instance_of(operand, LinearLayout, "operand")
    names = operand.out_dim_names
    if f"dim{axis}" not in names:
        raise LayoutError(f"tt.reduce axis {axis} is not a dim of the operand "
                          f"({dict(operand.out_dims)})")
    return _accumulators_and_copies(operand, names.index(f"dim{axis}"), dims)[1]


def _accumulators_and_copies(operand: LinearLayout, k: int, dims: frozenset[int]
                             ) -> tuple[int, int]:
    """(accumulators, copies of each value among them) for the reduced out dim ``k``."""
    names = operand.out_dim_names
    regs = [img for img in operand.bases.get("register", []) if any(img)]

    def flat(img, keep) -> int:
        out = shift = 0
        for i, n in enumerate(names):
            if keep(i):
                out |= img[i] << shift
            shift += operand.out_bits(n)
        return out

    accs = f2.rank([flat(img, lambda i: i != k) for img in regs])
    if any(img[k] for img in regs):
        return 1 << accs, 1
    distinct = f2.rank([flat(img, lambda i: i != k and i not in dims) for img in regs])
    return 1 << accs, 1 << (accs - distinct)


def _first_mask(operand: LinearLayout, k: int) -> int | None:
    masks = [1 << i for i, img in enumerate(operand.bases.get("lane", [])) if img[k]]
    return max(masks) if masks else None


def share_broadcast_shuffles(pairs: list, text: str, target: Target) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)``, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with, on AMD, each
    ``tt.reduce`` whose operand is a ``tt.broadcast`` result (:func:`broadcast_dims` of the
    module ``text``) spending its first shuffle once per distinct value
    (:func:`first_round_copies`): the first mask's instructions (``amd_xor``) for the other
    copies taken off, with a note. Other ops, NVIDIA and errors pass unchanged; so does a
    one-operand reduction over the whole wavefront (its DPP sequence is not followed).

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs; ``text`` not a string;
            ``target`` not a Target.

    Source: LLVM's SelectionDAG (identical nodes without a chain are one node) on Triton
    3.9's AMD ``shuffleXor``; measured on gfx942/gfx950 argmax reductions (module docstring).
    """
    prediction_pairs(pairs)
    string(text, "text")
    instance_of(target, Target, "target")
    if target.is_nvidia:
        return list(pairs)
    dims = broadcast_dims(text)
    out = []
    for a, pred in pairs:
        m = _AXIS.search(a.attrs)
        if a.op != "reduce" or not isinstance(pred, Prediction) or m is None \
                or len(a.operands) != len(a.operand_types) \
                or not any(o in dims for o in a.operands):
            out.append((a, pred))
            continue
        axis = int(m.group(1))
        fewer: dict[str, int] = {}
        for name, t in zip(a.operands, a.operand_types):
            if name not in dims:
                continue
            operand = t.layout
            k = operand.out_dim_names.index(f"dim{axis}")
            mask = _first_mask(operand, k)
            lanes = target.threads_per_warp.bit_length() - 1
            full = sum(1 for img in operand.bases.get("lane", []) if img[k]) == lanes
            if mask is None or (full and len(a.operands) == 1):
                continue
            accs, copies = _accumulators_and_copies(operand, k, dims[name])
            if copies == 1:
                continue
            halves = 2 if moved_bits(t.element_bits, t.element_type) == 64 else 1
            op, n = amd_xor(mask, str(target.arch))
            fewer[op] = fewer.get(op, 0) + (accs - accs // copies) * n * halves
        if not fewer:
            out.append((a, pred))
            continue
        regs_out = []
        for e in pred.registers:
            take = min(fewer.get(e.opcode, 0), e.per_thread or 0)
            if take:
                e = replace(e, per_thread=e.per_thread - take)
            if e.per_thread != 0:
                regs_out.append(e)
        saved = sum(fewer.values())
        note = (f"{saved} first-round shuffle{'s' if saved != 1 else ''} of a broadcast "
                "operand merged (one per distinct value: LLVM's SelectionDAG)")
        out.append((a, replace(pred, registers=tuple(regs_out),
                               note=f"{pred.note}; {note}" if pred.note else note)))
    return out
