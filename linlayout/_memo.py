"""The one memoisation policy of the package.

Every cache in linlayout follows the same rules:

* only pure functions are memoised, and only on immutable, hashable arguments
  (:class:`~linlayout.LinearLayout`, :class:`~linlayout.hardware.HardwareModel`, ints, tuples,
  strings) — a result never depends on anything but its key;
* every cache is bounded (least recently used entries go first), sized for the work one
  process repeats: the same layouts across a file of ops, a search costing one access on many
  candidates, a compiler pass asking for the same pair again;
* every cache is registered here, so :func:`clear_caches` empties all of them at once — for
  cold-start timings, or to give memory back.

:func:`memoize` is :func:`functools.lru_cache` plus that registration; :func:`register` adds a
cache that needs its own key (e.g. :func:`~linlayout.synthesize_swizzle`, whose arguments may
be lists), given by the function that empties it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import TypeVar

__all__ = ["clear_caches", "memoize", "register"]

F = TypeVar("F", bound=Callable)

_CLEARERS: list[Callable[[], None]] = []


def register(clear: Callable[[], None]) -> None:
    """Add a cache to those :func:`clear_caches` empties; ``clear`` empties it."""
    _CLEARERS.append(clear)


def memoize(maxsize: int) -> Callable[[F], F]:
    """A bounded LRU cache of ``maxsize`` entries around a pure function of hashable
    arguments (:func:`functools.lru_cache`), emptied by :func:`clear_caches`."""
    def wrap(fn: F) -> F:
        cached = lru_cache(maxsize=maxsize)(fn)
        register(cached.cache_clear)
        return cached  # type: ignore[return-value]
    return wrap


def clear_caches() -> None:
    """Empty every cache of the package (layouts' derived tables, hardware phase masks,
    encodings' layouts, lowering predictions, conflict counts, synthesis results, shuffle plan
    searches).

    Results are unchanged (every cached function is pure); only the next calls are cold.
    Source: the memoisation policy of this module (``docs/architecture.md``).

    Raises:
        nothing.
    """
    for clear in _CLEARERS:
        clear()
