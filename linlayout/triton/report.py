"""The ``linlayout check`` JSON contract for one TTGIR file, and whole-kernel totals.

One file::

    {"file": "k.ttgir", "target": "cuda:90", "hardware": "NVIDIA", "section": null,
     "ops": [AccessReport.to_dict(), …], "totals": kernel_totals(…)}

or, for a file that could not be read, ``{"file": …, "error": "…"}``. Each op carries
``"instructions": [{"side": "store"|"load"|…, "ptx"|"isa": opcode, "per_thread": N,
"vector_elems": v, "degree": d, "wavefronts_per_warp": w}, …]`` (``ptx`` on NVIDIA targets,
``isa`` on AMD), its ``"source"`` (``file.py:line`` from ``loc``), and ``"suggestion"`` /
``"alternative"`` when a better layout exists.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..hardware.model import HardwareModel
from .analysis import AccessReport
from .ttgir import TTGIRModule

__all__ = ["file_report", "kernel_totals"]


def kernel_totals(reports: Sequence[AccessReport]) -> dict:
    """Whole-kernel totals (straight-line code: each op once, loop bodies not multiplied):

    ``per_thread``: ``{opcode: instructions per thread}``; ``shared_bytes_per_thread``:
    ``{"load": B, "store": B}``; ``instructions_per_warp`` / ``wavefronts_per_warp`` /
    ``wavefront_floor``: sums over the counted instructions; ``ops``: ops reported;
    ``not_analysed``: ops skipped with a note.
    """
    per: Counter = Counter()
    nbytes = {"load": 0, "store": 0}
    ins = wf = floor = 0
    skipped = 0
    for r in reports:
        if r.note.startswith("not analysed"):
            skipped += 1
        for i in r.instructions:
            e = i.emitted
            if e.per_thread is None:
                continue
            per[e.opcode] += e.per_thread
            if e.side in nbytes:
                nbytes[e.side] += e.bytes_per_thread
        if r.instructions_per_warp is not None:
            ins += r.instructions_per_warp
            wf += r.wavefronts_per_warp or 0
            floor += r.wavefront_floor or 0
    return {"per_thread": dict(sorted(per.items())), "shared_bytes_per_thread": nbytes,
            "instructions_per_warp": ins, "wavefronts_per_warp": wf, "wavefront_floor": floor,
            "ops": len(reports), "not_analysed": skipped}


def file_report(path: str, module: TTGIRModule, reports: Sequence[AccessReport],
                hardware: HardwareModel) -> dict:
    """The JSON object of one checked file (see the module docstring)."""
    return {"file": path, "target": module.target, "threads_per_warp": module.threads_per_warp,
            "hardware": hardware.name, "section": module.section,
            "ops": [r.to_dict() for r in reports], "totals": kernel_totals(reports)}
