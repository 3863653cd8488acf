"""linlayout.triton.encodings.registry: every mnemonic has its class, every class reads and
prints its own attribute, and the reader's messages are the registry's."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

import pytest

from linlayout import LayoutError
from linlayout.triton import encodings, parse_aliases, parse_encoding
from linlayout.triton.encodings import registry
from linlayout.triton.encodings.registry import (
    AttributeBody,
    UnsupportedEncoding,
    dict_body_mnemonics,
    encoding_class,
    mnemonics,
    register_encoding,
    registered_classes,
)

from tests.triton.encodings.cases import CASES, DATA, mnemonic_of

#: Every mnemonic Triton 3.9 prints for a layout linlayout reads, plus the older spellings.
MNEMONICS = {
    "blocked": encodings.BlockedEncoding,
    "slice": encodings.SliceEncoding,
    "linear": encodings.LinearEncoding,
    "generic_linear": encodings.GenericLinearEncoding,
    "nvidia_mma": encodings.NvidiaMmaEncoding,
    "mma": encodings.NvidiaMmaEncoding,
    "amd_mfma": encodings.AmdMfmaEncoding,
    "amd_wmma": encodings.AmdWmmaEncoding,
    "dot_op": encodings.DotOperandEncoding,
    "swizzled_shared": encodings.SwizzledSharedEncoding,
    "amd_rotating_shared": encodings.AmdRotatingSharedEncoding,
    "shared": encodings.LegacySharedEncoding,
    "nvmma_shared": encodings.NvmmaSharedEncoding,
    "shared_linear": encodings.SharedLinearEncoding,
    "padded_shared": encodings.PaddedSharedEncoding,
}


def test_the_registry_knows_every_mnemonic():
    assert mnemonics() == sorted(MNEMONICS)
    for name, cls in MNEMONICS.items():
        assert encoding_class(name) is cls
    assert encoding_class("partitioned_shared") is None
    assert {c.mnemonic for c in registered_classes()} == set(MNEMONICS) - {"mma"}


def test_every_fixture_attribute_has_a_class():
    assert DATA["triton_version"].startswith("3.")
    assert len(CASES) > 400
    for case in CASES:
        assert encoding_class(mnemonic_of(case["text"])) is not None, case["text"]


def test_every_family_is_covered():
    fam = Counter(c["family"] for c in CASES)
    for name in ("blocked", "slice", "nvidia_mma", "dot_op/nvidia_mma", "dot_op/blocked",
                 "amd_mfma", "dot_op/amd_mfma", "amd_wmma", "dot_op/amd_wmma", "linear",
                 "swizzled_shared", "nvmma_shared", "shared_linear"):
        assert fam[name] >= 5, (name, fam)
    texts = [c["text"] for c in CASES]
    assert any("versionMajor = 3" in t and "dot_op" not in t for t in texts)
    assert any("versionMajor = 2" in t and "dot_op" not in t for t in texts)
    assert any("CGALayout" in t and "blocked" in t for t in texts)
    assert any("fp4Padded = true" in t for t in texts)
    for sw in (0, 32, 64, 128):
        for tr in ("false", "true"):
            for eb in (8, 16, 32, 64):
                assert any(f"swizzlingByteWidth = {sw}, transposed = {tr}, "
                           f"elementBitWidth = {eb}" in t for t in texts), (sw, tr, eb)


def test_every_encodings_module_is_tested_here():
    """tests/triton/encodings mirrors linlayout/triton/encodings, one test module each."""
    import pathlib
    import pkgutil

    here = pathlib.Path(__file__).parent
    for m in pkgutil.iter_modules(encodings.__path__):
        assert (here / f"test_{m.name}.py").exists(), m.name


def test_the_unknown_mnemonic_message_lists_the_dict_body_layouts():
    assert dict_body_mnemonics() == [
        "amd_mfma", "amd_rotating_shared", "amd_wmma", "blocked", "dot_op", "generic_linear",
        "linear", "nvidia_mma", "nvmma_shared", "shared", "shared_linear", "slice", "swizzled_shared"]
    with pytest.raises(LayoutError, match=r"^#ttg.foo at line 1, column 1 is not a layout "
                                          r"linlayout knows; supported: amd_mfma, "):
        parse_encoding("#ttg.foo<{a = 1}>")
    got = parse_aliases("#a = #ttg.partitioned_shared<{x = [1]}>\n", tolerant=True)["a"]
    assert isinstance(got, UnsupportedEncoding) and got.name == "partitioned_shared"
    assert "supported: amd_mfma" in got.reason


@pytest.mark.parametrize("cls", registered_classes(), ids=lambda c: c.mnemonic)
def test_bad_keys_raise_layout_error(cls):
    with pytest.raises(LayoutError, match=r"^malformed MLIR at line 3, column 9: "):
        cls.from_attribute({"bogusKey": 1}, "line 3, column 9")
    if cls.attribute_syntax != "pairs_then_dict":
        with pytest.raises(LayoutError, match=r"has unknown key\(s\) \['bogusKey'\]; known: "):
            cls.from_attribute({"bogusKey": 1})
        assert sorted(cls.attribute_keys) == sorted(set(cls.attribute_keys))


@pytest.mark.parametrize("cls", [c for c in registered_classes()
                                 if c.attribute_syntax != "pairs_then_dict"],
                         ids=lambda c: c.mnemonic)
def test_an_added_key_in_the_text_is_refused(cls):
    case = next((c for c in CASES if mnemonic_of(c["text"]) == cls.mnemonic), None)
    if case is None:
        pytest.skip(f"no fixture prints {cls.mnemonic}")
    text = case["text"].replace("<{", "<{zzz = 1, ", 1)
    with pytest.raises(LayoutError, match=rf"#ttg.{cls.mnemonic} has unknown key\(s\) "
                                          r"\['zzz'\]"):
        parse_encoding(text)


def test_attribute_body_checks():
    b = AttributeBody({"order": 3, "b": [[0, 1], 2]}, "blocked", lambda: "line 9, column 2")
    with pytest.raises(LayoutError, match="^malformed MLIR at line 9, column 2: #ttg.blocked "
                                          "needs 'x'$"):
        b.need("x")
    with pytest.raises(LayoutError, match="needs 'order' to be a list such as"):
        b.need_list("order")
    with pytest.raises(LayoutError, match="'b' must be a list of bases"):
        b.bases(b["b"], "b")
    with pytest.raises(LayoutError, match="'parent' must be a layout attribute, got 3"):
        b.parent(3)
    with pytest.raises(LayoutError, match="the parent layout is unsupported: why"):
        b.parent(UnsupportedEncoding("foo", "why"))
    with pytest.raises(LayoutError, match="^invalid #ttg.blocked at line 9, column 2: boom$"):
        with b.invalid():
            raise LayoutError("boom")
    with pytest.raises(LayoutError, match="^malformed MLIR at x$"):
        with b.invalid():
            raise LayoutError("malformed MLIR at x")
    assert b.cga(2) is None
    assert AttributeBody({"CTAsPerCGA": [2, 1]}, "blocked").cga(2).bases == ((1, 0),)
    with pytest.raises(LayoutError, match="a dict of values"):
        AttributeBody([1], "blocked")


def test_parents_nest_at_most_max_layout_depth():
    chain = encodings.slice(2, encodings.blocked([1, 1, 1], [32, 1, 1], [1, 1, 1], [0, 1, 2]))
    while registry.layout_depth(chain) < registry.MAX_LAYOUT_DEPTH:
        chain = _Wrapped(chain)
    assert registry.layout_depth(chain) == 16
    with pytest.raises(LayoutError, match="more than 16 deep"):
        AttributeBody({}, "slice").parent(chain)


@dataclass(frozen=True)
class _Wrapped(encodings.Encoding):
    """A layout whose parent is another (depth counting only)."""

    parent: encodings.Encoding
    kind = "distributed"


def test_registering_checks_the_class():
    with pytest.raises(TypeError, match="taken by BlockedEncoding"):
        @register_encoding
        @dataclass(frozen=True)
        class Another(encodings.BlockedEncoding):
            pass
    with pytest.raises(TypeError, match="with a mnemonic"):
        register_encoding(_Wrapped)
    with pytest.raises(TypeError, match="with a mnemonic"):
        register_encoding(int)
    assert encoding_class("blocked") is encodings.BlockedEncoding


def test_random_encodings_bit_exact_with_a_live_triton(triton_generator):
    rng = random.Random(987654)
    checked = 0
    for enc, shape in triton_generator.layout_candidates(rng)[::3]:
        try:
            ours = enc.to_linear_layout(shape)
        except Exception:  # noqa: BLE001 - layouts Triton would abort on are refused first
            continue
        if enc.kind == "shared" and ours.total_in_bits == 0:
            continue
        try:
            text, bases = triton_generator.triton_layout(enc, shape)
        except (RuntimeError, AssertionError):
            continue
        assert ours.bases == bases, (text, shape)
        assert parse_encoding(text) == enc
        checked += 1
    assert checked > 100
