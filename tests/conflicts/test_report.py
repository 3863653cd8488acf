"""ConflictReport: the whole-warp cost of an access, against the bandwidth floor."""

from __future__ import annotations

import random

import pytest

from linlayout import LinearLayout, bank_conflicts, examples, simulate_bank_access
from linlayout.hardware import AMD_CDNA4, NVIDIA


def _row_major(out_dims: dict[str, int]) -> LinearLayout:
    names = list(out_dims)
    cols = []
    for n in reversed(names):  # the last dim fastest
        for i in range(out_dims[n].bit_length() - 1):
            cols.append([1 << i if m == n else 0 for m in names])
    return LinearLayout({"offset": cols}, out_dims)


def test_column_read_pays_the_conflicts_of_every_instruction():
    ex = examples.get("transpose")
    rep = bank_conflicts(ex.load, _row_major(ex.load.out_dims), element_bits=32)
    # 16x32 fp32 read by one warp, one element per lane per instruction: 16 instructions,
    # each 16-way conflicted in its single phase
    assert (rep.instructions_per_warp, rep.degree, rep.phases) == (16, 16, 1)
    assert rep.wavefronts_per_instruction == 16
    assert rep.wavefronts_per_warp == 16 * 16
    assert rep.bytes_per_warp == 16 * 32 * 4
    assert rep.wavefront_floor == 16  # 2 KB / 128 B
    assert rep.instruction_floor == 4  # 2 KB / (32 lanes x 16 B)
    assert rep.efficiency == pytest.approx(16 / 256)
    assert not rep.at_floor and not rep.conflict_free


def test_a_conflict_free_wide_access_sits_at_the_floor():
    out = {"dim0": 256}
    mem = LinearLayout({"offset": [[1 << i] for i in range(8)]}, out)
    lay = LinearLayout({"register": [[1], [2], [4]], "lane": [[8], [16], [32], [64], [128]]},
                       out)
    rep = bank_conflicts(lay, mem, element_bits=16)
    assert (rep.vector_elems, rep.phases, rep.degree, rep.instructions_per_warp) == (8, 4, 1, 1)
    assert rep.wavefronts_per_warp == 4 == rep.wavefront_floor
    assert rep.at_floor and rep.efficiency == 1.0
    assert rep.instruction_floor == 1


def test_sub_word_accesses_pay_more_than_the_floor_even_without_conflicts():
    out = {"dim0": 64}
    mem = LinearLayout({"offset": [[1 << i] for i in range(6)]}, out)
    lay = LinearLayout({"register": [[32]], "lane": [[1], [2], [4], [8], [16]]}, out)
    rep = bank_conflicts(lay, mem, element_bits=16)  # 2 bytes per lane per instruction
    assert rep.degree == 1 and rep.instructions_per_warp == 2
    assert rep.wavefronts_per_warp == 2 and rep.wavefront_floor == 1


def test_broadcast_lanes_count_their_bytes_once():
    out = {"dim0": 32}
    mem = LinearLayout({"offset": [[1 << i] for i in range(5)]}, out)
    lay = LinearLayout({"register": [], "lane": [[1], [2], [4], [0], [0]],
                        "warp": [[8], [16]]}, out)
    rep = bank_conflicts(lay, mem, element_bits=32)
    assert rep.bytes_per_warp == 8 * 4  # 8 distinct fp32 elements per warp


def test_the_floors_use_the_hardware_model():
    out = {"dim0": 64, "dim1": 64}
    mem = _row_major(out)
    lay = LinearLayout({"register": [[0, 1], [0, 2], [0, 4]],
                        "lane": [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0]],
                        "warp": [[8, 0], [16, 0], [32, 0]]}, out)
    rep = bank_conflicts(lay, mem, element_bits=16, hardware=AMD_CDNA4)
    assert rep.row_bytes == 256 and rep.max_instruction_bytes == 64 * 16
    assert rep.wavefront_floor == -(-rep.bytes_per_warp // 256)
    wide = NVIDIA.with_banks(num_banks=64)
    assert bank_conflicts(lay.resize_in_dim("lane", 32), mem, element_bits=16,
                          hardware=wide).row_bytes == 256


def test_to_dict_names_every_unit():
    ex = examples.get("transpose")
    d = bank_conflicts(ex.load, _row_major(ex.load.out_dims), element_bits=32).to_dict()
    for key in ("degree", "wavefronts_per_instruction", "instructions_per_warp",
                "wavefronts_per_warp", "bytes_per_warp", "wavefront_floor",
                "instruction_floor", "efficiency", "vector_elems", "access_bits"):
        assert key in d
    assert "wavefronts" not in d and "instructions" not in d  # no unit-less totals


@pytest.mark.parametrize("seed", range(4))
def test_closed_form_and_simulator_agree_on_the_whole_warp_cost(seed):
    rng = random.Random(seed)
    out = {"dim0": 16, "dim1": 16}
    for _ in range(20):
        cols = [1 << i for i in range(8)]
        rng.shuffle(cols)
        split = lambda c: [c & 15, c >> 4]  # noqa: E731
        lay = LinearLayout({"register": [split(c) for c in cols[:3]],
                            "lane": [split(c) for c in cols[3:8]]}, out)
        perm = [1 << i for i in range(8)]
        rng.shuffle(perm)
        mem = LinearLayout({"offset": [split(c) for c in perm]}, out)
        bits = rng.choice([8, 16, 32])
        a = bank_conflicts(lay, mem, element_bits=bits)
        b = simulate_bank_access(lay, mem, element_bits=bits)
        assert a == b
        assert (a.wavefronts_per_warp, a.bytes_per_warp) == (b.wavefronts_per_warp,
                                                             b.bytes_per_warp)
