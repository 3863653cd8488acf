"""The shuffles Triton 3.9 emits for a ``tt.scan`` on NVIDIA (``ScanOpToLLVM.cpp``:
``warpScan`` and ``AddPartialReduceOneWarp``).

Each thread first scans its contiguous elements along the axis; then, for every chunk (the
last element of each run of contiguous elements, per position off the axis), ``warpScan``
runs a Hillis–Steele scan over the lanes along the axis: ``shfl.sync.up.b32`` once per lane
bit along the axis plus one (the PTX of the probes has ``log2(lanes) + 1`` per chunk). When
one warp holds the whole axis and a thread holds several chunks along it, every chunk then
reads the running total of the last lane of the previous chunk with one
``shfl.sync.idx.b32``; across warps the totals go through shared
memory instead (:mod:`..shared_memory.scan`). 64-bit values take two shuffles each. AMD
lowers the same shuffles to ``ds_bpermute_b32`` but LLVM removes a varying number of them:
not counted there. Checked on compiled kernels (``papers/triton_lowering/shuffle_probes.py``).
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
    if not lane_bits:
        return (), ""
    if not target.is_nvidia:
        return (), "its ds_bpermute_b32 shuffles are not counted on AMD"
    chunks = shape.chunks * shape.outputs
    up = idx = 0
    for bits in operand_bits:
        halves = 2 if bits == 64 else 1
        up += chunks * (lane_bits + 1) * halves
        if shape.warps == 1 and shape.chunks > 1:
            idx += chunks * halves
    ems = [Emitted("shuffle", "shfl.sync.up.b32", up, None, 32, 0, "")]
    if idx:
        ems.append(Emitted("shuffle", "shfl.sync.idx.b32", idx, None, 32, 0, ""))
    return tuple(ems), ""
