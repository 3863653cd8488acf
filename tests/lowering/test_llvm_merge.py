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
from linlayout.lowering.llvm_merge import llvm_merged_accesses
from linlayout.lowering.vectorise import AccessMap, largest_vectorisation


def _simulate(m: AccessMap, v: int) -> Counter:
    """Every access of one thread as LLVM sees it, from the definition: the address
    ``X ⊕ c`` of each register combination ``c`` (the vector's registers fixed at 0), split
    into the part only lanes/warps can set and the constant rest; per part, contiguous runs
    merged greedily under the alignment NVPTX requires."""
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
    out: Counter = Counter()
    size = v * eb
    for starts in groups.values():
        todo = sorted(starts)
        while todo:
            s = todo[0]
            run = 1
            while s + run * size in starts and s + run * size in todo:
                run += 1
            align = min(align0, s & -s) if s else align0
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
