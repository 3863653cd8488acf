"""Every ``--json`` document the commands print is valid against its shipped JSON Schema
(``linlayout/data/schemas/*.json``), and carries ``schema_version``."""

from __future__ import annotations

import gzip
import json

import pytest

jsonschema = pytest.importorskip("jsonschema")

from linlayout import examples
from linlayout.errors import LayoutError
from linlayout.show.schemas import COMMANDS, SCHEMA_VERSION, schema

from tests.support import ROOT, run_cli

TTGIR_DIR = ROOT / "tests" / "data" / "ttgir"


def validate(command: str, out: str) -> dict:
    data = json.loads(out)
    jsonschema.Draft202012Validator(schema(command)).validate(data)
    assert next(iter(data)) == "schema_version" and data["schema_version"] == SCHEMA_VERSION
    return data


@pytest.mark.parametrize("command", COMMANDS)
def test_schemas_are_valid_json_schemas(command):
    s = schema(command)
    jsonschema.Draft202012Validator.check_schema(s)
    assert s["properties"]["schema_version"]["const"] == SCHEMA_VERSION


def test_unknown_command_has_no_schema():
    with pytest.raises(LayoutError, match="no JSON schema"):
        schema("frobnicate")


@pytest.mark.parametrize("name", examples.names())
@pytest.mark.parametrize("extra", [[], ["--padding"], ["--instructions", "auto"],
                                   ["--weights", "1", "4"], ["--hardware", "AMD_CDNA3"]])
def test_synthesize_json_matches_its_schema(capsys, name, extra):
    code, out, _ = run_cli(capsys, "synthesize", "--example", name, "--json", *extra)
    assert code == 0
    data = validate("synthesize", out)
    assert {"wavefronts_per_warp", "conflict_free", "at_floor", "gap"} <= set(data["totals"])


@pytest.mark.parametrize("extra", [[], ["--fixed", "none"], ["--instructions", "auto"],
                                   ["--fixed", "128B", "--instructions", "tma,ldmatrix.x4"]])
def test_synthesize_explain_json_matches_its_schema(capsys, extra):
    code, out, _ = run_cli(capsys, "synthesize", "--example", "gemm-operand", "--explain",
                           "--json", *extra)
    assert code == 0
    assert len(validate("synthesize", out)["explain"]["bits"]) == 12


def test_synthesize_tma_json_matches_its_schema(capsys):
    code, out, _ = run_cli(capsys, "synthesize", "--example", "gemm-operand", "--fixed", "128B",
                           "--instructions", "tma,ldmatrix.x4", "--json")
    assert code == 0 and validate("synthesize", out)["tma_mode"] is not None


@pytest.mark.parametrize("memory", ["Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "(_64,_64):(_64,_1)"])
def test_conflicts_json_matches_its_schema(capsys, memory):
    code, out, _ = run_cli(capsys, "conflicts", "--memory", memory, "--layout",
                           "sm80_16x8x16.A", "--element-bits", "16", "--json")
    assert code in (0, 1)
    validate("conflicts", out)


@pytest.mark.parametrize("memory", ["Sw<3,4,3> o _0 o (_64,_64):(_64,_1)", "(_64,_64):(_72,_1)"])
def test_conflicts_explain_json_matches_its_schema(capsys, memory):
    """``--explain`` adds ``"explain"`` (closed form on a swizzle, enumeration on padding)."""
    code, out, _ = run_cli(capsys, "conflicts", "--memory", memory, "--layout",
                           "sm80_16x8x16.A", "--element-bits", "16", "--explain", "--json")
    assert code in (0, 1)
    assert validate("conflicts", out)["explain"]["instructions"]


@pytest.mark.parametrize("mode", ["128B", "64B", "32B", "none", "96B"])
def test_ptx_json_matches_its_schema(capsys, mode):
    code, out, _ = run_cli(capsys, "ptx", mode, "--json")
    assert code == 0
    validate("ptx", out)


def test_check_json_matches_its_schema_and_lists_each_op_once(capsys, tmp_path):
    files = sorted(str(p) for p in TTGIR_DIR.glob("*.ttgir"))
    corpus = json.load(gzip.open(ROOT / "tests" / "data" / "triton_lowering.json.gz"))["files"]
    for k in sorted(corpus)[::7]:  # NVIDIA and AMD, every kind of op, a sample
        path = tmp_path / (k.replace("/", "_") + ".ttgir")
        path.write_text(corpus[k]["ttgir"], encoding="utf-8")
        files.append(str(path))
    code, out, _ = run_cli(capsys, "check", "--json", *files, str(tmp_path / "missing.ttgir"))
    assert code == 2
    data = validate("check", out)
    assert len(data["files"]) == len(files) + 1 and data["errors"] == 1
    assert "ops" not in data
    # a walker over the whole document meets each op once
    def count_ops(node):
        if isinstance(node, dict):
            return ("op" in node and "line" in node) + sum(map(count_ops, node.values()))
        if isinstance(node, list):
            return sum(map(count_ops, node))
        return 0
    assert count_ops(data) == sum(len(f.get("ops", [])) + len(f.get("global_ops", []))
                                  for f in data["files"]) > 0
    # every instruction says which memory it accesses
    spaces = {i["space"] for f in data["files"] for key in ("ops", "global_ops")
              for o in f.get(key, []) for i in o["instructions"]}
    assert spaces == {"shared", "global", "register"}


MISALIGNED = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#shared = #ttg.padded_shared<[32:+1] {offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]], block = []}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x32xf32, #blocked>) {
    %a = ttg.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !ttg.memdesc<32x32xf32, #shared, #smem>
    %y = ttg.local_load %a : !ttg.memdesc<32x32xf32, #shared, #smem> -> tensor<32x32xf32, #blocked>
    tt.return
  }
}
"""


def test_check_json_of_a_misaligned_op_matches_its_schema(capsys, tmp_path):
    """A pad that breaks the 16-byte vector: each op's ``status`` and ``fault`` as the schema
    says."""
    path = tmp_path / "pad.ttgir"
    path.write_text(MISALIGNED, encoding="utf-8")
    code, out, _ = run_cli(capsys, "check", "--json", str(path))
    assert code == 1
    ops = validate("check", out)["files"][0]["ops"]
    assert [op["status"] for op in ops] == ["misaligned"] * 2
    assert all(op["fault"]["byte_address"] == 132 for op in ops)


@pytest.mark.parametrize("memory", ["row_major.json", "strides:32,1", "strides:1,16"])
def test_coalescing_json_matches_its_schema(capsys, tmp_path, memory):
    from linlayout.examples import write_files

    write_files(tmp_path)
    if memory.endswith(".json"):
        memory = str(tmp_path / "transpose" / memory)
    code, out, _ = run_cli(capsys, "coalescing", "--memory", memory, "--layout",
                           str(tmp_path / "transpose" / "load.json"), "--element-bits", "32",
                           "--json", "--min-efficiency", "0.01")
    assert code == 0
    validate("coalescing", out)
