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
"""

from __future__ import annotations

from ...layout import LinearLayout
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ..shared_memory.scan import scan_shape
from ._args import bits_tuple, checked

__all__ = ["scan_shuffles"]


def scan_shuffles(operand: LinearLayout, axis: int, operand_bits: tuple[int, ...],
                  target: Target) -> tuple[tuple[Emitted, ...], str]:
    """The shuffles per thread of a ``tt.scan`` of ``operand`` along ``axis`` and a note.

    Raises:
        LayoutError: ``axis`` is not a dim of ``operand``; an argument of the wrong type.
    """
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
