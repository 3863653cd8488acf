"""The public API's docstrings follow the project's convention: every public function says
what it raises (``Raises:``, "nothing" included), and every public name of the top-level
package names its source (a PTX ISA section, a Triton/CUTLASS file, a lemma, the Linear
Layouts paper, or the module docstring or page of ``docs/`` that gives them)."""

from __future__ import annotations

import importlib
import inspect
import re


#: The packages whose ``__all__`` is the public API (``docs/library.md``).
PACKAGES = ["linlayout", "linlayout.synthesis", "linlayout.synthesis.family", "linlayout.ptx",
            "linlayout.cute", "linlayout.triton", "linlayout.lowering", "linlayout.check",
            "linlayout.global_memory", "linlayout.hardware", "linlayout.hardware.lds",
            "linlayout.show.synthesis", "linlayout.conversion", "linlayout.examples",
            "linlayout.f2", "linlayout.subspace"]

SOURCE = re.compile(r"Source|PTX ISA|Lemma|arXiv 2505\.23819|Triton|CUTLASS|CuTe|"
                    r"module\s+docstring|docs/")


def _public(package: str):
    module = importlib.import_module(package)
    for name in module.__all__:
        yield f"{package}.{name}", getattr(module, name)


def _is_function(obj) -> bool:
    return inspect.isfunction(obj) or type(obj).__name__ == "_lru_cache_wrapper"


def test_every_public_function_says_what_it_raises():
    missing = [name for package in PACKAGES for name, obj in _public(package)
               if _is_function(obj) and "Raises:" not in (inspect.getdoc(obj) or "")]
    assert not missing, f"no 'Raises:' section: {missing}"


def test_every_top_level_name_names_its_source():
    missing = [name for name, obj in _public("linlayout")
               if not inspect.ismodule(obj)
               and not (inspect.isclass(obj) and issubclass(obj, Exception))
               and not SOURCE.search(inspect.getdoc(obj) or "")]
    assert not missing, f"no source named: {missing}"
