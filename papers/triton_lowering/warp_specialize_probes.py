#!/usr/bin/env python
"""Warp-specialised kernels: the shared-memory traffic of Triton 3.9.0's
``ttg.warp_specialize`` lowering (worker-warp state bytes, the workers' switch load, captures
passed between partitions).

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~2 min)::

    python papers/triton_lowering/warp_specialize_probes.py          # writes tests/data/triton_warp_specialize_probes.json.gz
    python papers/triton_lowering/warp_specialize_probes.py --check  # compare, write nothing

Each Gluon probe runs ``gl.warp_specialize`` with a default partition and 1 to 3 worker
partitions of 1, 2, 4 or 8 warps (4 or 8 default warps; cuda:90 and cuda:100). The
partitions receive a kernel argument and a program id (which Triton rematerialises) and zero
to two scalars loaded from memory (i8, f16, i32, f32 or i64: passed through shared memory),
each partition using a random subset; some probes also move a tile through a shared buffer
in the default partition, so the state and capture buffers are not alone and their offsets
are not known from the TTGIR. The rule
(``linlayout/check/shared_memory/warp_specialize.py``) was written from 11 exploratory
kernels and set ``design`` (seed 41, 60 probes: a first rule without LLVM's merging of
adjacent captures failed 5 of them); set ``check`` (seed 42, 60 probes) was compiled after
the rule was final. Set ``tl`` (seed 43, 10 probes, also after the rule):
TMA-descriptor matmuls whose K loop is ``tl.range(..., warp_specialize=True)`` — Triton's
own partitioning on cuda:100 (f16/bf16, tiles 64 to 256, 4 or 8 warps, 2 to 4 stages).

The buffers' offsets come from the replay of Triton's allocator
(``linlayout/triton/allocation.py``; ``allocation_probes.py`` compares it with Triton's own
pass). Set ``alloc`` (seed 44, 80 probes: three captures of eight scalar types, shared tiles
of random size before and across the region) was compiled after the replay and the
misaligned-capture split: 77 of 80 were equal; the 3 others showed that LLVM's vectoriser
joins only captures of one element size and widens a load chain to a power of two. Set
``alloc2`` (seed 45, 60 probes) was compiled after those two refinements. Set ``scratch``
(seed 46, 60 probes) was compiled after the replay sized converts' and reduces' scratch: a
reduction and/or a layout conversion in the default warps before the region, one to three
worker partitions.

For every probe the script compares ``linlayout check``'s per-thread counts by opcode with
the PTX. Probes where ``check`` reports an instruction as not counted (a width decided by
the allocator's offsets) are marked ``partial``: there the counted instructions must be
among the PTX's and the bytes of the not-counted ones must make up the rest. Mismatches are
printed and the exit status is non-zero.
"""

from __future__ import annotations

import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import main_then_compare  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_warp_specialize_probes.json.gz"
SETS = (("design", 41, 60), ("check", 42, 60))
#: Three-capture probes with shared tiles of random size (:func:`_draw_alloc`).
ALLOC_SETS = (("alloc", 44, 80), ("alloc2", 45, 60))


def compare(entry: dict) -> tuple[bool, str]:
    """(equal, explanation) for one probe: exact per-thread counts by opcode width, or for a
    ``partial`` probe the counted part inside the PTX and the rest's bytes equal to the
    not-counted instructions' bytes."""
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts
    from tests.check.shared_memory.ws_partial import uncounted_bytes

    got, _ = predicted_counts(entry["ttgir"], "probe")
    want = ptx_counts(entry["counts"])
    if not entry.get("partial"):
        return got == want, f"predicted {got}, Triton {want}"
    rest = {k: want.get(k, 0) - got.get(k, 0) for k in want}
    if any(v < 0 for v in rest.values()) or any(k not in want for k in got):
        return False, f"predicted {got} not within Triton {want}"
    rest_bytes = {"load": 0, "store": 0}
    for k, n in rest.items():
        side = "load" if k.startswith("ld") else "store"
        rest_bytes[side] += n * int(k.split("/")[1].rstrip("B"))
    unc = uncounted_bytes(entry["ttgir"])
    return rest_bytes == unc, f"remaining {rest_bytes}, not counted {unc}"


def build() -> dict:
    import triton
    from corpus import strip_locs
    from reduce_probes import compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""

    @gluon.jit
    def work(Y, a, b, pid, k: gl.constexpr, N: gl.constexpr, W: gl.constexpr,
             USE: gl.constexpr):
        L: gl.constexpr = gl.BlockedLayout([1], [32], [W], [0])
        offs = gl.arange(0, N, layout=L)
        v = offs.to(gl.float32) + pid
        if USE % 2 == 1:
            v = v + a.to(gl.float32)
        if USE // 2 == 1:
            v = v + b.to(gl.float32)
        gl.store(Y + k * N + offs, v)

    @gluon.jit
    def kern(X, X2, Y, N: gl.constexpr, P: gl.constexpr, W0: gl.constexpr, W1: gl.constexpr,
             W2: gl.constexpr, DW: gl.constexpr, CA: gl.constexpr, CB: gl.constexpr,
             U0: gl.constexpr, U1: gl.constexpr, U2: gl.constexpr, U3: gl.constexpr,
             SMEM: gl.constexpr):
        pid = gl.program_id(0)
        if CA:
            a = gl.load(X)
        else:
            a = pid
        if CB:
            b = gl.load(X2)
        else:
            b = pid
        if SMEM:
            L: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [DW, 1], [1, 0])
            rm = gl.arange(0, 64, layout=gl.SliceLayout(1, L))
            rn = gl.arange(0, 16, layout=gl.SliceLayout(0, L))
            t = gl.load(Y + rm[:, None] * 16 + rn[None, :])
            s = gl.allocate_shared_memory(gl.float32, [64, 16],
                                          gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), t)
            D: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [1, DW], [0, 1])
            t2 = s.load(D)
            rm2 = gl.arange(0, 64, layout=gl.SliceLayout(1, D))
            rn2 = gl.arange(0, 16, layout=gl.SliceLayout(0, D))
            gl.store(Y + 4096 + rm2[:, None] * 16 + rn2[None, :], t2)
        if P == 1:
            gl.warp_specialize([(work, (Y, a, b, pid, 0, N, DW, U0)),
                                (work, (Y, a, b, pid, 1, N, W0, U1))], [W0], [24])
        elif P == 2:
            gl.warp_specialize([(work, (Y, a, b, pid, 0, N, DW, U0)),
                                (work, (Y, a, b, pid, 1, N, W0, U1)),
                                (work, (Y, a, b, pid, 2, N, W1, U2))], [W0, W1], [24, 24])
        else:
            gl.warp_specialize([(work, (Y, a, b, pid, 0, N, DW, U0)),
                                (work, (Y, a, b, pid, 1, N, W0, U1)),
                                (work, (Y, a, b, pid, 2, N, W1, U2)),
                                (work, (Y, a, b, pid, 3, N, W2, U3))], [W0, W1, W2],
                               [24, 24, 24])

    T = {"cuda90": GPUTarget("cuda", 90, 32), "cuda100": GPUTarget("cuda", 100, 32)}
    TY = {"i8": "*i8", "f16": "*fp16", "i32": "*i32", "f32": "*fp32", "i64": "*i64"}
    probes = {}
    for set_name, seed, count in SETS:
        _draw(set_name, seed, count, probes, kern, T, TY, compile_probe, strip_locs,
              GluonASTSource, predict_module, read_ttgir)
    _draw_tl(probes, compile_probe, strip_locs)
    for set_name, seed, count in ALLOC_SETS:
        _draw_alloc(probes, compile_probe, strip_locs, T, set_name, seed, count)
    _draw_scratch(probes, compile_probe, strip_locs, T)
    return {"triton_version": triton.__version__, "probes": probes}


def _draw_alloc(probes, compile_probe, strip_locs, T, set_name, seed, count) -> None:
    """Sets ``alloc`` (seed 44, 80 probes) and ``alloc2`` (seed 45, 60 probes): three
    captures loaded from memory (i8, i16, f16, bf16, i32, f32, i64 or f64, so the packed struct
    puts many at misaligned offsets), and zero to two shared tiles of random size and element
    type — one used before the region, one stored before it and read after it (live across
    the region, so the capture struct is placed around it)."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def work3(Y, a, b, c, pid, k: gl.constexpr, N: gl.constexpr, W: gl.constexpr,
              USE: gl.constexpr):
        L: gl.constexpr = gl.BlockedLayout([1], [32], [W], [0])
        offs = gl.arange(0, N, layout=L)
        v = offs.to(gl.float32) + pid
        if USE % 2 == 1:
            v = v + a.to(gl.float32)
        if (USE // 2) % 2 == 1:
            v = v + b.to(gl.float32)
        if USE // 4 == 1:
            v = v + c.to(gl.float32)
        gl.store(Y + k * N + offs, v)

    @gluon.jit
    def kern3(X, X2, X3, Y, T1, T2, N: gl.constexpr, P: gl.constexpr, W0: gl.constexpr,
              W1: gl.constexpr, DW: gl.constexpr, U0: gl.constexpr, U1: gl.constexpr,
              U2: gl.constexpr, R1: gl.constexpr, R2: gl.constexpr):
        pid = gl.program_id(0)
        a = gl.load(X)
        b = gl.load(X2)
        c = gl.load(X3)
        L: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [DW, 1], [1, 0])
        if R1 > 0:
            rm = gl.arange(0, R1, layout=gl.SliceLayout(1, L))
            rn = gl.arange(0, 16, layout=gl.SliceLayout(0, L))
            t = gl.load(T1 + rm[:, None] * 16 + rn[None, :])
            s = gl.allocate_shared_memory(T1.dtype.element_ty, [R1, 16],
                                          gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), t)
            gl.store(T1 + 8192 + rm[:, None] * 16 + rn[None, :], s.load(L))
        if R2 > 0:
            rm2 = gl.arange(0, R2, layout=gl.SliceLayout(1, L))
            rn2 = gl.arange(0, 16, layout=gl.SliceLayout(0, L))
            t2 = gl.load(T2 + rm2[:, None] * 16 + rn2[None, :])
            s2 = gl.allocate_shared_memory(T2.dtype.element_ty, [R2, 16],
                                           gl.SwizzledSharedLayout(1, 1, 1, [1, 0]), t2)
        if P == 1:
            gl.warp_specialize([(work3, (Y, a, b, c, pid, 0, N, DW, U0)),
                                (work3, (Y, a, b, c, pid, 1, N, W0, U1))], [W0], [24])
        else:
            gl.warp_specialize([(work3, (Y, a, b, c, pid, 0, N, DW, U0)),
                                (work3, (Y, a, b, c, pid, 1, N, W0, U1)),
                                (work3, (Y, a, b, c, pid, 2, N, W1, U2))], [W0, W1], [24, 24])
        if R2 > 0:
            gl.store(T2 + 8192 + rm2[:, None] * 16 + rn2[None, :], s2.load(L))

    TY = {"i8": "*i8", "i16": "*i16", "f16": "*fp16", "bf16": "*bf16", "i32": "*i32",
          "f32": "*fp32", "i64": "*i64", "f64": "*fp64"}
    rng = random.Random(seed)
    made = tried = 0
    while made < count and tried < 500:
        tried += 1
        tname = rng.choice(list(T))
        dw = rng.choice([4, 4, 8])
        p = rng.randint(1, 2)
        ws = [rng.choice([1, 1, 2, 4]) for _ in range(p)] + [0] * (2 - p)
        tys = [rng.choice(list(TY)) for _ in range(3)]
        uses = [rng.randrange(8) for _ in range(3)]
        r1, r2 = rng.choice([0, 0, 8, 16, 32]), rng.choice([0, 0, 8, 16, 64])
        t1, t2 = rng.choice(["f16", "f32"]), rng.choice(["f16", "f32", "i8"])
        name = (f"ws3_d{dw}_p{'.'.join(map(str, ws[:p]))}_{'.'.join(tys)}"
                f"_u{''.join(map(str, uses[:p + 1]))}_r{r1}{t1}.{r2}{t2}_{tname}")
        if name in probes:
            continue
        sig = {"X": TY[tys[0]], "X2": TY[tys[1]], "X3": TY[tys[2]], "Y": "*fp32",
               "T1": TY[t1], "T2": TY[t2]}
        consts = {"N": 128, "P": p, "W0": ws[0], "W1": ws[1], "DW": dw, "U0": uses[0],
                  "U1": uses[1], "U2": uses[2], "R1": r1, "R2": r2}
        sig.update({k: "constexpr" for k in consts})
        src = GluonASTSource(fn=kern3, signature=sig, constexprs=consts)
        try:
            entry, _ = compile_probe(src, T[tname], dw, set_name, "warp_specialize_probes.py")
        except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
            print(f"not compiled: {name}: {type(exc).__name__}: {str(exc)[:120]}",
                  file=sys.stderr)
            continue
        entry["ttgir"] = strip_locs(entry["ttgir"])
        if _has_uncounted(entry["ttgir"], name):
            entry["partial"] = True
        probes[name] = entry | {"target": tname}
        made += 1


def _draw_scratch(probes, compile_probe, strip_locs, T) -> None:
    """Set ``scratch`` (seed 46, 60 probes), compiled after the allocator replay sized converts'
    and reduces' scratch: before the region the default warps reduce a tile along a random
    axis (``gl.sum``/``gl.max``, across warps or not) and/or convert it to a transposed
    layout, so the state and capture buffers are placed around scratch buffers; one to three
    worker partitions (up to 12 worker warps, so the state bytes take 4 to 12 bytes) and two
    captures of random scalar types."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    @gluon.jit
    def work2(Y, a, b, pid, k: gl.constexpr, N: gl.constexpr, W: gl.constexpr,
              USE: gl.constexpr):
        L: gl.constexpr = gl.BlockedLayout([1], [32], [W], [0])
        offs = gl.arange(0, N, layout=L)
        v = offs.to(gl.float32) + pid
        if USE % 2 == 1:
            v = v + a.to(gl.float32)
        if USE // 2 == 1:
            v = v + b.to(gl.float32)
        gl.store(Y + k * N + offs, v)

    @gluon.jit
    def kern_s(X, X2, Y, T, N: gl.constexpr, P: gl.constexpr, W0: gl.constexpr,
               W1: gl.constexpr, W2: gl.constexpr, DW: gl.constexpr, R: gl.constexpr,
               C: gl.constexpr, RED: gl.constexpr, AX: gl.constexpr, CVT: gl.constexpr,
               WR: gl.constexpr, U0: gl.constexpr, U1: gl.constexpr, U2: gl.constexpr,
               U3: gl.constexpr):
        pid = gl.program_id(0)
        a = gl.load(X)
        b = gl.load(X2)
        L: gl.constexpr = gl.BlockedLayout([1, 4], [8, 4], [WR, DW // WR], [1, 0])
        rm = gl.arange(0, R, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, C, layout=gl.SliceLayout(0, L))
        t = gl.load(T + rm[:, None] * C + rn[None, :])
        if RED == 1:
            r = gl.sum(t, axis=AX)
            if AX == 0:
                gl.store(T + 65536 + rn, r)
            else:
                gl.store(T + 65536 + rm, r)
        elif RED == 2:
            r = gl.max(t, axis=AX)
            if AX == 0:
                gl.store(T + 65536 + rn, r)
            else:
                gl.store(T + 65536 + rm, r)
        if CVT:
            D: gl.constexpr = gl.BlockedLayout([4, 1], [4, 8], [DW // WR, WR], [0, 1])
            t2 = gl.convert_layout(t, D)
            rm2 = gl.arange(0, R, layout=gl.SliceLayout(1, D))
            rn2 = gl.arange(0, C, layout=gl.SliceLayout(0, D))
            gl.store(T + 131072 + rm2[:, None] * C + rn2[None, :], t2)
        if P == 1:
            gl.warp_specialize([(work2, (Y, a, b, pid, 0, N, DW, U0)),
                                (work2, (Y, a, b, pid, 1, N, W0, U1))], [W0], [24])
        elif P == 2:
            gl.warp_specialize([(work2, (Y, a, b, pid, 0, N, DW, U0)),
                                (work2, (Y, a, b, pid, 1, N, W0, U1)),
                                (work2, (Y, a, b, pid, 2, N, W1, U2))], [W0, W1], [24, 24])
        else:
            gl.warp_specialize([(work2, (Y, a, b, pid, 0, N, DW, U0)),
                                (work2, (Y, a, b, pid, 1, N, W0, U1)),
                                (work2, (Y, a, b, pid, 2, N, W1, U2)),
                                (work2, (Y, a, b, pid, 3, N, W2, U3))], [W0, W1, W2],
                               [24, 24, 24])

    TY = {"i8": "*i8", "i16": "*i16", "f16": "*fp16", "i32": "*i32", "f32": "*fp32",
          "i64": "*i64"}
    rng = random.Random(46)
    made = tried = 0
    while made < 60 and tried < 500:
        tried += 1
        tname = rng.choice(list(T))
        dw = rng.choice([4, 8])
        wr = rng.choice([1, 2, 4]) if dw == 4 else rng.choice([1, 2, 4, 8])
        p = rng.randint(1, 3)
        ws = [rng.choice([1, 2, 4, 4, 8]) for _ in range(p)] + [0] * (3 - p)
        if dw + sum(ws) > 32:
            continue
        red, cvt = rng.choice([0, 1, 2]), rng.random() < 0.6
        if not red and not cvt:
            continue
        r_, c_ = rng.choice([32, 64, 128]), rng.choice([16, 32, 64])
        ax = rng.randint(0, 1)
        ta, tb = rng.choice(list(TY)), rng.choice(list(TY))
        uses = [rng.randrange(4) for _ in range(4)]
        name = (f"wsS_d{dw}x{wr}_p{'.'.join(map(str, ws[:p]))}_{ta}.{tb}"
                f"_u{''.join(map(str, uses[:p + 1]))}_t{r_}x{c_}_red{red}a{ax}"
                f"{'_cvt' if cvt else ''}_{tname}")
        if name in probes:
            continue
        sig = {"X": TY[ta], "X2": TY[tb], "Y": "*fp32", "T": "*fp32"}
        consts = {"N": 128, "P": p, "W0": ws[0], "W1": ws[1], "W2": ws[2], "DW": dw, "R": r_,
                  "C": c_, "RED": red, "AX": ax, "CVT": cvt, "WR": wr, "U0": uses[0],
                  "U1": uses[1], "U2": uses[2], "U3": uses[3]}
        sig.update({k: "constexpr" for k in consts})
        src = GluonASTSource(fn=kern_s, signature=sig, constexprs=consts)
        try:
            entry, _ = compile_probe(src, T[tname], dw, "scratch", "warp_specialize_probes.py")
        except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
            print(f"not compiled: {name}: {type(exc).__name__}: {str(exc)[:120]}",
                  file=sys.stderr)
            continue
        entry["ttgir"] = strip_locs(entry["ttgir"])
        if _has_uncounted(entry["ttgir"], name):
            entry["partial"] = True
        probes[name] = entry | {"target": tname}
        made += 1


def _has_uncounted(ttgir: str, name: str) -> bool:
    """Whether ``check`` reports some instruction of the module as not counted."""
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    preds = predict_module(read_ttgir(ttgir, name))
    return any(not isinstance(q, Exception) and any(s.emitted.per_thread is None and
                                                    s.emitted.side != "none"
                                                    for s in q.sides) for _, q in preds)


def _draw_tl(probes, compile_probe, strip_locs) -> None:
    """Set ``tl``: TMA-descriptor matmuls whose K loop is ``tl.range(...,
    warp_specialize=True)`` (Triton's automatic warp specialisation, cuda:100), drawn with
    seed 43 after the rule was final."""
    import triton
    import triton.language as tl
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def mm(a_desc, b_desc, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           ST: tl.constexpr):
        pid_m = tl.program_id(0)
        pid_n = tl.program_id(1)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in tl.range(0, tl.cdiv(K, BK), num_stages=ST, warp_specialize=True):
            a = a_desc.load([pid_m * BM, k * BK])
            b = b_desc.load([pid_n * BN, k * BK])
            acc = tl.dot(a, b.T, acc)
        rm = pid_m * BM + tl.arange(0, BM)
        rn = pid_n * BN + tl.arange(0, BN)
        tl.store(C + rm[:, None] * 4096 + rn[None, :], acc.to(C.dtype.element_ty))

    rng = random.Random(43)
    made = 0
    for _ in range(60):
        if made >= 10:
            break
        bm, bn, bk = rng.choice([64, 128]), rng.choice([64, 128, 256]), rng.choice([32, 64, 128])
        ty = rng.choice(["fp16", "bf16"])
        warps, stages = rng.choice([4, 8]), rng.randint(2, 4)
        name = f"tl_mm_{ty}_{bm}x{bn}x{bk}_w{warps}_s{stages}_cuda100"
        if name in probes:
            continue
        sig = {"a_desc": f"tensordesc<{ty}[{bm}, {bk}]>", "b_desc": f"tensordesc<{ty}[{bn}, {bk}]>",
               "C": f"*{ty}", "K": "i32", "BM": "constexpr", "BN": "constexpr",
               "BK": "constexpr", "ST": "constexpr"}
        src = ASTSource(fn=mm, signature=sig, constexprs={"BM": bm, "BN": bn, "BK": bk,
                                                          "ST": stages})
        try:
            entry, _ = compile_probe(src, GPUTarget("cuda", 100, 32), warps, "tl",
                                     "warp_specialize_probes.py")
        except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
            print(f"not compiled: {name}: {type(exc).__name__}", file=sys.stderr)
            continue
        if "ttg.warp_specialize" not in entry["ttgir"]:
            continue
        entry["ttgir"] = strip_locs(entry["ttgir"])
        probes[name] = entry | {"target": "cuda100"}
        made += 1


def _draw(set_name, seed, count, probes, kern, T, TY, compile_probe, strip_locs,
          GluonASTSource, predict_module, read_ttgir) -> None:
    """Compile ``count`` probes drawn with ``seed`` into ``probes``."""
    rng = random.Random(seed)
    made = 0
    tried = 0
    while made < count and tried < 400:
        tried += 1
        tname = rng.choice(list(T))
        dw = rng.choice([4, 4, 8])
        p = rng.randint(1, 3)
        ws = [rng.choice([1, 1, 2, 4, 8]) for _ in range(p)] + [0] * (3 - p)
        if dw + sum(ws) > 32:
            continue
        ca, cb = rng.random() < 0.6, rng.random() < 0.4
        ta, tb = rng.choice(list(TY)), rng.choice(list(TY))
        uses = [rng.randrange(4) for _ in range(4)]
        smem = rng.random() < 0.3
        name = (f"ws_d{dw}_p{'.'.join(map(str, ws[:p]))}_a{ta if ca else '-'}"
                f"_b{tb if cb else '-'}_u{''.join(map(str, uses[:p + 1]))}"
                f"{'_smem' if smem else ''}_{tname}")
        if name in probes:
            continue
        sig = {"X": TY[ta], "X2": TY[tb], "Y": "*fp32"}
        consts = {"N": 128, "P": p, "W0": ws[0], "W1": ws[1], "W2": ws[2], "DW": dw,
                  "CA": ca, "CB": cb, "U0": uses[0], "U1": uses[1], "U2": uses[2],
                  "U3": uses[3], "SMEM": smem}
        sig.update({k: "constexpr" for k in consts})
        src = GluonASTSource(fn=kern, signature=sig, constexprs=consts)
        try:
            entry, _ = compile_probe(src, T[tname], dw, set_name, "warp_specialize_probes.py")
        except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
            print(f"not compiled: {name}: {type(exc).__name__}: {str(exc)[:120]}",
                  file=sys.stderr)
            continue
        entry["ttgir"] = strip_locs(entry["ttgir"])
        if _has_uncounted(entry["ttgir"], name):
            entry["partial"] = True
        probes[name] = entry | {"target": tname}
        made += 1


def report(data: dict) -> int:
    """Print each probe whose prediction differs from Triton's and a tally; return the number
    of differences."""
    bad = 0
    partial = 0
    for name, entry in sorted(data["probes"].items()):
        ok, why = compare(entry)
        partial += bool(entry.get("partial"))
        if not ok:
            bad += 1
            print(f"MISMATCH {name}: {why}")
    n = len(data["probes"])
    print(f"{n - bad}/{n} probes equal ({partial} partial: some widths not counted, "
          "their bytes accounted for)")
    return bad


def main(argv: list[str] | None = None) -> int:
    return main_then_compare(__doc__, OUT, build, report, argv, compare_first=True)


if __name__ == "__main__":
    sys.exit(main())
