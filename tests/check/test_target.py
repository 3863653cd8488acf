"""linlayout.check.target and names: targets, hardware presets, opcode spellings."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.check.target import parse_target
from linlayout.lowering.names import amd_lds, cp_async, matrix_name, nvidia_ld_st


def test_targets_pick_the_hardware_model():
    assert parse_target("cuda:90").cc == 90 and parse_target("cuda:90").hardware() == NVIDIA
    assert parse_target("hip:gfx942", 64).hardware() == AMD_CDNA3
    assert parse_target("hip:gfx950", 64).hardware() == AMD_CDNA4
    assert parse_target("hip:gfx950", 64).has_ds_read_tr
    assert not parse_target("hip:gfx942", 64).has_ds_read_tr
    assert parse_target(None, 64).hardware() == AMD_CDNA3
    assert parse_target(None).name == "cuda:80"
    with pytest.raises(LayoutError, match="unknown ttg.target"):
        parse_target("metal:3")


def test_opcode_spellings():
    assert nvidia_ld_st("store", 8, 16) == "st.shared.v4.b32"
    assert nvidia_ld_st("load", 2, 16) == "ld.shared.b32"
    assert nvidia_ld_st("load", 1, 16) == "ld.shared.b16"
    assert nvidia_ld_st("store", 2, 8) == "st.shared.b16"
    assert nvidia_ld_st("load", 1, 64) == "ld.shared.b64"
    assert nvidia_ld_st("store", 2, 64) == "st.shared.v2.b64"
    assert matrix_name("load", 4, True) == "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    assert matrix_name("store", 4, False) == "stmatrix.sync.aligned.m8n8.x4.shared.b16"
    assert cp_async(16) == "cp.async.cg.shared.global" and cp_async(4).startswith("cp.async.ca")
    assert amd_lds("load", 2) == "ds_read_u16" and amd_lds("store", 16) == "ds_write_b128"
    for bad in (lambda: cp_async(2), lambda: amd_lds("load", 3),
                lambda: nvidia_ld_st("load", 4, 64)):
        with pytest.raises(LayoutError):
            bad()
