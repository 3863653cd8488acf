"""The MMA panel: the A, B and C operands of one matrix-multiply atom, placed as in ``C = A·B``.

:func:`draw_mma` draws three thread/value grids (:func:`~linlayout.show.tv_pictures.draw_tv`)
as CUTLASS's ``print_latex`` of a ``TiledMMA`` does: B on top (``K`` rows × ``N`` columns), A on
the left (``M × K``) and C below B (``M × N``), so each row of A and column of B meet at the C
element they produce. Any three distributed layouts work — a CuTe atom
(:func:`draw_mma_atom`: ``"sm80_16x8x16"`` → ``.A``, ``.B``, ``.C``) or Triton's
``#ttg.nvidia_mma`` accumulator with its two ``#ttg.dot_op`` operands. CuTe writes B as
``N × K``; ``b_order="nk"`` transposes it for the picture (:func:`draw_mma_atom` knows it from
the atom's ``tile_dims``).

Source: CUTLASS ``include/cute/util/print_latex.hpp`` (``print_latex`` of an MMA: A, B and C
placed around the product), ``include/cute/atom/mma_traits_sm80.hpp``; PTX ISA "Matrix
Fragments for mma.m16n8k16"; Triton's ``NvidiaMmaEncodingAttr`` / ``DotOperandEncodingAttr``.
"""

from __future__ import annotations

from typing import Any

from .._checks import instance_of
from ..errors import LayoutError
from ..layout import LinearLayout
from .cells import check_title, color_strip, mpl, new_figure, tensor_shape
from .pictures import lane_color
from .tv_pictures import MAX_LABEL_CELLS, draw_tv, transpose_tile

__all__ = ["draw_mma", "draw_mma_atom", "mma_atom_parts"]


def mma_atom_parts(name: str, element_bits: int | None = None) -> tuple[LinearLayout, LinearLayout,
                                                                         LinearLayout, str]:
    """``(A, B, C, b_order)`` of a CuTe MMA atom family (``"sm80_16x8x16"``; a part's name such
    as ``"sm80_16x8x16.C"`` works too), from :func:`linlayout.cute.atom`.

    Raises:
        LayoutError: no ``.A``, ``.B`` and ``.C`` atoms of that name
            (:func:`linlayout.cute.atom_names` lists them).
    """
    from ..cute import atom_info, is_atom_name

    if not isinstance(name, str):
        raise LayoutError(f"an MMA atom name is a string, got {type(name).__name__}")
    stem = name.strip()
    if stem.lower().endswith((".a", ".b", ".c")):
        stem = stem[:-2]
    if not all(is_atom_name(f"{stem}.{p}") for p in "ABC"):
        raise LayoutError(f"{name!r} is not an MMA atom with A, B and C parts (e.g. "
                          f"sm80_16x8x16; linlayout.cute.atom_names() lists them)")
    infos = [atom_info(f"{stem}.{p}") for p in "ABC"]
    parts = [i.linear_layout(element_bits if element_bits in i.element_bits else None)
             for i in infos]
    b_order = "".join(d[0] for d in infos[1].tile_dims)
    return parts[0], parts[1], parts[2], b_order


def draw_mma(a: LinearLayout, b: LinearLayout, c: LinearLayout, *, b_order: str = "kn",
             label: str | None = "tv", color_by: str = "thread",
             numbers: bool | None = None, title: str | None = None):
    """Draw A, B and C of one MMA as thread/value grids around the product.

    Args:
        a: the A operand's distributed layout on the ``M × K`` tile.
        b: the B operand's, on ``K × N`` (``b_order="kn"``, Triton's dot operand 1) or
            ``N × K`` (``"nk"``, CuTe's ``BLayout``).
        c: the accumulator's, on ``M × N``.
        b_order: ``"kn"`` or ``"nk"``.
        label, color_by, numbers: as :func:`~linlayout.show.tv_pictures.draw_tv` (one
            colour scale for all three).
        title: the figure title (default: the three shapes).

    Returns:
        The ``matplotlib.figure.Figure``: its axes are B, A, C (in that order), then the
        legend strip.

    Raises:
        LayoutError: a layout that is not 2-D or distributed, or shapes that do not fit
            ``(M×K)·(K×N) = M×N``; a bad ``b_order``.
        MissingMatplotlib: matplotlib is not installed.
    """
    mpl()
    for x, what in ((a, "a"), (b, "b"), (c, "c")):
        instance_of(x, LinearLayout, what)
        if len(x.out_dims) != 2:
            raise LayoutError(f"{what} must be a 2-D tile, got out dims {list(x.out_dim_names)}")
    title = check_title(title)
    if b_order not in ("kn", "nk"):
        raise LayoutError(f"b_order must be 'kn' or 'nk', got {b_order!r}")
    if b_order == "nk":
        b = transpose_tile(b)
    (m, k), (kb, n), (mc, nc) = tensor_shape(a), tensor_shape(b), tensor_shape(c)
    if (k, m, n) != (kb, mc, nc):
        raise LayoutError(f"A is {m}x{k}, B is {kb}x{n} (K x N) and C is {mc}x{nc}: they do not "
                          "fit C = A·B (give b_order='nk' for an N x K B)")
    biggest = max(m, n, k)
    if numbers is None:
        numbers = biggest <= MAX_LABEL_CELLS and label is not None
    cell = 0.42 if numbers else 0.12
    fig = new_figure(max(5.0, (k + n) * cell + 2.0), max(4.0, (k + m) * cell + 2.4))
    grid = fig.add_gridspec(2, 2, width_ratios=[k, n], height_ratios=[k, m])
    ax_b = fig.add_subplot(grid[0, 1])
    ax_a = fig.add_subplot(grid[1, 0])
    ax_c = fig.add_subplot(grid[1, 1])
    threads = max(x.in_dims.get("lane", 1) * x.in_dims.get("warp", 1) for x in (a, b, c))
    for ax, lay, what, names in ((ax_b, b, "B (K x N)", {"dim0": "k", "dim1": "n"}),
                                 (ax_a, a, "A (M x K)", {"dim0": "m", "dim1": "k"}),
                                 (ax_c, c, "C (M x N)", {"dim0": "m", "dim1": "n"})):
        draw_tv(lay, label=label, color_by=color_by, numbers=numbers, names=names,
                title=what, legend=False, ax=ax)
    fig.suptitle(title if title is not None else
                 f"MMA {m}x{n}x{k}: C = A·B, colour = {color_by}", fontsize=10)
    sizes = {"thread": threads, "lane": max(x.in_dims.get("lane", 1) for x in (a, b, c)),
             "warp": max(x.in_dims.get("warp", 1) for x in (a, b, c))}
    if color_by in sizes:
        ncol = max(sizes[color_by], 2)
        color_strip(fig, [ax_a, ax_c], [lane_color(i, ncol) for i in range(ncol)],
                    f"{color_by} (odd darker)")
    return fig


def draw_mma_atom(name: str, *, element_bits: int | None = None, **kwargs: Any):
    """:func:`draw_mma` of a CuTe MMA atom family (``"sm80_16x8x16"``, ``"sm80_16x8x8_tf32"``,
    …; :func:`mma_atom_parts`), titled with its name.

    Raises:
        LayoutError: as :func:`mma_atom_parts` and :func:`draw_mma`.
        MissingMatplotlib: matplotlib is not installed.
    """
    a, b, c, order = mma_atom_parts(name, element_bits)
    kwargs.setdefault("title", f"{name.strip()}: A, B (drawn K x N) and C, colour = "
                               f"{kwargs.get('color_by', 'thread')}")
    return draw_mma(a, b, c, b_order=order, **kwargs)
