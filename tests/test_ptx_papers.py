"""papers/ptx_swizzles regenerates every seed table, and fails loudly when one differs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "papers" / "ptx_swizzles" / "regenerate_tables.py"
SEED_NAMES = ("ptx-tensor-swizzling-modes.md", "cuda-guide-tma-swizzle-modes.md",
              "ptx-tcgen05-smem-swizzle-atoms.md")


def _run(env_extra=None):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True,
                          timeout=120, env=env)


def test_script_reproduces_every_table():
    proc = _run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MISMATCH" not in proc.stdout
    assert "all tables reproduced" in proc.stdout
    assert proc.stdout.count("\nok ") >= 30


def test_script_fails_on_a_corrupted_seed(tmp_path):
    """With the seed files present, a changed cell is reported and the exit status is 1."""
    src = ROOT.parent / "shared" / "seeds"
    if not all((src / n).is_file() for n in SEED_NAMES):
        # no seeds here: build minimal seed files from the script's own transcription
        import importlib.util

        spec = importlib.util.spec_from_file_location("regen", SCRIPT)
        regen = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(regen)
        rows = "\n".join("| " + " | ".join(map(str, r)) + " |" for r in regen.TABLES["64B"])
        (tmp_path / SEED_NAMES[0]).write_text(
            f"* 64 byte swizzle mode:\n\n{rows}\n| … Pattern repeats … |\n", "utf-8")
        for n in SEED_NAMES[1:]:
            (tmp_path / n).write_text("", "utf-8")
    else:
        for n in SEED_NAMES:
            shutil.copy(src / n, tmp_path / n)
    text = (tmp_path / SEED_NAMES[0]).read_text("utf-8")
    bad = text.replace("| 2 | 3 | 0 | 1 | 6 | 7 | 4 | 5 |", "| 2 | 3 | 0 | 1 | 6 | 7 | 5 | 4 |", 1)
    assert bad != text
    (tmp_path / SEED_NAMES[0]).write_text(bad, "utf-8")
    proc = _run({"LINLAYOUT_SEEDS": str(tmp_path)})
    assert proc.returncode == 1
    assert "MISMATCH" in proc.stdout
