"""NVPTX's selection of an 8-bit reduction's reloaded byte extracts, by their readers
(linlayout/check/registers/byte_readers.py and ``round_byte_readers`` in private.py), on
compiled held-out reductions (``tests/data/triton_redux_heldout_probes.json.gz``)."""

from __future__ import annotations

import re

import pytest

from linlayout.check.registers import widen_loaded_bytes
from linlayout.check.registers.byte_readers import (loaded_byte_positions, pack_byte_readers,
                                                    stored_pair_sources)
from linlayout.check.registers.private import round_byte_readers
from linlayout.check.shared_memory.ops import module_target, predict_module
from linlayout.check.shared_memory.reduce import reduce_steps
from linlayout.errors import LayoutError
from linlayout.lowering.target import Target
from linlayout.triton.ttgir import find_accesses, read_ttgir
from tests.check.shared_memory.triton_fixtures import entries


def _probe(name):
    module = read_ttgir(entries("redux_heldout")[name]["ttgir"])
    accesses = find_accesses(module)
    reduce = next(a for a in accesses if a.op == "reduce")
    convert = next((a for a in accesses if a.kind == "convert"), None)
    axis = int(re.search(r"axis\s*=\s*(\d+)", reduce.attrs).group(1))
    return module, reduce, convert, axis


def test_a_signed_min_redux_round_reads_bytes_sign_extended():
    module, reduce, _, axis = _probe("r2_i8_min_32x64_ax1_w2_4e193c_cuda100")
    target = module_target(module)
    readers = round_byte_readers(reduce.distributed.layout, axis, 1, 8, target,
                                 reduce.combiner)
    assert readers == {"sext"}
    assert round_byte_readers(reduce.distributed.layout, axis, 1, 16, target,
                              reduce.combiner) is None
    assert round_byte_readers(reduce.distributed.layout, axis, 1, 8,
                              Target.parse("hip:gfx942"), reduce.combiner) is None
    assert round_byte_readers(reduce.distributed.layout, axis, 0, 8, target,
                              reduce.combiner) is None


def test_a_signed_max_butterfly_round_reads_each_byte_both_ways():
    module, reduce, _, axis = _probe("r3_i8_max_8x16x8_ax10_w2_40021f_cuda100")
    readers = round_byte_readers(reduce.distributed.layout, axis, 1, 8,
                                 module_target(module), reduce.combiner)
    assert readers == {"zext", "signed_byte"}


def test_byte_zero_packed_low_by_the_next_shuffle_convert_costs_no_permute():
    module, reduce, convert, axis = _probe("r2_u8_max_64x16_ax1_w8_d97c46_cuda90")
    target = module_target(module)
    _, src, dst = reduce_steps(reduce.distributed.layout, reduce.destination.layout, axis)[-1]
    positions = loaded_byte_positions(src, dst, target)
    assert sorted(positions) == [0, 1, 2, 3]
    readers = pack_byte_readers(convert.distributed.layout, convert.destination.layout,
                                target)
    low = [r for r, kinds in readers.items() if kinds == {"zext_arith"}]
    assert len(low) == 2 and sorted(positions[r] for r in low) == [0, 2]
    pairs = predict_module(module)
    prmt = {a.line: sum(e.per_thread for e in p.registers if e.opcode == "prmt.b32")
            for a, p in pairs if a.op in ("reduce", "convert_layout")}
    assert prmt[reduce.line] == 13  # 6 packing the stored words, 4 + 4 - 1 unpacking
    assert "and.b32 0xff" in next(p.note for a, p in pairs if a.op == "reduce")


@pytest.mark.parametrize("name, moved", [("r2_i8_and_8x256_ax0_w4_da8e5a_cuda90", 4),
                                         ("r2_i8_add_64x32_ax1_w8_1ad7ca_cuda80", 8),
                                         ("r2_u8_min_8x256_ax0_w8_58bd4e_cuda90", 0)])
def test_byte_pairs_stored_as_half_words_have_their_extracts_on_the_converts_line(name, moved):
    module, reduce, convert, _ = _probe(name)
    pairs = stored_pair_sources(convert.distributed.layout, convert.destination.layout,
                                module_target(module))
    assert pairs is not None and all(len(p) == 2 for p in pairs)
    prmt = {a.line: sum(e.per_thread for e in p.registers if e.opcode == "prmt.b32")
            for a, p in predict_module(module) if a.op in ("reduce", "convert_layout")}
    assert prmt.get(convert.line, 0) == moved
    assert "convert's line" in next(p.note for a, p in predict_module(module)
                                    if a.op == "reduce") or not moved


def test_other_targets_and_bad_input():
    module, _, _, _ = _probe("r2_u8_max_64x16_ax1_w8_d97c46_cuda90")
    pairs = predict_module(module)
    amd = Target.parse("hip:gfx942")
    assert widen_loaded_bytes(pairs, module.text, amd) == pairs
    with pytest.raises(LayoutError):
        widen_loaded_bytes(pairs, 3, module_target(module))
    with pytest.raises(LayoutError):
        widen_loaded_bytes(pairs, module.text, "cuda:90")
