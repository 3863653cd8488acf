"""``access_fault``: the legality of an access's vectors, against a brute-force replay."""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, f2
from linlayout.hardware.access import access_fault
from linlayout.layout.padded import PaddedLayout
from tests.support import random_distributed, random_memory_vectorisable


def _brute(dist: LinearLayout, memory, bits: int, v: int, instruction: str):
    """Every (warp, lane, register) in order; the first whose element starts an illegal unit.

    Returns (warp, lane, register, byte address, kind) or None."""
    linear = memory.linear if isinstance(memory, PaddedLayout) else memory
    pad = memory.padded_offset if isinstance(memory, PaddedLayout) else (lambda x: x)
    inv = linear.invert()
    eb = bits // 8
    matrix = instruction in ("ldmatrix", "stmatrix")
    unit = 128 // bits if matrix else v
    nbytes = unit * eb
    aligned = not instruction.startswith("ds_")
    dims = dist.in_dims
    for w in range(dims.get("warp", 1)):
        for ln in range(dims.get("lane", 1)):
            for r in range(dims.get("register", 1)):
                point = {"register": r, "lane": ln, "warp": w}
                coord = dist.apply({k: x for k, x in point.items() if k in dims})
                x = inv.apply(coord)["offset"]
                if x % unit:
                    continue
                addr = pad(x) * eb
                if aligned and addr % nbytes:
                    return (w, ln, r, addr, "misaligned")
                if [pad(x + j) for j in range(unit)] != list(range(pad(x), pad(x) + unit)):
                    return (w, ln, r, addr, "gap")
    return None


def _case(seed: int):
    rng = random.Random(seed)
    out_bits = [rng.randint(2, 5), rng.randint(2, 5)]
    dist = random_distributed(rng, out_bits, unit=rng.random() < 0.7,
                              warp_bits=rng.randint(0, 2), lane_bits=rng.choice([3, 5]))
    mem = random_memory_vectorisable(rng, dist, unit=rng.random() < 0.7)
    intervals = rng.sample([2, 4, 8, 16, 32, 64], rng.randint(1, 2))
    pairs = tuple((i, rng.choice([1, 2, 4, 8, 16])) for i in intervals)
    bits = rng.choice([8, 16, 32, 64])
    return rng, dist, PaddedLayout(mem, pairs), bits


@pytest.mark.parametrize("seed", range(300))
def test_access_fault_matches_brute_force(seed):
    rng, dist, padded, bits = _case(seed)
    instruction = rng.choice(["ld.shared", "st.shared", "cp.async", "ds_read", "ldmatrix"])
    if instruction == "ldmatrix":
        bits = min(bits, 32)
        v = 128 // bits
    else:  # mostly a vector the registers hold, sometimes a wider one
        span = f2.echelon(list(dist.dim_columns("register")))
        cols = padded.linear.columns
        held = 0
        while held < len(cols) and not f2.reduce(cols[held], span):
            held += 1
        v = 1 << rng.randint(0, min(4, held + (rng.random() < 0.2)))
    for memory in (padded, padded.linear):
        try:
            got = access_fault(dist, memory, element_bits=bits, vector_elems=v,
                               instruction=instruction, warp_log2=5)
        except LayoutError as exc:
            # only when the instruction cannot move v elements, or no thread holds a unit
            regs = [c for c in dist.dim_columns("register")]
            if instruction == "ldmatrix":
                regs += list(dist.dim_columns("lane"))
            span = f2.echelon(regs)
            inv_cols = padded.linear.columns
            nbytes = v * bits // 8
            assert ("cannot move" in str(exc) and nbytes not in
                    {"cp.async": (4, 8, 16)}.get(instruction, (1, 2, 4, 8, 12, 16))) \
                or any(f2.reduce(inv_cols[j], span) for j in range(v.bit_length() - 1)) \
                or v.bit_length() - 1 > len(inv_cols), str(exc)
            continue
        want = _brute(dist, memory, bits, v, instruction)
        if want is None:
            assert got is None
        else:
            assert got is not None
            assert (got.warp, got.lane, got.register, got.byte_address) == want[:4]
            assert ("misaligned" in got.reason) == (want[4] == "misaligned")
        if memory is padded.linear:
            assert got is None  # no padding: always legal


def test_row_padding_misaligns_every_odd_lane_vector():
    # 32x32 f32, one row per lane, 4 columns per register group, [32:+1]: lane l at 132·l bytes
    dist = LinearLayout({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                         "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]},
                        {"dim0": 32, "dim1": 32})
    padded = PaddedLayout.identity([[32, 1]], [32, 32], [1, 0])
    fault = access_fault(dist, padded, element_bits=32, vector_elems=4)
    assert (fault.warp, fault.lane, fault.register, fault.byte_address) == (0, 1, 0, 132)
    assert "16-byte" in fault.reason
    assert access_fault(dist, padded, element_bits=32, vector_elems=1) is None
    # AMD LDS runs unaligned: no gap inside the vector, so legal
    assert access_fault(dist, padded, element_bits=32, vector_elems=4,
                        instruction="ds_write", warp_log2=5) is None
    # [2:+1]: every 4-vector crosses a gap
    gap = PaddedLayout.identity([[2, 1]], [32, 32], [1, 0])
    fault = access_fault(dist, gap, element_bits=32, vector_elems=4, instruction="ds_read")
    assert (fault.lane, fault.register) == (0, 0) and "gap" in fault.reason


def test_ldmatrix_rows_need_sixteen_byte_alignment():
    # 16x8 f16 tile, one row of 8 elements per 4 lanes (2 per lane): ldmatrix's shape
    dist = LinearLayout({"register": [[0, 1]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                         "warp": []}, {"dim0": 16, "dim1": 8})
    ok = PaddedLayout.identity([[8, 8]], [16, 8], [1, 0])
    assert access_fault(dist, ok, element_bits=16, vector_elems=8, instruction="ldmatrix") is None
    bad = PaddedLayout.identity([[8, 4]], [16, 8], [1, 0])
    f = access_fault(dist, bad, element_bits=16, vector_elems=8, instruction="ldmatrix")
    assert (f.lane, f.register, f.byte_address) == (4, 0, 24) and "row address" in f.reason


def test_bad_arguments():
    dist = LinearLayout({"register": [[1]], "lane": [[2]]}, {"dim0": 4})
    mem = LinearLayout({"offset": [[1], [2]]}, {"dim0": 4})
    with pytest.raises(LayoutError, match="instruction must be"):
        access_fault(dist, mem, element_bits=32, vector_elems=1, instruction="mov")
    with pytest.raises(LayoutError, match="element_bits"):
        access_fault(dist, mem, element_bits=4, vector_elems=1)
    with pytest.raises(LayoutError, match="cannot move"):
        access_fault(dist, mem, element_bits=8, vector_elems=2, instruction="cp.async")
    with pytest.raises(LayoutError, match="do not hold"):
        access_fault(dist, mem, element_bits=32, vector_elems=4)


@pytest.mark.parametrize("seed", range(100))
def test_a_stage_shift_keeping_the_access_size_changes_only_the_addresses(seed):
    rng, dist, padded, bits = _case(seed)
    try:
        base = access_fault(dist, padded, element_bits=bits, vector_elems=1)
    except LayoutError:
        return
    shift = 16 * rng.randint(1, 8) * 8 // bits  # a multiple of 16 bytes
    got = access_fault(dist, padded, element_bits=bits, vector_elems=1, stage_shift_elems=shift)
    if base is None:
        assert got is None
    else:
        assert got is not None and (got.warp, got.lane, got.register) == \
            (base.warp, base.lane, base.register)
        assert got.byte_address == base.byte_address + shift * bits // 8


def test_a_view_or_stage_offset_that_breaks_the_vector_is_misaligned():
    # 4 lanes x 4 registers read a 4x4 f32 tile row by row (16-byte vectors) from an 8x4 buffer
    dist = LinearLayout({"register": [[0, 1], [0, 2]], "lane": [[1, 0], [2, 0]]},
                        {"dim0": 8, "dim1": 4})
    mem = LinearLayout({"offset": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]]},
                       {"dim0": 8, "dim1": 4})
    padded = PaddedLayout(mem, ((16, 1),))
    assert access_fault(dist, padded, element_bits=32, vector_elems=4) is None
    # the view's rows 4..7 start at unpadded element 16, padded 17: byte 68
    f = access_fault(dist, padded, element_bits=32, vector_elems=4, base_offset_elems=16)
    assert (f.lane, f.register, f.byte_address) == (0, 0, 68)
    assert "misaligned" in f.reason
    # a base inside the vector misaligns every vector, also without padding
    f = access_fault(dist, mem, element_bits=32, vector_elems=4, base_offset_elems=2)
    assert f is not None and "view starts at element 2" in f.reason
    # a stage starting at padded element 17 (the second 16-element buffer): byte 68
    f = access_fault(dist, padded, element_bits=32, vector_elems=4, stage_shift_elems=17)
    assert f.byte_address == 68 and "buffer starts at padded element 17" in f.reason
    assert access_fault(dist, padded, element_bits=32, vector_elems=4,
                        stage_shift_elems=20) is None
    with pytest.raises(LayoutError, match="base_offset_elems"):
        access_fault(dist, padded, element_bits=32, vector_elems=4, base_offset_elems=32)
    with pytest.raises(LayoutError, match="stage_shift_elems"):
        access_fault(dist, padded, element_bits=32, vector_elems=4, stage_shift_elems=-1)
