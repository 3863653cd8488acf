"""Register instructions of the ops that exchange data between lanes without shared memory:
the butterfly shuffles of ``tt.reduce`` (:mod:`.reduce`), the shuffles of ``tt.scan``
(:mod:`.scan`) and of a warp-local ``tt.gather`` (:mod:`.gather`). A ``convert_layout``'s own
shuffles come from :func:`linlayout.lowering.convert_path`, told by :mod:`.producers` where a
loaded source's elements sit (or that a float truncation packs them itself, or that a gather
or reduction left them in 32-bit registers, or what an AMD scan or reduction left in each),
and by :mod:`.consumers` where a global store writes its result. On AMD a reduction of a
broadcast operand (an argmax's indices) emits its first shuffle once per distinct value
(:mod:`.broadcast_operands`)."""

from .broadcast_operands import share_broadcast_shuffles
from .byte_readers import widen_loaded_bytes
from .consumers import MERGE_WORDS, pack_stored_words, store_destinations, widen_split_loads
from .gather import gather_shuffles, is_warp_local
from .private import with_registers
from .producers import (load_sources, load_vectors, produced_values, scalar_sources,
                        truncated_sources, truncated_words, wide_sources)
from .reduce import reduce_shuffles
from .scalar_bytes import move_scalar_byte_permutes
from .scan import scan_shuffles
from .selects import share_selector_selects

__all__ = ["MERGE_WORDS", "gather_shuffles", "is_warp_local", "load_sources", "load_vectors",
           "move_scalar_byte_permutes", "pack_stored_words", "produced_values",
           "reduce_shuffles", "scalar_sources", "scan_shuffles", "share_broadcast_shuffles",
           "share_selector_selects",
           "store_destinations", "truncated_sources", "truncated_words", "wide_sources",
           "widen_loaded_bytes",
           "widen_split_loads", "with_registers"]
