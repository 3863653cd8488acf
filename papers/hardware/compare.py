"""Compare the measurements with the predictions: a table, a README section, an exit code.

Reads ``cases.json`` (the predictions, ``generate.py``) and ``measurements.json`` (``runner.py``
on the GPU) and, for every case, compares wavefronts per CTA iteration — and so per warp and
per instruction — and the degree:

* ``ncu`` numbers are counts: they must equal the prediction exactly, and the 2N launch must
  add exactly what the N launch did (``linear``);
* ``clock64`` numbers are estimates from timing: within 25 % (and 0.5 wavefronts);
* a case with no measurement, or an error, fails.

The counter ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_*`` is shown next to
``wavefronts − phases`` (linlayout's ``extra_wavefronts``) but does not decide agreement: it is
the tool's own definition and is recorded to learn how it relates, not assumed.

Exit status: 0 every case agrees, 1 any disagreement or missing case, 2 unreadable input.
Standard library only.

Run:  python3 papers/hardware/compare.py [--measurements FILE] [--write-readme]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
BEGIN, END = "<!-- results:begin -->", "<!-- results:end -->"
TOLERANCE = 0.25  # clock64 estimates


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return str(int(x)) if x == int(x) else f"{x:.2f}"
    return str(x)


def verdict(pred: dict, meas: dict | None) -> tuple[str, str]:
    """``(status, reason)``: status is ``agree``, ``DISAGREE`` or ``MISSING``."""
    if meas is None:
        return "MISSING", "no measurement"
    if "error" in meas:
        return "MISSING", meas["error"][:120]
    want = pred["predicted_wavefronts_per_block"]
    got = meas.get("measured_wavefronts_per_block")
    if got is None:
        return "MISSING", "no wavefront number"
    method = meas.get("method")
    if method == "ncu":
        if meas.get("linear") is False:
            return "DISAGREE", "counts not linear in the iteration count (unclean)"
        if got != want:
            return "DISAGREE", f"{_fmt(got)} wavefronts per CTA iteration, predicted {want}"
        return "agree", ""
    if method == "clock64":
        if abs(got - want) <= max(0.5, TOLERANCE * want):
            return "agree", "within tolerance (timing)"
        return "DISAGREE", f"timing estimate {_fmt(got)} per CTA iteration, predicted {want}"
    return "DISAGREE", f"unknown method {method!r}"


def rows(cases: list[dict], measured: dict[str, dict]) -> list[dict]:
    out = []
    for c in cases:
        m = measured.get(c["case"])
        status, reason = verdict(c, m)
        m = m or {}
        out.append({
            "case": c["case"], "category": c["category"], "instruction": c["instruction"],
            "bits": c["element_bits"], "warps": c["warps"],
            "instrs": c["instructions_per_warp"], "phases": c["phases"],
            "pred_instr": c["predicted_wavefronts"], "meas_instr": m.get("measured_wavefronts"),
            "pred_warp": c["predicted_wavefronts_per_warp"],
            "meas_warp": m.get("measured_wavefronts_per_warp"),
            "pred_deg": c["predicted_degree"], "meas_deg": m.get("measured_degree"),
            "extra": c["predicted_wavefronts"] - c["phases"],
            "conflicts": m.get("measured_bank_conflicts"),
            "method": m.get("method", "-"), "source": c["prediction_source"],
            "status": status, "reason": reason,
        })
    return out


COLUMNS = [("case", "case"), ("instruction", "instruction"), ("bits", "bits"), ("warps", "warps"),
           ("instrs", "instr/warp"), ("pred_instr", "pred wf/instr"), ("meas_instr", "meas"),
           ("pred_warp", "pred wf/warp"), ("meas_warp", "meas"), ("pred_deg", "pred degree"),
           ("meas_deg", "meas"), ("extra", "pred extra"), ("conflicts", "ncu conflicts"),
           ("method", "method"), ("status", "status")]


def text_table(table: list[dict]) -> str:
    head = [h for _, h in COLUMNS]
    body = [[_fmt(r[k]) for k, _ in COLUMNS] for r in table]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h)
              for i, h in enumerate(head)]
    lines = [" | ".join(h.ljust(w) for h, w in zip(head, widths)),
             "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(x.ljust(w) for x, w in zip(b, widths)) for b in body]
    return "\n".join(lines)


def markdown(table: list[dict], meta: dict) -> str:
    counts = Counter(r["status"] for r in table)
    by_cat: dict[str, Counter] = {}
    for r in table:
        by_cat.setdefault(r["category"], Counter())[r["status"]] += 1
    lines = [f"Measured on **{meta.get('device', '?')}** (driver {meta.get('driver', '?')}, "
             f"{meta.get('ncu', 'no ncu')}), {len(table)} cases: "
             + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ".", "",
             "| category | cases | agree |", "|---|---|---|"]
    for cat, cnt in by_cat.items():
        lines.append(f"| {cat} | {sum(cnt.values())} | {cnt['agree']} |")
    lines += ["", "| " + " | ".join(h for _, h in COLUMNS) + " |",
              "|" + "---|" * len(COLUMNS)]
    for r in table:
        cells = [_fmt(r[k]) for k, _ in COLUMNS]
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(cells) + " |")
    bad = [r for r in table if r["status"] != "agree"]
    if bad:
        lines += ["", "Disagreements:", ""]
        lines += [f"* `{r['case']}`: {r['status']} — {r['reason']}" for r in bad]
    return "\n".join(lines)


def write_readme(readme: Path, section: str) -> None:
    """Replace the text between the results markers of ``readme``."""
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"{readme} has no {BEGIN} … {END} markers")
    pre, rest = text.split(BEGIN, 1)
    _, post = rest.split(END, 1)
    readme.write_text(pre + BEGIN + "\n" + section + "\n" + END + post, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, default=HERE / "cases.json")
    ap.add_argument("--measurements", type=Path, default=HERE / "measurements.json")
    ap.add_argument("--write-readme", action="store_true",
                    help="put the results table into README.md (between the markers)")
    ap.add_argument("--readme", type=Path, default=HERE / "README.md")
    args = ap.parse_args(argv)
    try:
        cases = json.loads(args.cases.read_text(encoding="utf-8"))["cases"]
        meas_doc = json.loads(args.measurements.read_text(encoding="utf-8"))
        measured = {m["case"]: m for m in meas_doc["cases"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"compare: cannot read input: {exc}", file=sys.stderr)
        return 2
    table = rows(cases, measured)
    print(f"device: {meas_doc.get('device', '?')}  driver: {meas_doc.get('driver', '?')}  "
          f"ncu: {meas_doc.get('ncu', '-')}\n")
    print(text_table(table))
    unknown = sorted(set(measured) - {c["case"] for c in cases})
    counts = Counter(r["status"] for r in table)
    print("\n" + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + (f"; {len(unknown)} measured case(s) not in cases.json" if unknown else ""))
    for r in table:
        if r["status"] != "agree":
            print(f"  {r['status']}: {r['case']}: {r['reason']}")
    if args.write_readme:
        write_readme(args.readme, markdown(table, meas_doc))
        print(f"results written into {args.readme}")
    ok = counts["agree"] == len(table)
    print("all cases agree" if ok else "SOME CASES FAILED to agree")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
