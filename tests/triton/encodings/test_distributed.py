"""linlayout.triton.encodings.distributed: #ttg.blocked, #ttg.slice, #ttg.linear and
#ttg.generic_linear, bit-exact with Triton 3.9 (tests/data/triton_layouts.json), their text and
their Gluon source."""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout
from linlayout.triton import parse_encoding, to_gluon
from linlayout.triton.encodings import (
    BlockedEncoding,
    GenericLinearEncoding,
    LinearEncoding,
    SliceEncoding,
    blocked,
    generic_linear,
    linear,
    slice,
)
from linlayout.triton.recognize import distributed_bases

from tests.triton.encodings.cases import (
    ROUNDTRIP,
    case_id,
    cases_of,
    check_case,
    roundtrip_encoding,
    roundtrip_of,
)

CLASSES = (BlockedEncoding, SliceEncoding, LinearEncoding)


@pytest.mark.parametrize("case", cases_of(*CLASSES), ids=case_id)
def test_bit_exact_with_triton_and_text_round_trips(case):
    check_case(case)


@pytest.mark.parametrize("enc, shape, source", roundtrip_of(BlockedEncoding),
                         ids=lambda v: str(v)[:40])
def test_gluon_is_the_recorded_source(enc, shape, source):
    assert enc.gluon(shape) == source


def test_linear_gluon_is_the_recorded_source():
    entries = [e for e in ROUNDTRIP if roundtrip_encoding(e)[0] is None]
    assert entries
    for e in entries:
        lay = LinearLayout.from_dict(e["layout"])
        b = distributed_bases(lay)
        enc = LinearEncoding(b["register"], b["lane"], b["warp"], b["block"], len(lay.out_dims))
        assert enc.gluon(list(lay.out_dims.values())) == e["source"] == to_gluon(lay)


def test_gluon_strings():
    enc = blocked([1, 8], [4, 8], [4, 1], [1, 0])
    assert slice(1, enc).gluon(module="ttgl") == (
        "ttgl.SliceLayout(dim=1, parent=ttgl.BlockedLayout(size_per_thread=[1, 8], "
        "threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0]))")
    assert blocked([1, 4], [8, 4], [4, 1], [1, 0], cga_layout=[[1, 0]]).gluon().endswith(
        "order=[1, 0], cga_layout=[[1, 0]])")
    lin = linear([[0, 1]], [[1, 0]], [])
    assert lin.gluon([2, 2]) == ("gl.DistributedLinearLayout(reg_bases=[[0, 1]], "
                                 "lane_bases=[[1, 0]], warp_bases=[], block_bases=[], "
                                 "shape=[2, 2])")
    with pytest.raises(LayoutError, match="^gl.DistributedLinearLayout needs the tensor shape$"):
        lin.gluon()


def test_constructors_equal_parsed_encodings():
    assert blocked([1, 4], [8, 4], [4, 1], [1, 0]) == parse_encoding(
        "#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], "
        "order = [1, 0]}>")
    assert BlockedEncoding.from_attribute(
        {"sizePerThread": [1, 4], "threadsPerWarp": [8, 4], "warpsPerCTA": [4, 1],
         "order": [1, 0], "CTAsPerCGA": [1, 2]}) == blocked(
        [1, 4], [8, 4], [4, 1], [1, 0], cga_layout=[[0, 1]])
    assert LinearEncoding.from_attribute({"register": [[0, 1]], "lane": [[1, 0]]}) == \
        linear([[0, 1]], [[1, 0]], [])


#: the destination of g_lanewarp_b64_64x32_w4_a590c7_cuda80 as Triton 3.9 prints it (Gluon's
#: ``DistributedLinearLayout`` with warp bases that are sums of tensor bits;
#: tests/data/triton_cvt_lane_warp_probes.json.gz)
GENERIC = ("#ttg.generic_linear<{register = [[2, 0], [1, 0], [0, 2], [32, 0]], lane = [[0, 8], "
           "[8, 0], [0, 1], [0, 16], [0, 4]], warp = [[17, 9], [4, 13]], block = []}>")


def test_generic_linear_is_its_bases_at_the_tensor_shape():
    enc = parse_encoding(GENERIC)
    assert isinstance(enc, GenericLinearEncoding) and enc.text() == GENERIC
    assert enc == generic_linear([[2, 0], [1, 0], [0, 2], [32, 0]],
                                 [[0, 8], [8, 0], [0, 1], [0, 16], [0, 4]],
                                 [[17, 9], [4, 13]])
    lay = enc.to_linear_layout([64, 32])
    assert lay.out_dims == {"dim0": 64, "dim1": 32}
    assert lay.bases["warp"] == [[17, 9], [4, 13]]
    assert lay.bases["register"] == [[2, 0], [1, 0], [0, 2], [32, 0]]
    # the same bases as #ttg.linear: the same layout, another attribute
    plain = parse_encoding(GENERIC.replace("generic_linear", "linear"))
    assert plain != enc and plain.to_linear_layout([64, 32]) == lay
    assert enc.gluon([64, 32]) == plain.gluon([64, 32])


def test_slice_of_blocked_drops_the_dim():
    parent = blocked([1, 4], [8, 4], [4, 1], [1, 0])
    row = slice(1, parent).to_linear_layout([32])
    assert row.out_dims == {"dim0": 32}
    assert row.bases["lane"] == [[0], [0], [1], [2], [4]]
    assert SliceEncoding.from_attribute({"dim": 1, "parent": parent}) == slice(1, parent)


@pytest.mark.parametrize("make, msg", [
    (lambda: blocked([1, 3], [8, 4], [4, 1], [1, 0]), "power of two"),
    (lambda: blocked([1, 4], [8, 4], [4, 1], [1, 1]), "permutation"),
    (lambda: blocked([1, 4], [8, 4], [4], [1, 0]), "rank"),
    (lambda: blocked([1, 4], [8, 4], [4, 1], [1, 0], cga_layout=[[3, 0]]), "power of two"),
    (lambda: slice(2, blocked([1, 4], [8, 4], [4, 1], [1, 0])), "out of range"),
    (lambda: linear([], [], []), "no bases"),
])
def test_bad_parameters_raise_layout_error(make, msg):
    with pytest.raises(LayoutError, match=msg):
        make()


@pytest.mark.parametrize("cls, body, msg", [
    (BlockedEncoding, {"order": [1, 0]}, r"^malformed MLIR at p: #ttg.blocked needs "
                                         r"'sizePerThread'$"),
    (BlockedEncoding, {"sizePerThread": [1, 3], "threadsPerWarp": [8, 4], "warpsPerCTA": [4, 1],
                       "order": [1, 0]}, r"^invalid #ttg.blocked at p: sizePerThread"),
    (BlockedEncoding, {"order": 1}, r"needs 'order' to be a list"),
    (SliceEncoding, {"dim": 0, "parent": 1}, r"'parent' must be a layout attribute"),
    (LinearEncoding, {"register": [1]}, r"'register' must be a list of bases"),
])
def test_bad_bodies_raise_layout_error(cls, body, msg):
    with pytest.raises(LayoutError, match=msg):
        cls.from_attribute(body, "p")


def test_bad_shapes_raise_layout_error():
    enc = blocked([1, 4], [8, 4], [4, 1], [1, 0])
    with pytest.raises(LayoutError, match="rank"):
        enc.to_linear_layout([64])
    with pytest.raises(LayoutError, match="power of two"):
        enc.to_linear_layout([64, 48])


def test_numpy_ints_in_linear_and_shared_linear_bases_are_ints():
    import numpy as np

    from linlayout.triton import shared_linear

    i = np.int64
    enc = linear([[i(0), i(1)]], [[i(1), np.uint8(0)]], [[i(2), i(0)]], [[i(0), i(0)]],
                 rank=i(2))
    assert enc == linear([[0, 1]], [[1, 0]], [[2, 0]], [[0, 0]], rank=2)
    assert all(type(v) is int for b in enc.register + enc.lane for v in b)
    assert enc.to_linear_layout([4, 8]) == linear([[0, 1]], [[1, 0]], [[2, 0]],
                                                  [[0, 0]]).to_linear_layout([4, 8])
    sl = shared_linear([[i(0), i(1)], [i(1), i(0)]], [[i(0), i(0)]], alignment=i(16))
    assert sl == shared_linear([[0, 1], [1, 0]], [[0, 0]], alignment=16)
    assert sl.to_linear_layout([2, 2]).bases["offset"] == [[0, 1], [1, 0]]
    with pytest.raises(LayoutError, match="must be an int"):
        linear([[np.True_, 0]], [[1, 0]], [[2, 0]])
