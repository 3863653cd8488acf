"""Padded layouts: the counter (closed form and enumeration) against the brute-force simulator."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, bank_conflicts, simulate_bank_access
from linlayout.conflicts.padded import padded_bank_conflicts, padding_is_row_aligned
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.hardware.model import bank_model
from linlayout.layout.padded import PaddedLayout
from tests.support import random_distributed, random_memory_vectorisable

COLUMN_READ = LinearLayout(
    {"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
     "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]},
    out_dims={"dim0": 32, "dim1": 32})


@pytest.mark.parametrize("pairs, degree", [
    ([(32, 1)], 1), ([(32, 32)], 32), ([(32, 16)], 16), ([(16, 1)], 2), ([(32, 2)], 2),
    ([(32, 4)], 4), ([(64, 1)], 2)])
def test_column_read_of_padded_rows(pairs, degree):
    # a warp reads one column of a 32x32 fp32 row-major tile, one element per lane
    memory = PaddedLayout.identity(pairs, [32, 32], [1, 0])
    rep = bank_conflicts(COLUMN_READ, memory, element_bits=32, vector_elems=1)
    assert rep.degree == degree
    assert rep == simulate_bank_access(COLUMN_READ, memory, element_bits=32, vector_elems=1)


def test_padding_caps_the_vector():
    memory = PaddedLayout.identity([(2, 1)], [32, 32], [1, 0])
    assert bank_conflicts(COLUMN_READ, memory, element_bits=32).vector_elems == 1
    memory = PaddedLayout.identity([(8, 4)], [32, 32], [1, 0])
    assert bank_conflicts(COLUMN_READ, memory, element_bits=32).vector_elems == 4
    with pytest.raises(LayoutError, match="padding"):
        bank_conflicts(COLUMN_READ, memory, element_bits=32, vector_elems=8)
    with pytest.raises(LayoutError, match="padding"):
        simulate_bank_access(COLUMN_READ, memory, element_bits=32, vector_elems=8)


def test_matrix_instructions_are_refused():
    memory = PaddedLayout.identity([(32, 4)], [32, 32], [1, 0])
    with pytest.raises(LayoutError, match="padded"):
        bank_conflicts(COLUMN_READ, memory, element_bits=16, instruction="ldmatrix.x4")


def _random_padded(rng, layout):
    lin = random_memory_vectorisable(rng, layout, unit=rng.random() < 0.5)
    n = lin.in_dims["offset"]
    pairs = {}
    for _ in range(rng.randint(1, 3)):
        pairs[1 << rng.randint(0, max(0, n.bit_length() - 2))] = 1 << rng.randint(0, 6)
    return PaddedLayout(lin, tuple(pairs.items()))


HARDWARE = [NVIDIA, AMD_CDNA3, AMD_CDNA4]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([8, 16, 32, 64]), st.sampled_from(HARDWARE))
def test_counter_equals_simulator(seed, element_bits, hardware):
    rng = random.Random(seed)
    lane_bits = hardware.warp_size.bit_length() - 1
    out_bits = [rng.randint(1, 5), rng.randint(1, 5)]
    while sum(out_bits) < lane_bits:
        out_bits[0] += 1
    layout = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                                warp_bits=rng.randint(0, 1), broadcast=0.1, lane_bits=lane_bits)
    memory = _random_padded(rng, layout)
    kw = dict(element_bits=element_bits, hardware=hardware)
    try:
        want = simulate_bank_access(layout, memory, **kw)
    except LayoutError:
        with pytest.raises(LayoutError):
            bank_conflicts(layout, memory, **kw)
        return
    assert bank_conflicts(layout, memory, **kw) == want
    assert padded_bank_conflicts(layout, memory, force_enumeration=True, **kw) == want


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from([8, 16, 32]), st.sampled_from(HARDWARE))
def test_row_aligned_closed_form_equals_enumeration(seed, element_bits, hardware):
    # pads a multiple of the bank row: the counts are those of the linear component
    rng = random.Random(seed)
    lane_bits = hardware.warp_size.bit_length() - 1
    out_bits = [3, lane_bits + 1 - 3 + rng.randint(0, 2)]
    layout = random_distributed(rng, out_bits, unit=True, warp_bits=0, lane_bits=lane_bits)
    lin = random_memory_vectorisable(rng, layout, unit=True)
    model = bank_model(element_bits, hardware)
    row_elems = hardware.row_bytes * 8 // element_bits
    word_elems = max(1, (1 << model.word_log2) // element_bits)
    interval = word_elems << rng.randint(0, 3)
    memory = PaddedLayout(lin, ((interval, row_elems << rng.randint(0, 1)),))
    assert padding_is_row_aligned(memory, model)
    kw = dict(element_bits=element_bits, hardware=hardware)
    closed = bank_conflicts(layout, memory, **kw)
    assert closed == padded_bank_conflicts(layout, memory, force_enumeration=True, **kw)
    assert closed == simulate_bank_access(layout, memory, **kw)
    lin_rep = bank_conflicts(layout, lin, **kw)
    if lin_rep.vector_elems <= closed.vector_elems:
        assert closed.degree == lin_rep.degree


def test_uneven_instructions_are_summed_exactly():
    # padding is not linear: instructions of one access may cost differently; the per-warp
    # total is then summed, not extrapolated from the worst instruction
    found = strict = 0
    for seed in range(120):
        rng = random.Random(seed)
        out_bits = [rng.randint(2, 5), rng.randint(2, 5)]
        while sum(out_bits) < 5:
            out_bits[0] += 1
        layout = random_distributed(rng, out_bits, unit=True, warp_bits=1)
        memory = _random_padded(rng, layout)
        rep = bank_conflicts(layout, memory, element_bits=16)
        if rep.uneven_wavefronts_per_warp is None:
            continue
        found += 1
        assert rep == simulate_bank_access(layout, memory, element_bits=16)
        assert rep.wavefronts_per_warp == rep.uneven_wavefronts_per_warp
        worst_case = rep.instructions_per_warp * rep.wavefronts_per_instruction
        assert rep.wavefronts_per_warp <= worst_case
        strict += rep.wavefronts_per_warp < worst_case
    assert found and strict


def test_oversize_enumeration_is_refused_up_front():
    memory = PaddedLayout.identity([(32, 1)], [32, 32], [1, 0])
    with pytest.raises(LayoutError, match="over the limit of 100"):
        padded_bank_conflicts(COLUMN_READ, memory, element_bits=32, max_steps=100)
    # the row-aligned closed form needs no enumeration, and keeps the padding's vector cap
    aligned = PaddedLayout.identity([(32, 64)], [32, 32], [1, 0])
    rep = padded_bank_conflicts(COLUMN_READ, aligned, element_bits=32, max_steps=100)
    assert rep == simulate_bank_access(COLUMN_READ, aligned, element_bits=32)
