"""``linlayout.synthesis.lowered``: the matrix instructions a target has, the 32-bit lane
chunks Triton may pick for them (:func:`chunk_orders`), and the bound that holds whatever
chunk it picks (:func:`relaxed_bound`)."""

from __future__ import annotations

import itertools
import random
from contextlib import contextmanager, nullcontext

import pytest

import linlayout as ll
from linlayout import f2
from linlayout.errors import LayoutError
from linlayout.lowering import Target
from linlayout.synthesis import Transfer, lower_sides, lowered
from linlayout.synthesis.lowered import (MAX_CHUNK_ORDERS, chunk_orders, matrix_requests,
                                         relaxed_bound, shared_counts, sharing_counts)
from linlayout.synthesis.synthesize import synthesize_transfer
from linlayout.synthesis.transfer import WAVEFRONTS
from tests.check.shared_memory.triton_fixtures import entries


def _transfer(name: str) -> tuple[Transfer, dict]:
    e = entries("roundtrip")[name]
    shape = {"dim0": e["shape"][0], "dim1": e["shape"][1]}
    src = ll.LinearLayout(e["src"], out_dims=shape)
    dst = ll.LinearLayout(e["dst"], out_dims=shape)
    return Transfer.make(src, dst, element_bits=e["bits"]), e


CHUNK_CASE = "rt_linear_linear_b8_64x64_w4_bb895b_cuda80"


def test_matrix_requests_follow_the_target():
    tr, _ = _transfer(CHUNK_CASE)
    assert matrix_requests(tr, Target.parse("cuda:80")) == [None, "auto"]
    assert matrix_requests(tr, Target.parse("cuda:90")) == ["auto", "auto"]
    assert matrix_requests(tr, Target.parse("cuda:70")) is None
    with pytest.raises(LayoutError):
        matrix_requests("not a transfer", Target.parse("cuda:90"))


def test_chunk_orders_put_every_chunk_first_and_keep_each_threads_elements():
    tr, _ = _transfer(CHUNK_CASE)
    orders, complete = chunk_orders(tr, Target.parse("cuda:80"))
    nregs = sum(1 for r in tr.sides[1].register if r)
    assert complete and orders[0] == tr and len(orders) == nregs * (nregs - 1)
    firsts = set()
    for o in orders:
        assert o.sides[0] == tr.sides[0]  # sm_80 has no stmatrix: the store is not reordered
        regs = o.sides[1].register
        assert f2.echelon(regs) == f2.echelon(tr.sides[1].register)
        assert sorted(regs) == sorted(tr.sides[1].register)
        firsts.add(regs[:2])
    assert len(firsts) == len(orders)


def test_chunk_orders_are_capped(monkeypatch):
    tr, _ = _transfer(CHUNK_CASE)
    orders, complete = chunk_orders(tr, Target.parse("cuda:90"))
    assert complete and len(orders) <= MAX_CHUNK_ORDERS
    monkeypatch.setattr(lowered, "MAX_CHUNK_ORDERS", 8)
    orders, complete = chunk_orders(tr, Target.parse("cuda:90"))
    assert not complete and len(orders) <= 3 and orders[0] == tr


@pytest.mark.parametrize("name", ["rt_blocked_blocked_b8_128x32_w8_b0cfb8_cuda90",
                                  "rt_blocked_blocked_b16_64x64_w4_b63374_cuda90"])
def test_the_searched_orders_bound_as_tightly_as_every_combination_of_chunks(name):
    # an assignment depends only on the chunks of its matrix sides, which share one row: the
    # searched orders (each side's chunk alone, shared chunks together) give the same least
    # bound as searching every combination of the sides' chunks
    tr, e = _transfer(name)
    t = Target.parse(e["target"])
    req = matrix_requests(tr, t)
    c = 2 if tr.element_bits == 8 else 1

    def key(transfer: Transfer) -> tuple[int, int]:
        b = synthesize_transfer(transfer, WAVEFRONTS, instructions=req).bound
        return b.wavefronts_per_warp, b.instructions_per_warp

    orders, complete = chunk_orders(tr, t)
    assert complete
    regs = [[i for i, img in enumerate(ly.bases["register"]) if any(img)] for ly in tr.layouts]
    every = []
    for a in itertools.permutations(regs[0], c):
        for b in itertools.permutations(regs[1], c):
            bases = [{**ly.bases, "register": [ly.bases["register"][i] for i in
                                               list(f) + [j for j in range(len(
                                                   ly.bases["register"])) if j not in f]]}
                     for ly, f in zip(tr.layouts, (a, b))]
            every.append(Transfer.make(*(ll.LinearLayout(bs, dict(ly.out_dims))
                                         for bs, ly in zip(bases, tr.layouts)),
                                       element_bits=tr.element_bits))
    assert len(every) > len(orders)
    assert min(key(o) for o in orders) == min(key(x) for x in every)


def test_a_chunk_of_later_registers_is_found_and_proven_optimal():
    # the load's first two registers are not both in the store's registers: with the chunk
    # on them ldmatrix and the store's 16-byte vector cannot share a layout, but Triton
    # takes registers 0 and 2 as the chunk (regPermForDivide) and so does the synthesis
    tr, _ = _transfer(CHUNK_CASE)
    r = ll.synthesize_swizzle(tr.store, tr.loads[0], element_bits=8, lowering="triton",
                              target="cuda:80")
    assert r.loads[0].instruction == "ldmatrix.x4" and r.store.vector_elems == 16
    assert (r.wavefronts_per_warp, r.instructions_per_warp) == (16, 4)
    assert r.optimal and r.bound.reached
    strict = ll.synthesize_swizzle(tr.store, tr.loads[0], element_bits=8, instructions="auto")
    assert strict.bound.instructions_per_warp > r.instructions_per_warp


@pytest.mark.parametrize("name, target", [(CHUNK_CASE, "cuda:80"),
                                          ("rt_blocked_blocked_b16_64x64_w4_b63374_cuda90",
                                           "cuda:90")])
def test_no_layout_lowers_below_the_bound(name, target):
    tr, _ = _transfer(name)
    t = Target.parse(target)
    r = ll.synthesize_swizzle(tr.store, tr.loads[0], element_bits=tr.element_bits,
                              lowering="triton", target=target)
    floor = (r.bound.wavefronts_per_warp, r.bound.instructions_per_warp)
    loose = relaxed_bound(tr, WAVEFRONTS, t)
    assert (loose.wavefronts_per_warp, loose.instructions_per_warp) <= floor
    assert (r.wavefronts_per_warp, r.instructions_per_warp) >= floor
    rng = random.Random(5)
    d = tr.store.total_out_bits
    candidates = [r.layout]
    for _ in range(60):  # random memory layouts, and ones starting with a side's registers
        cols = [1 << i for i in range(d)]
        rng.shuffle(cols)
        side = rng.choice(tr.sides)
        regs = [c for c in side.register if c]
        rng.shuffle(regs)
        head = f2.extend_basis([], regs, limit=rng.randint(0, 4))
        cols = head + f2.extend_basis(head, cols)
        candidates.append(ll.LinearLayout.from_columns(cols, {"offset": 1 << d},
                                                       tr.store.out_dims))
    for layout in candidates:
        try:
            sides = lower_sides(layout, tr, t)
        except LayoutError:
            continue
        assert tr.totals(s.report for s in sides) >= floor


def test_relaxed_bound_checks_its_arguments():
    tr, _ = _transfer(CHUNK_CASE)
    with pytest.raises(LayoutError):
        relaxed_bound(tr, "wavefronts", Target.parse("cuda:80"))


def test_shared_counts_live_only_inside_their_block():
    assert shared_counts() is None
    with sharing_counts() as outer:
        assert shared_counts() is outer and outer == {}
        with sharing_counts() as inner:
            assert shared_counts() is inner and inner is not outer
        assert shared_counts() is outer
        with pytest.raises(RuntimeError), sharing_counts():
            raise RuntimeError("left early")
        assert shared_counts() is outer
    assert shared_counts() is None


def test_the_searches_of_a_lowered_synthesis_share_exact_counts(monkeypatch):
    """Every count a lowered synthesis shares between its chunk-order searches is the one
    counted afresh for that layout and side, and sharing changes no result (an 8-bit tile
    stored from an mma accumulator and read by three other encodings: its plain and matrix
    searches both count the simple layouts)."""
    from linlayout.conflicts.closed_form import count_side
    from linlayout.synthesis import synthesize as synth

    shape = {"dim0": 64, "dim1": 32}
    store = ll.LinearLayout({"register": [[0, 1], [8, 0], [16, 0], [32, 0]],
                             "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                             "warp": [[0, 8], [0, 16]]}, shape)
    loads = [ll.LinearLayout({"register": [[0, 1], [0, 2], [0, 4], [32, 0]],
                              "lane": [[0, 8], [0, 16], [1, 0], [2, 0], [4, 0]],
                              "warp": [[8, 0], [16, 0]]}, shape),
             ll.LinearLayout({"register": [[0, 1], [0, 2], [8, 0], [0, 16]],
                              "lane": [[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]],
                              "warp": [[16, 0], [32, 0]]}, shape),
             ll.LinearLayout({"register": [[0, 1], [8, 0], [0, 16], [16, 0], [32, 0]],
                              "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
                              "warp": [[0, 8]]}, shape)]
    tr = Transfer.make(store, loads, element_bits=8)
    tables: list[dict] = []

    @contextmanager
    def keep():
        with lowered.sharing_counts() as table:
            tables.append(table)
            yield table

    monkeypatch.setattr(synth, "sharing_counts", keep)
    ll.clear_caches()
    shared = synth.synthesize_lowered(tr, WAVEFRONTS, target="cuda:90")
    (table,) = tables
    assert {k[0] for k in table} == {"plain", "matrix", "widest"}
    for key, rep in table.items():
        if key[0] == "plain":
            _, cols, lane, warp, block, reg, load_side = key
            side = next(s for s in tr.sides if (s.lane, s.warp, s.block) == (lane, warp, block)
                        and f2.echelon(s.register) == reg)
            assert rep == count_side(cols, f2.inverse(cols), side, reg, tr.model, False,
                                     load_side)

    monkeypatch.setattr(synth, "sharing_counts", nullcontext)
    ll.clear_caches()
    alone = synth.synthesize_lowered(tr, WAVEFRONTS, target="cuda:90")
    assert alone.layout == shared.layout and alone.bound == shared.bound
    assert alone.reports == shared.reports and alone.optimal == shared.optimal


@pytest.mark.parametrize("name, target", [(CHUNK_CASE, "cuda:80"),
                                          ("rt_blocked_blocked_b16_64x64_w4_b63374_cuda90",
                                           "cuda:90")])
def test_lower_sides_is_the_lowering_of_each_side(name, target):
    """lower_sides reads each side's access map off flat columns: the same instruction and
    count as access_map, predict_local and bank_conflicts give, on random memory layouts
    (offset or vector/bank/segment in dims, out dims in either order)."""
    from linlayout.lowering import access_map, predict_local

    tr, _ = _transfer(name)
    t = Target.parse(target)
    rng = random.Random(11)
    d = tr.store.total_out_bits
    bits = max(8, tr.element_bits)
    lowered_count = 0
    for trial in range(12):
        cols = [1 << i for i in range(d)]
        rng.shuffle(cols)
        if trial % 3 == 2:  # a dense bijection
            cols = [c ^ (cols[j] if rng.random() < 0.3 and j < i else 0)
                    for i, c in enumerate(cols) for j in [rng.randrange(d)]]
        if trial % 2:
            layout = ll.LinearLayout.from_columns(cols, {"vector": 2, "bank": 1 << 4,
                                                         "segment": 1 << (d - 5)},
                                                  tr.store.out_dims)
        else:
            layout = ll.LinearLayout.from_columns(cols, {"offset": 1 << d}, tr.store.out_dims)
        if trial % 4 == 3:
            layout = layout.transpose_outs(list(reversed(layout.out_dim_names)))
        try:
            got = lower_sides(layout, tr, t)
        except LayoutError:
            continue
        lowered_count += 1
        for side, dist in zip(got, tr.layouts):
            kind = "store" if side.side == "store" else "load"
            e = predict_local(kind, access_map(dist, layout, bits), t)
            assert side.emitted == e
            instr = e.counter or ("ld.shared" if kind == "load" else "st.shared")
            want = ll.bank_conflicts(dist, layout, element_bits=bits, hardware=tr.hardware,
                                     instruction=instr,
                                     vector_elems=None if e.counter else e.vector_elems)
            assert side.report == want
    assert lowered_count >= 6
