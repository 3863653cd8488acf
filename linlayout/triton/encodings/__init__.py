"""Triton's layout encodings as values, and their ``toLinearLayout`` conversions.

Each class is one Triton attribute (``#ttg.blocked<…>``, ``#ttg.nvmma_shared<…>``, …) with
the same parameters. An encoding does not fix a shape; ``enc.to_linear_layout(shape)`` does,
exactly as Triton's ``toLinearLayout(shape, attr)``: the result is bit for bit Triton's layout
(same in dims, same order of bases, same out dims ``dim0, dim1, …`` in that order), checked
against Triton 3.9 by the fixtures in ``tests/data/triton_layouts.json``. Every conversion is
built from :class:`linlayout.LinearLayout` operations, step for step as Triton's.

* Distributed encodings map ``register, lane, warp, block`` to ``dim0 … dim{rank-1}``.
* Shared encodings map ``offset`` (element offset in one CTA's buffer) and ``block`` to
  ``dim0 …``. Pass the *allocation* shape (Triton's ``toLinearLayout(MemDescType)`` does).

``dim0`` is the first index of the shape (the row of a 2-D tensor). Triton lists out dims in
that order; keep it when comparing with Triton. For :func:`linlayout.bank_conflicts` the
order does not matter (out dims are matched by name).

The lower-case functions (:func:`blocked`, :func:`nvmma_shared`, …) build encodings with
keyword names taken from Gluon (``size_per_thread`` …); :mod:`linlayout.triton.parse` builds
the same objects from MLIR text.

Modules:

* :mod:`~linlayout.triton.encodings.base` — :class:`Encoding`, :class:`CGALayout`,
  ``combineCtaCgaWithShape`` and the parameter checks;
* :mod:`~linlayout.triton.encodings.registry` — the classes by MLIR mnemonic: each class
  declares its mnemonic and keys and reads its attribute body (``from_attribute``); each
  prints itself (``text()``) and its Gluon constructor (``gluon()``);
* :mod:`~linlayout.triton.encodings.construct` — Triton's layout-building helpers
  (``identity1D`` of size 0, ``ensureLayoutNotLargerThan``, ``identityStandardND``, …);
* :mod:`~linlayout.triton.encodings.distributed` — blocked, slice, linear, generic_linear;
* :mod:`~linlayout.triton.encodings.mma` — nvidia_mma, amd_mfma, amd_wmma;
* :mod:`~linlayout.triton.encodings.dot` — dot_operand;
* :mod:`~linlayout.triton.encodings.padded` — padded_shared (no linear layout:
  ``to_padded_layout(shape)`` gives a :class:`~linlayout.layout.padded.PaddedLayout`);
* :mod:`~linlayout.triton.encodings.shared` — swizzled_shared, amd_rotating_shared,
  nvmma_shared, shared_linear;
* :mod:`~linlayout.triton.encodings.sampling` — random encodings and (store, load) pairs.

Example::

    >>> from linlayout.triton import blocked
    >>> enc = blocked(size_per_thread=[1, 4], threads_per_warp=[8, 4],
    ...               warps_per_cta=[4, 1], order=[1, 0])
    >>> L = enc.to_linear_layout([32, 16])
    >>> L.bases["lane"][:2], L.out_dims
    ([[0, 4], [0, 8]], {'dim0': 32, 'dim1': 16})

Source: ``lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp`` (Triton 3.9); the function
each class mirrors is named in its docstring.
"""

from . import distributed, dot, mma, padded, shared
from .base import CGALayout, Encoding, cga_layout_from_split
from .distributed import *  # noqa: F403 - each module's __all__
from .dot import *  # noqa: F403
from .mma import *  # noqa: F403
from .padded import *  # noqa: F403
from .shared import *  # noqa: F403

#: The package's names: the encoding modules' ``__all__`` plus the base names every encoding
#: shares (the ``check_*`` helpers of :mod:`.base` and the :mod:`.registry` stay in their
#: modules).
__all__ = sorted({"CGALayout", "Encoding", "cga_layout_from_split",
                  *distributed.__all__, *dot.__all__, *mma.__all__, *padded.__all__,
                  *shared.__all__})
