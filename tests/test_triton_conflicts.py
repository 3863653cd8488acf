"""Our bank-conflict counts against Triton 3.9's own counter (``gl.bank_conflicts``).

``tests/data/triton_bank_conflicts.json`` holds Triton's numbers for 240 (register layout,
shared layout, shape, element width) cases. Triton reports *extra accesses per wavefront*:
``degree - 1``. At the vector width Triton's codegen picks (:func:`triton_vector_elems`) the
two agree on every access of at least one bank word per lane. For narrower (sub-word) accesses
Triton under-counts: it intersects the lanes with the segment span only and misses lanes whose
offsets differ by a segment direction *plus* a within-word byte — which land in the same bank,
in different words. Our closed form counts them, and the brute-force simulator agrees with us.
"""

from __future__ import annotations

import json
import pathlib

import pytest

from linlayout import bank_conflicts, simulate_bank_access
from linlayout.triton import encodings as L
from linlayout.triton import parse_encoding, triton_vector_elems

DATA = json.loads(
    (pathlib.Path(__file__).parent / "data" / "triton_bank_conflicts.json").read_text())
CASES = DATA["cases"]


def _layouts(case):
    dist = parse_encoding(case["register"]).to_linear_layout(case["shape"])
    shared = parse_encoding(case["shared"]).to_linear_layout(case["shape"])
    return dist, shared


def test_fixtures_cover_both_regimes():
    assert len(CASES) >= 200
    bits = {c["element_bits"] for c in CASES}
    assert bits == {8, 16, 32, 64}
    assert sum(c["triton_extra"] > 0 for c in CASES) > 50


@pytest.mark.parametrize("i", range(len(CASES)))
def test_against_triton_counter(i):
    case = CASES[i]
    dist, shared = _layouts(case)
    bits = case["element_bits"]
    v = triton_vector_elems(dist, shared, bits)
    ours = bank_conflicts(dist, shared, element_bits=bits, vector_elems=v)
    if ours.access_bits >= 32:
        assert ours.degree - 1 == case["triton_extra"]
    else:
        # Triton misses sub-word conflicts; it never sees more than there are
        assert ours.degree - 1 >= case["triton_extra"]
    if ours.access_bits < 32 or i % 4 == 0:
        sim = simulate_bank_access(dist, shared, element_bits=bits, vector_elems=v)
        assert (sim.degree, sim.wavefronts) == (ours.degree, ours.wavefronts)


def test_triton_undercounts_subword_accesses_worked_example():
    """int8 mma v2 operand A (kWidth 4) read from a vec=1 swizzle: Triton says 0 extra."""
    case = next(c for c in CASES if c["register"].startswith("#ttg.dot_op<{opIdx = 0")
                and "kWidth = 4" in c["register"] and c["shape"] == [64, 64]
                and c["shared"] == "#ttg.swizzled_shared<{vec = 1, perPhase = 2, maxPhase = 4, "
                                   "order = [1, 0]}>")
    assert case["triton_extra"] == 0
    dist, shared = _layouts(case)
    assert triton_vector_elems(dist, shared, 8) == 1
    ours = bank_conflicts(dist, shared, element_bits=8, vector_elems=1)
    assert ours.degree == 4
    assert simulate_bank_access(dist, shared, element_bits=8, vector_elems=1).degree == 4
    # The witnesses: lanes holding rows 0, 2, 4, 6 of column 0 read bytes 0, 129, 258, 387 —
    # words 0, 32, 64, 96, all in bank 0. 129 = 128 ^ 1 is a segment direction (128 bytes =
    # one row of banks) plus a byte inside the word, so Triton's span(segment) ∩ span(lanes)
    # test does not see it.
    inv = shared.invert()
    offsets = []
    for row in (0, 2, 4, 6):
        off = inv.apply({"dim0": row, "dim1": 0})["offset"]
        offsets.append(off)
    assert offsets == [0, 129, 258, 387]
    assert {o // 4 % 32 for o in offsets} == {0}
    assert len({o // 4 for o in offsets}) == 4


def test_triton_reports_degree_minus_one_not_extra_wavefronts():
    """For multi-phase accesses (64/128-bit vectors) Triton's number is per wavefront:
    ``degree - 1``, not ``ConflictReport.extra_wavefronts`` (= phases · (degree - 1))."""
    seen = 0
    for case in CASES:
        dist, shared = _layouts(case)
        v = triton_vector_elems(dist, shared, case["element_bits"])
        rep = bank_conflicts(dist, shared, element_bits=case["element_bits"], vector_elems=v)
        if rep.phases > 1 and rep.degree > 1:
            assert case["triton_extra"] == rep.degree - 1 != rep.extra_wavefronts
            seen += 1
    assert seen > 20


def test_triton_vector_rule_lanes_must_be_aligned():
    """Lanes whose offsets are not multiples of the vector cannot use one vector instruction:
    Triton and ``bank_conflicts`` (and the simulator) agree on scalar accesses here."""
    dist = L.blocked([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout([64, 64])
    shared = L.swizzled_shared(1, 1, 64, [1, 0]).to_linear_layout([64, 64])
    assert bank_conflicts(dist, shared, element_bits=16).vector_elems == 1
    assert simulate_bank_access(dist, shared, element_bits=16).vector_elems == 1
    assert triton_vector_elems(dist, shared, 16) == 1


def test_triton_vector_rule_needs_single_register_bases():
    """Triton only permutes register bases; a register *combination* reaching an offset
    does not count (re-basing registers would be free, Triton does not do it)."""
    dist = L.blocked([4, 2], [1, 32], [1, 4], [0, 1]).to_linear_layout([128, 256])
    shared = L.swizzled_shared(2, 1, 2, [0, 1]).to_linear_layout([128, 256])
    assert bank_conflicts(dist, shared, element_bits=16).vector_elems == 8
    assert triton_vector_elems(dist, shared, 16) == 2


_MMA2_14 = L.nvidia_mma(2, [1, 4], [16, 8])


@pytest.mark.parametrize("dist, shared, shape, bits, ref", [
    (L.blocked([1], [32], [4], [0]), L.swizzled_shared(1, 1, 1, [0]), [32], 32, 0),
    (L.blocked([1], [32], [4], [0]), L.swizzled_shared(1, 1, 1, [0]), [32], 16, 0),
    (L.nvidia_mma(3, [4, 1], [16, 32, 16]), L.nvmma_shared(128, 16), [128, 128], 16, 0),
    (L.dot_operand(1, _MMA2_14, 2), L.nvmma_shared(64, 16), [64, 32], 16, 0),
    (L.dot_operand(0, _MMA2_14, 2), L.nvmma_shared(64, 16, transposed=True), [32, 64], 16, 0),
    (L.dot_operand(1, _MMA2_14, 1), L.nvmma_shared(32, 8), [8, 32], 8, 0),
    (L.nvidia_mma(2, [4, 1], [16, 8]), L.nvmma_shared(64, 16, transposed=True), [64, 64], 16, 0),
    (L.nvidia_mma(3, [2, 2], [16, 32, 16]), L.nvmma_shared(64, 16), [64, 32], 16, 0),
    (L.nvidia_mma(2, [4, 1], [16, 8]), L.nvmma_shared(32, 8), [32, 32], 8, 0),
    (L.nvidia_mma(2, [2, 4], [16, 8]), L.nvmma_shared(0, 16), [4, 64], 16, 3),
    (L.nvidia_mma(3, [4, 1], [16, 32, 16]), L.nvmma_shared(128, 32), [128, 64], 32, 1),
])
def test_triton_own_test_expectations(dist, shared, shape, bits, ref):
    """The cases and expected counts of Triton's ``test_bank_conflicts``
    (python/test/gluon/test_frontend.py)."""
    dl, sl = dist.to_linear_layout(shape), shared.to_linear_layout(shape)
    rep = bank_conflicts(dl, sl, element_bits=bits, vector_elems=triton_vector_elems(dl, sl, bits))
    assert rep.degree - 1 == ref
