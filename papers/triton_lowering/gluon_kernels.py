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
