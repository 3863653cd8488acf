"""The papers' READMEs print what their fast scripts print.

``tests/test_docs.py`` runs the code blocks of the README and ``docs/``; a papers README
shows a script's output instead (the script itself is run by ``tests/test_papers.py``, with
small arguments). For the scripts that take seconds at their README's arguments, each entry
below names the text just before the block (a heading or a sentence) and the command; every
line the block shows must be printed, in that order (a README may show an excerpt: the
script's title lines or its claims left out). Timings such as ``[ok, 10.7 s]`` are not
compared; a ``$ python …`` line of the block is the command, not output. The tutorial
tiles' Markdown table of ``papers/synthesis/README.md`` is compared row by row.
(``triton_shuffles.py``, ``stage_probes.py`` and ``swap_plans_amdgcn.py`` replay their
committed fixtures; no Triton is needed.)
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.support import ROOT

#: (README, the text just before the block, the script and its arguments)
BLOCKS = [
    ("papers/linear_layouts/README.md", "`python papers/linear_layouts/triton_bank_conflicts.py`",
     ["papers/linear_layouts/triton_bank_conflicts.py"]),
    ("papers/linear_layouts/README.md", "`python papers/linear_layouts/compare_synthesizers.py`",
     ["papers/linear_layouts/compare_synthesizers.py"]),
    ("papers/swizzle_by_algebra/README.md", "`python papers/swizzle_by_algebra/article_table.py`",
     ["papers/swizzle_by_algebra/article_table.py"]),
    ("papers/conversion/README.md", "replays without Triton, and fails if Triton ever issues",
     ["papers/conversion/triton_shuffles.py", "--compare-only"]),
    ("papers/conversion/README.md", "on the chosen ones on all 5 at 8 bits; now:",
     ["papers/conversion/stage_probes.py", "--compare-only"]),
    ("papers/conversion/README.md",
     "`python papers/conversion/swap_plans_amdgcn.py --compare-only` prints",
     ["papers/conversion/swap_plans_amdgcn.py", "--compare-only"]),
    ("papers/conversion/README.md", '"miss 0" (and exits 1 otherwise):',
     ["papers/conversion/stage_execution.py"]),
    ("papers/ptx_swizzles/README.md", "Result (reproduced exactly):",
     ["papers/ptx_swizzles/regenerate_tables.py"]),
    ("papers/synthesis/README.md", "## Against the simple layouts",
     ["papers/synthesis/compare_alternatives.py"]),
]

FENCE = re.compile(r"^```\w*\n(.*?)^```", re.S | re.M)
TIMING = re.compile(r"\d+(?:\.\d+)? ?(?:s|ms|min)\b")


def _lines(text: str) -> list[str]:
    return [TIMING.sub("T", line).rstrip() for line in text.splitlines() if line.strip()]


def _shown(text: str) -> list[str]:
    """A block's lines less the ``$ python …`` lines that name the command."""
    return [line for line in _lines(text) if not line.startswith("$ ")]


def shown_block(readme: str, anchor: str) -> list[str]:
    """The lines of the first fenced block after ``anchor`` in ``readme``."""
    text = (ROOT / readme).read_text(encoding="utf-8")
    start = text.index(anchor)
    return _shown(FENCE.search(text, start).group(1))


def is_in_order(shown: list[str], printed: list[str]) -> bool:
    """Every line of ``shown`` is a line of ``printed``, in the same order."""
    it = iter(printed)
    return all(any(line == p for p in it) for line in shown)


def test_in_order_allows_excerpts_only():
    assert is_in_order(["b", "d"], ["a", "b", "c", "d"])
    assert not is_in_order(["d", "b"], ["a", "b", "c", "d"])
    assert not is_in_order(["b", "x"], ["a", "b", "c", "d"])


@pytest.mark.parametrize("readme,anchor,argv", BLOCKS, ids=[b[2][0] for b in BLOCKS])
def test_readme_block_is_what_the_script_prints(readme, anchor, argv):
    shown = shown_block(readme, anchor)
    assert shown, f"{readme}: no block after {anchor!r}"
    printed = _run(argv)
    missing = [line for line in shown if line not in printed]
    assert not missing and is_in_order(shown, printed), (
        f"{readme} shows lines {' '.join(argv)} does not print (in order):\n"
        + "\n".join(missing or shown))


def _run(argv: list[str]) -> list[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    proc = subprocess.run([sys.executable, str(ROOT / argv[0]), *argv[1:]], capture_output=True,
                          text=True, timeout=300, cwd=ROOT, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _lines(proc.stdout)


def test_the_tutorial_table_is_what_the_script_prints():
    """``papers/synthesis/README.md`` shows ``tutorial_table.py``'s table as a Markdown table
    (not in a code block): its rows are the rows the script prints."""
    text = (ROOT / "papers" / "synthesis" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("## Triton's tutorial tiles"):]
    shown = [line.rstrip() for line in section.splitlines() if line.startswith("|")]
    printed = [line for line in _run(["papers/synthesis/tutorial_table.py"])
               if line.startswith("|")]
    assert shown and shown == printed
