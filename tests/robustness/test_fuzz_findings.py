"""Findings of a fuzz campaign, fixed generally: TTGIR saved with old Mac OS ``\\r`` line
endings, and module or function attributes inside ``//`` comments."""

from __future__ import annotations

import pytest

from linlayout.check.files import FileError, check_file
from linlayout.triton.source import code_end, normalize_line_breaks
from linlayout.triton.ttgir import read_ttgir

from tests.check.shared_memory.triton_fixtures import entries
from tests.support import write_file

CORPUS = [(c, e) for c, e in sorted(entries("corpus").items()) if e["ops"]][::37]


def _ops(module):
    return [(op.line, op.name) for op in module.ops]


@pytest.mark.parametrize("case, entry", CORPUS, ids=[c for c, _ in CORPUS])
def test_old_mac_line_endings_read_as_lines(tmp_path, case, entry):
    text = entry["ttgir"]
    plain = read_ttgir(text)
    assert plain.ops
    cr = text.replace("\n", "\r")
    module = read_ttgir(cr)
    # each \r ends a line: the same ops on the same lines as the \n file
    assert _ops(module) == _ops(plain)
    assert (module.num_warps, module.threads_per_warp, module.target) == \
        (plain.num_warps, plain.threads_per_warp, plain.target)
    path = tmp_path / "mac.ttgir"
    path.write_bytes(cr.encode())
    assert _ops(read_ttgir(path)) == _ops(plain)
    report = check_file(str(path))
    assert not isinstance(report, FileError), report
    assert len(report.ops) == len(check_file(write_file(tmp_path, "unix.ttgir", text)).ops)
    # \r\n: line numbers as before (one break), now read as \n
    assert _ops(read_ttgir(text.replace("\n", "\r\n"))) == _ops(plain)


def test_line_break_normalisation_keeps_mlir_line_counts():
    assert normalize_line_breaks("a\rb\rc") == "a\nb\nc"
    assert normalize_line_breaks("a\r\nb\r\n") == "a\nb\n"
    # a lone \r among \n lines stays a character of its line (MLIR counts \n only)
    assert normalize_line_breaks("a\rb\nc\r\n") == "a\rb\nc\n"
    assert normalize_line_breaks("plain\n") == "plain\n"


MODULE = ('{pre}module attributes {{"ttg.num-warps" = 4 : i32, "ttg.num-ctas" = 1 : i32, '
          '"ttg.threads-per-warp" = 32 : i32{extra}}} {{{after}\n'
          '  tt.func public @k() {{\n    tt.return\n  }}\n}}\n')


@pytest.mark.parametrize("comment", [
    '// "ttg.num-warps" = 8 : i32, "ttg.num-ctas" = 2 : i32, "ttg.threads-per-warp" = 64 : i32\n',
    '  //"ttg.num-warps"=8 "ttg.num-ctas"=2 "ttg.threads-per-warp"=64 "ttg.target"="hip:gfx942"\n',
    '#loc = loc("a//b.py":1:2) // "ttg.num-warps" = 8, "ttg.num-ctas" = 2\n',
])
def test_module_attributes_in_comments_are_not_read(comment):
    m = read_ttgir(MODULE.format(pre=comment, extra="", after=""))
    assert (m.num_warps, m.num_ctas, m.threads_per_warp, m.target) == (4, 1, 32, None)
    # a module without the attribute: the comment is still not read
    m = read_ttgir(comment + "module {\n  tt.func @k() {\n    tt.return\n  }\n}\n")
    assert (m.num_warps, m.num_ctas, m.threads_per_warp, m.target) == (None, 1, 32, None)
    # nor a comment after the module's own header
    m = read_ttgir(MODULE.format(pre="", extra="", after=" " + comment.strip()))
    assert (m.num_warps, m.num_ctas) == (4, 1)


def test_attributes_after_a_string_holding_slashes_are_read():
    text = MODULE.format(pre='#loc = loc("dir//kernel.py":3:1)\n',
                         extra=', "ttg.target" = "cuda:90", "x" = "a//b"', after="")
    m = read_ttgir(text)
    assert (m.num_warps, m.target) == (4, "cuda:90")
    text = 'module attributes {"s" = "a//b", "ttg.num-warps" = 8 : i32} {\n}\n'
    assert read_ttgir(text).num_warps == 8
    text = 'module attributes {"s" = "q\\"//", "ttg.num-warps" = 8 : i32} {\n}\n'
    assert read_ttgir(text).num_warps == 8


def test_a_functions_warps_in_a_comment_are_not_read():
    head = 'module attributes {"ttg.num-warps" = 4 : i32} {\n'
    text = head + '  tt.func @k() { // attributes {"ttg.num-warps" = 8 : i32}\n' \
        '    tt.return\n  }\n}\n'
    assert read_ttgir(text).functions == ()
    text = head + '  tt.func @k() attributes {"ttg.num-warps" = 8 : i32} {\n' \
        '    tt.return\n  }\n}\n'
    assert [f.warps for f in read_ttgir(text).functions] == [8]


@pytest.mark.parametrize("line, end", [
    ("a // b", 2), ('loc("f//x") // c', 12), ('loc("f//x")', 11), ('"a\\"//" x // y', 10),
    ('"unclosed // x', 14), ("x / y", 5), ("", 0), ("//", 0),
])
def test_code_end(line, end):
    assert code_end(line) == end
