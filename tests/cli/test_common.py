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


def test_a_key_given_twice_is_bad_input(tmp_path, capsys):
    # json keeps the last one silently: the first 'register' bases were lost
    from linlayout.cli import main
    from tests.support import assert_one_line_error
    path = tmp_path / "dup.json"
    path.write_text('{"bases": {"register": [[1]], "register": [[2]], "lane": [[1], [2], [4], '
                    '[8], [16]]}, "out_dims": {"dim0": 32}}')
    code = main(["convert", "--src", str(path), "--dst", str(path), "--element-bits", "16"])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)
    assert "'register' twice" in err
