#!/usr/bin/env python
"""Which rows a ``.trans`` ``ldmatrix`` of Triton 3.9.0 groups into one 8×8 matrix, read off
the PTX: the wavefronts of the addresses Triton emits against ``linlayout check``.

Run with Triton 3.9.0 installed (CPU only; about a minute)::

    python papers/triton_lowering/ldmatrix_trans_rows.py           # writes tests/data/triton_ldmatrix_trans_rows.json.gz
    python papers/triton_lowering/ldmatrix_trans_rows.py --check   # compare, write nothing

Each probe is the Gluon kernel ``g_smem`` (``gluon_kernels.py``, shared with
``papers/hardware/triton/generate.py``): it stores an ``M × N`` 16-bit tile into a random
``swizzled_shared`` buffer and loads it back (``local_load``) into a ``blocked`` layout —
random, or (three draws in four) one with lanes 2, 3, 4 along the buffer's contiguous
dimension, the shape ``.trans`` needs; the draw (seed 41) keeps the kernels whose load Triton
lowers to ``ldmatrix…trans``, up to 30. For each, the script evaluates the PTX's integer address arithmetic
for every thread (``%tid.x`` known, every other value unknown), takes each
``ldmatrix``'s row addresses (lane ``8j + r`` gives row ``r`` of matrix ``j``, PTX ISA
§9.7.14.5.15) and counts each matrix on the bank model (a matrix's wavefronts = the most
distinct 4-byte words it asks of one bank; 32 banks of 4 bytes). The fixture keeps the
TTGIR and those counts; ``tests/check/shared_memory/test_ldmatrix_trans_rows.py`` checks that
``linlayout check`` predicts every one of them. The rule under test — Triton pairs a
matrix's rows in the register its ``getLdStMatrixRowPermutation`` picks
(:func:`linlayout.lowering.vectorise.matrix_row_register`), not in register 0 — was read
from Triton's source before these probes were drawn; the script also reports what the
register-0 reading would have predicted.
"""

from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import random
import re
import sys
from collections import defaultdict

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))
from gluon_kernels import blocked_lists  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_ldmatrix_trans_rows.json.gz"
SEED = 41
WANT = 30

_REG = r"%[a-z]+[0-9]*"


def _val(tok: str, regs: dict, tid: int):
    tok = tok.strip()
    if tok == "%tid.x":
        return tid
    if re.fullmatch(r"-?\d+", tok):
        return int(tok) & 0xFFFFFFFF
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", tok):
        return int(tok, 16) & 0xFFFFFFFF
    if tok == "global_smem":
        return 0
    return regs.get(tok)


def _sext(x: int, bits: int) -> int:
    x &= (1 << bits) - 1
    return x - (1 << bits) if x >> (bits - 1) else x


def _eval(op: str, args: list, line: str) -> int | None:
    """One PTX integer instruction on known 32-bit operands, None when not modelled."""
    if any(a is None for a in args):
        return None
    m = 0xFFFFFFFF
    base = op.split(".")[0]
    if base == "mov" or base == "cvt":
        return args[0] & m if len(args) == 1 else None
    if base == "and":
        return args[0] & args[1]
    if base == "or":
        return args[0] | args[1]
    if base == "xor":
        return args[0] ^ args[1]
    if base == "not":
        return ~args[0] & m
    if base == "neg":
        return -args[0] & m
    if base == "shl":
        return (args[0] << args[1]) & m if args[1] < 32 else 0
    if base == "shr":
        if ".s32" in op:
            return (_sext(args[0], 32) >> min(args[1], 31)) & m
        return args[0] >> args[1] if args[1] < 32 else 0
    if base == "add":
        return (args[0] + args[1]) & m
    if base == "sub":
        return (args[0] - args[1]) & m
    if base == "mul" and ".lo" in op:
        return (args[0] * args[1]) & m
    if base == "mad" and ".lo" in op:
        return (args[0] * args[1] + args[2]) & m
    if base == "bfe":
        pos, ln = args[1] & 0xFF, args[2] & 0xFF
        v = (args[0] >> pos) & ((1 << ln) - 1) if ln else 0
        if ".s32" in op and ln and v >> (ln - 1):
            v = _sext(v, ln) & m
        return v
    if base == "lop3":
        a, b, c, lut = args
        out = 0
        for i in range(32):
            idx = ((a >> i & 1) << 2) | ((b >> i & 1) << 1) | (c >> i & 1)
            out |= ((lut >> idx) & 1) << i
        return out
    return None


def ldmatrix_addresses(ptx: str, threads: int) -> list[tuple[str, list[int]]]:
    """Per ``ldmatrix``: (its opcode, the shared-memory byte address of every thread), by
    evaluating the kernel's straight-line integer arithmetic once per thread."""
    body = ptx.split("{", 1)[1]
    lines = [ln.split("//")[0].strip() for ln in body.splitlines()]
    out: list[tuple[str, list[int]]] = []
    per_thread: list[list[int]] = []
    for tid in range(threads):
        regs: dict = {}
        found = []
        for ln in lines:
            if not ln or ln.startswith((".", "$", "@", "}", "{")):
                continue
            ln = ln.rstrip(";")
            parts = ln.split(None, 1)
            if len(parts) < 2:
                continue
            op, rest = parts
            if op.startswith("ldmatrix"):
                addr = re.search(r"\[\s*(" + _REG + r")\s*(?:\+\s*(-?\d+))?\s*\]", rest)
                a = regs.get(addr.group(1))
                found.append((op, None if a is None else a + int(addr.group(2) or 0)))
                continue
            ops = [t.strip() for t in rest.split(",")]
            if not ops or not re.fullmatch(_REG, ops[0]):
                continue
            args = [_val(t, regs, tid) for t in ops[1:]]
            regs[ops[0]] = _eval(op, args, ln)
        per_thread.append(found)
    for i, (op, _) in enumerate(per_thread[0]):
        out.append((op, [per_thread[t][i][1] for t in range(threads)]))
    return out


def wavefronts(addrs: list[int], matrices: int) -> int:
    """Wavefronts of one warp's ``ldmatrix``: per matrix ``j`` the 8 rows of lanes
    ``8j … 8j+7`` (16 bytes each), the most distinct 4-byte words of one bank."""
    total = 0
    for j in range(matrices):
        banks: dict[int, set[int]] = defaultdict(set)
        for r in range(8):
            start = addrs[8 * j + r]
            for w in range(start // 4, start // 4 + 4):
                banks[w % 32].add(w)
        total += max(len(s) for s in banks.values())
    return total


def draw(rng: random.Random):
    """One candidate: (M, N, warps, SRC, SMEM, DST) as plain lists."""
    while True:
        m, n = rng.choice([(16, 64), (32, 32), (64, 32), (32, 64), (64, 64), (128, 32),
                           (16, 128)])
        warps = rng.choice([1, 2, 4, 8])
        if m * n < 32 * warps * 2:
            continue
        def blocked():
            return blocked_lists(rng, m, n, warps)

        smem = [rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]),
                rng.choice([[1, 0], [0, 1]])]
        if rng.random() < 0.75:
            # aimed at .trans: lanes 2, 3, 4 along the buffer's contiguous dimension, one
            # element per thread along it, 8-element swizzle chunks (or none)
            c = smem[3][0]  # the contiguous dimension
            other = 1 - c
            w_c = 1 << rng.randint(0, warps.bit_length() - 1)
            wpc = [0, 0]
            wpc[c], wpc[other] = w_c, warps // w_c
            spt = [0, 0]
            spt[c], spt[other] = 1, 1 << rng.randint(0, 3)
            tpw = [0, 0]
            tpw[c], tpw[other] = 8, 4
            order = [other, c]
            if not all(spt[d] * tpw[d] * wpc[d] <= (m, n)[d] for d in range(2)):
                continue
            smem[0] = rng.choice([8, 16]) if smem[2] > 1 else smem[0]
            return m, n, warps, blocked(), smem, [spt, tpw, wpc, order]
        return m, n, warps, blocked(), smem, blocked()


def compile_case(m, n, warps, src, smem, dst):
    """(TTGIR, PTX) of the probe kernel."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    sys.path.insert(0, str(HERE))
    from gluon_kernels import smem_kernel

    g_smem = smem_kernel()

    def bl(p):
        return gl.BlockedLayout(size_per_thread=p[0], threads_per_warp=p[1],
                                warps_per_cta=p[2], order=p[3])

    const = {"M": m, "N": n, "SRC": bl(src), "SMEM": gl.SwizzledSharedLayout(*smem),
             "DST": bl(dst)}
    sig = {"X": "*fp16", "Y": "*fp16", **{k: "constexpr" for k in const}}
    src_ = GluonASTSource(fn=g_smem, signature=sig, constexprs=const,
                          attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
    k = triton.compile(src_, target=GPUTarget("cuda", 90, 32),
                       options={"num_warps": warps, "num_stages": 1})
    return k.asm["ttgir"], k.asm["ptx"]


def build() -> dict:
    sys.path.insert(0, str(HERE))
    from corpus import strip_locs

    rng = random.Random(SEED)
    cases = {}
    tried = 0
    while len(cases) < WANT and tried < 300:
        tried += 1
        m, n, warps, src, smem, dst = draw(rng)
        try:
            ttgir, ptx = compile_case(m, n, warps, src, smem, dst)
        except Exception as exc:  # noqa: BLE001 - a layout Triton refuses is skipped
            print("skip", exc.__class__.__name__)
            continue
        if not re.search(r"^\s*ldmatrix\.sync\S*\.trans", ptx, re.M):
            continue
        threads = 32 * warps
        lds = ldmatrix_addresses(ptx, threads)
        rec = []
        for op, addrs in lds:
            if any(a is None for a in addrs):
                (HERE / "unevaluated.ptx").write_text(ptx, encoding="utf-8")
                raise SystemExit(f"unevaluated address in {op} (PTX in unevaluated.ptx)")
            x = int(re.search(r"\.x(\d)", op).group(1))
            rec.append({"op": op, "wavefronts_per_warp": [
                wavefronts(addrs[32 * w:32 * w + 32], x) for w in range(warps)]})
        name = f"rows{len(cases)}_{m}x{n}_w{warps}"
        cases[name] = {"ttgir": strip_locs(ttgir), "ldmatrix": rec, "warps": warps}
        print(name, [r["wavefronts_per_warp"][0] for r in rec])
    import triton
    return {"triton_version": triton.__version__, "seed": SEED, "cases": cases}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the fixture, write nothing")
    args = ap.parse_args()
    doc = build()
    if args.check:
        old = json.loads(gzip.decompress(OUT.read_bytes()))
        same = old["cases"] == doc["cases"]
        print("fixture up to date" if same else "fixture DIFFERS")
        return 0 if same else 1
    OUT.write_bytes(gzip.compress(json.dumps(doc, indent=0, sort_keys=True).encode(), mtime=0))
    print(f"wrote {OUT} ({len(doc['cases'])} cases)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
