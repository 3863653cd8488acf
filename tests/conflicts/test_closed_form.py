"""linlayout.conflicts.closed_form: bank_conflicts counts exactly.

Against the article's table, hand-worked cases (sub-word accesses, vectors and phases,
misaligned lanes, accesses across CTAs), and the brute-force simulator on thousands of random
layout pairs: every element size, unit and general bases, broadcasts, other bank models, AMD's
wave64 phases, and ldmatrix/stmatrix.
"""

from __future__ import annotations

import random

import pytest

import linlayout as ll
from linlayout import LayoutError, LinearLayout, bank_conflicts, examples, f2, simulate_bank_access
from linlayout.errors import NotInvertibleError
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA

from tests.support import (
    ARTICLE_OUT,
    SYNTHESIS_JUNK,
    article_memory,
    out_dims_for,
    random_distributed,
    random_invertible,
    random_memory,
    random_memory_vectorisable,
    random_out_bits,
    returns_or_raises_layout_error,
    split_out,
)


@pytest.mark.parametrize(
    "shift, load_degree", [(None, 16), (0, 2), (1, 1)], ids=["row-major", "xor-m", "xor-2m"]
)
def test_article_table_reads_are_16_2_1_way(shift, load_degree):
    """The article's table: read degrees 16 / 2 / 1, stores always conflict-free."""
    ex = examples.get("transpose")
    mem = article_memory(shift)
    load = bank_conflicts(ex.load, mem, element_bits=32)
    store = bank_conflicts(ex.store, mem, element_bits=32)
    assert (load.degree, load.wavefronts_per_instruction, load.vector_elems) == (load_degree, load_degree, 1)
    assert (store.degree, store.wavefronts_per_instruction) == (1, 1)
    assert load.extra_wavefronts == load_degree - 1
    assert len(load.conflict_offsets) == (load_degree.bit_length() - 1)
    assert simulate_bank_access(ex.load, mem, element_bits=32) == load
    assert simulate_bank_access(ex.store, mem, element_bits=32) == store


def test_conflict_offsets_are_segment_directions():
    """Row-major: the 16-way read conflict is spanned by the four segment (m) offset bits."""
    ex = examples.get("transpose")
    rep = bank_conflicts(ex.load, article_memory(None), element_bits=32)
    assert rep.conflict_offsets == (1 << 5, 1 << 6, 1 << 7, 1 << 8)


def test_sub_word_conflicts_through_within_word_bits():
    """Two lanes differing in a within-word bit and a segment bit conflict (the sub-word
    generalisation of Lemma 9.4, docs/theory.md §2).

    fp16, 1 element per lane: lane 0 -> offset 0 (word 0, bank 0), lane bit 0 -> offset
    1 + 64 (the other half of word 32 -> bank 0 again, other row). Plain Lemma 9.4 sees no
    segment direction in span(lanes) and says conflict-free; the truth is 2-way.
    """
    out_bits = [7]
    # memory: identity offsets on a 128-element 1-D tensor
    mem = LinearLayout({"offset": [[1 << i] for i in range(7)]}, out_dims_for(out_bits))
    lanes = [[1 + 64], [2], [4], [8], [16]]
    layout = LinearLayout({"lane": lanes, "register": [[32]]}, out_dims_for(out_bits))
    rep = bank_conflicts(layout, mem, element_bits=16)
    sim = simulate_bank_access(layout, mem, element_bits=16)
    assert rep == sim
    assert rep.degree == 2


def test_vectors_split_the_warp_into_phases():
    """16-byte vectors run as 4 quarter-warp phases; 8-byte as 2 half-warp phases."""
    out = {"dim0": 256}
    mem = LinearLayout({"offset": [[1 << i] for i in range(8)]}, out)
    lay = LinearLayout(
        {"register": [[1], [2], [4]], "lane": [[8], [16], [32], [64], [128]]}, out
    )
    rep = bank_conflicts(lay, mem, element_bits=16)
    assert (rep.vector_elems, rep.phases, rep.lanes_per_phase, rep.degree) == (8, 4, 8, 1)
    # fp32: each lane holds 8 elements (32 bytes) but moves 16 per instruction, so a
    # quarter-warp phase spans 256 bytes: lanes 0-3 and 4-7 hit the same banks.
    rep = bank_conflicts(lay, mem, element_bits=32)
    assert (rep.vector_elems, rep.phases, rep.lanes_per_phase, rep.degree) == (4, 4, 8, 2)
    assert rep.instructions_per_warp == 2
    # 8-byte vectors: half-warp phases of 16 lanes spread over 512 bytes: 4-way.
    rep = bank_conflicts(lay, mem, element_bits=32, vector_elems=2)
    assert (rep.vector_elems, rep.phases, rep.access_bits, rep.degree) == (2, 2, 64, 4)
    assert rep.instructions_per_warp == 4
    assert rep == simulate_bank_access(lay, mem, element_bits=32, vector_elems=2)


def test_memory_with_vector_bank_segment_dims_is_accepted():
    ex = examples.get("transpose")
    mem = LinearLayout(
        {"vector": [], "bank": [[0, 1 << i] for i in range(5)],
         "segment": [[1 << j, 1 << (j + 1)] for j in range(4)]},
        ARTICLE_OUT,
    )
    assert bank_conflicts(ex.load, mem, element_bits=32).degree == 1


def test_misaligned_lanes_cannot_vectorise():
    """Registers hold offsets {0, 1} of each thread, but lane 0's run starts at offset 1 ⊕ 8:
    its two elements straddle the aligned pair, so no single v2 access moves them."""
    out = {"dim0": 64}
    mem = LinearLayout({"offset": [[1 << i] for i in range(6)]}, out)
    lay = LinearLayout({"register": [[1]], "lane": [[1 | 8], [2], [4], [16], [32]]}, out)
    rep = bank_conflicts(lay, mem, element_bits=32)
    assert rep.vector_elems == 1 and rep == simulate_bank_access(lay, mem, element_bits=32)
    with pytest.raises(LayoutError, match="straddle"):
        bank_conflicts(lay, mem, element_bits=32, vector_elems=2)
    aligned = LinearLayout({"register": [[1]], "lane": [[8], [2], [4], [16], [32]]}, out)
    assert bank_conflicts(aligned, mem, element_bits=32).vector_elems == 2


def test_lanes_reaching_another_cta_are_rejected():
    out = {"dim0": 64}
    mem = LinearLayout({"offset": [[1 << i] for i in range(5)], "block": [[32]]}, out)
    lay = LinearLayout({"lane": [[1], [2], [4], [8], [32]], "register": [[16]]}, out)
    with pytest.raises(LayoutError, match="CTA"):
        bank_conflicts(lay, mem, element_bits=32)
    with pytest.raises(LayoutError, match="CTA"):
        simulate_bank_access(lay, mem, element_bits=32)
    ok = LinearLayout({"lane": [[1], [2], [4], [8], [16]], "block": [[32]]}, out)
    assert bank_conflicts(ok, mem, element_bits=32) == simulate_bank_access(ok, mem, element_bits=32)


def _agree(rng, n, *, unit, element_bits_choices, broadcast):
    for _ in range(n):
        d = rng.randint(5, 11)
        out_bits = random_out_bits(rng, d)
        lay = random_distributed(
            rng, out_bits, unit=unit, warp_bits=rng.randint(0, 2), broadcast=broadcast
        )
        if rng.random() < 0.5:
            mem = random_memory(rng, out_bits, unit=unit)
        else:
            mem = random_memory_vectorisable(rng, lay, unit=unit)
        e = rng.choice(element_bits_choices)
        rep = bank_conflicts(lay, mem, element_bits=e)
        sim = simulate_bank_access(lay, mem, element_bits=e)
        assert rep == sim, (lay, mem, e)
        assert len(rep.conflict_offsets) == rep.degree.bit_length() - 1
        # every narrower legal vector width agrees too
        k = rep.vector_elems
        while k > 1:
            k //= 2
            assert bank_conflicts(lay, mem, element_bits=e, vector_elems=k) == simulate_bank_access(
                lay, mem, element_bits=e, vector_elems=k
            )


ELEMENT_BITS = [4, 8, 16, 32, 64, 128]


def test_closed_form_matches_simulator_unit_bases():
    _agree(random.Random(1), 600, unit=True, element_bits_choices=ELEMENT_BITS, broadcast=0.0)


def test_closed_form_matches_simulator_general_bases():
    _agree(random.Random(2), 600, unit=False, element_bits_choices=ELEMENT_BITS, broadcast=0.0)


def test_closed_form_matches_simulator_broadcast():
    _agree(random.Random(3), 600, unit=False, element_bits_choices=ELEMENT_BITS, broadcast=0.25)


def test_closed_form_matches_simulator_other_bank_models():
    rng = random.Random(4)
    for _ in range(300):
        d = rng.randint(5, 9)
        out_bits = random_out_bits(rng, d)
        mem = random_memory(rng, out_bits, unit=rng.random() < 0.5)
        lay = random_distributed(rng, out_bits, unit=False, warp_bits=rng.randint(0, 1))
        e = rng.choice(ELEMENT_BITS)
        nb, bb = rng.choice([(16, 4), (64, 4), (32, 8), (8, 4), (4, 4)])
        kw = dict(element_bits=e, hardware=NVIDIA.with_banks(num_banks=nb, bank_bytes=bb))
        assert bank_conflicts(lay, mem, **kw) == simulate_bank_access(lay, mem, **kw)


@pytest.mark.parametrize("hw", [AMD_CDNA3, AMD_CDNA4], ids=lambda h: h.name)
def test_closed_form_matches_simulator_on_amd(hw):
    rng = random.Random(hash(hw.name) & 0xFFFF)
    for _ in range(300):
        d = rng.randint(6, 11)
        out_bits = random_out_bits(rng, d)
        lay = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                                 warp_bits=rng.randint(0, 1), lane_bits=6,
                                 broadcast=rng.choice([0.0, 0.2]))
        mem = (random_memory_vectorisable(rng, lay, unit=False) if rng.random() < 0.6
               else random_memory(rng, out_bits, unit=True))
        e = rng.choice([8, 16, 32, 64])
        assert bank_conflicts(lay, mem, element_bits=e, hardware=hw) == simulate_bank_access(
            lay, mem, element_bits=e, hardware=hw)


@pytest.mark.parametrize("hw", [NVIDIA, AMD_CDNA3, NVIDIA.with_banks(num_banks=16)],
                         ids=lambda h: h.name)
def test_count_side_is_bank_conflicts_on_flat_columns(hw):
    """The synthesizer's counter (flat columns, ranks taken from the tensor columns) gives
    exactly bank_conflicts' report, conflict offsets included, for stores and loads (packed
    returns: broadcast lanes)."""
    from linlayout.conflicts.closed_form import count_side
    from linlayout.hardware.kinds import distributed_columns, memory_columns
    from linlayout.hardware.model import bank_model

    rng = random.Random(7)
    lane_bits = 6 if hw.warp_size == 64 else 5
    for _ in range(300):
        d = rng.randint(6, 11)
        out_bits = random_out_bits(rng, d)
        lay = random_distributed(rng, out_bits, unit=rng.random() < 0.5,
                                 warp_bits=rng.randint(0, 2), lane_bits=lane_bits,
                                 broadcast=rng.choice([0.0, 0.25]))
        mem = (random_memory_vectorisable(rng, lay, unit=rng.random() < 0.5)
               if rng.random() < 0.7 else random_memory(rng, out_bits, unit=False))
        e = rng.choice([8, 16, 32, 64])
        model = bank_model(e, hw)
        side = distributed_columns(lay, "layout", model.warp_log2)
        cols = memory_columns(mem, lay.out_dim_names)[0]
        inv = f2.inverse(cols)
        threads = side.lane + side.warp + side.block
        # offset_of (thread offsets looked up, not composed) where every thread column is a
        # unit vector or zero
        lookup = ({0: 0, **{1 << i: x for i, x in enumerate(inv)}}
                  if all(not c & (c - 1) for c in threads) else None)
        for load in (False, True):
            got = count_side(cols, inv, side, f2.echelon(side.register), model, load=load)
            want = bank_conflicts(lay, mem, element_bits=e, hardware=hw,
                                  instruction="ld.shared" if load else "st.shared")
            assert got == want and got.conflict_offsets == want.conflict_offsets
            assert got.to_dict() == want.to_dict()
            if lookup is not None:
                looked = count_side(cols, inv, side, f2.echelon(side.register), model,
                                    load=load, offset_of=lookup.__getitem__)
                assert looked.to_dict() == want.to_dict()


def _random_matrix_case(rng, trans):
    """A random distributed layout (16-bit, 32 lanes) and a memory layout it can ldmatrix."""
    d = rng.randint(8, 11)
    a = rng.randint(0, d)
    out_bits = [a, d - a]
    out = {"dim0": 1 << a, "dim1": 1 << (d - a)}
    cols = random_invertible(rng, d, rng.random() < 0.5)
    lanes, regs = cols[:5], cols[5:]
    if trans:
        row = [lanes[2], lanes[3], lanes[4]]
    else:
        row = [regs[0], lanes[0], lanes[1]]
    rest = [c for c in cols if c not in row]
    mix = random_invertible(rng, len(rest), False)
    rest = [f2.apply(rest, m) for m in mix]
    mem = LinearLayout({"offset": [split_out(c, out_bits) for c in row + rest]}, out)
    lay = LinearLayout({"register": [split_out(c, out_bits) for c in regs],
                        "lane": [split_out(c, out_bits) for c in lanes]}, out)
    return lay, mem


@pytest.mark.parametrize("trans", [False, True])
def test_closed_form_matches_simulator_on_ldmatrix_stmatrix(trans):
    rng = random.Random(10 + trans)
    seen = set()
    for _ in range(120):
        lay, mem = _random_matrix_case(rng, trans)
        for n in (1, 2, 4):
            name = f"{'st' if rng.random() < 0.5 else 'ld'}matrix.x{n}" + (".trans" if trans else "")
            try:
                rep = bank_conflicts(lay, mem, element_bits=16, instruction=name)
            except LayoutError as exc:
                assert "matrices per instruction" in str(exc)  # too few registers for .xN
                with pytest.raises(LayoutError):
                    simulate_bank_access(lay, mem, element_bits=16, instruction=name)
                continue
            assert rep == simulate_bank_access(lay, mem, element_bits=16, instruction=name)
            seen.add(rep.degree)
    assert len(seen) > 1  # conflicts and conflict-free cases both exercised


def test_bad_arguments_raise_layout_error():
    ex = examples.get("transpose")
    mem = article_memory(1)
    with pytest.raises(LayoutError, match="element_bits"):
        bank_conflicts(ex.load, mem, element_bits=24)
    with pytest.raises(LayoutError, match="element_bits"):
        bank_conflicts(ex.load, mem, element_bits=256)
    with pytest.raises(LayoutError, match="num_banks"):
        bank_conflicts(ex.load, mem, element_bits=32, hardware=NVIDIA.with_banks(num_banks=3))
    with pytest.raises(LayoutError, match="vector_elems"):
        bank_conflicts(ex.load, mem, element_bits=32, vector_elems=2)  # registers can't back it
    with pytest.raises(LayoutError, match="thread"):
        bank_conflicts(LinearLayout({"thread": [[0, 1]]}, ARTICLE_OUT), mem, element_bits=32)
    with pytest.raises(LayoutError, match="out dim"):
        bank_conflicts(ex.load, LinearLayout({"offset": [[1 << i] for i in range(9)]},
                                             {"dim0": 512}), element_bits=32)
    with pytest.raises(LayoutError, match="size"):
        bank_conflicts(ex.load, LinearLayout({"offset": [[0, 1 << i] for i in range(5)]},
                                             {"dim0": 1, "dim1": 32}), element_bits=32)
    singular = LinearLayout({"offset": [[0, 1]] * 9}, ARTICLE_OUT)
    with pytest.raises(NotInvertibleError):
        bank_conflicts(ex.load, singular, element_bits=32)
    with pytest.raises(LayoutError, match="shared-memory layout"):
        bank_conflicts(ex.load, ex.store, element_bits=32)
    with pytest.raises(LayoutError, match="lane"):
        big = LinearLayout({"lane": [[1 << i] for i in range(6)]}, {"dim0": 64})
        bank_conflicts(big, LinearLayout({"offset": [[1 << i] for i in range(6)]}, {"dim0": 64}),
                       element_bits=32)
    with pytest.raises(LayoutError):
        bank_conflicts("not a layout", mem, element_bits=32)


def test_junk_arguments_raise_layout_error_only():
    """Every argument of bank_conflicts, fed junk: LayoutError or a result, nothing else."""
    ex = examples.get("transpose")
    mem = ll.synthesize_swizzle(ex.store, ex.load, element_bits=32).layout
    for j in SYNTHESIS_JUNK + [ex.store]:
        for kw in ("hardware", "vector_elems", "instruction", "element_bits"):
            kwargs = {"element_bits": 32, kw: j}
            returns_or_raises_layout_error(ll.bank_conflicts, ex.load, mem, **kwargs)
        returns_or_raises_layout_error(ll.bank_conflicts, j, mem, element_bits=32)
        returns_or_raises_layout_error(ll.bank_conflicts, ex.load, j, element_bits=32)
