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


#: Tests that replay a whole fixture set or search a large space in one call (a minute or more
#: each on one core). They run first, so that pytest-xdist hands them out at the start (its
#: ``load`` scheduler deals the first tests to the workers in turn) instead of leaving one to
#: run alone at the end; the order changes nothing a test checks.
_LONG_FIRST = (
    "tests/check/test_corpus_converts.py::",
    "tests/conflicts/test_matrix_row_order.py::test_tritons_matrix_scratch_tiles",
    "tests/conflicts/test_matrix_duplicate_rows.py::test_tritons_repeated_row_tiles",
    "tests/synthesis/test_padding.py::test_two_pairs_and_weights",
    "tests/synthesis/test_segments.py::test_matches_brute_force_for_three_and_four",
    "tests/synthesis/test_objective.py::test_no_layout_of_a_small_tile_costs_less",
    "tests/conversion/test_optimal_exhaustive.py::",
    "tests/check/test_amd_producer_probes.py::test_the_fourth_draw_prices_low_halves",
)


def pytest_collection_modifyitems(config, items):
    """Move the long tests (:data:`_LONG_FIRST`) to the front, longest (as listed) first,
    keeping every other order."""
    long = [it for it in items if it.nodeid.startswith(_LONG_FIRST)]
    if long:
        long.sort(key=lambda it: next(i for i, p in enumerate(_LONG_FIRST)
                                      if it.nodeid.startswith(p)))
        rest = [it for it in items if not it.nodeid.startswith(_LONG_FIRST)]
        items[:] = long + rest
