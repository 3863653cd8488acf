"""The examples in the public docstrings run (``>>>`` lines) and print what they claim.

``MODULES`` are linlayout's own modules and subpackages; linlayout.ptx and linlayout.triton
keep their functions in submodules (doctest skips re-exported functions), so those submodules
are run too.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import linlayout
from linlayout import ptx


MODULES = sorted(m.name for m in pkgutil.iter_modules(linlayout.__path__, "linlayout.")
                 if m.name != "linlayout.__main__")


@pytest.mark.parametrize("name", MODULES)
def test_module_docstring_examples_run(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


PTX_SUBMODULES = sorted(m.name for m in pkgutil.iter_modules(ptx.__path__, "linlayout.ptx."))


@pytest.mark.parametrize("name", PTX_SUBMODULES)
def test_ptx_submodule_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
    assert result.attempted > 0


def test_triton_submodule_docstring_examples_run():
    for name in ("linlayout.triton", "linlayout.triton.encodings",
                 "linlayout.triton.encodings.base", "linlayout.triton.encodings.construct",
                 "linlayout.triton.encodings.distributed", "linlayout.triton.encodings.mma",
                 "linlayout.triton.encodings.dot", "linlayout.triton.encodings.shared",
                 "linlayout.triton.parse", "linlayout.triton.to_triton", "linlayout.triton.ttgir",
                 "linlayout.triton.analysis"):
        result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
