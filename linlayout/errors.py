"""The exception every bad input raises.

Nothing in linlayout aborts the interpreter or returns a silently wrong answer: a call whose
arguments break a precondition raises :class:`LayoutError` (or a subclass) with a message that
says what was wrong and how to fix it.
"""

from __future__ import annotations


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


class NotLinearError(LayoutError):
    """:meth:`LinearLayout.from_function <linlayout.LinearLayout.from_function>` found a point
    where the function is not F₂-linear (the message names the input and both outputs)."""


class LayoutParseError(LayoutError):
    """:meth:`LinearLayout.parse <linlayout.LinearLayout.parse>` was given text in neither the
    repr nor the str format (the message quotes the offending line)."""
