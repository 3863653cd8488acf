#!/usr/bin/env python
"""Held-out conversion probes: ``linlayout check --json``, convert by convert, against the
PTX/AMDGCN Triton 3.9.0 emits — on kernels drawn after every convert rule was written.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~5 min)::

    python papers/triton_lowering/cvt_heldout_probes.py                 # writes the fixture
    python papers/triton_lowering/cvt_heldout_probes.py --check         # compare, write nothing
    python papers/triton_lowering/cvt_heldout_probes.py --compare-only  # the committed fixture

Two families, seed ``SEED`` (none of the other probe scripts' seeds):

* ``g_*``: one Gluon ``gl.convert_layout`` (``gluon_kernels.py``'s ``g_cvt``: load a tile,
  convert it, store it) between random distributed layouts — linear
  layouts that keep every element in its warp (zero to three register/lane exchanges, lane and
  register permutations, broadcasts), linear layouts that move data across warps (a warp
  basis exchanged with a lane or register basis, warps permuted), random ``BlockedLayout``
  pairs, slices of 3-D blocked parents, mma v2 (``NVMMADistributedLayout``) with its dot
  operands or a blocked layout on NVIDIA, and ``AMDMFMALayout`` with its dot operands or a
  blocked layout on AMD; 8/16/32/64-bit elements; 1, 2, 4 or 8 warps; cuda:80/90/100 and
  gfx942/gfx950. The convert's own instructions are counted (its TTGIR line, below).
* ``t_*``: ``tl`` kernels whose converts Triton inserts itself: ``tl.trans``, ``tl.join``,
  ``tl.split``, a row softmax (a reduce whose result is broadcast back), ``tl.cumsum``,
  ``tl.gather`` and a ``tl.dot`` whose accumulator is stored; random shapes, types and warps
  on the same five targets. The whole kernel's assembly is counted.

For each probe the fixture keeps the TTGIR (``loc`` removed, lines kept) and, by TTGIR op
(``"lines_by": "ttgir_op"``: the TTGIR compiled again, each op then located at its own line
``probe.ttgir:N``, :func:`op_located`, :func:`convert_located`), the assembly's
register-exchange opcodes (``shfl``/``selp``/``prmt``/``redux``; ``ds_bpermute``/``ds_swizzle``/DPP/
``v_permlane*``/``v_cndmask``/``v_perm``; outside inline assembly) and shared-memory opcodes.
:func:`compare` runs ``linlayout check --json`` on the TTGIR (:func:`prediction`) and
compares the register instructions of its ``"space": "register"`` entries on each convert's
(or gather's) TTGIR line with the assembly's on that line, the exchanges of reduces and
scans with the rest of the kernel's (their selects and packing are not modelled), and the
shared-memory instructions with the whole kernel's (LLVM may sink a convert's loads to the
store's line): NVIDIA by width (``ld.shared/16B``, ``ldmatrix...x4``), AMD by LDS bytes per
thread. Next to a convert that goes through shared memory every register instruction is
compared too: the ``prmt``/``v_perm`` packing and unpacking of its vectors is modelled
(:mod:`linlayout.lowering.round_trip_pack`). Exits 1 on a difference not listed in
``tests/data/known_mismatches.json`` (set ``cvt_heldout``). ``--seed N`` compiles a fresh
draw with another seed and compares it, writing nothing (held-out checks of a new rule; with
the final assembly, as it has no ``"lowering"`` records, so the LLVM re-spellings of
``docs/triton-lowering.md`` show as differences, such as the AMD scan reload ``-O3`` deletes);
``--roundtrip`` writes (or with ``--check``/``--compare-only`` compares) the round-trip set
``tests/data/triton_cvt_roundtrip_probes.json.gz`` (:data:`ROUNDTRIP_DRAW`, drawn after the
round-trip packing rules; known mismatches in set ``cvt_roundtrip``); ``--lowering`` writes
and compares ``tests/data/triton_cvt_lowering_probes.json.gz`` (:data:`LOWERING_DRAW`, drawn
after the rules read off Triton's lowering, set ``cvt_lowering``).

Counting by TTGIR op rather than by Python source line keeps a ``tl`` kernel's convert apart
from the op whose location Triton gives it (a convert Triton inserts takes the location of
the op that produces its operand, whose instructions that source line would mix in), and
keeps the fixtures independent of where the kernels stand in the source (moving ``g_cvt`` to
``gluon_kernels.py`` changed no count). Locations change no code: the recompiled kernel has
the instructions of the kernel compiled from Python, or the script stops.

Since ``lowering_reference.py`` gives every probe its ``"lowering"`` (the assembly of Triton's
LLVM IR with ``-O3`` skipped), :func:`compare` scores ``check`` against that and requires the
final assembly to differ from it exactly on the probes ``tests/data/llvm_respelling.json``
lists with their LLVM pass; writing a set drops the records, so run ``lowering_reference.py``
on it before ``--compare-only``.
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from datapath import data_path_lines, is_amdgcn  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_cvt_heldout_probes.json.gz"
#: ``--roundtrip``: a second draw (seed, Gluon and ``tl`` probes), made after the round-trip
#: packing rules (``linlayout.lowering.round_trip_pack``), keeping the probes with an 8- or
#: 16-bit convert through shared memory.
ROUNDTRIP_OUT = ROOT / "tests" / "data" / "triton_cvt_roundtrip_probes.json.gz"
ROUNDTRIP_DRAW = (7331, 160, 40)
#: ``--lowering``: a third draw (seed, Gluon and ``tl`` probes), made after the rules read off
#: Triton's lowering before ``-O3``; NVIDIA probes with an 8/16-bit convert or a gather kept
LOWERING_OUT = ROOT / "tests" / "data" / "triton_cvt_lowering_probes.json.gz"
LOWERING_DRAW = (5813, 200, 80)
#: ``--fresh``: a later held-out draw (seed, Gluon and ``tl`` probes) of both families,
#: compiled after every convert rule was written and only compared (set ``cvt_fresh``)
FRESH_OUT = ROOT / "tests" / "data" / "triton_cvt_fresh_probes.json.gz"
FRESH_DRAW = (40961, 50, 25)
#: ``--fresh --confirm``: a second later draw, made to confirm the first (set ``cvt_confirm``)
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_cvt_confirm_probes.json.gz"
CONFIRM_DRAW = (48611, 40, 20)
SEED = 2651
N_GLUON = int(os.environ.get("N_GLUON", 180))
N_TL = int(os.environ.get("N_TL", 90))
REGISTER_OPS = re.compile(r"^(shfl\.sync\.\w+\.b32|redux\.sync\.\w+|selp\.[bfsu](?:16|32|64)|"
                          r"prmt\.b32|ds_bpermute_b32|ds_swizzle_b32|v_permlane\w+|v_perm_b32|"
                          r"v_cndmask_b32(?:_e\d+)?|\w+_dpp)$")
SHARED_OPS = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix|ds_read|ds_write|"
                        r"ds_load|ds_store)")
SHUFFLE_OPS = re.compile(r"^(shfl\.|redux\.|ds_bpermute|ds_swizzle|v_permlane|v_mov_b32_dpp)")
AMD_LOCAL = re.compile(r"^(v_cndmask|v_perm_b32)")
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
TARGETS = ("cuda80", "cuda90", "cuda100", "gfx942", "gfx950")


def asm_counts(asm: str, line: int | None, data: bool = False) -> dict:
    """Register-exchange and shared-memory opcodes of the assembly lines attributed to source
    ``line`` of any file (every line when None). Register opcodes inside inline assembly are
    left out (Triton's global loads are inline); shared-memory ones count (a scan's predicated
    ``st.shared`` is inline). ``data``: the data path only (:mod:`datapath`: an opcode
    that computes an address or a lane index is left out)."""
    return _counted(asm, lambda key: line is None or key[1] == line, data=data)


def asm_lines(asm: str, data: bool = False, register_ops: re.Pattern = REGISTER_OPS) -> dict:
    """``{"file.py:line": {opcode: count}}``: the opcodes of :func:`asm_counts` by the source
    line their ``.loc`` gives (file by base name); ``data`` as there; ``register_ops``: the
    register opcodes recorded (default :data:`REGISTER_OPS`)."""
    out: dict = collections.defaultdict(collections.Counter)
    _counted(asm, lambda key: True, out, data=data, register_ops=register_ops)
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def _counted(asm: str, want, by_line: dict | None = None, data: bool = False,
             register_ops: re.Pattern = REGISTER_OPS) -> dict:
    # PTX: .file 1 "/dir/name.py"; AMDGCN: .file 1 "/dir" "name.py"
    files = {m.group(1): pathlib.Path(m.group(3) or m.group(2)).name
             for m in re.finditer(r'^\s*\.file\s+(\d+)\s+"([^"]*)"(?:\s+"([^"]*)")?', asm,
                                  re.M)}
    on = data_path_lines(asm, is_amdgcn(asm)) if data else None
    cur, inline = None, False
    out: collections.Counter = collections.Counter()
    for i, raw in enumerate(asm.splitlines()):
        s = raw.strip()
        if "begin inline asm" in s or s.startswith(";;#ASMSTART"):
            inline = True
        if "end inline asm" in s or s.startswith(";;#ASMEND"):
            inline = False
        m = LOC.match(s)
        if m:
            cur = (files.get(m.group(1), m.group(1)), int(m.group(2)))
            continue
        if cur is None or not want(cur) or not s \
                or s.startswith(("//", ";", ".", "{", "}")) or s.endswith(":"):
            continue
        op = s.split()[0].rstrip(",")
        if op.startswith("@"):
            op = s.split()[1]
        if on is not None and i not in on:
            continue  # address or lane arithmetic (every shared-memory access of the probes
            # is on the data path: the scratch holds the tensor's values)
        if (register_ops.match(op) and not inline) or SHARED_OPS.match(op):
            out[op] += 1
            if by_line is not None:
                by_line[f"{cur[0]}:{cur[1]}"][op] += 1
    return dict(sorted(out.items()))


def build(seed: int = SEED, targets: tuple[str, ...] = TARGETS) -> dict:
    """Compile the probes (Triton 3.9.0), each counted by TTGIR op (:func:`convert_located`,
    :func:`op_located`); each probe's target drawn from ``targets`` (names of
    ``probe_compile.TARGETS``; the fixtures of this script draw from :data:`TARGETS`)."""
    import triton
    import triton.language as tl
    from corpus import strip_locs
    from gluon_kernels import convert_kernel, linear_layout as linear, random_blocked as \
        rand_blocked
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language import amd as gl_amd
    from triton.experimental.gluon._runtime import GluonASTSource

    @triton.jit
    def t_trans(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x))

    @triton.jit
    def t_join(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        a = tl.load(X + rm[:, None] * N + rn[None, :])
        b = tl.load(X + M * N + rm[:, None] * N + rn[None, :])
        z = tl.join(a, b)
        r2 = tl.arange(0, 2)
        tl.store(Y + rm[:, None, None] * N * 2 + rn[None, :, None] * 2 + r2[None, None, :], z)

    @triton.jit
    def t_split(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        r2 = tl.arange(0, 2)
        z = tl.load(X + rm[:, None, None] * N * 2 + rn[None, :, None] * 2 + r2[None, None, :])
        a, b = tl.split(z)
        tl.store(Y + rm[:, None] * N + rn[None, :], a)
        tl.store(Y + M * N + rm[:, None] * N + rn[None, :], b)

    @triton.jit
    def t_softmax(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        y = x - tl.max(x, axis=1)[:, None]
        tl.store(Y + rm[:, None] * N + rn[None, :], y)

    @triton.jit
    def t_cumsum(X, Y, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        tl.store(Y + rm[:, None] * N + rn[None, :], tl.cumsum(x, axis=AXIS))

    @triton.jit
    def t_gather(X, I, Y, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        i = tl.load(I + rm[:, None] * N + rn[None, :])
        tl.store(Y + rm[:, None] * N + rn[None, :], tl.gather(x, i, AXIS))

    @triton.jit
    def t_dot(A, B, C, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        rk = tl.arange(0, K)
        a = tl.load(A + rm[:, None] * K + rk[None, :])
        b = tl.load(B + rk[:, None] * N + rn[None, :])
        c = tl.dot(a, b)
        tl.store(C + rm[:, None] * N + rn[None, :], c.to(C.dtype.element_ty))

    g_cvt = convert_kernel()

    def split_bits(rng, M, N, lanes, warps):
        d = (M * N).bit_length() - 1
        lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
        bits = [1 << i for i in range(d)]
        rng.shuffle(bits)
        return bits[wb + lb:], bits[wb:wb + lb], bits[:wb]

    def warp_pair(rng, M, N, lanes, warps):
        # every element stays in its warp; 0 to 3 register/lane exchanges, permutations,
        # broadcasts on either side
        reg, lane, warp = split_bits(rng, M, N, lanes, warps)
        if rng.random() < 0.15 and reg:
            i = rng.randrange(len(lane))
            reg, lane = reg + [lane[i]], lane[:i] + [0] + lane[i + 1:]
        t_reg, t_lane = list(reg), list(lane)
        nz = [i for i, c in enumerate(t_lane) if c]
        for _ in range(rng.choice([0, 1, 1, 1, 2, 3])):
            if t_reg and nz:
                i, j = rng.randrange(len(t_reg)), rng.choice(nz)
                t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
        if rng.random() < 0.4:
            rng.shuffle(t_lane)
        if rng.random() < 0.5:
            rng.shuffle(t_reg)
        if rng.random() < 0.1 and t_reg:
            t_reg = t_reg + [0]
        t_warp = list(warp)
        if rng.random() < 0.2 and len(t_warp) > 1:  # warps permuted too (shared memory)
            rng.shuffle(t_warp)
        return linear(reg, lane, warp, M, N), linear(t_reg, t_lane, t_warp, M, N)

    def cross_pair(rng, M, N, lanes, warps):
        # a warp basis exchanged with a lane or a register basis of the destination
        reg, lane, warp = split_bits(rng, M, N, lanes, warps)
        t_reg, t_lane, t_warp = list(reg), list(lane), list(warp)
        for _ in range(rng.choice([1, 1, 2])):
            k = rng.randrange(len(t_warp))
            if rng.random() < 0.5 and t_reg:
                i = rng.randrange(len(t_reg))
                t_reg[i], t_warp[k] = t_warp[k], t_reg[i]
            else:
                i = rng.randrange(len(t_lane))
                t_lane[i], t_warp[k] = t_warp[k], t_lane[i]
        if rng.random() < 0.5:
            rng.shuffle(t_lane)
        if rng.random() < 0.5:
            rng.shuffle(t_reg)
        return linear(reg, lane, warp, M, N), linear(t_reg, t_lane, t_warp, M, N)

    def rand_slice(rng, lanes, warps):
        tpw, wpc = [1, 1], [1, 1]
        for _ in range(lanes.bit_length() - 1):
            tpw[rng.randrange(2)] *= 2
        for _ in range(warps.bit_length() - 1):
            wpc[rng.randrange(2)] *= 2
        spt = [1 << rng.randint(0, 1), 1 << rng.randint(0, 1)]
        return gl.SliceLayout(0, gl.BlockedLayout([1] + spt, [1] + tpw, [1] + wpc, [2, 1, 0]))

    def wpc_of(rng, warps):
        w = [1, 1]
        for _ in range(warps.bit_length() - 1):
            w[rng.randrange(2)] *= 2
        return w

    def mma_pair(rng, bits, warps, M, N, lanes, amd, tname):
        wpc = wpc_of(rng, warps)
        if amd:
            inst = rng.choice([[32, 32, 8], [16, 16, 16]])
            mma = gl_amd.AMDMFMALayout(3 if tname == "gfx942" else 4, inst, rng.random() < 0.5,
                                       wpc)
        else:
            mma = gl.NVMMADistributedLayout([2, 0], wpc, [16, 8])
        other = rng.choice(["dot", "blocked", "mma"])
        if other == "dot":
            o = gl.DotOperandLayout(rng.randint(0, 1), mma, max(1, 32 // bits))
        elif other == "blocked":
            o = rand_blocked(rng, M, N, lanes, warps)
        elif amd:
            o = gl_amd.AMDMFMALayout(mma.version, mma.instr_shape, not mma.transposed,
                                     wpc[::-1])
        else:
            o = gl.NVMMADistributedLayout([2, 0], wpc[::-1], [16, 8])
        return (mma, o) if rng.random() < 0.5 else (o, mma)

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "cuda100": GPUTarget("cuda", 100, 32),
         "gfx942": GPUTarget("hip", "gfx942", 64), "gfx950": GPUTarget("hip", "gfx950", 64)}
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}
    probes: dict = {}
    fails: collections.Counter = collections.Counter()

    def run(name, src, tname, warps, gluon):
        try:
            k = triton.compile(src, target=T[tname], options={"num_warps": warps})
        except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
            fails[type(e).__name__] += 1
            return
        asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
        # the TTGIR without its Python locations, the assembly by TTGIR op (the data path
        # too; lowering_reference.py rewrites it with the lowering's)
        ttgir = strip_locs(k.asm["ttgir"])
        if gluon:  # the convert's own line
            probes[name] = {"target": tname, **convert_located(ttgir, tname, asm)}
        else:  # tl kernels: the whole kernel
            probes[name] = {"target": tname, "ttgir": ttgir, "counts": asm_counts(asm, None),
                            **op_located(ttgir, tname, asm)}
        if len(probes) % 20 == 0:
            print(f"  {len(probes)} compiled", flush=True)

    rng = random.Random(seed)
    for _ in range(N_GLUON):
        tname = rng.choice(targets)
        amd = tname.startswith("gfx")
        lanes = 64 if amd else 32
        warps = rng.choice([1, 2, 4, 4, 8])
        bits = rng.choice([8, 16, 16, 32, 32, 64])
        kind = rng.choices(["warp", "cross", "blocked", "slice", "mma"], [6, 2, 2, 1, 2])[0]
        M, N = rng.choice([(16, 16), (32, 16), (16, 64), (64, 64), (8, 128), (32, 32),
                           (128, 32)])
        while M * N < lanes * warps * 2:
            M, N = M * 2, N
        if kind == "cross" and warps == 1:
            warps = rng.choice([2, 4, 8])
            while M * N < lanes * warps * 2:
                M *= 2
        if kind == "warp":
            L, D = warp_pair(rng, M, N, lanes, warps)
        elif kind == "cross":
            L, D = cross_pair(rng, M, N, lanes, warps)
        elif kind == "blocked":
            L, D = rand_blocked(rng, M, N, lanes, warps), rand_blocked(rng, M, N, lanes, warps)
        elif kind == "slice":
            L = rand_slice(rng, lanes, warps)
            D = rand_blocked(rng, M, N, lanes, warps) if rng.random() < 0.5 else \
                rand_slice(rng, lanes, warps)
        else:
            M, N = 64, 64
            L, D = mma_pair(rng, bits, warps, M, N, lanes, amd, tname)
        sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "D": "constexpr"}
        src = GluonASTSource(fn=g_cvt, signature=sig, constexprs={"M": M, "N": N, "L": L, "D": D})
        run(f"g_{kind}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}", src,
            tname, warps, True)

    TT = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*fp64"}
    kernels = {"trans": t_trans, "join": t_join, "split": t_split, "softmax": t_softmax,
               "cumsum": t_cumsum, "gather": t_gather, "dot": t_dot}
    for _ in range(N_TL):
        tname = rng.choice(targets)
        kind = rng.choices(list(kernels), [3, 2, 2, 2, 2, 2, 2])[0]
        warps = rng.choice([1, 2, 4, 4, 8])
        bits = rng.choice([8, 16, 16, 32, 32, 64])
        M, N = rng.choice([(16, 64), (64, 16), (32, 32), (64, 64), (32, 128), (128, 32),
                           (16, 256)])
        ty = TT[bits]
        const = {"M": M, "N": N}
        if kind == "gather":
            sig = {"X": ty, "I": "*i32", "Y": ty}
            const["AXIS"] = rng.randint(0, 1)
        elif kind == "dot":
            ty = rng.choice(["*fp16", "*fp16", "*bf16", "*fp32", "*i8"])
            K = rng.choice([16, 32, 64])
            M, N = rng.choice([(16, 16), (32, 32), (64, 64), (32, 64), (64, 128), (128, 64)])
            const = {"M": M, "N": N, "K": K}
            sig = {"A": ty, "B": ty, "C": "*i32" if ty == "*i8" else ty}
            bits = {"*fp16": 16, "*bf16": 16, "*fp32": 32, "*i8": 8}[ty]
        else:
            sig = {"X": ty, "Y": ty}
            if kind == "cumsum":
                const["AXIS"] = rng.randint(0, 1)
            if kind == "softmax" and bits == 8:
                ty = "*fp16"
                sig = {"X": ty, "Y": ty}
                bits = 16
        sig.update({k: "constexpr" for k in const})
        src = ASTSource(fn=kernels[kind], signature=sig, constexprs=const)
        run(f"t_{kind}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}", src, tname,
            warps, False)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def check_json(ttgir: str) -> dict:
    """``linlayout check --json`` of one TTGIR text: its single file's entry."""
    import json
    import tempfile

    from linlayout.check import check_files, render_json

    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "probe.ttgir"
        path.write_text(ttgir, encoding="utf-8")
        (doc,) = json.loads(render_json(check_files([str(path)]), 1, False))["files"]
    return doc


def _canonical_shared(op: str) -> str:
    """``st.shared.v2.b16`` and ``st.shared.b32`` -> ``st.shared/4B``; sm_100 prints a 16-byte
    vector as ``.v2.b64`` or ``.v4.b32`` (one name per width); others unchanged."""
    m = re.fullmatch(r"(ld|st)\.shared(?:::cta)?(?:\.v(\d))?\.[bsuf](\d+)", op)
    if not m:
        return op
    return f"{m.group(1)}.shared/{int(m.group(2) or 1) * int(m.group(3)) // 8}B"


def _lds_side(op: str) -> tuple[str, int] | None:
    m = re.match(r"ds_(read|write|load|store)(2st64|2)?_[biu](\d+)", op)
    if not m:
        return None
    pairs = 2 if m.group(2) else 1
    return ("load" if m.group(1) in ("read", "load") else "store"), pairs * int(m.group(3)) // 8


def _register(op: str) -> str:
    op = re.sub(r"_e(32|64)$", "", op)
    op = re.sub(r"^selp\.[fsu](\d+)$", r"selp.b\1", op)  # one select, typed spellings
    return re.sub(r"^v_\w+_dpp$", "v_mov_b32_dpp", op)


def summarise(counts_or_instrs, amd: bool, keep) -> dict:
    """One comparable summary: register opcodes kept by ``keep`` and shared memory by width
    (NVIDIA) or LDS bytes per thread (AMD). Accepts the assembly's ``{opcode: count}`` or
    ``check``'s ``[(space, opcode, per_thread, bytes_per_thread)]``."""
    regs: collections.Counter = collections.Counter()
    shared: collections.Counter = collections.Counter()
    if isinstance(counts_or_instrs, dict):
        for op, n in counts_or_instrs.items():
            if REGISTER_OPS.match(op):
                if keep(_register(op)):
                    regs[_register(op)] += n
            elif amd:
                side = _lds_side(op)
                if side:
                    shared[side[0] + "_bytes"] += n * side[1]
            else:
                shared[_canonical_shared(op)] += n
    else:
        for space, op, n, nbytes, side in counts_or_instrs:
            if space == "register":
                if REGISTER_OPS.match(op) and keep(_register(op)):
                    regs[_register(op)] += n
            elif amd:
                if side in ("load", "store"):
                    shared[side + "_bytes"] += nbytes
            else:
                shared[_canonical_shared(op)] += n
    return {"registers": dict(sorted(regs.items())), "shared": dict(sorted(shared.items()))}


def _instructions(ops: list) -> list:
    """``(space, opcode, per_thread, bytes_per_thread, side)`` of ``check --json`` ops' counted
    instructions; a pipelined loop's asynchronous copies from global into shared memory
    (``async_copy_global_to_local``: ``cp.async``, gfx950's ``global_load_lds_*``) are left
    out, as :func:`asm_counts` does not count them. An LDS access's bytes are its opcode's
    (``ds_write_b32``: 4 a lane), as the assembly's are read (:func:`_lds_side`): the
    operands of a multi-operand ``tt.reduce`` (an argmax's ``i16`` values and ``i32``
    indices) move with their own widths, not the op's ``element_bits``."""
    out = []
    for o in ops:
        if o["op"] == "async_copy_global_to_local":
            continue
        for i in o["instructions"]:
            per = i.get("per_thread")
            if per is None:
                continue
            vec = i.get("vector_elems")
            side = _lds_side(i.get("isa") or "")
            nbytes = per * side[1] if side else \
                per * vec * o["element_bits"] // 8 if vec else 0
            out.append((i.get("space"), i.get("ptx") or i.get("isa"), per, nbytes, i.get("side")))
    return out


def _kernel_shared(p: dict) -> dict:
    """The shared-memory opcodes of the whole kernel (LLVM may move a convert's loads next to
    the store that consumes them, under the store's line)."""
    out: collections.Counter = collections.Counter()
    for counts in p["lines"].values():
        out.update({k: v for k, v in counts.items() if not REGISTER_OPS.match(k)})
    return dict(out)


def _keep(shared_convert: bool):
    """Which register opcodes are compared: all of them, next to a convert that goes through
    shared memory too (the ``prmt``/``v_perm`` packing its vectors is modelled:
    :mod:`linlayout.lowering.round_trip_pack`)."""
    return lambda op: True


def lowering(p: dict) -> dict:
    """The probe as Triton lowers it: its ``"counts"`` and ``"lines"`` replaced by those of its
    ``"lowering"`` record (the assembly LLVM's back end selects from Triton's LLVM IR with the
    ``-O3`` middle end skipped: ``papers/triton_lowering/lowering_reference.py``)."""
    low = p["lowering"]
    return {**p, "counts": low["counts"], "lines": low.get("lines", p.get("lines"))}


def data_path(p: dict) -> dict:
    """The probe as ``check`` reports it: its ``"counts"``/``"lines"`` and those of its
    ``"lowering"`` replaced by their ``"data"`` records (the data-path counts written by
    ``lowering_reference.py``: ``datapath.py`` leaves out the register opcodes that compute
    addresses or lane indices). A probe fresh from :func:`build` has its final assembly's
    ``"data"`` only."""
    out = {**p, "counts": p["data"]["counts"], "lines": p["data"].get("lines", p.get("lines"))}
    if "lowering" in p:  # a fresh draw (``--seed``) has none
        low = p["lowering"]
        out["lowering"] = {**low, "counts": low["data"]["counts"],
                           "lines": low["data"].get("lines", low.get("lines"))}
    return out


#: a probe's ``"lines_by"`` when its ``"lines"`` (and those of its ``"lowering"`` and
#: ``"data"`` records) are keyed by TTGIR op, ``probe.ttgir:N``: the assembly of its TTGIR
#: compiled with the locations removed (``corpus.strip_locs``), so that each op's LLVM IR and
#: assembly carry the op's own line N in that text. Without it a ``t_`` kernel's are keyed by
#: the kernel's Python source line, which Triton gives to several ops at once: the convert it
#: inserts after a cast takes the cast's location (``p.to(bf16)`` then
#: ``ttg.convert_layout`` to the dot operand layout, both at the cast's line and column).
TTGIR_OP = "ttgir_op"


def op_located(ttgir: str, tname: str, asm: str) -> dict:
    """A kernel's records counted by TTGIR op (:data:`TTGIR_OP`): ``{"lines", "lines_by", "data":
    {"counts", "lines"}}`` of its TTGIR text ``ttgir`` (with or without its Python locations)
    compiled again for target ``tname`` (``probe_compile.TARGETS``) with ``-O3`` and its
    locations removed (``corpus.strip_locs``), each op then at its own line of ``probe.ttgir``.
    Raises ``RuntimeError`` when that compile's opcodes (:func:`asm_counts`, the whole kernel)
    differ from those of ``asm``, the kernel compiled from its Python source: locations must
    change no code. Needs Triton 3.9.0."""
    from corpus import strip_locs
    from probe_compile import compile_ttgir

    by_op = compile_ttgir(strip_locs(ttgir), tname, o3=True)
    if asm_counts(by_op, None) != asm_counts(asm, None):
        raise RuntimeError(f"the TTGIR without its locations compiles to other instructions "
                           f"than the kernel ({tname}): {asm_counts(by_op, None)} against "
                           f"{asm_counts(asm, None)}")
    return {"lines": asm_lines(by_op), "lines_by": TTGIR_OP,
            "data": {"counts": asm_counts(by_op, None, data=True),
                     "lines": asm_lines(by_op, data=True)}}


def convert_located(ttgir: str, tname: str, asm: str) -> dict:
    """A one-convert Gluon probe's records by TTGIR op: ``{"ttgir", "counts", "lines",
    "lines_by", "data": {"counts", "lines"}}`` — :func:`op_located` of its TTGIR text
    ``ttgir`` (locations removed) for target ``tname``, with ``"counts"`` (and the data
    path's) those of the convert's own line, ``probe.ttgir:N``
    (``gluon_kernels.convert_line``). ``asm``: the kernel compiled from its Python source.
    Raises ``ValueError`` when the TTGIR has no convert or several, ``RuntimeError`` as
    :func:`op_located`. Needs Triton 3.9.0."""
    from gluon_kernels import convert_line

    key = f"probe.ttgir:{convert_line(ttgir)}"
    rec = op_located(ttgir, tname, asm)
    rec["data"]["counts"] = rec["data"]["lines"].get(key, {})
    return {"ttgir": ttgir, "counts": rec["lines"].get(key, {}), **rec}


def op_line_key(o: dict, p: dict, script: str) -> str | None:
    """The key of probe ``p``'s ``"lines"`` under which the assembly of ``check --json`` op
    ``o`` is counted: ``probe.ttgir:<o["line"]>`` when ``p["lines_by"]`` is
    :data:`TTGIR_OP` (the op's own TTGIR line), else the op's Python source location
    ``o["source"]`` when it lies in ``script`` (a file base name), else None (an op of
    Triton's library, such as ``tl.max``'s combine)."""
    if p.get("lines_by") == TTGIR_OP:
        return f"probe.ttgir:{o['line']}"
    src = o.get("source")
    return src if src and src.startswith(script + ":") else None


def prediction(p: dict, name: str, doc: dict | None = None, script: str | None = None
               ) -> tuple[dict, dict, list, dict]:
    """(predicted, observed, convert lines without instructions, opcodes not compared) for one
    probe, from ``check --json`` (observed: the final assembly of ``p``; pass
    :func:`lowering` of it to compare with Triton's lowering before ``-O3``). ``doc``: the
    probe's :func:`check_json`, when already computed; ``script``: the base name of the file
    defining the ``t_`` kernels (this script's when None). ``g_`` probes: the convert's line.
    ``t_`` kernels: register instructions on the lines holding a convert or a gather
    (:func:`op_line_key`: each op's own TTGIR line where the probe is keyed so, else the
    script's source lines), the exchanges of reduces and scans over the rest of the kernel
    (their selects are not modelled; Triton's ``tl.max``/``tl.cumsum`` bodies are attributed
    to the library's lines), shared memory over the whole kernel."""
    amd = p["target"].startswith("gfx")
    ops = (doc or check_json(p["ttgir"]))["ops"]
    empty = [o["line"] for o in ops if o["kind"] == "convert" and (
        not o["instructions"] and "no instructions" not in (o.get("note") or "")
        or any(i.get("per_thread") is None for i in o["instructions"]))]
    reg = lambda x: {k: v for k, v in x.items() if REGISTER_OPS.match(k)}  # noqa: E731
    if name.startswith("g_"):
        via_shared = any(o["kind"] == "convert" and o["uses_shared_memory"] for o in ops)
        keep = _keep(via_shared)
        pred = summarise(_instructions(ops), amd, keep)
        seen = summarise(reg(p["counts"]), amd, keep)
        seen["shared"] = summarise(_kernel_shared(p), amd, keep)["shared"]
        packing = {k: v for k, v in reg(p["counts"]).items() if not keep(_register(k))}
        return pred, seen, empty, packing
    script = script or pathlib.Path(__file__).name
    by_line: dict = collections.defaultdict(list)
    for o in ops:
        key = op_line_key(o, p, script)
        if key:
            by_line[key].append(o)
    cvt_lines = {s for s, os_ in by_line.items()
                 if any(o["kind"] == "convert" or o["op"] == "gather" for o in os_)}
    # tensor-memory ops broadcast a warp-uniform value with one shfl.sync.idx of their own
    named = {s for s, os_ in by_line.items() if any(o["kind"] == "named" for o in os_)}
    pred = {"registers": collections.Counter(), "shared": collections.Counter()}
    seen = {"registers": collections.Counter(), "shared": collections.Counter()}
    packing: collections.Counter = collections.Counter()
    for s in cvt_lines:
        keep = _keep(any(o["kind"] == "convert" and o["uses_shared_memory"]
                         for o in by_line[s]))
        counts = reg(p["lines"].get(s, {}))
        if s in named and counts.get("shfl.sync.idx.b32"):  # a wgmma's on the convert's line
            counts = {**counts, "shfl.sync.idx.b32": counts["shfl.sync.idx.b32"] - 1}
        pred["registers"].update(summarise(
            [i for i in _instructions(by_line[s]) if i[0] == "register"], amd, keep)["registers"])
        seen["registers"].update(summarise(counts, amd, keep)["registers"])
        packing.update({k: v for k, v in counts.items() if not keep(_register(k))})
    rest = [o for o in ops if o["op"] in ("reduce", "scan") and o.get("source") not in cvt_lines]
    shuffles = lambda op: bool(SHUFFLE_OPS.match(op))  # noqa: E731
    pred["registers"].update(summarise(
        [i for i in _instructions(rest) if i[0] == "register"], amd, shuffles)["registers"])
    for s, counts in p["lines"].items():
        if s not in cvt_lines and s not in named:
            seen["registers"].update(summarise(reg(counts), amd, shuffles)["registers"])
    pred["shared"].update(summarise(
        [i for i in _instructions(ops) if i[0] != "register"], amd, lambda op: False)["shared"])
    seen["shared"].update(summarise(_kernel_shared(p), amd, lambda op: False)["shared"])
    tidy = lambda d: {k: dict(sorted((a, b) for a, b in v.items() if b))  # noqa: E731
                      for k, v in d.items()}
    return tidy(pred), tidy(seen), empty, dict(packing)


def merge_outcomes(pred: dict, doc: dict) -> list[dict]:
    """The other predictions ``check`` names for one probe besides ``pred`` (the first of
    :func:`prediction`'s results), from ``doc`` (its :func:`check_json`): where a convert
    carries ``"may_merge"`` (LLVM's SelectionDAG may merge the byte stores of its result,
    word by word: ``linlayout.check.report.StoreMerge``), ``pred`` with 1 to ``words`` more
    ``v_perm_b32`` (one per merged word; the words of every such convert together). Empty
    when no op carries it."""
    words = sum(o["may_merge"]["words"] for o in doc["ops"] if o.get("may_merge"))
    out = []
    for extra in range(1, words + 1):
        regs = dict(pred["registers"])
        regs["v_perm_b32"] = regs.get("v_perm_b32", 0) + extra
        out.append({**pred, "registers": dict(sorted(regs.items()))})
    return out


def permute_range(pred: dict, doc: dict) -> tuple[int, int] | None:
    """``(low, high)``: the ``v_perm_b32`` ``check`` allows for one probe where an op carries
    ``"may_pack"`` (LLVM packs bytes with fewer or more ``v_perm_b32`` than counted:
    ``linlayout.check.report.PermuteRange``): ``pred``'s count moved by each such op's
    ``low``/``high`` against its own ``per_thread``, plus every ``may_merge`` word on top.
    None when no op carries it."""
    packs = [o["may_pack"] for o in doc["ops"] if o.get("may_pack")]
    if not packs:
        return None
    n = pred["registers"].get("v_perm_b32", 0)
    words = sum(o["may_merge"]["words"] for o in doc["ops"] if o.get("may_merge"))
    return (n - sum(p["per_thread"] - p["low"] for p in packs),
            n + sum(p["high"] - p["per_thread"] for p in packs) + words)


def agrees(pred: dict, seen: dict, doc: dict) -> bool:
    """Whether the assembly's counts ``seen`` are the prediction ``pred`` or one of the
    other outcomes ``check`` names for that probe (:func:`merge_outcomes`; where an op
    carries ``"may_pack"``, any ``v_perm_b32`` count in :func:`permute_range` with every
    other count equal); ``doc``: the probe's :func:`check_json`."""
    if pred == seen or seen in merge_outcomes(pred, doc):
        return True
    span = permute_range(pred, doc)
    if span is None:
        return False
    drop = lambda d: {**d, "registers": {k: v for k, v in d["registers"].items()  # noqa: E731
                                         if k != "v_perm_b32"}}
    return drop(pred) == drop(seen) and \
        span[0] <= seen["registers"].get("v_perm_b32", 0) <= span[1]


def round_trips(data: dict) -> dict:
    """``data`` keeping only the probes where ``check`` sends an 8- or 16-bit convert through
    shared memory."""
    keep = {}
    for name, p in data["probes"].items():
        ops = check_json(p["ttgir"])["ops"]
        if any(o["kind"] == "convert" and o["uses_shared_memory"] and o["element_bits"] in (8, 16)
               for o in ops):
            keep[name] = p
    return {**data, "probes": keep}


def lowering_draw(seed: int) -> dict:
    """A draw made after the rules that follow Triton's lowering before ``-O3`` (the 8-bit
    load side's byte extracts, the 8-bit shuffle path's unpacking, the gather's select width):
    seed ``seed``, :data:`LOWERING_DRAW` probes, keeping those on NVIDIA with an 8- or 16-bit
    convert or a gather, each with its ``"lowering"`` record
    (``papers/triton_lowering/lowering_reference.py``)."""
    global N_GLUON, N_TL
    from lowering_reference import reference

    _, N_GLUON, N_TL = LOWERING_DRAW
    data = build(seed)
    keep = {}
    for name, p in data["probes"].items():
        if not p["target"].startswith("cuda"):
            continue
        ops = check_json(p["ttgir"])["ops"]
        if any(o["kind"] == "convert" and o["element_bits"] in (8, 16) or o["op"] == "gather"
               for o in ops):
            keep[name] = {**p, "lowering": reference(name, p)}
    return {**data, "probes": keep}


def compare(data: dict, known_set: str = "cvt_heldout", script: str | None = None) -> int:
    """Print every probe whose prediction differs, a tally by target and family; the number of
    differences not listed in ``tests/data/known_mismatches.json`` (set ``known_set``).
    ``script``: as in :func:`prediction`."""
    import json

    known = json.loads((ROOT / "tests" / "data" / "known_mismatches.json").read_text(
        encoding="utf-8")).get(known_set, {})
    from respelling import follows_final, listed

    respelled, final_form = listed(known_set), follows_final(known_set)
    bad = 0
    tally: collections.Counter = collections.Counter()
    final: collections.Counter = collections.Counter()
    for name, p in sorted(data["probes"].items()):
        doc = check_json(p["ttgir"])
        if "data" in p:  # what check reports: the data path
            p = data_path(p)
        if "lowering" in p:  # the final assembly: where it differs, listed with its LLVM pass
            low = prediction(lowering(p), name, doc, script)[1]
            fin = prediction(p, name, doc, script)[1]
            final[low == fin] += 1
            bad += (low != fin) != (name in respelled)
            if low != fin:
                print(f"LLVM {name}: lowering {low} final {fin}"
                      + (f" ({respelled[name]})" if name in respelled else " (NOT LISTED)"))
        ref = lowering(p) if "lowering" in p and name not in final_form else p
        pred, seen, empty, _ = prediction(ref, name, doc, script)
        same = agrees(pred, seen, doc) and not empty
        family = "_".join(name.split("_")[:2])
        tally[(p["target"], family, same)] += 1
        if not same:
            bad += name not in known
            print(f"DIFF {name}: predicted {pred} observed {seen}"
                  + (f" uncounted lines {empty}" if empty else "")
                  + (f" (known: {known[name]})" if name in known else ""))
    if final:
        print(f"final assembly: {final[True]} as lowered, {final[False]} re-spelt by LLVM")
    by_target: collections.Counter = collections.Counter()
    by_family: collections.Counter = collections.Counter()
    for (t, f, same), n in tally.items():
        by_target[(t, same)] += n
        by_family[(f, same)] += n
    for label, tab in (("target", by_target), ("family", by_family)):
        for key in sorted({k for k, _ in tab}):
            print(f"{label} {key}: {tab[(key, True)]} equal, {tab[(key, False)]} not")
    total = sum(tally.values())
    print(f"all (Triton's lowering where recorded): "
          f"{sum(n for (_, _, s), n in tally.items() if s)} of {total} equal")
    return bad


def main(argv: list[str] | None = None) -> int:
    import gzip
    import json

    from fixture import draw_parser, write_or_check

    ap = draw_parser(__doc__)
    ap.add_argument("--roundtrip", action="store_true",
                    help="the round-trip set (ROUNDTRIP_DRAW, 8/16-bit converts through shared "
                         "memory) instead")
    ap.add_argument("--lowering", action="store_true",
                    help="the draw made after the lowering rules (LOWERING_DRAW, NVIDIA 8/16-bit "
                         "converts and gathers, with their lowering records) instead")
    ap.add_argument("--fresh", action="store_true",
                    help="the later held-out draw (FRESH_DRAW) instead: write it (or compare "
                         "it with --compare-only)")
    ap.add_argument("--confirm", action="store_true",
                    help="with --fresh: the second later draw (CONFIRM_DRAW)")
    args = ap.parse_args(argv)
    global N_GLUON, N_TL
    if args.lowering:
        out, known = LOWERING_OUT, "cvt_lowering"
        if not args.compare_only:
            os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
            rc = write_or_check(out, lowering_draw(LOWERING_DRAW[0]), args.check)
            if rc:
                return rc
        return 1 if compare(json.loads(gzip.decompress(out.read_bytes())), known) else 0
    if args.fresh:
        out, draw, name = (CONFIRM_OUT, CONFIRM_DRAW, "cvt_confirm") if args.confirm else \
            (FRESH_OUT, FRESH_DRAW, "cvt_fresh")
        if not args.compare_only:
            os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
            N_GLUON, N_TL = draw[1:]
            rc = write_or_check(out, build(draw[0]), args.check)
            print(f"now run lowering_reference.py {name}, then --fresh --compare-only")
            return rc
        return 1 if compare(json.loads(gzip.decompress(out.read_bytes())), name) else 0
    if args.roundtrip:
        out, known = ROUNDTRIP_OUT, "cvt_roundtrip"
        if args.compare_only:
            return 1 if compare(json.loads(gzip.decompress(out.read_bytes())), known) else 0
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        seed, N_GLUON, N_TL = ROUNDTRIP_DRAW
        data = round_trips(build(seed))
        print("now run lowering_reference.py cvt_roundtrip, then --roundtrip --compare-only")
        return write_or_check(out, data, args.check)
    if args.seed is not None:
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        return 1 if compare(build(args.seed)) else 0
    if args.compare_only:
        return 1 if compare(json.loads(gzip.decompress(OUT.read_bytes()))) else 0
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    data = build()
    print("now run lowering_reference.py cvt_heldout, then --compare-only")
    return write_or_check(OUT, data, args.check)


if __name__ == "__main__":
    sys.exit(main())
