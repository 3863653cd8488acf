"""linlayout.conflicts.explain: the explanation agrees with brute-force enumeration.

The oracle below lists every lane's bank words with the simulator's dictionary inversion
(:func:`~linlayout.conflicts.simulate.element_locations`), not with the explanation's linear
algebra, and the counts are checked against :func:`linlayout.simulate_bank_access`.
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from linlayout import LayoutError, LinearLayout, examples, f2, simulate_bank_access
from linlayout.conflicts.explain import explain_conflicts
from linlayout.conflicts.simulate import element_locations, phase_lanes_by_id
from linlayout.hardware import AMD_CDNA4, bank_model
from linlayout.hardware.access import plan_access
from linlayout.layout.padded import PaddedLayout
from linlayout.show.conflicts import conflict_verdict, explanation_text

from tests.support import random_distributed, random_memory, random_memory_vectorisable

ROW_MAJOR_16X32 = LinearLayout({"offset": [[0, 1 << i] for i in range(5)]
                                + [[1 << i, 0] for i in range(4)]}, {"dim0": 16, "dim1": 32})


def oracle(layout, memory, expl, model, ins):
    """Per phase of ``ins``: bank -> word -> sorted lanes, by enumeration."""
    padded = memory if isinstance(memory, PaddedLayout) else None
    plan = plan_access(layout, padded.linear if padded else memory, model.warp_log2)
    where = element_locations(plan)
    table = padded.all_padded_offsets() if padded else None
    mask = (1 << plan.offset_bits) - 1
    e = model.element_bits
    wb = 1 << model.word_log2
    base = f2.apply(plan.block, ins.block) ^ f2.apply(plan.warp, ins.warp)
    k = expl.report.vector_elems.bit_length() - 1
    out = []
    for lanes in phase_lanes_by_id(model, k):
        banks = defaultdict(lambda: defaultdict(set))
        for lane in lanes:
            for r in ins.registers:
                off = where[base ^ f2.apply(plan.lane, lane) ^ f2.apply(plan.register, r)] & mask
                if table is not None:
                    off = table[off]
                for w in range(off * e // wb, (off * e + e - 1) // wb + 1):
                    banks[w % (1 << model.banks_log2)][w].add(lane)
        out.append((sorted(lanes), banks))
    return out


def check(layout, memory, element_bits, hardware=None, instruction=None, lay=None):
    expl = explain_conflicts(layout, memory, element_bits=element_bits, hardware=hardware,
                             instruction=instruction)
    rep = expl.report
    sim = simulate_bank_access(layout, memory, element_bits=element_bits, hardware=hardware,
                               instruction=instruction)
    assert (sim.degree, sim.wavefronts_per_instruction) == (rep.degree,
                                                            rep.wavefronts_per_instruction)
    hw = bank_model(element_bits, hardware).hardware if instruction is None else None
    model = bank_model(element_bits, hw if hw is not None else _lds_hw(instruction, hardware))
    assert max(i.wavefronts for i in expl.instructions) == rep.wavefronts_per_instruction
    assert max(i.worst_phase.degree for i in expl.instructions) == rep.degree
    if expl.scope == "per warp":
        assert len(expl.instructions) == 1
        assert expl.instructions[0].count * expl.instructions[0].wavefronts == \
            rep.wavefronts_per_warp
    for ins in expl.instructions:
        assert sum(p.degree for p in ins.phases) == ins.wavefronts
        truth = oracle(lay or layout, memory, expl, model, ins)
        assert [p.lanes for p in ins.phases] == [tuple(t[0]) for t in truth]
        for p, (_, banks) in zip(ins.phases, truth):
            assert p.degree == max(len(ws) for ws in banks.values())
        worst = ins.worst_phase
        banks = truth[worst.index][1]
        assert len(banks[worst.bank]) == worst.degree
        assert {w.word: set(w.lanes) for w in worst.words} == dict(banks[worst.bank])
    if not isinstance(memory, PaddedLayout):
        assert 1 << len(expl.pairs) == rep.degree
        for pair in expl.pairs:
            a, b = (x * 8 // (model.hardware.bank_bytes * 8) for x in pair.byte_addresses)
            assert a != b and a % (1 << model.banks_log2) == b % (1 << model.banks_log2)
            assert pair.segment_bits and all(s >= expl.seg_lo for s in pair.segment_bits)
            assert all(lo < expl.z for lo in pair.low_bits)
    assert explanation_text(expl)
    return expl


def _lds_hw(instruction, hardware):
    from linlayout.hardware.lds import lds_hardware, lds_instruction
    return lds_hardware(lds_instruction(instruction), hardware or AMD_CDNA4)


def test_article_transpose_read_column_wise_is_16_way_and_says_why():
    expl = check(examples.get("transpose").load, ROW_MAJOR_16X32, 32)
    assert expl.report.degree == 16
    worst = expl.instructions[0].worst_phase
    assert [w.lanes for w in worst.words] == [(i,) for i in range(16)]
    assert [(p.lanes, p.segment_bits, p.low_bits) for p in expl.pairs] == [
        ((0, 1), (5,), ()), ((0, 2), (6,), ()), ((0, 4), (7,), ()), ((0, 8), (8,), ())]
    text = explanation_text(expl)
    assert "lanes 0 and 1 differ only in offset bit 5, which is a segment bit: same bank, " \
           "different word (bytes 0 and 128)" in text


def test_random_linear_accesses_match_enumeration():
    rng = random.Random(20240)
    done = 0
    while done < 200:
        out_bits = [rng.randint(2, 5), rng.randint(2, 5)]
        unit = rng.random() < 0.5
        lay = random_distributed(rng, out_bits, unit=unit, warp_bits=rng.randint(0, 1),
                                 broadcast=rng.choice([0.0, 0.2]))
        mem = (random_memory_vectorisable(rng, lay, unit) if rng.random() < 0.6
               else random_memory(rng, out_bits, unit))
        try:
            check(lay, mem, rng.choice([8, 16, 32, 64]))
        except LayoutError:
            continue
        done += 1


def test_random_padded_accesses_match_enumeration():
    rng = random.Random(77)
    done = 0
    while done < 100:
        out_bits = [rng.randint(2, 4), rng.randint(3, 5)]
        unit = rng.random() < 0.5
        lay = random_distributed(rng, out_bits, unit=unit, warp_bits=rng.randint(0, 1))
        mem = random_memory_vectorisable(rng, lay, unit)
        pairs = [(rng.choice([4, 8, 16, 32, 64]), rng.choice([1, 2, 4, 8]))]
        try:
            padded = PaddedLayout(mem, tuple(pairs))
            expl = check(lay, padded, rng.choice([8, 16, 32]))
        except LayoutError:
            continue
        assert expl.method in ("closed form", "enumeration")
        done += 1


@pytest.mark.parametrize("instruction", ["ds_read_b128", "ds_read_b64", "ds_write_b32",
                                         "ds_read2_b64"])
def test_random_lds_accesses_match_enumeration(instruction):
    rng = random.Random(instruction)
    done = 0
    tries = 0
    while done < 15 and tries < 2000:
        tries += 1
        out_bits = [rng.randint(3, 5), rng.randint(3, 5)]
        lay = random_distributed(rng, out_bits, unit=True, warp_bits=0, lane_bits=6)
        mem = random_memory_vectorisable(rng, lay, True)
        try:
            check(lay, mem, 16, instruction=instruction)
        except LayoutError:
            continue
        done += 1
    assert done == 15


def test_ldmatrix_phases_are_matrices():
    from linlayout import cute
    lay = cute.atom_info("sm80_16x8x16.A").linear_layout(None)
    for text, degree in [("Sw<3,3,3> o _0 o (_16,_16):(_16,_1)", 1),
                         ("(_16,_16):(_16,_1)", 2)]:
        mem = cute.parse_layout(text)
        expl = explain_conflicts(lay, mem, element_bits=16, instruction="ldmatrix.x4")
        sim = simulate_bank_access(lay, mem, element_bits=16, instruction="ldmatrix.x4")
        ins = expl.instructions[0]
        assert [p.lanes for p in ins.phases] == [tuple(range(8 * m, 8 * m + 8))
                                                 for m in range(4)]
        assert [p.degree for p in ins.phases] == [sim.degree] * 4 == [degree] * 4
        assert ins.wavefronts == expl.report.wavefronts_per_instruction
        assert 1 << len(expl.pairs) == degree
        for pair in expl.pairs:
            a, b = (x // 4 for x in pair.byte_addresses)
            assert a != b and a % 32 == b % 32


def test_verdict_carries_the_explanation_only_when_asked():
    lay = examples.get("transpose").load
    plain = conflict_verdict(lay, ROW_MAJOR_16X32, element_bits=32)
    assert plain.explanation is None and "explain" not in plain.to_dict()
    assert "explain" not in plain.to_text()
    v = conflict_verdict(lay, ROW_MAJOR_16X32, element_bits=32, explain=True)
    assert v.to_dict()["explain"]["instructions"][0]["phases"][0]["degree"] == 16
    lines = v.to_text().splitlines()
    assert lines[-1].startswith("FAIL") and any(x.startswith("explain (") for x in lines)
