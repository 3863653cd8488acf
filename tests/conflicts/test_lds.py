"""AMD LDS instructions in the counter and the simulator."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, bank_conflicts, simulate_bank_access
from linlayout.conflicts.lds import check_direct_to_lds, lds_bank_conflicts
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4
from linlayout.hardware.lds import LDS_INSTRUCTIONS, lds_instruction, transpose_address_layout
from linlayout.layout.padded import PaddedLayout
from tests.support import (
    out_dims_for,
    random_distributed,
    random_memory_vectorisable,
    split_out,
)

# 64 lanes, lane l holds row l (8 bf16 = 16 bytes) of a row-major 64x8 tile
ROWS = LinearLayout({"register": [[0, 1], [0, 2], [0, 4]],
                     "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0]]},
                    out_dims={"dim0": 64, "dim1": 8})
ROW_MAJOR = LinearLayout({"offset": [[0, 1], [0, 2], [0, 4], [1, 0], [2, 0], [4, 0], [8, 0],
                                     [16, 0], [32, 0]]}, out_dims={"dim0": 64, "dim1": 8})

NAMES = ["ds_read_b128", "ds_write_b128", "ds_read_b64", "ds_write_b64", "ds_read2_b64",
         "ds_write2_b64", "ds_read_b32", "ds_read2st64_b32", "global_load_lds_dword"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("hw", [AMD_CDNA3, AMD_CDNA4])
@pytest.mark.parametrize("padded", [False, True])
def test_counter_equals_simulator(name, hw, padded):
    memory = PaddedLayout(ROW_MAJOR, ((64, 4),)) if padded else ROW_MAJOR
    kw = dict(element_bits=16, instruction=name, hardware=hw)
    try:
        want = simulate_bank_access(ROWS, memory, **kw)
    except LayoutError:
        with pytest.raises(LayoutError):
            bank_conflicts(ROWS, memory, **kw)
        return
    got = bank_conflicts(ROWS, memory, **kw)
    assert got == want and got.instruction == name
    assert got.access_bits == lds_instruction(name).bytes_per_lane * 8


def test_phases_per_width():
    b128 = [bank_conflicts(ROWS, ROW_MAJOR, element_bits=16, instruction="ds_read_b128",
                           hardware=hw).phases for hw in (AMD_CDNA3, AMD_CDNA4)]
    b64 = [bank_conflicts(ROWS, ROW_MAJOR, element_bits=16, instruction="ds_read_b64",
                          hardware=hw).phases for hw in (AMD_CDNA3, AMD_CDNA4)]
    assert b128 == [8, 4] and b64 == [4, 2]
    read2 = bank_conflicts(ROWS, ROW_MAJOR, element_bits=16, instruction="ds_read2_b64",
                           hardware=AMD_CDNA4)
    assert read2.phases == 4 and read2.lanes_per_phase == 16


def test_direct_to_lds_needs_lane_order():
    bank_conflicts(ROWS, ROW_MAJOR, element_bits=16, instruction="global_load_lds_dwordx4",
                   hardware=AMD_CDNA4)
    # padding every 64 elements (128 bytes) breaks the wave's 1024 contiguous bytes
    with pytest.raises(LayoutError, match="contiguously"):
        check_direct_to_lds(ROWS, PaddedLayout(ROW_MAJOR, ((64, 4),)), element_bits=16,
                            bytes_per_lane=16)
    # padding at the 1024-byte boundary is fine
    check_direct_to_lds(ROWS, PaddedLayout(ROW_MAJOR, ((512, 4),)), element_bits=16,
                        bytes_per_lane=16)


def test_errors():
    with pytest.raises(LayoutError, match="fixed"):
        bank_conflicts(ROWS, ROW_MAJOR, element_bits=16, instruction="ds_read_b64",
                       vector_elems=4, hardware=AMD_CDNA4)
    with pytest.raises(LayoutError, match="16-bit"):
        lds_bank_conflicts(ROWS, ROW_MAJOR, element_bits=8, instruction="ds_read_b64_tr_b16")
    with pytest.raises(LayoutError, match="do not fit"):
        lds_bank_conflicts(ROWS, ROW_MAJOR, element_bits=64, instruction="ds_read_b32")


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(sorted(LDS_INSTRUCTIONS)),
       st.sampled_from([AMD_CDNA3, AMD_CDNA4]), st.booleans())
def test_random_layouts_counter_equals_simulator(seed, name, hw, pad):
    rng = random.Random(seed)
    instr = lds_instruction(name)
    bits = instr.transpose_bits or rng.choice([8, 16, 32])
    out_bits = [6, rng.randint(5, 6)]  # room for the 4 registers of ds_read_b64_tr_b4
    layout = random_distributed(rng, out_bits, unit=True, warp_bits=1, lane_bits=6)
    if rng.random() < 0.2:
        memory = random_memory_vectorisable(rng, layout, unit=True)
    else:  # memory whose first offset bits are the (addressed) vector's registers
        addressed = (transpose_address_layout(layout, bits) if instr.transpose_bits
                     else layout)
        k = (instr.bytes_per_lane * 8 // bits).bit_length() - 1
        first = [c for c in addressed.dim_columns("register") if c][:k]
        rest = [1 << i for i in range(sum(out_bits)) if 1 << i not in first]
        rng.shuffle(rest)
        memory = LinearLayout({"offset": [split_out(c, out_bits) for c in first + rest]},
                              out_dims_for(out_bits))
    if pad:
        memory = PaddedLayout(memory, ((1 << rng.randint(2, 6), 1 << rng.randint(2, 5)),))
    kw = dict(element_bits=bits, instruction=name, hardware=hw)
    try:
        want = simulate_bank_access(layout, memory, **kw)
    except LayoutError:
        with pytest.raises(LayoutError):
            bank_conflicts(layout, memory, **kw)
        return
    assert bank_conflicts(layout, memory, **kw) == want
