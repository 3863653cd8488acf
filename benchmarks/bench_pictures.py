"""Time ``linlayout show --png``: a picture of a 64×64 tile; write benchmarks/PICTURES.md.

Run from the repository root:  python benchmarks/bench_pictures.py [--repeat N] [--no-write]

Rows: every picture kind of ``linlayout show`` (``--picture layout|tv|copy|mma``) on a 64×64
tile (the MMA panel: one atom, every cell labelled), the last two an AMD ``#ttg.amd_mfma``
tile of 64-lane wavefronts. Columns: the whole command in a fresh
process (``python -m linlayout show … --png``: interpreter start, matplotlib import, drawing,
PNG encoding), as wall-clock and CPU seconds (CPU time is what the machine's other load does
not inflate); and, in this process with matplotlib already imported, the drawing alone and the
PNG write (``save``). The target is a 64×64 tile under 2 s for the command. Speed is measured,
never asserted.
"""

from __future__ import annotations

import argparse
import json
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

#: The pictures timed: (name, ``linlayout show`` arguments, ``{load}`` standing for the
#: gemm-operand load file). 64×64 tiles, and the MMA panel of one atom (labelled cells).
SMEM = "Sw<3,3,3> o _0 o (_64,_64):(_64,_1)"
TILES = [
    ("memory 64×64 fp16 (Sw<3,3,3>)", [SMEM, "--element-bits", "16"]),
    ("distributed 64×64 (gemm-operand load)", ["{load}"]),
    ("thread/value 64×64 (--picture tv)", ["{load}", "--picture", "tv"]),
    ("thread/value 64×64 by bank (--color-by bank)", ["{load}", "--picture", "tv", "--color-by",
                                                      "bank", "--memory", SMEM,
                                                      "--element-bits", "16"]),
    ("copy 64×64, ldmatrix.x4 (--picture copy)", ["{load}", "--picture", "copy", "--memory",
                                                  SMEM, "--element-bits", "16",
                                                  "--instruction", "ldmatrix.x4"]),
    ("MMA panel sm80_16x8x16, 512 labelled cells (--picture mma)",
     ["sm80_16x8x16", "--picture", "mma"]),
    ("thread/value 64×64, AMD mfma 32x32x8, 64-lane wavefronts (--picture tv)",
     ["{mfma}", "--picture", "tv"]),
    ("copy 64×64 fp16, AMD mfma into row-major LDS (--hardware AMD_CDNA3)",
     ["{mfma}", "--picture", "copy", "--memory", "(_64,_64):(_64,_1)", "--element-bits", "16",
      "--hardware", "AMD_CDNA3"]),
]


def _mfma():
    """The 64×64 accumulator of ``#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2],
    instrShape = [32, 32, 8], isTransposed = true}>``: 4 wavefronts of 64 lanes."""
    from linlayout.triton.encodings import amd_mfma

    return amd_mfma(3, [2, 2], [32, 32, 8], True).to_linear_layout([64, 64])


def _drawers():
    """In-process drawing of each row of :data:`TILES` (matplotlib already imported)."""
    from linlayout import cute, examples
    from linlayout.show.copy_picture import draw_copy
    from linlayout.show.mma_picture import draw_mma_atom
    from linlayout.show.pictures import draw_layout
    from linlayout.show.tv_pictures import draw_tv

    from linlayout.hardware.model import AMD_CDNA3

    load = examples.get("gemm-operand").load
    smem = cute.parse_layout(SMEM)
    mfma = _mfma()
    return [lambda: draw_layout(smem, element_bits=16), lambda: draw_layout(load),
            lambda: draw_tv(load),
            lambda: draw_tv(load, color_by="bank", memory=smem, element_bits=16),
            lambda: draw_copy(load, smem, element_bits=16, instruction="ldmatrix.x4"),
            lambda: draw_mma_atom("sm80_16x8x16"),
            lambda: draw_tv(mfma),
            lambda: draw_copy(mfma, cute.parse_layout("(_64,_64):(_64,_1)"), element_bits=16,
                              hardware=AMD_CDNA3)]


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
    from linlayout.show.pictures import save

    tmp = tempfile.mkdtemp()
    examples.write_files(tmp)
    load = os.path.join(tmp, "gemm-operand", "load.json")
    mfma = os.path.join(tmp, "mfma.json")
    Path(mfma).write_text(json.dumps(_mfma().to_dict()), encoding="utf-8")
    rows = []
    for (name, argv), draw_fn in zip(TILES, _drawers()):
        argv = [a.replace("{load}", load).replace("{mfma}", mfma) for a in argv]
        out = os.path.join(tmp, "tile.png")
        runs = [_command_seconds(argv, out) for _ in range(args.repeat)]
        wall = min(r[0] for r in runs)
        cpu = min(r[1] for r in runs)
        draw = save_s = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            fig = draw_fn()
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
        "| picture | command, wall | command, CPU | draw | save (PNG) | PNG KiB |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
    ])
    print(report)
    if not args.no_write:
        (HERE / "PICTURES.md").write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
