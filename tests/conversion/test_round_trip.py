"""The byte permutes of a round trip through shared memory, priced alike on Triton's path
and the planner's (``linlayout.conversion.round_trip``)."""

from __future__ import annotations

import itertools
import random

import pytest

from linlayout import (
    LayoutError,
    LinearLayout,
    bank_conflicts,
    f2,
    plan_conversion,
    synthesize_swizzle,
)
from linlayout.conversion import ConversionProblem, execute_shared
from linlayout.conversion.round_trip import (
    matrix_floor,
    offset_layout,
    packing_floor,
    round_trip_packing,
    side_emitted,
)
from linlayout.hardware import HardwareModel
from linlayout.hardware.instructions import all_variants
from linlayout.lowering import Target
from linlayout.lowering.scratch import drop_broadcast_registers
from linlayout.synthesis.transfer import Transfer
from linlayout.triton import parse_type


def _layout(reg, lane, warp):
    return LinearLayout({"register": reg, "lane": lane, "warp": warp},
                        {"dim0": 32, "dim1": 64})


# 16 consecutive elements per thread along dim1, read back as 16 along dim0
SRC = _layout([[0, 1], [0, 2], [0, 4], [0, 8]], [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]],
              [[8, 0], [16, 0]])
DST = _layout([[1, 0], [2, 0], [4, 0], [8, 0]], [[16, 0], [0, 1], [0, 2], [0, 4], [0, 8]],
              [[0, 16], [0, 32]])


def _packing(bits, target="cuda:90"):
    pb = ConversionProblem.make(SRC, DST, bits)
    res = synthesize_swizzle(SRC, DST, element_bits=bits)
    mem = offset_layout(res.layout)
    tgt = Target.parse(target)
    store = side_emitted("store", drop_broadcast_registers(SRC), mem, res.store.instruction,
                         res.store.vector_elems, bits, tgt)
    load = side_emitted("load", drop_broadcast_registers(DST), mem, res.load.instruction,
                        res.load.vector_elems, bits, tgt)
    return res, store, load, round_trip_packing(pb, mem, store, load, tgt)


def test_a_sixteen_byte_store_of_bytes_packs_three_permutes_per_word():
    res, store, load, n = _packing(8)
    assert res.store.vector_elems == 16 and store.opcode == "st.shared.v4.b32"
    assert n == 4 * 3  # four words, each built by three prmt.b32
    assert _packing(32)[3] == 0  # whole words pack nothing


def test_both_round_trips_are_priced_and_the_plan_is_never_dearer_than_triton():
    for bits in (8, 16):
        plan = plan_conversion(SRC, DST, bits)
        shared = plan.path("shared_memory")
        assert plan.triton.path == "shared" and plan.triton.cost is not None
        assert shared.cost <= plan.triton.cost
        assert execute_shared(plan.problem, shared.plan.layout).correct
    plan = plan_conversion(SRC, DST, 8)
    shared = plan.path("shared_memory")
    # the synthesized layout stores 16 bytes a lane and pays 12 prmt; Triton's own scratch
    # layout stores single bytes and packs nothing: here it is the cheaper round trip
    assert shared.method == "triton scratch" and shared.cost == plan.triton.cost
    assert shared.instructions == plan.triton.instructions
    assert shared.bound <= shared.cost


def test_side_emitted_names_the_instruction():
    res = synthesize_swizzle(SRC, DST, element_bits=16, instructions="auto")
    mem = offset_layout(res.layout)
    e = side_emitted("load", drop_broadcast_registers(DST), mem, res.load.instruction,
                     res.load.vector_elems, 16, Target.parse("cuda:90"))
    assert e.opcode.startswith(("ldmatrix", "ld.shared"))
    with pytest.raises(LayoutError):
        offset_layout("memory")


# ---------------------------------------------------------------------- the packing floor
TINY = HardwareModel(name="tiny", num_banks=4, bank_bytes=4, warp_size=4, max_access_bytes=16)


def _tiny(cols):
    """A 16-element tile on a 4-lane warp: two register bits, then two lane bits."""
    return LinearLayout({"register": [[c] for c in cols[:2]],
                         "lane": [[c] for c in cols[2:]]}, {"dim0": 16})


def _cheapest_round_trip(src, dst, memories):
    """The least model cost (wavefronts, 0.5 per ``v_perm_b32``, 8 per barrier) of any
    round trip of 16-bit elements through any of ``memories``, each side at every vector the
    memory lets it use; a store of 2 or more elements packs one word per register pair."""
    best = None
    for mem in memories:
        loads = []
        for vl in (1, 2, 4):
            try:
                loads.append(bank_conflicts(dst, mem, element_bits=16, hardware=TINY,
                                            instruction="ld.shared", vector_elems=vl))
            except LayoutError:
                break
        for vs in (1, 2, 4):
            try:
                st = bank_conflicts(src, mem, element_bits=16, hardware=TINY,
                                    instruction="st.shared", vector_elems=vs)
            except LayoutError:
                break
            permutes = 2 if vs >= 2 else 0  # four registers, two words
            for ld in loads:
                cost = st.wavefronts_per_warp + ld.wavefronts_per_warp + 0.5 * permutes + 8
                best = cost if best is None else min(best, cost)
    return best


def test_the_packing_floor_is_below_every_round_trip_and_reached():
    """Every memory layout of a 16-element tile (all 20160 invertible offset maps), each
    side at every vector it can use: none costs less than the floor, and the cheapest costs
    exactly the floor, which lies above the synthesized bound (packing counted as free):
    both sides would be widest, and the wide store pays its two v_perm_b32."""
    src, dst = _tiny([1, 2, 4, 8]), _tiny([1, 2, 8, 4])
    pb = ConversionProblem.make(src, dst, 16, TINY)
    floor = packing_floor(pb, Target.parse("hip:gfx942"))
    synthesized = synthesize_swizzle(src, dst, element_bits=16, hardware=TINY)
    assert floor.cost > synthesized.bound.wavefronts_per_warp + 8
    memories = (LinearLayout({"offset": [[c] for c in cols]}, {"dim0": 16})
                for cols in itertools.product(range(1, 16), repeat=4) if f2.rank(cols) == 4)
    assert _cheapest_round_trip(src, dst, memories) == floor.cost


def test_on_nvidia_a_wide_source_s_floor_is_the_same_argument():
    """16-bit elements left in 32-bit registers on NVIDIA: every stored word of two
    registers is one prmt.b32 (as on AMD a 16-bit pair is one v_perm_b32), so the floor is
    the same and the cheapest round trip over every memory layout reaches it."""
    src, dst = _tiny([1, 2, 4, 8]), _tiny([1, 2, 8, 4])
    pb = ConversionProblem.make(src, dst, 16, TINY)
    floor = packing_floor(pb, Target.parse("cuda:70"), wide_source=True)
    assert floor.cost == packing_floor(pb, Target.parse("hip:gfx942")).cost
    assert "prmt.b32" in floor.note and floor.permutes == 2
    memories = (LinearLayout({"offset": [[c] for c in cols]}, {"dim0": 16})
                for cols in itertools.product(range(1, 16), repeat=4) if f2.rank(cols) == 4)
    assert _cheapest_round_trip(src, dst, memories) == floor.cost
    assert packing_floor(ConversionProblem.make(src, dst, 8, TINY), Target.parse("cuda:90"),
                         wide_source=True) is None


def test_the_packing_floor_claims_nothing_where_packing_is_free():
    src, dst = _tiny([1, 2, 4, 8]), _tiny([4, 8, 1, 2])
    assert packing_floor(ConversionProblem.make(src, dst, 32, TINY), Target.parse(
        "hip:gfx942")) is None
    assert packing_floor(ConversionProblem.make(src, dst, 16, TINY), Target.parse(
        "cuda:90")) is None
    with pytest.raises(LayoutError):
        packing_floor(src, Target.parse("hip:gfx942"))


def test_amd_round_trips_of_unpacked_halves_favour_the_wide_load():
    """A 64×64 fp16 transpose on gfx942 (the corpus's ``tt.trans``): a wide ``ds_write``
    would pay 8 ``v_perm_b32`` to pack the registers' halves, a wide ``ds_read`` unpacks for
    nothing, and the wavefronts tie (48 either way): the plan stores ``ds_write_b16`` and
    loads 8 elements a lane, with no permute, at the bound."""
    from linlayout.hardware import AMD_CDNA3

    def lay(reg, lane, warp):
        return LinearLayout({"register": reg, "lane": lane, "warp": warp},
                            {"dim0": 64, "dim1": 64})

    src = lay([[1, 0], [2, 0], [4, 0], [0, 32]],
              [[8, 0], [16, 0], [32, 0], [0, 1], [0, 2], [0, 4]], [[0, 8], [0, 16]])
    dst = lay([[0, 1], [0, 2], [0, 4], [32, 0]],
              [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], [[8, 0], [16, 0]])
    plan = plan_conversion(src, dst, 16, hardware=AMD_CDNA3, target="hip:gfx942")
    shared = plan.path("shared_memory")
    assert shared.instructions["prmt"] == 0 and shared.wavefronts == 48
    assert shared.plan.store.vector_elems == 1 and shared.plan.load.vector_elems == 8
    assert shared.cost == shared.bound == 56 and plan.optimal
    assert plan.triton.cost == 72 and plan.saving == 16
    assert execute_shared(plan.problem, shared.plan.layout).correct


# a 2-lane warp, two register bits: 8 elements, every memory layout (168) in a few seconds
MICRO = HardwareModel(name="micro", num_banks=2, bank_bytes=4, warp_size=2, max_access_bytes=8)


def _micro(cols):
    return LinearLayout({"register": [[c] for c in cols[:2]], "lane": [[c] for c in cols[2:]]},
                        {"dim0": 8})


def _wavefronts(layout, memory, bits, instruction):
    """``(vector, wavefronts)`` for every vector one side can use on ``memory``."""
    out = []
    for vector in (1, 2, 4):
        try:
            out.append((vector, bank_conflicts(layout, memory, element_bits=bits,
                                               hardware=MICRO, instruction=instruction,
                                               vector_elems=vector).wavefronts_per_warp))
        except LayoutError:
            break
    return out


@pytest.mark.parametrize("arch,bits,wide", [("hip:gfx942", 8, False),
                                            ("hip:gfx942", 16, False),
                                            ("cuda:70", 16, True)])
def test_the_packing_floor_is_below_every_round_trip_as_priced(arch, bits, wide):
    """Every memory layout of an 8-element tile on a 2-lane warp (four registers a lane),
    each side at every vector it can use, priced as the planner prices a round trip
    (``round_trip_packing`` for the store's words: on AMD the load spends nothing), for a
    third of the 168 destinations: no round trip costs less than ``packing_floor``, which
    every one of them reaches. (Before the rule priced words whose offsets are reached by
    sums of register bases, such a store of four bytes was priced at no ``v_perm_b32`` and
    undercut the floor.) On NVIDIA the same for 16-bit elements left in 32-bit registers
    (``wide``: a ``prmt.b32`` per stored word of two registers), on sm_70, where no matrix
    instruction joins the ``ld/st.shared`` options (sm_75+ and sm_90+:
    ``test_matrix_instructions_lower_the_nvidia_floor_only_below_the_plain_one``)."""
    target = Target.parse(arch)
    src = _micro([1, 2, 4])
    memories = [LinearLayout({"offset": [[c] for c in cols]}, {"dim0": 8})
                for cols in itertools.product(range(1, 8), repeat=3) if f2.rank(cols) == 3]
    same = ConversionProblem.make(src, src, bits, MICRO)
    stores = []
    for mem in memories:
        memory = offset_layout(mem)
        costs = []
        for vector, wavefronts in _wavefronts(src, mem, bits, "st.shared"):
            store = side_emitted("store", src, memory, "ld/st.shared", vector, bits, target)
            costs.append(wavefronts + 0.5 * round_trip_packing(same, memory, store, store,
                                                               target, wide_source=wide))
        stores.append(min(costs))
    dsts = [list(d) for d in itertools.product(range(1, 8), repeat=3) if f2.rank(d) == 3]
    for cols in dsts[::3]:
        dst = _micro(cols)
        floor = packing_floor(ConversionProblem.make(src, dst, bits, MICRO), target,
                              wide_source=wide)
        cheapest = min(store + min(w for _, w in _wavefronts(dst, mem, bits, "ld.shared"))
                       for store, mem in zip(stores, memories)) + 8
        assert cheapest == floor.cost, cols


def test_a_word_reached_through_two_register_bases_pays_its_packing():
    """16-bit elements, register bases at offsets 2 and 3: a 2-element store writes offsets
    0 and 1, registers 0 and 3 of the thread (offset 1 = 2 ⊕ 3), a word of two registers
    that a ``v_perm_b32`` joins, as at unit offsets."""
    src, dst = _tiny([1, 2, 4, 8]), _tiny([1, 2, 8, 4])
    pb = ConversionProblem.make(src, dst, 16, TINY)
    mem = LinearLayout({"offset": [[3], [1], [4], [9]]}, {"dim0": 16})
    memory = offset_layout(mem)
    target = Target.parse("hip:gfx942")
    store = side_emitted("store", src, memory, "ld/st.shared", 2, 16, target)
    load = side_emitted("load", dst, memory, "ld/st.shared", 2, 16, target)
    assert round_trip_packing(pb, memory, store, load, target) == 2
    st = bank_conflicts(src, mem, element_bits=16, hardware=TINY, instruction="st.shared",
                        vector_elems=2)
    ld = bank_conflicts(dst, mem, element_bits=16, hardware=TINY, instruction="ld.shared",
                        vector_elems=2)
    assert st.wavefronts_per_warp + ld.wavefronts_per_warp + 0.5 * 2 + 8 == \
        packing_floor(pb, target).cost == 13


# ------------------------------------------------- matrix instructions in the NVIDIA floor
def _flat(n, regs, lanes):
    return LinearLayout({"register": [[c] for c in regs], "lane": [[c] for c in lanes]},
                        {"dim0": 1 << n})


# 8x8, 8x16 and 16x16 tiles of 16-bit elements held two (four, eight) to a lane in
# consecutive pairs, read back with the pairs along the other axis: every stmatrix and
# ldmatrix variant applies to some of their memory layouts
_MATRIX_TILES = [(6, _flat(6, [1], [2, 4, 8, 16, 32]), _flat(6, [8], [16, 32, 1, 2, 4])),
                 (7, _flat(7, [1, 64], [2, 4, 8, 16, 32]), _flat(7, [8, 64], [16, 32, 1, 2, 4])),
                 (8, _flat(8, [1, 64, 128], [2, 4, 8, 16, 32]),
                  _flat(8, [8, 128, 64], [16, 32, 1, 2, 4]))]


@pytest.mark.parametrize("n,src,dst", _MATRIX_TILES)
def test_matrix_floor_is_below_every_matrix_access(n, src, dst):
    """Every memory layout that permutes the offset bits (720 at most, a seeded sample of
    the 40320 of the 256-element tile) and 300 seeded random invertible ones: each side,
    with every stmatrix/ldmatrix variant (x1/x2/x4, .trans or not) its registers fit,
    costs at least ``matrix_floor``'s wavefronts and instructions (``bank_conflicts``, the
    model the planner prices round trips with)."""
    rng = random.Random(51_733 + n)
    transfer = Transfer.make(src, dst, element_bits=16)
    floors = [matrix_floor(side, transfer.model, 16) for side in transfer.sides]
    perms = list(itertools.permutations(range(n)))
    memories = [[1 << p for p in perm] for perm in (perms if len(perms) <= 720
                                                     else rng.sample(perms, 720))]
    while len(memories) < len(perms[:720]) + 300:
        cols = [rng.randrange(1, 1 << n) for _ in range(n)]
        if f2.rank(cols) == n:
            memories.append(cols)
    applied = 0
    for cols in memories:
        mem = LinearLayout({"offset": [[c] for c in cols]}, {"dim0": 1 << n})
        for side, layout in enumerate((src, dst)):
            for instruction in all_variants(store=side == 0):
                try:
                    got = bank_conflicts(layout, mem, element_bits=16,
                                         instruction=instruction.name)
                except LayoutError:
                    continue  # the registers do not fit this variant on this layout
                applied += 1
                wavefronts, instructions = floors[side]
                assert got.wavefronts_per_warp >= wavefronts, (cols, instruction.name)
                assert got.instructions_per_warp >= instructions, (cols, instruction.name)
    assert applied >= 100


_F16 = ("tensor<8x4xf16, #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], "
        "warpsPerCTA = [1, 1], order = [1, 0]}>>")
_F16_DST = ("tensor<8x4xf16, #ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [4, 8], "
            "warpsPerCTA = [1, 1], order = [0, 1]}>>")


def test_matrix_instructions_lower_the_nvidia_floor_only_below_the_plain_one():
    """The 8x4 tile whose wide-source round trip Triton's lowering stores with one
    ``stmatrix.x1.trans`` (1 wavefront, 1 prmt) and loads with ``ldmatrix.x1``: 10.5. The
    ld/st.shared options alone floor it at 11 (the reverted floor, sm_70 here, where no
    matrix instruction exists); with the matrix instructions of sm_80 (ldmatrix) and sm_90
    (both) the floor is 10.5, which the plan meets."""
    src, dst = parse_type(_F16).layout, parse_type(_F16_DST).layout
    pb = ConversionProblem.make(src, dst, 16)
    floors = {t: packing_floor(pb, Target.parse(t), wide_source=True).cost
              for t in ("cuda:70", "cuda:80", "cuda:90")}
    assert floors == {"cuda:70": 11, "cuda:80": 10.5, "cuda:90": 10.5}
    shared = plan_conversion(src, dst, 16, target="cuda:90", wide_source=True).path(
        "shared_memory")
    assert shared.cost == 10.5 and shared.meets_bound
    assert shared.plan.store.instruction.startswith("stmatrix")


def _random_layout(rng, a, b, warps, zero_lanes):
    """A random distributed layout of a ``2^a × 2^b`` tile: a bit permutation or (two times
    in five) any invertible map, ``zero_lanes`` lane bits broadcast."""
    d = a + b
    if rng.random() < 0.6:
        cols = [1 << p for p in rng.sample(range(d), d)]
    else:
        cols = [rng.randrange(1, 1 << d) for _ in range(d)]
        while f2.rank(cols) != d:
            cols = [rng.randrange(1, 1 << d) for _ in range(d)]
    regs = d - (5 - zero_lanes) - warps
    lanes = cols[regs:regs + 5 - zero_lanes] + [0] * zero_lanes
    rng.shuffle(lanes)

    def v(c):
        return [c & ((1 << a) - 1), c >> a]
    return LinearLayout({"register": [v(c) for c in cols[:regs]],
                         "lane": [v(c) for c in lanes],
                         "warp": [v(c) for c in cols[regs + 5 - zero_lanes:]]},
                        {"dim0": 1 << a, "dim1": 1 << b})


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90"])
def test_the_nvidia_wide_floor_is_below_every_round_trip_planned(target):
    """Seeded random layouts (4x8 to 16x16 tiles of 16-bit elements, one or two warps, up to
    two lanes broadcast on either side), the source wide, under the default weights and
    two others: the shared-memory family's bound, the floor included, never exceeds the
    round trip the planner builds (ld/st.shared, matrix, Triton's instructions or Triton's
    own scratch layout), and on many it is reached. (An ad-hoc sweep of 2,456 such plans,
    before this test, found none above.)"""
    rng = random.Random(61_877)
    planned = met = 0
    for _ in range(40):
        a, b = rng.choice([(3, 2), (3, 3), (4, 3), (3, 4), (4, 4)])
        warps = rng.choice([0, 0, 1])
        zs, zd = rng.choice([0, 1, 2]), rng.choice([0, 1, 2])
        if min(a + b - (5 - zs), a + b - (5 - zd)) - warps < 0:
            continue
        src = _random_layout(rng, a, b, warps, zs)
        dst = _random_layout(rng, a, b, warps, zd)
        for weights in (None, {"prmt": 2.0}, {"st.shared": 1.0, "ld.shared": 1.0}):
            try:
                plan = plan_conversion(src, dst, 16, target=target, wide_source=True,
                                       weights=weights)
            except LayoutError:
                continue  # warps' bases differ in a way no path models
            shared = plan.path("shared_memory")
            planned += 1
            met += shared.meets_bound
            assert shared.bound <= shared.cost + 1e-9, (src, dst, weights, shared.bound_note)
    assert planned >= 60 and met * 4 >= planned
