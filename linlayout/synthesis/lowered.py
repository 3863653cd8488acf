"""Costing a shared-memory layout as a compiler lowers it, and synthesizing under that cost.

:func:`~linlayout.synthesize_swizzle` costs each side under the hardware model: the widest
vector the layout admits, plain ``ld/st.shared`` unless ``instructions=`` asks for a matrix
instruction. A compiler does not always emit that: Triton 3.9 lowers ``local_store`` /
``local_load`` through a ``#ttg.shared_linear`` layout with its own rules (``lowerLdStMatrix``
picks ``stmatrix`` on sm_90+ and ``ldmatrix`` on sm_75+ whenever the tile fits,
``largestVectorisation`` wants *single* registers on offsets ``1 … v/2``, gfx950 reads with
``ds_read_b64_tr_b16`` when lanes run along the contiguous dim; :mod:`linlayout.lowering`).

* :func:`lower_sides` — what each side of a transfer costs when Triton lowers it through a
  given layout: the instruction Triton emits (:class:`~linlayout.lowering.Emitted`) and its
  exact :class:`~linlayout.ConflictReport`.
* :func:`~linlayout.synthesis.synthesize.synthesize_lowered` (``synthesize_swizzle(...,
  lowering="triton")``) synthesizes under that cost.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..conflicts import ConflictReport, bank_conflicts
from .._checks import instance_of
from ..errors import LayoutError
from ..layout import LinearLayout
from ..lowering import Emitted, Target, access_map, predict_local
from ..lowering.target import default_target
from .transfer import Transfer

__all__ = ["LOWERINGS", "LoweredSide", "lower_sides", "resolve_target"]

#: The cost models ``synthesize_swizzle(lowering=...)`` accepts.
LOWERINGS = ("hardware", "triton")


@dataclass(frozen=True)
class LoweredSide:
    """One side of a transfer as a compiler lowers it through a layout.

    Attributes:
        side: ``"store"``, ``"load"`` or ``"load i"``.
        emitted: the instruction emitted, with its count per thread and vector
            (:class:`~linlayout.lowering.Emitted`).
        report: its exact :class:`~linlayout.ConflictReport` (at that instruction and
            vector).
    """

    side: str
    emitted: Emitted
    report: ConflictReport


def resolve_target(target: str | Target | None, transfer: Transfer) -> Target:
    """The :class:`~linlayout.lowering.Target` of a lowered synthesis: ``target`` parsed, or
    the transfer's hardware preset's (:func:`~linlayout.lowering.target.default_target`).

    Raises:
        LayoutError: an unknown target, or one whose warps do not match the hardware model.
    """
    hw = transfer.model.hardware
    t = default_target(hw) if target is None else Target.parse(target)
    if t.threads_per_warp != hw.warp_size:
        raise LayoutError(f"target {t.name} has {t.threads_per_warp}-lane warps but the "
                          f"hardware model {hw.name} has {hw.warp_size}; give "
                          f"hardware={t.hardware().name} (or leave it out)")
    return t


def lower_sides(layout: LinearLayout, transfer: Transfer, target: Target
                ) -> tuple[LoweredSide, ...]:
    """Every side of ``transfer`` (store first) as Triton 3.9 lowers ``local_store`` /
    ``local_load`` through ``layout`` on ``target``, counted exactly on the transfer's
    hardware model.

    Args:
        layout: the shared-memory layout (in dims ``offset`` or ``vector, bank, segment``)
            over the transfer's tensor.
        transfer: the store, its loads and the element width.
        target: the compilation target (matrix instructions: ``ldmatrix`` sm_75+,
            ``stmatrix`` sm_90+; ``ds_read_b64_tr_b*`` on gfx950).

    Returns:
        One :class:`LoweredSide` per side.

    Raises:
        LayoutError: the layout does not fit the tensor, or Triton would emit an instruction
            the bank counter does not model; an argument of the wrong type.

    Source: ``lowerLocalLdSt`` / ``lowerLdStMatrix`` (``lib/Conversion/TritonGPUToLLVM``,
    ``third_party/nvidia``), ``largestVectorisation`` (``lib/Tools/LayoutUtils.cpp``).
    """
    instance_of(layout, LinearLayout, "layout")
    instance_of(transfer, Transfer, "transfer")
    instance_of(target, Target, "target")
    bits = max(8, transfer.element_bits)
    hw = transfer.model.hardware
    out = []
    names = ["store"] + (["load"] if len(transfer.loads) == 1
                         else [f"load {i}" for i in range(len(transfer.loads))])
    for name, dist in zip(names, (transfer.store, *transfer.loads)):
        kind = "store" if name == "store" else "load"
        e = predict_local(kind, access_map(dist, layout, bits), target)
        if e.counter == "":
            raise LayoutError(f"Triton lowers the {name} to {e.opcode}, which the bank "
                              "counter does not model")
        if e.counter:
            rep = bank_conflicts(dist, layout, element_bits=bits, hardware=hw,
                                 instruction=e.counter)
        else:
            rep = bank_conflicts(dist, layout, element_bits=bits, hardware=hw,
                                 vector_elems=e.vector_elems)
        out.append(LoweredSide(name, e, rep))
    return tuple(out)
