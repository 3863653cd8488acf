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

Results (Triton 3.9.0, ``linlayout`` at the commit that added ``may_merge`` to the global
rows) are in ``docs/triton-lowering.md``. Each TTGIR compiles into a private Triton cache
(``probe_compile.compile_ttgir``): Triton's cache key does not see a skipped ``-O3``, so a
shared cache can hand back a kernel another script compiled without LLVM's optimiser.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
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
_AMD = re.compile(r"^\s*((?:global|buffer)_(?:load|store)_\w+)", re.M)
_PTX = re.compile(r"^\s*(?:@!?%p\d+\s+)?((?:ld|st)\.global[\w.:]*)", re.M)
OK = ("as counted", "merged", "some merged")


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
            if res not in OK:
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


def compare(data: dict) -> int:
    """Print the outcome of every probe of a drawn fixture and the tally; 0 if all agree."""
    tally: collections.Counter = collections.Counter()
    for name, p in sorted(data["probes"].items()):
        named, res = outcome(p["ttgir"], p["amdgcn"])
        tally[("may_merge" if named else "none", res)] += 1
        if res not in OK:
            print(f"  {name}: {res} {p['amdgcn']}")
    print(f"{len(data['probes'])} probes: {dict(sorted(tally.items()))}")
    return 0 if all(r in OK for _, r in tally) else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--divisibility", action="store_true",
                    help="add tt.divisibility = 16 to every pointer argument first")
    ap.add_argument("--nvidia", action="store_true", help="NVIDIA probes' PTX instead")
    ap.add_argument("--draw", type=int, metavar="SEED",
                    help="draw, compile and write the fresh set (FRESH_DRAW's seed)")
    ap.add_argument("--check", action="store_true", help="with --draw: compare, write nothing")
    ap.add_argument("--compare-only", action="store_true", help="replay FRESH, no Triton")
    args = ap.parse_args(argv)
    if args.compare_only:
        return compare(read_fixture(FRESH))
    if args.nvidia:
        return nvidia()
    if args.draw is not None:
        data = draw(args.draw, FRESH_DRAW[1])
        if args.draw == FRESH_DRAW[0]:
            rc = write_or_check(FRESH, data, args.check)
            if rc:
                return rc
        return compare(data)
    return recompile(SETS, args.divisibility)


if __name__ == "__main__":
    sys.exit(main())
