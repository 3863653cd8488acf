"""Built-in layout pairs: the article's transpose and two real Triton conversions.

The data ships inside the package (``linlayout/data/examples.json``) so that
``linlayout synthesize`` works on a fresh install.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from importlib import resources

from ._checks import dim_name, file_path, log2_exact, need_mapping, shown, string
from .errors import LayoutError
from .layout import LinearLayout
from ._memo import memoize

__all__ = ["Example", "get", "listing", "names", "row_major", "write_files"]

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
    """Names of the built-in examples, default first.

    Raises:
        nothing.
    """
    keys = list(_data())
    keys.remove(DEFAULT)
    return [DEFAULT] + keys


def get(name: str = DEFAULT) -> Example:
    """The built-in example called ``name``.

    Raises:
        LayoutError: ``name`` is not a string, or no such example (the message lists the
            names).

    Source: the article "Swizzle by hand, swizzle by algebra" (``transpose``) and
    Triton-style layouts (:func:`listing` describes each).
    """
    string(name, "name")
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
    ``name: description (N-bit elements)``; lines joined by newlines, no final newline.

    Raises:
        nothing.
    """
    lines = []
    for name in names():
        ex = get(name)
        lines.append(f"{name}: {ex.description} ({ex.element_bits}-bit elements)")
    return "\n".join(lines)


def row_major(out_dims: dict[str, int]) -> LinearLayout:
    """The row-major shared-memory layout of a tile: ``offset`` → the out dims, the last dim
    contiguous (C order: ``offset = dim1 + n1·dim0`` for two dims).

    Example::

        >>> row_major({"dim0": 2, "dim1": 4}).bases
        {'offset': [[0, 1], [0, 2], [1, 0]]}

    Raises:
        LayoutError: ``out_dims`` is not a mapping of dim names to power-of-two sizes.

    Source: C (row-major) order, the unswizzled layout of the article's table.
    """
    need_mapping(out_dims, "out_dims")
    out_dims = {dim_name(k, "out-dim"): 1 << log2_exact(v, f"size of out dim {shown(k)}")
                for k, v in out_dims.items()}
    bases = []
    names = list(out_dims)
    for k in reversed(range(len(names))):
        size = out_dims[names[k]]
        for i in range(size.bit_length() - 1):
            bases.append([1 << i if j == k else 0 for j in range(len(names))])
    return LinearLayout({"offset": bases}, dict(out_dims))


def write_files(directory: str | os.PathLike) -> list[str]:
    """Write every built-in example as JSON layout files (:meth:`LinearLayout.to_dict`) that
    ``linlayout synthesize --src/--dst`` and ``linlayout conflicts --layout/--memory`` read:
    ``DIR/NAME/store.json``, ``DIR/NAME/load.json`` and ``DIR/NAME/row_major.json`` (the
    tile's row-major memory, :func:`row_major`). Folders are created; files are overwritten.

    Returns:
        The paths written, in order.

    Raises:
        LayoutError: ``directory`` is not a file path.
        OSError: a folder or file cannot be written.
    """
    directory = file_path(directory, "directory")
    paths = []
    for name in names():
        ex = get(name)
        folder = os.path.join(directory, name)
        os.makedirs(folder, exist_ok=True)
        for stem, layout in (("store", ex.store), ("load", ex.load),
                             ("row_major", row_major(ex.store.out_dims))):
            path = os.path.join(folder, f"{stem}.json")
            with open(path, "w", encoding="utf-8") as fh:
                json.dump(layout.to_dict(), fh)
                fh.write("\n")
            paths.append(path)
    return paths
