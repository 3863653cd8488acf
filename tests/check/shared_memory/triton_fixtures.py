"""The registry of Triton-generated fixture sets the lowering tests compare against, one
loader for all of them, and their known mismatches as strict xfails.

Each set is a gzipped JSON file in ``tests/data/``, listed with the commands that write it in
``tests/data/fixture_sets.json`` (``python papers/triton_lowering/generate.py --list``; Triton
3.9 is needed only to regenerate). Known mismatches live beside the data, in
``tests/data/known_mismatches.json``, each with its reason; :func:`cases` turns them into
``xfail(strict=True)`` parameters, so a case that starts to match fails until its entry is
removed.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from functools import lru_cache

import pytest

from tests.support import DATA


@lru_cache(maxsize=1)
def registry() -> dict[str, dict]:
    """``tests/data/fixture_sets.json``: every set's files, case key and generator commands."""
    return json.loads((DATA / "fixture_sets.json").read_text(encoding="utf-8"))["sets"]


#: The sets whose cases are compiled kernels (one gzipped JSON file each).
SETS = tuple(n for n, spec in registry().items() if "key" in spec)


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """The whole fixture document of set ``name`` (cached; read once per test session)."""
    (file,) = registry()[name]["files"]
    return json.loads(gzip.decompress((DATA / file).read_bytes()))


def entries(name: str) -> dict[str, dict]:
    """``{case name: entry}`` of set ``name``."""
    return load(name)[registry()[name]["key"]]


@lru_cache(maxsize=1)
def known_mismatches() -> dict[str, dict[str, str]]:
    """``{set: {case: reason}}`` from ``tests/data/known_mismatches.json``."""
    data = json.loads((DATA / "known_mismatches.json").read_text(encoding="utf-8"))
    return {k: v for k, v in data.items() if k in SETS}


@lru_cache(maxsize=None)
def known_final(name: str) -> dict[str, str]:
    """``{case: reason}`` of set ``name``'s differences from its final AMDGCN, where its
    other tests compare Triton's IR (key ``NAME_amdgcn`` of ``known_mismatches.json``)."""
    data = json.loads((DATA / "known_mismatches.json").read_text(encoding="utf-8"))
    return data.get(f"{name}_amdgcn", {})


def cases(name: str, where: Callable[[str, dict], bool] = lambda n, e: True,
          final: bool = False) -> list:
    """The case names of set ``name`` (sorted) that satisfy ``where(name, entry)``, as
    pytest parameters; known mismatches carry a strict xfail with their reason (with
    ``final``, those against the final AMDGCN: :func:`known_final`)."""
    known = known_final(name) if final else known_mismatches().get(name, {})
    out = []
    for case, entry in sorted(entries(name).items()):
        if not where(case, entry):
            continue
        marks = [pytest.mark.xfail(strict=True, reason=known[case])] if case in known else []
        out.append(pytest.param(case, marks=marks, id=case))
    return out
