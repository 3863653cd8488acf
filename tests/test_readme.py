"""The README's library tour runs and its commented results are true."""

from __future__ import annotations

import doctest
import re
import shlex

from tests.support import ROOT


README = ROOT / "README.md"


def test_readme_python_block_runs():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    ns: dict = {}
    exec(compile(block, "README.md", "exec"), ns)
    assert ns["L"].apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}
    rep = ns["rep"]
    assert (rep.degree, rep.wavefronts_per_instruction, rep.conflict_offsets) == (16, 16, (32, 64, 128, 256))
    assert (rep.instructions_per_warp, rep.bytes_per_warp) == (16, 2048)
    assert (rep.wavefronts_per_warp, rep.wavefront_floor) == (256, 16)
    r = ns["r"]
    assert r.layout.bases == {"vector": [], "bank": [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]],
                              "segment": [[4, 2], [8, 4], [0, 8], [0, 16]]}
    assert (r.store.vector_elems, r.load.vector_elems) == (4, 1)
    assert (r.wavefronts_per_warp, r.instructions_per_warp, r.wavefront_floor) == (32, 20, 32)
    assert (r.conflict_free, r.at_floor, r.optimal) == (True, True, True)


def test_readme_quick_start_is_two_commands():
    text = README.read_text(encoding="utf-8")
    quick = re.search(r"## Quick start.*?```\n(.*?)```", text, re.S).group(1).strip().splitlines()
    assert quick == ['pip install . && linlayout synthesize', 'pip install ".[test]" && pytest']


def test_readme_synthesize_output_is_current(capsys):
    from linlayout.cli import main

    assert main(["synthesize"]) == 0
    out = capsys.readouterr().out.strip()
    text = README.read_text(encoding="utf-8")
    shown = re.search(r"\$ linlayout synthesize\n(.*?)```", text, re.S).group(1).strip()
    assert shown == out


def test_readme_command_examples_match_the_cli(capsys):
    """Every `$ linlayout synthesize …` excerpt in the README (lines other than `…`) is in
    what that command prints now."""

    from linlayout.cli import main

    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```\n *\$ linlayout (synthesize [^\n]+)\n(.*?)```", text, re.S)
    assert blocks
    for command, shown in blocks:
        assert main(shlex.split(command)) == 0
        out = capsys.readouterr().out.splitlines()
        for line in shown.splitlines():
            line = line.strip()
            if line and line != "…":
                assert any(o.strip() == line for o in out), (command, line)


# ------------------------------------------------------------ the "CuTe and Gluon" section
def cute_section() -> str:
    text = README.read_text(encoding="utf-8")
    return re.search(r"## CuTe and Gluon\n(.*?)\n## ", text, re.S).group(1)


def test_readme_cute_command_output_is_current(capsys):
    from linlayout.cli import main

    block = re.search(r"```\n\$ linlayout (.*?)\n(.*?)```", cute_section(), re.S)
    code = main(shlex.split(block.group(1)))
    out = capsys.readouterr().out.strip()
    assert code == 0 and out == block.group(2).strip()


def test_readme_cute_python_session_runs():
    session = re.search(r"```\n(>>> .*?)```", cute_section(), re.S).group(1)
    test = doctest.DocTestParser().get_doctest(session, {}, "README", "README.md", 0)
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test)
    assert result.failed == 0
