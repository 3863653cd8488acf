"""Time ``linlayout show --png``: a picture of a 64×64 tile; write benchmarks/PICTURES.md.

Run from the repository root:  python benchmarks/bench_pictures.py [--repeat N] [--no-write]

Rows: the whole command in a fresh process (``python -m linlayout show … --png``: interpreter
start, matplotlib import, drawing, PNG encoding), as wall-clock and CPU seconds (CPU time is what
the machine's other load does not inflate); and, in this process with matplotlib already
imported, the drawing alone (``draw_layout``) and the PNG write (``save``). The target is a
64×64 tile under 2 s for the command. Speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

#: The tiles drawn: a 64×64 shared-memory layout and a 64×64 distributed layout.
TILES = [("memory 64×64 fp16 (Sw<3,3,3>)", ["Sw<3,3,3> o _0 o (_64,_64):(_64,_1)",
                                            "--element-bits", "16"]),
         ("distributed 64×64 (gemm-operand load)", None)]


def _command_seconds(args: list[str], out: str) -> tuple[float, float]:
    """(wall, CPU) seconds of ``python -m linlayout show ARGS --png OUT`` in a new process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "linlayout", "show", *args, "--png", out], env=env,
                   check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main() -> None:
    """Time each tile ``--repeat`` times and print (or write) the best of each."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-write", action="store_true", help="print the table only")
    args = ap.parse_args()
    from linlayout import examples
    from linlayout.cute import parse_layout
    from linlayout.show.pictures import draw_layout, save

    tmp = tempfile.mkdtemp()
    load = os.path.join(tmp, "load.json")
    examples.write_files(tmp)
    load = os.path.join(tmp, "gemm-operand", "load.json")
    layouts = {TILES[0][0]: (parse_layout(TILES[0][1][0]), 16),
               TILES[1][0]: (examples.get("gemm-operand").load, 16)}
    rows = []
    for name, argv in TILES:
        argv = argv or [load]
        out = os.path.join(tmp, "tile.png")
        runs = [_command_seconds(argv, out) for _ in range(args.repeat)]
        wall = min(r[0] for r in runs)
        cpu = min(r[1] for r in runs)
        layout, bits = layouts[name]
        draw = save_s = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            fig = draw_layout(layout, element_bits=bits)
            t2 = time.perf_counter()
            save(fig, out)
            draw = min(draw, t2 - t)
            save_s = min(save_s, time.perf_counter() - t2)
        rows.append(f"| {name} | {wall:.2f} | {cpu:.2f} | {draw:.2f} | {save_s:.2f} | "
                    f"{os.path.getsize(out) // 1024} |")
    report = "\n".join([
        "# Pictures: `linlayout show --png`",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs; "
        f"best of {args.repeat}. Seconds.",
        "",
        "| tile | command, wall | command, CPU | draw_layout | save (PNG) | PNG KiB |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "PICTURES.md").write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
