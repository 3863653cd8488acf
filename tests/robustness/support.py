"""Shared pieces of the robustness suite: the hypothesis settings, text mutations, and the one
property every hostile input must satisfy — a result or a LayoutError, within the deadline,
in bounded memory."""

from __future__ import annotations

import os
import tracemalloc
from typing import Any, Callable

from hypothesis import HealthCheck, settings, strategies as st

from linlayout import LayoutError

#: Per-example deadline (ms) and example counts sized so the whole fuzz suite runs in well
#: under a minute on two cores; the regressions it guards (exponential alias expansion,
#: quadratic regexes, unbounded enumeration) blow far past these.
#: ``LINLAYOUT_FUZZ_EXAMPLES=5000`` runs a longer, randomised search (not derandomised).
_EXAMPLES = int(os.environ.get("LINLAYOUT_FUZZ_EXAMPLES", "0") or 0)
FUZZ = settings(max_examples=_EXAMPLES or 60, deadline=2000, derandomize=not _EXAMPLES,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

#: Peak Python allocation one call may make on fuzzed input.
MAX_PEAK_BYTES = 64 << 20

#: Characters the Triton, CuTe and LinearLayout grammars give meaning to, plus a few others.
SYNTAX = "#<>{}[](),:=_-!. xo0123456789\"'\n\t@|&%$"


def result_or_layout_error(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``; return its result or the LayoutError it raised. Any other exception fails
    the test (it propagates), as does a peak allocation over :data:`MAX_PEAK_BYTES`."""
    tracemalloc.start()
    try:
        try:
            return fn(*args, **kwargs)
        except LayoutError as exc:
            # Quoting the input is fine; growing faster than it (a message per nesting level,
            # each repeating its parent's) is the blow-up the fuzz guards against.
            size = sum(len(a) for a in args if isinstance(a, str))
            assert len(str(exc)) < 2_000 + 2 * size, "an error message outgrew the input"
            return exc
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < MAX_PEAK_BYTES, f"peak allocation {peak} bytes"


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str]) -> str:
    """A seed text with a few random edits: deletions, insertions of syntax characters,
    long runs (digits, brackets, spaces, minus signs) and repeated chunks."""
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 4))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 12)))
        kind = draw(st.sampled_from(["delete", "insert", "run", "repeat", "replace"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.text(SYNTAX, min_size=1, max_size=6)) + text[i:]
        elif kind == "run":
            ch = draw(st.sampled_from(["9", "[", "]", "{", "(", "-", " ", "#", "<", "x"]))
            text = text[:i] + ch * draw(st.sampled_from([50, 700, 5000])) + text[i:]
        elif kind == "repeat":
            text = text[:i] + text[i:j] * draw(st.integers(2, 300)) + text[j:]
        else:
            text = text[:i] + draw(st.text(SYNTAX, max_size=3)) + text[j:]
    return text


#: Values a semantic mutation puts into TTGIR: shapes, element types, layout parameters and
#: module attributes that real files never hold (0, non-powers of two, huge, negative).
MUTANT_SHAPES = ["0", "1", "3", "48", "1048576", "4096"]
MUTANT_ELEMENTS = ["i1", "i8", "i64", "f8E4M3FN", "f8E5M2FNUZ", "bf16", "f64", "!tt.ptr<f16>",
                   "i128", "f4E2M1FN", "index", "i3"]
MUTANT_NUMBERS = ["0", "-1", "3", "1048576", "2147483648", "64", "33", "1",
                  "999999999999999999"]
MUTANT_KEYS = ["sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CTAsPerCGA",
               "CTASplitNum", "CTAOrder", "vec", "perPhase", "maxPhase", "versionMajor",
               "instrShape", "kWidth", "opIdx", "dim", "swizzlingByteWidth", "elementBitWidth"]
MUTANT_MODULE = [('"ttg.num-warps" = 4', ['"ttg.num-warps" = 0', '"ttg.num-warps" = 3',
                                          '"ttg.num-warps" = 64', '"ttg.num-warps" = -1']),
                 ('"ttg.threads-per-warp" = 32', ['"ttg.threads-per-warp" = 0',
                                                  '"ttg.threads-per-warp" = 64',
                                                  '"ttg.threads-per-warp" = 16']),
                 ('ttg.target = "cuda:90"', ['ttg.target = "hip:gfx1100"',
                                             'ttg.target = "cuda:0"', 'ttg.target = "x"',
                                             'ttg.target = "hip:gfx942"'])]


@st.composite
def semantically_mutated(draw: st.DrawFn, seeds: list[str]) -> str:
    """A TTGIR seed with one to three edits that keep it parseable-looking but wrong: a
    shape, an element type, a layout parameter or list, a module attribute, or whole lines
    (truncated, deleted, duplicated). ``benchmarks/fuzz_cli.py`` runs the same kind of
    edits at scale."""
    import re

    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["shape", "elem", "attr", "module", "lines"]))
        if kind == "module":
            old, news = draw(st.sampled_from(MUTANT_MODULE))
            text = text.replace(old, draw(st.sampled_from(news)))
            continue
        if kind == "lines":
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            how = draw(st.sampled_from(["truncate", "delete", "duplicate"]))
            lines = (lines[:i] if how == "truncate" else lines[:i] + lines[i + 1:]
                     if how == "delete" else lines[:i] + [lines[i]] * 3 + lines[i:])
            text = "\n".join(lines)
            continue
        if kind == "shape":
            pattern, new = r"(?<=[<x])\d+(?=x)", draw(st.sampled_from(MUTANT_SHAPES))
        elif kind == "elem":
            pattern = r"(?<=x)(i1|i8|i16|i32|i64|f16|bf16|f32|f64)(?=[,>])"
            new = draw(st.sampled_from(MUTANT_ELEMENTS))
        else:
            key = draw(st.sampled_from(MUTANT_KEYS))
            pattern = key + r" = (\[[^\]]*\]|-?\d+)"
            value = draw(st.sampled_from(MUTANT_NUMBERS))
            new = f"{key} = " + draw(st.sampled_from([value, f"[{value}, 1]", f"[{value}]"]))
        hits = list(re.finditer(pattern, text))
        if hits:
            m = hits[draw(st.integers(0, len(hits) - 1))]
            text = text[:m.start()] + new + text[m.end():]
    return text
