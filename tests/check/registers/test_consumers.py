"""Where a convert's result is stored (linlayout/check/registers/consumers.py), and ``check``
counting the ``v_perm_b32`` that build Triton's 4-byte store vectors from two loaded scratch
words on gfx950 (a shuffle probe of papers/triton_lowering/shuffle_probes.py: 4 in the final
AMDGCN)."""

from __future__ import annotations

import pytest

from linlayout.check.analysis import check_module
from linlayout.check.registers import pack_stored_words, store_destinations
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


def test_refuses_bad_arguments():
    with pytest.raises(LayoutError):
        store_destinations("not a module")
    with pytest.raises(LayoutError):
        pack_stored_words([], {}, "gfx950")
    assert pack_stored_words([], {}, Target.parse("gfx950")) == []
