"""The fast reproductions in papers/ run and confirm their claims."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FAST = ["papers/swizzle_by_algebra/article_table.py"]


@pytest.mark.parametrize("script", FAST)
def test_reproduction_passes(script):
    proc = subprocess.run([sys.executable, str(ROOT / script)], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MISMATCH" not in proc.stdout
