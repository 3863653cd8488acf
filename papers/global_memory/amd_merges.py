#!/usr/bin/env python
"""Which AMD global loads and stores LLVM's back end merges: the measurement behind
``check``'s global ``may_merge`` (``linlayout.check.global_memory.predict.GlobalMerge``;
``docs/triton-lowering.md``, "AMD global accesses LLVM may merge").

Triton's AMD lowering emits one access per vector (``getVectorSize``: AxisInfo's contiguity
cut by the pointer's known alignment), so a pointer without ``tt.divisibility`` gets 1-element
accesses even where a thread holds a run of consecutive addresses. LLVM's AMDGPU back end may
then merge a thread's accesses of one run into wider ones (``global_load_dwordx4``,
``global_store_dword``, ...), or not. For each AMD probe, this script compiles its TTGIR
again with Triton 3.9.0 (``-O3``: the final AMDGCN), counts its global and buffer loads and
stores, and compares them with ``check``'s rows
(``linlayout.check.global_memory.compare.amd_merge_outcome``: ``as counted``, ``merged``,
``some merged``, ``between``, ``differs``), by set and by whether ``check`` names a
``may_merge``::

    python papers/global_memory/amd_merges.py                  # the AMD fixture sets (~2 min)
    python papers/global_memory/amd_merges.py --divisibility   # 16-divisible pointers
    python papers/global_memory/amd_merges.py --nvidia         # NVIDIA probes' PTX vs check
    python papers/global_memory/amd_merges.py --draw 90313     # write the fresh draw (FRESH)
    python papers/global_memory/amd_merges.py --compare-only   # replay FRESH, no Triton
    python papers/global_memory/amd_merges.py --draw-mixed 90417   # the second draw (MIXED)
    python papers/global_memory/amd_merges.py --compare-only --mixed  # replay MIXED

Results (Triton 3.9.0, ``linlayout`` at the commit that added ``may_merge`` to the global
rows) are in ``docs/triton-lowering.md``. Each TTGIR compiles into a private Triton cache
(``probe_compile.compile_ttgir``): Triton's cache key does not see a skipped ``-O3``, so a
shared cache can hand back a kernel another script compiled without LLVM's optimiser.
"""

from __future__ import annotations

import argparse
import collections
import functools
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT / "papers" / "triton_lowering"), str(ROOT)]

from fixture import read_fixture, write_or_check  # noqa: E402

#: the AMD fixture sets recompiled by default (files under tests/data/)
SETS = ("triton_amd_byte_pack_probes.json.gz", "triton_amd_byte_merge_probes.json.gz",
        "triton_amd_byte_pack_swap_confirm_probes.json.gz", "triton_cvt_fresh_probes.json.gz",
        "triton_cvt_confirm_probes.json.gz", "triton_amd_producer_probes.json.gz")
#: NVIDIA sets whose probes' PTX is compared (``--nvidia``)
NV_SETS = ("triton_cvt_heldout_probes.json.gz", "triton_cvt_fresh_probes.json.gz",
           "triton_cvt_confirm_probes.json.gz")
#: the fresh draw made after ``may_merge`` (seed, probes): 8-bit Gluon converts of
#: ``amd_byte_pack_probes.build``'s first-draw families
FRESH_DRAW = (90313, 40)
FRESH = ROOT / "tests" / "data" / "triton_amd_global_merge_probes.json.gz"
#: the second fresh draw made after ``may_merge`` (seed, probes), of other families than the
#: 8-bit converts (:func:`draw_mixed`): Gluon loads/stores on random blocked layouts and
#: ``kernels.random_layout``'s ``tl`` kernels, 8- to 64-bit
MIXED_DRAW = (90417, 40)
MIXED = ROOT / "tests" / "data" / "triton_amd_global_merge_mixed_probes.json.gz"
_AMD = re.compile(r"^\s*((?:global|buffer)_(?:load|store)_\w+)", re.M)
_PTX = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:ld|st)\.global[\w.:]*)", re.M)
#: outcomes ``recompile`` tallies without naming the probe (it names the ``between`` ones too)
PLAIN = ("as counted", "merged", "some merged")
#: the known mismatches (``tests/data/known_mismatches.json``) of each replayed draw's set
KNOWN_SETS = {FRESH: "amd_global_merge", MIXED: "amd_global_merge_mixed"}


def known_mismatches(fixture: pathlib.Path) -> dict[str, str]:
    """``{probe: reason}`` of the strict xfails recorded for ``fixture``'s set."""
    import json

    known = json.loads((ROOT / "tests" / "data" / "known_mismatches.json").read_text("utf-8"))
    return known.get(KNOWN_SETS.get(fixture, ""), {})


def amd_counts(asm: str) -> dict[str, int]:
    """Static count of every global/buffer load and store opcode of an AMDGCN text."""
    return dict(collections.Counter(_AMD.findall(asm)))


def with_divisibility(ttgir: str) -> str:
    """``ttgir`` with ``{tt.divisibility = 16 : i32}`` on every pointer argument that has no
    attribute (what Triton's JIT gives a 16-byte aligned pointer)."""
    return re.sub(r"(%\w+: !tt\.ptr<[^>]+>)(?=[,)])", r"\1 {tt.divisibility = 16 : i32}", ttgir)


def outcome(ttgir: str, counts: dict) -> tuple[bool, str]:
    """(whether ``check`` names a ``may_merge``, ``amd_merge_outcome``) for one kernel."""
    from linlayout.check import check_module
    from linlayout.check.global_memory.compare import amd_merge_outcome
    from linlayout.triton import read_ttgir

    rep = check_module(read_ttgir(ttgir), suggest=False)
    named = any(g.prediction is not None and g.prediction.may_merge is not None
                for g in rep.global_ops)
    return named, amd_merge_outcome(rep.global_ops, counts)


def recompile(files: tuple[str, ...], divisibility: bool) -> int:
    """Recompile every AMD probe of ``files`` and print the outcomes (module docstring)."""
    from probe_compile import compile_ttgir

    total: collections.Counter = collections.Counter()
    for file in files:
        tally: collections.Counter = collections.Counter()
        for name, p in sorted(read_fixture(ROOT / "tests" / "data" / file)["probes"].items()):
            if not p["target"].startswith("gfx"):
                continue
            ttgir = with_divisibility(p["ttgir"]) if divisibility else p["ttgir"]
            named, res = outcome(ttgir, amd_counts(compile_ttgir(ttgir, p["target"], True)))
            tally[("may_merge" if named else "none", res)] += 1
            if res not in PLAIN:
                print(f"  {file} {name}: {res}")
        print(f"{file}: {dict(sorted(tally.items()))}")
        total += tally
    print(f"all: {dict(sorted(total.items()))}")
    return 0


def nvidia() -> int:
    """NVIDIA probes where a thread's run is wider than Triton's vector: the PTX's
    ``ld.global``/``st.global`` against ``check``'s (Triton's inline assembly, which LLVM
    does not merge)."""
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir
    from probe_compile import compile_ttgir

    seen = same = 0
    for file in NV_SETS:
        for name, p in sorted(read_fixture(ROOT / "tests" / "data" / file)["probes"].items()):
            if not p["target"].startswith("cuda"):
                continue
            rep = check_module(read_ttgir(p["ttgir"]), suggest=False)
            pred: collections.Counter = collections.Counter()
            wider = False
            for g in rep.global_ops:
                q = g.prediction
                if q is None:
                    continue
                pred[q.opcode] += q.per_thread
                wider |= q.side in ("load", "store") and \
                    min(16, q.run * q.element_bits // 8) > q.vector_bytes
            if not wider:
                continue
            ptx = dict(collections.Counter(_PTX.findall(compile_ttgir(p["ttgir"], p["target"],
                                                                      True))))
            seen += 1
            same += dict(pred) == ptx
            if dict(pred) != ptx:
                print(f"  {name}: check {dict(pred)}, PTX {ptx}")
    print(f"NVIDIA probes with a run wider than Triton's vector: {seen}, PTX equal to check: "
          f"{same}")
    return 0 if seen == same else 1


def draw(seed: int, n: int) -> dict:
    """``n`` 8-bit Gluon converts of seed ``seed`` (``amd_byte_pack_probes.build``), each
    with its TTGIR and the final AMDGCN's global/buffer load and store counts."""
    import triton
    from amd_byte_pack_probes import build
    from probe_compile import compile_ttgir

    probes = {}
    for name, p in build(seed, n)["probes"].items():
        probes[name] = {"target": p["target"], "ttgir": p["ttgir"],
                        "amdgcn": amd_counts(compile_ttgir(p["ttgir"], p["target"], True))}
    return {"triton_version": triton.__version__, "seed": seed, "probes": probes}


#: element types of the Gluon kernels, weighted towards 16- and 32-bit
_GL_TYPES = ("i16", "f16", "bf16", "i16", "f16", "bf16", "i32", "f32", "i32", "f32", "i8",
             "i64", "f64")
_PTR = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
        "bf16": "*bf16", "f32": "*fp32", "f64": "*fp64"}


@functools.lru_cache(maxsize=None)
def load_store_kernel():
    """The Gluon kernel ``g_ls(X, Y, n, sr, ...)`` of :func:`draw_mixed`: the ``M x N`` tile
    in the blocked layout ``L`` (constexpr) at ``X + offsets`` loaded and stored at
    ``Y + offsets`` (or ``gl.amd.cdna3.buffer_load``/``buffer_store`` on the offsets with
    ``BUF``). Offsets: row-major with row stride ``SR`` (``sr`` at run time when 0), or
    column-major (``COLMAJ``, column stride ``M``), so a thread's run lies along ``order[0]``
    or along the other dim. ``MASK``: 0 none, 1 ``row < n``, 2 ``col < n``, 3 ``col // 4 <
    n`` (columns constant in fours), 4 ``col < 7``, 5 ``row < n`` and ``col < n``; the same
    mask on the load and the store when ``SMASK``, else on the load only. Needs Triton 3.9."""
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def g_ls(X, Y, n, sr, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr,
             SR: gl.constexpr, COLMAJ: gl.constexpr, MASK: gl.constexpr, SMASK: gl.constexpr,
             BUF: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        r2 = gl.expand_dims(rows, 1)
        c2 = gl.expand_dims(cols, 0)
        if COLMAJ:
            off = r2 + c2 * M
        elif SR == 0:
            off = r2 * sr + c2
        else:
            off = r2 * SR + c2
        m = (r2 < n) & (c2 >= 0)
        if MASK == 2:
            m = (c2 < n) & (r2 >= 0)
        if MASK == 3:
            m = ((c2 // 4) < n) & (r2 >= 0)
        if MASK == 4:
            m = (c2 < 7) & (r2 >= 0)
        if MASK == 5:
            m = (r2 < n) & (c2 < n)
        if BUF:
            if MASK == 0:
                x = gl.amd.cdna3.buffer_load(X, off)
                gl.amd.cdna3.buffer_store(x, Y, off)
            elif SMASK:
                x = gl.amd.cdna3.buffer_load(X, off, mask=m, other=0)
                gl.amd.cdna3.buffer_store(x, Y, off, mask=m)
            else:
                x = gl.amd.cdna3.buffer_load(X, off, mask=m, other=0)
                gl.amd.cdna3.buffer_store(x, Y, off)
        else:
            if MASK == 0:
                x = gl.load(X + off)
                gl.store(Y + off, x)
            elif SMASK:
                x = gl.load(X + off, mask=m, other=0)
                gl.store(Y + off, x, mask=m)
            else:
                x = gl.load(X + off, mask=m)
                gl.store(Y + off, x)

    return g_ls


def _draw_gluon(rng: random.Random, tname: str):
    """One :func:`load_store_kernel` configuration: (name, kernel, signature, constexprs,
    divisibility attrs, warps)."""
    from probe_compile import split
    from triton.experimental.gluon import language as gl

    ty = rng.choice(_GL_TYPES)
    warps = rng.choice([1, 2, 4, 8])
    spt = [rng.choice([1, 1, 2, 4]), rng.choice([1, 2, 4, 8])]
    if rng.random() < 0.5:
        spt.reverse()
    tpw, wpc = split(rng, 64), split(rng, warps)
    order = rng.choice([[1, 0], [0, 1]])
    M = spt[0] * tpw[0] * wpc[0] * rng.choice([1, 1, 2])
    N = spt[1] * tpw[1] * wpc[1] * rng.choice([1, 1, 2])
    while M * N > 8192:
        M, N = max(1, M // 2), max(1, N // 2)
    colmaj = rng.random() < 0.35
    sr = 0 if rng.random() < 0.3 else rng.choice([N, N, 2 * N, N + 1])
    mask = rng.choice([0, 0, 1, 2, 3, 4, 5])
    smask = rng.random() < 0.6
    buf = rng.random() < 0.3
    div = {k: rng.random() < 0.5 for k in ("X", "Y", "n", "sr")}
    layout = gl.BlockedLayout(spt, tpw, wpc, order)
    name = (f"gl_{'buf' if buf else 'ptr'}_{ty}_{M}x{N}_spt{spt[0]}x{spt[1]}_tpw{tpw[0]}x"
            f"{tpw[1]}_w{wpc[0]}x{wpc[1]}_o{order[0]}_{'cm' if colmaj else f'sr{sr}'}"
            f"_m{mask}{'s' if smask and mask else ''}_"
            f"{''.join(k for k, d in div.items() if d) or 'nodiv'}_{tname}")
    sig = {"X": _PTR[ty], "Y": _PTR[ty], "n": "i32", "sr": "i32"}
    consts = {"M": M, "N": N, "L": layout, "SR": sr, "COLMAJ": colmaj, "MASK": mask,
              "SMASK": smask, "BUF": buf}
    names = list(sig)
    attrs = {(names.index(k),): [["tt.divisibility", 16]] for k, d in div.items() if d}
    sig.update({k: "constexpr" for k in consts})
    return name, load_store_kernel(), sig, consts, attrs, warps


def _draw_tl(rng: random.Random, tname: str, tmp: pathlib.Path, i: int):
    """One ``kernels.random_layout`` (or ``vector_add``) ``tl`` kernel for ``tname``, as
    ``heldout.py`` draws them: (name, kernel, signature, constexprs, divisibility attrs,
    warps), or None when the template refuses the draw."""
    import importlib.util

    import kernels
    from heldout import _source

    t = kernels.random_layout if rng.random() < 0.85 else kernels.vector_add
    drawn = t(rng, tname)
    if drawn is None:
        return None
    body, sig, consts, opts = drawn
    div = {n: rng.random() < 0.5 for n in sig}
    name = f"tl_{t.__name__}_{i}_{tname}"
    path = tmp / f"{name}.py"
    path.write_text(_source({"sig": sig, "consts": consts, "body": body}))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    names = list(sig) + list(consts)
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n, d in div.items() if d}
    full = {n: sig.get(n, "constexpr") for n in names}
    return name, mod.probe, full, consts, attrs, opts["num_warps"]


def draw_mixed(seed: int, n: int) -> dict:
    """``n`` AMD kernels of seed ``seed`` of other families than :func:`draw`'s 8-bit
    converts, half Gluon loads/stores on random blocked layouts (:func:`_draw_gluon`, some
    as buffer ops), half ``tl`` random-layout kernels (``kernels.random_layout``), on
    gfx942/gfx950, each with its TTGIR (locations stripped) and the final AMDGCN's
    global/buffer load and store counts (``-O3``, compiled again from the TTGIR in a private
    cache)."""
    import tempfile

    import triton
    from corpus import strip_locs
    from probe_compile import compile_ttgir, gpu_target, private_triton_cache
    from triton.compiler import ASTSource
    from triton.experimental.gluon._runtime import GluonASTSource

    sys.path.insert(0, str(HERE))
    rng = random.Random(seed)
    probes: dict = {}
    fails = i = 0
    with tempfile.TemporaryDirectory(prefix="amd-mixed-") as tmp:
        while len(probes) < n:
            i += 1
            tname = rng.choice(["gfx942", "gfx950"])
            gluon = rng.random() < 0.5
            d = _draw_gluon(rng, tname) if gluon else _draw_tl(rng, tname, pathlib.Path(tmp), i)
            if d is None or d[0] in probes:
                continue
            name, fn, sig, consts, attrs, warps = d
            src = GluonASTSource(fn=fn, signature=sig, constexprs=consts, attrs=attrs) \
                if gluon else ASTSource(fn, signature=sig, constexprs=consts, attrs=attrs)
            try:
                with private_triton_cache():
                    k = triton.compile(src, target=gpu_target(tname),
                                       options={"num_warps": warps})
            except Exception as exc:  # noqa: BLE001 - a kernel Triton rejects is skipped
                fails += 1
                print(f"  not compiled: {name}: {type(exc).__name__}: {str(exc)[-100:]}",
                      file=sys.stderr)
                continue
            ttgir = strip_locs(k.asm["ttgir"])
            probes[name] = {"target": tname, "ttgir": ttgir,
                            "amdgcn": amd_counts(compile_ttgir(ttgir, tname, True))}
            print(f"  [{len(probes)}] {name}", flush=True)
    print(f"{len(probes)} probes compiled; {fails} not compiled")
    return {"triton_version": triton.__version__, "seed": seed, "probes": probes}


def compare(data: dict, known: dict[str, str] | None = None) -> int:
    """Print the outcome of every probe of a drawn fixture and the tally; 0 if each agrees
    as ``check``'s rows allow (``compare.AGREES``: Triton's count, the merged one, or between)
    or is one of the ``known`` mismatches (``{probe: reason}``, the set's strict xfails)."""
    from linlayout.check.global_memory.compare import AGREES

    known = known or {}
    tally: collections.Counter = collections.Counter()
    unknown = 0
    for name, p in sorted(data["probes"].items()):
        named, res = outcome(p["ttgir"], p["amdgcn"])
        tally[("may_merge" if named else "none", res)] += 1
        if res not in AGREES:
            unknown += name not in known
            print(f"  {name}: {res} {p['amdgcn']}"
                  + (" (a known mismatch)" if name in known else ""))
    print(f"{len(data['probes'])} probes: {dict(sorted(tally.items()))}")
    return 1 if unknown else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--divisibility", action="store_true",
                    help="add tt.divisibility = 16 to every pointer argument first")
    ap.add_argument("--nvidia", action="store_true", help="NVIDIA probes' PTX instead")
    ap.add_argument("--draw", type=int, metavar="SEED",
                    help="draw, compile and write the fresh set (FRESH_DRAW's seed)")
    ap.add_argument("--draw-mixed", type=int, metavar="SEED",
                    help="draw, compile and write the second fresh set (MIXED_DRAW's seed)")
    ap.add_argument("--check", action="store_true",
                    help="with --draw/--draw-mixed: compare, write nothing")
    ap.add_argument("--compare-only", action="store_true", help="replay FRESH, no Triton")
    ap.add_argument("--mixed", action="store_true", help="with --compare-only: MIXED")
    args = ap.parse_args(argv)
    if args.compare_only:
        fixture = MIXED if args.mixed else FRESH
        return compare(read_fixture(fixture), known_mismatches(fixture))
    if args.draw_mixed is not None:
        data = draw_mixed(args.draw_mixed, MIXED_DRAW[1])
        if args.draw_mixed == MIXED_DRAW[0]:
            rc = write_or_check(MIXED, data, args.check)
            if rc:
                return rc
            return compare(data, known_mismatches(MIXED))
        return compare(data)
    if args.nvidia:
        return nvidia()
    if args.draw is not None:
        data = draw(args.draw, FRESH_DRAW[1])
        if args.draw == FRESH_DRAW[0]:
            rc = write_or_check(FRESH, data, args.check)
            if rc:
                return rc
            return compare(data, known_mismatches(FRESH))
        return compare(data)
    return recompile(SETS, args.divisibility)


if __name__ == "__main__":
    sys.exit(main())
