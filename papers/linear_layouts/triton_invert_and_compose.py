"""invert_and_compose next to the installed Triton's: both valid, the same where the answer is
unique, and where they differ, why.

Run from the repository root:  python papers/linear_layouts/triton_invert_and_compose.py
[--pairs N] [--seed S]

For random pairs ``(B, A)`` of small layouts onto the same out dims (A surjective; in half of
the pairs B copies one of A's in dims, an *identity dim*), it computes ``C =
B.invert_and_compose(A)`` with linlayout and with Triton's Python binding
(``triton.tools.LinearLayout``, an optional dependency: ``pip install triton``) and checks:

* both satisfy the defining law ``A(C(x)) == B(x)`` for every input;
* where ``A`` is injective (then ``C`` is unique) they are equal;
* every difference is a pair where ``A`` has free variables (several valid ``C``).

It prints the counts, split by whether the pair shares an identity dim. linlayout follows
the rule in Triton's main branch and in this project's spec (an in dim equal in both maps to
itself; the rest by least squares with free variables zero); the released binary may choose
another valid ``C``. Exit status 1 on any violation, 0 otherwise (also when Triton is absent:
then it says so and checks linlayout alone).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys

from linlayout import LayoutError, LinearLayout


def load_triton():
    try:
        from triton.tools import LinearLayout as TritonLayout  # noqa: N813
    except Exception as exc:  # not installed, or a binding without LinearLayout
        return None, f"{type(exc).__name__}: {exc}"
    return TritonLayout, "triton.tools.LinearLayout"


def to_triton(cls, layout: LinearLayout):
    return cls.from_bases(bases=list(layout.bases.items()),
                          out_dim_names=list(layout.out_dims),
                          out_dim_sizes=list(layout.out_dims.values()),
                          require_surjective=False)


def from_triton(t, like: LinearLayout, outer: LinearLayout) -> LinearLayout:
    """Triton's answer as a linlayout layout (in dims of ``like``, out dims = outer's ins)."""
    bases = {name: [list(v) for v in vectors] for name, vectors in t.bases}
    return LinearLayout(bases, outer.in_dims)


def law_holds(B: LinearLayout, A: LinearLayout, C: LinearLayout) -> bool:
    """``A(C(x)) == B(x)`` for every input x of B."""
    names = list(B.in_dims)
    for values in itertools.product(*(range(s) for s in B.in_dims.values())):
        x = dict(zip(names, values))
        if A.apply(C.apply(x)) != B.apply(x):
            return False
    return True


def random_pair(rng: random.Random):
    outs = {"dim0": 1 << rng.randrange(0, 3), "dim1": 1 << rng.randrange(0, 3)}
    kind = rng.choice(["unit", "general"])
    A = LinearLayout.random({"register": 1 << rng.randrange(0, 3),
                             "lane": 1 << rng.randrange(0, 3)}, outs, kind=kind,
                            surjective=True, rng=rng)
    B = LinearLayout.random({"register": 1 << rng.randrange(0, 3),
                             "lane": 1 << rng.randrange(0, 3)}, outs,
                            kind=rng.choice(["unit", "general"]), rng=rng)
    shares = rng.random() < 0.5
    if shares:  # B's lane dim is A's: an identity dim
        B = LinearLayout({"register": B.bases["register"], "lane": A.bases["lane"]}, outs)
    return B, A, shares


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3000, help="random pairs to draw")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    cls, note = load_triton()
    rng = random.Random(args.seed)
    counts = {True: [0, 0, 0], False: [0, 0, 0]}  # shares -> [compared, equal, differ]
    failures = 0
    for _ in range(args.pairs):
        try:
            B, A, shares = random_pair(rng)
        except LayoutError:  # too few in bits for a surjective A: draw again
            continue
        C = B.invert_and_compose(A)
        if not law_holds(B, A, C):
            failures += 1
            print(f"FAILED law for linlayout: B={B!r} A={A!r} C={C!r}")
            continue
        if cls is None:
            continue
        Ct = from_triton(to_triton(cls, B).invert_and_compose(to_triton(cls, A)), B, A)
        row = counts[shares]
        row[0] += 1
        if not law_holds(B, A, Ct):
            failures += 1
            print(f"FAILED law for Triton: B={B!r} A={A!r} C={Ct!r}")
        elif Ct == C:
            row[1] += 1
        else:
            row[2] += 1
            if A.is_injective:  # a unique answer cannot differ
                failures += 1
                print(f"MISMATCH with a unique answer: B={B!r} A={A!r} ours={C!r} "
                      f"Triton={Ct!r}")
    if cls is None:
        print(f"Triton not available ({note}); checked linlayout's law on {args.pairs} pairs.")
    else:
        print(f"linlayout vs {note} on random pairs (seed {args.seed}):")
        print("| pairs | compared | equal | different (both valid) |")
        print("|---|---|---|---|")
        for shares in (True, False):
            total, equal, differ = counts[shares]
            label = "B shares an in dim with A" if shares else "no shared in dim"
            print(f"| {label} | {total} | {equal} | {differ} |")
        all_total = sum(c[0] for c in counts.values())
        all_differ = sum(c[2] for c in counts.values())
        print(f"\nAll differences are pairs where A has free variables (several valid C); "
              f"{all_differ} of {all_total} in all.")
    print("FAILED" if failures else "OK: every answer satisfies A(C(x)) == B(x)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
