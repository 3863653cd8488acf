"""The command line's CuTe arguments beyond plain layouts: padded strides (conflicts --memory
only) and the shared-memory, tensor-memory and AMD atoms by name."""

from __future__ import annotations

import json

import pytest

from linlayout.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_conflicts_counts_a_padded_cute_layout(capsys):
    """Rows of 64 halves padded by 8 (#ttg.padded_shared<[64:+8]>): the mma A fragment's
    ld.shared is conflict-free; unpadded it is 8-way."""
    code, out, _ = run(capsys, "conflicts", "--layout", "sm80_16x8x16.A", "--memory",
                       "(_64,_64):(_72,_1)", "--element-bits", "16", "--json")
    assert code == 0 and json.loads(out)["degree"] == 1
    code, out, _ = run(capsys, "conflicts", "--layout", "sm80_16x8x16.A", "--memory",
                       "(_64,_64):(_64,_1)", "--element-bits", "16", "--json")
    assert code == 1 and json.loads(out)["degree"] == 8


@pytest.mark.parametrize("argv", [
    ["show", "(_64,_64):(_72,_1)", "--element-bits", "16"],
    ["synthesize", "--src", "sm80_16x8x16.C", "--dst", "(_16,_8):(_9,_1)",
     "--element-bits", "32"],
])
def test_padded_layouts_elsewhere_are_refused_in_one_line(capsys, argv):
    code, _, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1
    assert "padded shared-memory layout" in err and "conflicts --memory" in err


def test_memory_and_amd_atoms_by_name(capsys):
    code, out, _ = run(capsys, "conflicts", "--layout", "sm80_16x8x16.C", "--memory",
                       "sm90_gmma_mn_sw128", "--element-bits", "32", "--json")
    assert code == 0 and json.loads(out)["degree"] == 1
    code, _, err = run(capsys, "conflicts", "--layout", "sm80_16x8x16.C", "--memory",
                       "sm90_tma_sw128", "--element-bits", "128")
    assert code == 2 and "takes [8, 16, 32, 64]-bit elements, not 128" in err
    # one MFMA wavefront (64 lanes) reading its K-major A operand from an unpadded 16x16 tile
    code, out, _ = run(capsys, "conflicts", "--layout", "amd_mfma_f32_16x16x16_f16.A",
                       "--memory", "(_16,_16):(_16,_1)", "--element-bits", "16",
                       "--hardware", "AMD_CDNA3", "--json")
    assert code == 1 and json.loads(out)["lanes_per_phase"] == 16
