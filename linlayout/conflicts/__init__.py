"""Exact shared-memory bank-conflict counts: the closed form and the brute-force simulator.

* :func:`bank_conflicts` — degree and wavefronts of a warp's access in closed form: Lemma 9.4
  of the Linear Layouts paper (arXiv 2505.23819), generalised to sub-word accesses;
  ldmatrix/stmatrix by their row groups.
* :func:`simulate_bank_access` — the same numbers by enumerating every lane's bank words, with
  no subspace algebra: the ground truth the closed form is tested against.
* :class:`ConflictReport` — what both return.

Both also take a :class:`~linlayout.layout.padded.PaddedLayout` as memory and AMD LDS
mnemonics as ``instruction``. The modules, each importing only those before it (and the
layers below the package; nothing imports upward):

* :mod:`.report` — :class:`ConflictReport`;
* :mod:`linlayout.hardware.access` (below this package) — the ``ld/st.shared`` access rule:
  the vector width and its alignment, shared with the swizzle synthesizer;
* :mod:`.closed_form` and :mod:`.simulate` — the engines on linear layouts;
* :mod:`.padded` — padded layouts (closed form when row-aligned, else per-phase
  enumeration), an adapter that calls the engines;
* :mod:`.lds` — AMD LDS instructions, an adapter that calls the engines and :mod:`.padded`;
* :mod:`.dispatch` — the public :func:`bank_conflicts` and :func:`simulate_bank_access`,
  routing to the three.
* :mod:`.explain` — :func:`~.explain.explain_conflicts`: the lanes, banks and words behind a
  count, and the colliding offset bits of Lemma 9.4 (above :mod:`.dispatch`).
"""

from .dispatch import bank_conflicts, simulate_bank_access
from .report import ConflictReport

__all__ = ["ConflictReport", "bank_conflicts", "simulate_bank_access"]
