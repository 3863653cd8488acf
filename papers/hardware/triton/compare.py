"""Compare the Nsight Compute counts of the Triton kernels with ``linlayout check``'s prediction.

Reads ``cases.json`` (``generate.py``: per kernel the whole-kernel shared-memory wavefronts
check predicts, loads and stores) and the measurements (``run.py measure``: one profiled launch
per kernel) and prints one row per kernel:

* **total** (the verdict): the kernel's shared-memory load and store wavefronts, the sum of
  the ``_op_ld``/``_op_st`` metrics (plus ``_op_ldsm``/``_op_stsm`` where the tool has them and
  they are disjoint). Not the all-operations ``l1tex__data_pipe_lsu_wavefronts_mem_shared.sum``:
  on the H200 it also carried a few wavefronts of other shared traffic (the synthetic cases'
  first run, ``papers/hardware/README.md``); it is shown beside. A count: it must equal the
  prediction exactly;
* **split** (also judged, where it can be read): loads and stores. Whether ``_op_ld`` already
  holds the ``ldmatrix`` wavefronts is read off the counts themselves: if
  ``op_ld + op_st + op_ldsm + op_stsm`` is the total the four are disjoint (loads =
  ``op_ld + op_ldsm``), if ``op_ld + op_st`` is the total they include them (loads = ``op_ld``);
  otherwise the split is ``?`` and not judged;
* the instructions the counters saw (``smsp__sass_inst_executed_op_shared_{ld,st}``,
  ``smsp__inst_executed_op_{ldsm,stsm}``) beside check's, and the tool's bank-conflict counts —
  shown, not judged.

Kernels ``generate.py`` flagged (check incomplete) are shown as ``flagged`` and not judged.

A kernel whose measured wavefronts differ from the prediction is ``explained`` only with
evidence: check's other outcome for loads ptxas may sink (``if_loads_sink``) gives the
measurement exactly, or Nsight Compute's per-instruction counters
(``source_counters.json``, from ``investigate_on_gpu.sh`` and ``source_counters.py``) sum
to the prediction exactly, the excess on no instruction.

Exit status: 0 every usable kernel agrees or is explained, 1 a disagreement or a usable
kernel without a measurement, 2 unreadable input. Standard library only.

Run:  python3 compare.py [--cases cases.json] [--measurements FILE]
      [--source-counters FILE] [--write-readme]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
BEGIN, END = "<!-- triton:begin -->", "<!-- triton:end -->"
W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
C = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"


def _n(x):
    if x is None:
        return "-"
    return str(int(x)) if float(x) == int(x) else f"{x:.2f}"


def measured(metrics: dict) -> dict:
    """Totals and split from one launch's metrics (``None`` where a metric is missing)."""
    g = lambda name: metrics.get(name)  # noqa: E731
    ld, st = g(f"{W}_op_ld.sum"), g(f"{W}_op_st.sum")
    ldsm, stsm = g(f"{W}_op_ldsm.sum"), g(f"{W}_op_stsm.sum")
    all_ops = g(f"{W}.sum")
    if ld is None or st is None:
        return {"total": None, "load": None, "store": None, "source": "missing",
                "all_ops": all_ops}
    load, store, source = ld, st, "_op_ld + _op_st"
    if ldsm is not None and stsm is not None and all_ops is not None \
            and ld + st + ldsm + stsm <= all_ops and ld + st < all_ops:
        # separate matrix counters that the plain ones do not include
        load, store, source = ld + ldsm, st + stsm, "_op_ld/st + _op_ldsm/stsm"
    total = load + store
    instr_ld = _add(g("smsp__sass_inst_executed_op_shared_ld.sum"),
                    g("smsp__inst_executed_op_ldsm.sum"))
    instr_st = _add(g("smsp__sass_inst_executed_op_shared_st.sum"),
                    g("smsp__inst_executed_op_stsm.sum"))
    return {"total": total, "load": load, "store": store, "source": source, "all_ops": all_ops,
            "conflicts_load": g(f"{C}_op_ld.sum"), "conflicts_store": g(f"{C}_op_st.sum"),
            "instructions_load": instr_ld, "instructions_store": instr_st}


def _add(a, b):
    if a is None:
        return b
    return a if b is None else a + b


def _explained(p: dict, m: dict, source: dict | None) -> str:
    """Why a measured total other than the prediction is still the prediction's, or ``""``.

    * check's other outcome: the loads ptxas's scheduler may sink below the store's early
      exit (``if_loads_sink``, from check's ``may_sink``) give the measured loads exactly;
    * no instruction's: Nsight Compute's per-instruction counters (``source_counters.json``,
      ``L1 Wavefronts Shared`` of every ``LDS``/``STS``/``LDSM``/``STSM``) sum to the
      prediction exactly, loads and stores, so the pipe counters' excess is on no
      instruction of the kernel."""
    alt = p.get("if_loads_sink")
    if alt and m["load"] == alt["wavefronts_load"] and m["store"] == p["wavefronts_store"]:
        return ("ptxas sank the last loads below the store's early exit: check's may_sink "
                f"outcome ({alt['wavefronts_load']} load wavefronts)")
    if source is not None:
        sums = source["sums"]
        if (sums["load"], sums["store"]) == (p["wavefronts_load"], p["wavefronts_store"]):
            extra = m["total"] - p["wavefronts_total"]
            return (f"{extra:+g} pipe wavefronts on no instruction: each instruction's own "
                    "wavefronts (SourceCounters) sum to the prediction")
    return ""


def verdict(case: dict, meas: dict | None, source: dict | None = None) -> tuple[str, str, dict]:
    """``(status, reason, numbers)``: ``agree``, ``explained`` (:func:`_explained`),
    ``DISAGREE``, ``MISSING`` or ``flagged``. ``source``: the case's per-instruction counters
    (``source_counters.json``), if measured."""
    p = case["predicted"]
    if meas is None or "error" in meas or "metrics" not in meas:
        why = "no measurement" if meas is None else meas.get("error", "no metrics")
        return ("flagged" if not case.get("usable", True) else "MISSING"), why, {}
    m = measured(meas["metrics"])
    if not case.get("usable", True):
        return "flagged", "; ".join(case.get("flags", [])) or "not usable", m
    if m["total"] is None:
        return "MISSING", "wavefront metrics missing from the report", m
    want = p["wavefronts_total"]
    split_differs = m["load"] is not None and (m["load"], m["store"]) != (
        p["wavefronts_load"], p["wavefronts_store"])
    if m["total"] != want or split_differs:
        why = _explained(p, m, source) if m["load"] is not None else ""
        if why:
            return "explained", why, m
        if m["total"] != want:
            return "DISAGREE", f"{_n(m['total'])} wavefronts, predicted {want}", m
        return ("DISAGREE", f"loads/stores {_n(m['load'])}/{_n(m['store'])}, predicted "
                            f"{p['wavefronts_load']}/{p['wavefronts_store']}", m)
    note = "" if m["load"] is not None else "split not readable"
    ins = (m.get("instructions_load"), m.get("instructions_store"))
    if None not in ins and ins != (p["instructions_load"], p["instructions_store"]):
        note = (note + "; " if note else "") + (f"instructions {_n(ins[0])}/{_n(ins[1])} vs "
                                                f"check {p['instructions_load']}/"
                                                f"{p['instructions_store']}")
    return "agree", note, m


def table(cases: list[dict], doc: dict, sources: dict | None = None
          ) -> tuple[list[str], dict]:
    by = {k["name"]: k for k in doc.get("kernels", [])}
    sources = sources or {}
    head = ("kernel", "warps", "pred ld/st", "meas ld/st", "pred total", "meas total",
            "conflicts ld/st", "instr ld/st pred", "instr ld/st meas", "status")
    rows = [head]
    counts: dict = {}
    for c in cases:
        status, why, m = verdict(c, by.get(c["name"]), sources.get(c["name"]))
        counts[status] = counts.get(status, 0) + 1
        p = c["predicted"]
        rows.append((c["name"], str(c["num_warps"]),
                     f"{p['wavefronts_load']}/{p['wavefronts_store']}",
                     f"{_n(m.get('load'))}/{_n(m.get('store'))}", str(p["wavefronts_total"]),
                     _n(m.get("total")),
                     f"{_n(m.get('conflicts_load'))}/{_n(m.get('conflicts_store'))}",
                     f"{p['instructions_load']}/{p['instructions_store']}",
                     f"{_n(m.get('instructions_load'))}/{_n(m.get('instructions_store'))}",
                     status + (f" ({why})" if why else "")))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head) - 1)]
    lines = []
    for k, r in enumerate(rows):
        lines.append(" | ".join(r[i].ljust(widths[i]) for i in range(len(widths))) + " | " + r[-1])
        if k == 0:
            lines.append("-+-".join("-" * w for w in widths) + "-+-------")
    return lines, counts


def summary(counts: dict, doc: dict) -> str:
    judged = sum(counts.get(k, 0) for k in ("agree", "explained", "DISAGREE", "MISSING"))
    return (f"{counts.get('agree', 0)} of {judged} kernels agree, "
            f"{counts.get('explained', 0)} explained, {counts.get('DISAGREE', 0)} "
            f"disagree, {counts.get('MISSING', 0)} missing, {counts.get('flagged', 0)} flagged "
            f"(not judged); device {doc.get('device')}, {doc.get('ncu')}")


def write_readme(lines: list[str], summ: str, readme: Path = README) -> None:
    text = readme.read_text(encoding="utf-8")
    if BEGIN not in text or END not in text:
        raise SystemExit(f"compare.py: markers {BEGIN} / {END} not in {readme}")
    body = "\n".join([summ, "", "```", *lines, "```"])
    pre, rest = text.split(BEGIN, 1)
    post = rest.split(END, 1)[1]
    readme.write_text(pre + BEGIN + "\n" + body + "\n" + END + post, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=Path, default=HERE / "cases.json")
    ap.add_argument("--measurements", type=Path, default=HERE / "triton_measurements.json")
    ap.add_argument("--source-counters", type=Path, default=HERE / "source_counters.json",
                    help="per-instruction counters (source_counters.py); ignored if absent")
    ap.add_argument("--write-readme", action="store_true")
    ap.add_argument("--readme", type=Path, default=README)
    args = ap.parse_args(argv)
    try:
        cases = json.loads(args.cases.read_text(encoding="utf-8"))["cases"]
        doc = json.loads(args.measurements.read_text(encoding="utf-8"))
        if not isinstance(doc, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"compare.py: cannot read the input: {e}", file=sys.stderr)
        return 2
    sources = None
    if args.source_counters.is_file():
        try:
            sources = json.loads(args.source_counters.read_text(encoding="utf-8"))
        except ValueError as e:
            print(f"compare.py: cannot read {args.source_counters}: {e}", file=sys.stderr)
            return 2
    lines, counts = table(cases, doc, sources)
    summ = summary(counts, doc)
    print("\n".join(lines))
    print(summ)
    if args.write_readme:
        write_readme(lines, summ, args.readme)
    return 1 if counts.get("DISAGREE") or counts.get("MISSING") else 0


if __name__ == "__main__":
    sys.exit(main())
