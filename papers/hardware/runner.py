"""Measure every case on the GPU: Nsight Compute counters, or clock64() timing as a fallback.

Standard library only (runs with the GPU machine's plain ``python3``); needs the program
``build/hwcases`` (``build.sh``) and ``cases.json`` (``generate.py``).

**ncu (the method).** One ``ncu`` process per chunk of cases runs ``hwcases profile N``, which
launches every case kernel three times, with 0, N and 2N loop iterations::

    ncu --clock-control none --metrics <list> -k regex:^hw_ --export R hwcases profile N …

and the report is read back with ``ncu --import R --csv --page raw --print-units base``. The
Nsight Compute metrics (``ncu --query-metrics``; the Nsight Compute "Memory Workload Analysis"
shared-memory table uses the same):

* ``l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`` / ``…_op_st.sum`` — wavefronts of
  shared loads / stores; ``…_op_ldsm.sum`` (ldmatrix) and, where the tool has them,
  ``…_op_stsm.sum`` and the all-ops total ``l1tex__data_pipe_lsu_wavefronts_mem_shared.sum``;
* ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum`` / ``…_op_st.sum`` (and
  ``_op_ldsm``, ``_op_stsm``) — the tool's own bank-conflict count, recorded as is;
* ``smsp__sass_inst_executed_op_shared_ld.sum`` / ``…_st.sum``,
  ``smsp__inst_executed_op_ldsm.sum`` (``_op_stsm``) — warp-level instructions executed, to check
  the kernel issued what it meant.

The runner asks ``ncu --query-metrics`` which exist and uses those; the four of
:data:`REQUIRED` (load and store wavefronts and bank conflicts) are always requested. A kernel's baseline (zeroing the buffer: 32-bit stores, and anything else
outside the loop) is the same in all three launches, so ``(value(N) − value(0)) / N`` is the
access alone, per CTA iteration; the launch with 2N checks that it is linear (``linear``).
Per warp = that / warps, per instruction = that / (warps · instructions per warp), degree =
per instruction / phases.

**clock64 (fallback, when ncu cannot read counters).** ``hwcases timing N R`` times each warp's
loop with ``clock64()`` for N and 2N iterations (least of R runs; the difference removes the
prologue). Cycles grow with wavefronts: two calibration cases with known cost
(``width-32bit-ld``: 1 wavefront, ``stride32-32bit-ld``: 32) give cycles per instruction
``a + b · wavefronts``; a case's wavefronts per instruction are estimated as
``(cycles per iteration / instructions − a) / (b · warps)`` (the warps of a CTA share one SM's
shared-memory pipe). An estimate, not a count: ``compare.py`` allows 25 % for it.

Every number in ``measurements.json`` says which method produced it (``method``).

Run:  python3 papers/hardware/runner.py [--method auto|ncu|clock64] [--iters 8] [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: Shared load/store wavefronts and bank conflicts: always requested.
REQUIRED = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
)
#: Requested when ``ncu --query-metrics`` lists them.
OPTIONAL = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_stsm.sum",
)
WAVE = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
CONF = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared"
CALIBRATION = {"width-32bit-ld": 1, "stride32-32bit-ld": 32}


# -- environment -------------------------------------------------------------------------------

def run(cmd: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def device_info() -> dict:
    """GPU name, driver and toolkit versions (``nvidia-smi``, ``nvcc``)."""
    info = {"device": "unknown", "driver": "unknown", "nvcc": "unknown"}
    try:
        p = run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"], 30)
        if p.returncode == 0 and p.stdout.strip():
            name, driver = [x.strip() for x in p.stdout.strip().splitlines()[0].split(",")[:2]]
            info.update(device=name, driver=driver)
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    try:
        p = run(["nvcc", "--version"], 30)
        release = [ln for ln in p.stdout.splitlines() if "release" in ln]
        if p.returncode == 0 and release:
            info["nvcc"] = release[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def find_ncu(given: str | None) -> str | None:
    """``ncu`` on PATH, or in the usual install folders."""
    if given:
        return given
    if shutil.which("ncu"):
        return shutil.which("ncu")
    for pattern in ("/usr/local/cuda*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu",
                    "/usr/local/NVIDIA-Nsight-Compute*/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def available_metrics(ncu: str) -> set[str] | None:
    """Base names ``ncu --query-metrics`` lists for this GPU (None if it cannot say)."""
    try:
        p = run([ncu, "--query-metrics"], 120)
    except (OSError, subprocess.SubprocessError):
        return None
    if p.returncode:
        return None
    names = {line.split()[0] for line in p.stdout.splitlines()
             if line.strip() and "__" in line.split()[0]}
    return names or None


def choose_metrics(available: set[str] | None) -> list[str]:
    """The required metrics plus every optional one the GPU has (the required ones only when
    the list is unknown)."""
    out = list(REQUIRED)
    if available is not None:
        out += [m for m in OPTIONAL if m.rsplit(".", 1)[0] in available]
    return out


# -- ncu ---------------------------------------------------------------------------------------

def _number(text: str) -> float | None:
    t = text.strip().replace(",", "").replace('"', "")
    try:
        return float(t)
    except ValueError:
        return None


def parse_raw_csv(text: str) -> list[dict]:
    """Rows of ``ncu --csv --page raw``: ``{"kernel": name, metric: value, …}`` in launch order
    (the units row and ``==PROF==`` lines are skipped)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return []
    reader = csv.reader(io.StringIO("\n".join(lines)))
    header = next(reader)
    col = {h: i for i, h in enumerate(header)}
    name_col = col.get("Kernel Name", col.get("Function Name"))
    id_col = col.get("ID")
    rows = []
    for rec in reader:
        if id_col is None or name_col is None or _number(rec[id_col]) is None:
            continue  # units row
        row = {"id": int(_number(rec[id_col])), "kernel": rec[name_col].split("(")[0].strip()}
        for h, i in col.items():
            if "__" in h:
                row[h] = _number(rec[i])
        rows.append(row)
    rows.sort(key=lambda r: r["id"])
    return rows


def profile_chunk(ncu: str, binary: str, metrics: list[str], iters: int, names: list[str],
                  report: Path, timeout: float) -> tuple[list[dict], str, str]:
    """Run one ncu process over ``names`` (report file ``report``.ncu-rep); returns (rows, log,
    the raw CSV text as ncu printed it)."""
    cmd = [ncu, "--clock-control", "none", "--metrics", ",".join(metrics), "-k", "regex:^hw_",
           "--export", str(report), "--force-overwrite", binary, "profile", str(iters), *names]
    try:
        p = run(cmd, timeout)
    except subprocess.TimeoutExpired:
        return [], f"ncu did not finish in {timeout} s", ""
    log = p.stdout[-3000:] + p.stderr[-3000:]
    rep = Path(str(report) + ".ncu-rep")
    if p.returncode or not rep.is_file():
        return [], f"ncu exited {p.returncode}: {log}", ""
    base = [ncu, "--import", str(rep), "--csv", "--page", "raw"]
    q = run(base + ["--print-units", "base"], timeout)
    if q.returncode:  # an ncu without --print-units: counts carry no unit prefix anyway
        q = run(base, timeout)
    if q.returncode:
        return [], f"ncu --import exited {q.returncode}: {q.stderr[-2000:]}", ""
    return parse_raw_csv(q.stdout), log, q.stdout


def wave_metric(case: dict, have: list[str]) -> tuple[str, ...]:
    """The wavefront metric(s) that count this case's access."""
    return _pick(case, have, WAVE)


def conflict_metric(case: dict, have: list[str]) -> tuple[str, ...]:
    return _pick(case, have, CONF)


def _pick(case: dict, have: list[str], stem: str) -> tuple[str, ...]:
    """The per-operation metric: ``_op_ldsm``/``_op_stsm`` for a matrix instruction where the
    tool has them, else ``_op_ld``/``_op_st`` (which, on sm_90 with Nsight Compute 2025.3, also
    count ldmatrix/stmatrix). Never the all-operations total: on the first H200 run it carried
    a few wavefronts of other shared traffic that varied between launches."""
    matrix = "matrix" in case["linlayout_instruction"]
    op = case["direction"]
    special = f"{stem}_op_{op}sm.sum"
    if matrix and special in have:
        return (special,)
    return (f"{stem}_op_{op}.sum",)


def instruction_metric(case: dict, have: list[str]) -> str | None:
    op = case["direction"]
    if "matrix" in case["linlayout_instruction"]:
        name = f"smsp__inst_executed_op_{op}sm.sum"
    else:
        name = f"smsp__sass_inst_executed_op_shared_{op}.sum"
    return name if name in have else None


def ncu_result(case: dict, launches: list[dict], metrics: list[str], iters: int) -> dict:
    """One case's measurement from its three launches (0, N, 2N iterations)."""
    if len(launches) != 3:
        return {"error": f"expected 3 profiled launches, found {len(launches)}"}
    raw = {m: [r.get(m) for r in launches] for m in metrics}

    def per_iter(names: tuple[str, ...] | str | None) -> tuple[float | None, bool]:
        """(value(N) − value(0)) / N summed over ``names``, and whether 2N adds as much."""
        if names is None:
            return None, True
        names = (names,) if isinstance(names, str) else names
        if any(raw[n][k] is None for n in names for k in range(3)):
            return None, False
        vals = [sum(raw[n][k] for n in names) for k in range(3)]
        d1, d2 = vals[1] - vals[0], vals[2] - vals[1]
        return d1 / iters, d1 == d2

    w = case["warps"]
    ni = case["instructions_per_warp"]
    wm = wave_metric(case, metrics)
    block, linear = per_iter(wm)
    if block is None:
        return {"error": f"metric {wm} missing from the report", "raw": raw}
    conf, _ = per_iter(conflict_metric(case, metrics))
    im = instruction_metric(case, metrics)
    instr, _ = per_iter(im)
    return {
        "method": "ncu",
        "metric": "+".join(wm),
        "measured_wavefronts_per_block": block,
        "measured_wavefronts_per_warp": block / w,
        "measured_wavefronts": block / (w * ni),
        "measured_degree": block / (w * ni * case["phases"]),
        "measured_bank_conflicts": None if conf is None else conf / (w * ni),
        "measured_instructions_per_warp": None if instr is None else instr / w,
        "instructions_metric": im,
        "linear": linear,
        "raw": raw,
    }


SKIPPED = "skipped: the time budget (--budget) ran out"


def measure_ncu(ncu: str, binary: str, cases: list[dict], iters: int, chunk: int,
                timeout: float, workdir: Path, deadline: float = float("inf"),
                on_chunk=None, raw_csv: Path | None = None) -> tuple[dict, list[str], str]:
    """Profile every case, ``chunk`` cases per ncu process; returns ({case: result}, metrics,
    log). No chunk starts after ``deadline`` (``time.time()``): its cases get :data:`SKIPPED`.
    ``on_chunk(results, metrics)`` is called after each chunk (to save partial results);
    ``raw_csv``, when given, receives every chunk's CSV as ncu printed it (appended)."""
    metrics = choose_metrics(available_metrics(ncu))
    results: dict[str, dict] = {}
    logs = []
    for start in range(0, len(cases), chunk):
        part = cases[start:start + chunk]
        if time.time() > deadline:
            for c in part:
                results[c["case"]] = {"error": SKIPPED}
            continue
        rows, log, text = profile_chunk(ncu, binary, metrics, iters, [c["case"] for c in part],
                                        workdir / f"chunk{start}", timeout)
        logs.append(log)
        if raw_csv is not None:
            with raw_csv.open("a", encoding="utf-8") as fh:
                fh.write(f"# chunk {start}: {' '.join(c['case'] for c in part)}\n{text}\n")
        by_kernel: dict[str, list[dict]] = {}
        for r in rows:
            by_kernel.setdefault(r["kernel"], []).append(r)
        for c in part:
            launches = by_kernel.get(c["kernel"], [])
            if not rows:
                results[c["case"]] = {"error": "ncu produced no report: " + log[-500:]}
            else:
                results[c["case"]] = ncu_result(c, launches, metrics, iters)
        print(f"ncu: {min(start + chunk, len(cases))}/{len(cases)} cases", flush=True)
        if on_chunk is not None:
            on_chunk(results, metrics)
    return results, metrics, "\n".join(logs)


# -- clock64 -----------------------------------------------------------------------------------

def measure_clock(binary: str, cases: list[dict], iters: int, repeats: int,
                  timeout: float) -> dict:
    """The clock64() fallback (module docstring)."""
    names = [c["case"] for c in cases]
    for cal in CALIBRATION:
        if cal not in names:
            names.append(cal)
    try:
        p = run([binary, "timing", str(iters), str(repeats), *names], timeout)
    except subprocess.TimeoutExpired:
        return {c["case"]: {"error": f"hwcases timing did not finish in {timeout} s"}
                for c in cases}
    if p.returncode:
        return {c["case"]: {"error": f"hwcases timing exited {p.returncode}: {p.stderr[-500:]}"}
                for c in cases}
    cyc = {}
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            cyc[d["case"]] = (d["cycles_2n"] - d["cycles_n"]) / d["iters"]
    try:
        c1, c32 = (cyc[n] for n in CALIBRATION)
    except KeyError:
        return {c["case"]: {"error": "calibration cases missing"} for c in cases}
    b = (c32 - c1) / (CALIBRATION["stride32-32bit-ld"] - CALIBRATION["width-32bit-ld"])
    a = c1 - b * CALIBRATION["width-32bit-ld"]
    out = {}
    for c in cases:
        if c["case"] not in cyc or b <= 0:
            out[c["case"]] = {"error": "no timing" if b > 0 else "calibration not increasing"}
            continue
        w, ni = c["warps"], c["instructions_per_warp"]
        per_instr = (cyc[c["case"]] / ni - a) / (b * w)
        out[c["case"]] = {
            "method": "clock64",
            "cycles_per_iteration": cyc[c["case"]],
            "calibration": {"a": a, "b": b},
            "measured_wavefronts": per_instr,
            "measured_wavefronts_per_warp": per_instr * ni,
            "measured_wavefronts_per_block": per_instr * ni * w,
            "measured_degree": per_instr / c["phases"],
            "measured_bank_conflicts": None,
            "measured_instructions_per_warp": None,
            "linear": None,
        }
    return out


# -- main --------------------------------------------------------------------------------------

COPIED = ("case", "category", "instruction", "element_bits", "warps", "instructions_per_warp",
          "phases", "predicted_wavefronts", "predicted_wavefronts_per_warp",
          "predicted_wavefronts_per_block", "predicted_degree", "prediction_source")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=str(HERE / "build" / "hwcases"))
    ap.add_argument("--cases", type=Path, default=HERE / "cases.json")
    ap.add_argument("--out", type=Path, default=HERE / "measurements.json")
    ap.add_argument("--method", choices=("auto", "ncu", "clock64"), default="auto")
    ap.add_argument("--ncu", default=None, help="path to ncu (default: PATH, then usual folders)")
    ap.add_argument("--iters", type=int, default=8, help="loop iterations N for ncu (0, N, 2N)")
    ap.add_argument("--timing-iters", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=40, help="cases per ncu process")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per ncu/timing process")
    ap.add_argument("--budget", type=float, default=420,
                    help="seconds after which no further ncu chunk starts (the device tool stops "
                         "a command at 600 s); measurements.json is rewritten after every chunk")
    ap.add_argument("--only", nargs="*", default=None, help="case names to run (default: all)")
    ap.add_argument("--sass", type=Path, default=None, help="check_sass.py's JSON, to attach")
    ap.add_argument("--raw-csv", type=Path, default=None,
                    help="also write ncu's raw CSV of every chunk to this file")
    args = ap.parse_args(argv)

    doc = json.loads(args.cases.read_text(encoding="utf-8"))
    cases = [c for c in doc["cases"] if args.only is None or c["case"] in args.only]
    started = time.time()
    info = device_info()
    ncu = find_ncu(args.ncu) if args.method != "clock64" else None
    results: dict[str, dict] = {}
    metrics: list[str] = []
    notes: list[str] = []
    sass = json.loads(args.sass.read_text(encoding="utf-8")) if args.sass and args.sass.is_file() \
        else {}

    def write(results: dict[str, dict], metrics: list[str]) -> list[dict]:
        out_cases = []
        for c in cases:
            entry = {k: c[k] for k in COPIED}
            entry.update(results.get(c["case"], {"error": "not measured"}))
            if c["case"] in sass:
                entry["sass"] = sass[c["case"]]
            out_cases.append(entry)
        out = {**info, "iters": args.iters, "metrics": metrics, "notes": notes,
               "seconds": round(time.time() - started, 1),
               "host": os.uname().nodename, "cases": out_cases}
        args.out.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
        return out_cases

    if ncu:
        ver = run([ncu, "--version"], 60).stdout.strip().splitlines()
        info["ncu"] = ver[-1] if ver else "unknown"
        with tempfile.TemporaryDirectory() as tmp:
            results, metrics, _ = measure_ncu(ncu, args.binary, cases, args.iters, args.chunk,
                                                args.timeout, Path(tmp),
                                                started + args.budget, write, args.raw_csv)
        errs = {c["case"]: results.get(c["case"], {}).get("error") for c in cases}
        failed = [c for c in cases if errs[c["case"]] not in (None, SKIPPED)]
        skipped = [c for c in cases if errs[c["case"]] == SKIPPED]
        if failed:
            notes.append(f"ncu failed on {len(failed)} case(s)")
        if skipped:
            notes.append(f"{len(skipped)} case(s) skipped: time budget")
    else:
        notes.append("no ncu found" if args.method != "clock64" else "clock64 requested")
        failed = cases
    if failed and args.method != "ncu":
        print(f"clock64 fallback for {len(failed)} case(s)", flush=True)
        timed = measure_clock(args.binary, failed, args.timing_iters, args.repeats, args.timeout)
        for c in failed:
            prev = results.get(c["case"])
            results[c["case"]] = timed[c["case"]]
            if prev and "error" in prev:
                results[c["case"]]["ncu_error"] = prev["error"][:500]
    out_cases = write(results, metrics)
    errors = sum(1 for e in out_cases if "error" in e)
    print(f"wrote {args.out}: {len(out_cases)} cases, {errors} without a measurement, "
          f"{round(time.time() - started, 1)} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
