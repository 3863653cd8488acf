"""Every file of the Triton 3.9.0 corpus (``tests/data/triton_lowering.json.gz``, written by
``papers/triton_lowering``): the instructions ``linlayout`` predicts, op by op, summed by
opcode per thread, equal the PTX Triton produced (NVIDIA), and the LDS bytes per thread for
loads and for stores equal Triton's own LLVM IR (AMD). Triton is not needed."""

from __future__ import annotations

import pytest

from tests.triton.lowering.corpus_check import compare, compare_ops, corpus

#: Files whose shared memory linlayout does not predict yet, and why.
GAPS = {
    "padded_shared buffers (see issue 15)": (
        "p_padded_rowmajor_colmajor_f16_", "attn_fwd_ptr_gfx950", "attn_fwd_tma_gfx950",
        "matmul_fp8_gfx950", "matmul_gfx950", "matmul_tma_persistent_gfx950"),
    "tt.scan's cross-warp scratch is named, not counted": ("cumsum_",),
    "tt.reduce across warps with several outputs per thread, or on 64-lane warps": (
        "reduce_axis0_cuda", "layernorm_bwd_dwdb_gfx"),
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
    assert len(gaps) <= 25 and len(NAMES) - len(gaps) >= 235
