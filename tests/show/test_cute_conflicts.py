"""linlayout.show.cute_conflicts: ``linlayout conflicts`` from Python on CuTe text prints what
the command prints."""

from __future__ import annotations

import json

import pytest

from linlayout import LayoutError
from linlayout.cli import main
from linlayout.show.cute_conflicts import cute_conflicts

CASES = [
    ("sm80_16x8x16.A", "Sw<3,3,3> o _0 o (_16,_64):(_64,_1)", 16, None),
    ("sm80_16x8x16.A", "Sw<3,3,3> o _0 o (_16,_64):(_64,_1)", 16, "ldmatrix.x4"),
    ("sm80_16x8x16.A", "(_16,_64):(_64,_1)", 16, None),
    ("sm80_16x8x16.A", "(_64,_64):(_72,_1)", 16, None),                 # padded
    ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8", "(_16,_8):(_8,_1)", 32, None),
    ("sm75_u32x4_ldsm_n", "(_8,_32):(_1,_8)", 16, "ldmatrix.x4"),      # copy atom by name
    ("sm80_16x8x16.C", "sm90_gmma_mn_sw128", 32, None),                  # memory atom by name
]


@pytest.mark.parametrize("layout,memory,bits,instruction", CASES)
def test_same_as_the_command(capsys, layout, memory, bits, instruction):
    argv = ["conflicts", "--layout", layout, "--memory", memory, "--element-bits", str(bits)]
    if instruction:
        argv += ["--instruction", instruction]
    v = cute_conflicts(layout, memory, element_bits=bits, instruction=instruction)
    code = main(argv)
    out = capsys.readouterr().out
    assert code == (0 if v.ok else 1)
    assert out.rstrip("\n") == v.to_text()
    code = main(argv + ["--json"])
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(v.to_dict()))


def test_padded_counts_and_explains():
    v = cute_conflicts("sm80_16x8x16.A", "(_64,_64):(_72,_1)", element_bits=16, explain=True)
    assert v.ok and v.note and v.explanation is not None


def test_refusals():
    with pytest.raises(LayoutError, match="shared-memory layout"):
        cute_conflicts("(_64,_64):(_64,_1)", "(_64,_64):(_64,_1)", element_bits=16)
    with pytest.raises(LayoutError, match="takes \\[8, 16, 32\\]-bit elements, not 64"):
        cute_conflicts("sm75_u32x4_ldsm_n", "(_64,_64):(_64,_1)", element_bits=64)
