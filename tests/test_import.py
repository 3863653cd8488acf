"""Importing linlayout stays light and complete: galois, sympy, matplotlib and Triton load
only where they are used, and every public name is reachable where the docs say.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

from linlayout import ptx


def test_import_does_not_load_galois_or_sympy():
    code = (
        "import sys, linlayout; "
        "print(sorted(m for m in ('galois', 'sympy', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_cli_formula_and_render_do_not_load_sympy_or_galois():
    code = (
        "import sys, linlayout, linlayout.cli, linlayout.show.formula, linlayout.show.render;"
        "bad = [m for m in ('sympy', 'galois') if m in sys.modules];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_linlayout_triton_loads_lazily_and_never_imports_triton():
    code = ("import sys, linlayout; a = 'linlayout.triton' in sys.modules; "
            "import linlayout.triton; "
            "print(a, any(m == 'triton' or m.startswith('triton.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_public_names_are_importable():
    import linlayout

    for name in ("LinearLayout", "LayoutError", "bank_conflicts", "simulate_bank_access",
                 "synthesize_swizzle", "ConflictReport", "SwizzleResult", "f2"):
        assert hasattr(linlayout, name)
    assert issubclass(linlayout.LayoutError, ValueError)


PTX_SUBMODULES = sorted(m.name for m in pkgutil.iter_modules(ptx.__path__, "linlayout.ptx."))


def test_ptx_package_reexports_its_submodules():
    """``from linlayout import ptx; ptx.<name>`` reaches every public name it had as one module,
    and a name both the package and a submodule export is the same object."""
    for name in PTX_SUBMODULES:
        module = importlib.import_module(name)
        for public in module.__all__:
            if hasattr(ptx, public):
                assert getattr(ptx, public) is getattr(module, public)
    for public in ptx.__all__ + ["tma_layouts", "LINE_BYTES", "DEFAULT_SIZE_BYTES",
                                 "MAX_BOX_ELEMS", "MATCH_ORDER"]:
        assert hasattr(ptx, public)


def test_no_module_imports_another_modules_private_names():
    """Modules talk through public names only (a leading underscore stays in its module)."""
    import ast
    from pathlib import Path

    import linlayout

    root = Path(linlayout.__file__).parent
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                private = [a.name for a in node.names
                           if a.name.startswith("_") and not a.name.startswith("__")]
                assert not private, f"{path.relative_to(root)} imports {private} from {node.module}"


def test_synthesizer_loads_on_first_use():
    """``import linlayout`` leaves the synthesizer unloaded; its names load on first access
    and are the very objects :mod:`linlayout.synthesis` exports."""
    code = ("import sys, linlayout as ll; a = 'linlayout.synthesis' in sys.modules; "
            "f = ll.synthesize_swizzle; import linlayout.synthesis as s; "
            "print(a, f is s.synthesize_swizzle, ll.SwizzleResult is s.SwizzleResult, "
            "'OptimalityBound' in dir(ll))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True", "True"]


def test_unknown_attribute_is_an_attribute_error():
    import linlayout

    try:
        linlayout.no_such_name
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("expected AttributeError")
