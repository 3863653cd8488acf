"""The steps the held-out probe scripts of this folder share (``producer_probes.py``,
``amd_producer_probes.py``, ``redux_heldout_probes.py``): compile a Gluon kernel and its
stored TTGIR with Triton 3.9.0 (with and without LLVM's ``-O3`` middle end), record each
assembly's opcodes, read ``linlayout check --json`` on the TTGIR, and the command line that
writes, checks or replays a fixture.

Triton is imported inside the functions that compile, so the replay (``--compare-only``)
runs without it.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import random
import tempfile
from typing import Callable

from fixture import read_fixture, write_or_check

#: the targets the probes are drawn on, as ``GPUTarget`` arguments
#: (``triton.backends.compiler.GPUTarget(backend, arch, warp_size)``)
TARGETS = {"cuda80": ("cuda", 80, 32), "cuda90": ("cuda", 90, 32),
           "cuda100": ("cuda", 100, 32), "gfx942": ("hip", "gfx942", 64),
           "gfx950": ("hip", "gfx950", 64)}


def gpu_target(tname: str):
    """The ``GPUTarget`` of a :data:`TARGETS` name (``KeyError`` on another)."""
    from triton.backends.compiler import GPUTarget

    return GPUTarget(*TARGETS[tname])


def split(rng: random.Random, total: int, dims: int = 2, along: int | None = None,
          bias: float = 0.7) -> list[int]:
    """``total`` (a power of two) spread over ``dims`` dimensions one factor of two at a
    time, each to ``along`` with probability ``bias`` (when given), else to a random
    dimension; draws from ``rng`` in a fixed order (fixtures depend on it)."""
    out = [1] * dims
    for _ in range(total.bit_length() - 1):
        out[along if along is not None and rng.random() < bias else rng.randrange(dims)] *= 2
    return out


def compile_gluon(fn, signature: dict, constexprs: dict, tname: str, warps: int) -> str:
    """The TTGIR (locations stripped, ``corpus.strip_locs``) of a Gluon kernel compiled for
    ``tname`` with ``warps`` warps; raises what ``triton.compile`` raises."""
    import triton
    from corpus import strip_locs
    from triton.experimental.gluon._runtime import GluonASTSource

    k = triton.compile(GluonASTSource(fn=fn, signature=signature, constexprs=constexprs),
                       target=gpu_target(tname), options={"num_warps": warps})
    return strip_locs(k.asm["ttgir"])


@contextlib.contextmanager
def private_triton_cache():
    """A fresh, empty Triton cache directory (``TRITON_CACHE_DIR``) for the compiles inside
    the ``with`` block, removed afterwards; yields its path. Every compile that skips
    LLVM's ``-O3`` (``llvm.optimize_module`` replaced) must run in one: Triton's cache key
    does not see the replaced function, so a shared cache hands the unoptimised kernel to a
    later ``-O3`` compile of the same TTGIR, or the optimised one to a later lowering."""
    old = os.environ.get("TRITON_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="triton-cache-") as d:
        os.environ["TRITON_CACHE_DIR"] = d
        try:
            yield d
        finally:
            if old is None:
                os.environ.pop("TRITON_CACHE_DIR", None)
            else:
                os.environ["TRITON_CACHE_DIR"] = old


def compile_ttgir(ttgir: str, tname: str, o3: bool) -> str:
    """The assembly (PTX or AMDGCN) of a TTGIR text compiled from a file ``probe.ttgir``;
    without ``o3``, LLVM's middle end (``llvm.optimize_module``) is skipped, as
    ``lowering_reference.py`` does, leaving Triton's lowering. Each call compiles into its
    own empty Triton cache (:func:`private_triton_cache`)."""
    import triton
    from triton._C.libtriton import llvm

    orig = llvm.optimize_module
    llvm.optimize_module = (lambda mod, *a, **kw: orig(mod, *a, **kw)) if o3 else \
        (lambda mod, *a, **kw: None)
    try:
        with private_triton_cache() as d:
            path = pathlib.Path(d) / "probe.ttgir"
            path.write_text(ttgir, encoding="utf-8")
            k = triton.compile(str(path), target=gpu_target(tname))
    finally:
        llvm.optimize_module = orig
    return k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]


def assembly_records(ttgir: str, tname: str, count: Callable[[str, bool], dict]) -> dict:
    """``{"lowering": ..., "final": ..., "data": {"lowering": ..., "final": ...}}``: the TTGIR
    compiled without and with ``-O3`` (:func:`compile_ttgir`), each assembly counted by
    ``count(asm, data)``, whole and on the data path (``datapath.py``)."""
    record: dict = {"data": {}}
    for label, o3 in (("lowering", False), ("final", True)):
        asm = compile_ttgir(ttgir, tname, o3)
        for rec, data in ((record, False), (record["data"], True)):
            rec[label] = count(asm, data)
    return record


def check_ops(ttgir: str) -> list[dict]:
    """``linlayout check --json``'s ops of one TTGIR text."""
    from linlayout.check import check_files, render_json

    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "probe.ttgir"
        path.write_text(ttgir, encoding="utf-8")
        (doc,) = json.loads(render_json(check_files([str(path)]), 1, False))["files"]
    return doc["ops"]


def known_mismatches(name: str) -> dict:
    """Set ``name`` of ``tests/data/known_mismatches.json`` (``{}`` where it has none)."""
    root = pathlib.Path(__file__).resolve().parents[2]
    return json.loads((root / "tests" / "data" / "known_mismatches.json").read_text(
        encoding="utf-8")).get(name, {})


def probe_arguments(doc: str):
    """The command line every held-out probe script takes: ``--check`` and
    ``--compare-only`` (``doc`` is the script's docstring); add a script's own options to
    the returned ``argparse.ArgumentParser``."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compile, compare with the fixture")
    ap.add_argument("--compare-only", action="store_true",
                    help="compare the committed fixture with check (no Triton needed)")
    return ap


def run_probes(out: pathlib.Path, args, build: Callable[[], dict],
               compare: Callable[[dict], int]) -> int:
    """With ``args.compare_only``: ``compare`` the fixture at ``out``; otherwise compile
    (``build()``, ``TRITON_ALWAYS_COMPILE`` set), write or check the fixture
    (``fixture.write_or_check``) and compare. Returns the exit status: that of the fixture
    step when non-zero, else 1 when ``compare`` counts an unlisted difference."""
    if args.compare_only:
        data = read_fixture(out)
    else:
        os.environ["TRITON_ALWAYS_COMPILE"] = "1"
        data = build()
        rc = write_or_check(out, data, args.check)
        if rc:
            return rc
    return 1 if compare(data) else 0
