"""``tl.trans`` and ``tl.dot`` probes compiled by Triton 3.9.0
(``tests/data/triton_trans_probes.json.gz``, written by
``papers/triton_lowering/trans_probes.py``): element types, shapes, warp counts and targets
the rules were not fitted on. Each probe is compared with Triton's assembly by
``test_triton_fixtures.py``; this file checks what the set covers."""

from __future__ import annotations

from tests.check.shared_memory.triton_fixtures import entries


def test_the_probes_cover_transposes_and_dots():
    names = entries("trans")
    assert len(names) == 146
    assert sum(n.startswith("dot_") for n in names) == 92
