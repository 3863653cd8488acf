"""SynthesisReport: the library's report is exactly what ``linlayout synthesize`` prints.

For every built-in example (and with padding, weights, another objective, a TMA mode and
layouts from files) ``to_text()`` is the command's stdout and ``to_dict()`` the data of its
``--json``.
"""

from __future__ import annotations

import json

import pytest

from linlayout import LayoutError, examples, synthesize_swizzle
from linlayout.hardware import AMD_CDNA3
from linlayout.show.text import table
from linlayout.show.synthesis import (
    SIDE_HEADER,
    SynthesisReport,
    interop,
    side_rows,
    synthesis_report,
)
from linlayout.synthesis import Transfer, synthesize_padding

from tests.support import run_cli, write_file

JSON_KEYS = {"schema_version", "layout", "vector_elems", "element_bits", "store", "load", "loads", "totals",
             "optimal", "bound", "notes", "formula", "tma_mode", "triton", "gluon", "cute",
             "example", "lowering", "target", "triton_lowering"}


@pytest.mark.parametrize("name", examples.names())
def test_text_and_json_are_the_cli_output(capsys, name):
    ex = examples.get(name)
    report = synthesis_report(synthesize_swizzle(ex.store, ex.load,
                                                 element_bits=ex.element_bits), example=name,
                              transfer=Transfer.make(ex.store, ex.load,
                                                     element_bits=ex.element_bits))
    assert isinstance(report, SynthesisReport)
    code, out, err = run_cli(capsys, "synthesize", "--example", name)
    assert code == 0 and err == ""
    assert report.to_text() + "\n" == out
    code, out, _ = run_cli(capsys, "synthesize", "--example", name, "--json")
    data = report.to_dict()
    assert code == 0 and json.loads(out) == data
    assert list(json.loads(out)) == list(data)  # the same keys in the same order
    assert set(data) - {"cute_reason"} == JSON_KEYS and data["example"] == name


@pytest.mark.parametrize("name", ["transpose", "blocked-mma"])
def test_padding_and_options_are_the_cli_output(capsys, name):
    ex = examples.get(name)
    kw = dict(element_bits=ex.element_bits, hardware=AMD_CDNA3, objective="instructions",
              weights=[1, 4])
    result = synthesize_swizzle(ex.store, ex.load, **kw)
    report = synthesis_report(result, example=name,
                              padding=synthesize_padding(ex.store, ex.load, **kw),
                              transfer=Transfer.make(ex.store, ex.load,
                                                     element_bits=ex.element_bits,
                                                     hardware=AMD_CDNA3, weights=[1, 4]))
    argv = ["synthesize", "--example", name, "--hardware", "AMD_CDNA3", "--objective",
            "instructions", "--weights", "1", "4", "--padding"]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and report.to_text() + "\n" == out
    assert "choose: " in out and report.choice is not None
    code, out, _ = run_cli(capsys, *argv, "--json")
    data = json.loads(out)
    assert data == report.to_dict() and {"padding", "choice"} <= set(data)
    assert data["choice"] == report.choice.choice


def test_a_tma_store_is_the_cli_output(capsys):
    ex = examples.get("gemm-operand")
    result = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits, fixed="128B",
                                instructions=["tma", "ldmatrix.x4"])
    report = synthesis_report(result, example="gemm-operand",
                              transfer=Transfer.make(ex.store, ex.load,
                                                     element_bits=ex.element_bits))
    assert [s.side for s in report.lowered] == ["load"]  # the TMA store is not lowered
    code, out, _ = run_cli(capsys, "synthesize", "--example", "gemm-operand", "--fixed", "128B",
                           "--instructions", "tma,ldmatrix.x4")
    assert code == 0 and report.to_text() + "\n" == out
    assert report.tma is not None and report.tma.describe() in out
    assert "TMA copy (not counted)" in out


def test_files_take_the_given_title(capsys, tmp_path):
    ex = examples.get("blocked-mma")
    src = write_file(tmp_path, "src.json", ex.store.to_dict())
    dst = write_file(tmp_path, "dst.json", ex.load.to_dict())
    result = synthesize_swizzle(ex.store, ex.load, element_bits=16)
    title = f"synthesize: store {src}, load {dst}, 16-bit elements"
    report = synthesis_report(result, title=title,
                              transfer=Transfer.make(ex.store, ex.load, element_bits=16))
    code, out, _ = run_cli(capsys, "synthesize", "--src", src, "--dst", dst,
                           "--element-bits", "16")
    assert code == 0 and report.to_text() + "\n" == out
    code, out, _ = run_cli(capsys, "synthesize", "--src", src, "--dst", dst,
                           "--element-bits", "16", "--json")
    assert json.loads(out) == report.to_dict() and "example" not in report.to_dict()


def test_defaults_and_parts():
    ex = examples.get("transpose")
    result = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    plain = synthesis_report(result)
    assert plain.title == "synthesized shared-memory layout (32-bit elements)"
    assert "⌊dim1/8⌋" in plain.formula  # no example: the tensor's own dim names
    named = synthesis_report(result, example="transpose")
    assert named.formula == synthesis_report(result, dim_names={"dim0": "m",
                                                                "dim1": "n"}).formula
    assert named.padding is None and named.choice is None
    forms = interop(result.layout, 32)
    assert (named.triton, named.gluon, named.cute) == (forms["triton"], forms["gluon"],
                                                       forms["cute"])
    rows = side_rows(["store", "load"], list(result.reports))
    assert [r[0] for r in rows] == ["store", "load"] and len(rows[0]) == len(SIDE_HEADER)
    assert table(SIDE_HEADER, rows) in named.to_text()


def test_the_triton_line_says_what_triton_pays_for_the_printed_layout():
    ex = examples.get("transpose")
    transfer = Transfer.make(ex.store, ex.load, element_bits=32)
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    report = synthesis_report(r, example="transpose", transfer=transfer, target="cuda:80")
    assert report.target == "cuda:80"
    assert [s.emitted.opcode for s in report.lowered] == [
        "st.shared.v4.b32", "ldmatrix.sync.aligned.m8n8.x4.shared.b16"]
    assert report.lowered_totals() == (32, 8)
    assert "Triton 3.9 (cuda:80) lowers local_store/local_load through it to" in report.to_text()
    low = report.to_dict()["triton_lowering"]
    assert (low["wavefronts_per_warp"], low["instructions_per_warp"]) == (32, 8)
    assert low["same_as_report"] is False
    lowered = synthesize_swizzle(ex.store, ex.load, element_bits=32, lowering="triton",
                                 target="cuda:80")
    assert synthesis_report(lowered, transfer=transfer).lowered is None  # already Triton's


def test_a_tma_layout_is_exported_as_the_nvmma_layout_tma_writes():
    ex = examples.get("gemm-operand")
    for mode in ("128B", "64B", "32B"):
        r = synthesize_swizzle(ex.store, ex.load, element_bits=16, fixed=mode,
                               instructions=["tma", "ldmatrix.x4"])
        report = synthesis_report(r)
        assert report.triton.startswith("#ttg.nvmma_shared"), (mode, report.triton)
        assert report.gluon.startswith("gl.NVMMASharedLayout"), (mode, report.gluon)
        store = report.to_dict()["store"]
        assert store["counted"] is False and store["instruction"] == "tma"
        assert store["wavefronts_per_warp"] is None
    assert "no #ttg.nvmma_shared names" not in report.to_text()


def test_a_tma_layout_no_nvmma_shared_names_says_so():
    # 16x16 bf16: TMA's 128B mode on 32-byte rows writes a layout Triton's nvmma_shared (whose
    # swizzle spans whole rows of its width) cannot name; the printed shared_linear serves
    # local_store/local_load only, and the report says so
    ex = examples.get("blocked-mma")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=16, fixed="128B",
                           instructions=["tma", "auto"])
    report = synthesis_report(r)
    assert report.triton.startswith("#ttg.shared_linear")
    assert "no #ttg.nvmma_shared names this layout" in report.to_text()


def test_explain_in_text_and_json(capsys):
    from linlayout.show.synthesis import explanation_text
    from linlayout.synthesis.explain import explain_synthesis

    code, out, _ = run_cli(capsys, "synthesize", "--explain")
    assert code == 0
    assert "why each offset bit" in out
    assert "bits 5-8: avoids:" in out and "bit 0: vector: inside the store's 4-element vector" in out
    code, out, _ = run_cli(capsys, "synthesize", "--explain", "--json")
    data = json.loads(out)
    assert data["explain"]["reasons"] == {"vector": [0, 1], "free": [2, 3, 4],
                                          "avoids": [5, 6, 7, 8]}
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    text = explanation_text(explain_synthesis(r, ex.store, ex.load))
    assert text.splitlines()[0].startswith("why each offset bit")
    with pytest.raises(LayoutError, match="transfer"):
        synthesis_report(r, explain=True)
