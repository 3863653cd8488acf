"""Legal-looking but oversized inputs are refused up front, before work that grows with them:
each case here ran for minutes or took gigabytes before its limit (docs/limits.md)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.check import check_module
from linlayout.cli import main
from linlayout.conversion.problem import MAX_REGISTER_BITS
from linlayout.triton import read_ttgir
from linlayout.triton.limits import MAX_MODULE_LINES, MAX_REGION_NESTING, MAX_SUGGEST_BYTES

from tests.robustness.support import FUZZ
from tests.support import TTGIR_DIR, assert_one_line_error, write_file

TRANSPOSE = (TTGIR_DIR / "transpose2.ttgir").read_text()


def _warp_layout(registers: int, lanes: int, reverse: bool) -> LinearLayout:
    """``registers`` register bits and ``lanes`` lane bits over one dim; ``reverse`` puts the
    lanes below the registers (a transpose within the warp)."""
    n = registers + lanes
    cols = [1 << i for i in range(n)]
    if reverse:
        cols = cols[registers:] + cols[:registers]
    return LinearLayout({"register": [[c] for c in cols[:registers]],
                         "lane": [[c] for c in cols[registers:]]}, {"dim0": 1 << n})


def test_plan_conversion_refuses_more_registers_than_a_thread_has():
    # 2^10 registers per thread with 32 lanes: the shuffle planner took half a minute
    bits = MAX_REGISTER_BITS + 1
    src, dst = _warp_layout(bits, 5, False), _warp_layout(bits, 5, True)
    with pytest.raises(LayoutError, match="MAX_REGISTER_BITS"):
        plan_conversion(src, dst, 8)


def test_plan_conversion_takes_the_largest_register_count():
    src = _warp_layout(MAX_REGISTER_BITS, 5, False)
    plan = plan_conversion(src, src, 32)
    assert plan.best.path == "registers"


def _nested(depth: int) -> str:
    lines = TRANSPOSE.splitlines()
    ret = max(i for i, line in enumerate(lines) if "tt.return" in line)
    nest = ["    scf.for %i{0} = %c0 to %c1 step %c1 {{".format(i) for i in range(depth)]
    return "\n".join(lines[:ret] + nest + ["    }"] * depth + lines[ret:]) + "\n"


def test_deeply_nested_regions_are_refused():
    # 10^4 nested scf.for took 800 MB (each line kept its enclosing regions)
    with pytest.raises(LayoutError, match="MAX_REGION_NESTING"):
        read_ttgir(_nested(MAX_REGION_NESTING + 1))
    assert read_ttgir(_nested(MAX_REGION_NESTING - 8)).ops


def test_check_exits_2_on_deep_nesting(tmp_path, capsys):
    path = write_file(tmp_path, "nest.ttgir", _nested(10_000))
    code = main(["check", path])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)


def test_overlong_module_is_refused_by_check():
    # 60 MB of short lines took minutes and 2.5 GB (the reader alone stays linear and cheap)
    text = TRANSPOSE.replace("    tt.return", "\n" * MAX_MODULE_LINES + "    tt.return")
    with pytest.raises(LayoutError, match="MAX_MODULE_LINES"):
        check_module(read_ttgir(text))


def test_no_layout_search_for_a_buffer_larger_than_shared_memory():
    # a 1024x1024 f16 buffer (2 MiB): the layout search ran for minutes; it is still counted
    big = read_ttgir(TRANSPOSE.replace("64x64xf16", "1024x1024xf16"))
    report = check_module(big)
    loads = [r for r in report.ops if r.degree and r.degree > 1]
    assert loads and all(r.suggestion is None and "MAX_SUGGEST_BYTES" in r.note
                         for r in loads)
    assert 1024 * 1024 * 2 > MAX_SUGGEST_BYTES


@settings(FUZZ, max_examples=15)
@given(registers=st.integers(MAX_REGISTER_BITS + 1, 40), lanes=st.integers(0, 5),
       element_bits=st.sampled_from([8, 16, 32, 64]))
def test_any_register_count_over_the_limit_is_refused_at_once(registers, lanes, element_bits):
    src = _warp_layout(registers, lanes, False)
    dst = _warp_layout(registers, lanes, True)
    with pytest.raises(LayoutError, match="registers per thread"):
        plan_conversion(src, dst, element_bits)
