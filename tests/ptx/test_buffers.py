"""linlayout.ptx.buffers: the swizzle seen from a buffer, against brute force over every
base and every offset, and the closed form for 128-byte-aligned bases.
"""

from __future__ import annotations

import numpy as np
import pytest

from linlayout import LayoutError, LinearLayout
from linlayout import ptx
from linlayout.ptx import SwizzleMode as SM


ALL = list(SM)


def _classify_all_bases(mode, size=1024):
    """Brute force, vectorised: for every base in [0, P) classify o ↦ sw(base+o) − base on [0, size)."""
    m = ptx.swizzle_mode(mode)
    P = m.repeat_bytes
    bases = np.arange(P, dtype=np.int64)[:, None]
    o = np.arange(size, dtype=np.int64)[None, :]
    a = bases + o
    sw = a.copy()
    for t, s in m.xor_pairs:
        sw ^= ((a >> s) & 1) << t
    f = sw - bases
    inside = ((f >= 0) & (f < size)).all(axis=1)
    c = f[:, :1]
    pred = np.broadcast_to(c, f.shape).copy()
    for i in range(size.bit_length() - 1):
        col = f[:, 1 << i: (1 << i) + 1] ^ c
        pred ^= np.where((o >> i) & 1, col, 0)
    affine = inside & (pred == f).all(axis=1)
    linear = affine & (c[:, 0] == 0)
    return affine, linear, f


@pytest.mark.parametrize("mode", ALL)
def test_buffer_layout_against_brute_force_every_base(mode):
    m = ptx.swizzle_mode(mode)
    affine, linear, f = _classify_all_bases(m)
    for base in range(m.repeat_bytes):
        if affine[base]:
            A = ptx.buffer_layout(m, base)
            assert A.is_linear == bool(linear[base])
            got = [A.apply_flat(o) for o in range(1024)]
            assert got == f[base].tolist()
        else:
            with pytest.raises(LayoutError, match="outside the buffer|not F2-affine"):
                ptx.buffer_layout(m, base)
    # periodic in the base
    for base in (0, 128, 256, 384, 64, 16):
        b2 = base + 3 * m.repeat_bytes
        try:
            A = ptx.buffer_layout(m, base)
        except LayoutError:
            with pytest.raises(LayoutError):
                ptx.buffer_layout(m, b2)
        else:
            assert ptx.buffer_layout(m, b2) == A


@pytest.mark.parametrize("mode", ALL)
def test_buffer_layout_closed_form_for_128_aligned_bases(mode):
    """Documented rule: linear iff k ≡ 0 mod 2^n; affine iff n − tz(k mod 2^n) ≤ 2."""
    m = ptx.swizzle_mode(mode)
    n = len({s for _, s in m.xor_pairs})
    for base in range(0, 4096, 128):
        k = (base // 128) % (1 << n) if n else 0
        lin = k == 0
        aff = lin or n - ((k & -k).bit_length() - 1) <= 2
        try:
            A = ptx.buffer_layout(m, base)
        except LayoutError:
            assert not aff
        else:
            assert aff and A.is_linear == lin
    # the headline cases
    assert ptx.buffer_layout("128B", 256).constant == (32,)
    with pytest.raises(LayoutError, match="256 bytes for an affine map or 1024 bytes"):
        ptx.buffer_layout("128B", 128)
    assert ptx.buffer_layout("32B", 64).is_linear  # not 128-aligned, yet linear (exhaustive)


def test_buffer_layout_sizes_and_bad_bases():
    A = ptx.buffer_layout("64B", 384, 4096)
    for o in range(0, 4096, 16):
        assert A.apply({"offset": o}) == {"offset": ptx.buffer_offset("64B", 384, o)}
    assert ptx.buffer_layout("128B", 0, 256).linear == ptx.swizzle_layout("128B", 256)
    with pytest.raises(LayoutError, match="outside the buffer"):
        ptx.buffer_layout("128B", 130)
    with pytest.raises(LayoutError, match="not F2-affine: offset 112"):
        ptx.buffer_layout("128B", 16)
    with pytest.raises(LayoutError):
        ptx.buffer_layout("128B", -1)
    with pytest.raises(LayoutError):
        ptx.buffer_layout("128B", 0, 100)


def test_affine_layout_is_a_linear_layout_plus_a_constant():
    lin = LinearLayout({"offset": [[1], [2]]}, {"offset": 4})
    A = ptx.AffineLayout(lin, (3,))
    assert [A.apply_flat(x) for x in range(4)] == [3, 2, 1, 0]
    assert A.apply({"offset": 1}) == {"offset": 2}
    assert not A.is_linear and ptx.AffineLayout(lin, [0]).is_linear
    assert A.to_dict() == {"linear": lin.to_dict(), "constant": [3]}
    assert "XOR the constant (offset=3)" in str(A)
    for bad in ((4,), (1, 2), "3", (-1,)):
        with pytest.raises(LayoutError):
            ptx.AffineLayout(lin, bad)
    with pytest.raises(LayoutError):
        ptx.AffineLayout("not a layout", (0,))


def test_oversize_buffers_are_refused_up_front():
    """buffer_layout("128B", 0, 1 << 40) once evaluated 2^40 offsets."""
    from linlayout.ptx.buffers import MAX_BUFFER_BYTES

    with pytest.raises(LayoutError, match=rf"2\^40.*limit of {MAX_BUFFER_BYTES}.*swizzle_layout"):
        ptx.buffer_layout("128B", 0, 1 << 40)
    with pytest.raises(LayoutError, match="limit of 512"):
        ptx.buffer_layout("128B", 0, 1024, limit=512)
    assert ptx.buffer_layout("128B", 0, 2048, limit=2048).is_linear
