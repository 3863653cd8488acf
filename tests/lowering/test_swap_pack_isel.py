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


def test_a_permlane_swap_pair_costs_one_permute_wherever_its_bytes_sit():
    """gfx950's ConvertLayoutOpPermlaneSwap joins two bytes as a <2 x i16> build_vector
    (``tests/data/amdgpu_permlane_pairs.json``, ``swap_pack_isel.py --permlane-pairs``): one
    v_perm_b32 for every pair of one or two loads, in Triton's IR before and after -O3,
    stored whole or moved by v_permlane16_swap; the i32 form transferWithinWarp uses is
    cheaper for some (slot_pair_permutes)."""
    from linlayout.lowering.amd_pack import permlane_pair_permutes, slot_pair_permutes

    data = json.loads((ROOT / "tests" / "data" / "amdgpu_permlane_pairs.json").read_text(
        encoding="utf-8"))
    assert len(data["one"]) == 2 + 12 + 56 + 240 and len(data["two"]) == 2 + 8
    cheaper = 0
    for part, runs in (("one", 1), ("two", 2)):
        for key, by in data[part].items():
            n, pair = key.split(":")
            lo, hi = (_slot_word(int(n), runs, int(x)) for x in pair.split(","))
            assert {f: c for f, c in by.items() if f != "i32"} == \
                {f: permlane_pair_permutes(lo, hi) for f in by if f != "i32"}, key
            assert by["i32"] == slot_pair_permutes(lo, hi), key
            cheaper += by["i32"] < by["v2i16"]
    assert cheaper == 62
    for case in data["swapped"]:
        assert set(case["v_perm_b32"].values()) == {len(case["packs"])}


def _slot_word(n, runs, index):
    from linlayout.lowering.amd_pack import SourceWord

    run, byte = divmod(index, n)
    return SourceWord((run, byte // 4), byte % 4, min(4, n), load=(run,), load_bytes=n,
                      load_byte=byte, rank=index, ordered=True)


def test_the_permlane_swap_convert_counts_a_permute_per_pair():
    """The gfx950 convert that read 1 v_perm_b32 where its final assembly has 2
    (g_sw_b8_64x32_w8_52349e_gfx950 of amd_byte_pack_probes.py's seed-90513 draw): lane bit
    4 swapped with the register bit of one loaded dword's upper half, so the pairs are bytes
    (0, 1) and (2, 3) of one load; the second cost 0 in the i32 form."""
    from linlayout.lowering import convert_path
    from linlayout.triton.parse import parse_type

    def lin(reg, lane):
        return parse_type(f"tensor<64x32xi8, #ttg.linear<{{register = {reg}, lane = {lane}, "
                          "warp = [[0, 16], [16, 0], [32, 0]], block = []}>>").layout

    src = lin("[[0, 1], [0, 2]]", "[[0, 8], [8, 0], [1, 0], [0, 4], [2, 0], [4, 0]]")
    dst = lin("[[0, 1], [2, 0]]", "[[0, 8], [8, 0], [1, 0], [0, 4], [0, 2], [4, 0]]")
    path = convert_path(src, dst, 8, "hip:gfx950", (1, 4))
    assert path.counts == {"v_perm_b32": 2, "v_permlane16_swap_b32": 1}
    assert path.permute_bounds is None
