"""Which shared-memory instructions Triton 3.9.0 emits for each TTGIR op.

* :mod:`.target` — ``ttg.target`` → :class:`Target` and its hardware model;
* :mod:`.vectorise` — the conversion map of an access, ``largestVectorisation`` and the
  ``ldmatrix``/``stmatrix``/``ds_read_tr`` tiles;
* :mod:`.names` — opcode spellings (PTX, AMDGCN);
* :mod:`.local` — ``local_alloc``/``local_store``/``local_load`` and async copies;
* :mod:`.scratch` — the scratch layout of ``convert_layout`` (``GenericSwizzling.cpp``);
* :mod:`.predict` — op-by-op dispatch, private scratch of reductions/histograms/atomics, named
  TMA/MMA/tensor-memory ops.
"""

from ..emitted import Emitted
from .predict import (Prediction, Side, moved_bits, predict_convert, predict_copy,
                      predict_named, predict_private, to_offsets)
from .scratch import ScratchPlan, triton_scratch_layout
from ..target import Target, parse_target
from .vectorise import AccessMap, access_map, largest_vectorisation, matrix_tile

__all__ = ["AccessMap", "Emitted", "Prediction", "ScratchPlan", "Side", "Target",
           "access_map", "largest_vectorisation", "matrix_tile", "moved_bits",
           "parse_target", "predict_convert", "predict_copy", "predict_named",
           "predict_private", "to_offsets", "triton_scratch_layout"]
