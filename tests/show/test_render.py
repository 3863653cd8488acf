"""linlayout.show.render: text grids of who holds each element and where it lives in
memory (offset and bank), truncated when large.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, examples
from linlayout.show.render import grid_distributed, grid_memory


#: The article's optimal swizzle: bank bits = n, segment bit j = m_j ⊕ n_{j+1}.
ARTICLE = LinearLayout(
    {"bank": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
     "segment": [[1, 2], [2, 4], [4, 8], [8, 16]]},
    {"dim0": 16, "dim1": 32},
)


#: Row-major 16×32: offset bits 0-4 are n, bits 5-8 are m.
ROW_MAJOR = LinearLayout(
    {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0]]},
    {"dim0": 16, "dim1": 32},
)


def _body(grid: str) -> list[str]:
    return grid.splitlines()[3:]


def test_grid_distributed_labels_thread_and_register():
    ex = examples.get("transpose")
    g = grid_distributed(ex.store)
    lines = g.splitlines()
    assert lines[0].startswith("rows: dim0 (16), columns: dim1 (32)")
    assert len(_body(g)) == 16
    assert _body(g)[0].split("|")[1].split()[:3] == ["t0:r0", "t1:r0", "t2:r0"]
    assert _body(g)[15].split()[-1] == "t31:r15"
    assert len({len(line) for line in lines[1:]}) == 1  # aligned
    load = grid_distributed(ex.load)
    assert _body(load)[1].split("|")[1].split()[:2] == ["t1:r0", "t17:r0"]


def test_grid_distributed_broadcast_warp_and_1d():
    bcast = LinearLayout({"register": [[1]], "lane": [[0], [2]], "warp": [[0]]}, {"dim0": 4})
    g = grid_distributed(bcast)
    assert len(_body(g)) == 1
    cells = _body(g)[0].split("|")[1].split()
    assert cells == ["w0:t0:r0*", "w0:t0:r1*", "w0:t2:r0*", "w0:t2:r1*"]
    partial = LinearLayout({"register": [[1]]}, {"dim0": 4})
    assert _body(grid_distributed(partial))[0].split("|")[1].split() == ["t0:r0", "t0:r1", "-", "-"]


def test_grid_truncates_wide_tensors():
    ex = examples.get("transpose-128")
    g = grid_distributed(ex.store)
    assert g.splitlines()[-1] == "(truncated: columns 64..127 not shown)"
    assert len(_body(g)) == 128 + 1
    small = grid_distributed(ex.store, max_cols=4, max_rows=2)
    assert small.splitlines()[-1] == "(truncated: columns 4..127 and rows 2..127 not shown)"


def test_grid_rejects_3d_and_bad_in_dims():
    three = LinearLayout({"register": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
                         {"dim0": 2, "dim1": 2, "dim2": 2})
    with pytest.raises(LayoutError, match="1-D and 2-D"):
        grid_distributed(three)
    with pytest.raises(LayoutError):
        grid_distributed(ROW_MAJOR)


def test_grid_memory_shows_offset_and_bank():
    g = grid_memory(ARTICLE, 32)
    body = _body(g)
    assert len(body) == 16
    row1 = body[1].split("|")[1].split()
    assert row1[:4] == ["34/2", "35/3", "32/0", "33/1"]
    # every row of the article's swizzle uses all 32 banks once
    for line in body:
        banks = [int(c.split("/")[1]) for c in line.split("|")[1].split()]
        assert sorted(banks) == list(range(32))


def test_grid_memory_subword_and_block():
    g = grid_memory(ROW_MAJOR, 16)
    assert _body(g)[1].split("|")[1].split()[:3] == ["32/16", "33/16", "34/17"]
    mem = LinearLayout({"offset": [[0, 1], [0, 2], [1, 0]], "block": [[2, 0]]},
                       {"dim0": 4, "dim1": 4})
    cells = _body(grid_memory(mem, 32))[2].split("|")[1].split()
    assert cells[0] == "b1:0/0"
    with pytest.raises(LayoutError):
        grid_memory(ROW_MAJOR, 3)
    with pytest.raises(LayoutError):
        grid_memory(LinearLayout({"offset": [[0, 1], [0, 1]]}, {"dim0": 1, "dim1": 4}), 32)


@pytest.mark.parametrize("argv, layout, bits", [
    (["sm80_16x8x16.A"], "atom", 32),
    (["Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "--element-bits", "16"], "memory", 16),
])
def test_layout_text_is_what_linlayout_show_prints(capsys, argv, layout, bits):
    from linlayout import cute
    from linlayout.show.formula import offset_formula
    from linlayout.show.render import layout_text

    from tests.support import run_cli

    lay = (cute.atom_info(argv[0]).linear_layout(None) if layout == "atom"
           else cute.parse_layout(argv[0]))
    text = layout_text(lay, bits)
    code, out, err = run_cli(capsys, "show", *argv)
    assert (code, err) == (0, "") and out == text + "\n"
    if layout == "memory":
        assert text.splitlines()[0] == offset_formula(lay)
    else:
        assert text == grid_distributed(lay)


def test_grid_distributed_of_a_64_lane_amd_wavefront():
    from linlayout import cute

    text = grid_distributed(cute.atom("amd_mfma_f32_32x32x8_f16.A"))
    rows = text.splitlines()
    assert rows[3].split("|")[1].split() == [f"t0:r{v}" for v in range(4)] + \
        [f"t32:r{v}" for v in range(4)]  # row 0: lane 0 holds k 0-3, lane 32 k 4-7
    assert rows[-1].split("|")[1].split()[-1] == "t63:r3"
    wide = LinearLayout({"lane": [[1 << i] for i in range(7)]}, {"dim0": 128})
    with pytest.raises(LayoutError, match="widest warp"):
        grid_distributed(wide)
