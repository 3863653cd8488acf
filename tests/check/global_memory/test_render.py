"""The global rows of ``check``: an op with run-time fallback instructions (an AMD 16-bit
float add whose vector is one) lists them in its JSON ``instructions``, its text row and the
kernel's totals."""

from __future__ import annotations

import pytest

from linlayout.check import check_module
from linlayout.check.global_memory.render import global_dict, global_rows, global_totals
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import entries


def _paired_kernel() -> tuple[str, dict]:
    """A gfx942 bf16 atomic add whose vector is one (Triton's lane-pair path), from the AMD
    atomic fixture: one packed and two compare-and-swap atomics per element."""
    for name, p in sorted(entries("amd_atomics").items()):
        c = p["counts"]
        if p["target"] == "gfx942" and "_add_bf16_" in name and "scalar" not in name and \
                c.get("global_atomic_cmpswap") == 2 * c.get("global_atomic_pk_add_bf16", -1):
            return name, p
    pytest.fail("the fixture holds no paired bf16 add on gfx942")


def test_fallbacks_appear_in_json_rows_and_totals():
    name, p = _paired_kernel()
    rep = check_module(read_ttgir(p["ttgir"], name), suggest=False)
    (g,) = [g for g in rep.global_ops if g.prediction.side == "atomic"]
    pred = g.prediction
    elems = pred.per_thread
    assert pred.opcode == "global_atomic_pk_add_bf16" and pred.vector_elems == 1
    assert pred.fallbacks == (("global_atomic_cmpswap", 2 * elems),)
    assert pred.instructions() == (("global_atomic_pk_add_bf16", elems),
                                   ("global_atomic_cmpswap", 2 * elems))
    d = global_dict(g, nvidia=False)
    first, second = d["instructions"]
    assert "fallback" not in first and first["isa"] == "global_atomic_pk_add_bf16"
    assert second["fallback"] is True and second["isa"] == "global_atomic_cmpswap"
    assert second["per_thread"] == 2 * elems and second["vector_bytes"] == 2
    assert second["sectors_per_request"] is None
    totals = global_totals(rep.global_ops)
    assert totals["per_thread"]["global_atomic_cmpswap"] >= 2 * elems
    # the fallbacks add instructions, not bytes: each element is added once
    assert totals["global_bytes_per_thread"]["atomic"] == elems * 2
    (row,) = [r for r in global_rows(rep.global_ops) if r[0] == g.op.line]
    assert row[4] == (f"global_atomic_pk_add_bf16 x{elems} + global_atomic_cmpswap "
                      f"x{2 * elems} (loop load: global_load_dword x{2 * elems})")
    # each scalar fallback is a compare-and-swap loop that begins with a load of its word:
    # named on the first entry, left out of the totals (Triton's IR has none)
    assert pred.loop_load == ("global_load_dword", 2 * elems)
    assert first["loop_load"] == {"isa": "global_load_dword", "per_thread": 2 * elems}
    assert "loop_load" not in second
    assert "global_load_dword" not in totals["per_thread"] or \
        totals["per_thread"]["global_load_dword"] == sum(
            h.prediction.per_thread for h in rep.global_ops
            if h.prediction.opcode == "global_load_dword")


def test_fallback_entries_match_the_check_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from linlayout.show.schemas import schema

    name, p = _paired_kernel()
    rep = check_module(read_ttgir(p["ttgir"], name), suggest=False)
    s = schema("check")
    validator = jsonschema.Draft202012Validator({"$defs": s["$defs"],
                                                 "$ref": "#/$defs/global_op"})
    for g in rep.global_ops:
        validator.validate(global_dict(g, nvidia=False))
