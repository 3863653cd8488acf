"""Which global-memory instructions Triton 3.9 emits for each TTGIR op, and what a warp's
access costs in 32-byte sectors and 128-byte lines.

* :mod:`.predict` — the vector width from AxisInfo (:mod:`linlayout.triton.axisinfo`) and
  the opcode (``ld.global.v4.b32``, ``cp.async.cg.shared.global``, ``global_load_dwordx4``),
  and on AMD the wider accesses LLVM's back end may merge a thread's run into
  (:class:`GlobalMerge`);
* :mod:`.cost` — sectors and lines by :func:`linlayout.global_memory.global_access` where the
  addresses are affine in the tensor index;
* :mod:`.suggest` — a ``tl.multiple_of``/``tl.max_contiguous`` hint or a costed blocked layout;
* :mod:`.report` — :class:`GlobalOpReport`; :mod:`.ops` — :func:`check_global`, every op.
"""

from .ops import check_global
from .predict import GlobalMerge, GlobalPrediction
from .report import GlobalOpReport

__all__ = ["GlobalMerge", "GlobalOpReport", "GlobalPrediction", "check_global"]
