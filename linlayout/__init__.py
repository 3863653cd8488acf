"""linlayout: linear layouts over F₂, exact shared-memory bank conflicts, optimal swizzles.

Public names:

* :class:`LinearLayout` — a GPU data layout as a bit-matrix (Triton's conventions), with
  Triton's full algebra (product, compose, invert, divide, quotient, least squares, …).
* :class:`Subspace` — an immutable subspace of F₂ⁿ (``layout.image()``, ``layout.kernel()``).
* :func:`bank_conflicts` — exact wavefront count of a warp access (closed form, Lemma 9.4
  generalised to sub-word accesses); :func:`simulate_bank_access` — the brute-force check.
* :class:`PaddedLayout` — a shared-memory layout with padding (a linear remap plus
  ``(interval, pad)`` pairs, Triton's ``#ttg.padded_shared``); the counters accept it.
* :func:`synthesize_swizzle` — the optimal shared-memory layout for a store/load pair.
* :func:`plan_conversion` — every way to convert a tensor between two distributed layouts
  (register renaming, warp shuffles, a shared-memory round trip), costed, with a lower bound
  per path and the cheapest (:class:`ConversionPlan`; :mod:`linlayout.conversion`).
* :class:`LayoutError` — raised for every invalid input (subclasses: :class:`NotInvertibleError`,
  :class:`NotLinearError`, :class:`LayoutParseError`).
* :mod:`linlayout.f2` — the bit-vector linear algebra underneath.
* :func:`clear_caches` — empty every cache of the package (one policy: bounded LRU caches of
  pure functions on immutable arguments; for cold-start timings).

``import linlayout`` loads neither galois nor sympy; they are imported where used. The
synthesizer (:mod:`linlayout.synthesis`, and :mod:`linlayout.conversion` above it) loads on first use of one of its names, so a program
that only builds layouts or counts conflicts does not pay for it.
"""

from . import f2
from ._memo import clear_caches
from .conflicts import ConflictReport, bank_conflicts, simulate_bank_access
from .errors import LayoutError, NotInvertibleError
from .layout import LayoutParseError, LinearLayout, NotLinearError
from .layout.padded import PaddedLayout
from .subspace import Subspace

_LAZY = {"OptimalityBound": "synthesis", "SwizzleResult": "synthesis", "synthesize_swizzle": "synthesis",
         "ConversionPlan": "conversion", "plan_conversion": "conversion"}

__version__ = "0.1.0"

__all__ = [
    "ConflictReport",
    "ConversionPlan",
    "LayoutError",
    "LayoutParseError",
    "LinearLayout",
    "NotInvertibleError",
    "NotLinearError",
    "OptimalityBound",
    "PaddedLayout",
    "Subspace",
    "SwizzleResult",
    "bank_conflicts",
    "clear_caches",
    "f2",
    "plan_conversion",
    "simulate_bank_access",
    "synthesize_swizzle",
]


def __getattr__(name: str):
    """Load the synthesizer's public names on first use (PEP 562)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'linlayout' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
