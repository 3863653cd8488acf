"""The warp-specialisation probes (``papers/triton_lowering/warp_specialize_probes.py``): every
one is fully counted (replayed op by op in ``test_triton_fixtures.py``). Should a regenerated
probe report a width as not counted (a module whose allocation the replay does not place),
the counted instructions must be among the PTX's and the not-counted ones carry exactly the
bytes the PTX has beyond them."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts
from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.check.shared_memory.ws_partial import uncounted_bytes

PARTIAL = cases("warp_specialize", lambda n, e: bool(e.get("partial")))


def test_every_probe_is_fully_counted():
    # the allocator replay gives every probe's buffer offsets: no width is left not counted
    assert len(entries("warp_specialize")) >= 330 and not PARTIAL


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
