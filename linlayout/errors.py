"""The exception every bad input raises.

Nothing in linlayout aborts the interpreter or returns a silently wrong answer: a call whose
arguments break a precondition raises :class:`LayoutError` (or a subclass) with a message that
says what was wrong and how to fix it.
"""

from __future__ import annotations

import operator
from typing import Any


class LayoutError(ValueError):
    """A layout, dimension or parameter is invalid for the requested operation.

    Subclass of :class:`ValueError`, so ``except ValueError`` also catches it. The message names
    the offending dimension (or parameter) and says how to fix the call.
    """


class NotInvertibleError(LayoutError):
    """A map that must be invertible (or injective, or surjective) is not.

    Raised by :meth:`LinearLayout.invert`, :func:`linlayout.f2.inverse` and by every function
    that needs a shared-memory layout to be a bijection.
    """


def as_int(value: Any, what: str) -> int:
    """``value`` as an int (anything with ``__index__``, not a bool), else LayoutError naming
    ``what``."""
    if isinstance(value, bool):
        raise LayoutError(f"{what} must be an int, got the bool {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise LayoutError(f"{what} must be an int, got {value!r}") from None
