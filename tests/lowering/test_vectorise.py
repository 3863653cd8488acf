"""linlayout.lowering.vectorise: Triton's ``largestVectorisation`` and the
``ldmatrix``/``stmatrix``/``ds_read_tr`` tile tests, on hand-made conversion maps and real
layouts."""

from __future__ import annotations

from linlayout.triton import parse_encoding
from linlayout.lowering import access_map, largest_vectorisation, matrix_tile
from linlayout.lowering.vectorise import AccessMap, transposed_read_tile


def _map(regs, lanes=(0, 0, 0, 0, 0), warps=(), bits=16):
    return AccessMap(tuple(regs), tuple(lanes), tuple(warps), (), bits)


def test_vector_needs_exact_register_offsets_and_aligned_other_bases():
    assert largest_vectorisation(_map([1, 2, 4, 64], [8, 16, 32, 128, 256])) == 8
    # registers out of order: allowed with a permutation, not without (cp.async)
    m = _map([2, 1, 4], [8, 16, 32, 64, 128])
    assert largest_vectorisation(m) == 8
    assert largest_vectorisation(m, max_vec=8, permute=False) == 1
    # a lane at offset 4 caps the vector at 4
    assert largest_vectorisation(_map([1, 2, 4], [4, 16, 32, 64, 128])) == 4
    # 128 bits at most; an explicit cap is honoured
    assert largest_vectorisation(_map([1, 2, 4, 8], bits=16)) == 8
    assert largest_vectorisation(_map([1, 2, 4, 8], bits=16), max_vec=2) == 2
    assert largest_vectorisation(_map([1, 2], bits=64)) == 2


def test_ldmatrix_tile():
    # 16-bit: one 32-bit word per lane (reg -> 1), lanes 0,1 -> 2,4; rows 16-byte aligned
    m = _map([1, 64, 128, 512], [2, 4, 8, 16, 32])
    assert matrix_tile(m, trans=False) == 4
    assert matrix_tile(_map([1], [2, 4, 8, 16, 32]), trans=False) == 1
    # lane 0 must hold the next word
    assert matrix_tile(_map([1, 2, 4], [8, 16, 32, 64, 128]), trans=False) is None
    # transposed: lanes 2,3,4 are the 8 elements of a row, everything else 8-aligned
    t = _map([64, 128, 256], [8, 16, 1, 2, 4])
    assert matrix_tile(t, trans=True) == 4
    assert matrix_tile(t, trans=False) is None
    assert matrix_tile(_map([64], [8, 16, 1, 2, 4], bits=32), trans=True) is None


def test_dot_operand_loads_use_ldmatrix_as_in_tritons_ptx():
    shared = parse_encoding("#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, "
                            "order = [1, 0]}>").to_linear_layout([128, 64])
    dot = parse_encoding("#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, "
                         "versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, "
                         "kWidth = 2}>").to_linear_layout([128, 64])
    m = access_map(dot, shared, 16)
    # the two warps along N hold the same A rows: 128 registers, 16 ldmatrix.x4 per thread
    assert m.registers_per_thread == 128 and m.warps[0] == 0
    assert matrix_tile(m, trans=False) == 4


def test_amd_transposed_read_tile():
    assert transposed_read_tile(_map([4, 64], [1, 2, 8, 16, 32, 128]))
    assert not transposed_read_tile(_map([1, 64], [2, 4, 8, 16, 32, 128]))
    assert not transposed_read_tile(_map([4, 64], [1, 2, 8, 16, 32, 128], bits=32))


def _definition(dist, memory):
    """The access map by its definition: ``dist.invert_and_compose(memory)``'s offsets."""
    from linlayout.hardware.kinds import to_offset_layout

    cvt = dist.invert_and_compose(to_offset_layout(memory))
    oi = cvt.out_dim_names.index("offset")
    b = cvt.bases
    return ([img[oi] for img in b.get("register", []) if any(img)],
            {d: [img[oi] for img in b.get(d, [])] for d in ("lane", "warp", "block")})


def test_access_map_is_the_inverse_buffer_composed_with_the_registers():
    """Read off the buffer's inverse (out dims in one order) or through
    ``invert_and_compose`` (in another), the map is the same: random bijective buffers and
    random distributed layouts, broadcast registers included."""
    import random

    from linlayout.layout import LinearLayout

    rng = random.Random(7)
    for trial in range(40):
        cols = [1 << i for i in range(12)]
        rng.shuffle(cols)
        for _ in range(20):  # a random bijection: unit columns mixed by XORs
            i, j = rng.sample(range(12), 2)
            cols[i] ^= cols[j]
        memory = LinearLayout.from_columns(cols, {"offset": 4096}, {"dim0": 64, "dim1": 64})
        dist_cols = [rng.randrange(4096) if k < 4 else 1 << rng.randrange(12)
                     for k in range(12)]
        dist_cols[0] = 0  # a broadcast register
        dist = LinearLayout.from_columns(dist_cols, {"register": 16, "lane": 32, "warp": 8},
                                         {"dim0": 64, "dim1": 64})
        m = access_map(dist, memory, 16)
        regs, others = _definition(dist, memory)
        assert list(m.registers) == regs
        assert (list(m.lanes), list(m.warps), list(m.blocks)) == \
            (others["lane"], others["warp"], others["block"])
        if trial % 2:  # the same tensor with its out dims listed the other way round
            flipped = dist.transpose_outs(["dim1", "dim0"])
            assert access_map(flipped, memory, 16) == m
