"""Every code block of the README and ``docs/*.md`` runs, and prints what it shows.

A fenced block is run when it is code:

* a ``>>>`` session: run by :mod:`doctest` (``...`` elides), its output compared;
* a ``python`` block: executed (it must not raise);
* a command block, lines starting ``$ linlayout …`` each followed by the output it prints
  (stdout, then stderr), or ``$ echo $?`` followed by the previous command's exit status; a
  line that is only ``…`` stands for any number of lines.

The blocks of one file run in order in one namespace (a session), in a fresh folder that holds
links to the checkout's ``tests/`` and ``papers/`` (so paths such as
``tests/data/ttgir/transpose2.ttgir`` work, and files a command writes land there); so this
runs from a fresh clone, with nothing installed. Other blocks — formulas, tables, diagrams,
the quick start's ``pip`` lines — are text.

Beyond the code blocks, on every page (the benchmarks', papers' and fixtures' READMEs too): a
``linlayout …`` line names real options, a repository path exists, a ``linlayout.a.b`` name
resolves, and no page points outside the repository; ``docs/cli.md`` names every option.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shlex

import pytest

import linlayout

from tests.support import ROOT

FILES = ["README.md"] + sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))
#: Every page a newcomer reads: the README, ``docs/``, the benchmarks' and the papers' READMEs.
ALL_PAGES = FILES + ["benchmarks/README.md", "papers/README.md", "tests/data/README.md"] + sorted(
    f"papers/{p.parent.name}/README.md" for p in (ROOT / "papers").glob("*/README.md"))
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<body>.*?)^(?P=indent)```", re.S | re.M)


def blocks(path: str) -> list[tuple[int, str, str]]:
    """``(line number, kind, body)`` of each code block of ``path``; kind is ``"doctest"``,
    ``"python"`` or ``"command"`` (other blocks are left out)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").splitlines()) + "\n"
        line = text.count("\n", 0, m.start()) + 1
        if re.search(r"^>>> ", body, re.M):
            out.append((line, "doctest", body))
        elif re.search(r"^\$ ", body, re.M):
            out.append((line, "command", body))
        elif m.group("lang") == "python":
            out.append((line, "python", body))
    return out


def run_command(line: str, last_status: int) -> tuple[int, str]:
    """Run one ``$`` line; (exit status, what it printed)."""
    from linlayout.cli import main

    argv = shlex.split(line)
    if argv == ["echo", "$?"]:
        return last_status, f"{last_status}\n"
    assert argv and argv[0] == "linlayout", f"the runner runs only linlayout and echo $?: {line}"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv[1:])
    return status, out.getvalue() + err.getvalue()


def matches(shown: list[str], printed: str) -> bool:
    """``printed`` is ``shown``, a line ``…`` standing for any lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if s.strip() == "…" else re.escape(s.rstrip()) + r"[ \t]*\n"
                      for s in shown)
    return re.fullmatch(pattern, printed) is not None


def check_command_block(body: str) -> list[str]:
    """The mismatches of one command block (empty: it prints what it shows)."""
    failures = []
    status = 0
    steps = re.split(r"^\$ ", body, flags=re.M)
    assert steps[0].strip() == "", f"a command block starts with '$ ': {steps[0]!r}"
    for step in steps[1:]:
        command, _, shown = step.partition("\n")
        status, printed = run_command(command, status)
        printed = "\n".join(line.rstrip() for line in printed.splitlines()) + ("\n" if printed else "")
        shown_lines = [s for s in shown.splitlines()]
        while shown_lines and not shown_lines[-1].strip():
            shown_lines.pop()
        if not matches(shown_lines, printed):
            failures.append(f"$ {command}\n--- shown:\n" + "\n".join(shown_lines)
                            + f"\n--- printed:\n{printed}")
    return failures


@pytest.mark.parametrize("path", FILES)
def test_code_blocks_run_and_print_what_they_show(path, tmp_path, monkeypatch):
    for name in ("tests", "papers"):
        os.symlink(ROOT / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "100")  # argparse's --help width, as shown in the docs
    namespace = {"ll": linlayout, "__name__": "__docs__"}
    failures = []
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    parser = doctest.DocTestParser()
    for line, kind, body in blocks(path):
        where = f"{path}:{line}"
        if kind == "python":
            try:
                exec(compile(body, where, "exec"), namespace)
            except Exception as exc:  # report every failing block, not only the first
                failures.append(f"{where}: {type(exc).__name__}: {exc}")
        elif kind == "doctest":
            test = parser.get_doctest(body, namespace, where, path, line)
            out = io.StringIO()
            result = runner.run(test, out=out.write, clear_globs=False)
            namespace.update(test.globs)  # DocTest ran on a copy: keep the session's names
            if result.failed:
                failures.append(f"{where}:\n{out.getvalue()}")
        else:
            failures.extend(f"{where}: {f}" for f in check_command_block(body))
    assert not failures, "\n\n".join(failures)


def test_every_file_is_looked_at():
    assert "docs/cli.md" in FILES and "docs/glossary.md" in FILES
    assert sum(len(blocks(f)) for f in FILES) >= 20


@pytest.mark.parametrize("path", ALL_PAGES)
def test_relative_links_lead_somewhere(path):
    text = FENCE.sub("", (ROOT / path).read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # code, such as smem_ptr[16b](unset), is no link
    base = (ROOT / path).parent
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if "://" not in target and not target.startswith("mailto:"):
            assert (base / target).exists(), f"{path}: link to {target}"



def _subparsers() -> dict:
    import argparse

    from linlayout.cli import parser

    action = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_cli_page_names_every_option():
    """``docs/cli.md`` names every option ``linlayout COMMAND --help`` lists."""
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [f"{name} {opt}" for name, sub in _subparsers().items()
               for action in sub._actions for opt in action.option_strings
               if opt.startswith("--") and opt != "--help"
               and not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", text)]
    assert not missing, f"docs/cli.md does not name: {missing}"


@pytest.mark.parametrize("path", ALL_PAGES)
def test_command_lines_use_real_options(path):
    """Every ``linlayout COMMAND …`` a page shows (in code spans or ``$`` lines) names a real
    command, and only options that command has, with values among its choices."""
    text = (ROOT / path).read_text(encoding="utf-8")
    subs = _subparsers()
    lines = re.findall(r"`(linlayout [^`\n]+)`", text) + re.findall(r"^\$ (linlayout .*)$", text,
                                                                     re.M)
    wrong = []
    for line in lines:
        words = line.replace("\\|", "|").split()
        command = words[1]
        if command.startswith("-") or command.isupper() or command in ("…", "..."):
            continue  # linlayout --version, linlayout COMMAND --help, linlayout … | head
        if command not in subs:
            wrong.append(f"{line}: no command {command!r}")
            continue
        actions = {o: a for a in subs[command]._actions for o in a.option_strings}
        for word, following in zip(words[2:], words[3:] + [""]):
            option = word.split("=")[0]
            if not option.startswith("--"):
                continue
            for one in option.split("/"):  # --png/--svg
                one = one if one.startswith("--") else f"--{one}"
                if one not in actions:
                    wrong.append(f"{line}: {command} has no {one}")
            choices = actions.get(option) and actions[option].choices
            value = following.strip("\"'")
            if (choices and value and not value.startswith("-") and value not in choices
                    and not value.isupper() and not re.search(r"[|…]", value)):
                wrong.append(f"{line}: {option} takes one of {list(choices)}, not {value!r}")
    assert not wrong, "\n".join(wrong)


#: Paths a page names that a command writes (they are not in the checkout).
WRITTEN = {"papers/hardware/build", "papers/hardware/build/", "papers/hardware/out/"}


@pytest.mark.parametrize("path", ALL_PAGES)
def test_repository_paths_exist(path):
    """Every repository path a page names (``linlayout/…``, ``tests/…``, ``papers/…``,
    ``docs/…``, ``benchmarks/…``; globs included) is in the checkout; a placeholder is written
    in capitals (``linlayout/data/schemas/COMMAND.json``)."""
    text = (ROOT / path).read_text(encoding="utf-8")
    missing = []
    for name in re.findall(r"(?<![\w./-])((?:linlayout|tests|papers|docs|benchmarks)/"
                           r"[\w./*-]*[\w*/])", text):
        name = name.split("::")[0]
        if name in WRITTEN or re.search(r"(^|/)[A-Z_]+(\.\w+)?$", name) or "_x." in name:
            continue
        if not (list(ROOT.glob(name)) if "*" in name else (ROOT / name).exists()):
            if not (ROOT / path).parent.joinpath(name).exists():
                missing.append(name)
    assert not missing, f"{path} names paths that do not exist: {missing}"


def _resolves(parts: list[str]) -> bool:
    """Whether the dotted name split into ``parts`` is a module or an attribute of one: the
    attributes below its longest importable prefix exist (True when no prefix imports)."""
    import importlib

    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return True


@pytest.mark.parametrize("path", ALL_PAGES)
def test_dotted_names_resolve(path):
    """Every ``linlayout.a.b`` (or ``ll.a``) a page names is a module or an attribute of one."""
    text = (ROOT / path).read_text(encoding="utf-8")
    unresolved = [name for name in
                  sorted(set(re.findall(r"(?<![\w./])((?:linlayout|ll)(?:\.\w+)+)", text)))
                  if not _resolves(["linlayout"] + name.split(".")[1:])]
    assert not unresolved, f"{path} names what does not exist: {unresolved}"


@pytest.mark.parametrize("path", ALL_PAGES)
def test_pages_point_only_at_the_repository(path):
    """No page sends a reader to notes outside the repository (a sibling folder of notes
    reached by a relative path, a capitalised ``NAME.md`` the repository lacks, a folder of
    the machine it was written on), or names an issue number."""
    text = (ROOT / path).read_text(encoding="utf-8")
    ours = {p.name for p in ROOT.rglob("*.md") if ".git" not in p.parts}
    found = re.findall(r"(?:\.\./|/)share[d]/|\bissues? ?#?\d+|(?<![\w.~-])/(?:work|home|root|Users)/",
                       text, re.I) + [
        name for name in re.findall(r"\b[A-Z][A-Z_]+\.md\b", text) if name not in ours]
    assert not found, f"{path}: {found}"


def _heading_anchors(path) -> set[str]:
    """The anchors GitHub gives the headings of a page: lower case, punctuation dropped,
    spaces as hyphens, ``-1``, ``-2`` … after repeats."""
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6} (.*)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return anchors


@pytest.mark.parametrize("path", ALL_PAGES)
def test_anchors_lead_to_headings(path):
    """A link ``page.md#anchor`` (or ``#anchor``) names a heading of that page."""
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", (ROOT / path).read_text(encoding="utf-8")))
    base = (ROOT / path).parent
    wrong = []
    for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
        page = base / target if target else ROOT / path
        if page.suffix == ".md" and page.exists() and anchor not in _heading_anchors(page):
            wrong.append(f"{target}#{anchor}")
    assert not wrong, f"{path}: no such heading: {wrong}"


@pytest.mark.parametrize("command", ["synthesize", "conflicts", "coalescing", "check", "convert",
                                     "ptx"])
def test_cli_page_names_every_json_key(command):
    """``docs/cli.md`` names every top-level key of a command's ``--json`` (its shipped
    JSON Schema), quoted or in code."""
    from linlayout.show.schemas import schema

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    missing = [key for key in schema(command).get("properties", {})
               if not re.search(rf"[\"`]{re.escape(key)}[\"`]", text)]
    assert not missing, f"docs/cli.md does not name {command} --json keys {missing}"


def test_the_docs_index_links_every_page():
    """``docs/README.md`` links every page of ``docs/``."""
    index = (ROOT / "docs" / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w-]+\.md)\)", index))
    pages = {p.name for p in (ROOT / "docs").glob("*.md")} - {"README.md"}
    assert pages <= linked, f"docs/README.md does not link {sorted(pages - linked)}"


def test_help_defaults_are_the_parsers():
    """A ``--help`` line that says ``default N`` (a number or one of the option's choices)
    names the default the parser really has."""
    wrong = []
    for name, sub in _subparsers().items():
        for action in sub._actions:
            m = re.search(r"default:? ([\w.]+)", action.help or "")
            if not m:
                continue
            said = m.group(1).rstrip(".")
            if re.fullmatch(r"\d+(\.\d+)?", said):
                if action.default is None or float(said) != float(action.default):
                    wrong.append(f"{name} {action.option_strings}: says {said}, is {action.default!r}")
            elif (action.choices and said in action.choices and action.default is not None
                  and said != action.default):  # None: "not given", resolved by the command
                wrong.append(f"{name} {action.option_strings}: says {said}, is {action.default!r}")
    assert not wrong, "\n".join(wrong)


def _script_source(script):
    """A script's source followed by that of the papers modules it imports by bare name
    (``from fixture import main_for``: shared command lines live there)."""
    source = script.read_text(encoding="utf-8")
    folders = (script.parent, ROOT / "papers" / "triton_lowering")
    for name in re.findall(r"^\s*(?:from|import) (\w+)", source, re.M):
        for folder in folders:
            if (folder / f"{name}.py").is_file():
                source += (folder / f"{name}.py").read_text(encoding="utf-8")
                break
    return source


@pytest.mark.parametrize("path", ALL_PAGES)
def test_script_lines_name_real_scripts_and_options(path):
    """Every ``python papers/….py --option`` (or ``benchmarks/``, ``docs/``; or a script of the
    page's own folder in code) a page shows is a file of the checkout whose source (or that of
    a papers module it imports) names each ``--option``; ``bench_x.py`` is a placeholder."""
    text = (ROOT / path).read_text(encoding="utf-8")
    found = [(ROOT / s, a) for s, a in re.findall(
        r"python3? ((?:papers|benchmarks|docs)/[\w/.-]+\.py)((?: +[^\s`|#)]+)*)", text)]
    found += [((ROOT / path).parent / s, a) for s, a in re.findall(
        r"`python3? ([\w-]+\.py)((?: +[^\s`]+)*)`", text)]
    wrong = []
    for script, args in found:
        if script.name == "bench_x.py":
            continue
        if not script.is_file():
            wrong.append(f"no script {script.relative_to(ROOT)}")
            continue
        source = _script_source(script)
        wrong += [f"{script.name} has no {a}" for a in args.split()
                  if a.startswith("--") and a.split("=")[0] not in source]
    assert not wrong, f"{path}: {wrong}"


def test_docstring_cross_references_resolve():
    """Every ``:func:``/``:class:``/``:mod:``/… reference to an absolute ``linlayout.…`` name in
    the package's source is a module or an attribute of one (a moved function leaves none
    behind)."""
    unresolved = []
    for path in sorted((ROOT / "linlayout").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for name in re.findall(r":(?:func|class|data|mod|meth|attr|exc):`~?(linlayout\.[\w.\s]+?)`",
                               text):
            name = re.sub(r"\s+", "", name).rstrip(".")
            if not _resolves(name.split(".")):
                unresolved.append(f"{path.relative_to(ROOT)}: {name}")
    assert not unresolved, "\n".join(unresolved)


def test_the_fixture_readme_names_every_fixture():
    """``tests/data/README.md`` describes every fixture file of ``tests/data``."""
    data = ROOT / "tests" / "data"
    text = (data / "README.md").read_text(encoding="utf-8")
    missing = sorted(p.name for p in data.iterdir()
                     if p.is_file() and p.name != "README.md" and p.name not in text)
    assert not missing, f"tests/data/README.md does not name {missing}"
