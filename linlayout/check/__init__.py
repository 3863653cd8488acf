"""Kernel analysis: what a Triton kernel's shared-memory ops cost, op by op, as Triton 3.9
lowers them (``linlayout check``).

* :func:`check_module` (:mod:`.analysis`) — every op of a TTGIR module
  (:func:`linlayout.triton.read_ttgir`) with the instructions Triton emits and their exact
  bank conflicts, better layouts for conflicting buffers and synthesized scratch layouts for
  converts: a :class:`KernelReport` of :class:`OpReport` s (:mod:`.report`), each with an
  :class:`OpStatus`, :class:`InstructionReport` s, a :class:`Suggestion` and an
  :class:`Alternative`.
* :func:`check_file` / :func:`check_files` (:mod:`.files`) — the same from files on disk; a
  file that cannot be read is a :class:`FileError`, not an exception; :func:`passes` is the
  run's verdict (no op misaligned, no degree above the limit).
* :func:`render_text` / :func:`render_json` (:mod:`.render`) — the command line's two
  outputs, byte for byte.
* The lowering model underneath: :mod:`.target` (``ttg.target`` → hardware),
  :mod:`linlayout.lowering.emitted` (one instruction kind), :mod:`.shared_memory` (which
  shared-memory instructions each op lowers to), :mod:`.count` (their exact bank conflicts, cached),
  :mod:`.suggest` (the layout search for conflicting buffers).

Import it explicitly (``import linlayout.check``); ``import linlayout`` does not load it.

Example::

    >>> from linlayout.check import check_module
    >>> from linlayout.triton import read_ttgir
    >>> report = check_module(read_ttgir("tests/data/ttgir/transpose2.ttgir"))  # doctest: +SKIP
    >>> [(op.access.op, op.degree) for op in report.ops]                           # doctest: +SKIP
    [('local_alloc', 1), ('local_load', 8), ('local_store', 1), ('local_load', 8)]
"""

from .analysis import check_module, triton_vector_elems
from .files import (FileError, check_file, check_files, complete, misaligned_ops,
                    not_analysed_ops, not_counted_instructions, passes, worst_degree)
from .render import render_json, render_text, to_json
from .report import (Alternative, InstructionReport, KernelReport, KernelTotals, OpReport,
                     OpStatus, PermuteRange, StoreMerge, Suggestion)

__all__ = ["Alternative", "FileError", "InstructionReport", "KernelReport", "KernelTotals",
           "OpReport", "OpStatus", "PermuteRange", "StoreMerge", "Suggestion", "check_file", "check_files", "check_module",
           "complete", "misaligned_ops", "not_analysed_ops", "not_counted_instructions", "passes", "render_json", "render_text",
           "to_json", "triton_vector_elems", "worst_degree"]
