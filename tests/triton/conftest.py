"""A live Triton, for the differential tests (skipped where ``import triton`` fails)."""

from __future__ import annotations

import importlib.util

import pytest

from tests.support import DATA


@pytest.fixture(scope="session")
def triton_generator():
    """``tests/data/generate_triton_fixtures.py`` as a module: Triton's own toLinearLayout and
    bank-conflict counter behind the functions that wrote the fixtures."""
    pytest.importorskip("triton")
    pytest.importorskip("triton.experimental.gluon")
    path = DATA / "generate_triton_fixtures.py"
    spec = importlib.util.spec_from_file_location("generate_triton_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
