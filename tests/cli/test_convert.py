"""``linlayout convert``: the plan table and its JSON, from Triton types, files and CuTe
text; bad input exits 2 with one line."""

from __future__ import annotations

import json

import pytest

from linlayout import LinearLayout

from tests.support import assert_one_line_error, run_cli, write_file

ROW = ("tensor<8x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], "
       "warpsPerCTA = [1, 1], order = [1, 0]}>>")
COL = ("tensor<8x4xf32, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 8], "
       "warpsPerCTA = [1, 1], order = [0, 1]}>>")


def test_triton_types_give_the_table_and_the_element_width(capsys):
    code, out, err = run_cli(capsys, "convert", "--src", ROW, "--dst", COL)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].endswith("32-bit elements")
    assert lines[2].split(" | ")[0].strip() == "path"
    rows = {line.split(" | ")[0].strip(): line for line in lines[4:7]}
    assert set(rows) == {"registers", "shuffle", "shared_memory"}
    assert "not possible" in rows["registers"] and "2 shfl" in rows["shuffle"]
    assert "cheapest: shuffle (cost 2), provably optimal" in out


def test_json(capsys):
    code, out, _ = run_cli(capsys, "convert", "--src", ROW, "--dst", COL, "--json",
                           "--weight", "shfl=100")
    data = json.loads(out)
    assert code == 0 and data["schema_version"] == 1 and data["best"] == "shared_memory"
    assert data["weights"]["shfl"] == 100
    shfl = data["paths"][1]
    assert shfl["instructions"]["shfl"] == 2 and shfl["bound"] == 200
    assert shfl["plan"]["rounds"] == 2 and shfl["plan"]["slots"] == 1
    assert data["paths"][0]["plan"] is None and data["paths"][2]["plan"] is None


def test_layout_files_need_element_bits(capsys, tmp_path):
    lay = LinearLayout({"register": [[1]], "lane": [[2], [4]]}, {"dim0": 8})
    path = write_file(tmp_path, "a.json", lay.to_dict())
    code, out, err = run_cli(capsys, "convert", "--src", path, "--dst", path)
    assert_one_line_error(code, out, err)
    assert "--element-bits is required" in err
    code, out, _ = run_cli(capsys, "convert", "--src", path, "--dst", path,
                           "--element-bits", "16")
    assert code == 0 and "cheapest: registers (cost 0), provably optimal" in out


def test_cute_tv_layouts(capsys):
    tv = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8"
    code, out, _ = run_cli(capsys, "convert", "--src", tv, "--dst", tv, "--element-bits", "16")
    assert code == 0 and "cheapest: registers" in out


@pytest.mark.parametrize("argv,match", [
    (["--src", ROW, "--dst", ROW.replace("8x4", "16x4")], "same tensor"),
    (["--src", ROW, "--dst", COL.replace("f32", "f16")], "keeps the element type"),
    (["--src", ROW, "--dst", COL, "--weight", "shfl"], "KIND=NUMBER"),
    (["--src", ROW, "--dst", COL, "--weight", "warp=1"], "unknown weight"),
    (["--src", ROW, "--dst", COL, "--element-bits", "4"], "element_bits"),
    (["--src", "tensor<8x4xf32>", "--dst", COL], "no layout encoding"),
    (["--src", "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)", "--dst", COL], "shared-memory layout"),
])
def test_bad_input_exits_2_with_one_line(capsys, argv, match):
    code, out, err = run_cli(capsys, "convert", *argv)
    assert_one_line_error(code, out, err)
    assert match in err


def test_target_flag_names_triton_path(capsys):
    import json as _json

    from linlayout.cli import main as _main
    src = ("tensor<32x32xf32, #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], "
           "warpsPerCTA = [4, 1], order = [1, 0]}>>")
    dst = ("tensor<32x32xf32, #ttg.blocked<{sizePerThread = [4, 1], threadsPerWarp = [2, 16], "
           "warpsPerCTA = [4, 1], order = [0, 1]}>>")
    assert _main(["convert", "--src", src, "--dst", dst, "--target", "cuda:80", "--json"]) == 0
    d = _json.loads(capsys.readouterr().out)
    assert d["triton"]["target"] == "cuda:80" and d["triton"]["path"] == "shared"
    assert d["saving"] == d["triton"]["cost"] - min(
        p["cost"] for p in d["paths"] if p["feasible"])


def test_wide_source_prices_the_packing_on_every_path(capsys):
    """``--wide-source``: 16-bit elements a gather or reduction left in 32-bit registers;
    joining two costs a prmt, on Triton's shuffles and the plan's alike, and in the
    shared-memory bound."""
    f16 = ("tensor<8x4xf16, #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [8, 4], "
           "warpsPerCTA = [1, 1], order = [1, 0]}>>")
    f16_dst = f16.replace("[1, 2]", "[2, 1]").replace("[8, 4]", "[4, 8]") \
        .replace("order = [1, 0]", "order = [0, 1]")
    args = ("convert", "--src", f16, "--dst", f16_dst, "--json")
    _, plain, _ = run_cli(capsys, *args)
    code, wide, _ = run_cli(capsys, *args, "--wide-source")
    plain, wide = json.loads(plain), json.loads(wide)
    assert code == 0 and wide["weights"]["selector"] == 0
    assert wide["paths"][2]["instructions"]["prmt"] > plain["paths"][2]["instructions"]["prmt"]
    # the bound pays the packing too (packing_floor): a stmatrix.x1.trans store of the
    # joined pair, one prmt, and an ldmatrix load, which the round trip meets
    shared = wide["paths"][2]
    assert plain["paths"][2]["bound"] < shared["bound"] == shared["cost"] == 10.5
