"""The held-out traffic set (``tests/data/triton_heldout_traffic.json.gz``, written by
``papers/global_memory/heldout.py`` with Triton 3.9.0; no Triton needed here): tutorial kernels
(vector add, dropout, softmax, layer norm forward and backward, grouped, persistent and TMA
matmuls, attention, reductions, grouped GEMM) and random-layout load/store/atomic kernels on
sm_80/90/100 and gfx942/950: set ``heldout`` drawn after ``check``'s global rules were
written (it found three rules, since modelled), set ``after`` drawn after those, set
``third`` (a new seed over all templates and targets) drawn after the AMD 16-bit float add
rule.

Per kernel, ``linlayout check``'s report equals Triton's instructions:

* global, op by op and opcode by opcode (vector width in the opcode): NVIDIA against the
  inline assembly of Triton's LLVM IR before LLVM's optimiser, whose totals equal the PTX's;
  AMD against the global accesses of that LLVM IR (atomics by family; by exact mnemonic per
  kernel against the final AMDGCN). TMA copies are named by
  the shared-memory rows and left out. An access whose debug location is a line without a
  global op (AMD's scalar atomics carry their pointer's) is pooled with the op that got none;
* shared, file totals (NVIDIA opcodes by bytes per lane against the PTX, AMD LDS bytes) and
  op by op (the LLVM IR's accesses by kind and width; ``tt.scan`` lines and the function's own
  line left out, as in the corpus);
* AMD global loads and stores against the final AMDGCN: Triton's IR counts with, op by op,
  each ``may_merge`` (LLVM's back end merging a thread's run) taken or not; the differences
  (scalar loads LLVM merges or moves, code LLVM duplicates; the load each compare-and-swap
  loop of an atomic begins with is counted, ``loop_load``)
  strict xfails with their reason (``known_mismatches.json``, key
  ``heldout_traffic_amdgcn``);
* every sector count ``check`` makes in closed form equals the brute-force simulator's on the
  same layout, strides, vector and placement (a sample here; the script checks all).
"""

from __future__ import annotations

import collections
import re

import pytest

from linlayout.check import check_module
from linlayout.check.global_memory import cost as cost_mod
from linlayout.check.global_memory.compare import AGREES, amd_merge_outcome
from linlayout.global_memory import simulate_global_access
from linlayout.triton import read_ttgir
from tests.check.shared_memory.asm_counts import canonical, ptx_counts
from tests.check.shared_memory.triton_fixtures import cases, entries

SET = "heldout_traffic"
#: TMA copies and tensor-map updates (named by the shared-memory rows, not counted here).
TMA = ("cp.async.bulk",)


def shared_key(opcode: str) -> str | None:
    """One NVIDIA shared-memory access by kind and width however it is spelled
    (``ld.shared/16B`` for ``ld.shared.v4.b32`` and LLVM's ``load <4 x i32>``,
    ``ldmatrix.x4.trans`` for the PTX opcode and the NVVM intrinsic); None for others."""
    m = re.fullmatch(r"(ld|st)\.shared(?:::cta)?(?:\.v(\d))?\.[bsuf](\d+)", opcode)
    if m:
        return f"{m.group(1)}.shared/{int(m.group(2) or 1) * int(m.group(3)) // 8}B"
    m = re.fullmatch(r"llvm\.(load|store)\.(\d+)B", opcode)
    if m:
        return f"{'ld' if m.group(1) == 'load' else 'st'}.shared/{m.group(2)}B"
    m = re.match(r"(?:llvm\.nvvm\.)?(ldmatrix|stmatrix)[\w.]*?\.(x\d)(\.trans)?", opcode)
    if m:
        return f"{m.group(1)}.{m.group(2)}{m.group(3) or ''}"
    if opcode.startswith("cp.async"):
        return opcode
    if opcode == "llvm.atomic" or re.match(r"(atom|red)\.shared", opcode):
        return "atomic"
    return None


def _report(case: str):
    e = entries(SET)[case]
    return e, check_module(read_ttgir(e["ttgir"], case), suggest=False)


def global_mismatches(rep, e: dict) -> list:
    """(line, predicted, Triton's) for every global op that differs."""
    amd = e["target"].startswith("gfx")
    got: dict = collections.defaultdict(collections.Counter)
    for g in rep.global_ops:
        if g.prediction is None:
            got[g.op.line]["not analysed"] += 1
            continue
        for op, n in g.prediction.instructions():
            if amd:
                m = re.match(r"(global|buffer)_atomic", op)
                op = m.group(0) if m else op
            got[g.op.line][op] += n
    want = {int(k): {o: n for o, n in v.items() if not o.startswith(TMA)}
            for k, v in e["global_ops"].items()}
    want = {k: v for k, v in want.items() if v}
    ops = {g.op.line for g in rep.global_ops}
    stray = {ln for ln in want if ln not in ops}
    orphans = {ln for ln in ops if ln not in want and got.get(ln)}
    pool_w: collections.Counter = collections.Counter()
    pool_g: collections.Counter = collections.Counter()
    for ln in stray:
        pool_w.update(want[ln])
    for ln in orphans:
        pool_g.update(got[ln])
    moved = stray | orphans if stray and pool_w == pool_g else set()
    return [(ln, dict(got.get(ln, {})), want.get(ln, {}))
            for ln in sorted(set(got) | set(want))
            if ln not in moved and dict(got.get(ln, {})) != want.get(ln, {})]


def shared_predicted(rep, amd: bool) -> tuple[dict, dict]:
    """``check``'s shared-memory accesses per line and in total (register-only instructions
    and named-only ones left out)."""
    per: dict = collections.defaultdict(collections.Counter)
    tot: collections.Counter = collections.Counter({"load": 0, "store": 0} if amd else {})
    for o in rep.ops:
        assert o.status.name != "NOT_ANALYSED", o.note
        for i in o.instructions:
            x = i.emitted
            if x.per_thread is None or x.side not in ("load", "store", "atomic") or \
                    (not amd and shared_key(x.opcode) is None):
                continue
            if amd:
                v = x.per_thread if x.side == "atomic" else x.bytes_per_thread
                per[o.access.line][x.side] += v
                tot[x.side] += v
            else:
                per[o.access.line][shared_key(x.opcode)] += x.per_thread
                tot[canonical(x.opcode)] += x.per_thread
    return {k: {a: b for a, b in v.items() if b} for k, v in per.items()}, dict(tot)


@pytest.mark.parametrize("case", cases(SET))
def test_global_instructions_equal_tritons_op_by_op(case):
    e, rep = _report(case)
    assert global_mismatches(rep, e) == []


@pytest.mark.parametrize("case", sorted(entries(SET)))
def test_shared_instructions_equal_tritons(case):
    """(The known mismatches of this set are global ones.)"""
    e, rep = _report(case)
    amd = e["target"].startswith("gfx")
    per, tot = shared_predicted(rep, amd)
    if amd:
        assert tot == {"load": 0, "store": 0, **e["shared_counts"]}
    else:
        assert tot == ptx_counts(e["asm_shared"])
    skip = {o.access.line for o in rep.ops if o.access.op in ("tmem_alloc", "scan")}
    skip |= {i for i, t in enumerate(e["ttgir"].split("\n"), 1) if "tt.func" in t} | {0}
    want: dict = {}
    for ln, ops in e["shared_ops"].items():
        c: collections.Counter = collections.Counter()
        for k, v in ops.items():
            key = k if amd else shared_key(k)
            if key is not None:
                c[key] += v
        want[int(ln)] = {k: v for k, v in c.items() if v}
    for ln in sorted((set(per) | set(want)) - skip):
        assert per.get(ln, {}) == want.get(ln, {}), ln


def test_the_ptx_keeps_tritons_global_instructions():
    """On NVIDIA the global instructions of Triton's LLVM IR before LLVM's optimiser are the
    PTX's (inline assembly LLVM does not merge), so the op-by-op counts are the kernel's."""
    for name, e in entries(SET).items():
        if e["target"].startswith("cuda"):
            kept = {k: v for k, v in e["global_counts"].items()
                    if not k.startswith(("llvm.",) + TMA)}
            assert kept == {k: v for k, v in e["asm_global"].items() if k in kept}, name


def _amd_atomic_cases() -> list[str]:
    return sorted(n for n, e in entries(SET).items()
                  if e["target"].startswith("gfx") and "atomic" in e["ttgir"])


@pytest.mark.parametrize("case", _amd_atomic_cases())
def test_amd_atomic_mnemonics_equal_the_amdgcn(case):
    """AMD atomics by exact mnemonic (fallback instructions included), per kernel, against
    the final AMDGCN's static count."""
    e, rep = _report(case)
    got: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        if g.prediction is not None and g.prediction.side == "atomic":
            for opcode, n in g.prediction.instructions():
                got[opcode] += n
    assert dict(got) == {k: v for k, v in e["asm_global"].items() if "_atomic" in k}


@pytest.mark.parametrize("case", cases(SET, lambda n, e: e["target"].startswith("gfx"),
                                        final=True))
def test_amd_final_loads_and_stores_are_tritons_or_a_named_merge(case):
    """The final AMDGCN's global and buffer loads and stores, per kernel, are ``check``'s
    (Triton's IR) with some of its ``may_merge`` taken
    (:func:`~linlayout.check.global_memory.compare.amd_merge_outcome`)."""
    e, rep = _report(case)
    assert amd_merge_outcome(rep.global_ops, e["asm_global"]) in AGREES


SAMPLE = sorted(entries(SET))[::7]


@pytest.mark.parametrize("case", SAMPLE)
def test_closed_form_sectors_equal_brute_force(case, monkeypatch):
    calls = []
    orig = cost_mod.global_access

    def spy(layout, memory, **kw):
        rep = orig(layout, memory, **kw)
        calls.append((layout, memory, kw, rep))
        return rep

    monkeypatch.setattr(cost_mod, "global_access", spy)
    _report(case)
    keys = ("sectors_per_instruction", "lines_per_instruction", "sectors_per_warp",
            "lines_per_warp", "instructions_per_warp", "vector_elems")
    for layout, memory, kw, rep in calls:
        if rep.method != "closed form":
            continue
        kw = {k: v for k, v in kw.items() if k != "limit"}
        sim = simulate_global_access(layout, memory, limit=1 << 24, **kw)
        assert [getattr(rep, k) for k in keys] == [getattr(sim, k) for k in keys]


def test_the_set_covers_the_targets_and_kernels():
    ps = entries(SET)
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                  "gfx950"}
    kinds = collections.Counter(e["kind"] for e in ps.values())
    sets = collections.Counter(e["set"] for e in ps.values())
    assert sets["heldout"] >= 250 and sets["after"] >= 70 and sets["third"] >= 110
    assert kinds["random_layout"] >= 120
    for k in ("vector_add", "dropout", "softmax", "layernorm_fwd", "layernorm_bwd", "matmul",
              "matmul_persistent", "matmul_tma", "attention", "reduction", "grouped_gemm"):
        assert kinds[k] >= 3, k


def _allocation_cases() -> list:
    """The NVIDIA kernels whose offsets Triton's own allocator gave (every one placed alike,
    grouped and persistent matmuls with a K loop inside an outer loop and sm_100 attention
    with a buffer yielded into its loop included)."""
    return [pytest.param(name, id=name) for name, e in sorted(entries(SET).items())
            if "allocation" in e]


@pytest.mark.parametrize("case", _allocation_cases())
def test_the_allocator_replay_places_buffers_as_triton_does(case):
    """Offsets of every buffer, scratch and the total, against Triton's own
    ``allocate_shared_memory_nv`` (``tensormap_create``'s 128-byte scratch included)."""
    from linlayout.check.shared_memory.ops import module_allocation, predict_module

    e = entries(SET)[case]
    module = read_ttgir(e["ttgir"], case)
    placed, _ = module_allocation(module, predict_module(module))
    assert placed is not None
    got = {"alloc": [b.offset_bytes for b in placed.buffers if b.kind == "alloc"],
           "captures": [b.offset_bytes for b in placed.buffers if b.kind == "captures"],
           "scratch": [b.offset_bytes for b in placed.buffers if b.kind == "scratch"],
           "state": placed.offset("state"), "size": placed.size_bytes}
    assert got == e["allocation"]
