#!/usr/bin/env python
"""Why LLVM merges fewer of Triton's shared-memory accesses than ``check`` predicts on some
probes: LLVM's known-bits analysis of Triton's lane offset, with and without LLVM's SLP
vectoriser. Evidence for what ``linlayout/lowering/llvm_merge.py`` does not model yet.

Run with Triton 3.9.0 installed (CPU only; about 15 s of CPU a probe)::

    cd papers/triton_lowering
    python llvm_merge_known_bits.py              # the llvm_merge set's known mismatches
    python llvm_merge_known_bits.py --merged     # its probes LLVM merged on cuda:90/100
    python llvm_merge_known_bits.py NAME ...     # these probes of the set
    python llvm_merge_known_bits.py --seed 2611 --count 30   # a fresh draw
    python llvm_merge_known_bits.py --slp-targeted --seed 2657 --count 1500
    python llvm_merge_known_bits.py --align-targeted --seed N --count K
    python llvm_merge_known_bits.py --passes NAME ...   # X's tree after each LLVM pass

``check`` models LLVM's ``LoadStoreVectorizer`` (LSV) on the accesses of one thread, grouped
by the lane/warp part of each access's XOR constant (``X ^ (c & P)``), assuming LLVM proves
what the layout implies: that ``X`` (Triton's lane/warp/block offset) has no bit outside
``P``. LLVM proves bits with ``computeKnownBits`` (``llvm/lib/Analysis/ValueTracking.cpp``),
which looks at most 6 instructions deep (``MaxAnalysisRecursionDepth``) and, through a
vector ``shl`` whose lanes shift by different amounts, keeps only what holds for every lane.
Two steps of the merge rest on it:

* **alignment**: ``InferAlignment`` sets each access's ``align`` from the known low zero bits
  of its address; the LSV keeps a chain only if its first access is aligned to the chain's
  size (NVPTX has no misaligned shared vectors). The base ``X ^ K`` of a mixed group is one
  ``xor`` deeper than ``X``; when ``X`` is an ``or`` of many lane terms, the deepest terms
  fall past the limit and the group stays at the element's alignment.
* **contiguity**: before the LSV, NVPTX's IR passes split ``X ^ K`` into ``(X ^ K') + (K &
  known-zero bits of X)`` (the LSV's log shows the split addresses), which is how the LSV
  sees that ``X ^ 148`` and ``X ^ 144`` are 4 bytes apart. On sm_90 and up (Triton disables
  the SLP vectoriser only for sm_80: ``make_llir`` in
  ``third_party/nvidia/backend/compiler.py``), LLVM's SLP vectoriser may turn the ``or`` of
  Triton's lane terms into ``llvm.vector.reduce.or`` of one ``shl <4 x i32>`` with a
  different shift per lane, of a vector built by one ``insertelement`` per lane; its known
  bits are then those every lane shares, each lane one level deeper, the split loses those
  bits, and the sub-groups stay apart.

``--align-targeted`` does the same for the rule for the alignment of a deep ``X``
(``known_low_zeros`` in ``llvm_merge.py``), turned off by proving every group's base as
aligned as its lowest lane/warp offset. ``--passes`` prints, for each probe, ``X``'s tree
after every LLVM pass that changed it (``LLVM_IR_ENABLE_DUMP``).

``--slp-targeted`` tests the rule the model took from these probes (``slp`` in
``llvm_merge.py``: on a target with SLP, an ``X`` of four or more OR operands keeps XOR
constants that agree on ``P`` apart): it draws ``--count`` stress probes with ``--seed``,
stops Triton after the TTGIR (a stage inspection hook: no LLVM, a fraction of a second a
probe), keeps those where ``check``'s prediction with the rule differs from its prediction
without it, compiles those fully (with SLP as Triton does, and without) and prints, per
probe, whether each prediction equals the PTX, then the totals.

For each probe the script compiles the TTGIR as Triton does and again with the SLP
vectoriser off, and prints: whether ``check`` equals the PTX; whether the O3 IR has an OR
reduction; whether the PTX without SLP equals ``check``; the LSV's chains per shared
load/store class and how many candidate chains it dropped as misaligned (from LLVM's debug
log, ``TRITON_ENABLE_LLVM_DEBUG``); and, for each mismatch, the IR defining its XOR group
bases, each instruction tagged with its depth below the address (``@d``). A mismatch is
``slp`` when the PTX without SLP equals ``check``, ``alignment`` when the LSV dropped
misaligned chains, and unexplained otherwise (exit status 1).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import gzip
import json
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

FIXTURE = ROOT / "tests" / "data" / "triton_llvm_merge_probes.json.gz"
KNOWN = ROOT / "tests" / "data" / "known_mismatches.json"

from probe_compile import private_triton_cache
from reduce_probes import SMEM  # noqa: E402  (the shared-memory opcodes the fixtures count)


@contextlib.contextmanager
def _stderr_to(path: str):
    """Send this process's C-level stderr (LLVM's debug log) to ``path``."""
    sys.stderr.flush()
    saved = os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 2)
    try:
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(fd)
        os.close(saved)


@contextlib.contextmanager
def _environ(values: dict[str, str]):
    """Set the environment variables ``values`` inside the ``with`` block; restore each
    (or remove it, where it was unset) afterwards."""
    old = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, v in old.items():
            if v is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = v


def _compile_logged(ttgir: str, target: str, env: dict[str, str]) -> tuple[object, str]:
    """Compile ``ttgir`` (written to a file ``probe.ttgir``) for the CUDA ``target``
    (``cuda90``…) with ``TRITON_ALWAYS_COMPILE`` and the variables ``env`` set, in a private,
    empty Triton cache (``probe_compile.private_triton_cache``); return the compiled kernel
    and what the compile wrote to this process's C-level stderr (LLVM's debug output)."""
    import triton
    from triton.backends.compiler import GPUTarget

    with private_triton_cache() as tmp, _environ({"TRITON_ALWAYS_COMPILE": "1", **env}):
        src = pathlib.Path(tmp) / "probe.ttgir"
        src.write_text(ttgir)
        log = pathlib.Path(tmp) / "stderr.log"
        with _stderr_to(str(log)):
            k = triton.compile(str(src), target=GPUTarget("cuda", int(target[4:]), 32))
        return k, log.read_text(errors="replace")


def compile_ttgir(ttgir: str, target: str, slp: bool | None, log_lsv: bool = True) -> dict:
    """Compile ``ttgir`` for ``target`` (``cuda90``…); ``slp`` None: as Triton does, else
    force LLVM's SLP vectoriser on or off. Returns the PTX's shared-memory opcode counts,
    the LLVM IR after -O3 and (with ``log_lsv``) the LSV's debug log."""
    from triton._C.libtriton import llvm as _llvm

    orig = _llvm.optimize_module

    def patched(mod, *a, **k):
        if slp is not None:
            k["disable_slp_vectorizer"] = not slp
        return orig(mod, *a, **k)

    # a private cache (_compile_logged): the key does not see the replaced
    # optimize_module's SLP switch
    _llvm.optimize_module = patched
    try:
        k, lsv = _compile_logged(ttgir, target, {
            "TRITON_ENABLE_LLVM_DEBUG": "1" if log_lsv else "0",
            "TRITON_LLVM_DEBUG_ONLY": "load-store-vectorizer"})
    finally:
        _llvm.optimize_module = orig
    return {"counts": dict(collections.Counter(SMEM.findall(k.asm["ptx"]))),
            "llir": k.asm["llir"], "lsv": lsv}


def lsv_summary(log: str) -> dict:
    """Per shared-memory class (``load``/``store``): the LSV's chain sizes and the number of
    candidate chains it dropped as misaligned."""
    out: dict = {}
    side = None
    for line in log.splitlines():
        m = re.match(r"LSV: Running on equivalence class of size \d+ keyed on (load|store) of "
                     r"(\S+)", line)
        if m:
            side = m.group(1) if "addrspace 3" in line else None
            if side:
                out.setdefault(side, {"chains": [], "misaligned": 0})
            continue
        if side is None:
            continue
        m = re.match(r"LSV: Running on chain with (\d+) instructions", line)
        if m:
            out[side]["chains"].append(int(m.group(1)))
        elif "alignment is not AllowedAndFast" in line:
            out[side]["misaligned"] += 1
    return out


def _defs(ir: str) -> dict:
    defs = {}
    for line in ir.splitlines():
        m = re.match(r"\s*(%[\w.]+) = (?:tail )?(.*?)(?:, !dbg !\d+)?$", line)
        if m:
            defs[m.group(1)] = m.group(2)
    return defs


def _tree(defs: dict, v: str, depth: int, limit: int = 8) -> str:
    """The expression defining ``v``, operands nested, each instruction tagged with its
    depth below the analysed value (``@d``)."""
    if v not in defs or depth > limit:
        return v
    text = defs[v]
    op = text.split()[0]
    if op == "call" and "reduce.or" in text:
        inner = re.search(r"\((?:<[^>]+>) (%[\w.]+)\)", text).group(1)
        return f"reduce.or@{depth}({_tree(defs, inner, depth + 1, limit)})"
    if op in ("or", "xor", "and", "shl", "lshr", "add", "select", "insertelement",
              "shufflevector", "zext", "icmp"):
        args = re.findall(r"%[\w.]+|<i32 [^>]+>|\b\d+\b(?! x)", text.split(" ", 1)[1])
        args = [a for a in args if not re.fullmatch(r"\d+", a) or op != "insertelement"]
        shown = [_tree(defs, a, depth + 1, limit) if a.startswith("%") else a for a in args]
        return f"{op}@{depth}({', '.join(shown)})"
    return f"{op}@{depth}"


def group_bases(ir: str) -> dict[str, list[int]]:
    """The XOR group bases of the shared accesses in ``ir`` (``xor X, K`` feeding a
    ``@global_smem`` GEP): ``X`` as an expression tree, each instruction tagged with its
    depth below the address (GEP at depth 0, the ``xor`` at 1) → the constants ``K``."""
    defs = _defs(ir)
    out: dict[str, list[int]] = {}
    for text in defs.values():
        m = re.search(r"getelementptr .*@global_smem, i32 (%[\w.]+)$", text)
        x = re.fullmatch(r"xor i32 (%[\w.]+), (\d+)", defs.get(m.group(1), "")) if m else None
        if x:
            out.setdefault(_tree(defs, x.group(1), 2), []).append(int(x.group(2)))
    return out


def pass_trace(ttgir: str, target: str) -> list[tuple[str, dict[str, list[int]]]]:
    """Compile ``ttgir`` for ``target`` with LLVM's IR printed after every pass
    (``LLVM_IR_ENABLE_DUMP``: ``print-after-all``) and return, for each pass after which
    they changed, ``(pass name, group_bases(IR))``: how ``-O3`` re-shapes each XOR group
    base ``X`` (EarlyCSE sharing terms, InstCombine's ``reassociateForUses`` and
    ``FoldShiftByConstant``, Reassociate's ``or`` → ``add`` and back, SLP's reduction).
    A private cache, as every compile here."""
    _, text = _compile_logged(ttgir, target, {"LLVM_IR_ENABLE_DUMP": "1"})
    parts = re.split(r"\n;? ?\*\*\* IR Dump After (.*?) \*\*\*:?\n", text)
    out: list = []
    for i in range(1, len(parts), 2):
        bases = {k: sorted(set(v)) for k, v in group_bases(parts[i + 1]).items()}
        if bases and (not out or out[-1][1] != bases):
            out.append((parts[i], bases))
    return out


def examine(name: str, e: dict) -> str:
    """Compile one probe both ways, print its row; return its class (``ok``, ``slp``,
    ``alignment`` or ``unexplained``)."""
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

    got, _ = predicted_counts(e["ttgir"], name)
    dflt = compile_ttgir(e["ttgir"], e["target"], None)
    noslp = compile_ttgir(e["ttgir"], e["target"], False, log_lsv=False)
    ok = ptx_counts(dflt["counts"]) == got
    red = "reduce.or" in dflt["llir"]
    ok_noslp = ptx_counts(noslp["counts"]) == got
    lsv = lsv_summary(dflt["lsv"])
    mis = sum(s["misaligned"] for s in lsv.values())
    kind = "ok" if ok else "slp" if ok_noslp else "alignment" if mis else "unexplained"
    chains = " ".join(f"{k}:{'/'.join(map(str, v['chains'])) or '-'}"
                      f"{'(misaligned ' + str(v['misaligned']) + ')' if v['misaligned'] else ''}"
                      for k, v in sorted(lsv.items()))
    print(f"{kind:11s} {name}  reduce.or={'yes' if red else 'no '} "
          f"noSLP={'=check' if ok_noslp else '!=check'}  LSV {chains}")
    if not ok:
        print(f"    check {got}\n    PTX   {ptx_counts(dflt['counts'])}\n"
              f"    PTX without SLP {ptx_counts(noslp['counts'])}")
        for tree, ks in group_bases(dflt["llir"]).items():
            print(f"    X ^ {sorted(ks)}, X = {tree}")
    return kind


def ttgir_only_draw(seed: int, count: int) -> dict:
    """``llvm_merge_probes.py``'s stress draw of ``count`` probes with ``seed``, each compiled
    only as far as its TTGIR (Triton's ``add_stages_inspection_hook`` replaces the LLVM IR
    stage by one that stops): ``{name: {"ttgir", "target", ...}}`` without counts."""
    import reduce_probes
    import triton
    from triton import knobs

    class Stop(Exception):
        pass

    def hook(*args):
        if not args:  # the key Triton's cache adds for the hook
            return "llvm-merge-ttgir-only", "llvm-merge-ttgir-only"

        def stop(src, metadata):
            raise Stop(str(src))
        args[1]["llir"] = stop

    def ttgir(src, target, warps, *_a, **_k):
        knobs.runtime.add_stages_inspection_hook = hook
        try:
            triton.compile(src, target=target, options={"num_warps": warps})
        except Stop as e:
            return {"ttgir": e.args[0], "set": "x", "counts": {}, "preopt": {"types": {}}}, ""
        finally:
            knobs.runtime.add_stages_inspection_hook = None
        raise RuntimeError("Triton compiled past the TTGIR")

    import llvm_merge_probes
    real = reduce_probes.compile_probe
    reduce_probes.compile_probe = ttgir
    try:
        return llvm_merge_probes.build(((seed, count, True),))["probes"]
    finally:
        reduce_probes.compile_probe = real


def _predicted_with_and_without(ttgir: str, name: str, owner, attr: str,
                                replacement) -> tuple[dict, dict]:
    """``check``'s counts (as the fixtures compare them) as the package has them, then with
    ``owner.attr`` replaced by ``replacement`` (restored afterwards); caches cleared around
    each."""
    from linlayout._memo import clear_caches
    from tests.check.shared_memory.asm_counts import predicted_counts

    real = getattr(owner, attr)
    clear_caches()
    with_rule, _ = predicted_counts(ttgir, name)
    setattr(owner, attr, replacement)
    try:
        clear_caches()
        without, _ = predicted_counts(ttgir, name)
    finally:
        setattr(owner, attr, real)
        clear_caches()
    return with_rule, without


def predicted_with_and_without_slp(ttgir: str, name: str) -> tuple[dict, dict]:
    """``check``'s counts (as the fixtures compare them) with the SLP rule and with it turned
    off (``llvm_merged_accesses(..., slp=False)`` everywhere); caches cleared around each."""
    import linlayout.check.shared_memory.predict as pr

    real = pr.llvm_merged_accesses

    def no_slp(m, v, *a, **k):
        return real(m, v, *a, **{**k, "slp": False})

    return _predicted_with_and_without(ttgir, name, pr, "llvm_merged_accesses", no_slp)


def predicted_with_and_without_alignment(ttgir: str, name: str) -> tuple[dict, dict]:
    """``check``'s counts with the rule for the alignment of a deep ``X``
    (``llvm_merge.known_low_zeros``) and with it turned off (every group's base proven as
    aligned as its lowest lane/warp offset); caches cleared around each."""
    import linlayout.lowering.llvm_merge as lm

    return _predicted_with_and_without(ttgir, name, lm, "_known_low_zeros",
                                       lambda *a, **k: 32)


def slp_targeted(seed: int, count: int, rule: str = "SLP") -> int:
    """The ``--slp-targeted`` run (module docstring), or with ``rule="alignment"`` the
    ``--align-targeted`` one (the same for the alignment of a deep ``X``); exits 0."""
    from tests.check.shared_memory.asm_counts import ptx_counts

    both = predicted_with_and_without_slp if rule == "SLP" else \
        predicted_with_and_without_alignment
    probes = ttgir_only_draw(seed, count)
    cands = {}
    for n, e in sorted(probes.items()):
        a, b = both(e["ttgir"], n)
        if a != b:
            cands[n] = (e, a, b)
    print(f"{len(probes)} drawn; the {rule} rule changes check's prediction on {len(cands)}")
    right = {"rule": 0, "without": 0}
    for n, (e, a, b) in sorted(cands.items()):
        got = ptx_counts(compile_ttgir(e["ttgir"], e["target"], None, log_lsv=False)["counts"])
        off = ptx_counts(compile_ttgir(e["ttgir"], e["target"], False, log_lsv=False)["counts"])
        right["rule"] += a == got
        right["without"] += b == got
        print(f"rule {'ok ' if a == got else 'BAD'} without {'ok ' if b == got else 'BAD'} {n}\n"
              f"    with the rule {a}\n    without it    {b}\n    PTX           {got}\n"
              f"    PTX, SLP off  {off}")
    print(f"of {len(cands)}: the rule's prediction equals the PTX on {right['rule']}, the "
          f"prediction without it on {right['without']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="probes of the llvm_merge set (default: its "
                    "known mismatches), or of the fresh draw")
    ap.add_argument("--merged", action="store_true",
                    help="every probe of the set where LLVM merged accesses on cuda90/cuda100")
    ap.add_argument("--seed", type=int, default=None,
                    help="compile a fresh draw (llvm_merge_probes.py's stress draw) instead")
    ap.add_argument("--count", type=int, default=40, help="probes in the fresh draw")
    ap.add_argument("--slp-targeted", action="store_true",
                    help="with --seed: draw TTGIR only, compile the probes where the SLP rule "
                         "changes check's prediction, compare both predictions")
    ap.add_argument("--passes", action="store_true",
                    help="for each probe, the XOR group bases after every LLVM pass that "
                         "changed them (LLVM_IR_ENABLE_DUMP), instead of the comparison")
    ap.add_argument("--align-targeted", action="store_true",
                    help="as --slp-targeted, for the rule for the alignment of a deep X")
    args = ap.parse_args(argv)
    if args.slp_targeted or args.align_targeted:
        if args.seed is None:
            ap.error("--slp-targeted and --align-targeted need --seed")
        return slp_targeted(args.seed, args.count,
                            "SLP" if args.slp_targeted else "alignment")
    if args.seed is not None:
        import llvm_merge_probes
        probes = llvm_merge_probes.build(((args.seed, args.count, True),))["probes"]
        if args.names:
            probes = {n: probes[n] for n in args.names}
    else:
        from llvm_merge_probes import merged_by_llvm
        probes = json.loads(gzip.decompress(FIXTURE.read_bytes()))["probes"]
        known = json.loads(KNOWN.read_text("utf-8")).get("llvm_merge", {})
        names = args.names or (
            sorted(n for n, e in probes.items() if e["target"] != "cuda80" and merged_by_llvm(e))
            if args.merged else sorted(known))
        probes = {n: probes[n] for n in names}
    if args.passes:
        for n, e in sorted(probes.items()):
            print(n)
            for step, bases in pass_trace(e["ttgir"], e["target"]):
                print(f"  after {step}")
                for tree, ks in bases.items():
                    print(f"    X ^ {ks}, X = {tree}")
        return 0
    kinds = collections.Counter(examine(n, e) for n, e in sorted(probes.items()))
    print(f"{len(probes)} probes: {dict(kinds)}")
    return 1 if kinds["unexplained"] else 0


if __name__ == "__main__":
    sys.exit(main())
