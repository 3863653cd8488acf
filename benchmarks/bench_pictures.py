"""Time ``linlayout show --png/--svg`` end to end: every picture kind of a 64×64 tile.

Run from the repository root:

    python benchmarks/bench_pictures.py [--runs N] [--baseline DIR] [--quick] [--no-write]

Each row is one ``python -m linlayout show … --png OUT`` (and ``--svg OUT``) in a fresh
process, as a user runs it: interpreter start, ``import linlayout``, the command's own imports
(matplotlib), the text grid it prints, drawing and writing the file. Rows: every
``--picture`` kind (``layout``, ``tv``, ``copy``, ``mma``) on a 64×64 tile where the kind takes
one (the MMA panel takes an atom: the 16×8×16 one, 512 labelled cells, and AMD's 32×32×16,
2,048), NVIDIA and AMD (64-lane wavefront) layouts. Columns: the median over ``--runs`` runs
(after one warm-up) of the wall-clock seconds and of the CPU seconds (user + system of the
child; the machine's other load inflates wall time more than CPU time), with compiled bytecode
cached as for an installed package (the warm-up run writes it). The floors above the
table are what every picture pays before drawing: Python's start, ``linlayout --version``,
importing matplotlib's ``Figure`` and Agg canvas plainly, and importing them as ``linlayout
show`` does (``linlayout.show.mpl_start.import_for_drawing``: matplotlib's property
docstrings are not built; a checkout without that module imports plainly). ``--baseline DIR`` times another checkout too
(``PYTHONPATH=DIR``; runs alternate between the two), for before/after. The target: a picture
of a 64×64 tile in under 2 s. Speed is measured here, never asserted in tests.

Writes ``benchmarks/PICTURES.md`` (``--no-write``: print only).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

#: The 64×64 fp16 shared-memory tile of the NVIDIA rows (CuTe text).
SMEM = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"
#: ``(name, show arguments)``: ``{load}`` is the gemm-operand load (Triton's mma v2 dot
#: operand, 4 warps, 64×64), ``{mfma}`` an AMD ``#ttg.amd_mfma`` 64×64 accumulator.
PICTURES = [
    ("layout: memory, fp16 Sw<3,3,3>", [SMEM, "--element-bits", "16"]),
    ("layout: distributed (gemm-operand load)", ["{load}"]),
    ("tv: colour = thread", ["{load}", "--picture", "tv"]),
    ("tv: colour = bank", ["{load}", "--picture", "tv", "--color-by", "bank", "--memory", SMEM,
                           "--element-bits", "16"]),
    ("tv: AMD mfma, 64-lane wavefronts", ["{mfma}", "--picture", "tv"]),
    ("copy: ldmatrix.x4 into Sw<3,3,3> (384 labels)",
     ["{load}", "--picture", "copy", "--memory", SMEM, "--element-bits", "16",
      "--instruction", "ldmatrix.x4"]),
    ("copy: AMD mfma into row-major LDS (384 labels)",
     ["{mfma}", "--picture", "copy", "--memory", "(_64,_64):(_64,_1)", "--element-bits", "16",
      "--hardware", "AMD_CDNA3"]),
    ("mma: sm80_16x8x16 (512 labels)", ["sm80_16x8x16", "--picture", "mma"]),
    ("mma: amd_mfma_f32_32x32x16_f16 (2,048 labels)",
     ["amd_mfma_f32_32x32x16_f16", "--picture", "mma"]),
]

#: What every picture pays before drawing: ``(name, python arguments)``.
FLOORS = [
    ("python -c pass", ["-c", "pass"]),
    ("linlayout --version", ["-m", "linlayout", "--version"]),
    ("import matplotlib Figure + Agg", ["-c", "import matplotlib.figure, "
                                              "matplotlib.backends.backend_agg"]),
    ("the same, as linlayout show imports them", [
        "-c", "try:\n from linlayout.show.mpl_start import import_for_drawing\n"
              "except ImportError:\n import matplotlib.figure, matplotlib.backends.backend_agg\n"
              "else:\n import_for_drawing()"]),
]


def _mfma_file(path: str) -> None:
    """Write the 64×64 accumulator of ``#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2],
    instrShape = [32, 32, 8], isTransposed = true}>`` (4 wavefronts of 64 lanes) as JSON."""
    from linlayout.triton.encodings import amd_mfma

    layout = amd_mfma(3, [2, 2], [32, 32, 8], True).to_linear_layout([64, 64])
    Path(path).write_text(json.dumps(layout.to_dict()), encoding="utf-8")


#: Where the children keep their compiled bytecode (``PYTHONPYCACHEPREFIX``): made by the
#: warm-up run of each command, read by the timed ones, as an installed package's ``.pyc``
#: files are (an environment that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise compile
#: every linlayout module from source on every run).
PYCACHE = tempfile.mkdtemp(prefix="bench_pictures_pyc_")


def _timed(argv: list[str], checkout: Path, cwd: str) -> tuple[float, float]:
    """(wall, CPU) seconds of ``python ARGV`` in a new process importing ``checkout``."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPATH=str(checkout), PYTHONPYCACHEPREFIX=os.path.join(PYCACHE, checkout.name))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([sys.executable, *argv], env=env, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _medians(argv: list[str], checkouts: list[Path], runs: int, cwd: str,
             out: str | None = None) -> tuple[list[tuple], int]:
    """Per checkout, (median wall, median CPU) of ``runs`` runs after a warm-up (the
    checkouts' runs alternate), and the size in bytes of ``out`` as the first checkout
    wrote it."""
    for c in checkouts:
        _timed(argv, c, cwd)
    got: list[list[tuple[float, float]]] = [[] for _ in checkouts]
    size = 0
    for _ in range(runs):
        for i, c in enumerate(checkouts):
            got[i].append(_timed(argv, c, cwd))
            if i == 0 and out is not None:
                size = os.path.getsize(out)
    return [(statistics.median(w for w, _ in g), statistics.median(c for _, c in g))
            for g in got], size


def _cells(meds: list[tuple]) -> str:
    """Table cells: this checkout's wall and CPU, then each baseline's, with the ratio."""
    (wall, cpu), rest = meds[0], meds[1:]
    cells = [f"{wall:.2f}", f"{cpu:.2f}"]
    for bw, bc in rest:
        cells += [f"{bw:.2f}", f"{bc:.2f}", f"{bw / wall:.1f}×"]
    return " | ".join(cells)


def main() -> None:
    """Time every picture (and the floors) and print or write the report."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs per command (default 5)")
    ap.add_argument("--quick", action="store_true", help="2 runs per command")
    ap.add_argument("--baseline", metavar="DIR", default=None,
                    help="also time this checkout (its repository root), for before/after")
    ap.add_argument("--no-write", action="store_true", help="print the report only")
    args = ap.parse_args()
    runs = 2 if args.quick else max(1, args.runs)
    checkouts = [ROOT] + ([Path(args.baseline).resolve()] if args.baseline else [])
    from linlayout import examples

    tmp = tempfile.mkdtemp()
    examples.write_files(tmp)
    load = os.path.join(tmp, "gemm-operand", "load.json")
    mfma = os.path.join(tmp, "mfma.json")
    _mfma_file(mfma)
    load_before = os.getloadavg()[0]
    head = "| wall s | CPU s |" + (" baseline wall s | baseline CPU s | baseline / this (wall) |"
                                   if args.baseline else "")
    rule = "|---|---|---|" + ("---|---|---|" if args.baseline else "")
    floors = []
    for name, argv in FLOORS:
        meds, _ = _medians(argv, checkouts, runs, tmp)
        floors.append(f"| {name} | {_cells(meds)} |")
        print(f"  {name}: {_cells(meds)}", file=sys.stderr, flush=True)
    rows = []
    for name, show_args in PICTURES:
        show_args = [a.replace("{load}", load).replace("{mfma}", mfma) for a in show_args]
        for ext in ("png", "svg"):
            out = os.path.join(tmp, f"picture.{ext}")
            meds, size = _medians(["-m", "linlayout", "show", *show_args, f"--{ext}", out],
                                  checkouts, runs, tmp, out)
            kib = size // 1024
            rows.append(f"| {name} | {ext.upper()} | {_cells(meds)} | {kib:,} |")
            print(f"  {name} {ext}: {_cells(meds)}", file=sys.stderr, flush=True)
    load_after = os.getloadavg()[0]
    report = "\n".join([
        "# Pictures of a 64×64 tile (`linlayout show --png/--svg`)",
        "",
        "Written by `python benchmarks/bench_pictures.py"
        + (" --baseline DIR` (DIR: another checkout)" if args.baseline else "`")
        + f". Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
        f"{platform.python_version()}; load average {load_before:.1f} at the start and "
        f"{load_after:.1f} at the end (other jobs share the CPUs: they inflate wall time more "
        f"than CPU time). Each command runs in a fresh process, {runs} times after a warm-up; "
        "medians, in seconds. Target: under 2 s for a picture of a 64×64 tile.",
        "",
        "What every picture pays before drawing:",
        "",
        f"| step {head}",
        rule,
        *floors,
        "",
        "The pictures (`python -m linlayout show ARGS --png|--svg OUT`; the text grid printed "
        "too):",
        "",
        f"| picture | file {head} KiB |",
        rule + "---|---|",
        *rows,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "PICTURES.md").write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
