"""The warp-specialisation probes (``papers/triton_lowering/warp_specialize_probes.py``) where
``linlayout check`` reports a width as not counted (Triton's allocator decides it): the
counted instructions are among the PTX's, and the not-counted ones carry exactly the bytes
the PTX has beyond them. The fully counted probes are replayed by
``test_triton_fixtures.py``."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts
from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.check.shared_memory.ws_partial import uncounted_bytes

PARTIAL = cases("warp_specialize", lambda n, e: bool(e.get("partial")))


def test_most_probes_are_fully_counted():
    n = len(entries("warp_specialize"))
    assert n >= 100 and len(PARTIAL) < n // 4


@pytest.mark.parametrize("case", PARTIAL)
def test_not_counted_widths_account_for_the_rest_of_the_ptx(case):
    e = entries("warp_specialize")[case]
    got, _ = predicted_counts(e["ttgir"], case)
    want = ptx_counts(e["counts"])
    assert set(got) <= set(want)
    rest = {"load": 0, "store": 0}
    for k, n in want.items():
        extra = n - got.get(k, 0)
        assert extra >= 0, k
        rest["load" if k.startswith("ld") else "store"] += extra * int(k.split("/")[1][:-1])
    assert rest == uncounted_bytes(e["ttgir"])
