"""linlayout.triton.encodings.dot: #ttg.dot_op over every parent, bit-exact with Triton 3.9,
its text and its Gluon source."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.triton.encodings import (
    DotOperandEncoding,
    amd_mfma,
    blocked,
    dot_operand,
    nvidia_mma,
)
from linlayout.triton.encodings.registry import UnsupportedEncoding

from tests.triton.encodings.cases import case_id, cases_of, check_case, roundtrip_of


@pytest.mark.parametrize("case", cases_of(DotOperandEncoding), ids=case_id)
def test_bit_exact_with_triton_and_text_round_trips(case):
    check_case(case)


@pytest.mark.parametrize("enc, shape, source", roundtrip_of(DotOperandEncoding),
                         ids=lambda v: str(v)[:40])
def test_gluon_is_the_recorded_source(enc, shape, source):
    assert enc.gluon(shape) == source


def test_text_and_gluon_strings():
    mma = nvidia_mma(2, [2, 2], [16, 8])
    assert dot_operand(0, mma, 2).text() == (
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
        "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>")
    assert dot_operand(1, mma, 4).gluon() == (
        "gl.DotOperandLayout(operand_index=1, parent=gl.NVMMADistributedLayout(version=[2, 0], "
        "warps_per_cta=[2, 2], instr_shape=[16, 8]), k_width=4)")
    with pytest.raises(LayoutError, match="no Gluon constructor is written for AmdMfmaEncoding"):
        dot_operand(0, amd_mfma(3, [2, 2], [32, 32, 8], True), 4).gluon()


def test_from_attribute():
    parent = blocked([1, 4], [8, 4], [4, 1], [1, 0])
    assert DotOperandEncoding.from_attribute({"opIdx": 0, "parent": parent}) == \
        dot_operand(0, parent)
    with pytest.raises(LayoutError, match=r"^invalid #ttg.dot_op at p: at p the parent layout "
                                          r"is unsupported: nope$"):
        DotOperandEncoding.from_attribute({"opIdx": 0, "parent": UnsupportedEncoding("x", "nope")},
                                          "p")
    with pytest.raises(LayoutError, match=r"^malformed MLIR at p: #ttg.dot_op needs 'opIdx'$"):
        DotOperandEncoding.from_attribute({"parent": parent}, "p")


@pytest.mark.parametrize("make, msg", [
    (lambda: dot_operand(2, nvidia_mma(2, [2, 2], [16, 8]), 2), "opIdx"),
    (lambda: dot_operand(0, nvidia_mma(2, [2, 2], [16, 8])), "kWidth"),
    (lambda: dot_operand(1, nvidia_mma(3, [4, 1], [16, 64, 16]), 2), "shared memory"),
])
def test_bad_parameters_raise_layout_error(make, msg):
    with pytest.raises(LayoutError, match=msg):
        make()
