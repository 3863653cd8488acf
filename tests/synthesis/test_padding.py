"""synthesize_padding / compare_padding_and_swizzle: the search, its ties and its errors."""

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, examples
from linlayout.layout.padded import PaddedLayout
from linlayout.synthesis.padding import compare_padding_and_swizzle, synthesize_padding

# a warp writes rows of a 32x32 fp32 tile (one element per lane) and reads its columns
ROWS = LinearLayout({"register": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]],
                     "lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]]},
                    out_dims={"dim0": 32, "dim1": 32})
COLS = LinearLayout({"register": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                     "lane": [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]},
                    out_dims={"dim0": 32, "dim1": 32})


def test_the_classic_33_float_row():
    r = synthesize_padding(ROWS, COLS, element_bits=32)
    assert r.conflict_free
    # the 33-float row is conflict-free too; the result is at least as cheap
    classic = PaddedLayout.identity([(32, 1)], [32, 32], [1, 0])
    assert classic.overhead_bytes(32) == 31 * 4  # no pad after the last row
    costs = [bank_conflicts(s, classic, element_bits=32) for s in (ROWS, COLS)]
    assert all(c.degree == 1 for c in costs)
    assert r.wavefronts_per_warp <= sum(c.wavefronts_per_warp for c in costs)
    assert r.instructions_per_warp <= sum(c.instructions_per_warp for c in costs)
    # the result is what bank_conflicts says of it
    assert r.loads[0] == bank_conflicts(COLS, r.memory, element_bits=32)
    assert r.overhead_bytes == r.memory.overhead_bytes(32)
    assert r.to_dict()["pairs"] == [list(p) for p in r.memory.pairs]


def test_ties_go_to_the_swizzle():
    c = compare_padding_and_swizzle(ROWS, COLS, element_bits=32)
    assert c.swizzle.wavefronts_per_warp == c.padding.wavefronts_per_warp
    assert c.choice == "swizzle" and "tie" in c.reason


def test_every_candidate_is_no_better_than_the_result():
    ex = examples.get("transpose")
    r = synthesize_padding(ex.store, ex.load, element_bits=ex.element_bits)
    for interval in (2, 8, 32, 128):
        for pad in (1, 2, 4, 8, 16, 32):
            for order in ([0, 1], [1, 0]):
                m = PaddedLayout.identity([(interval, pad)], [16, 32], order)
                waves = sum(bank_conflicts(s, m, element_bits=ex.element_bits).wavefronts_per_warp
                            for s in (ex.store, ex.load))
                assert waves >= r.wavefronts_per_warp


def test_two_pairs_and_weights():
    r = synthesize_padding(ROWS, [COLS], element_bits=32, max_pairs=2, weights=[1, 3])
    assert r.conflict_free and r.weights == (1, 3)


@pytest.mark.parametrize("kw, match", [
    (dict(objective="bytes"), "objective"), (dict(weights=[1]), "weights"),
    (dict(max_pairs=3), "max_pairs")])
def test_errors(kw, match):
    with pytest.raises(LayoutError, match=match):
        synthesize_padding(ROWS, COLS, element_bits=32, **kw)
    with pytest.raises(LayoutError, match="at least one"):
        synthesize_padding(ROWS, [], element_bits=32)
