"""Register instructions of the ops that exchange data between lanes without shared memory:
the butterfly shuffles of ``tt.reduce`` (:mod:`.reduce`) and the shuffles of ``tt.scan``
(:mod:`.scan`). A ``convert_layout``'s own shuffles come from
:func:`linlayout.lowering.convert_path`."""

from .private import with_registers
from .reduce import reduce_shuffles
from .scan import scan_shuffles

__all__ = ["reduce_shuffles", "scan_shuffles", "with_registers"]
