"""linlayout.triton.ttgir: paths or text, ``MLIR_ENABLE_DUMP`` sections with their own aliases,
``loc`` resolved to the Python line, tensor-memory types, generic-form reductions and the ops
that are named without a count."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check import check_module
from linlayout.triton import find_accesses, read_ttgir
from linlayout.check.shared_memory.ops import predict_module

from tests.support import TTGIR_DIR
from tests.check.shared_memory.corpus_check import corpus


def _text(name: str) -> str:
    return corpus()["files"][name]["ttgir"]


def test_read_ttgir_takes_a_path_or_text(tmp_path):
    path = TTGIR_DIR / "transpose2.ttgir"
    by_path = read_ttgir(path)
    by_name = read_ttgir(str(path))
    by_text = read_ttgir(path.read_text(), "transpose2.ttgir")
    assert by_path.ops == by_text.ops == by_name.ops
    assert by_path.path == str(path)
    with pytest.raises(LayoutError, match="cannot read TTGIR file"):
        read_ttgir(tmp_path)  # a directory


def test_loc_gives_the_python_source_line():
    acc = find_accesses(read_ttgir(_text("matmul_cuda80.ttgir")))
    assert all(a.source and a.source.startswith("corpus.py:") for a in acc)


def test_tensor_memory_parses_and_is_not_shared_memory():
    m = read_ttgir(_text("matmul_tma_persistent_cuda100.ttgir"))
    assert "tmem" in m.aliases
    reps = {r.access.op: r for r in check_module(m, suggest=False).ops}
    assert not reps["tmem_store"].uses_shared and "tensor memory" in reps["tmem_store"].note
    assert reps["tc_gen5_mma"].instructions[0].emitted.per_thread is None


def test_generic_reduce_and_named_ops_are_found():
    ops = {a.op for a in find_accesses(read_ttgir(_text("argmax_axis1_cuda90.ttgir")))}
    assert "reduce" in ops
    preds = dict((a.op, p) for a, p in predict_module(read_ttgir(_text("attn_fwd_tma_cuda90.ttgir"))))
    assert preds["async_tma_copy_global_to_local"].sides[0].emitted.per_thread is None
    assert preds["tensormap_create"].sides[0].emitted.opcode == "st.shared::cta.b32"


def _dump() -> str:
    """Two pass sections of one kernel; the second redefines #blocked (wider vectors)."""
    text = (TTGIR_DIR / "transpose2.ttgir").read_text()
    first = text.replace("sizePerThread = [1, 8]", "sizePerThread = [1, 2]", 1)
    return ("// -----// IR Dump Before TritonGPUCoalesce (tritongpu-coalesce) ('builtin.module' "
            "operation) //----- //\n" + first +
            "\n// -----// IR Dump Before ConvertTritonGPUToLLVM (convert-triton-gpu-to-llvm) "
            "('builtin.module' operation) //----- //\n" + text +
            "\n// -----// IR Dump Before LLVMDIScope (llvm-discope) ('builtin.module' "
            "operation) //----- //\nmodule {\n  llvm.func @k() {\n    llvm.return\n  }\n}\n")


def test_dump_sections_each_use_their_own_aliases():
    text = _dump()
    last = read_ttgir(text, "dump.txt")
    assert last.section == "IR Dump Before ConvertTritonGPUToLLVM"
    assert last.sections == ("TritonGPUCoalesce", "ConvertTritonGPUToLLVM")
    first = read_ttgir(text, "dump.txt", pass_name="coalesce")
    op_last = check_module(last, suggest=False).ops[0].instructions[0].emitted.opcode
    op_first = check_module(first, suggest=False).ops[0].instructions[0].emitted.opcode
    # [1, 2] f16 per thread fits stmatrix's tile on sm_90; [1, 8] is a 16-byte st.shared
    assert (op_first, op_last) == ("stmatrix.sync.aligned.m8n8.x4.shared.b16", "st.shared.v4.b32")
    # each op once, with line numbers of the whole dump
    assert len(find_accesses(last)) == len(find_accesses(read_ttgir(TTGIR_DIR / "transpose2.ttgir")))
    assert min(a.line for a in find_accesses(last)) > text.index("ConvertTritonGPUToLLVM") // 200
    with pytest.raises(LayoutError, match="no TTGIR section .* 'nosuchpass'.*TritonGPUCoalesce"):
        read_ttgir(text, "dump.txt", pass_name="nosuchpass")
