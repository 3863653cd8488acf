"""Where a convert's result is stored (linlayout/check/registers/consumers.py), and ``check``
counting the ``v_perm_b32`` that build Triton's 4-byte store vectors from two loaded scratch
words on gfx950 (a shuffle probe of papers/triton_lowering/shuffle_probes.py: 4 in the final
AMDGCN); where Triton stores bytes, the other outcome of LLVM's SelectionDAG merging them
(``may_merge``, on a probe of papers/triton_lowering/amd_byte_pack_probes.py whose final
AMDGCN merged one of the thread's two words)."""

from __future__ import annotations

import pytest

import json

from linlayout.check.analysis import check_module
from linlayout.check.registers import MERGE_WORDS, pack_stored_words, store_destinations
from linlayout.check.render import op_dict, render_text
from linlayout.check.report import StoreMerge
from linlayout.check.shared_memory.ops import predict_module
from linlayout.errors import LayoutError
from linlayout.lowering.target import Target
from linlayout.triton.ttgir import read_ttgir
from tests.check.shared_memory.triton_fixtures import entries

_CASE = "blocked_b8_16x64_w1_345b1e_gfx950"


def _probe():
    return read_ttgir(entries("amd_shuffle_fresh")[_CASE]["ttgir"])


def test_store_destinations_names_the_stored_value_and_its_dim():
    module = _probe()
    (name, (dim, contiguity)), = store_destinations(module).items()
    assert name.startswith("%") and dim == 1 and contiguity == 64


def test_check_counts_the_permutes_building_the_store_vectors():
    report = check_module(_probe())
    (op,) = [r for r in report.ops if r.access.kind == "convert"]
    counts = {i.emitted.opcode: i.emitted.per_thread for i in op.instructions}
    assert counts.get("v_perm_b32", 0) == 4
    assert entries("amd_shuffle_fresh")[_CASE]["data"]["counts"]["v_perm_b32"] == 4


_BYTES = "g_hv_b8_32x128_w8_2a6df2_gfx942"


def _bytes_probe():
    return read_ttgir(entries("amd_byte_pack")[_BYTES]["ttgir"])


def test_byte_stores_llvm_may_merge_are_the_other_outcome():
    module = _bytes_probe()
    stored = store_destinations(module)
    (pred,) = [p for a, p in pack_stored_words(predict_module(module), stored,
                                               Target.parse("gfx942"))
               if a.kind == "convert"]
    assert pred.extra[MERGE_WORDS] == 2
    report = check_module(module)
    (op,) = [r for r in report.ops if r.access.kind == "convert"]
    counts = {i.emitted.opcode: i.emitted.per_thread for i in op.instructions}
    assert "v_perm_b32" not in counts  # the main count: Triton's byte stores, no merge
    assert isinstance(op.may_merge, StoreMerge) and op.may_merge.words == 2
    assert op.may_merge.permutes.opcode == "v_perm_b32"
    assert op.may_merge.permutes.per_thread == 2
    # the final AMDGCN merged one of the two words: between the two outcomes
    assert entries("amd_byte_pack")[_BYTES]["data"]["counts"]["v_perm_b32"] == 1
    d = op_dict(op)
    assert d["may_merge"] == {"words": 2, "isa": "v_perm_b32", "per_thread": 2}
    json.dumps(d)
    text = render_text([report])
    assert "may merge" in text and "v_perm_b32 x0 to x2" in text


def test_may_merge_matches_the_check_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from linlayout.show.schemas import schema

    report = check_module(_bytes_probe())
    s = schema("check")
    validator = jsonschema.Draft202012Validator({"$defs": s["$defs"], "$ref": "#/$defs/op"})
    for op in report.ops:
        validator.validate(json.loads(json.dumps(op_dict(op))))


def test_no_other_outcome_where_triton_stores_words():
    (op,) = [r for r in check_module(_probe()).ops if r.access.kind == "convert"]
    assert op.may_merge is None and "may_merge" not in op_dict(op)


def test_refuses_bad_arguments():
    with pytest.raises(LayoutError):
        store_destinations("not a module")
    with pytest.raises(LayoutError):
        pack_stored_words([], {}, "gfx950")
    assert pack_stored_words([], {}, Target.parse("gfx950")) == []


def test_no_other_outcome_on_nvidia():
    """ptxas/NVPTX merging byte stores is not measured: NVIDIA 8-bit converts name none."""
    probes = {n: e for n, e in entries("cvt_fresh").items()
              if "_b8_" in n and e["target"].startswith("cuda")}
    assert probes
    for name, e in probes.items():
        for op in check_module(read_ttgir(e["ttgir"])).ops:
            assert op.may_merge is None, name
