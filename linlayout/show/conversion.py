"""The report ``linlayout convert`` prints: every path of a layout conversion, costed.

:func:`conversion_report` wraps a :class:`~linlayout.conversion.ConversionPlan`;
:meth:`ConversionReport.to_text` is the table the command prints and
:meth:`ConversionReport.to_dict` its ``--json`` document (schema
``linlayout/data/schemas/convert.json``).

Example::

    >>> from linlayout import LinearLayout
    >>> from linlayout.conversion import plan_conversion
    >>> src = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    >>> dst = LinearLayout({"register": [[2]], "lane": [[1], [4]]}, {"dim0": 8})
    >>> report = conversion_report(plan_conversion(src, dst, 32))
    >>> report.to_dict()["best"]
    'shuffle'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import instance_of
from ..conversion import KINDS, ConversionPlan, PathPlan
from .schemas import versioned
from .text import table

__all__ = ["ConversionReport", "conversion_report"]


@dataclass(frozen=True)
class ConversionReport:
    """A conversion plan with a title, as text and JSON.

    Attributes:
        plan: the :class:`~linlayout.conversion.ConversionPlan`.
        title: the first line of the text (None: a generic one).
    """

    plan: ConversionPlan
    title: str | None = None

    def to_text(self) -> str:
        """The title, the table of paths and the choice with its argument."""
        p = self.plan
        head = self.title or f"convert: {p.problem.element_bits}-bit elements"
        rows = [_row(path) for path in p.paths]
        lines = [head, "", table(["path", "instructions per thread", "wavefronts",
                                  "scratch bytes", "barriers", "cost", "bound",
                                  "meets bound"], rows), ""]
        for path in p.paths:
            lines.append(f"{path.path}: {path.note}"
                         + (f"; bound: {path.bound_note}" if path.bound is not None else ""))
        lines.append("")
        lines.append(f"cheapest: {p.best.path} (cost {p.best.cost:g}), "
                     f"{'provably optimal' if p.optimal else 'not proven optimal'}: "
                     f"{p.argument}")
        lines.extend(_triton_lines(p))
        weights = ", ".join(f"{k} {v:g}" for k, v in p.weights.items())
        lines.append(f"weights: {weights}")
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: ``schema_version``, the title and the plan's dict."""
        return versioned({"title": self.title, **self.plan.to_dict()})


def _row(path: PathPlan) -> list[Any]:
    if not path.feasible:
        bound = "-" if path.bound is None else f"{path.bound:g}"
        return [path.path, "not possible", "-", "-", "-", "-", bound, "-"]
    counts = ", ".join(f"{path.instructions[k]} {k}" for k in KINDS if path.instructions[k])
    return [path.path, counts or "none", path.wavefronts, path.scratch_bytes, path.barriers,
            f"{path.cost:g}", f"{path.bound:g}", "yes" if path.meets_bound else "no"]


def _triton_lines(p: ConversionPlan) -> list[str]:
    """Triton's own path on the plan's target and the saving over it."""
    t = p.triton
    if t is None:
        return []
    what = ", ".join(f"{op} x{n}" for op, n in t.opcodes.items()) or "no instructions"
    if t.cost is None:
        return [f"Triton ({t.target}): {t.path}: {t.note}; not costed"]
    extra = (f", {t.wavefronts} wavefronts, {t.barriers} bar.sync" if t.path == "shared"
             else "")
    line = f"Triton ({t.target}): {t.path}: {t.note}: {what}{extra}; cost {t.cost:g}"
    saving = p.saving
    if saving is not None and saving > 1e-9:
        line += f"; the plan saves {saving:g}"
    elif saving is not None:
        line += "; the plan is no cheaper"
    return [line]


def conversion_report(plan: ConversionPlan, title: str | None = None) -> ConversionReport:
    """The report of ``plan``.

    Raises:
        LayoutError: ``plan`` is not a :class:`~linlayout.conversion.ConversionPlan`, or
            ``title`` is neither a string nor None.
    """
    instance_of(plan, ConversionPlan, "plan")
    if title is not None:
        instance_of(title, str, "title")
    return ConversionReport(plan, title)
