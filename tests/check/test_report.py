"""linlayout.check.report: typed op and kernel reports, whole-kernel totals."""

from __future__ import annotations

from linlayout.check import KernelTotals, OpStatus, check_module
from linlayout.triton import read_ttgir

from tests.support import TTGIR_DIR


def test_totals_sum_every_counted_instruction():
    k = check_module(read_ttgir(TTGIR_DIR / "transpose2.ttgir"))
    t = k.totals
    assert isinstance(t, KernelTotals)
    assert t.per_thread == {"ld.shared.b16": 64, "st.shared.v4.b32": 8}
    assert t.shared_bytes_per_thread == {"load": 128, "store": 128}
    assert t.instructions_per_warp == sum(r.instructions_per_warp for r in k.ops)
    assert t.wavefronts_per_warp == 2 * 256 + 2 * 16
    assert t.ops == 4 and t.not_analysed == 0
    assert (k.target, k.hardware.name, k.threads_per_warp) == ("cuda:90", "NVIDIA", 32)
    assert [o.access.line for o in k.ops] == [25, 26, 39, 40]
    assert k.worst_degree == 8


def test_status_says_how_far_the_analysis_got():
    k = check_module(read_ttgir(TTGIR_DIR / "tma_sm90.ttgir"))
    by_op = {}
    for r in k.ops:
        by_op.setdefault(r.access.op, set()).add(r.status)
    assert by_op["local_load"] == {OpStatus.COUNTED}
    assert OpStatus.NOT_COUNTED in by_op["async_tma_copy_global_to_local"]
    for r in k.ops:
        assert r.uses_shared == (r.status is not OpStatus.NO_SHARED_MEMORY)
        assert (r.degree is None) == (r.status is not OpStatus.COUNTED)
