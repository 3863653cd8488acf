"""AMDGPU's packing of four loaded bytes into one register
(:func:`linlayout.lowering.amd_pack.dwordx2_pack_permutes`,
:func:`~linlayout.lowering.amd_pack.dwordx4_column_permutes`), replayed from small LLVM IR
kernels compiled with Triton 3.9's LLVM for gfx942 and gfx950
(``tests/data/amdgpu_dwordx2_packs.json``, written by
``papers/triton_lowering/swap_pack_isel.py``)."""

from __future__ import annotations

import json

import pytest

from linlayout.lowering.amd_pack import dwordx2_pack_permutes, dwordx4_column_permutes
from tests.support import ROOT

DATA = json.loads((ROOT / "tests" / "data" / "amdgpu_dwordx2_packs.json").read_text(
    encoding="utf-8"))


def _offsets(key: str) -> tuple[int, ...]:
    return tuple(map(int, key.split(",")))


def test_every_choice_of_four_of_eight_loaded_bytes_costs_what_llvm_selected():
    assert len(DATA["single"]) == 8 * 7 * 6 * 5
    for key, got in DATA["single"].items():
        want = dwordx2_pack_permutes(_offsets(key))
        assert set(got) == {"gfx942", "gfx950"}
        assert set(got.values()) == {want}, key


def test_two_registers_of_one_load_add_up_whatever_consumes_them():
    assert len(DATA["pairs"]) >= 200
    for case in DATA["pairs"]:
        want = sum(dwordx2_pack_permutes(tuple(p)) for p in case["packs"])
        for by in case["v_perm_b32"].values():
            assert set(by) == {"store", "dpp", "swap"}
            assert set(by.values()) == {want}, case["packs"]


def test_a_dwordx4_column_costs_what_llvm_selected():
    assert len(DATA["columns"]) == 96
    for key, got in DATA["columns"].items():
        assert set(got.values()) == {dwordx4_column_permutes(_offsets(key))}, key


@pytest.mark.parametrize("steps,eight,sixteen", [
    ((4, 1), 1, 4),   # (w0.b0, w1.b0, w0.b1, w1.b1) is free from a dwordx2 only
    ((4, 2), 1, 4),
    ((1, 4), 2, 4),
])
def test_the_dwordx2_rule_stops_at_wider_loads(steps, eight, sixteen):
    """Triton's packings of an 8- and a 16-byte load: the first follow the dwordx2 rule, the
    second one ``v_perm_b32`` per register (the rule does not apply there)."""
    by = {c["bytes"]: c for c in DATA["wider"] if tuple(c["steps"]) == steps}
    assert set(by[8]["v_perm_b32"].values()) == {eight}
    assert eight == sum(dwordx2_pack_permutes(tuple(p)) for p in by[8]["packs"])
    assert set(by[16]["v_perm_b32"].values()) == {sixteen}
    assert by[16]["loads"] == ["global_load_dwordx4"]
