"""Random Triton encodings, for tests, fuzzing and experiments.

:func:`random_distributed` draws a distributed encoding of the kinds Triton's NVIDIA backend
uses for 2-D tiles — ``#ttg.blocked`` (random contiguity, thread and warp split, order),
``#ttg.nvidia_mma`` (versions 2 and 3) and ``#ttg.dot_op`` of an mma v2 parent (operand A or
B, ``kWidth = 32 / element_bits``, Triton's choice for ``mma.sync``) — and
:func:`random_pair` a (store, load) pair of them on one tile, as a ``convert_layout`` or a
``local_alloc`` / ``local_load`` through shared memory would see it. Draws are reproducible
from the ``random.Random`` passed in.

Example::

    >>> import random
    >>> store, load, bits, what = random_pair(random.Random(0))
    >>> store.out_dims == load.out_dims
    True
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ..._checks import shown
from ...errors import LayoutError
from ...layout import LinearLayout
from .base import Encoding
from .distributed import blocked
from .dot import dot_operand
from .mma import nvidia_mma

__all__ = ["random_distributed", "random_pair"]

#: The kinds :func:`random_distributed` draws from.
KINDS = ("blocked", "mma_v2", "mma_v3", "dot_a", "dot_b")


def random_distributed(rng: random.Random, *, num_warps: int = 4, element_bits: int = 16,
                       kinds: Sequence[str] = KINDS) -> tuple[Encoding, str]:
    """A random 2-D distributed encoding and a short description of it.

    Args:
        rng: the source of randomness.
        num_warps: warps per CTA (1, 2, 4 or 8).
        element_bits: bits per element (sets a dot operand's ``kWidth``).
        kinds: which of :data:`KINDS` to draw from.

    Raises:
        LayoutError: an unknown kind or an unsupported ``num_warps``.
    """
    if num_warps not in (1, 2, 4, 8):
        raise LayoutError(f"num_warps must be 1, 2, 4 or 8, got {shown(num_warps)}")
    unknown = [k for k in kinds if k not in KINDS]
    if unknown or not kinds:
        raise LayoutError(f"kinds must be among {KINDS}, got {list(kinds)}")
    kind = rng.choice(list(kinds))
    if kind == "blocked":
        order = rng.choice([[1, 0], [0, 1]])
        spt = [1, 1]
        spt[order[0]] = rng.choice([1, 2, 4, 8])
        fast = rng.choice([1, 2, 4, 8, 16, 32])
        tpw = [1, 1]
        tpw[order[0]], tpw[order[1]] = fast, 32 // fast
        w0 = rng.choice([w for w in (1, 2, 4, 8) if w <= num_warps])
        enc = blocked(spt, tpw, [w0, num_warps // w0], order)
        return enc, f"blocked(spt={spt}, tpw={tpw}, wpc={[w0, num_warps // w0]}, order={order})"
    if kind == "mma_v3" and num_warps >= 4:
        n = 8 * rng.choice([1, 2, 4, 8])
        return nvidia_mma(3, [num_warps, 1], [16, n, 16]), f"mma v3 (instr 16x{n}x16)"
    wpc = rng.choice([[num_warps, 1], [1, num_warps]] +
                     ([[num_warps // 2, 2]] if num_warps >= 2 else []))
    mma = nvidia_mma(2, wpc, [16, 8])
    if kind in ("dot_a", "dot_b"):
        op = 0 if kind == "dot_a" else 1
        k_width = max(1, 32 // element_bits)
        return dot_operand(op, mma, k_width=k_width), \
            f"dot operand {'AB'[op]} of mma v2 (wpc={wpc}, kWidth={k_width})"
    return mma, f"mma v2 (wpc={wpc})"


def random_pair(rng: random.Random, *, shapes: Sequence[int] = (32, 64, 128),
                element_bits: Sequence[int] = (8, 16, 32),
                num_warps: Sequence[int] = (1, 2, 4)
                ) -> tuple[LinearLayout, LinearLayout, int, str]:
    """A random (store, load) pair of distributed layouts on one 2-D tile.

    Returns:
        ``(store, load, element_bits, description)``.
    """
    while True:
        bits = rng.choice(list(element_bits))
        shape = [rng.choice(list(shapes)), rng.choice(list(shapes))]
        warps = rng.choice(list(num_warps))
        try:
            (a, da), (b, db) = (random_distributed(rng, num_warps=warps, element_bits=bits)
                                for _ in range(2))
            store, load = a.to_linear_layout(shape), b.to_linear_layout(shape)
        except LayoutError:  # a combination Triton does not allow for this shape
            continue
        return store, load, bits, f"{shape[0]}x{shape[1]} {bits}-bit, {warps} warps: {da} -> {db}"
