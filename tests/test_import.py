"""``import linlayout`` stays light: galois and sympy load only where they are used."""

from __future__ import annotations

import subprocess
import sys


def test_import_does_not_load_galois_or_sympy():
    code = (
        "import sys, linlayout; "
        "print(sorted(m for m in ('galois', 'sympy', 'numba') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_names():
    import linlayout

    for name in ("LinearLayout", "LayoutError", "bank_conflicts", "simulate_bank_access",
                 "synthesize_swizzle", "ConflictReport", "SwizzleResult", "f2"):
        assert hasattr(linlayout, name)
    assert issubclass(linlayout.LayoutError, ValueError)
