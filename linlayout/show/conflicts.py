"""The bank conflicts of one warp access against a limit, as ``linlayout conflicts`` prints them.

:func:`conflict_verdict` counts one access exactly (:func:`linlayout.bank_conflicts`) — a
distributed tile smaller than the memory's tensor is counted at the memory's origin
(:func:`linlayout.hardware.kinds.embed_at_origin`), with a note saying so — and compares its
degree with ``max_degree``. :class:`ConflictVerdict` holds the result;
:meth:`~ConflictVerdict.to_text` is the table and ``ok:``/``FAIL:`` line the command prints and
:meth:`~ConflictVerdict.to_dict` the data its ``--json`` prints.

Example::

    >>> from linlayout import LinearLayout
    >>> from linlayout.show.conflicts import conflict_verdict
    >>> lanes = LinearLayout.identity_1d(32, "lane", "dim0")
    >>> memory = LinearLayout.identity_1d(32, "offset", "dim0")
    >>> conflict_verdict(lanes, memory, element_bits=32).to_text().splitlines()[-1]
    'ok: degree 1 <= --max-degree 1'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..conflicts import ConflictReport, bank_conflicts
from ..errors import LayoutError
from ..hardware.kinds import embed_at_origin, is_smaller_tile
from ..hardware.model import HardwareModel
from ..layout import LinearLayout
from .schemas import versioned
from .text import table

__all__ = ["CONFLICT_HEADER", "ConflictVerdict", "conflict_verdict", "tile_note"]

#: The header of the table :meth:`ConflictVerdict.to_text` prints.
CONFLICT_HEADER = ("instruction", "vector (elems)", "degree", "phases", "lanes/phase",
                   "wavefronts/instr", "instr/warp", "wavefronts/warp", "floor (wavefronts)",
                   "bytes/warp")


def tile_note(tile: LinearLayout, memory: LinearLayout) -> str | None:
    """The note printed when ``tile`` is a smaller tile of ``memory``'s tensor
    (:func:`~linlayout.hardware.kinds.is_smaller_tile`), e.g. an MMA atom inside a larger
    shared-memory tile: both shapes (element counts per out dim, in ``tile``'s order) and that
    the count is taken at the tile's origin; None otherwise.
    """
    if not is_smaller_tile(tile, memory):
        return None
    return (f"the layout covers {list(tile.out_dims.values())} of the memory's "
            f"{[memory.out_dims[n] for n in tile.out_dims]}: counted at the tile's origin")


@dataclass(frozen=True)
class ConflictVerdict:
    """One counted warp access and whether its degree is acceptable.

    Attributes:
        report: the exact count (:class:`~linlayout.ConflictReport`).
        max_degree: the largest acceptable conflict degree (at least 1).
        note: why the layouts were adjusted before counting (:func:`tile_note`), or None.
    """

    report: ConflictReport
    max_degree: int
    note: str | None = None

    @property
    def ok(self) -> bool:
        """True when the degree is at most :attr:`max_degree` (``linlayout conflicts`` exits 0)."""
        return self.report.degree <= self.max_degree

    def to_text(self) -> str:
        """The table of the count (:data:`CONFLICT_HEADER`), the note if any, and the verdict
        line ``ok: degree D <= --max-degree K`` or ``FAIL: degree D > --max-degree K``; lines
        joined by newlines, no final newline."""
        rep = self.report
        lines = [table(CONFLICT_HEADER, [(
            rep.instruction, rep.vector_elems, rep.degree, rep.phases, rep.lanes_per_phase,
            rep.wavefronts_per_instruction, rep.instructions_per_warp, rep.wavefronts_per_warp,
            rep.wavefront_floor, rep.bytes_per_warp)])]
        if self.note:
            lines.append(f"note: {self.note}")
        word, cmp = ("ok", "<=") if self.ok else ("FAIL", ">")
        lines.append(f"{word}: degree {rep.degree} {cmp} --max-degree {self.max_degree}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`ConflictReport.to_dict <linlayout.ConflictReport.to_dict>` plus
        ``max_degree``, ``ok`` and, when there is one, ``note`` (JSON-ready)."""
        out = versioned(self.report.to_dict())
        out["max_degree"] = self.max_degree
        out["ok"] = self.ok
        if self.note:
            out["note"] = self.note
        return out


def conflict_verdict(layout: LinearLayout, memory: LinearLayout, *, element_bits: int,
                     max_degree: int = 1, hardware: HardwareModel | None = None,
                     instruction: str | None = None,
                     vector_elems: int | None = None) -> ConflictVerdict:
    """Count one warp access exactly and compare its degree with ``max_degree``.

    Args:
        layout: the distributed layout (in dims among ``register, lane, warp, block``); a
            smaller tile of ``memory``'s tensor (same out dims, each no larger) is counted at
            the memory's origin and the verdict carries a :func:`tile_note`.
        memory: the shared-memory layout (in dims ``offset`` or ``vector/bank/segment``).
        element_bits: bits per element.
        max_degree: the largest acceptable conflict degree, at least 1 (default 1:
            conflict-free).
        hardware, instruction, vector_elems: as for :func:`linlayout.bank_conflicts`.

    Returns:
        A :class:`ConflictVerdict`.

    Raises:
        LayoutError: ``max_degree`` below 1, or anything :func:`linlayout.bank_conflicts`
            rejects.
    """
    if max_degree < 1:
        raise LayoutError(f"max_degree must be at least 1, got {max_degree}")
    note = tile_note(layout, memory)
    if note:
        layout = embed_at_origin(layout, memory)
    rep = bank_conflicts(layout, memory, element_bits=element_bits, hardware=hardware,
                         instruction=instruction, vector_elems=vector_elems)
    return ConflictVerdict(rep, max_degree, note)
