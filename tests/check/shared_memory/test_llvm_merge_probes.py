"""Held-out probes for LLVM's merging of Triton's ``ld/st.shared`` vectors on NVIDIA
(``tests/data/triton_llvm_merge_probes.json.gz``, written by
``papers/triton_lowering/llvm_merge_probes.py`` after the rule in
``linlayout/lowering/llvm_merge.py`` was written): random register layouts stored into
``shared_linear`` layouts with XORs of the low offset bits and loaded back, and plain
converts, on cuda:80/90/100. Each probe is compared with the PTX by
``test_triton_fixtures.py``; this file checks that the set exercises the rule."""

from __future__ import annotations

import re

from tests.check.shared_memory.triton_fixtures import entries, known_mismatches


def _llvm_merged(e: dict) -> bool:
    ptx = sum(n for k, n in e["counts"].items() if k.startswith(("ld.shared", "st.shared")))
    pre = sum(n for k, n in e["preopt"]["types"].items() if k.startswith(("load", "store")))
    return ptx < pre


def test_the_probes_cover_merges_and_non_merges_on_every_nvidia_target():
    ps = entries("llvm_merge")
    assert len(ps) >= 150
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100"}
    merged = [n for n, e in ps.items() if _llvm_merged(e)]
    assert len(merged) >= 30
    assert len(ps) - len(merged) >= 30
    assert {re.search(r"_b(\d+)_", n).group(1) for n in merged} >= {"8", "16", "32"}


def test_the_known_mismatches_are_the_two_loads_llvm_knows_too_little_about():
    known = known_mismatches().get("llvm_merge", {})
    assert len(known) <= 2
    assert all(n in entries("llvm_merge") and "computeKnownBits" in why
               for n, why in known.items())
