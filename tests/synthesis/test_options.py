"""side_options: cached per side, yet every call gets its own list and its own error;
paired_exponent: a lower bound on a side's exponent beside the other side's vector."""

import random

import pytest

import linlayout as ll
from linlayout import examples, f2
from linlayout.hardware.instructions import parse_instruction
from linlayout.hardware.kinds import distributed_columns
from linlayout.hardware.model import bank_model
from linlayout.synthesis.options import paired_exponent, side_options
from linlayout.synthesis.plans import Problem, build_plan, side_report


def _load_side():
    ex = examples.get("transpose")  # 32-bit elements
    model = bank_model(ex.element_bits)
    side = distributed_columns(ex.load, "load", model.warp_log2)
    return side, tuple(f2.echelon(side.register)), model, ex.load.total_out_bits


def test_repeated_calls_equal_and_independent():
    side, regs, model, d = _load_side()
    ll.clear_caches()
    first = side_options(1, side, regs, model, d)
    first.clear()  # the caller's list: mutating it leaves the cache alone
    again = side_options(1, side, regs, model, d)
    ll.clear_caches()
    cold = side_options(1, side, regs, model, d)
    assert again == cold and again


def test_explicit_matrix_error_raised_on_every_call():
    side, regs, model, d = _load_side()
    trans = [parse_instruction("ldmatrix.x4.trans")]  # 16-bit elements only
    messages = []
    for _ in range(2):
        with pytest.raises(ll.LayoutError) as info:
            side_options(1, side, regs, model, d, matrix=trans, plain=False)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and "16-bit" in messages[0]
    # offered with ld/st.shared (not explicit), the same instruction is just left out
    opts = side_options(1, side, regs, model, d, matrix=trans, plain=True)
    assert opts and all(not o.is_matrix for o in opts)


def _tail_pair():
    """An 8-bit mma v2 → mma v3 pair whose store vectorises 16 elements and load 16 too,
    where a 4-element load beside a 16-element store cannot be conflict-free."""
    from linlayout.triton.encodings.sampling import random_pair
    rng = random.Random(1)
    pairs = [random_pair(rng) for _ in range(5)]
    store, load, bits, _ = pairs[4]
    model = bank_model(bits)
    sides = (distributed_columns(store, "store", model.warp_log2),
             distributed_columns(load, "load", model.warp_log2))
    regs = tuple(tuple(f2.echelon(s.register)) for s in sides)
    return store, load, bits, sides, regs, model, store.total_out_bits


def test_paired_exponent_bounds_the_exact_degree_of_every_layout():
    """The proof's claim, checked on layouts that keep a constructed prefix (so the sides
    vectorise unequally) and complete it at random, inside its aligned complement or
    anywhere: each side's exact degree is at least
    2^paired_exponent at the accesses the layout gives, and beside the store's 16-element
    vector a 4-element load's bound rises from conflict-free to 4-way."""
    store, _, _, sides, regs, model, d = _tail_pair()
    opts = [side_options(i, sides[i], regs[i], model, d) for i in range(2)]
    by_k = [{o.vector_log2: o for o in opts[i]} for i in range(2)]
    wide, narrow = by_k[0][4], by_k[1][2]
    assert narrow.bound_exponent == 0
    assert paired_exponent(narrow, wide, sides[1], sides[0], model, d) == 2
    problem = Problem(sides=sides, regs=regs, model=model, d=d,
                      dim_bits=tuple(store.out_bits(n) for n in store.out_dim_names),
                      weights=(1, 1))
    plan = build_plan((wide, narrow), problem, max_variants=1)
    assert plan is not None
    rng = random.Random(3)
    sharper = 0
    rest = list(plan.cols[4:])  # an aligned complement of the 4-bit prefix
    for trial in range(40):
        # half keep the complement (any basis of it keeps both sides aligned), half do not
        pool = rest if trial % 2 else [1 << i for i in range(d)]
        cols = list(plan.cols[:4])
        while len(cols) < d:
            v = 0
            for c in pool:
                if rng.random() < 0.5:
                    v ^= c
            if v and f2.rank(cols + [v]) == len(cols) + 1:
                cols.append(v)
        inv = f2.inverse(cols)
        reps = [side_report(cols, inv, sides[i], regs[i], model, d, False, load=i > 0)
                for i in range(2)]
        got = [by_k[i][r.vector_elems.bit_length() - 1] for i, r in enumerate(reps)]
        for i in range(2):
            e = paired_exponent(got[i], got[1 - i], sides[i], sides[1 - i], model, d)
            assert reps[i].degree >= 1 << e
            sharper += e > got[i].bound_exponent
    assert sharper


def test_search_result_unchanged_where_unequal_vectors_are_set_aside():
    """The search sets aside the unequal-vector assignments of this pair (their floor is
    above their ideal) and returns what building them all gives: 8 wavefronts, 8
    instructions. Their ideal (8 wavefronts, 5 instructions) is out of reach: the paired
    bound over every access pair a layout can give is 8 and 8, so the result is proven."""
    store, load, bits, *_ = _tail_pair()
    ll.clear_caches()
    r = ll.synthesize_swizzle(store, load, element_bits=bits)
    totals = r.to_dict()["totals"]
    bound = r.to_dict()["bound"]
    assert (totals["wavefronts_per_warp"], totals["instructions_per_warp"]) == (8, 8)
    assert (bound["wavefronts_per_warp"], bound["instructions_per_warp"]) == (8, 8)
    assert bound["method"] == "paired" and "longer vector" in bound["argument"]
    assert r.optimal


def _reference_plain(index, side, regs, model, d):
    """The ld/st.shared options' numbers by the definitions (module docstring of options):
    ``(k, instructions, phases, bound exponent)`` for each vector, widest first."""
    threads = [c for c in side.lane + side.warp + side.block if c]
    blocked = (len(regs) + f2.rank(threads) - f2.rank(list(regs) + threads)
               if threads and regs else 0)
    kmax = min(len(regs) - blocked, model.max_vector_log2, d, model.seg_lo)
    nseg = max(0, d - model.seg_lo)
    out = []
    packs = model.packed(side.lane, kmax, index > 0)
    for k in range(kmax, -1, -1):
        packed = packs and model.may_pack(k, index > 0)
        lanes = f2.compose(side.lane, model.phase_lanes(k, packed))
        dim_x = max(f2.rank(lanes) + k, model.within_word_bits)
        out.append((k, 1 << (len(regs) - k), 1 << len(model.phase_masks(k, packed)),
                    max(0, nseg - (d - dim_x))))
    return out


@pytest.mark.parametrize("seed", range(6))
def test_plain_options_match_their_definitions_on_unit_and_dense_sides(seed):
    """The unit-vector shortcuts (thread/register overlap, lane prefix ranks off masks) give
    the numbers of the definitions, on unit, broadcast and dense (swizzled) columns alike."""
    from linlayout.hardware.kinds import Distributed
    rng = random.Random(seed)
    d = 12
    for _ in range(60):
        def col(dense):
            r = rng.random()
            if r < 0.1:
                return 0
            return rng.randrange(1, 1 << d) if dense and r < 0.5 else 1 << rng.randrange(d)
        dense = rng.random() < 0.5
        side = Distributed(register=tuple(col(dense) for _ in range(rng.randint(0, 6))),
                           lane=tuple(col(dense) for _ in range(5)),
                           warp=tuple(col(dense) for _ in range(rng.randint(0, 2))), block=())
        regs = f2.echelon(side.register)
        for bits in (8, 16, 32):
            model = bank_model(bits)
            for index in (0, 1):
                got = [(o.vector_log2, o.instructions_per_warp, o.phases, o.bound_exponent)
                       for o in side_options(index, side, regs, model, d)]
                assert got == _reference_plain(index, side, regs, model, d)


def test_auto_variants_give_the_options_of_the_same_instructions_listed():
    """``all_variants`` (keyed by direction inside) and the same instructions parsed anew, in
    another order (worked out one by one), give the same options."""
    from linlayout.hardware.instructions import all_variants
    from linlayout.triton.encodings.sampling import random_pair
    rng = random.Random(7)
    for _ in range(20):
        store, load, bits, _ = random_pair(rng)
        model = bank_model(bits)
        for index, layout in enumerate((store, load)):
            side = distributed_columns(layout, "side", model.warp_log2)
            regs = f2.echelon(side.register)
            variants = all_variants(store=index == 0)
            anew = [parse_instruction(i.name) for i in reversed(variants)]  # not keyed
            ll.clear_caches()
            a = side_options(index, side, regs, model, store.total_out_bits, matrix=variants)
            ll.clear_caches()
            b = side_options(index, side, regs, model, store.total_out_bits, matrix=anew)
            name = lambda o: (o.instruction.name, o.vector_log2)  # noqa: E731
            assert sorted(a, key=name) == sorted(b, key=name)
            assert [o for o in a if not o.is_matrix] == [o for o in b if not o.is_matrix]


def test_unit_masks_give_the_same_options():
    """Given a side's register and thread masks (unit columns), side_options reads the
    registers' meet with the threads off them: the same options, bounds included, as
    working it out from the columns — on random Triton pairs and every element width."""
    from linlayout.synthesis.direct import unit_sides
    from linlayout.synthesis.transfer import Transfer
    from linlayout.triton.encodings.sampling import random_pair

    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        store, load, bits, _ = random_pair(rng)
        transfer = Transfer.make(store, load, element_bits=bits)
        sides = transfer.sides
        regs = tuple(tuple(f2.echelon(s.register)) for s in sides)
        problem = Problem(sides=sides, regs=regs, model=transfer.model,
                          d=store.total_out_bits, dim_bits=(), weights=(1, 1))
        units = unit_sides(problem)
        if units is None:
            continue
        for i, side in enumerate(sides):
            ll.clear_caches()
            plain = side_options(i, side, regs[i], transfer.model, problem.d)
            masked = side_options(i, side, regs[i], transfer.model, problem.d,
                                  unit_masks=(units.regs[i], units.threads[i]))
            assert masked == plain and [o.wavefronts_bound for o in masked] == \
                [o.instructions_per_warp * o.phases << o.bound_exponent for o in plain]
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("num_banks", [32, 64, 16])
def test_lane_id_phases_in_closed_form_match_the_model(num_banks):
    """The ld/st.shared options read a lane-id split in closed form; spelling the same split
    out as phase overrides (the model's own phase_info path) gives the same options, and each
    option's phase_mask is the OR of the lanes in one phase (64 banks: more banks in a row
    than lanes in a warp, the phase prefix clamped to the warp)."""
    from functools import reduce
    from operator import or_

    from linlayout.hardware.model import NVIDIA, HardwareModel
    from linlayout.synthesis.direct import unit_sides
    from linlayout.synthesis.transfer import Transfer
    from linlayout.triton.encodings.sampling import random_pair

    hardware = NVIDIA.with_banks(num_banks=num_banks)
    spelled = HardwareModel(name="lane-id phases spelled out", num_banks=num_banks,
                            packing_lanes=hardware.packing_lanes,
                            phase_overrides=tuple((w, hardware.phase_masks(w * 8))
                                                  for w in (1, 2, 4, 8, 16)))
    rng = random.Random(11)
    checked = 0
    for _ in range(40):
        store, load, bits, _ = random_pair(rng)
        transfer = Transfer.make(store, load, element_bits=bits, hardware=hardware)
        model, other = transfer.model, bank_model(bits, spelled)
        sides = transfer.sides
        regs = tuple(tuple(f2.echelon(s.register)) for s in sides)
        problem = Problem(sides=sides, regs=regs, model=model, d=store.total_out_bits,
                          dim_bits=(), weights=(1, 1))
        units = unit_sides(problem)
        for i, side in enumerate(sides):
            masks = None if units is None else (units.regs[i], units.threads[i])
            ours = side_options(i, side, regs[i], model, problem.d, unit_masks=masks)
            theirs = side_options(i, side, regs[i], other, problem.d, unit_masks=masks)
            assert ours == theirs
            assert [(o.wavefronts_bound, o.phase_mask) for o in ours] == \
                [(o.wavefronts_bound, o.phase_mask) for o in theirs]
            for o in ours:
                packed = model.packed(side.lane, o.vector_log2, i > 0)
                _, _, prefix = model.phase_info(o.vector_log2, packed)
                assert o.phases == 1 << (model.warp_log2 - prefix)
                if units is not None:
                    assert o.phase_mask == reduce(or_, side.lane[:prefix], 0)
            checked += 1
    assert checked >= 40


@pytest.mark.parametrize("hardware_name", ["NVIDIA", "AMD_CDNA3", "NVIDIA16"])
def test_best_plain_option_is_the_least_of_the_listed_options(hardware_name):
    """best_plain_option builds the one option _first_assignments would pick from the full
    list — the first of least key under either objective — equal field by field (its
    phase_mask and wavefronts_bound too), with or without the unit masks, on random Triton
    pairs."""
    from operator import attrgetter

    from linlayout.hardware import AMD_CDNA3, NVIDIA
    from linlayout.synthesis.direct import unit_sides
    from linlayout.synthesis.options import best_plain_option
    from linlayout.synthesis.transfer import INSTRUCTIONS, WAVEFRONTS, Transfer
    from linlayout.triton.encodings.sampling import random_pair

    hardware = {"NVIDIA": NVIDIA, "AMD_CDNA3": AMD_CDNA3,
                "NVIDIA16": NVIDIA.with_banks(num_banks=16)}[hardware_name]
    keys = {WAVEFRONTS: attrgetter("wavefronts_bound", "instructions_per_warp"),
            INSTRUCTIONS: attrgetter("instructions_per_warp", "wavefronts_bound")}
    fields = attrgetter("wavefronts_bound", "phase_mask")
    rng = random.Random(12)
    checked = 0
    for _ in range(60):
        store, load, bits, _ = random_pair(rng)
        try:
            transfer = Transfer.make(store, load, element_bits=bits, hardware=hardware)
        except ll.LayoutError:  # (a wider warp than this hardware's)
            continue
        sides, model, d = transfer.sides, transfer.model, store.total_out_bits
        regs = tuple(tuple(f2.echelon(s.register)) for s in sides)
        units = unit_sides(transfer)
        for i, side in enumerate(sides):
            for masks in {None, None if units is None else (units.regs[i], units.threads[i])}:
                listed = side_options(i, side, regs[i], model, d, unit_masks=masks)
                for objective, key in keys.items():
                    best = best_plain_option(i, side, regs[i], model, d, objective, masks)
                    want = min(listed, key=key)
                    assert best == want and fields(best) == fields(want)
                    checked += 1
    assert checked >= 200
