#!/usr/bin/env python
"""Where LLVM's ``-O3`` puts the selects of an AMD convert whose result only a predicated
store reads: the evidence behind the strict xfails whose final AMDGCN has fewer
``v_cndmask_b32`` on the convert's line than Triton's lowering and ``check``.

Run with Triton 3.9.0 installed (CPU only; about 2 s a probe, two compiles each)::

    python papers/triton_lowering/select_placement.py                 # the AMD producer sets
    python papers/triton_lowering/select_placement.py scalar_byte     # one or more sets
    python papers/triton_lowering/select_placement.py --trace scalar_byte_confirm/NAME
    python papers/triton_lowering/select_placement.py --file /tmp/scalar_byte_explore.json.gz

For each AMD probe of the named fixture sets (``tests/data/fixture_sets.json``; default the
reduction, scan and gather producer sets and the scalar-byte sets) whose convert has selects
in Triton's LLVM IR, the TTGIR is compiled twice: with LLVM's ``-O3`` middle end skipped
(Triton's IR) and in full. It prints, per probe, the convert line's selects in Triton's IR
(a select of a value with itself left out: it selects nothing), where the final IR has them
— in the convert's block, in another block with the convert's location, and selects without
any location in a block that ends with a global store — and the final AMDGCN's
``v_cndmask_b32`` on the data path (``datapath.py``) on the convert's line, on line 0 and
on the store's line; then a tally by outcome.

``--trace SET/NAME`` recompiles one probe with LLVM's ``-print-after-all``
(``LLVM_IR_ENABLE_DUMP=1``, captured from the process's standard error) and prints, after
each pass that changes them, the block and the location of every select of the convert's
line or without a location: the pass that sinks a select into a store's block
(``InstCombinePass``), the one that hoists it back without its location
(``SpeculativeExecutionPass``, ``dropLocation``) and the one that removes it.

What it showed (``docs/triton-lowering.md``, "Selects that -O3 moves or removes"): the
selects are not folded but moved. InstCombine sinks a Swap-method select whose only users
are the predicated store's vector stores into the store's block (``tryToSinkInstruction``);
AMDGPU's pipeline then runs ``SpeculativeExecutionPass`` (a target with branch divergence),
which hoists a small block's cheap instructions back into its predecessor and drops their
debug locations, and the next InstCombine sinks them again. The AMDGCN then places the
select in the store's out-of-line block with no location: under ``.loc`` line 0 when no
located instruction comes before it in the block, otherwise under the line of the one that
does (the store's, an address computation's, or the convert's after another select sunk
with its location). Of the
148 converts with selects of the default sets, 137 keep them all on the convert's line, 9
move one to line 0 and 2 lose selects. Whether the hoist happens depends on the
block's other instructions (``spec-exec-max-speculation-cost``, ``-max-not-hoisted``), so
the line is not predicted from the TTGIR. Separately, a sunk select whose lane-bit test
the store's own redundant-thread predicate decides can be folded away (known bits of the
lane id under the dominating branch) — in some probes, not in others with the same
layouts — or, where the predicate is the selects' very lane test, replaced under the branch
by ``CorrelatedValuePropagation``.
"""

from __future__ import annotations

import collections
import json
import os
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

from cvt_heldout_probes import asm_lines  # noqa: E402
from fixture import read_fixture  # noqa: E402
from probe_compile import gpu_target, private_triton_cache  # noqa: E402

#: the sets read by default: every AMD producer set and the scalar-byte sets
DEFAULT_SETS = ("producer", "amd_producer", "amd_producer_confirm", "amd_producer_third",
                "amd_producer_fourth", "scalar_byte", "scalar_byte_confirm",
                "scalar_byte_vector")
_SELECT = re.compile(r"^\s*%[\w.]+ = select (?:\w+ )*i1 (%[\w.]+|true|false), "
                     r"([^,]+), ([^,]+?)(?:, !dbg (!\d+))?(?:, ![\w.]+ !\d+)*\s*$")
_LOCATION = re.compile(r"^(!\d+) = !DILocation\(line: (\d+),", re.M)
_BLOCK = re.compile(r"^([\w.]+):")


def _compile(ttgir: str, tname: str, o3: bool) -> dict:
    """``k.asm`` of the TTGIR compiled for ``tname`` (``llir``, ``amdgcn``); without ``o3``
    LLVM's middle end (``llvm.optimize_module``) is skipped, as ``probe_compile`` does."""
    import triton
    from triton._C.libtriton import llvm

    orig = llvm.optimize_module
    llvm.optimize_module = (lambda mod, *a, **kw: orig(mod, *a, **kw)) if o3 else \
        (lambda mod, *a, **kw: None)
    try:
        with private_triton_cache() as d:  # the key does not see the skipped -O3
            path = pathlib.Path(d) / "probe.ttgir"
            path.write_text(ttgir, encoding="utf-8")
            k = triton.compile(str(path), target=gpu_target(tname))
    finally:
        llvm.optimize_module = orig
    return k.asm


def ir_selects(llir: str, line: int) -> collections.Counter:
    """The kernel's value selects by place: ``"here"`` (the function's first block, on TTGIR
    line ``line``), ``"sunk"`` (another block, on ``line``) and ``"unlocated"`` (no location,
    in a block that stores to global memory); a select of a value with itself is left
    out."""
    locs = {m.group(1): int(m.group(2)) for m in _LOCATION.finditer(llir)}
    body = llir.split("define amdgpu_kernel", 1)[1].split("\n}\n", 1)[0].splitlines()[1:]
    blocks: list[tuple[str, list[str]]] = [("entry", [])]
    for s in body:
        m = _BLOCK.match(s)
        if m:
            blocks.append((m.group(1), []))
        elif s.strip():
            blocks[-1][1].append(s)
    out: collections.Counter = collections.Counter()
    for i, (_, insts) in enumerate(blocks):
        stores = any(re.search(r"\bstore .*addrspace\(1\)", s) for s in insts)
        for s in insts:
            m = _SELECT.match(s)
            if m is None or m.group(2).split()[-1] == m.group(3).split()[-1]:
                continue
            if m.group(4) is None:
                out["unlocated"] += stores and i > 0
            elif locs.get(m.group(4)) == line:
                out["here" if i == 0 else "sunk"] += 1
    return out


def _cndmask(by_line: dict, line: int | str) -> int:
    return sum(n for op, n in by_line.get(f"probe.ttgir:{line}", {}).items()
               if op.startswith("v_cndmask"))


def probe_row(p: dict) -> dict | None:
    """One probe's record, or None when its convert has no select in Triton's IR."""
    lines = p["ttgir"].splitlines()
    convert = [i for i, s in enumerate(lines, 1) if "ttg.convert_layout" in s]
    store = [i for i, s in enumerate(lines, 1) if s.strip().startswith("tt.store")]
    if not convert:
        return None
    line = convert[-1]
    before = ir_selects(_compile(p["ttgir"], p["target"], False)["llir"], line)
    if not before["here"]:
        return None
    asm = _compile(p["ttgir"], p["target"], True)
    after = ir_selects(asm["llir"], line)
    by_line = asm_lines(asm["amdgcn"], data=True)
    return {"triton_ir": before["here"], "final_ir": dict(after),
            "asm": {"convert": _cndmask(by_line, line), "line0": _cndmask(by_line, 0),
                    "store": sum(_cndmask(by_line, s) for s in store)}}


def outcome(r: dict) -> str:
    """Where ``-O3`` put the convert line's selects of Triton's IR: all kept with the
    convert's location (in place, or sunk into the store's block), one or more moved off the
    line (no location in the final IR, and the AMDGCN's ``v_cndmask_b32`` on line 0 or the
    store's line), or removed (fewer selects in the final IR and fewer ``v_cndmask_b32`` in
    the AMDGCN). The AMDGCN alone does not decide: instruction selection spells some selects
    otherwise (``v_cndmask_b32_sdwa``, scalar selects of uniform values)."""
    ir, fin, asm = r["triton_ir"], r["final_ir"], r["asm"]
    off = asm["line0"] + asm["store"] if fin.get("unlocated") else 0
    if sum(fin.values()) < ir and asm["convert"] + off < ir:
        return "removed" + (" (and moved)" if off else "")
    if off and asm["convert"] < ir:
        return "moved off the convert's line"
    return "sunk, on the convert's line" if fin.get("sunk") or fin.get("unlocated") \
        else "kept in place"


def survey(sets: list[str], files: tuple[str, ...] = ()) -> int:
    """Print every probe's row and the tally (the fixture ``sets``, then each probe file
    of ``files``, as the probe scripts write them: ``{"probes": {name: probe}}``); return 0."""
    registry = json.loads((ROOT / "tests" / "data" / "fixture_sets.json").read_text(
        encoding="utf-8"))["sets"]
    sources = [(name, read_fixture(ROOT / "tests" / "data" / registry[name]["files"][0])[
        registry[name]["key"]]) for name in sets]
    sources += [(pathlib.Path(f).name, read_fixture(pathlib.Path(f))["probes"]) for f in files]
    tally: collections.Counter = collections.Counter()
    for name, data in sources:
        for case, p in sorted(data.items()):
            if not str(p.get("target", "")).startswith("gfx"):
                continue
            r = probe_row(p)
            if r is None:
                continue
            o = outcome(r)
            tally[o] += 1
            print(f"{name}/{case}: Triton's IR {r['triton_ir']}, final IR {r['final_ir']}, "
                  f"v_cndmask_b32 on the convert's line {r['asm']['convert']}, line 0 "
                  f"{r['asm']['line0']}, the store's {r['asm']['store']}: {o}", flush=True)
    for o, n in sorted(tally.items()):
        print(f"{o}: {n}")
    return 0


def trace(spec: str) -> int:
    """Print the pass-by-pass placement of one probe's convert selects (``SET/NAME``)."""
    name, case = spec.split("/", 1)
    registry = json.loads((ROOT / "tests" / "data" / "fixture_sets.json").read_text(
        encoding="utf-8"))["sets"]
    p = read_fixture(ROOT / "tests" / "data" / registry[name]["files"][0])[
        registry[name]["key"]][case]
    line = [i for i, s in enumerate(p["ttgir"].splitlines(), 1) if "ttg.convert_layout" in s][-1]
    os.environ["LLVM_IR_ENABLE_DUMP"] = "1"
    with tempfile.TemporaryFile(mode="w+b") as f:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(f.fileno(), 2)
        try:
            _compile(p["ttgir"], p["target"], True)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.environ.pop("LLVM_IR_ENABLE_DUMP")
        f.seek(0)
        dump = f.read().decode("utf-8", "replace")
    parts = re.split(r"(?m)^(?=; \*\*\* IR Dump After|\*\*\* IR Dump After)", dump)
    prev, locs = None, {}
    for part in parts:
        text = part.splitlines()
        if not text or "IR Dump After" not in text[0]:
            continue
        # a function pass prints no metadata: its ids are the last module dump's
        locs.update((m.group(1), int(m.group(2))) for m in _LOCATION.finditer(part))
        block, seen = "entry", []
        for s in text[1:]:
            m = _BLOCK.match(s)
            if m:
                block = m.group(1)
                continue
            m = _SELECT.match(s)
            if m and m.group(2).split()[-1] != m.group(3).split()[-1]:
                where = locs.get(m.group(4)) if m.group(4) else None
                if where == line or m.group(4) is None:
                    seen.append(f"{block}:{'line ' + str(where) if where else 'no location'}")
        if tuple(seen) != prev:
            print(f"{text[0].strip('*; ')[:70]}: {', '.join(seen) or 'none'}")
            prev = tuple(seen)
    return 0


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sets", nargs="*", help=f"fixture sets (default: {' '.join(DEFAULT_SETS)})")
    ap.add_argument("--trace", metavar="SET/NAME", help="one probe's selects, pass by pass")
    ap.add_argument("--file", action="append", default=[], metavar="PATH",
                    help="also a probe file written by a probe script (e.g. "
                         "scalar_byte_probes.py --explore); with it, no default sets")
    args = ap.parse_args(argv)
    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    if args.trace:
        return trace(args.trace)
    sets = args.sets or ([] if args.file else list(DEFAULT_SETS))
    return survey(sets, tuple(args.file))


if __name__ == "__main__":
    sys.exit(main())
