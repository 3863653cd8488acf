"""Test-suite configuration: the shared helpers' asserts report like the tests' own, and a
live Triton for the differential tests (skipped where ``import triton`` fails)."""

import importlib.util

import pytest

pytest.register_assert_rewrite("tests.support")

from tests.support import DATA  # noqa: E402  (after the rewrite hook)


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
