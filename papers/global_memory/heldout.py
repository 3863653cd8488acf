#!/usr/bin/env python
"""Held-out traffic set: every global and shared-memory instruction Triton 3.9.0 emits, op
by op, for kernels drawn after ``check``'s global-memory rules were written.

Run with Triton 3.9.0 installed (CPU only; ptxas is skipped; ~55 min on 2 CPUs, compiled
kernels cached under ``$TMPDIR/linlayout_heldout_traffic``)::

    python papers/global_memory/heldout.py            # writes tests/data/triton_heldout_traffic.json.gz
    python papers/global_memory/heldout.py --check    # compare with the fixture, write nothing
    python papers/global_memory/heldout.py --replay   # compare the committed fixture (no Triton)
    python papers/global_memory/heldout.py --draw 74  # a fresh draw (seed 74), compared, not written

Three sets: ``heldout`` (seed 71, 280 drawn) was compared before any rule changed and found
three classes, now modelled; ``after`` (seed 72, 80 drawn, weighted towards atomics) was drawn
once they were; ``third`` (seed 73, 120 drawn over every template and target) once the AMD
16-bit float atomic add was modelled. The kernels (``kernels.py``) are Triton's tutorial kernels at drawn block sizes,
warps, stages and types — vector add, dropout, the row-looping softmax, layer norm forward
and backward (its lock is a scalar ``atomic_cas``/``atomic_xchg``), the grouped matmul
(fp8 on sm_90+), a persistent matmul, a TMA-descriptor matmul (sm_90/sm_100), flash
attention forward (causal or not), 2-D reductions (sum, max, min, argmax, argmin, xor) and the
grouped GEMM whose pointers are loaded from global memory — and random-layout kernels: 1- to
3-D tiles whose address is ``Σ index_d · stride_d`` with strides 1, constants, runtime
arguments or 0 (a broadcast dim), optional ``tl.multiple_of``/``tl.max_contiguous`` hints,
``int64`` indices or offsets, masks on one or both dims, a constant bound or a modulo, and a
store or an atomic (add, max, min, xchg, cas; result used or not; orders), on ``cuda:80``,
``cuda:90``, ``cuda:100``, ``hip:gfx942`` and ``hip:gfx950``.

Attribution: each kernel is compiled from Python, its TTGIR stripped of ``loc(...)`` (lines
kept) and compiled again from that text, so every instruction's debug location is a TTGIR
line. Per op the fixture keeps, on NVIDIA, the PTX opcodes after each ``.loc`` (Triton emits
``ld``/``st.global``, ``cp.async`` and atomics as inline assembly LLVM does not merge), and on
AMD the global accesses of Triton's LLVM IR before LLVM's optimiser (named as the backend
selects them) and its LDS bytes; file totals come from the first compile. The comparison:

* global, per op and opcode (width included): ``check``'s ``global_ops`` against the op's
  instructions (AMD atomics by family per op, by exact mnemonic per file against the AMDGCN);
* shared, per file: NVIDIA opcodes by bytes per lane, AMD LDS bytes per thread (as the other
  probe sets); per op where the assembly attributes them;
* sectors and lines per request: each closed-form count ``check`` makes against the
  brute-force simulator (``linlayout.global_memory.simulate_global_access``) on the same
  layout, strides, vector and placement.

NVIDIA entries also keep the offsets Triton's own ``allocate_shared_memory_nv`` gives
(``allocation_probes.triton_offsets``), which the tests compare with the allocator replay.

The script prints each mismatch and a score per target and op class, and exits 1 on any.
"""

from __future__ import annotations

import collections
import gzip
import importlib.util
import json
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
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "papers" / "triton_lowering"))
OUT = ROOT / "tests" / "data" / "triton_heldout_traffic.json.gz"
CACHE = pathlib.Path(tempfile.gettempdir()) / "linlayout_heldout_traffic"
def _after_templates():
    import kernels

    return [(kernels.random_layout, 10), (kernels.layernorm_bwd, 2), (kernels.grouped_gemm, 1),
            (kernels.matmul, 1), (kernels.attention, 1), (kernels.softmax, 1),
            (kernels.vector_add, 1)]


#: set → (seed, kernels drawn, templates (None: all of ``kernels.TEMPLATES``)).
SETS = {"heldout": (71, 280, None), "after": (72, 80, "after"), "third": (73, 120, None)}
TARGETS = {"cuda80": ("cuda", 80, 32), "cuda90": ("cuda", 90, 32),
           "cuda100": ("cuda", 100, 32), "gfx942": ("hip", "gfx942", 64),
           "gfx950": ("hip", "gfx950", 64)}

#: TMA copies and the tensor-map updates of device-side descriptors: ``check`` names them with
#: the shared-memory ops, without a global instruction count; left out of the comparison.
TMA = ("cp.async.bulk",)
_PTX_INSTR = re.compile(r"^\s*(?:@!?%\w+\s+)?([a-z][\w.:]*)")
PTX_GLOBAL = re.compile(r"^((?:ld|st)(?:\.volatile)?\.global[\w.:]*|cp\.async\.c[ag]\."
                        r"shared\.global|cp\.async\.bulk[\w.:]*|(?:atom|red)[\w.:]*\.global"
                        r"[\w.:]*)$")
PTX_SHARED = re.compile(r"^((?:ld|st)\.shared[\w.:]*|ldmatrix[\w.]*|stmatrix[\w.]*|"
                        r"(?:atom|red)\.shared[\w.:]*|cp\.async\.c[ag]\.shared\.global)$")
AMD_INSTR = re.compile(r"^\s*((?:global|buffer|flat)_(?:load|store|atomic)_\w+|ds_\w+)")
_LL_BYTES = {"i8": 1, "i16": 2, "half": 2, "bfloat": 2, "i32": 4, "float": 4, "i64": 8,
             "double": 8, "ptr": 8}


def _ll_bytes(ty: str) -> int:
    m = re.fullmatch(r"<(\d+) x (\w+)>", ty)
    if m:
        return int(m.group(1)) * _LL_BYTES[m.group(2)]
    return _LL_BYTES[ty]


# ------------------------------------------------------------------------ jobs
def jobs(set_name: str = "heldout") -> list[dict]:
    """The drawn kernels of one set: name, template body, signature, constexprs, options,
    target. Set ``heldout`` (seed 71) was drawn before the rules it found were written; set
    ``after`` (seed 72, weighted towards atomics: random layouts, the layer-norm lock, the
    grouped GEMM's hinted loads) was drawn after them; set ``third`` (seed 73, all templates)
    after the AMD 16-bit float atomic add rule."""
    import kernels

    seed, count, templates = SETS[set_name]
    templates = _after_templates() if templates == "after" else templates
    rng = random.Random(seed)
    pool = [t for t, w in (templates or kernels.TEMPLATES) for _ in range(w)]
    out = []
    i = 0
    while len(out) < count:
        t = rng.choice(pool)
        target = rng.choice(list(TARGETS))
        drawn = t(rng, target)
        i += 1
        if drawn is None:
            continue
        body, sig, consts, opts = drawn
        div = {n: rng.random() < 0.7 for n in sig}
        prefix = "" if set_name == "heldout" else f"{set_name}_"
        out.append({"name": f"{prefix}{t.__name__}_{i}_{target}", "kind": t.__name__,
                    "set": set_name, "body": body, "sig": sig, "consts": consts,
                    "opts": opts, "div": div, "target": target})
    return out


def _source(job: dict) -> str:
    import kernels

    names = list(job["sig"]) + list(job["consts"])
    args = ", ".join(n if n in job["sig"] else f"{n}: tl.constexpr" for n in names)
    return ("import triton\nimport triton.language as tl\n" + kernels.HELPERS +
            f"\n\n@triton.jit\ndef probe({args}):\n    {job['body']}\n")


# ------------------------------------------------------------------------ attribution
def ptx_ops(ptx: str) -> tuple[dict, dict]:
    """Global and shared PTX opcodes per ``.loc`` line: ``({line: {opcode: n}}, same)``."""
    glob: dict = collections.defaultdict(collections.Counter)
    shared: dict = collections.defaultdict(collections.Counter)
    line = 0
    for text in ptx.splitlines():
        m = re.match(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+", text)
        if m:
            line = int(m.group(1))
            continue
        m = _PTX_INSTR.match(text)
        if not m:
            continue
        op = m.group(1)
        if PTX_GLOBAL.match(op):
            glob[line][op] += 1
        if PTX_SHARED.match(op):
            shared[line][op] += 1
    return ({k: dict(v) for k, v in glob.items()}, {k: dict(v) for k, v in shared.items()})


def _asm_opcodes(asm: str) -> list[str]:
    """The PTX opcodes of one inline-assembly string of LLVM IR (``\\0A``-separated,
    predicates ``@$N`` dropped)."""
    out = []
    for piece in re.split(r"\\0[9A]|;|\{|\}", asm):
        piece = re.sub(r"^\s*@!?[$%]\w+\s*", "", piece.strip())
        m = re.match(r"([a-z][\w.:]*)", piece)
        if m:
            out.append(m.group(1))
    return out


def nv_preopt_ops(ll: str) -> tuple[dict, dict]:
    """NVIDIA LLVM IR before -O3, per ``!dbg`` TTGIR line: the global PTX opcodes of Triton's
    inline assembly (``ld.global.v4.b32``, ``cp.async.cg.shared.global``, atomics; an LLVM
    ``atomicrmw``/``cmpxchg`` as ``llvm.atomic``) and the shared-memory bytes per thread
    (``load``/``store``: LLVM accesses to ``addrspace(3)`` and inline ``ld``/``st.shared``,
    ``ldmatrix``/``stmatrix`` and ``cp.async``'s destination counted by opcode apart)."""
    dil = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^(!\d+) = (?:distinct )?!DILocation\(line: (\d+)", ll, re.M)}
    glob: dict = collections.defaultdict(collections.Counter)
    shared: dict = collections.defaultdict(collections.Counter)
    for text in ll.splitlines():
        if text.startswith("declare"):
            continue
        d = re.search(r"!dbg (!\d+)", text)
        line = dil.get(d.group(1), 0) if d else 0
        m = re.search(r'asm (?:sideeffect )?"((?:[^"\\]|\\.)*)"', text)
        if m:
            for op in _asm_opcodes(m.group(1)):
                if PTX_GLOBAL.match(op):
                    glob[line][op] += 1
                if PTX_SHARED.match(op):
                    shared[line][op] += 1
            continue
        m = re.search(r"= load (?:volatile )?(<\d+ x \w+>|\w+), ptr addrspace\((1|3)\)", text)
        if m:
            key = f"llvm.load.{_ll_bytes(m.group(1))}B"
            (glob if m.group(2) == "1" else shared)[line][key] += 1
            continue
        m = re.search(r"\bstore (?:volatile )?(<\d+ x \w+>|\w+) [^,]+, ptr addrspace\((1|3)\)",
                      text)
        if m:
            key = f"llvm.store.{_ll_bytes(m.group(1))}B"
            (glob if m.group(2) == "1" else shared)[line][key] += 1
            continue
        m = re.search(r"(atomicrmw|cmpxchg) .*ptr addrspace\((1|3)\)", text)
        if m:
            (glob if m.group(2) == "1" else shared)[line]["llvm.atomic"] += 1
            continue
        m = re.search(r"@llvm\.nvvm\.(ldmatrix|stmatrix)[\w.]*", text)
        if m:
            shared[line][m.group(0)[1:]] += 1
    return ({k: dict(v) for k, v in glob.items()}, {k: dict(v) for k, v in shared.items()})


def amd_asm_ops(asm: str) -> tuple[dict, dict]:
    """Global and LDS AMDGCN mnemonics per ``.loc`` line (for reference; LLVM merges)."""
    glob: dict = collections.defaultdict(collections.Counter)
    shared: dict = collections.defaultdict(collections.Counter)
    line = 0
    for text in asm.splitlines():
        m = re.match(r"^\s*\.loc\s+\d+\s+(\d+)\s+\d+", text)
        if m:
            line = int(m.group(1))
            continue
        m = AMD_INSTR.match(text)
        if not m:
            continue
        op = m.group(1)
        if op.startswith("ds_"):
            shared[line][op] += 1
        elif op.startswith("buffer_load") and re.search(r"\blds\b", text):
            shared[line][op + " lds"] += 1
        else:
            glob[line][op] += 1
    return ({k: dict(v) for k, v in glob.items()}, {k: dict(v) for k, v in shared.items()})


def amd_preopt_ops(ll: str) -> tuple[dict, dict]:
    """AMD LLVM IR before -O3, per ``!dbg`` TTGIR line: global accesses named as the backend
    selects them (atomics by family) and LDS bytes ``{"load": b, "store": b}``."""
    from linlayout.check.global_memory.predict import amd_global_name

    dil = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^(!\d+) = (?:distinct )?!DILocation\(line: (\d+)", ll, re.M)}
    glob: dict = collections.defaultdict(collections.Counter)
    shared: dict = collections.defaultdict(lambda: {"load": 0, "store": 0})
    for text in ll.splitlines():
        if text.startswith("declare"):
            continue
        d = re.search(r"!dbg (!\d+)", text)
        line = dil.get(d.group(1), 0) if d else 0
        m = re.search(r"= load (?:volatile )?(<\d+ x \w+>|\w+), ptr addrspace\((1|3)\)", text)
        if m:
            if m.group(2) == "1":
                glob[line][amd_global_name("load", _ll_bytes(m.group(1)))] += 1
            else:
                shared[line]["load"] += _ll_bytes(m.group(1))
            continue
        m = re.search(r"\bstore (?:volatile )?(<\d+ x \w+>|\w+) [^,]+, ptr addrspace\((1|3)\)",
                      text)
        if m:
            if m.group(2) == "1":
                glob[line][amd_global_name("store", _ll_bytes(m.group(1)))] += 1
            else:
                shared[line]["store"] += _ll_bytes(m.group(1))
            continue
        m = re.search(r"@llvm\.amdgcn\.raw\.ptr\.buffer\.(load|store)\.(v\d+)?([if]\d+)", text)
        if m:
            n = int(m.group(2)[1:]) if m.group(2) else 1
            glob[line][amd_global_name(m.group(1), n * int(m.group(3)[1:]) // 8,
                                       buffer=True)] += 1
            continue
        m = re.search(r"call [^@]*@llvm\.amdgcn\.ds\.read\.tr\d+\.b(\d+)", text)
        if m:  # transposing LDS reads (gfx950)
            shared[line]["load"] += int(m.group(1)) // 8
            continue
        m = re.search(r"call [^@]*@llvm\.amdgcn\.(?:global|raw\.ptr\.buffer)\.load\."
                      r"(?:async\.)?lds\(.*?, i32 (\d+),", text)
        if m:  # direct-to-LDS copies: counted, as check does, with the shared-memory ops
            shared[line]["store"] += int(m.group(1))
            continue
        if re.search(r"(atomicrmw|cmpxchg) .*ptr addrspace\(1\)", text):
            glob[line]["global_atomic"] += 1
        elif re.search(r"(atomicrmw|cmpxchg) .*ptr addrspace\(3\)", text):
            shared[line]["atomic"] = shared[line].get("atomic", 0) + 1
        elif re.search(r"@llvm\.amdgcn\.raw\.ptr\.buffer\.atomic\.", text):
            glob[line]["buffer_atomic"] += 1
    return ({k: dict(v) for k, v in glob.items()}, {k: dict(v) for k, v in shared.items()})


def _total(per_line: dict) -> dict:
    out: collections.Counter = collections.Counter()
    for c in per_line.values():
        out.update(c)
    return dict(sorted(out.items()))


# ------------------------------------------------------------------------ compiling
def _compile(src, target, opts):
    import triton
    from triton._C.libtriton import llvm as _llvm

    pre: list[str] = []
    orig = _llvm.optimize_module

    def capture(mod, *a, **k):
        pre.append(str(mod))
        return orig(mod, *a, **k)

    _llvm.optimize_module = capture
    try:
        k = triton.compile(src, target=target, options=opts)
    finally:
        _llvm.optimize_module = orig
    return k, pre[0]


def compile_job(job: dict, tmp: pathlib.Path) -> dict | None:
    """Compile one kernel twice (from Python, then from its loc-free TTGIR): the TTGIR, the
    first compile's assembly and LLVM IR before LLVM's optimiser, the second's LLVM IR; None
    when Triton refuses the kernel."""
    from corpus import strip_locs
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    path = tmp / f"{job['name']}.py"
    path.write_text(_source(job))
    spec = importlib.util.spec_from_file_location(job["name"], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names = list(job["sig"]) + list(job["consts"])
    sig = {n: job["sig"].get(n, "constexpr") for n in names}
    consts = {k: (eval(v, {"tl": __import__("triton.language").language})
                  if isinstance(v, str) and v.startswith("tl.") else v)
              for k, v in job["consts"].items()}
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n, d in job["div"].items() if d}
    target = GPUTarget(*TARGETS[job["target"]])
    try:
        k1, pre1 = _compile(ASTSource(mod.probe, signature=sig, constexprs=consts,
                                      attrs=attrs), target, dict(job["opts"]))
    except Exception as exc:  # noqa: BLE001 - a configuration Triton refuses is skipped
        print(f"skip {job['name']}: {type(exc).__name__}: {str(exc)[:120]}", flush=True)
        return None
    ttgir = strip_locs(k1.asm["ttgir"])
    tpath = tmp / f"{job['name']}.ttgir"
    tpath.write_text(ttgir)
    _, pre2 = _compile(str(tpath), target, {})
    asm = k1.asm["ptx" if target.backend == "cuda" else "amdgcn"]
    return {"ttgir": ttgir, "pre1": pre1, "pre2": pre2, "asm": asm}


def entry_of(job: dict, raw: dict) -> dict:
    """The fixture entry of one compiled kernel (``raw`` from :func:`compile_job`)."""
    entry = {"kind": job["kind"], "set": job["set"], "target": job["target"],
             "ttgir": raw["ttgir"],
             "warps": job["opts"]["num_warps"], "stages": job["opts"]["num_stages"]}
    if job["target"].startswith("cuda"):
        g1, s1 = nv_preopt_ops(raw["pre1"])
        g2, s2 = nv_preopt_ops(raw["pre2"])
        ga, sa = ptx_ops(raw["asm"])
        entry.update(asm_global=_total(ga), asm_shared=_total(sa))
    else:
        g1, s1 = amd_preopt_ops(raw["pre1"])
        g2, s2 = amd_preopt_ops(raw["pre2"])
        ga, sa = amd_asm_ops(raw["asm"])
        entry.update(asm_global=_total(ga), asm_shared=_total(sa))
    entry.update(global_ops=g2, shared_ops=s2, global_counts=_total(g1),
                 shared_counts=_total(s1))
    for k in ("global_ops", "shared_ops"):
        entry[k] = {str(ln): dict(sorted(v.items())) for ln, v in sorted(entry[k].items())}
    return entry


def build(sets: tuple[str, ...] | None = None) -> dict:
    """Compile (or read from the cache) every kernel of ``sets`` (default: all of
    :data:`SETS`) and return the fixture document."""
    import triton
    from triton.backends.nvidia.compiler import CUDABackend

    CUDABackend.make_cubin = lambda self, src, metadata, opt, capability: b""
    CACHE.mkdir(exist_ok=True)
    probes = {}
    with tempfile.TemporaryDirectory() as d:
        tmp = pathlib.Path(d)
        sys.path.insert(0, d)
        for n, job in enumerate(j for s in (sets or SETS) for j in jobs(s)):
            cached = CACHE / f"{job['name']}.json"
            if cached.exists():
                raw = json.loads(cached.read_text())
            else:
                raw = compile_job(job, tmp)
                cached.write_text(json.dumps(raw))
                print(f"[{n}] {job['name']}: {'ok' if raw else 'skipped'}", flush=True)
            if raw is not None:
                probes[job["name"]] = entry_of(job, raw)
    from allocation_probes import triton_offsets

    for e in probes.values():  # Triton's own allocator, for the replay's comparison
        if e["target"].startswith("cuda"):
            e["allocation"] = triton_offsets(e["ttgir"], int(e["target"][4:]))
    return {"triton_version": triton.__version__, "seeds": {k: v[0] for k, v in SETS.items()},
            "probes": probes}


# ------------------------------------------------------------------------ comparison
def family(opcode: str) -> str:
    """An AMD atomic by family (``global_atomic``, ``buffer_atomic``); others unchanged."""
    m = re.match(r"(global|buffer)_atomic", opcode)
    return m.group(0) if m else opcode


def predicted_global(rep, amd: bool) -> dict:
    """``{line: {opcode: per thread}}`` of ``check``'s global rows (AMD atomics by family);
    an op not analysed is ``{"not analysed": 1}``."""
    out: dict = collections.defaultdict(collections.Counter)
    for g in rep.global_ops:
        if g.prediction is None:
            out[g.op.line]["not analysed"] += 1
            continue
        for opcode, n in g.prediction.instructions():
            out[g.op.line][family(opcode) if amd else opcode] += n
    return {k: dict(v) for k, v in out.items()}


def _op_class(ttgir_line: str) -> str:
    m = re.search(r"\b(tt\.load|tt\.store|tt\.atomic_rmw|tt\.atomic_cas|amdg\.buffer_\w+|"
                  r"ttg\.async_copy_global_to_local|tt\.descriptor_\w+|ttng\.\w+)", ttgir_line)
    return m.group(1) if m else "other"


def compare_global(rep, e: dict) -> list[tuple[str, int, dict, dict]]:
    """Per TTGIR line where ``check`` and Triton differ: (op class, line, predicted,
    Triton's). Instructions whose debug location is a line holding no global op (AMD's
    scalar atomics carry their pointer's location) are pooled with the ops that got none:
    when the pool matches, those ops count as equal."""
    amd = e["target"].startswith("gfx")
    got = predicted_global(rep, amd)
    want = {int(k): {op: n for op, n in v.items() if not op.startswith(TMA)}
            for k, v in e["global_ops"].items()}
    want = {k: v for k, v in want.items() if v}
    lines = e["ttgir"].split("\n")
    ops = {g.op.line for g in rep.global_ops}
    stray = {ln for ln in want if ln not in ops}
    orphans = {ln for ln in ops if ln not in want and got.get(ln)}
    pool_w: collections.Counter = collections.Counter()
    pool_g: collections.Counter = collections.Counter()
    for ln in stray:
        pool_w.update(want[ln])
    for ln in orphans:
        pool_g.update(got[ln])
    moved = set()
    if stray and pool_w == pool_g:
        moved = stray | orphans
    out = []
    for ln in sorted(set(got) | set(want)):
        if ln in moved:
            continue
        g, w = got.get(ln, {}), want.get(ln, {})
        if g != w:
            out.append((_op_class(lines[ln - 1] if 0 < ln <= len(lines) else ""), ln, g, w))
    return out


def shared_predictions(rep, amd: bool) -> tuple[dict, dict, list]:
    """``check``'s shared-memory instructions of a kernel report: per TTGIR line
    ``{kind/width: per thread}`` (NVIDIA, by :func:`_nv_shared_key`) or LDS bytes per thread
    (AMD); the file totals (NVIDIA: opcodes by bytes per lane as the probe tests count them;
    AMD: ``load``/``store`` bytes and ``atomic`` count); the ops not analysed."""
    from tests.check.shared_memory.asm_counts import canonical

    per: dict = collections.defaultdict(collections.Counter)
    tot: collections.Counter = collections.Counter({"load": 0, "store": 0} if amd else {})
    refused = []
    for o in rep.ops:
        if o.status.name == "NOT_ANALYSED":
            refused.append((o.access.line, o.note))
        for i in o.instructions:
            x = i.emitted
            if x.per_thread is None or x.side not in ("load", "store", "atomic") or \
                    (not amd and _nv_shared_key(x.opcode) is None):
                continue  # register-only instructions (shuffles, redux) and named-only ones
            if amd:
                v = x.per_thread if x.side == "atomic" else x.bytes_per_thread
                per[o.access.line][x.side] += v
                tot[x.side] += v
            else:
                per[o.access.line][_nv_shared_key(x.opcode) or x.opcode] += x.per_thread
                tot[canonical(x.opcode)] += x.per_thread
    return {k: {a: b for a, b in v.items() if b} for k, v in per.items()}, dict(tot), refused


def compare_shared(rep, e: dict) -> tuple[object, object]:
    """(predicted, Triton's) shared-memory totals: NVIDIA opcodes by bytes per lane against
    the PTX, AMD LDS bytes per thread against the LLVM IR before LLVM's optimiser."""
    from tests.check.shared_memory.asm_counts import ptx_counts

    amd = e["target"].startswith("gfx")
    _, tot, refused = shared_predictions(rep, amd)
    if refused:
        return f"not analysed: {refused}", None
    if amd:
        return tot, {"load": 0, "store": 0, **e["shared_counts"]}
    return tot, ptx_counts(e["asm_shared"])


def _nv_shared_key(opcode: str) -> str | None:
    """One NVIDIA shared-memory access by kind and width, however it is spelled:
    ``ld.shared/16B`` for ``ld.shared.v4.b32`` and an LLVM ``load <4 x i32>``,
    ``ldmatrix.x4.trans`` for the PTX opcode and the NVVM intrinsic; None for what is not a
    shared-memory access."""
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


def compare_shared_ops(rep, e: dict) -> list[tuple[int, dict, dict]]:
    """Per TTGIR line where they differ, (line, predicted, Triton's): NVIDIA accesses by kind
    and width (:func:`_nv_shared_key`) against Triton's LLVM IR before LLVM's optimiser, AMD
    LDS bytes per thread. Lines of ``tt.scan`` ops (``check`` predicts the reloads as LLVM
    merges them), the TMEM base address (stored once per kernel, at the function's line) and
    the function's line are left out."""
    amd = e["target"].startswith("gfx")
    got, _, _ = shared_predictions(rep, amd)
    skip = {o.access.line for o in rep.ops if o.access.op in ("tmem_alloc", "scan")}
    want: dict = {}
    for ln, ops in e["shared_ops"].items():
        c: collections.Counter = collections.Counter()
        for k, v in ops.items():
            key = k if amd else _nv_shared_key(k)
            if key is not None:
                c[key] += v
        want[int(ln)] = {k: v for k, v in c.items() if v}
    lines = e["ttgir"].split("\n")
    skip |= {i for i, text in enumerate(lines, 1) if "tt.func" in text}
    out = []
    for ln in sorted(set(got) | set(want)):
        if ln in skip or ln == 0:
            continue
        if got.get(ln, {}) != want.get(ln, {}):
            out.append((ln, got.get(ln, {}), want.get(ln, {})))
    return out


def check_sectors(name: str, e: dict) -> tuple[int, int, list]:
    """Every closed-form sector count ``check`` makes for ``e``, recomputed by the brute-force
    simulator on the same arguments: (closed-form counts, enumerated already, mismatches)."""
    from linlayout.check import check_module
    from linlayout.check.global_memory import cost as cost_mod
    from linlayout.global_memory import simulate_global_access
    from linlayout.triton import read_ttgir

    calls: list = []
    orig = cost_mod.global_access

    def spy(layout, memory, **kw):
        rep = orig(layout, memory, **kw)
        calls.append((layout, memory, kw, rep))
        return rep

    cost_mod.global_access = spy
    try:
        check_module(read_ttgir(e["ttgir"], name), suggest=False)
    finally:
        cost_mod.global_access = orig
    closed, enum, bad = 0, 0, []
    for layout, memory, kw, rep in calls:
        if rep.method != "closed form":
            enum += 1
            continue
        closed += 1
        kw = {k: v for k, v in kw.items() if k != "limit"}
        sim = simulate_global_access(layout, memory, limit=1 << 24, **kw)
        keys = ("sectors_per_instruction", "lines_per_instruction", "sectors_per_warp",
                "lines_per_warp", "instructions_per_warp", "vector_elems")
        a = tuple(getattr(rep, k) for k in keys)
        b = tuple(getattr(sim, k) for k in keys)
        if a != b:
            bad.append((a, b))
    return closed, enum, bad


def compare(probes: dict, verbose: bool = True) -> int:
    """Print the mismatches and the scores; the number of mismatching probes."""
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    by_target: dict = collections.defaultdict(lambda: [0, 0, 0, 0, 0, 0])
    by_class: dict = collections.defaultdict(lambda: [0, 0])
    bad_probes = 0
    bad_names: set = set()
    sect = [0, 0, 0]
    for name, e in sorted(probes.items()):
        t = e["target"]
        rep = check_module(read_ttgir(e["ttgir"], name), suggest=False)
        gm = compare_global(rep, e)
        bad_lines = {ln for _, ln, _, _ in gm}
        lines = e["ttgir"].split("\n")
        for i, text in enumerate(lines, 1):
            k = _op_class(text)
            if k == "other" or k.startswith(("ttng.", "tt.descriptor")):
                continue  # TMA copies are left out of the comparison
            by_class[(t, k)][0] += 1
            by_class[(t, k)][1] += i not in bad_lines
        got_s, want_s = compare_shared(rep, e)
        s_ok = got_s == want_s
        so = compare_shared_ops(rep, e)
        by_target[t][4] += not so
        if e["target"].startswith("cuda"):
            kept = {k: v for k, v in e["global_counts"].items()
                    if not k.startswith(("llvm.",) + TMA)}
            by_target[t][5] += kept == {k: v for k, v in e["asm_global"].items()
                                        if not re.match(r"(atom|red)\.\w+\.gpu\.global", k)
                                        or k in kept}
        by_target[t][0] += 1
        by_target[t][1] += not gm
        by_target[t][2] += s_ok
        c, n, sb = check_sectors(name, e)
        sect[0] += c
        sect[1] += n
        sect[2] += len(sb)
        by_target[t][3] += not sb
        if verbose:
            for ln, g, w in so:
                print(f"SHARED-OP {name}:{ln}: predicted {g} compiled {w}")
        if gm or not s_ok or sb:
            bad_probes += 1
            bad_names.add(name)
            if verbose:
                for k, ln, g, w in gm:
                    print(f"GLOBAL {name}:{ln} {k}: predicted {g} compiled {w}")
                if not s_ok:
                    print(f"SHARED {name}: predicted {got_s} compiled {want_s}")
                for a, b in sb:
                    print(f"SECTORS {name}: closed form {a} brute force {b}")
    print("\nper target: probes; global exact (every op); shared exact (file totals); shared "
          "exact op by op; sectors exact; NVIDIA: PTX global counts = Triton's LLVM IR")
    for t in TARGETS:
        n, g, s, x, so_ok, kept = by_target[t]
        print(f"  {t:8s} {n:4d}  global {g:4d}/{n}  shared {s:4d}/{n}  shared per op "
              f"{so_ok:4d}/{n}  sectors {x:4d}/{n}" + (f"  ptx=llir {kept}/{n}"
                                                      if t.startswith("cuda") else ""))
    print("per target and op class: global ops exact")
    for (t, k), (n, ok) in sorted(by_class.items()):
        print(f"  {t:8s} {k:34s} {ok:4d}/{n}")
    print(f"sectors: {sect[0]} closed-form counts checked by brute force, {sect[2]} differ; "
          f"{sect[1]} already enumerated")
    for name_set in SETS:
        names = [n for n, e in probes.items() if e.get("set", "heldout") == name_set]
        print(f"set {name_set}: {len(names) - len(set(names) & bad_names)}/{len(names)} "
              "probes exact")
    print(f"{len(probes) - bad_probes}/{len(probes)} probes exact")
    return bad_probes


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare with the fixture only")
    ap.add_argument("--replay", action="store_true",
                    help="compare the committed fixture with linlayout (no Triton)")
    ap.add_argument("--quiet", action="store_true", help="print the scores only")
    ap.add_argument("--draw", type=int, metavar="SEED",
                    help="compile a fresh draw of every template and target with this seed "
                         "and compare it, writing nothing (a new held-out set)")
    ap.add_argument("--count", type=int, default=120, help="kernels in a --draw (120)")
    args = ap.parse_args(argv)
    if args.draw is not None:
        name = f"draw{args.draw}"
        SETS[name] = (args.draw, args.count, None)
        data = build((name,))
        return 1 if compare(data["probes"], not args.quiet) else 0
    if args.replay:
        data = json.loads(gzip.decompress(OUT.read_bytes()))
        return 1 if compare(data["probes"], not args.quiet) else 0
    from fixture import write_or_check

    data = build()
    rc = write_or_check(OUT, data, args.check)
    return 1 if compare(data["probes"], not args.quiet) or rc else 0


if __name__ == "__main__":
    sys.exit(main())
