"""LLVM's merging of Triton's shared-memory vectors on NVIDIA (``linlayout.lowering.llvm_merge``),
checked against a direct simulation of the ``LoadStoreVectorizer`` on every address a thread
touches (the probes of ``tests/check/shared_memory/test_llvm_merge_probes.py`` check it
against the PTX)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from linlayout import LayoutError
from linlayout.f2 import images
from linlayout.lowering.llvm_merge import known_low_zeros, llvm_merged_accesses
from linlayout.lowering.vectorise import AccessMap, largest_vectorisation


def _simulate(m: AccessMap, v: int) -> Counter:
    """Every access of one thread as LLVM sees it, from the definition: the address
    ``X ⊕ c`` of each register combination ``c`` (the vector's registers fixed at 0), split
    into the part only lanes/warps can set and the constant rest; per part, contiguous runs
    merged greedily under the alignment NVPTX requires: the lowest lane/warp offset, capped
    by what LLVM proves of the part's base (``known_low_zeros``: ``X`` one below the address
    of X's own part, split into GEPs when no other part uses it, two below ``X ^ K``)."""
    eb = max(8, m.element_bits) // 8
    lanes = [o for o in m.lanes + m.warps if o]
    p = 0
    for o in lanes:
        p |= o
    align0 = min([16] + [(o * eb) & -(o * eb) for o in lanes])
    vec = {1 << i for i in range(v.bit_length() - 1)}
    rest = [r for r in m.registers if r not in vec]
    groups: dict = {}
    for c in images(rest):
        groups.setdefault(c & p, set()).add((c & ~p) * eb)
    alone = set(groups) == {0}
    proven = {k: max(eb, 1 << min(31, known_low_zeros(m, 2 if k else 1, gep_split=alone)))
              for k in groups}
    out: Counter = Counter()
    size = v * eb
    for key, starts in groups.items():
        todo = sorted(starts)
        while todo:
            s = todo[0]
            run = 1
            while s + run * size in starts and s + run * size in todo:
                run += 1
            base = min(align0, proven[key])
            align = min(base, s & -s) if s else base
            n = run
            while n > 1 and (n * size > 16 or align % (n * size)):
                n -= 1
            out[n * v] += 1
            todo = todo[n:]
    return out


def test_registers_reaching_offsets_1_and_3_merge_into_one_vector():
    # Triton: offset 3 is not a multiple of 2, so scalar 16-bit stores; LLVM: the four
    # elements 0..3 are contiguous and 8-byte aligned: one 8-byte access
    m = AccessMap(registers=(1, 3), lanes=(4, 8, 16, 32, 64), warps=(), element_bits=16)
    assert largest_vectorisation(m) == 1
    r = llvm_merged_accesses(m, 1)
    assert r.widths == ((4, 1),) and r.merged and r.vector_offsets == (1, 2)


def test_a_lane_on_an_odd_offset_leaves_the_scalars():
    m = AccessMap(registers=(2, 3), lanes=(1, 8, 16, 32, 64), warps=(), element_bits=16)
    r = llvm_merged_accesses(m, 1)
    assert r.widths == ((1, 4),) and not r.merged


def test_alignment_caps_the_width():
    # lanes at multiples of 2 elements (4 bytes): runs of 4 halves merge only in pairs
    m = AccessMap(registers=(1, 3), lanes=(2 ** 2 + 2, 16, 32, 64, 128), warps=(),
                  element_bits=16)
    assert llvm_merged_accesses(m, 1).widths == ((2, 2),)


def test_tritons_own_vector_is_kept_when_nothing_lines_up():
    m = AccessMap(registers=(1, 2, 64), lanes=(4, 8, 16, 32, 128), warps=(), element_bits=32)
    r = llvm_merged_accesses(m, 4)
    assert r.widths == ((4, 2),) and not r.merged


def test_matches_a_direct_simulation_on_random_maps():
    rng = random.Random(7)
    for _ in range(300):
        bits = rng.choice([8, 16, 32, 64])
        nbits = 10
        cols = [1 << i for i in range(nbits)]
        rng.shuffle(cols)
        for _ in range(rng.randint(0, 3)):
            i, j = rng.sample(range(nbits), 2)
            cols[i] ^= cols[j]
        nreg = rng.randint(1, 4)
        m = AccessMap(tuple(cols[:nreg]), tuple(cols[nreg:nreg + 5]), tuple(cols[nreg + 5:]),
                      (), bits)
        v = largest_vectorisation(m)
        got = llvm_merged_accesses(m, v)
        assert dict(got.widths) == dict(_simulate(m, v)), m
        assert sum(w * n for w, n in got.widths) == 1 << nreg


def test_bad_arguments_raise():
    m = AccessMap(registers=(2,), lanes=(1,), warps=(), element_bits=16)
    with pytest.raises(LayoutError):
        llvm_merged_accesses(m, 2)  # no register reaches offset 1
    with pytest.raises(LayoutError):
        llvm_merged_accesses(m, 3)
    with pytest.raises(LayoutError):
        llvm_merged_accesses("m", 1)


def test_merged_vectors_are_spelled_as_nvptx_prints_them():
    from linlayout.lowering.llvm_merge import merged_opcode

    assert merged_opcode("store", 2, 8) == "st.shared.v2.b8"
    assert merged_opcode("store", 4, 8) == "st.shared.b32"
    assert merged_opcode("load", 2, 16) == "ld.shared.v2.b16"
    assert merged_opcode("load", 4, 16) == "ld.shared.v4.b16"
    assert merged_opcode("load", 8, 16) == "ld.shared.v4.b32"
    assert merged_opcode("store", 2, 64) == "st.shared.v2.b64"
    with pytest.raises(LayoutError):
        merged_opcode("store", 4, 64)
    with pytest.raises(LayoutError):
        merged_opcode("copy", 2, 8)


# the sm_90 load of smem_blocked_xorlinear_linear_b32_32x64_w1_8a6dda (llvm_merge set): its
# XOR constants 16, 20, 144 and 148 bytes share their lane bits (16) and differ elsewhere
_MIXED = AccessMap(registers=(1024, 8, 128, 37, 5, 1), lanes=(20, 64, 512, 256, 2), warps=(),
                   element_bits=32)


def test_tritons_lane_offset_is_an_or_of_one_operand_per_shift_or_multi_bit_lane():
    from linlayout.lowering.llvm_merge import or_operands

    # lanes at bytes 80 (a select), 256 and 1024 (one shift: one term), 2048 and 8
    assert sorted(or_operands([o * 4 for o in _MIXED.lanes])) == [8, 80, 1280, 2048]
    # terms sharing a bit stay one XOR operand
    assert or_operands([4, 6]) == (6,)
    assert or_operands([]) == ()
    with pytest.raises(LayoutError):
        or_operands([-1])
    with pytest.raises(LayoutError):
        or_operands(4)


def test_without_slp_mixed_xor_constants_are_split_and_paired():
    r = llvm_merged_accesses(_MIXED, 1)
    assert r.widths == ((2, 32),)


def test_with_slp_mixed_xor_constants_stay_apart():
    # LLVM's SLP vectoriser makes X a vector OR reduction of its four operands: the 4-byte
    # steps between X ^ 16 and X ^ 20 (and X ^ 144, X ^ 148) go unproven; X's own group
    # (16 loads, constants outside the lane bits) still pairs
    r = llvm_merged_accesses(_MIXED, 1, slp=True)
    assert r.widths == ((2, 16), (1, 32)) and r.merged and r.vector_offsets == ()


def _random_columns(rng: random.Random, n: int, most_mixes: int) -> list[int]:
    """``n`` independent offset columns: the unit bits shuffled, then up to ``most_mixes``
    of them XORed into another (still a basis)."""
    cols = [1 << i for i in range(n)]
    rng.shuffle(cols)
    for _ in range(rng.randint(0, most_mixes)):
        i, j = rng.sample(range(n), 2)
        cols[i] ^= cols[j]
    return cols

def test_slp_changes_nothing_below_four_or_operands_or_without_mixed_constants():
    m = AccessMap(registers=(1, 3), lanes=(4, 8, 16, 32, 64), warps=(), element_bits=16)
    assert llvm_merged_accesses(m, 1, slp=True) == llvm_merged_accesses(m, 1)
    rng = random.Random(11)
    for _ in range(200):
        cols = _random_columns(rng, 10, 3)
        m = AccessMap(tuple(cols[:3]), tuple(cols[3:8]), tuple(cols[8:]), (), 32)
        v = largest_vectorisation(m)
        p = 0
        for o in m.lanes + m.warps:
            p |= o
        if all(not r & p for r in m.registers):  # no XOR constant at all
            assert llvm_merged_accesses(m, v, slp=True) == llvm_merged_accesses(m, v)


def test_slp_must_be_a_bool():
    with pytest.raises(LayoutError):
        llvm_merged_accesses(_MIXED, 1, slp=1)


def _moved(r) -> list[int]:
    return [s ^ j for s, n in r.instructions for j in range(n)]


def test_each_merged_access_is_listed_with_its_start():
    r = llvm_merged_accesses(_MIXED, 1, slp=True)
    assert Counter(n for _, n in r.instructions) == {2: 16, 1: 32}
    assert all(s % n == 0 for s, n in r.instructions)
    # the pairs are X's own group (constants outside the lane bits); the singles the
    # constants sharing lane bit 16 bytes (element 4) with X ^ 20 bytes (element 5)
    assert all(s & 4 == 0 for s, n in r.instructions if n == 2)
    assert all(s & 4 for s, n in r.instructions if n == 1)
    # together they move each element of the thread once
    assert sorted(_moved(r)) == sorted(images(list(_MIXED.registers)))


def test_the_listed_accesses_move_every_element_once_and_agree_with_the_widths():
    rng = random.Random(2711)
    for _ in range(300):
        cols = _random_columns(rng, 11, 4)
        nreg = rng.randint(1, 4)
        m = AccessMap(tuple(cols[:nreg]), tuple(cols[nreg:nreg + 5]), tuple(cols[nreg + 5:]),
                      (), rng.choice((8, 16, 32, 64)))
        v = largest_vectorisation(m)
        for slp in (False, True):
            r = llvm_merged_accesses(m, v, slp=slp)
            assert Counter(n for _, n in r.instructions) == dict(r.widths)
            assert all(s % n == 0 for s, n in r.instructions)
            assert sorted(_moved(r)) == sorted(images(list(m.registers)))


# the load of smem_linear_xorlinear_linear_b32_64x32_w1_803b78_cuda100 (llvm_merge set): five
# lane terms, two of them (the lanes at 16 and 32 bytes) computed by the store too
_DEEP = AccessMap(registers=(1, 36, 2, 18, 128, 64), lanes=(512, 4, 1024, 256, 8), warps=(),
                  element_bits=32)


def test_triton_s_tree_for_x_and_the_terms_other_expressions_share():
    from linlayout.lowering.llvm_merge import expression_terms, thread_terms

    # lanes at bytes 2048, 16, 4096, 1024, 32: each alone on its diagonal, one shift each
    assert thread_terms(_DEEP) == {("shl", 1, 11), ("shl", 2, 3), ("shl", 4, 10),
                                   ("shl", 8, 7), ("shl", 16, 1)}
    # a multi-bit offset is a select; a diagonal of several columns one term
    assert expression_terms([20, 0], 8) == {("select", 1, 20)}
    assert expression_terms([2, 4, 8], 4) == {("shl", 7, 1)}
    assert expression_terms([], 0) == frozenset()
    with pytest.raises(LayoutError):
        expression_terms([-1], 3)
    with pytest.raises(LayoutError):
        expression_terms("x", 3)


def test_a_term_shared_with_another_expression_pushes_the_rest_past_the_depth_limit():
    from linlayout.lowering.llvm_merge import known_low_zeros

    store = frozenset({("shl", 2, 3), ("shl", 16, 1), ("shl", 1, 2), ("select", 4, 260),
                       ("and", 8, 0)})  # the store's terms
    # alone: Triton's balanced tree; no ``tid & m`` has another user, so each shift is
    # InstCombine's (tid << s) & (m << s): every bit proven, the lowest lane's 16 bytes
    assert known_low_zeros(_DEEP, 2) == 4
    # with the store: (t1 | t16) | (t4 | t8) -> (t1 | (t4 | t8)) | t16 (reassociateForUses):
    # t4 and t8 6 below the mixed base's address, nothing proven
    assert known_low_zeros(_DEEP, 2, store) == 0
    # X's own group (one xor shallower) is still proven 16-byte aligned
    assert known_low_zeros(_DEEP, 1, store) == 4
    # so the mixed group's loads stay 4-byte (the PTX of 803b78), X's merge into 16 bytes
    assert llvm_merged_accesses(_DEEP, 1, kernel_terms=store).widths == ((4, 8), (1, 32))
    assert llvm_merged_accesses(_DEEP, 1).widths == ((4, 16),)
    with pytest.raises(LayoutError):
        known_low_zeros(_DEEP, -1)
    with pytest.raises(LayoutError):
        known_low_zeros(_DEEP, 1, {("shl", 2, 3)})
    with pytest.raises(LayoutError):
        llvm_merged_accesses(_DEEP, 1, kernel_terms=[("shl", 2, 3)])


def test_a_shift_whose_and_has_another_user_proves_only_the_shift():
    from linlayout.lowering.llvm_merge import known_low_zeros

    # e8688c's load (llvm_merge_confirm): lanes at bytes 8, 32, 512, 16, 4096; the lane at
    # 16 bytes is (tid & 8) << 1, 5 below the mixed base's address
    m = AccessMap(registers=(1, 64, 16, 256, 32, 512), lanes=(2, 8, 128, 4, 1024), warps=(),
                  element_bits=32)
    # nothing else uses tid & 8: InstCombine makes it (tid << 1) & 16, all bits proven
    assert known_low_zeros(m, 2) == 3
    # a make_range index uses tid & 8 too ((tid & 8) >> 1): only the shift's bit 0
    assert known_low_zeros(m, 2, frozenset({("lshr", 8, 1)})) == 1


def test_x_used_by_one_address_is_split_into_geps():
    from linlayout.lowering.llvm_merge import known_low_zeros

    # the load of a suggested layout for 6c9209 (llvm_merge, sm_80, 8 warps): every register
    # offset is added, so gep(smem, X) is X's only use and InstCombine splits it into
    # gep(gep(smem, (tid & 16) << 3), rest); the rest's (tid & 8) << 1, 5 deep in X's tree,
    # is 4 deep there
    m = AccessMap(registers=(1, 1025, 128), lanes=(258, 4, 8, 2, 16), warps=(516, 32, 64),
                  element_bits=64)
    kernel = frozenset({("lshr", 16, 1), ("shl", 8, 3), ("select", 4, 4128)})
    assert known_low_zeros(m, 1, kernel) == 1
    assert known_low_zeros(m, 1, kernel, gep_split=True) == 4
    assert llvm_merged_accesses(m, 1, kernel_terms=kernel).widths == ((2, 4),)
    with pytest.raises(LayoutError):
        known_low_zeros(m, 1, gep_split=1)
