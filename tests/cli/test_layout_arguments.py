"""The command line takes CuTe text and atom names wherever it takes a layout file; synthesize
prints (and --json carries) the result as Triton text, Gluon source and CuTe."""

from __future__ import annotations

import json

import pytest

from linlayout.cli import main
from linlayout.cute import atom, parse_layout

SW128_F16 = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_conflicts_with_cute_text_and_an_atom_name(capsys):
    """The README's example: a swizzled CuTe memory, the mma A fragment by name; the 16x16
    fragment is counted at the 64x64 tile's origin. Sw<3,4,3> on the element index is the
    byte-address swizzle's spelling mistake for halves (2-way); Sw<3,3,3> is right."""
    code, out, _ = run(capsys, "conflicts", "--memory", "Sw<3,4,3> o _0 o (_64,_64):(_64,_1)",
                       "--layout", "sm80_16x8x16.A", "--element-bits", "16", "--json")
    rep = json.loads(out)
    assert code == 1 and rep["degree"] == 2 and "origin" in rep["note"]
    code, out, _ = run(capsys, "conflicts", "--memory", SW128_F16, "--layout", "sm80_16x8x16.A",
                       "--element-bits", "16", "--instruction", "ldmatrix.x4")
    assert code == 0 and "ok: degree 1" in out and "note: the layout covers [16, 16]" in out


def test_a_tv_layout_with_its_tile(capsys):
    code, out, _ = run(capsys, "conflicts", "--layout",
                       "((_4,_8),(_2,_2)):((_32,_1),(_16,_8)) on 16x8",
                       "--memory", "(_16,_8):(_1,_16)", "--element-bits", "32", "--json")
    assert code == 1 and json.loads(out)["degree"] == 4  # column-major: rows 0-7 share banks
    code, out, _ = run(capsys, "conflicts", "--layout", "sm80_16x8x16.C",
                       "--memory", "(_16,_8):(_8,_1)", "--element-bits", "32")
    assert code == 0


def test_copy_atoms_need_the_element_size(capsys):
    code, out, _ = run(capsys, "show", "sm75_u16x8_ldsm_t", "--element-bits", "16")
    assert code == 0 and "t0:r0" in out
    code, _, err = run(capsys, "synthesize", "--src", "sm75_u16x8_ldsm_t", "--dst",
                       "sm75_u32x4_ldsm_n", "--element-bits", "8")
    assert code == 2 and "takes [16]-bit elements" in err


def test_show_draws_cute_layouts(capsys):
    code, out, _ = run(capsys, "show", "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)", "--element-bits",
                       "16")
    assert code == 0 and "offset = 64·dim0 + (dim1 ⊕ 8·dim0)" in out
    code, out, _ = run(capsys, "show", "sm90_64x8.C")
    assert code == 0 and "t0:r0" in out


def test_synthesize_prints_triton_gluon_and_cute(capsys):
    args = ["synthesize", "--src", "((_2,_16),_8):((_128,_1),_16) on 16x16", "--dst",
            "sm80_16x8x16.A", "--element-bits", "16", "--instructions", "auto"]
    code, out, _ = run(capsys, *args)
    assert code == 0
    lines = {ln.split(":", 1)[0]: ln.split(":", 1)[1].strip() for ln in out.splitlines()
             if ln.startswith(("Triton:", "Gluon:", "CuTe:"))}
    assert lines["Triton"].startswith("#ttg.")
    assert lines["Gluon"].startswith("gl.")
    assert lines["CuTe"].startswith("Sw<") and " o _0 o " in lines["CuTe"]
    code, out, _ = run(capsys, *args, "--json")
    data = json.loads(out)
    assert code == 0 and {"triton", "gluon", "cute"} <= set(data)
    assert data["cute"] == lines["CuTe"] and data["gluon"] == lines["Gluon"]
    # the CuTe text is the synthesized layout
    from linlayout import LinearLayout

    M = parse_layout(data["cute"])
    L = LinearLayout.from_dict(data["layout"])
    assert [M.apply_flat(o) for o in range(256)] == [L.apply_flat(o) for o in range(256)]
    assert atom("sm80_16x8x16.A").out_dims == M.out_dims


def test_json_says_when_there_is_no_cute_form(capsys):
    from linlayout.show.synthesis import interop

    forms = interop(
        __import__("linlayout").LinearLayout({"offset": [[1, 1], [0, 1], [2, 2], [0, 2]]},
                                             out_dims={"dim0": 4, "dim1": 4}), 16)
    assert forms["cute"] is None and "no CuTe form" in forms["cute_reason"]
    assert forms["triton"].startswith("#ttg.shared_linear")


@pytest.mark.parametrize("argv,match", [
    (["show", "nope"], "is no file, atom name or CuTe layout; give a JSON layout file, a CuTe "
                       "atom name"),
    (["show", "/no/such/file.json"], "is no file, atom name or CuTe layout"),
    (["show", "(_8,_3):(_1,_8)"], r"mode 1 \(_3:_8\): the shape 3 is not a power of two"),
    (["show", "Sw<3,3,3> o _64 o (_4,_64):(_128,_1)"], "gaps"),
    (["show", "(_32,_4):(_4,_1) on 64"], "reaches index 127"),
    (["conflicts", "--layout", "sm80_16x8x16.A", "--memory", "(_8,_8):(_8,_1)",
      "--element-bits", "16"], "out dim 'dim0' has size 16 in the layout but 8 in the memory"),
    (["synthesize", "--src", "sm75_u32x4_ldsm_n", "--dst", "sm75_u32x4_ldsm_n.src",
      "--element-bits", "12"], "takes"),
])
def test_bad_layout_arguments_exit_2_with_one_line(capsys, argv, match):
    import re

    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("linlayout: error: ")
    assert re.search(match, err), err
