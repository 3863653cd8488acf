"""The ``convert`` report: its text table and its JSON, valid against the shipped schema."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.show.conversion import conversion_report
from linlayout.show.schemas import schema

SRC = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
DST = LinearLayout({"register": [[2]], "lane": [[1], [4]]}, {"dim0": 8})


def test_text_has_one_row_per_path_and_the_choice():
    text = conversion_report(plan_conversion(SRC, DST, 32), "my title").to_text()
    lines = text.splitlines()
    assert lines[0] == "my title"
    assert any(line.startswith("shuffle ") and "1 shfl, 3 selp" in line for line in lines)
    assert "cheapest: shuffle (cost 2.5), provably optimal" in text
    assert lines[-1].startswith("weights: shfl 1, selp 0.5")


@pytest.mark.parametrize("element_bits", [8, 16, 32, 64])
def test_json_matches_the_schema(element_bits):
    jsonschema = pytest.importorskip("jsonschema")
    data = conversion_report(plan_conversion(SRC, DST, element_bits)).to_dict()
    jsonschema.Draft202012Validator(schema("convert")).validate(data)
    assert next(iter(data)) == "schema_version"


def test_report_needs_a_plan():
    with pytest.raises(LayoutError, match="plan"):
        conversion_report("plan")


def test_triton_line_and_json_fields():
    from linlayout import LinearLayout
    from linlayout.conversion import plan_conversion
    from linlayout.show.conversion import conversion_report as report_of
    src = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    dst = LinearLayout({"register": [[2]], "lane": [[1], [4]]}, {"dim0": 8})
    r = report_of(plan_conversion(src, dst, 32, target="cuda:80"))
    assert "Triton (cuda:80): " in r.to_text()
    d = r.to_dict()
    assert d["triton"]["target"] == "cuda:80" and "saving" in d
