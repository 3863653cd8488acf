"""Gluon kernels shared by the probe scripts of this folder.

Triton is imported when a kernel is first asked for, so a script that only replays its
fixture (``--compare-only``) runs without it.
"""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=None)
def convert_kernel():
    """The Gluon kernel ``g_cvt(X, Y, M, N, L, D)``: load the ``M × N`` row-major tile at
    ``X`` in the distributed layout ``L`` (constexpr), ``gl.convert_layout`` it to ``D``
    and store it at ``Y`` — so the convert is the kernel's only shared-memory traffic.

    Returns the ``gluon.jit`` function (one object per process). Raises ``ImportError``
    without Triton 3.9 (``triton.experimental.gluon``)."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def g_cvt(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        y = gl.convert_layout(x, D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    return g_cvt


@lru_cache(maxsize=None)
def smem_kernel():
    """The Gluon kernel ``g_smem(X, Y, M, N, SRC, SMEM, DST)``: load the ``M × N`` row-major
    tile at ``X`` in the distributed layout ``SRC`` (constexpr), store it into a shared-memory
    buffer of layout ``SMEM`` (``gl.allocate_shared_memory``, ``.store``), load it back
    (``.load``) in the distributed layout ``DST`` and store that at ``Y`` — so the buffer's
    store and load are the kernel's only shared-memory traffic. Shared by
    ``ldmatrix_trans_rows.py`` and ``papers/hardware/triton/generate.py`` (its ``tg_smem_*``
    and ``tg_sinkb*_smem_*`` cases).

    Returns the ``gluon.jit`` function (one object per process). Raises ``ImportError``
    without Triton 3.9 (``triton.experimental.gluon``)."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def g_smem(X, Y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr,
               SMEM: gl.constexpr, DST: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        t = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], SMEM)
        t.store(x)
        y = t.load(DST)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    return g_smem


def convert_line(ttgir: str) -> int:
    """The line (1-based) of the one ``ttg.convert_layout`` of TTGIR text ``ttgir``: where
    the convert's instructions are counted once the text, its locations removed
    (``corpus.strip_locs``), is compiled again (each op then carries its own TTGIR line, so
    the count does not depend on the kernel's Python source lines). Raises ``ValueError``
    when the text holds no convert or several."""
    lines = [i + 1 for i, s in enumerate(ttgir.splitlines()) if "ttg.convert_layout" in s]
    if len(lines) != 1:
        raise ValueError(f"{len(lines)} ttg.convert_layout ops, not one")
    return lines[0]


def linear_layout(reg: list[int], lane: list[int], warp: list[int], M: int, N: int):
    """The ``gl.DistributedLinearLayout`` of an ``M × N`` tile whose register, lane and warp
    bases are flat tensor bits (``1 << i``; 0 broadcasts): bit ``i`` below ``log2 N`` is
    column bit ``i``, the others row bits (bases ``[row, col]``). Needs Triton 3.9."""
    from triton.experimental.gluon import language as gl

    nb = [M.bit_length() - 1, N.bit_length() - 1]

    def coord(c: int) -> list[int]:
        return [c >> nb[1], c & ((1 << nb[1]) - 1)]

    return gl.DistributedLinearLayout([coord(c) for c in reg], [coord(c) for c in lane],
                                      [coord(c) for c in warp], [], [M, N])


def blocked_lists(rng, m: int, n: int, warps: int) -> list:
    """A random blocked layout of an ``m × n`` tile for 32 lanes as ``[size_per_thread,
    threads_per_warp, warps_per_cta, order]`` lists (powers of two, fits the tile): redrawn
    until it fits, in a fixed draw order (``papers/hardware/triton/generate.py``'s kernels
    and ``ldmatrix_trans_rows.py``'s fixture depend on it). No Triton needed."""
    while True:
        order = rng.choice([[1, 0], [0, 1]])
        t1 = 1 << rng.randint(0, 5)
        tpw = [32 // t1, t1]
        w1 = 1 << rng.randint(0, warps.bit_length() - 1)
        wpc = [warps // w1, w1]
        spt = [1 << rng.randint(0, 2), 1 << rng.randint(0, 3)]
        if all(spt[d] * tpw[d] * wpc[d] <= (m, n)[d] for d in range(2)):
            return [spt, tpw, wpc, order]


def random_blocked(rng, M: int, N: int, lanes: int, warps: int):
    """A random 2-D ``gl.BlockedLayout`` that fits an ``M × N`` tile: 1, 2 or 4 elements a
    thread along each dim, the ``lanes`` and ``warps`` spread over the dims one factor of two
    at a time, either order; after 100 draws that overflow the tile, one lane row
    (``[1, 1], [1, lanes], [warps, 1]``). Draws from ``rng`` in a fixed order (the fixtures
    depend on it). Needs Triton 3.9."""
    from triton.experimental.gluon import language as gl

    for _ in range(100):
        spt = [1 << rng.randint(0, 2) for _ in range(2)]
        tpw, wpc = [1, 1], [1, 1]
        for _ in range(lanes.bit_length() - 1):
            tpw[rng.randrange(2)] *= 2
        for _ in range(warps.bit_length() - 1):
            wpc[rng.randrange(2)] *= 2
        if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, (M, N))):
            return gl.BlockedLayout(spt, tpw, wpc, rng.choice([[1, 0], [0, 1]]))
    return gl.BlockedLayout([1, 1], [1, lanes], [warps, 1], [1, 0])
