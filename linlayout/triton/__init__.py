"""Triton interop: Triton's layout encodings, its MLIR text, and whole TTGIR files.

* :mod:`~linlayout.triton.encodings` — the encodings (:func:`blocked`, :func:`slice`,
  :func:`nvidia_mma`, :func:`dot_operand`, :func:`amd_mfma`, :func:`amd_wmma`, :func:`linear`,
  :func:`generic_linear`, :func:`swizzled_shared`, :func:`nvmma_shared`,
  :func:`amd_rotating_shared`, :func:`shared_linear`) and ``enc.to_linear_layout(shape)``, bit-exact with Triton 3.9's
  ``toLinearLayout``.
* :mod:`~linlayout.triton.parse` — :func:`parse_type` / :func:`parse_attribute` for MLIR text
  (``tensor<64x64xf16, #ttg.blocked<{…}>>``, ``!ttg.memdesc<…>``).
* :mod:`~linlayout.triton.ttgir` — :func:`read_ttgir` (text or a path; ``MLIR_ENABLE_DUMP``
  sections) and :func:`find_accesses`.
* :mod:`~linlayout.triton.to_triton` — :func:`to_triton_text`: a shared layout as Triton text.
* :mod:`~linlayout.triton.recognize` — :func:`recognize_distributed`: the named encoding
  (mma, dot operand, blocked) equal to a distributed layout.
* :mod:`~linlayout.triton.gluon` — :func:`to_gluon`: a layout as Gluon source
  (``gl.NVMMASharedLayout(...)``, ``gl.DistributedLinearLayout(...)``, …).

Out dims are ``dim0, dim1, …`` in Triton's order (``dim0`` is the first index of the shape).

Import it explicitly (``import linlayout.triton``); ``import linlayout`` does not load it.
Nothing here imports the ``triton`` package.

Example::

    >>> from linlayout import bank_conflicts
    >>> from linlayout.triton import parse_type
    >>> reg = parse_type("tensor<64x64xf16, #ttg.blocked<{sizePerThread = [8, 1], "
    ...                  "threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>>")
    >>> smem = parse_type("!ttg.memdesc<64x64xf16, #ttg.swizzled_shared<{vec = 8, perPhase = 8, "
    ...                   "maxPhase = 8, order = [1, 0]}>, #ttg.shared_memory, mutable>")
    >>> bank_conflicts(reg.layout, smem.layout, element_bits=16).degree
    1
"""

from . import encodings
from .encodings import *  # noqa: F403 - exactly encodings.__all__
from .parse import (
    MemorySpace,
    TritonType,
    element_bits,
    parse_aliases,
    parse_attribute,
    parse_encoding,
    parse_type,
)
from .gluon import gluon_source, to_gluon
from .recognize import recognize_distributed
from .to_triton import express, to_offset_layout, to_triton_text
from .ttgir import Access, Op, TTGIRModule, find_accesses, read_ttgir

__all__ = [
    *encodings.__all__,
    "Access",
    "MemorySpace",
    "Op",
    "TTGIRModule",
    "TritonType",
    "element_bits",
    "express",
    "find_accesses",
    "gluon_source",
    "parse_aliases",
    "parse_attribute",
    "parse_encoding",
    "parse_type",
    "read_ttgir",
    "recognize_distributed",
    "to_gluon",
    "to_offset_layout",
    "to_triton_text",
]
