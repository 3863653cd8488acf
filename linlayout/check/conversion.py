"""A cheaper path for a ``convert_layout`` than the one Triton 3.9 takes.

:func:`~linlayout.plan_conversion` costs every path of a conversion (register renaming,
warp shuffles, a shared-memory round trip) and Triton's own
(:class:`~linlayout.conversion.TritonChoice`) under one set of weights
(:data:`~linlayout.conversion.DEFAULT_WEIGHTS`). ``check`` reports the plan beside the op
when it stays in registers or shuffles and costs less than Triton's path — e.g. a shuffle
plan where Triton takes a round trip through shared memory because the warp decomposition
has two or more register/lane exchanges (``cvtNeedsWarpShuffle``). A cheaper *scratch
layout* for a shared-memory round trip is :class:`~linlayout.check.report.Alternative`'s
job, not this one's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..conversion import KINDS, ConversionProblem, plan_conversion
from ..conversion.shuffle import warp_map
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..lowering.convert import convert_path
from ..lowering.target import Target

__all__ = ["ConvertSaving", "convert_saving"]

#: Triton's paths in words.
_TRITON_PATH = {"none": "no code", "registers": "register renaming",
                "shuffle": "warp shuffles", "shared": "round trip through shared memory"}


@dataclass(frozen=True)
class ConvertSaving:
    """linlayout's cheaper plan for a convert, beside Triton's path.

    Attributes:
        path: the plan's family, ``"registers"`` or ``"shuffle"``.
        instructions: the plan's instructions per thread by kind (non-zero kinds only).
        cost: its weighted cost per warp (:mod:`linlayout.conversion.cost`).
        triton_path: Triton's path (``"shuffle"``, ``"shared"``).
        triton_opcodes: Triton's instructions per thread by opcode.
        triton_wavefronts: Triton's shared-memory wavefronts per warp (0 off shared memory).
        triton_barriers: Triton's ``bar.sync`` per conversion.
        triton_cost: Triton's weighted cost per warp.
        saving: ``triton_cost − cost`` (positive).

    Both sides are priced as :func:`~linlayout.plan_conversion` prices the convert alone:
    each byte extract one ``prmt.b32``, before the byte-reader rules by which ``check``'s
    own rows spare the extracts the next op's reads make free
    (:mod:`linlayout.check.registers.byte_readers`); ``triton_opcodes`` may therefore show
    more ``prmt.b32`` than the op's instructions.
    """

    path: str
    instructions: dict[str, int]
    cost: float
    triton_path: str
    triton_opcodes: dict[str, int]
    triton_wavefronts: int
    triton_barriers: int
    triton_cost: float
    saving: float

    def text(self) -> str:
        """One line: ``"a shuffle plan: 4 shfl, 8 selp (cost 8) vs Triton's round trip
        through shared memory (st.shared.v2.b32 x4, …; cost 24): saves 16"``."""
        mine = ", ".join(f"{n} {k}" for k, n in self.instructions.items()) or "no instructions"
        theirs = ", ".join(f"{op} x{n}" for op, n in self.triton_opcodes.items())
        if self.triton_path == "shared":
            theirs += f", {self.triton_wavefronts} wavefronts, {self.triton_barriers} bar.sync"
        return (f"a {self.path} plan: {mine} (cost {self.cost:g}) vs Triton's "
                f"{_TRITON_PATH[self.triton_path]} ({theirs}; cost {self.triton_cost:g}): "
                f"saves {self.saving:g}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field."""
        return {"path": self.path, "instructions": dict(self.instructions), "cost": self.cost,
                "triton": {"path": self.triton_path, "opcodes": dict(self.triton_opcodes),
                           "wavefronts": self.triton_wavefronts,
                           "barriers": self.triton_barriers, "cost": self.triton_cost},
                "saving": self.saving}


def convert_saving(src: LinearLayout, dst: LinearLayout, element_bits: int, target: Target,
                   hardware: HardwareModel,
                   source_load: tuple[int, int] | None = None,
                   packed_source: bool = False, *,
                   wide_source: bool = False) -> ConvertSaving | None:
    """linlayout's register or shuffle plan for ``src → dst`` when it costs less than
    Triton's path on ``target``, else None (also when the pair is outside
    :func:`~linlayout.plan_conversion`'s domain: data crossing warps, other element widths,
    a target whose warp size differs from ``hardware``'s). ``source_load``: the producing
    global load's ``(dim, contiguity_elems)``, as the convert's own prediction takes it, so
    Triton's path is costed as ``check`` counts it. ``packed_source``: the operand is a float
    truncation to 16 bits (:func:`linlayout.check.registers.truncated_sources`), whose packing
    is free on AMD — for Triton's path and the plan alike, as the convert's own prediction.
    ``wide_source``: the operand is a gather's or reduction's result left one 8/16-bit
    element to a 32-bit register (:func:`linlayout.check.registers.wide_sources`), whose
    packing costs a ``prmt.b32`` per word of two 16-bit elements on NVIDIA — priced on
    Triton's path as the convert's own prediction counts it, and on every plan that packs.

    Source: :func:`linlayout.plan_conversion` (its ``triton`` entry:
    :func:`linlayout.lowering.convert_path` and Triton's scratch layout as lowered).
    """
    try:
        problem = ConversionProblem.make(src, dst, element_bits, hardware)
        if warp_map(problem) is None:
            return None  # only shared memory applies: Alternative's job
        if convert_path(src, dst, element_bits, target, source_load,
                        packed_source=packed_source,
                        wide_source=wide_source).path in ("none", "registers"):
            return None  # Triton moves nothing: no plan is cheaper
        plan = plan_conversion(src, dst, element_bits, hardware=hardware, target=target,
                               source_load=source_load, packed_source=packed_source,
                               wide_source=wide_source)
    except LayoutError:
        return None
    t, best, saving = plan.triton, plan.best, plan.saving
    if t is None or saving is None or saving <= 1e-9 or best.path == "shared_memory":
        return None
    return ConvertSaving(best.path, {k: best.instructions[k] for k in KINDS
                                     if best.instructions[k]}, best.cost, t.path,
                         dict(t.opcodes), t.wavefronts, t.barriers, t.cost, saving)
