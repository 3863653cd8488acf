"""What ``linlayout check`` finds for one global-memory op: :class:`GlobalOpReport`."""

from __future__ import annotations

from dataclasses import dataclass

from ...global_memory import GlobalAccessReport
from ...triton.axisinfo import GlobalOp
from .predict import GlobalPrediction

__all__ = ["GlobalOpReport"]


@dataclass(frozen=True)
class GlobalOpReport:
    """One global op: the instruction Triton emits and the sectors a warp touches.

    Attributes:
        op: the :class:`~linlayout.triton.axisinfo.GlobalOp`.
        prediction: the instruction, its count per thread and vector
            (:class:`~.predict.GlobalPrediction`); None when not analysed.
        cost: the exact sectors and lines of the warp's access
            (:class:`~linlayout.global_memory.GlobalAccessReport`) where the addresses are
            affine in the tensor index; else None.
        note: why something is not analysed, what limited the vector, or a suggestion.
        suggestion: a hint or layout that would widen or coalesce the access, if any.
    """

    op: GlobalOp
    prediction: GlobalPrediction | None
    cost: GlobalAccessReport | None = None
    note: str = ""
    suggestion: str = ""

    @property
    def coalesced(self) -> bool | None:
        """The warp touches no more sectors than its bytes need (None when not counted)."""
        return None if self.cost is None else self.cost.coalesced
