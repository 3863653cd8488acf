"""Fuzzed files on the command line: ``linlayout check``, ``conflicts`` and
``show`` on mutated TTGIR, JSON layouts and CuTe text exit 0, 1 or 2 — a bad input is exit 2
with exactly one ``linlayout: error:`` line, never a traceback and never the internal-error
status 3."""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile

from hypothesis import given, settings, strategies as st

from linlayout import examples
from linlayout.cli import main

from tests.robustness.support import FUZZ, mutated, semantically_mutated
from tests.robustness.test_fuzzed_parsers import CUTE_TEXTS, TTGIR_FILES
from tests.support import TTGIR_DIR

EX = examples.get("transpose")
JSON_LAYOUTS = [json.dumps(EX.store.to_dict()), json.dumps(EX.load.to_dict())]
MEMORY = json.dumps({"bases": {"offset": [[0, 1 << i] for i in range(5)]
                               + [[1 << i, 0] for i in range(4)]},
                     "out_dims": {"dim0": 16, "dim1": 32}})


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _assert_clean(code: int, err: str) -> None:
    assert code in (0, 1, 2), err
    assert "Traceback" not in err
    if code == 2:
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith("linlayout: error: "), err


def _with_file(text: str, suffix: str, argv_of) -> tuple[int, str, str]:
    fd, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as fh:
            fh.write(text)
        return _run(argv_of(path))
    finally:
        os.unlink(path)


@FUZZ
@given(mutated(TTGIR_FILES))
def test_check(text):
    code, _, err = _with_file(text, ".ttgir", lambda p: ["check", p])
    _assert_clean(code, err)


@FUZZ
@given(mutated(JSON_LAYOUTS), st.sampled_from(["8", "16", "32", "24", "0"]))
def test_conflicts(text, bits):
    fd, memory = tempfile.mkstemp(suffix=".json")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(MEMORY)
        code, _, err = _with_file(text, ".json", lambda p: [
            "conflicts", "--layout", p, "--memory", memory, "--element-bits", bits])
    finally:
        os.unlink(memory)
    _assert_clean(code, err)


@FUZZ
@given(mutated(CUTE_TEXTS))
def test_show_cute_text(text):
    code, _, err = _run(["show", "--", text])
    _assert_clean(code, err)


SMALL_TTGIR = [(TTGIR_DIR / n).read_text() for n in ("transpose2.ttgir", "tma_sm90.ttgir")]


@settings(FUZZ, max_examples=max(8, FUZZ.max_examples // 8), deadline=20_000)  # a whole check
@given(semantically_mutated(SMALL_TTGIR))
def test_check_on_semantically_mutated_ttgir(text):
    # shapes, element types, layout parameters and module attributes changed to values no
    # compiler prints (a 64-lane CUDA module, 3 warps, 0-sized dims, i128 …): a report or
    # one error line, never a traceback
    code, _, err = _with_file(text, ".ttgir", lambda p: ["check", p])
    _assert_clean(code, err)
