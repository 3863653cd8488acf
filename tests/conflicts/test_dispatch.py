"""linlayout.conflicts.dispatch: the public counters route to the engines and adapters, and
the package's modules import one way only (engines never import the adapters or dispatch)."""

from __future__ import annotations

import ast
import pathlib

import pytest

import linlayout
from linlayout import LayoutError, LinearLayout, bank_conflicts, examples, simulate_bank_access
from linlayout.conflicts import dispatch
from linlayout.conflicts.closed_form import linear_bank_conflicts
from linlayout.conflicts.lds import lds_bank_conflicts
from linlayout.conflicts.padded import padded_bank_conflicts, simulate_padded_access
from linlayout.conflicts.simulate import simulate_access
from linlayout.hardware import AMD_CDNA4, bank_model, parse_instruction
from linlayout.layout.padded import PaddedLayout

PACKAGE = pathlib.Path(linlayout.__file__).parent

#: What each module of linlayout/conflicts may import from the package (the rest of
#: linlayout it may import only from the layers below: f2, layout, hardware, ...).
ALLOWED = {
    "report": set(),
    "closed_form": {"report"},
    "simulate": {"report"},
    "padded": {"report", "closed_form", "simulate"},
    "lds": {"report", "closed_form", "simulate", "padded"},
    "dispatch": {"report", "closed_form", "simulate", "padded", "lds"},
    "__init__": {"report", "dispatch"},
}
BELOW = {"f2", "subspace", "errors", "_checks", "layout", "hardware"}


def _imports(path: pathlib.Path) -> list[tuple[int, str, bool]]:
    """(level, module, at module level) of every ``from … import`` in a file
    (``from .. import f2`` gives ``(2, "f2", …)``)."""
    tree = ast.parse(path.read_text())
    top = {id(n) for n in tree.body}
    return [(n.level, module, id(n) in top)
            for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            for module in ([n.module] if n.module else [a.name for a in n.names])]


@pytest.mark.parametrize("name", sorted(ALLOWED))
def test_modules_import_one_way_and_at_module_level(name):
    for level, module, at_top in _imports(PACKAGE / "conflicts" / f"{name}.py"):
        assert at_top, f"{name}: function-level import of {module}"
        if level == 1:
            assert module.split(".")[0] in ALLOWED[name], f"{name} imports .{module}"
        elif level == 2:
            assert module.split(".")[0] in BELOW, f"{name} imports ..{module}"


def test_hardware_never_imports_conflicts():
    for path in (PACKAGE / "hardware").glob("*.py"):
        for level, module, _ in _imports(path):
            assert not (level == 2 and module.startswith("conflicts")), path.name


def _transpose():
    ex = examples.get("transpose")
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(5)] +
                        [[1 << i, 0] for i in range(4)]}, ex.load.out_dims)
    return ex.load, mem


def test_linear_memory_goes_to_the_engines():
    lay, mem = _transpose()
    model, instr = bank_model(32), parse_instruction(None)
    assert bank_conflicts(lay, mem, element_bits=32) == linear_bank_conflicts(
        lay, mem, element_bits=32)
    assert simulate_bank_access(lay, mem, element_bits=32) == simulate_access(
        lay, mem, model, instr)
    assert bank_conflicts(lay, mem, element_bits=32).degree == 16  # 16 rows, one bank


def test_padded_memory_goes_to_the_padded_adapter():
    lay, mem = _transpose()
    pad = PaddedLayout(mem, ((32, 1),))
    want = padded_bank_conflicts(lay, pad, element_bits=32)
    assert bank_conflicts(lay, pad, element_bits=32) == want
    assert simulate_bank_access(lay, pad, element_bits=32) == simulate_padded_access(
        lay, pad, bank_model(32), parse_instruction(None)) == want
    assert want.degree == 2  # rows 33 words apart: lane (r, 1) meets lane (r + 1, 0)


def test_lds_mnemonics_go_to_the_lds_adapter():
    lay = LinearLayout({"register": [[0, 1], [0, 2]],
                        "lane": [[0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0]]},
                       {"dim0": 8, "dim1": 32})
    mem = LinearLayout({"offset": [[0, 1 << i] for i in range(5)] +
                        [[1 << i, 0] for i in range(3)]}, lay.out_dims)
    for simulate, fn in ((False, bank_conflicts), (True, simulate_bank_access)):
        rep = fn(lay, mem, element_bits=32, instruction="ds_read_b128")
        assert rep == lds_bank_conflicts(lay, mem, element_bits=32,
                                         instruction="ds_read_b128", simulate=simulate,
                                         hardware=AMD_CDNA4)
        assert rep.instruction == "ds_read_b128" and rep.vector_elems == 4


def test_errors_come_from_the_same_checks_in_the_same_order():
    lay, mem = _transpose()
    pad = PaddedLayout(mem, ((32, 1),))
    for fn in (bank_conflicts, simulate_bank_access):
        with pytest.raises(LayoutError, match="element_bits"):
            fn(lay, pad, element_bits=3, instruction="ldmatrix.x4")
        with pytest.raises(LayoutError, match="unknown instruction"):
            fn(lay, mem, element_bits=32, instruction="ld.global")
        with pytest.raises(LayoutError, match="on a padded layout is not modelled"):
            fn(lay, pad, element_bits=16, instruction="ldmatrix.x4")
        with pytest.raises(LayoutError, match="vector_elems does not apply"):
            fn(lay, mem, element_bits=32, instruction="ds_read_b128", vector_elems=4)
    assert dispatch.__all__ == ["bank_conflicts", "simulate_bank_access"]
