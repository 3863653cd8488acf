"""The butterfly shuffles Triton 3.9 emits for a ``tt.reduce`` (``ReduceOpToLLVM.cpp``,
``reduceWithinWarps`` and ``warpReduce``; ``TargetInfo::shuffleXor``/``warpReduce`` of each
backend).

Each in-warp round combines, for every accumulator a thread holds (its registers after the
in-thread step: one per distinct position off the axis), the lanes along the axis: one
``shuffleXor`` per lane bit along the axis and operand, by that lane bit. The first round
runs on the operand's layout; each cross-warp round (:mod:`..shared_memory.reduce`: the
partial results moved to ``getInterLayout``) runs another on the lanes that received the
warp bits. Per shuffle, by target:

* NVIDIA: ``shfl.sync.bfly.b32`` (two for a 64-bit value). A full-warp (32-lane) reduction of
  32-bit-or-narrower integers can use ``redux.sync`` instead (``matchReduxKind``, sm_80+),
  which depends on the combine region: such rounds are not counted (the note says so);
* AMD: by lane mask, as :func:`linlayout.lowering.convert` (DPP for 1, 2, 4 (two) and 8,
  ``ds_bpermute_b32`` for 16 and 32, ``v_permlane16/32_swap_b32`` on gfx950); a reduction
  over all 64 lanes of one operand is ``warpReduce``'s DPP sequence: six ``v_mov_b32_dpp``
  per accumulator (checked on compiled kernels, ``papers/triton_lowering/shuffle_probes.py``).
"""

from __future__ import annotations

from ... import f2
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.convert import amd_xor
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ..shared_memory.reduce import inter_layout, reduced_layout
from ._args import bits_tuple, checked

__all__ = ["reduce_rounds", "reduce_shuffles"]


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


def reduce_rounds(operand: LinearLayout, axis: int) -> list[tuple[int, list[int]]]:
    """``(accumulators, lane masks)`` of every in-warp round of a reduction of ``operand``
    along ``axis``, in order.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    k = _axis(operand, axis)
    rounds = [(_accumulators(operand, k), _lane_masks(operand, k))]
    layout = reduced_layout(operand, axis)
    n = 0
    while layout.out_dims[f"dim{axis}"] != 1 and n < 3:
        tmp = inter_layout(layout, axis)
        rounds.append((_accumulators(tmp, k), _lane_masks(tmp, k)))
        bases = {d: [list(b) for b in imgs] for d, imgs in tmp.bases.items()}
        layout = reduced_layout(LinearLayout(bases, dict(tmp.out_dims)), axis)
        n += 1
    return rounds


def reduce_shuffles(operand: LinearLayout, axis: int, operand_bits: tuple[int, ...],
                    target: Target, integer: bool = False) -> tuple[tuple[Emitted, ...], str]:
    """The lane-exchange instructions per thread of a ``tt.reduce`` and a note.

    Args:
        operand: the operand's distributed layout.
        axis: the reduced dim.
        operand_bits: each operand's moved bits.
        target: the compilation target.
        integer: the operands are integers (NVIDIA may use ``redux.sync`` on a full warp).

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``.
    """
    axis = checked(operand, axis, target)
    operand_bits = bits_tuple(operand_bits)
    lanes = target.threads_per_warp
    out: dict[str, int] = {}
    notes = []
    for accs, masks in reduce_rounds(operand, axis):
        if not masks:
            continue
        full = len(masks) == lanes.bit_length() - 1
        for bits in operand_bits:
            halves = 2 if bits == 64 else 1
            if target.is_nvidia:
                if full and integer and bits <= 32 and target.cc >= 80:
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
    ems = tuple(Emitted("shuffle", op, n, None, 32, 0, "") for op, n in out.items() if n)
    return ems, "; ".join(dict.fromkeys(notes))
