"""The TTGIR reader keeps its promises: reading time linear in the file's size on every path
(each input below is sized so that the old quadratic paths took seconds to minutes, and runs
under a generous hypothesis deadline), line numbers counted on ``\\n`` only, a byte-order mark
tolerated, and every size limit (file bytes, non-regular files, operations, aliases) refused
with one ``LayoutError`` line — exit 2 on the command line, never exit 3."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from linlayout import LayoutError
from linlayout.check.files import FileError, check_file
from linlayout.cli import main
from linlayout.triton import limits, parse, source, ttgir
from linlayout.triton.ttgir import buffer_root, find_accesses, read_ttgir, view_parents

from tests.check.shared_memory.triton_fixtures import entries
from tests.support import assert_one_line_error, write_file

#: A generous per-call deadline (ms): each linear read below takes a small fraction of it, the
#: quadratic paths it guards took 5 to 30 times longer.
WITHIN_DEADLINE = settings(max_examples=1, deadline=5000, database=None)

HEAD = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b1 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<64x64xf16, #blocked>, %z: tensor<4096xi32, #b1>) {
    %buf = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
"""
TAIL = "    tt.return\n  }\n}\n"
MEM = "!ttg.memdesc<64x64xf16, #shared, #smem, mutable>"


def within_deadline(fn):
    """Run ``fn()`` once under :data:`WITHIN_DEADLINE` and return its result."""
    out = []

    @WITHIN_DEADLINE
    @given(st.just(None))
    def run(_):
        out.append(fn())

    run()
    return out[-1]


def test_an_unterminated_dump_header_is_read_in_linear_time():
    text = "// -----// IR Dump Before " + "X" * 40_000 + "\n" + HEAD + TAIL
    module = within_deadline(lambda: read_ttgir(text))
    assert module.section is None and [op.short for op in module.ops] == ["local_alloc"]


def test_tolerated_alias_errors_build_one_line_index(monkeypatch):
    built = []
    init = source.LineIndex.__init__

    def counting(self, text):
        built.append(len(text))
        init(self, text)

    monkeypatch.setattr(source.LineIndex, "__init__", counting)
    n = 5_000
    lines = ["#a0 = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
             "order = [0]}>"]
    lines += [f"#a{i} = #ttg.slice<{{dim = 0, parent = #a{i - 1}}}>" for i in range(1, n)]
    module = within_deadline(lambda: read_ttgir("\n".join(lines) + "\nmodule {}\n"))
    assert len(module.aliases) == n
    assert "line 3, column" in module.aliases["a2"].reason  # each error names its own line
    assert len(built) == 1  # one index for the file, shared by every error


def test_unused_scratch_results_are_found_in_one_pass():
    n = 16_000
    body = "".join(f"    %h{i} = tt.histogram %z : tensor<4096xi32, #b1> -> tensor<64xi32, #b1>\n"
                   for i in range(n))
    body += "    %u = arith.addi %h7, %h7 : tensor<64xi32, #b1>\n"
    module = within_deadline(lambda: read_ttgir(HEAD + body + TAIL))
    used = {op.results[0] for op in module.ops if op.short == "histogram" and op.result_used}
    assert used == {"%h7"}
    assert sum(op.short == "histogram" for op in module.ops) == n


def test_a_long_chain_of_views_resolves_each_root_once():
    n = 10_000
    body = "".join(f"    %v{i + 1} = ttg.memdesc_index %v{i}[%c0] : {MEM} -> {MEM}\n"
                   f"    %w{i} = ttg.local_load %v{i + 1} : {MEM} -> tensor<64x64xf16, #blocked>\n"
                   for i in range(n)).replace("%v0[", "%buf[")
    module = read_ttgir(HEAD + body + TAIL)
    accesses = within_deadline(lambda: find_accesses(module))
    assert {a.root for a in accesses} == {"%buf"}
    parents = view_parents(module)
    assert buffer_root(f"%v{n}", parents) == "%buf" and parents[f"%v{n}"] == f"%v{n - 1}"


def test_view_roots_match_a_plain_walk_on_cycles():
    parents = ttgir.ViewParents({"%a": "%b", "%b": "%c", "%c": "%a", "%x": "%a", "%y": "%b"})
    assert [buffer_root(n, parents) for n in ("%a", "%b", "%x", "%y", "%q")] == \
        ["%a", "%b", "%a", "%b", "%q"]


def test_many_blank_lines_and_repeated_ops_stay_linear():
    text = HEAD + "\n" * 2_000_000 + "".join(
        f"    %y{i} = ttg.local_load %buf : {MEM} -> tensor<64x64xf16, #blocked>\n"
        for i in range(2_000)) + TAIL
    module = within_deadline(lambda: read_ttgir(text))
    assert module.ops[-1].line == HEAD.count("\n") + 2_000_000 + 2_000


def test_more_operations_than_the_limit_are_refused(monkeypatch):
    monkeypatch.setattr(ttgir, "MAX_OPS", 50)
    body = "".join(f"    %y{i} = ttg.local_load %buf : {MEM} -> tensor<64x64xf16, #blocked>\n"
                   for i in range(60))
    with pytest.raises(LayoutError, match="more than 50 shared-memory operations"):
        read_ttgir(HEAD + body + TAIL)


def test_more_aliases_than_the_limit_are_refused(monkeypatch):
    monkeypatch.setattr(parse, "MAX_ALIASES", 10)
    text = "".join("#a = #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], "
                   "warpsPerCTA = [4], order = [0]}>\n" for _ in range(11)) + "module {}\n"
    with pytest.raises(LayoutError, match="more than 10 layout aliases"):
        read_ttgir(text)


def _ops(module):
    return [(op.line, op.name) for op in module.ops]


CORPUS = sorted(entries("corpus").items())[::13]


@pytest.mark.parametrize("char", ["\x0c", "\x85", "\u2028", "\x0b", "\x1e"])
@pytest.mark.parametrize("case, entry", CORPUS, ids=[c for c, _ in CORPUS])
def test_line_numbers_count_newlines_only(case, entry, char):
    text = entry["ttgir"]
    plain = _ops(read_ttgir(text))
    assert plain
    injected = f"// a comment{char}with a break str.splitlines sees\n" + "".join(
        line + char + "\n" for line in text.split("\n"))
    module = read_ttgir(injected)
    assert _ops(module) == [(line + 1, name) for line, name in plain]
    lines = injected.split("\n")
    for op in module.ops:
        assert op.name.split(".", 1)[1] in lines[op.line - 1] or op.short in ("reduce", "scan")


@pytest.mark.parametrize("case, entry", CORPUS, ids=[c for c, _ in CORPUS])
def test_a_byte_order_mark_is_tolerated(tmp_path, case, entry):
    text = entry["ttgir"]
    plain = read_ttgir(text)
    assert _ops(read_ttgir("\ufeff" + text)) == _ops(plain)
    path = tmp_path / "bom.ttgir"
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert _ops(read_ttgir(path)) == _ops(plain)
    assert not isinstance(check_file(str(path)), FileError)


def test_dev_zero_is_refused_with_exit_2(capsys):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    code = main(["check", "/dev/zero"])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)
    assert "not a regular file" in err and "character device" in err
    with pytest.raises(LayoutError, match="not a regular file"):
        read_ttgir(Path("/dev/zero"))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path, capsys):
    fifo = tmp_path / "kernel.ttgir"
    os.mkfifo(fifo)  # opening it for reading would block forever: no writer
    code = main(["check", str(fifo)])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)
    assert "not a regular file (a pipe)" in err


def test_a_file_over_the_byte_cap_is_refused_before_reading(tmp_path, capsys):
    path = tmp_path / "huge.ttgir"
    with open(path, "wb") as fh:
        fh.truncate(limits.MAX_FILE_BYTES + 1)  # sparse: nothing is written or read
    code = main(["check", str(path)])
    out, err = capsys.readouterr()
    assert_one_line_error(code, out, err)
    assert f"at most {limits.MAX_FILE_BYTES}" in err


def test_the_byte_cap_holds_when_the_size_is_not_known_in_advance(tmp_path, monkeypatch):
    monkeypatch.setattr(source, "MAX_FILE_BYTES", 1000)
    path = write_file(tmp_path, "k.ttgir", HEAD + "// " + "x" * 2000 + "\n" + TAIL)
    size = os.path.getsize(path)
    real_stat = os.stat

    class Small:  # a file that reports a small size (as /proc files do) but is longer
        def __init__(self, st):
            self.st_mode, self.st_size = st.st_mode, 0

    def fake_stat(p, *args, **kwargs):
        st = real_stat(p, *args, **kwargs)
        return Small(st) if os.fspath(p) == path else st

    monkeypatch.setattr(os, "stat", fake_stat)
    with pytest.raises(LayoutError, match="has more than 1000 bytes; at most 1000"):
        source.read_text_file(path)
    assert size > 1000


def test_text_over_the_cap_is_refused(monkeypatch):
    monkeypatch.setattr(ttgir, "MAX_FILE_BYTES", 100)
    with pytest.raises(LayoutError, match="at most 100"):
        read_ttgir(HEAD + TAIL)


def test_a_path_with_a_nul_character_is_a_file_error_not_a_value_error(tmp_path):
    """``os.stat`` refuses a NUL in a path with a bare ValueError: ``check_file`` gives a
    FileError for it (as for any file it cannot read), the reader and every other path
    argument a LayoutError."""
    from linlayout import examples

    for bad in ("a\0b", Path("a\0b")):
        result = check_file(bad)
        assert isinstance(result, FileError) and "a\\x00b" in result.message
    from linlayout.check import check_files

    assert all(isinstance(r, FileError) for r in check_files(["a\0b", Path("c\0")]))
    with pytest.raises(LayoutError, match="NUL|null"):
        read_ttgir(Path("a\0b"))
    with pytest.raises(LayoutError, match="NUL"):
        examples.write_files(str(tmp_path / "a\0b"))
    with pytest.raises(LayoutError, match="file path"):
        check_file(b"x")  # type: ignore[arg-type]


def test_function_warp_counts_are_read_in_linear_time():
    # the module's ttg.num-warps is looked for past every tt.func line that carries its own
    # (a function's count, not the module's): each line is looked at once, however many
    # counts it repeats, and a module with only function counts has none of its own
    decls = "".join(f'  tt.func private @d{i}() attributes {{"ttg.num-warps" = 2 : i32}}\n'
                    for i in range(20_000))
    long_line = '  tt.func private @w() attributes {' + '"ttg.num-warps" = 2 : i32, ' * 40_000 \
        + "}\n"
    text = HEAD.replace('"ttg.num-warps" = 4 : i32, ', "").replace(
        "  tt.func @f", decls + long_line + "  tt.func @f") + TAIL
    module = within_deadline(lambda: read_ttgir(text))
    assert module.num_warps is None and module.functions == ()  # declarations have no body
    assert [op.short for op in module.ops] == ["local_alloc"]
