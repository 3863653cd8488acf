#!/usr/bin/env python
"""The known mismatches (``tests/data/known_mismatches.json``) against Triton's lowering: for
each, ``check``'s compared counts, those of Triton's lowering (the assembly LLVM's back end
selects from Triton's LLVM IR with the ``-O3`` middle end skipped) and those of the final
assembly (with ``-O3``), and a verdict:

* ``LLVM only``: ``check`` equals the lowering; the final assembly differs (``-O3`` re-spells,
  merges, folds or moves instructions).
* ``gap vs lowering``: ``check`` differs from the lowering.

Run without Triton (reads the fixtures; exits 1 when a verdict differs from
:data:`EXPECTED`, the table in ``papers/triton_lowering/README.md``)::

    python papers/triton_lowering/mismatch_vs_lowering.py

The compared counts are those of each set's test:

* ``amd_producer_*``: the register instructions on the convert's line, on the data path
  (``producer_probes.predicted``/``observed``). Against the lowering, the convert line's
  ``v_cndmask_b32`` are Triton's LLVM IR's selects there before ``-O3`` (one per 32 bits,
  ``producer_probes.ir_selects``: a select of a value with itself left out, instruction
  selection folds it), not the lowering assembly's: the back end with ``-O3`` skipped sinks
  a Swap select feeding the vector stores of a predicated ``tt.store`` into a join block and
  tail-duplicates it into the out-of-line store block before it (``tail_duplicated_select``
  in ``tests/data/llvm_respelling.json``), copies that are neither Triton's nor in the
  assembly that runs. ``--compile`` (or ``--compile-ir``, those alone) records those IR
  counts (:data:`LOWERED`, ``"ir"``); the table shows the assembly's count beside them
  where it differs.
* ``scalar_byte*``: the ``v_perm_b32`` of the reduction's line and the register instructions
  of the convert's line (``scalar_byte_probes.predicted``/``observed``). Against the lowering
  the two lines are summed by opcode: ``check`` places the permutes joining scalar byte
  totals where ``-O3`` runs them (the reduction's line), Triton's lowering on the convert's
  line (``tests/check/test_scalar_byte_probes.py``, a move, not a different count).
* ``amd_byte_*``: the register instructions on the convert's line and the LDS instructions of
  the kernel (``cvt_heldout_probes.prediction``; ``agrees``, with ``may_merge``'s outcomes).
* ``llvm_merge``, ``llvm_merge_confirm``: the kernel's ``ld.shared``/``st.shared`` by width
  (``tests/check/shared_memory/asm_counts.py``).

The first two families carry their lowering in the fixture (``"data"`` -> ``"lowering"``;
the producers' IR selects are in :data:`LOWERED`).
The others do not; ``--compile`` (Triton 3.9.0 installed, CPU only, two compiles a case)
recompiles their stored TTGIR with ``-O3`` skipped and with it, as
``lowering_reference.py`` does, and writes ``tests/data/known_mismatches_lowering.json``:
per set and case the lowering's and the recompiled final assembly's counts, read like the
probe's own (``"counts"``/``"lines"`` by TTGIR op and their ``"data"``-path records; for
``llvm_merge``, the whole kernel's shared-memory opcodes), which must reproduce the stored
final counts.
"""

from __future__ import annotations

import collections
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

LOWERED = ROOT / "tests" / "data" / "known_mismatches_lowering.json"
#: sets whose fixture has no lowering record (``--compile`` writes it to :data:`LOWERED`)
COMPILED = ("llvm_merge", "llvm_merge_confirm", "amd_byte_pack", "amd_byte_pack_vector",
            "amd_byte_pack_swap",
            "amd_byte_pack_swap_confirm", "amd_byte_merge")
#: the sets of ``llvm_merge_probes.py`` (compared by the kernel's shared-memory opcodes)
MERGE_SETS = ("llvm_merge", "llvm_merge_confirm")
PRODUCER = ("amd_producer", "amd_producer_confirm", "amd_producer_third", "amd_producer_fourth")
SCALAR = ("scalar_byte", "scalar_byte_confirm", "scalar_byte_vector")
#: sets compared on the reduction's line only (``reduce_pack_probes.py``)
REDUCE_PACK = ("reduce_pack", "reduce_pack_confirm")
#: sets whose known mismatches are of check's global-memory rows against the final AMDGCN
#: (tests/check/global_memory): check's count there is Triton's IR by construction and its
#: ``may_merge`` the merged outcome, so they are not compared with a lowering here
GLOBAL_ROWS = ("global", "heldout_traffic_amdgcn", "amd_global_merge_mixed")
#: sets of kernels rewritten with check's own suggestions (``suggestion_trip.py``): their known
#: mismatches are about a suggestion's compile and cost, listed with their cause there, not
#: convert counts
OTHER_ROWS = ("suggestion_trip",)
LLVM_ONLY, GAP = "LLVM only", "gap vs lowering"

#: the verdict of every known mismatch (``papers/triton_lowering/README.md``, "Known
#: mismatches against Triton's lowering"); a case not listed is a difference
EXPECTED: dict[tuple[str, str], str] = {}


def _load_expected() -> None:
    """Fill :data:`EXPECTED` from the README's table (its rows ``| case | set | ... |
    verdict |``), so the table and this script cannot drift apart."""
    text = (HERE / "README.md").read_text(encoding="utf-8")
    part = text.split("## Known mismatches against Triton's lowering", 1)
    if len(part) < 2:
        return
    for line in part[1].split("\n## ", 1)[0].splitlines():
        cells = [c.strip().strip("`") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 6 and cells[-1] in (LLVM_ONLY, GAP):
            EXPECTED[(cells[1], cells[0])] = cells[-1]


def _sum_lines(by_line: dict) -> dict:
    out: collections.Counter = collections.Counter()
    for counts in by_line.values():
        out.update(counts)
    return {k: v for k, v in sorted(out.items()) if v}


def compile_case(fixture_set: str, name: str, p: dict) -> dict:
    """``{"lowering": ..., "final": ...}`` of one probe without a lowering record (module
    docstring). Needs Triton 3.9.0."""
    import lowering_reference as lr
    from cvt_heldout_probes import asm_lines

    if fixture_set in MERGE_SETS:
        shared = lambda asm: {k: v for k, v in _sum_lines(asm_lines(asm)).items()  # noqa: E731
                              if k.startswith(("ld.shared", "st.shared"))}
        low, _, _ = lr.compile_probe(p["ttgir"], p["target"], o3=False)
        fin, _, _ = lr.compile_probe(p["ttgir"], p["target"], o3=True)
        return {"lowering": {"counts": shared(low)}, "final": {"counts": shared(fin)}}
    rec, sliced, final = lr.records(name, p)
    return {"lowering": rec, "final": {**final, "data": sliced}}


def _fixture(fixture_set: str) -> dict:
    """``{case: probe}`` of a probe set, read without pytest (``tests/data/fixture_sets.json``:
    the set's first file)."""
    import gzip

    data = ROOT / "tests" / "data"
    reg = json.loads((data / "fixture_sets.json").read_text(encoding="utf-8"))["sets"]
    raw = (data / reg[fixture_set]["files"][0]).read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)["probes"]


def compile_ir(fixture_set: str, p: dict) -> dict:
    """``{"lines": {convert line: {"v_cndmask_b32": n}}}``: the selects of Triton's LLVM IR
    before ``-O3`` on each convert line of a producer probe (``producer_probes.ir_selects``,
    one ``v_cndmask_b32`` per 32 bits). Needs Triton 3.9.0."""
    import lowering_reference as lr
    from producer_probes import convert_lines, ir_selects

    _, _, pre = lr.compile_probe(p["ttgir"], p["target"], o3=False)
    ir = ir_selects(pre)
    return {"lines": {str(c): {"v_cndmask_b32": ir.get(f"probe.ttgir:{c}", {}).get(
        "v_cndmask_b32", 0)} for c in convert_lines(p["ttgir"])}}


def compile_irs(known: dict) -> dict:
    """``{set: {case: compile_ir(...)}}`` of the producer sets' known mismatches."""
    out: dict = {}
    for s in PRODUCER:
        for name in sorted(known.get(s, {})):
            got = compile_ir(s, _fixture(s)[name])
            print(f"ir   {s} {name}: {got['lines']}")
            out.setdefault(s, {})[name] = got
    return out


def compile_all() -> int:
    """Write :data:`LOWERED` (module docstring); the number of cases whose recompiled final
    assembly differs from the stored one."""
    known = json.loads((ROOT / "tests" / "data" / "known_mismatches.json").read_text("utf-8"))

    out: dict = {"about": "Triton 3.9.0's lowering (-O3 skipped) and final assembly of the "
                          "known mismatches whose fixture has no lowering record; written by "
                          "papers/triton_lowering/mismatch_vs_lowering.py --compile",
           "triton_version": __import__("triton").__version__}
    bad = 0
    for s in COMPILED:
        for name in sorted(known.get(s, {})):
            p = _fixture(s)[name]
            got = compile_case(s, name, p)
            want = {k: v for k, v in p["counts"].items()
                    if s not in MERGE_SETS or k.startswith(("ld.shared", "st.shared"))}
            same = got["final"]["counts"] == want
            bad += not same
            print(f"{'ok  ' if same else 'DIFF'} {s} {name}: lowering {got['lowering']['counts']}"
                  f" final {got['final']['counts']} stored {want}")
            out.setdefault(s, {})[name] = got
    out["ir"] = compile_irs(known)
    LOWERED.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {LOWERED}")
    return bad


def _ir_selects(low: dict, ir: dict) -> tuple[dict, dict]:
    """The lowering's convert lines with their ``v_cndmask_b32`` replaced by Triton's IR
    selects ``ir`` (``{line: {"v_cndmask_b32": n}}``), and the assembly's counts where they
    differ (``{line: {"v_cndmask_b32": n}}``, for the table)."""
    out, asm = {}, {}
    for line, counts in low.items():
        c = dict(counts)
        if line in ir:
            n, was = ir[line]["v_cndmask_b32"], c.get("v_cndmask_b32", 0)
            if n != was:
                asm[line] = {"v_cndmask_b32": was}
            c.pop("v_cndmask_b32", None)
            if n:
                c["v_cndmask_b32"] = n
        out[line] = dict(sorted(c.items()))
    return out, asm


def _fmt(d: dict) -> str:
    """A count record as one table cell: ``opcode n`` pairs, lines labelled."""
    if d and all(isinstance(v, dict) for v in d.values()):
        return "; ".join(f"{k}: {_fmt(v)}" for k, v in d.items())
    return ", ".join(f"{k} {v}" for k, v in sorted(d.items())) or "none"


def rows() -> list[dict]:
    """One row per known mismatch of the sets this script reads: ``{"set", "case", "check",
    "lowering", "final", "verdict"}`` (``"lowering"`` None when neither the fixture nor
    :data:`LOWERED` has it). No Triton needed."""
    from tests.check.shared_memory.triton_fixtures import entries, known_mismatches
    from tests.support import papers_module

    pp = papers_module("papers/triton_lowering/producer_probes.py")
    sb = papers_module("papers/triton_lowering/scalar_byte_probes.py")
    rp = papers_module("papers/triton_lowering/reduce_pack_probes.py")
    cvt = papers_module("papers/triton_lowering/cvt_heldout_probes.py")
    lowered = json.loads(LOWERED.read_text(encoding="utf-8")) if LOWERED.exists() else {}
    out = []
    for s, cases in sorted(known_mismatches().items()):
        if s == "about" or not isinstance(cases, dict) or s in GLOBAL_ROWS + OTHER_ROWS:
            continue
        for name in sorted(cases):
            e = entries(s)[name]
            row = {"set": s, "case": name, "lowering": None}
            if s in PRODUCER:
                pred = pp.predicted(pp.check_ops(e["ttgir"]))
                row.update(check=pred, final=pp.observed(e["data"]["final"]))
                low = pp.observed(e["data"]["lowering"])
                ir = lowered.get("ir", {}).get(s, {}).get(name)
                if ir:
                    low, row["asm"] = _ir_selects(low, ir["lines"])
                row.update(lowering=low, same=pred == low)
            elif s in SCALAR:
                pred = sb.predicted(e["ttgir"])
                low = sb.observed(e, "lowering")
                row.update(check=pred, final=sb.observed(e), lowering=low,
                           same=_sum_lines(pred) == _sum_lines(low))
            elif s in REDUCE_PACK:
                pred = rp.predicted(e["ttgir"])
                low = rp.observed(e, "lowering")
                row.update(check=pred, final=rp.observed(e, "final"), lowering=low,
                           same=pred == low)
            elif s in MERGE_SETS:
                from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

                pred, _ = predicted_counts(e["ttgir"], name)
                row.update(check=pred, final=ptx_counts(e["counts"]))
                rec = lowered.get(s, {}).get(name)
                if rec:
                    low = ptx_counts(rec["lowering"]["counts"])
                    row.update(lowering=low, same=pred == low)
            else:
                doc = cvt.check_json(e["ttgir"])
                d = cvt.data_path(e)
                pred, seen, _, _ = cvt.prediction(d, name, doc)
                row.update(check=pred, final=seen)
                rec = lowered.get(s, {}).get(name) or (
                    {"lowering": e["lowering"]} if "lowering" in e else None)  # the cvt sets
                if rec:
                    low_rec = rec["lowering"]
                    lp = {**d, "counts": low_rec["data"]["counts"],
                          "lines": low_rec["data"].get("lines", d.get("lines"))}
                    _, low, _, _ = cvt.prediction(lp, name, doc)
                    row.update(lowering=low, same=cvt.agrees(pred, low, doc))
            if row["lowering"] is not None:
                row["verdict"] = LLVM_ONLY if row["same"] else GAP
            else:
                row["verdict"] = "no lowering record"
            out.append(row)
    return out


def table(rs: list[dict]) -> str:
    """The README's table of :func:`rows`."""
    lines = ["| case | set | check | lowering | final | verdict |", "|---|---|---|---|---|---|"]
    for r in rs:
        low = "—" if r["lowering"] is None else _fmt(r["lowering"])
        if r.get("asm"):
            low += f" (selects from Triton's IR; its assembly: {_fmt(r['asm'])})"
        lines.append(f"| `{r['case']}` | `{r['set']}` | {_fmt(r['check'])} | {low} | "
                     f"{_fmt(r['final'])} | {r['verdict']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--compile", action="store_true",
                    help="recompile the cases without a lowering record (needs Triton 3.9.0)")
    ap.add_argument("--compile-ir", action="store_true",
                    help="recompute only the producer sets' IR selects in the lowering file "
                         "(needs Triton 3.9.0)")
    args = ap.parse_args(argv)
    if args.compile:
        return 1 if compile_all() else 0
    if args.compile_ir:
        known = json.loads((ROOT / "tests" / "data" / "known_mismatches.json").read_text(
            "utf-8"))
        out = json.loads(LOWERED.read_text(encoding="utf-8"))
        out["ir"] = compile_irs(known)
        LOWERED.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {LOWERED}")
        return 0
    _load_expected()
    rs = rows()
    print(table(rs))
    tally = collections.Counter(r["verdict"] for r in rs)
    print("\n" + ", ".join(f"{n} {v}" for v, n in sorted(tally.items())))
    bad = [r for r in rs if EXPECTED.get((r["set"], r["case"])) != r["verdict"]]
    for r in bad:
        print(f"DIFF {r['set']} {r['case']}: {r['verdict']}, README says "
              f"{EXPECTED.get((r['set'], r['case']))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
