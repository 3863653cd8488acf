#!/usr/bin/env python
"""Reduce the Triton 3.9.0 corpus written by ``corpus.py`` to the test fixture
``tests/data/triton_lowering.json.gz``.

Usage (after ``python corpus.py``, which needs ``pip install triton==3.9.0``; CPU only)::

    python make_fixture.py [--corpus DIR] [--out FILE] [--check]

For every compiled (kernel, target) file the fixture keeps the TTGIR text and, per TTGIR op,
the shared-memory instructions of the final PTX/AMDGCN attributed to it (``instructions``:
opcode → static count per thread) and the bytes per thread of Triton's own LLVM IR before
LLVM's optimiser (``preopt_bytes``: ``load`` and ``store``). The tests compare
``linlayout check``'s prediction with these:

* NVIDIA: the per-thread counts summed by opcode over the file must equal the PTX opcodes
  summed the same way (``st.shared.v2.b64`` and ``st.shared.v4.b32`` both move 16 bytes and
  are printed interchangeably by the sm_100 backend);
* AMD: LDS bytes per thread for loads and for stores, because LLVM's ``SILoadStoreOptimizer``
  merges pairs into ``ds_read2*``/``ds_write2*`` and the backend duplicates loop code, so
  opcodes and static counts of the final AMDGCN are not Triton's per-op decision.

Only shared-memory instructions are kept (``ld/st.shared*``, ``ldmatrix``/``stmatrix``,
``cp.async.ca/cg``, shared atomics, ``ds_*`` except ``ds_bpermute`` which touches no LDS,
``global_load_lds*``, ``buffer_load* lds``); barriers, shuffles, mbarriers, TMA and MMA
instructions are dropped.
"""

from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SMEM = re.compile(r"^(ld|st)\.shared|^(ld|st)matrix|^cp\.async\.(ca|cg)\.|^atom\..*shared|"
                  r"^ds_(?!bpermute)|^global_load_lds|^buffer_load\w* lds")
_BYTES = {"half": 2, "float": 4, "double": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
          "bfloat": 2, "ptr": 8}
_ASYNC = {"global_load_lds_dwordx4": 16, "global_load_lds_dword": 4,
          "buffer_load_dwordx4 lds": 16, "buffer_load_dword lds": 4}


def llir_bytes(llir: dict, instructions: dict) -> dict:
    """Bytes per thread Triton's LLVM IR moves: ``load <4 x half>`` = 8 …; AMD transposed
    reads are 8 bytes; direct-to-LDS copies are sized from their instruction names."""
    out = {"load": 0, "store": 0}
    for k, n in llir.items():
        m = re.match(r"(load|store) (?:<(\d+) x (\w+)>|(\w+))$", k)
        if m:
            count = int(m.group(2) or 1)
            ty = m.group(3) or m.group(4)
            out[m.group(1)] += n * count * _BYTES.get(ty, 0)
        elif "ds.read.tr" in k:
            out["load"] += n * 8
    for k, n in instructions.items():
        if k in _ASYNC:
            out["store"] += n * _ASYNC[k]
    return out


def build(corpus: pathlib.Path) -> dict:
    exp = json.loads((corpus / "expected.json").read_text())
    files = {}
    for name, e in sorted(exp["files"].items()):
        if e.get("status", "ok") != "ok":
            continue
        text = (corpus / name).read_text()
        ops = []
        for o in e["ops"]:
            ins = {k: v for k, v in o["instructions"].items() if SMEM.match(k)}
            b = llir_bytes(o.get("llir_preopt", {}), o["instructions"])
            if ins or b["load"] or b["store"]:
                ops.append({"line": o["line"], "op": o["op"], "instructions": ins,
                            "preopt_bytes": b})
        files[name] = {"target": e["target"], "ttgir": text, "ops": ops,
                       "attribution_ok": e.get("attribution_ok", True)}
    return {"triton_version": exp.get("triton_version", "3.9.0"), "files": files}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=pathlib.Path, default=HERE / "corpus")
    ap.add_argument("--out", type=pathlib.Path,
                    default=ROOT / "tests" / "data" / "triton_lowering.json.gz")
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args(argv)
    data = build(args.corpus)
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    if args.check:
        old = json.loads(gzip.decompress(args.out.read_bytes()))
        same = old == data
        print("fixture up to date" if same else "fixture differs")
        return 0 if same else 1
    args.out.write_bytes(gzip.compress(blob, mtime=0))
    print(f"wrote {args.out} ({len(data['files'])} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
