"""The held-out reduction probes (``tests/data/triton_redux_heldout_probes.json.gz``, written
by ``papers/triton_lowering/redux_heldout_probes.py`` with Triton 3.9 on cuda:80/90/100):
Gluon reductions of ``i8``/``i16``/``i32``/``u8``/``u16`` tiles (``add``, ``max``, ``min``,
``xor``, ``and``, ``or``) and ``f16``/``bf16`` sums, in random blocked and sliced layouts
over 1 to 8 warps, some in two steps over a 3-D tile, each result converted to another
layout. On every ``tt.reduce`` line, ``linlayout check --json``'s register instructions
(``redux.sync``, the selects that feed it, butterfly shuffles, the byte permutes of its own
converts) and shared-memory bytes per thread of each side, and on every convert line its
register instructions, equal those of Triton's lowering (the assembly of its LLVM IR with
``-O3`` skipped), counted on the data path (``papers/triton_lowering/datapath.py``). Known
differences are strict xfails with their reason (``tests/data/known_mismatches.json``, set
``redux_heldout``): both left are NVPTX's selection of the byte extracts Triton emits after an
8-bit reduction's last shared-memory load, given the line of the convert that stores them as
single bytes (the selections that follow a rule — a byte 0 widened for free, stored words
built straight from the loaded ones, a byte sign-extended a second time — are modelled:
``linlayout/lowering/byte_extracts.py``)."""

from __future__ import annotations


import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries, known_mismatches
from tests.support import papers_module

PROBES = papers_module("papers/triton_lowering/redux_heldout_probes.py")


@pytest.mark.parametrize("case", cases("redux_heldout"))
def test_reduce_and_convert_instructions_equal_tritons_lowering(case):
    e = entries("redux_heldout")[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.observed(e["ttgir"], e["data"]["lowering"])


def test_the_data_path_is_part_of_each_assembly():
    """Every probe has data-path counts for both assemblies, each opcode of a line at most as
    often as in the whole assembly on that line."""
    for case, e in entries("redux_heldout").items():
        assert set(e["data"]) == {"lowering", "final"}, case
        for label in ("lowering", "final"):
            for line, counts in e["data"][label].items():
                whole = e[label].get(line, {})
                assert all(n <= whole.get(op, 0) for op, n in counts.items()), case


def test_the_set_reaches_every_target_type_and_family():
    data = entries("redux_heldout")
    assert len(data) >= 200
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "cuda100"}
    assert {n.split("_")[0] for n in data} == {"r2", "r3"}
    assert {n.split("_")[1] for n in data} == {"i8", "i16", "i32", "u8", "u16", "f16", "bf16"}
    assert {e["seed"] for e in data.values()} == {PROBES.SEED, PROBES.AFTER[0], PROBES.BYTES[0]}


def test_the_8_bit_heavy_draw_is_mostly_8_bit():
    draw = [n for n, e in entries("redux_heldout").items() if e["seed"] == PROBES.BYTES[0]]
    assert len(draw) == PROBES.BYTES[1]
    assert sum(n.split("_")[1] in ("i8", "u8") for n in draw) >= len(draw) // 2


def test_redux_rounds_that_leave_32_bit_registers_are_exercised_and_match():
    """Probes whose reduction has a redux.sync round on 8/16-bit values (its results left in
    32-bit registers) occur, with a cross-warp round after it too, and so do redux.sync
    rounds with selects; the known mismatches among them are 8-bit reductions whose last
    move goes through shared memory (the extracts of the loaded bytes, not the rule)."""
    known = known_mismatches().get("redux_heldout", {})
    covered = {n for n, e in entries("redux_heldout").items()
               if any(any(r) for r in PROBES.redux_lines(e["ttgir"]).values())}
    crossing = {n for n, e in entries("redux_heldout").items()
                if any(len(r) > 1 and r[0] for r in PROBES.redux_lines(e["ttgir"]).values())}
    selects = {n for n, e in entries("redux_heldout").items()
               if any("redux" in str(c) and "selp" in str(c)
                      for c in e["data"]["lowering"].values())}
    assert len(covered) >= 20 and crossing and len(selects) >= 20
    assert all(n.split("_")[1] in ("i8", "u8") for n in (covered | selects) & set(known))
