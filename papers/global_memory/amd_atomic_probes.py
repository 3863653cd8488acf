#!/usr/bin/env python
"""AMD global atomics on random layouts: the exact mnemonics and static count of every
``tt.atomic_rmw``/``tt.atomic_cas`` Triton 3.9.0 emits on gfx942/gfx950, against
``linlayout check``.

Run with Triton 3.9.0 installed (CPU only, ~10 min on 2 CPUs)::

    python papers/global_memory/amd_atomic_probes.py          # writes tests/data/triton_amd_atomic_probes.json.gz
    python papers/global_memory/amd_atomic_probes.py --check  # compare with the fixture, write nothing

Drawn (seed 91, 160 probes; seed 92, 16 more whose tile is smaller than one thread's
elements along a dim, so registers hold copies) after the rule for 16-bit float adds was
written
(``linlayout/check/global_memory/predict.py``, from the AMD backend's
``AtomicRMWOpConversion`` and ``AtomicRMWEmitter::emitPairedAtomicForEvenTID``): Gluon
kernels over a 1- or 2-D tile with a random ``BlockedLayout`` (elements per thread, lanes and
warps per dim, order; tiles smaller than the layout's included), the address
``row · stride_row + col · stride_col`` with strides 1, 2, a constant or a runtime argument
(16-divisible or not), the pointers 16-divisible or not, masks on rows, columns or both
(against a bound 16-divisible or not) or none, the result used (stored) or not, and
``atomic_add`` on f16/bf16/f32 (most draws), ``atomic_max``/``atomic_xchg`` on i32/f32,
``atomic_cas`` on i32/f32, plus a scalar-pointer f16/bf16 add; orders and scopes (``cta``,
``gpu``, ``sys``) drawn; gfx942 and gfx950. Then (seed 93, 48 more, drawn after the buffer
naming rule ``amd_buffer_atomic_name``) ``tl`` kernels with small constant offsets from a
16-divisible pointer, which Triton's ``ConvertToBufferOps`` may turn into
``amdg.buffer_atomic_rmw``/``buffer_atomic_cas``: add on i32/i64/f32/f64/f16/bf16, max, min,
and, or, xor, xchg and CAS on i32/i64 (f32 for max and CAS), stride 1 or 2, masked or not,
used or not, orders and scopes; and (seed 94, 16 more) the same with f16/bf16/f32 adds, of
which that draw held none.

Kept per probe: the TTGIR, the static count of each atomic mnemonic in the final AMDGCN
(``counts``), and the number of ``atomicrmw``/``cmpxchg`` to global memory in Triton's LLVM IR
before LLVM's optimiser (``llir_atomics``). Compared: ``check``'s opcodes and per-thread
counts (fallback instructions included) against ``counts``, and its total against
``llir_atomics``. Exit status 1 on a mismatch.
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
OUT = ROOT / "tests" / "data" / "triton_amd_atomic_probes.json.gz"
#: (seed, probes, kind): the main draw ("random"), a few whose tile is below one thread's
#: elements along a dim so registers hold copies ("small"), ``tl`` kernels whose atomics
#: Triton may turn into buffer atomics ("buffer"), and more of those with f16/bf16/f32 adds
#: ("buffer_fadd": the first buffer draw held no 16-bit or f32 add).
DRAWS = ((91, 160, "random"), (92, 16, "small"), (93, 48, "buffer"),
         (94, 16, "buffer_fadd"))
AMD_ATOMIC = re.compile(r"\b((?:global|buffer|flat)_atomic_\w+)")
LL_ATOMIC = re.compile(r"(?:atomicrmw|cmpxchg)[^\n]*ptr addrspace\(1\)|"
                       r"call [^\n]*@llvm\.amdgcn\.raw\.ptr\.buffer\.atomic\.")
DTYPES = {"i32": "*i32", "i64": "*i64", "f16": "*fp16", "bf16": "*bf16", "f32": "*fp32",
          "f64": "*fp64"}


def predicted(ttgir: str) -> tuple[dict, int]:
    """``check``'s atomic opcodes ``{opcode: per thread}`` (fallbacks included) and their
    total."""
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        if g.prediction is None:
            out["not analysed"] += 1
            continue
        if g.prediction.side == "atomic":
            for opcode, n in g.prediction.instructions():
                out[opcode] += n
    return dict(sorted(out.items())), sum(out.values())


def _kernel():
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def kamd(X, Y, n, sr, M: gl.constexpr, N: gl.constexpr, SPT0: gl.constexpr,
             SPT1: gl.constexpr, TPW0: gl.constexpr, TPW1: gl.constexpr, W0: gl.constexpr,
             W1: gl.constexpr, ORD0: gl.constexpr, SR: gl.constexpr, SC: gl.constexpr,
             OP: gl.constexpr, MASK: gl.constexpr, USED: gl.constexpr, SEM: gl.constexpr,
             SCOPE: gl.constexpr):
        L: gl.constexpr = gl.BlockedLayout([SPT0, SPT1], [TPW0, TPW1], [W0, W1],
                                           [ORD0, 1 - ORD0])
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        r2 = gl.expand_dims(rows, 1)
        c2 = gl.expand_dims(cols, 0)
        v = gl.load(X + r2 * N + c2)
        if SR == 0:
            p = Y + r2 * sr + c2 * SC
        else:
            p = Y + r2 * SR + c2 * SC
        m = (r2 < n) & (c2 >= 0)
        if MASK == 2:
            m = (c2 < n) & (r2 >= 0)
        if MASK == 3:
            m = (r2 < n) & (c2 < n)
        if OP == 0:
            if MASK == 0:
                old = gl.atomic_add(p, v, sem=SEM, scope=SCOPE)
            else:
                old = gl.atomic_add(p, v, mask=m, sem=SEM, scope=SCOPE)
        elif OP == 1:
            if MASK == 0:
                old = gl.atomic_max(p, v, sem=SEM, scope=SCOPE)
            else:
                old = gl.atomic_max(p, v, mask=m, sem=SEM, scope=SCOPE)
        elif OP == 2:
            if MASK == 0:
                old = gl.atomic_xchg(p, v, sem=SEM, scope=SCOPE)
            else:
                old = gl.atomic_xchg(p, v, mask=m, sem=SEM, scope=SCOPE)
        elif OP == 3:
            old = gl.atomic_cas(p, v, v, sem=SEM, scope=SCOPE)
        else:
            old = gl.atomic_add(Y + n, gl.load(X), sem=SEM, scope=SCOPE)
        if USED:
            if OP == 4:
                gl.store(X + 1, old)
            else:
                gl.store(X + r2 * N + c2, old)

    return kamd


def _buffer_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def kbuf(X, Y, n, BLOCK: tl.constexpr, STRIDE: tl.constexpr, OP: tl.constexpr,
             MASK: tl.constexpr, USED: tl.constexpr, SEM: tl.constexpr, SCOPE: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        p = Y + offs * STRIDE
        m = offs < n
        if OP == 0:
            if MASK:
                old = tl.atomic_add(p, x, mask=m, sem=SEM, scope=SCOPE)
            else:
                old = tl.atomic_add(p, x, sem=SEM, scope=SCOPE)
        elif OP == 1:
            if MASK:
                old = tl.atomic_max(p, x, mask=m, sem=SEM, scope=SCOPE)
            else:
                old = tl.atomic_max(p, x, sem=SEM, scope=SCOPE)
        elif OP == 2:
            if MASK:
                old = tl.atomic_min(p, x, mask=m, sem=SEM, scope=SCOPE)
            else:
                old = tl.atomic_min(p, x, sem=SEM, scope=SCOPE)
        elif OP == 3:
            if MASK:
                old = tl.atomic_and(p, x, mask=m, sem=SEM, scope=SCOPE)
            else:
                old = tl.atomic_or(p, x, sem=SEM, scope=SCOPE)
        elif OP == 4:
            if MASK:
                old = tl.atomic_xchg(p, x, mask=m, sem=SEM, scope=SCOPE)
            else:
                old = tl.atomic_xor(p, x, sem=SEM, scope=SCOPE)
        else:
            old = tl.atomic_cas(p, x, x + 1, sem=SEM, scope=SCOPE)
        if USED:
            tl.store(X + offs, old)

    return kbuf


#: Buffer-atomic draws: (op code, name, element types allowed).
BUFFER_OPS = ((0, "add", ("i32", "i64", "f32", "f64", "f16", "bf16")),
              (1, "max", ("i32", "i64", "f32")), (2, "min", ("i32", "i64")),
              (3, "andor", ("i32", "i64")), (4, "xchgxor", ("i32", "i64")),
              (5, "cas", ("i32", "i64", "f32")))


def _draw_buffer(rng: random.Random, float_add: bool = False
                 ) -> tuple[str, str, dict, dict, dict, int]:
    """One ``tl`` kernel whose atomic Triton's ``ConvertToBufferOps`` may turn into an
    ``amdg.buffer_atomic_*`` (small constant offsets from a 16-divisible pointer);
    ``float_add``: an f16/bf16/f32 add."""
    tname = rng.choice(["gfx942", "gfx950"])
    code, opname, types = BUFFER_OPS[0] if float_add else rng.choice(BUFFER_OPS)
    if float_add:
        types = ("f16", "bf16", "f32")
    ty = rng.choice(types)
    w = rng.choice([1, 2, 4])
    block = rng.choice([64, 128, 256, 512, 1024])
    stride = rng.choice([1, 1, 1, 2])
    mask = code != 5 and rng.random() < 0.4
    used = rng.random() < 0.5
    sem = rng.choice(["relaxed", "acquire", "release", "acq_rel"])
    scope = rng.choice(["cta", "gpu", "gpu", "gpu", "sys"])
    ndiv = rng.random() < 0.6
    name = (f"amd_buf_{opname}_{ty}_b{block}_s{stride}{'_mask' if mask else ''}"
            f"{'_used' if used else ''}_{sem}_{scope}_w{w}{'_ndiv' if ndiv else ''}_{tname}")
    sig = {"X": DTYPES[ty], "Y": DTYPES[ty], "n": "i32"}
    consts = {"BLOCK": block, "STRIDE": stride, "OP": code, "MASK": mask, "USED": used,
              "SEM": sem, "SCOPE": scope}
    attrs = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]}
    if ndiv:
        attrs[(2,)] = [["tt.divisibility", 16]]
    sig.update({k: "constexpr" for k in consts})
    return name, tname, sig, consts, attrs, w


def _split(rng: random.Random, total: int) -> tuple[int, int]:
    a = 1 << rng.randint(0, total.bit_length() - 1)
    return a, total // a


def _llir_capture():
    from triton._C.libtriton import llvm as _llvm

    pre: list[str] = []
    orig = _llvm.optimize_module

    def capture(mod, *a, **k):
        pre.append(str(mod))
        return orig(mod, *a, **k)

    return pre, orig, capture, _llvm


def _draw(rng: random.Random, small: bool) -> tuple[str, str, dict, dict, dict, int] | None:
    """One probe: ``(name, target, signature, constexprs, divisibility attrs, warps)``, or
    None when the draw is refused; ``small`` shrinks the tile below one thread's elements
    along a dim (registers holding copies)."""
    tname = rng.choice(["gfx942", "gfx950"])
    r = rng.random()
    if r < 0.6:
        op, ty = 0, rng.choice(["f16", "bf16", "bf16", "f32"])
    elif r < 0.7:
        op, ty = 1, rng.choice(["i32", "f32"])
    elif r < 0.8:
        op, ty = 2, rng.choice(["i32", "f32"])
    elif r < 0.9:
        op, ty = 3, rng.choice(["i32", "f32"])
    else:
        op, ty = 4, rng.choice(["f16", "bf16"])
    w = rng.choice([1, 2, 4, 8])
    spt0, spt1 = rng.choice([1, 1, 2, 4]), rng.choice([1, 1, 2, 4, 8])
    tpw0, tpw1 = _split(rng, 64)
    w0, w1 = _split(rng, w)
    ord0 = rng.choice([0, 1])
    m_dim = min(256, spt0 * tpw0 * w0 * rng.choice([1, 1, 2]))
    n_dim = min(256, spt1 * tpw1 * w1 * rng.choice([1, 1, 2]))
    if rng.random() < 0.15:  # a tile smaller than the layout along one dim
        m_dim = max(1, m_dim // 2)
    if small:
        spt0 = rng.choice([2, 4, 8])
        m_dim = spt0 // rng.choice([2, 4, 8][:spt0.bit_length() - 1])
    if m_dim * n_dim > 4096:
        return None
    sr = rng.choice([0, n_dim, n_dim, 2 * n_dim, 1, 3 * n_dim + 1])
    sc = rng.choice([1, 1, 1, 2, m_dim]) if sr != 1 else m_dim
    mask = rng.choice([0, 0, 1, 2, 3]) if op != 3 else 0
    used = rng.random() < 0.5
    sem = rng.choice(["relaxed", "acquire", "release", "acq_rel"])
    scope = rng.choice(["cta", "gpu", "gpu", "sys"])
    div = {k: rng.random() < 0.7 for k in ("X", "Y", "n", "sr")}
    name = (f"amd_{['add', 'max', 'xchg', 'cas', 'scalar_add'][op]}_{ty}_{m_dim}x{n_dim}"
            f"_spt{spt0}x{spt1}_tpw{tpw0}x{tpw1}_w{w0}x{w1}_o{ord0}_sr{sr}_sc{sc}_m{mask}"
            f"{'_used' if used else ''}_{sem}_{scope}_"
            f"{''.join(k for k, d in div.items() if d) or 'nodiv'}_{tname}")
    sig = {"X": DTYPES[ty], "Y": DTYPES[ty], "n": "i32", "sr": "i32"}
    consts = {"M": m_dim, "N": n_dim, "SPT0": spt0, "SPT1": spt1, "TPW0": tpw0,
              "TPW1": tpw1, "W0": w0, "W1": w1, "ORD0": ord0, "SR": sr, "SC": sc,
              "OP": op, "MASK": mask, "USED": used, "SEM": sem, "SCOPE": scope}
    order = list(sig)
    attrs = {(order.index(k),): [["tt.divisibility", 16]] for k, d in div.items() if d}
    sig.update({k: "constexpr" for k in consts})
    return name, tname, sig, consts, attrs, w


def build() -> dict:
    import triton
    from corpus import strip_locs
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon._runtime import GluonASTSource

    from triton.compiler import ASTSource

    kamd, kbuf = _kernel(), _buffer_kernel()
    probes: dict = {}
    for seed, count, kind in DRAWS:
        rng = random.Random(seed)
        drawn = tried = 0
        while drawn < count and tried < 1000:
            tried += 1
            d = _draw_buffer(rng, kind == "buffer_fadd") if kind.startswith("buffer") else \
                _draw(rng, kind == "small")
            if d is None or d[0] in probes:
                continue
            name, tname, sig, consts, attrs, w = d
            src = ASTSource(kbuf, signature=sig, constexprs=consts, attrs=attrs) \
                if kind.startswith("buffer") else GluonASTSource(fn=kamd, signature=sig,
                                                        constexprs=consts, attrs=attrs)
            pre, orig, capture, llvm_mod = _llir_capture()
            llvm_mod.optimize_module = capture
            try:
                k = triton.compile(src, target=GPUTarget("hip", tname, 64),
                                   options={"num_warps": w})
            except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
                print(f"not compiled: {name}: {type(exc).__name__}: {str(exc)[-120:]}",
                      file=sys.stderr)
                continue
            finally:
                llvm_mod.optimize_module = orig
            counts = collections.Counter(AMD_ATOMIC.findall(k.asm["amdgcn"]))
            probes[name] = {"set": "amd_atomics", "target": tname,
                            "ttgir": strip_locs(k.asm["ttgir"]),
                            "counts": dict(sorted(counts.items())),
                            "llir_atomics": len(LL_ATOMIC.findall(pre[0]))}
            if kind.startswith("buffer"):
                probes[name]["buffer"] = "amdg.buffer_atomic" in probes[name]["ttgir"]
            drawn += 1
            print(f"[{len(probes)}] {name}", flush=True)
    return {"triton_version": triton.__version__, "probes": probes}


def compare(probes: dict) -> int:
    """Print each mismatch and a summary; the number of mismatches."""
    bad = 0
    per_class: collections.Counter = collections.Counter()
    seen: collections.Counter = collections.Counter()
    for name, p in sorted(probes.items()):
        got, total = predicted(p["ttgir"])
        parts = name.split("_")
        cls = "_".join(parts[1:4] if parts[1] in ("scalar", "buf") else parts[1:3])
        seen[cls] += 1
        if got != p["counts"] or total != p["llir_atomics"]:
            bad += 1
            print(f"MISMATCH {name}: predicted {got} (total {total}) compiled {p['counts']} "
                  f"(LLVM IR {p['llir_atomics']})")
        else:
            per_class[cls] += 1
    print("by kind and type: " + ", ".join(f"{c} {per_class[c]}/{n}"
                                          for c, n in sorted(seen.items())))
    print(f"{len(probes) - bad}/{len(probes)} probes: atomic mnemonics, per-thread counts and "
          "the LLVM IR's static count equal")
    return bad


def main(argv: list[str] | None = None) -> int:
    import argparse

    from fixture import write_or_check

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the fixture only")
    args = ap.parse_args(argv)
    data = build()
    rc = write_or_check(OUT, data, args.check)
    return 1 if compare(data["probes"]) or rc else 0


if __name__ == "__main__":
    sys.exit(main())
