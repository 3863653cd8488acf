#!/usr/bin/env python
"""Regenerate the Triton fixtures in ``tests/data/`` from Triton itself.

The tests never import Triton; they compare linlayout against the data this script writes.
Run it (CPU is enough — no GPU and no CUDA driver are needed) with Triton installed::

    pip install triton                 # 3.9.0 produced the checked-in files
    python tests/data/generate_triton_fixtures.py            # writes tests/data/…
    python tests/data/generate_triton_fixtures.py --check    # only compare, write nothing

What it writes, and where each number comes from:

``triton_layouts.json``
    ``cases``: for many encodings (blocked with CGA layouts, slices, nvidia_mma v2/v3, dot
    operands of mma/blocked/mfma/wmma parents, amd_mfma, amd_wmma, linear, swizzled_shared,
    nvmma_shared 0/32/64/128 × transposed × element widths × fp4Padded, shared_linear) and
    shapes: the attribute text exactly as Triton prints it (``str`` of a type built with the
    Gluon builder) and the bases of Triton's ``toLinearLayout`` (``GluonOpBuilder
    .to_linear_layout``). ``legacy_cga``: ``CTAsPerCGA/CTASplitNum/CTAOrder`` triples and the
    CGA bases Triton derives from them (``gluon_ir.make_cga_layout``). ``doc_tables``: the
    worked examples of ``swizzled_shared`` and ``amd_rotating_shared`` in Triton's
    ``TritonGPUAttrDefs.td`` (shipped in the wheel); Gluon cannot build
    ``amd_rotating_shared``, so these tables are its oracle.

``triton_bank_conflicts.json``
    (register layout, shared layout, shape, element bits) -> Triton's own counter
    ``gl.bank_conflicts`` (``bankConflictsMemDesc``), evaluated in a Gluon kernel's front end
    (``GluonASTSource.make_ir``; calling ``GluonOpBuilder.get_shared_bank_conflicts`` outside a
    kernel crashes Triton 3.9). Triton reports *extra* accesses per wavefront: degree − 1.

``ttgir/*.ttgir`` and ``ttgir_expected.json``
    TTGIR that Triton's compiler produced on this machine (``triton.compile`` with an explicit
    ``GPUTarget``; source paths in ``loc(...)`` replaced by this file's name):
    ``transpose2.ttgir`` (Gluon, sm_90: one 64×64 f16 tile written row-wise and read
    column-wise through an unswizzled and through a swizzled ``swizzled_shared`` buffer),
    ``matmul_sm80.ttgir`` (``tl.dot`` on sm_80 with ``num_stages=3``: ``cp.async`` copies into
    multi-buffered swizzled operands, ``local_load`` of dot operands from subslices, the mma
    epilogue's ``convert_layout``), ``tma_sm90.ttgir`` (a TMA load into a 128B
    ``nvmma_shared`` tile read back in a column-major blocked layout), ``matmul_tma_sm90.ttgir``
    (wgmma fed by TMA into three-stage ``nvmma_shared`` buffers; the mma epilogue stores the
    accumulator with ``local_alloc`` into ``nvmma_shared`` for a TMA store). The expectations file
    holds Triton's counter for every access it can evaluate (not for subslice views, which
    Gluon's counter refuses, nor converts, whose scratch layout the compiler picks).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton._C.libtriton import gluon_ir, ir  # noqa: E402
from triton._C.libtriton.gluon_ir import GluonOpBuilder  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402
from triton.compiler.compiler import make_backend  # noqa: E402
from triton.experimental import gluon  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402
from triton.experimental.gluon.language.amd._layouts import (  # noqa: E402
    AMDMFMALayout,
    AMDWMMALayout,
)

from linlayout.errors import LayoutError  # noqa: E402
from linlayout.triton import encodings as L  # noqa: E402
from linlayout.triton.parse import parse_encoding  # noqa: E402
from linlayout.triton.ttgir import find_accesses, read_ttgir  # noqa: E402

CTX = ir.context()
ir.load_dialects(CTX)
B = GluonOpBuilder(CTX)
F16 = B.get_half_ty()


# ----------------------------------------------------------------------------- Triton helpers
def to_gluon(e: L.Encoding):
    """A linlayout encoding as the Gluon layout object with the same parameters."""
    def cga(c):
        return [list(b) for b in c.bases]
    if isinstance(e, L.BlockedEncoding):
        return gl.BlockedLayout(list(e.size_per_thread), list(e.threads_per_warp),
                                list(e.warps_per_cta), list(e.order), cga(e.cga))
    if isinstance(e, L.SliceEncoding):
        return gl.SliceLayout(e.dim, to_gluon(e.parent))
    if isinstance(e, L.NvidiaMmaEncoding):
        return gl.NVMMADistributedLayout([e.version_major, e.version_minor],
                                         list(e.warps_per_cta), list(e.instr_shape), cga(e.cga))
    if isinstance(e, L.DotOperandEncoding):
        return gl.DotOperandLayout(e.op_idx, to_gluon(e.parent), e.k_width)
    if isinstance(e, L.AmdMfmaEncoding):
        return AMDMFMALayout(e.version, list(e.instr_shape), e.is_transposed,
                             list(e.warps_per_cta), e.element_bit_width, list(e.tiles_per_warp),
                             cga(e.cga))
    if isinstance(e, L.AmdWmmaEncoding):
        return AMDWMMALayout(e.version, e.is_transposed, [list(b) for b in e.warp_bases],
                             [list(b) for b in e.reg_bases], list(e.instr_shape), cga(e.cga),
                             e.rank)
    if isinstance(e, L.SwizzledSharedEncoding):
        return gl.SwizzledSharedLayout(e.vec, e.per_phase, e.max_phase, list(e.order), cga(e.cga))
    if isinstance(e, L.NvmmaSharedEncoding):
        return gl.NVMMASharedLayout(e.swizzling_byte_width, e.element_bit_width, e.rank,
                                    e.transposed, e.fp4_padded, cga(e.cga))
    if isinstance(e, L.SharedLinearEncoding):
        return gl.SharedLinearLayout([list(b) for b in e.offset], [list(b) for b in e.block],
                                     e.alignment)
    if isinstance(e, L.LinearEncoding):
        return None
    raise NotImplementedError(type(e).__name__)


def to_attr(e: L.Encoding, shape):
    if isinstance(e, L.LinearEncoding):
        base = e.base_layout()
        return B.get_distributed_linear_layout(
            *[base.bases[n] for n in ("register", "lane", "warp", "block")],
            list(base.out_dims.values()))
    return to_gluon(e)._to_ir(B)


def triton_layout(e: L.Encoding, shape) -> tuple[str, dict]:
    """(attribute text as Triton prints it, Triton's toLinearLayout bases)."""
    attr = to_attr(e, shape)
    ll = B.to_linear_layout(attr, list(shape))
    dims = "x".join(map(str, shape))
    if e.kind == "distributed":
        text = str(B.get_distributed_ty(F16, list(shape), attr))
        text = text[len(f"tensor<{dims}xf16, "):-1]
        bases = {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases,
                 "block": ll.block_bases}
    else:
        text = str(B.get_shared_mem_desc_ty(F16, list(shape), attr, list(shape)))
        text = text[len(f"!ttg.memdesc<{dims}xf16, "):-len(", #ttg.shared_memory, mutable>")]
        bases = {"offset": ll.offset_bases, "block": ll.block_bases}
    return text, bases


DTYPES = {8: gl.int8, 16: gl.float16, 32: gl.float32, 64: gl.int64}


@gluon.jit
def _bank_kernel(reg_type: gl.constexpr, shared_type: gl.constexpr):
    c: gl.constexpr = gl.bank_conflicts(reg_type, shared_type)
    gl.static_print("BANK", c)


_TARGET = GPUTarget("cuda", 90, 32)
_BACKEND = make_backend(_TARGET)
_OPTIONS = _BACKEND.parse_options({})


def triton_bank_conflicts(dist: L.Encoding, shared: L.Encoding, shape, alloc, bits) -> int:
    """Triton's ``gl.bank_conflicts`` (extra accesses per wavefront)."""
    reg = gl.distributed_type(DTYPES[bits], list(shape), to_gluon(dist))
    sh = gl.shared_memory_descriptor_type(DTYPES[bits], list(shape), to_gluon(shared),
                                          list(alloc))
    src = GluonASTSource(fn=_bank_kernel,
                         signature={"reg_type": "constexpr", "shared_type": "constexpr"},
                         constexprs={"reg_type": reg, "shared_type": sh})
    ctx = ir.context()
    ir.load_dialects(ctx)
    _BACKEND.load_dialects(ctx)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        src.make_ir(_TARGET, _OPTIONS, _BACKEND.get_codegen_implementation(_OPTIONS),
                    _BACKEND.get_module_map(), ctx)
    return int(buf.getvalue().split("BANK")[1].split()[0])


# ----------------------------------------------------------------------------- layout cases
def _p2(rng, lo, hi):
    return 1 << rng.randint(lo, hi)


def _split(rng, total, n):
    parts = [1] * n
    for _ in range(total.bit_length() - 1):
        parts[rng.randrange(n)] *= 2
    return parts


def _cga(rng, rank, nbits):
    seen, out = {}, []
    for _ in range(nbits):
        b = [0] * rank
        if rng.random() < 0.8:
            d = rng.randrange(rank)
            k = seen.get(d, 0)
            b[d] = 1 << k
            seen[d] = k + 1
        out.append(b)
    return out


def layout_candidates(rng: random.Random):
    """(encoding, shape) pairs covering every family; invalid ones are filtered later."""
    out = []
    # blocked (+ CGA), slices of it
    for _ in range(60):
        rank = rng.choice([1, 2, 2, 2, 3])
        order = list(range(rank))
        rng.shuffle(order)
        enc = L.blocked([_p2(rng, 0, 2) for _ in range(rank)], _split(rng, 32, rank),
                        _split(rng, rng.choice([1, 2, 4, 8]), rank), order,
                        cga_layout=_cga(rng, rank, rng.choice([0, 0, 1, 2])))
        out.append((enc, [_p2(rng, 0, 7) for _ in range(rank)]))
        if rank >= 2 and rng.random() < 0.5:
            out.append((L.slice(rng.randrange(rank), enc),
                        [_p2(rng, 0, 7) for _ in range(rank - 1)]))
    # nvidia mma v2 / v3 and their dot operands
    for _ in range(50):
        v = rng.choice([2, 3])
        if v == 2:
            rank = rng.choice([2, 2, 3])
            instr = [16, 8] if rank == 2 else [1, 16, 8]
            wpc = _split(rng, rng.choice([1, 2, 4, 8]), rank)
        else:
            rank = 2
            instr = [16, rng.choice([8, 16, 32, 64, 128, 256]), 16]
            wpc = rng.choice([[4, 1], [8, 1], [4, 2]])
        mma = L.nvidia_mma(v, wpc, instr, cga_layout=_cga(rng, rank, rng.choice([0, 0, 1])))
        shape = [_p2(rng, 3, 8) for _ in range(rank)]
        if rank == 3:
            shape[0] = _p2(rng, 0, 2)
        out.append((mma, shape))
        for op in ([0, 1] if v == 2 else [0]):
            dshape = [_p2(rng, 3, 8) for _ in range(rank)]
            if rank == 3:
                dshape[0] = shape[0]
            out.append((L.dot_operand(op, mma, rng.choice([1, 2, 4, 8])), dshape))
        if rng.random() < 0.3:
            out.append((L.slice(rng.randrange(rank), mma),
                        [_p2(rng, 3, 7) for _ in range(rank - 1)]))
    # FMA dot operands (blocked parent)
    for _ in range(15):
        rank = rng.choice([2, 3])
        order = list(range(rank))
        rng.shuffle(order)
        parent = L.blocked([_p2(rng, 0, 2) for _ in range(rank)], _split(rng, 32, rank),
                           _split(rng, rng.choice([1, 2, 4]), rank), order)
        out.append((L.dot_operand(rng.randrange(2), parent),
                    [_p2(rng, 0, 7) for _ in range(rank)]))
    # AMD mfma and dot operands
    for _ in range(30):
        rank = rng.choice([2, 2, 3])
        ishape = rng.choice([[32, 32, 8], [16, 16, 16], [32, 32, 16], [16, 16, 32],
                             [64, 4, 4], [4, 64, 4]])
        tr = rng.random() < 0.5 or ishape[:2] == [64, 4]
        tpw = [_p2(rng, 0, 1) for _ in range(rank)]
        if rank == 3:
            tpw[0] = 1
        mfma = L.amd_mfma(rng.choice([2, 3, 4]), _split(rng, rng.choice([1, 2, 4, 8]), rank),
                          ishape, tr, tiles_per_warp=tpw,
                          element_bit_width=rng.choice([32, 32, 64]),
                          cga_layout=_cga(rng, rank, rng.choice([0, 0, 1])))
        shape = [_p2(rng, 4, 8) for _ in range(rank)]
        if rank == 3:
            shape[0] = _p2(rng, 0, 2)
        out.append((mfma, shape))
        dshape = [_p2(rng, 4, 8) for _ in range(rank)]
        if rank == 3:
            dshape[0] = shape[0]
        out.append((L.dot_operand(rng.randrange(2), mfma, rng.choice([1, 2, 4, 8, 16])), dshape))
    # AMD wmma (Triton 3.9 ctaLayout) and dot operands
    for _ in range(30):
        rank = rng.choice([2, 2, 3])
        ver = rng.choice([1, 2, 3])
        ishape = ([16, 16, 16] if ver == 1 else rng.choice([[16, 16, 16], [16, 16, 32]])
                  if ver == 2 else rng.choice([[16, 16, 32], [16, 16, 64], [16, 16, 128],
                                               [32, 16, 64], [32, 16, 128]]))
        seen, wb, rb = {}, [], []
        for _ in range(rng.choice([0, 1, 2, 3])):
            d = rng.randrange(rank - 2, rank)
            k = seen.get(d, 0)
            b = [0] * rank
            b[d] = 1 << k
            seen[d] = k + 1
            wb.append(b)
        for _ in range(rng.choice([0, 0, 1])):
            d = rng.randrange(rank - 2, rank)
            k = seen.get(d, 0)
            b = [0] * rank
            b[d] = 1 << k
            seen[d] = k + 1
            rb.append(b)
        wmma = L.amd_wmma(ver, rng.random() < 0.5, warp_bases=wb, reg_bases=rb,
                          instr_shape=ishape, rank=rank,
                          cga_layout=_cga(rng, rank, rng.choice([0, 0, 1])))
        shape = [_p2(rng, 5, 8) for _ in range(rank)]
        if rank == 3:
            shape[0] = _p2(rng, 0, 2)
        out.append((wmma, shape))
        kw = rng.choice([8, 16]) if ver == 1 else rng.choice([2, 4, 8, 16])
        kw = min(kw, ishape[2] // 2)
        dshape = [_p2(rng, 5, 8) for _ in range(rank)]
        if rank == 3:
            dshape[0] = shape[0]
        out.append((L.dot_operand(rng.randrange(2), wmma, kw), dshape))
    # linear
    for _ in range(20):
        rank = rng.choice([1, 2, 3])
        shape = [_p2(rng, 0, 4) for _ in range(rank)]
        units = [(d, 1 << k) for d in range(rank) for k in range(shape[d].bit_length() - 1)]
        rng.shuffle(units)
        groups = {"register": [], "lane": [], "warp": [], "block": []}
        for d, v in units:
            g = rng.choice(["register", "lane", "warp"])
            if g == "lane" and len(groups["lane"]) >= 5:
                g = "register"
            b = [0] * rank
            b[d] = v
            groups[g].append(b)
        while len(groups["lane"]) < 5:
            groups["lane"].append([0] * rank)
        enc = L.linear(groups["register"], groups["lane"], groups["warp"], groups["block"],
                       rank=rank)
        out.append((enc, [max(1, s * rng.choice([1, 1, 2, 4])) for s in shape]))
    # swizzled_shared
    for _ in range(50):
        rank = rng.choice([1, 2, 2, 2, 3])
        order = list(range(rank))
        rng.shuffle(order)
        enc = L.swizzled_shared(_p2(rng, 0, 3), _p2(rng, 0, 3), _p2(rng, 0, 3), order,
                                cga_layout=_cga(rng, rank, rng.choice([0, 0, 1])))
        out.append((enc, [_p2(rng, 1, 7) for _ in range(rank)]))
    # nvmma_shared: every swizzle width, both orientations, every element width
    for sw in (0, 32, 64, 128):
        for eb in (8, 16, 32, 64):
            for tr in (False, True):
                for rank in (2, 3):
                    shape = [_p2(rng, 4, 8) for _ in range(rank)]
                    if rank == 3:
                        shape[0] = _p2(rng, 0, 2)
                    out.append((L.nvmma_shared(sw, eb, transposed=tr, rank=rank), shape))
    for _ in range(8):
        out.append((L.nvmma_shared(128, 8, fp4_padded=True, transposed=rng.random() < 0.5),
                    [_p2(rng, 5, 8), _p2(rng, 5, 8)]))
    for _ in range(10):
        out.append((L.nvmma_shared(rng.choice([0, 32, 64, 128]), rng.choice([8, 16, 32]),
                                   transposed=rng.random() < 0.5,
                                   cga_layout=_cga(rng, 2, 1)), [_p2(rng, 6, 8), _p2(rng, 6, 8)]))
    # shared_linear: random bijections
    for _ in range(8):
        shape = [_p2(rng, 1, 4), _p2(rng, 1, 4)]
        units = [[1 << k, 0] for k in range(shape[0].bit_length() - 1)] + \
                [[0, 1 << k] for k in range(shape[1].bit_length() - 1)]
        rng.shuffle(units)
        out.append((L.shared_linear(units), shape))
    return out


def layout_fixtures(seed: int = 20250101) -> dict:
    rng = random.Random(seed)
    cases = []
    skipped = 0
    for enc, shape in layout_candidates(rng):
        try:
            ours = enc.to_linear_layout(shape)  # refuse what Triton would abort on
        except LayoutError:
            skipped += 1
            continue
        if enc.kind == "shared" and ours.total_in_bits == 0:
            skipped += 1
            continue
        try:
            text, bases = triton_layout(enc, shape)
        except (RuntimeError, AssertionError):
            skipped += 1
            continue
        out_dims = {f"dim{i}": s for i, s in enumerate(shape)}
        cases.append({"family": enc.mnemonic if not isinstance(enc, L.DotOperandEncoding)
                      else f"dot_op/{enc.parent.mnemonic}",
                      "kind": enc.kind, "text": text, "shape": list(shape),
                      "layout": {"bases": bases, "out_dims": out_dims}})
    legacy = []
    for per, split, order in [([2, 1], [2, 1], [1, 0]), ([2, 2], [2, 1], [1, 0]),
                              ([4, 2], [2, 2], [0, 1]), ([1, 4], [1, 2], [1, 0]),
                              ([2, 2, 1], [2, 1, 1], [2, 1, 0]), ([8], [4], [0]),
                              ([4, 4], [4, 4], [0, 1]), ([2, 4], [1, 4], [1, 0])]:
        legacy.append({"CTAsPerCGA": per, "CTASplitNum": split, "CTAOrder": order,
                       "bases": gluon_ir.make_cga_layout(per, split, order)})
    print(f"layouts: {len(cases)} cases, {skipped} skipped (invalid for Triton)")
    return {"triton_version": triton.__version__, "cases": cases, "legacy_cga": legacy,
            "doc_tables": doc_tables()}


def doc_tables() -> list[dict]:
    """The worked tables of swizzled_shared / amd_rotating_shared in TritonGPUAttrDefs.td."""
    td = pathlib.Path(triton.__file__).parent / "include/triton/Dialect/TritonGPU/IR" / \
        "TritonGPUAttrDefs.td"
    lines = td.read_text().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"\s*#(ttg\.swizzled_shared|shared)<\{(.*)\}>\s*$", line)
        if not m:
            continue
        params = {k: int(v) for k, v in re.findall(r"(vec|perPhase|maxPhase)\s*=\s*(\d+)",
                                                     m.group(2))}
        rows = []
        for nxt in lines[i + 1:]:
            if nxt.strip().startswith("#"):
                break
            r = re.search(r"\[\s*(\d[\d,\s]*)\]", nxt)
            if r:
                rows.append([int(x) for x in r.group(1).split(",") if x.strip()])
            elif rows and not nxt.strip():
                break
        mnemonic = ("swizzled_shared" if m.group(1) == "ttg.swizzled_shared"
                    else "amd_rotating_shared")
        out.append({"mnemonic": mnemonic, "vec": params["vec"], "perPhase": params["perPhase"],
                    "maxPhase": params["maxPhase"], "order": [1, 0], "rows": rows})
    return out


# ----------------------------------------------------------------------------- bank conflicts
def bank_fixtures(seed: int = 7) -> dict:
    rng = random.Random(seed)
    cases = []
    mma2 = L.nvidia_mma(2, [2, 2], [16, 8])
    mma3 = L.nvidia_mma(3, [4, 1], [16, 64, 16])
    tries = 0
    while len(cases) < 240 and tries < 2000:
        tries += 1
        bits = rng.choice([8, 16, 32, 64])
        shape = [_p2(rng, 3, 7), _p2(rng, 3, 7)]
        r = rng.random()
        if r < 0.55:
            order = rng.choice([[1, 0], [0, 1]])
            spt, tpw, wpc = [_p2(rng, 0, 3), _p2(rng, 0, 3)], _split(rng, 32, 2), _split(rng, 4, 2)
            shape = [max(s, a * b * c) for s, a, b, c in zip(shape, spt, tpw, wpc)]
            dist = L.blocked(spt, tpw, wpc, order)
        elif r < 0.8:
            shape = [max(s, 32) for s in shape]
            dist = mma2 if rng.random() < 0.4 else L.dot_operand(rng.randrange(2), mma2,
                                                                 max(1, 32 // bits))
        else:
            shape = [_p2(rng, 6, 7), _p2(rng, 6, 7)]
            dist = mma3
        s = rng.random()
        if s < 0.55:
            shared = L.swizzled_shared(_p2(rng, 0, 3), _p2(rng, 0, 2), _p2(rng, 0, 3),
                                       rng.choice([[1, 0], [0, 1]]))
        else:
            shared = L.nvmma_shared(rng.choice([0, 32, 64, 128]), bits,
                                    transposed=rng.random() < 0.3)
        try:
            dist.to_linear_layout(shape)
            shared.to_linear_layout(shape)
            count = triton_bank_conflicts(dist, shared, shape, shape, bits)
        except (LayoutError, Exception):  # noqa: BLE001 - Triton raises assorted errors
            continue
        cases.append({"register": dist.text(), "shared": shared.text(), "shape": shape,
                      "element_bits": bits, "triton_extra": count})
    # Triton's own test expectations (python/test/gluon/test_frontend.py::test_bank_conflicts)
    print(f"bank conflicts: {len(cases)} cases")
    return {"triton_version": triton.__version__, "cases": cases}


# ----------------------------------------------------------------------------- TTGIR
@gluon.jit
def transpose2(X, Y, Z, BM: gl.constexpr, BN: gl.constexpr):
    ld: gl.constexpr = gl.BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
    st: gl.constexpr = gl.BlockedLayout([8, 1], [8, 4], [1, 4], [0, 1])
    plain: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [1, 0])
    swz: gl.constexpr = gl.SwizzledSharedLayout(8, 1, 8, [1, 0])
    rm = gl.arange(0, BM, layout=gl.SliceLayout(1, ld))
    rn = gl.arange(0, BN, layout=gl.SliceLayout(0, ld))
    x = gl.load(X + rm[:, None] * BN + rn[None, :])
    tile = gl.allocate_shared_memory(gl.float16, [BM, BN], plain, x)
    y = tile.load(st)
    sm = gl.arange(0, BM, layout=gl.SliceLayout(1, st))
    sn = gl.arange(0, BN, layout=gl.SliceLayout(0, st))
    gl.store(Y + sn[None, :] * BM + sm[:, None], y)
    tile_swz = gl.allocate_shared_memory(gl.float16, [BM, BN], swz)
    tile_swz.store(x)
    z = tile_swz.load(st)
    gl.store(Z + sn[None, :] * BM + sm[:, None], z)


@triton.jit
def matmul(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = A + rm[:, None] * K + rk[None, :]
    b_ptrs = B + rk[:, None] * BN + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptrs)
        b = tl.load(b_ptrs)
        acc += tl.dot(a, b)
        a_ptrs += BK
        b_ptrs += BK * BN
    tl.store(C + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))


@triton.jit
def tma_scale(X, Y, M, N, BM: tl.constexpr, BN: tl.constexpr):
    desc = tl.make_tensor_descriptor(X, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    x = desc.load([0, 0])
    rm = tl.arange(0, BM)[:, None]
    rn = tl.arange(0, BN)[None, :]
    tl.store(Y + rn * BM + rm, x * 2)


@triton.jit
def matmul_tma(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    a_desc = tl.make_tensor_descriptor(A, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])
    b_desc = tl.make_tensor_descriptor(B, shape=[K, N], strides=[N, 1], block_shape=[BK, BN])
    c_desc = tl.make_tensor_descriptor(C, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([0, k])
        b = b_desc.load([k, 0])
        acc = tl.dot(a, b, acc)
    c_desc.store([0, 0], acc.to(tl.float16))


def _div16(*idx):
    return {(i,): [["tt.divisibility", 16]] for i in idx}


def compile_ttgir() -> dict[str, str]:
    out = {}
    src = GluonASTSource(fn=transpose2, signature={"X": "*fp16", "Y": "*fp16", "Z": "*fp16",
                                                   "BM": "constexpr", "BN": "constexpr"},
                         constexprs={"BM": 64, "BN": 64}, attrs=_div16(0, 1, 2))
    out["transpose2.ttgir"] = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                                             options={"num_warps": 4}).asm["ttgir"]
    src = ASTSource(fn=matmul, signature={"A": "*fp16", "B": "*fp16", "C": "*fp16", "K": "i32",
                                          "BM": "constexpr", "BN": "constexpr",
                                          "BK": "constexpr"},
                    constexprs={"BM": 128, "BN": 128, "BK": 32}, attrs=_div16(0, 1, 2, 3))
    out["matmul_sm80.ttgir"] = triton.compile(src, target=GPUTarget("cuda", 80, 32),
                                              options={"num_warps": 4, "num_stages": 3}
                                              ).asm["ttgir"]
    src = ASTSource(fn=tma_scale, signature={"X": "*fp16", "Y": "*fp16", "M": "i32", "N": "i32",
                                             "BM": "constexpr", "BN": "constexpr"},
                    constexprs={"BM": 64, "BN": 64}, attrs=_div16(0, 1, 3))
    out["tma_sm90.ttgir"] = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                                           options={"num_warps": 4}).asm["ttgir"]
    src = ASTSource(fn=matmul_tma, signature={"A": "*fp16", "B": "*fp16", "C": "*fp16",
                                              "M": "i32", "N": "i32", "K": "i32",
                                              "BM": "constexpr", "BN": "constexpr",
                                              "BK": "constexpr"},
                    constexprs={"BM": 128, "BN": 128, "BK": 64}, attrs=_div16(0, 1, 2, 3, 4, 5))
    out["matmul_tma_sm90.ttgir"] = triton.compile(src, target=GPUTarget("cuda", 90, 32),
                                                  options={"num_warps": 4, "num_stages": 3}
                                                  ).asm["ttgir"]
    me = str(pathlib.Path(__file__).resolve())
    return {k: v.replace(me, pathlib.Path(__file__).name) for k, v in out.items()}


def ttgir_expectations(files: dict[str, str]) -> dict:
    result = {"triton_version": triton.__version__, "files": {}}
    for name, text in files.items():
        module = read_ttgir(text, name)
        ops = []
        for a in find_accesses(module):
            entry = {"line": a.line, "op": a.op, "result": a.result, "memdesc": a.memdesc,
                     "triton_extra": None}
            if a.kind == "convert":
                entry["why_none"] = "convert_layout: the compiler picks the scratch layout"
            elif a.distributed.shape != a.memory.layout_shape:
                entry["why_none"] = "subslice view: gl.bank_conflicts refuses subslices"
            else:
                entry["triton_extra"] = triton_bank_conflicts(
                    a.distributed.encoding, a.memory.encoding, a.distributed.shape,
                    a.memory.layout_shape, a.element_bits)
            ops.append(entry)
        result["files"][name] = ops
    return result


# ----------------------------------------------------------------------------- main
def _dump(data, indent: str = "") -> str:
    """JSON with one record per line (diff-friendly, compact)."""
    if isinstance(data, dict):
        if not any(isinstance(v, (dict, list)) and v and isinstance(
                v[0] if isinstance(v, list) else next(iter(v.values())), (dict, list))
                for v in data.values()):
            return json.dumps(data)
        items = [f'{indent} {json.dumps(k)}: {_dump(v, indent + " ").lstrip()}'
                 for k, v in data.items()]
        return "{\n" + ",\n".join(items) + f"\n{indent}}}" + ("\n" if not indent else "")
    if isinstance(data, list) and data and isinstance(data[0], dict):
        return "[\n" + ",\n".join(f"{indent}  {json.dumps(x)}" for x in data) + f"\n{indent} ]"
    return json.dumps(data)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(HERE), help="directory to write (default: tests/data)")
    ap.add_argument("--check", action="store_true", help="compare with the files, write nothing")
    args = ap.parse_args(argv)
    out = pathlib.Path(args.out)
    files = compile_ttgir()
    data = {
        "triton_layouts.json": layout_fixtures(),
        "triton_bank_conflicts.json": bank_fixtures(),
        "ttgir_expected.json": ttgir_expectations(files),
    }
    texts = {f"ttgir/{k}": v for k, v in files.items()}
    texts.update({k: _dump(v) for k, v in data.items()})
    status = 0
    for rel, text in texts.items():
        path = out / rel
        if args.check:
            same = path.exists() and path.read_text() == text
            print(f"{'same' if same else 'DIFFERS'}: {rel}")
            status |= not same
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            print(f"wrote {path}")
    # sanity: every case parses with linlayout
    for case in data["triton_layouts.json"]["cases"]:
        parse_encoding(case["text"])
    return status


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    os._exit(code)  # skip nanobind's leak report at interpreter exit
