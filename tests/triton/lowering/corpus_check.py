"""Shared by the corpus tests: the fixture and the comparison of one file."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from functools import lru_cache

from linlayout.triton.lowering.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

from tests.support import DATA


@lru_cache(maxsize=1)
def corpus() -> dict:
    """``tests/data/triton_lowering.json.gz`` (written by papers/triton_lowering)."""
    return json.loads(gzip.decompress((DATA / "triton_lowering.json.gz").read_bytes()))


def canonical(opcode: str) -> str:
    """sm_100's LLVM prints a 16-byte ``store <4 x i32>`` as ``.v2.b64`` or ``.v4.b32``."""
    return opcode.replace("shared.v2.b64", "shared.v4.b32")


def compare(name: str) -> tuple[object, object]:
    """(predicted, Triton's) for one corpus file: opcode counts on NVIDIA, LDS bytes per
    thread on AMD."""
    entry = corpus()["files"][name]
    module = read_ttgir(entry["ttgir"], name)
    amd = entry["target"].startswith("gfx")
    got: Counter = Counter()
    got_bytes = {"load": 0, "store": 0}
    for _, p in predict_module(module):
        if isinstance(p, Exception):
            continue
        for s in p.sides:
            e = s.emitted
            if e.per_thread is None or e.side == "none":
                continue
            got[canonical(e.opcode)] += e.per_thread
            if e.side in got_bytes:
                got_bytes[e.side] += e.bytes_per_thread
    want: Counter = Counter()
    want_bytes = {"load": 0, "store": 0}
    for o in entry["ops"]:
        for k, v in o["instructions"].items():
            want[canonical(k)] += v
        for k in want_bytes:
            want_bytes[k] += o["preopt_bytes"][k]
    if amd:
        return got_bytes, want_bytes
    return dict(got), dict(want)
