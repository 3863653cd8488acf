"""The shuffles of a warp-local ``tt.gather`` (``GatherOpToLLVM.cpp``,
``emitWarpLocalGather``; the test is ``GatherLoweringHelper::isWarpLocal`` of
``lib/Analysis/Utility.cpp``).

A gather is warp-local when neither the source's nor the index's warps (and CTAs) move along
the gather axis, both place warps identically off the axis and both place lanes identically
off the axis. Then no shared memory is used: for every index register a thread holds, Triton
shuffles each of the ``K`` source registers of that gather column from the lane that holds
the wanted element (``shuffleIdx``) and selects the right one — ``K`` indexed shuffles and
``K`` selects, the first of which (against ``undef``) LLVM folds away. The selects pick
values of the element type (the shuffle's result is truncated back first), so NVPTX selects
8- and 16-bit elements with ``selp.b16`` (its narrowest register), 32-bit ones with
``selp.b32`` and 64-bit ones with ``selp.b64`` (Triton's LLVM IR before ``-O3``). After
``-O3`` some 16-bit selects become ``selp.b32`` (InstCombine selecting the 32-bit shuffle
results before the truncation, the SLP vectoriser pairing two of them into a ``<2 x i16>``
select): ``docs/triton-lowering.md``, "LLVM re-spelling". ``K`` is the number of
source registers along the gather axis. On AMD, when no lane of the source spans the axis,
every shuffle reads the thread's own lane and LLVM removes the ``ds_bpermute_b32``; on NVIDIA
a 64-bit select may become predicated moves (the probes of
``papers/triton_lowering/shuffle_probes.py`` compare the shuffles).
"""

from __future__ import annotations

from ...layout import LinearLayout
from ...lowering.emitted import Emitted
from ...lowering.target import Target
from ..._checks import instance_of
from ._args import bits_tuple, checked

__all__ = ["gather_leaves_words", "gather_shuffles", "is_warp_local"]


def _part(layout: LinearLayout, dims: tuple[str, ...], outs: list[int]) -> list[tuple]:
    return [tuple(img[k] for k in outs) for d in dims for img in layout.bases.get(d, [])]


def is_warp_local(src: LinearLayout, idx: LinearLayout, axis: int) -> bool:
    """Triton's ``isWarpLocal`` for a gather of ``src`` by ``idx`` along ``axis``.

    Raises:
        LayoutError: ``src`` or ``idx`` not a LinearLayout, ``axis`` not a dim of ``src``.
    """
    instance_of(idx, LinearLayout, "idx")
    axis = checked(src, axis, Target("cuda", 90), "src")
    names = src.out_dim_names
    key = f"dim{axis}"
    if key not in names or idx.out_dim_names != names:
        return False
    k = names.index(key)
    others = [i for i in range(len(names)) if i != k]
    for lay in (src, idx):
        if any(img[k] for d in ("block", "warp") for img in lay.bases.get(d, [])):
            return False
    if _part(src, ("block", "warp"), others) != _part(idx, ("block", "warp"), others):
        return False
    return _part(src, ("lane",), others) == _part(idx, ("lane",), others)


def _registers_along(src: LinearLayout, k: int) -> int:
    return sum(1 for img in src.bases.get("register", [])
               if img[k] and not any(v for i, v in enumerate(img) if i != k))


def gather_leaves_words(src: LinearLayout, idx: LinearLayout, axis: int, element_bits: int,
                        target: Target) -> bool:
    """Whether a gather leaves each 8- or 16-bit result in a 32-bit register whose upper bits
    are unknown (the convert that packs the results then pays for it:
    :func:`linlayout.lowering.convert_path`, ``wide_source``).

    Triton shuffles 32 bits (``shuffleIdx`` widens the element first) and truncates the
    result. On NVIDIA a gather with one source register per column keeps that truncation as
    its result (no select), which NVPTX leaves in the 32-bit register; with several, the
    result is a ``selp.b16`` in a 16-bit register. On AMD, with a lane along the axis, every
    result is a ``ds_bpermute_b32`` result or a 32-bit ``v_cndmask_b32`` of two (AMDGPU has no
    16-bit select); with none, the shuffles fold away and the results are the source's own
    registers. A gather through shared memory reloads its results at their width: False.

    Raises:
        LayoutError: an argument of the wrong type; ``axis`` not a dim of ``src``.

    Source: ``emitWarpLocalGather`` (``lib/Conversion/TritonGPUToLLVM/GatherOpToLLVM.cpp``)
    and ``TargetInfo::shuffleIdx`` of each backend, Triton 3.9; measured on compiled gathers
    feeding converts (``papers/triton_lowering/producer_probes.py``).
    """
    axis = checked(src, axis, target, "src")
    (element_bits,) = bits_tuple((element_bits,))
    if element_bits not in (8, 16) or not is_warp_local(src, idx, axis):
        return False
    k = src.out_dim_names.index(f"dim{axis}")
    if target.is_nvidia:
        return _registers_along(src, k) == 0
    return any(img[k] for img in src.bases.get("lane", []))


def _nvidia_select(element_bits: int) -> str:
    return f"selp.b{max(16, element_bits)}"


def gather_shuffles(src: LinearLayout, idx: LinearLayout, axis: int, element_bits: int,
                    target: Target) -> tuple[Emitted, ...] | None:
    """The register instructions per thread of a warp-local gather, or None when the gather
    is not warp-local (it goes through shared memory).

    Raises:
        LayoutError: an argument of the wrong type; ``axis`` not a dim of ``src``.
    """
    axis = checked(src, axis, target, "src")
    (element_bits,) = bits_tuple((element_bits,))
    if not is_warp_local(src, idx, axis):
        return None
    k = src.out_dim_names.index(f"dim{axis}")
    per_column = 1 << _registers_along(src, k)
    idx_regs = 1 << len(idx.bases.get("register", []))
    halves = 2 if element_bits == 64 else 1
    shuffles = idx_regs * per_column * halves
    selects = idx_regs * (per_column - 1)
    if target.is_nvidia:
        ems = [Emitted("shuffle", "shfl.sync.idx.b32", shuffles, None, 32, 0, "")]
        if selects:
            ems.append(Emitted("select", _nvidia_select(element_bits), selects, None,
                               element_bits, 0, ""))
    else:
        # with no lane along the axis every shuffle reads the thread's own lane: LLVM folds
        # an ds_bpermute_b32 from the own lane away (NVPTX keeps the shfl.sync)
        along = any(img[k] for img in src.bases.get("lane", []))
        ems = [Emitted("shuffle", "ds_bpermute_b32", shuffles, None, 32, 0, "")] if along \
            else []
        if selects:
            ems.append(Emitted("select", "v_cndmask_b32", selects * halves, None, 32, 0, ""))
    return tuple(ems)
