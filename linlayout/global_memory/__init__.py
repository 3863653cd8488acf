"""The exact cost of a warp's global-memory access: sectors, lines, the floor, coalescing.

* :func:`global_access` — the closed form for F₂-linear placements (a subspace-dimension
  count), enumeration otherwise;
* :func:`simulate_global_access` — the brute-force simulator, the closed form's ground truth;
* :class:`GlobalAccessReport` — what both return.

Modules, each importing only those before it and the layers below (the access rule
:func:`linlayout.hardware.access.alignment_log2` among them): :mod:`.report`, :mod:`.plan`
(validation and element offsets), :mod:`.simulate`, :mod:`.access`. The model:
``docs/hardware-model.md``, "Global memory".
"""

from .access import global_access
from .report import GlobalAccessReport
from .simulate import simulate_global_access

__all__ = ["GlobalAccessReport", "global_access", "simulate_global_access"]
