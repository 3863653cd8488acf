"""Which shared-memory instructions Triton 3.9.0 emits for each TTGIR op.

The instruction model of one register ⇄ shared copy (vector width, ``ldmatrix``/``stmatrix``,
AMD LDS instructions, opcode spellings) and Triton's scratch layout for converts
(``GenericSwizzling.cpp``) are :mod:`linlayout.lowering`, shared with the synthesizer; this
package applies them op by op:

* :mod:`.reduce`, :mod:`.scan` — the rounds of ``tt.reduce`` and the reloads of ``tt.scan``;
* :mod:`.sunk_loads` — the loads ptxas sinks below the early exit of the store ending the
  kernel, run only by the warps that store;
* :mod:`.predict` — op-by-op dispatch, private scratch of reductions/histograms/atomics, named
  TMA/MMA/tensor-memory ops;
* :mod:`.ops` — every op of a module, cached per layouts.
"""

from .predict import (Prediction, Side, moved_bits, predict_convert, predict_copy,
                      predict_named, predict_private, to_offsets)
from .sunk_loads import SunkStore, executing_warps, sunk_loads_per_thread

__all__ = ["Prediction", "Side", "SunkStore", "executing_warps", "moved_bits",
           "predict_convert", "predict_copy", "predict_named", "predict_private",
           "sunk_loads_per_thread", "to_offsets"]
