"""Optional: linlayout against a live Triton (skipped unless ``import triton`` works).

Fresh random encodings (a different seed from the checked-in fixtures) through Triton's
``toLinearLayout`` (``GluonOpBuilder.to_linear_layout``) and its bank-conflict counter.
"""

from __future__ import annotations

import importlib.util
import pathlib
import random

import pytest

pytest.importorskip("triton")
pytest.importorskip("triton.experimental.gluon")

from linlayout import bank_conflicts  # noqa: E402
from linlayout.triton import parse_encoding, triton_vector_elems  # noqa: E402


@pytest.fixture(scope="module")
def gen():
    path = pathlib.Path(__file__).parent / "data" / "generate_triton_fixtures.py"
    spec = importlib.util.spec_from_file_location("generate_triton_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_random_layouts_bit_exact(gen):
    rng = random.Random(987654)
    checked = 0
    for enc, shape in gen.layout_candidates(rng)[::3]:
        try:
            ours = enc.to_linear_layout(shape)
        except Exception:  # noqa: BLE001 - layouts Triton would abort on are refused first
            continue
        if enc.kind == "shared" and ours.total_in_bits == 0:
            continue
        try:
            text, bases = gen.triton_layout(enc, shape)
        except (RuntimeError, AssertionError):
            continue
        assert ours.bases == bases, (text, shape)
        assert parse_encoding(text) == enc
        checked += 1
    assert checked > 100


def test_bank_conflicts_match_triton_counter(gen):
    cases = [
        ("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
         "order = [0, 1]}>",
         "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
         [64, 64], 16),
        ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
         "instrShape = [16, 32, 16]}>",
         "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>",
         [128, 64], 32),
        ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], "
         "instrShape = [16, 8]}>",
         "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>",
         [4, 64], 16),
    ]
    for reg, shared, shape, bits in cases:
        d, s = parse_encoding(reg), parse_encoding(shared)
        dl, sl = d.to_linear_layout(shape), s.to_linear_layout(shape)
        rep = bank_conflicts(dl, sl, element_bits=bits,
                             vector_elems=triton_vector_elems(dl, sl, bits))
        assert gen.triton_bank_conflicts(d, s, shape, shape, bits) == rep.degree - 1
