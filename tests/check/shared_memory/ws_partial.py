"""The bytes per thread of the instructions ``linlayout check`` reports without a count
(a width that Triton's shared-memory allocator decides), for the warp-specialisation
probes: shared by the probe test and ``papers/triton_lowering/warp_specialize_probes.py``."""

from __future__ import annotations

import re


def uncounted_bytes(ttgir: str) -> dict:
    """``{"load": bytes, "store": bytes}`` of the not-counted instructions of a module
    (their opcode text names the bytes: ``st.shared (state bytes: 8 bytes, …)``)."""
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    out = {"load": 0, "store": 0}
    for _, p in predict_module(read_ttgir(ttgir, "probe")):
        if isinstance(p, Exception):
            continue
        for s in p.sides:
            e = s.emitted
            if e.per_thread is None and e.side in out:
                m = re.search(r"(\d+) bytes", e.opcode)
                out[e.side] += int(m.group(1)) if m else 0
    return out
