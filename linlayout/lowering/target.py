"""A compilation target: which backend and architecture a kernel is lowered for, and the
hardware model it implies.

A target is written as Triton's ``ttg.target`` spells it: ``"cuda:<compute capability>"``
(``"cuda:80"``, ``"cuda:90"``, ``"cuda:100"``) or ``"hip:<gfx arch>"`` (``"hip:gfx942"``,
``"hip:gfx950"``); warps have 32 lanes on NVIDIA and 64 on AMD CDNA. Source: Triton's
``GPUTarget``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._checks import shown
from ..errors import LayoutError
from ..hardware.model import AMD_CDNA3, AMD_CDNA4, NVIDIA, HardwareModel

__all__ = ["TARGETS", "Target", "default_target", "target_for"]

#: The targets Triton 3.9 was checked on (``check`` reads any ``cuda:<cc>``/``hip:<gfx>``).
TARGETS = ("cuda:80", "cuda:90", "cuda:100", "hip:gfx942", "hip:gfx950")


@dataclass(frozen=True)
class Target:
    """A compilation target.

    Attributes:
        backend: ``"cuda"`` or ``"hip"``.
        arch: compute capability as an int for CUDA (80, 90, 100), the gfx name for HIP.
        threads_per_warp: lanes per warp.

    Source: Triton's ``GPUTarget`` (backend, arch, warp size; module docstring).
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

    def scratch_options(self) -> dict:
        """The keyword arguments of :func:`~linlayout.lowering.triton_scratch_layout` for this
        target: ``stmatrix`` (sm_90+), ``ldmatrix`` (sm_75+), ``bank_bits`` (one row of banks
        of :meth:`hardware`) and ``amd_load_lanes`` (the lanes of one ``ds_read_b128``
        wavefront: ``(0, 1, 3, 4)`` on gfx950, ``(0, 1, 4)`` on other AMD targets, None on
        NVIDIA), as Triton 3.9's ``getSrcDstTiles``/``getSharedLdStTiles`` choose them."""
        hw = self.hardware()
        return {"stmatrix": self.is_nvidia and self.cc >= 90,
                "ldmatrix": self.is_nvidia and self.cc >= 75,
                "bank_bits": hw.num_banks * hw.bank_bytes * 8,
                "amd_load_lanes": None if self.is_nvidia else
                (0, 1, 3, 4) if self.has_ds_read_tr else (0, 1, 4)}

    @classmethod
    def parse(cls, text: str) -> Target:
        """The target ``text`` names: ``"cuda:<cc>"`` (``"cuda:90"``) or ``"hip:<gfx arch>"``
        (``"hip:gfx942"``); also ``"sm90"``/``"sm_90"`` and a bare ``"gfx950"``. 32 lanes
        per warp on CUDA, 64 on HIP.

        Raises:
            LayoutError: anything else.
        """
        if isinstance(text, Target):
            return text
        if not isinstance(text, str):
            raise LayoutError(f"target must be a string such as 'cuda:90' or 'hip:gfx942', "
                              f"got {shown(text)}")
        t = text.strip().lower()
        m = re.fullmatch(r"(?:cuda:|sm_?)(\d{2,3})", t)
        if m:
            return cls("cuda", int(m.group(1)), 32)
        m = re.fullmatch(r"(?:hip:)?(gfx[0-9a-f]{3,4})", t)
        if m:
            return cls("hip", m.group(1), 64)
        raise LayoutError(f"unknown target {shown(text)}; expected 'cuda:<cc>' (e.g. "
                          "'cuda:90', or 'sm90') or 'hip:<gfx arch>' (e.g. 'hip:gfx942')")


def default_target(hardware: HardwareModel) -> Target:
    """The target a hardware preset stands for when none is named: ``cuda:90`` for NVIDIA,
    ``hip:gfx950`` for AMD_CDNA4, ``hip:gfx942`` for AMD_CDNA3 (and other 64-lane models).

    Raises:
        LayoutError: a model that matches no Triton target (not 32 or 64 lanes).
    """
    if hardware.warp_size == 32:
        return Target("cuda", 90, 32)
    if hardware.warp_size == 64:
        return Target("hip", "gfx950" if hardware.name == AMD_CDNA4.name else "gfx942", 64)
    raise LayoutError(f"no Triton target has {hardware.warp_size}-lane warps; name one with "
                      "target=")


def target_for(target: str | Target | None, hardware: HardwareModel) -> Target:
    """``target`` parsed (:meth:`Target.parse`), or ``hardware``'s own
    (:func:`default_target`) when it is None; the target must have the model's warp size.

    Raises:
        LayoutError: an unknown target, or one whose warp size differs from ``hardware``'s
            (the message names the preset to give instead).
    """
    t = default_target(hardware) if target is None else Target.parse(target)
    if t.threads_per_warp != hardware.warp_size:
        raise LayoutError(f"target {t.name} has {t.threads_per_warp}-lane warps but the "
                          f"hardware model {hardware.name} has {hardware.warp_size}; give "
                          f"hardware={t.hardware().name} (or leave it out)")
    return t
