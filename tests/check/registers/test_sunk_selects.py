"""The Swap selects AMDGPU's back end copies under a predicated store
(linlayout/check/registers/sunk_selects.py), against compiled gfx942 probes."""

from __future__ import annotations

import pytest

from linlayout.check.registers import copy_sunk_selects
from linlayout.check.registers.sunk_selects import sunk_select_copies
from linlayout.check.shared_memory.ops import module_target, predict_module
from linlayout.errors import LayoutError
from linlayout.lowering.shuffle import lower_warp_shuffle, post_shuffle_selects
from linlayout.triton.ttgir import find_accesses, read_ttgir
from tests.check.shared_memory.triton_fixtures import entries

ONE_DIM = [(r,) for r in range(8)]


@pytest.mark.parametrize("words,coords,vec,n", [
    # two packed words of four bytes, one byte store each: the second word's select sinks
    # into the join block before store 4, which tail duplication copies
    (((0, 1, 2, 3), (4, 5, 6, 7)), ONE_DIM, 1, 1),
    (((0, 1, 2, 3), (4, 5, 6, 7)), ONE_DIM, 8, 0),    # one store: nothing sinks
    (((0, 1, 2, 3), (4, 5, 6, 7)), ONE_DIM, 4, 0),    # each word in one store's block
    (((0, 1), (2, 3), (4, 5), (6, 7)), ONE_DIM, 1, 3),
    # 2-D: the row part that stores 4 and 6 share lands in the join block before store 4,
    # too big to duplicate; the column part of store 2 is shared with store 6
    (((0, 1, 2, 3), (4, 5, 6, 7)),
     [(0, 0), (0, 4), (0, 8), (0, 12), (8, 0), (8, 4), (8, 8), (8, 12)], 1, 0),
])
def test_sunk_select_copies(words, coords, vec, n):
    assert sunk_select_copies(words, coords, vec) == n


def test_sunk_select_copies_refuses_bad_input():
    with pytest.raises(LayoutError, match="vec"):
        sunk_select_copies(((0, 1),), ONE_DIM, 0)
    with pytest.raises(LayoutError, match="outside"):
        sunk_select_copies(((0, 9),), ONE_DIM, 1)


def _probe():
    return entries("amd_producer")["reduce_b8_i8_64x64_ax0_w1_max_1790c0_gfx942"]["ttgir"]


def test_a_predicated_byte_store_copies_the_second_word_select():
    """gfx942, an i8 reduction's result (two packed words after two ds_bpermute_b32) stored
    one byte at a time by lanes 0 and 8 … only: three v_cndmask_b32 in the assembly of
    Triton's IR with -O3 skipped, where the IR has two selects."""
    module = read_ttgir(_probe())
    (cvt,) = [(a, p) for a, p in predict_module(module) if a.kind == "convert"]
    regs = {e.opcode: e.per_thread for e in cvt[1].registers}
    assert regs == {"ds_bpermute_b32": 2, "v_cndmask_b32": 3}
    assert "tail duplication" in cvt[1].note
    (a,) = [a for a in find_accesses(module) if a.kind == "convert"]
    low = lower_warp_shuffle(a.distributed.layout, a.destination.layout, 8)
    assert post_shuffle_selects(low) == ((0, 1, 2, 3), (4, 5, 6, 7))


def test_an_unpredicated_store_and_nvidia_pass_unchanged():
    module = read_ttgir(_probe().replace("sizePerThread = [8], threadsPerWarp = [64]",
                                     "sizePerThread = [1], threadsPerWarp = [64]"))
    (cvt,) = [p for a, p in predict_module(module) if a.kind == "convert"]
    assert "tail duplication" not in cvt.note  # 64 lanes, 64 elements: no lane idles
    pairs = [(a, p) for a, p in predict_module(read_ttgir(_probe()))]
    cuda = module_target(read_ttgir(_probe().replace('"hip:gfx942"', '"cuda:90"')
                                    .replace('"ttg.threads-per-warp" = 64',
                                             '"ttg.threads-per-warp" = 32')))
    assert copy_sunk_selects(pairs, read_ttgir(_probe()), cuda) == pairs


def test_copy_sunk_selects_refuses_bad_input():
    module = read_ttgir(_probe())
    with pytest.raises(LayoutError):
        copy_sunk_selects([1], module, module_target(module))
    with pytest.raises(LayoutError):
        copy_sunk_selects([], "module", module_target(module))
    with pytest.raises(LayoutError):
        post_shuffle_selects("low")
