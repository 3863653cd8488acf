"""The ``linlayout`` command itself (linlayout.cli.main): usage errors, ``--help``, the
``python -m linlayout`` entry point, and bugs reported as bugs (exit 3), not as bad input.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.support import ROOT, run_cli


FORMULA = "offset = 128·⌊n/8⌋ + 32·⌊m/4⌋ + 4·((n & 7) ⊕ 2·⌊m/4⌋) + (m & 3)"


@pytest.mark.parametrize("argv", [[], ["frobnicate"], ["conflicts", "--layout", "x.json"],
                                  ["synthesize", "--element-bits", "many"]])
def test_usage_errors_exit_2(capsys, argv):
    code, _, err = run_cli(capsys, *argv)
    assert code == 2
    assert err.startswith("usage: linlayout")  # argparse's own usage text
    assert "error:" in err and "Traceback" not in err


def test_help_exits_0(capsys):
    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and "synthesize" in out


def test_help_lists_every_subcommand_without_loading_them(capsys):
    """``--help`` names every subcommand with the one-line help its own module registers,
    though only the command being run is loaded."""
    from linlayout.cli import COMMANDS, parser

    code, out, _ = run_cli(capsys, "--help")
    assert code == 0 and all(name in out for name in COMMANDS)
    assert parser([]).format_help() == parser().format_help()
    with pytest.raises(KeyError):
        parser(["frobnicate"])


@pytest.mark.parametrize("argv, loaded", [
    (["--version"], set()),
    (["show", "(_8,_8):(_8,_1)"], {"show"}),
    (["examples"], {"examples"}),
])
def test_a_command_loads_only_its_own_module(argv, loaded):
    """``linlayout --version`` imports no subcommand; a subcommand imports its own module, not
    the others (nor the synthesizer, the conversion planner or the TTGIR reader it does not
    use)."""
    code = ("import sys, io, contextlib; from linlayout.cli import main, COMMANDS\n"
            "with contextlib.redirect_stdout(io.StringIO()), "
            "contextlib.redirect_stderr(io.StringIO()):\n"
            f"    try: main({argv!r})\n"
            "    except SystemExit: pass\n"
            "print(sorted(c for c in COMMANDS if 'linlayout.cli.' + c in sys.modules))\n"
            "print(sorted(m for m in ('linlayout.synthesis', 'linlayout.conversion', "
            "'linlayout.triton', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == [repr(sorted(loaded)), "[]"]


def test_python_m_linlayout_runs_the_cli():
    proc = subprocess.run([sys.executable, "-m", "linlayout", "synthesize"],
                          capture_output=True, text=True, encoding="utf-8", check=False)
    assert proc.returncode == 0, proc.stderr
    assert FORMULA in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "linlayout", "show", "/nonexistent.json"],
                          capture_output=True, text=True, encoding="utf-8", check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("linlayout: error: ") and len(proc.stderr.splitlines()) == 1


def test_an_internal_error_is_not_blamed_on_the_input(monkeypatch, capsys):
    """A bug (an exception that is no bad-input error) exits 3 and says it is a bug."""
    from linlayout.cli import EXIT_INTERNAL_ERROR, synthesize as synthesize_cmd

    def broken(args):
        raise KeyError("a bug")

    monkeypatch.setattr(synthesize_cmd, "run", broken)
    from linlayout.cli import main
    code = main(["synthesize"])
    err = capsys.readouterr().err
    assert code == EXIT_INTERNAL_ERROR == 3
    assert "internal error" in err and "bug" in err and "error: " not in err.split("internal")[0]


def test_version_prints_the_package_version(capsys):
    from linlayout import __version__

    code, out, _ = run_cli(capsys, "--version")
    assert code == 0 and out.strip() == f"linlayout {__version__}"


def test_a_closed_pipe_is_no_error():
    """``linlayout … | head``: the reader goes away; like any Unix tool, nothing on stderr and
    exit 141 (128 + SIGPIPE), never "bad input"."""
    import os

    env = dict(os.environ, PYTHONUNBUFFERED="")
    kernel = str(ROOT / "tests" / "data" / "ttgir" / "transpose2.ttgir")
    # far more than a pipe buffer holds, so the write after the reader left fails
    proc = subprocess.Popen([sys.executable, "-m", "linlayout", "check", "--json"]
                            + [kernel] * 40, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.read(1)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.stderr.close()
    assert proc.wait() == 141
    assert err == ""


@pytest.mark.parametrize("argv", [["show", "a" * 120_000],
                                  ["synthesize", "--element-bits", "b" * 120_000]])
def test_a_huge_bad_argument_is_not_echoed_whole(capsys, argv):
    from linlayout.cli.common import MAX_MESSAGE_CHARS

    code, _, err = run_cli(capsys, *argv)
    assert code == 2 and "error:" in err and "Traceback" not in err
    assert "…" in err
    assert max(len(line) for line in err.splitlines()) < MAX_MESSAGE_CHARS + 100
