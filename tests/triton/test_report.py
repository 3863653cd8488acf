"""linlayout.triton.report: whole-kernel totals and the per-file JSON object."""

from __future__ import annotations

from linlayout.hardware import NVIDIA
from linlayout.triton import check_module, read_ttgir
from linlayout.triton.report import file_report, kernel_totals

from tests.support import TTGIR_DIR


def test_totals_sum_every_counted_instruction():
    m = read_ttgir(TTGIR_DIR / "transpose2.ttgir")
    reports = check_module(m)
    t = kernel_totals(reports)
    assert t["per_thread"] == {"ld.shared.b16": 64, "st.shared.v4.b32": 8}
    assert t["shared_bytes_per_thread"] == {"load": 128, "store": 128}
    assert t["instructions_per_warp"] == sum(r.instructions_per_warp for r in reports)
    assert t["wavefronts_per_warp"] == 2 * 256 + 2 * 16
    assert t["ops"] == 4 and t["not_analysed"] == 0
    f = file_report("t.ttgir", m, reports, NVIDIA)
    assert (f["target"], f["hardware"], f["threads_per_warp"]) == ("cuda:90", "NVIDIA", 32)
    assert [o["line"] for o in f["ops"]] == [25, 26, 39, 40]
