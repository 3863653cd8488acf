"""Plain-text building blocks shared by every report: aligned tables and compact JSON.

Both are what the command line prints (``linlayout synthesize``, ``conflicts``, ``check``), so
a library user who renders a report gets the same bytes as the command.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from .._checks import sequence_of, shown
from ..errors import LayoutError

__all__ = ["dumps", "table"]


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned columns separated by ``' | '``, a ``-+-`` rule under the header.

    Args:
        header: the column titles.
        rows: one sequence per row, as many cells as ``header`` (cells are ``str()``-ed).

    Returns:
        The table, lines joined by newlines, trailing spaces stripped (no final newline).

    Raises:
        LayoutError: ``header`` or ``rows`` is not a list, or a row has a different number of
            cells than ``header``.
    """
    header = sequence_of(header, object, "header")
    rows = sequence_of(rows, object, "rows")
    for i, r in enumerate(rows):
        sequence_of(r, object, f"rows[{i}]")
        if len(r) != len(header):
            raise LayoutError(f"rows[{i}] has {len(r)} cells but the header has "
                              f"{len(header)}; give one cell per column")
    cells = [list(map(str, header))] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [" | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


_INT_LIST = re.compile(r"\[\s*(-?\d+(?:\s*,\s*-?\d+)*)\s*\]")


def dumps(data: Any) -> str:
    """Indented JSON (2 spaces, UTF-8 kept) with lists of ints kept on one line (``[0, 1]``),
    still valid JSON.

    Raises:
        LayoutError: ``data`` holds a value :func:`json.dumps` cannot encode (convert it to
            a plain int, float, str, list or dict first).
    """
    try:
        text = json.dumps(data, indent=2, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise LayoutError(f"data cannot be written as JSON ({shown(str(exc), 200)}); convert "
                          "it to plain ints, floats, strings, lists and dicts first") from None
    return _INT_LIST.sub(lambda m: "[" + ", ".join(re.split(r"\s*,\s*", m.group(1))) + "]", text)
