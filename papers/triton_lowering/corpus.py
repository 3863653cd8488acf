#!/usr/bin/env python
"""Ground-truth corpus: which shared-memory instructions Triton 3.9.0 emits for each TTGIR op.

Run with the Triton 3.9 venv (CPU only; no GPU needed)::

    python corpus.py                 # everything (~25 min on 2 CPUs)
    python corpus.py -k matmul -t cuda90   # a subset (substring filters)
    python corpus.py --list

For every (kernel, target) pair it writes, under ``corpus/``:

* ``<kernel>_<target>.ttgir`` -- ``CompiledKernel.asm["ttgir"]`` exactly as Triton prints it
  (``loc(...)`` kept; only this script's absolute path is replaced by ``corpus.py``);
* ``asm/<kernel>_<target>.ptx`` or ``.amdgcn`` -- the final assembly of the *attribution* compile
  (see below), so every count in ``expected.json`` can be re-checked with ``grep``;
* ``expected.json`` -- per file: static instruction counts, LDS/shared bytes per thread, the same
  counts restricted to loop bodies, the LLVM-IR-level shared accesses (vector types Triton chose
  before the backend merged or split anything), and, per shared-memory TTGIR op (by line), the
  instructions it became.  Pairs that fail to compile are listed under ``"skipped"`` with the
  error's last line.

How counts are taken
--------------------
*Static* counts: one per instruction line in the assembly (inline-asm included; predicated
instructions count once).  They are per thread (every lane executes the same instruction
stream), and they are **not** dynamic counts: an instruction inside an ``scf.for`` body appears
once however many iterations run, and software pipelining (``num_stages``) peels prologue /
epilogue copies of the loop body, so a single TTGIR op can map to several static copies.
``counts_in_loop`` gives the subset of instructions that lie inside a loop of the assembly (a
backward branch's range: ``bra``/``s_branch``/``s_cbranch_*`` to an earlier label); multiply
those by the trip count for a dynamic estimate.

Attribution: the TTGIR is re-compiled from a copy whose ``loc(...)`` annotations are removed
(line numbers preserved).  MLIR then gives every op the location ``<file>.ttgir:<line>:<col>``,
which the ``!dbg`` metadata of the LLVM IR and the ``.loc`` directives of the PTX / AMDGCN refer
to.  Three levels are recorded per TTGIR op (``ops[]``, keyed by TTGIR line):

* ``llir_preopt`` -- shared-memory accesses in the LLVM IR *before* LLVM's -O3 (captured by
  wrapping ``llvm.optimize_module``): exactly what Triton's lowering emitted for that op (vector
  types, ldmatrix/stmatrix/ds_read_tr intrinsics, cp.async inline asm).  Exact attribution.
* ``llir`` -- the same after -O3 (``asm["llir"]``); LLVM may split, merge or move accesses.
* ``instructions`` -- final PTX / AMDGCN opcodes, attributed to the last ``.loc`` before each
  instruction; an instruction whose line has no LLVM-IR access of the same class is moved to the
  unique line that has one (``asm_instructions_reattributed`` counts these).  Heuristic: the
  scheduler interleaves ops and the backend drops/merges debug locations.  File totals are exact.

Each ``ops[]`` entry also carries ``loc`` / ``loc_name``: the op's ``loc(...)`` resolved through
the ``#locN`` aliases to ``corpus.py:<line>:<col>`` (the Python source line of this file that
produced it) and the SSA-name hint (``loc("t"(#loc8))`` -> ``t``).

The re-compile is checked to produce the same instruction counts as the original compile
(``attribution_ok``).
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile
import traceback
from collections import Counter, defaultdict

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from ttgir_text import strip_locs  # noqa: E402,F401 - the probe scripts import it from here

HERE = pathlib.Path(__file__).resolve().parent
OUT = HERE / "corpus"
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # no cache hits: the pre-O3 LLVM IR must be produced

TARGETS = {
    "cuda80": ("cuda", 80, 32),
    "cuda90": ("cuda", 90, 32),
    "cuda100": ("cuda", 100, 32),
    "gfx942": ("hip", "gfx942", 64),
    "gfx950": ("hip", "gfx950", 64),
}

# ============================================================================ assembly analysis
# NVIDIA: an instruction line is '[@[!]%p] opcode operands;'.  We keep the full dotted opcode.
_PTX_INSTR = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)(?=[\s;{]|$)")
_PTX_SMEM = re.compile(
    r"^((?:ld|st|atom|red)\.(?:[\w:]+\.)*shared|ldmatrix|stmatrix|cp\.async|cp\.reduce\.async|"
    r"mbarrier|wgmma|tcgen05)"
)
# not shared-memory accesses, but useful context: barriers, shuffles, proxy fences
_PTX_AUX = re.compile(r"^(fence\.proxy\.async|bar\.sync|bar\.warp\.sync|barrier\.sync|"
                      r"barrier\.cta|shfl\.sync|cp\.async\.(?:bulk\.)?(?:commit_group|wait_group)|"
                      r"wgmma\.(?:fence|commit_group|wait_group)|"
                      r"tcgen05\.(?:ld|st|wait|relinquish_alloc_permit|dealloc|fence))")
# AMD: 'ds_*' and the direct-to-LDS global/buffer loads; also v_permlane / ds_bpermute helpers.
_AMD_INSTR = re.compile(r"^\s*([a-z][a-z0-9_]*)\b")
_AMD_SMEM = re.compile(r"^(ds_|global_load_lds|buffer_load_\w+|global_load_async)")
_AMD_AUX = re.compile(r"^(s_barrier|v_permlane\w*|s_waitcnt)")

# bytes moved per lane by one instruction (for loads: LDS->VGPR; stores: VGPR->LDS)
_PTX_VEC = re.compile(r"\.v(\d)")
_PTX_BITS = re.compile(r"\.[bsuf](8|16|32|64|128)\b")


def _ptx_bytes(op: str) -> tuple[str, int] | None:
    """('load'|'store', bytes per lane) for the plain shared ld/st and ldmatrix/stmatrix."""
    if re.match(r"(ld|st)\.(?:[\w:]+\.)*shared", op) and not op.startswith(("ld.shared::cluster",
                                                                           "st.shared::cluster")):
        kind = "load" if op.startswith("ld") else "store"
        m = _PTX_BITS.findall(op)
        if not m:
            return None
        v = _PTX_VEC.search(op)
        return kind, int(m[-1]) // 8 * (int(v.group(1)) if v else 1)
    if op.startswith(("ldmatrix", "stmatrix")):
        kind = "load" if op.startswith("ld") else "store"
        x = re.search(r"\.x(\d)", op)
        n = int(x.group(1)) if x else 1
        shape = re.search(r"\.m(\d+)n(\d+)", op)
        # m8n8.b16: 8x8x2B = 128 B per matrix, 4 B per lane; m16n16.b8 (ldmatrix.b8 trans, sm100):
        # 256 B per matrix, 8 B per lane; m16n8.b8 (stmatrix.b8 trans): 128 B, 4 B per lane
        per = 4
        if shape and op.endswith(".b8"):
            per = int(shape.group(1)) * int(shape.group(2)) // 32
        return kind, per * n
    if op.startswith("cp.async.") and ".shared" in op and "bulk" not in op:
        return "store", None  # size is an operand (4, 8 or 16); filled in by the caller
    return None


_AMD_BYTES = {
    # loads LDS -> VGPR
    "ds_read_u8": 1, "ds_read_i8": 1, "ds_read_u8_d16": 1, "ds_read_u8_d16_hi": 1,
    "ds_read_i8_d16": 1, "ds_read_i8_d16_hi": 1, "ds_read_u16": 2, "ds_read_i16": 2,
    "ds_read_u16_d16": 2, "ds_read_u16_d16_hi": 2, "ds_read_b32": 4, "ds_read_b64": 8,
    "ds_read_b96": 12, "ds_read_b128": 16, "ds_read2_b32": 8, "ds_read2st64_b32": 8,
    "ds_read2_b64": 16, "ds_read2st64_b64": 16, "ds_read_b64_tr_b16": 8, "ds_read_b64_tr_b8": 8,
    "ds_read_b64_tr_b4": 8, "ds_read_b96_tr_b6": 12, "ds_read_addtid_b32": 4,
    # stores VGPR -> LDS
    "ds_write_b8": 1, "ds_write_b8_d16_hi": 1, "ds_write_b16": 2, "ds_write_b16_d16_hi": 2,
    "ds_write_b32": 4, "ds_write_b64": 8, "ds_write_b96": 12, "ds_write_b128": 16,
    "ds_write2_b32": 8, "ds_write2st64_b32": 8, "ds_write2_b64": 16, "ds_write2st64_b64": 16,
    "ds_write_addtid_b32": 4,
    # global -> LDS directly (no VGPR); counted as LDS stores
    "global_load_lds_ubyte": 1, "global_load_lds_sbyte": 1, "global_load_lds_ushort": 2,
    "global_load_lds_sshort": 2, "global_load_lds_dword": 4, "global_load_lds_dwordx3": 12,
    "global_load_lds_dwordx4": 16,
}


def _amd_bytes(op: str, line: str) -> tuple[str, int] | None:
    if op in _AMD_BYTES:
        kind = "load" if op.startswith("ds_read") else "store"
        return kind, _AMD_BYTES[op]
    if op.startswith("buffer_load_") and re.search(r"\blds\b", line):
        size = {"ubyte": 1, "sbyte": 1, "ushort": 2, "sshort": 2, "dword": 4, "dwordx3": 12,
                "dwordx4": 16}.get(op[len("buffer_load_"):])
        return ("store", size) if size else None
    return None


def _loop_ranges(lines: list[str], backend: str) -> list[tuple[int, int]]:
    """(label line, branch line) for every backward branch."""
    labels = {}
    if backend == "cuda":
        lab = re.compile(r"^(\$L__\w+):")
        br = re.compile(r"\bbra(?:\.uni)?\s+(\$L__\w+)\s*;")
    else:
        lab = re.compile(r"^(\.LBB\w+):")
        br = re.compile(r"^\s*s_c?branch\w*\s+(\.LBB\w+)")
    out = []
    for i, l in enumerate(lines):
        m = lab.match(l)
        if m:
            labels[m.group(1)] = i
            continue
        m = br.search(l)
        if m and m.group(1) in labels:
            out.append((labels[m.group(1)], i))
    return out


def analyse_asm(asm: str, backend: str) -> dict:
    """Static counts of shared-memory instructions, LDS bytes, loop membership, .loc lines."""
    lines = asm.splitlines()
    loops = _loop_ranges(lines, backend)
    loc_line = None
    loc_re = re.compile(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+")
    instrs = []
    for i, l in enumerate(lines):
        s = l.strip()
        m = loc_re.match(l)
        if m:
            loc_line = int(m.group(1))
            continue
        if not s or s.startswith(("//", ";", ".", "$", "{", "}")):
            continue
        aux = False
        if backend == "cuda":
            m = _PTX_INSTR.match(l)
            if not m or not (_PTX_SMEM.match(m.group(1)) or _PTX_AUX.match(m.group(1))):
                continue
            op = m.group(1)
            aux = bool(_PTX_AUX.match(op)) or not _PTX_SMEM.match(op)
            b = _ptx_bytes(op)
            if b and b[1] is None:  # cp.async: cp-size operand after the source address
                sz = re.search(r"\]\s*,\s*(0x[0-9a-fA-F]+|\d+)\s*[,;]", l)
                b = ("store", int(sz.group(1), 0) if sz else None)
        else:
            m = _AMD_INSTR.match(l)
            if not m or not (_AMD_SMEM.match(m.group(1)) or _AMD_AUX.match(m.group(1))):
                continue
            op = m.group(1)
            aux = not _AMD_SMEM.match(op)
            if op == "s_waitcnt" and "lgkmcnt" not in l:
                continue
            if op.startswith("buffer_load_"):
                if not re.search(r"\blds\b", l):
                    continue
                b = _amd_bytes(op, l)
                op = op + " lds"
                depth = sum(1 for a, z in loops if a <= i <= z)
                instrs.append({"op": op, "asm_line": i + 1, "ttgir_line": loc_line or None,
                               "loop_depth": depth, "bytes": b, "aux": False})
                continue
            b = _amd_bytes(op, l)
        depth = sum(1 for a, z in loops if a <= i <= z)
        instrs.append({"op": op, "asm_line": i + 1, "ttgir_line": loc_line or None,
                       "loop_depth": depth, "bytes": b, "aux": aux})
    return {"instrs": instrs, "n_loops": len(loops)}


def summarise(instrs: list[dict]) -> dict:
    counts, in_loop, aux = Counter(), Counter(), Counter()
    by = {"load": 0, "store": 0}
    by_loop = {"load": 0, "store": 0}
    for x in instrs:
        if x["aux"]:
            aux[x["op"]] += 1
            continue
        counts[x["op"]] += 1
        if x["loop_depth"]:
            in_loop[x["op"]] += 1
        if x["bytes"] and x["bytes"][1]:
            by[x["bytes"][0]] += x["bytes"][1]
            if x["loop_depth"]:
                by_loop[x["bytes"][0]] += x["bytes"][1]
    return {"counts": dict(sorted(counts.items())), "counts_in_loop": dict(sorted(in_loop.items())),
            "smem_bytes_per_thread": by, "smem_bytes_per_thread_in_loop": by_loop,
            "aux_counts": dict(sorted(aux.items()))}


# LLVM IR: loads/stores to addrspace(3) and the matrix / async intrinsics, by type.
_LL_LDST = re.compile(r"=\s*load\s+(?:volatile\s+)?([^,]+),\s*ptr\s+addrspace\(3\)|"
                      r"^\s*store\s+(?:volatile\s+)?(<[^>]*>|[\w.]+)\s+[^,]+,\s*ptr\s+addrspace\(3\)")
_LL_CALL = re.compile(r"call\s+[^@]*@(llvm\.(?:nvvm|amdgcn)\.[\w.]+)")
_LL_ASM = re.compile(r'asm\s+(?:sideeffect\s+)?"([^"]*)"')


def _llir_key(l: str) -> list[str]:
    m = _LL_LDST.search(l)
    if m:
        return [f"load {m.group(1).strip()}"] if m.group(1) else [f"store {m.group(2).strip()}"]
    m = _LL_CALL.search(l)
    if m and re.search(r"ldmatrix|stmatrix|cp\.async|ds\.read|ds\.bpermute|load\.to\.lds|"
                       r"global\.load\.lds|global\.load\.async\.lds|buffer\.load\.lds|load\.async\.to\.lds|"
                       r"raw\.ptr\.buffer\.load\.lds|ds_read|permlane|ds\.permute|ds\.swizzle|"
                       r"nvvm\.shfl", m.group(1)):
        return [f"call {m.group(1)}"]
    m = _LL_ASM.search(l)
    if m:
        return [f"asm {op}" for op in re.findall(
            r"((?:ld|st)\.shared[\w.:]*|ldmatrix[\w.:]*|stmatrix[\w.:]*|cp\.async[\w.:]*|"
            r"atom\.shared[\w.:]*|red\.shared[\w.:]*)", m.group(1))]
    m = re.search(r"atomicrmw\s+(\w+)\s+ptr\s+addrspace\(3\)", l)
    if m:
        return [f"atomicrmw {m.group(1)}"]
    return []


def _klass(op: str) -> str:
    """Coarse class shared by an assembly opcode and the LLVM-IR access it came from."""
    o = op.lower()
    for k, pats in (("ldmatrix", ("ldmatrix",)), ("stmatrix", ("stmatrix",)),
                    ("cp.async", ("cp.async", "cp_async")), ("tr", ("_tr_", "read.tr", "load.tr")),
                    ("lds_dma", ("global_load_lds", "load.async.lds", "global.load.lds",
                                 "buffer.load.lds", "load.to.lds", "buffer_load")),
                    ("permute", ("bpermute", "permlane", "ds.permute", "ds_permute", "swizzle",
                                 "shfl")),
                    ("atomic", ("atom", "atomicrmw", "red.shared", "ds_add", "ds_max", "ds_min",
                                "ds_and", "ds_or", "ds_xor", "ds_inc", "ds_cmpst", "ds_wrxchg")),
                    ("mbarrier", ("mbarrier",)), ("mma", ("wgmma", "tcgen05"))):
        if any(p in o for p in pats):
            return k
    if o.startswith(("load", "ld.", "ds_read", "asm ld.")):
        return "load"
    if o.startswith(("store", "st.", "ds_write", "asm st.")):
        return "store"
    return "other"


def analyse_llir(ll: str) -> tuple[dict, dict]:
    """Shared accesses in LLVM IR: (counts, {ttgir line: counts}) using the !dbg locations."""
    dil = {}
    for m in re.finditer(r"^(!\d+) = (?:distinct )?!DILocation\(line: (\d+)", ll, re.M):
        dil[m.group(1)] = int(m.group(2))
    c = Counter()
    per = defaultdict(Counter)
    for l in ll.splitlines():
        keys = _llir_key(l)
        if not keys:
            continue
        d = re.search(r"!dbg (!\d+)", l)
        line = dil.get(d.group(1)) if d else None
        for k in keys:
            c[k] += 1
            per[line or None][k] += 1
    return dict(sorted(c.items())), {k: dict(sorted(v.items())) for k, v in per.items()}


# ============================================================================ TTGIR handling
_SMEM_OPS = ("ttg.local_alloc", "ttg.local_load", "ttg.local_store", "ttg.async_copy_global_to_local",
             "ttg.convert_layout", "ttg.local_gather", "ttg.local_scatter", "tt.reduce", "tt.scan",
             "tt.histogram", "tt.gather", "ttng.", "amdg.", "ttg.async_", "tt.atomic", "tt.dot",
             "tt.trans", "ttg.memdesc", "ttg.barrier", "gpu.barrier", "tt.descriptor")
_OPNAME = re.compile(r"^\s*(?:%[^=]+=\s*)?\"?([a-z_]+\.[\w.]+)\"?")


def op_lines(ttgir: str) -> dict[int, dict]:
    """TTGIR line -> {op, result, text} for lines that start an operation."""
    out = {}
    for n, line in enumerate(ttgir.split("\n"), 1):
        m = _OPNAME.match(line)
        if not m or line.lstrip().startswith(("#", "module", "//")):
            continue
        res = re.match(r"^\s*(%[\w.$#:-]+(?:\s*,\s*%[\w.$#:-]+)*)\s*=", line)
        out[n] = {"op": m.group(1), "result": res.group(1) if res else None,
                  "text": strip_locs(line).strip()[:300]}
    return out


def _balanced(line: str, start: int) -> int:
    """Index of the ')' closing the '(' at `start` (quote-aware)."""
    depth, k = 0, start
    while k < len(line):
        c = line[k]
        if c == '"':
            k = line.index('"', k + 1)
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return k
        k += 1
    return len(line)


def loc_table(ttgir: str) -> dict[int, dict]:
    """TTGIR line -> {"loc": source position(s), "loc_name": name hint} from its loc(...)."""
    defs = {}
    for line in ttgir.split("\n"):
        m = re.match(r"^(#loc\d*)\s*=\s*loc\(", line)
        if m:
            j = line.index("loc(")
            defs[m.group(1)] = line[j + 4:_balanced(line, j + 3)]

    def resolve(expr: str, depth: int = 0):
        expr = expr.strip()
        if depth > 50:
            return None, None
        if re.fullmatch(r"#loc\d*", expr):
            return resolve(defs.get(expr, "unknown"), depth + 1)
        m = re.fullmatch(r'"([^"]*)":(\d+):(\d+)', expr)
        if m:
            return f"{m.group(1)}:{m.group(2)}:{m.group(3)}", None
        m = re.fullmatch(r'"([^"]*)"\((.*)\)', expr)
        if m:
            pos, _ = resolve(m.group(2), depth + 1)
            return pos, m.group(1)
        m = re.fullmatch(r"callsite\((.*) at (.*)\)", expr)
        if m:
            a, na = resolve(m.group(1), depth + 1)
            b, _ = resolve(m.group(2), depth + 1)
            return f"{a} called from {b}", na
        return None, None

    out = {}
    for n, line in enumerate(ttgir.split("\n"), 1):
        if line.startswith("#"):
            continue
        j = line.rfind(" loc(")
        if j < 0:
            continue
        pos, name = resolve(line[j + 5:_balanced(line, j + 4)])
        out[n] = {"loc": pos, "loc_name": name}
    return out


def _ttgir_for_file(text: str) -> str:
    return text.replace(str(pathlib.Path(__file__).resolve()), "corpus.py")


# ============================================================================ kernels
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402
from triton.experimental.gluon.language.amd import AMDMFMALayout  # noqa: E402
from triton.experimental.gluon.language.nvidia.ampere import async_copy as gl_cp  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import tma as gl_tma  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import mbarrier as gl_mbar  # noqa: E402
from triton.experimental.gluon.language.nvidia.hopper import fence_async_shared  # noqa: E402
from triton.experimental.gluon.language.nvidia import hopper as gl_hopper  # noqa: E402
from triton.experimental.gluon.language.amd.cdna4 import async_copy as gl_amd_cp  # noqa: E402


class Skip(Exception):
    """This kernel does not apply to this target (not a failure)."""


def _div16(names, sig):
    keys = list(sig)
    return {(keys.index(n),): [["tt.divisibility", 16]] for n in names}


# ---------------------------------------------------------------- Triton tutorial-style kernels
@triton.jit
def vector_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


@triton.jit
def fused_softmax(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols, BLOCK: tl.constexpr,
                  NUM_STAGES: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=NUM_STAGES):
        row_ptr = in_ptr + row_idx * in_stride
        offs = tl.arange(0, BLOCK)
        mask = offs < n_cols
        row = tl.load(row_ptr + offs, mask=mask, other=-float("inf"))
        row_minus_max = row - tl.max(row, axis=0)
        num = tl.exp(row_minus_max)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + row_idx * out_stride + offs, num / den, mask=mask)


@triton.jit
def matmul_tutorial(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                    stride_cm, stride_cn, BLOCK_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr,
                    BLOCK_SIZE_K: tl.constexpr, GROUP_SIZE_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m
    offs_am = (pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)) % M
    offs_bn = (pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)) % N
    offs_k = tl.arange(0, BLOCK_SIZE_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_SIZE_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_SIZE_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_SIZE_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_SIZE_K * stride_ak
        b_ptrs += BLOCK_SIZE_K * stride_bk
    c = accumulator.to(tl.float16)
    offs_cm = pid_m * BLOCK_SIZE_M + tl.arange(0, BLOCK_SIZE_M)
    offs_cn = pid_n * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


@triton.jit
def layernorm_fwd(X, Y, W, B, Mean, Rstd, stride, N, eps, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    Y += row * stride
    X += row * stride
    _mean = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        a = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        _mean += a
    mean = tl.sum(_mean, axis=0) / N
    _var = tl.zeros([BLOCK_SIZE], dtype=tl.float32)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        x = tl.load(X + cols, mask=cols < N, other=0.).to(tl.float32)
        x = tl.where(cols < N, x - mean, 0.)
        _var += x * x
    var = tl.sum(_var, axis=0) / N
    rstd = 1 / tl.sqrt(var + eps)
    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)
    for off in range(0, N, BLOCK_SIZE):
        cols = off + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        w = tl.load(W + cols, mask=mask)
        b = tl.load(B + cols, mask=mask)
        x = tl.load(X + cols, mask=mask, other=0.).to(tl.float32)
        x_hat = (x - mean) * rstd
        y = x_hat * w + b
        tl.store(Y + cols, y, mask=mask)


@triton.jit
def layernorm_bwd_dx(DX, DY, DW, DB, X, W, Mean, Rstd, Lock, stride, N,
                     GROUP_SIZE_M: tl.constexpr, BLOCK_SIZE_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE_N)
    mask = cols < N
    X += row * stride
    DY += row * stride
    DX += row * stride
    lock_id = row % GROUP_SIZE_M
    Lock += lock_id
    Count = Lock + GROUP_SIZE_M
    DW = DW + lock_id * N + cols
    DB = DB + lock_id * N + cols
    x = tl.load(X + cols, mask=mask, other=0).to(tl.float32)
    dy = tl.load(DY + cols, mask=mask, other=0).to(tl.float32)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)
    xhat = (x - mean) * rstd
    wdy = w * dy
    xhat = tl.where(mask, xhat, 0.)
    wdy = tl.where(mask, wdy, 0.)
    c1 = tl.sum(xhat * wdy, axis=0) / N
    c2 = tl.sum(wdy, axis=0) / N
    dx = (wdy - (xhat * c1 + c2)) * rstd
    tl.store(DX + cols, dx, mask=mask)
    partial_dw = (dy * xhat).to(w.dtype)
    partial_db = (dy).to(w.dtype)
    while tl.atomic_cas(Lock, 0, 1) == 1:
        pass
    count = tl.load(Count)
    if count == 0:
        tl.atomic_xchg(Count, 1)
    else:
        partial_dw += tl.load(DW, mask=mask)
        partial_db += tl.load(DB, mask=mask)
    tl.store(DW, partial_dw, mask=mask)
    tl.store(DB, partial_db, mask=mask)
    tl.debug_barrier()
    tl.atomic_xchg(Lock, 0)


@triton.jit
def layernorm_bwd_dwdb(DW, DB, FINAL_DW, FINAL_DB, M, N, BLOCK_SIZE_M: tl.constexpr,
                       BLOCK_SIZE_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_SIZE_N + tl.arange(0, BLOCK_SIZE_N)
    dw = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    db = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
    for i in range(0, M, BLOCK_SIZE_M):
        rows = i + tl.arange(0, BLOCK_SIZE_M)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        offs = rows[:, None] * N + cols[None, :]
        dw += tl.load(DW + offs, mask=mask, other=0.)
        db += tl.load(DB + offs, mask=mask, other=0.)
    sum_dw = tl.sum(dw, axis=0)
    sum_db = tl.sum(db, axis=0)
    tl.store(FINAL_DW + cols, sum_dw, mask=cols < N)
    tl.store(FINAL_DB + cols, sum_db, mask=cols < N)


@triton.jit
def attn_fwd_ptr(Q, K, V, Out, sm_scale, stride_qm, stride_kn, stride_vn, stride_om, N_CTX,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, HEAD_DIM: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    base = off_hz * N_CTX * HEAD_DIM
    q = tl.load(Q + base + offs_m[:, None] * stride_qm + offs_d[None, :])
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N_CTX, BLOCK_N):
        # K^T tile [HEAD_DIM, BLOCK_N] read column-major from a row-major K
        k = tl.load(K + base + (start_n + offs_n)[None, :] * stride_kn + offs_d[:, None])
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        l_ij = tl.sum(p, 1)
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + l_ij
        acc = acc * alpha[:, None]
        v = tl.load(V + base + (start_n + offs_n)[:, None] * stride_vn + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + base + offs_m[:, None] * stride_om + offs_d[None, :], acc.to(tl.float16))


@triton.jit
def attn_fwd_tma(sm_scale, Z, H, q_ptr, k_ptr, v_ptr, o_ptr, N_CTX, HEAD_DIM: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_hz = tl.program_id(1)
    off_z = off_hz // H
    off_h = off_hz % H
    y_dim = Z * H * N_CTX
    desc_q = tl.make_tensor_descriptor(q_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    desc_k = tl.make_tensor_descriptor(k_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    desc_v = tl.make_tensor_descriptor(v_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_N, HEAD_DIM])
    desc_o = tl.make_tensor_descriptor(o_ptr, shape=[y_dim, HEAD_DIM], strides=[HEAD_DIM, 1],
                                       block_shape=[BLOCK_M, HEAD_DIM])
    offset_y = off_z * (N_CTX * H) + off_h * N_CTX
    qo_offset_y = offset_y + start_m * BLOCK_M
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32) + 1.0
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    qk_scale = sm_scale * 1.44269504
    q = desc_q.load([qo_offset_y, 0])
    for start_n in tl.range(0, N_CTX, BLOCK_N):
        k = desc_k.load([offset_y + start_n, 0]).T
        qk = tl.dot(q, k)
        m_ij = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
        qk = qk * qk_scale - m_ij[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_ij)
        l_ij = tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([offset_y + start_n, 0])
        acc = tl.dot(p.to(tl.float16), v, acc)
        l_i = l_i * alpha + l_ij
        m_i = m_ij
    acc = acc / l_i[:, None]
    desc_o.store([qo_offset_y, 0], acc.to(tl.float16))


@triton.jit
def _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M):
    group_id = tile_id // num_pid_in_group
    first_pid_m = group_id * GROUP_SIZE_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_SIZE_M)
    pid_m = first_pid_m + (tile_id % group_size_m)
    pid_n = (tile_id % num_pid_in_group) // group_size_m
    return pid_m, pid_n


@triton.jit
def matmul_tma_persistent(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_SIZE_M: tl.constexpr,
                          BLOCK_SIZE_N: tl.constexpr, BLOCK_SIZE_K: tl.constexpr,
                          GROUP_SIZE_M: tl.constexpr, NUM_SMS: tl.constexpr):
    start_pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_SIZE_M)
    num_pid_n = tl.cdiv(N, BLOCK_SIZE_N)
    k_tiles = tl.cdiv(K, BLOCK_SIZE_K)
    num_tiles = num_pid_m * num_pid_n
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1],
                                       block_shape=[BLOCK_SIZE_N, BLOCK_SIZE_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1],
                                       block_shape=[BLOCK_SIZE_M, BLOCK_SIZE_N])
    num_pid_in_group = GROUP_SIZE_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = _compute_pid(tile_id, num_pid_in_group, num_pid_m, GROUP_SIZE_M)
        offs_am = pid_m * BLOCK_SIZE_M
        offs_bn = pid_n * BLOCK_SIZE_N
        accumulator = tl.zeros((BLOCK_SIZE_M, BLOCK_SIZE_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_SIZE_K
            a = a_desc.load([offs_am, offs_k])
            b = b_desc.load([offs_bn, offs_k])
            accumulator = tl.dot(a, b.T, accumulator)
        c = accumulator.to(tl.float16)
        c_desc.store([offs_am, offs_bn], c)


@triton.jit
def transpose_trans(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * N + rn[None, :])
    tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x))


@triton.jit
def reduce_axis0(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rn, tl.sum(x, axis=0))


@triton.jit
def argmax_axis1(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm, tl.argmax(x, axis=1))


@triton.jit
def cumsum_axis0(X, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm[:, None] * BN + rn[None, :], tl.cumsum(x, axis=0))


@triton.jit
def cumsum_1d(X, Y, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    tl.store(Y + r, tl.cumsum(tl.load(X + r), axis=0))


@triton.jit
def histogram_k(X, Y, BLOCK: tl.constexpr, BINS: tl.constexpr):
    r = tl.arange(0, BLOCK)
    x = tl.load(X + r)
    tl.store(Y + tl.arange(0, BINS), tl.histogram(x, BINS))


@triton.jit
def gather_axis1(X, I, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    idx = tl.load(I + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm[:, None] * BN + rn[None, :], tl.gather(x, idx, axis=1))


@triton.jit
def gather_axis0(X, I, Y, BM: tl.constexpr, BN: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    x = tl.load(X + rm[:, None] * BN + rn[None, :])
    idx = tl.load(I + rm[:, None] * BN + rn[None, :])
    tl.store(Y + rm[:, None] * BN + rn[None, :], tl.gather(x, idx, axis=0))


# ---------------------------------------------------------------- Gluon kernels
@gluon.jit
def g_probe(X, Y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, SMEM: gl.constexpr,
            DST: gl.constexpr, MODE: gl.constexpr):
    """Load an MxN tile in SRC, move it to DST through shared memory, store it.

    MODE 0: local_alloc(value) + local_load;  1: local_alloc() + local_store + local_load;
    2: convert_layout (scratch picked by the compiler);  3: local_alloc(value) only + local_load
    into SRC again (a pure round trip).
    """
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    x = gl.load(X + rm[:, None] * N + rn[None, :])
    if MODE == 0:
        t = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], SMEM, x)
        y = t.load(DST)
    elif MODE == 1:
        t = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], SMEM)
        t.store(x)
        y = t.load(DST)
    else:
        y = gl.convert_layout(x, DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(Y + dm[:, None] * N + dn[None, :], y)


@gluon.jit
def g_transpose2(X, Y, Z, BM: gl.constexpr, BN: gl.constexpr, LD: gl.constexpr, ST: gl.constexpr):
    """Same as tests/data/generate_triton_fixtures.py::transpose2, layouts as parameters."""
    plain: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    swz: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 8, [1, 0])
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, LD))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, LD))
    x = gl.load(X + rm[:, None] * BN + rn[None, :])
    tile = gl.allocate_shared_memory(gl.float16, [BM, BN], plain, x)
    y = tile.load(ST)
    sm = gl.arange(0, BM, layout=gl.SliceLayout(1, ST))
    sn = gl.arange(0, BN, layout=gl.SliceLayout(0, ST))
    gl.store(Y + sn[None, :] * BM + sm[:, None], y)
    tile_swz = gl.allocate_shared_memory(gl.float16, [BM, BN], swz)
    tile_swz.store(x)
    z = tile_swz.load(ST)
    gl.store(Z + sn[None, :] * BM + sm[:, None], z)


@gluon.jit
def g_cp_async(X, Y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, SMEM: gl.constexpr,
               DST: gl.constexpr):
    """cp.async (ttg.async_copy_global_to_local) into SMEM, then local_load in DST."""
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    t = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], SMEM)
    gl_cp.async_load(t, X + rm[:, None] * N + rn[None, :])
    gl_cp.commit_group()
    gl_cp.wait_group(0)
    y = t.load(DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(Y + dm[:, None] * N + dn[None, :], y)


@gluon.jit
def g_tma_roundtrip(X, Y, M: gl.constexpr, N: gl.constexpr, SMEM: gl.constexpr, DST: gl.constexpr):
    """TMA load into an nvmma_shared tile, local_load, local_store back, TMA store."""
    xd = gl_tma.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[M, N],
                                       layout=SMEM)
    yd = gl_tma.make_tensor_descriptor(Y, shape=[M, N], strides=[N, 1], block_shape=[M, N],
                                       layout=SMEM)
    t = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], SMEM)
    bar = gl.allocate_shared_memory(gl.int64, [1], gl_mbar.MBarrierLayout())
    gl_mbar.init(bar, count=1)
    gl_mbar.expect(bar, M * N * X.dtype.element_ty.primitive_bitwidth // 8)
    gl_tma.async_load(xd, [0, 0], bar, t)
    gl_mbar.wait(bar, 0)
    y = t.load(DST)
    y = y * 2
    t.store(y)
    fence_async_shared()
    gl_tma.async_store(yd, [0, 0], t)
    gl_tma.store_wait(0)
    gl_mbar.invalidate(bar)


@gluon.jit
def g_wgmma(A, B, C, M: gl.constexpr, N: gl.constexpr, K: gl.constexpr, LD: gl.constexpr,
            SA: gl.constexpr, SB: gl.constexpr, ACC: gl.constexpr, OUT_SMEM: gl.constexpr):
    """wgmma with both operands in shared memory; accumulator stored via local_alloc."""
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, LD))
    rk = gl.arange(0, K, layout=gl.SliceLayout(0, LD))
    rk2 = gl.arange(0, K, layout=gl.SliceLayout(1, LD))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, LD))
    a = gl.load(A + rm[:, None] * K + rk[None, :])
    b = gl.load(B + rk2[:, None] * N + rn[None, :])
    sa = gl.allocate_shared_memory(gl.float16, [M, K], SA, a)
    sb = gl.allocate_shared_memory(gl.float16, [K, N], SB, b)
    fence_async_shared()
    acc = gl.zeros([M, N], gl.float32, layout=ACC)
    acc = gl_hopper.warpgroup_mma(sa, sb, acc)
    c = gl.allocate_shared_memory(gl.float16, [M, N], OUT_SMEM, acc.to(gl.float16))
    out = c.load(LD)
    rm2 = gl.arange(0, M, layout=gl.SliceLayout(1, LD))
    gl.store(C + rm2[:, None] * N + rn[None, :], out)


@gluon.jit
def g_amd_async(X, Y, M: gl.constexpr, N: gl.constexpr, SRC: gl.constexpr, SMEM: gl.constexpr,
                DST: gl.constexpr, BUFFER: gl.constexpr):
    """AMD direct-to-LDS copy (global_load_to_shared or buffer_load_to_shared), then local_load."""
    rm = gl.arange(0, M, layout=gl.SliceLayout(1, SRC))
    rn = gl.arange(0, N, layout=gl.SliceLayout(0, SRC))
    t = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], SMEM)
    offs = rm[:, None] * N + rn[None, :]
    if BUFFER:
        gl_amd_cp.buffer_load_to_shared(t, X, offs)
    else:
        gl_amd_cp.global_load_to_shared(t, X + offs)
    gl_amd_cp.commit_group()
    gl_amd_cp.wait_group(0)
    y = t.load(DST)
    dm = gl.arange(0, M, layout=gl.SliceLayout(1, DST))
    dn = gl.arange(0, N, layout=gl.SliceLayout(0, DST))
    gl.store(Y + dm[:, None] * N + dn[None, :], y)


# ---------------------------------------------------------------- layouts used by the probes
def B(spt, tpw, wpc, order):
    return gl.BlockedLayout(spt, tpw, wpc, order)


def SW(vec, per, maxp, order):
    return gl.SwizzledSharedLayout(vec, per, maxp, order)


def NVS(sw, bits, transposed=False):
    return gl.NVMMASharedLayout(sw, bits, 2, transposed)


MMA2 = gl.NVMMADistributedLayout([2, 0], [2, 2], [16, 8])
MMA3 = gl.NVMMADistributedLayout([3, 0], [4, 1], [16, 64, 16])
DT = {"f16": ("*fp16", 16), "bf16": ("*bf16", 16), "f32": ("*fp32", 32), "i8": ("*i8", 8),
      "f8": ("*fp8e4nv", 8), "i64": ("*i64", 64)}


def _wave(t):
    return TARGETS[t][2]


def _probe(target, M, N, src, smem, dst, mode, dtype="f16", num_warps=4):
    sig = {"X": DT[dtype][0], "Y": DT[dtype][0], "M": "constexpr", "N": "constexpr",
           "SRC": "constexpr", "SMEM": "constexpr", "DST": "constexpr", "MODE": "constexpr"}
    src_ = GluonASTSource(fn=g_probe, signature=sig,
                          constexprs={"M": M, "N": N, "SRC": src, "SMEM": smem, "DST": dst,
                                      "MODE": mode}, attrs=_div16(["X", "Y"], sig))
    return src_, {"num_warps": num_warps}


def _cuda_only(t):
    if not t.startswith("cuda"):
        raise Skip("NVIDIA-only kernel")


def _amd_only(t):
    if not t.startswith("gfx"):
        raise Skip("AMD-only kernel")


def _cc(t):
    return TARGETS[t][1] if t.startswith("cuda") else 0


def _rowcol(t):
    """Row-major (8 contiguous f16 per thread) and column-major blocked layouts for 4 warps."""
    if _wave(t) == 32:
        return B([1, 8], [4, 8], [4, 1], [1, 0]), B([8, 1], [8, 4], [1, 4], [0, 1])
    return B([1, 8], [8, 8], [4, 1], [1, 0]), B([8, 1], [8, 8], [1, 4], [0, 1])


def _mfma(t, instr=(32, 32, 8), transposed=False):
    ver = 3 if t == "gfx942" else 4
    return AMDMFMALayout(ver, list(instr), transposed, [2, 2])


PROBES = {}


def probe(name, targets=None):
    def deco(fn):
        PROBES[name] = (fn, targets)
        return fn
    return deco


# --- local_alloc / local_store / local_load with ordinary (blocked) layouts
@probe("p_st_rowmajor_swz_ld_colmajor_f16")
def _(t):
    row, col = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), col, 0)


@probe("p_store_rowmajor_plain_ld_colmajor_f16")
def _(t):
    row, col = _rowcol(t)
    return _probe(t, 64, 64, row, SW(1, 1, 1, [1, 0]), col, 1)


@probe("p_st_rowmajor_swz_ld_rowmajor_f32")
def _(t):
    row, _ = _rowcol(t)
    r4 = B([1, 4], [4, 8], [4, 1], [1, 0]) if _wave(t) == 32 else B([1, 4], [4, 16], [4, 1], [1, 0])
    return _probe(t, 64, 64, r4, SW(4, 2, 4, [1, 0]), r4, 0, "f32")


@probe("p_st_rowmajor2_ld_rowmajor2_i8")
def _(t):
    r = B([1, 2], [4, 8], [4, 1], [1, 0]) if _wave(t) == 32 else B([1, 2], [8, 8], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(1, 1, 1, [1, 0]), r, 0, "i8")


@probe("p_st_i64")
def _(t):
    r = B([1, 2], [4, 8], [4, 1], [1, 0]) if _wave(t) == 32 else B([1, 2], [8, 8], [4, 1], [1, 0])
    c = B([2, 1], [8, 4], [1, 4], [0, 1]) if _wave(t) == 32 else B([2, 1], [8, 8], [1, 4], [0, 1])
    return _probe(t, 32, 32, r, SW(1, 1, 1, [1, 0]), c, 0, "i64")


# --- NVIDIA dot operands (ldmatrix candidates)
@probe("p_ld_dot_a_f16_kcontig")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), gl.DotOperandLayout(0, MMA2, 2), 0)


@probe("p_ld_dot_b_f16_ncontig_trans")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), gl.DotOperandLayout(1, MMA2, 2), 0)


@probe("p_ld_dot_b_f16_kcontig")
def _(t):
    _cuda_only(t)
    _, col = _rowcol(t)
    return _probe(t, 64, 64, col, SW(8, 1, 8, [0, 1]), gl.DotOperandLayout(1, MMA2, 2), 0)


@probe("p_ld_dot_a_f16_unswizzled")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(1, 1, 1, [1, 0]), gl.DotOperandLayout(0, MMA2, 2), 0)


@probe("p_ld_dot_a_f16_nvmma128")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, NVS(128, 16), gl.DotOperandLayout(0, MMA2, 2), 0)


@probe("p_ld_dot_a_i8_kcontig")
def _(t):
    _cuda_only(t)
    r = B([1, 16], [8, 4], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(16, 1, 8, [1, 0]), gl.DotOperandLayout(0, MMA2, 4), 0, "i8")


@probe("p_ld_dot_b_i8_ncontig_trans")
def _(t):
    _cuda_only(t)
    r = B([1, 16], [8, 4], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(16, 1, 8, [1, 0]), gl.DotOperandLayout(1, MMA2, 4), 0, "i8")


@probe("p_ld_dot_a_f32_kcontig")
def _(t):
    _cuda_only(t)
    r = B([1, 4], [4, 8], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(4, 1, 8, [1, 0]), gl.DotOperandLayout(0, MMA2, 1), 0, "f32")


@probe("p_ld_dot_b_f32_ncontig")
def _(t):
    _cuda_only(t)
    r = B([1, 4], [4, 8], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(4, 1, 8, [1, 0]), gl.DotOperandLayout(1, MMA2, 1), 0, "f32")


@probe("p_ld_dot_a_f16_kwidth8")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), gl.DotOperandLayout(0, MMA2, 8), 0)


@probe("p_ldst_blocked_1x2_f16")
def _(t):
    # a *blocked* layout whose tile matches ldmatrix/stmatrix (non-trans): 2 consecutive f16 per
    # thread, lanes 0,1 -> the next two 32-bit words, lanes 2-4 -> rows
    _cuda_only(t)
    r = B([1, 2], [8, 4], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(8, 1, 8, [1, 0]), r, 0)


@probe("p_ld_blocked_2x1_lanes_along_rows_f16")
def _(t):
    # matches the ldmatrix.trans tile on a row-major buffer: lanes 2,3,4 -> columns 1,2,4,
    # register 0 -> the next row
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), B([2, 1], [4, 8], [4, 1], [0, 1]), 0)


# --- NVIDIA mma accumulators into shared (stmatrix candidates)
@probe("p_st_mma2_f16_nvmma128")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, MMA2, NVS(128, 16), row, 0)


@probe("p_st_mma2_f16_swz")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, MMA2, SW(8, 1, 8, [1, 0]), row, 1)


@probe("p_st_mma2_f16_transposed_nvmma")
def _(t):
    _cuda_only(t)
    _, col = _rowcol(t)
    return _probe(t, 64, 64, MMA2, NVS(128, 16, True), col, 0)


@probe("p_st_mma2_f32_nvmma128")
def _(t):
    _cuda_only(t)
    r4 = B([1, 4], [4, 8], [4, 1], [1, 0])
    return _probe(t, 64, 64, MMA2, NVS(128, 32), r4, 0, "f32")


@probe("p_st_mma3_f16_nvmma128")
def _(t):
    _cuda_only(t)
    if _cc(t) < 90:
        raise Skip("nvidia_mma v3 needs sm_90+")
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, MMA3, NVS(128, 16), row, 0)


@probe("p_st_mma2_i8_nvmma")
def _(t):
    _cuda_only(t)
    r = B([1, 16], [8, 4], [4, 1], [1, 0])
    return _probe(t, 64, 64, MMA2, NVS(64, 8), r, 0, "i8")


# --- convert_layout through scratch
@probe("p_cvt_rowmajor_to_colmajor_f16")
def _(t):
    row, col = _rowcol(t)
    return _probe(t, 64, 64, row, None, col, 2)


@probe("p_cvt_rowmajor_to_colmajor_f32")
def _(t):
    row, col = _rowcol(t)
    return _probe(t, 64, 64, row, None, col, 2, "f32")


@probe("p_cvt_mma2_to_rowmajor_f16")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, MMA2, None, row, 2)


@probe("p_cvt_rowmajor_to_dot_a_f16")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, None, gl.DotOperandLayout(0, MMA2, 2), 2)


@probe("p_cvt_rowmajor_to_dot_b_f16")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, None, gl.DotOperandLayout(1, MMA2, 2), 2)


@probe("p_cvt_mma2_to_rowmajor_f32")
def _(t):
    _cuda_only(t)
    r4 = B([1, 4], [4, 8], [4, 1], [1, 0])
    return _probe(t, 64, 64, MMA2, None, r4, 2, "f32")


@probe("p_cvt_mma3_to_rowmajor_f16")
def _(t):
    _cuda_only(t)
    if _cc(t) < 90:
        raise Skip("nvidia_mma v3 needs sm_90+")
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, MMA3, None, row, 2)


@probe("p_cvt_within_warp")
def _(t):
    # only lanes and registers move: warp shuffles (or scratch if the shuffle is too complex)
    if _wave(t) == 32:
        a, b = B([1, 4], [8, 4], [4, 1], [1, 0]), B([4, 1], [4, 8], [4, 1], [0, 1])
    else:
        a, b = B([1, 4], [16, 4], [4, 1], [1, 0]), B([4, 1], [4, 16], [4, 1], [0, 1])
    return _probe(t, 64, 32, a, None, b, 2, "f32")


@probe("p_cvt_lane_swap")
def _(t):
    if _wave(t) == 32:
        a, b = B([1, 1], [4, 8], [4, 1], [1, 0]), B([1, 1], [8, 4], [4, 1], [1, 0])
    else:
        a, b = B([1, 1], [8, 8], [4, 1], [1, 0]), B([1, 1], [16, 4], [4, 1], [1, 0])
    return _probe(t, 32, 32, a, None, b, 2, "f32")


@probe("p_cvt_intra_warp_f32")
def _(t):
    # both layouts give warp w the same 8 columns: only lanes/registers move (shuffles or scratch)
    if _wave(t) == 32:
        a, b = B([1, 1], [4, 8], [1, 4], [1, 0]), B([1, 2], [8, 4], [1, 4], [1, 0])
    else:
        a, b = B([1, 1], [8, 8], [1, 4], [1, 0]), B([1, 2], [16, 4], [1, 4], [1, 0])
    return _probe(t, 32, 32, a, None, b, 2, "f32")


@probe("p_cvt_intra_warp_transpose_1warp_f16")
def _(t):
    if _wave(t) == 32:
        a, b = B([1, 4], [8, 4], [1, 1], [1, 0]), B([4, 1], [4, 8], [1, 1], [0, 1])
    else:
        a, b = B([1, 4], [16, 4], [1, 1], [1, 0]), B([4, 1], [4, 16], [1, 1], [0, 1])
    return _probe(t, 16 if _wave(t) == 32 else 16, 16, a, None, b, 2, "f16", num_warps=1)


@probe("p_cvt_lane_permutation_f32")
def _(t):
    # same warp tiles, order [1,0] vs [0,1]: lanes exchange data inside each warp
    if _wave(t) == 32:
        a, b = B([2, 2], [4, 8], [4, 1], [1, 0]), B([2, 2], [4, 8], [4, 1], [0, 1])
    else:
        a, b = B([2, 2], [8, 8], [4, 1], [1, 0]), B([2, 2], [8, 8], [4, 1], [0, 1])
    return _probe(t, 32, 32, a, None, b, 2, "f32")


def _amd_async(t, src, smem, dst, buffer, dtype="f16"):
    sig = {"X": DT[dtype][0], "Y": DT[dtype][0], "M": "constexpr", "N": "constexpr",
           "SRC": "constexpr", "SMEM": "constexpr", "DST": "constexpr", "BUFFER": "constexpr"}
    return GluonASTSource(fn=g_amd_async, signature=sig,
                          constexprs={"M": 64, "N": 64, "SRC": src, "SMEM": smem, "DST": dst,
                                      "BUFFER": buffer},
                          attrs=_div16(["X", "Y"], sig)), {"num_warps": 4}


@probe("g_amd_global_load_lds_f16x8")
def _(t):
    _amd_only(t)
    row, _ = _rowcol(t)
    return _amd_async(t, row, SW(1, 1, 1, [1, 0]), row, False)


@probe("g_amd_buffer_load_lds_f16x8")
def _(t):
    _amd_only(t)
    row, _ = _rowcol(t)
    return _amd_async(t, row, SW(1, 1, 1, [1, 0]), row, True)


@probe("g_amd_global_load_lds_f32x1")
def _(t):
    _amd_only(t)
    r = B([1, 1], [1, 64], [4, 1], [1, 0])
    return _amd_async(t, r, SW(1, 1, 1, [1, 0]), r, False, "f32")


@probe("g_amd_buffer_load_lds_f32x1_to_mfma_dot")
def _(t):
    _amd_only(t)
    r = B([1, 1], [1, 64], [4, 1], [1, 0])
    return _amd_async(t, r, SW(1, 1, 1, [1, 0]), B([1, 4], [16, 4], [4, 1], [1, 0]), True, "f32")


# --- AMD: mfma dot operands, transposed reads
@probe("p_ld_mfma_dot_a_f16_kcontig")
def _(t):
    _amd_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), gl.DotOperandLayout(0, _mfma(t), 4), 0)


@probe("p_ld_mfma_dot_b_f16_ncontig")
def _(t):
    _amd_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]), gl.DotOperandLayout(1, _mfma(t), 4), 0)


@probe("p_ld_mfma_dot_b_f16_ncontig_kw8")
def _(t):
    _amd_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, row, SW(8, 1, 8, [1, 0]),
                  gl.DotOperandLayout(1, _mfma(t, (16, 16, 32)), 8), 0)


@probe("p_ld_mfma_dot_a_f16_mcontig")
def _(t):
    _amd_only(t)
    _, col = _rowcol(t)
    return _probe(t, 64, 64, col, SW(8, 1, 8, [0, 1]),
                  gl.DotOperandLayout(0, _mfma(t, (16, 16, 32)), 8), 0)


@probe("p_ld_mfma_dot_b_i8_ncontig")
def _(t):
    _amd_only(t)
    r = B([1, 16], [16, 4], [4, 1], [1, 0])
    return _probe(t, 64, 64, r, SW(16, 1, 8, [1, 0]),
                  gl.DotOperandLayout(1, _mfma(t, (16, 16, 64) if t == "gfx950" else (16, 16, 32)),
                                      16 if t == "gfx950" else 8), 0, "i8")


@probe("p_cvt_mfma_to_rowmajor_f16")
def _(t):
    _amd_only(t)
    row, _ = _rowcol(t)
    return _probe(t, 64, 64, _mfma(t), None, row, 2)


@probe("p_st_mfma_f32_swz")
def _(t):
    _amd_only(t)
    r4 = B([1, 4], [4, 16], [4, 1], [1, 0])
    return _probe(t, 64, 64, _mfma(t), SW(4, 1, 16, [1, 0]), r4, 0, "f32")


@probe("p_padded_rowmajor_colmajor_f16")
def _(t):
    row, col = _rowcol(t)
    pad = gl.PaddedSharedLayout.with_identity_for([[64, 8]], [64, 64], [1, 0])
    return _probe(t, 64, 64, row, pad, col, 0)


# --- cp.async / TMA / wgmma (Gluon)
@probe("g_cp_async_swz_f16")
def _(t):
    _cuda_only(t)
    row, _ = _rowcol(t)
    sig = {"X": "*fp16", "Y": "*fp16", "M": "constexpr", "N": "constexpr", "SRC": "constexpr",
           "SMEM": "constexpr", "DST": "constexpr"}
    return GluonASTSource(fn=g_cp_async, signature=sig,
                          constexprs={"M": 64, "N": 64, "SRC": row, "SMEM": SW(8, 1, 8, [1, 0]),
                                      "DST": gl.DotOperandLayout(0, MMA2, 2)},
                          attrs=_div16(["X", "Y"], sig)), {"num_warps": 4}


@probe("g_cp_async_4B")
def _(t):
    _cuda_only(t)
    r = B([1, 1], [1, 32], [4, 1], [1, 0])
    sig = {"X": "*fp32", "Y": "*fp32", "M": "constexpr", "N": "constexpr", "SRC": "constexpr",
           "SMEM": "constexpr", "DST": "constexpr"}
    return GluonASTSource(fn=g_cp_async, signature=sig,
                          constexprs={"M": 16, "N": 32, "SRC": r, "SMEM": SW(1, 1, 1, [1, 0]),
                                      "DST": r},
                          attrs=_div16(["X", "Y"], sig)), {"num_warps": 4}


@probe("g_tma_roundtrip_f16")
def _(t):
    _cuda_only(t)
    if _cc(t) < 90:
        raise Skip("TMA needs sm_90+")
    row, col = _rowcol(t)
    sig = {"X": "*fp16", "Y": "*fp16", "M": "constexpr", "N": "constexpr", "SMEM": "constexpr",
           "DST": "constexpr"}
    return GluonASTSource(fn=g_tma_roundtrip, signature=sig,
                          constexprs={"M": 64, "N": 64, "SMEM": NVS(128, 16), "DST": row},
                          attrs=_div16(["X", "Y"], sig)), {"num_warps": 4}


@probe("g_wgmma_f16")
def _(t):
    if t != "cuda90":
        raise Skip("wgmma is sm_90 only")
    row, _ = _rowcol(t)
    sig = {"A": "*fp16", "B": "*fp16", "C": "*fp16", "M": "constexpr", "N": "constexpr",
           "K": "constexpr", "LD": "constexpr", "SA": "constexpr", "SB": "constexpr",
           "ACC": "constexpr", "OUT_SMEM": "constexpr"}
    return GluonASTSource(fn=g_wgmma, signature=sig,
                          constexprs={"M": 64, "N": 64, "K": 64, "LD": row, "SA": NVS(128, 16),
                                      "SB": NVS(128, 16), "ACC": MMA3, "OUT_SMEM": NVS(128, 16)},
                          attrs=_div16(["A", "B", "C"], sig)), {"num_warps": 4}


@probe("g_transpose2")
def _(t):
    row, col = _rowcol(t)
    sig = {"X": "*fp16", "Y": "*fp16", "Z": "*fp16", "BM": "constexpr", "BN": "constexpr",
           "LD": "constexpr", "ST": "constexpr"}
    return GluonASTSource(fn=g_transpose2, signature=sig,
                          constexprs={"BM": 64, "BN": 64, "LD": row, "ST": col},
                          attrs=_div16(["X", "Y", "Z"], sig)), {"num_warps": 4}


# ---------------------------------------------------------------- Triton kernels as jobs
def _tl(fn, sig, const, div, opts):
    s = dict(sig)
    for k in const:
        s[k] = "constexpr"
    return ASTSource(fn=fn, signature=s, constexprs=const, attrs=_div16(div, s)), opts


def _stages(t, n=3):
    return n if t.startswith("cuda") else 2


KERNELS = {
    "vector_add": lambda t: _tl(vector_add, {"x_ptr": "*fp32", "y_ptr": "*fp32", "out_ptr": "*fp32",
                                             "n": "i32"}, {"BLOCK": 1024},
                                ["x_ptr", "y_ptr", "out_ptr"], {"num_warps": 4}),
    "fused_softmax": lambda t: _tl(fused_softmax, {"out_ptr": "*fp32", "in_ptr": "*fp32",
                                                   "in_stride": "i32", "out_stride": "i32",
                                                   "n_rows": "i32", "n_cols": "i32"},
                                   {"BLOCK": 1024, "NUM_STAGES": 4 if t.startswith("cuda") else 2},
                                   ["out_ptr", "in_ptr", "in_stride", "out_stride"],
                                   {"num_warps": 8}),
    "matmul": lambda t: _tl(matmul_tutorial, {
        "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
        "stride_cm": "i32", "stride_cn": "i32"},
        {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
         "BLOCK_SIZE_K": 64 if t.startswith("cuda") else 32, "GROUP_SIZE_M": 8},
        ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
        {"num_warps": 4 if t != "cuda100" else 4, "num_stages": _stages(t)}),
    "matmul_fp8": lambda t: _tl(matmul_tutorial, {
        "a_ptr": "*fp8e4nv" if t.startswith("cuda") else ("*fp8e4b8" if t == "gfx942" else "*fp8e4nv"),
        "b_ptr": "*fp8e4nv" if t.startswith("cuda") else ("*fp8e4b8" if t == "gfx942" else "*fp8e4nv"),
        "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
        "stride_am": "i32", "stride_ak": "i32", "stride_bk": "i32", "stride_bn": "i32",
        "stride_cm": "i32", "stride_cn": "i32"},
        {"stride_ak": 1, "stride_bn": 1, "stride_cn": 1, "BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128,
         "BLOCK_SIZE_K": 128 if t.startswith("cuda") else 64, "GROUP_SIZE_M": 8},
        ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K", "stride_am", "stride_bk", "stride_cm"],
        {"num_warps": 8, "num_stages": _stages(t)}),
    "layernorm_fwd": lambda t: _tl(layernorm_fwd, {
        "X": "*fp16", "Y": "*fp16", "W": "*fp16", "B": "*fp16", "Mean": "*fp32", "Rstd": "*fp32",
        "stride": "i32", "N": "i32", "eps": "fp32"}, {"BLOCK_SIZE": 4096},
        ["X", "Y", "W", "B", "Mean", "Rstd", "stride"], {"num_warps": 8}),
    "layernorm_bwd_dx": lambda t: _tl(layernorm_bwd_dx, {
        "DX": "*fp16", "DY": "*fp16", "DW": "*fp16", "DB": "*fp16", "X": "*fp16", "W": "*fp16",
        "Mean": "*fp32", "Rstd": "*fp32", "Lock": "*i32", "stride": "i32", "N": "i32"},
        {"GROUP_SIZE_M": 64, "BLOCK_SIZE_N": 1024},
        ["DX", "DY", "DW", "DB", "X", "W", "Mean", "Rstd", "Lock", "stride"], {"num_warps": 8}),
    "layernorm_bwd_dwdb": lambda t: _tl(layernorm_bwd_dwdb, {
        "DW": "*fp16", "DB": "*fp16", "FINAL_DW": "*fp16", "FINAL_DB": "*fp16", "M": "i32",
        "N": "i32"}, {"BLOCK_SIZE_M": 32, "BLOCK_SIZE_N": 128},
        ["DW", "DB", "FINAL_DW", "FINAL_DB"], {"num_warps": 4}),
    "attn_fwd_ptr": lambda t: _tl(attn_fwd_ptr, {
        "Q": "*fp16", "K": "*fp16", "V": "*fp16", "Out": "*fp16", "sm_scale": "fp32",
        "stride_qm": "i32", "stride_kn": "i32", "stride_vn": "i32", "stride_om": "i32",
        "N_CTX": "i32"}, {"BLOCK_M": 128, "BLOCK_N": 64, "HEAD_DIM": 64},
        ["Q", "K", "V", "Out", "stride_qm", "stride_kn", "stride_vn", "stride_om", "N_CTX"],
        {"num_warps": 4 if t.startswith("cuda") else 4, "num_stages": _stages(t)}),
    "attn_fwd_tma": lambda t: _tl(attn_fwd_tma, {
        "sm_scale": "fp32", "Z": "i32", "H": "i32", "q_ptr": "*fp16", "k_ptr": "*fp16",
        "v_ptr": "*fp16", "o_ptr": "*fp16", "N_CTX": "i32"},
        {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64},
        ["q_ptr", "k_ptr", "v_ptr", "o_ptr", "N_CTX"], {"num_warps": 4, "num_stages": _stages(t)}),
    "matmul_tma_persistent": lambda t: _tl(matmul_tma_persistent, {
        "a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32"},
        {"BLOCK_SIZE_M": 128, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 64, "GROUP_SIZE_M": 8,
         "NUM_SMS": 132}, ["a_ptr", "b_ptr", "c_ptr", "M", "N", "K"],
        {"num_warps": 4 if t != "cuda100" else 4, "num_stages": _stages(t)}),
    "transpose_trans": lambda t: _tl(transpose_trans, {"X": "*fp16", "Y": "*fp16", "M": "i32",
                                                       "N": "i32"}, {"BM": 64, "BN": 64},
                                     ["X", "Y", "M", "N"], {"num_warps": 4}),
    "transpose_trans_f32": lambda t: _tl(transpose_trans, {"X": "*fp32", "Y": "*fp32", "M": "i32",
                                                           "N": "i32"}, {"BM": 64, "BN": 64},
                                         ["X", "Y", "M", "N"], {"num_warps": 4}),
    "reduce_axis0": lambda t: _tl(reduce_axis0, {"X": "*fp32", "Y": "*fp32"},
                                  {"BM": 128, "BN": 64}, ["X", "Y"], {"num_warps": 4}),
    "argmax_axis1": lambda t: _tl(argmax_axis1, {"X": "*fp32", "Y": "*i32"},
                                  {"BM": 16, "BN": 512}, ["X", "Y"], {"num_warps": 4}),
    "cumsum_axis0": lambda t: _tl(cumsum_axis0, {"X": "*fp32", "Y": "*fp32"},
                                  {"BM": 128, "BN": 32}, ["X", "Y"], {"num_warps": 4}),
    "cumsum_1d": lambda t: _tl(cumsum_1d, {"X": "*i32", "Y": "*i32"}, {"BLOCK": 1024},
                               ["X", "Y"], {"num_warps": 4}),
    "histogram": lambda t: _tl(histogram_k, {"X": "*i32", "Y": "*i32"},
                               {"BLOCK": 1024, "BINS": 64}, ["X", "Y"], {"num_warps": 4}),
    "gather_axis1": lambda t: _tl(gather_axis1, {"X": "*fp32", "I": "*i32", "Y": "*fp32"},
                                  {"BM": 32, "BN": 64}, ["X", "I", "Y"], {"num_warps": 4}),
    "gather_axis0": lambda t: _tl(gather_axis0, {"X": "*fp32", "I": "*i32", "Y": "*fp32"},
                                  {"BM": 64, "BN": 32}, ["X", "I", "Y"], {"num_warps": 4}),
}
for _name, (_fn, _targets) in PROBES.items():
    KERNELS[_name] = _fn


# ============================================================================ one job
def make_target(t):
    b, a, w = TARGETS[t]
    return GPUTarget(b, a, w)


def run_job(kernel: str, tname: str, outdir: pathlib.Path) -> dict:
    """Compile one (kernel, target), write its files, return its expected.json entry."""
    backend = TARGETS[tname][0]
    try:
        src, opts = KERNELS[kernel](tname)
    except Skip as e:
        return {"status": "skipped", "reason": str(e)}
    target = make_target(tname)
    try:
        ck = triton.compile(src, target=target, options=opts)
    except Exception as e:  # noqa: BLE001
        msg = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()
        return {"status": "failed", "reason": (msg[-1] if msg else repr(e))[:400],
                "error_head": "\n".join(msg[:6])[:1200]}
    ttgir = _ttgir_for_file(ck.asm["ttgir"])
    base = f"{kernel}_{tname}"
    (outdir / f"{base}.ttgir").write_text(ttgir)
    asm_key = "ptx" if backend == "cuda" else "amdgcn"
    first = summarise(analyse_asm(ck.asm[asm_key], backend)["instrs"])
    llir, _ = analyse_llir(ck.asm["llir"])
    # attribution compile from the loc-free TTGIR; also capture the LLVM IR *before* LLVM's -O3
    # (Triton's own decisions, every access still carrying the !dbg of the op that emitted it)
    from triton._C.libtriton import llvm as _llvm
    _orig_opt = _llvm.optimize_module
    preopt = []

    def _capture(mod, *a, **k):
        preopt.append(str(mod))
        return _orig_opt(mod, *a, **k)

    _llvm.optimize_module = _capture
    with tempfile.TemporaryDirectory() as td:
        p = pathlib.Path(td) / f"{base}.ttgir"
        p.write_text(strip_locs(ttgir))
        try:
            ck2 = triton.compile(str(p), target=target)
            asm2 = ck2.asm[asm_key]
            llir2 = ck2.asm["llir"]
            err2 = None
        except Exception as e:  # noqa: BLE001
            asm2, llir2 = ck.asm[asm_key], ck.asm["llir"]
            err2 = f"attribution compile failed: {e}"[:300]
    _llvm.optimize_module = _orig_opt
    _, llir_lines = analyse_llir(llir2)
    llir_pre, llir_pre_lines = analyse_llir(preopt[0]) if preopt else ({}, {})
    (outdir / "asm").mkdir(exist_ok=True)
    (outdir / "asm" / f"{base}.{asm_key}").write_text(asm2)
    an = analyse_asm(asm2, backend)
    second = summarise(an["instrs"])
    ops = op_lines(ttgir)
    locs = loc_table(ttgir)
    # The .loc before an instruction is only a heuristic (the backend drops or merges debug
    # locations and the scheduler interleaves ops); the LLVM-IR !dbg attribution is exact.  An
    # assembly instruction whose line has no LLVM-IR access of the same class is moved to the
    # unique line that has one, if there is exactly one such line.
    ref_lines = llir_pre_lines or llir_lines
    llir_classes = {ln: {_klass(k) for k in v} for ln, v in ref_lines.items() if ln is not None}
    moved = 0
    for x in an["instrs"]:
        if x["aux"]:
            continue
        k = _klass(x["op"])
        if x["ttgir_line"] in llir_classes and k in llir_classes[x["ttgir_line"]]:
            continue
        cands = [ln for ln, ks in llir_classes.items() if k in ks]
        if len(cands) == 1:
            x["ttgir_line"] = cands[0]
            moved += 1
    per_line = defaultdict(list)
    for x in an["instrs"]:
        per_line[x["ttgir_line"]].append(x)
    attributed = []
    for line in sorted(set(k for k in per_line if k is not None) |
                       set(k for k in llir_lines if k is not None) |
                       set(k for k in llir_pre_lines if k is not None)):
        info = ops.get(line, {"op": None, "result": None, "text": None})
        s = summarise(per_line.get(line, []))
        if not s["counts"] and line not in llir_lines and line not in llir_pre_lines:
            continue
        attributed.append({"line": line, **locs.get(line, {"loc": None, "loc_name": None}),
                           "op": info["op"], "result": info["result"],
                           "instructions": s["counts"], "in_loop": s["counts_in_loop"],
                           "smem_bytes_per_thread": s["smem_bytes_per_thread"],
                           "aux": s["aux_counts"], "llir": llir_lines.get(line, {}),
                           "llir_preopt": llir_pre_lines.get(line, {}),
                           "ttgir": info["text"]})
    unattributed = summarise(per_line.get(None, []))["counts"]
    unattributed_llir = llir_lines.get(None, {})
    # shared-memory ops present in the TTGIR that produced no shared-memory instruction
    silent = []
    for line, info in sorted(ops.items()):
        if info["op"] == "ttg.local_alloc" and "local_alloc %" not in (info["text"] or ""):
            continue  # an allocation without a value writes nothing
        if info["op"] in ("ttg.local_alloc", "ttg.local_load", "ttg.local_store",
                          "ttg.async_copy_global_to_local", "ttg.convert_layout", "tt.reduce",
                          "tt.scan", "tt.histogram", "tt.gather") and line not in per_line \
                and line not in llir_lines:
            silent.append({"line": line, "op": info["op"], "result": info["result"],
                           "ttgir": info["text"]})
    mod = re.search(r"module attributes \{([^}]*)\}", ttgir)
    return {
        "status": "ok",
        "file": f"{base}.ttgir",
        "asm": f"asm/{base}.{asm_key}",
        "kernel": kernel, "target": tname, "backend": backend,
        "options": opts,
        "module_attributes": mod.group(1) if mod else None,
        **first,
        "llir_shared": llir,
        "llir_preopt_shared": llir_pre,
        "attribution_ok": err2 is None and first["counts"] == second["counts"],
        "asm_instructions_reattributed": moved,
        **({"attribution_error": err2} if err2 else {}),
        "ops": attributed,
        "unattributed": unattributed,
        "unattributed_llir": unattributed_llir,
        "unattributed_llir_preopt": llir_pre_lines.get(None, {}),
        "ops_without_smem_instructions": silent,
    }


# ============================================================================ driver
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", "--kernel", action="append", help="substring filter on kernel names")
    ap.add_argument("-t", "--target", action="append", help="substring filter on target names")
    ap.add_argument("-j", "--jobs", type=int, default=max(1, min(8, os.cpu_count() or 1)))
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--job", nargs=2, metavar=("KERNEL", "TARGET"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    outdir = pathlib.Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    if args.job:
        res = run_job(args.job[0], args.job[1], outdir)
        sys.stdout.write("\n@@RESULT@@" + json.dumps(res) + "\n")
        sys.stdout.flush()
        os._exit(0)
    names = [k for k in KERNELS if not args.kernel or any(f in k for f in args.kernel)]
    tnames = [t for t in TARGETS if not args.target or any(f in t for f in args.target)]
    if args.list:
        print("\n".join(names))
        return 0
    jobs = [(k, t) for k in names for t in tnames]

    def one(job):
        k, t = job
        p = subprocess.run([sys.executable, __file__, "--job", k, t, "--out", str(outdir)],
                           capture_output=True, text=True, timeout=900)
        if "@@RESULT@@" in p.stdout:
            res = json.loads(p.stdout.split("@@RESULT@@")[-1])
            if res["status"] == "failed":
                errs = [l.strip() for l in (p.stderr or "").splitlines() if "error:" in l]
                if errs:
                    res["mlir_error"] = errs[0][:400]
            return job, res
        tail = (p.stderr or p.stdout).strip().splitlines()
        return job, {"status": "failed", "reason": f"compiler process died (rc={p.returncode}): "
                     + (tail[-1] if tail else "")[:300],
                     "error_head": "\n".join(tail[-8:])[:1500]}

    results = {}
    with cf.ThreadPoolExecutor(args.jobs) as ex:
        for (k, t), res in ex.map(one, jobs):
            results[(k, t)] = res
            tag = res["status"]
            extra = res.get("reason", "") if tag != "ok" else json.dumps(res["counts"])[:150]
            print(f"{tag:8s} {k:40s} {t:8s} {extra}", flush=True)
    # merge with an existing expected.json so partial runs keep the rest
    exp_path = outdir / "expected.json"
    data = {"files": {}, "skipped": []}
    if exp_path.exists() and (args.kernel or args.target):
        data = json.loads(exp_path.read_text())
        data["skipped"] = [s for s in data["skipped"] if (s["kernel"], s["target"]) not in results]
        for (k, t) in results:
            data["files"].pop(f"{k}_{t}.ttgir", None)
    data["triton_version"] = triton.__version__
    data["generator"] = "corpus.py"
    data["notes"] = ("counts = static instruction lines in the final assembly (per thread); "
                     "counts_in_loop = those inside a backward-branch range; "
                     "smem_bytes_per_thread = bytes one lane moves to/from shared memory per "
                     "execution of the straight-line code (static); ops[].line = TTGIR line.")
    for (k, t), res in sorted(results.items()):
        if res["status"] == "ok":
            data["files"][res["file"]] = res
        else:
            data["skipped"].append({"kernel": k, "target": t, **res})
    data["files"] = dict(sorted(data["files"].items()))
    data["skipped"] = sorted(data["skipped"], key=lambda s: (s["kernel"], s["target"]))
    exp_path.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {exp_path}: {len(data['files'])} files, {len(data['skipped'])} skipped")
    return 0


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)
