"""Shared by the corpus tests: the fixture and the comparison of one file."""

from __future__ import annotations

from collections import Counter

from linlayout.check.shared_memory.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

from tests.check.shared_memory.asm_counts import lds_bytes
from tests.check.shared_memory.triton_fixtures import load


def corpus() -> dict:
    """``tests/data/triton_lowering.json.gz`` (written by papers/triton_lowering)."""
    return load("corpus")


def canonical(opcode: str) -> str:
    """sm_100's LLVM prints a 16-byte ``store <4 x i32>`` as ``.v2.b64`` or ``.v4.b32``."""
    return opcode.replace("shared.v2.b64", "shared.v4.b32")


def amd_bytes(op: dict) -> dict:
    """The LDS bytes per thread an AMD corpus op is compared on: a ``tt.scan``'s from the
    final AMDGCN attributed to it (``check`` counts the reloads that run: LLVM drops the
    unused reload of the last total, as on NVIDIA), every other op's from Triton's LLVM IR
    before the optimiser (``preopt_bytes``)."""
    if op["op"] == "tt.scan":
        b = lds_bytes(op["instructions"])
        return {k: b[k] for k in ("load", "store")}
    return op["preopt_bytes"]


def compare(name: str) -> tuple[object, object]:
    """(predicted, Triton's) for one corpus file: opcode counts on NVIDIA, LDS bytes per
    thread on AMD (:func:`amd_bytes`)."""
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
            want_bytes[k] += amd_bytes(o)[k] if amd else o["preopt_bytes"][k]
    if amd:
        return got_bytes, want_bytes
    return dict(got), dict(want)


def compare_ops(name: str) -> list[tuple[int, object, object]]:
    """Per TTGIR line, (line, predicted, Triton's) where they differ: opcodes on NVIDIA
    (final PTX attributed by ``.loc``), bytes per thread on AMD (:func:`amd_bytes`). The
    TMEM base address that ``tcgen05.alloc`` stores once per kernel is attributed by Triton to
    the function's line and by linlayout to the first ``tmem_alloc``: those lines are left
    out (the file totals include them)."""
    entry = corpus()["files"][name]
    amd = entry["target"].startswith("gfx")
    got: dict[int, tuple[dict, dict]] = {}
    skip = set()
    for a, p in predict_module(read_ttgir(entry["ttgir"], name)):
        if a.op == "tmem_alloc":
            skip.add(a.line)
        if isinstance(p, Exception):
            continue
        c: Counter = Counter()
        b = {"load": 0, "store": 0}
        for s in p.sides:
            e = s.emitted
            if e.per_thread is None or e.side == "none":
                continue
            c[canonical(e.opcode)] += e.per_thread
            if e.side in b:
                b[e.side] += e.bytes_per_thread
        got[a.line] = (dict(c), b)
    want = {}
    for o in entry["ops"]:
        if o["op"] == "tt.func":
            continue
        c = Counter()
        for k, v in o["instructions"].items():
            c[canonical(k)] += v  # two spellings of one opcode add up
        want[o["line"]] = (dict(c), amd_bytes(o) if amd else o["preopt_bytes"])
    zero = ({}, {"load": 0, "store": 0})
    out = []
    for line in sorted(set(got) | set(want)):
        if line in skip:
            continue
        g, w = got.get(line, zero), want.get(line, zero)
        k = 1 if amd else 0
        if g[k] != w[k]:
            out.append((line, g[k], w[k]))
    return out
