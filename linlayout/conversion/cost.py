"""The cost model that ranks a conversion's paths: one weight per instruction kind.

A path's cost is ``Σ count(kind) · weight(kind)`` over the instructions one warp issues (the
count per thread: every thread of a warp runs the same instruction stream), plus
``weight("wavefront")`` per shared-memory wavefront. The weights are in units of one
shared-memory wavefront, the time the SM's shared-memory pipe needs to serve one warp-wide
request. The defaults, and why:

* ``wavefront`` 1 — the unit.
* ``shfl`` 1 — a warp shuffle (``shfl.sync.idx.b32``, PTX ISA, ``shfl.sync``) moves 32 bits per
  lane through the same crossbar as shared memory; the CUDA C++ Programming Guide's
  throughput table gives 32 shuffle results per clock per SM, one warp instruction per clock,
  as one conflict-free wavefront.
* ``selp``, ``prmt`` 0.5 — integer select and byte permute (PTX ISA, ``selp`` and ``prmt``) run
  on the integer pipe at 64 results per clock per SM (same table): half a wavefront's time.
* ``selector`` 0 — an instruction that only computes a per-lane constant from the lane index:
  the select of two constant byte selectors that gives a lane-dependent ``prmt`` its selector
  (Triton 3.9's ``transferWithinWarp`` emits it as ``selp.b32`` of two immediates, which
  ``check`` lists with Triton's instructions, as the PTX has it; the packed exchange of
  :mod:`~linlayout.conversion.exchange` needs the same, one per distinct selector and lane
  class). It is lane-index arithmetic, like a shuffle's source lane or a select's
  predicate, which no path is charged for: so both sides of a comparison count it, in this
  kind, and price it alike — at 0 by default, as the bound of
  :mod:`~linlayout.conversion.bounds` does. Set it to the ``selp`` weight to charge every
  selector as a select, on Triton's path and the plan's alike.
* ``mov`` 0 — a register-to-register copy that ptxas removes by renaming.
* ``ld.shared``, ``st.shared`` 0 — their time is their wavefronts, counted apart.
* no kind for ``v_lshl_or_b32`` (AMD CDNA3 ISA, *VOP3*: a shift and an or in one VALU
  instruction, at ``v_perm_b32``'s rate): LLVM's AMDGPU back end selects it to join two
  zero-extended bytes into a 16-bit half, or two in-order halves into a word
  (:mod:`~linlayout.lowering.amd_pack`), and ``check`` counts only the ``v_perm_b32``
  around it. It is priced at 0 on every path alike — Triton's and the plans' — so
  comparisons stay like for like. The AMD packing bounds
  (:func:`~linlayout.conversion.shuffle.amd_packing_bound`, the lone- and two-shuffle bounds
  of :mod:`~linlayout.conversion.bounds`, :func:`~linlayout.conversion.round_trip.
  packing_floor`) count a join as LLVM selects it: one ``v_perm_b32`` per 16-bit pair, two
  per four bytes, none per two bytes. They bound plans lowered that way; a hand-written
  ``v_lshl_or_b32`` joining a zero-extended 16-bit pair, or four bytes in three, would cost
  nothing here and could undercut them. Counting it would mean counting it in Triton's
  code as well (``check``'s AMD instruction entries and the compiled probes).
  On NVIDIA the same holds for 16-bit elements left alone in 32-bit registers
  (``wide_source``): NVPTX joins two of them into one word with one ``prmt.b32`` for
  Triton's ``<2 x i16>`` packing and every vector spelling, and with two or three integer
  instructions of no counted kind (``shl`` and ``shf.l.wrap.b32``; ``and``, ``shl``, ``or``)
  for the shift spellings (``papers/conversion/wide_join_isel.py``); the model charges a
  join as the ``prmt``, and :func:`~linlayout.conversion.bounds.nvidia_lone_shuffle_bound`
  bounds plans whose joins are spelled so. Two computed bytes on AMD likewise: Triton's
  spelling is one ``v_perm_b32`` (the lone- and two-shuffle bounds count it with
  ``wide_source``), while ``(a & 0xffff) | (b << 16)``, two VALU instructions of no counted
  kind, could undercut them.
* ``bar.sync`` 8 — a CTA barrier (PTX ISA, ``bar.sync``) stalls every warp until the last one
  arrives; priced as a fixed latency of a few wavefronts. It is the least certain weight:
  measure and override it.

Override any weight with ``weights={"bar.sync": 20}`` (the others keep their defaults).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._checks import shown
from ..errors import LayoutError

__all__ = ["DEFAULT_WEIGHTS", "KINDS", "MAX_WEIGHT", "path_cost", "resolve_weights"]

#: Every instruction kind a plan counts, in the order reports print them.
KINDS = ("shfl", "selp", "prmt", "selector", "mov", "st.shared", "ld.shared", "bar.sync")

#: The default weight of each kind, and of one shared-memory ``wavefront`` (see the module
#: docstring for the reasons).
DEFAULT_WEIGHTS: Mapping[str, float] = {
    "shfl": 1.0, "selp": 0.5, "prmt": 0.5, "selector": 0.0, "mov": 0.0, "st.shared": 0.0,
    "ld.shared": 0.0,
    "bar.sync": 8.0, "wavefront": 1.0,
}

#: The largest weight accepted: 10^9 wavefronts per instruction, far above any real price
#: ratio. It keeps every path's cost finite (a weight near ``sys.float_info.max`` made costs
#: ``inf``, and every path then tied, so "cheapest" and "provably optimal" meant nothing) and
#: exact enough to rank paths (a cost of at most 2^30 counted instructions times 10^9 stays
#: below 2^60).
MAX_WEIGHT = 1e9


def resolve_weights(weights: Mapping[str, Any] | None) -> dict[str, float]:
    """The defaults with ``weights`` applied.

    Raises:
        LayoutError: ``weights`` is not a mapping, names an unknown kind, or gives a weight
            that is not a number in ``[0, MAX_WEIGHT]`` (:data:`MAX_WEIGHT`: 10^9).

    Source: the cost kinds and their default weights (module docstring).
    """
    out = dict(DEFAULT_WEIGHTS)
    if weights is None:
        return out
    if not isinstance(weights, Mapping):
        raise LayoutError(f"weights must be a mapping {{kind: weight}}, got {shown(weights)}")
    for kind, w in weights.items():
        if kind not in out:
            raise LayoutError(f"unknown weight {shown(kind)}; the kinds are {sorted(out)}")
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w <= MAX_WEIGHT:
            raise LayoutError(f"weight of {kind!r} must be a number from 0 to {MAX_WEIGHT:g} "
                              f"(MAX_WEIGHT), got {shown(w)}")
        out[kind] = float(w) + 0.0  # -0.0 -> 0.0
    return out


def path_cost(instructions: Mapping[str, int], wavefronts: int,
              weights: Mapping[str, float]) -> float:
    """``Σ instructions[kind] · weights[kind] + wavefronts · weights["wavefront"]``."""
    return (sum(n * weights[k] for k, n in instructions.items())
            + wavefronts * weights["wavefront"])
