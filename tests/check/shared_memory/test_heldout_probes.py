"""Held-out probes compiled by Triton 3.9.0 (``tests/data/triton_heldout_probes.json.gz``,
written by ``papers/triton_lowering/heldout_probes.py``): kernels written after the lowering
rules — dots (fp8 included), permutes, 3-D reductions, scans, sorts, gathers, joins,
interleaves, softmaxes, histograms — over 1 to 16 warps and five targets. Each probe is
compared with Triton's assembly by ``test_triton_fixtures.py``; this file checks what the set
covers."""

from __future__ import annotations

from collections import Counter

from tests.check.shared_memory.triton_fixtures import entries


def test_the_heldout_set_covers_every_target_and_kind():
    ps = entries("heldout")
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                    "gfx950"}
    kinds = Counter(n.split("_")[0] for n in ps)
    assert len(ps) >= 250 and all(kinds[k] >= 5 for k in (
        "dot", "permute3", "reduce3", "rowcol", "cumsum2", "sort", "gather", "trans",
        "joinsplit", "interleave", "softmax", "hist"))
