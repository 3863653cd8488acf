"""papers/cute_gluon/cutlass_smem_atoms.py: CUTLASS's shared-memory atoms against their copy
atoms — every pairing as CUTLASS intends, and the negative control fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "papers" / "cute_gluon" / "cutlass_smem_atoms.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          encoding="utf-8", timeout=300, cwd=ROOT, check=False)


def test_every_pairing_is_as_cutlass_intends():
    proc = run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert out.rstrip().endswith("all pairings as CUTLASS intends")
    assert "MISMATCH" not in out
    # the rs_smem_selector comment, measured: SW32 is the conflict-free MN-major tf32 choice
    rows = [ln for ln in out.splitlines() if "tfloat32_t A, MN-major" in ln]
    assert len(rows) == 4
    sw32 = [r for r in rows if "MN_SW32" in r][0].split("|")
    assert sw32[5].strip() == "1" and sw32[-1].strip() == "ok"
    assert all(r.split("|")[5].strip() == "2" for r in rows if "MN_SW32" not in r)
    assert out.count("| ok") == 29 + 24  # 29 claimed pairings, 24 GMMA atoms


def test_negative_control_without_swizzles_fails():
    proc = run("--drop-swizzles")
    assert proc.returncode == 1
    assert "MISMATCH" in proc.stdout
