"""`linlayout synthesize --padding`: the padded layout beside the swizzle."""

import json

from tests.support import run_cli


def test_text_reports_both_and_the_choice(capsys):
    code, out, _ = run_cli(capsys, "synthesize", "--example", "transpose", "--padding")
    assert code == 0
    assert "best padded layout" in out and "overhead" in out and "bytes" in out
    assert "#ttg.padded_shared<[" in out
    assert "choose: swizzle" in out


def test_json_carries_the_padding(capsys):
    code, out, _ = run_cli(capsys, "synthesize", "--example", "transpose", "--padding", "--json")
    data = json.loads(out)
    assert code == 0 and data["choice"] == "swizzle"
    assert data["padding"]["overhead_bytes"] > 0 and data["padding"]["triton"].startswith("#ttg")
