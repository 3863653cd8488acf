"""The fast reproductions in papers/ run and confirm their claims.

Each entry is a script (relative to the repository root) and the arguments that keep it fast;
the full runs and their printed tables are in each directory's README.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAST = [
    ("papers/swizzle_by_algebra/article_table.py", []),
    # all 2^20 configurations, one register step simulated per access, a small linlayout sample
    ("papers/swizzle_by_algebra/workbench_exhaustive.py",
     ["--steps", "1", "--sample", "100", "--no-progress"]),
    ("papers/linear_layouts/lemma_9_4.py",
     ["--max-d", "4", "--samples", "10", "--max-sample-d", "12", "--no-progress"]),
    ("papers/linear_layouts/lemma_9_5.py",
     ["--max-d", "5", "--max-d-seq", "4", "--samples", "100", "--no-progress"]),
    ("papers/linear_layouts/triton_bank_conflicts.py", []),
    ("papers/linear_layouts/compare_synthesizers.py", ["--random", "15"]),
    # compares with Triton when installed; checks A(C(x)) == B(x) either way
    ("papers/linear_layouts/triton_invert_and_compose.py", ["--pairs", "300"]),
]


@pytest.mark.parametrize("script,args", FAST, ids=[s for s, _ in FAST])
def test_reproduction_passes(script, args):
    proc = subprocess.run([sys.executable, str(ROOT / script), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MISMATCH" not in proc.stdout
    assert "FAILED" not in proc.stdout
