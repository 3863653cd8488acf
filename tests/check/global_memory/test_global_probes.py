"""``check``'s global instructions equal Triton 3.9's on every compiled probe
(``papers/global_memory/probes.py``; ``tests/data/triton_global_probes.json.gz``): the static
count of each ``ld.global``/``st.global``/``cp.async``/atomic opcode of the PTX, and on AMD of
each global load/store of Triton's LLVM IR before LLVM's optimiser; and on AMD the final AMDGCN
(``"amdgcn"``) equals those counts with, op by op, each ``may_merge`` taken or not (LLVM's back
end merging a thread's run), the known differences strict xfails (``known_mismatches.json``,
set ``global``)."""

from __future__ import annotations

import collections
import gzip
import json
import re

import pytest

from linlayout.check import check_module
from linlayout.check.global_memory.compare import AGREES, amd_merge_outcome
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import cases
from tests.support import DATA

PROBES = json.loads(gzip.decompress((DATA / "triton_global_probes.json.gz").read_bytes()))


def family(opcode: str) -> str:
    """An atomic's opcode by family, as this fixture records atomics (``atom.global``,
    ``red.global``, ``global_atomic``, ``buffer_atomic``); other opcodes unchanged. The exact
    atomic opcodes are checked by ``test_atomic_probes.py``."""
    m = re.match(r"(atom|red)\.global|(global|buffer)_atomic", opcode)
    return m.group(0) if m else opcode


def _predicted(ttgir: str) -> dict:
    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        assert g.prediction is not None, g.note
        out[family(g.prediction.opcode)] += g.prediction.per_thread
    return dict(sorted(out.items()))


@pytest.mark.parametrize("name", sorted(PROBES["probes"]))
def test_global_instructions_equal_the_compiled_kernel(name):
    p = PROBES["probes"][name]
    assert _predicted(p["ttgir"]) == p["counts"]


def test_every_set_is_there():
    sets = collections.Counter(p["set"] for p in PROBES["probes"].values())
    assert sets["design"] > 100 and sets["check"] > 100 and sets["tutorial"] > 100


def test_the_tutorial_set_covers_five_targets_and_the_tutorial_kernels():
    tut = {n: p for n, p in PROBES["probes"].items() if p["set"] == "tutorial"}
    assert {p["target"] for p in tut.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                  "gfx950"}
    for kind in ("softmax", "layernorm", "reduction", "tutorial_matmul", "attention"):
        assert any(n.startswith(f"tutorial_{kind}_") for n in tut), kind


def test_scalar_stores_and_transposed_cp_async_destinations_are_in_the_fixture():
    """The two classes the ``tutorial`` set found: a scalar ``tt.store`` and a ``cp.async``
    cut by its destination's layout (fewer than AxisInfo's ``contiguity`` elements)."""
    ttgirs = [p["ttgir"] for p in PROBES["probes"].values()]
    assert any(re.search(r"tt\.store %\w+, %\w+ : !tt\.ptr<", t) for t in ttgirs)
    assert any("transposed = true, elementBitWidth = 32" in t
               and "async_copy_global_to_local" in t for t in ttgirs)


ASYNC = sorted(n for n, p in PROBES["probes"].items()
               if "async_copy_global_to_local" in p["ttgir"])


@pytest.mark.parametrize("name", ASYNC)
def test_cp_async_on_the_shared_side_equals_the_ptx(name):
    """The shared-memory rows of ``cp.async`` (masked ones without a ``contiguity``
    attribute included: their width comes from AxisInfo) count what the PTX holds."""
    p = PROBES["probes"][name]
    rep = check_module(read_ttgir(p["ttgir"]), suggest=False)
    got: collections.Counter = collections.Counter()
    for o in rep.ops:
        for i in o.instructions:
            if i.emitted.opcode.startswith("cp.async"):
                got[i.emitted.opcode] += i.emitted.per_thread
    assert dict(got) == {k: v for k, v in p["counts"].items() if k.startswith("cp.async")}


def test_some_masked_copies_have_no_contiguity_attribute():
    lines = [ln for n in ASYNC for ln in PROBES["probes"][n]["ttgir"].splitlines()
             if "async_copy_global_to_local" in ln]
    assert any(" mask " in ln and "contiguity" not in ln for ln in lines)


AMD = cases("global", lambda n, e: e["target"].startswith("gfx"))


@pytest.mark.parametrize("name", AMD)
def test_amd_final_amdgcn_is_triton_ir_or_a_named_merge(name):
    """The final AMDGCN's global loads and stores (``"amdgcn"``, LLVM's back end after
    Triton's IR) are ``check``'s counts with some of its ``may_merge`` taken (an op whole or
    some of its runs: :data:`~linlayout.check.global_memory.compare.AGREES`): nothing merged
    that ``check`` does not name, no bytes lost or added."""
    p = PROBES["probes"][name]
    rep = check_module(read_ttgir(p["ttgir"]), suggest=False)
    assert amd_merge_outcome(rep.global_ops, p["amdgcn"]) in AGREES


def test_amd_merges_named_are_seen_both_ways():
    """``may_merge`` is named where LLVM merged and where it did not (why it is an alternative,
    not the count): both outcomes are in the fixture."""
    seen = collections.Counter()
    for name, p in PROBES["probes"].items():
        if not p["target"].startswith("gfx"):
            continue
        rep = check_module(read_ttgir(p["ttgir"]), suggest=False)
        if any(g.prediction is not None and g.prediction.may_merge is not None
               for g in rep.global_ops):
            seen[amd_merge_outcome(rep.global_ops, p["amdgcn"])] += 1
    assert seen["merged"] > 10 and seen["as counted"] > 3
