"""The examples in the public docstrings run (``>>>`` lines) and print what they claim."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import linlayout

MODULES = sorted(m.name for m in pkgutil.iter_modules(linlayout.__path__, "linlayout.")
                 if m.name != "linlayout.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
