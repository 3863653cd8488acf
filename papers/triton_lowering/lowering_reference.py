#!/usr/bin/env python
"""Triton's own lowering of each convert probe, before LLVM's ``-O3``: recompile every probe's
stored TTGIR with Triton 3.9.0, once with LLVM's middle end (``optimize_module``, the ``-O3``
pipeline) skipped, and add what that gives to the fixture.

Run with Triton 3.9.0 installed (CPU only; two compiles a probe)::

    python papers/triton_lowering/lowering_reference.py shuffle          # one fixture set
    python papers/triton_lowering/lowering_reference.py cvt_heldout --check

Sets: ``shuffle``, ``amd_shuffle``, ``cvt_heldout``, ``cvt_roundtrip``, ``cvt_lowering``
(their files in ``tests/data/fixture_sets.json``). Each probe gains ``"lowering"``:

* ``"ir"``: the register-exchange operations Triton's LLVM IR spells before ``-O3``, by the
  PTX/AMDGCN opcode each one is (:data:`IR_OPCODES`; the convert's line for one-convert
  probes, else the whole kernel): the shuffle intrinsics (``llvm.nvvm.shfl.sync.*`` ->
  ``shfl.sync.<mode>.b32``; ``llvm.amdgcn.ds.bpermute`` -> ``ds_bpermute_b32``,
  ``ds.swizzle``, ``permlane16/32.swap``, ``update.dpp``/``mov.dpp`` -> ``v_mov_b32_dpp``),
  the byte-permute intrinsics (``llvm.nvvm.prmt`` -> ``prmt.b32``, ``llvm.amdgcn.perm`` ->
  ``v_perm_b32``), ``llvm.nvvm.redux.sync.*`` and every ``select`` (NVIDIA: ``selp.b16`` for
  8/16-bit values, ``selp.b32``, ``selp.b64`` by the value's width; AMD: one
  ``v_cndmask_b32`` per 32 bits). Element moves (``insertelement``, ``extractelement``,
  ``shufflevector``, ``bitcast``) are not instructions here: their cost is instruction
  selection's, in ``"isa"``.
* ``"counts"``/``"lines"``: the PTX/AMDGCN opcodes (as the probe scripts count them: register
  exchanges outside inline assembly, shared-memory accesses) that LLVM's back end selects
  from that unoptimised IR — Triton's lowering spelled by instruction selection (NVPTX/AMDGPU
  ISel and its DAG combines), with no middle-end pass between. ``"counts"`` follows the
  probe's own ``"counts"`` (the convert's line, or the whole kernel); ``"lines"`` (the
  ``cvt_*`` and ``tutorial`` sets) is keyed like the probe's ``"lines"``: a probe whose
  ``"lines_by"`` is ``"ttgir_op"`` (``cvt_heldout_probes.TTGIR_OP``) is recompiled from its
  TTGIR with the locations removed, each op then at its own TTGIR line.
* ``"llvm"`` (only where the final assembly's ``"counts"`` differ): the same IR operations
  counted in the LLVM IR after ``-O3`` (``asm["llir"]``),
  plus the intrinsics ``-O3`` creates (``llvm.bitreverse``, ``llvm.bswap``, ``llvm.fshl``/
  ``fshr``), so a difference between ``"counts"`` and the final assembly can be traced to
  the pass that made it (``docs/triton-lowering.md``, "LLVM re-spelling").
* ``"data"``: ``"counts"`` (and ``"lines"``) again, on the data path only (``datapath.py``:
  a counted opcode that computes an address or a lane index — a ``selp`` of two constant
  offsets, a ``prmt`` byte swap of lane bits — is left out, as ``check`` does not report it).

and the probe gains ``"data"``: the final assembly's counts (recompiled with ``-O3``) on the
data path, read like its own ``"counts"``/``"lines"``. Every probe is recompiled (about 0.3 s
a probe on two CPUs); the final assembly's counts must reproduce the stored ones (on what is
compared: the shuffles of the shuffle sets' reductions, scans and gathers), and each probe
whose data-path counts differ from its whole counts is printed with the opcodes left out.
``--check`` compares the records, writing nothing.

The comparison (``tests/check/test_cvt_heldout_probes.py``,
``tests/lowering/test_shuffle_probes.py``) scores ``check`` against the lowering's data-path
``"counts"``/``"lines"`` and lists every probe whose final assembly differs on the data path
(``tests/data/llvm_respelling.json``).
"""

from __future__ import annotations

import collections
import gzip
import json
import os
import pathlib
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"  # no cache hits: the pre-O3 LLVM IR must be produced
os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

SETS = {"shuffle": "triton_shuffle_probes.json.gz",
        "amd_shuffle": "triton_amd_shuffle_probes.json.gz",
        "cvt_heldout": "triton_cvt_heldout_probes.json.gz",
        "cvt_roundtrip": "triton_cvt_roundtrip_probes.json.gz",
        "cvt_lowering": "triton_cvt_lowering_probes.json.gz",
        "shuffle_fresh": "triton_shuffle_fresh_probes.json.gz",
        "amd_shuffle_fresh": "triton_amd_shuffle_fresh_probes.json.gz",
        "cvt_fresh": "triton_cvt_fresh_probes.json.gz",
        "cvt_confirm": "triton_cvt_confirm_probes.json.gz",
        "tutorial": "triton_tutorial_probes.json.gz",
        "reg_redraw": "triton_reg_redraw_probes.json.gz",
        "reg_confirm": "triton_reg_confirm_probes.json.gz",
        "reg_third": "triton_reg_third_probes.json.gz",
        "reg_fourth": "triton_reg_fourth_probes.json.gz"}
#: IR call -> the opcode it is (the whole intrinsic name after ``@llvm.``, a prefix match)
IR_OPCODES = (
    (re.compile(r"@llvm\.nvvm\.shfl\.sync\.(idx|bfly|up|down)\."), "shfl.sync.{0}.b32"),
    (re.compile(r"@llvm\.nvvm\.redux\.sync\.(\w+)"), "redux.sync.{0}"),
    (re.compile(r"@llvm\.nvvm\.prmt\b"), "prmt.b32"),
    (re.compile(r"@llvm\.amdgcn\.ds\.bpermute\b"), "ds_bpermute_b32"),
    (re.compile(r"@llvm\.amdgcn\.ds\.swizzle\b"), "ds_swizzle_b32"),
    (re.compile(r"@llvm\.amdgcn\.(permlane(?:16|32)\.swap)\b"), "v_{0}_b32"),
    (re.compile(r"@llvm\.amdgcn\.(?:update|mov)\.dpp\b"), "v_mov_b32_dpp"),
    (re.compile(r"@llvm\.amdgcn\.perm\b"), "v_perm_b32"),
    (re.compile(r"@llvm\.(bitreverse|bswap|fshl|fshr)\.i\d+"), "llvm.{0}"),
)
_WIDTH = {"i8": 8, "i16": 16, "half": 16, "bfloat": 16, "i32": 32, "float": 32, "i64": 64,
          "double": 64}


def _select_opcodes(type_: str, amd: bool) -> tuple[str, int] | None:
    m = re.fullmatch(r"<(\d+) x (\w+)>", type_)
    n, elem = (int(m.group(1)), m.group(2)) if m else (1, type_)
    bits = _WIDTH.get(elem, 64 if elem.startswith("ptr") else None)
    if bits is None:
        return None  # i1: a predicate, not a register select
    bits *= n
    if amd:
        return "v_cndmask_b32", -(-bits // 32)
    return f"selp.b{max(16, bits) if bits <= 64 else 64}", 1 if bits <= 64 else bits // 64


def ir_counts(ll: str, amd: bool) -> dict:
    """``{"file:line": {opcode: count}}`` of the register-exchange operations of LLVM IR text
    ``ll`` (module docstring), by the source line of their ``!dbg`` location (``"?:0"`` when
    none)."""
    files = {m.group(1): pathlib.Path(m.group(2)).name
             for m in re.finditer(r'^(!\d+) = !DIFile\(filename: "([^"]*)"', ll, re.M)}
    scopes = {m.group(1): m.group(2)
              for m in re.finditer(r"^(!\d+) = (?:distinct )?!DI(?:Subprogram|LexicalBlock\w*)"
                                   r"\(.*?file: (!\d+)", ll, re.M)}
    locs = {m.group(1): f"{files.get(scopes.get(m.group(3), ''), '?')}:{m.group(2)}"
            for m in re.finditer(r"^(!\d+) = !DILocation\(line: (\d+), column: \d+, "
                                 r"scope: (!\d+)", ll, re.M)}
    out: dict = collections.defaultdict(collections.Counter)
    for raw in ll.splitlines():
        if not raw.startswith("  "):
            continue
        m = re.search(r"!dbg (!\d+)", raw)
        key = locs.get(m.group(1), "?:0") if m else "?:0"
        sel = re.search(r"= select (?:\w+ )*i1 [^,]+, (<\d+ x \w+>|\w+) ", raw)
        if sel:
            got = _select_opcodes(sel.group(1), amd)
            if got:
                out[key][got[0]] += got[1]
            continue
        if "call" not in raw:
            continue
        for pat, name in IR_OPCODES:
            c = pat.search(raw)
            if c:
                out[key][name.format(*c.groups())] += 1
                break
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def compile_probe(ttgir: str, tname: str, o3: bool) -> tuple[str, str, str]:
    """(assembly, LLVM IR handed to the back end, LLVM IR before ``-O3``) of a TTGIR text
    compiled from a file ``probe.ttgir`` for target ``tname`` (``cuda80``, ``gfx942``, ...)
    with Triton 3.9.0; without ``o3`` the middle end (``optimize_module``) is skipped, so the
    assembly is Triton's lowering. Raises what ``triton.compile`` raises."""
    import triton
    from triton._C.libtriton import llvm as _llvm
    from triton.backends.compiler import GPUTarget

    targets = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
               "cuda100": GPUTarget("cuda", 100, 32), "gfx942": GPUTarget("hip", "gfx942", 64),
               "gfx950": GPUTarget("hip", "gfx950", 64)}
    from probe_compile import private_triton_cache

    pre: list[str] = []
    orig = _llvm.optimize_module

    def capture(mod, *a, **kw):
        pre.append(str(mod))
        return orig(mod, *a, **kw) if o3 else None

    _llvm.optimize_module = capture
    try:
        with private_triton_cache() as d:  # the key does not see the skipped -O3
            path = pathlib.Path(d) / "probe.ttgir"
            path.write_text(ttgir, encoding="utf-8")
            k = triton.compile(str(path), target=targets[tname])
    finally:
        _llvm.optimize_module = orig
    asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
    return asm, k.asm["llir"], pre[0]


def _convert_line(ttgir: str) -> str | None:
    lines = [i + 1 for i, s in enumerate(ttgir.splitlines()) if "ttg.convert_layout" in s]
    return f"probe.ttgir:{lines[0]}" if len(lines) == 1 else None


def _picker(name: str, p: dict):
    """How a probe's counts are read off ``asm_lines``: ``(pick, relines)`` — its
    ``"counts"`` (the convert's line for one-convert probes, else the whole kernel) and its
    ``"lines"`` keyed like the probe's (by TTGIR op where its ``"lines_by"`` says so, else
    the convert's line by the script's line)."""
    from cvt_heldout_probes import TTGIR_OP

    kernel = name.startswith(("t_", "max_", "sum_", "cumsum_", "gather_"))
    one = None if kernel else _convert_line(p["ttgir"]) or "?"
    whole = lambda d: dict(sorted(sum((collections.Counter(v) for v in d.values()),  # noqa: E731
                                      collections.Counter()).items()))
    pick = (lambda d: d.get(one, {})) if one else whole
    key = None if p.get("lines_by") == TTGIR_OP else \
        next((k for k, v in p.get("lines", {}).items() if v == p["counts"]), None)

    def relines(isa: dict) -> dict:
        lines = dict(isa)
        if one and key and one in lines:  # the fixture keys the convert's line by the script's
            lines[key] = lines.pop(one)
        return lines

    return pick, relines


def data_record(name: str, p: dict, asm: str) -> dict:
    """The data-path counts of assembly ``asm`` of probe ``p`` (``datapath.py``: the register
    opcodes that compute addresses or lane indices left out), read like the probe's own:
    ``{"counts": ..., "lines": ...}`` (``"lines"`` where the probe has them)."""
    from cvt_heldout_probes import asm_lines

    pick, relines = _picker(name, p)
    isa = asm_lines(asm, data=True)
    rec = {"counts": pick(isa)}
    if "lines" in p:
        rec["lines"] = relines(isa)
    return rec


def records(name: str, p: dict) -> tuple[dict, dict, dict]:
    """``(lowering, data, final)`` of one probe: its ``"lowering"`` record (module docstring;
    with ``"data"``, the data-path counts of Triton's lowering), its ``"data"`` record (the
    data-path counts of the final assembly) and the final assembly's counts recompiled
    (``{"counts", "lines"}``, to check against the stored ones)."""
    from corpus import strip_locs
    from cvt_heldout_probes import TTGIR_OP, asm_lines

    amd = p["target"].startswith("gfx")
    # a probe counted by TTGIR op: each op located at its own line (cvt_heldout_probes.TTGIR_OP)
    ttgir = strip_locs(p["ttgir"]) if p.get("lines_by") == TTGIR_OP else p["ttgir"]
    asm, _, pre = compile_probe(ttgir, p["target"], o3=False)
    fasm, post, _ = compile_probe(ttgir, p["target"], o3=True)
    pick, relines = _picker(name, p)
    isa, ir, fin = asm_lines(asm), ir_counts(pre, amd), asm_lines(fasm)
    rec = {"counts": pick(isa), "ir": pick(ir)}
    if rec["counts"] != p["counts"]:  # the final assembly differs: keep -O3's IR to trace it
        rec["llvm"] = pick(ir_counts(post, amd))
    if "lines" in p:
        rec["lines"] = relines(isa)
    rec["data"] = data_record(name, p, asm)
    final = {"counts": pick(fin), **({"lines": relines(fin)} if "lines" in p else {})}
    return rec, data_record(name, p, fasm), final


def reference(name: str, p: dict) -> dict:
    """The ``"lowering"`` record of one probe (module docstring)."""
    return records(name, p)[0]


def compared(name: str, counts: dict) -> dict:
    """What the probe scripts compare of a probe's counts: every opcode, but only the
    shuffles of the shuffle sets' reductions, scans and gathers (``max_``, ``sum_``,
    ``cumsum_``, ``gather_``: counted over the whole kernel, their selects not modelled)."""
    if name.startswith(("max_", "sum_", "cumsum_", "gather_")):
        return {k: v for k, v in counts.items()
                if re.match(r"^(shfl\.|redux\.|ds_bpermute|ds_swizzle|v_permlane|\w+_dpp)", k)}
    return counts


def _removed(raw: dict, data: dict) -> dict:
    """The opcodes ``raw`` counts more than ``data`` (the address arithmetic left out)."""
    return {k: v - data.get(k, 0) for k, v in raw.items() if v != data.get(k, 0)}


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set", choices=sorted(SETS))
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--only", nargs="*", default=None, help="these probes only (--check)")
    args = ap.parse_args(argv)
    path = ROOT / "tests" / "data" / SETS[args.set]
    data = json.loads(gzip.decompress(path.read_bytes()))
    bad = 0
    names = sorted(data["probes"]) if args.only is None else args.only
    for i, name in enumerate(names):
        p = data["probes"][name]
        rec, sliced, final = records(name, p)
        if compared(name, final["counts"]) != compared(name, p["counts"]):
            bad += 1  # the recompile must give the stored assembly
            print(f"DIFF {name}: final assembly {final['counts']} stored {p['counts']}")
        if "lowering" in p:
            old = {k: v for k, v in p["lowering"].items() if k != "data"}
            new = {k: v for k, v in rec.items() if k != "data"}
            if old != new:
                bad += 1
                print(f"DIFF {name}: lowering {new} stored {old}")
        for label, raw, cut in (("lowering", rec["counts"], rec["data"]["counts"]),
                                ("final", final["counts"], sliced["counts"])):
            if raw != cut:
                print(f"address arithmetic {name} ({label}): {_removed(raw, cut)}")
        if args.check:
            same = rec == p.get("lowering") and sliced == p.get("data")
            bad += not same
            print(("same " if same else "DIFF ") + name)
            continue
        p["lowering"], p["data"] = rec, sliced
    if not args.check:
        path.write_bytes(gzip.compress(json.dumps(data, sort_keys=True,
                                                  separators=(",", ":")).encode(), mtime=0))
        print(f"wrote {path}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
