"""Exact shared-memory bank-conflict counts: the closed form and the brute-force simulator.

* :func:`bank_conflicts` (:mod:`.closed_form`) — degree and wavefronts of a warp's access in
  closed form: Lemma 9.4 of the Linear Layouts paper (arXiv 2505.23819), generalised to
  sub-word accesses; ldmatrix/stmatrix by their row groups.
* :func:`simulate_bank_access` (:mod:`.simulate`) — the same numbers by enumerating every
  lane's bank words, with no subspace algebra: the ground truth the closed form is tested
  against.
* :class:`ConflictReport` — what both return.

Both also take a :class:`~linlayout.layout.padded.PaddedLayout` as memory (counted by
:mod:`.padded`: the closed form when the padding is row-aligned, else per-phase enumeration)
and AMD LDS mnemonics as ``instruction`` (:mod:`.lds`).
"""

from .closed_form import bank_conflicts
from .report import ConflictReport
from .simulate import simulate_bank_access

__all__ = ["ConflictReport", "bank_conflicts", "simulate_bank_access"]
