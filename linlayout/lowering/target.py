"""A compilation target: which backend and architecture a kernel is lowered for, and the
hardware model it implies.

A target is written as Triton's ``ttg.target`` spells it: ``"cuda:<compute capability>"``
(``"cuda:80"``, ``"cuda:90"``, ``"cuda:100"``) or ``"hip:<gfx arch>"`` (``"hip:gfx942"``,
``"hip:gfx950"``); warps have 32 lanes on NVIDIA and 64 on AMD CDNA. Source: Triton's
``GPUTarget``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..hardware.model import AMD_CDNA3, AMD_CDNA4, NVIDIA, HardwareModel

__all__ = ["Target"]


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
