"""linlayout.triton.encodings.mma: #ttg.nvidia_mma, #ttg.amd_mfma and #ttg.amd_wmma,
bit-exact with Triton 3.9, their text, their older spellings and their Gluon source."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.triton import parse_encoding
from linlayout.triton.encodings import (
    AmdMfmaEncoding,
    AmdWmmaEncoding,
    NvidiaMmaEncoding,
    amd_mfma,
    amd_wmma,
    nvidia_mma,
)

from tests.triton.encodings.cases import case_id, cases_of, check_case, roundtrip_of

CLASSES = (NvidiaMmaEncoding, AmdMfmaEncoding, AmdWmmaEncoding)


@pytest.mark.parametrize("case", cases_of(*CLASSES), ids=case_id)
def test_bit_exact_with_triton_and_text_round_trips(case):
    check_case(case)


@pytest.mark.parametrize("enc, shape, source", roundtrip_of(NvidiaMmaEncoding),
                         ids=lambda v: str(v)[:40])
def test_gluon_is_the_recorded_source(enc, shape, source):
    assert enc.gluon(shape) == source


def test_gluon_strings():
    assert nvidia_mma(3, [4, 1], [16, 256, 16]).gluon(module="ttgl") == (
        "ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], "
        "instr_shape=[16, 256, 16])")
    for enc in (amd_mfma(3, [2, 2], [32, 32, 8], True), amd_wmma(2, False, warps_per_cta=[2, 2])):
        with pytest.raises(LayoutError, match="no Gluon constructor"):
            enc.gluon()


def test_mma_v2_accumulator_matches_ptx_fragment():
    """mma.m16n8 fp32 accumulator: lane = 4·row + col/2, two consecutive columns per thread."""
    layout = nvidia_mma(2, [1, 1], [16, 8]).to_linear_layout([16, 8])
    for lane in range(32):
        for reg in range(4):
            got = layout.apply({"register": reg, "lane": lane, "warp": 0, "block": 0})
            row = lane // 4 + 8 * (reg >> 1)
            col = 2 * (lane % 4) + (reg & 1)
            assert (got["dim0"], got["dim1"]) == (row, col)


def test_older_spellings():
    assert parse_encoding("#ttg.mma<{versionMajor = 2, warpsPerCTA = [2, 2]}>") == \
        nvidia_mma(2, [2, 2], [16, 8])
    assert AmdMfmaEncoding.from_attribute(
        {"versionMajor": 3, "warpsPerCTA": [2, 2], "instrShape": [32, 32],
         "isTransposed": True}) == amd_mfma(3, [2, 2], [32, 32, 8], True)
    assert AmdWmmaEncoding.from_attribute(
        {"version": 2, "isTransposed": False, "warpsPerCTA": [2, 2]}) == \
        amd_wmma(2, False, warps_per_cta=[2, 2])
    assert amd_wmma(2, False, warps_per_cta=[2, 2]).warp_bases == ((0, 1), (1, 0))
    assert amd_wmma(2, False, warps_per_cta=[2, 2], tiles_per_warp=[2, 2]).reg_bases == \
        ((0, 1), (1, 0))


@pytest.mark.parametrize("make, msg", [
    (lambda: nvidia_mma(1, [2, 2], [16, 8]), "versionMajor"),
    (lambda: nvidia_mma(3, [4, 1], [16, 64]), "instrShape"),
    (lambda: amd_mfma(3, [2, 2], [8, 8, 8], False), "instrShape"),
    (lambda: amd_mfma(3, [2, 2], [64, 4, 4], False), "transposed"),
    (lambda: amd_wmma(2, False), "either"),
])
def test_bad_parameters_raise_layout_error(make, msg):
    with pytest.raises(LayoutError, match=msg):
        make()


@pytest.mark.parametrize("cls, body, msg", [
    (NvidiaMmaEncoding, {"versionMajor": 3, "warpsPerCTA": [4, 1]},
     r"^malformed MLIR at p: #ttg.nvidia_mma needs 'instrShape'$"),
    (NvidiaMmaEncoding, {"versionMajor": 1, "warpsPerCTA": [4, 1], "instrShape": [16, 8]},
     r"^invalid #ttg.nvidia_mma at p: versionMajor must be 2"),
    (AmdMfmaEncoding, {"warpsPerCTA": [2, 2], "instrShape": [32, 32, 8]},
     r"#ttg.amd_mfma needs 'version'"),
    (AmdWmmaEncoding, {"version": 2, "ctaLayout": [1]}, r"ctaLayout must be"),
    (AmdWmmaEncoding, {"version": 2, "ctaLayout": {"lane": []}},
     r"ctaLayout has unknown dims \['lane'\]"),
])
def test_bad_bodies_raise_layout_error(cls, body, msg):
    with pytest.raises(LayoutError, match=msg):
        cls.from_attribute(body, "p")
