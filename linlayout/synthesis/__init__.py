"""Optimal swizzle synthesis: the shared-memory layout for a store in layout A and loads in B.

* :mod:`.transfer` — the inputs every synthesis function shares: a validated, immutable
  :class:`Transfer` (store, loads, element width, hardware, weights) and the
  :class:`Objective` that orders costs (wavefronts then instructions, or the reverse).
* :func:`synthesize_swizzle` (:mod:`.synthesize`) — the layout, its certified cost per side
  and the bound that proves it optimal (:class:`SwizzleResult`, :class:`OptimalityBound`);
  :func:`common_vector_layout` is the Linear Layouts paper's objective (one vector width for
  every side); :func:`synthesize_transfer` is the same synthesis on a built :class:`Transfer`.
* :mod:`.segments` — the exact segment search for a tile read by several loads.
* :mod:`.family` — every optimal layout: :func:`optimal_swizzles` counts and enumerates them,
  :func:`is_optimal` certifies a hand-written one.
* :mod:`.padding` — the best padded layout instead (:func:`synthesize_padding`), and
  :func:`compare_padding_and_swizzle` to choose between the two.

The theory (Linear Layouts paper, arXiv 2505.23819, §5.4 and Lemma 9.5, generalised to
arbitrary subspaces) is in ``docs/theory.md``.
"""

from .family import Certificate, OptimalFamily, is_optimal, optimal_swizzles
from .padding import (
    MAX_PADDING_ELEMENTS,
    PaddingChoice,
    PaddingResult,
    choose_padding_or_swizzle,
    compare_padding_and_swizzle,
    pad_transfer,
    synthesize_padding,
)
from .synthesize import (
    MAX_ASSIGNMENTS,
    OptimalityBound,
    SwizzleResult,
    common_vector_layout,
    synthesize_lowered,
    synthesize_swizzle,
    synthesize_transfer,
)
from .lowered import LOWERINGS, LoweredSide, lower_sides
from .transfer import MAX_LOADS, Objective, Transfer

__all__ = [
    "LOWERINGS",
    "LoweredSide",
    "MAX_ASSIGNMENTS",
    "MAX_LOADS",
    "MAX_PADDING_ELEMENTS",
    "Certificate",
    "Objective",
    "OptimalFamily",
    "OptimalityBound",
    "PaddingChoice",
    "PaddingResult",
    "SwizzleResult",
    "Transfer",
    "choose_padding_or_swizzle",
    "common_vector_layout",
    "compare_padding_and_swizzle",
    "is_optimal",
    "optimal_swizzles",
    "pad_transfer",
    "synthesize_padding",
    "lower_sides",
    "synthesize_lowered",
    "synthesize_swizzle",
    "synthesize_transfer",
]
