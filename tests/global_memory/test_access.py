"""linlayout.global_memory: the exact sectors and lines of a warp's global access.

Hand-worked cases (row-major reads along and across rows, vectors, padding strides, a base
aligned to less than a line, a CuTe thread-value layout), the input errors, and the closed form
against the brute-force simulator on random layouts and placements (hypothesis).
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, cute
from linlayout.errors import NotInvertibleError
from linlayout.global_memory import GlobalAccessReport, global_access, simulate_global_access
from linlayout.global_memory.access import linear_global_access
from linlayout.global_memory.plan import linear_images, plan_global

from tests.support import (
    random_distributed,
    random_memory,
    random_memory_vectorisable,
    random_out_bits,
)

ROWS = {"dim0": 32, "dim1": 32}
#: Lanes along dim1 (the contiguous dim of a row-major 32×32 tile), registers along dim0.
ALONG_ROWS = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                           "register": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]},
                          out_dims=ROWS)
ROW_MAJOR = cute.parse_layout("(_32,_32):(_32,_1)")


def outcome(fn, *args, **kwargs):
    """The report with its method cleared, or the LayoutError's type."""
    try:
        rep = fn(*args, **kwargs)
    except LayoutError as exc:
        return type(exc)
    return dataclasses.replace(rep, method="")


# ---------------------------------------------------------------------------- hand-worked
def test_row_major_read_along_rows_is_coalesced():
    rep = global_access(ALONG_ROWS, ROW_MAJOR, element_bits=32)
    assert rep.method == "closed form"
    assert (rep.vector_elems, rep.instructions_per_warp) == (1, 32)
    assert (rep.sectors_per_instruction, rep.lines_per_instruction) == (4, 1)
    assert rep.sectors_per_warp == rep.sector_floor == 128
    assert rep.coalesced and rep.efficiency == 1.0


def test_strides_and_layout_agree():
    a = global_access(ALONG_ROWS, ROW_MAJOR, element_bits=16)
    b = global_access(ALONG_ROWS, (32, 1), element_bits=16)
    assert a == b


def test_read_across_rows_vectorises_but_touches_a_sector_per_lane():
    # dim0 contiguous: each thread's registers hold 32 consecutive elements
    rep = global_access(ALONG_ROWS, (1, 32), element_bits=32)
    assert rep.vector_elems == 4 and rep.access_bytes == 16
    assert rep.instructions_per_warp == 8
    assert rep.sectors_per_instruction == 32 and rep.lines_per_instruction == 32
    assert rep.sectors_per_warp == 256 and rep.sector_floor == 128
    assert rep.efficiency == 0.5 and not rep.coalesced


def test_one_element_per_lane_across_rows_wastes_seven_eighths():
    rep = global_access(ALONG_ROWS, (1, 32), element_bits=32, vector_elems=1)
    assert rep.sectors_per_warp == 32 * 32 and rep.efficiency == 1 / 8


def test_padded_rows_are_enumerated():
    rep = global_access(ALONG_ROWS, (33, 1), element_bits=32)
    assert rep.method == "enumeration"
    assert rep.sectors_per_instruction == 5 and rep.lines_per_instruction == 2
    assert rep == dataclasses.replace(simulate_global_access(ALONG_ROWS, (33, 1),
                                                             element_bits=32))


def test_a_base_aligned_to_less_than_a_line_costs_the_worst_placement():
    aligned = global_access(ALONG_ROWS, ROW_MAJOR, element_bits=32)
    rep = global_access(ALONG_ROWS, ROW_MAJOR, element_bits=32, base_alignment_bytes=16)
    assert rep.method == "enumeration"
    assert rep.sectors_per_instruction == 5 and rep.lines_per_instruction == 2
    assert rep.sectors_per_warp == 160 and aligned.sectors_per_warp == 128


def test_the_base_alignment_caps_the_vector():
    rep = global_access(ALONG_ROWS, (1, 32), element_bits=32, base_alignment_bytes=8)
    assert rep.vector_elems == 2


def test_misaligned_lanes_do_not_vectorise():
    # lane 1 starts one element into the thread run: registers could hold a vector, lanes
    # break the common register order
    lay = LinearLayout({"register": [[1], [2]], "lane": [[1], [4], [8], [16], [32]]},
                       out_dims={"dim0": 64})
    assert global_access(lay, (1,), element_bits=32).vector_elems == 1
    with pytest.raises(LayoutError, match="straddle"):
        global_access(lay, (1,), element_bits=32, vector_elems=2)
    with pytest.raises(LayoutError, match="not possible"):
        simulate_global_access(lay, (1,), element_bits=32, vector_elems=2)


def test_cute_thread_value_layout():
    # SM80 16x8 fp32 accumulator-like TV layout on a row-major 16x8 tile
    tv = cute.tv_layout("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", [16, 8])
    rep = global_access(tv, cute.parse_layout("(_16,_8):(_8,_1)"), element_bits=32)
    assert rep == dataclasses.replace(simulate_global_access(
        tv, cute.parse_layout("(_16,_8):(_8,_1)"), element_bits=32), method="closed form")
    assert rep.useful_bytes_per_warp == 16 * 8 * 4


def test_report_to_dict():
    d = global_access(ALONG_ROWS, ROW_MAJOR, element_bits=32).to_dict()
    assert d["coalesced"] is True and d["efficiency"] == 1.0 and d["sector_floor"] == 128
    assert isinstance(d["method"], str)


def test_linear_images_need_carry_free_power_of_two_strides():
    assert linear_images((32, 1), (5, 5)) == (32, 64, 128, 256, 512, 1, 2, 4, 8, 16)
    assert linear_images((16, 1), (5, 5)) is None  # row 1 overlaps row 0's columns
    assert linear_images((33, 1), (5, 5)) is None


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("kwargs, match", [
    ({"element_bits": 4}, "element_bits"),
    ({"element_bits": True}, "element_bits"),
    ({"element_bits": 32, "sector_bytes": 24}, "sector_bytes"),
    ({"element_bits": 32, "line_bytes": 16}, "line_bytes"),
    ({"element_bits": 32, "base_alignment_bytes": 0}, "base_alignment_bytes"),
    ({"element_bits": 64, "base_alignment_bytes": 4}, "naturally aligned"),
    ({"element_bits": 32, "vector_elems": 8}, "vector_elems"),
    ({"element_bits": 32, "vector_elems": 3}, "vector_elems"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(LayoutError, match=match):
        global_access(ALONG_ROWS, ROW_MAJOR, **kwargs)


@pytest.mark.parametrize("memory, match", [
    ((32,), "2 dims"),
    ((32, 0), "positive"),
    ((32, -1), "positive"),
    ((32, 1.5), "int"),
    ("32,1", "LinearLayout"),
    (LinearLayout.identity_1d(1024, "offset", "dim0"), "out dims"),
])
def test_bad_memory(memory, match):
    with pytest.raises(LayoutError, match=match):
        global_access(ALONG_ROWS, memory, element_bits=32)


def test_memory_must_be_a_bijection_without_blocks():
    with pytest.raises(NotInvertibleError):
        global_access(ALONG_ROWS, LinearLayout({"offset": [[0, 0]] * 10}, out_dims=ROWS),
                      element_bits=32)
    two = LinearLayout({"offset": [[0, 1 << i] for i in range(5)] + [[1 << i, 0] for i in
                                                                      range(4)],
                        "block": [[16, 0]]}, out_dims=ROWS)
    with pytest.raises(LayoutError, match="block"):
        global_access(ALONG_ROWS, two, element_bits=32)


def test_layout_must_be_distributed():
    with pytest.raises(LayoutError, match="in dim"):
        global_access(ROW_MAJOR, ROW_MAJOR, element_bits=32)


def test_oversize_enumeration_is_refused_up_front():
    big = LinearLayout({"lane": [[0, 1 << i] for i in range(5)],
                        "register": [[1 << i, 0] for i in range(12)] +
                                    [[0, 1 << i] for i in range(5, 12)]},
                       out_dims={"dim0": 4096, "dim1": 4096})
    with pytest.raises(LayoutError, match="limit"):
        global_access(big, (4097, 1), element_bits=32)
    # the closed form takes the same size in its stride
    assert global_access(big, (4096, 1), element_bits=32).method == "closed form"
    with pytest.raises(LayoutError, match="limit"):
        simulate_global_access(ALONG_ROWS, ROW_MAJOR, element_bits=32, limit=100)


def test_a_huge_line_is_refused_without_listing_its_placements():
    # the work check listed every base placement first: 2^40-byte lines at 16-byte
    # alignment (2^36 placements) raised MemoryError instead of the limit's LayoutError
    lay = LinearLayout({"lane": [[1 << i] for i in range(5)]}, out_dims={"dim0": 32})
    with pytest.raises(LayoutError, match="limit"):
        global_access(lay, (3,), element_bits=16, sector_bytes=16, line_bytes=1 << 40,
                      base_alignment_bytes=16)


# ---------------------------------------------------------------------------- closed form = simulator
def _random_case(seed: int):
    rng = random.Random(seed)
    d = rng.randint(2, 9)
    out_bits = random_out_bits(rng, d)
    lay = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                             warp_bits=rng.randint(0, 2), broadcast=rng.choice([0, 0, 0.3]),
                             lane_bits=rng.randint(2, 5))
    pick = rng.random()
    if pick < 0.4:
        mem = random_memory_vectorisable(rng, lay, unit=rng.random() < 0.5)
    elif pick < 0.6:
        mem = random_memory(rng, out_bits, unit=rng.random() < 0.5)
    else:  # power-of-two strides, row-major, column-major or padded to a power of two
        n0, n1 = out_bits
        order = rng.random() < 0.5
        gap = rng.randint(0, 2)
        mem = (1 << (n1 + gap), 1) if order else (1, 1 << (n0 + gap))
    kwargs = {"element_bits": rng.choice([8, 16, 32, 64]),
              "sector_bytes": rng.choice([16, 32, 32, 64]),
              "vector_elems": rng.choice([None, None, None, None, 1, 2])}
    kwargs["line_bytes"] = kwargs["sector_bytes"] * rng.choice([1, 4])
    kwargs["base_alignment_bytes"] = max(kwargs["line_bytes"], rng.choice([128, 256]))
    return lay, mem, kwargs


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1))
def test_closed_form_matches_simulator(seed):
    lay, mem, kwargs = _random_case(seed)
    closed = outcome(global_access, lay, mem, **kwargs)
    brute = outcome(simulate_global_access, lay, mem, **kwargs)
    assert closed == brute
    if isinstance(closed, GlobalAccessReport):
        assert global_access(lay, mem, **kwargs).method == "closed form"
        assert closed.sectors_per_warp >= closed.sector_floor


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_smaller_base_alignment_never_costs_less(seed):
    lay, mem, kwargs = _random_case(seed)
    kwargs["vector_elems"] = None
    aligned = global_access(lay, mem, **kwargs)
    kwargs["base_alignment_bytes"] = max(aligned.access_bytes, aligned.element_bits // 8)
    worst = global_access(lay, mem, **kwargs)
    assert worst.sectors_per_warp >= aligned.sectors_per_warp
    assert worst.useful_bytes_per_warp == aligned.useful_bytes_per_warp


def test_the_closed_form_refuses_what_it_cannot_count():
    plan = plan_global(ALONG_ROWS, (33, 1), element_bits=32)
    with pytest.raises(LayoutError, match="F2-linear"):
        linear_global_access(plan)
    plan = plan_global(ALONG_ROWS, (32, 1), element_bits=32, base_alignment_bytes=16)
    with pytest.raises(LayoutError, match="line"):
        linear_global_access(plan)


def test_64_lane_waves_closed_form_equals_brute_force():
    rng = random.Random(64)
    for _ in range(60):
        nreg, nlane, nwarp = rng.randint(0, 3), rng.randint(4, 6), rng.randint(0, 2)
        cols = list(range(nreg + nlane + nwarp))
        rng.shuffle(cols)

        def take(n):
            return [[1 << cols.pop()] for _ in range(n)]

        layout = LinearLayout({"register": take(nreg), "lane": take(nlane),
                               "warp": take(nwarp)}, {"dim0": 1 << (nreg + nlane + nwarp)})
        bits = rng.choice([8, 16, 32, 64])
        for sector in (32, 128):
            kw = dict(element_bits=bits, vector_elems=1, sector_bytes=sector, line_bytes=128,
                      lanes_per_warp=64)
            a = global_access(layout, [1], **kw)
            b = simulate_global_access(layout, [1], **kw)
            assert (a.sectors_per_instruction, a.lines_per_instruction, a.sectors_per_warp,
                    a.useful_bytes_per_warp) == (b.sectors_per_instruction,
                                                 b.lines_per_instruction,
                                                 b.sectors_per_warp, b.useful_bytes_per_warp)


def test_lanes_per_warp_is_32_or_64():
    layout = LinearLayout({"lane": [[1 << i] for i in range(6)]}, {"dim0": 64})
    with pytest.raises(LayoutError, match="32 lanes|a warp has 32"):
        global_access(layout, [1], element_bits=32)
    assert global_access(layout, [1], element_bits=32, lanes_per_warp=64,
                         sector_bytes=128).sectors_per_instruction == 2
    with pytest.raises(LayoutError, match="lanes_per_warp"):
        global_access(layout, [1], element_bits=32, lanes_per_warp=48)
