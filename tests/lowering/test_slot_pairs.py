"""AMDGPU's building of 8-bit pairs in 16-bit slots and the ranges ``check`` names where LLVM
may spend fewer or more ``v_perm_b32`` than it counts
(:func:`linlayout.lowering.amd_pack.slot_pair_permutes`, :func:`~linlayout.lowering.amd_pack.
pack_permute_bounds`, :func:`linlayout.lowering.convert.shuffle_permute_bounds`,
:func:`linlayout.lowering.round_trip_pack.round_trip_permute_bounds`). The measured pairs are
replayed from ``tests/data/amdgpu_slot_pairs.json`` (small LLVM IR kernels compiled with
Triton 3.9's LLVM back end for gfx942 and gfx950, written by
``papers/triton_lowering/swap_pack_isel.py --slot-table``)."""

from __future__ import annotations

import json

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering import convert_path
from linlayout.lowering.amd_pack import (SourceWord, pack_permute_bounds, pack_permutes,
                                         pair_permutes, slot_pair_permutes)
from linlayout.lowering.convert import shuffle_permute_bounds
from tests.lowering.warp_pairs import layout
from tests.support import ROOT

DATA = json.loads((ROOT / "tests" / "data" / "amdgpu_slot_pairs.json").read_text(
    encoding="utf-8"))


def loaded(n: int, index: int, runs: int = 1, *, rank: int | None = None,
           ordered: bool = True) -> SourceWord:
    """Byte ``index`` of ``runs`` loads of ``n`` bytes (``index // n``: the load)."""
    run, byte = divmod(index, n)
    return SourceWord((run, byte // 4), byte % 4, min(4, n), load=(run,), load_bytes=n,
                      load_byte=byte, rank=index if rank is None else rank, ordered=ordered)


def _pair(key: str) -> tuple[int, int, int]:
    n, pair = key.split(":")
    i, j = map(int, pair.split(","))
    return int(n), i, j


def test_every_pair_of_one_load_costs_what_llvm_selected():
    assert len(DATA["one"]) == 2 * 1 + 4 * 3 + 8 * 7 + 16 * 15
    for key, got in DATA["one"].items():
        n, i, j = _pair(key)
        assert set(got) == {"gfx942", "gfx950"}
        assert set(got.values()) == {slot_pair_permutes(loaded(n, i), loaded(n, j))}, key


def test_every_pair_of_two_loads_costs_what_llvm_selected():
    assert len(DATA["two"]) == 2 * sum(n * n for n in (1, 2, 4, 8, 16))
    for key, got in DATA["two"].items():
        n, i, j = _pair(key)
        want = slot_pair_permutes(loaded(n, i, 2), loaded(n, j, 2))
        assert set(got.values()) == {want}, key


def test_the_load_order_matters_only_for_wide_loads():
    """2- and 4-byte loads: reversing the order of the byte loads changes no count; 8- and
    16-byte loads: it changes most, so bytes loaded out of address order are not predicted."""
    wide_changed = 0
    for key, got in DATA["reversed"].items():
        shape, pair, _ = key.split(":")
        n, runs = map(int, shape.split("x"))
        in_order = DATA["one" if runs == 1 else "two"][f"{n}:{pair}"]["gfx942"]
        if n <= 4:
            assert got == in_order, key
        else:
            wide_changed += got != in_order
    assert wide_changed >= 4
    assert slot_pair_permutes(loaded(8, 0, ordered=False), loaded(8, 2, ordered=False)) is None


def test_pairs_of_one_kernel_add_up():
    assert len(DATA["random"]) >= 60
    for case in DATA["random"]:
        n = case["bytes"]
        assert case["v_perm_b32"] == sum(
            slot_pair_permutes(loaded(n, a), loaded(n, b)) for a, b in case["packs"]), case


@pytest.mark.parametrize("lo,hi,n", [
    (loaded(4, 0), loaded(4, 1), 1),     # bytes 0, 1 of a dword: one v_perm_b32
    (loaded(4, 2), loaded(4, 3), 0),     # bytes 2, 3: v_alignbit_b32 + v_and_b32
    (loaded(2, 1), loaded(2, 0), 0),     # the top byte of a ushort below the other
    (loaded(2, 0, 2), loaded(2, 2, 2), 1),   # byte 0 of two ushort loads
    (loaded(2, 1, 2), loaded(2, 3, 2), 0),   # byte 1 of two ushort loads
    (loaded(8, 0), loaded(8, 2), 0),     # a 0x00ff00ff mask of one loaded word
    (loaded(8, 0), loaded(8, 4), 1),
    (loaded(1, 0, 2), loaded(1, 1, 2), 0),   # two bytes alone: v_lshl_or_b32
])
def test_slot_pair_permutes(lo, hi, n):
    assert slot_pair_permutes(lo, hi) == n == pair_permutes(lo, hi)


def test_slot_pair_permutes_leaves_unmeasured_pairs_to_pack_permutes():
    opaque = SourceWord((0,), 0, 4, True)
    raw = SourceWord((1,), 0, 1)
    assert slot_pair_permutes(opaque, raw) is None
    assert pair_permutes(opaque, raw) == pack_permutes((opaque, raw), 8) == 1
    assert slot_pair_permutes(loaded(4, 0), loaded(2, 1)) is None  # unequal widths
    with pytest.raises(LayoutError):
        slot_pair_permutes((0,), raw)


@pytest.mark.parametrize("pack,vec,bounds", [
    ((loaded(4, 0), loaded(4, 1)), False, (1, 1)),   # measured, built alone: exact
    ((loaded(4, 0), loaded(4, 1)), True, (0, 1)),    # SLP may build it as <2 x i32>
    ((loaded(4, 2), loaded(4, 3)), True, (0, 0)),    # measured 0
    ((loaded(8, 0, ordered=False), loaded(8, 1, ordered=False)), False, (0, 1)),
    ((SourceWord((0,), 0, 1), SourceWord((1,), 0, 1)), True, (0, 0)),  # alone: exact
    ((SourceWord((0,), 0, 4, True), SourceWord((1,), 0, 1)), True, (1, 1)),  # computed
])
def test_pack_permute_bounds(pack, vec, bounds):
    low, high = pack_permute_bounds(pack, 8, vectorisable=vec)
    assert (low, high) == bounds
    assert low <= pair_permutes(*pack) <= high


def test_pack_permute_bounds_of_other_packs_are_their_count():
    four = tuple(SourceWord((k,), 0, 1) for k in range(4))
    assert pack_permute_bounds(four, 8) == (2, 2) == (pack_permutes(four, 8),) * 2
    with pytest.raises(LayoutError, match="vectorisable"):
        pack_permute_bounds(four, 8, vectorisable=1)


def test_shuffle_permute_bounds_span_merged_and_split_source_loads():
    # a 4-byte run per thread along dim1, its register 1 swapped with a lane
    src = layout([1, 2, 4], [8, 16, 32, 64, 128, 256], [], 4, 5)
    dst = layout([1, 8, 4], [2, 16, 32, 64, 128, 256], [], 4, 5)
    merged = convert_path(src, dst, 8, "hip:gfx942", (1, 32)).counts["v_perm_b32"]
    apart = convert_path(src, dst, 8, "hip:gfx942").counts["v_perm_b32"]
    assert shuffle_permute_bounds(src, dst, 8, "hip:gfx942", (1, 32)) is None
    assert shuffle_permute_bounds(src, dst, 8, "hip:gfx942", (1, 32), split=True) == \
        (merged, apart) == (3, 7)
    assert shuffle_permute_bounds(src, dst, 8, "cuda:90", (1, 32), split=True) is None
