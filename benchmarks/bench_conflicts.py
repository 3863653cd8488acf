"""Time bank-conflict counting and synthesis, on the examples and as the tensor grows.

Run from the repository root:  python benchmarks/bench_conflicts.py [--quick] [--no-write]
(``--no-write`` prints only; otherwise the report also goes to benchmarks/CONFLICTS.md.)

In one run on one machine:

* the built-in examples and Triton's eleven published bank-conflict cases
  (``papers/linear_layouts/data/triton_layouts.json``): :func:`linlayout.bank_conflicts`
  against Triton's own counter (``bankConflictsMemDesc`` behind Gluon's
  ``get_shared_bank_conflicts``) when Triton is installed, and against linlayout's
  brute-force :func:`linlayout.simulate_bank_access`;
* growing tensors, d = 8 … 22 tensor bits: a blocked layout (8 contiguous fp16 per thread,
  4 warps) stored and its transpose loaded; ``synthesize_swizzle`` on the pair,
  ``bank_conflicts`` on the result, the brute-force simulator while it is affordable
  (d ≤ 14), and Triton's counter on the same layouts.

Triton's counter is only reachable inside a Gluon kernel being parsed (calling the builder
outside one crashes Triton 3.9), so each of its timings runs the binding call in a loop from
inside the frontend's ``bank_conflicts`` hook: the same C++ call, without the parse. Speed is
measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import timeit
import warnings
from pathlib import Path
from typing import Any, Callable

import linlayout as ll
from linlayout import LinearLayout, bank_conflicts, examples, simulate_bank_access, synthesize_swizzle
from linlayout.hardware.kinds import memory_columns

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT / "papers" / "linear_layouts" / "data" / "triton_layouts.json"


def uncached(*args, **kwargs):
    """synthesize_swizzle without its result cache (every call computes)."""
    import linlayout

    linlayout.synthesize_swizzle.cache_clear()
    return linlayout.synthesize_swizzle(*args, **kwargs)


def best_time(fn: Callable[[], Any], number: int, repeat: int = 5) -> float:
    """Best mean seconds per call over ``repeat`` runs of ``number`` calls."""
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def fmt(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds >= 1:
        return f"{seconds:,.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:,.2f} ms"
    return f"{seconds * 1e6:,.1f} µs"


def ratio(other: float | None, ours: float) -> str:
    return "—" if other is None else f"{other / ours:,.1f}×"


def blocked_pair(d: int) -> tuple[LinearLayout, LinearLayout]:
    """A 2^⌈d/2⌉ × 2^⌊d/2⌋ fp16 tile: a blocked layout (8 contiguous elements per thread
    along dim1, 32 lanes, up to 4 warps, the rest registers) and its transpose (contiguous
    along dim0)."""
    a = (d + 1) // 2
    b = d - a
    out = {"dim0": 1 << a, "dim1": 1 << b}

    def layout(fast_first: bool) -> LinearLayout:
        dims = [(1, i) for i in range(b)] + [(0, i) for i in range(a)]
        if not fast_first:
            dims = [(0, i) for i in range(a)] + [(1, i) for i in range(b)]
        units = [[1 << i, 0] if dim == 0 else [0, 1 << i] for dim, i in dims]
        vec = min(3, d - 5)
        warps = min(2, d - 5 - vec)
        return LinearLayout({"register": units[:vec] + units[5 + vec + warps:],
                             "lane": units[vec:vec + 5],
                             "warp": units[vec + 5:vec + 5 + warps]}, out)
    return layout(True), layout(False)


class TritonCounter:
    """Triton's ``get_shared_bank_conflicts`` on linlayout layouts, timed inside a parse."""

    def __init__(self) -> None:
        os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
        warnings.filterwarnings("ignore")
        import triton
        from triton._filecheck import run_parser
        from triton.backends.compiler import GPUTarget
        from triton.experimental import gluon
        from triton.experimental.gluon import language as ttgl
        from triton.experimental.gluon.language._semantic import GluonSemantic

        self.version = triton.__version__
        self.ttgl, self.run_parser = ttgl, run_parser
        self.target = GPUTarget("cuda", 80, 32)
        self.result: dict[str, Any] = {}
        self.number = 1
        counter = self

        def hook(sem, distr_ty, shared_ty):
            reg = distr_ty.layout._to_ir(sem.builder)
            shared = shared_ty.layout._to_ir(sem.builder)
            shape = list(distr_ty.shape)
            bits = distr_ty.element_ty.primitive_bitwidth

            def call():
                return sem.builder.get_shared_bank_conflicts(reg, shared, shape, bits)
            counter.result["value"] = call()
            counter.result["seconds"] = best_time(call, counter.number)
            return ttgl.constexpr(counter.result["value"])

        GluonSemantic.bank_conflicts = hook

        @gluon.jit
        def kernel(reg_type: ttgl.constexpr, shared_type: ttgl.constexpr):
            c: ttgl.constexpr = ttgl.bank_conflicts(reg_type, shared_type)  # noqa: F841

        self.kernel = kernel

    def measure(self, reg: LinearLayout, memory: LinearLayout, bits: int,
                number: int) -> tuple[int, float]:
        """(Triton's count, seconds per call) for a distributed and an offset memory layout."""
        ttgl = self.ttgl
        shape = list(reg.out_dims.values())
        bases = reg.bases
        dist = ttgl.DistributedLinearLayout(
            reg_bases=bases.get("register", []), lane_bases=bases.get("lane", []),
            warp_bases=bases.get("warp", []), block_bases=[], shape=shape)
        cols, _ = memory_columns(memory, reg.out_dim_names)
        sizes = [s.bit_length() - 1 for s in reg.out_dims.values()]

        def split(c: int) -> list[int]:
            out = []
            for s in sizes:
                out.append(c & ((1 << s) - 1))
                c >>= s
            return out
        shared = ttgl.SharedLinearLayout(offset_bases=[split(c) for c in cols], block_bases=[],
                                         alignment=16)
        dtype = {8: ttgl.int8, 16: ttgl.float16, 32: ttgl.float32}[bits]
        self.number = number
        self.run_parser(self.kernel, args=(ttgl.distributed_type(dtype, shape, dist),
                                           ttgl.shared_memory_descriptor_type(dtype, shape, shared,
                                                                              shape)),
                        target=self.target)
        return self.result["value"], self.result["seconds"]


def load_triton() -> tuple[TritonCounter | None, str]:
    try:
        return TritonCounter(), ""
    except Exception as exc:  # not installed, or an incompatible version
        return None, f"{type(exc).__name__}: {exc}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    n = lambda k: max(1, int(k * scale))  # noqa: E731
    triton, why = load_triton()
    tver = triton.version if triton else None

    # 1. the examples and Triton's published cases
    cases: list[tuple[str, LinearLayout, LinearLayout, int]] = []
    for name in examples.names():
        ex = examples.get(name)
        r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
        cases.append((f"{name} (load, synthesized memory)", ex.load, r.layout, ex.element_bits))
    data = json.loads(DATA.read_text(encoding="utf-8"))
    for i, c in enumerate(data["bank_conflict_cases"]):
        reg = LinearLayout.from_dict(c["reg"])
        cases.append((f"Triton case {i + 1}: {'x'.join(map(str, c['shape']))}, {c['bitwidth']}-bit",
                      reg, LinearLayout.from_dict(c["shared"]), c["bitwidth"]))
    ex_lines = ["| access | ours: bank_conflicts | brute force | Triton counter | Triton / ours "
                "| degree − 1: ours / Triton |", "|---|---|---|---|---|---|"]
    ratios = []
    for name, reg, mem, bits in cases:
        rep = bank_conflicts(reg, mem, element_bits=bits)
        t_ours = best_time(lambda: bank_conflicts(reg, mem, element_bits=bits), n(2000))
        t_sim = best_time(lambda: simulate_bank_access(reg, mem, element_bits=bits), n(20), 3)
        t_tri = val = None
        if triton is not None and bits in (8, 16, 32):
            val, t_tri = triton.measure(reg, mem, bits, n(2000))
            ratios.append(t_tri / t_ours)
        ex_lines.append(f"| {name} | {fmt(t_ours)} | {fmt(t_sim)} | {fmt(t_tri)} | "
                        f"{ratio(t_tri, t_ours)} | {rep.degree - 1} / "
                        f"{'—' if val is None else val} |")

    # 2. growing tensors
    grow_lines = ["| d (tensor bits) | shape | synthesize_swizzle | bank_conflicts (store) | "
                  "brute force (store) | Triton counter (store) | Triton / ours | result |",
                  "|---|---|---|---|---|---|---|---|"]
    for d in range(8, 23, 2):
        store, load = blocked_pair(d)
        r = synthesize_swizzle(store, load, element_bits=16)
        reps = n(200) if d <= 14 else n(20)
        t_syn = best_time(lambda: uncached(store, load, element_bits=16), reps, 3)
        t_bc = best_time(lambda: bank_conflicts(store, r.layout, element_bits=16), n(500), 3)
        t_sim = (best_time(lambda: simulate_bank_access(store, r.layout, element_bits=16), 1, 1)
                 if d <= 14 else None)
        t_tri = None
        if triton is not None and d <= 20:  # Triton tensors hold at most 2^20 elements
            _, t_tri = triton.measure(store, r.layout, 16, n(500))
        shape = "×".join(str(s) for s in store.out_dims.values())
        grow_lines.append(
            f"| {d} | {shape} | {fmt(t_syn)} | {fmt(t_bc)} | {fmt(t_sim)} | {fmt(t_tri)} | "
            f"{ratio(t_tri, t_bc)} | vector {r.vector_elems}, store {r.store.degree}-way, "
            f"load {r.load.degree}-way |")

    summary = ("Triton's counter / ours on the cases above: "
               + (f"{min(ratios):,.1f}× … {max(ratios):,.1f}× (above 1: linlayout is faster)"
                  if ratios else f"not measured ({why or 'no Triton'})") + ".")
    report = "\n".join([
        "# Bank conflicts and synthesis",
        "",
        "Written by `python benchmarks/bench_conflicts.py` (best of 5 runs; mean per call).",
        f"Machine: {platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}, linlayout {ll.__version__}; Triton: "
        + (tver if tver else f"not measured ({why})") + ".",
        "",
        summary,
        "",
        "## Counting one access: examples and Triton's published cases",
        "",
        "Triton's counter (its `bankConflictsMemDesc` through Gluon's "
        "`get_shared_bank_conflicts`) reports degree − 1 after its own vectorisation.",
        "",
        *ex_lines,
        "",
        "## As the tensor grows (blocked fp16 store, transposed load)",
        "",
        "`synthesize_swizzle` and `bank_conflicts` work on bases (d columns), so they grow "
        "with d, not with 2^d; the brute-force simulator enumerates every element. Triton "
        "tensors hold at most 2^20 elements, hence no Triton column above d = 20.",
        "",
        *grow_lines,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "CONFLICTS.md").write_text(report, encoding="utf-8")
    sys.stdout.flush()
    if triton is not None:
        os._exit(0)  # skip nanobind's leak report at interpreter exit
    return 0


if __name__ == "__main__":
    sys.exit(main())
