"""papers/hardware/triton without Triton or a GPU: the committed cases, run.py, compare.py.

``cases.json`` and the cubins are checked for consistency; ``run.py`` runs its dry run, its
launches against a stand-in ``libcuda.so.1`` (built with the host C compiler; skipped without
one) and its ``measure`` against a stand-in ``ncu`` script; ``compare.py`` against synthetic
measurements.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TT = ROOT / "papers" / "hardware" / "triton"
DOC = json.loads((TT / "cases.json").read_text(encoding="utf-8"))
CASES = DOC["cases"]
W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"


def run_script(name: str, *args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, str(TT / name), *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT, env=env, check=False)


# -- the committed cases ---------------------------------------------------------------------

def test_cases_are_consistent():
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names)) and len(names) >= 15
    # a PTX spelling check does not predict is a problem (the case is flagged, not judged);
    # the SASS, what runs, must still hold check's instructions
    mismatched = {c["name"] for c in CASES if c["ptx_mismatch"]}
    assert len(DOC["problems"]) == len(mismatched) <= 1
    assert all(c["sass_matches_check"] for c in CASES if c["name"] in mismatched)
    usable = [c for c in CASES if c["usable"]]
    assert len(usable) >= 15
    assert {c["num_warps"] for c in usable} >= {1, 2, 4, 8}
    for c in CASES:
        cubin = (TT / c["cubin"]).read_bytes()
        assert cubin[:4] == b"\x7fELF" and c["kernel"].encode() in cubin, c["name"]
        assert (TT / c["ttgir"]).is_file()
        assert c["grid"] == [1, 1, 1] and c["threads"] == 32 * c["num_warps"]
        roles = [p["role"] for p in c["params"]]
        assert roles[-2:] == ["global_scratch", "profile_scratch"], c["name"]
        assert set(roles[:-2]) == {"tensor"}
        assert all(p["ptx_type"] == "u64" for p in c["params"])
        p = c["predicted"]
        for side in ("load", "store"):
            ins = [e for e in p["instructions"] if e["side"] == side]
            if c["usable"]:
                assert all(1 <= e["warps"] <= c["num_warps"] for e in ins)
                assert p[f"wavefronts_{side}"] == sum(e["wavefronts_per_warp"] * e["warps"]
                                                      for e in ins)
                assert p[f"instructions_{side}"] == sum(e["per_thread"] * e["warps"]
                                                        for e in ins)
        assert p["wavefronts_total"] == p["wavefronts_load"] + p["wavefronts_store"]
        assert c["usable"] == (p["complete"] and c["ptx_matches_check"]
                               and c["sass_matches_check"] is not False)
        if c["usable"]:
            assert not c["flags"]
    # a random draw may give a kernel without shared memory (tr12: a one-warp sum)
    assert sum(c["predicted"]["wavefronts_total"] > 0 for c in usable) >= 15


def test_cases_hold_this_checkouts_prediction():
    """cases.json was predicted by the check in this checkout (generate.py --repredict)."""
    from linlayout.check.analysis import check_module
    from linlayout.check.render import op_dict
    from linlayout.triton.ttgir import read_ttgir

    for c in CASES:
        report = check_module(read_ttgir(TT / c["ttgir"]), suggest=False)
        got = {"load": 0, "store": 0}
        for r in report.ops:
            for i in op_dict(r)["instructions"]:
                if i.get("space") != "shared" or i["wavefronts_per_warp"] is None:
                    continue
                side = "load" if i["ptx"].startswith(("ld.shared", "ldmatrix")) else "store"
                got[side] += i["wavefronts_per_warp"] * i.get("warps_executing", c["num_warps"])
        if c["predicted"]["complete"]:
            assert (got["load"], got["store"]) == (c["predicted"]["wavefronts_load"],
                                                   c["predicted"]["wavefronts_store"]), c["name"]


def test_the_h100_measurements_agree_or_are_explained():
    """The committed H100 measurements (triton_measurements.json) against cases.json: every
    judged kernel agrees or is explained with evidence (compare.py's exit status 0)."""
    proc = run_script("compare.py")
    assert proc.returncode == 0, proc.stdout
    assert " 0 disagree, 0 missing" in proc.stdout and "H100" in proc.stdout
    explained = [ln for ln in proc.stdout.splitlines() if "| explained (" in ln]
    assert len(explained) <= 3


# -- run.py ----------------------------------------------------------------------------------

def test_run_dry_run_and_bad_names():
    proc = run_script("run.py", "launch", "--dry-run", "all")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == len(CASES)
    dot = next(c for c in CASES if c["name"] == "tk_dot_f16_w1")
    line = next(ln for ln in lines if ln.startswith("tk_dot_f16_w1:"))
    assert f"<<<(1,1,1), (32,1,1), {dot['shared_bytes']}>>>" in line
    assert line.count("NULL") == 2 and line.count("[1048576 B]") == 3
    bad = run_script("run.py", "launch", "--dry-run", "no_such_kernel")
    assert bad.returncode != 0 and "unknown kernel" in bad.stderr


FAKE_LIBCUDA = r"""
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
static FILE *out(void) { static FILE *f; if (!f) f = fopen(getenv("FAKE_CUDA_LOG"), "a"); return f; }
static uint64_t next = 0x7f0000000000ull;
int cuInit(unsigned x) { return 0; }
int cuDeviceGet(int *d, int o) { *d = o; return 0; }
int cuDevicePrimaryCtxRetain(void **c, int d) { *c = (void *)0x1; return 0; }
int cuCtxSetCurrent(void *c) { return 0; }
int cuGetErrorString(int rc, const char **s) { *s = "fake"; return 0; }
int cuModuleLoadData(void **m, const unsigned char *b) {
  fprintf(out(), "load %c%c%c\n", b[1], b[2], b[3]); *m = (void *)0x2; return 0; }
int cuModuleGetFunction(void **f, void *m, const char *n) {
  fprintf(out(), "function %s\n", n); *f = (void *)0x3; return 0; }
int cuFuncSetAttribute(void *f, int a, int v) { fprintf(out(), "attr %d %d\n", a, v); return 0; }
int cuMemAlloc_v2(uint64_t *p, size_t n) { *p = next; next += n; return 0; }
int cuMemcpyHtoD_v2(uint64_t p, const void *s, size_t n) { return 0; }
int cuMemFree_v2(uint64_t p) { return 0; }
int cuCtxSynchronize(void) { return 0; }
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned sh, void *st, void **params, void **extra) {
  int n = atoi(getenv("FAKE_NPARAMS"));
  fprintf(out(), "launch %u %u %u %u %u %u %u", gx, gy, gz, bx, by, bz, sh);
  for (int i = 0; i < n; i++) fprintf(out(), " %llx", (unsigned long long)*(uint64_t *)params[i]);
  fprintf(out(), "\n"); return 0; }
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no host C compiler")
def test_run_launch_marshals_parameters(tmp_path):
    (tmp_path / "fake.c").write_text(FAKE_LIBCUDA, encoding="utf-8")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / "libcuda.so.1"),
                    str(tmp_path / "fake.c")], check=True, capture_output=True, timeout=120)
    for name in ("tk_dot_f16_w1", "tg_smem_padded_f32_w4"):
        case = next(c for c in CASES if c["name"] == name)
        log = tmp_path / f"{name}.log"
        proc = run_script("run.py", "launch", name, env_extra={
            "LD_LIBRARY_PATH": str(tmp_path), "FAKE_CUDA_LOG": str(log),
            "FAKE_NPARAMS": str(len(case["params"]))})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert json.loads(proc.stdout.splitlines()[-1]) == {"launched": name,
                                                            "kernel": case["kernel"]}
        lines = log.read_text().splitlines()
        assert lines[0] == "load ELF" and lines[1] == f"function {case['kernel']}"
        words = lines[-1].split()
        assert words[:8] == ["launch", "1", "1", "1", str(case["threads"]), "1", "1",
                             str(case["shared_bytes"])]
        ptrs = words[8:]
        assert len(ptrs) == len(case["params"])
        assert ptrs[-2:] == ["0", "0"]  # no scratch: null pointers, as Triton's launcher
        assert len(set(ptrs[:-2])) == len(ptrs) - 2 and "0" not in ptrs[:-2]


FAKE_NCU = r'''
import json, os, sys
args = sys.argv[1:]
cases = {c["name"]: c for c in json.load(open(os.environ["FAKE_CASES"]))["cases"]}
skew = json.loads(os.environ.get("FAKE_SKEW", "{}"))
if "--version" in args:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion fake"); sys.exit(0)
if "--query-metrics" in args:
    for m in ("l1tex__data_pipe_lsu_wavefronts_mem_shared", "smsp__inst_executed_op_ldsm",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm",
              "smsp__sass_inst_executed_op_shared_ld"):
        print(f"{m}    some description")
    sys.exit(0)
if "--import" in args:
    rep = json.load(open(args[args.index("--import") + 1]))
    metrics = rep["metrics"]
    print("==PROF== reading")
    print('"ID","Process ID","Kernel Name",' + ",".join(f'"{m}"' for m in metrics))
    print('"","","",' + ",".join('""' for _ in metrics))
    for i, row in enumerate(rep["rows"]):
        print(f'"{i}","1","{row["kernel"]}",' + ",".join(f'"{row[m]:,.0f}"' for m in metrics))
    sys.exit(0)
metrics = args[args.index("--metrics") + 1].split(",")
report = args[args.index("--export") + 1] + ".ncu-rep"
rows = []
W = "l1tex__data_pipe_lsu_wavefronts_mem_shared"
for name in args[args.index("launch") + 1:]:
    c = cases[name]
    p = c["predicted"]
    ldsm = sum(e["wavefronts_per_warp"] or 0 for e in p["instructions"]
               if e["ptx"].startswith("ldmatrix")) * c["num_warps"]
    stsm = sum(e["wavefronts_per_warp"] or 0 for e in p["instructions"]
               if e["ptx"].startswith("stmatrix")) * c["num_warps"]
    ld = p["wavefronts_load"] - ldsm + skew.get(name, 0)
    st = p["wavefronts_store"] - stsm
    row = {m: 0.0 for m in metrics}
    row.update({"kernel": c["kernel"], W + "_op_ld.sum": ld, W + "_op_st.sum": st})
    for m, v in ((W + ".sum", ld + st + ldsm + stsm), (W + "_op_ldsm.sum", ldsm),
                 (W + "_op_stsm.sum", stsm)):
        if m in row:
            row[m] = v
    rows.append(row)
json.dump({"metrics": metrics, "rows": rows}, open(report, "w"))
'''


def fake_ncu(tmp_path: Path) -> Path:
    script = tmp_path / "ncu"
    script.write_text(f"#!{sys.executable}\n" + FAKE_NCU, encoding="utf-8")
    script.chmod(0o755)
    return script


def test_measure_and_compare_with_a_stand_in_ncu(tmp_path):
    ncu = fake_ncu(tmp_path)
    out = tmp_path / "m.json"
    env = {"FAKE_CASES": str(TT / "cases.json"),
           "FAKE_SKEW": json.dumps({"tk_trans_f32_w4": 8})}
    proc = run_script("run.py", "measure", "--out", str(out), "--ncu", str(ncu),
                      env_extra=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())
    assert doc["profiled_launches"] == len(CASES)
    assert f"{W}.sum" in doc["metrics"] and f"{W}_op_ldsm.sum" in doc["metrics"]
    assert "smsp__sass_inst_executed_op_shared_st.sum" not in doc["metrics"]  # not listed
    assert all("metrics" in k for k in doc["kernels"])
    assert Path(str(out) + ".csv").read_text().count("\n") == len(CASES) + 3
    cmp_ = run_script("compare.py", "--measurements", str(out))
    assert cmp_.returncode == 1
    bad = [ln for ln in cmp_.stdout.splitlines() if "DISAGREE" in ln]
    assert len(bad) == 1 and bad[0].startswith("tk_trans_f32_w4 ")
    assert "264 wavefronts, predicted 256" in bad[0]
    flagged = sum(not c["usable"] for c in CASES)
    assert f"{len(CASES) - flagged - 1} of {len(CASES) - flagged} kernels agree" in cmp_.stdout


def test_measure_named_kernels_only(tmp_path):
    out = tmp_path / "m.json"
    proc = run_script("run.py", "measure", "--out", str(out), "--ncu", str(fake_ncu(tmp_path)),
                      "tk_dot_i8_w1", "tg_convert3_bf16_w1",
                      env_extra={"FAKE_CASES": str(TT / "cases.json")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())
    assert [k["name"] for k in doc["kernels"]] == ["tk_dot_i8_w1", "tg_convert3_bf16_w1"]


def synthetic(tmp_path: Path, drop: str | None = None, split_off: str | None = None,
              loads: dict | None = None) -> Path:
    kernels = []
    for c in CASES:
        if c["name"] == drop:
            continue
        p = c["predicted"]
        ld, st = p["wavefronts_load"], p["wavefronts_store"]
        if c["name"] == split_off:
            ld, st = ld + 4, st - 4
        ld = (loads or {}).get(c["name"], ld)
        kernels.append({"name": c["name"], "kernel": c["kernel"], "num_warps": c["num_warps"],
                        "metrics": {f"{W}_op_ld.sum": ld, f"{W}_op_st.sum": st,
                                    f"{W}.sum": ld + st}})
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"device": "fake", "ncu": "fake", "kernels": kernels}))
    return path


def test_compare_on_synthetic_measurements(tmp_path):
    ok = run_script("compare.py", "--measurements", str(synthetic(tmp_path)))
    assert " 0 explained, " in ok.stdout
    assert ok.returncode == 0, ok.stdout
    assert "DISAGREE" not in ok.stdout and "flagged" in ok.stdout
    split = run_script("compare.py", "--measurements",
                       str(synthetic(tmp_path, split_off="tg_convert0_f32_w4")))
    assert split.returncode == 1 and "loads/stores" in split.stdout
    missing = run_script("compare.py", "--measurements",
                         str(synthetic(tmp_path, drop="tk_dot_f16_w1")))
    assert missing.returncode == 1 and "MISSING" in missing.stdout
    (tmp_path / "junk.json").write_text("[1, 2")
    assert run_script("compare.py", "--measurements", str(tmp_path / "junk.json")).returncode == 2


def test_compare_writes_the_readme_section(tmp_path):
    readme = tmp_path / "README.md"
    text = (ROOT / "papers" / "hardware" / "README.md").read_text(encoding="utf-8")
    assert "<!-- triton:begin -->" in text and "<!-- triton:end -->" in text
    readme.write_text(text, encoding="utf-8")
    proc = run_script("compare.py", "--measurements", str(synthetic(tmp_path)),
                      "--write-readme", "--readme", str(readme))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    new = readme.read_text(encoding="utf-8")
    section = new.split("<!-- triton:begin -->")[1].split("<!-- triton:end -->")[0]
    assert "kernels agree" in section and "tk_dot_f16_w1" in section
    assert new.split("<!-- triton:begin -->")[0] == text.split("<!-- triton:begin -->")[0]


def test_compare_explains_only_with_evidence(tmp_path):
    """A measured total other than the prediction is explained by check's may_sink outcome
    or by per-instruction counters summing to the prediction; anything else disagrees."""
    sinkb6 = next(c for c in CASES if c["name"] == "tg_sinkb6_cvt_f32_w8")["predicted"]
    dot = next(c for c in CASES if c["name"] == "tk_dot_bf16_w2")["predicted"]
    trans = next(c for c in CASES if c["name"] == "tk_trans_f16_w4")["predicted"]
    path = synthetic(tmp_path, loads={
        "tg_sinkb6_cvt_f32_w8": sinkb6["if_loads_sink"]["wavefronts_load"],
        "tk_dot_bf16_w2": dot["wavefronts_load"] + 2})
    proc = run_script("compare.py", "--measurements", str(path))
    assert proc.returncode == 0, proc.stdout
    lines = {ln.split()[0]: ln for ln in proc.stdout.splitlines() if "|" in ln}
    assert "may_sink" in lines["tg_sinkb6_cvt_f32_w8"]
    assert "+2 pipe wavefronts on no instruction" in lines["tk_dot_bf16_w2"]
    other = synthetic(tmp_path, loads={"tk_trans_f16_w4": trans["wavefronts_load"] + 2,
                                       "tg_sinkb6_cvt_f32_w8": sinkb6["wavefronts_load"] - 1})
    bad = run_script("compare.py", "--measurements", str(other))
    assert bad.returncode == 1 and bad.stdout.count("DISAGREE") == 2
    (tmp_path / "b").mkdir()
    path = synthetic(tmp_path / "b", loads={"tk_dot_bf16_w2": dot["wavefronts_load"] + 2})
    none = run_script("compare.py", "--measurements", str(path), "--source-counters",
                      str(tmp_path / "absent.json"))
    lines = {ln.split()[0]: ln for ln in none.stdout.splitlines() if "|" in ln}
    assert none.returncode == 1 and "DISAGREE" in lines["tk_dot_bf16_w2"]
