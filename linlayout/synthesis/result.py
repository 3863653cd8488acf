"""What :func:`~linlayout.synthesize_swizzle` returns: the layout, its costs, and its proof.

:class:`SwizzleResult` holds the synthesized shared-memory layout with the exact report of
every side (as :func:`~linlayout.bank_conflicts` counts it) and the totals the objective
minimises; :class:`OptimalityBound` holds what no layout can beat, side by side, and the
argument, in words, that proves the result optimal — or the gap when it does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..conflicts import ConflictReport
from ..layout import LinearLayout

__all__ = ["OptimalityBound", "SideBound", "SwizzleResult"]


@dataclass(frozen=True)
class SideBound:
    """The least one side can cost with any memory layout (the side on its own).

    Attributes:
        side: ``"store"``, ``"load"`` or ``"load i"``.
        instruction: the access that reaches it (``ld/st.shared`` or a matrix instruction).
        vector_elems: elements per lane per instruction of that access (a matrix
            instruction: elements of one 16-byte row).
        degree: the least conflict degree any layout giving that access can have
            (Lemma 9.5 dimension count).
        wavefronts_per_warp: the least wavefronts per warp.
        instructions_per_warp: the instructions per warp of that access.
        wavefront_floor: ``⌈bytes per warp / bytes per wavefront⌉``.
    """

    side: str
    instruction: str
    vector_elems: int
    degree: int
    wavefronts_per_warp: int
    instructions_per_warp: int
    wavefront_floor: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class OptimalityBound:
    """What no shared-memory layout can beat, and why.

    Attributes:
        objective: ``"wavefronts"`` (total wavefronts first, then instructions) or
            ``"instructions"`` (the other order, Triton's).
        weights: the weight of each side (store first) in the totals.
        sides: one :class:`SideBound` per side, store first.
        wavefronts_per_warp: ``Σ weight · wavefronts`` no layout beats (for the
            ``"instructions"`` objective: among layouts reaching :attr:`instructions_per_warp`).
        instructions_per_warp: ``Σ weight · instructions`` no layout beats (for the
            ``"wavefronts"`` objective: among layouts reaching :attr:`wavefronts_per_warp`).
        reached: the result costs exactly the bound, which proves it optimal.
        method: how the bound was obtained — ``"per-side"`` (every side at its own minimum,
            the sides' vector chains being compatible), ``"exhaustive"`` (every candidate of a
            fixed TMA mode counted), ``"pinned"`` (per-side minima among layouts with the
            pinned prefix) or ``"paired"`` (the least, over every combination of accesses a
            layout can give, of each side's bound raised where another side's longer vector
            takes bank bits its lanes cannot use: :func:`~.options.paired_exponent`).
        candidates: with ``"exhaustive"``, how many layouts were counted.
        infeasible: access assignments proven impossible (their sides' vector chains do not
            fit), which raised the bound above the plain per-side sum.
    """

    objective: str
    weights: tuple[int, ...]
    sides: tuple[SideBound, ...]
    wavefronts_per_warp: int
    instructions_per_warp: int
    reached: bool
    method: str = "per-side"
    candidates: int = 0
    infeasible: int = 0

    @property
    def argument(self) -> str:
        """The proof in words, with the numbers filled in."""
        order = ("wavefronts, then instructions" if self.objective == "wavefronts"
                 else "instructions, then wavefronts")
        weighted = "" if all(w == 1 for w in self.weights) else \
            f", weights {list(self.weights)}"
        if self.method == "exhaustive":
            return (f"exhaustive: all {self.candidates} layouts the fixed TMA mode can write "
                    f"for this tile were counted exactly (objective: {order}{weighted}); none "
                    f"costs less than {self.wavefronts_per_warp} wavefronts and "
                    f"{self.instructions_per_warp} instructions per warp")
        parts = []
        for b in self.sides:
            what = (f"{b.instruction} rows of {b.vector_elems} elements" if b.instruction !=
                    "ld/st.shared" else f"{b.vector_elems}-element vectors")
            parts.append(f"{b.side} with {what}: at least {b.wavefronts_per_warp} wavefronts "
                         f"({_count(b.instructions_per_warp, 'instruction')}, "
                         f"{b.degree}-way at best, "
                         f"floor {b.wavefront_floor})")
        scope = "among layouts with the pinned prefix, " if self.method == "pinned" else ""
        paired = (", or more where another side's longer vector takes bank bits its lanes "
                  "cannot use (bounded for every combination of accesses a layout can give)"
                  if self.method == "paired" else "")
        text = (f"{scope}each side costs at least what its access costs conflict-free or at "
                f"its Lemma 9.5 dimension count{paired}; the cheapest accesses that fit "
                f"together are " + "; ".join(parts))
        if self.infeasible:
            were = "was" if self.infeasible == 1 else "were"
            text += (f" ({_count(self.infeasible, 'cheaper combination')} of accesses {were} "
                     "proven impossible: no vector chain serves all their sides)")
        text += (f". So no layout beats {self.wavefronts_per_warp} wavefronts and "
                 f"{self.instructions_per_warp} instructions per warp in total (objective: "
                 f"{order}{weighted})")
        text += "; this layout reaches the bound" if self.reached else \
            "; this layout does not reach it (see the gap)"
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the bound, its per-side parts, ``reached`` and the argument."""
        return {
            "objective": self.objective,
            "weights": list(self.weights),
            "wavefronts_per_warp": self.wavefronts_per_warp,
            "instructions_per_warp": self.instructions_per_warp,
            "sides": [b.to_dict() for b in self.sides],
            "method": self.method,
            "reached": self.reached,
            "argument": self.argument,
        }


def _count(n: int, noun: str) -> str:
    """``"1 instruction"``, ``"4 instructions"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@dataclass(frozen=True)
class SwizzleResult:
    """A synthesized shared-memory layout with its certified costs.

    Attributes:
        layout: bijection with in dims ``vector``, ``bank``, ``segment`` (flattened in that
            order into the element offset) onto the tensor's out dims; ``vector`` is the
            widest vector every ``ld/st.shared`` side uses (a side may use more).
        vector_elems: ``2^(vector bits)``.
        store: :class:`ConflictReport` of the store, exactly as
            ``bank_conflicts(store, layout, element_bits=…, instruction=…)`` counts it (at
            the widest vectorisation the layout admits).
        loads: the same for each load, in the order given.
        optimal: proven optimal for the objective: it costs exactly :attr:`bound`, or (a
            fixed TMA mode) every alternative was counted.
        bound: the :class:`OptimalityBound` the result was checked against.
        element_bits: bits per element.
        objective: ``"wavefronts"`` or ``"instructions"``.
        weights: per-side weights (store first).
        notes: remarks a user should read (e.g. that TMA's own writes are not counted).
        counted: which sides' costs enter the totals (False: a TMA copy, no bank conflicts).
        lowering: whose rules chose each side's instruction and vector: ``"hardware"`` (the
            widest the layout admits, ``ld/st.shared`` unless a matrix instruction was
            asked for) or ``"triton"`` (what Triton 3.9 emits through this layout on
            :attr:`target`).
        target: the compilation target of a ``"triton"`` lowering (``"cuda:90"``), else None.
    """

    layout: LinearLayout
    vector_elems: int
    store: ConflictReport
    loads: tuple[ConflictReport, ...]
    optimal: bool
    bound: OptimalityBound
    element_bits: int
    objective: str = "wavefronts"
    weights: tuple[int, ...] = ()
    notes: tuple[str, ...] = ()
    counted: tuple[bool, ...] = field(default=())
    lowering: str = "hardware"
    target: str | None = None

    @property
    def load(self) -> ConflictReport:
        """The first load's report (the only one for a store/load pair)."""
        return self.loads[0]

    @property
    def reports(self) -> tuple[ConflictReport, ...]:
        """Every side's report, store first."""
        return (self.store, *self.loads)

    def _weights(self) -> tuple[int, ...]:
        ws = self.weights or (1,) * len(self.reports)
        counted = self.counted or (True,) * len(self.reports)
        return tuple(w if c else 0 for w, c in zip(ws, counted))

    @property
    def wavefronts_per_warp(self) -> int:
        """``Σ weight · wavefronts_per_warp`` over the counted sides."""
        return sum(w * r.wavefronts_per_warp for w, r in zip(self._weights(), self.reports))

    @property
    def instructions_per_warp(self) -> int:
        """``Σ weight · instructions_per_warp`` over the counted sides."""
        return sum(w * r.instructions_per_warp for w, r in zip(self._weights(), self.reports))

    @property
    def wavefront_floor(self) -> int:
        """``Σ weight · wavefront_floor`` over the counted sides: the bandwidth floor."""
        return sum(w * r.wavefront_floor for w, r in zip(self._weights(), self.reports))

    @property
    def conflict_free(self) -> bool:
        """Every counted side is conflict-free."""
        return all(r.degree == 1 for w, r in zip(self._weights(), self.reports) if w)

    @property
    def at_floor(self) -> bool:
        """Every counted side pays exactly its bandwidth floor."""
        return all(r.at_floor for w, r in zip(self._weights(), self.reports) if w)

    @property
    def gap(self) -> tuple[int, int]:
        """``(wavefronts, instructions)`` per warp above the bound; ``(0, 0)`` when reached."""
        return (self.wavefronts_per_warp - self.bound.wavefronts_per_warp,
                self.instructions_per_warp - self.bound.instructions_per_warp)

    @property
    def tma_mode(self) -> Any:
        """The TMA swizzle mode and box that write ``layout`` exactly
        (:class:`linlayout.ptx.TmaMatch`), or None (:func:`linlayout.ptx.match_tma_mode`)."""
        from .. import ptx

        return ptx.match_tma_mode(self.layout, self.element_bits)

    def _side_dict(self, i: int) -> dict[str, Any]:
        """One side's report as JSON, with ``"counted"``; a side that is not counted (a TMA
        copy: no lane addresses, no bank conflicts) has ``"instruction": "tma"`` and every
        number null, never an ``ld/st.shared`` count."""
        d = self.reports[i].to_dict()
        if self.counted and not self.counted[i]:
            d = {k: None for k in d}
            d["instruction"] = "tma"
        return {**d, "counted": not self.counted or self.counted[i]}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: ``{"layout": {"bases", "out_dims"}, "vector_elems", "store", "load",
        "loads", "totals", "optimal", "bound", "notes"}``."""
        return {
            "layout": self.layout.to_dict(),
            "vector_elems": self.vector_elems,
            "element_bits": self.element_bits,
            "store": self._side_dict(0),
            "load": self._side_dict(1),
            "loads": [self._side_dict(1 + i) for i in range(len(self.loads))],
            "totals": {
                "objective": self.objective,
                "weights": list(self.weights),
                "wavefronts_per_warp": self.wavefronts_per_warp,
                "instructions_per_warp": self.instructions_per_warp,
                "wavefront_floor": self.wavefront_floor,
                "conflict_free": self.conflict_free,
                "at_floor": self.at_floor,
                "gap": list(self.gap),
            },
            "optimal": self.optimal,
            "bound": self.bound.to_dict(),
            "notes": list(self.notes),
            "lowering": self.lowering,
            "target": self.target,
        }
