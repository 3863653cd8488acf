"""The compilation target of a TTGIR module (:class:`~linlayout.lowering.target.Target`).

``ttg.target`` is ``"cuda:<compute capability>"`` (``"cuda:80"``, ``"cuda:90"``,
``"cuda:100"``) or ``"hip:<gfx arch>"`` (``"hip:gfx942"``, ``"hip:gfx950"``); warps have
``ttg.threads-per-warp`` lanes (32 on NVIDIA, 64 on AMD CDNA). Source: Triton's
``GPUTarget`` and the module attributes printed by ``ttg``'s ``ConvertTritonToTritonGPU``.
"""

from __future__ import annotations

import re

from ..errors import LayoutError
from ..lowering.target import Target
from ..triton.limits import mlir_int

__all__ = ["Target", "parse_target"]


def parse_target(text: str | None, threads_per_warp: int = 32) -> Target:
    """The :class:`Target` of a ``ttg.target`` string; None means CUDA sm_80 for 32-lane
    modules and gfx942 for 64-lane ones.

    Raises:
        LayoutError: a target that is neither ``cuda:<int>`` nor ``hip:<gfx…>``.
    """
    if text is None:
        return Target("cuda", 80, 32) if threads_per_warp == 32 else \
            Target("hip", "gfx942", threads_per_warp)
    m = re.fullmatch(r"cuda:(\d+)", text.strip())
    if m:
        return Target("cuda", mlir_int(m.group(1), "ttg.target"), threads_per_warp)
    m = re.fullmatch(r"hip:(gfx\w+)", text.strip())
    if m:
        return Target("hip", m.group(1), threads_per_warp)
    raise LayoutError(f"unknown ttg.target {text!r}; expected 'cuda:<cc>' (e.g. 'cuda:90') or "
                      "'hip:<gfx arch>' (e.g. 'hip:gfx942')")
