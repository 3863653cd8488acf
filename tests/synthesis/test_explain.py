"""linlayout.synthesis.explain: every claim of a synthesis explanation, recounted.

The claims are checked against what does not come from the explanation: the vector bits lie in
the side's register span and inside the vector ``bank_conflicts`` finds again; the conflict
bits of a side number ``log2`` of the degree ``bank_conflicts`` recounts; each pair of
colliding lanes is in one phase (the simulator's phase split) and asks, address by address,
for the same banks in different words; each "holds" expression maps to the bit's tile
direction; "forced" means the side pays its bound.
"""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, bank_conflicts, examples, synthesize_swizzle
from linlayout import f2
from linlayout.conflicts.simulate import packed_by_lanes, phase_lanes_by_id
from linlayout.hardware.access import plan_access
from linlayout.hardware.model import bank_model
from linlayout.synthesis import Transfer
from linlayout.synthesis.explain import REASONS, explain_synthesis

from tests.support import random_out_bits, random_pair


def _expr_image(expr: str, cols: dict) -> int:
    out = 0
    for term in expr.split(" ⊕ "):
        name, i = term.split()
        out ^= cols[name][int(i)]
    return out


def _words(off: int, n: int, e: int) -> set[int]:
    return {w for o in range(off, off + n)
            for w in range(o * e // 32, (o * e + e - 1) // 32 + 1)}


def check_claims(result, sides, element_bits) -> None:
    """Recount every claim of ``explain_synthesis(result, …)``."""
    exp = explain_synthesis(result, sides[0], sides[1:])
    model = bank_model(element_bits)
    memory = result.layout
    assert len(exp.bits) == memory.total_in_bits
    assert all(b.reason in REASONS for b in exp.bits)
    for k, (side, rep) in enumerate(zip(sides, result.reports)):
        ld_st = rep.instruction == "ld/st.shared"
        again = bank_conflicts(side, memory, element_bits=element_bits,
                               vector_elems=rep.vector_elems if ld_st else None,
                               instruction=(("ld.shared" if k else "st.shared") if ld_st
                                            else rep.instruction))
        assert again.degree == rep.degree
        conflict_bits = [b for b in exp.bits if b.sides[k].conflict]
        assert 1 << len(conflict_bits) == again.degree
        plan = plan_access(side, memory)
        cols = {"register": plan.register, "lane": plan.lane, "warp": plan.warp,
                "block": plan.block}
        reg_span = f2.echelon(plan.register)
        inv = f2.inverse(list(plan.memory_cols))
        for b in exp.bits:
            role = b.sides[k]
            t = plan.memory_cols[b.bit]
            if role.holds:
                assert _expr_image(role.holds, cols) == t
            else:
                assert not f2.in_span(t, [c for cs in cols.values() for c in cs])
            if role.in_vector:
                assert b.bit < (again.vector_elems.bit_length() - 1)
                if ld_st:  # a lane's vector is its registers; a matrix row spans lanes
                    assert f2.reduce(t, reg_span) == 0
            if role.conflict:
                assert b.kind == "segment"
                assert role.direction.bit_length() - 1 == b.bit
                assert role.direction >> model.seg_lo << model.seg_lo == role.direction
                if ld_st:
                    a, c = role.lanes
                    kv = again.vector_elems.bit_length() - 1
                    phases = phase_lanes_by_id(model, kv, packed_by_lanes(plan, model, kv, k > 0))
                    assert any(a in p and c in p for p in phases)
                    offs = [f2.apply(inv, f2.apply(plan.lane, lane)) for lane in (a, c)]
                    words = [_words(o, again.vector_elems, element_bits) for o in offs]
                    assert words[0] != words[1]
                    assert {w % 32 for w in words[0]} == {w % 32 for w in words[1]}
                    # their offsets differ by the direction plus bits inside the vector/word
                    z = max(again.vector_elems.bit_length() - 1, model.within_word_bits)
                    assert (offs[0] ^ offs[1]) >> z == role.direction >> z
        if ld_st:  # each segment bit's claim, by Lemma 9.4 on the simulator's phase
            k_vec = again.vector_elems.bit_length() - 1
            z = max(k_vec, model.within_word_bits)
            phase0 = phase_lanes_by_id(model, k_vec,
                                       packed_by_lanes(plan, model, k_vec, k > 0))[0]
            base = f2.apply(inv, f2.apply(plan.lane, phase0[0]))
            x_span = [f2.apply(inv, f2.apply(plan.lane, lane)) ^ base for lane in phase0]
            x_span += [1 << i for i in range(z)]
            before = 0
            for j in range(model.seg_lo, len(exp.bits)):
                now = len(f2.intersection([1 << i for i in range(model.seg_lo, j + 1)], x_span))
                assert exp.bits[j].sides[k].conflict == (now > before), (k, j)
                before = now
    for b in exp.bits:
        hits = [k for k, r in enumerate(b.sides) if r.conflict]
        if b.reason == "mode":
            assert hits and result.bound.method == "exhaustive"
        elif b.reason == "forced":
            assert hits and all(result.reports[k].degree <= exp.bound_degrees[k] and
                                result.reports[k].vector_elems
                                == result.bound.sides[k].vector_elems for k in hits)
        elif b.reason == "chosen":
            assert hits and any(result.reports[k].degree > exp.bound_degrees[k] or
                                result.reports[k].vector_elems
                                != result.bound.sides[k].vector_elems for k in hits)
        else:
            assert not hits
        if b.reason == "vector":
            assert any(r.in_vector for r in b.sides)
        if b.reason == "word":
            assert b.bit < model.within_word_bits
        if b.reason == "free":
            assert b.kind == "bank"
        if b.reason in ("avoids", "forced", "chosen", "mode"):
            assert b.kind == "segment"


@pytest.mark.parametrize("name", examples.names())
def test_built_in_examples(name):
    ex = examples.get(name)
    r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
    check_claims(r, [ex.store, ex.load], ex.element_bits)


def test_transpose_reasons_and_json():
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    exp = explain_synthesis(r, ex.store, ex.load)
    assert exp.reasons() == {"vector": [0, 1], "free": [2, 3, 4], "avoids": [5, 6, 7, 8]}
    assert exp.bits[0].sides[0].holds == "register 0"  # the store's 4-element vector
    assert exp.bits[0].sides[0].in_vector and not exp.bits[0].sides[1].in_vector
    d = exp.to_dict()
    assert d["side_names"] == ["store", "load"] and len(d["bits"]) == 9
    assert d["bits"][5]["reason"] == "avoids" and d["bits"][5]["tile"] == {"dim0": 4, "dim1": 2}
    t = Transfer.make(ex.store, ex.load, element_bits=32)
    assert explain_synthesis(r, t).to_dict() == d


def test_matrix_instructions():
    ex = examples.get("gemm-operand")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16, instructions="auto")
    check_claims(r, [ex.store, ex.load], 16)
    exp = explain_synthesis(r, ex.store, ex.load)
    assert exp.bits[0].reason == "vector"
    assert any("ldmatrix" in b.text for b in exp.bits)


def test_random_pairs_every_claim_holds():
    rng = random.Random(30)
    seen = set()
    conflicts = 0
    for _ in range(60):
        out_bits = random_out_bits(rng, rng.randint(7, 10))
        store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5,
                                  warp_bits=rng.randint(0, 2), broadcast=0.2)
        bits = rng.choice([8, 16, 32, 64])
        fixed = rng.choice([None, None, "none", "32B", "128B"])
        try:
            r = synthesize_swizzle(store, load, element_bits=bits, fixed=fixed)
        except LayoutError:  # the fixed mode cannot write this tile
            continue
        check_claims(r, [store, load], bits)
        exp = explain_synthesis(r, store, load)
        seen.update(b.reason for b in exp.bits)
        conflicts += sum(s.conflict for b in exp.bits for s in b.sides)
    assert {"vector", "word", "free", "avoids", "mode"} <= seen
    assert conflicts >= 10


def test_random_pairs_under_triton_lowering():
    rng = random.Random(2)
    seen = set()
    for _ in range(12):
        out_bits = random_out_bits(rng, rng.randint(7, 10))
        store, load = random_pair(rng, out_bits, unit=rng.random() < 0.5,
                                  warp_bits=rng.randint(0, 2), broadcast=0.3)
        bits = rng.choice([8, 16, 32])
        r = synthesize_swizzle(store, load, element_bits=bits, lowering="triton",
                               target="cuda:90")
        check_claims(r, [store, load], bits)
        seen.update(b.reason for b in explain_synthesis(r, store, load).bits)
    assert "chosen" in seen


def test_several_loads():
    rng = random.Random(7)
    for _ in range(30):
        out_bits = random_out_bits(rng, 8)
        store, l1 = random_pair(rng, out_bits, unit=True, warp_bits=0)
        _, l2 = random_pair(rng, out_bits, unit=True, warp_bits=0)
        r = synthesize_swizzle(store, [l1, l2], element_bits=32)
        check_claims(r, [store, l1, l2], 32)
        exp = explain_synthesis(r, store, [l1, l2])
        assert exp.side_names == ("store", "load 0", "load 1")


def test_bad_input():
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    with pytest.raises(LayoutError, match="loads"):
        explain_synthesis(r, ex.store)
    with pytest.raises(LayoutError, match="sides"):
        explain_synthesis(r, ex.store, [ex.load, ex.load])
    with pytest.raises(LayoutError, match="result"):
        explain_synthesis("nope", ex.store, ex.load)
