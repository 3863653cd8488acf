"""Hypothesis strategies shared by the algebra tests."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def gl_columns(draw, n: int):
    """Columns of a random element of GL(n, 2): identity, column transvections, permutation."""
    cols = [1 << i for i in range(n)]
    if n >= 2:
        ops = draw(
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)
        )
        for i, j in ops:
            if i != j:
                cols[i] ^= cols[j]
    perm = draw(st.permutations(range(n)))
    return [cols[p] for p in perm]
