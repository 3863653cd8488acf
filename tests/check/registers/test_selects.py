"""Selector selects shared between converts (linlayout/check/registers/selects.py): Triton's
CSE after lowering keeps one select of two constant prmt selectors per lane bit and constant
pair, where the first dominates the second."""

from __future__ import annotations

import dataclasses

import pytest

from linlayout.check.registers import share_selector_selects
from linlayout.check.registers.selects import region_paths
from linlayout.check.shared_memory.ops import predict_module
from linlayout.check.shared_memory.predict import Prediction
from linlayout.errors import LayoutError
from linlayout.lowering.emitted import Emitted
from linlayout.triton.ttgir import find_accesses, read_ttgir
from tests.check.shared_memory.triton_fixtures import entries

#: two 8-bit shuffle converts that select the same prmt selectors on lane bit 0 (Triton 3.9
#: emits those two selp.b32 once, on the first convert's line)
SHARED = "r3_u8_max_4x8x32_ax01_w1_b8fe30_cuda80"

TEXT = """tt.func @f() {
  %a = ttg.convert_layout %x
  scf.for %i = %c0 to %c4 step %c1 {
    %b = ttg.convert_layout %a
  }
  %c = ttg.convert_layout %a
  scf.if %p {
    %d = ttg.convert_layout %a
  } else {
    %e = ttg.convert_layout %a
  }
  tt.return
}
tt.func @g() {
  %h = ttg.convert_layout %x
}"""


def test_region_paths_follow_the_braces():
    paths = region_paths(TEXT)
    assert paths[2] == (1,) and paths[4] == (1, 3) and paths[6] == (1,)
    assert paths[8] == (1, 7) and paths[10] == (1, 9) and paths[15] == (14,)
    assert paths[3] == (1,)  # the op that opens a region sits outside it


def _pairs(lines, keys):
    ttgir = entries("redux_heldout")[SHARED]["ttgir"]
    a = next(x for x in find_accesses(read_ttgir(ttgir)) if x.kind == "convert")
    sel = Emitted("select", "selp.b32", 4, None, 32, 0, "")
    prmt = Emitted("permute", "prmt.b32", 2, None, 32, 0, "")
    return [(dataclasses.replace(a, line=ln), Prediction((), "n", uses_shared=False,
                                                         registers=(sel, prmt),
                                                         extra={"selector_selects": keys}))
            for ln in lines]


def _selects(pred):
    return sum(e.per_thread for e in pred.registers if e.opcode == "selp.b32")


@pytest.mark.parametrize("lines,want", [
    ((2, 4), [4, 2]),      # before a loop: its body shares them
    ((4, 6), [4, 4]),      # inside a loop body: not after the loop
    ((2, 6), [4, 2]),      # straight-line code
    ((8, 10), [4, 4]),     # the then branch does not dominate the else branch
    ((2, 8, 10), [4, 2, 2]),
    ((2, 15), [4, 4]),     # another function
])
def test_a_later_dominated_convert_pays_only_for_new_selector_selects(lines, want):
    out = share_selector_selects(_pairs(lines, ((0, 1, 2), (0, 3, 4))), TEXT)
    assert [_selects(p) for _, p in out] == want
    assert all(any(e.opcode == "prmt.b32" for e in p.registers) for _, p in out)
    assert ("shared with an earlier convert" in out[-1][1].note) == (want[-1] == 2)


def test_only_the_keys_already_seen_are_taken_off():
    first = _pairs((2,), ((0, 1, 2),))
    second = _pairs((6,), ((0, 1, 2), (1, 5, 6)))
    out = share_selector_selects(first + second, TEXT)
    assert [_selects(p) for _, p in out] == [4, 3]


def test_errors_and_ops_without_keys_pass_unchanged():
    pairs = _pairs((2, 6), ())
    err = (pairs[0][0], LayoutError("bad"))
    out = share_selector_selects([err] + pairs, TEXT)
    assert out[0][1] is err[1] and [p for _, p in out[1:]] == [p for _, p in pairs]
    with pytest.raises(LayoutError):
        region_paths(3)
    with pytest.raises(LayoutError):
        share_selector_selects([(1, 2)], TEXT)
    with pytest.raises(LayoutError):
        share_selector_selects([(pairs[0][0],)], TEXT)


def test_the_probe_two_converts_share_their_selects():
    """The compiled probe: the second 8-bit shuffle convert's two selector selects are the
    first convert's (Triton's LLVM IR before -O3 has them once)."""
    ttgir = entries("redux_heldout")[SHARED]["ttgir"]
    preds = {a.line: p for a, p in predict_module(read_ttgir(ttgir)) if a.kind == "convert"}
    second = preds[max(preds)]
    assert "2 selector selects shared" in second.note
    assert _selects(second) == 2
