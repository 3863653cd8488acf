"""The probes whose final PTX/AMDGCN differs from Triton's lowering (the assembly of Triton's
LLVM IR with LLVM's ``-O3`` skipped), each with the LLVM pass that re-spelt it:
``tests/data/llvm_respelling.json``, shared by the convert probe scripts of this folder, and
by the producer probe scripts for the probes they compare with the final assembly
(:func:`final_marks`).

``python papers/triton_lowering/respelling.py`` prints the table of ``docs/triton-lowering.md``
("LLVM re-spelling") from that file and the fixtures (no Triton needed)."""

from __future__ import annotations

import collections
import gzip
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
FILE = ROOT / "tests" / "data" / "llvm_respelling.json"


def _cause(entry) -> str:
    return entry["cause"] if isinstance(entry, dict) else entry


def listed(fixture_set: str) -> dict[str, str]:
    """``{probe: cause}`` of ``fixture_set`` (the cause's key in ``"causes"`` resolved to its
    text)."""
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    return {name: doc["causes"][_cause(e)] for name, e in doc["sets"].get(fixture_set, {}).items()}


def final_marks(fixture_set: str) -> dict[str, dict]:
    """``{probe: entry}``: the probes of ``fixture_set`` compared with the final assembly (an
    entry ``{"cause": ..., "check": "final"}``), each entry as written. An entry of a producer
    set (``producer``, ``amd_producer``, ...) also records where the assemblies differ:
    ``"line"`` (the convert's TTGIR line) and ``"counts"``, ``{opcode: {"ir": n, "lowering":
    n, "final": n}}`` — the opcode's count in Triton's LLVM IR before ``-O3``
    (``producer_probes.ir_selects``), in the lowering and in the final assembly (both on the
    data path)."""
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    return {name: e for name, e in doc["sets"].get(fixture_set, {}).items()
            if isinstance(e, dict) and e.get("check") == "final"}


def follows_final(fixture_set: str) -> set[str]:
    """The probes of ``fixture_set`` where ``check`` models LLVM's final form on purpose (an
    entry ``{"cause": ..., "check": "final"}``): compared with the final assembly."""
    return set(final_marks(fixture_set))


def _by_line(item: tuple) -> tuple:
    """Sort key of a ``("file:line", counts)`` item: the file, then the line as a number."""
    file, _, line = item[0].rpartition(":")
    return file, int(line) if line.isdigit() else 0


def _diff(a: dict, b: dict) -> str:
    keys = sorted(set(a) | set(b))
    return ", ".join(f"{k} {b.get(k, 0) - a.get(k, 0):+d}" for k in keys
                     if a.get(k, 0) != b.get(k, 0))


def _marked(entry: dict) -> str:
    """A producer set's mark, as the table shows it: the final assembly against the lowering
    on the convert's line, and the counts behind it."""
    counts = entry["counts"]
    d = ", ".join(f"{op} {c['final'] - c['lowering']:+d}" for op, c in sorted(counts.items()))
    ev = ", ".join(f"{op} {c['ir']} / {c['lowering']} / {c['final']}"
                   for op, c in sorted(counts.items()))
    return (f"line {entry['line']}: {d}; Triton's IR / lowering / final: {ev}; "
            "check follows the final form")


def table() -> str:
    """The markdown table: per cause, how many probes, the first with the register opcodes its
    final assembly has more (+) or fewer (-) than Triton's lowering on the data path (the
    probes' ``"data"`` records) (at the convert's line and
    over the kernel, or by line for ``tl`` kernels; for a producer set's mark, the counts it
    records on its line) and the IR evidence, then the others."""
    sys.path.insert(0, str(ROOT / "tests"))
    doc = json.loads(FILE.read_text(encoding="utf-8"))
    sets = json.loads((ROOT / "tests" / "data" / "fixture_sets.json").read_text(
        encoding="utf-8"))["sets"]
    by_cause: dict = collections.defaultdict(list)
    for name, probes in doc["sets"].items():
        data = json.loads(gzip.decompress((ROOT / "tests" / "data" / sets[name]["files"][0])
                                          .read_bytes()))["probes"]
        for probe, entry in sorted(probes.items()):
            cause = _cause(entry)
            p = data[probe]
            if "counts" in entry:  # a producer set: by convert line, the IR's count recorded
                by_cause[cause].append(f"`{name}/{probe}` ({_marked(entry)})")
                continue
            # on the data path, as compared (datapath.py: address arithmetic left out)
            low = {**p["lowering"], **p["lowering"]["data"]}
            p = p["data"]
            d = _diff(low["counts"], p["counts"])
            if probe.startswith("t_"):  # tl kernels: by source line
                d = "; ".join(f"{'TTGIR ' if k.startswith('probe.ttgir:') else ''}line "
                              f"{k.split(':')[-1]}: {_diff(low['lines'].get(k, {}), v)}"
                              for k, v in sorted(p["lines"].items(), key=_by_line)
                              if _diff(low["lines"].get(k, {}), v))
            elif "lines" in p:  # the convert's line, then the kernel's total
                total = lambda ls: dict(sum((collections.Counter(v) for v in ls.values()),  # noqa: E731
                                            collections.Counter()))
                d = f"convert: {d or 'same'}; kernel: {_diff(total(low['lines']), total(p['lines'])) or 'same'}"
            ir = {k: v for k, v in low.get("llvm", {}).items() if low["ir"].get(k) != v}
            ir_d = ", ".join(f"{k} {low['ir'].get(k, 0)}→{v}" for k, v in sorted(ir.items()))
            by_cause[cause].append(f"`{name}/{probe}` ({d or 'shared memory only'}"
                                   + (f"; IR after -O3: {ir_d}" if ir_d else "")
                                   + ("; check follows the final form" if isinstance(entry, dict)
                                      else "") + ")")
    out = ["| cause (LLVM pass) | probes | first probe: final assembly vs Triton's lowering | "
           "all probes |", "|---|---|---|---|"]
    for cause, rows in sorted(by_cause.items()):
        names = ", ".join(r.split("`")[1].split("/")[1] for r in rows[1:])
        out.append(f"| {doc['causes'][cause]} | {len(rows)} | {rows[0]} | {names or '-'} |")
    return "\n".join(out)


if __name__ == "__main__":
    print(table())
