"""Reading the shared-memory instruction counts the probe fixtures keep from Triton's
assembly: one canonical name per ``ld/st.shared`` width (NVIDIA) and LDS bytes per thread
(AMD), shared by the probe tests."""

from __future__ import annotations

import re


def canonical(opcode: str) -> str:
    """``st.shared.v2.b16`` and ``st.shared.b32`` -> ``st.shared/4B`` (NVPTX spells one width
    several ways, ``ld.shared.s8`` for a byte it compares signed); others unchanged."""
    m = re.fullmatch(r"(ld|st)\.shared(?:\.v(\d))?\.[bsu](\d+)", opcode)
    if not m:
        return opcode
    return f"{m.group(1)}.shared/{int(m.group(2) or 1) * int(m.group(3)) // 8}B"


def lds_bytes(counts: dict) -> dict:
    """LDS bytes per thread of AMDGCN loads and stores (``ds_read2st64_b64`` = 2 × 8 bytes,
    ``ds_read_b64_tr_b16`` = 8, ``ds_write_b16_d16_hi`` = 2, ``ds_read_i8`` = 1) and, when
    there are some, ``atomic``: the number of LDS atomics (``ds_add_*``, ``ds_max_*``, …)."""
    out = {"load": 0, "store": 0}
    for k, n in counts.items():
        if re.match(r"ds_(add|max|min)", k):
            out["atomic"] = out.get("atomic", 0) + n
            continue
        m = re.match(r"ds_(read|write)(2st64|2)?_[biu](\d+)", k)
        assert m, f"unknown LDS opcode {k}"
        pairs = 2 if m.group(2) else 1
        out["load" if m.group(1) == "read" else "store"] += n * pairs * int(m.group(3)) // 8
    return out


def ptx_counts(counts: dict) -> dict:
    """The assembly's opcode counts by :func:`canonical` name (spellings of one width summed)."""
    out: dict = {}
    for k, n in counts.items():
        out[canonical(k)] = out.get(canonical(k), 0) + n
    return out


def predicted_counts(ttgir: str, name: str) -> tuple[dict, dict]:
    """What ``linlayout`` predicts for a module: per-thread counts by :func:`canonical` opcode,
    and LDS-style totals (``load``/``store`` bytes per thread, ``atomic``: atomics per
    thread, present only when there are some)."""
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    got: dict = {}
    totals = {"load": 0, "store": 0}
    for _, p in predict_module(read_ttgir(ttgir, name)):
        assert not isinstance(p, Exception), p
        for s in p.sides:
            e = s.emitted
            if e.per_thread is None:
                continue
            got[canonical(e.opcode)] = got.get(canonical(e.opcode), 0) + e.per_thread
            if e.side == "atomic":
                totals["atomic"] = totals.get("atomic", 0) + e.per_thread
            else:
                totals[e.side] += e.bytes_per_thread
    return got, totals
