"""Run every benchmark and assemble benchmarks/README.md.

Run from the repository root:  python benchmarks/run_all.py [--quick] [--only NAME ...] [--no-write]

Finds every ``benchmarks/bench_*.py``, runs each in its own process (``--no-write`` so that it
prints its markdown report instead of writing its own file, ``--quick`` passed on when given
and the script accepts it), and writes one README with every report as a section, in this
order: core paths, the algebra, bank conflicts and synthesis scaling, synthesis paths, bulk
throughput, then any other ``bench_*.py``. A script that fails leaves its exit status and the
end of its stderr in the README instead of a table. Speed is measured, never asserted.
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ORDER = ["bench_core", "bench_algebra", "bench_conflicts", "bench_synthesis", "bench_bulk"]
TIMEOUT_S = 3600


def scripts(only: list[str] | None) -> list[Path]:
    found = sorted(HERE.glob("bench_*.py"))
    rank = {name: i for i, name in enumerate(ORDER)}
    found.sort(key=lambda p: (rank.get(p.stem, len(ORDER)), p.stem))
    if only:
        found = [p for p in found if p.stem in only or p.stem.removeprefix("bench_") in only]
    return found


def demote(markdown: str) -> str:
    """Push every heading one level down, so each report nests under the README's title."""
    return re.sub(r"^(#{1,5}) ", lambda m: "#" + m.group(1) + " ", markdown, flags=re.M)


def run(script: Path, quick: bool) -> tuple[int, str, str, float]:
    text = script.read_text(encoding="utf-8")
    cmd = [sys.executable, str(script)]
    if "--no-write" in text:
        cmd.append("--no-write")
    if quick and "--quick" in text:
        cmd.append("--quick")
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = -1, exc.stdout or "", f"timed out after {TIMEOUT_S} s"
    return code, out, err, time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="pass --quick to every benchmark")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these (bench_x or x)")
    ap.add_argument("--no-write", action="store_true", help="print the README instead")
    args = ap.parse_args()
    found = scripts(args.only)
    if not found:
        print("no benchmarks/bench_*.py matched", file=sys.stderr)
        return 2
    sections, index, failed = [], [], 0
    for script in found:
        print(f"running {script.name} ...", file=sys.stderr, flush=True)
        code, out, err, secs = run(script, args.quick)
        title = script.stem
        if code == 0 and out.strip():
            body = demote(out.strip())
            if body.startswith("## Benchmarks\n"):  # bench_core's report carries the old title
                body = "## Core paths: synthesis, counting, inversion\n" + body[len("## Benchmarks\n"):]
            first = next((ln for ln in body.splitlines() if ln.startswith("## ")), f"## {title}")
            title = first[3:].strip()
            sections.append(body)
        else:
            failed += 1
            tail = "\n".join(err.strip().splitlines()[-15:])
            sections.append(f"## {script.name} failed (exit {code})\n\n```\n{tail}\n```")
            title = f"{script.name} (failed)"
        index.append(f"| [{title}](#{re.sub(r'[^a-z0-9 -]', '', title.lower()).replace(' ', '-')})"
                     f" | `{script.name}` | {secs:,.0f} s |")
        print(f"  {script.name}: exit {code}, {secs:,.1f} s", file=sys.stderr, flush=True)
    readme = "\n".join([
        "# Benchmarks",
        "",
        "Written by `python benchmarks/run_all.py`" + (" --quick" if args.quick else "")
        + ", which runs every `benchmarks/bench_*.py` in one go on one machine "
        f"({platform.machine()}, {platform.processor() or 'cpu'}, Python "
        f"{platform.python_version()}) and collects their reports below. Each script also runs "
        "alone (`python benchmarks/bench_x.py [--quick] [--no-write]`). Speed is measured "
        "here, never asserted in tests; ratios against galois and Triton come from the same run.",
        "",
        "| report | script | wall time |",
        "|---|---|---|",
        *index,
        "",
        "\n\n".join(sections),
        "",
    ])
    if args.no_write:
        print(readme)
    else:
        (HERE / "README.md").write_text(readme, encoding="utf-8")
        print(f"wrote benchmarks/README.md ({len(found)} benchmarks, {failed} failed)",
              file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
