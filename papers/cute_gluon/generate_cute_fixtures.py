#!/usr/bin/env python
"""Write tests/data/cute_atoms.json: CuTe layouts evaluated by NVIDIA's reference pycute.

Run with a Python that has the ``nvidia-cutlass`` wheel (its ``pycute`` module needs no CUDA)::

    python papers/cute_gluon/generate_cute_fixtures.py          # write
    python papers/cute_gluon/generate_cute_fixtures.py --check  # compare

This script does not import linlayout: every layout is built with pycute from its own
transcription of the CUTLASS headers, and every expected value comes from evaluating the
pycute object at every coordinate. The tests (``tests/cute/``) read the JSON and never need
pycute. Sections:

* ``atoms`` — the CUTLASS thread-value atoms linlayout names (``linlayout.cute.atom_names()``;
  SM70's over the 8 logical threads of a quad pair, before CUTLASS's ``ThrID``), at
  every element width they accept: the (upcast) CuTe text, the tile, and, when the
  ``(thread, value) -> tile coordinate`` map is XOR-linear (checked at every (t, v)), its
  bases (``thread`` then ``value``, tile coordinates in ``tile`` order).
* ``tiled_copies`` — ``make_tiled_copy(atom, thr_layout, val_layout)``'s ``layout_tv`` built
  the way CUTLASS builds it (``raked_product``, ``right_inverse``, ``with_shape``;
  ``include/cute/atom/copy_atom.hpp``), with its bases.
* ``layouts`` — CuTe layouts in C++ and pycute syntax (the CUTLASS shared-memory atoms, and
  seeded random ones, some not linear or not bijective on purpose), each with ``offsets[i] =
  L(i)`` for every 1-D coordinate ``i`` and the verdict of a brute-force test: is the map,
  relative to its smallest offset, a bijection onto ``[0, size)`` that is XOR-linear and
  sends coordinate 0 to 0? If so ``memory_bases[k]`` is the coordinate (one int per top-level
  mode, colexicographic within a mode) stored at relative offset ``2^k``.

CUTLASS sources (``NVIDIA/cutlass``): ``include/cute/atom/mma_traits_sm80.hpp``,
``mma_traits_sm90_gmma.hpp``, ``copy_traits_sm75.hpp``, ``copy_traits_sm90.hpp``,
``copy_traits_sm80.hpp``; ``test/unit/gemm/device/default_gemm_configuration.hpp`` and
``examples/cute/tutorial/sgemm_sm80.cu`` for the SM80 shared-memory atoms.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys
from importlib import metadata

import fixture_file
from pycute import ComposedLayout, Layout, Swizzle, composition, logical_product, right_inverse, size

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "data" / "cute_atoms.json"


# ----------------------------------------------------------------------------- printing
def cpp(x, static=True) -> str:
    """A pycute object as C++ ``cute::print`` writes it (``static``: ``_N`` integers)."""
    if isinstance(x, Layout):
        return f"{cpp(x.shape, static)}:{cpp(x.stride, static)}"
    if isinstance(x, Swizzle):
        return f"Sw<{x.bits},{x.base},{x.shift}>"
    if isinstance(x, tuple):
        return "(" + ",".join(cpp(e, static) for e in x) + ")"
    return f"_{x}" if static else str(x)


# ----------------------------------------------------------------------------- helpers
def upcast(n, shape, stride):
    """CuTe's upcast<N> (include/cute/layout.hpp) for static layouts."""
    if isinstance(shape, tuple):
        pairs = [upcast(n, s, d) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in pairs), tuple(p[1] for p in pairs)
    if stride == 0:
        return shape, 0
    a = abs(stride)
    assert a % n == 0 or n % a == 0, "Divisibility condition"
    cdiv = lambda x, y: -(-x // y)  # noqa: E731
    return cdiv(shape, cdiv(n, a)), (1 if stride > 0 else -1) * cdiv(a, n)


def coord(i, tile):
    out = []
    for s in tile:
        out.append(i % s)
        i //= s
    return out


def xor_all(vectors):
    acc = [0] * len(vectors[0]) if vectors else []
    for v in vectors:
        acc = [a ^ b for a, b in zip(acc, v)]
    return acc


def tv_bases(fn, T, V, tile):
    """Bases of (t, v) -> tile coordinate if XOR-linear at every (t, v), else None."""
    pow2 = lambda n: n > 0 and n & (n - 1) == 0  # noqa: E731
    if not (pow2(T) and pow2(V)):
        return None
    tb = [coord(fn(1 << i, 0), tile) for i in range(T.bit_length() - 1)]
    vb = [coord(fn(0, 1 << j), tile) for j in range(V.bit_length() - 1)]
    zero = [0] * len(tile)
    for t in range(T):
        for v in range(V):
            want = xor_all([zero] + [b for i, b in enumerate(tb) if t >> i & 1]
                           + [b for j, b in enumerate(vb) if v >> j & 1])
            if coord(fn(t, v), tile) != want:
                return None
    return {"thread": tb, "value": vb}


# ----------------------------------------------------------------------------- atoms
def L(shape, stride):
    return Layout(shape, stride)


MMA = {  # linlayout name: (layout, tile)
    "sm80_16x8x16.A": (L(((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128))), [16, 16]),
    "sm80_16x8x16.B": (L(((4, 8), (2, 2)), ((16, 1), (8, 64))), [8, 16]),
    "sm80_16x8x16.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm90_64x16.A": (L(((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512))), [64, 16]),
    "sm90_64x8.A": (L(((4, 8, 4), (2, 2)), ((64, 1, 16), (8, 256))), [64, 8]),  # ALayout_64x8
    "sm90_64x32.A": (L(((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024))), [64, 32]),
    # MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>, <SM80_16x8x32_S32S8S8S32_TN>, <SM80_8x8x4_F64…>
    "sm80_16x8x8_tf32.A": (L(((4, 8), (2, 2)), ((16, 1), (8, 64))), [16, 8]),
    "sm80_16x8x8_tf32.B": (L(((4, 8), 2), ((8, 1), 32)), [8, 8]),
    "sm80_16x8x8_tf32.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm80_16x8x32_s8.A": (L(((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256))), [16, 32]),
    "sm80_16x8x32_s8.B": (L(((4, 8), (4, 2)), ((32, 1), (8, 128))), [8, 32]),
    "sm80_16x8x32_s8.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm80_8x8x4_f64.A": (L(((4, 8), 1), ((8, 1), 0)), [8, 4]),  # SM80_8x4
    "sm80_8x8x4_f64.B": (L(((4, 8), 1), ((8, 1), 0)), [8, 4]),
    "sm80_8x8x4_f64.C": (L(((4, 8), 2), ((16, 1), 8)), [8, 8]),  # SM80_8x8_Row
}
MMA.update({  # mma_traits_sm75.hpp, mma_traits_sm89.hpp, mma_traits_sm120.hpp
    "sm75_16x8x8.A": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm75_16x8x8.B": (L(((4, 8), 2), ((16, 1), 8)), [8, 8]),
    "sm75_16x8x8.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm75_8x8x16_s8.A": (L(((4, 8), 4), ((32, 1), 8)), [8, 16]),
    "sm75_8x8x16_s8.B": (L(((4, 8), 4), ((32, 1), 8)), [8, 16]),
    "sm75_8x8x16_s8.C": (L(((4, 8), 2), ((16, 1), 8)), [8, 8]),
    "sm89_16x8x32_fp8.A": (L(((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256))), [16, 32]),
    "sm89_16x8x32_fp8.B": (L(((4, 8), (4, 2)), ((32, 1), (8, 128))), [8, 32]),
    "sm89_16x8x32_fp8.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm120_16x8x32_f8f6f4.A": (L(((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256))), [16, 32]),
    "sm120_16x8x32_f8f6f4.B": (L(((4, 8), (4, 2)), ((32, 1), (8, 128))), [8, 32]),
    "sm120_16x8x32_f8f6f4.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm120_16x8x64_mxf4.A": (L(((4, 8), (8, 2, 2)), ((128, 1), (16, 8, 512))), [16, 64]),
    "sm120_16x8x64_mxf4.B": (L(((4, 8), (8, 2)), ((64, 1), (8, 256))), [8, 64]),
    "sm120_16x8x64_mxf4.C": (L(((4, 8), (2, 2)), ((32, 1), (16, 8))), [16, 8]),
    "sm120_16x8x64_mxf4.SFA": (L(((2, 2, 8), 64), ((8, 0, 1), 16)), [16, 64]),
    "sm120_16x8x64_mxf4.SFB": (L(((4, 8), 64), ((0, 1), 8)), [8, 64]),
    # mma_traits_sm70.hpp: over the 8 logical threads of a quad pair (ThrID (4,2):(1,16))
    "sm70_8x8x4_tn.A": (L((8, 4), (1, 8)), [8, 4]),
    "sm70_8x8x4_tn.B": (L((8, 4), (1, 8)), [8, 4]),
    "sm70_8x8x4_tn.C": (L((8, 8), (1, 8)), [8, 8]),
    "sm70_8x8x4_nt.A": (L(((4, 2), 4), ((8, 4), 1)), [8, 4]),
    "sm70_8x8x4_nt.B": (L(((4, 2), 4), ((8, 4), 1)), [8, 4]),
    "sm70_8x8x4_f32.C": (L(((2, 2, 2), (2, 2, 2)), ((1, 16, 4), (8, 2, 32))), [8, 8]),
})
for _n in (8, 16, 32, 64, 128, 256):
    MMA[f"sm90_64x{_n}.C"] = (L(((4, 8, 4), (2, 2, _n // 8)), ((128, 1, 16), (64, 8, 512))),
                              [64, _n])

LDSM = {  # CUTLASS name: (SrcLayout, DstLayout, nmat), in bits (copy_traits_sm75.hpp)
    "SM75_U32x1_LDSM_N": (L(((8, 4), 128), ((128, 0), 1)), L((32, 32), (32, 1)), 1),
    "SM75_U32x2_LDSM_N": (L(((16, 2), 128), ((128, 0), 1)), L((32, (32, 2)), (32, (1, 1024))), 2),
    "SM75_U32x4_LDSM_N": (L((32, 128), (128, 1)), L((32, (32, 4)), (32, (1, 1024))), 4),
    "SM75_U16x2_LDSM_T": (L(((8, 4), 128), ((128, 0), 1)),
                          L(((4, 8), (16, 2)), ((256, 16), (1, 128))), 1),
    "SM75_U16x4_LDSM_T": (L(((16, 2), 128), ((128, 0), 1)),
                          L(((4, 8), (16, 2, 2)), ((256, 16), (1, 128, 1024))), 2),
    "SM75_U16x8_LDSM_T": (L((32, 128), (128, 1)),
                          L(((4, 8), (16, 2, 4)), ((256, 16), (1, 128, 1024))), 4),
}


def copy_atoms():
    """name -> (bit layout, tile in bits, accepted element widths)."""
    out = {}
    for name, (src, dst, nmat) in LDSM.items():
        widths = [16] if "U16" in name else [8, 16, 32]
        tile = [128, 8 * nmat]
        st = name.replace("SM75", "SM90").replace("LDSM", "STSM")
        out[f"{name.lower()}.src"] = (src, tile, widths)
        out[f"{name.lower()}.dst"] = (dst, tile, widths)
        out[f"{st.lower()}.src"] = (dst, tile, widths)  # copy_traits_sm90.hpp: swapped
        out[f"{st.lower()}.dst"] = (src, tile, widths)
    tmem = {  # copy_traits_sm100.hpp: SM100_TMEM_LOAD_*::DstLayout over ValID's (bits, dps)
        "32dp32b1x": (L((32, 32), (32, 1)), [32, 32]),
        "16dp32b1x": (L(((16, 2), 32), ((64, 32), 1)), [64, 16]),
        "16dp64b1x": (L(((2, 2, 8), 32), ((512, 32, 64), 1)), [64, 16]),
        "16dp128b1x": (L(((4, 8), (32, 2)), ((32, 128), (1, 1024))), [128, 16]),
        "16dp256b1x": (L(((4, 8), (64, 2)), ((64, 256), (1, 2048))), [256, 16]),
    }
    for suffix, (lay, tile) in tmem.items():
        out[f"sm100_tmem_{suffix}"] = (lay, tile, [32])
    for nbits in (32, 64, 128):  # Layout<Shape<_1,Int<N>>>: a static shape-1 mode has stride _0
        cp = L((1, nbits), (0, 1))
        widths = [b for b in (8, 16, 32, 64, 128) if b <= nbits]
        out[f"sm80_cp_async_u{nbits}.src"] = (cp, [nbits], widths)
        out[f"sm80_cp_async_u{nbits}.dst"] = (cp, [nbits], widths)
    return out


def atom_entry(name, lay, tile, bits):
    T, V = size(lay[0]), size(lay[1])
    return {"name": name, "element_bits": bits, "cute": cpp(lay), "pycute": str(lay),
            "tile": tile, "threads": T, "values": V,
            "bases": tv_bases(lambda t, v: lay(t, v), T, V, tile)}


def atoms():
    out = [atom_entry(n, lay, tile, None) for n, (lay, tile) in MMA.items()]
    for name, (lay, tile, widths) in copy_atoms().items():
        for e in widths:
            up = Layout(*upcast(e, lay.shape, lay.stride))
            out.append(atom_entry(name, up, [tile[0] // e] + tile[1:], e))
    return sorted(out, key=lambda a: (a["name"], a["element_bits"] or 0))


# ----------------------------------------------------------------------------- tiled copies
def tiled_tv(thr: Layout, val: Layout):
    """make_tiled_copy's (layout_mn, layout_tv): CUTLASS include/cute/atom/copy_atom.hpp."""
    R = max(len(thr), len(val))

    def append(lay):  # append<R>: pad with shape-1 modes
        sh = lay.shape if isinstance(lay.shape, tuple) else (lay.shape,)
        st = lay.stride if isinstance(lay.stride, tuple) else (lay.stride,)
        return Layout(sh + (1,) * (R - len(sh)), st + (0,) * (R - len(st)))

    res = logical_product(append(thr), append(val))  # raked_product: zip(get<1>, get<0>)
    a, b = res[0], res[1]
    mn = Layout(tuple((b.shape[d], a.shape[d]) for d in range(R)),
                tuple((b.stride[d], a.stride[d]) for d in range(R)))
    tv = composition(right_inverse(mn), Layout((size(thr), size(val))))
    tile = [size(mn[d]) for d in range(R)]
    return mn, tv, tile


TILED = [  # (thr_layout, val_layout, where)
    ((16, 8), (8, 1), (1, 8), (0, 1), "cp.async 128-bit, K-major f16 operand (SM80 GEMM configs)"),
    ((16, 8), (1, 16), (8, 1), (1, 0), "cp.async 128-bit, M-major f16 operand"),
    ((32, 4), (4, 1), (1, 8), (0, 1), "cp.async 128-bit, K-major f16, kblock 32"),
    ((32, 4), (4, 1), (1, 16), (0, 1), "cp.async 128-bit, int8 K-major"),
    ((8, 16), (16, 1), (1, 1), (0, 0), "cp.async 64-bit, double K-major"),
    ((16, 8), (1, 16), (2, 1), (1, 0), "cp.async 128-bit, double M-major"),
    ((4, 8), (1, 4), (2, 2), (1, 2), "a 2x2 value block per thread"),
]


def tiled_copies():
    out = []
    for ts, td, vs, vd, where in TILED:
        thr, val = Layout(ts, td), Layout(vs, vd)
        mn, tv, tile = tiled_tv(thr, val)
        T, V = size(thr), size(val)
        out.append({"thr": cpp(thr), "val": cpp(val), "where": where, "layout_tv": cpp(tv),
                    "tile": tile, "bases": tv_bases(lambda t, v: tv(t, v), T, V, tile)})
    return out


# ----------------------------------------------------------------------------- layouts
def verdict(offsets, shape_sizes):
    """memory_bases if the map is a linear bijection relative to its smallest offset."""
    n = len(offsets)
    if n & (n - 1):
        return None
    base = min(offsets)
    r = [o - base for o in offsets]
    if r[0] != 0 or sorted(r) != list(range(n)):
        return None
    k = n.bit_length() - 1
    cols = [r[1 << i] for i in range(k)]
    for i in range(n):
        acc = 0
        for b in range(k):
            if i >> b & 1:
                acc ^= cols[b]
        if acc != r[i]:
            return None
    where = {o: i for i, o in enumerate(r)}
    out = []
    for b in range(k):
        i = where[1 << b]
        c = []
        for s in shape_sizes:
            c.append(i % s)
            i //= s
        out.append(c)
    return out


def top_sizes(shape):
    if isinstance(shape, tuple):
        return [size(s) for s in shape]
    return [shape]


def layout_entry(text_cpp, text_py, fn, shape, note=""):
    n = 1
    for s in top_sizes(shape):
        n *= s
    offsets = [fn(i) for i in range(n)]
    return {"cute": text_cpp, "pycute": text_py, "note": note, "size": n, "offsets": offsets,
            "memory_bases": verdict(offsets, top_sizes(shape))}


GMMA = {  # include/cute/atom/mma_traits_sm90_gmma.hpp, in bits
    "MN_INTER": (0, L((128, 8), (1, 128))), "MN_SW32": (1, L((256, 8), (1, 256))),
    "MN_SW64": (2, L((512, 8), (1, 512))), "MN_SW128": (3, L((1024, 8), (1, 1024))),
    "K_INTER": (0, L((8, 128), (128, 1))), "K_SW32": (1, L((8, 256), (256, 1))),
    "K_SW64": (2, L((8, 512), (512, 1))), "K_SW128": (3, L((8, 1024), (1024, 1))),
}
SM80 = [  # (swizzle, layout, where)
    (Swizzle(3, 3, 3), L((8, (8, 8)), (8, (1, 64))), "sgemm_sm80.cu gemm_tn half_t"),
    (Swizzle(3, 3, 3), L((8, 64), (64, 1)), "DefaultGemm half_t K-major"),
    (Swizzle(3, 3, 3), L((64, 8), (1, 64)), "DefaultGemm half_t M-major"),
    (Swizzle(2, 3, 3), L((8, 32), (32, 1)), "DefaultGemm half_t K-major kblock 32"),
    (Swizzle(3, 2, 3), L((8, 32), (32, 1)), "DefaultGemm tfloat32_t K-major"),
    (Swizzle(2, 2, 3), L((8, 16), (16, 1)), "DefaultGemm tfloat32_t K-major kblock 16"),
    (Swizzle(3, 2, 3), L((32, 8), (1, 32)), "DefaultGemm tfloat32_t M-major"),
    (Swizzle(2, 4, 3), L((16, 64), (64, 1)), "DefaultGemm int8_t K-major"),
    (Swizzle(2, 0, 4), L((4, 16), (1, 4)), "DefaultGemm double K-major"),
    (Swizzle(2, 2, 2), L((16, 4), (1, 16)), "DefaultGemm double M/N-major"),
]


def smem_layouts():
    out = []
    for name, (B, lb) in GMMA.items():
        for bits in (8, 16, 32, 64):
            lay = Layout(*upcast(bits, lb.shape, lb.stride))
            sw = Swizzle(B, 4, 3)
            nbytes = bits // 8

            def fn(i, lay=lay, sw=sw, nbytes=nbytes):  # swizzle_ptr: the byte address
                b = sw(lay(i) * nbytes)
                assert b % nbytes == 0
                return b // nbytes

            text = f"Sw<{B},4,3> o smem_ptr[{bits}b](unset) o {cpp(lay)}"
            out.append(layout_entry(text, None, fn, lay.shape,
                                    f"GMMA::Layout_{name}_Atom<{bits}-bit>"))
    for sw, lay, where in SM80:
        c = ComposedLayout(sw, 0, lay)
        out.append(layout_entry(f"{cpp(sw)} o _0 o {cpp(lay)}", str(c), lambda i, c=c: c(i),
                                lay.shape, where))
    return out


def random_layout(rng: random.Random):
    """A random layout: bijective and linear by construction, then maybe perturbed."""
    rank = rng.choice([1, 2, 2, 3])
    nbits = rng.randint(0, 10)
    modes = [[] for _ in range(rank)]  # per mode: leaf bit counts
    for _ in range(nbits):
        m = modes[rng.randrange(rank)]
        if not m or rng.random() < 0.3:
            m.append(1)
        else:
            m[rng.randrange(len(m))] += 1
    for m in modes:
        if not m:
            m.append(0)
        elif rng.random() < 0.15:
            m.insert(rng.randrange(len(m) + 1), 0)
    leaves = [(k, j) for k, m in enumerate(modes) for j in range(len(m))]
    rng.shuffle(leaves)
    stride = {}
    pos = 0
    for k, j in leaves:
        b = modes[k][j]
        stride[(k, j)] = (1 << pos) if b else rng.choice([0, 1])
        pos += b
    shapes = {(k, j): 1 << modes[k][j] for k, j in leaves}
    kind = rng.choices(["ok", "shape3", "gap", "overlap", "zero", "stride3"],
                       [10, 1, 1, 1, 1, 1])[0]
    big = [kj for kj in leaves if shapes[kj] > 1]
    if kind == "shape3" and big:
        shapes[rng.choice(big)] = 3
    elif kind == "gap" and big:
        kj = rng.choice(big)
        stride[kj] *= 2
    elif kind == "overlap" and len(big) > 1:
        a, b = rng.sample(big, 2)
        stride[a] = stride[b]
    elif kind == "zero" and big:
        stride[rng.choice(big)] = 0
    elif kind == "stride3" and big:
        stride[rng.choice(big)] *= 3

    as_tuple = [len(m) > 1 or rng.random() < 0.3 for m in modes]

    def mode(k, src):
        m = tuple(src[(k, j)] for j in range(len(modes[k])))
        return m if as_tuple[k] else m[0]

    if rank == 1 and rng.random() < 0.5:  # the whole shape is one mode, e.g. _8:_1
        sh, st = mode(0, shapes), mode(0, stride)
    else:
        sh = tuple(mode(k, shapes) for k in range(rank))
        st = tuple(mode(k, stride) for k in range(rank))
    lay = Layout(sh, st)
    n = size(lay)
    swz, off = None, 0
    if rng.random() < 0.6:
        B = rng.randint(0, 3)
        S = rng.choice([1, -1]) * rng.randint(max(B, 1), max(B, 1) + 3)
        M = rng.randint(0, max(0, nbits - 1))
        swz = Swizzle(B, M, S)
        r = rng.random()
        if r < 0.15:
            off = n * rng.randint(1, 4)
        elif r < 0.25:
            off = rng.randint(1, max(1, n))
    return lay, swz, off, kind


def random_layouts(count=220, seed=20250616):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        lay, swz, off, kind = random_layout(rng)
        static = rng.random() < 0.7
        if swz is None:
            text = cpp(lay, static)
            py = str(lay)
            fn = lambda i, lay=lay: lay(i)  # noqa: E731
        else:
            c = ComposedLayout(swz, off, lay)
            offtext = f"_{off}" if static else str(off)
            text = f"{cpp(swz)} o {offtext} o {cpp(lay, static)}"
            py = str(c)
            fn = lambda i, c=c: c(i)  # noqa: E731
        out.append(layout_entry(text, py, fn, lay.shape, f"random ({kind})"))
    return out


# ----------------------------------------------------------------------------- main
def build() -> dict:
    return {
        "generator": "papers/cute_gluon/generate_cute_fixtures.py (pycute only; no linlayout)",
        "pycute_source": f"nvidia-cutlass {metadata.version('nvidia-cutlass')} wheel, module pycute",
        "atoms": atoms(),
        "tiled_copies": tiled_copies(),
        "layouts": smem_layouts() + random_layouts(),
    }


def dumps(data) -> str:
    """One JSON value per line for the big lists, so that diffs stay readable."""
    lines = ["{"]
    keys = list(data)
    for i, k in enumerate(keys):
        v = data[k]
        end = "," if i < len(keys) - 1 else ""
        if isinstance(v, list):
            lines.append(f"  {json.dumps(k)}: [")
            lines += [f"    {json.dumps(e, separators=(',', ':'))}"
                      + ("," if j < len(v) - 1 else "") for j, e in enumerate(v)]
            lines.append(f"  ]{end}")
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(fixture_file.main(build, dumps, OUT, ROOT, __doc__))
