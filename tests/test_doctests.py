"""The examples in the public docstrings run (``>>>`` lines) and print what they claim.

``MODULES`` are every module and subpackage of linlayout, recursively (doctest skips
re-exported functions, so each is run where it is defined).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import linlayout


MODULES = sorted(m.name for m in pkgutil.walk_packages(linlayout.__path__, "linlayout.")
                 if m.name != "linlayout.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples_run(name):
    module = importlib.import_module(name)
    # examples may use the public names a user has at hand
    names = {"LinearLayout": linlayout.LinearLayout, "ll": linlayout}
    result = doctest.testmod(module, extraglobs=names, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
