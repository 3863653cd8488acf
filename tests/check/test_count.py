"""linlayout.check.count: each predicted instruction counted exactly, or not at all."""

from __future__ import annotations

from linlayout.hardware import NVIDIA
from linlayout.check.count import count_side, try_count
from linlayout.check.shared_memory import Side
from linlayout.lowering import Emitted


def test_named_and_unmodelled_instructions_are_not_counted():
    named = Side(Emitted("none", "wgmma.mma_async", None, None, 0, 0, ""))
    assert count_side(named, NVIDIA) is None
    tr = Side(Emitted("load", "ds_read_b64_tr_b16", 8, 4, 16, 8, ""))
    assert try_count(tr, NVIDIA) == (None, "")


def _brute_force(side, hardware):
    """Wavefronts per warp and worst degree of ``side``'s merged instructions, by listing each
    lane's exact elements: lane ``X`` (the original layout's lanes, warps and blocks) moves
    the offsets ``X ⊕ start + j``, ``j < vector_elems``, one instruction per start, counted
    by the brute-force simulator's phase counter."""
    from linlayout.conflicts.simulate import (check_simulation, element_locations,
                                              instruction_wavefronts, packed_by_lanes,
                                              phase_lanes_by_id)
    from linlayout.hardware.instructions import parse_instruction
    from linlayout.hardware.model import bank_model

    def xor_all(cols, x):
        out = 0
        for i, c in enumerate(cols):
            if x >> i & 1:
                out ^= c
        return out

    e = side.emitted
    w = e.vector_elems
    k = w.bit_length() - 1
    model = bank_model(e.element_bits, hardware)
    plan = check_simulation(side.dist, side.memory, model, parse_instruction(None), None, None)
    where = element_locations(plan)
    elem = [xor_all(plan.memory_cols, j) for j in range(w)]  # the elements at offsets 0..w-1
    phases = phase_lanes_by_id(model, k, packed_by_lanes(plan, model, k, e.side == "load"))
    worst, per_warp = 0, 0
    for blk in range(1 << len(plan.block)):
        for wp in range(1 << len(plan.warp)):
            base = xor_all(plan.block, blk) ^ xor_all(plan.warp, wp)
            total = 0
            for start in side.starts:
                assert start % w == 0
                got, degree = instruction_wavefronts(
                    base ^ xor_all(plan.memory_cols, start), range(w), elem, phases, where,
                    plan, model, None)
                total += got
                worst = max(worst, degree)
            per_warp = max(per_warp, total)
    return per_warp, worst


def test_two_width_ops_are_counted_as_the_brute_force_simulation_of_each_instruction():
    """Every probe of the ``llvm_merge`` and ``llvm_merge_confirm`` sets whose prediction has
    two widths in one op (LLVM's SLP vectoriser keeping mixed XOR constants apart): each
    width's wavefronts and degree equal a brute-force count of the exact per-lane offsets of
    each merged instruction, and the widths together account for every element."""
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir
    from tests.check.shared_memory.triton_fixtures import entries

    seen = []
    for s in ("llvm_merge", "llvm_merge_confirm"):
        for name, entry in entries(s).items():
            for _, p in predict_module(read_ttgir(entry["ttgir"], name)):
                merged = [side for side in p.sides if side.starts]
                if not merged:
                    continue
                assert len({side.emitted.vector_elems for side in merged}) >= 2, name
                for side in merged:
                    rep = count_side(side, NVIDIA)
                    assert rep is not None, name
                    assert rep.instructions_per_warp == side.emitted.per_thread \
                        == len(side.starts), name
                    assert (rep.wavefronts_per_warp, rep.degree) \
                        == _brute_force(side, NVIDIA), name
                # the instructions move each of the thread's elements once
                moved = [st ^ j for side in merged for st in side.starts
                         for j in range(side.emitted.vector_elems)]
                assert len(moved) == len(set(moved)), name
                seen.append(name)
    # the draws hold one such op (the SLP rule's probe); the test covers whatever they hold
    assert "smem_blocked_xorlinear_linear_b32_32x64_w1_8a6dda_cuda90" in seen


def test_two_width_accesses_of_random_layouts_are_counted_as_the_brute_force_simulation():
    """Random register layouts on random XOR-of-low-bits buffers (sm_90, LLVM's SLP rule on):
    every access :func:`after_llvm` splits into two widths is counted, width by width, as the
    brute-force simulation of each merged instruction's exact lane offsets."""
    import random

    from linlayout.errors import LayoutError
    from linlayout.layout import LinearLayout
    from linlayout.lowering.target import Target
    from linlayout.check.shared_memory.predict import predict_copy

    rng = random.Random(4481)
    target = Target.parse("cuda:90")
    out = {"dim0": 32, "dim1": 64}
    seen = 0
    for _ in range(1200):
        cols = [1 << i for i in range(11)]
        mem = list(cols)
        for _ in range(rng.randint(1, 4)):
            i, j = rng.sample(range(11), 2)
            mem[i] ^= mem[j]
        d = list(cols)
        rng.shuffle(d)
        for _ in range(rng.randint(0, 3)):
            i, j = rng.sample(range(11), 2)
            d[i] ^= d[j]
        nw = rng.choice((0, 1, 2))
        dist = LinearLayout.from_columns(d, {"register": 1 << (6 - nw), "lane": 32,
                                             "warp": 1 << nw}, out)
        memory = LinearLayout.from_columns(mem, {"offset": 1 << 11}, out)
        bits = rng.choice((8, 16, 32, 64))
        for kind in ("store", "load"):
            try:
                sides = predict_copy(kind, dist, memory, bits, target).sides
            except LayoutError:
                continue
            for side in sides:
                if not side.starts:
                    continue
                seen += 1
                rep = count_side(side, NVIDIA)
                assert rep.instructions_per_warp == side.emitted.per_thread
                assert (rep.wavefronts_per_warp, rep.degree) == _brute_force(side, NVIDIA)
    assert seen >= 20
