"""The ``>>>`` examples of every linlayout.cute module run and print what they claim (the
top-level tests/test_doctests.py covers only linlayout's direct submodules)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import linlayout.cute

MODULES = ["linlayout.cute"] + sorted(
    m.name for m in pkgutil.iter_modules(linlayout.cute.__path__, "linlayout.cute."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_no_module_imports_another_modules_private_names():
    import ast
    from pathlib import Path

    root = Path(linlayout.cute.__file__).parent
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                private = [a.name for a in node.names if a.name.startswith("_")]
                assert not private, f"{path.name} imports {private} from {node.module}"
