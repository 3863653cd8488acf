"""linlayout.hardware.instructions: ldmatrix / stmatrix, named and placed.

Instruction names parse to their matrices and transposition; an ldmatrix of the mma operand
from a row-major tile costs what its 16-byte rows say; rows the instruction cannot read are
rejected by the counter and the simulator alike.
"""

from __future__ import annotations

import random

import pytest

from linlayout import LayoutError, LinearLayout, bank_conflicts, f2, simulate_bank_access
from linlayout.hardware import NVIDIA, check_matrix_access
from linlayout.hardware.instructions import parse_instruction

from tests.support import MMA_A, OUT16, ROW_MAJOR_16X16, random_invertible, split_out


def test_instruction_names_parse_to_matrices_and_transposition():
    i = parse_instruction("ldmatrix.x4.trans")
    assert (i.matrices, i.trans, i.store) == (4, True, False)
    assert parse_instruction(None).name == "ld/st.shared"
    assert parse_instruction("stmatrix.x2").store is True
    with pytest.raises(LayoutError, match="unknown instruction"):
        parse_instruction("ldmatrix.x8")


def test_ldmatrix_from_row_major_16x16_fp16_is_two_way():
    """32-byte rows: ldmatrix rows 0 and 4 land in the same four banks."""
    for name, mats, instrs in (("ldmatrix.x4", 4, 1), ("ldmatrix.x2", 2, 2), ("ldmatrix.x1", 1, 4)):
        rep = bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction=name)
        assert (rep.degree, rep.phases, rep.wavefronts_per_instruction, rep.instructions_per_warp) == (2, mats, 2 * mats, instrs)
        assert rep == simulate_bank_access(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction=name)


def test_misplaced_rows_are_rejected_by_both():
    # column-major memory: a row of 8 fp16 is not contiguous along dim1
    col_major = LinearLayout({"offset": [[1, 0], [2, 0], [4, 0], [8, 0], [0, 1], [0, 2], [0, 4], [0, 8]]},
                             OUT16)
    for fn in (bank_conflicts, simulate_bank_access):
        with pytest.raises(LayoutError):
            fn(MMA_A, col_major, element_bits=16, instruction="ldmatrix.x4")
    with pytest.raises(LayoutError, match="16-bit"):
        bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=32, instruction="ldmatrix.x4.trans")
    with pytest.raises(LayoutError, match="vector_elems"):
        bank_conflicts(MMA_A, ROW_MAJOR_16X16, element_bits=16, instruction="ldmatrix.x4", vector_elems=2)


# ----------------------------------------------------------------------------- hostile arguments
def _four_registers_fp16():
    """16×16 fp16, 4 registers per lane (two 32-bit chunks): enough for stmatrix.x2, too few
    for stmatrix.x4 (four 8×8 matrices need 8 registers per lane)."""
    out = {"dim0": 16, "dim1": 16}
    lay = LinearLayout({"register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0],
                                                              [4, 0]]}, out)
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(4)]
                        + [[1 << i, 0] for i in range(4)]}, out)
    return lay, mem


def test_stmatrix_x4_needs_eight_registers_in_both():
    lay, mem = _four_registers_fp16()
    for name in ("stmatrix.x4", "ldmatrix.x4"):
        with pytest.raises(LayoutError, match="matrices per instruction"):
            bank_conflicts(lay, mem, element_bits=16, instruction=name)
        with pytest.raises(LayoutError, match="matrices per instruction"):
            simulate_bank_access(lay, mem, element_bits=16, instruction=name)
    assert bank_conflicts(lay, mem, element_bits=16, instruction="stmatrix.x2") == \
        simulate_bank_access(lay, mem, element_bits=16, instruction="stmatrix.x2")


def test_check_matrix_access_refuses_the_hardware_it_cannot_run_on():
    instr = parse_instruction("ldmatrix.x1")
    regs, lanes = [1, 16], [2, 4, 32, 64, 128]
    assert check_matrix_access(instr, regs, lanes, 5, 128, 16).row == (1, 2, 4)
    with pytest.raises(LayoutError, match="32-lane"):
        check_matrix_access(instr, regs, lanes + [256], 6, 128, 16)
    with pytest.raises(LayoutError, match="128-byte rows"):
        check_matrix_access(instr, regs, lanes, 5, 64, 16)
    with pytest.raises(LayoutError, match="vector_elems"):
        check_matrix_access(instr, regs, lanes, 5, 128, 16, vector_elems=2)


def _outcome(f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except LayoutError:
        return "refused"


def test_counter_and_simulator_agree_on_random_matrix_accesses():
    """Random layouts with 1 to 5 register bits, memory layouts that store the 16-bit rows as
    ldmatrix reads them (or not), random .xN and element sizes: the counter and the simulator
    refuse the same accesses and count the rest equally."""
    rng = random.Random(14)
    kinds = {"refused": 0, "counted": 0}
    for _ in range(150):
        d = rng.randint(6, 10)
        a = rng.randint(0, d)
        out_bits, out = [a, d - a], {"dim0": 1 << a, "dim1": 1 << (d - a)}
        cols = random_invertible(rng, d, rng.random() < 0.5)
        lanes, regs = cols[:5], cols[5:]
        row = [regs[0], lanes[0], lanes[1]] if rng.random() < 0.8 else []
        rest = [c for c in cols if c not in row]
        rest = [f2.apply(rest, m) for m in random_invertible(rng, len(rest), False)]
        mem = LinearLayout({"offset": [split_out(c, out_bits) for c in row + rest]}, out)
        lay = LinearLayout({"register": [split_out(c, out_bits) for c in regs],
                            "lane": [split_out(c, out_bits) for c in lanes]}, out)
        name = rng.choice(["ldmatrix", "stmatrix"]) + rng.choice([".x1", ".x2", ".x4"])
        e = rng.choice([8, 16, 16, 16, 32])
        counted = _outcome(bank_conflicts, lay, mem, element_bits=e, instruction=name)
        simulated = _outcome(simulate_bank_access, lay, mem, element_bits=e, instruction=name,
                             hardware=NVIDIA)
        assert counted == simulated, (lay, mem, e, name)
        kinds["refused" if counted == "refused" else "counted"] += 1
    assert kinds["refused"] > 10 and kinds["counted"] > 10


def test_one_geometry_serves_every_xn_of_a_kind():
    """matrix_geometry_spare: .x4/.x2/.x1 of one kind fit exactly when the spare register
    rank reaches log2(matrices), with the same geometry matrix_geometry gives; every other
    refusal is matrix_geometry's too."""
    from linlayout.hardware.instructions import matrix_geometry, matrix_geometry_spare

    rng = random.Random(15)
    fits = refused = 0
    for _ in range(200):
        d = rng.randint(6, 10)
        cols = random_invertible(rng, d, rng.random() < 0.5)
        lanes, regs = tuple(cols[:5]), tuple(cols[5:])
        if rng.random() < 0.2:  # a broadcast register or lane
            regs = regs[:1] + (0,) + regs[1:]
        e = rng.choice([8, 16, 16, 32])
        for store in (False, True):
            for trans in ("", ".trans"):
                base = f"{'st' if store else 'ld'}matrix"
                try:
                    geom, spare = matrix_geometry_spare(parse_instruction(f"{base}.x4{trans}"),
                                                        regs, lanes, e)
                except LayoutError:
                    geom = spare = None
                for n in (4, 2, 1):
                    instr = parse_instruction(f"{base}.x{n}{trans}")
                    try:
                        want = matrix_geometry(instr, regs, lanes, e)
                    except LayoutError:
                        want = None
                    got = geom if geom is not None and spare >= n.bit_length() - 1 else None
                    assert got == want, (regs, lanes, e, instr.name)
                    fits += want is not None
                    refused += want is None
    assert fits > 50 and refused > 50
