"""``linlayout coalescing``: exit status against ``--min-efficiency``, JSON output, strides and
CuTe arguments, and one-line errors."""

from __future__ import annotations

import json

import pytest

from tests.support import assert_one_line_error, run_cli

TV = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8"


def test_row_major_tile_is_coalesced(capsys):
    code, out, err = run_cli(capsys, "coalescing", "--layout", TV, "--memory",
                             "(_16,_8):(_8,_1)", "--element-bits", "32")
    assert code == 0 and err == ""
    assert "ok: efficiency 1.0 >= --min-efficiency 1.0" in out and "closed form" in out


def test_exit_status_follows_min_efficiency(capsys):
    base = ["coalescing", "--layout", TV, "--memory", "strides:9,1", "--element-bits", "32"]
    code, out, _ = run_cli(capsys, *base)
    assert code == 1 and "FAIL: efficiency 0.4444 < --min-efficiency 1.0" in out
    code, out, _ = run_cli(capsys, *base, "--min-efficiency", "0.4", "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["method"] == "enumeration"
    assert data["sectors_per_warp"] == 36 and data["sector_floor"] == 16


def test_json_layout_file_and_strides_agree(capsys, tmp_path):
    from linlayout import LinearLayout

    lay = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]],
                        "register": [[1, 0], [2, 0]]}, out_dims={"dim0": 4, "dim1": 32})
    path = tmp_path / "lay.json"
    path.write_text(json.dumps(lay.to_dict()))
    outs = []
    for mem in ("strides:32,1", "(_4,_32):(_32,_1)"):
        code, out, _ = run_cli(capsys, "coalescing", "--layout", str(path), "--memory", mem,
                               "--element-bits", "16", "--json")
        assert code == 0
        outs.append(json.loads(out))
    assert outs[0] == outs[1]


@pytest.mark.parametrize("extra, match", [
    (["--memory", "strides:9"], "strides"),
    (["--memory", "strides:a,b"], "integers"),
    (["--memory", "strides:9,1", "--min-efficiency", "0"], "min-efficiency"),
    (["--memory", "strides:9,1", "--min-efficiency", "nan"], "min-efficiency"),
    (["--memory", "strides:9,1", "--element-bits", "4"], "element_bits"),
    (["--memory", "strides:8,1", "--vector-elems", "8"], "vector_elems"),
    (["--memory", "no-such-file"], "--memory"),
])
def test_bad_input_is_one_line(capsys, extra, match):
    args = ["coalescing", "--layout", TV, "--element-bits", "32", *extra]
    if "--element-bits" in extra[2:]:
        args = ["coalescing", "--layout", TV, *extra]
    code, out, err = run_cli(capsys, *args)
    assert_one_line_error(code, out, err)
    assert match in err


def test_lanes_64_counts_one_wavefront(capsys, tmp_path):
    from linlayout import LinearLayout

    lay = LinearLayout({"lane": [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32]],
                        "register": [[1, 0], [2, 0]]}, out_dims={"dim0": 4, "dim1": 64})
    path = tmp_path / "wave64.json"
    path.write_text(json.dumps(lay.to_dict()))
    args = ["coalescing", "--layout", str(path), "--memory", "strides:64,1",
            "--element-bits", "32"]
    code, out, _ = run_cli(capsys, *args, "--lanes", "64", "--json")
    data = json.loads(out)
    assert code == 0 and data["coalesced"] is True
    assert data["useful_bytes_per_instruction"] == 64 * 4 and data["instructions_per_warp"] == 4
    assert data["sectors_per_warp"] == data["sector_floor"] == 32
    code, out, err = run_cli(capsys, *args)  # a 32-lane warp cannot hold 64 lanes
    assert_one_line_error(code, out, err)
    assert "64" in err and "'warp'" in err
    code, out, err = run_cli(capsys, *args, "--lanes", "16")
    assert code == 2 and out == "" and "--lanes" in err
