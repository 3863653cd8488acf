"""Fuzzed text for every parser: Triton types and attributes, whole TTGIR files,
LinearLayout.parse and CuTe text. Each example ends with a result or a LayoutError within the
deadline and in bounded memory (:func:`tests.robustness.support.result_or_layout_error`)."""

from __future__ import annotations


from hypothesis import given, strategies as st

from linlayout import LinearLayout, cute
from linlayout.cute import parse_cute_swizzle
from linlayout.triton import parse_attribute, parse_type
from linlayout.triton.parse import parse_aliases
from linlayout.triton.ttgir import find_accesses, read_ttgir

from tests.robustness.support import FUZZ, SYNTAX, mutated, result_or_layout_error
from tests.check.shared_memory.triton_fixtures import entries
from tests.support import TTGIR_DIR

BLOCKED = ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
           "order = [1, 0]}>")
ATTRIBUTES = [
    BLOCKED,
    f"#ttg.slice<{{dim = 1, parent = {BLOCKED}}}>",
    "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], "
    "instrShape = [16, 8]}>",
    "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
    "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>",
    "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>",
    "#ttg.linear<{register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],"
    " warp = [], block = []}>",
    "#ttg.padded_shared<[32:+4, 64:+8] {order = [1, 0], shape = [32, 64]}>",
    "#ttg.padded_shared<[64:+4] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], "
    "[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], block = []}>",
]
TYPES = [f"tensor<32x64xf16, {BLOCKED}>",
         f"!ttg.memdesc<2x32x64xf16, {ATTRIBUTES[4]}, #ttg.shared_memory, mutable>",
         "tensor<64x!tt.ptr<f16>, #ttg.slice<{dim = 1, parent = " + BLOCKED + "}>>",
         f"!ttg.memdesc<32x64xf16, {ATTRIBUTES[7]}, #ttg.shared_memory, mutable>"]
L = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]], "warp": []},
                 {"dim0": 2, "dim1": 4})
LAYOUT_TEXTS = [repr(L), str(L), repr(LinearLayout.empty()), str(LinearLayout.empty())]
CUTE_TEXTS = ["Sw<3,4,3> o _0 o (_64,_64):(_64,_1)", "(_8,_64):(_64,_1)",
              "Sw<2,4,3> o smem_ptr[16b](unset) o ((_8,_2),(_64,_1)):((_64,_512),(_1,_0))",
              "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"]


def _corpus_sample(every: int = 20) -> list[str]:
    """Every ``every``-th kernel of the Triton-compiled corpus (CUDA and HIP, all op kinds)."""
    files = entries("corpus")
    return [files[name]["ttgir"] for name in sorted(files)[::every]]


TTGIR_FILES = [p.read_text() for p in sorted(TTGIR_DIR.glob("*.ttgir"))] + _corpus_sample()


@FUZZ
@given(mutated(ATTRIBUTES), st.sampled_from([[32, 64], [64], [2, 32, 64]]))
def test_attributes(text, shape):
    result_or_layout_error(parse_attribute, text, shape)


@FUZZ
@given(mutated(TYPES))
def test_types(text):
    t = result_or_layout_error(parse_type, text)
    if not isinstance(t, Exception) and t.encoding is not None:
        result_or_layout_error(lambda: t.layout)


@FUZZ
@given(st.text(SYNTAX, max_size=200))
def test_types_from_syntax_soup(text):
    result_or_layout_error(parse_type, text)
    result_or_layout_error(parse_aliases, text)


@FUZZ
@given(mutated(TTGIR_FILES))
def test_whole_ttgir_files(text):
    module = result_or_layout_error(read_ttgir, text)
    if not isinstance(module, Exception):
        result_or_layout_error(find_accesses, module)


@FUZZ
@given(st.integers(1, 80), st.sampled_from([BLOCKED, "#ttg.padded_shared<{}>", "#ttg.x<{}>"]))
def test_alias_chains(n, base):
    lines = [f"#a0 = {base}"] + [f"#a{i} = #ttg.slice<{{dim = 0, parent = #a{i - 1}}}>"
                                 for i in range(1, n)]
    result_or_layout_error(read_ttgir, "\n".join(lines) + "\nmodule {\n}\n")


@FUZZ
@given(mutated(LAYOUT_TEXTS))
def test_linear_layout_parse(text):
    result_or_layout_error(LinearLayout.parse, text)


@FUZZ
@given(mutated(CUTE_TEXTS))
def test_cute_text(text):
    result_or_layout_error(cute.parse_layout, text)
    result_or_layout_error(parse_cute_swizzle, text)
