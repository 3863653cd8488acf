"""The compilation target of a TTGIR module and the hardware model it implies.

``ttg.target`` is ``"cuda:<compute capability>"`` (``"cuda:80"``, ``"cuda:90"``,
``"cuda:100"``) or ``"hip:<gfx arch>"`` (``"hip:gfx942"``, ``"hip:gfx950"``); warps have
``ttg.threads-per-warp`` lanes (32 on NVIDIA, 64 on AMD CDNA). Source: Triton's
``GPUTarget`` and the module attributes printed by ``ttg``'s ``ConvertTritonToTritonGPU``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import LayoutError
from ..hardware.model import AMD_CDNA3, AMD_CDNA4, NVIDIA, HardwareModel
from ..triton.limits import mlir_int

__all__ = ["Target", "parse_target"]


@dataclass(frozen=True)
class Target:
    """A compilation target.

    Attributes:
        backend: ``"cuda"`` or ``"hip"``.
        arch: compute capability as an int for CUDA (80, 90, 100), the gfx name for HIP.
        threads_per_warp: lanes per warp.
    """

    backend: str
    arch: int | str
    threads_per_warp: int = 32

    @property
    def is_nvidia(self) -> bool:
        """True for CUDA targets."""
        return self.backend == "cuda"

    @property
    def cc(self) -> int:
        """The CUDA compute capability (0 on AMD)."""
        return self.arch if isinstance(self.arch, int) else 0

    @property
    def has_ds_read_tr(self) -> bool:
        """AMD CDNA4 (gfx950) has ``ds_read_b64_tr_b16``/``_b8``."""
        return self.arch == "gfx950"

    @property
    def name(self) -> str:
        """``"cuda:90"``, ``"hip:gfx942"``."""
        return f"{self.backend}:{self.arch}"

    def hardware(self) -> HardwareModel:
        """The bank model: NVIDIA for CUDA, AMD_CDNA4 for gfx950, AMD_CDNA3 for other HIP
        targets (and any 64-lane module)."""
        if self.is_nvidia and self.threads_per_warp == 32:
            return NVIDIA
        if self.arch == "gfx950":
            return AMD_CDNA4
        return AMD_CDNA3


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
