"""Test-suite configuration: the shared helpers' asserts report like the tests' own."""

import pytest

pytest.register_assert_rewrite("tests.support")
