"""papers/hardware without a GPU: predictions, generated sources, SASS parsing, runner, compare.

Nothing here needs a GPU, nvcc or ncu: the sources are parsed by a host C++ compiler with
``cuda/stub.h`` (skipped without one), ``runner.py`` runs against a stand-in ``ncu`` script, and
``compare.py`` against synthetic measurements. One test compiles two kernels with nvcc, and
only where nvcc exists.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HW = ROOT / "papers" / "hardware"
sys.path.insert(0, str(HW))

import addresses  # noqa: E402
import check_sass  # noqa: E402
import compare  # noqa: E402
import runner  # noqa: E402

CASES = json.loads((HW / "cases.json").read_text(encoding="utf-8"))["cases"]
BY_NAME = {c["case"]: c for c in CASES}


def run_script(name: str, *args: str, env_extra: dict | None = None) -> subprocess.CompletedProcess:
    import os
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, str(HW / name), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=env, check=False)


# -- the predictions and the generated files ----------------------------------------------------

def test_generated_files_are_current():
    """Regenerating reproduces kernels/ and cases.json byte for byte; on the way every case's
    closed form, simulator and address model agree (predict.py raises otherwise)."""
    proc = run_script("generate.py", "--check")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to date" in proc.stdout


def test_catalogue_covers_every_access_kind():
    assert len(CASES) >= 60
    cats = {c["category"] for c in CASES}
    assert cats >= {"width", "stride", "subword", "broadcast", "warps", "matrix", "article",
                    "tma", "padded", "triton", "random"}
    plain = [c for c in CASES if "matrix" not in c["linlayout_instruction"]]
    assert {c["access_bytes"] for c in plain} == {1, 2, 4, 8, 16}
    assert {c["direction"] for c in plain} == {"ld", "st"}
    matrix = {c["linlayout_instruction"] for c in CASES if "matrix" in c["linlayout_instruction"]}
    assert matrix == {f"{op}matrix.x{n}{t}" for op in ("ld", "st") for n in (1, 2, 4)
                      for t in ("", ".trans")}
    assert {c["warps"] for c in CASES} >= {1, 2, 4, 8}
    article = {c["case"]: c["predicted_wavefronts"] for c in CASES if c["category"] == "article"}
    assert article["article-load-rowmajor"] == 16
    assert article["article-load-xor-m"] == 2
    assert article["article-load-xor-2m"] == 1
    assert all(c["prediction_source"] == ("address-model" if c["category"] == "padded"
                                          else "linlayout") for c in CASES)
    assert len([c for c in CASES if c["category"] == "triton"]) >= 11


def test_padded_plain_cases_agree_with_linlayouts_padded_count():
    """The padded cases are predicted by the address model alone; linlayout's own padded
    count (``PaddedLayout``) gives the same wavefronts for every ``ld/st.shared`` one
    (``ldmatrix``/``stmatrix`` on padding it refuses)."""
    import cases as catalogue
    from linlayout import PaddedLayout, bank_conflicts

    plain = [c for c in catalogue.catalogue()
             if c.category == "padded" and "matrix" not in c.instruction]
    assert len(plain) >= 5
    for c in plain:
        memory = PaddedLayout(c.memory, [c.padding])
        report = bank_conflicts(c.layout, memory, element_bits=c.element_bits,
                                instruction=c.instruction)
        assert report.wavefronts_per_instruction == BY_NAME[c.name]["predicted_wavefronts"], c.name


def test_sources_are_well_formed():
    """Each kernel file: the case's kernel name, a table of warps × instructions × 32 aligned
    addresses inside the buffer, and the PTX instruction the case names."""
    for c in CASES:
        src = (HW / c["source"]).read_text(encoding="utf-8")
        assert 'extern "C" __global__' in src and f"\n{c['kernel']}(" in src
        assert f"constexpr int kWarps = {c['warps']};" in src
        assert f"constexpr int kInstrs = {c['instructions_per_warp']};" in src
        body = src.split("kAddr[kWarps * kInstrs * 32] = {", 1)[1].split("};", 1)[0]
        nums = [int(x) for x in re.findall(r"(?<![w\d])(\d+)(?=,)", re.sub(r"/\*.*?\*/", "", body))]
        assert len(nums) == c["warps"] * c["instructions_per_warp"] * 32, c["case"]
        assert all(0 <= a and a + c["access_bytes"] <= c["smem_bytes"] for a in nums), c["case"]
        assert all(a % c["access_bytes"] == 0 for a in nums), c["case"]
        assert src.count("{") == src.count("}"), c["case"]
    registry = (HW / "kernels" / "registry.cu").read_text(encoding="utf-8")
    assert registry.count("launch_hw_") == 2 * len(CASES)
    common = (HW / "cuda" / "common.cuh").read_text(encoding="utf-8")
    for c in CASES:
        mnemonic = c["instruction"].split(".shared")[0]
        assert mnemonic in common, c["instruction"]


@pytest.mark.skipif(shutil.which("g++") is None, reason="no host C++ compiler")
def test_sources_parse_with_a_host_compiler():
    """g++ -fsyntax-only with cuda/stub.h standing in for the CUDA keywords."""
    files = sorted(str(p) for p in (HW / "kernels").glob("*.cu")) + [str(HW / "cuda/driver.cu")]
    proc = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           "-Wno-unknown-pragmas", "-DHW_STUB", "-x", "c++", *files],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed (not required)")
def test_two_kernels_compile_with_nvcc(tmp_path):
    for name in ("width-128bit-ld", "stmatrix-x4-trans-sw128"):
        proc = subprocess.run(["nvcc", "-O3", "-std=c++17",
                               "-gencode=arch=compute_90a,code=sm_90a", "-c",
                               str(HW / "kernels" / f"{name}.cu"), "-o", str(tmp_path / "k.o")],
                              capture_output=True, text=True, timeout=300, check=False)
        assert proc.returncode == 0, proc.stderr[-3000:]


# -- the address model --------------------------------------------------------------------------

def lanes(f):
    return [[[f(t) for t in range(32)]]]


@pytest.mark.parametrize("table,nbytes,matrices,wavefronts,degree", [
    (lanes(lambda t: 4 * t), 4, 0, 1, 1),                  # consecutive words
    (lanes(lambda t: 128 * t), 4, 0, 32, 32),              # all in bank 0
    (lanes(lambda t: 0), 4, 0, 1, 1),                      # broadcast
    (lanes(lambda t: t), 1, 0, 1, 1),                      # 4 lanes per word
    (lanes(lambda t: 128 * (t % 2) + (t // 2)), 1, 0, 2, 2),  # 2 words in each bank
    (lanes(lambda t: 8 * t), 8, 0, 2, 1),                  # 2 half-warp phases
    (lanes(lambda t: 0), 8, 0, 2, 1),                      # 8-byte broadcast: 2 phases
    (lanes(lambda t: 16 * t), 16, 0, 4, 1),                # 4 quarter-warp phases
    (lanes(lambda t: 32 * t), 16, 0, 8, 2),                # 256 bytes per quarter
    (lanes(lambda t: 128 * (t % 8)), 0, 1, 8, 8),          # ldmatrix.x1, rows 128 B apart
    (lanes(lambda t: 144 * (t % 8)), 0, 1, 1, 1),          # rows 144 B apart (padded)
    (lanes(lambda t: 128 * (t % 8) + 16 * (t // 8)), 0, 4, 32, 8),
])
def test_address_model(table, nbytes, matrices, wavefronts, degree):
    n = addresses.count(table, nbytes, matrices)
    assert n.wavefronts[0][0] == wavefronts and n.degree == degree


def test_address_model_rejects_misaligned():
    with pytest.raises(ValueError):
        addresses.count(lanes(lambda t: 4 * t + 2), 4)


def test_padding():
    assert [addresses.padded(o, 32, 1) for o in (0, 31, 32, 64)] == [0, 31, 33, 66]


# -- check_sass -------------------------------------------------------------------------------

SASS_OK = """
        Function : hw_x
        /*0150*/                   CS2R R4, SR_CLOCKLO ;
        /*0190*/              @!P0 BRA 0x290 ;
        /*0220*/                   IADD3 R2, R0, UR4, RZ ;
        /*0250*/                   LDS.128 R12, [R2+UR5] ;
        /*0280*/              @!P0 BRA 0x220 ;
        /*0290*/                   CS2R R6, SR_CLOCKLO ;
"""
# what ptxas made of a plain ld.shared loop before the loop-variant offset: the loads hoisted
SASS_HOISTED = """
        /*0180*/                   CS2R R2, SR_CLOCKLO ;
        /*01c0*/              @!P0 BRA 0x4d0 ;
        /*0280*/                   LDS R22, [R5+UR4] ;
        /*02a0*/                   LDS R6, [R6+UR4] ;
        /*0420*/                   LOP3.LUT R21, R6, R22, R21, 0x96, !PT ;
        /*04c0*/              @!P0 BRA 0x420 ;
        /*04d0*/                   CS2R R6, SR_CLOCKLO ;
"""


def test_check_sass():
    case = dict(BY_NAME["width-128bit-ld"])
    assert check_sass.expected_opcode(case) == "LDS.128"
    assert check_sass.check_case(case, SASS_OK)["ok"]
    two = dict(case, instructions_per_warp=2, access_bytes=4)
    res = check_sass.check_case(two, SASS_HOISTED)
    assert not res["ok"] and res["outside_loop"] == 2 and res["count"] == 0
    assert check_sass.expected_opcode(BY_NAME["ldmatrix-x1-trans-sw128"]) == "LDSM.16.MT88"
    assert check_sass.expected_opcode(BY_NAME["stmatrix-x2-sw128"]) == "STSM.16.M88.2"
    assert check_sass.expected_opcode(BY_NAME["width-8bit-st"]) == "STS.U8"


# -- runner (against a stand-in ncu) and compare --------------------------------------------------

FAKE_NCU = r'''
import json, os, sys
args = sys.argv[1:]
cases = {c["kernel"]: c for c in json.load(open(os.environ["FAKE_CASES"]))["cases"]}
skew = json.loads(os.environ.get("FAKE_SKEW", "{}"))
if "--version" in args:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\nVersion fake"); sys.exit(0)
if "--query-metrics" in args:
    for m in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm",
              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld",
              "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st",
              "smsp__sass_inst_executed_op_shared_ld", "smsp__sass_inst_executed_op_shared_st"):
        print(f"{m}    some description")
    sys.exit(0)
if "--import" in args:
    launches = json.load(open(args[args.index("--import") + 1]))
    metrics = launches["metrics"]
    print('"ID","Process ID","Kernel Name",' + ",".join(f'"{m}"' for m in metrics))
    print('"","","",' + ",".join('""' for _ in metrics))
    for i, row in enumerate(launches["rows"]):
        print(f'"{i}","1","{row["kernel"]}",' + ",".join(f'"{row[m]:,.0f}"' for m in metrics))
    sys.exit(0)
metrics = args[args.index("--metrics") + 1].split(",")
report = args[args.index("--export") + 1] + ".ncu-rep"
names = args[args.index("profile") + 2:]
iters = int(args[args.index("profile") + 1])
rows = []
for k, c in cases.items():
    if c["case"] not in names:
        continue
    per = c["predicted_wavefronts_per_block"] + skew.get(c["case"], 0)
    for n in (0, iters, 2 * iters):
        row = {"kernel": k}
        for m in metrics:
            row[m] = 0.0
        base = c["smem_bytes"] // 128   # the zero-fill stores
        row["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] += base
        row["smsp__sass_inst_executed_op_shared_st.sum"] += base
        if "matrix" in c["linlayout_instruction"]:
            key = "ldsm" if c["direction"] == "ld" else "st"
        else:
            key = c["direction"]
        row[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{key}.sum"] += n * per
        if "matrix" not in c["linlayout_instruction"]:
            ik = f"smsp__sass_inst_executed_op_shared_{c['direction']}.sum"
            row[ik] += n * c["warps"] * c["instructions_per_warp"]
        extra = c["predicted_wavefronts"] - c["phases"]
        conflicts = n * extra * c["warps"] * c["instructions_per_warp"]
        ck = f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{c['direction']}.sum"
        row[ck] += conflicts
        rows.append(row)
json.dump({"metrics": metrics, "rows": rows}, open(report, "w"))
print("==PROF== done")
'''


def fake_ncu(tmp_path: Path) -> Path:
    script = tmp_path / "ncu"
    script.write_text(f"#!{sys.executable}\n" + FAKE_NCU, encoding="utf-8")
    script.chmod(0o755)
    return script


def test_runner_with_a_stand_in_ncu(tmp_path):
    ncu = fake_ncu(tmp_path)
    only = ["article-load-rowmajor", "ldmatrix-x4-sw128", "stmatrix-x2-trans-rowmajor",
            "warps8-stride4-ld", "triton-10-st", "padded-article-load-32p8"]
    out = tmp_path / "measurements.json"
    env = {"FAKE_CASES": str(HW / "cases.json"),
           "FAKE_SKEW": json.dumps({"triton-10-st": 4})}
    proc = run_script("runner.py", "--ncu", str(ncu), "--binary", "/bin/true", "--out", str(out),
                      "--chunk", "4", "--only", *only, env_extra=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())
    got = {c["case"]: c for c in doc["cases"]}
    assert set(got) == set(only)
    for name in only:
        m, c = got[name], BY_NAME[name]
        assert m["method"] == "ncu" and m["linear"] is True, m
        if name == "triton-10-st":
            continue
        assert m["measured_wavefronts_per_block"] == c["predicted_wavefronts_per_block"]
        assert m["measured_wavefronts"] == c["predicted_wavefronts"]
        assert m["measured_degree"] == c["predicted_degree"]
    assert got["article-load-rowmajor"]["measured_bank_conflicts"] == 15
    assert got["ldmatrix-x4-sw128"]["metric"].endswith("_op_ldsm.sum")
    assert got["article-load-rowmajor"]["measured_instructions_per_warp"] == 16
    assert got["warps8-stride4-ld"]["measured_instructions_per_warp"] == 1
    assert got["ldmatrix-x4-sw128"]["measured_instructions_per_warp"] is None  # no ldsm counter
    # compare: the skewed case disagrees, the others agree
    proc = run_script("compare.py", "--measurements", str(out))
    assert proc.returncode == 1
    assert "DISAGREE" in proc.stdout and "triton-10-st" in proc.stdout


FAKE_HWCASES = r'''
import json, os, sys
cases = {c["case"]: c for c in json.load(open(os.environ["FAKE_CASES"]))["cases"]}
assert sys.argv[1] == "timing"
iters = int(sys.argv[2])
for name in sys.argv[4:]:
    c = cases[name]
    # cycles per iteration: instructions · (a + b · warps · wavefronts), a = 12, b = 2
    per = c["instructions_per_warp"] * (12 + 2 * c["warps"] * c["predicted_wavefronts"])
    print(json.dumps({"case": name, "iters": iters, "cycles_n": 500 + iters * per,
                      "cycles_2n": 500 + 2 * iters * per}))
'''


def test_runner_clock64_fallback(tmp_path):
    binary = tmp_path / "hwcases"
    binary.write_text(f"#!{sys.executable}\n" + FAKE_HWCASES, encoding="utf-8")
    binary.chmod(0o755)
    out = tmp_path / "measurements.json"
    only = ["article-load-xor-m", "warps4-vec4-ld", "bcast-all-128bit-ld"]
    proc = run_script("runner.py", "--method", "clock64", "--binary", str(binary), "--out",
                      str(out), "--only", *only, env_extra={"FAKE_CASES": str(HW / "cases.json")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    got = {c["case"]: c for c in json.loads(out.read_text())["cases"]}
    for name in only:
        assert got[name]["method"] == "clock64"
        want = BY_NAME[name]["predicted_wavefronts"]
        assert got[name]["measured_wavefronts"] == pytest.approx(want)
    assert got["article-load-xor-m"]["calibration"] == {"a": 12.0, "b": 2.0}
    proc = run_script("compare.py", "--measurements", str(out))
    assert "agree" in proc.stdout and proc.returncode == 1  # the other cases are missing


def synthetic(cases: list[dict], method: str = "ncu") -> dict:
    rows = []
    for c in cases:
        rows.append({"case": c["case"], "method": method, "linear": True,
                     "measured_wavefronts": c["predicted_wavefronts"],
                     "measured_wavefronts_per_warp": c["predicted_wavefronts_per_warp"],
                     "measured_wavefronts_per_block": c["predicted_wavefronts_per_block"],
                     "measured_degree": c["predicted_degree"],
                     "measured_bank_conflicts": c["predicted_wavefronts"] - c["phases"]})
    return {"device": "synthetic", "driver": "none", "cases": rows}


def test_compare_on_synthetic_measurements(tmp_path):
    meas = tmp_path / "m.json"
    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{compare.BEGIN}\nold\n{compare.END}\ntail\n", encoding="utf-8")
    doc = synthetic(CASES)
    meas.write_text(json.dumps(doc))
    proc = run_script("compare.py", "--measurements", str(meas), "--write-readme",
                      "--readme", str(readme))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every case agrees or is explained" in proc.stdout
    text = readme.read_text()
    assert "old" not in text and text.endswith(f"{compare.END}\ntail\n")
    assert "`article-load-rowmajor`" in text and f"{len(CASES)} agree" in text

    bad = synthetic(CASES)
    bad["cases"][0]["measured_wavefronts_per_block"] += 1      # a disagreement
    bad["cases"][1]["linear"] = False                          # an unclean count
    del bad["cases"][2]                                        # a missing case
    meas.write_text(json.dumps(bad))
    proc = run_script("compare.py", "--measurements", str(meas))
    assert proc.returncode == 1
    assert proc.stdout.count("DISAGREE:") == 2 and "MISSING:" in proc.stdout


def test_compare_timing_tolerance():
    c = dict(BY_NAME["article-load-rowmajor"])   # 256 wavefronts per CTA iteration
    near = {"method": "clock64", "measured_wavefronts_per_block": 230.0}
    far = {"method": "clock64", "measured_wavefronts_per_block": 150.0}
    assert compare.verdict(c, near)[0] == "agree"
    assert compare.verdict(c, far)[0] == "DISAGREE"
    assert compare.verdict(c, {"method": "ncu", "measured_wavefronts_per_block": 255.0,
                               "linear": True})[0] == "DISAGREE"
    assert compare.verdict(c, None)[0] == "MISSING"


def test_compare_unreadable_input(tmp_path):
    (tmp_path / "m.json").write_text("{not json")
    proc = run_script("compare.py", "--measurements", str(tmp_path / "m.json"))
    assert proc.returncode == 2


def test_raw_csv_parser():
    text = textwrap.dedent('''\
        ==PROF== Connected
        "ID","Kernel Name","l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
        "","",""
        "1","hw_b","2,048"
        "0","hw_a(int, unsigned int)","16"
        ''')
    rows = runner.parse_raw_csv(text)
    assert [r["kernel"] for r in rows] == ["hw_a", "hw_b"]
    assert rows[1]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 2048.0


def test_metric_choice():
    assert runner.choose_metrics(None) == list(runner.REQUIRED)
    some = {"l1tex__data_pipe_lsu_wavefronts_mem_shared", "smsp__inst_executed_op_ldsm"}
    chosen = runner.choose_metrics(some)
    assert "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum" in chosen
    assert "smsp__inst_executed_op_stsm.sum" not in chosen
    case = BY_NAME["stmatrix-x4-sw128"]
    # never the all-operations total (it carries other shared traffic); the per-operation one
    assert runner.wave_metric(case, chosen) == (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",)
    assert runner.wave_metric(case, list(runner.REQUIRED)) == (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",)
    with_stsm = chosen + ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"]
    assert runner.wave_metric(case, with_stsm) == (
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum",)


def test_runner_time_budget(tmp_path):
    """No ncu chunk starts once the budget is spent; those cases are marked, not timed."""
    out = tmp_path / "measurements.json"
    proc = run_script("runner.py", "--ncu", str(fake_ncu(tmp_path)), "--binary", "/bin/false",
                      "--out", str(out), "--budget", "0", "--only", "width-8bit-ld",
                      env_extra={"FAKE_CASES": str(HW / "cases.json")})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (case,) = json.loads(out.read_text())["cases"]
    assert case["error"] == runner.SKIPPED


# -- the measurements (an H200, two runs), replayed without a GPU --------------------------------

def test_the_measured_runs_agree_or_are_explained(capsys):
    """Every case of the committed measurements agrees with the prediction, or shows one of
    the measured effects compare.py documents (stray counts; concurrent warps whose serial twin
    agrees); the first run (121 cases) too, with the serial twins of the second."""
    assert compare.main(["--measurements", str(HW / "measurements.json")]) == 0
    assert compare.main(["--measurements", str(HW / "measurements_first_run.json"),
                         "--measured-only", "--serial-from",
                         str(HW / "measurements.json")]) == 0
    out = capsys.readouterr().out
    assert "DISAGREE" not in out and "MISSING" not in out


def test_return_packing_cases_agree_exactly():
    cases = json.loads((HW / "cases.json").read_text())["cases"]
    doc = json.loads((HW / "measurements.json").read_text())
    measured = {m["case"]: m for m in doc["cases"]}
    table = compare.rows(cases, measured, doc["iters"])
    pack = [r for r in table if r["category"] in ("pack", "broadcast")]
    assert len(pack) == 28 and all(r["status"] == "agree" for r in pack)
    # the packed ones really are cheaper than the unpacked model said
    assert {r["case"]: r["meas_instr"] for r in pack}["bcast-all-128bit-ld"] == 2


def test_concurrent_excess_needs_its_serial_twin():
    cases = json.loads((HW / "cases.json").read_text())["cases"]
    doc = json.loads((HW / "measurements.json").read_text())
    measured = {m["case"]: m for m in doc["cases"] if not m["case"].startswith("serial-")}
    table = {r["case"]: r for r in compare.rows(cases, measured, doc["iters"])}
    assert table["triton-09-st"]["status"] == "DISAGREE"  # no twin measured: not explained
    assert table["width-32bit-st"]["status"] == "agree"


def test_readme_results_are_what_compare_writes(tmp_path, capsys):
    """The committed README's results section (its counts, the counter sentence, the tables)
    is exactly what ``compare.py --write-readme`` makes of the committed measurements."""
    readme = tmp_path / "README.md"
    readme.write_text((HW / "README.md").read_text(encoding="utf-8"), encoding="utf-8")
    assert compare.main(["--write-readme", "--readme", str(readme),
                         "--repeats", str(HW / "repeats.json")]) == 0
    capsys.readouterr()
    assert readme.read_text(encoding="utf-8") == (HW / "README.md").read_text(encoding="utf-8")
    assert ("counter equals the measured `wavefronts − phases` on 145 of 145 cases and "
            "linlayout's `extra_wavefronts` on 139" in readme.read_text(encoding="utf-8"))
