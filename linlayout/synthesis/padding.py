"""The best padded layout for a store and its loads, beside the best swizzle.

:func:`synthesize_padding` searches padded layouts (:class:`~linlayout.layout.padded.PaddedLayout`)
— a row-major remap of the tile in each order of its dims, then one or two ``(interval, pad)``
pairs — and counts every candidate exactly with :func:`~linlayout.bank_conflicts` (so padding
that costs vector width is charged for it). The best minimises the objective of
:func:`~linlayout.synthesize_swizzle` (weighted wavefronts per warp, then instructions, or the
other order), then the padding's memory overhead in bytes.

:func:`compare_padding_and_swizzle` puts it beside :func:`~linlayout.synthesize_swizzle`'s
result and chooses: the cheaper by the objective, and the swizzle when they tie (padding costs
shared memory; a swizzle costs none).

The search is exhaustive over its (small) family but not over all padded layouts: remaps that
reorder rows (as Triton's gfx950 layouts do) are not tried.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..conflicts import ConflictReport, bank_conflicts
from .._checks import instance_of, shown
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from ..layout.padded import PaddedLayout
from .result import SwizzleResult
from .synthesize import synthesize_transfer
from .transfer import WAVEFRONTS, Objective, Transfer

__all__ = ["MAX_PADDING_ELEMENTS", "PaddingChoice", "PaddingResult",
           "choose_padding_or_swizzle", "compare_padding_and_swizzle", "pad_transfer",
           "synthesize_padding"]

#: Largest tile (elements) :func:`synthesize_padding` searches: every candidate padding is
#: counted on the padded addresses of every element (a 128×128 tile, 2^14 elements, takes
#: about 6 s on a 2-core machine; the cost grows with the elements and the loads). Swizzles
#: have no such limit: :func:`~linlayout.synthesize_swizzle` and
#: :func:`~linlayout.bank_conflicts` count in closed form.
MAX_PADDING_ELEMENTS = 1 << 14


@dataclass(frozen=True)
class PaddingResult:
    """The best padded layout found and what it costs.

    Attributes:
        memory: the padded layout.
        store, loads: :class:`ConflictReport` of each side on ``memory``.
        weights: per-side weights (store first).
        overhead_bytes: bytes of padding per CTA (:meth:`PaddedLayout.overhead_bytes`).
        candidates: how many padded layouts were counted.
        element_bits: bits per element.

    Source: Triton's ``#ttg.padded_shared`` (``docs/padding.md``), counted by
    :func:`~linlayout.bank_conflicts`.
    """

    memory: PaddedLayout
    store: ConflictReport
    loads: tuple[ConflictReport, ...]
    weights: tuple[int, ...]
    overhead_bytes: int
    candidates: int
    element_bits: int

    @property
    def reports(self) -> tuple[ConflictReport, ...]:
        """Store then loads."""
        return (self.store, *self.loads)

    @property
    def wavefronts_per_warp(self) -> int:
        """``Σ weight · wavefronts_per_warp``."""
        return sum(w * r.wavefronts_per_warp for w, r in zip(self.weights, self.reports))

    @property
    def instructions_per_warp(self) -> int:
        """``Σ weight · instructions_per_warp``."""
        return sum(w * r.instructions_per_warp for w, r in zip(self.weights, self.reports))

    @property
    def conflict_free(self) -> bool:
        """Every side is conflict-free."""
        return all(r.degree == 1 for r in self.reports)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary (pairs, remap bases, costs, overhead)."""
        return {
            "pairs": [list(p) for p in self.memory.pairs],
            "offset_bases": self.memory.linear.bases["offset"],
            "wavefronts_per_warp": self.wavefronts_per_warp,
            "instructions_per_warp": self.instructions_per_warp,
            "conflict_free": self.conflict_free,
            "overhead_bytes": self.overhead_bytes,
            "size_bytes": self.memory.size_bytes(self.element_bits),
            "candidates": self.candidates,
            "sides": [r.to_dict() for r in self.reports],
        }


def _row_major(out_dims: dict[str, int], order: Sequence[int]) -> LinearLayout:
    names = list(out_dims)
    bases = []
    for d in order:
        for b in range(out_dims[names[d]].bit_length() - 1):
            v = [0] * len(names)
            v[d] = 1 << b
            bases.append(v)
    return LinearLayout({"offset": bases}, out_dims=out_dims)


def synthesize_padding(
    store: LinearLayout,
    load: LinearLayout | Sequence[LinearLayout],
    *,
    element_bits: int,
    hardware: HardwareModel | None = None,
    objective: str = "wavefronts",
    weights: Sequence[int] | None = None,
    max_pairs: int = 1,
) -> PaddingResult:
    """The cheapest padded layout for ``store`` and ``load`` (module docstring).

    Args:
        store, load: distributed layouts over the same tensor (as
            :func:`~linlayout.synthesize_swizzle`); ``load`` may be a list.
        element_bits: bits per element.
        hardware: bank model (default ``NVIDIA``).
        objective: ``"wavefronts"`` (then instructions) or ``"instructions"`` (then
            wavefronts); ties go to the smaller overhead.
        weights: one positive int per side (store first); default all 1.
        max_pairs: 1 or 2 ``(interval, pad)`` pairs per candidate.

    Candidates: every order of the tensor's dims as the remap (row-major in that order); every
    interval from one bank word to half the tile; every pad from one element to one row of
    banks; with ``max_pairs=2`` also every pair of such pairs with distinct intervals.

    Returns:
        A :class:`PaddingResult`.

    Raises:
        LayoutError: as :func:`~linlayout.bank_conflicts` for the sides; an unknown objective,
            bad weights or ``max_pairs``; no candidate at all (tile smaller than two words);
            a tile of more than :data:`MAX_PADDING_ELEMENTS` elements.
    """
    goal = Objective.parse(objective)
    transfer = Transfer.make(store, load, element_bits=element_bits, hardware=hardware,
                             weights=weights)
    return pad_transfer(transfer, goal, max_pairs=max_pairs)


def pad_transfer(transfer: Transfer, objective: Objective = WAVEFRONTS, *,
                 max_pairs: int = 1) -> PaddingResult:
    """The cheapest padded layout of a validated transfer (:func:`synthesize_padding`'s
    search, on a :class:`~.transfer.Transfer` already built).

    Args:
        transfer: the store, its loads, element width, hardware and weights.
        objective: an :class:`~.transfer.Objective`; ties go to the smaller overhead.
        max_pairs: 1 or 2 ``(interval, pad)`` pairs per candidate.

    Returns:
        A :class:`PaddingResult`.

    Raises:
        LayoutError: bad ``max_pairs``; no candidate at all (tile smaller than two words);
            a tile of more than :data:`MAX_PADDING_ELEMENTS` elements;
            as :func:`~linlayout.bank_conflicts` for a side on a candidate; ``transfer`` not a
            Transfer or ``objective`` not an Objective.

    Source: Triton's ``#ttg.padded_shared`` (``docs/padding.md``; module docstring).
    """
    instance_of(transfer, Transfer, "transfer")
    instance_of(objective, Objective, "objective")
    if max_pairs not in (1, 2):
        raise LayoutError(f"max_pairs must be 1 or 2, got {shown(max_pairs)}")
    model, element_bits, hardware = transfer.model, transfer.element_bits, transfer.hardware
    sides, w = transfer.layouts, transfer.weights
    out_dims = dict(transfer.store.out_dims)
    n = 1
    for s in out_dims.values():
        n *= s
    if n > MAX_PADDING_ELEMENTS:
        raise LayoutError(f"the tile has {n} elements; padding is searched for tiles of at "
                          f"most {MAX_PADDING_ELEMENTS} (MAX_PADDING_ELEMENTS): pad a "
                          "sub-tile, or use synthesize_swizzle, which has no size limit")
    word_elems = max(1, (1 << model.word_log2) // model.element_bits)
    row_elems = max(1, ((1 << model.banks_log2) << model.word_log2) // model.element_bits)
    intervals = [1 << i for i in range(n.bit_length() - 1) if word_elems <= 1 << i < n]
    pads = [1 << i for i in range(row_elems.bit_length())]
    singles = [((i, p),) for i in intervals for p in pads]
    pairs_list = list(singles)
    if max_pairs == 2:
        pairs_list += [((i1, p1), (i2, p2)) for (i1, p1), (i2, p2)
                       in itertools.combinations([s[0] for s in singles], 2) if i1 < i2]
    if not pairs_list:
        raise LayoutError("the tile is too small to pad (fewer than two bank words)")
    best: tuple[Any, ...] | None = None
    count = 0
    for order in itertools.permutations(range(len(out_dims))):
        remap = _row_major(out_dims, order)
        for pairs in pairs_list:
            memory = PaddedLayout(remap, pairs)
            reports = [bank_conflicts(s, memory, element_bits=element_bits, hardware=hardware,
                                      instruction="ld.shared" if i else "st.shared")
                       for i, s in enumerate(sides)]
            count += 1
            key = objective.key(*transfer.totals(reports)) + \
                (memory.overhead_bytes(element_bits),)
            if best is None or key < best[0]:
                best = (key, memory, reports)
    assert best is not None
    _, memory, reports = best
    return PaddingResult(memory, reports[0], tuple(reports[1:]), w,
                         memory.overhead_bytes(element_bits), count, element_bits)


@dataclass(frozen=True)
class PaddingChoice:
    """The best swizzle and the best padded layout side by side, and which to use.

    Attributes:
        swizzle: :class:`~linlayout.SwizzleResult` of :func:`~linlayout.synthesize_swizzle`.
        padding: :class:`PaddingResult` of :func:`synthesize_padding`.
        choice: ``"swizzle"`` or ``"padding"``: the cheaper by the objective; the swizzle
            on a tie (it needs no extra shared memory).
        reason: one sentence saying why.

    Source: the objective of :func:`~linlayout.synthesize_swizzle` (module docstring;
    ``docs/padding.md``).
    """

    swizzle: SwizzleResult
    padding: PaddingResult
    choice: str
    reason: str

    @property
    def tie(self) -> bool:
        """Both cost the same wavefronts and instructions per warp (the swizzle is chosen)."""
        s, p = self.swizzle, self.padding
        return (s.wavefronts_per_warp, s.instructions_per_warp) == \
            (p.wavefronts_per_warp, p.instructions_per_warp)


def choose_padding_or_swizzle(swizzle: SwizzleResult, padding: PaddingResult,
                              objective: Objective | str | None = None) -> PaddingChoice:
    """Which of a synthesized swizzle and a padded layout to use, and why.

    Args:
        swizzle: a :class:`~linlayout.SwizzleResult`; padding: a :class:`PaddingResult` for
            the same transfer.
        objective: an :class:`~.transfer.Objective` or its name (default: the swizzle's).

    Returns:
        A :class:`PaddingChoice`: the padding when it is cheaper by the objective (its
        weighted wavefronts and instructions per warp, ordered by
        :meth:`~.transfer.Objective.key`), else the swizzle (on a tie too: it needs no extra
        shared memory).

    Raises:
        LayoutError: an unknown objective; ``swizzle`` not a SwizzleResult or ``padding`` not a
            PaddingResult.

    Source: the objective of :func:`~linlayout.synthesize_swizzle` (module docstring;
    ``docs/padding.md``).
    """
    instance_of(swizzle, SwizzleResult, "swizzle")
    instance_of(padding, PaddingResult, "padding")
    goal = Objective.parse(swizzle.objective if objective is None else objective)
    ks = goal.key(swizzle.wavefronts_per_warp, swizzle.instructions_per_warp)
    kp = goal.key(padding.wavefronts_per_warp, padding.instructions_per_warp)
    if kp < ks:
        reason = (f"padding costs less ({padding.wavefronts_per_warp} wavefronts, "
                  f"{padding.instructions_per_warp} instructions per warp against "
                  f"{swizzle.wavefronts_per_warp} and {swizzle.instructions_per_warp}) for "
                  f"{padding.overhead_bytes} bytes of shared memory")
        return PaddingChoice(swizzle, padding, "padding", reason)
    reason = ("the swizzle costs less" if ks < kp else
              f"they tie; the swizzle needs no padding ({padding.overhead_bytes} bytes saved)")
    return PaddingChoice(swizzle, padding, "swizzle", reason)


def compare_padding_and_swizzle(
    store: LinearLayout,
    load: LinearLayout | Sequence[LinearLayout],
    *,
    element_bits: int,
    hardware: HardwareModel | None = None,
    objective: str = "wavefronts",
    weights: Sequence[int] | None = None,
) -> PaddingChoice:
    """Best swizzle vs best padded layout for one store and its loads (module docstring).

    Returns:
        A :class:`PaddingChoice` (:func:`choose_padding_or_swizzle`).

    Raises:
        LayoutError: as :func:`~linlayout.synthesize_swizzle` and :func:`synthesize_padding`.
    """
    goal = Objective.parse(objective)
    transfer = Transfer.make(store, load, element_bits=element_bits, hardware=hardware,
                             weights=weights)
    return choose_padding_or_swizzle(synthesize_transfer(transfer, goal),
                                     pad_transfer(transfer, goal), goal)
