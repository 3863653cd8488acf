"""Every file of the Triton 3.9.0 corpus (``tests/data/triton_lowering.json.gz``, written by
``papers/triton_lowering``): the instructions ``linlayout`` predicts, op by op, summed by
opcode per thread, equal the PTX Triton produced (NVIDIA), and the LDS bytes per thread for
loads and for stores equal Triton's own LLVM IR (AMD), except a ``tt.scan``'s, which equal the
final AMDGCN (``check`` counts the reloads that run on both vendors). Triton is not needed."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.corpus_check import compare, compare_ops, corpus
from tests.check.shared_memory.triton_fixtures import cases

NAMES = sorted(corpus()["files"])


def test_the_corpus_covers_every_target_with_several_kernels():
    targets = {}
    for n, e in corpus()["files"].items():
        targets.setdefault(e["target"], set()).add(n)
    assert set(targets) == {"cuda80", "cuda90", "cuda100", "gfx942", "gfx950"}
    assert all(len(v) >= 30 for v in targets.values())
    assert corpus()["triton_version"].startswith("3.9")


@pytest.mark.parametrize("name", cases("corpus"))
def test_predicted_instructions_match_triton(name):
    got, want = compare(name)
    assert got == want


@pytest.mark.parametrize("name", cases("corpus"))
def test_predicted_instructions_match_triton_op_by_op(name):
    assert compare_ops(name) == []


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("cumsum_") and "cuda" in n])
def test_scan_matches_tritons_llvm_ir_on_nvidia(name):
    """Before LLVM's optimiser Triton reloads every warp total with a 4-byte load: Triton's
    own loads (``extra["triton_loads"]``) are exactly its bytes; the predicated inline-asm
    stores and LLVM's loads (the prediction's sides) are the PTX's."""
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    entry = corpus()["files"][name]
    (op,) = [o for o in entry["ops"] if o["op"] == "tt.scan"]
    (pred,) = [p for a, p in predict_module(read_ttgir(entry["ttgir"])) if a.op == "scan"]
    (ld,) = pred.extra["triton_loads"]
    assert ld.bytes_per_thread == op["preopt_bytes"]["load"]
    assert {s.emitted.opcode: s.emitted.per_thread for s in pred.sides} == op["instructions"]
    if "axis0" in name:  # each parallel lane reloads its own totals: not merged
        assert op["instructions"]["ld.shared.b32"] == pred.extra["loads_after_llvm"]


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("cumsum_") and "gfx" in n])
def test_scan_matches_the_final_amdgcn(name):
    """AMD as NVIDIA: Triton's own reloads (``extra["triton_loads"]``) are its LLVM IR's bytes;
    the loads ``check`` counts (the prediction's sides: one fewer per output, the unused
    reload of the last total that ``-O3`` deletes) move the final AMDGCN's LDS bytes."""
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    from tests.check.shared_memory.asm_counts import lds_bytes

    entry = corpus()["files"][name]
    (op,) = [o for o in entry["ops"] if o["op"] == "tt.scan"]
    (pred,) = [p for a, p in predict_module(read_ttgir(entry["ttgir"])) if a.op == "scan"]
    assert sum(x.bytes_per_thread for x in pred.extra["triton_loads"]) == \
        op["preopt_bytes"]["load"]
    got = {k: sum(s.emitted.bytes_per_thread for s in pred.sides if s.emitted.side == k)
           for k in ("load", "store")}
    final = lds_bytes(op["instructions"])
    assert got == {k: final[k] for k in ("load", "store")}
    assert got["load"] < op["preopt_bytes"]["load"]
