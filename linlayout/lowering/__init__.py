"""How a compiler lowers one register ⇄ shared-memory copy: which instruction, at which
vector width, how many per thread — Triton 3.9's rules, shared by ``linlayout check`` (op by
op, :mod:`linlayout.check.shared_memory`) and the synthesizer (``synthesize_swizzle(...,
lowering="triton")`` costs each side as Triton will emit it).

* :mod:`.target` — :class:`Target`: the backend and architecture (``cuda:90``,
  ``hip:gfx950``) and the hardware model it implies;
* :mod:`.vectorise` — the conversion map of an access (:func:`access_map`),
  ``largestVectorisation`` (:func:`largest_vectorisation`) and the
  ``ldmatrix``/``stmatrix``/``ds_read_tr`` tiles (:func:`matrix_tile`);
* :mod:`.names` — opcode spellings (PTX, AMDGCN);
* :mod:`.emitted` — :class:`Emitted`, one instruction kind with its count per thread;
* :mod:`.local` — ``local_alloc``/``local_store``/``local_load`` (:func:`predict_local`) and
  async copies;
* :mod:`.scratch` — the scratch layout Triton builds for a ``convert_layout``
  (``GenericSwizzling.cpp``: :func:`triton_scratch_layout`);
* :mod:`.convert` — which path a ``convert_layout`` takes (:func:`convert_path`: none,
  registers, warp shuffles, shared memory), with :mod:`.decompose` (Triton's warp
  decomposition) and :mod:`.shuffle` (the shuffle lowering, counted and executable);
* after Triton, what LLVM's back ends do to the accesses: :mod:`.llvm_merge` (NVPTX's
  ``LoadStoreVectorizer``) and :mod:`.lds_pairs` (AMDGPU's ``LoadStoreVectorizer`` merges
  and ``SILoadStoreOptimizer`` pairs: ``ds_write_b128`` from narrow writes,
  ``ds_read2*``/``ds_write2*``).
"""

from .convert import ConvertPath, convert_path
from .emitted import Emitted
from .local import predict_async_copy, predict_local, predict_padded_local
from .scratch import ScratchPlan, triton_scratch_layout
from .target import Target
from .vectorise import AccessMap, access_map, largest_vectorisation, matrix_tile

__all__ = ["AccessMap", "ConvertPath", "Emitted", "ScratchPlan", "Target", "access_map",
           "convert_path", "largest_vectorisation",
           "matrix_tile", "predict_async_copy", "predict_local", "predict_padded_local",
           "triton_scratch_layout"]
