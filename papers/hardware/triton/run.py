"""Launch the Triton-compiled cubins of ``cases.json`` on the GPU, and count them with ncu.

Runs with the GPU machine's plain ``python3``: standard library only, the CUDA driver API
through ``ctypes`` (``libcuda.so.1``: ``cuInit``, ``cuDevicePrimaryCtxRetain``,
``cuModuleLoadData``, ``cuModuleGetFunction``, ``cuFuncSetAttribute``, ``cuMemAlloc``,
``cuMemcpyHtoD``, ``cuLaunchKernel``, ``cuCtxSynchronize`` — CUDA Driver API reference). No
Triton, no linlayout.

Each kernel is launched once, grid (1, 1, 1), block (32 · num_warps, 1, 1), dynamic shared
memory = ``shared_bytes`` (Triton's ``metadata.shared``; above 48 KiB the function's
``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`` is raised first, as Triton's launcher
does). Its arguments follow the PTX ``.entry`` list recorded by ``generate.py``: one
device buffer of :data:`BUFFER_BYTES` (small random values of its element type) per tensor
pointer, then ``global_scratch`` and ``profile_scratch`` — a buffer of the recorded size, or a
null pointer when the size is 0, as ``CudaLauncher.__call__`` (``triton/backends/nvidia/
driver.py``) passes them.

Usage::

    python3 run.py launch [--dry-run] [NAME ... | all]   # launch the named kernels, in order
    python3 run.py measure --out FILE [--budget 110] [NAME ...]  # one ncu process

``measure`` runs ``ncu --clock-control none --metrics <list> --export R python3 run.py launch
all`` (the metric list: those of :data:`METRICS` that ``ncu --query-metrics`` lists; the four
``l1tex`` ones the hardware directory always asks for are kept regardless; if that run leaves
no report, once more with those four only), reads the report
back with ``ncu --import R --csv --page raw``, matches the profiled kernels to the cases in
launch order, and writes FILE (JSON) and FILE's ``.csv`` (the raw CSV).
"""

from __future__ import annotations

import argparse
import ctypes
import json
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUFFER_BYTES = 1 << 20
FIXED = (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
)
METRICS = FIXED + (
    "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",
    "smsp__sass_inst_executed_op_shared_ld.sum",
    "smsp__sass_inst_executed_op_shared_st.sum",
    "smsp__inst_executed_op_ldsm.sum",
    "smsp__inst_executed_op_stsm.sum",
)
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8


def load_cases(path: Path = HERE / "cases.json") -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cases"]


def select(cases: list[dict], names: list[str]) -> list[dict]:
    """The cases to launch: ``all`` (or nothing) = every case, in file order (those
    ``generate.py`` flagged as not usable too: they are measured for the record, and
    ``compare.py`` does not judge them); else the named ones in the order given. Raises
    ``SystemExit`` on an unknown name."""
    if not names or names == ["all"]:
        return list(cases)
    by = {c["name"]: c for c in cases}
    bad = [n for n in names if n not in by]
    if bad:
        raise SystemExit(f"run.py: unknown kernel(s): {', '.join(bad)} (see cases.json)")
    return [by[n] for n in names]


# -- inputs ------------------------------------------------------------------------------------

def fill_bytes(dtype: str, nbytes: int, seed: int) -> bytes:
    """``nbytes`` of small random values of ``dtype`` (fp32, fp16, bf16, i8, i32, …)."""
    rng = random.Random(seed)
    if dtype in ("fp32", "f32"):
        n = nbytes // 4
        return struct.pack(f"<{n}f", *(rng.random() for _ in range(n)))
    if dtype in ("fp16", "f16"):
        n = nbytes // 2
        return struct.pack(f"<{n}e", *(rng.random() for _ in range(n)))
    if dtype == "bf16":
        n = nbytes // 2
        words = struct.unpack(f"<{n}I", struct.pack(f"<{n}f", *(rng.random() for _ in range(n))))
        return struct.pack(f"<{n}H", *(w >> 16 for w in words))
    if dtype in ("i32", "u32"):
        n = nbytes // 4
        return struct.pack(f"<{n}i", *(rng.randrange(0, 8) for _ in range(n)))
    if dtype in ("i8", "u8"):
        return bytes(rng.randrange(0, 8) for _ in range(nbytes))
    return bytes(nbytes)


def plan(case: dict) -> list[dict]:
    """The argument list of one launch: per ``.entry`` parameter, what to pass.

    Each item: ``{"name", "ptx_type", "kind": "buffer"|"null", "bytes", "dtype"}``. Raises
    ``ValueError`` for a parameter that is not a 64-bit pointer (the kernels take none)."""
    out = []
    for p in case["params"]:
        if p["ptx_type"] not in ("u64", "b64", "s64"):
            raise ValueError(f"{case['name']}: parameter {p['name']} is .{p['ptx_type']}, "
                             "run.py passes only pointers")
        if p["role"] == "tensor":
            out.append({"name": p["name"], "ptx_type": p["ptx_type"], "kind": "buffer",
                        "bytes": BUFFER_BYTES, "dtype": p["dtype"]})
        elif p.get("scratch_bytes", 0) > 0:
            out.append({"name": p["name"], "ptx_type": p["ptx_type"], "kind": "buffer",
                        "bytes": -(-p["scratch_bytes"] // 256) * 256, "dtype": "zero"})
        else:
            out.append({"name": p["name"], "ptx_type": p["ptx_type"], "kind": "null",
                        "bytes": 0, "dtype": None})
    return out


def describe(case: dict) -> str:
    args = ", ".join(f"{a['name']}={'NULL' if a['kind'] == 'null' else a['dtype'] + '[' + str(a['bytes']) + ' B]'}"
                     for a in plan(case))
    return (f"{case['name']}: {case['kernel']}<<<(1,1,1), ({case['threads']},1,1), "
            f"{case['shared_bytes']}>>>({args})  cubin {case['cubin']}")


# -- CUDA driver -------------------------------------------------------------------------------

class Driver:
    """The few CUDA driver calls needed, through ctypes (raises RuntimeError on a CUDA error)."""

    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.call("cuInit", 0)
        dev = ctypes.c_int()
        self.call("cuDeviceGet", ctypes.byref(dev), 0)
        self.ctx = ctypes.c_void_p()
        self.call("cuDevicePrimaryCtxRetain", ctypes.byref(self.ctx), dev)
        self.call("cuCtxSetCurrent", self.ctx)

    def call(self, name: str, *args) -> None:
        rc = getattr(self.cu, name)(*args)
        if rc:
            msg = ctypes.c_char_p()
            self.cu.cuGetErrorString(rc, ctypes.byref(msg))
            raise RuntimeError(f"{name} failed: {rc} {msg.value.decode() if msg.value else ''}")

    def alloc(self, data: bytes) -> int:
        ptr = ctypes.c_uint64()
        self.call("cuMemAlloc_v2", ctypes.byref(ptr), ctypes.c_size_t(len(data)))
        self.call("cuMemcpyHtoD_v2", ptr, data, ctypes.c_size_t(len(data)))
        return ptr.value

    def free(self, ptr: int) -> None:
        self.call("cuMemFree_v2", ctypes.c_uint64(ptr))

    def load(self, cubin: bytes, kernel: str):
        mod = ctypes.c_void_p()
        self.call("cuModuleLoadData", ctypes.byref(mod), cubin)
        fn = ctypes.c_void_p()
        self.call("cuModuleGetFunction", ctypes.byref(fn), mod, kernel.encode())
        return mod, fn

    def launch(self, fn, threads: int, shared: int, args: list[int]) -> None:
        if shared > 48 * 1024:
            self.call("cuFuncSetAttribute", fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                      ctypes.c_int(shared))
        vals = [ctypes.c_uint64(a) for a in args]
        params = (ctypes.c_void_p * len(vals))(*[ctypes.addressof(v) for v in vals])
        self.call("cuLaunchKernel", fn, 1, 1, 1, threads, 1, 1, ctypes.c_uint(shared), None,
                  params, None)
        self.call("cuCtxSynchronize")


def launch(cases: list[dict], dry_run: bool = False) -> int:
    """Launch each case once, in order; one JSON line per launch on stdout. Returns the number
    of launches that failed."""
    drv = None if dry_run else Driver()
    failed = 0
    seed = 0
    for case in cases:
        if dry_run:
            print(describe(case), flush=True)
            continue
        ptrs = []
        try:
            mod, fn = drv.load((HERE / case["cubin"]).read_bytes(), case["kernel"])
            args = []
            for a in plan(case):
                if a["kind"] == "null":
                    args.append(0)
                    continue
                seed += 1
                ptrs.append(drv.alloc(fill_bytes(a["dtype"], a["bytes"], seed)))
                args.append(ptrs[-1])
            drv.launch(fn, case["threads"], case["shared_bytes"], args)
            print(json.dumps({"launched": case["name"], "kernel": case["kernel"]}), flush=True)
        except (RuntimeError, OSError, ValueError) as e:
            failed += 1
            print(json.dumps({"failed": case["name"], "error": str(e)}), flush=True)
        finally:
            for p in ptrs:
                try:
                    drv.free(p)
                except RuntimeError:
                    pass
    return failed


# -- ncu ---------------------------------------------------------------------------------------

def find_ncu() -> str | None:
    hit = shutil.which("ncu")
    if hit:
        return hit
    import glob
    for pattern in ("/usr/local/cuda*/bin/ncu", "/opt/nvidia/nsight-compute/*/ncu",
                    "/usr/local/NVIDIA-Nsight-Compute*/ncu"):
        hits = sorted(glob.glob(pattern))
        if hits:
            return hits[-1]
    return None


def choose_metrics(listed: set[str] | None) -> list[str]:
    """:data:`FIXED` plus those of :data:`METRICS` whose base name ``ncu --query-metrics``
    lists (all of them when the list is unknown)."""
    if listed is None:
        return list(METRICS)
    return [m for m in METRICS if m in FIXED or m.rsplit(".", 1)[0] in listed]


def _runner():
    """papers/hardware/runner.py (standard library only), for its CSV parser."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("hw_runner", HERE.parent / "runner.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def match(cases: list[dict], rows: list[dict], metrics: list[str]) -> list[dict]:
    """Pair the profiled launches (in ID order) with the cases (in launch order)."""
    out = []
    it = iter(rows)
    for c in cases:
        r = next(it, None)
        entry = {"name": c["name"], "kernel": c["kernel"], "num_warps": c["num_warps"]}
        if r is None:
            entry["error"] = "no profiled launch"
        elif r["kernel"] != c["kernel"]:
            entry["error"] = f"launch order mismatch: profiled {r['kernel']}"
        else:
            entry["metrics"] = {m: r.get(m) for m in metrics}
        out.append(entry)
    return out


def measure(out: Path, budget: float, ncu: str | None = None,
            names: list[str] | None = None) -> int:
    """One ncu process over the kernels ``names`` (default all), within ``budget`` seconds;
    writes ``out`` (JSON) and ``out.csv``. Returns 0 when at least one kernel was measured."""
    started = time.time()
    cases = select(load_cases(), names or [])
    ncu = ncu or find_ncu()
    doc = {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "ncu": None,
           "device": None, "metrics": [], "kernels": [], "notes": []}
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=30, check=False)
        doc["device"] = p.stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        pass
    if ncu is None:
        doc["notes"].append("no ncu found")
        out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
        print("run.py: no ncu found", file=sys.stderr)
        return 1
    run = lambda cmd, t: subprocess.run(cmd, capture_output=True, text=True, timeout=t,  # noqa: E731
                                        check=False)
    doc["ncu"] = (run([ncu, "--version"], 30).stdout.strip().splitlines() or ["?"])[-1]
    listed = None
    try:
        q = run([ncu, "--query-metrics"], 60)
        if q.returncode == 0:
            listed = {ln.split()[0] for ln in q.stdout.splitlines()
                      if ln.strip() and "__" in ln.split()[0]} or None
    except subprocess.TimeoutExpired:
        doc["notes"].append("ncu --query-metrics timed out")
    metrics = choose_metrics(listed)
    doc["metrics"] = metrics
    with tempfile.TemporaryDirectory() as tmp:
        rep = Path(tmp) / "r"
        for attempt in (metrics, list(FIXED)):
            left = budget - (time.time() - started)
            if left < 15:
                doc["notes"].append("no time left for ncu")
                break
            doc["metrics"] = metrics = attempt
            cmd = [ncu, "--clock-control", "none", "--metrics", ",".join(metrics), "--export",
                   str(rep), "--force-overwrite", sys.executable, str(HERE / "run.py"),
                   "launch", *[c["name"] for c in cases]]
            try:
                p = run(cmd, left)
                doc["notes"].append(f"ncu exit {p.returncode} with {len(metrics)} metrics")
                doc["launch_log"] = p.stdout[-6000:] + p.stderr[-3000:]
            except subprocess.TimeoutExpired:
                doc["notes"].append(f"ncu did not finish in {left:.0f} s")
            if Path(str(rep) + ".ncu-rep").is_file() or attempt == list(FIXED):
                break  # a report, or nothing simpler to try
        csv_text = ""
        if Path(str(rep) + ".ncu-rep").is_file():
            base = [ncu, "--import", str(rep) + ".ncu-rep", "--csv", "--page", "raw"]
            q = run(base + ["--print-units", "base"], 60)
            if q.returncode:
                q = run(base, 60)
            csv_text = q.stdout
        Path(str(out) + ".csv").write_text(csv_text, encoding="utf-8")
    rows = _runner().parse_raw_csv(csv_text)
    doc["profiled_launches"] = len(rows)
    doc["kernels"] = match(cases, rows, metrics)
    doc["seconds"] = round(time.time() - started, 1)
    out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    ok = sum("metrics" in k for k in doc["kernels"])
    print(f"run.py: {ok}/{len(cases)} kernels measured, {doc['seconds']} s -> {out}")
    if ok < len(cases):
        print("notes: " + "; ".join(doc["notes"]) + "\nncu log (tail):\n"
              + doc.get("launch_log", "")[-2500:])
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    la = sub.add_parser("launch", help="launch the named kernels once each (or all)")
    la.add_argument("names", nargs="*")
    la.add_argument("--dry-run", action="store_true", help="print each launch, touch no GPU")
    me = sub.add_parser("measure", help="one ncu process over every kernel")
    me.add_argument("--out", type=Path, default=HERE / "triton_measurements.json")
    me.add_argument("--budget", type=float, default=110, help="seconds for the whole measure")
    me.add_argument("--ncu", default=None)
    me.add_argument("names", nargs="*", help="kernels to measure (default: all)")
    args = ap.parse_args(argv)
    if args.cmd == "launch":
        cases = select(load_cases(), args.names)
        return 1 if launch(cases, args.dry_run) else 0
    return measure(args.out, args.budget, args.ncu, args.names)


if __name__ == "__main__":
    sys.exit(main())
