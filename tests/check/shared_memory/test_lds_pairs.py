"""LLVM's AMDGPU ``SILoadStoreOptimizer`` pairing of LDS accesses
(:mod:`linlayout.lowering.lds_pairs`): its rules on small access maps, and on the committed
AMD fixtures of converts and local loads/stores the exact LDS opcodes and counts of the
compiled AMDGCN (``check`` names the executed ``ds_read2*``/``ds_write2*``, not Triton's
unpaired accesses)."""

from __future__ import annotations

import re

import pytest

from linlayout.errors import LayoutError
from linlayout.lowering.lds_pairs import PairedAccesses, lds_paired_accesses
from linlayout.lowering.vectorise import AccessMap
from tests.check.shared_memory.asm_counts import lds_bytes, predicted_counts
from tests.check.shared_memory.triton_fixtures import entries


def _m(registers, lanes=(64, 128, 256, 512, 1024, 2048), bits=32):
    return AccessMap(tuple(registers), tuple(lanes), (), (), bits)


def test_neighbours_within_255_elements_pair_plainly():
    # four b32 accesses 1 element apart (lanes elsewhere): two ds_read2_b32
    assert lds_paired_accesses(_m([1, 2]), 1) == PairedAccesses(0, 2, 0)


def test_multiples_of_64_elements_pair_as_st64():
    # 64 elements apart (below 256): both offsets multiples of 64 -> st64
    assert lds_paired_accesses(_m([64], lanes=(1, 2, 4)), 1) == PairedAccesses(0, 0, 1)


def test_too_far_apart_stays_single():
    # 257 elements: neither 8-bit field nor a multiple of 64
    assert lds_paired_accesses(_m([257], lanes=(1024,)), 1) == PairedAccesses(2)


def test_accesses_through_different_address_registers_never_pair():
    # the register offset 64 is also a lane offset: its two accesses have different bases
    assert lds_paired_accesses(_m([64], lanes=(64, 128)), 1) == PairedAccesses(2)


def test_only_b32_and_b64_pair():
    # 16-bit elements one per access (ds_read_u16), and 16-byte vectors, stay single
    assert lds_paired_accesses(_m([1, 2], bits=16), 1) == PairedAccesses(4)
    assert lds_paired_accesses(_m([1, 2, 4, 8]), 4) == PairedAccesses(4)
    # two 32-bit elements per access: b64 pairs
    assert lds_paired_accesses(_m([1, 2, 4]), 2) == PairedAccesses(0, 2, 0)


def test_padding_moves_the_constant_offsets():
    # rows of 32 elements padded by 1: the register at element 32 lands 33 elements on
    assert lds_paired_accesses(_m([32], lanes=(1, 2, 4)), 1, ((32, 1),)) == \
        PairedAccesses(0, 1, 0)
    # a pad that leaves the second offset unaligned to b64: no pair
    assert lds_paired_accesses(_m([1, 32], lanes=(2, 4)), 2, ((32, 1),)) == PairedAccesses(2)


def test_a_vector_without_its_registers_is_refused():
    with pytest.raises(LayoutError):
        lds_paired_accesses(_m([2, 4]), 2)


#: Sets of AMD converts and local loads/stores whose kernels have no other LDS traffic the
#: model does not name (scans across warps and ``tt.gather`` are excluded below).
_SETS = ("convert", "roundtrip", "lds_alignment", "padded_fault", "bank_order",
         "bank_order_warps", "trans", "cvt_heldout", "cvt_fresh", "cvt_confirm",
         "cvt_roundtrip", "cvt_warp_slice", "cvt_lane_warp", "cvt_lane_warp_confirm",
         "reg_redraw", "reg_confirm", "reg_third", "reg_fourth", "reduce", "reduce_fresh")

#: Where the compiled AMDGCN's LDS opcodes differ from ``check``'s, and why.
_KNOWN = {
    "smem_linear_linear_linear_b64_128x128_w8_f376fb_gfx950":
        "LLVM pairs 8 of the 16 predicted ds_write2_b64: its instruction selection puts "
        "writes of X ^ 520 through X's register (known bits the IR lacks) and offsets past "
        "the 16-bit immediate through another (CodeGenPrepare's splitLargeGEPOffsets); "
        "neither is modelled",
    "smem_blocked_linear_linear_b16_32x128_w8_6b52fd_gfx942":
        "LLVM proves only 2-byte alignment for the reads' base (its known bits stop 6 "
        "levels into the OR tree -O3 leaves), so it does not merge two ds_read_u16 into "
        "one b32 as predicted (the depth limit is not modelled)",
}

_LDS = re.compile(r"ds_(read|write)(2st64|2)?_[biu]\d+")


def _lds(counts: dict) -> dict:
    return {k: v for k, v in counts.items() if _LDS.fullmatch(k) and v}


def _cases() -> list:
    out = []
    for s in _SETS:
        for name, e in sorted(entries(s).items()):
            if "gfx" not in e["target"] or "ttgir" not in e or "counts" not in e \
                    or "tt.scan" in e["ttgir"] or "tt.gather" in e["ttgir"]:
                continue
            marks = [pytest.mark.xfail(strict=True, reason=_KNOWN[name])] \
                if name in _KNOWN else []
            out.append(pytest.param(s, name, marks=marks, id=f"{s}-{name}"))
    return out


@pytest.mark.parametrize("fixture_set, case", _cases())
def test_check_names_the_lds_instructions_the_amdgcn_runs(fixture_set, case):
    e = entries(fixture_set)[case]
    got, totals = predicted_counts(e["ttgir"], case)
    if totals != lds_bytes(_lds(e["counts"])):
        pytest.skip("the LDS bytes differ already (test_triton_fixtures.py, "
                    "tests/data/known_mismatches.json or the set's own test)")
    assert _lds(got) == _lds(e["counts"])


def test_the_fixtures_pair_often():
    paired = sum(any("2" in k.split("_")[1] for k in _lds(entries(p.values[0])[p.values[1]]
                                                           ["counts"]))
                 for p in _cases())
    assert paired >= 200
