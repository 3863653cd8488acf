"""linlayout.cli.common: reading layout files — any malformed file is bad input (exit 2,
one line), never a crash.
"""

from __future__ import annotations


def test_deeply_nested_json_is_bad_input(tmp_path, capsys):
    from linlayout.cli import main
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    code = main(["show", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("linlayout: error:") and err.count("\n") == 1
