"""Kernel templates of the held-out traffic set (``heldout.py``): Triton's tutorial kernels
at drawn sizes, warps and types, and random-layout load/store/atomic kernels.

Each template takes a ``random.Random`` and a target name and returns ``(body, signature,
constexprs, options)``, or None when the draw does not apply to the target: ``body`` is the
kernel's source after its ``def`` line (4-space indented, helpers allowed before it through
``HELPERS``), ``signature`` maps runtime argument names to Triton types (``*fp16``, ``i32``),
``constexprs`` maps constexpr names to values, ``options`` holds ``num_warps``/``num_stages``.
The templates are written from the tutorials' published structure (python/tutorials/ in the
Triton repository, 01 to 09), not copied.
"""

from __future__ import annotations

import random

PTR = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
       "bf16": "*bf16", "f32": "*fp32", "f64": "*fp64", "fp8": "*fp8e4nv"}
TL = {"i8": "tl.int8", "i16": "tl.int16", "i32": "tl.int32", "i64": "tl.int64",
      "f16": "tl.float16", "bf16": "tl.bfloat16", "f32": "tl.float32", "f64": "tl.float64"}
NVIDIA = ("cuda80", "cuda90", "cuda100")

#: Helper functions some bodies call (defined before the kernel in every generated file).
HELPERS = '''
@triton.jit
def _pid_grouped(tile_id, num_pid_in_group, num_pid_m, GROUP_M: tl.constexpr):
    group_id = tile_id // num_pid_in_group
    first_m = group_id * GROUP_M
    size_m = min(num_pid_m - first_m, GROUP_M)
    return first_m + (tile_id % size_m), (tile_id % num_pid_in_group) // size_m
'''


def _opts(rng: random.Random, warps=(1, 2, 4, 8), stages=(1, 2, 3)) -> dict:
    return {"num_warps": rng.choice(warps), "num_stages": rng.choice(stages)}


def vector_add(rng, target):
    ty = rng.choice(["f16", "bf16", "f32", "f64", "i8", "i32", "i64"])
    block = rng.choice([32, 64, 128, 256, 512, 1024, 2048, 4096])
    mask = rng.choice(["n", "n", "none"])
    m = ", mask=mask" if mask == "n" else ""
    body = ("pid = tl.program_id(axis=0)\n"
            "    offsets = pid * BLOCK + tl.arange(0, BLOCK)\n"
            "    mask = offsets < n\n"
            f"    x = tl.load(X + offsets{m})\n"
            f"    y = tl.load(Y + offsets{m})\n"
            f"    tl.store(Z + offsets, x + y{m})")
    return body, {"X": PTR[ty], "Y": PTR[ty], "Z": PTR[ty], "n": "i32"}, {"BLOCK": block}, \
        _opts(rng)


def dropout(rng, target):
    ty = rng.choice(["f16", "f32"])
    block = rng.choice([128, 256, 1024, 2048])
    body = ("pid = tl.program_id(axis=0)\n"
            "    offsets = pid * BLOCK + tl.arange(0, BLOCK)\n"
            "    mask = offsets < n\n"
            "    x = tl.load(X + offsets, mask=mask)\n"
            "    r = tl.rand(seed, offsets)\n"
            "    keep = r > p\n"
            "    out = tl.where(keep, x / (1 - p), 0.0)\n"
            "    tl.store(Y + offsets, out, mask=mask)")
    return body, {"X": PTR[ty], "Y": PTR[ty], "n": "i32", "p": "fp32", "seed": "i32"}, \
        {"BLOCK": block}, _opts(rng)


def softmax(rng, target):
    ty = rng.choice(["f16", "bf16", "f32"])
    block = rng.choice([64, 128, 256, 512, 1024, 2048, 4096])
    body = ("row_start = tl.program_id(0)\n"
            "    row_step = tl.num_programs(0)\n"
            "    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=STAGES):\n"
            "        row_ptr = X + row_idx * in_stride\n"
            "        cols = tl.arange(0, BLOCK)\n"
            "        mask = cols < n_cols\n"
            "        row = tl.load(row_ptr + cols, mask=mask, other=-float('inf'))\n"
            "        row = row.to(tl.float32)\n"
            "        row_minus_max = row - tl.max(row, axis=0)\n"
            "        num = tl.exp(row_minus_max)\n"
            "        out = num / tl.sum(num, axis=0)\n"
            "        tl.store(Y + row_idx * out_stride + cols, out.to(Y.dtype.element_ty),"
            " mask=mask)")
    return body, {"X": PTR[ty], "Y": PTR[ty], "in_stride": "i32", "out_stride": "i32",
                  "n_rows": "i32", "n_cols": "i32"}, \
        {"BLOCK": block, "STAGES": rng.choice([1, 2, 3])}, _opts(rng)


def layernorm_fwd(rng, target):
    ty = rng.choice(["f16", "bf16", "f32"])
    block = rng.choice([128, 256, 512, 1024, 2048])
    body = ("row = tl.program_id(0)\n"
            "    Y += row * stride\n"
            "    X += row * stride\n"
            "    _mean = tl.zeros([BLOCK], dtype=tl.float32)\n"
            "    for off in range(0, N, BLOCK):\n"
            "        cols = off + tl.arange(0, BLOCK)\n"
            "        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)\n"
            "        _mean += a\n"
            "    mean = tl.sum(_mean, axis=0) / N\n"
            "    _var = tl.zeros([BLOCK], dtype=tl.float32)\n"
            "    for off in range(0, N, BLOCK):\n"
            "        cols = off + tl.arange(0, BLOCK)\n"
            "        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)\n"
            "        x = tl.where(cols < N, x - mean, 0.)\n"
            "        _var += x * x\n"
            "    var = tl.sum(_var, axis=0) / N\n"
            "    rstd = 1 / tl.sqrt(var + eps)\n"
            "    tl.store(Mean + row, mean)\n"
            "    tl.store(Rstd + row, rstd)\n"
            "    for off in range(0, N, BLOCK):\n"
            "        cols = off + tl.arange(0, BLOCK)\n"
            "        mask = cols < N\n"
            "        w = tl.load(W + cols, mask=mask)\n"
            "        b = tl.load(B + cols, mask=mask)\n"
            "        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)\n"
            "        y = (x - mean) * rstd * w + b\n"
            "        tl.store(Y + cols, y, mask=mask)")
    return body, {"X": PTR[ty], "Y": PTR[ty], "W": PTR[ty], "B": PTR[ty], "Mean": "*fp32",
                  "Rstd": "*fp32", "stride": "i32", "N": "i32", "eps": "fp32"}, \
        {"BLOCK": block}, _opts(rng, stages=(1, 2))


def layernorm_bwd(rng, target):
    ty = rng.choice(["f16", "f32"])
    block = rng.choice([128, 256, 512, 1024])
    body = ("row = tl.program_id(0)\n"
            "    cols = tl.arange(0, BLOCK)\n"
            "    mask = cols < N\n"
            "    X += row * stride\n"
            "    DY += row * stride\n"
            "    DX += row * stride\n"
            "    lock_id = row % GROUP\n"
            "    Lock += lock_id\n"
            "    Count = Lock + GROUP\n"
            "    DW = DW + lock_id * N + cols\n"
            "    DB = DB + lock_id * N + cols\n"
            "    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)\n"
            "    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)\n"
            "    w = tl.load(W + cols, mask=mask).to(tl.float32)\n"
            "    mean = tl.load(Mean + row)\n"
            "    rstd = tl.load(Rstd + row)\n"
            "    xhat = tl.where(mask, (x - mean) * rstd, 0.)\n"
            "    wdy = tl.where(mask, w * dy, 0.)\n"
            "    c1 = tl.sum(xhat * wdy, axis=0) / N\n"
            "    c2 = tl.sum(wdy, axis=0) / N\n"
            "    dx = (wdy - (xhat * c1 + c2)) * rstd\n"
            "    tl.store(DX + cols, dx, mask=mask)\n"
            "    partial_dw = (dy * xhat).to(W.dtype.element_ty)\n"
            "    partial_db = dy.to(W.dtype.element_ty)\n"
            "    while tl.atomic_cas(Lock, 0, 1) == 1:\n"
            "        pass\n"
            "    count = tl.load(Count)\n"
            "    if count == 0:\n"
            "        tl.atomic_xchg(Count, 1)\n"
            "    else:\n"
            "        partial_dw += tl.load(DW, mask=mask)\n"
            "        partial_db += tl.load(DB, mask=mask)\n"
            "    tl.store(DW, partial_dw, mask=mask)\n"
            "    tl.store(DB, partial_db, mask=mask)\n"
            "    tl.debug_barrier()\n"
            "    tl.atomic_xchg(Lock, 0)")
    return body, {"DX": PTR[ty], "DY": PTR[ty], "DW": PTR[ty], "DB": PTR[ty], "X": PTR[ty],
                  "W": PTR[ty], "Mean": "*fp32", "Rstd": "*fp32", "Lock": "*i32",
                  "stride": "i32", "N": "i32"}, \
        {"GROUP": rng.choice([16, 32, 64]), "BLOCK": block}, _opts(rng, stages=(1,))


def _mm_types(rng, target):
    tys = ["f16", "f16", "bf16", "f32"]
    if target in ("cuda90", "cuda100"):
        tys.append("fp8")
    return rng.choice(tys)


def matmul(rng, target):
    ty = _mm_types(rng, target)
    out = "f16" if ty in ("f16", "fp8") else ty
    body = ("pid = tl.program_id(axis=0)\n"
            "    num_pid_m = tl.cdiv(M, BM)\n"
            "    num_pid_n = tl.cdiv(N, BN)\n"
            "    num_pid_in_group = GROUP_M * num_pid_n\n"
            "    pid_m, pid_n = _pid_grouped(pid, num_pid_in_group, num_pid_m, GROUP_M)\n"
            "    offs_am = (pid_m * BM + tl.arange(0, BM)) % M\n"
            "    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N\n"
            "    offs_k = tl.arange(0, BK)\n"
            "    a_ptrs = A + (offs_am[:, None] * sam + offs_k[None, :] * sak)\n"
            "    b_ptrs = B + (offs_k[:, None] * sbk + offs_bn[None, :] * sbn)\n"
            "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
            "    for k in range(0, tl.cdiv(K, BK)):\n"
            "        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)\n"
            "        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)\n"
            "        acc = tl.dot(a, b, acc)\n"
            "        a_ptrs += BK * sak\n"
            "        b_ptrs += BK * sbk\n"
            "    c = acc.to(C.dtype.element_ty)\n"
            "    offs_cm = pid_m * BM + tl.arange(0, BM)\n"
            "    offs_cn = pid_n * BN + tl.arange(0, BN)\n"
            "    c_ptrs = C + scm * offs_cm[:, None] + scn * offs_cn[None, :]\n"
            "    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))")
    sig = {"A": PTR[ty], "B": PTR[ty], "C": PTR[out], "M": "i32", "N": "i32", "K": "i32",
           "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32"}
    # the tutorial passes unit strides as 1 (Triton specialises an argument equal to 1)
    consts = {"BM": rng.choice([32, 64, 128]), "BN": rng.choice([32, 64, 128]),
              "BK": rng.choice([32, 64]), "GROUP_M": rng.choice([4, 8])}
    for s in ("sak", "sbn", "scn"):
        if rng.random() < 0.8:
            sig.pop(s)
            consts[s] = 1
    return body, sig, consts, _opts(rng, warps=(4, 8), stages=(2, 3, 4))


def matmul_persistent(rng, target):
    ty = rng.choice(["f16", "bf16"])
    body = ("start_pid = tl.program_id(axis=0)\n"
            "    num_pid_m = tl.cdiv(M, BM)\n"
            "    num_pid_n = tl.cdiv(N, BN)\n"
            "    k_tiles = tl.cdiv(K, BK)\n"
            "    num_tiles = num_pid_m * num_pid_n\n"
            "    num_pid_in_group = GROUP_M * num_pid_n\n"
            "    offs_k_for_mask = tl.arange(0, BK)\n"
            "    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS):\n"
            "        pid_m, pid_n = _pid_grouped(tile_id, num_pid_in_group, num_pid_m, GROUP_M)\n"
            "        start_m = pid_m * BM\n"
            "        start_n = pid_n * BN\n"
            "        offs_am = start_m + tl.arange(0, BM)\n"
            "        offs_bn = start_n + tl.arange(0, BN)\n"
            "        offs_am = tl.where(offs_am < M, offs_am, 0)\n"
            "        offs_bn = tl.where(offs_bn < N, offs_bn, 0)\n"
            "        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BM), BM)\n"
            "        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BN), BN)\n"
            "        acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
            "        for ki in range(k_tiles):\n"
            "            offs_k = ki * BK + tl.arange(0, BK)\n"
            "            a_ptrs = A + (offs_am[:, None] * sam + offs_k[None, :])\n"
            "            b_ptrs = B + (offs_k[:, None] + offs_bn[None, :] * sbn)\n"
            "            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BK,"
            " other=0.0)\n"
            "            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BK,"
            " other=0.0)\n"
            "            acc = tl.dot(a, b, acc)\n"
            "        offs_cm = pid_m * BM + tl.arange(0, BM)\n"
            "        offs_cn = pid_n * BN + tl.arange(0, BN)\n"
            "        c_ptrs = C + scm * offs_cm[:, None] + offs_cn[None, :]\n"
            "        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)\n"
            "        tl.store(c_ptrs, acc.to(C.dtype.element_ty), mask=c_mask)")
    sig = {"A": PTR[ty], "B": PTR[ty], "C": PTR[ty], "M": "i32", "N": "i32", "K": "i32",
           "sam": "i32", "sbn": "i32", "scm": "i32"}
    consts = {"BM": rng.choice([64, 128]), "BN": rng.choice([64, 128]),
              "BK": rng.choice([32, 64]), "GROUP_M": 8, "NUM_SMS": rng.choice([108, 132])}
    return body, sig, consts, _opts(rng, warps=(4, 8), stages=(2, 3))


def matmul_tma(rng, target):
    if target not in ("cuda90", "cuda100"):
        return None
    ty = rng.choice(["f16", "bf16", "fp8"])
    out = "f16" if ty in ("f16", "fp8") else ty
    body = ("start_pid = tl.program_id(axis=0)\n"
            "    num_pid_m = tl.cdiv(M, BM)\n"
            "    num_pid_n = tl.cdiv(N, BN)\n"
            "    k_tiles = tl.cdiv(K, BK)\n"
            "    num_tiles = num_pid_m * num_pid_n\n"
            "    a_desc = tl.make_tensor_descriptor(A, shape=[M, K], strides=[K, 1],"
            " block_shape=[BM, BK])\n"
            "    b_desc = tl.make_tensor_descriptor(B, shape=[N, K], strides=[K, 1],"
            " block_shape=[BN, BK])\n"
            "    c_desc = tl.make_tensor_descriptor(C, shape=[M, N], strides=[N, 1],"
            " block_shape=[BM, BN])\n"
            "    num_pid_in_group = GROUP_M * num_pid_n\n"
            "    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS):\n"
            "        pid_m, pid_n = _pid_grouped(tile_id, num_pid_in_group, num_pid_m, GROUP_M)\n"
            "        acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
            "        for ki in range(k_tiles):\n"
            "            a = a_desc.load([pid_m * BM, ki * BK])\n"
            "            b = b_desc.load([pid_n * BN, ki * BK])\n"
            "            acc = tl.dot(a, b.T, acc)\n"
            "        c_desc.store([pid_m * BM, pid_n * BN], acc.to(C.dtype.element_ty))")
    sig = {"A": PTR[ty], "B": PTR[ty], "C": PTR[out], "M": "i32", "N": "i32", "K": "i32"}
    consts = {"BM": 128, "BN": rng.choice([64, 128]), "BK": rng.choice([64, 128]),
              "GROUP_M": 8, "NUM_SMS": 132}
    return body, sig, consts, _opts(rng, warps=(4, 8), stages=(2, 3))


def attention(rng, target):
    ty = rng.choice(["f16", "bf16"])
    d = rng.choice([32, 64, 128])
    bm = rng.choice([32, 64, 128])
    bn = rng.choice([32, 64])
    causal = rng.random() < 0.4
    cmask = ("        if CAUSAL:\n"
             "            qk = tl.where(offs_m[:, None] >= (start_n + offs_n[None, :]), qk,"
             " -1.0e6)\n") if causal else ""
    body = ("start_m = tl.program_id(0)\n"
            "    off_hz = tl.program_id(1)\n"
            "    offs_m = start_m * BM + tl.arange(0, BM)\n"
            "    offs_n = tl.arange(0, BN)\n"
            "    offs_d = tl.arange(0, D)\n"
            "    base = off_hz.to(tl.int64) * sz\n"
            "    q = tl.load(Q + base + offs_m[:, None] * sqm + offs_d[None, :])\n"
            "    m_i = tl.zeros([BM], dtype=tl.float32) - float('inf')\n"
            "    l_i = tl.zeros([BM], dtype=tl.float32) + 1.0\n"
            "    acc = tl.zeros([BM, D], dtype=tl.float32)\n"
            "    qk_scale = sm_scale * 1.44269504\n"
            "    for start_n in range(0, N_CTX, BN):\n"
            "        start_n = tl.multiple_of(start_n, BN)\n"
            "        k = tl.load(Kp + base + (start_n + offs_n)[None, :] * skn + offs_d[:, None])\n"
            "        qk = tl.dot(q, k)\n"
            + cmask +
            "        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)\n"
            "        qk = qk * qk_scale - m_ij[:, None]\n"
            "        p = tl.math.exp2(qk)\n"
            "        l_ij = tl.sum(p, 1)\n"
            "        alpha = tl.math.exp2(m_i - m_ij)\n"
            "        l_i = l_i * alpha + l_ij\n"
            "        acc = acc * alpha[:, None]\n"
            "        v = tl.load(V + base + (start_n + offs_n)[:, None] * svn + offs_d[None, :])\n"
            "        acc = tl.dot(p.to(V.dtype.element_ty), v, acc)\n"
            "        m_i = m_ij\n"
            "    tl.store(M + off_hz * N_CTX + offs_m, m_i + tl.math.log2(l_i))\n"
            "    acc = acc / l_i[:, None]\n"
            "    tl.store(Out + base + offs_m[:, None] * som + offs_d[None, :],"
            " acc.to(Out.dtype.element_ty))")
    sig = {"Q": PTR[ty], "Kp": PTR[ty], "V": PTR[ty], "M": "*fp32", "Out": PTR[ty],
           "sm_scale": "fp32", "sz": "i32", "sqm": "i32", "skn": "i32", "svn": "i32",
           "som": "i32", "N_CTX": "i32"}
    return body, sig, {"BM": bm, "BN": bn, "D": d, "CAUSAL": causal}, \
        _opts(rng, warps=(4, 8), stages=(1, 2, 3))


def reduction(rng, target):
    ty = rng.choice(["f16", "f32", "i32", "i64", "i8", "bf16"])
    op = rng.choice(["tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.xor_sum"])
    if op == "tl.xor_sum" and ty in ("f16", "f32", "bf16"):
        op = "tl.sum"
    axis = rng.choice([0, 1])
    bm = rng.choice([1, 4, 16, 32, 64, 128])
    bn = rng.choice([16, 32, 64, 128, 256])
    out_ty = "i32" if op in ("tl.argmax", "tl.argmin") else ty
    body = ("pid = tl.program_id(0)\n"
            "    rm = pid * BM + tl.arange(0, BM)\n"
            "    rn = tl.arange(0, BN)\n"
            "    acc = tl.zeros((BM, BN), dtype=X.dtype.element_ty)\n"
            "    for start in range(0, n, BN):\n"
            "        cols = start + rn\n"
            "        x = tl.load(X + rm[:, None] * stride + cols[None, :],"
            " mask=(rm[:, None] < m) & (cols[None, :] < n), other=0)\n"
            "        acc += x\n"
            f"    r = {op}(acc, axis={axis})\n"
            f"    tl.store(Y + {'rm' if axis == 1 else 'rn'}, r.to(Y.dtype.element_ty))")
    return body, {"X": PTR[ty], "Y": PTR[out_ty], "stride": "i32", "m": "i32", "n": "i32"}, \
        {"BM": bm, "BN": bn}, _opts(rng)


def grouped_gemm(rng, target):
    ty = rng.choice(["f16", "bf16"])
    body = ("tile_idx = tl.program_id(0)\n"
            "    last = 0\n"
            "    for g in range(group_size):\n"
            "        gm = tl.load(sizes + g * 3)\n"
            "        gn = tl.load(sizes + g * 3 + 1)\n"
            "        gk = tl.load(sizes + g * 3 + 2)\n"
            "        num_m = tl.cdiv(gm, BM)\n"
            "        num_n = tl.cdiv(gn, BN)\n"
            "        num_tiles = num_m * num_n\n"
            "        while tile_idx >= last and tile_idx < last + num_tiles:\n"
            "            lda = tl.load(ld + g * 3)\n"
            "            ldb = tl.load(ld + g * 3 + 1)\n"
            "            ldc = tl.load(ld + g * 3 + 2)\n"
            "            a_ptr = tl.load(a_ptrs + g).to(tl.pointer_type(ELT))\n"
            "            b_ptr = tl.load(b_ptrs + g).to(tl.pointer_type(ELT))\n"
            "            c_ptr = tl.load(c_ptrs + g).to(tl.pointer_type(ELT))\n"
            "            t = tile_idx - last\n"
            "            tm = t // num_n\n"
            "            tn = t % num_n\n"
            "            offs_am = tm * BM + tl.arange(0, BM)\n"
            "            offs_bn = tn * BN + tl.arange(0, BN)\n"
            "            offs_k = tl.arange(0, BK)\n"
            "            a_p = a_ptr + offs_am[:, None] * lda + offs_k[None, :]\n"
            "            b_p = b_ptr + offs_k[:, None] * ldb + offs_bn[None, :]\n"
            "            acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
            "            for kk in range(0, tl.cdiv(gk, BK)):\n"
            "                tl.multiple_of(a_p, [16, 16])\n"
            "                tl.multiple_of(b_p, [16, 16])\n"
            "                a = tl.load(a_p)\n"
            "                b = tl.load(b_p)\n"
            "                acc += tl.dot(a, b)\n"
            "                a_p += BK\n"
            "                b_p += BK * ldb\n"
            "            c = acc.to(ELT)\n"
            "            offs_cm = tm * BM + tl.arange(0, BM)\n"
            "            offs_cn = tn * BN + tl.arange(0, BN)\n"
            "            tl.store(c_ptr + ldc * offs_cm[:, None] + offs_cn[None, :], c)\n"
            "            tile_idx += NUM_SM\n"
            "        last = last + num_tiles")
    sig = {"a_ptrs": "*i64", "b_ptrs": "*i64", "c_ptrs": "*i64", "sizes": "*i32",
           "ld": "*i32", "group_size": "i32"}
    return body, sig, {"BM": rng.choice([64, 128]), "BN": rng.choice([64, 128]),
                       "BK": rng.choice([32, 64]), "NUM_SM": 84,
                       "ELT": f"tl.{'float16' if ty == 'f16' else 'bfloat16'}"}, \
        _opts(rng, warps=(4, 8), stages=(2, 3))


# ------------------------------------------------------------------------ random layouts
def _index(rng, name: str, size: int, dim: int, rank: int) -> str:
    """``tl.arange`` along ``dim`` of a rank-``rank`` tile, maybe hinted or widened."""
    r = f"tl.arange(0, {size})"
    if rng.random() < 0.3:
        r = f"(tl.program_id({dim % 2}) * {size} + {r})"
    h = rng.random()
    if h < 0.12:
        r = f"tl.max_contiguous(tl.multiple_of({r}, {rng.choice([2, 4, 8, size])}), " \
            f"{rng.choice([2, 4, 8, size])})"
    elif h < 0.2:
        r = f"tl.multiple_of({r}, {rng.choice([2, 4, 16])})"
    if rng.random() < 0.15:
        r = f"{r}.to(tl.int64)"
    if rank == 1:
        return r
    sl = ", ".join(":" if d == dim else "None" for d in range(rank))
    return f"{r}[{sl}]"


def _address(rng, idx: list[str], shape: list[int], consts: dict, sig: dict, tag: str
             ) -> str:
    """``Σ idx_d · stride_d`` with strides drawn per dim: 1 on one dim (or none), constants,
    runtime arguments (maybe 16-divisible), 0 (a broadcast dim)."""
    rank = len(shape)
    fast = rng.randrange(rank) if rng.random() < 0.85 else None
    terms = []
    running = 1
    order = list(range(rank))
    if fast is not None:
        order.remove(fast)
        order.insert(0, fast)
    for d in order:
        if d == fast:
            terms.append(idx[d])
            running = shape[d]
            continue
        kind = rng.random()
        if kind < 0.35:
            s = running * rng.choice([1, 1, 2])
            terms.append(f"{idx[d]} * {s}")
            running = s * shape[d]
        elif kind < 0.6:
            arg = f"s{tag}{d}"
            sig[arg] = "i32"
            terms.append(f"{idx[d]} * {arg}")
        elif kind < 0.8:
            s = rng.choice([3, 5, 17, 33, 65, 129, 2, 4, 48])
            terms.append(f"{idx[d]} * {s}")
        elif kind < 0.9 and rank > 1:
            terms.append(f"{idx[d]} * 0")
        else:
            s = rng.choice([1, 2, 8])
            terms.append(f"{idx[d]} * {s}")
    if rng.random() < 0.2:
        terms.append(str(rng.choice([1, 2, 3, 4, 8, 16, 64])))
    return " + ".join(terms)


def _mask(rng, idx: list[str], consts: dict, sig: dict) -> str:
    k = rng.random()
    rank = len(idx)
    if k < 0.45:
        return ""
    if k < 0.65:
        d = rng.randrange(rank)
        sig.setdefault("n", "i32")
        return f"{idx[d]} < n"
    if k < 0.75:
        d = rng.randrange(rank)
        return f"{idx[d]} < {rng.choice([3, 7, 16, 100, 1000])}"
    if k < 0.85 and rank > 1:
        sig.setdefault("n", "i32")
        sig.setdefault("m", "i32")
        return f"({idx[0]} < m) & ({idx[1]} < n)"
    d = rng.randrange(rank)
    return f"({idx[d]} % {rng.choice([4, 8, 64])}) < {rng.choice([2, 4, 32])}"


def random_layout(rng, target):
    ty = rng.choice(["i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"])
    rank = rng.choice([1, 2, 2, 2, 3])
    budget = rng.choice([64, 256, 1024, 4096])
    shape = []
    for d in range(rank):
        left = budget // max(1, (1 if not shape else eval("*".join(map(str, shape)))))
        shape.append(rng.choice([s for s in (1, 2, 4, 8, 16, 32, 64, 128, 256) if s <= left]
                                or [1]))
    sig = {"X": PTR[ty], "Y": PTR[ty]}
    consts: dict = {}
    idx = [_index(rng, f"r{d}", shape[d], d, rank) for d in range(rank)]
    lines = [f"i{d} = {e}" for d, e in enumerate(idx)]
    names = [f"i{d}" for d in range(rank)]
    src = _address(rng, names, shape, consts, sig, "x")
    dst = _address(rng, names, shape, consts, sig, "y")
    if rng.random() < 0.15:
        lines.append(f"ox = ({src}).to(tl.int64)")
        src = "ox"
    mask = _mask(rng, names, consts, sig)
    m = f", mask={mask}" if mask else ""
    other = ", other=0" if mask and rng.random() < 0.5 else ""
    lines.append(f"x = tl.load(X + {src}{m}{other})")
    kind = rng.random()
    if kind < 0.6:
        lines.append(f"tl.store(Y + {dst}, x{m})")
    else:
        op = rng.choice(["add", "max", "xchg", "add", "min", "cas"])
        if ty in ("i8", "i16", "bf16", "f64") and op in ("max", "min", "xchg", "cas"):
            return None
        if ty in ("i8", "i16"):
            return None
        used = rng.random() < 0.4
        sem = rng.choice(["", "", ", sem='relaxed'", ", sem='release'", ", sem='acquire'"])
        if op == "cas":
            call = f"tl.atomic_cas(Y + {dst}, x, x + 1{sem})"
        else:
            call = f"tl.atomic_{op}(Y + {dst}, x{m}{sem})"
        if used:
            lines.append(f"old = {call}")
            lines.append(f"tl.store(X + {src}, old{m})")
        else:
            lines.append(call)
    body = "\n    ".join(lines)
    return body, sig, consts, _opts(rng, warps=(1, 2, 4, 8, 4))


#: (template, weight) of the set.
TEMPLATES = [(vector_add, 2), (dropout, 1), (softmax, 2), (layernorm_fwd, 2),
             (layernorm_bwd, 1), (matmul, 3), (matmul_persistent, 1), (matmul_tma, 1),
             (attention, 2), (reduction, 3), (grouped_gemm, 1), (random_layout, 14)]
