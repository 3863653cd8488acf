"""Every file of the Triton 3.9.0 corpus (``tests/data/triton_lowering.json.gz``, written by
``papers/triton_lowering``): the instructions ``linlayout`` predicts, op by op, summed by
opcode per thread, equal the PTX Triton produced (NVIDIA), and the LDS bytes per thread for
loads and for stores equal Triton's own LLVM IR (AMD). Triton is not needed."""

from __future__ import annotations

import pytest

from tests.triton.lowering.corpus_check import compare, compare_ops, corpus

#: Files whose shared memory linlayout does not predict yet, and why.
GAPS = {
    "tt.scan on NVIDIA: linlayout reports the loads Triton emits; LLVM removes the ones whose "
    "value is never used (cumsum_axis0: 128 -> 124, Prediction.extra['loads_after_llvm']) and "
    "its load/store vectoriser merges consecutive ones, filling a gap (cumsum_1d: 7 -> 2 "
    "ld.shared.v4.b32)": ("cumsum_1d_cuda", "cumsum_axis0_cuda"),
}
NAMES = sorted(corpus()["files"])


def _gap(name: str) -> str | None:
    for why, prefixes in GAPS.items():
        if any(name.startswith(p) for p in prefixes):
            return why
    return None


def test_the_corpus_covers_every_target_with_several_kernels():
    targets = {}
    for n, e in corpus()["files"].items():
        targets.setdefault(e["target"], set()).add(n)
    assert set(targets) == {"cuda80", "cuda90", "cuda100", "gfx942", "gfx950"}
    assert all(len(v) >= 30 for v in targets.values())
    assert corpus()["triton_version"].startswith("3.9")


@pytest.mark.parametrize("name", NAMES)
def test_predicted_instructions_match_triton(name):
    why = _gap(name)
    got, want = compare(name)
    if why is not None:
        assert got != want, f"{name} now matches: remove it from GAPS ({why})"
        pytest.skip(why)
    assert got == want


@pytest.mark.parametrize("name", [n for n in NAMES if not _gap(n)])
def test_predicted_instructions_match_triton_op_by_op(name):
    assert compare_ops(name) == []


def test_most_of_the_corpus_is_predicted_exactly():
    gaps = [n for n in NAMES if _gap(n)]
    assert len(gaps) <= 21 and len(NAMES) - len(gaps) >= 239


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("cumsum_") and "cuda" in n])
def test_scan_matches_tritons_llvm_ir_on_nvidia(name):
    """Before LLVM's optimiser Triton reloads every warp total with a 4-byte load: the
    predicted loads are exactly its bytes; the predicated inline-asm stores are the PTX's."""
    from linlayout.triton.lowering.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    entry = corpus()["files"][name]
    (op,) = [o for o in entry["ops"] if o["op"] == "tt.scan"]
    (pred,) = [p for a, p in predict_module(read_ttgir(entry["ttgir"])) if a.op == "scan"]
    st, ld = (s.emitted for s in pred.sides)
    assert ld.bytes_per_thread == op["preopt_bytes"]["load"]
    assert {st.opcode: st.per_thread} == {k: v for k, v in op["instructions"].items()
                                          if k.startswith("st.")}
    if "axis0" in name:  # totals 4 bytes apart per parallel lane: not merged
        assert op["instructions"]["ld.shared.b32"] == pred.extra["loads_after_llvm"]
