"""ConflictVerdict: the library's verdict is exactly what ``linlayout conflicts`` prints.

``to_text()`` is the command's stdout (table, note, ``ok:``/``FAIL:`` line) and ``to_dict()``
the data of its ``--json``; a smaller tile is counted at the memory's origin with a note.
"""

from __future__ import annotations

import json

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, cute
from linlayout.hardware import AMD_CDNA3
from linlayout.show.conflicts import CONFLICT_HEADER, ConflictVerdict, conflict_verdict, tile_note

from tests.support import run_cli

MEMORY = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"
ATOM = "sm80_16x8x16.A"


def _layouts():
    return cute.atom_info(ATOM).linear_layout(None), cute.parse_layout(MEMORY)


@pytest.mark.parametrize("extra, kwargs", [
    ([], {}),
    (["--instruction", "ldmatrix.x4"], {"instruction": "ldmatrix.x4"}),
    (["--max-degree", "2"], {"max_degree": 2}),
    (["--hardware", "AMD_CDNA3"], {"hardware": AMD_CDNA3}),
])
def test_to_text_and_to_dict_are_what_the_command_prints(capsys, extra, kwargs):
    layout, memory = _layouts()
    verdict = conflict_verdict(layout, memory, element_bits=16, **kwargs)
    argv = ["conflicts", "--memory", MEMORY, "--layout", ATOM, "--element-bits", "16", *extra]
    code, out, err = run_cli(capsys, *argv)
    assert err == "" and code == (0 if verdict.ok else 1)
    assert out == verdict.to_text() + "\n"
    code, out, _ = run_cli(capsys, *argv, "--json")
    assert json.loads(out) == verdict.to_dict()


def test_a_smaller_tile_is_counted_at_the_origin_with_a_note():
    layout, memory = _layouts()
    note = tile_note(layout, memory)
    assert note == ("the layout covers [16, 16] of the memory's [64, 64]: counted at the "
                    "tile's origin")
    verdict = conflict_verdict(layout, memory, element_bits=16)
    assert verdict.note == note and f"note: {note}" in verdict.to_text()
    assert verdict.to_dict()["note"] == note
    assert tile_note(memory, memory) is None


def test_the_verdict_line_and_json_keys():
    lanes = LinearLayout.identity_1d(32, "lane", "dim0")
    strided = LinearLayout.strided_1d(32, 2, "lane", "dim0")
    memory = LinearLayout.identity_1d(64, "offset", "dim0")
    rep = bank_conflicts(strided, memory, element_bits=32)
    bad = ConflictVerdict(rep, 1)
    assert rep.degree == 2 and not bad.ok
    lines = bad.to_text().splitlines()
    assert [c.strip() for c in lines[0].split(" | ")] == list(CONFLICT_HEADER)
    assert lines[-1] == "FAIL: degree 2 > --max-degree 1"
    data = bad.to_dict()
    assert set(data) >= {"degree", "max_degree", "ok"} and "note" not in data
    assert data["ok"] is False and data["max_degree"] == 1
    good = conflict_verdict(lanes, LinearLayout.identity_1d(32, "offset", "dim0"),
                            element_bits=32)
    assert good.ok and good.to_text().endswith("ok: degree 1 <= --max-degree 1")


def test_max_degree_below_one_is_refused():
    lanes = LinearLayout.identity_1d(32, "lane", "dim0")
    memory = LinearLayout.identity_1d(32, "offset", "dim0")
    with pytest.raises(LayoutError, match="max_degree"):
        conflict_verdict(lanes, memory, element_bits=32, max_degree=0)
