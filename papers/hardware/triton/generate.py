"""Compile real Triton 3.9 kernels for sm_90a and record what ``linlayout check`` predicts.

Each kernel is one CTA whose shared-memory traffic is static (constexpr shapes, no loops), so
the whole kernel's shared-memory wavefronts are a number ``linlayout check`` predicts and Nsight
Compute counts (``run.py`` on the GPU machine, ``compare.py`` here). For every kernel this
writes ``kernels/<name>.cubin`` and ``kernels/<name>.ttgir`` and an entry of ``cases.json``:

* ``kernel`` (the CUDA function name), ``num_warps``, ``threads``, ``shared_bytes``
  (``compiled.metadata.shared``: the dynamic shared memory to launch with), ``grid`` (1, 1, 1);
* ``params``: the ``.entry`` parameter list of the PTX in order — the kernel's non-constexpr
  arguments, then the two pointers Triton 3.9's launcher appends (``global_scratch``,
  ``profile_scratch``: ``CudaLauncher.__call__`` in ``triton/backends/nvidia/driver.py``) —
  each with its PTX type, bytes, and the buffer ``run.py`` should pass;
* ``predicted``: from ``linlayout check --json``: per shared-memory instruction of each op, the
  PTX instruction, ``per_thread`` (instructions each warp issues) and ``wavefronts_per_warp``;
  the whole kernel = sum of ``wavefronts_per_warp`` × the warps executing it (``num_warps``,
  or check's ``warps_executing`` for a load ptxas sinks below the stores' early exit) split
  into loads
  (``ld.shared``, ``ldmatrix``) and stores (``st.shared``, ``stmatrix``), and the instructions
  likewise; ``complete`` (check counted everything it found);
* ``ptx_counts``: the shared-memory instructions in the PTX (static count; the kernels have no
  loops) beside check's per-thread counts, so the prediction is about instructions that exist;
  ``sass_counts``: the same for the cubin's SASS (``LDS``/``STS``/``LDSM``/``STSM``, read with
  the ``cuobjdump`` Triton ships), which is what the GPU runs. Both are compared by access
  (bytes per lane, or the matrix shape), not spelling: ``ld.shared.v4.b16`` = ``LDS.64``.

Run with Triton 3.9 (CPU only, no GPU needed), from the repository root::

    PYTHONPATH=. /tmp/triton-venv/bin/python papers/hardware/triton/generate.py
    PYTHONPATH=. /tmp/triton-venv/bin/python papers/hardware/triton/generate.py --repredict

(``--repredict``: the stored cases predicted again by this checkout's check, nothing
compiled.)

A kernel for which check is incomplete (it names instructions it cannot count, e.g. the
reloads of ``tt.scan``) is kept with ``"usable": false`` and its flags: ``run.py`` measures it
for the record, ``compare.py`` does not judge it. The script exits 1 when a kernel fails to
compile or when the PTX does not hold the instructions check names.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
from gluon_kernels import blocked_lists, smem_kernel  # noqa: E402
TARGET = GPUTarget("cuda", 90, 32)


# ---------------------------------------------------------------------------- tl kernels
@triton.jit
def k_trans(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rn[:, None] * BM + rm[None, :], tl.trans(x))


@triton.jit
def k_sum0(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rn, tl.sum(x, axis=0))


@triton.jit
def k_max1(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm, tl.max(x, axis=1))


@triton.jit
def k_argmin0(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rn, tl.argmin(x, axis=0))


@triton.jit
def k_softmax(X, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(Y + r, (e / tl.sum(e, axis=0)).to(Y.dtype.element_ty))


@triton.jit
def k_layernorm(X, W, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r).to(tl.float32)
    mean = tl.sum(x, axis=0) / BLOCK
    d = x - mean
    var = tl.sum(d * d, axis=0) / BLOCK
    y = d / tl.sqrt(var + 1e-5) * tl.load(W + r).to(tl.float32)
    tl.store(Y + r, y.to(Y.dtype.element_ty))


@triton.jit
def k_cumsum0(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm[:, None] * BN + rn[None, :], tl.cumsum(x, axis=0))


@triton.jit
def k_cumsum1d(X, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(Y + r, tl.cumsum(tl.load(X + r), axis=0))


@triton.jit
def k_dot(A, B, C, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = tl.load(A + rm[:, None] * BK + rk[None, :])
    b = tl.load(B + rk[:, None] * BN + rn[None, :])
    tl.store(C + rm[:, None] * BN + rn[None, :], tl.dot(a, b))


@triton.jit
def k_permute3(X, Y, D0: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr):
    i = tl.arange(0, D0)[:, None, None]
    j = tl.arange(0, D1)[None, :, None]
    k = tl.arange(0, D2)[None, None, :]
    x = tl.load(X + i * D1 * D2 + j * D2 + k)
    y = tl.permute(x, (2, 0, 1))
    a = tl.arange(0, D2)[:, None, None]
    b = tl.arange(0, D0)[None, :, None]
    c = tl.arange(0, D1)[None, None, :]
    tl.store(Y + a * D0 * D1 + b * D1 + c, y)


@triton.jit
def k_join_trans(X, Z, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    z = tl.load(Z + rm[:, None] * BN + rn[None, :])
    j = tl.join(x, z)                                   # [BM, BN, 2]
    t = tl.permute(j, (1, 0, 2))                        # [BN, BM, 2]
    a, b = tl.split(t)
    tl.store(Y + rn[:, None] * BM + rm[None, :], a + b)


@triton.jit
def k_maxmin1(X, Y, Z, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm, tl.max(x, axis=1))
    tl.store(Z + rm, tl.min(x, axis=1))


# ---------------------------------------------------------------------------- Gluon kernels
@gluon.jit
def g_convert(X, Y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, DST: gl.constexpr):
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(X + rm[:, None] * N + rn[None, :])
    y = gl.convert_layout(x, DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(Y + dm[:, None] * N + dn[None, :], y)


#: store a tile into a shared-memory buffer and load it back (the kernel shared with
#: papers/triton_lowering/ldmatrix_trans_rows.py)
g_smem = smem_kernel()


# ---------------------------------------------------------------------------- catalogue
TY = {"f32": "*fp32", "f16": "*fp16", "bf16": "*bf16", "i8": "*i8", "i32": "*i32"}


def blocked(spt, tpw, wpc, order):
    """A Gluon ``BlockedLayout`` from its four lists."""
    return gl.BlockedLayout(size_per_thread=spt, threads_per_warp=tpw, warps_per_cta=wpc,
                            order=order)


def random_blocked(rng: random.Random, m: int, n: int, warps: int) -> gl.BlockedLayout:
    """A random blocked layout of an m×n tile (powers of two, fits the tile;
    ``gluon_kernels.blocked_lists``)."""
    return blocked(*blocked_lists(rng, m, n, warps))


def catalogue() -> list[dict]:
    """Every kernel: name, source factory, num_warps, and the element type of each pointer."""
    cases = []

    def tl_case(name, fn, ptrs, const, warps, note):
        cases.append({"name": name, "fn": fn, "ptrs": ptrs, "const": const, "warps": warps,
                      "frontend": "tl", "note": note})

    def gl_case(name, fn, ptrs, const, warps, note):
        cases.append({"name": name, "fn": fn, "ptrs": ptrs, "const": const, "warps": warps,
                      "frontend": "gluon", "note": note})

    tl_case("tk_trans_f32_w4", k_trans, ["f32", "f32"], {"BM": 64, "BN": 64}, 4,
            "tl.trans of a 64x64 fp32 tile")
    tl_case("tk_trans_f16_w4", k_trans, ["f16", "f16"], {"BM": 64, "BN": 64}, 4,
            "tl.trans of a 64x64 fp16 tile")
    tl_case("tk_trans_i8_w4", k_trans, ["i8", "i8"], {"BM": 64, "BN": 128}, 4,
            "tl.trans of a 64x128 int8 tile")
    tl_case("tk_trans_bf16_w8", k_trans, ["bf16", "bf16"], {"BM": 128, "BN": 64}, 8,
            "tl.trans of a 128x64 bf16 tile, 8 warps")
    tl_case("tk_trans_f32_w1", k_trans, ["f32", "f32"], {"BM": 32, "BN": 32}, 1,
            "tl.trans of a 32x32 fp32 tile, 1 warp")
    tl_case("tk_sum0_f32_w4", k_sum0, ["f32", "f32"], {"BM": 128, "BN": 64}, 4,
            "tl.sum over axis 0 of 128x64 fp32")
    tl_case("tk_sum0_i8_w8", k_sum0, ["i8", "i32"], {"BM": 64, "BN": 128}, 8,
            "tl.sum over axis 0 of 64x128 int8")
    tl_case("tk_max1_f16_w8", k_max1, ["f16", "f16"], {"BM": 16, "BN": 1024}, 8,
            "tl.max over axis 1 of 16x1024 fp16")
    tl_case("tk_argmin0_f32_w4", k_argmin0, ["f32", "i32"], {"BM": 64, "BN": 64}, 4,
            "tl.argmin over axis 0 of 64x64 fp32")
    tl_case("tk_softmax_f32_w4", k_softmax, ["f32", "f32"], {"BLOCK": 1024}, 4,
            "softmax of one 1024-element fp32 row")
    tl_case("tk_layernorm_f16_w8", k_layernorm, ["f16", "f16", "f16"], {"BLOCK": 2048}, 8,
            "layernorm of one 2048-element fp16 row")
    tl_case("tk_cumsum0_f32_w4", k_cumsum0, ["f32", "f32"], {"BM": 128, "BN": 32}, 4,
            "tl.cumsum over axis 0 of 128x32 fp32")
    tl_case("tk_cumsum1d_i32_w4", k_cumsum1d, ["i32", "i32"], {"BLOCK": 1024}, 4,
            "tl.cumsum of 1024 int32")
    tl_case("tk_dot_f16_w1", k_dot, ["f16", "f16", "f32"], {"BM": 32, "BN": 32, "BK": 32}, 1,
            "tl.dot 32x32x32 fp16 (mma.sync: 1 warp is no warpgroup), operands via ldmatrix")
    tl_case("tk_dot_bf16_w2", k_dot, ["bf16", "bf16", "f32"], {"BM": 64, "BN": 32, "BK": 32}, 2,
            "tl.dot 64x32x32 bf16 on 2 warps (mma.sync)")
    tl_case("tk_dot_i8_w1", k_dot, ["i8", "i8", "i32"], {"BM": 32, "BN": 32, "BK": 64}, 1,
            "tl.dot 32x32x64 int8 on 1 warp (mma.sync)")
    tl_case("tk_permute3_f16_w4", k_permute3, ["f16", "f16"], {"D0": 8, "D1": 16, "D2": 32}, 4,
            "tl.permute (2, 0, 1) of an 8x16x32 fp16 tensor")
    tl_case("tk_jointrans_f32_w4", k_join_trans, ["f32", "f32", "f32"], {"BM": 32, "BN": 64}, 4,
            "tl.join, permute, tl.split of two 32x64 fp32 tiles")

    rng = random.Random(20261127)
    for i, (bits, m, n, warps) in enumerate([("f32", 32, 64, 4), ("f16", 64, 64, 4),
                                              ("i8", 64, 128, 8), ("bf16", 32, 32, 1),
                                              ("f16", 128, 64, 8), ("f32", 16, 128, 2)]):
        while True:
            src, dst = random_blocked(rng, m, n, warps), random_blocked(rng, m, n, warps)
            if src != dst:
                break
        gl_case(f"tg_convert{i}_{bits}_w{warps}", g_convert, [bits, bits],
                {"M": m, "N": n, "SRC": src, "DST": dst}, warps,
                f"gl.convert_layout {m}x{n} {bits} between random blocked layouts")

    row = blocked([1, 8], [4, 8], [4, 1], [1, 0])
    col = blocked([8, 1], [8, 4], [1, 4], [0, 1])
    row32 = blocked([1, 4], [4, 8], [4, 1], [1, 0])
    col32 = blocked([4, 1], [8, 4], [1, 4], [0, 1])
    rows16 = blocked([1, 8], [32, 1], [1, 4], [1, 0])
    smem = [
        ("tg_smem_plain_f16_w4", "f16", row, gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), col,
         "row-major unswizzled fp16 buffer read by columns"),
        ("tg_smem_swz_f16_w4", "f16", row, gl.SwizzledSharedLayout(8, 1, 8, [1, 0]), col,
         "swizzled (vec 8, maxPhase 8) fp16 buffer read by columns"),
        ("tg_smem_plainrows_f16_w4", "f16", row, gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
         rows16, "row-major unswizzled fp16 buffer, 16-byte row pieces, lanes down a column"),
        ("tg_smem_swzrows_f16_w4", "f16", row, gl.SwizzledSharedLayout(8, 1, 8, [1, 0]),
         rows16, "swizzled (vec 8, maxPhase 8) fp16 buffer, 16-byte row pieces, lanes down a "
         "column"),
        ("tg_smem_nvmma128_f16_w4", "f16", row, gl.NVMMASharedLayout(128, 16, 2), col,
         "NVMMA 128-byte swizzle fp16 buffer read by columns"),
        ("tg_smem_nvmma64_f32_w4", "f32", row32, gl.NVMMASharedLayout(64, 32, 2), col32,
         "NVMMA 64-byte swizzle fp32 buffer read by columns"),
        ("tg_smem_padded_f32_w4", "f32", row32,
         gl.PaddedSharedLayout.with_identity_for([[64, 4]], [64, 64], [1, 0]), col32,
         "fp32 buffer padded by 4 elements per 64-element row, read by columns"),
    ]
    for name, bits, src, layout, dst, note in smem:
        gl_case(name, g_smem, [bits, bits],
                {"M": 64, "N": 64, "SRC": src, "SMEM": layout, "DST": dst}, 4,
                "gl.allocate_shared_memory: " + note)

    # Drawn after check learned that ptxas sinks a convert's ld.shared below the early exit
    # of the stores ending the kernel (check/shared_memory/sunk_loads.py): reductions whose
    # result is stored from a layout whose warps hold copies, and converts to such layouts.
    rng = random.Random(20261128)
    for i in range(6):
        bits = rng.choice(["f32", "f16", "bf16"])
        warps = rng.choice([2, 4, 8])
        bm = rng.choice([4, 8, 16, 32])
        bn = rng.choice([256, 512, 1024])
        if i % 2:
            tl_case(f"tk_sink{i}_maxmin_{bits}_w{warps}", k_maxmin1, [bits, bits, bits],
                    {"BM": bm, "BN": bn}, warps,
                    f"tl.max then tl.min over axis 1 of {bm}x{bn} {bits}, each stored")
        else:
            tl_case(f"tk_sink{i}_max_{bits}_w{warps}", k_max1, [bits, bits],
                    {"BM": bm, "BN": bn}, warps, f"tl.max over axis 1 of {bm}x{bn} {bits}")
    for i in range(3):
        bits = rng.choice(["f32", "f16", "i8"])
        warps = rng.choice([4, 8])
        m, n = rng.choice([4, 8]), rng.choice([64, 128])
        src = random_blocked(rng, m, n, warps)
        t0 = rng.choice([4, 8])
        dst = blocked([1, rng.choice([1, 2, 4])], [t0, 32 // t0], [warps, 1], [1, 0])
        gl_case(f"tg_sink{i}_{bits}_w{warps}", g_convert, [bits, bits],
                {"M": m, "N": n, "SRC": src, "DST": dst}, warps,
                f"gl.convert_layout {m}x{n} {bits} to a layout whose warps hold copies")

    # Drawn after the rule was narrowed to a store of one instruction per thread (the three
    # tg_sink kernels above stored 2-8 per thread and ran their loads in every warp):
    # converts and shared-buffer loads to layouts whose warps hold copies, stored with one
    # or several instructions per thread, and reductions.
    rng = random.Random(20261129)
    for i in range(10):
        kind = rng.choice(["convert", "convert", "smem", "max"])
        bits = rng.choice(["f32", "f16", "bf16", "i8"])
        warps = rng.choice([2, 4, 8])
        if kind == "max":
            bm, bn = rng.choice([2, 4, 8, 16]), rng.choice([128, 256, 512])
            tl_case(f"tk_sinkb{i}_max_{bits}_w{warps}", k_max1, [bits, bits],
                    {"BM": bm, "BN": bn}, warps, f"tl.max over axis 1 of {bm}x{bn} {bits}")
            continue
        m, n = rng.choice([2, 4, 8]), rng.choice([32, 64, 128])
        n = max(n, 32 * warps // m)  # the source layout holds no copies (random_blocked)
        src = random_blocked(rng, m, n, warps)
        t0 = rng.choice([1, 2, 4, 8])
        spt = rng.choice([1, 2, 4, 8]) if n >= 8 * (32 // t0) else 1
        dst = blocked([1, spt], [t0, 32 // t0], [warps, 1], [1, 0])
        if kind == "convert":
            gl_case(f"tg_sinkb{i}_cvt_{bits}_w{warps}", g_convert, [bits, bits],
                    {"M": m, "N": n, "SRC": src, "DST": dst}, warps,
                    f"gl.convert_layout {m}x{n} {bits} to a layout whose warps hold copies")
        else:
            gl_case(f"tg_sinkb{i}_smem_{bits}_w{warps}", g_smem, [bits, bits],
                    {"M": m, "N": n, "SRC": src, "SMEM": gl.SwizzledSharedLayout(1, 1, 1, [1, 0]),
                     "DST": dst}, warps,
                    f"a {m}x{n} {bits} shared buffer loaded in a layout whose warps hold copies")

    # A third draw, after the H100 runs: random converts, swizzled buffers, reductions and
    # transposes, to test check as a whole on kernels no rule was written from.
    rng = random.Random(20261130)
    shapes = [(32, 64), (64, 64), (16, 128), (64, 32), (128, 32), (32, 32)]
    for i in range(16):
        bits = rng.choice(["f32", "f16", "bf16", "i8"])
        warps = rng.choice([1, 2, 4, 8])
        m, n = rng.choice(shapes)
        while m * n < 32 * warps:
            m, n = rng.choice(shapes)
        if i < 8:
            src, dst = random_blocked(rng, m, n, warps), random_blocked(rng, m, n, warps)
            gl_case(f"tr{i}_cvt_{bits}_w{warps}", g_convert, [bits, bits],
                    {"M": m, "N": n, "SRC": src, "DST": dst}, warps,
                    f"gl.convert_layout {m}x{n} {bits} between random blocked layouts")
        elif i < 12:
            src, dst = random_blocked(rng, m, n, warps), random_blocked(rng, m, n, warps)
            vec = rng.choice([1, 2, 4, 8])
            per_phase = rng.choice([1, 2, 4])
            max_phase = rng.choice([1, 2, 4, 8])
            smem = gl.SwizzledSharedLayout(vec, per_phase, max_phase, rng.choice([[1, 0], [0, 1]]))
            gl_case(f"tr{i}_smem_{bits}_w{warps}", g_smem, [bits, bits],
                    {"M": m, "N": n, "SRC": src, "SMEM": smem, "DST": dst}, warps,
                    f"a {m}x{n} {bits} swizzled buffer (vec {vec}, perPhase {per_phase}, "
                    f"maxPhase {max_phase}) between random blocked layouts")
        else:
            fn, what = rng.choice([(k_sum0, "tl.sum over axis 0"), (k_max1, "tl.max over axis 1"),
                                   (k_trans, "tl.trans")])
            out = "i32" if fn is k_sum0 and bits == "i8" else bits
            tl_case(f"tr{i}_{fn.__name__}_{bits}_w{warps}", fn, [bits, out],
                    {"BM": m, "BN": n}, warps, f"{what} of {m}x{n} {bits}")
    return cases


# ---------------------------------------------------------------------------- compile
PARAM_RE = re.compile(r"\.param\s+\.(\w+)(?:\s+\.ptr[^\n,]*?)?\s+(\w+)\s*[,)\n]")
SHARED_OPS = {"load": re.compile(r"^\s*(?:@!?%p\d+\s+)?(ld\.shared|ldmatrix)\S*", re.M),
              "store": re.compile(r"^\s*(?:@!?%p\d+\s+)?(st\.shared|stmatrix)\S*", re.M)}


def entry_params(ptx: str, kernel: str) -> list[dict]:
    """The ``.entry`` parameters of ``kernel`` in the PTX, in order (type, name, bytes)."""
    m = re.search(r"\.entry\s+" + re.escape(kernel) + r"\s*\((.*?)\)", ptx, re.S)
    if m is None:
        raise ValueError(f"no .entry {kernel} in the PTX")
    out = []
    for decl in m.group(1).split(","):
        decl = decl.strip()
        if not decl:
            continue
        words = decl.split()
        ty = next(w for w in words[1:] if w.startswith(".") and w not in (".ptr", ".global")
                  and not w.startswith(".align"))
        out.append({"ptx_type": ty[1:], "name": words[-1], "bytes": int(re.sub(r"\D", "", ty)) // 8})
    return out


def ptx_shared_counts(ptx: str) -> dict:
    """Static counts of shared-memory instructions in the PTX, by side and opcode."""
    counts: dict = {"load": {}, "store": {}}
    for side, rx in SHARED_OPS.items():
        for mm in rx.finditer(ptx):
            op = re.match(r"\s*(?:@!?%p\d+\s+)?(\S+)", mm.group(0)).group(1)
            counts[side][op] = counts[side].get(op, 0) + 1
    return counts


def side_of(ptx_instr: str) -> str | None:
    """``load`` for ``ld.shared*``/``ldmatrix*``, ``store`` for ``st.shared*``/``stmatrix*``,
    else None (a shuffle, a ``cp.async`` …)."""
    if ptx_instr.startswith(("ld.shared", "ldmatrix")):
        return "load"
    if ptx_instr.startswith(("st.shared", "stmatrix")):
        return "store"
    return None


def run_check(ttgir: Path) -> dict:
    """``linlayout check --json`` on one TTGIR file (this checkout's linlayout); raises
    RuntimeError when check fails to run (exit status other than 0 or 1)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.run([sys.executable, "-m", "linlayout", "check", "--json", str(ttgir)],
                       capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, check=False)
    if p.returncode not in (0, 1):
        raise RuntimeError(f"linlayout check exited {p.returncode}: {p.stderr[-800:]}")
    return json.loads(p.stdout)


def predict(check: dict, warps: int) -> dict:
    """Whole-kernel prediction from ``check --json``: wavefronts_per_warp × the warps that
    execute it (``warps_executing`` where check gives it — a load ptxas sinks under the
    predicate of the stores ending the kernel — else every warp) per shared-memory
    instruction entry, summed by side."""
    f = check["files"][0]
    instrs = []
    other = []
    for op in f["ops"]:
        for ins in op.get("instructions", []):
            if ins.get("space") != "shared":
                continue
            side = side_of(ins.get("ptx") or "")
            entry = {"line": op.get("line"), "op": op.get("op"), "kind": op.get("kind"),
                     "side": side or ins.get("side"), "ptx": ins.get("ptx"),
                     "per_thread": ins.get("per_thread"), "degree": ins.get("degree"),
                     "wavefronts_per_warp": ins.get("wavefronts_per_warp"),
                     "warps": ins.get("warps_executing", warps),
                     "may_sink": ins.get("may_sink"),
                     "status": op.get("status")}
            (instrs if side else other).append(entry)
    tot = {"load": 0, "store": 0}
    n = {"load": 0, "store": 0}
    sunk = {"wavefronts": 0, "instructions": 0}  # the change if ptxas sinks may_sink loads
    missing = []
    for e in instrs:
        if e["wavefronts_per_warp"] is None or e["per_thread"] is None:
            missing.append(e)
            continue
        tot[e["side"]] += e["wavefronts_per_warp"] * e["warps"]
        n[e["side"]] += e["per_thread"] * e["warps"]
        may = e.get("may_sink")
        if may:
            each = e["wavefronts_per_warp"] // e["per_thread"]
            sunk["wavefronts"] += (may["wavefronts_per_warp"] * may["warps_executing"]
                                   - each * may["per_thread"] * e["warps"])
            sunk["instructions"] += may["per_thread"] * (may["warps_executing"] - e["warps"])
    alt = None
    if sunk["wavefronts"] or sunk["instructions"]:
        alt = {"wavefronts_load": tot["load"] + sunk["wavefronts"],
               "instructions_load": n["load"] + sunk["instructions"]}
    return {"instructions": instrs, "other_shared": other,
            "wavefronts_load": tot["load"], "wavefronts_store": tot["store"],
            "wavefronts_total": tot["load"] + tot["store"],
            "instructions_load": n["load"], "instructions_store": n["store"],
            "if_loads_sink": alt,
            "complete": bool(check.get("complete")) and not missing and not other,
            "check_complete": check.get("complete"), "not_counted": check.get("not_counted"),
            "not_analysed": check.get("not_analysed"), "uncounted_entries": missing}


def canonical(op: str) -> str:
    """An instruction's access, not its spelling: ``ld.shared.v4.b16`` and
    ``ld.shared.v2.b32`` are both ``ld.shared 8B`` (the bytes per lane decide the wavefronts,
    PTX ISA §9.7.9.8); ``::cta`` is dropped; ``ldmatrix``/``stmatrix`` keep shape and
    ``.trans``."""
    op = op.replace("::cta", "")
    if op.startswith(("ldmatrix", "stmatrix")):
        return ".".join(w for w in op.split(".") if w in ("ldmatrix", "stmatrix", "x1", "x2",
                                                           "x4", "trans"))
    m = re.match(r"(ld|st)\.shared(?:\.v(\d+))?\.[a-z]+(\d+)$", op)
    if m is None:
        return op
    return f"{m.group(1)}.shared {int(m.group(2) or 1) * int(m.group(3)) // 8}B"


SASS_OP = re.compile(r"\b(LDSM|STSM|LDS|STS)((?:\.[A-Z0-9]+)*)\s")
SASS_BYTES = {"": 4, ".U8": 1, ".S8": 1, ".U16": 2, ".S16": 2, ".64": 8, ".128": 16}


def sass_shared_counts(cubin: Path) -> dict | None:
    """Static counts of ``LDS``/``STS``/``LDSM``/``STSM`` in the cubin's SASS (``cuobjdump
    -sass``, shipped in Triton's ``backends/nvidia/bin``), by side and :func:`canonical`
    access; None when cuobjdump is not there."""
    tool = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    if not tool.is_file():
        return None
    p = subprocess.run([str(tool), "-sass", str(cubin)], capture_output=True, text=True,
                       timeout=120, check=False)
    if p.returncode:
        return None
    counts: dict = {"load": {}, "store": {}}
    for m in SASS_OP.finditer(p.stdout):
        op, mods = m.group(1), m.group(2)
        side = "load" if op.startswith("LD") else "store"
        if op in ("LDSM", "STSM"):
            n = mods.rsplit(".", 1)[-1] if mods.count(".") >= 3 else "1"
            key = ("ldmatrix" if op == "LDSM" else "stmatrix") + f".x{n}" + \
                (".trans" if ".MT88" in mods else "")
        else:
            if mods not in SASS_BYTES:
                key = op + mods
            else:
                key = f"{op[:2].lower()}.shared {SASS_BYTES[mods]}B"
        counts[side][key] = counts[side].get(key, 0) + 1
    return counts


def check_vs_ptx(pred: dict, counts: dict) -> list[str]:
    """Disagreements between check's per-thread instruction counts and the PTX's static ones,
    compared by :func:`canonical` access."""
    want: dict = {"load": {}, "store": {}}
    have: dict = {"load": {}, "store": {}}
    for e in pred["instructions"]:
        k = canonical(e["ptx"])
        want[e["side"]][k] = want[e["side"]].get(k, 0) + (e["per_thread"] or 0)
    for side in ("load", "store"):
        for op, n in counts[side].items():
            have[side][canonical(op)] = have[side].get(canonical(op), 0) + n
    bad = []
    for side in ("load", "store"):
        if want[side] != have[side]:
            bad.append(f"{side}: check {want[side]} vs PTX {have[side]}")
    return bad


def compile_one(c: dict) -> tuple[dict, object]:
    """Compile one catalogue entry for sm_90a with ``num_stages=1``: (signature, compiled
    kernel). Every pointer argument gets ``tt.divisibility = 16``."""
    fn = c["fn"]
    arg_names = fn.arg_names
    sig = {}
    ptr_iter = iter(c["ptrs"])
    for a in arg_names:
        sig[a] = "constexpr" if a in c["const"] else TY[next(ptr_iter)]
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(arg_names)
             if sig[a] != "constexpr"}
    cls = GluonASTSource if c["frontend"] == "gluon" else ASTSource
    src = cls(fn=fn, signature=sig, constexprs=dict(c["const"]), attrs=attrs)
    opts = {"num_warps": c["warps"], "num_stages": 1}
    ck = triton.compile(src, target=TARGET, options=opts)
    return sig, ck


def flags_of(pred: dict, mismatch: list[str], sass_mismatch: list[str] | None) -> list[str]:
    """Why a case is not judged: check incomplete, or its instructions differ from the PTX's
    or the SASS's."""
    flag = []
    if not pred["complete"]:
        flag.append("check incomplete")
    if mismatch:
        flag.append("PTX differs from check: " + "; ".join(mismatch))
    if sass_mismatch:
        flag.append("SASS differs from check: " + "; ".join(sass_mismatch))
    return flag


def repredict() -> int:
    """Predict every case of ``cases.json`` again from its stored TTGIR with this checkout's
    ``check`` (no compilation: the cubins, PTX and SASS counts stay as compiled), and rewrite
    ``cases.json``. Returns 1 when a case's instructions no longer match its PTX or SASS."""
    path = HERE / "cases.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    bad = 0
    for entry in doc["cases"]:
        pred = predict(run_check(HERE / entry["ttgir"]), entry["num_warps"])
        mismatch = check_vs_ptx(pred, entry["ptx_counts"])
        sass = entry.get("sass_counts")
        sass_mismatch = None if sass is None else check_vs_ptx(pred, sass)
        entry.update(predicted=pred, ptx_matches_check=not mismatch, ptx_mismatch=mismatch,
                     sass_matches_check=None if sass is None else not sass_mismatch,
                     sass_mismatch=sass_mismatch)
        entry["flags"] = flags_of(pred, mismatch, sass_mismatch)
        entry["usable"] = not entry["flags"]
        bad += bool(mismatch or sass_mismatch)
        print(f"{entry['name']:28s} wavefronts ld {pred['wavefronts_load']:6d} st "
              f"{pred['wavefronts_store']:6d}  instr ld {pred['instructions_load']:5d} st "
              f"{pred['instructions_store']:5d}")
    doc["prediction"] = PREDICTION
    doc["problems"] = [f"{e['name']}: " + "; ".join(e["ptx_mismatch"]) for e in doc["cases"]
                       if e["ptx_mismatch"]]
    path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return 1 if bad else 0


PREDICTION = ("per shared-memory instruction entry of linlayout check --json: "
              "wavefronts_per_warp x the warps executing it (warps_executing, else "
              "num_warps), summed by side (load: ld.shared, ldmatrix; store: st.shared, "
              "stmatrix); if_loads_sink: the loads when ptxas sinks the entries' may_sink "
              "loads below the store's early exit")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*", default=None,
                    help="compile only these cases, keeping the others of cases.json")
    ap.add_argument("--repredict", action="store_true",
                    help="predict the stored cases again from their TTGIR (no compiling)")
    args = ap.parse_args(argv)
    if args.repredict:
        return repredict()
    kdir = HERE / "kernels"
    kdir.mkdir(exist_ok=True)
    out_cases = []
    problems = []
    for c in catalogue():
        if args.only and c["name"] not in args.only:
            continue
        try:
            sig, ck = compile_one(c)
        except Exception as e:  # noqa: BLE001 - report and go on
            problems.append(f"{c['name']}: does not compile: {type(e).__name__}: {str(e)[:300]}")
            continue
        md = ck.metadata
        kernel = md.name
        ptx = ck.asm["ptx"]
        (kdir / f"{c['name']}.cubin").write_bytes(ck.asm["cubin"])
        ttgir_path = kdir / f"{c['name']}.ttgir"
        ttgir_path.write_text(ck.asm["ttgir"], encoding="utf-8")
        params = entry_params(ptx, kernel)
        user = [a for a in c["fn"].arg_names if sig[a] != "constexpr"]
        if len(params) != len(user) + 2:
            problems.append(f"{c['name']}: PTX has {len(params)} params, expected "
                            f"{len(user)} + 2 scratch")
            continue
        for i, p in enumerate(params):
            if i < len(user):
                p.update(role="tensor", arg=user[i], dtype=sig[user[i]].lstrip("*"))
            else:
                which = ("global_scratch", "profile_scratch")[i - len(user)]
                size = getattr(md, which + "_size")
                p.update(role=which, arg=which, scratch_bytes=size)
        check = run_check(ttgir_path)
        pred = predict(check, c["warps"])
        counts = ptx_shared_counts(ptx)
        mismatch = check_vs_ptx(pred, counts)
        sass = sass_shared_counts(kdir / f"{c['name']}.cubin")
        sass_mismatch = None if sass is None else check_vs_ptx(pred, sass)
        entry = {"name": c["name"], "kernel": kernel, "note": c["note"],
                 "frontend": c["frontend"], "num_warps": c["warps"],
                 "threads": 32 * c["warps"], "shared_bytes": md.shared, "grid": [1, 1, 1],
                 "cubin": f"kernels/{c['name']}.cubin", "ttgir": f"kernels/{c['name']}.ttgir",
                 "params": params, "predicted": pred, "ptx_counts": counts,
                 "ptx_matches_check": not mismatch, "ptx_mismatch": mismatch,
                 "sass_counts": sass,
                 "sass_matches_check": None if sass is None else not sass_mismatch,
                 "sass_mismatch": sass_mismatch}
        flag = flags_of(pred, mismatch, sass_mismatch)
        if mismatch:
            problems.append(f"{c['name']}: " + "; ".join(mismatch))
        entry["usable"] = not flag
        entry["flags"] = flag
        out_cases.append(entry)
        print(f"{c['name']:28s} warps {c['warps']} smem {md.shared:6d}  wavefronts ld "
              f"{pred['wavefronts_load']:6d} st {pred['wavefronts_store']:6d}  instr ld "
              f"{pred['instructions_load']:5d} st {pred['instructions_store']:5d}"
              f"{'  ' + '; '.join(flag) if flag else ''}", flush=True)
    if args.only and (HERE / "cases.json").is_file():
        # keep the cases not compiled this time, in catalogue order
        kept = {e["name"]: e for e in json.loads((HERE / "cases.json").read_text())["cases"]}
        kept.update({e["name"]: e for e in out_cases})
        order = [c["name"] for c in catalogue()]
        out_cases = [kept[n] for n in order if n in kept]
    doc = {"triton_version": triton.__version__, "target": "cuda:90 (sm_90a)",
           "prediction": PREDICTION,
           "cases": out_cases, "problems": problems}
    (HERE / "cases.json").write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"{len(out_cases)} kernels written, {sum(e['usable'] for e in out_cases)} usable "
          f"(the others flagged); {len(problems)} problem(s)")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
