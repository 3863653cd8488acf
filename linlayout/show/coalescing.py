"""The cost of a warp's global access against an efficiency limit, as ``linlayout coalescing``
prints it.

:func:`coalescing_verdict` counts one access exactly
(:func:`linlayout.global_memory.global_access`) and compares its efficiency (useful bytes
over the bytes of the sectors touched) with ``min_efficiency``.
:class:`CoalescingVerdict` holds the result; :meth:`~CoalescingVerdict.to_text` is the table
and ``ok:``/``FAIL:`` line the command prints, :meth:`~CoalescingVerdict.to_dict` what its
``--json`` prints.

Example::

    >>> from linlayout import LinearLayout
    >>> from linlayout.show.coalescing import coalescing_verdict
    >>> lanes = LinearLayout.identity_1d(32, "lane", "dim0")
    >>> coalescing_verdict(lanes, (1,), element_bits=32).to_text().splitlines()[-1]
    'ok: efficiency 1.0 >= --min-efficiency 1.0'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import LayoutError
from ..global_memory import GlobalAccessReport, global_access
from ..layout import LinearLayout
from .schemas import versioned
from .text import table

__all__ = ["COALESCING_HEADER", "CoalescingVerdict", "coalescing_verdict"]

#: The header of the table :meth:`CoalescingVerdict.to_text` prints.
COALESCING_HEADER = ("vector (elems)", "bytes/lane", "instr/warp", "sectors/instr",
                     "lines/instr", "sectors/warp", "lines/warp", "floor (sectors)",
                     "useful bytes/warp", "efficiency")


@dataclass(frozen=True)
class CoalescingVerdict:
    """One counted global access and whether its efficiency is acceptable.

    Attributes:
        report: the exact count (:class:`~linlayout.global_memory.GlobalAccessReport`).
        min_efficiency: the smallest acceptable efficiency, in ``(0, 1]``.
    """

    report: GlobalAccessReport
    min_efficiency: float

    @property
    def ok(self) -> bool:
        """True when the efficiency is at least :attr:`min_efficiency` (the command exits 0)."""
        return self.report.efficiency >= self.min_efficiency

    def to_text(self) -> str:
        """The table (:data:`COALESCING_HEADER`), a line naming the method, and the verdict
        line ``ok: efficiency E >= --min-efficiency X`` or ``FAIL: efficiency E <
        --min-efficiency X``; no final newline."""
        rep = self.report
        eff = round(rep.efficiency, 4)
        lines = [table(COALESCING_HEADER, [(
            rep.vector_elems, rep.access_bytes, rep.instructions_per_warp,
            rep.sectors_per_instruction, rep.lines_per_instruction, rep.sectors_per_warp,
            rep.lines_per_warp, rep.sector_floor, rep.useful_bytes_per_warp, eff)])]
        lines.append(f"{rep.sector_bytes}-byte sectors, {rep.line_bytes}-byte lines, base "
                     f"aligned to {rep.base_alignment_bytes} bytes; counted by {rep.method}; "
                     f"{'coalesced' if rep.coalesced else 'not coalesced'}")
        word, cmp = ("ok", ">=") if self.ok else ("FAIL", "<")
        lines.append(f"{word}: efficiency {eff} {cmp} --min-efficiency {self.min_efficiency}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`GlobalAccessReport.to_dict
        <linlayout.global_memory.GlobalAccessReport.to_dict>` plus ``min_efficiency`` and
        ``ok`` (JSON-ready)."""
        out = versioned(self.report.to_dict())
        out["min_efficiency"] = self.min_efficiency
        out["ok"] = self.ok
        return out


def coalescing_verdict(layout: LinearLayout, memory: Any, *, element_bits: int,
                       min_efficiency: float = 1.0, **kwargs: Any) -> CoalescingVerdict:
    """Count one warp's global access exactly and compare its efficiency with
    ``min_efficiency``.

    Args:
        layout, memory, element_bits: as :func:`linlayout.global_memory.global_access`.
        min_efficiency: the smallest acceptable efficiency, in ``(0, 1]`` (default 1.0:
            every fetched sector byte used once).
        kwargs: ``vector_elems``, ``sector_bytes``, ``line_bytes``, ``base_alignment_bytes``,
            ``limit``, ``lanes_per_warp`` of :func:`~linlayout.global_memory.global_access`.

    Raises:
        LayoutError: ``min_efficiency`` outside ``(0, 1]``, or anything
            :func:`~linlayout.global_memory.global_access` rejects.
    """
    if isinstance(min_efficiency, bool) or not isinstance(min_efficiency, (int, float)) \
            or not 0 < min_efficiency <= 1:
        raise LayoutError(f"min_efficiency must be a number in (0, 1], got {min_efficiency!r}")
    rep = global_access(layout, memory, element_bits=element_bits, **kwargs)
    return CoalescingVerdict(rep, float(min_efficiency))
