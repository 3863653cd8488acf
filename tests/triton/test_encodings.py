"""linlayout.triton.encodings is bit-exact with Triton 3.9's ``toLinearLayout``.

The expected bases come from Triton itself (``tests/data/triton_layouts.json``, written by
``tests/data/generate_triton_fixtures.py``); Triton is not needed to run these tests, except
the last one, which draws fresh random encodings (another seed than the fixtures') and asks a
live Triton (skipped without one).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.triton import parse_encoding
from linlayout.triton import encodings as L

from tests.support import load_json


DATA = load_json("triton_layouts.json")
CASES = DATA["cases"]


def _expected(case) -> LinearLayout:
    return LinearLayout(case["layout"]["bases"], out_dims=case["layout"]["out_dims"])


def test_fixtures_come_from_triton_3():
    assert DATA["triton_version"].startswith("3.")
    assert len(CASES) > 400


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


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['family']}-{c['shape']}")
def test_bit_exact_with_triton(case):
    enc = parse_encoding(case["text"])
    got = enc.to_linear_layout(case["shape"])
    want = _expected(case)
    assert got.bases == want.bases
    assert got.out_dims == want.out_dims
    assert list(got.in_dim_names) == list(case["layout"]["bases"])
    # the encoding prints back exactly as Triton printed it
    assert enc.text() == case["text"]


def test_legacy_cga_triples_match_triton():
    for case in DATA["legacy_cga"]:
        cga = L.cga_layout_from_split(case["CTAsPerCGA"], case["CTASplitNum"], case["CTAOrder"])
        assert [list(b) for b in cga.bases] == case["bases"], case


@pytest.mark.parametrize("table", DATA["doc_tables"],
                         ids=lambda t: "-".join(str(t[k]) for k in ("mnemonic", "vec", "perPhase",
                                                                      "maxPhase")))
def test_documented_swizzle_tables(table):
    """Triton's TritonGPUAttrDefs.td tables (the oracle for amd_rotating_shared, which Gluon
    cannot build): memory position (r, j) holds tensor element rows[r][j]."""
    rows = table["rows"]
    nr, nc = len(rows), len(rows[0])
    make = L.swizzled_shared if table["mnemonic"] == "swizzled_shared" else L.amd_rotating_shared
    layout = make(table["vec"], table["perPhase"], table["maxPhase"], [1, 0]).to_linear_layout(
        [nr, nc])
    for r in range(nr):
        for j in range(nc):
            got = layout.apply({"offset": r * nc + j, "block": 0})
            assert (got["dim0"], got["dim1"]) == divmod(rows[r][j], nc)


def test_constructors_equal_parsed_encodings():
    assert L.blocked([1, 4], [8, 4], [4, 1], [1, 0]) == parse_encoding(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>")
    mma = L.nvidia_mma(2, [2, 2], [16, 8])
    assert L.dot_operand(0, mma, 2).text() == (
        "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, "
        "warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>")
    assert L.nvmma_shared(128, 16).text() == (
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>")
    assert L.amd_wmma(2, False, warps_per_cta=[2, 2]).warp_bases == ((0, 1), (1, 0))
    assert L.amd_wmma(2, False, warps_per_cta=[2, 2], tiles_per_warp=[2, 2]).reg_bases == \
        ((0, 1), (1, 0))


def test_mma_v2_accumulator_matches_ptx_fragment():
    """mma.m16n8 fp32 accumulator: lane = 4·row + col/2, two consecutive columns per thread."""
    layout = L.nvidia_mma(2, [1, 1], [16, 8]).to_linear_layout([16, 8])
    for lane in range(32):
        for reg in range(4):
            got = layout.apply({"register": reg, "lane": lane, "warp": 0, "block": 0})
            row = lane // 4 + 8 * (reg >> 1)
            col = 2 * (lane % 4) + (reg & 1)
            assert (got["dim0"], got["dim1"]) == (row, col)


def test_slice_of_blocked_drops_the_dim():
    parent = L.blocked([1, 4], [8, 4], [4, 1], [1, 0])
    row = L.slice(1, parent).to_linear_layout([32])
    assert row.out_dims == {"dim0": 32}
    assert row.bases["lane"] == [[0], [0], [1], [2], [4]]


@pytest.mark.parametrize("make, msg", [
    (lambda: L.blocked([1, 3], [8, 4], [4, 1], [1, 0]), "power of two"),
    (lambda: L.blocked([1, 4], [8, 4], [4, 1], [1, 1]), "permutation"),
    (lambda: L.blocked([1, 4], [8, 4], [4], [1, 0]), "rank"),
    (lambda: L.nvidia_mma(1, [2, 2], [16, 8]), "versionMajor"),
    (lambda: L.nvidia_mma(3, [4, 1], [16, 64]), "instrShape"),
    (lambda: L.dot_operand(2, L.nvidia_mma(2, [2, 2], [16, 8]), 2), "opIdx"),
    (lambda: L.dot_operand(0, L.nvidia_mma(2, [2, 2], [16, 8])), "kWidth"),
    (lambda: L.dot_operand(1, L.nvidia_mma(3, [4, 1], [16, 64, 16]), 2), "shared memory"),
    (lambda: L.amd_mfma(3, [2, 2], [8, 8, 8], False), "instrShape"),
    (lambda: L.amd_mfma(3, [2, 2], [64, 4, 4], False), "transposed"),
    (lambda: L.amd_wmma(2, False), "either"),
    (lambda: L.nvmma_shared(96, 16), "swizzlingByteWidth"),
    (lambda: L.nvmma_shared(128, 12), "elementBitWidth"),
    (lambda: L.nvmma_shared(64, 8, fp4_padded=True), "fp4Padded"),
    (lambda: L.swizzled_shared(3, 1, 1, [1, 0]), "vec"),
    (lambda: L.shared_linear([]), "at least one"),
    (lambda: L.slice(2, L.blocked([1, 4], [8, 4], [4, 1], [1, 0])), "out of range"),
    (lambda: L.blocked([1, 4], [8, 4], [4, 1], [1, 0], cga_layout=[[3, 0]]), "power of two"),
    (lambda: L.cga_layout_from_split([2, 1], [4, 1], [1, 0]), "divide"),
])
def test_bad_parameters_raise_layout_error(make, msg):
    with pytest.raises(LayoutError, match=msg):
        make()


def test_bad_shapes_raise_layout_error():
    enc = L.blocked([1, 4], [8, 4], [4, 1], [1, 0])
    with pytest.raises(LayoutError, match="rank"):
        enc.to_linear_layout([64])
    with pytest.raises(LayoutError, match="power of two"):
        enc.to_linear_layout([64, 48])
    with pytest.raises(LayoutError, match="at least 64 elements"):
        L.nvmma_shared(128, 16).to_linear_layout([64, 32])
    with pytest.raises(LayoutError, match="not"):
        L.shared_linear([[0, 1], [1, 0]]).to_linear_layout([4, 4])


def test_transposed_rank3_unswizzled_nvmma_is_replayed_with_its_broadcast():
    """Triton 3.9 rotates the TMA shape of a transposed unswizzled rank-3 nvmma layout without
    undoing it: some offset bits map to nothing. We reproduce it (the fixtures hold such cases)
    and the result is rightly not a bijection."""
    lay = L.nvmma_shared(0, 16, transposed=True, rank=3).to_linear_layout([2, 32, 32])
    assert [0, 0, 0] in lay.bases["offset"]
    assert not lay.is_invertible


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
