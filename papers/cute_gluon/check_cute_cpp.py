#!/usr/bin/env python
"""Replay tests/data/cute_algebra.json through CUTLASS's C++ CuTe (host code, g++): a second
oracle beside pycute, and the first for what pycute lacks (``flat_divide``, ``flat_product``,
``blocked_product``, ``raked_product``, ``downcast``, ``depth``).

Every case the fixture expects an answer for becomes one C++ statement on static layouts
(``Layout<Shape<_8,_8>,Stride<_1,_8>>{}``, swizzles as ``composition(Swizzle<B,M,S>{},
Int<o>{}, layout)``, tilers as ``make_tile(…)`` with ``_`` for None) whose ``cute::print`` is
compared with the fixture's text (C++ and the fixture print alike). Cases whose answer leaves
the power-of-two subset are skipped (C++ rejects most of them at compile time).

Needs g++ (C++17) and three header trees, none of them CUDA code that runs:

    --cutlass DIR   a CUTLASS checkout (its include/ holds cute/)
    --cuda DIR      CUDA runtime headers (e.g. the nvidia-cuda-runtime-cu12 wheel's
                    nvidia/cuda_runtime/include) and crt/ (the nvidia-cuda-nvcc-cu12 wheel's
                    nvidia/cuda_nvcc/include); give --cuda twice
    --cccl DIR      libcu++ headers (the nvidia-cuda-cccl wheel's nvidia/cu13/include/cccl)

Exit 1 when C++ CuTe and the fixture (pycute's answers, which linlayout matches) disagree on
any case; the disagreements are printed.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from linlayout.cute import parse_cute  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "cute_algebra.json"
SCALARS = {"size", "cosize", "rank", "depth"}
CHUNK = 80
#: The operations replayed by default: those pycute lacks (the fixture builds them from pycute's
#: primitives as layout.hpp defines them) and the one-layout ones. ``composition`` and the
#: by-mode tilers differ between C++ and pycute on purpose (C++ drops the modes a by-mode
#: tiler does not reach); give ``--ops all`` to replay everything.
DEFAULT_OPS = ("flat_divide", "flat_product", "blocked_product", "raked_product", "downcast",
               "coalesce", "complement", "size", "cosize", "rank", "depth")


def tup(t) -> str:
    if isinstance(t, tuple):
        return "cute::tuple<" + ",".join(tup(e) for e in t) + ">"
    return f"Int<{t}>"


def layout_expr(text: str) -> str:
    cl = parse_cute(text)
    inner = f"Layout<{tup(cl.shape)},{tup(cl.stride)}>{{}}"
    if cl.swizzle is None:
        return inner
    B, M, S = cl.swizzle
    return f"composition(Swizzle<{B},{M},{S}>{{}}, Int<{cl.offset}>{{}}, {inner})"


def tiler_expr(t) -> str:
    if t is None:
        return "_"
    if isinstance(t, int):
        return f"Int<{t}>{{}}"
    if isinstance(t, list):
        return "make_tile(" + ",".join(tiler_expr(x) for x in t) + ")"
    return layout_expr(t)


def statement(i: int, c: dict) -> str | None:
    op, lay = c["op"], layout_expr(c["layout"])
    if op in SCALARS:
        call = f"{op}({lay})"
    elif op == "coalesce":
        arg = c["arg"]
        call = f"coalesce({lay})" if arg is None else \
            f"coalesce({lay}, make_tuple({','.join('_1{}' for _ in arg)}))"
    elif op == "complement":
        call = f"complement({lay}, Int<{c['arg']}>{{}})"
    elif op == "downcast":
        call = f"downcast<{c['arg']}>({lay})"
    else:
        call = f"{op}({lay}, {tiler_expr(c['arg'])})"
    return f'  printf("{i} "); print({call}); printf("\\n");'


def run(args) -> int:
    cases = json.loads(FIXTURE.read_text())["cases"]
    ops = None if args.ops == ["all"] else set(args.ops or DEFAULT_OPS)
    todo = [(i, c) for i, c in enumerate(cases) if c["expect"] is not None
            and (ops is None or c["op"] in ops)]
    # C++'s tile_unzip has no rule for a '_' tiler mode (pycute's hier_unzip makes it 1:0)
    unzip = ("zipped_", "tiled_", "flat_")
    # C++'s blocked_product / raked_product take a Layout tiler only (linlayout and the
    # fixture also read an int n as n:1, as logical_product does)
    skipped = [i for i, c in todo if (c["op"].startswith(unzip) and isinstance(c["arg"], list)
                                      and None in c["arg"])
               or (c["op"] in ("blocked_product", "raked_product") and isinstance(c["arg"], int))]
    todo = [(i, c) for i, c in todo if i not in skipped]
    flags = ["-std=c++17", "-O0", "-w", f"-I{args.cutlass}/include", f"-I{args.cccl}"]
    flags += [f"-I{d}" for d in args.cuda]
    got: dict[int, str] = {}
    refused: list[int] = []
    with tempfile.TemporaryDirectory() as tmp:
        def compile_run(part: list) -> None:
            """Compile and run ``part``; a part that does not compile is halved until the
            statements C++ rejects are found (those are recorded in ``refused``)."""
            src = pathlib.Path(tmp) / f"c{part[0][0]}_{len(part)}.cpp"
            src.write_text("#include <cute/layout.hpp>\n#include <cute/layout_composed.hpp>\n"
                           "#include <cute/swizzle_layout.hpp>\n#include <cstdio>\n"
                           "using namespace cute;\nint main() {\n"
                           + "\n".join(statement(i, c) for i, c in part) + "\n}\n")
            exe = src.with_suffix("")
            proc = subprocess.run(["g++", *flags, str(src), "-o", str(exe)],
                                  capture_output=True, text=True, check=False)
            if proc.returncode:
                if len(part) == 1:
                    refused.append(part[0][0])
                    return
                half = len(part) // 2
                compile_run(part[:half])
                compile_run(part[half:])
                return
            out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                i, text = line.split(" ", 1)
                got[int(i)] = text

        for k in range(0, len(todo), CHUNK):
            part = todo[k:k + CHUNK]
            compile_run(part)
            print(f"cases {part[0][0]}…{part[-1][0]}: done", flush=True)
    for i in refused:
        c = cases[i]
        print(f"C++ REJECTS {c['op']}({c['layout']}, {c.get('arg')!r}) at compile time; "
              f"pycute: {c['expect']}")
    todo = [(i, c) for i, c in todo if i not in refused]
    bad = 0
    for i, c in todo:
        want = c["expect"]
        want = f"_{want}" if c["op"] in SCALARS else want
        if got.get(i) != want:
            bad += 1
            print(f"DIFFERS {c['op']}({c['layout']}, {c.get('arg')!r}): C++ {got.get(i)}, "
                  f"fixture {want}")
    print(f"{len(todo) - bad} of {len(todo)} cases C++ compiles: C++ CuTe agrees with the "
          f"fixture; {len(refused)} rejected at compile time; {len(skipped)} skipped (a '_' "
          "tiler mode in a zipped/tiled/flat operation, or an int tiler of blocked_product / "
          "raked_product: C++ takes neither)")
    return 1 if bad else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cutlass", required=True)
    ap.add_argument("--cuda", action="append", required=True)
    ap.add_argument("--cccl", required=True)
    ap.add_argument("--ops", nargs="+", help=f"operations to replay (default {DEFAULT_OPS}; "
                                              "'all' for every one)")
    return run(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
