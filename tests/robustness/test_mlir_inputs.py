"""Hostile MLIR text ends quickly with LayoutError: alias chains, regex-bait
whitespace, deep nesting, huge integers, wrong argument types. Each test is one reproduction of
a failure the adversarial run found; the sizes are large enough that the old behaviour would
take minutes or gigabytes, so a regression shows as a hang or a RecursionError."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.triton import parse_attribute, parse_encoding, parse_type
from linlayout.triton.limits import MAX_INT_DIGITS, MAX_LAYOUT_DEPTH, MAX_NAME_CHARS, MAX_NESTING
from linlayout.triton.parse import parse_aliases
from linlayout.triton.ttgir import read_ttgir

BLOCKED_1D = ("#ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], "
              "order = [0]}>")


def _chain(n: int, base: str) -> str:
    lines = [f"#a0 = {base}"]
    lines += [f"#a{i} = #ttg.slice<{{dim = 0, parent = #a{i - 1}}}>" for i in range(1, n)]
    return "\n".join(lines) + "\nmodule {}\n"


@pytest.mark.parametrize("base", [BLOCKED_1D, "#ttg.padded_shared<{x}>", "#ttg.bogus<{}>"])
def test_chained_failing_aliases_stay_small(base):
    # Each level fails (rank 0 or an unsupported parent); messages must not quote the parent.
    module = read_ttgir(_chain(60, base))
    assert len(module.aliases) == 60
    assert max(len(repr(v)) for v in module.aliases.values()) < 1000


def test_chained_valid_aliases_hit_the_depth_limit():
    rank = 40
    base = (f"#ttg.blocked<{{sizePerThread = [{', '.join(['1'] * rank)}], threadsPerWarp = "
            f"[{', '.join(['1'] * (rank - 5))}, 2, 2, 2, 2, 2], warpsPerCTA = "
            f"[{', '.join(['1'] * rank)}], order = [{', '.join(map(str, range(rank)))}]}}>")
    text = _chain(rank, base)
    with pytest.raises(LayoutError, match=f"more than {MAX_LAYOUT_DEPTH} deep"):
        parse_aliases(text)
    module = read_ttgir(text)  # tolerant: the over-deep ones are unsupported, not fatal
    reasons = [getattr(v, "reason", "") for v in module.aliases.values()]
    assert any(f"more than {MAX_LAYOUT_DEPTH} deep" in r for r in reasons)
    assert max(map(len, reasons)) < 1000


def test_alias_scanner_is_linear_on_whitespace():
    text = "#a = #" + " " * 300_000 + "x\nmodule {}\n"
    assert read_ttgir(text).aliases == {}
    assert parse_aliases("#a =" + " \t" * 100_000 + "\n") == {}


@pytest.mark.parametrize("opener, closer", [("[", "]"), ("{a = ", "}")])
def test_deep_brackets_are_refused(opener, closer):
    text = "#ttg.blocked<{sizePerThread = " + opener * 500 + closer * 500 + "}>"
    with pytest.raises(LayoutError, match=f"more than {MAX_NESTING} levels"):
        parse_attribute(text, [64, 64])


def test_deep_inline_slices_are_refused():
    text = BLOCKED_1D
    for _ in range(400):
        text = f"#ttg.slice<{{dim = 0, parent = {text}}}>"
    with pytest.raises(LayoutError, match="nest"):
        parse_encoding(text)


def test_deep_nesting_inside_a_ttgir_type():
    deep = "[" * 3000 + "]" * 3000
    text = (f"#b = #ttg.blocked<{{sizePerThread = {deep}}}>\nmodule {{\n"
            "  %0 = ttg.local_alloc : () -> !ttg.memdesc<64xf16, #b, #smem, mutable>\n}\n")
    with pytest.raises(LayoutError):
        read_ttgir(text)


@pytest.mark.parametrize("call", [
    lambda big: parse_type(f"tensor<{big}xf16>"),
    lambda big: parse_type(f"tensor<64xi{big}>"),
    lambda big: parse_attribute(f"#ttg.blocked<{{sizePerThread = [{big}]}}>", [64]),
    lambda big: parse_type(f"!ttg.memdesc<64xf16, #ttg.shared_memory, {big}>"),
    lambda big: read_ttgir(f"#b = #ttg.blocked<{{sizePerThread = [{big}]}}>\nmodule {{}}\n"
                           ) and parse_aliases(f"#b = #ttg.blocked<{{order = [{big}]}}>"),
])
def test_huge_integers_raise_layout_error(call):
    big = "7" * 5000  # past Python's default 4300-digit int() limit
    with pytest.raises(LayoutError):
        call(big)
    with pytest.raises(LayoutError, match=f"at most {MAX_INT_DIGITS} digits|element type"):
        call("9" * (MAX_INT_DIGITS + 1))


@pytest.mark.parametrize("aliases", [5, "x", [("a", 1)], {1: BLOCKED_1D}])
def test_aliases_of_the_wrong_type(aliases):
    with pytest.raises(LayoutError, match="alias"):
        parse_type("tensor<64xf16>", aliases=aliases)


@pytest.mark.parametrize("text", [None, 5, b"tensor<64xf16>"])
def test_non_text(text):
    with pytest.raises(LayoutError):
        parse_type(text)
    with pytest.raises(LayoutError):
        parse_aliases(text)


@pytest.mark.parametrize("attr", ["ttg.num-warps", "ttg.threads-per-warp"])
def test_huge_module_attributes_raise_layout_error(attr):
    text = f'module attributes {{"{attr}" = {"9" * 5000} : i32}} {{\n}}\n'
    with pytest.raises(LayoutError, match=f"{attr}: an integer with 5000 digits"):
        read_ttgir(text)


def test_unknown_alias_messages_stay_short():
    aliases = "".join(f"#k{i} = {BLOCKED_1D}\n" for i in range(500))
    use = "module {\n  %0 = ttg.local_alloc : () -> !ttg.memdesc<64xf16, #aNAME, #ttg.shared_memory, " \
        "mutable>\n}\n"
    with pytest.raises(LayoutError, match="unknown attribute alias") as info:
        read_ttgir(aliases + use.replace("NAME", "b" * 250))
    assert len(str(info.value)) < 1000 and "and 490 more" in str(info.value)
    with pytest.raises(LayoutError, match=f"a name of 100001 characters.*at most {MAX_NAME_CHARS}"):
        read_ttgir(aliases + use.replace("NAME", "b" * 100_000))


def test_types_larger_than_any_memory_are_refused():
    from linlayout.triton.limits import MAX_TYPE_ELEMENTS

    assert parse_type("tensor<4096x4096xf16>").shape == (4096, 4096)  # 2^24: accepted
    with pytest.raises(LayoutError, match=f"4294967296 elements; at most {MAX_TYPE_ELEMENTS}"):
        parse_type("tensor<65536x65536xf16>")
    with pytest.raises(LayoutError, match=f"1099511627776 elements; at most {MAX_TYPE_ELEMENTS}"):
        parse_type("tensor<1048576x1048576xf16>")
    with pytest.raises(LayoutError, match="allocation shape"):
        parse_type("!ttg.memdesc<64x64xf16, #ttg.shared_memory, mutable, 1048576x1048576x64>")
