#!/usr/bin/env python
"""Global-memory probes: Triton 3.9.0's ``ld.global``/``st.global``/``cp.async``/atomics and
AMD ``global_load``/``global_store`` per kernel, against ``linlayout check``'s prediction.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ptxas is skipped)::

    python papers/global_memory/probes.py          # writes tests/data/triton_global_probes.json.gz
    python papers/global_memory/probes.py --check  # compare with the fixture, write nothing

Set ``design`` (seed 25) was compared while the rules were written; set ``check`` (seed 26)
was generated afterwards and only compared. Set ``tutorial`` (seed 27) adds tutorial-style
kernels (softmax, layer norm, row/column reductions, the tutorial's grouped matmul with
``tl.dot``, attention with two dots) and the targets ``cuda:100`` and ``hip:gfx950``; compared
first with no rule changed, it found two classes, fixed in ``check`` before the fixture was
written: a scalar ``tt.store`` (one access per thread), and a ``cp.async`` whose destination
(a transposed ``nvmma_shared`` f32 operand) cuts AxisInfo's vector. Each probe is a small ``tl`` kernel generated from a template with parameters drawn with a
fixed seed: 1-D element-wise copies with an offset scale and shift (``tl.arange(0, B) * S +
C``), masks (``offs < n``, a constexpr bound, ``offs % M < K``), ``tl.multiple_of`` /
``tl.max_contiguous`` hints, cache modifiers and eviction policies, ``other=0``, ``volatile``;
offsets through ``//``, ``%``, ``<<``, ``>>``, ``^``, ``&``, ``tl.where``, ``tl.minimum`` and an
``int64`` cast; arguments specialised as 16-divisible or not; 2-D tiles with row
and column strides (arguments or constants; row- and column-major), masked on both dims;
loops walking a pointer (``ptrs += BK``); a matmul loop pipelined with ``num_stages=3`` (so
``cp.async`` on sm_80/sm_90); ``tl.atomic_add`` with the result used or not; i8/i16/i32/i64,
f16/f32/f64; 1 to 8 warps; ``cuda:80``, ``cuda:90`` and ``hip:gfx942`` (``tutorial``: also
``cuda:100`` and ``hip:gfx950``).

The fixture keeps per probe the TTGIR (``loc`` removed) and the static count of every global
instruction: on NVIDIA from the PTX (Triton emits ``ld.global``/``st.global``/``cp.async`` as
inline assembly, which LLVM does not merge), on AMD from Triton's LLVM IR *before* LLVM's
optimiser (each ``load``/``store`` on ``addrspace(1)`` named by its bytes as the backend
selects it; the final AMDGCN, where LLVM merges and splits, is counted beside it for
reference). Runtime loops keep static counts equal to per-thread counts of one iteration.

The comparison is :func:`predicted` (``linlayout check``'s global rows) against the counts;
the script exits 1 on any mismatch.
"""

from __future__ import annotations

import collections
import importlib.util
import os
import pathlib
import random
import re
import sys
import tempfile

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
OUT = ROOT / "tests" / "data" / "triton_global_probes.json.gz"
#: ``design`` was compiled and compared while the rules were written and fixed; ``check`` was
#: generated afterwards and only compared; ``tutorial`` (tutorial-style kernels and two more
#: targets) was added later still, with no rule changed before it was compared.
SEEDS = {"design": 25, "check": 26, "tutorial": 27}
PROBES = 160

PTX_GLOBAL = re.compile(r"\b((?:ld|st)(?:\.volatile)?\.global[\w.:]*|"
                        r"cp\.async\.c[ag]\.shared\.global|(?:atom|red)\.global)")
AMD_GLOBAL = re.compile(r"\b((?:global|buffer)_(?:load|store|atomic)_\w+)")
_LL_BYTES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8,
             "double": 8}
DTYPES = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
          "f32": "*fp32", "f64": "*fp64"}


def _ll_bytes(ty: str) -> int:
    m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    if m:
        return int(m.group(1)) * _LL_BYTES[m.group(2)]
    return _LL_BYTES[ty]


def amd_preopt_counts(ll: str) -> dict:
    """Global loads/stores of AMD LLVM IR before -O3, named as the backend selects them."""
    from linlayout.check.global_memory.predict import amd_global_name

    out: collections.Counter = collections.Counter()
    for line in ll.splitlines():
        m = re.search(r"= load (?:volatile )?(<\d+ x \w+>|\w+), ptr addrspace\(1\)", line)
        if m:
            out[amd_global_name("load", _ll_bytes(m.group(1)))] += 1
            continue
        m = re.search(r"\bstore (?:volatile )?(<\d+ x \w+>|\w+) [^,]+, ptr addrspace\(1\)",
                      line)
        if m:
            out[amd_global_name("store", _ll_bytes(m.group(1)))] += 1
            continue
        m = re.search(r"@llvm\.amdgcn\.raw\.ptr\.buffer\.(load|store)\.(v\d+)?([if]\d+)", line)
        if m and "declare" not in line:
            n = int(m.group(2)[1:]) if m.group(2) else 1
            nbytes = n * int(m.group(3)[1:]) // 8
            out[amd_global_name(m.group(1), nbytes, buffer=True)] += 1
            continue
        if re.search(r"atomicrmw .* ptr addrspace\(1\)", line) or \
                re.search(r"cmpxchg .*ptr addrspace\(1\)", line):
            out["global_atomic"] += 1
        elif re.search(r"call .*@llvm\.amdgcn\.raw\.ptr\.buffer\.atomic\.", line):
            out["buffer_atomic"] += 1
    return dict(sorted(out.items()))


def ptx_counts(ptx: str) -> dict:
    """Static global instructions of a PTX file (atomics by family)."""
    return dict(sorted(collections.Counter(PTX_GLOBAL.findall(ptx)).items()))


# ------------------------------------------------------------------------ kernel templates
def _elementwise(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(list(DTYPES))
    block = rng.choice([64, 128, 256, 512, 1024, 2048])
    scale = rng.choice([1, 1, 1, 2])
    shift = rng.choice([0, 0, 1, 2, 4, 8, 16])
    mask = rng.choice(["", "", "offs < n", "offs < NC", "(offs % M) < K"])
    hint = rng.choice(["", "", "mc", "mo"])
    lines = ["pid = tl.program_id(0)",
             f"offs = pid * BLOCK + tl.arange(0, BLOCK) * {scale} + {shift}"]
    if hint == "mc":
        lines.append("offs = tl.max_contiguous(tl.multiple_of(offs, 8), 8)")
    elif hint == "mo":
        lines.append("offs = tl.multiple_of(offs, 4)")
    m = f", mask={mask}" if mask else ""
    lm = m + (", other=0" if mask and rng.random() < 0.5 else "")
    lm += rng.choice(["", "", "", ", cache_modifier='.cg'", ", cache_modifier='.ca'",
                      ", cache_modifier='.cs'", ", eviction_policy='evict_last'",
                      ", volatile=True"])
    sm = m + rng.choice(["", "", "", ", cache_modifier='.cg'", ", cache_modifier='.cs'",
                         ", cache_modifier='.wt'"])
    lines.append(f"x = tl.load(X + offs{lm})")
    lines.append(f"tl.store(Y + offs, x + 1{sm})")
    consts = {"BLOCK": block, "NC": rng.choice([100, 1000, 4096]), "M": rng.choice([8, 64]),
              "K": rng.choice([4, 32])}
    return "\n    ".join(lines), {"X": DTYPES[ty], "Y": DTYPES[ty], "n": "i32"}, consts


def _tile2d(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(list(DTYPES))
    bm = rng.choice([16, 32, 64, 128])
    bn = rng.choice([16, 32, 64, 128])
    col = rng.random() < 0.3
    masked = rng.random() < 0.5
    if col:
        addr = "rm[:, None] + rn[None, :] * stride"
    else:
        addr = "rm[:, None] * stride + rn[None, :]"
    m = ", mask=(rm[:, None] < M) & (rn[None, :] < N)" if masked else ""
    body = (f"rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
            f"    rn = tl.arange(0, BN)\n"
            f"    x = tl.load(X + {addr}{m})\n"
            f"    tl.store(Y + rm[:, None] * BN + rn[None, :], x{m})")
    return body, {"X": DTYPES[ty], "Y": DTYPES[ty], "M": "i32", "N": "i32", "stride": "i32"}, \
        {"BM": bm, "BN": bn}


def _loop(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f16", "f32", "i32", "f64"])
    block = rng.choice([128, 256, 512, 1024])
    step = rng.choice([block, block * 2, block + 1])
    body = ("offs = tl.arange(0, BLOCK)\n"
            "    ptrs = X + offs\n"
            "    acc = tl.zeros((BLOCK,), dtype=tl.float32)\n"
            "    for k in range(0, n, STEP):\n"
            "        acc += tl.load(ptrs).to(tl.float32)\n"
            "        ptrs += STEP\n"
            "    tl.store(Y + offs, acc.to(Y.dtype.element_ty))")
    return body, {"X": DTYPES[ty], "Y": DTYPES[ty], "n": "i32"}, {"BLOCK": block, "STEP": step}


def _matmul(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f16", "f16", "f32", "i8"])
    bm = rng.choice([32, 64, 128])
    bn = rng.choice([32, 64, 128])
    bk = rng.choice([32, 64])
    masked = rng.random() < 0.5
    ma = ", mask=rk[None, :] < K - k, other=0" if masked else ""
    mb = ", mask=rk[:, None] < K - k, other=0" if masked else ""
    acc = "tl.int32" if ty == "i8" else "tl.float32"
    body = (f"rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
            f"    rn = tl.arange(0, BN)\n"
            f"    rk = tl.arange(0, BK)\n"
            f"    a_ptrs = A + rm[:, None] * sa + rk[None, :]\n"
            f"    b_ptrs = B + rk[:, None] * sb + rn[None, :]\n"
            f"    acc = tl.zeros((BM, BN), dtype={acc})\n"
            f"    for k in range(0, K, BK):\n"
            f"        a = tl.load(a_ptrs{ma})\n"
            f"        b = tl.load(b_ptrs{mb})\n"
            f"        acc += tl.dot(a, b)\n"
            f"        a_ptrs += BK\n"
            f"        b_ptrs += BK * sb\n"
            f"    tl.store(C + rm[:, None] * BN + rn[None, :], acc)")
    out = "*fp32" if ty != "i8" else "*i32"
    return body, {"A": DTYPES[ty], "B": DTYPES[ty], "C": out, "K": "i32", "sa": "i32",
                  "sb": "i32"}, {"BM": bm, "BN": bn, "BK": bk}


def _atomic(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f32", "i32"])
    block = rng.choice([128, 256, 1024])
    used = rng.random() < 0.5
    body = ("offs = tl.arange(0, BLOCK)\n"
            "    v = tl.load(X + offs)\n"
            + ("    old = tl.atomic_add(Y + offs, v)\n    tl.store(X + offs, old)"
               if used else "    tl.atomic_add(Y + offs, v)"))
    return body, {"X": DTYPES[ty], "Y": DTYPES[ty]}, {"BLOCK": block}


ARITH = ["r // 2", "(r % 64) + (r // 64) * 128", "tl.where(r < BLOCK // 2, r, r + 8)",
         "(r * 2) >> 1", "r.to(tl.int64)", "r << 1", "r ^ 1", "r - 4", "r * 1", "(r + 4) % 32",
         "tl.minimum(r, 100)", "r & 7", "(r // 8) * 8 + 7 - r % 8", "r + 2 * (r // 16)"]


def _arith(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(list(DTYPES))
    block = rng.choice([128, 256, 1024])
    expr = rng.choice(ARITH)
    body = ("r = tl.arange(0, BLOCK)\n"
            f"    offs = tl.program_id(0) * BLOCK + {expr}\n"
            "    x = tl.load(X + offs)\n"
            "    tl.store(Y + tl.program_id(0) * BLOCK + r, x)")
    return body, {"X": DTYPES[ty], "Y": DTYPES[ty]}, {"BLOCK": block}


def _softmax(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f16", "f32"])
    body = ("row = tl.program_id(0)\n"
            "    cols = tl.arange(0, BN)\n"
            "    mask = cols < n\n"
            "    x = tl.load(X + row * stride + cols, mask=mask, other=-float('inf'))\n"
            "    x = x.to(tl.float32)\n"
            "    x = x - tl.max(x, axis=0)\n"
            "    num = tl.exp(x)\n"
            "    y = num / tl.sum(num, axis=0)\n"
            "    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)")
    return body, {"X": DTYPES[ty], "Y": DTYPES[ty], "stride": "i32", "n": "i32"}, \
        {"BN": rng.choice([64, 128, 256, 1024, 4096])}


def _layernorm(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f16", "f32"])
    body = ("row = tl.program_id(0)\n"
            "    cols = tl.arange(0, BN)\n"
            "    mask = cols < n\n"
            "    x = tl.load(X + row * stride + cols, mask=mask, other=0.).to(tl.float32)\n"
            "    mean = tl.sum(x, axis=0) / n\n"
            "    xc = tl.where(mask, x - mean, 0.)\n"
            "    var = tl.sum(xc * xc, axis=0) / n\n"
            "    rstd = 1 / tl.sqrt(var + 1e-5)\n"
            "    w = tl.load(W + cols, mask=mask)\n"
            "    b = tl.load(B + cols, mask=mask)\n"
            "    y = xc * rstd * w + b\n"
            "    tl.store(Y + row * stride + cols, y.to(Y.dtype.element_ty), mask=mask)\n"
            "    tl.store(R + row, rstd)")
    return body, {"X": DTYPES[ty], "W": DTYPES[ty], "B": DTYPES[ty], "Y": DTYPES[ty],
                  "R": "*fp32", "stride": "i32", "n": "i32"}, \
        {"BN": rng.choice([128, 256, 1024, 2048])}


def _reduction(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f16", "f32", "i32"])
    axis = rng.choice([0, 1])
    op = rng.choice(["tl.sum", "tl.max", "tl.min"])
    body = (f"rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
            f"    rn = tl.arange(0, BN)\n"
            f"    x = tl.load(X + rm[:, None] * stride + rn[None, :])\n"
            f"    s = {op}(x, axis={axis})\n"
            f"    tl.store(Y + {'rm' if axis == 1 else 'rn'}, s)")
    return body, {"X": DTYPES[ty], "Y": DTYPES[ty], "stride": "i32"}, \
        {"BM": rng.choice([16, 32, 64, 128]), "BN": rng.choice([16, 32, 64, 128])}


def _tutorial_matmul(rng: random.Random) -> tuple[str, dict, dict]:
    ty = rng.choice(["f16", "f16", "f32"])
    body = ("pid_m = tl.program_id(0)\n"
            "    pid_n = tl.program_id(1)\n"
            "    offs_am = (pid_m * BM + tl.arange(0, BM)) % M\n"
            "    offs_bn = (pid_n * BN + tl.arange(0, BN)) % N\n"
            "    offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BM), BM)\n"
            "    offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BN), BN)\n"
            "    offs_k = tl.arange(0, BK)\n"
            "    a_ptrs = A + offs_am[:, None] * sam + offs_k[None, :]\n"
            "    b_ptrs = B + offs_k[:, None] * sbk + offs_bn[None, :]\n"
            "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
            "    for k in range(0, tl.cdiv(K, BK)):\n"
            "        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)\n"
            "        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)\n"
            "        acc = tl.dot(a, b, acc)\n"
            "        a_ptrs += BK\n"
            "        b_ptrs += BK * sbk\n"
            "    c = acc.to(C.dtype.element_ty)\n"
            "    offs_cm = pid_m * BM + tl.arange(0, BM)\n"
            "    offs_cn = pid_n * BN + tl.arange(0, BN)\n"
            "    c_ptrs = C + scm * offs_cm[:, None] + offs_cn[None, :]\n"
            "    tl.store(c_ptrs, c, mask=(offs_cm[:, None] < M) & (offs_cn[None, :] < N))")
    return body, {"A": DTYPES[ty], "B": DTYPES[ty], "C": DTYPES[ty], "M": "i32", "N": "i32",
                  "K": "i32", "sam": "i32", "sbk": "i32", "scm": "i32"}, \
        {"BM": rng.choice([32, 64, 128]), "BN": rng.choice([32, 64, 128]),
         "BK": rng.choice([32, 64])}


def _attention(rng: random.Random) -> tuple[str, dict, dict]:
    body = ("rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
            "    rn = tl.arange(0, BN)\n"
            "    rd = tl.arange(0, D)\n"
            "    q = tl.load(Q + rm[:, None] * D + rd[None, :])\n"
            "    k = tl.load(K + rn[:, None] * D + rd[None, :])\n"
            "    v = tl.load(V + rn[:, None] * D + rd[None, :])\n"
            "    s = tl.dot(q, tl.trans(k))\n"
            "    p = tl.exp(s - tl.max(s, 1)[:, None])\n"
            "    p = p / tl.sum(p, 1)[:, None]\n"
            "    o = tl.dot(p.to(q.dtype), v)\n"
            "    tl.store(O + rm[:, None] * D + rd[None, :], o.to(O.dtype.element_ty))")
    return body, {"Q": "*fp16", "K": "*fp16", "V": "*fp16", "O": "*fp16"}, \
        {"BM": rng.choice([16, 32, 64]), "BN": rng.choice([16, 32, 64]),
         "D": rng.choice([16, 32, 64])}


TEMPLATES = [(_elementwise, 5), (_tile2d, 4), (_loop, 2), (_matmul, 2), (_atomic, 1),
             (_arith, 3)]
#: The ``tutorial`` set: tutorial-style kernels (softmax, layer norm, reductions, the
#: tutorial's matmul, attention with two dots) beside the templates above.
TUTORIAL_TEMPLATES = [(_softmax, 3), (_layernorm, 3), (_reduction, 3), (_tutorial_matmul, 3),
                      (_attention, 2), (_elementwise, 1), (_tile2d, 1), (_arith, 1),
                      (_matmul, 1), (_atomic, 1)]
TARGETS = {"cuda80": ("cuda", 80, 32), "cuda90": ("cuda", 90, 32),
           "gfx942": ("hip", "gfx942", 64), "cuda100": ("cuda", 100, 32),
           "gfx950": ("hip", "gfx950", 64)}
#: The targets each set draws from (``design`` and ``check`` predate sm_100 and gfx950).
SET_TARGETS = {"design": ["cuda80", "cuda90", "gfx942"], "check": ["cuda80", "cuda90", "gfx942"],
               "tutorial": list(TARGETS)}


def jobs(set_name: str) -> list[dict]:
    """The probes of one set: name, template body, signature, constexprs, divisibility,
    target, warps, stages."""
    rng = random.Random(SEEDS[set_name])
    templates = TUTORIAL_TEMPLATES if set_name == "tutorial" else TEMPLATES
    pool = [t for t, w in templates for _ in range(w)]
    out = []
    for i in range(PROBES):
        t = rng.choice(pool)
        body, sig, consts = t(rng)
        target = rng.choice(SET_TARGETS[set_name])
        warps = rng.choice([1, 2, 4, 4, 8])
        div = {name: rng.random() < 0.7 for name in sig}
        stages = 3 if t in (_matmul, _tutorial_matmul) else rng.choice([1, 2, 3])
        out.append({"name": f"{set_name}_{t.__name__[1:]}_{i}_{target}", "body": body,
                    "sig": sig, "set": set_name,
                    "consts": consts, "div": div, "target": target, "warps": warps,
                    "stages": stages})
    return out


def _kernel(job: dict, tmp: pathlib.Path):
    names = list(job["sig"]) + list(job["consts"])
    args = ", ".join(n if n in job["sig"] else f"{n}: tl.constexpr" for n in names)
    src = f"import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef probe({args}):\n" \
          f"    {job['body']}\n"
    path = tmp / f"{job['name']}.py"
    path.write_text(src)
    spec = importlib.util.spec_from_file_location(job["name"], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.probe, names


def compile_job(job: dict, tmp: pathlib.Path) -> dict | None:
    """Compile one probe; its fixture entry, or None when Triton refuses it."""
    import triton
    from corpus import strip_locs
    from triton._C.libtriton import llvm as _llvm
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn, names = _kernel(job, tmp)
    sig = {n: job["sig"].get(n, "constexpr") for n in names}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n, d in job["div"].items() if d}
    src = ASTSource(fn, signature=sig, constexprs=dict(job["consts"]), attrs=attrs)
    target = GPUTarget(*TARGETS[job["target"]])
    pre: list[str] = []
    orig = _llvm.optimize_module

    def capture(mod, *a, **k):
        pre.append(str(mod))
        return orig(mod, *a, **k)

    _llvm.optimize_module = capture
    try:
        k = triton.compile(src, target=target, options={"num_warps": job["warps"],
                                                        "num_stages": job["stages"]})
    except Exception as exc:  # noqa: BLE001 - a configuration Triton refuses is skipped
        print(f"skip {job['name']}: {type(exc).__name__}")
        return None
    finally:
        _llvm.optimize_module = orig
    entry = {"set": job["set"], "target": job["target"], "ttgir": strip_locs(k.asm["ttgir"]),
             "warps": job["warps"], "stages": job["stages"]}
    if target.backend == "cuda":
        entry["counts"] = ptx_counts(k.asm["ptx"])
    else:
        entry["counts"] = amd_preopt_counts(pre[0])
        entry["amdgcn"] = dict(sorted(collections.Counter(
            AMD_GLOBAL.findall(k.asm["amdgcn"])).items()))
    return entry


def predicted(ttgir: str) -> dict:
    """``linlayout check``'s global instructions of one TTGIR module: ``{opcode: per
    thread}`` (atomics by family, as this fixture records them; ``atomic_probes.py`` checks
    their exact opcodes), and the ops not analysed."""
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        if g.prediction is None:
            out[f"not analysed: {g.op.name}"] += 1
            continue
        m = re.match(r"(atom|red)\.global|(global|buffer)_atomic", g.prediction.opcode)
        out[m.group(0) if m else g.prediction.opcode] += g.prediction.per_thread
    return dict(sorted(out.items()))


def compare(probes: dict) -> int:
    """Print each probe whose prediction differs from the counts and a summary per set; the
    number of mismatches."""
    bad: collections.Counter = collections.Counter()
    total: collections.Counter = collections.Counter()
    for name, p in sorted(probes.items()):
        want = p["counts"]
        got = predicted(p["ttgir"])
        total[p["set"]] += 1
        if got != want:
            bad[p["set"]] += 1
            print(f"MISMATCH {name}: predicted {got} compiled {want}")
    for s in total:
        print(f"set {s}: {total[s] - bad[s]}/{total[s]} probes: global instructions equal")
    return sum(bad.values())


def build() -> dict:
    from triton.backends.nvidia.compiler import CUDABackend

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""
    probes = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        sys.path.insert(0, d)
        for set_name in SEEDS:
            for job in jobs(set_name):
                e = compile_job(job, tmp)
                if e is not None:
                    probes[job["name"]] = e
    return {"triton_version": __import__("triton").__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    import argparse

    from fixture import write_or_check

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the fixture only")
    ap.add_argument("--replay", action="store_true",
                    help="compare the committed fixture's counts with linlayout (no Triton)")
    args = ap.parse_args(argv)
    if args.replay:
        import gzip
        import json
        data = json.loads(gzip.decompress(OUT.read_bytes()))
        return 1 if compare(data["probes"]) else 0
    data = build()
    rc = write_or_check(OUT, data, args.check)
    return 1 if compare(data["probes"]) or rc else 0


if __name__ == "__main__":
    sys.exit(main())
