"""CuTe thread-value layouts as linlayout distributed layouts.

A CuTe TV layout (an MMA atom's ``ALayout``/``BLayout``/``CLayout``, a copy atom's
``SrcLayout``/``DstLayout``, a ``TiledCopy``'s ``layout_tv``) is a rank-2 layout
``(thread, value) -> index`` whose index is a flat **column-major** position in a tile:
``m + M·n`` for an ``M×N`` tile (``media/docs/cpp/cute/0t_mma_atom.md``: "(logical_thr_id,
logical_val_id) -> (m, n) == m + n * M"). :func:`tv_layout` turns it into a linlayout
distributed layout: thread bits become ``lane`` (the first ``log2(warp_size)`` bits) then
``warp``, value bits become ``register``, and the index is split column-major over
``tile_shape`` into the out dims ``dim0, dim1, …`` (dim0 fastest, Triton's flattening).

Worked example, the SM80 ``mma.sync.m16n8k16`` accumulator ``((_4,_8),(_2,_2)):((_32,_1),
(_16,_8))`` on a 16×8 tile (index ``m + 16·n``)::

    lane bit 0 -> 32 = (m 0, n 2)   lane bits 2-4 -> 1, 2, 4 = (m 1, 2, 4)
    register bit 0 -> 16 = (0, 1)   register bit 1 -> 8 = (m 8, n 0)

which is Triton's ``#ttg.nvidia_mma<{versionMajor = 2, …, instrShape = [16, 8]}>`` on one
warp, bit for bit.

:func:`tiled_tv_layout` builds the TV layout of ``make_tiled_copy(atom, thr_layout,
val_layout)``: thread ``t`` sits at the thread coordinate ``thr_layout⁻¹(t)``, value ``v`` at
``val_layout⁻¹(v)``, and along each dim the element is ``v_d + V_d · t_d`` (each thread owns a
contiguous block of ``V_d`` elements: CuTe's ``raked_product(thr_layout, val_layout)``
followed by ``right_inverse``).

Source: CUTLASS ``media/docs/cpp/cute/0t_mma_atom.md``, ``include/cute/atom/copy_atom.hpp``
(``make_tiled_copy``: ``layout_mn = raked_product(thr_layout, val_layout)``, ``layout_tv =
right_inverse(layout_mn).with_shape(…)``), ``include/cute/layout.hpp`` (``raked_product``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._checks import log2_exact, shown
from ..errors import LayoutError
from ..layout import LinearLayout
from .bits import coordinate_images
from .inttuple import MAX_ELEMENTS
from .memory import parse_layout
from .parse import parse_cute

__all__ = ["tiled_tv_layout", "tv_layout"]


def _tile_dims(tile_shape: Any) -> list[int]:
    """``tile_shape`` as a list of log2 sizes (powers of two, product at most 2^24)."""
    if isinstance(tile_shape, int) and not isinstance(tile_shape, bool):
        tile_shape = [tile_shape]
    if isinstance(tile_shape, (str, bytes)) or not isinstance(tile_shape, Sequence):
        raise LayoutError(f"tile_shape must be a list of powers of two, got {shown(tile_shape)}")
    if not tile_shape:
        raise LayoutError("tile_shape must name at least one dim")
    logs = [log2_exact(s, f"tile_shape[{i}]") for i, s in enumerate(tile_shape)]
    if sum(logs) > MAX_ELEMENTS.bit_length() - 1:
        raise LayoutError(f"a tile of {list(tile_shape)} exceeds {MAX_ELEMENTS} (2^24) elements")
    return logs


def _split(index: int, logs: list[int]) -> list[int]:
    """A flat column-major index as one coordinate per dim."""
    out = []
    for b in logs:
        out.append(index & ((1 << b) - 1))
        index >>= b
    return out


def _warp_log2(warp_size: Any) -> int:
    return log2_exact(warp_size, "warp_size", 1, 1024)


def tv_layout(layout: Any, tile_shape: Sequence[int], *, warp_size: int = 32) -> LinearLayout:
    """A CuTe ``(thread, value) -> index`` layout as a distributed layout over a tile.

    Args:
        layout: CuTe text (``"((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"``), a
            :class:`~linlayout.cute.CuteLayout` or a pycute ``Layout``; two top-level modes,
            thread then value; no swizzle or offset. Zero strides are broadcasts (several
            threads or values on one element, e.g. ldmatrix's unused address lanes).
        tile_shape: the tile the index runs over, e.g. ``[16, 8]`` for ``m + 16·n``: powers of
            two, in the layout's units; ``dim0`` varies fastest.
        warp_size: lanes per warp (32 on NVIDIA); thread bits beyond it become ``warp``.

    Returns:
        A :class:`~linlayout.LinearLayout` with in dims ``register`` (the value bits),
        ``lane`` and ``warp`` (the thread bits; ``warp`` has size 1 for one warp) and out dims
        ``dim0 …`` of ``tile_shape``.

    Raises:
        LayoutError: not two modes, a swizzle or offset, a mode that is not F₂-linear (named,
            :func:`linlayout.cute.bits.coordinate_images`), an index outside the tile, or a
            bad ``tile_shape``/``warp_size``.

    Example::

        >>> C = tv_layout("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", [16, 8])
        >>> C.bases["lane"], C.bases["register"]
        ([[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], [[0, 1], [8, 0]])
    """
    cl = parse_cute(layout)
    text = cl.text()
    if cl.is_composed:
        raise LayoutError(f"{text}: a thread-value layout has no swizzle or offset")
    if cl.rank != 2:
        raise LayoutError(f"{text}: a thread-value layout has two top-level modes, (thread, "
                          f"value); this one has {cl.rank}")
    logs = _tile_dims(tile_shape)
    wl = _warp_log2(warp_size)
    size = 1 << sum(logs)
    threads, values = coordinate_images(cl)
    reach = 0
    for img in threads + values:
        reach |= img
    if reach >= size:
        raise LayoutError(f"{text}: it reaches index {reach} but the tile {list(tile_shape)} has "
                          f"{size} elements; give the tile the layout indexes (column-major)")
    bases = {
        "register": [_split(v, logs) for v in values],
        "lane": [_split(t, logs) for t in threads[:wl]],
        "warp": [_split(t, logs) for t in threads[wl:]],
    }
    out = {f"dim{d}": 1 << b for d, b in enumerate(logs)}
    return LinearLayout(bases, out_dims=out)


def _bijection(layout: Any, what: str) -> LinearLayout:
    got = parse_layout(layout)
    if not isinstance(got, LinearLayout):
        raise LayoutError(f"{what} {parse_cute(layout).text()} has gaps (a padded layout); "
                          "threads and values are numbered without gaps")
    return got


def tiled_tv_layout(thr_layout: Any, val_layout: Any, *, warp_size: int = 32) -> LinearLayout:
    """The thread-value layout of ``make_tiled_copy(atom, thr_layout, val_layout)``.

    Args:
        thr_layout: CuTe layout ``(m, n, …) -> thread index``, e.g. ``"(_16,_8):(_8,_1)"``
            (16×8 threads, 8 consecutive threads along n): an F₂-linear bijection.
        val_layout: CuTe layout ``(m, n, …) -> value index`` of one thread's block, e.g.
            ``"(_1,_8):(_0,_1)"`` (8 values along n); an F₂-linear bijection. Ranks may differ
            (the shorter is padded with size-1 modes, CuTe's ``append``).
        warp_size: lanes per warp.

    Returns:
        A distributed layout (``register``, ``lane``, ``warp`` → ``dim0 …``) over the tile of
        ``T_d · V_d`` elements per dim: value ``v`` of thread ``t`` is element
        ``v_d + V_d · t_d`` along each dim ``d`` (module docstring).

    Raises:
        LayoutError: either layout is not an F₂-linear bijection (see
            :func:`linlayout.cute.parse_layout`), or a bad ``warp_size``.

    Example::

        >>> L = tiled_tv_layout("(_16,_8):(_8,_1)", "(_1,_8):(_0,_1)")   # cp.async 16B, f16
        >>> L.out_dims, L.bases["register"], L.bases["lane"][:3]
        ({'dim0': 16, 'dim1': 64}, [[0, 1], [0, 2], [0, 4]], [[0, 8], [0, 16], [0, 32]])
    """
    thr = _bijection(thr_layout, "thr_layout")  # thread index -> thread coordinate
    val = _bijection(val_layout, "val_layout")  # value index -> value coordinate
    rank = max(len(thr.out_dims), len(val.out_dims))
    tsz = [thr.out_dims.get(f"dim{d}", 1) for d in range(rank)]
    vsz = [val.out_dims.get(f"dim{d}", 1) for d in range(rank)]

    def pad(img: list[int]) -> list[int]:
        return list(img) + [0] * (rank - len(img))

    wl = _warp_log2(warp_size)
    thread_imgs = [[c * vsz[d] for d, c in enumerate(pad(b))] for b in thr.bases["offset"]]
    value_imgs = [pad(b) for b in val.bases["offset"]]
    bases = {"register": value_imgs, "lane": thread_imgs[:wl], "warp": thread_imgs[wl:]}
    out = {f"dim{d}": tsz[d] * vsz[d] for d in range(rank)}
    return LinearLayout(bases, out_dims=out)
