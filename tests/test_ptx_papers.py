"""papers/ptx_swizzles regenerates every published swizzle table, and fails loudly when one differs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "papers" / "ptx_swizzles" / "regenerate_tables.py"


def _run(script=SCRIPT):
    env = dict(os.environ)
    # the script (or a copy of it elsewhere) imports this checkout's linlayout
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env=env)


def test_script_reproduces_every_table():
    proc = _run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MISMATCH" not in proc.stdout
    assert "all tables reproduced" in proc.stdout
    assert proc.stdout.count("\nok ") >= 30


def test_script_fails_on_a_corrupted_table(tmp_path):
    """A changed cell in the script's transcription of PTX ISA §5.5.7 (here in the 64B table)
    is reported and the exit status is 1."""
    text = SCRIPT.read_text("utf-8")
    bad = text.replace("[2, 3, 0, 1, 6, 7, 4, 5]", "[2, 3, 0, 1, 6, 7, 5, 4]", 1)
    assert bad != text
    (tmp_path / SCRIPT.name).write_text(bad, "utf-8")
    proc = _run(tmp_path / SCRIPT.name)
    assert proc.returncode == 1
    assert "MISMATCH" in proc.stdout
