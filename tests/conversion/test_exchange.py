"""The packed exchange (``linlayout.conversion.exchange``): built where it applies, priced
as counted, run to the destination by the executor, and — compiled by NVPTX — by its PTX."""

from __future__ import annotations

import dataclasses
import gzip
import json
import random

import pytest

from linlayout import LayoutError, LinearLayout, plan_conversion
from linlayout.hardware import AMD_CDNA3
from linlayout.conversion import (ConversionProblem, ExchangeRound, PackedExchangePlan,
                                  RegisterSwap,
                                  execute_plan, plan_packed_exchange)
from linlayout.conversion.exchange import MAX_EXCHANGE_REGISTERS, MAX_EXCHANGE_ROUNDS

from tests.conversion.support import warp_layout
from tests.support import ROOT

SRC = [1, 2, 4, 8, 16]  # register bit 0, then four lane bits (a 16-lane warp)
EXCHANGE = [2, 1, 4, 8, 16]  # register bit 0 swaps with lane bit 0
LANE_SWAP = [1, 4, 2, 8, 16]  # lane bits 0 and 1 swap: whole words move


def _problem(cols, element_bits, src=SRC):
    return ConversionProblem.make(warp_layout(src, 1, 5), warp_layout(cols, 1, 5),
                                  element_bits)


@pytest.mark.parametrize("element_bits", [8, 16])
def test_a_single_exchange_is_one_shuffle_and_one_permute(element_bits):
    pb = _problem(EXCHANGE, element_bits)
    plan = plan_packed_exchange(pb)
    # each byte permute's selector is one of two constants chosen by lane: one selector
    # select (lane-index arithmetic, weighted 0 by default, as Triton's own selector selp)
    assert plan.instructions == {"shfl": 1, "selp": 0, "prmt": 1, "selector": 1, "mov": 0}
    assert plan.opcodes == {"shfl.sync.idx.b32": 1, "prmt.b32": 1}
    assert plan.pack == ((0, 1),) and len(plan.rounds) == 1 and len(plan.permutes) == 1
    perm = plan.permutes[0]
    assert set(perm.inputs) == {("x", 0), ("recv", 0)}
    assert plan.unpack == ((("perm", 0), 0), (("perm", 0), 1))
    # even lanes keep their low half and take the partner's low half; odd lanes the highs
    named = [(perm.inputs[h // 2][0], h % 2) for h in perm.halves[0] + perm.halves[1]]
    assert named == [("x", 0), ("recv", 0), ("recv", 1), ("x", 1)]
    assert execute_plan(pb, plan).correct
    full = plan_conversion(pb.src, pb.dst, element_bits)
    shuffle = full.path("shuffle")
    assert shuffle.method == "packed exchange" and shuffle.cost == 1.5
    assert shuffle.meets_bound and full.optimal and full.best is shuffle
    assert shuffle.to_dict()["plan"] == {"swaps": [], "swaps_after": [], "pack": [[0, 1]],
                                         "words": 1, "shuffles": 1,
                                         "permutes": 1,
                                         "opcodes": {"shfl.sync.idx.b32": 1, "prmt.b32": 1}}


@pytest.mark.parametrize("element_bits, packs", [(8, 0), (16, 1)])
def test_a_wide_source_pays_its_packing(element_bits, packs):
    """Elements a gather or reduction left one to a 32-bit register: two 16-bit halves join
    with a prmt (as check counts it for Triton's packing), bytes as before; the executor
    still reaches dst. At 16 bits the bound counts that join too
    (:func:`~linlayout.conversion.nvidia_lone_shuffle_bound`: one shuffle needs a join before
    it and a lane-dependent permute after it, else two shuffles), so the pair stays proven
    optimal at 2."""
    pb = _problem(EXCHANGE, element_bits)
    plain, wide = plan_packed_exchange(pb), plan_packed_exchange(pb, wide_source=True)
    assert wide.instructions["prmt"] == plain.instructions["prmt"] + packs
    assert wide.instructions["selector"] == plain.instructions["selector"] == 1
    assert execute_plan(pb, wide).correct
    full = plan_conversion(pb.src, pb.dst, element_bits, wide_source=True)
    shuffle = full.path("shuffle")
    assert shuffle.cost == shuffle.bound == 1.5 + 0.5 * packs
    assert full.optimal
    assert full.triton.cost >= full.best.cost
    with pytest.raises(LayoutError, match="wide_source"):
        plan_packed_exchange(pb, wide_source=1)


def test_the_selector_weight_prices_the_exchange_and_tritons_selector_alike():
    pb = _problem(EXCHANGE, 16)
    costed = plan_conversion(pb.src, pb.dst, 16, weights={"selector": 0.5})
    shuffle = costed.path("shuffle")
    assert shuffle.method == "packed exchange" and shuffle.cost == 2.0
    assert shuffle.bound == 1.5 and not costed.optimal  # the bound counts no selector


def test_whole_words_moved_need_no_permute():
    pb = _problem(LANE_SWAP, 16)
    plan = plan_packed_exchange(pb)
    assert plan.instructions["shfl"] == 1 and plan.instructions["prmt"] == 0
    assert execute_plan(pb, plan).correct


def test_it_applies_only_to_narrow_elements_with_something_to_move():
    assert plan_packed_exchange(_problem(EXCHANGE, 32)) is None
    assert plan_packed_exchange(_problem(SRC, 16)) is None  # nothing lacked
    assert plan_packed_exchange(_problem(SRC, 16), "hip:gfx942") is None


@pytest.mark.parametrize("element_bits", [8, 16])
def test_on_amd_it_is_ds_bpermute_and_v_perm_with_the_packing_priced(element_bits):
    """gfx942: the same tables, as one ``ds_bpermute_b32`` and one lane-dependent
    ``v_perm_b32``; a 16-bit source in two registers pays one more ``v_perm_b32`` to pack
    the shipped word, two zero-extended bytes none (after Triton's ``-O3`` one
    ``v_lshl_or_b32``, which no cost kind counts); loaded as one register in order, a
    16-bit pair packs for nothing and an 8-bit pair pays one ``v_perm_b32`` to spread its
    bytes into 16-bit halves."""
    pb = _problem(EXCHANGE, element_bits)
    plan = plan_packed_exchange(pb, "hip:gfx942")
    packs = int(element_bits == 16)
    assert plan.opcodes == {"ds_bpermute_b32": 1, "v_perm_b32": 1 + packs}
    assert plan.instructions == {"shfl": 1, "selp": 0, "prmt": 1 + packs, "selector": 1,
                                 "mov": 0}
    assert plan.target == "hip:gfx942" and execute_plan(pb, plan).correct
    loaded = plan_packed_exchange(pb, "hip:gfx942", source_load=(0, 2))
    assert loaded.opcodes == {"ds_bpermute_b32": 1, "v_perm_b32": 1 + (element_bits == 8)}
    assert plan_packed_exchange(pb, "hip:gfx950", packed_source=True).instructions["prmt"] == 1
    # a lane permutation ships whole words: on AMD only the packing is left
    moved = plan_packed_exchange(_problem(LANE_SWAP, element_bits), "hip:gfx942")
    assert moved.opcodes == ({"ds_bpermute_b32": 1, "v_perm_b32": 1} if packs
                             else {"ds_bpermute_b32": 1})


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
@pytest.mark.parametrize("element_bits", [8, 16])
def test_more_source_registers_ship_more_words(target, element_bits):
    """Four or eight source registers per lane: two or four packed words, a round per word
    and source lane a lane draws on, the halves chosen by permutes; every plan runs to
    ``dst`` on the executor, over 32 and 64 lanes and random bit permutations."""
    wide = ConversionProblem.make(warp_layout([1, 2, 4, 8, 16], 2, 5),
                                  warp_layout([1, 4, 2, 8, 16], 2, 5), element_bits)
    plan = plan_packed_exchange(wide, target)
    assert len(plan.pack) == 2 and plan.instructions["shfl"] == 2
    assert execute_plan(wide, plan).correct
    rng = random.Random(element_bits)
    amd = target.startswith("hip")
    built = 0
    for _ in range(12):
        regs = rng.randrange(1, 4)
        bits = regs + rng.choice([4, 5, 6] if amd else [4, 5])
        cols = [1 << b for b in range(bits)]
        perm = cols[:]
        rng.shuffle(perm)
        pb = ConversionProblem.make(warp_layout(cols, regs, bits),
                                    warp_layout(perm, regs, bits), element_bits,
                                    AMD_CDNA3 if amd else None)
        plan = plan_packed_exchange(pb, target)
        if plan is None:  # nothing lacked, or past MAX_EXCHANGE_ROUNDS shuffles
            continue
        built += 1
        assert len(plan.pack) == max(1, (1 << regs) // 2)
        assert plan.instructions["shfl"] == len(plan.rounds) <= MAX_EXCHANGE_ROUNDS
        assert execute_plan(pb, plan).correct, (cols, perm, regs)
    assert built >= 6


def test_work_is_bounded():
    """More than :data:`MAX_EXCHANGE_REGISTERS` registers, or a plan past
    :data:`MAX_EXCHANGE_ROUNDS` shuffles, is not built (planning stays fast)."""
    cols = [1 << b for b in range(11)]
    big = ConversionProblem.make(warp_layout(cols, 5, 11),
                                 warp_layout(cols[5:] + cols[:5], 5, 11), 16, AMD_CDNA3)
    assert 1 << 5 > MAX_EXCHANGE_REGISTERS and plan_packed_exchange(big, "hip:gfx942") is None
    cols = [1 << b for b in range(10)]
    many = ConversionProblem.make(warp_layout(cols, 4, 10),
                                  warp_layout(cols[6:] + cols[:6], 4, 10), 16, AMD_CDNA3)
    assert plan_packed_exchange(many, "hip:gfx942") is None  # every word from 16 lanes


def test_a_chain_of_permutes_joins_three_words():
    """A destination register drawing on three words across the lanes is built by two
    permutes in a chain, and still reaches ``dst``."""
    pb = ConversionProblem.make(warp_layout([1, 2, 4, 8, 16, 32], 2, 6),
                                warp_layout([4, 8, 1, 2, 16, 32], 2, 6), 16)
    plan = plan_packed_exchange(pb)
    assert execute_plan(pb, plan).correct
    assert plan.instructions["prmt"] == len(plan.permutes) >= 1


def test_the_executor_catches_a_wrong_table():
    pb = _problem(EXCHANGE, 16)
    plan = plan_packed_exchange(pb)
    lanes = tuple(range(len(plan.rounds[0].source_lane)))
    wrong = dataclasses.replace(plan, rounds=(ExchangeRound(0, lanes),))
    run = execute_plan(pb, wrong)
    assert not run.correct and run.mismatches
    with pytest.raises(LayoutError):
        execute_plan(pb, dataclasses.replace(plan, pack=((0, 7),)))
    with pytest.raises(LayoutError):
        execute_plan(pb, dataclasses.replace(plan, unpack=((("perm", 3), 0),) * 2))


def test_bad_arguments_are_refused():
    with pytest.raises(LayoutError):
        plan_packed_exchange("not a problem")
    with pytest.raises(LayoutError):
        plan_packed_exchange(_problem(EXCHANGE, 16), "cuda:nope")
    with pytest.raises(LayoutError):
        plan_packed_exchange(_problem(EXCHANGE, 16), weights={"shfl": -1})
    with pytest.raises(LayoutError):
        plan_packed_exchange(_problem(EXCHANGE, 16), "hip:gfx942", source_load=(3, 2))
    assert isinstance(plan_packed_exchange(_problem(EXCHANGE, 8)), PackedExchangePlan)


# ------------------------------------------------- compiled by NVPTX and run lane by lane
FIXTURE = json.loads(gzip.decompress(
    (ROOT / "tests" / "data" / "conversion_packed_exchange.json.gz").read_bytes()))


def test_the_compiled_packed_exchange_reaches_dst_with_the_counted_instructions():
    """``papers/conversion/packed_exchange_ptx.py``: every pair of the exhaustive space whose
    best plan is the packed exchange (the single register/lane exchanges, 8 and 16 bits),
    and five plans of four and eight source registers per lane, written as LLVM IR the way
    Triton packs and translated by Triton 3.9's NVPTX to sm_90 PTX, run on 32 lanes: every
    destination element arrives, with the plan's ``shfl.sync.idx.b32`` and ``prmt.b32``, no
    ``selp``, and the packing and unpacking as ``mov.b32`` vectors."""
    probes = FIXTURE["probes"]
    assert FIXTURE["triton_version"].startswith("3.9") and len(probes) == 13
    wide = {"wide2_lanes": ([1, 2, 4, 8, 16, 32, 64], [1, 4, 2, 8, 16, 32, 64], 2),
            "wide2_swap": ([1, 2, 4, 8, 16, 32, 64], [4, 8, 1, 2, 16, 32, 64], 2),
            "wide3_mix": ([1, 2, 4, 8, 16, 32, 64, 128], [8, 2, 128, 1, 16, 32, 64, 4], 3)}
    for name, p in probes.items():
        assert p["reaches_dst"], name
        if "order" not in p:
            src, dst, regs = wide[name.rsplit("_b", 1)[0]]
            pb = ConversionProblem.make(warp_layout(src, regs, len(src)),
                                        warp_layout(dst, regs, len(dst)), p["element_bits"])
            mine = plan_packed_exchange(pb).instructions
            assert (p["ptx"]["shfl"], p["ptx"]["prmt"], p["ptx"]["selp"]) == \
                (mine["shfl"], mine["prmt"], mine["selp"]), name
            continue
        order = p["order"]
        src = LinearLayout({"register": [[1]], "lane": [[2], [4], [8], [16], [0]]},
                           {"dim0": 32})
        dst = LinearLayout({"register": [[1 << order[0]]],
                            "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 32})
        plan = plan_conversion(src, dst, p["element_bits"])
        shuffle = plan.path("shuffle")
        assert shuffle.method == "packed exchange" and plan.optimal, name
        mine = shuffle.instructions
        assert (p["ptx"]["shfl"], p["ptx"]["prmt"], p["ptx"]["selp"]) == \
            (mine["shfl"], mine["prmt"], mine["selp"]), name
        assert p["ptx"]["mov_pack"] == 2, name  # one pack, one unpack


AMDGCN = json.loads(gzip.decompress(
    (ROOT / "tests" / "data" / "conversion_packed_exchange_amdgcn.json.gz").read_bytes()))


def test_the_amdgcn_holds_the_counted_bpermutes_and_permutes():
    """``papers/conversion/packed_exchange_amdgcn.py``: every packed exchange of the two AMD
    exhaustive spaces at 8 and 16 bits and three conversions of four and eight source
    registers, written as LLVM IR the way Triton packs and compiled by Triton 3.9's LLVM for
    gfx942: the assembly's ``ds_bpermute_b32`` and ``v_perm_b32`` (packing included) are
    the plan's, with no ``v_cndmask_b32``."""
    import itertools

    probes = AMDGCN["probes"]
    assert AMDGCN["triton_version"].startswith("3.9") and len(probes) == 290

    def lanes(order):
        return LinearLayout({"register": [[1 << order[0]]],
                             "lane": [[1 << b] for b in order[1:]] + [[0]]}, {"dim0": 32})

    def wave(order):
        return LinearLayout({"register": [[1 << order[0]]],
                             "lane": [[0]] * 3 + [[1 << b] for b in order[1:]]}, {"dim0": 16})

    checked = 0
    for space, layout, n in (("lanes", lanes, 5), ("wave", wave, 4)):
        for order in itertools.permutations(range(n)):
            for bits in (8, 16):
                p = probes.get(f"{space}_{''.join(map(str, order))}_b{bits}")
                if p is None:
                    continue
                pb = ConversionProblem.make(layout(tuple(range(n))), layout(order), bits,
                                            AMD_CDNA3)
                plan = plan_packed_exchange(pb, "hip:gfx942")
                asm = p["amdgcn"]
                assert (asm["ds_bpermute_b32"], asm["v_perm_b32"], asm["v_cndmask_b32"]) == \
                    (plan.opcodes.get("ds_bpermute_b32", 0), plan.opcodes.get("v_perm_b32", 0),
                     0), (space, order, bits)
                checked += 1
    assert checked == len([k for k in probes if not k.startswith("wide")]) == 284


def test_two_loaded_bytes_join_with_one_v_lshl_or_after_tritons_o3():
    """``papers/conversion/amd_byte_join.py``: Triton 3.9's own 8-bit lane swap on gfx942
    joins the two zero-extended bytes it ships with one ``v_lshl_or_b32`` and no
    ``v_perm_b32`` (its ``-O3`` rewrote the ``<2 x i16>`` packing as ``shl``/``or``); the
    ``<2 x i16>`` spelling given to instruction selection without ``-O3`` is one
    ``v_perm_b32``. The packed exchange prices the pair as Triton's: no ``prmt``, so on the
    8-bit single register/lane exchange it costs 1.5, the bound, and its compiled probe
    holds one ``v_lshl_or_b32``. On gfx950 the bytes a ``v_permlane16_swap_b32`` swapped
    join the same way: the swap plan compiles to exactly its counted opcodes and that
    ``v_lshl_or_b32``."""
    data = json.loads(gzip.decompress(
        (ROOT / "tests" / "data" / "conversion_amd_byte_join.json.gz").read_bytes()))
    assert data["triton_version"].startswith("3.9")
    probes = data["probes"]
    assert probes["triton_lane_swap"]["amdgcn"] == {"v_perm_b32": 0, "v_lshl_or_b32": 1,
                                                    "ds_bpermute_b32": 1}
    assert probes["triton_lane_swap"]["llir_pack"] == {"v2i16": False, "shl_16": True}
    assert probes["codegen_v2i16"]["amdgcn"]["v_perm_b32"] == 1
    assert probes["codegen_shl_or"]["amdgcn"] == {"v_perm_b32": 0, "v_lshl_or_b32": 1,
                                                  "ds_bpermute_b32": 1}
    swap = plan_packed_exchange(_problem(LANE_SWAP, 8), "hip:gfx942")
    assert swap.instructions["prmt"] == 0  # as the model prices Triton's packing
    # after a gfx950 permlane swap the swapped bytes still join with one v_lshl_or_b32:
    # the swap plan's opcodes, and nothing the model would price besides
    from linlayout.hardware import AMD_CDNA4

    swapped = plan_packed_exchange(_wave_problem((2, 0, 1, 3), 8, AMD_CDNA4), "hip:gfx950")
    got = probes["codegen_swap_shl_or"]["amdgcn"]
    assert got == {"v_perm_b32": 0, "v_lshl_or_b32": 1, "ds_bpermute_b32": 1,
                   "v_permlane16_swap_b32": 1, "v_cndmask_b32": 0}
    assert {op: n for op, n in got.items() if n and op != "v_lshl_or_b32"} == swapped.opcodes
    pb = _problem(EXCHANGE, 8)
    full = plan_conversion(pb.src, pb.dst, 8, hardware=AMD_CDNA3, target="hip:gfx942")
    pb = full.problem
    shuffle = full.path("shuffle")
    assert shuffle.method == "packed exchange" and shuffle.cost == shuffle.bound == 1.5
    assert full.optimal and execute_plan(pb, shuffle.plan).correct
    assert AMDGCN["probes"]["lanes_10234_b8"]["amdgcn"] == {
        "ds_bpermute_b32": 1, "v_perm_b32": 1, "v_lshl_or_b32": 1, "v_cndmask_b32": 0}


def test_wide_registers_join_as_instruction_selection_spends_it():
    """``papers/conversion/wide_join_isel.py``: every LLVM IR spelling of joining two
    elements left alone in 32-bit registers, compiled by Triton 3.9's LLVM with and without
    ``-O3``. NVPTX (16 bits): the vector spellings are one ``prmt.b32``, every other one two
    or three integer instructions: no spelling takes fewer than one instruction, the fewest
    a ``prmt`` — the join ``nvidia_lone_shuffle_bound`` counts. AMDGPU (8 bits): Triton's
    zero-extended pair takes a ``v_perm_b32`` — the join the packed exchange pays and
    ``amd_lone_shuffle_bound`` counts with ``wide_source`` — while ``(a & 0xffff) |
    (b << 16)`` takes none in fewer VALU instructions (outside the modelled family). Every
    wide 8-bit plan of the AMD exhaustive spaces, compiled, holds exactly its counted
    opcodes and delivers every element."""
    data = json.loads(gzip.decompress(
        (ROOT / "tests" / "data" / "conversion_wide_join_isel.json.gz").read_bytes()))
    assert data["triton_version"].startswith("3.9")
    probes = data["probes"]
    nv = {k.split("/")[1]: v for k, v in probes.items() if k.startswith("nvptx/")}
    amd = {k.split("/")[1]: v for k, v in probes.items() if k.startswith("amdgcn/")}
    plans = {k: v for k, v in probes.items() if k.startswith("plan/")}
    assert len(nv) == 13 and len(amd) == 17 and len(plans) == 284
    for name, runs in nv.items():
        assert set(runs) == {"sm_80", "sm_80_o3", "sm_90", "sm_90_o3"}
        for ops in runs.values():
            if name in ("v2i16_insertelement", "shufflevector", "v2f16", "prmt_intrinsic"):
                assert ops == ["prmt.b32"], name
            else:
                assert "prmt.b32" not in ops and len(ops) >= 2, name
    for run in ("gfx942", "gfx942_o3", "gfx950", "gfx950_o3"):
        triton = amd["triton_v2i16_zext"][run]
        assert triton.count("v_perm_b32") == 1 and len(triton) == 3
        free = amd["and_shl16_or_garbage_mid"][run]
        assert "v_perm_b32" not in free and len(free) <= len(triton), free
        for name in ("v4i8_ab_poison", "v4i8_ab00"):
            assert "v_perm_b32" not in amd[name][run] and len(amd[name][run]) <= len(triton)
    # every wide 8-bit plan of the AMD exhaustive spaces, compiled: exactly its counted
    # opcodes (a v_perm_b32 per join), every element delivered
    from linlayout.hardware import AMD_CDNA4
    from tests.conversion.test_optimal_exhaustive import _layout as _lane_layout
    from tests.conversion.test_optimal_exhaustive import _wave_layout

    for key, probe in plans.items():
        _, arch, name = key.split("/")
        space, order = name.split("_")
        order = tuple(map(int, order))
        layout = _wave_layout if space == "wave" else _lane_layout
        pb = ConversionProblem.make(layout(tuple(range(len(order)))), layout(order), 8,
                                    AMD_CDNA3 if arch == "gfx942" else AMD_CDNA4)
        plan = plan_packed_exchange(pb, f"hip:{arch}", wide_source=True)
        assert probe["reaches_dst"] and probe["amdgcn"] == plan.opcodes, key
    # the 8-bit single register/lane exchange of a wide source: a v_perm_b32 joins the
    # bytes, one ds_bpermute_b32, one lane-dependent v_perm_b32: 2, the lone-shuffle bound
    pb = _problem(EXCHANGE, 8)
    wide = plan_packed_exchange(pb, "hip:gfx942", wide_source=True)
    assert wide.opcodes == {"ds_bpermute_b32": 1, "v_perm_b32": 2}
    assert execute_plan(pb, wide).correct
    full = plan_conversion(pb.src, pb.dst, 8, hardware=AMD_CDNA3, target="hip:gfx942",
                           wide_source=True)
    shuffle = full.path("shuffle")
    assert shuffle.cost == shuffle.bound == 2.0 and full.optimal
    assert full.triton.cost >= full.best.cost


def test_a_wide_single_register_is_shuffled_as_it_is():
    """One source register: a wide source's 32-bit register is shuffled without packing
    (no extra prmt); its high half holds unknown bits, which the executor refuses to read."""
    src = LinearLayout({"register": [], "lane": [[1], [2], [4], [8], [16]]}, {"dim0": 32})
    dst = LinearLayout({"register": [[16]], "lane": [[1], [2], [4], [8], [0]]}, {"dim0": 32})
    pb = ConversionProblem.make(src, dst, 16)
    plain, wide = plan_packed_exchange(pb), plan_packed_exchange(pb, wide_source=True)
    assert wide.pack == ((0, 0),) and wide.high_unknown and not plain.high_unknown
    assert wide.instructions == plain.instructions
    assert execute_plan(pb, wide).correct

    def highs(plan):  # each permute reads the high half of the input it read
        assert all(ref[0] != "perm" for p in plan.permutes for ref in p.inputs)
        return dataclasses.replace(plan, permutes=tuple(dataclasses.replace(
            p, halves=tuple((lo | 1, hi | 1) for lo, hi in p.halves)) for p in plan.permutes))
    assert not execute_plan(pb, highs(wide)).correct
    assert execute_plan(pb, highs(plain)).correct


@pytest.mark.parametrize("target", ["cuda:90", "hip:gfx942"])
def test_a_wide_16_bit_pair_pays_its_pack(target):
    """Two wide 16-bit registers per lane: the shipped word's pack is a byte permute on
    both targets (NVIDIA's ``prmt.b32`` 0x5410, AMD's ``v_perm_b32``), the selector selects
    are the same, and the plan still runs to ``dst``."""
    pb = _problem(EXCHANGE, 16)
    plain = plan_packed_exchange(pb, target)
    wide = plan_packed_exchange(pb, target, wide_source=True)
    extra = 1 if target.startswith("cuda") else 0  # AMD already packs two registers
    assert wide.instructions["prmt"] == plain.instructions["prmt"] + extra
    assert wide.instructions["selector"] == plain.instructions["selector"] == 1
    assert execute_plan(pb, wide).correct


def _wave_problem(order, element_bits, hardware):
    """A 64-lane wavefront, one register bit, lane bits 3–5 live (0–2 broadcast)."""
    def wave(o):
        return LinearLayout({"register": [[1 << o[0]]],
                             "lane": [[0]] * 3 + [[1 << b] for b in o[1:]]}, {"dim0": 16})
    return ConversionProblem.make(wave((0, 1, 2, 3)), wave(order), element_bits, hardware)


def test_on_gfx950_a_permlane_swap_before_the_exchange_is_executed_not_trusted():
    """8-bit elements one to a register: one ``v_permlane16_swap_b32`` trades the register
    bit with lane bit 4, the two swapped bytes join in one word for nothing, one
    ``ds_bpermute_b32`` serves every lane. The executor runs the swap itself: the same
    tables with the swap across the other lane bit, or without it, miss ``dst``."""
    from linlayout.hardware import AMD_CDNA4

    pb = _wave_problem((2, 0, 1, 3), 8, AMD_CDNA4)
    plan = plan_packed_exchange(pb, "hip:gfx950")
    assert plan.swaps == (RegisterSwap(0, 16),)
    assert plan.instructions == {"shfl": 2, "selp": 0, "prmt": 0, "selector": 0, "mov": 0}
    assert plan.opcodes == {"v_permlane16_swap_b32": 1, "ds_bpermute_b32": 1}
    assert plan.to_dict()["swaps"] == [[0, 16]]
    assert execute_plan(pb, plan).correct
    for wrong in ((RegisterSwap(0, 32),), ()):
        assert not execute_plan(pb, dataclasses.replace(plan, swaps=wrong)).correct
    # no swap where the target has none, or where the producer packed the source
    assert plan_packed_exchange(_wave_problem((2, 0, 1, 3), 8, AMD_CDNA3),
                                "hip:gfx942").swaps == ()
    assert plan_packed_exchange(pb, "hip:gfx950", packed_source=True).swaps == ()
    # at 16 bits the swapped halves join with a v_perm_b32: no cheaper than without a swap
    half = _wave_problem((2, 0, 1, 3), 16, AMD_CDNA4)
    assert execute_plan(half, plan_packed_exchange(half, "hip:gfx950")).correct


# ------------------------------------- gfx950 swap plans compiled, and their IR run lane by lane
SWAP_PLANS = json.loads(gzip.decompress(
    (ROOT / "tests" / "data" / "conversion_swap_plans_amdgcn.json.gz").read_bytes()))
READ_THEN_SWAP = [((1, 2, 0, 3), 16), ((1, 2, 3, 0), 32), ((1, 3, 0, 2), 16), ((1, 3, 2, 0), 32)]


def _swap_script():
    from tests.support import papers_module

    return papers_module("papers/conversion/swap_plans_amdgcn.py")


def test_the_compiled_swap_plans_hold_exactly_the_counted_instructions():
    """``papers/conversion/swap_plans_amdgcn.py``: the 34 gfx950 packed exchanges with a
    permlane swap (26 swap-first, 8 read-then-swap), written as LLVM IR and compiled by
    Triton 3.9's LLVM for gfx950: per cost kind the AMDGCN holds the plan's counts, and
    besides them only the joins and shifts the plan implies. The 4 lane-bit-3 wavefront pairs
    at 8 bits: one ``ds_bpermute_b32``, one ``v_permlane16/32_swap_b32`` (2, the bound),
    one ``v_lshl_or_b32`` and one ``v_lshrrev_b32`` (no cost kind), one ``s_nop 1`` (the
    gfx950 VALU-write-then-permlane hazard), no ``v_perm_b32``/``v_cndmask_b32``; Triton's
    own lowering of the same converts: two ``ds_bpermute_b32`` and four ``v_cndmask_b32``,
    and three vector ALU instructions no kind counts on its data path."""
    from linlayout.hardware import AMD_CDNA4

    script = _swap_script()
    probes = SWAP_PLANS["probes"]
    assert SWAP_PLANS["triton_version"].startswith("3.9") and len(probes) == 34
    assert sorted(p["kind"] for p in probes.values()).count("read_then_swap") == 8
    assert script.compare(SWAP_PLANS) == 0
    for order, mask in READ_THEN_SWAP:
        p = probes[f"wave_{''.join(map(str, order))}_b8"]
        exchange = {op: n for op, n in p["amdgcn"].items() if op not in script.HARNESS}
        assert exchange == {"ds_bpermute_b32": 1, f"v_permlane{mask}_swap_b32": 1,
                            "v_lshl_or_b32": 1, "v_lshrrev_b32": 1}, order
        assert p["nop_wait_states"] == 2 and p["reaches_dst"]
        triton = p["triton"]["amdgcn_data"]
        assert (triton["ds_bpermute_b32"], triton["v_cndmask_b32"]) == (2, 4)
        assert script.by_kind(triton)["other"] == 3
        plan = plan_conversion(_wave_problem(order, 8, AMD_CDNA4).src,
                               _wave_problem(order, 8, AMD_CDNA4).dst, 8, hardware=AMD_CDNA4,
                               target="hip:gfx950")
        assert plan.best.cost == plan.path("shuffle").bound == 2.0 and plan.optimal
        assert plan.triton.opcodes == {"ds_bpermute_b32": 2, "v_cndmask_b32": 4}
    # a swap-first plan's swap reads loaded registers: no shift, no wait state
    first = probes["wave_2013_b8"]
    assert first["nop_wait_states"] == 0 and "v_lshrrev_b32" not in first["amdgcn"]


def test_a_compiled_count_the_plan_does_not_have_is_a_mismatch(capsys):
    """The comparison fails on an extra ``v_cndmask_b32`` or a missing shift."""
    script = _swap_script()
    for op, n in (("v_cndmask_b32", 1), ("v_lshrrev_b32", 0)):
        data = json.loads(json.dumps(SWAP_PLANS))
        data["probes"]["wave_1203_b8"]["amdgcn"][op] = n
        assert script.compare(data) == 1
        assert "MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("order, mask", READ_THEN_SWAP)
def test_the_read_then_swap_ir_reaches_dst_and_a_wrong_swap_does_not(order, mask):
    """No Triton: the read-then-swap plan's LLVM IR (``packed_exchange_ir.py``) run on 64
    lanes by ``ir_run.py`` delivers every element; the same IR with the swap's operands
    exchanged, or across the other lane bit, does not."""
    from linlayout.hardware import AMD_CDNA4

    script = _swap_script()
    ir_run = __import__("ir_run")
    pb = _wave_problem(order, 8, AMD_CDNA4)
    plan = plan_packed_exchange(pb, "hip:gfx950")
    assert plan.swaps_after == (RegisterSwap(0, mask),)
    assert script.reaches_dst(plan, pb)
    other = 48 - mask
    assert not script.reaches_dst(dataclasses.replace(
        plan, swaps_after=(RegisterSwap(0, other),)), pb)
    ir, table = script.llvm_ir(plan, pb, "amdgcn")
    call = f"permlane{mask}.swap(i32 %recv0, i32 %d1"
    assert call in ir
    x = list(range(1, 17))
    out = ir_run.run_ir(ir.replace(call, f"permlane{mask}.swap(i32 %d1, i32 %recv0"),
                        {"in": list(x), "out": [0] * 16, "tab": table}, 64)
    assert out["out"] != x


def test_the_lazy_greedy_reads_choose_as_a_full_scan_does():
    # fuzz (seed 61129): a 16-register, 64-lane 16-bit conversion on gfx950 spent 20 s
    # rescanning every (word, lane) pair per choice; the lazy greedy must pick the same pairs
    import random

    from linlayout.conversion.exchange import _cover, _greedy_reads

    def scan(cover, left):
        cover, left, chosen = dict(cover), set(left), []
        while left:
            c, s = max(cover, key=lambda cs: (len(left & cover[cs]), -cs[0], -cs[1]))
            chosen.append((c, s))
            left -= cover.pop((c, s))
        return chosen

    def scan_cover(sets):
        left, chosen = list(range(len(sets))), []
        while left:
            ref = max(sorted(set().union(*(sets[i] for i in left))),
                      key=lambda v: sum(v in sets[i] for i in left))
            chosen.append(ref)
            left = [i for i in left if ref not in sets[i]]
        return chosen

    rng = random.Random(7717)
    for _ in range(300):
        elems = list(range(rng.randint(1, 16)))
        cover = {}
        for e in elems:  # every element has a holder
            for _ in range(rng.randint(1, 4)):
                cover.setdefault((rng.randrange(8), rng.randrange(64)), set()).add(e)
        left = set(rng.sample(elems, rng.randint(1, len(elems))))
        assert _greedy_reads(cover, set(left)) == scan(cover, left)
        sets = [{(rng.choice("xy"), rng.randrange(6)) for _ in range(rng.randint(1, 4))}
                for _ in range(rng.randint(1, 64))]
        assert _cover(sets) == scan_cover(sets)
