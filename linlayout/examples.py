"""Built-in layout pairs: the article's transpose and two real Triton conversions.

The data ships inside the package (``linlayout/data/examples.json``) so that
``linlayout synthesize`` works on a fresh install.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources

from ._checks import shown
from .errors import LayoutError
from .layout import LinearLayout
from ._memo import memoize

__all__ = ["Example", "get", "listing", "names"]

#: The example ``linlayout synthesize`` runs without arguments.
DEFAULT = "transpose"


@dataclass(frozen=True)
class Example:
    """A store/load layout pair with its element size.

    Attributes:
        name: the key used by ``--example``.
        description: what the pair is.
        source: where it comes from.
        store, load: distributed layouts over the same out dims.
        element_bits: bits per element.
    """

    name: str
    description: str
    source: str
    store: LinearLayout
    load: LinearLayout
    element_bits: int


@memoize(64)
def _data() -> dict:
    text = resources.files("linlayout").joinpath("data/examples.json").read_text("utf-8")
    return json.loads(text)


def names() -> list[str]:
    """Names of the built-in examples, default first."""
    keys = list(_data())
    keys.remove(DEFAULT)
    return [DEFAULT] + keys


def get(name: str = DEFAULT) -> Example:
    """The built-in example called ``name``.

    Raises:
        LayoutError: no such example (the message lists the names).
    """
    data = _data()
    if name not in data:
        raise LayoutError(f"no example {shown(name)}; choose one of {names()}")
    e = data[name]
    return Example(
        name=name,
        description=e["description"],
        source=e["source"],
        store=LinearLayout(e["store"], e["out_dims"]),
        load=LinearLayout(e["load"], e["out_dims"]),
        element_bits=e["element_bits"],
    )


def listing() -> str:
    """What ``linlayout examples`` prints: one line per built-in example, default first,
    ``name: description (N-bit elements)``; lines joined by newlines, no final newline."""
    lines = []
    for name in names():
        ex = get(name)
        lines.append(f"{name}: {ex.description} ({ex.element_bits}-bit elements)")
    return "\n".join(lines)
