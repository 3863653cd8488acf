"""linlayout.triton.gluon / recognize: Gluon source for layouts, checked against Triton 3.9's own
evaluation of that source (tests/data/gluon_roundtrip.json, written with Triton by
papers/cute_gluon/generate_gluon_fixtures.py; Triton is not needed here).

(The tests live with the CuTe bridge they belong to; tests/triton/ would shadow the ``triton``
package on sys.path.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.cute import atom, parse_layout
from linlayout.triton import (
    blocked,
    dot_operand,
    gluon_source,
    linear,
    nvidia_mma,
    nvmma_shared,
    recognize_distributed,
    shared_linear,
    swizzled_shared,
    to_gluon,
    to_offset_layout,
)
from linlayout.triton.encodings import AmdRotatingSharedEncoding, slice

DATA = Path(__file__).resolve().parents[1] / "data" / "gluon_roundtrip.json"
ROUNDTRIP = json.loads(DATA.read_text(encoding="utf-8"))["layouts"]


@pytest.mark.parametrize("e", ROUNDTRIP, ids=[e["what"][:60] for e in ROUNDTRIP])
def test_source_evaluated_by_triton_is_the_layout(e):
    L = LinearLayout.from_dict(e["layout"])
    assert to_gluon(L, e["element_bits"], prefer=e["prefer"]) == e["source"]
    tb = e["triton_bases"]
    if "offset" in tb:
        assert tb["offset"] == to_offset_layout(L).bases["offset"] and tb["block"] == []
    else:
        for dim in ("register", "lane", "warp", "block"):
            mine = L.bases.get(dim, [])
            if dim == "lane":
                mine = mine + [[0] * len(L.out_dims)] * (5 - len(mine))
            assert tb[dim] == mine, dim


def test_fixture_covers_every_constructor():
    kinds = {e["source"].split("(")[0] for e in ROUNDTRIP}
    assert kinds >= {"gl.SwizzledSharedLayout", "gl.NVMMASharedLayout", "gl.SharedLinearLayout",
                     "gl.BlockedLayout", "gl.NVMMADistributedLayout", "gl.DotOperandLayout",
                     "gl.DistributedLinearLayout"}


def test_examples():
    assert to_gluon(parse_layout("Sw<3,4,3> o smem_ptr[16b](unset) o (_8,_64):(_64,_1)"), 16,
                    prefer="nvmma") == \
        "gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16)"
    assert to_gluon(atom("sm80_16x8x16.C")) == \
        "gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[1, 1], instr_shape=[16, 8])"
    assert to_gluon(atom("sm90_64x256.C"), module="ttgl") == (
        "ttgl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], "
        "instr_shape=[16, 256, 16])")


def test_gluon_source_of_each_encoding():
    mma = nvidia_mma(2, [2, 2], [16, 8])
    assert gluon_source(dot_operand(1, mma, 4)) == (
        "gl.DotOperandLayout(operand_index=1, parent=gl.NVMMADistributedLayout(version=[2, 0], "
        "warps_per_cta=[2, 2], instr_shape=[16, 8]), k_width=4)")
    assert gluon_source(slice(1, blocked([1, 8], [4, 8], [4, 1], [1, 0]))) == (
        "gl.SliceLayout(dim=1, parent=gl.BlockedLayout(size_per_thread=[1, 8], "
        "threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0]))")
    assert gluon_source(blocked([1, 4], [8, 4], [4, 1], [1, 0], cga_layout=[[1, 0]])).endswith(
        "order=[1, 0], cga_layout=[[1, 0]])")
    assert gluon_source(nvmma_shared(64, 8, transposed=True, rank=3)) == (
        "gl.NVMMASharedLayout(swizzle_byte_width=64, element_bitwidth=8, rank=3, "
        "transposed=True)")
    assert gluon_source(swizzled_shared(4, 2, 4, [0, 1])) == \
        "gl.SwizzledSharedLayout(vec=4, per_phase=2, max_phase=4, order=[0, 1])"
    assert gluon_source(shared_linear([[0, 1], [1, 0]], [[2, 0]], alignment=128)) == (
        "gl.SharedLinearLayout(offset_bases=[[0, 1], [1, 0]], block_bases=[[2, 0]], "
        "alignment=128)")
    lin = linear([[0, 1]], [[1, 0]], [])
    assert gluon_source(lin, [2, 2]) == ("gl.DistributedLinearLayout(reg_bases=[[0, 1]], "
                                         "lane_bases=[[1, 0]], warp_bases=[], block_bases=[], "
                                         "shape=[2, 2])")
    with pytest.raises(LayoutError, match="shape"):
        gluon_source(lin)
    with pytest.raises(LayoutError, match="no Gluon constructor"):
        gluon_source(AmdRotatingSharedEncoding(4, 2, 4, [1, 0]))


def test_layouts_gluon_cannot_express():
    swz = LinearLayout({"register": [[1, 1]], "lane": [[0, 1], [0, 2], [0, 4], [2, 0], [4, 0]]},
                       out_dims={"dim0": 8, "dim1": 8})
    with pytest.raises(LayoutError, match="permutation matrix"):
        to_gluon(swz)
    partial = LinearLayout({"register": [[1, 0]], "lane": [[0, 1]]},
                           out_dims={"dim0": 4, "dim1": 2})
    with pytest.raises(LayoutError, match="surjective"):
        to_gluon(partial)
    with pytest.raises(LayoutError, match="LinearLayout"):
        to_gluon("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")
    with pytest.raises(LayoutError, match="dim0"):
        to_gluon(LinearLayout({"lane": [[1]]}, out_dims={"m": 2}))


def test_recognize_prefers_the_mma_family_and_is_exact():
    for enc, shape in [(blocked([1, 8], [4, 8], [4, 1], [1, 0]), [64, 64]),
                       (nvidia_mma(3, [4, 1], [16, 64, 16]), [64, 64]),
                       (dot_operand(1, nvidia_mma(2, [2, 2], [16, 8]), 4), [64, 64]),
                       (dot_operand(0, nvidia_mma(2, [1, 4], [16, 8]), 1), [32, 32])]:
        L = enc.to_linear_layout(shape)
        got = recognize_distributed(L)
        assert got is not None and got.to_linear_layout(shape) == L
    assert recognize_distributed(atom("sm90_64x128.C")).text() == (
        "#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
        "instrShape = [16, 128, 16]}>")
    odd = LinearLayout({"register": [[0, 1]], "lane": [[2, 0], [0, 2], [1, 0], [0, 4], [4, 0]]},
                       out_dims={"dim0": 8, "dim1": 8})
    assert recognize_distributed(odd) is None


def test_the_target_and_operand_pick_the_encoding_the_kernel_needs():
    from linlayout.triton import dot_operand, nvidia_mma, to_gluon

    mma = nvidia_mma(2, [4, 1], [16, 8])
    acc = mma.to_linear_layout([64, 64])
    a = dot_operand(0, mma, 2).to_linear_layout([64, 64])
    assert "version=[3, 0]" in to_gluon(acc)  # the same layout as a wgmma accumulator
    assert to_gluon(acc, target="cuda:80") == (
        "gl.NVMMADistributedLayout(version=[2, 0], warps_per_cta=[4, 1], instr_shape=[16, 8])")
    assert to_gluon(a, target="sm80", operand=0).startswith("gl.DotOperandLayout(operand_index=0")
    assert "version=[3, 0]" not in to_gluon(a, target="hip:gfx942")
    with pytest.raises(LayoutError, match="operand"):
        to_gluon(a, operand=2)
    shared = LinearLayout({"offset": [[0, 1], [1, 0]]}, out_dims={"dim0": 2, "dim1": 2})
    for layout in (acc, shared):  # a malformed target is refused whatever the layout's kind
        with pytest.raises(LayoutError, match="unknown target"):
            to_gluon(layout, 32, target="cuda:7")


def test_a_64_lane_layout_is_named_for_amd():
    from linlayout.triton import blocked, to_gluon

    layout = blocked([1, 4], [4, 16], [2, 2], [1, 0]).to_linear_layout([64, 64])
    want = ("gl.BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[4, 16], "
            "warps_per_cta=[2, 2], order=[1, 0])")
    assert to_gluon(layout) == want and to_gluon(layout, target="hip:gfx942") == want
