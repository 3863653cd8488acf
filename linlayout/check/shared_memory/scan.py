"""``tt.scan`` across warps: Triton 3.9.0's shared-memory instructions and what LLVM leaves of
them in the PTX.

Triton (``ScanOpToLLVM.cpp``, ``scanAcrossWarps``): the last lane of each warp publishes its
warp's running total of every chunk and output with one predicated ``st.shared::cta.b<bits>``
per operand; after one barrier every thread reloads, chunk by chunk, the totals of all the
warps along the axis (``scanChunkTotals``) with scalar loads at the element width. The totals
of one chunk and output lie at consecutive scratch elements, warp by warp.

LLVM then changes the loads (not Triton's decision, modelled from the probes of
``papers/triton_lowering/scan_probes.py`` and the corpus):

* the reload of the last warp's total in the last chunk only feeds a total nobody uses: it
  is removed, once per output and operand;
* on NVIDIA, when every thread reloads the same addresses (no lane or warp holds another
  position off the scanned axis), NVPTX's load/store vectoriser merges the loads of one
  chunk and output (the ``W`` totals of the warps along the axis, at consecutive addresses,
  aligned to their size) into vector loads of at most 16 bytes; a run of ``r ≥ 2`` loads
  one short of a full vector (``r + 1`` a power of two, at most 16 bytes) is padded to it
  (``cumsum_1d``: 4 + 3 totals become two ``ld.shared.v4.b32``), a single load stays scalar,
  and loads of different chunks or outputs are never merged (a warp shuffle lies between
  them). When threads reload different addresses (totals of one position lie a whole
  number of positions apart) nothing is merged.

AMD's back end also drops the unused reloads (the same count), then pairs or widens the rest
differently (``ds_read_b96``, ``ds_read2_b32``, ``ds_read2st64_b32``, chains not split per
chunk): the AMD prediction counts the loads that remain as scalar reads at the element
width, which moves the bytes the final AMDGCN moves (compared by LDS bytes per thread on the
probes and the corpus) but not its opcodes. ``check`` shows the loads after LLVM on every
target; Triton's own are kept for comparison with its LLVM IR before the optimiser.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._checks import shown
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.emitted import Emitted
from ...lowering.names import amd_lds, nvidia_ld_st
from ...lowering.target import Target

__all__ = ["ScanShape", "merged_reload_bytes", "scan_shape", "scan_sides"]


@dataclass(frozen=True)
class ScanShape:
    """How a scan's operand is spread, as ``ScanOpToLLVM.cpp`` sees it.

    Attributes:
        chunks: register repeats along the axis beyond the lanes and warps (1 when none).
        outputs: positions off the axis each thread holds in registers (independent scans).
        warps: warps along the axis (the totals each thread reloads per chunk and output).
        uniform: True when no lane or warp holds another position off the axis, so every
            thread reloads the same addresses.
    """

    chunks: int
    outputs: int
    warps: int
    uniform: bool


def scan_shape(layout: LinearLayout, axis: int) -> ScanShape:
    """The :class:`ScanShape` of a scan operand's register layout along ``axis``.

    Raises:
        LayoutError: ``layout`` has no out dim ``dim{axis}``.
    """
    names = layout.out_dim_names
    if f"dim{axis}" not in names:
        raise LayoutError(f"tt.scan axis {shown(axis)} is not a dim of the operand "
                          f"({dict(layout.out_dims)}); use an axis below {len(names)}")
    k = names.index(f"dim{axis}")
    along = [img[k] for d in ("lane", "warp") for img in layout.bases.get(d, []) if img[k]]
    top = max(along, default=0)
    chunks = outs = 0
    for img in layout.bases.get("register", []):
        if img[k] and img[k] > top:
            chunks += 1
        elif not img[k] and any(img):
            outs += 1
    warps = 1 << sum(1 for img in layout.bases.get("warp", []) if img[k])
    uniform = not any(any(v for i, v in enumerate(img) if i != k)
                      for d in ("lane", "warp") for img in layout.bases.get(d, []))
    return ScanShape(1 << chunks, 1 << outs, warps, uniform)


def merged_reload_bytes(loads: int, element_bytes: int) -> list[int]:
    """Bytes of each vector load NVPTX's vectoriser makes of ``loads`` scalar loads of
    consecutive ``element_bytes`` elements starting at an address aligned to their whole
    size (one chunk and output of a scan's reloads).

    Full 16-byte vectors first; a remainder of one element stays scalar; a remainder ``r ≥ 2``
    with ``r + 1`` a power of two is padded to ``r + 1`` elements; any other remainder is
    split into decreasing powers of two. Source: the probes of
    ``papers/triton_lowering/scan_probes.py`` (``ld.shared`` of the PTX), not LLVM's code.
    """
    out: list[int] = []
    per16 = max(1, 16 // element_bytes)
    while loads >= per16:
        out.append(per16 * element_bytes)
        loads -= per16
    if loads >= 2 and (loads + 1) & loads == 0:
        return out + [(loads + 1) * element_bytes]
    p = per16
    while loads:
        while p > loads:
            p //= 2
        out.append(p * element_bytes)
        loads -= p
    return out


def _reloads_after_llvm(shape: ScanShape, bits: int) -> dict[int, int]:
    """Vector bytes -> loads per thread for one operand, as the NVIDIA PTX has them."""
    nbytes = max(8, bits) // 8
    counts: dict[int, int] = {}
    runs = [(shape.warps, shape.outputs * (shape.chunks - 1)), (shape.warps - 1, shape.outputs)]
    for used, times in runs:
        if not times:
            continue
        pieces = merged_reload_bytes(used, nbytes) if shape.uniform else [nbytes] * used
        for b in pieces:
            counts[b] = counts.get(b, 0) + times
    return counts


def scan_sides(shape: ScanShape, operand_bits: tuple[int, ...], target: Target
               ) -> tuple[list[Emitted], list[Emitted], list[Emitted]]:
    """(stores, Triton's loads, loads after LLVM) of a scan across warps, one entry per
    operand and width; ``operand_bits`` the bits each operand moves. Counts per thread.

    On AMD the loads after LLVM are Triton's less the unused one per output and operand, at
    the element width (LLVM's AMD pairing into ``ds_read2*``/wider reads is not modelled:
    the bytes per thread are the final AMDGCN's, the opcodes are not). Source:
    ``ScanOpToLLVM.cpp`` (``scanAcrossWarps``, ``AddPartialReduce``) for Triton's; the
    compiled probes of ``papers/triton_lowering/scan_probes.py`` for LLVM's.
    """
    stores, loads, after = [], [], []
    n = shape.outputs * shape.chunks
    for bits in operand_bits:
        nbytes = max(8, bits) // 8
        if target.is_nvidia:  # TargetInfo::storeDShared: predicated inline asm
            stores.append(Emitted("store", f"st.shared::cta.b{bits}", n, 1, bits, nbytes, ""))
            loads.append(Emitted("load", nvidia_ld_st("load", 1, bits), n * shape.warps, 1,
                                 bits, nbytes, ""))
            for vb, count in sorted(_reloads_after_llvm(shape, bits).items(), reverse=True):
                v = max(1, vb * 8 // max(8, bits))
                name = nvidia_ld_st("load", v, bits)
                after.append(Emitted("load", name, count, v, bits, vb, ""))
        else:
            stores.append(Emitted("store", amd_lds("store", nbytes), n, 1, bits, nbytes, ""))
            loads.append(Emitted("load", amd_lds("load", nbytes), n * shape.warps, 1, bits,
                                 nbytes, ""))
            after.append(Emitted("load", amd_lds("load", nbytes), n * shape.warps - shape.outputs,
                                 1, bits, nbytes, ""))
    return stores, loads, after
