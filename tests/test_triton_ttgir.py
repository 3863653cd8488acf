"""TTGIR from Triton's compiler: accesses found, degrees (vs Triton's counter and our simulator),
suggestions that really are conflict-free, and ``linlayout check``."""

from __future__ import annotations

import json
import pathlib

import pytest

from linlayout import LayoutError, bank_conflicts, simulate_bank_access
from linlayout.cli import main
from linlayout.triton import (
    check_module,
    find_accesses,
    parse_encoding,
    read_ttgir,
    triton_vector_elems,
)
from linlayout.triton.analysis import embed_in_buffer

DATA = pathlib.Path(__file__).parent / "data"
TTGIR = DATA / "ttgir"
EXPECTED = json.loads((DATA / "ttgir_expected.json").read_text())
FILES = sorted(EXPECTED["files"])


def _module(name):
    return read_ttgir((TTGIR / name).read_text(), name)


def test_module_attributes():
    m = _module("matmul_sm80.ttgir")
    assert (m.threads_per_warp, m.num_warps, m.target) == (32, 4, "cuda:80")
    assert {"blocked", "blocked1", "mma", "shared", "shared1", "smem"} <= set(m.aliases)
    assert _module("tma_sm90.ttgir").target == "cuda:90"


@pytest.mark.parametrize("name", FILES)
def test_accesses_match_the_fixture(name):
    accesses = find_accesses(_module(name))
    want = EXPECTED["files"][name]
    got = [(a.line, a.op, a.result, a.memdesc) for a in accesses]
    assert got == [(o["line"], o["op"], o["result"], o["memdesc"]) for o in want]


def test_views_resolve_to_their_allocation():
    acc = find_accesses(_module("matmul_sm80.ttgir"))
    roots = {a.root for a in acc if a.kind != "convert"}
    assert roots == {"%a", "%b"}  # through memdesc_index, memdesc_subslice and scf.for
    sub = [a for a in acc if a.op == "local_load"]
    assert all(a.memory.layout_shape != a.distributed.shape for a in sub)
    copies = [a for a in acc if a.op == "async_copy_global_to_local"]
    assert all(a.max_vector_elems == 8 and a.element_bits == 16 for a in copies)


@pytest.mark.parametrize("name", FILES)
def test_degrees_agree_with_triton_and_the_simulator(name):
    reports = check_module(_module(name))
    for rep, want in zip(reports, EXPECTED["files"][name]):
        a = rep.access
        assert a.line == want["line"]
        if a.kind == "convert":
            continue
        if want["triton_extra"] is not None:
            assert rep.degree - 1 == want["triton_extra"]
        dist = embed_in_buffer(a.distributed.layout, a.memory.layout)
        sim = simulate_bank_access(dist, a.memory.layout, element_bits=a.element_bits,
                                   vector_elems=rep.vector_elems)
        assert (sim.degree, sim.wavefronts) == (rep.degree, rep.wavefronts)


def test_transpose_report_and_suggestion():
    reports = check_module(_module("transpose2.ttgir"))
    summary = [(r.access.line, r.access.op, r.vector_elems, r.degree) for r in reports]
    assert summary == [(25, "local_alloc", 8, 1), (26, "local_load", 1, 8),
                       (39, "local_store", 8, 1), (40, "local_load", 1, 8)]
    # both buffers get the same conflict-free swizzle; check it on every access
    sugg = {r.suggestion for r in reports if r.degree > 1}
    assert sugg == {"#ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 8, order = [1, 0]}>"}
    new = parse_encoding(sugg.pop()).to_linear_layout([64, 64])
    for r in reports:
        a = r.access
        v = triton_vector_elems(a.distributed.layout, new, 16)
        rep = bank_conflicts(a.distributed.layout, new, element_bits=16, vector_elems=v)
        assert rep.degree == 1
        assert v == r.vector_elems  # the fix keeps the stores' 16-byte vectors


def test_tma_buffer_only_gets_nvmma_candidates():
    (rep,) = check_module(_module("tma_sm90.ttgir"))
    assert (rep.degree, rep.vector_elems) == (8, 1)
    assert rep.suggestion is None
    assert "TMA" in rep.note


def test_matmul_is_conflict_free_and_the_epilogue_needs_shared_memory():
    reports = check_module(_module("matmul_sm80.ttgir"))
    assert all(r.degree == 1 for r in reports)
    conv = reports[-1]
    assert conv.access.op == "convert_layout" and conv.store is not None
    assert conv.wavefronts == conv.store.wavefronts + conv.load.wavefronts


def test_convert_within_a_warp_uses_no_shared_memory():
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<32x32xf32, #blocked>) {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked> loc(#loc)
    %z = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
    tt.return
  }
}
"""
    r = check_module(read_ttgir(text))
    assert r[0].degree is None and "no shared memory" in r[0].note
    assert r[1].degree is not None  # warps 0..3 own different rows in the two layouts


def test_wave64_modules_are_refused():
    text = ('module attributes {"ttg.threads-per-warp" = 64 : i32} {\n'
            '  tt.func @f() {\n    tt.return\n  }\n}\n')
    with pytest.raises(LayoutError, match="32-lane"):
        check_module(read_ttgir(text))


def test_malformed_ttgir_names_the_line():
    text = (TTGIR / "transpose2.ttgir").read_text().replace(
        "-> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>",
        "-> !ttg.memdesc<64x60xf16, #shared, #smem, mutable>", 1)
    with pytest.raises(LayoutError, match=r"k\.ttgir: line 25, column \d+: .*power of two"):
        read_ttgir(text, "k.ttgir")
    with pytest.raises(LayoutError, match="no MLIR module"):
        read_ttgir("hello world\n")


# ----------------------------------------------------------------------------- the CLI
def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_check_cli_human(capsys):
    code, out, err = _run(capsys, "check", str(TTGIR / "transpose2.ttgir"))
    assert code == 1 and err == ""
    assert "local_load" in out and "FAIL" in out
    assert "suggestion for %tile (line 26): #ttg.swizzled_shared<{vec = 8, perPhase = 8" in out
    assert out.strip().endswith("FAIL: worst degree 8 > --max-degree 1")
    code, out, _ = _run(capsys, "check", "--max-degree", "8", str(TTGIR / "transpose2.ttgir"))
    assert code == 0 and out.strip().endswith("ok: worst degree 8 <= --max-degree 8")


def test_check_cli_json(capsys):
    files = [str(TTGIR / n) for n in FILES]
    code, out, _ = _run(capsys, "check", "--json", *files)
    data = json.loads(out)
    assert code == 1
    assert data["max_degree"] == 1 and data["worst_degree"] == 8 and data["ok"] is False
    keys = {"line", "op", "result", "memdesc", "element_bits", "vector_elems", "degree",
            "wavefronts", "suggestion"}
    assert all(keys <= set(op) for op in data["ops"])
    by = {(pathlib.Path(o["file"]).name, o["line"]): o for o in data["ops"]}
    assert by[("transpose2.ttgir", 26)]["degree"] == 8
    assert by[("transpose2.ttgir", 26)]["suggestion"].startswith("#ttg.swizzled_shared")
    assert by[("matmul_sm80.ttgir", 53)]["vector_elems"] == 8
    assert by[("tma_sm90.ttgir", 32)]["suggestion"] is None
    code, out, _ = _run(capsys, "check", "--json", str(TTGIR / "matmul_sm80.ttgir"))
    assert code == 0 and json.loads(out)["ok"] is True


def test_check_cli_bad_input(capsys, tmp_path):
    code, out, err = _run(capsys, "check", str(tmp_path / "missing.ttgir"))
    assert code == 2 and out == ""
    assert err.startswith("linlayout: error: cannot read TTGIR file") and err.count("\n") == 1
    bad = tmp_path / "bad.ttgir"
    bad.write_text("#blocked = #ttg.blocked<{sizePerThread = [1, 4]\n")
    code, _, err = _run(capsys, "check", str(bad))
    assert code == 2 and "bad.ttgir: malformed MLIR at line" in err and err.count("\n") == 1
    code, _, err = _run(capsys, "check", "--max-degree", "0", str(TTGIR / "tma_sm90.ttgir"))
    assert code == 2 and "--max-degree" in err


LEGACY = """#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
#C = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1]}>
#A = #triton_gpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0], hasLeadingOffset = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, triton_gpu.target = "cuda:80", "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<128x16xf16, #blocked>, %w: !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory>) {
    %a = triton_gpu.local_alloc %x : (tensor<128x16xf16, #blocked>) -> !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory>
    %a_op = triton_gpu.local_load %a : !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory> -> tensor<128x16xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>>
    %w_op = triton_gpu.local_load %w shouldHoist = true : !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory> -> tensor<128x16xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>>
    tt.return
  }
}
"""


def test_triton_3_0_syntax():
    """``triton_gpu.`` ops, ``!tt.memdesc``, ``#triton_gpu.shared``, CTA triples and an mma
    without instrShape, as Triton 3.0 printed them; a function-argument buffer."""
    m = read_ttgir(LEGACY, "old.ttgir")
    assert (m.threads_per_warp, m.num_warps, m.target) == (32, 4, "cuda:80")
    reports = check_module(m)
    assert [(r.access.op, r.access.memdesc) for r in reports] == [
        ("local_alloc", "%a"), ("local_load", "%a"), ("local_load", "%w")]
    assert reports[1].degree > 1 and reports[1].suggestion is not None
    assert reports[2].access.root == "%w"


def test_buffers_used_by_wgmma_through_a_view_get_nvmma_suggestions():
    text = """#blocked = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<64x64xf16, #blocked>, %c0: i32) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %v = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %v2 = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %acc = ttng.warp_group_dot %v2, %v2, %cst : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> * !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
    tt.return
  }
}
"""
    (rep,) = check_module(read_ttgir(text))
    assert rep.access.root == "%buf" and rep.degree == 8
    assert rep.suggestion is None and "TMA/wgmma" in rep.note


def test_layouts_without_a_linear_form_do_not_stop_the_file(capsys, tmp_path):
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#padded = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>
#future = #ttg.hyper_shared<{wobble = <3>}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<64x64xf16, #blocked>) {
    %p = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #padded, #smem, mutable>
    %q = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #future, #smem, mutable>
    %r = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
"""
    reports = check_module(read_ttgir(text))
    assert [r.degree for r in reports] == [None, None, 1]
    assert "padding" in reports[0].note and "not a layout linlayout knows" in reports[1].note
    path = tmp_path / "mixed.ttgir"
    path.write_text(text)
    code, out, _ = _run(capsys, "check", str(path))
    assert code == 0 and "skipped" in out and "line 8: not analysed" in out
    # outside a TTGIR file the same attribute is an error
    with pytest.raises(LayoutError, match="padding"):
        parse_encoding("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>")


def test_hopper_matmul_epilogue_and_three_stage_buffers():
    """wgmma fed by TMA: operand buffers are ``3x128x64`` (three stages — not a power of two,
    which only the laid-out dims must be); the epilogue stores the mma accumulator with
    ``local_alloc`` into ``nvmma_shared`` for the TMA store."""
    m = _module("matmul_tma_sm90.ttgir")
    assert {"%a", "%b"} <= {n.split("_")[0] for n in m.ttng_uses}
    (rep,) = check_module(m)
    a = rep.access
    assert (a.op, a.kind) == ("local_alloc", "store")
    assert a.distributed.encoding.mnemonic == "nvidia_mma"
    assert a.memory.encoding.mnemonic == "nvmma_shared"
    assert (rep.degree, rep.vector_elems) == (1, 2)
    alloc = next(op for op in m.ops if op.short == "local_alloc" and op.results == ("%a",))
    assert alloc.types[0].shape == (3, 128, 64) and alloc.types[0].view_shape == (128, 64)
