"""``linlayout conflicts`` from Python, on CuTe text: the same verdict the command prints.

:func:`cute_conflicts` reads both layouts as the command does
(:func:`linlayout.cute.read_layout`: an atom name, ``<TV layout> on MxN``, or shared-memory
text — padded strides included) and counts them with
:func:`~linlayout.show.conflicts.conflict_verdict`, so ``to_text()`` is what
``linlayout conflicts --layout A --memory M --element-bits N`` prints and ``to_dict()`` its
``--json``::

    >>> from linlayout.show.cute_conflicts import cute_conflicts
    >>> v = cute_conflicts("sm80_16x8x16.A", "Sw<3,3,3> o _0 o (_16,_64):(_64,_1)",
    ...                    element_bits=16, instruction="ldmatrix.x4")
    >>> v.ok, v.report.degree
    (True, 1)
    >>> cute_conflicts("sm80_16x8x16.A", "(_16,_64):(_64,_1)", element_bits=16).report.degree
    8
    >>> cute_conflicts("sm80_16x8x16.A", "(_16,_64):(_72,_1)", element_bits=16).report.degree
    1

Source: ``linlayout/cli/conflicts.py`` (the command it mirrors).
"""

from __future__ import annotations

from ..cute import read_layout
from ..hardware.model import HardwareModel
from .conflicts import ConflictVerdict, conflict_verdict

__all__ = ["cute_conflicts"]


def cute_conflicts(layout: str, memory: str, *, element_bits: int, max_degree: int = 1,
                   hardware: HardwareModel | None = None, instruction: str | None = None,
                   vector_elems: int | None = None, explain: bool = False) -> ConflictVerdict:
    """The bank conflicts of one warp access given as CuTe text (module docstring).

    Args:
        layout: the threads' layout: a CuTe atom name (``"sm80_16x8x16.A"``,
            ``"SM75_U32x4_LDSM_N"``) or a thread-value layout with its tile
            (``"((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8"``); a smaller tile than the
            memory's is counted at its origin.
        memory: the shared-memory layout as CuTe prints it (``"Sw<3,3,3> o _0 o
            (_64,_64):(_64,_1)"``; padded strides such as ``"(_64,_64):(_72,_1)"`` count as
            ``#ttg.padded_shared``).
        element_bits: bits per element (copy atoms are recast to it).
        max_degree, hardware, instruction, vector_elems, explain: as
            :func:`~linlayout.show.conflicts.conflict_verdict`.

    Returns:
        A :class:`~linlayout.show.conflicts.ConflictVerdict`.

    Raises:
        LayoutError: unreadable text (the message says why), or anything
            :func:`linlayout.bank_conflicts` rejects (a memory layout given as ``layout``, …).
    """
    return conflict_verdict(read_layout(layout, element_bits), read_layout(memory, element_bits),
                            element_bits=element_bits, max_degree=max_degree, hardware=hardware,
                            instruction=instruction, vector_elems=vector_elems, explain=explain)
