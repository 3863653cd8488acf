"""The fast reproductions in papers/ run and confirm their claims.

Each entry of ``FAST`` is a script (relative to the repository root) and the arguments that keep
it fast; the full runs and their printed tables are in each directory's README.
papers/ptx_swizzles regenerates every published swizzle table, and fails loudly when one
differs.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support import ROOT, papers_module


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
    ("papers/synthesis/tutorial_table.py", []),
    ("papers/synthesis/compare_alternatives.py", ["--pairs", "20"]),
    ("papers/synthesis/exhaustive_small_tiles.py", ["--pairs", "3"]),
    ("papers/padding/reproduce.py", []),
    # the committed warp-shuffle probes against the prediction (no Triton needed)
    ("papers/triton_lowering/shuffle_probes.py", ["--compare-only"]),
    ("papers/triton_lowering/shuffle_probes.py", ["--amd", "--compare-only"]),
    # the gfx950/gfx942 bank-order probes: Triton's LLVM IR against check (no Triton)
    ("papers/triton_lowering/gfx950_bank_order_probes.py", ["--compare-only"]),
    ("papers/triton_lowering/gfx950_bank_order_probes.py", ["--warps", "--compare-only"]),
    # Triton's shuffle converts and the corpus converts beside plan_conversion (no Triton)
    ("papers/conversion/triton_shuffles.py", ["--compare-only"]),
    ("papers/conversion/triton_vs_plan.py", ["--check"]),
    # the committed gfx950 swap-plan probes against the plans (no Triton)
    ("papers/conversion/swap_plans_amdgcn.py", ["--compare-only"]),
    # the committed wide-register join probes and wide 8-bit AMD plans (no Triton)
    ("papers/conversion/wide_join_isel.py", ["--compare-only"]),
]


@pytest.mark.parametrize("script,args", FAST, ids=[s for s, _ in FAST])
def test_reproduction_passes(script, args):
    proc = subprocess.run([sys.executable, str(ROOT / script), *args], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "MISMATCH" not in proc.stdout
    assert "FAILED" not in proc.stdout


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


def test_the_llvm_respelling_table_in_the_docs_is_the_scripts_output():
    """``docs/triton-lowering.md``'s "LLVM re-spelling" table is what
    ``papers/triton_lowering/respelling.py`` prints from ``tests/data/llvm_respelling.json``."""
    table = papers_module("papers/triton_lowering/respelling.py").table()
    lines = (ROOT / "docs" / "triton-lowering.md").read_text("utf-8").splitlines()
    start = next(i for i, s in enumerate(lines) if s.startswith("| cause (LLVM pass)"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    assert "\n".join(lines[start:end]) == table
