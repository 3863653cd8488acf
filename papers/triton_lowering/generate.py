"""Regenerate (or check) the Triton-generated test fixtures: the one entry point.

Every fixture set in ``tests/data/`` is listed in ``tests/data/fixture_sets.json`` with the
commands that write it; this script runs them. Triton 3.9.0 must be installed (``pip install
triton==3.9.0``, CPU only); the tests never need it.

    python papers/triton_lowering/generate.py --list          # the sets, files and commands
    python papers/triton_lowering/generate.py trans reduce    # rewrite those fixtures
    python papers/triton_lowering/generate.py --check         # compare every set, write nothing

``--check`` runs each set's last command with ``--check`` (the corpus's compile step,
``corpus.py``, is skipped unless ``--compile-corpus``: it takes about 25 minutes and writes
``papers/triton_lowering/corpus/``). The exit status is non-zero when a set differs or a
command fails.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "tests" / "data" / "fixture_sets.json"


def sets() -> dict:
    """``{name: {"files": [...], "commands": [[script, args...], ...], ...}}``."""
    return json.loads(REGISTRY.read_text(encoding="utf-8"))["sets"]


def run(name: str, spec: dict, check: bool, compile_corpus: bool) -> int:
    """Run one set's commands; returns the worst exit status."""
    commands = spec["commands"]
    if check or (name == "corpus" and not compile_corpus):
        commands = commands[-1:]
    status = 0
    for cmd in commands:
        argv = [sys.executable, str(ROOT / cmd[0]), *cmd[1:]] + (["--check"] if check else [])
        print(f"[{name}] {' '.join(cmd + (['--check'] if check else []))}", flush=True)
        status = max(status, subprocess.run(argv, cwd=ROOT).returncode)
    return status


def main(argv: list[str] | None = None) -> int:
    registry = sets()
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", metavar="SET",
                    help=f"fixture sets to regenerate (default: all of {', '.join(registry)})")
    ap.add_argument("--list", action="store_true", help="list the sets and exit")
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--compile-corpus", action="store_true",
                    help="also recompile the corpus (corpus.py, ~25 minutes)")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in registry]
    if unknown:
        ap.error(f"unknown fixture set(s) {unknown}; known: {', '.join(registry)}")
    if args.list:
        for name, spec in registry.items():
            cmds = "; ".join(" ".join(c) for c in spec["commands"])
            print(f"{name:8} {', '.join(spec['files'])}  <- {cmds}"
                  + (f"  ({spec['slow']})" if "slow" in spec else ""))
        return 0
    status = 0
    for name in args.names or list(registry):
        status = max(status, run(name, registry[name], args.check, args.compile_corpus))
    return status


if __name__ == "__main__":
    sys.exit(main())
