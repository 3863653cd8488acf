"""The package's structure holds: data flows one way between its packages, no module imports
itself back through others, importing the Triton encodings loads no synthesis or lowering
code, and docs/architecture.md names every module, and only modules that exist."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "linlayout"

#: Packages and top-level modules from the bottom up: each may import only its own layer or
#: lower ones (``linlayout/__init__`` and ``__main__``, the public façade, are exempt).
LAYERS = (
    {"errors"},
    {"_checks", "_memo"},
    {"f2"},
    {"subspace"},
    {"layout"},
    {"hardware", "examples"},
    {"cute"},
    {"ptx", "conflicts", "global_memory"},
    {"lowering"},
    {"synthesis"},
    {"conversion"},
    {"triton", "show"},
    {"check"},
    {"cli"},
)
RANK = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The linlayout modules ``name`` imports (module-level and inside functions; not the
    ``if TYPE_CHECKING:`` imports, which never run)."""
    here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and "TYPE_CHECKING" in ast.unparse(node.test)
                   for stmt in node.body for n in ast.walk(stmt)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("linlayout"))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            if not target.startswith("linlayout"):
                continue
            subs = {f"{target}.{a.name}" for a in node.names} & known
            out.update(subs or {target})
    return out & known


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    return {m: _imports(m, p, known) for m, p in mods.items()}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def test_every_package_has_a_layer():
    tops = {_top(m) for m in _modules()} - {"", "__main__"}
    assert tops <= set(RANK), f"give these a layer in LAYERS: {sorted(tops - set(RANK))}"


def test_data_flows_one_way():
    upward = []
    for m, targets in _graph().items():
        src = _top(m)
        if src in ("", "__main__"):
            continue
        for t in targets:
            dst = _top(t)
            if dst and dst != src and RANK[dst] > RANK[src]:
                upward.append(f"{m} -> {t}")
    assert not upward, "imports against the data flow:\n" + "\n".join(sorted(upward))


def test_no_import_cycle():
    graph = _graph()
    # a package's __init__ re-exports its submodules; a submodule importing its own
    # package's __init__ is what closes a cycle, so keep every edge
    state: dict[str, int] = defaultdict(int)  # 0 new, 1 on the stack, 2 done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(graph[m]):
            if t == m:
                continue
            if state[t] == 1:
                return stack[stack.index(t):] + [t]
            if state[t] == 0:
                cycle = visit(t)
                if cycle:
                    return cycle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if state[m] == 0:
            cycle = visit(m)
            assert cycle is None, "import cycle: " + " -> ".join(cycle)


@pytest.mark.parametrize("module, forbidden", [
    ("linlayout.triton.encodings", ("linlayout.synthesis", "linlayout.check")),
    ("linlayout.triton", ("linlayout.synthesis", "linlayout.check")),
    ("linlayout", ("linlayout.synthesis", "linlayout.triton", "linlayout.check", "galois",
                   "sympy", "matplotlib")),
])
def test_importing_loads_nothing_above_it(module, forbidden):
    code = (f"import sys, {module}; "
            f"print(sorted(m for m in sys.modules if m.startswith({forbidden!r})))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "[]", f"import {module} loads {out}"


def test_the_architecture_page_names_modules_that_exist():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`(linlayout(?:/[A-Za-z_0-9]+)+(?:\.py|/))`", text))
    assert len(named) >= 30, "the page should name the package's modules"
    missing = sorted(n for n in named if not (ROOT / n).exists())
    assert not missing, f"docs/architecture.md names modules that do not exist: {missing}"


def _items(text: str) -> list[str]:
    """The page's table rows, list items (with their continuation lines) and paragraphs."""
    items: list[str] = []
    for line in text.splitlines():
        starts = line.startswith(("|", "* ", "#")) or re.match(r"\d+\. ", line) or not line.strip()
        if starts or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    return items


def test_the_architecture_page_names_every_module():
    """Each module is named by its path, or by its file name in a row or item that names its
    package's folder (``__init__`` and ``__main__`` need not be)."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    items = _items(text)
    unnamed = []
    for path in sorted(PKG.rglob("*.py")):
        if path.name in ("__init__.py", "__main__.py"):
            continue
        rel = path.relative_to(ROOT).as_posix()
        folder = path.parent.relative_to(ROOT).as_posix() + "/"
        if f"`{rel}`" not in text and not any(f"`{folder}" in item and f"`{path.name}`" in item
                                              for item in items):
            unnamed.append(rel)
    assert not unnamed, f"name these modules in docs/architecture.md: {unnamed}"
