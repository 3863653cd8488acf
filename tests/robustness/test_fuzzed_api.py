"""Fuzzed arguments for the constructors and the public functions, and — for valid
random inputs — the closed form against the simulator.

Junk values come from a recursive strategy (ints of any size, floats, str, None, bool, lists,
tuples and dicts nested a few levels); every call returns or raises LayoutError within the
deadline and in bounded memory."""

from __future__ import annotations

import random

from hypothesis import given, strategies as st

from linlayout import LayoutError, LinearLayout, bank_conflicts, cute, ptx, simulate_bank_access
from linlayout.hardware import AMD_CDNA3, NVIDIA
from linlayout.synthesis import optimal_swizzles, synthesize_swizzle
from linlayout.triton import blocked, nvmma_shared, swizzled_shared

from tests.robustness.support import FUZZ, result_or_layout_error
from tests.support import (
    random_distributed,
    random_memory,
    random_memory_vectorisable,
    random_out_bits,
    random_pair,
)

SCALARS = st.one_of(
    st.integers(-3, 70),
    st.integers(),
    st.sampled_from([2 ** 64, -(2 ** 63), 1 << 100]),
    st.integers(4300, 4400).map(lambda n: 10 ** n),  # past the int-to-str digit limit
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.sampled_from(["", "register", "lane", "dim0", "offset", "x" * 1000]),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.tuples(inner, inner),
                            st.dictionaries(st.sampled_from(["register", "lane", "dim0", "a"]),
                                            inner, max_size=3)),
    max_leaves=12,
)
GOOD = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]]}, {"dim0": 2, "dim1": 4})
MEMORY = LinearLayout({"offset": [[0, 1], [0, 2], [1, 0]]}, {"dim0": 2, "dim1": 4})


@FUZZ
@given(JUNK, JUNK, st.booleans())
def test_linear_layout_constructor(bases, out_dims, surjective):
    result_or_layout_error(LinearLayout, bases, out_dims, require_surjective=surjective)
    result_or_layout_error(LinearLayout.from_dict, {"bases": bases, "out_dims": out_dims})


@FUZZ
@given(JUNK, JUNK, JUNK, JUNK)
def test_triton_constructors(a, b, c, d):
    result_or_layout_error(blocked, a, b, c, d)
    result_or_layout_error(swizzled_shared, a, b, c, d)
    result_or_layout_error(nvmma_shared, a, b, transposed=c, rank=d)


@FUZZ
@given(JUNK, JUNK, JUNK, JUNK)
def test_cute_and_ptx_functions(a, b, c, d):
    result_or_layout_error(cute.cute_swizzle, a, b, c)
    result_or_layout_error(cute.cute_swizzle, a, b, c, d)
    result_or_layout_error(cute.cute_swizzle_offset, a, b, c, d)
    result_or_layout_error(ptx.buffer_layout, a, b, c)
    result_or_layout_error(ptx.swizzle_layout, a, b)
    result_or_layout_error(ptx.buffer_offset, a, b, c)


@FUZZ
@given(JUNK, JUNK, JUNK)
def test_conflict_counting_arguments(element_bits, vector_elems, instruction):
    for fn in (bank_conflicts, simulate_bank_access):
        result_or_layout_error(fn, GOOD, MEMORY, element_bits=element_bits)
        result_or_layout_error(fn, GOOD, MEMORY, element_bits=16, vector_elems=vector_elems)
        result_or_layout_error(fn, GOOD, MEMORY, element_bits=16, instruction=instruction)
        result_or_layout_error(fn, GOOD, element_bits, element_bits=16)


@FUZZ
@given(JUNK, JUNK)
def test_synthesis_arguments(element_bits, weights):
    result_or_layout_error(synthesize_swizzle, GOOD, GOOD, element_bits=element_bits)
    result_or_layout_error(synthesize_swizzle, GOOD, [GOOD], element_bits=16, weights=weights)
    fam = optimal_swizzles(GOOD, GOOD, element_bits=16)
    result_or_layout_error(fam.layout, weights)
    result_or_layout_error(fam.members, element_bits)


@FUZZ
@given(st.integers(0, 2 ** 32), st.sampled_from([NVIDIA, AMD_CDNA3]),
       st.sampled_from([8, 16, 32, 64]), st.booleans())
def test_closed_form_equals_simulator(seed, hardware, element_bits, vectorisable):
    """Valid random accesses: the two counts agree (or both refuse)."""
    rng = random.Random(seed)
    out_bits = random_out_bits(rng, rng.randint(5, 9))
    warp_log2 = hardware.warp_size.bit_length() - 1
    lay = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                             warp_bits=rng.randint(0, 1), lane_bits=warp_log2,
                             broadcast=rng.choice([0.0, 0.2]))
    mem = (random_memory_vectorisable(rng, lay, unit=False) if vectorisable
           else random_memory(rng, out_bits, unit=rng.random() < 0.5))
    kw = dict(element_bits=element_bits, hardware=hardware)
    counted = result_or_layout_error(bank_conflicts, lay, mem, **kw)
    simulated = result_or_layout_error(simulate_bank_access, lay, mem, **kw)
    if isinstance(counted, LayoutError) or isinstance(simulated, LayoutError):
        assert isinstance(counted, LayoutError) and isinstance(simulated, LayoutError)
    else:
        assert counted == simulated


@FUZZ
@given(st.integers(0, 2 ** 32))
def test_synthesized_layouts_count_as_reported(seed):
    """Valid random store/load pairs: the synthesized layout's reports equal the simulator's
    counts at the same vectors."""
    rng = random.Random(seed)
    out_bits = random_out_bits(rng, rng.randint(6, 8))
    store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5, warp_bits=rng.randint(0, 1))
    e = rng.choice([16, 32])
    r = result_or_layout_error(synthesize_swizzle, store, load, element_bits=e)
    if isinstance(r, LayoutError):
        return
    for side, rep in ((store, r.reports[0]), (load, r.reports[1])):
        sim = simulate_bank_access(side, r.layout, element_bits=e, vector_elems=rep.vector_elems)
        assert (sim.degree, sim.wavefronts_per_instruction) == \
            (rep.degree, rep.wavefronts_per_instruction)
