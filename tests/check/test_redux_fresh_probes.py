"""A fourth draw of held-out reduction probes (``tests/data/triton_redux_fresh_probes.json.gz``,
written by ``papers/triton_lowering/redux_heldout_probes.py --fresh``: seed 5323, 40 Gluon
reductions, 8-bit heavy), made after NVPTX's selection of an 8-bit reduction's reloaded byte
extracts was modelled (``linlayout/lowering/byte_extracts.py``). On every ``tt.reduce`` and
``ttg.convert_layout`` line, ``linlayout check --json``'s register instructions and, on a
reduce's line, its shared-memory bytes per thread equal Triton's lowering on the data path,
as ``tests/check/test_redux_heldout_probes.py`` compares them. Known differences would be
strict xfails (``tests/data/known_mismatches.json``, set ``redux_fresh``): none, 40 of 40 as
drawn."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.check.test_redux_heldout_probes import PROBES


@pytest.mark.parametrize("case", cases("redux_fresh"))
def test_reduce_and_convert_instructions_equal_tritons_lowering(case):
    e = entries("redux_fresh")[case]
    assert PROBES.predicted(e["ttgir"]) == PROBES.observed(e["ttgir"], e["data"]["lowering"])


def test_the_draw_is_the_fresh_one_and_mostly_8_bit():
    data = entries("redux_fresh")
    assert len(data) == PROBES.FRESH[1]
    assert {e["seed"] for e in data.values()} == {PROBES.FRESH[0]}
    assert sum(n.split("_")[1] in ("i8", "u8") for n in data) >= len(data) // 2
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "cuda100"}


def test_signed_byte_reductions_whose_round_reloads_bytes_are_in_the_draw():
    """The draw reaches the modelled selection: 8-bit signed min/max reductions with a
    cross-warp round (a byte both shuffled and sign-extended, or widened by redux.sync)."""
    signed = [n for n in entries("redux_fresh")
              if n.split("_")[1] == "i8" and n.split("_")[2] in ("min", "max")]
    crossing = [n for n in signed if any(len(r) > 1
                                         for r in PROBES.redux_lines(
                                             entries("redux_fresh")[n]["ttgir"]).values())]
    assert len(crossing) >= 3
