"""Exact bank conflicts of one predicted instruction (cached).

Each :class:`~linlayout.check.shared_memory.Side` is counted with :func:`linlayout.bank_conflicts`
at its vector (``ld/st.shared``, ``cp.async``) or as its matrix instruction
(``ldmatrix``/``stmatrix``); instructions the counter does not model (AMD ``ds_read_tr``,
direct-to-LDS copies, private scratch without a layout, named TMA/MMA ops) are not counted.
"""

from __future__ import annotations


from ..conflicts import ConflictReport, bank_conflicts
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from .shared_memory import Side
from .._memo import memoize

__all__ = ["count_side", "try_count"]


@memoize(8192)
def _count(dist: LinearLayout, memory: LinearLayout, bits: int, vector: int | None,
           instruction: str | None, hardware: HardwareModel) -> ConflictReport:
    if instruction:
        return bank_conflicts(dist, memory, element_bits=bits, hardware=hardware,
                              instruction=instruction)
    return bank_conflicts(dist, memory, element_bits=bits, hardware=hardware,
                          vector_elems=vector)


def count_side(side: Side, hardware: HardwareModel) -> ConflictReport | None:
    """The :class:`~linlayout.ConflictReport` of one predicted instruction, or None when it
    is not a modelled lane access.

    Raises:
        LayoutError: the layouts do not fit (the counter's message).
    """
    e = side.emitted
    if side.dist is None or side.memory is None or e.counter == "" or e.per_thread is None:
        return None
    return _count(side.dist, side.memory, e.element_bits, None if e.counter else e.vector_elems,
                  e.counter, hardware)


def try_count(side: Side, hardware: HardwareModel) -> tuple[ConflictReport | None, str]:
    """:func:`count_side`, with the error message instead of an exception."""
    try:
        return count_side(side, hardware), ""
    except LayoutError as exc:
        return None, str(exc)
