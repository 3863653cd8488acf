#!/usr/bin/env python
"""Which byte stores LLVM's SelectionDAG merges after an 8-bit AMD round trip, and what that
costs on the convert's line: the measurement behind ``check``'s ``may_merge``
(``linlayout.check.report.StoreMerge``; ``docs/triton-lowering.md``, "AMD byte stores
SelectionDAG may merge").

For every Gluon probe of the AMD 8-bit fixture sets (:data:`SETS`) whose convert goes through
shared memory and whose result ``check`` says Triton stores byte by byte
(``global_store_byte`` in the global op's instructions), the probe's TTGIR is compiled again
with Triton 3.9.0 (``-O3``: the final AMDGCN, ``probe_compile.compile_ttgir``), and one row is
printed: the global store opcodes of the final AMDGCN (merged stores of every width beside
``global_store_byte``; LLVM's ``DAGCombiner::mergeConsecutiveStores``, not Triton, whose IR
stores bytes), the ``v_perm_b32`` on the convert's line (the probe's data-path record),
``check``'s count and its ``may_merge`` words. A row is ``ok`` when the observed count is
``check``'s or one ``may_merge`` names (``cvt_heldout_probes.agrees``). Last, how the final
global loads and stores compare with ``check``'s global rows and their ``may_merge``
(``linlayout.check.global_memory.compare.amd_merge_outcome``: ``as counted``, ``merged``,
``some merged``, ``between`` or ``differs``). Run with Triton 3.9.0
(CPU only; ~1 min)::

    python papers/triton_lowering/byte_store_merges.py
"""

from __future__ import annotations

import collections
import re
import sys
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from cvt_heldout_probes import agrees, check_json, data_path, prediction  # noqa: E402
from fixture import read_fixture  # noqa: E402

#: (set name, fixture file) of the AMD sets with 8-bit Gluon converts
SETS = (("amd_byte_pack", "triton_amd_byte_pack_probes.json.gz"),
        ("amd_byte_pack_vector", "triton_amd_byte_pack_vector_probes.json.gz"),
        ("amd_byte_pack_swap", "triton_amd_byte_pack_swap_probes.json.gz"),
        ("amd_byte_pack_swap_confirm", "triton_amd_byte_pack_swap_confirm_probes.json.gz"),
        ("amd_byte_merge", "triton_amd_byte_merge_probes.json.gz"),
        ("cvt_fresh", "triton_cvt_fresh_probes.json.gz"),
        ("cvt_confirm", "triton_cvt_confirm_probes.json.gz"))
_STORE = re.compile(r"^\s*(global_store_\w+)", re.M)
_ACCESS = re.compile(r"^\s*((?:global|buffer)_(?:load|store)_\w+)", re.M)


def stores_bytes(doc: dict) -> bool:
    """Whether ``check`` (its ``--json`` file entry ``doc``) sends an 8-bit convert through
    shared memory and predicts ``global_store_byte`` for a global store."""
    cvt = any(o["kind"] == "convert" and o["uses_shared_memory"] and o["element_bits"] == 8
              for o in doc["ops"])
    return cvt and any(i.get("isa") == "global_store_byte"
                       for g in doc.get("global_ops", []) for i in g["instructions"])


def rows() -> list[tuple]:
    """One row per probe (module docstring): ``(set, name, final stores, observed v_perm,
    check's v_perm, may_merge words, ok, global outcome)``. Needs Triton 3.9.0."""
    from probe_compile import compile_ttgir

    from linlayout.check import check_module
    from linlayout.check.global_memory.compare import amd_merge_outcome
    from linlayout.triton import read_ttgir

    out = []
    for set_name, file in SETS:
        probes = read_fixture(ROOT / "tests" / "data" / file)["probes"]
        for name, p in sorted(probes.items()):
            if not (name.startswith("g_") and p["target"].startswith("gfx")
                    and "_b8_" in name):
                continue
            doc = check_json(p["ttgir"])
            if not stores_bytes(doc):
                continue
            asm = compile_ttgir(p["ttgir"], p["target"], o3=True)
            stores = dict(sorted(collections.Counter(_STORE.findall(asm)).items()))
            pred, seen, _, _ = prediction(data_path(p), name, doc)
            words = sum(o["may_merge"]["words"] for o in doc["ops"] if o.get("may_merge"))
            rep = check_module(read_ttgir(p["ttgir"]), suggest=False)
            access = collections.Counter(_ACCESS.findall(asm))
            out.append((set_name, name, stores, seen["registers"].get("v_perm_b32", 0),
                        pred["registers"].get("v_perm_b32", 0), words,
                        agrees(pred, seen, doc), amd_merge_outcome(rep.global_ops, access)))
    return out


def main() -> int:
    table = rows()
    merged = collections.Counter()
    rows_out = collections.Counter(r[-1] for r in table)
    for set_name, name, stores, seen, pred, words, ok, glob in table:
        kind = "bytes" if set(stores) <= {"global_store_byte", "global_store_byte_d16_hi"} \
            else "merged" if not {"global_store_byte", "global_store_byte_d16_hi"} & set(stores) \
            else "some merged"
        merged[kind] += 1
        print(f"{set_name:26s} {name:40s} {kind:11s} v_perm {seen} (check {pred}"
              + (f", may_merge {words} word(s)" if words else "") + ") "
              + ("ok" if ok else "DIFF") + f"  {stores}; global rows: {glob}")
    print(f"{len(table)} probes stored byte by byte by Triton: {dict(merged)}; "
          f"{sum(r[6] for r in table)} agree with check; may_merge named on "
          f"{sum(1 for r in table if r[5])}; global rows: {dict(rows_out)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
