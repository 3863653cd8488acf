"""linlayout.cute.algebra: CuTe's layout algebra against NVIDIA's pycute.

``tests/data/cute_algebra.json`` (written by ``papers/cute_gluon/generate_cute_algebra.py``
with pycute) holds 600 seeded random cases on power-of-two layouts: the expected C++ text and
the value at every coordinate, or a refusal where pycute's answer leaves the subset. When
pycute is importable the same cases are also recomputed live."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

from linlayout import LayoutError, cute
from linlayout.cute import (CuteLayout, NotPowerOfTwoError, blocked_product, coalesce,
                            complement, composition, cosize, depth, downcast, flat_divide,
                            logical_divide, logical_product, rank, raked_product, size,
                            tiled_divide, upcast, zipped_divide)

from .fixtures import DATA

OPS = ("coalesce", "complement", "composition", "logical_divide", "zipped_divide",
       "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product",
       "flat_product", "blocked_product", "raked_product", "downcast")
SCALARS = ("size", "cosize", "rank", "depth")


@lru_cache(maxsize=None)
def cases() -> list[dict]:
    with open(DATA / "cute_algebra.json", encoding="utf-8") as fh:
        return json.load(fh)["cases"]


def _arg(a):
    return tuple(_arg(x) for x in a) if isinstance(a, list) else a


def test_the_fixture_covers_every_name_many_times():
    from collections import Counter
    count = Counter(c["op"] for c in cases())
    assert set(count) == set(OPS) | set(SCALARS)
    assert min(count.values()) >= 25 and len(cases()) >= 500
    assert sum("Sw<" in c["layout"] for c in cases()) >= 40          # swizzles carried through
    assert sum(c["expect"] is None for c in cases() if c["op"] in OPS) >= 20   # refusals


@pytest.mark.parametrize("i", range(600))
def test_case_against_pycute(i):
    c = cases()[i]
    fn = getattr(cute, c["op"])
    if c["op"] in SCALARS:
        assert fn(c["layout"]) == c["expect"]
        return
    if c["expect"] is None:
        with pytest.raises(LayoutError):
            fn(c["layout"], _arg(c["arg"]))
        return
    got = fn(c["layout"], _arg(c["arg"]))
    assert isinstance(got, CuteLayout)
    assert got.text() == c["expect"]
    if c["values"] is not None:
        assert [got(k) for k in range(got.size)] == c["values"]


def test_live_pycute_when_installed():
    pycute = pytest.importorskip("pycute")
    from pycute import Layout
    A, B = Layout((8, (2, 4)), (8, (1, 2))), Layout((2, 2), (1, 4))
    assert str(logical_divide("(_8,(_2,_4)):(_8,(_1,_2))", "(_2,_2):(_1,_4)")) == \
        _cpp(pycute.logical_divide(A, B))
    assert str(logical_product("(_8,(_2,_4)):(_8,(_1,_2))", "(_2,_2):(_1,_4)")) == \
        _cpp(pycute.logical_product(A, B))


def _cpp(x) -> str:
    s = str(x).replace(" ", "")
    import re
    return re.sub(r"(?<![\d_])(\d+)", r"_\1", s)


# ----------------------------------------------------------------------------- examples
def test_divide_a_tile_into_blocks():
    # 8x8 column-major, 2x4 blocks: mode 0 is one block, mode 1 the 4x2 grid of blocks
    L = zipped_divide("(_8,_8):(_1,_8)", (2, 4))
    assert L.text() == "((_2,_4),(_4,_2)):((_1,_8),(_2,_32))"
    assert [L((b, 0)) for b in range(8)] == [0, 1, 8, 9, 16, 17, 24, 25]
    assert tiled_divide("(_8,_8):(_1,_8)", (2, 4)).rank == 3
    assert flat_divide("(_8,_8):(_1,_8)", (2, 4)).rank == 4


def test_products_and_complement():
    assert complement("(_4,_2):(_1,_16)", 128).text() == "(_4,_4):(_4,_32)"
    assert complement("_4:_1").text() == "_1:_0"              # cotarget = cosize: nothing left
    blk = blocked_product("(_2,_2):(_1,_2)", "(_2,_4):(_1,_2)")
    rak = raked_product("(_2,_2):(_1,_2)", "(_2,_4):(_1,_2)")
    assert size(blk) == size(rak) == 32 and rank(blk) == rank(rak) == 2
    # blocked: the block's 2x2 elements are contiguous; raked: the repeats are interleaved
    assert blk((1, 0), (0, 0)) == 1 and rak((1, 0), (0, 0)) == 4


def test_sizes():
    assert (size("((_8,_8),_64):((_64,_512),_1)"), rank("((_8,_8),_64):((_64,_512),_1)"),
            depth("((_8,_8),_64):((_64,_512),_1)")) == (4096, 2, 2)
    assert cosize("(_4,_2):(_1,_16)") == 20
    assert (size((4, (2, 8))), rank(8), depth(8)) == (64, 1, 0)


def test_downcast_inverts_upcast():
    for text in ("(_32,(_2,_4)):(_2,(_1,_64))", "(_8,_8):(_1,_8)", "_16:_1"):
        assert upcast(downcast(text, 16), 16).text() == cute.parse_cute(text).text()


def test_swizzle_is_carried_through():
    sw = "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"
    got = logical_divide(sw, (None, 8))
    assert got.swizzle == (3, 3, 3) and got.text().startswith("Sw<3,3,3> o _0 o ")
    assert coalesce("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)").pointer_bits == 16
    assert complement(sw, 1024).text() == "_2:_512"       # of the inner layout, plain
    assert cosize(sw) == 512


# ----------------------------------------------------------------------------- refusals
def test_outside_the_power_of_two_subset():
    with pytest.raises(NotPowerOfTwoError, match="shape 3, not a power of two"):
        coalesce("(_3,_4):(_1,_3)")
    with pytest.raises(NotPowerOfTwoError, match="stride 72"):
        composition("(_64,_64):(_72,_1)", "_4:_1")
    with pytest.raises(NotPowerOfTwoError, match="cotarget 24"):
        complement("_4:_1", 24)
    with pytest.raises(NotPowerOfTwoError, match="tiler 3"):
        logical_divide("_16:_1", 3)
    assert issubclass(NotPowerOfTwoError, LayoutError)


def test_overlap_and_bad_tilers():
    with pytest.raises(LayoutError, match="overlap"):
        complement("(_2,_2):(_1,_1)", 8)
    with pytest.raises(LayoutError, match="swizzle or offset"):
        composition("_64:_1", "Sw<1,0,1> o _0 o _8:_1")
    with pytest.raises(LayoutError, match="tiler has 3 modes"):
        logical_divide("(_8,_8):(_1,_8)", (2, 2, 2))
    with pytest.raises(LayoutError, match="one layout"):
        blocked_product("(_2,_2):(_1,_2)", (2, 2))
    with pytest.raises(LayoutError, match="no stride-1 leaf"):
        downcast("(_4,_4):(_2,_8)", 2)
    with pytest.raises(LayoutError, match="plain layout"):
        downcast("Sw<1,0,1> o _0 o _8:_1", 2)
    with pytest.raises(LayoutError, match="profile"):
        coalesce("(_2,_2):(_1,_2)", (1, 1, 1))
