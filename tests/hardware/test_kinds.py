"""linlayout.hardware.kinds: distributed and shared-memory layouts, validated and flattened.

A distributed layout's in dims are among ``register, lane, warp, block``; a shared-memory
layout's are ``offset`` [+ ``block``] or ``vector, bank, segment`` [+ ``reps``] and it must be a
bijection. Both come back as flat columns (the tensor coordinate flattened, ``dim0`` lowest);
every rejection is a LayoutError whose message says what to change.
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError, LinearLayout, NotInvertibleError
from linlayout.hardware.kinds import (
    DISTRIBUTED_IN_DIMS,
    Distributed,
    distributed_columns,
    fitting_warp_log2,
    is_distributed,
    memory_columns,
    require_same_tensor,
)

OUT = {"dim0": 4, "dim1": 4}
#: register -> dim0 bit 0, lanes -> dim1, warp -> dim0 bit 1 (flat: dim0 in bits 0-1).
DIST = LinearLayout({"register": [[1, 0]], "lane": [[0, 1], [0, 2]], "warp": [[2, 0]]}, OUT)
#: offsets -> dim1 bit 0, dim0 bit 0, dim1 bit 1; the block -> dim0 bit 1.
MEMORY = LinearLayout({"offset": [[0, 1], [1, 0], [0, 2]], "block": [[2, 0]]}, OUT)


# ---------------------------------------------------------------------------- distributed
def test_distributed_columns_are_flat_and_lanes_fill_the_warp():
    cols = distributed_columns(DIST)
    assert cols == Distributed(register=(1,), lane=(4, 8, 0, 0, 0), warp=(2,), block=())
    # a smaller warp pads less; a missing dim is empty
    one = LinearLayout({"lane": [[1]]}, {"dim0": 2})
    assert distributed_columns(one, warp_log2=6).lane == (1, 0, 0, 0, 0, 0)
    assert distributed_columns(one).register == ()


@pytest.mark.parametrize("layout, match", [
    ("not a layout", "store must be a LinearLayout, got str"),
    (LinearLayout({"thread": [[1]]}, {"dim0": 2}),
     r"store has in dim 'thread'.*among \['register', 'lane', 'warp', 'block'\]"
     r".*'thread' -> 'lane'"),
    (LinearLayout({"lane": [[1 << i] for i in range(6)]}, {"dim0": 64}),
     "store's lane dim has size 64 but a warp has 32 lanes; move the extra bits to 'warp'"),
], ids=["not a layout", "unknown in dim", "too many lanes"])
def test_distributed_columns_rejections_say_what_to_change(layout, match):
    with pytest.raises(LayoutError, match=match):
        distributed_columns(layout, "store")


def test_is_distributed_needs_hardware_in_dims_only():
    assert is_distributed(DIST)
    assert all(is_distributed(LinearLayout({n: [[1]]}, {"dim0": 2})) for n in DISTRIBUTED_IN_DIMS)
    assert not is_distributed(MEMORY)
    assert not is_distributed(LinearLayout.empty())  # no in dim at all
    assert not is_distributed(LinearLayout({"lane": [[1]], "offset": [[2]]}, {"dim0": 4}))


# ---------------------------------------------------------------------------- shared memory
def test_memory_columns_put_offset_bits_first_then_block_bits():
    assert memory_columns(MEMORY) == ((4, 1, 8, 2), 3)
    # flattened in another out-dim order: dim1 in the low bits
    assert memory_columns(MEMORY, ("dim1", "dim0")) == ((1, 4, 2, 8), 3)


def test_memory_columns_flatten_vector_bank_segment_in_that_order():
    # listed segment, bank, vector: flattened vector (least significant), bank, segment
    swizzle = LinearLayout({"segment": [[2, 0], [0, 2]], "bank": [[0, 1]], "vector": [[1, 0]]},
                           OUT)
    assert memory_columns(swizzle) == ((1, 4, 2, 8), 4)


@pytest.mark.parametrize("memory, error, match", [
    (3, LayoutError, "memory must be a LinearLayout, got int"),
    (LinearLayout({"lane": [[1]]}, {"dim0": 2}), LayoutError,
     r"a shared-memory layout has in dims 'offset' \[\+ 'block'\] or 'vector', 'bank', "
     r"'segment' \[\+ 'reps'\]; got \['lane'\]"),
    (LinearLayout({"offset": [[1]], "bank": [[2]]}, {"dim0": 4}), LayoutError,
     r"got \['offset', 'bank'\]"),
    (LinearLayout({"block": [[1]]}, {"dim0": 2}), LayoutError,
     "with a 'block' in dim also needs 'offset'"),
    (LinearLayout({"offset": [[1], [1]]}, {"dim0": 4}), NotInvertibleError,
     "must be a bijection from its 2 in bits onto the 2 tensor bits, but its rank is 1"),
], ids=["not a layout", "distributed in dims", "mixed in-dim groups", "block alone",
        "not a bijection"])
def test_memory_columns_rejections_say_what_to_change(memory, error, match):
    with pytest.raises(error, match=match):
        memory_columns(memory)


def test_memory_columns_need_a_permutation_of_the_out_dims():
    with pytest.raises(LayoutError, match=r"permutation of \['dim0', 'dim1'\].*missing out dims"):
        memory_columns(MEMORY, ("dim0",))


# ---------------------------------------------------------------------------- same tensor
def test_same_tensor_accepts_out_dims_in_another_order():
    assert require_same_tensor(DIST, MEMORY.transpose_outs(["dim1", "dim0"]), "store",
                               "load") is None


@pytest.mark.parametrize("other, match", [
    ("x", "load must be a LinearLayout, got str"),
    (LinearLayout({"lane": [[1]]}, {"x": 2}),
     r"store and load must have the same out dims; got \['dim0', 'dim1'\] and \['x'\]"),
    (LinearLayout({"lane": [[1, 0]]}, {"dim0": 2, "dim1": 4}),
     "out dim 'dim0' has size 4 in the store but 2 in the load; both must describe the same "
     "tensor"),
], ids=["not a layout", "other out dims", "other sizes"])
def test_same_tensor_rejections_name_both_sides(other, match):
    with pytest.raises(LayoutError, match=match):
        require_same_tensor(DIST, other, "store", "load")


def test_a_smaller_tile_is_placed_at_the_memory_origin():
    from linlayout.hardware.kinds import embed_at_origin, is_smaller_tile

    tile = LinearLayout({"lane": [[1, 0], [0, 1]]}, out_dims={"dim0": 2, "dim1": 2})
    memory = LinearLayout.identity_1d(16, "offset", "dim0") * \
        LinearLayout.identity_1d(4, "offset", "dim1")
    assert is_smaller_tile(tile, memory)
    big = embed_at_origin(tile, memory)
    assert big.out_dims == {"dim0": 16, "dim1": 4} and big.bases == tile.bases
    # the same tensor, a different tensor, a larger tile: not a smaller tile
    assert not is_smaller_tile(big, memory)
    assert embed_at_origin(big, memory) is big
    other = LinearLayout({"lane": [[1]]}, out_dims={"x": 2})
    assert not is_smaller_tile(other, memory)
    wide = LinearLayout({"lane": [[1, 0]]}, out_dims={"dim0": 32, "dim1": 2})
    assert not is_smaller_tile(wide, memory)
    with pytest.raises(LayoutError, match="does not fit"):
        embed_at_origin(wide, memory)


def test_fitting_warp_log2_is_a_warp_or_a_wavefront():
    def lanes(n_bits):
        return LinearLayout({"lane": [[1 << i] for i in range(n_bits)]}, {"dim0": 1 << max(n_bits, 1)})

    assert [fitting_warp_log2(lanes(b)) for b in (0, 3, 5, 6)] == [5, 5, 5, 6]
    assert fitting_warp_log2(LinearLayout({"register": [[1]]}, {"dim0": 2})) == 5
    with pytest.raises(LayoutError, match="widest warp .* 64 lanes"):
        fitting_warp_log2(lanes(7))
    with pytest.raises(LayoutError, match="LinearLayout"):
        fitting_warp_log2("not a layout")
