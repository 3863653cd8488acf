#!/usr/bin/env python
"""Warp-shuffle conversion probes: which path Triton 3.9.0 takes for a ``convert_layout``
between two distributed layouts, and the register instructions of its warp-shuffle path.

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~6 min)::

    python papers/triton_lowering/shuffle_probes.py          # writes tests/data/triton_shuffle_probes.json.gz
    python papers/triton_lowering/shuffle_probes.py --check  # compare, write nothing
    python papers/triton_lowering/shuffle_probes.py --amd    # the AMD set, triton_amd_shuffle_probes.json.gz

Each Gluon probe loads a tile in a random distributed layout, converts it
(``gl.convert_layout``) and stores it (``gluon_kernels.py``'s ``g_cvt``). The pairs are drawn
(fixed seeds) to reach every path: ``DistributedLinearLayout`` pairs that keep each element in
its warp, the destination made from the source by zero, one or two register/lane exchanges, a
random lane permutation, a register permutation and broadcast lanes or registers on either side
(or by a lane permutation alone); random ``BlockedLayout`` pairs; ``NVMMADistributedLayout``
(mma v2) to and from its ``DotOperandLayout`` s and blocked layouts; ``SliceLayout`` s of 3-D
blocked parents. Elements of 8, 16, 32 and 64 bits; 1, 2 or 4 warps; ``cuda:80``,
``cuda:90``, ``gfx942`` and ``gfx950``. The instructions are read from the PTX/AMDGCN lines whose ``.loc`` is the
convert's own TTGIR line (the TTGIR compiled again without its locations, each op at its own
line: :func:`convert_located`, so no count depends on the kernel's Python source lines;
inline assembly excluded: only the loads are inline). A second family
(``max_``/``sum_``/``cumsum_``) reduces or scans a random ``BlockedLayout`` tile along one
axis (f16/f32/f64; scans on NVIDIA only), a third (``gather_``) gathers along one axis with
an ``i32`` index tile in the same or another blocked layout; both count the whole kernel's
shuffles (nothing else in them shuffles). The fixture keeps the TTGIR with the counts and, for
NVIDIA converts, the shuffles, selects and byte permutes of Triton's LLVM IR before ``-O3``
at the convert's line (``preopt``). The script compares them with what ``linlayout check``
predicts (``predict_module`` with ``load_sources``, ``convert_path``,
``linlayout.check.registers``) and prints every difference; it exits 1 on a difference on
NVIDIA that ``tests/data/known_mismatches.json`` does not list (AMD differences are listed
there too).

``--amd`` draws an AMD-only set (gfx942/gfx950, seeds ``AMD_SEEDS``) after the AMD rules:
the same families with scans included, plus sources broadcast over warps (``bcast_``) and
8-bit register-only permutations (``inthread_``); it exits 1 on any difference not listed.

Result (270 probes, Triton 3.9.0), against Triton's lowering (each probe's ``"lowering"``
record, added by ``lowering_reference.py``) and counted on the data path (its ``"data"``
records, ``datapath.py``): NVIDIA 188 of 188 equal, AMD 77 of 77 plus 5 whose packing
``check`` models after ``-O3``; the AMD set 676 of 676 plus 44 (186 of 188 and 674 of 677
plus 43 while address arithmetic was counted). The final assembly's differences are listed with their LLVM pass in
``tests/data/llvm_respelling.json``.
"""

from __future__ import annotations

import collections
import os

os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # no cache hits: the pre-O3 LLVM IR must be produced
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import write_or_check  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_shuffle_probes.json.gz"
#: the AMD-only set (``--amd``), drawn after the AMD rules were written (held out)
AMD_OUT = ROOT / "tests" / "data" / "triton_amd_shuffle_probes.json.gz"
SEEDS = (1, 2)
AMD_SEEDS = (31, 32, 41, 42)
#: ``--fresh``: a later held-out draw (seed, probes per seed) of the same families, compiled
#: after every shuffle rule was written and only compared; ``--fresh --amd`` the AMD-only one
FRESH_OUT = ROOT / "tests" / "data" / "triton_shuffle_fresh_probes.json.gz"
FRESH_DRAW = ((57,), 54)
AMD_FRESH_OUT = ROOT / "tests" / "data" / "triton_amd_shuffle_fresh_probes.json.gz"
AMD_FRESH_DRAW = ((67,), 42)
PER_SEED = int(os.environ.get("PER_SEED", 90))
#: opcodes compared (PTX and AMDGCN); shared-memory ones tell the path
REGISTER_OPS = re.compile(r"^(shfl\.sync\.\w+\.b32|redux\.sync\.\w+|selp\.[bfsu](?:16|32|64)|prmt\.b32|"
                          r"ds_bpermute_b32|"
                          r"ds_swizzle_b32|v_permlane\w+|v_perm_b32|v_cndmask_b32(?:_e\d+)?|"
                          r"\w+_dpp)$")
SHARED_OPS = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix|ds_read|ds_write|"
                        r"ds_load|ds_store)")
LOC = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+")


def convert_counts(asm: str, line: int) -> dict:
    """Register and shared-memory opcodes of the lines attributed to source ``line`` (all
    lines when None)."""
    cur, inline = None, False
    out: collections.Counter = collections.Counter()
    for raw in asm.splitlines():
        s = raw.strip()
        if "begin inline asm" in s or s.startswith(";;#ASMSTART"):
            inline = True
        if "end inline asm" in s or s.startswith(";;#ASMEND"):
            inline = False
        m = LOC.match(s)
        if m:
            cur = int(m.group(1))
            continue
        if (line is not None and cur != line) or inline or not s \
                or s.startswith(("//", ";", ".", "{", "}")) \
                or s.endswith(":"):
            continue
        op = s.split()[0].rstrip(",")
        if op.startswith("@"):
            op = s.split()[1]
        if REGISTER_OPS.match(op) or SHARED_OPS.match(op):
            out[op] += 1
    return dict(sorted(out.items()))


def preopt_counts(ll: str, line: int) -> dict:
    """Shuffles, selects and byte permutes of Triton's LLVM IR (before LLVM's optimiser) whose
    debug location is source ``line``; NVIDIA only."""
    locs = {m.group(1) for m in re.finditer(rf"^(!\d+) = !DILocation\(line: {line},", ll, re.M)}
    out: collections.Counter = collections.Counter()
    for raw in ll.splitlines():
        m = re.search(r"!dbg (!\d+)", raw)
        if not m or m.group(1) not in locs:
            continue
        if "@llvm.nvvm.shfl.sync" in raw:
            out["shuffle"] += 1
        elif re.search(r"= select ", raw):
            out["select"] += 1
        elif "@llvm.nvvm.prmt" in raw:
            out["permute"] += 1
    return dict(sorted(out.items()))


def convert_located(k, tname: str, preopt: bool = False) -> dict:
    """A one-convert probe's fixture entry counted by TTGIR op: ``{"target", "ttgir",
    "counts"}`` (and ``"preopt"`` with ``preopt``) of kernel ``k`` (compiled from
    ``gluon_kernels.convert_kernel`` for target ``tname``) — its TTGIR without locations
    (``corpus.strip_locs``) compiled again (``lowering_reference.compile_probe``), so that
    each op carries its own TTGIR line, and :func:`convert_counts` and :func:`preopt_counts`
    read on the convert's line (``gluon_kernels.convert_line``), whatever the kernel's Python
    source lines. Raises ``RuntimeError`` when that compile's opcodes differ from ``k``'s
    (locations must change no code), ``ValueError`` when the TTGIR has no convert or
    several. Needs Triton 3.9.0."""
    from corpus import strip_locs
    from gluon_kernels import convert_line
    from lowering_reference import compile_probe

    asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
    ttgir = strip_locs(k.asm["ttgir"])
    line = convert_line(ttgir)
    by_op, _, pre = compile_probe(ttgir, tname, o3=True)
    if convert_counts(by_op, None) != convert_counts(asm, None):
        raise RuntimeError(f"the TTGIR without its locations compiles to other instructions "
                           f"({tname}): {convert_counts(by_op, None)} against "
                           f"{convert_counts(asm, None)}")
    entry = {"target": tname, "ttgir": ttgir, "counts": convert_counts(by_op, line)}
    if preopt:
        entry["preopt"] = preopt_counts(pre, line)
    return entry


def build(seeds: tuple[int, ...] = SEEDS, amd: bool = False, per_seed: int = PER_SEED) -> dict:
    """Compile the probes. ``amd``: AMD targets only (gfx942, gfx950), scans included, and two
    more families — a source broadcast over warps (``bcast_``) and 8-bit register-only
    permutations (``inthread_``)."""
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel, linear_layout as linear, random_blocked as \
        rand_blocked
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    g_cvt = convert_kernel()

    @gluon.jit
    def g_red(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, AXIS: gl.constexpr,
              KIND: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        if KIND == 0:
            y = gl.max(x, axis=AXIS)
        elif KIND == 1:
            y = gl.sum(x, axis=AXIS)
        else:
            y = gl.cumsum(x, axis=AXIS)
        if KIND == 2:
            gl.store(Y + rm[:, None] * N + rn[None, :], y)
        elif AXIS == 0:
            gl.store(Y + rn, y)
        else:
            gl.store(Y + rm, y)

    @gluon.jit
    def g_gather(X, I, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
                 LI: gl.constexpr, AXIS: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        im = gl.arange(0, M, layout=gl.SliceLayout(1, LI))
        jn = gl.arange(0, N, layout=gl.SliceLayout(0, LI))
        i = gl.load(I + im[:, None] * N + jn[None, :])
        y = gl.gather(x, i, AXIS)
        gl.store(Y + im[:, None] * N + jn[None, :], y)

    def warp_pair(rng, M, N, lanes, warps):
        d = (M * N).bit_length() - 1
        lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
        bits = [1 << i for i in range(d)]
        rng.shuffle(bits)
        warp = bits[:wb]
        lane = bits[wb:wb + lb]
        reg = bits[wb + lb:]
        if rng.random() < 0.15 and reg:  # a broadcast lane in the source
            i = rng.randrange(lb)
            reg = reg + [lane[i]]
            lane[i] = 0
        s_reg, s_lane = list(reg), list(lane)
        t_reg, t_lane = list(reg), list(lane)
        if rng.random() < 0.15:  # lanes permuted, registers kept
            while t_lane == s_lane:
                rng.shuffle(t_lane)
            return linear(s_reg, s_lane, warp, M, N), linear(t_reg, t_lane, warp, M, N)
        nz = [i for i, c in enumerate(t_lane) if c]
        for _ in range(rng.choice([0, 1, 1, 1, 1, 2])):
            if t_reg and nz:
                i, j = rng.randrange(len(t_reg)), rng.choice(nz)
                t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
        if rng.random() < 0.4:
            rng.shuffle(t_lane)
        if rng.random() < 0.5:
            rng.shuffle(t_reg)
        if rng.random() < 0.1 and t_reg:  # a broadcast register in the destination
            t_reg = t_reg + [0]
        if rng.random() < 0.1 and 0 in t_lane and t_reg:  # fill a broadcast lane back
            k = t_lane.index(0)
            t_lane[k] = t_reg.pop()
        return linear(s_reg, s_lane, warp, M, N), linear(t_reg, t_lane, warp, M, N)

    def rand_slice(rng, M, N, lanes, warps):
        # a 2-D slice of a 3-D blocked parent with nothing along the sliced dim
        tpw = [1, 1]
        for _ in range(lanes.bit_length() - 1):
            tpw[rng.randrange(2)] *= 2
        wpc = [1, 1]
        for _ in range(warps.bit_length() - 1):
            wpc[rng.randrange(2)] *= 2
        spt = [1 << rng.randint(0, 1), 1 << rng.randint(0, 1)]
        parent = gl.BlockedLayout([1] + spt, [1] + tpw, [1] + wpc, [2, 1, 0])
        return gl.SliceLayout(0, parent)

    def mma_pair(rng, bits, warps):
        wpc = {1: [1, 1], 2: [2, 1], 4: [2, 2]}[warps]
        mma = gl.NVMMADistributedLayout([2, 0], wpc, [16, 8])
        other = rng.choice(["dot", "blocked", "mma"])
        if other == "dot":
            k = max(1, 32 // bits)
            o = gl.DotOperandLayout(rng.randint(0, 1), mma, k)
        elif other == "blocked":
            o = rand_blocked(rng, 64, 64, 32, warps)
        else:
            o = gl.NVMMADistributedLayout([2, 0], wpc[::-1], [16, 8])
        return (mma, o) if rng.random() < 0.5 else (o, mma)

    def bcast_pair(rng, M, N, warps):
        # the source holds the whole tile in every warp (warp bases zero); the destination
        # gives each warp a part: a bit the source's lanes hold (stays in the warp) or, one
        # time in four, a bit its registers hold (shared memory)
        d = (M * N).bit_length() - 1
        bits = [1 << i for i in range(d)]
        rng.shuffle(bits)
        lane, reg = bits[:6], bits[6:]
        wb = warps.bit_length() - 1
        t_reg, t_lane = list(reg), list(lane)
        if rng.random() < 0.6 and t_reg:
            i, j = rng.randrange(len(t_reg)), rng.randrange(6)
            t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
        rng.shuffle(t_lane)
        warp = []
        for _ in range(wb):
            if rng.random() < 0.25 and t_reg:
                warp.append(t_reg.pop(rng.randrange(len(t_reg))))
            elif t_reg:
                j = rng.choice([k for k, c in enumerate(t_lane) if c not in warp])
                warp.append(t_lane[j])
                t_lane[j] = t_reg.pop(rng.randrange(len(t_reg)))
            else:
                warp.append(0)
        return (linear(reg, lane, [0] * wb, M, N), linear(t_reg, t_lane, warp, M, N))

    def inthread_pair(rng, M, N):
        # one warp, registers permuted in each thread only
        d = (M * N).bit_length() - 1
        bits = [1 << i for i in range(d)]
        rng.shuffle(bits)
        lane, reg = bits[:6], bits[6:]
        t_reg = list(reg)
        while t_reg == reg:
            rng.shuffle(t_reg)
        return linear(reg, lane, [], M, N), linear(t_reg, lane, [], M, N)

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "gfx942": GPUTarget("hip", "gfx942", 64), "gfx950": GPUTarget("hip", "gfx950", 64)}
    TY = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}
    probes = {}
    fails: collections.Counter = collections.Counter()

    def _compile(name, tname, warps, M, N, L, D, ty):
        sig = {"X": ty, "Y": ty, "M": "constexpr", "N": "constexpr", "L": "constexpr",
               "D": "constexpr"}
        src = GluonASTSource(fn=g_cvt, signature=sig, constexprs={"M": M, "N": N, "L": L, "D": D})
        try:
            k = triton.compile(src, target=T[tname], options={"num_warps": warps})
        except Exception as e:  # noqa: BLE001 - a pair Triton rejects is skipped
            fails[type(e).__name__] += 1
            return
        probes[name] = convert_located(k, tname)

    for seed in seeds:
        rng = random.Random(seed)
        for _ in range(per_seed):
            tname = rng.choice(["cuda80", "cuda90", "cuda90", "cuda80", "gfx942", "gfx950"])
            if amd:
                tname = rng.choice(["gfx942", "gfx950"])
            cuda = tname.startswith("cuda")
            lanes = 32 if cuda else 64
            warps = rng.choice([1, 1, 2, 4])
            bits = rng.choice([8, 16, 16, 32, 32, 64])
            kind = rng.choices(["warp", "blocked", "mma", "slice"], [6, 2, 2 if cuda else 0, 1])[0]
            M, N = rng.choice([(16, 16), (32, 16), (16, 64), (64, 64), (8, 128)])
            if M * N < lanes * warps * 2:
                M, N = 32, 32 * warps
            if kind == "warp":
                L, D = warp_pair(rng, M, N, lanes, warps)
            elif kind == "blocked":
                L, D = rand_blocked(rng, M, N, lanes, warps), rand_blocked(rng, M, N, lanes, warps)
            elif kind == "slice":
                L = rand_slice(rng, M, N, lanes, warps)
                D = rand_blocked(rng, M, N, lanes, warps) if rng.random() < 0.5 else \
                    rand_slice(rng, M, N, lanes, warps)
            else:
                M, N = 64, 64
                L, D = mma_pair(rng, bits, warps)
            sig = {"X": TY[bits], "Y": TY[bits], "M": "constexpr", "N": "constexpr",
                   "L": "constexpr", "D": "constexpr"}
            src = GluonASTSource(fn=g_cvt, signature=sig,
                                 constexprs={"M": M, "N": N, "L": L, "D": D})
            name = f"{kind}_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
            try:
                k = triton.compile(src, target=T[tname], options={"num_warps": warps})
            except Exception as e:  # noqa: BLE001 - a pair Triton rejects is skipped
                fails[type(e).__name__] += 1
                continue
            probes[name] = convert_located(k, tname, preopt=cuda)
    FTY = {16: "*fp16", 32: "*fp32", 64: "*fp64"}
    for seed in seeds:
        rng = random.Random(100 + seed)
        for _ in range(per_seed // 3):
            kind = rng.choice([0, 1, 2])
            tname = rng.choice(["cuda80", "cuda90"] if kind == 2 else list(T))
            if amd:
                tname = rng.choice(["gfx942", "gfx950"])
            cuda = tname.startswith("cuda")
            lanes = 32 if cuda else 64
            warps = rng.choice([1, 2, 4])
            bits = rng.choice([16, 32, 64]) if kind != 1 else rng.choice([32, 64])
            M, N = rng.choice([(32, 64), (64, 32), (16, 128), (32, 128)])
            L = rand_blocked(rng, M, N, lanes, warps)
            axis = rng.randint(0, 1)
            sig = {"X": FTY[bits], "Y": FTY[bits], "M": "constexpr", "N": "constexpr",
                   "L": "constexpr", "AXIS": "constexpr", "KIND": "constexpr"}
            src = GluonASTSource(fn=g_red, signature=sig,
                                 constexprs={"M": M, "N": N, "L": L, "AXIS": axis, "KIND": kind})
            name = (f"{('max', 'sum', 'cumsum')[kind]}_b{bits}_{M}x{N}_ax{axis}_w{warps}_"
                    f"{rng.getrandbits(24):06x}_{tname}")
            try:
                k = triton.compile(src, target=T[tname], options={"num_warps": warps})
            except Exception as e:  # noqa: BLE001 - a layout Triton rejects is skipped
                fails[type(e).__name__] += 1
                continue
            asm = k.asm["ptx"] if cuda else k.asm["amdgcn"]
            probes[name] = {"target": tname, "ttgir": strip_locs(k.asm["ttgir"]),
                            "counts": convert_counts(asm, None)}
    for seed in seeds:
        rng = random.Random(200 + seed)
        for _ in range(per_seed // 6):
            tname = rng.choice(list(T))
            if amd:
                tname = rng.choice(["gfx942", "gfx950"])
            cuda = tname.startswith("cuda")
            lanes = 32 if cuda else 64
            warps = rng.choice([1, 2, 4])
            bits = rng.choice([16, 32, 64])
            M, N = rng.choice([(32, 64), (64, 32), (16, 128)])
            L = rand_blocked(rng, M, N, lanes, warps)
            LI = L if rng.random() < 0.6 else rand_blocked(rng, M, N, lanes, warps)
            axis = rng.randint(0, 1)
            sig = {"X": FTY[bits], "I": "*i32", "Y": FTY[bits], "M": "constexpr",
                   "N": "constexpr", "L": "constexpr", "LI": "constexpr", "AXIS": "constexpr"}
            src = GluonASTSource(fn=g_gather, signature=sig, constexprs={
                "M": M, "N": N, "L": L, "LI": LI, "AXIS": axis})
            name = f"gather_b{bits}_{M}x{N}_ax{axis}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
            try:
                k = triton.compile(src, target=T[tname], options={"num_warps": warps})
            except Exception as e:  # noqa: BLE001 - a layout Triton rejects is skipped
                fails[type(e).__name__] += 1
                continue
            asm = k.asm["ptx"] if cuda else k.asm["amdgcn"]
            probes[name] = {"target": tname, "ttgir": strip_locs(k.asm["ttgir"]),
                            "counts": convert_counts(asm, None)}
    if amd:
        TY8 = {8: "*i8", 16: "*fp16"}
        for seed in seeds:
            rng = random.Random(300 + seed)
            for _ in range(per_seed // 3):
                tname = rng.choice(["gfx942", "gfx950"])
                warps = rng.choice([2, 4])
                bits = rng.choice([8, 16, 16, 32, 64])
                M, N = rng.choice([(64, 2), (64, 4), (64, 8), (128, 4), (32, 16)])
                L, D = bcast_pair(rng, M, N, warps)
                _compile(f"bcast_b{bits}_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}",
                         tname, warps, M, N, L, D, {**TY, **TY8}[bits])
            rng = random.Random(400 + seed)
            for _ in range(per_seed // 6):
                tname = rng.choice(["gfx942", "gfx950"])
                M, N = rng.choice([(16, 64), (64, 64), (32, 32)])
                L, D = inthread_pair(rng, M, N)
                _compile(f"inthread_b8_{M}x{N}_w1_{rng.getrandbits(24):06x}_{tname}", tname, 1,
                         M, N, L, D, "*i8")
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "probes": probes}


def observed(counts: dict) -> tuple[str, dict]:
    """The path (``"shared"``, ``"shuffle"``, ``"registers"``) and the register opcodes of a
    probe's assembly counts."""
    regs: collections.Counter = collections.Counter()
    for k, v in counts.items():
        if REGISTER_OPS.match(k):
            k = re.sub(r"_e(32|64)$", "", k)  # VOP2/VOP3 encodings of one opcode
            k = re.sub(r"^selp\.[fsu](\d+)$", r"selp.b\1", k)  # one select, typed spellings
            # LLVM may fold a DPP move into the ALU op that consumes it (v_add_f32_dpp)
            regs[re.sub(r"^v_\w+_dpp$", "v_mov_b32_dpp", k)] += v
    regs = dict(sorted(regs.items()))
    if any(SHARED_OPS.match(k) for k in counts):
        return "shared", regs
    return ("shuffle" if regs else "registers"), regs


def predicted(p: dict) -> tuple[str, dict]:
    """The path and the register opcodes ``check`` predicts for a probe's TTGIR (the converts
    told which of their sources a global load produced, as ``linlayout check`` does)."""
    from linlayout.check.registers import load_sources, store_destinations
    from linlayout.check.shared_memory.ops import module_target, predict_module
    from linlayout.lowering import convert_path
    from linlayout.check.shared_memory.predict import moved_bits
    from linlayout.triton.ttgir import read_ttgir

    module = read_ttgir(p["ttgir"])
    target = module_target(module)
    loads = load_sources(module)
    path = "registers"
    regs: collections.Counter = collections.Counter()
    for a, pred in predict_module(module, target, source_loads=loads,
                                  stored_values=store_destinations(module)):
        if isinstance(pred, Exception):
            raise pred
        if pred.uses_shared and pred.sides:
            path = "shared"
        for e in pred.registers:
            if REGISTER_OPS.match(e.opcode):
                regs[re.sub(r"^selp\.[fsu](\d+)$", r"selp.b\1", e.opcode)] += e.per_thread or 0
        if a.kind == "convert":
            r = convert_path(a.distributed.layout, a.destination.layout,
                             moved_bits(a.element_bits, a.element_type), target)
            path = "registers" if r.path in ("none", "registers") else r.path
    if path == "registers" and regs:
        path = "shuffle"
    return path, dict(sorted(regs.items()))


def comparable(pred: tuple[str, dict], obs: tuple[str, dict]) -> tuple[tuple, tuple]:
    """What is compared: the path and every register opcode — on the shared-memory path of a
    convert, the byte permutes packing its round trip
    (:mod:`linlayout.lowering.round_trip_pack`); for reduces and scans only the shuffle
    instructions (their selects and packing are not modelled, see :func:`probe_prediction`)."""
    return pred, obs


SHUFFLE_OPS = re.compile(r"^(shfl\.|redux\.|ds_bpermute|ds_swizzle|v_permlane|\w+_dpp)")


def probe_prediction(p: dict, name: str = "", reference: str = "lowering"
                     ) -> tuple[tuple, tuple]:
    """(predicted, observed) for one probe (reductions and scans: shuffles only). Observed:
    ``reference="lowering"``, Triton's lowering — the assembly LLVM's back end selects from
    Triton's LLVM IR with ``-O3`` skipped (the probe's ``"lowering"`` record,
    ``papers/triton_lowering/lowering_reference.py``); ``"assembly"``, the final PTX/AMDGCN.
    Both on the data path (their ``"data"`` records, ``datapath.py``): an opcode that computes
    an address or a lane index is not compared, as ``check`` does not report it."""
    counts = (p["lowering"] if reference == "lowering" else p)["data"]["counts"]
    pred, obs = predicted(p), observed(counts)
    if name.startswith(("max_", "sum_", "cumsum_", "gather_")):
        keep = lambda d: {k: v for k, v in d.items() if SHUFFLE_OPS.match(k)}  # noqa: E731
        return ("-", keep(pred[1])), ("-", keep(obs[1]))
    return comparable(pred, obs)


def compare(data: dict, fixture_set: str = "shuffle") -> int:
    """Print each probe whose counts differ from the prediction — against Triton's lowering
    where the probe has its ``"lowering"`` record (against the final assembly where
    ``tests/data/llvm_respelling.json`` says ``check`` follows LLVM's final form), else against
    the assembly — and each probe whose final assembly differs from the lowering; the number of
    prediction differences not listed under ``fixture_set`` in
    ``tests/data/known_mismatches.json`` plus the lowering/assembly differences that
    ``llvm_respelling.json`` does not list (or lists but that are equal)."""
    import json

    from respelling import follows_final, listed

    known = json.loads((ROOT / "tests" / "data" / "known_mismatches.json").read_text(
        encoding="utf-8")).get(fixture_set, {})
    respelled, final_form = listed(fixture_set), follows_final(fixture_set)
    bad = 0
    tally: collections.Counter = collections.Counter()
    for name, p in sorted(data["probes"].items()):
        nv = "NVIDIA" if p["target"].startswith("cuda") else "AMD"
        ref = "lowering" if "lowering" in p and name not in final_form else "assembly"
        pred, seen = probe_prediction(p, name, ref)
        same = pred == seen
        tally[(ref, nv, same)] += 1
        bad += not same and name not in known
        if not same:
            print(f"DIFF ({ref}) {name}: predicted {pred} observed {seen}"
                  + (f" (known: {known[name]})" if name in known else ""))
        if "lowering" in p:
            low, fin = probe_prediction(p, name, "lowering")[1], \
                probe_prediction(p, name, "assembly")[1]
            tally[("final differs from lowering", nv, low != fin)] += 1
            bad += (low != fin) != (name in respelled)
            if low != fin:
                print(f"LLVM {name}: lowering {low} final {fin}"
                      + (f" ({respelled[name]})" if name in respelled else " (NOT LISTED)"))
    for (ref, nv, same), n in sorted(tally.items()):
        print(f"{ref} {nv}: {n} {'equal' if same else 'not equal'}"
              if not ref.startswith("final") else f"{ref} {nv}: {n} {same}")
    return bad


def main(argv: list[str] | None = None) -> int:
    import argparse
    import gzip
    import json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--compare-only", action="store_true",
                    help="compare the committed fixture with the prediction; compile nothing")
    ap.add_argument("--amd", action="store_true",
                    help="the AMD-only set (gfx942/gfx950, scans, sources broadcast over "
                         "warps, 8-bit in-thread swaps): tests/data/"
                         "triton_amd_shuffle_probes.json.gz")
    ap.add_argument("--fresh", action="store_true",
                    help="the later held-out draw (FRESH_DRAW, or AMD_FRESH_DRAW with --amd): "
                         "tests/data/triton_[amd_]shuffle_fresh_probes.json.gz")
    args = ap.parse_args(argv)
    out, fixture_set = (AMD_OUT, "amd_shuffle") if args.amd else (OUT, "shuffle")
    seeds, per_seed = (AMD_SEEDS if args.amd else SEEDS), PER_SEED
    if args.fresh:
        out, fixture_set = (AMD_FRESH_OUT, "amd_shuffle_fresh") if args.amd else \
            (FRESH_OUT, "shuffle_fresh")
        seeds, per_seed = AMD_FRESH_DRAW if args.amd else FRESH_DRAW
    if args.compare_only:
        return 1 if compare(json.loads(gzip.decompress(out.read_bytes())), fixture_set) else 0
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    data = build(seeds, amd=args.amd, per_seed=per_seed)
    rc = write_or_check(out, data, args.check)
    print("now run lowering_reference.py on the set, then --compare-only (the comparison is "
          "against each probe's lowering)")
    return rc


if __name__ == "__main__":
    sys.exit(main())
