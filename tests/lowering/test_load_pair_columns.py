"""AMDGPU's building of a 32-bit register of four bytes, each of its own loaded word, from two
loads of 8 or 16 bytes: each 16-bit half one byte of the same word of both loads, all four at
one byte offset (:func:`linlayout.lowering.amd_pack.load_pair_column_permutes`, which
:func:`~linlayout.lowering.amd_pack.pack_permutes` applies). The measured registers are
replayed from ``tests/data/amdgpu_load_pair_columns.json`` (small LLVM IR kernels compiled with
Triton 3.9's LLVM back end for gfx942 and gfx950, written by
``papers/triton_lowering/swap_pack_isel.py --load-pairs``); no Triton needed."""

from __future__ import annotations

import json

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering.amd_pack import (
    SourceWord,
    load_pair_column_permutes,
    pack_permutes,
)
from tests.support import ROOT

DATA = json.loads((ROOT / "tests" / "data" / "amdgpu_load_pair_columns.json").read_text(
    encoding="utf-8"))


def loaded(n: int, index: int, *, rank: int | None = None,
           ordered: bool = True) -> SourceWord:
    """Byte ``index`` of two loads of ``n`` bytes (``index // n``: the load)."""
    run, byte = divmod(index, n)
    return SourceWord((run, byte // 4), byte % 4, 4, load=(run,), load_bytes=n,
                      load_byte=byte, rank=index if rank is None else rank, ordered=ordered)


def _cases() -> list:
    return sorted(DATA["words"].items())


def _parse(key: str) -> tuple[int, int, int, int, int, int]:
    n, ij, lo, k = key.split(":")
    i, j = map(int, ij.split(","))
    return int(n), i, j, int(lo[0]), int(lo[1]), int(k)


def test_the_fixture_is_the_whole_family():
    """Every word pair ``i != j`` of an 8- and a 16-byte load, both orientations of each
    half, every byte offset: 2·2·4 + 12·4·4 = 224 registers, each on both targets."""
    assert DATA["triton_version"].startswith("3.9")
    assert len(DATA["words"]) == 224
    assert all(set(v) == {"gfx942", "gfx950", "gfx942_reversed"} for v in DATA["words"].values())


@pytest.mark.parametrize("key,got", _cases(), ids=[k for k, _ in _cases()])
def test_pack_permutes_equals_the_measured_register(key, got):
    """Where the table gives a count, it and ``pack_permutes`` of the register's bytes equal
    the measurement on gfx942, gfx950 and with the loads' bytes loaded in reverse order."""
    n, i, j, lo0, lo1, k = _parse(key)
    want = load_pair_column_permutes(n, (i, j), k)
    if want is None:
        # the count depends on which load is lower: not predicted, the two orientations differ
        assert (n, tuple(sorted((i, j)))) in ((16, (0, 2)), (16, (1, 2)))
        return
    assert set(got.values()) == {want}
    regs = ((lo0, i), (1 - lo0, i), (lo1, j), (1 - lo1, j))
    pack = tuple(loaded(n, r * n + 4 * w + k) for r, w in regs)
    assert pack_permutes(pack, 8) == want
    # the IR's load order changes nothing (measured reversed): nor does it here
    rev = tuple(loaded(n, r * n + 4 * w + k, rank=100 - (r * n + 4 * w + k), ordered=False)
                for r, w in regs)
    assert pack_permutes(rev, 8) == want


def test_the_unpredicted_pairs_do_depend_on_the_lower_load():
    """``(0, 2)`` and ``(1, 2)`` of a 16-byte load: the measured count changes with which
    load gives each half's low byte, which the source words do not say (left to the
    per-half count)."""
    for i, j in ((0, 2), (1, 2)):
        counts = {DATA["words"][f"16:{i},{j}:{lo}:{k}"]["gfx942"]
                  for lo in ("00", "01", "10", "11") for k in range(4)}
        assert len(counts) > 1
        assert load_pair_column_permutes(16, (i, j), 0) is None


def test_the_round_trip_shape_of_two_dwordx4_rows():
    """``(A.w0, B.w0, A.w1, B.w1)`` and ``(A.w2, B.w2, A.w3, B.w3)`` at byte 0 (the round
    trip of ``g_sw_b8_128x32_w1_366159_gfx942``): one ``v_perm_b32`` each, not one per half."""
    for i in (0, 2):
        pack = tuple(loaded(16, r * 16 + 4 * w) for r, w in
                     ((0, i), (1, i), (0, i + 1), (1, i + 1)))
        assert pack_permutes(pack, 8) == 1


def test_other_shapes_keep_the_per_half_count():
    """Mixed byte offsets or a half of one load: not this table, so ``pack_permutes`` keeps
    its per-half count (one per half of two registers). That count is not a measurement of
    these shapes: swept four-register words of two loads with mixed offsets cost 0, 1 or 2
    by the words and offsets (``docs/triton-lowering.md``), not predicted."""
    mixed = (loaded(16, 0), loaded(16, 17), loaded(16, 4), loaded(16, 20))
    assert pack_permutes(mixed, 8) == 2
    same_load_half = (loaded(16, 0), loaded(16, 4), loaded(16, 16), loaded(16, 20))
    assert pack_permutes(same_load_half, 8) == 2


@pytest.mark.parametrize("args", [(4, (0, 1), 0), (16, (1, 1), 0), (16, (0, 4), 0),
                                  (8, (0, 1), 4), (True, (0, 1), 0), (16, [0, 1], 0),
                                  (16, (0, 1), True)])
def test_bad_arguments_raise(args):
    with pytest.raises(LayoutError):
        load_pair_column_permutes(*args)
