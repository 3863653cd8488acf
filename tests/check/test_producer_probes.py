"""The producer probes (``tests/data/triton_producer_probes.json.gz``, written by
``papers/triton_lowering/producer_probes.py`` with Triton 3.9, drawn after the rule that a
gather or a ``redux.sync`` reduction leaves 8/16-bit results in 32-bit registers): for each
compiled gather, reduction or scan feeding a convert, the register instructions ``linlayout
check --json`` lists on the convert's line equal those of Triton's lowering (the assembly of
its LLVM IR with ``-O3`` skipped), both counted on the data path (the probes' ``"data"``
records, ``papers/triton_lowering/datapath.py``: an opcode that computes an address or a lane
index is not what ``check`` reports). Where the lowering has an instruction that only the
assembly with ``-O3`` skipped has (``tests/data/llvm_respelling.json`` marks the probe
``{"check": "final"}`` with the cause and the counts), ``check`` is compared with the final
assembly instead, which is what runs. Known differences are strict xfails with their reason
(``tests/data/known_mismatches.json``, set ``producer``)."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries, known_mismatches
from tests.support import papers_module

PROBES = papers_module("papers/triton_lowering/producer_probes.py")


@pytest.mark.parametrize("case", cases("producer"))
def test_convert_register_instructions_equal_tritons_lowering(case):
    """Against the lowering, or the final assembly where the probe is marked
    (``producer_probes.reference``)."""
    e = entries("producer")[case]
    assert PROBES.predicted(PROBES.check_ops(e["ttgir"])) == \
        PROBES.observed(e["data"][PROBES.reference("producer", case)])


def test_the_data_path_is_part_of_each_assembly():
    """Every probe has its data-path counts for both assemblies, on the same convert lines,
    each opcode at most as often as in the whole assembly on that line."""
    for case, e in entries("producer").items():
        assert set(e["data"]) == {"lowering", "final"}, case
        for label in ("lowering", "final"):
            assert set(e["data"][label]) == set(e[label]), case
            for line, counts in e["data"][label].items():
                assert all(n <= e[label][line].get(op, 0) for op, n in counts.items()), case


def test_the_set_reaches_every_producer_width_and_target():
    data = entries("producer")
    assert len(data) >= 90
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "gfx942", "gfx950"}
    assert {n.split("_")[0] for n in data} == {"gather", "reduce", "scan"}
    assert {n.split("_")[1] for n in data} == {"b8", "b16"}


def test_the_rule_is_exercised_and_every_probe_it_covers_matches():
    """Producers leaving 32-bit registers occur on both vendors, and none of them is a known
    mismatch."""
    known = known_mismatches().get("producer", {})
    covered = {n: e for n, e in entries("producer").items() if PROBES.wide_lines(e["ttgir"])}
    assert Counter(e["target"][:4] for e in covered.values()).keys() == {"cuda", "gfx9"}
    assert not set(covered) & set(known)
