"""Compare the measurements with the predictions: a table, a README section, an exit code.

Reads ``cases.json`` (the predictions, ``generate.py``) and ``measurements.json`` (``runner.py``
on the GPU) and, for every case, compares wavefronts per CTA iteration — and so per warp and
per instruction — and the degree:

* ``ncu`` numbers are counts: each launch's count minus the 0-iteration launch must equal
  the prediction times its iterations (``agree``); two measured effects are reported as
  ``explained`` (never fewer wavefronts than predicted, and the excess bounded):

  - **stray** — a launch counts a few wavefronts more than the model (at most
    :data:`STRAY` of its total; seen on loads and on warps that take turns alike);
  - **concurrent** — several warps accessing shared memory at the same time: the counter
    adds a few per cent that vary between identical launches; called so only when the same
    access with the warps taking turns (its ``serial-…`` case, measured in the same run)
    agrees or is a stray count.
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
#: Largest excess (fraction of the launch's predicted wavefronts) called a stray count. Set
#: after the first H200 run, whose largest such excess was 2 of 2,048 (0.098 %); the serial
#: cases of the second run (at most 8 of 16,384) stayed well inside it.
STRAY = 0.001


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return str(int(x)) if x == int(x) else f"{x:.2f}"
    return str(x)


def excess(pred: dict, meas: dict, iters: int) -> tuple[int, int] | None:
    """Wavefronts the N- and 2N-iteration launches counted beyond the prediction (after the
    0-iteration launch is taken off), from the raw counter values; None without them."""
    raw = meas.get("raw") or {}
    names = (meas.get("metric") or "").split("+")
    if not iters or not names[0] or any(len(raw.get(n) or ()) != 3 for n in names):
        return None
    if any(v is None for n in names for v in raw[n]):
        return None
    vals = [sum(raw[n][k] for n in names) for k in range(3)]
    want = pred["predicted_wavefronts_per_block"]
    return (round(vals[1] - vals[0] - iters * want),
            round(vals[2] - vals[0] - 2 * iters * want))


def verdict(pred: dict, meas: dict | None, iters: int = 0,
            serial: tuple[str, str] | None = None) -> tuple[str, str]:
    """``(status, reason)``: status is ``agree``, ``explained`` (a measured effect, module
    docstring), ``DISAGREE`` or ``MISSING``; ``serial`` is the verdict of the case's
    ``serial-…`` variant when it was measured."""
    if meas is None:
        return "MISSING", "no measurement"
    if "error" in meas:
        return "MISSING", meas["error"][:120]
    want = pred["predicted_wavefronts_per_block"]
    got = meas.get("measured_wavefronts_per_block")
    if got is None:
        return "MISSING", "no wavefront number"
    method = meas.get("method")
    extra = excess(pred, meas, iters) if method == "ncu" else None
    if extra is not None and extra != (0, 0) and want > 0:
        e1, e2 = extra
        rel = max(e1 / (iters * want), e2 / (2 * iters * want))
        said = (f"+{e1} and +{e2} wavefronts in the {iters}- and {2 * iters}-iteration launches "
                f"({100 * rel:.2f} % at most)")
        if min(extra) < 0:
            return "DISAGREE", f"fewer wavefronts than predicted: {e1:+d}, {e2:+d}"
        if rel <= STRAY:
            return "explained", "stray count: " + said
        if (pred["warps"] > 1 and serial is not None
                and (serial[0] == "agree" or serial[1].startswith("stray"))):
            return "explained", "concurrent warps: " + said + "; warps taking turns: " + (
                serial[1] or "exact")
        return "DISAGREE", said
    if extra == (0, 0):
        return "agree", ""
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


def rows(cases: list[dict], measured: dict[str, dict], iters: int = 0,
         catalogue: list[dict] | None = None) -> list[dict]:
    """One row per case of ``cases``; a case's ``serial-…`` twin is looked up in
    ``catalogue`` (default ``cases``) and judged when ``measured`` holds it."""
    by_name = {c["case"]: c for c in (catalogue or cases)}
    out = []
    for c in cases:
        m = measured.get(c["case"])
        twin = by_name.get("serial-" + c["case"])
        serial = None if twin is None or twin["case"] not in measured else \
            verdict(twin, measured[twin["case"]], iters)
        status, reason = verdict(c, m, iters, serial)
        m = m or {}
        out.append({
            "case": c["case"], "category": c["category"], "instruction": c["instruction"],
            "bits": c["element_bits"], "warps": c["warps"],
            "instrs": c["instructions_per_warp"], "phases": c["phases"],
            "pred_instr": c["predicted_wavefronts"], "meas_instr": m.get("measured_wavefronts"),
            "pred_warp": c["predicted_wavefronts_per_warp"],
            "meas_warp": m.get("measured_wavefronts_per_warp"),
            "pred_deg": c["predicted_degree"],
            "meas_deg": None if m.get("measured_wavefronts") is None
            else m["measured_wavefronts"] / c["phases"],
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


def counter_sentence(table: list[dict]) -> str:
    """How the bank-conflict counter relates to the wavefronts, counted over ``table``
    (:func:`rows`, cases with both numbers measured): on how many it equals the measured
    ``wavefronts − phases``, on how many linlayout's ``extra_wavefronts``, and on how many the
    measured wavefronts equal the prediction."""
    have = [r for r in table if r["conflicts"] is not None and r["meas_instr"] is not None]
    measured = sum(abs(r["meas_instr"] - r["phases"] - r["conflicts"]) < 1e-9 for r in have)
    predicted = sum(abs(r["extra"] - r["conflicts"]) < 1e-9 for r in have)
    exact = sum(abs(r["meas_instr"] - r["pred_instr"]) < 1e-9 for r in have)
    return (f"The bank-conflict counter equals the measured `wavefronts − phases` on "
            f"{measured} of {len(have)} cases and linlayout's `extra_wavefronts` on "
            f"{predicted}; the measured wavefronts equal the predicted ones on {exact}.")


def markdown(table: list[dict], meta: dict) -> str:
    counts = Counter(r["status"] for r in table)
    by_cat: dict[str, Counter] = {}
    for r in table:
        by_cat.setdefault(r["category"], Counter())[r["status"]] += 1
    lines = [f"Measured on **{meta.get('device', '?')}** (driver {meta.get('driver', '?')}, "
             f"{meta.get('ncu', 'no ncu')}), {len(table)} cases: "
             + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())) + ".", "",
             counter_sentence(table), "",
             "| category | cases | agree | explained |", "|---|---|---|---|"]
    for cat, cnt in by_cat.items():
        lines.append(f"| {cat} | {sum(cnt.values())} | {cnt['agree']} | {cnt['explained']} |")
    lines += ["", "| " + " | ".join(h for _, h in COLUMNS) + " |",
              "|" + "---|" * len(COLUMNS)]
    for r in table:
        cells = [_fmt(r[k]) for k, _ in COLUMNS]
        cells[0] = f"`{cells[0]}`"
        lines.append("| " + " | ".join(cells) + " |")
    bad = [r for r in table if r["status"] != "agree"]
    if bad:
        lines += ["", "Not exact (the reason; `explained` effects are described above the "
                  "table):", ""]
        lines += [f"* `{r['case']}`: {r['status']} — {r['reason']}" for r in bad]
    return "\n".join(lines)


def repeats_markdown(doc: dict, cases: list[dict]) -> str:
    """The repeated runs (``repeats.json``: ``{iterations: measurement file}``) as a table:
    per case and iteration count, the wavefronts the N- and 2N-iteration launches counted
    beyond the prediction."""
    by_name = {c["case"]: c for c in cases}
    runs = {int(n): {m["case"]: m for m in d["cases"]} for n, d in doc.items()}
    names = sorted({name for r in runs.values() for name in r},
                   key=lambda n: (n.startswith("serial-"), n))
    head = ["case", "warps", "predicted per CTA iteration"] + [
        f"excess at {n} / {2 * n} iterations" for n in sorted(runs)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in names:
        c = by_name.get(name)
        if c is None:
            continue
        cells = [f"`{name}`", str(c["warps"]), str(c["predicted_wavefronts_per_block"])]
        for n in sorted(runs):
            m = runs[n].get(name)
            e = excess(c, m, n) if m else None
            cells.append("-" if e is None else f"+{e[0]} / +{e[1]}")
        lines.append("| " + " | ".join(cells) + " |")
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
    ap.add_argument("--serial-from", type=Path, default=None,
                    help="take the serial-… cases (the evidence for the concurrent-warps "
                         "effect) from this measurement file when the main one lacks them")
    ap.add_argument("--repeats", type=Path, default=None,
                    help="repeats.json (the varying cases again at more iterations): its table "
                         "goes into the README section too")
    ap.add_argument("--measured-only", action="store_true",
                    help="judge only the cases the measurement file holds (an earlier run "
                         "with fewer cases)")
    args = ap.parse_args(argv)
    try:
        cases = json.loads(args.cases.read_text(encoding="utf-8"))["cases"]
        meas_doc = json.loads(args.measurements.read_text(encoding="utf-8"))
        measured = {m["case"]: m for m in meas_doc["cases"]}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"compare: cannot read input: {exc}", file=sys.stderr)
        return 2
    if args.serial_from is not None:
        try:
            other = json.loads(args.serial_from.read_text(encoding="utf-8"))["cases"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"compare: cannot read input: {exc}", file=sys.stderr)
            return 2
        for m in other:
            if m["case"].startswith("serial-") and m["case"] not in measured:
                measured[m["case"]] = m
    catalogue = cases
    if args.measured_only:
        own = {m["case"] for m in meas_doc["cases"]}
        cases = [c for c in cases if c["case"] in own]
    table = rows(cases, measured, int(meas_doc.get("iters") or 0), catalogue)
    print(f"device: {meas_doc.get('device', '?')}  driver: {meas_doc.get('driver', '?')}  "
          f"ncu: {meas_doc.get('ncu', '-')}\n")
    print(text_table(table))
    unknown = sorted(set(measured) - {c["case"] for c in catalogue})
    counts = Counter(r["status"] for r in table)
    print("\n" + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + (f"; {len(unknown)} measured case(s) not in cases.json" if unknown else ""))
    for r in table:
        if r["status"] != "agree":
            print(f"  {r['status']}: {r['case']}: {r['reason']}")
    if args.write_readme:
        section = markdown(table, meas_doc)
        if args.repeats is not None:
            rep_doc = json.loads(args.repeats.read_text(encoding="utf-8"))
            section += ("\n\nThe cases whose counts varied, measured again in the same session "
                        "(`repeats.json`; wavefronts beyond the prediction in the N- and "
                        "2N-iteration launches, each after the 0-iteration launch is taken "
                        "off):\n\n" + repeats_markdown(rep_doc, catalogue))
        write_readme(args.readme, section)
        print(f"results written into {args.readme}")
    ok = counts["agree"] + counts["explained"] == len(table)
    print("every case agrees or is explained" if ok else "SOME CASES FAILED to agree")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
