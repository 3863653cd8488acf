"""AMD LDS instruction models: table, bank models, transpose-load lane mapping."""

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.hardware.lds import (
    LDS_INSTRUCTIONS,
    is_lds_instruction,
    lds_hardware,
    lds_instruction,
    transpose_address_layout,
)


def test_table_and_lookup():
    assert lds_instruction("ds_read_b128").bytes_per_lane == 16
    assert lds_instruction("ds_read2st64_b64").halves == 2
    assert lds_instruction("ds_read_b64_tr_b8").transpose_bits == 8
    assert lds_instruction("global_load_lds_dwordx4").direct
    assert is_lds_instruction("ds_write_b64") and not is_lds_instruction("ld.shared")
    assert all(i.name == n for n, i in LDS_INSTRUCTIONS.items())
    with pytest.raises(LayoutError, match="known"):
        lds_instruction("ds_read_b96")


def test_bank_models_per_instruction():
    # ds_write_b128 on CDNA3: 8 phases of 8 consecutive lanes
    hw = lds_hardware(lds_instruction("ds_write_b128"), AMD_CDNA3)
    assert hw.phase_masks(128) == (8, 16, 32)
    assert lds_hardware(lds_instruction("ds_read_b128"), AMD_CDNA3) is AMD_CDNA3
    # ds_read2_b64 on CDNA4: 32 banks, 16-lane phases (Triton's model)
    hw = lds_hardware(lds_instruction("ds_read2_b64"), AMD_CDNA4)
    assert hw.num_banks == 32 and len(hw.phase_masks(64)) == 2
    assert lds_hardware(lds_instruction("ds_read_b64"), AMD_CDNA4) is AMD_CDNA4
    with pytest.raises(LayoutError, match="CDNA4"):
        lds_hardware(lds_instruction("ds_read_b64_tr_b16"), AMD_CDNA3)
    with pytest.raises(LayoutError, match="wave64"):
        lds_hardware(lds_instruction("ds_read_b64"), NVIDIA)


def test_transpose_b16_lane_mapping():
    # received: lane i of a 16-lane group holds column i (dim1) of 4 rows (registers -> dim0)
    recv = LinearLayout({"register": [[1, 0], [2, 0]],
                         "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [4, 0], [8, 0]]},
                        out_dims={"dim0": 16, "dim1": 16})
    addr = transpose_address_layout(recv, 16)
    # addressed: lane l points at row l // 4, elements 4 (l % 4) ... 4 (l % 4) + 3
    for lane in range(16):
        first = addr.apply({"register": 0, "lane": lane})
        assert first == {"dim0": lane // 4, "dim1": 4 * (lane % 4)}
        assert addr.apply({"register": 3, "lane": lane})["dim1"] == 4 * (lane % 4) + 3
    with pytest.raises(LayoutError, match="register bits"):
        transpose_address_layout(LinearLayout({"lane": [[1]] * 0 + [[1], [2], [4], [8]]},
                                              out_dims={"dim0": 16}), 16)
