#!/usr/bin/env python
"""The suggestion trip: ``linlayout check``'s shared-layout suggestions written back into the
kernels they were made for and compiled by Triton 3.9.0 — do they compile, and do they cost
what ``check`` promised?

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only)::

    python papers/triton_lowering/suggestion_trip.py                 # compile, write the fixture
    python papers/triton_lowering/suggestion_trip.py --check         # compile, compare, write nothing
    python papers/triton_lowering/suggestion_trip.py --compare-only  # the committed fixture, no Triton
    python papers/triton_lowering/suggestion_trip.py --limit 5       # at most 5 kernels per set

For every distinct TTGIR of the committed fixture sets (``tests/data/fixture_sets.json``, the
corpus and every probe set whose cases keep a TTGIR text) that has a ``ttg.local_alloc``,
``linlayout check`` is run; each kernel where it prints a shared-memory SUGGESTION for a
buffer is rewritten: the buffer's encoding alias (``#shared = #ttg.swizzled_shared<…>``, the
attribute its ``local_alloc``'s memdesc type names) is given the suggested attribute text.
That keeps every line in place (the ops keep their line numbers) and changes nothing but the
layout (:func:`same_but_layout` checks it). Where other buffers share the alias, the buffer
gets a new alias of its own, defined on a blank line above the module and named in the
memdesc types of the lines that use the buffer or its views; where that cannot be done alone
(a pipelined buffer carried through a loop, which ``check`` groups by the loop's result), the
alias itself is redefined (``"alias_wide"``: every buffer of that alias changes, and the
kernel's total wavefronts tell whether the others lost). A buffer whose views change the
encoding (``memdesc_trans``, ``memdesc_reshape``) is left out and counted as skipped.

Then, for the rewritten kernel:

* **compiles** — Triton 3.9.0 compiles it from TTGIR for the kernel's own target
  (``ttg.target``), ``-O3`` (:func:`probe_compile.compile_ttgir`, a private cache each);
* **promised == predicted** — ``check`` on the new TTGIR: each buffer's worst degree,
  wavefronts and instructions per warp equal the ``Suggestion``'s (``suggestion_degree`` and
  the cost ``suggest_layout`` ranked it by), and every suggested op's shared-memory
  instructions equal its ``suggestion_instructions`` (side, opcode, per thread, vector);
* **predicted == compiled** — the compiled assembly's shared-memory instructions, NVIDIA by
  opcode width and count per thread, AMD by LDS bytes per thread (the summaries of
  ``cvt_heldout_probes.py``), whole kernel and op by op (the TTGIR compiled with its
  locations removed, each op at its own line ``probe.ttgir:N``), equal ``check``'s prediction
  on the new TTGIR. The old kernel is compiled and compared the same way: a kernel whose old
  prediction already differs from its own assembly (a known mismatch of its set) is reported
  as such, not charged to the suggestion.

The fixture (``tests/data/triton_suggestion_trip.json.gz``) keeps, per kernel, the promise
(per buffer and per op), the lines the rewrite changed (the TTGIR itself by reference to its
source set and case: :func:`compact`, :func:`texts`) and the compiled counts of both kernels;
``tests/check/test_suggestion_trip.py`` replays it without Triton: ``check`` still makes the
same suggestion on the old TTGIR, it keeps its promise on the new one, and its prediction on
the new one equals the recorded assembly. Exits 1 on a kernel not listed in
``tests/data/known_mismatches.json`` (set ``suggestion_trip``, each with its cause) whose
suggestion does not compile, costs other than promised, makes the kernel's wavefronts grow,
or whose compiled code differs from ``check``'s prediction where the old kernel's did not.
The global blocked-layout suggestions (``"global"``, :func:`build_global`) are written back
and compiled the same way (:func:`compare_global`).
"""

from __future__ import annotations

import collections
import hashlib
import json
import pathlib
import re
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "triton_suggestion_trip.json.gz"

#: memdesc views that keep their buffer's encoding (any other view op makes a buffer skipped)
SAME_ENCODING_VIEWS = ("ttg.memdesc_index", "ttg.memdesc_subslice", "ttg.memdesc_subview")
ALIAS = re.compile(r"^(#[\w.$-]+)\s*=\s*(#ttg\.\w+<.*>)\s*$")
MEMDESC = re.compile(r"!ttg\.memdesc<[^,<>]*,\s*(#[\w.$-]+|#ttg\.\w+<)")
TARGET = re.compile(r'"?ttg\.target"?\s*=\s*"([^"]+)"')


class Skip(Exception):
    """A kernel (or buffer) the trip cannot rewrite, with the reason."""


def tname_of(ttgir: str) -> str:
    """The ``probe_compile.TARGETS`` name of a TTGIR's ``ttg.target`` (``cuda:90`` ->
    ``cuda90``, ``hip:gfx942`` -> ``gfx942``). Raises :class:`Skip` when it has none."""
    m = TARGET.search(ttgir)
    if not m:
        raise Skip("no ttg.target")
    return m.group(1).replace("cuda:", "cuda").replace("hip:", "")


def check_kernel(ttgir: str):
    """``check``'s :class:`~linlayout.check.report.KernelReport` of one TTGIR text and its
    ``--json`` ops (a list of dicts, in the report's order)."""
    from linlayout.check import check_files
    from linlayout.check.render import op_dict

    with tempfile.TemporaryDirectory() as d:
        path = pathlib.Path(d) / "probe.ttgir"
        path.write_text(ttgir, encoding="utf-8")
        (k,) = check_files([str(path)])
    if not hasattr(k, "ops"):
        raise Skip(f"check cannot read it: {k.message}")
    return k, [op_dict(r) for r in k.ops]


def _shared(instrs: list) -> list:
    """The shared-memory instructions of a ``check --json`` op (or a suggestion's), as
    sorted ``[side, opcode, per_thread, vector_elems]``."""
    return sorted([i["side"], i.get("ptx") or i.get("isa"), i["per_thread"],
                   i["vector_elems"]] for i in instrs
                  if i.get("space", "shared") == "shared" and i["side"] in ("load", "store"))


def promises(report) -> dict:
    """``{root: {"text", "degree", "wavefronts_per_warp", "instructions_per_warp", "ops":
    {line: instructions}}}``: what ``check`` promises for each buffer it suggests a layout
    for (the :class:`~linlayout.check.report.Suggestion` and each op's
    ``suggestion_instructions``)."""
    from linlayout.check.render import op_dict

    out: dict = {}
    for r in report.ops:
        s = r.suggestion
        if s is None:
            continue
        root = r.access.root or r.access.memdesc
        b = out.setdefault(root, {"text": s.text, "degree": s.degree,
                                  "wavefronts_per_warp": s.wavefronts_per_warp,
                                  "instructions_per_warp": s.instructions_per_warp,
                                  "ops": {}})
        if b["text"] != s.text:
            raise Skip(f"buffer {root}: two suggestions")
        b["ops"][str(r.access.line)] = _shared(op_dict(r)["suggestion_instructions"])
    return out


def buffer_cost(report, root: str) -> dict:
    """``check``'s cost of buffer ``root`` on a kernel: its counted store/load ops' worst
    degree, wavefronts and instructions per warp (summed), and each op's shared-memory
    instructions by line."""
    from linlayout.check.render import op_dict

    deg, wf, ins, ops = 1, 0, 0, {}
    for r in report.ops:
        a = r.access
        if (a.root or a.memdesc) != root or a.kind not in ("store", "load") \
                or r.degree is None:
            continue
        deg = max(deg, r.degree)
        wf += r.wavefronts_per_warp or 0
        ins += r.instructions_per_warp or 0
        ops[str(a.line)] = _shared(op_dict(r)["instructions"])
    return {"degree": deg, "wavefronts_per_warp": wf, "instructions_per_warp": ins, "ops": ops}


def _alloc_alias(lines: list[str], root: str) -> str:
    """The encoding alias of the memdesc type ``root``'s defining op produces."""
    pat = re.compile(rf"^\s*{re.escape(root)}(?::\d+)?\s*=\s*(\S+)")
    for ln in lines:
        m = pat.match(ln)
        if m:
            types = MEMDESC.findall(ln.split("->")[-1] if "->" in ln else ln)
            if not types:
                raise Skip(f"buffer {root}: no memdesc type on its defining line")
            if not types[-1].startswith("#") or types[-1].startswith("#ttg."):
                raise Skip(f"buffer {root}: inline encoding, no alias")
            return types[-1]
    raise Skip(f"buffer {root}: defining line not found")


def _values(lines: list[str], root: str) -> set[str]:
    """``root`` and every SSA value defined from it by a memdesc view
    (:data:`SAME_ENCODING_VIEWS`), transitively."""
    vals, grew = {root}, True
    while grew:
        grew = False
        for ln in lines:
            m = re.match(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*(ttg\.memdesc_\w+)\s+(%[\w.$-]+)", ln)
            if m and m.group(3) in vals and m.group(1) not in vals:
                if m.group(2) not in SAME_ENCODING_VIEWS:
                    raise Skip(f"{m.group(2)} of buffer {root} (re-encodes it)")
                vals.add(m.group(1))
                grew = True
    return vals


def _mentions(line: str, vals: set[str]) -> bool:
    return any(re.search(re.escape(v) + r"(?![\w.$-])", line) for v in vals)


def substitute(ttgir: str, report, proms: dict) -> str:
    """``ttgir`` with each suggested buffer's encoding replaced by its suggestion, every line
    kept in place.

    Where every ``local_alloc`` naming a buffer's encoding alias is suggested the same text,
    the alias definition is redefined. Otherwise a new alias (``#<alias>_sugN``) is defined on
    a blank line above the module (the stripped ``#loc`` lines) and named, instead of the old one, in the memdesc types of the lines
    that mention the buffer or one of its views (:func:`_values`). Raises :class:`Skip` when a
    view of a buffer re-encodes it (``memdesc_trans``, ``memdesc_reshape``), or a line to
    rewrite also mentions another buffer of the same alias."""
    lines = ttgir.split("\n")
    allocs: dict[str, str] = {}  # root -> alias, for every allocation in the kernel
    for ln in lines:
        m = re.match(r"^\s*(%[\w.$-]+)(?::\d+)?\s*=\s*ttg\.local_alloc\b", ln)
        if m:
            allocs[m.group(1)] = _alloc_alias(lines, m.group(1))
    for root in proms:
        if root not in allocs:  # a loop's result (check does not follow iter_args): the
            # alias of the memdesc it is used as
            alias = next((t for ln in lines if _mentions(ln, {root})
                          for t in MEMDESC.findall(ln)), None)
            if alias is None or alias.startswith("#ttg."):
                raise Skip(f"buffer {root}: no encoding alias found")
            allocs[root] = alias
    whole: dict[str, str] = {}   # alias -> text, redefined in place
    split: dict[str, str] = {}   # root -> text, through a new alias
    for root, b in proms.items():
        alias = allocs[root]
        users = [r for r, a in allocs.items() if a == alias]
        if all(proms.get(r, {}).get("text") == b["text"] for r in users):
            whole[alias] = b["text"]
        else:
            split[root] = b["text"]
    values = {r: _values(lines, r) for r in allocs}
    extra: dict[str, list[str]] = collections.defaultdict(list)  # old alias -> new defs
    for n, (root, text) in enumerate(sorted(split.items())):
        alias = allocs[root]
        new = f"{alias}_sug{n}"
        extra[alias].append(f"{new} = {text}")
        others = set().union(*(values[r] for r, a in allocs.items()
                               if a == alias and r != root))
        for i, ln in enumerate(lines):
            if not _mentions(ln, values[root]):
                continue
            if _mentions(ln, others):
                raise Skip(f"line {i + 1} mentions buffer {root} and another buffer of "
                           f"{alias}")
            lines[i] = re.sub(r"(!ttg\.memdesc<[^,<>]*,\s*)" + re.escape(alias) +
                              r"(?![\w.$-])", lambda m: m.group(1) + new, ln)
    done = set()
    for i, ln in enumerate(lines):
        m = ALIAS.match(ln)
        if m and m.group(1) in whole:
            lines[i] = f"{m.group(1)} = {whole[m.group(1)]}"
            done.add(m.group(1))
    defs = [d for a in sorted(extra) for d in extra[a]]
    top = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("module")),
               len(lines))
    blank = [i for i in range(top) if not lines[i].strip()]
    if len(blank) < len(defs):
        raise Skip("no blank line above the module for a new alias")
    for i, d in zip(blank, defs):
        lines[i] = d
    done |= set(extra)
    missing = (set(whole) | set(extra)) - done
    if missing:
        raise Skip(f"alias definition not found: {sorted(missing)}")
    return "\n".join(lines)


def substitute_alias_wide(ttgir: str, proms: dict) -> str:
    """``ttgir`` with the encoding alias of each suggested buffer (read off the memdesc types
    of the lines naming it) redefined as its suggestion, whatever else uses that alias: the
    fallback where :func:`substitute` cannot rewrite one buffer alone (a pipelined buffer
    carried through a loop's ``iter_args``, which ``check`` groups by the loop's result).
    Raises :class:`Skip` when two suggested buffers of one alias are suggested different
    layouts."""
    lines = ttgir.split("\n")
    want: dict[str, str] = {}
    for root, b in proms.items():
        alias = next((t for ln in lines if _mentions(ln, {root})
                      for t in MEMDESC.findall(ln)), None)
        if alias is None or alias.startswith("#ttg."):
            raise Skip(f"buffer {root}: no encoding alias found")
        if want.setdefault(alias, b["text"]) != b["text"]:
            raise Skip(f"alias {alias}: two buffers suggested different layouts")
    for i, ln in enumerate(lines):
        m = ALIAS.match(ln)
        if m and m.group(1) in want:
            lines[i] = f"{m.group(1)} = {want.pop(m.group(1))}"
    if want:
        raise Skip(f"alias definition not found: {sorted(want)}")
    return "\n".join(lines)


def compiled(ttgir: str, tname: str) -> dict:
    """``{"probe.ttgir:N": {opcode: count}}``: the shared-memory (and register-exchange)
    opcodes of ``ttgir`` (locations removed) compiled with ``-O3`` for ``tname``, by TTGIR
    line (``cvt_heldout_probes.asm_lines``). Raises what ``triton.compile`` raises."""
    from cvt_heldout_probes import asm_lines
    from ttgir_text import strip_locs
    from probe_compile import compile_ttgir

    return asm_lines(compile_ttgir(strip_locs(ttgir), tname, o3=True))


def summaries(ops: list, lines: dict, amd: bool) -> tuple[dict, dict]:
    """(predicted, compiled) shared-memory summaries (``cvt_heldout_probes.summarise``:
    NVIDIA by width, AMD by LDS bytes per thread): ``{"kernel": …, "probe.ttgir:N": …}`` for
    the whole kernel and each line holding a counted op."""
    from cvt_heldout_probes import REGISTER_OPS, _instructions, summarise

    none = lambda op: False  # noqa: E731
    shared = lambda d: {k: v for k, v in d.items() if not REGISTER_OPS.match(k)}  # noqa: E731
    pred = {"kernel": summarise([i for i in _instructions(ops) if i[0] != "register"],
                                amd, none)["shared"]}
    total: collections.Counter = collections.Counter()
    for c in lines.values():
        total.update(shared(c))
    seen = {"kernel": summarise(dict(total), amd, none)["shared"]}
    for o in ops:
        key = f"probe.ttgir:{o['line']}"
        mine = [i for i in _instructions([o]) if i[0] != "register"]
        if mine:
            pred[key] = summarise(mine, amd, none)["shared"]
            seen[key] = summarise(shared(lines.get(key, {})), amd, none)["shared"]
    return pred, seen


def candidates() -> list[tuple[str, str, str]]:
    """``(set, case, ttgir)`` of every distinct TTGIR (locations removed) of the fixture sets
    with a ``ttg.local_alloc``, the first case (sorted) of each text, in the registry's order
    (``tests/data/fixture_sets.json``, read directly: the Triton environment has no pytest)."""
    import gzip

    from ttgir_text import strip_locs

    data = ROOT / "tests" / "data"
    sets = json.loads((data / "fixture_sets.json").read_text(encoding="utf-8"))["sets"]
    seen, out = set(), []
    for s, spec in sets.items():
        if "key" not in spec or spec["files"] == [OUT.name]:
            continue
        (file,) = spec["files"]
        doc = json.loads(gzip.decompress((data / file).read_bytes()))
        for case, e in sorted(doc[spec["key"]].items()):
            t = e.get("ttgir") if isinstance(e, dict) else None
            if not isinstance(t, str) or "ttg.local_alloc" not in t:
                continue
            t = strip_locs(t)
            h = hashlib.sha1(t.encode()).hexdigest()
            if h not in seen:
                seen.add(h)
                out.append((s, case, t))
    return out


def build(limit: int | None = None, log=print) -> dict:
    """Scan the fixture sets (at most ``limit`` suggested kernels per set), rewrite each
    suggested kernel and compile old and new (Triton
    3.9.0). Returns the fixture document ``{"triton_version", "scanned", "probes": {set/case:
    record}}``; a record has ``"skipped"`` (the reason) or ``"target", "ttgir", "new_ttgir",
    "promise", "compiles"`` (and ``"alias_wide"``, why :func:`substitute` could not rewrite
    the buffer alone, where :func:`substitute_alias_wide` rewrote its alias instead) and, when it compiles, ``"old_lines"`` and ``"new_lines"`` (the
    assembly's opcodes by TTGIR line)."""
    import os

    import triton

    os.environ["TRITON_ALWAYS_COMPILE"] = "1"
    probes: dict = {}
    cands = candidates()
    per_set: collections.Counter = collections.Counter()
    for n, (s, case, ttgir) in enumerate(cands):
        name = f"{s}/{case}"
        if limit is not None and per_set[s] >= limit:
            continue
        try:
            report, _ = check_kernel(ttgir)
            proms = promises(report)
            if not proms:
                continue
            per_set[s] += 1
            rec: dict = {"target": tname_of(ttgir), "ttgir": ttgir, "promise": proms}
            try:
                rec["new_ttgir"] = substitute(ttgir, report, proms)
            except Skip as e:
                rec["new_ttgir"] = substitute_alias_wide(ttgir, proms)
                rec["alias_wide"] = str(e)
        except Skip as e:
            probes[name] = {"skipped": str(e)}
            log(f"[{n + 1}/{len(cands)}] {name}: skipped ({e})")
            continue
        try:
            rec["new_lines"] = compiled(rec["new_ttgir"], rec["target"])
            rec["compiles"] = True
        except Exception as e:  # noqa: BLE001 - any compile failure is the finding
            rec["compiles"] = False
            rec["error"] = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:400]
        if rec["compiles"]:
            rec["old_lines"] = compiled(ttgir, rec["target"])
        probes[name] = rec
        log(f"[{n + 1}/{len(cands)}] {name}: {'compiles' if rec['compiles'] else rec['error']}")
    return {"triton_version": triton.__version__, "scanned": len(cands), "probes": probes}


def same_but_layout(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` with only shared encodings changed: the same number of
    lines, and each pair equal once alias definitions (and the blank lines new ones take)
    are set aside and the new aliases' ``_sugN`` suffix is removed."""
    a, b = old.split("\n"), new.split("\n")
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y or ((ALIAS.match(x) or not x.strip()) and ALIAS.match(y)):
            continue
        if re.sub(r"_sug\d+(?![\w.$-])", "", y) != x:
            return False
    return True


def judge(name: str, rec: dict) -> dict:
    """One kernel's verdicts (no Triton needed): ``{"compiles", "promise_kept": bool,
    "promise_diffs", "new_matches": bool | None, "old_matches", "new_diffs"}``."""
    old_text, new_text = texts(rec)
    out: dict = {"compiles": rec["compiles"], "equivalent": same_but_layout(old_text, new_text)}
    if not rec["compiles"]:
        return out
    amd = rec["target"].startswith("gfx")
    new_report, new_ops = check_kernel(new_text)
    diffs = []
    for root, b in rec["promise"].items():
        got = buffer_cost(new_report, root)
        for k in ("degree", "wavefronts_per_warp", "instructions_per_warp"):
            if got[k] != b[k]:
                diffs.append(f"{root} {k}: promised {b[k]}, predicted {got[k]}")
        for line, want in b["ops"].items():
            if got["ops"].get(line) != want:
                diffs.append(f"{root} line {line}: promised {want}, predicted "
                             f"{got['ops'].get(line)}")
    out["promise_kept"] = not diffs
    out["promise_diffs"] = diffs
    old_report, old_ops = check_kernel(old_text)
    out["wavefronts"] = [old_report.totals.wavefronts_per_warp,
                         new_report.totals.wavefronts_per_warp]
    for which, ops, lines in (("old", old_ops, rec["old_lines"]),
                              ("new", new_ops, rec["new_lines"])):
        pred, seen = summaries(ops, lines, amd)
        out[f"{which}_matches"] = pred["kernel"] == seen["kernel"]
        out[f"{which}_lines_match"] = all(pred[k] == seen[k] for k in pred)
        out[f"{which}_diffs"] = [f"{k}: predicted {pred[k]}, compiled {seen[k]}"
                                 for k in pred if pred[k] != seen[k]]
    return out


def compare(data: dict) -> int:
    """Print the comparison of every recorded kernel and return how many are mismatches not
    listed in ``tests/data/known_mismatches.json`` (set ``suggestion_trip``): a suggestion
    that does not compile, a promise ``check`` does not keep on the new TTGIR, a new kernel
    whose assembly differs from ``check``'s prediction (whole kernel) where the old kernel's
    did not, or one whose total wavefronts per warp grow."""
    from probe_compile import known_mismatches

    known = known_mismatches("suggestion_trip")
    tally: collections.Counter = collections.Counter()
    bad = 0
    for name, rec in sorted(data["probes"].items()):
        if name in known:
            tally["known"] += 1
            print(f"  known    {name}: {known[name][:100]}…")
        if "skipped" in rec:
            tally["skipped"] += 1
            print(f"  skipped  {name}: {rec['skipped']}")
            continue
        tally["kernels"] += 1
        tally["buffers"] += len(rec["promise"])
        tally["alias_wide"] += "alias_wide" in rec
        v = judge(name, rec)
        if not v["compiles"]:
            bad += name not in known
            print(f"  NO COMPILE {name}: {rec['error']}")
            continue
        tally["compiles"] += 1
        tally["equivalent"] += v["equivalent"]
        if not v["equivalent"]:
            bad += 1
            print(f"  NOT EQUIVALENT {name}: more than the layout changed")
        tally["promise_kept"] += v["promise_kept"]
        tally["new_matches"] += v["new_matches"]
        tally["old_matches"] += v["old_matches"]
        tally["new_lines_match"] += v["new_lines_match"]
        tally["all_three"] += v["promise_kept"] and v["new_matches"]
        flag = []
        if not v["promise_kept"]:
            flag.append("PROMISE " + "; ".join(v["promise_diffs"]))
        if not v["new_matches"]:
            flag.append(("ASM " if v["old_matches"] else "asm (old differs too) ")
                        + "; ".join(v["new_diffs"]))
        worse = v["wavefronts"][1] > v["wavefronts"][0]
        tally["fewer_wavefronts"] += v["wavefronts"][1] < v["wavefronts"][0]
        if worse:
            flag.append(f"WORSE kernel wavefronts/warp {v['wavefronts'][0]} -> "
                        f"{v['wavefronts'][1]}")
        if flag:
            print(f"  {name}: " + " | ".join(flag))
        if (not v["promise_kept"] or (not v["new_matches"] and v["old_matches"]) or worse) \
                and name not in known:
            bad += 1
    print(f"scanned {data['scanned']} kernels with a local_alloc; {tally['kernels']} with a "
          f"shared-layout suggestion ({tally['buffers']} buffers; {tally['alias_wide']} rewritten "
          f"alias-wide), {tally['skipped']} skipped; "
          f"{tally['compiles']} compile ({tally['equivalent']} only the layout changed); promise kept on {tally['promise_kept']}; new "
          f"assembly = new prediction on {tally['new_matches']} (op by op on "
          f"{tally['new_lines_match']}); old assembly = old prediction on "
          f"{tally['old_matches']}; promised == predicted == compiled on {tally['all_three']}; "
          f"fewer kernel wavefronts per warp on {tally['fewer_wavefronts']}; "
          f"known mismatches {tally['known']}; other mismatches {bad}")
    return bad


#: the sets whose kernels' global-memory instructions were compared with their assembly
#: (``papers/global_memory/``, ``papers/triton_lowering/corpus.py``, ``tutorial_probes.py``):
#: the ones the global trip scans
GLOBAL_SETS = ("corpus", "global", "heldout_traffic", "tutorial")
ORDER_HINT = re.compile(r"(#ttg\.blocked<\{.*?\}>) touches (\d+) sectors per warp")


def global_sides(ttgir: str) -> dict:
    """``{line: {"suggestion", "coalesced", "sectors_per_warp", "efficiency"}}`` of ``check``'s
    global ops of one TTGIR text (each op's first instruction row)."""
    from linlayout.check.render import global_dict

    k, _ = check_kernel(ttgir)
    out = {}
    for g in k.global_ops:
        d = global_dict(g, not (k.target or "").startswith("hip"))
        row = (d.get("instructions") or [{}])[0]
        out[str(d["line"])] = {"suggestion": d.get("suggestion") or "",
                               "coalesced": row.get("coalesced"),
                               "sectors_per_warp": row.get("sectors_per_warp"),
                               "efficiency": row.get("efficiency")}
    return out


def relayout(ttgir: str, line: int, text: str) -> str:
    """``ttgir`` with the ``#ttg.blocked`` alias of the pointer tensor on ``line`` redefined as
    ``text`` (the suggested layout); every op of that layout changes with it. Raises
    :class:`Skip` when the pointer's layout is not a blocked alias, or a ``tt.broadcast``
    takes another alias to this one (Triton's verifier wants the two to agree up to
    broadcasting, so the alias cannot change alone)."""
    lines = ttgir.split("\n")
    m = re.search(r"tensor<[^>]*!tt\.ptr<[^>]*>,\s*(#[\w.$-]+)>", lines[line - 1])
    if not m:
        raise Skip(f"line {line}: no pointer tensor with an encoding alias")
    alias = m.group(1)
    for i, ln in enumerate(lines):
        if "tt.broadcast" in ln and re.search(re.escape(alias) + r"(?![\w.$-])", ln):
            others = set(re.findall(r",\s*(#[\w.$-]+)>", ln)) - {alias}
            if others:  # Triton requires the two to agree up to broadcasting
                raise Skip(f"line {i + 1}: tt.broadcast ties {sorted(others)} to {alias}")
    for i, ln in enumerate(lines):
        a = ALIAS.match(ln)
        if a and a.group(1) == alias:
            if "#ttg.blocked<" not in ln:
                raise Skip(f"{alias} is not a blocked layout")
            lines[i] = f"{alias} = {text}"
            return "\n".join(lines)
    raise Skip(f"alias {alias} not defined")


def global_counts(asm: str, nvidia: bool) -> dict:
    """The assembly's global-memory opcodes (``papers/global_memory/probes.py``'s patterns;
    atomics by family), ``{opcode: count}``."""
    sys.path.insert(0, str(ROOT / "papers" / "global_memory"))
    from probes import AMD_GLOBAL, ptx_counts

    if nvidia:
        return ptx_counts(asm)
    return dict(sorted(collections.Counter(AMD_GLOBAL.findall(asm)).items()))


def build_global(log=print) -> dict:
    """The global layout suggestions (a ``#ttg.blocked`` layout and the sectors per warp it
    touches) of the kernels of :data:`GLOBAL_SETS`, each written back as the pointer's blocked
    alias (:func:`relayout`) and compiled (``-O3``): ``{set/case:line: {"target", "ttgir",
    "new_ttgir", "line", "suggestion", "promise", "compiles", "old_global",
    "new_global"}}`` (the promised sectors per warp; the assemblies' global opcodes)."""
    import gzip

    from probe_compile import compile_ttgir
    from ttgir_text import strip_locs

    data = ROOT / "tests" / "data"
    sets = json.loads((data / "fixture_sets.json").read_text(encoding="utf-8"))["sets"]
    out: dict = {}
    seen = set()
    for s in GLOBAL_SETS:
        spec = sets[s]
        (file,) = spec["files"]
        doc = json.loads(gzip.decompress((data / file).read_bytes()))
        for case, e in sorted(doc[spec["key"]].items()):
            t = e.get("ttgir") if isinstance(e, dict) else None
            if not isinstance(t, str) or ("tt.load" not in t and "tt.store" not in t):
                continue
            t = strip_locs(t)
            h = hashlib.sha1(t.encode()).hexdigest()
            if h in seen:
                continue
            seen.add(h)
            try:
                sides = global_sides(t)
            except Skip:
                continue
            for line, g in sides.items():
                m = ORDER_HINT.search(g["suggestion"])
                if not m:
                    continue
                name = f"{s}/{case}:{line}"
                rec: dict = {"target": tname_of(t), "ttgir": t, "line": int(line),
                             "suggestion": g["suggestion"], "promise": int(m.group(2))}
                try:
                    rec["new_ttgir"] = relayout(t, int(line), m.group(1))
                except Skip as err:
                    out[name] = {"skipped": str(err)}
                    log(f"{name}: skipped ({err})")
                    continue
                nvidia = rec["target"].startswith("cuda")
                try:
                    rec["new_global"] = global_counts(
                        compile_ttgir(rec["new_ttgir"], rec["target"], True), nvidia)
                    rec["compiles"] = True
                except Exception as err:  # noqa: BLE001 - the finding
                    rec["compiles"] = False
                    rec["error"] = f"{type(err).__name__}: {str(err)[:300]}"
                if rec["compiles"]:
                    rec["old_global"] = global_counts(
                        compile_ttgir(t, rec["target"], True), nvidia)
                out[name] = rec
                log(f"{name}: {'compiles' if rec['compiles'] else rec['error']}")
    return out


def judge_global(rec: dict) -> dict:
    """One global order suggestion's verdicts (no Triton needed): the access on the new TTGIR
    (coalesced, sectors per warp old and new), and whether ``check``'s global instructions
    (``papers/global_memory/probes.py``'s ``predicted``) equal the assembly's, old and new."""
    sys.path.insert(0, str(ROOT / "papers" / "global_memory"))
    from probes import predicted

    old_text, new_text = texts(rec)
    old = global_sides(old_text)[str(rec["line"])]
    new = global_sides(new_text)[str(rec["line"])]
    out = {"coalesced": new["coalesced"],
           "sectors_per_warp": [old["sectors_per_warp"], new["sectors_per_warp"]],
           "promise_kept": new["sectors_per_warp"] == rec["promise"]}
    if rec.get("compiles"):
        out["old_matches"] = predicted(old_text) == rec["old_global"]
        out["new_matches"] = predicted(new_text) == rec["new_global"]
    return out


def compare_global(probes: dict) -> int:
    """Print the global layout suggestions' trip; the number of mismatches: ``check`` on the
    new TTGIR does not predict the promised sectors per warp, it does not compile, or its
    compiled global instructions differ from ``check`` where the old kernel's did not. A
    layout that leaves the access uncoalesced (fewer sectors, not the floor) is printed."""
    tally: collections.Counter = collections.Counter()
    bad = 0
    for name, rec in sorted(probes.items()):
        if "skipped" in rec:
            tally["skipped"] += 1
            continue
        tally["suggestions"] += 1
        v = judge_global(rec)
        tally["promise_kept"] += v["promise_kept"]
        if not v["promise_kept"]:
            bad += 1
            print(f"  PROMISE {name}: promised {rec['promise']} sectors per warp, predicted "
                  f"{v['sectors_per_warp'][1]} on the new TTGIR")
        if not rec["compiles"]:
            bad += 1
            print(f"  NO COMPILE {name}: {rec['error']}")
            continue
        tally["compiles"] += 1
        tally["coalesced"] += bool(v["coalesced"])
        a, b = v["sectors_per_warp"]
        tally["fewer_sectors"] += (b or 0) < (a or 0)
        tally["more_sectors"] += (b or 0) > (a or 0)
        tally["new_matches"] += v["new_matches"]
        tally["old_matches"] += v["old_matches"]
        if not v["coalesced"] or b > a:
            print(f"  {name}: sectors/warp {a} -> {b}, coalesced {v['coalesced']}")
        if not v["new_matches"] and v["old_matches"]:
            bad += 1
            print(f"  ASM {name}: compiled global instructions differ from check")
    print(f"global layout suggestions: {tally['suggestions']} ({tally['skipped']} "
          f"skipped); promised sectors per warp predicted on the new TTGIR on "
          f"{tally['promise_kept']}; {tally['compiles']} compile; coalesced after {tally['coalesced']}; "
          f"fewer sectors per warp {tally['fewer_sectors']}, more {tally['more_sectors']}; "
          f"new assembly = new prediction on {tally['new_matches']} (old on "
          f"{tally['old_matches']}); mismatches {bad}")
    return bad


_SOURCES: dict = {}


def source_ttgir(set_name: str, case: str) -> str:
    """The TTGIR (locations removed, ``corpus.strip_locs``) of case ``case`` of fixture set
    ``set_name`` (``tests/data/fixture_sets.json``), read without pytest or Triton."""
    import gzip

    from ttgir_text import strip_locs

    if set_name not in _SOURCES:
        data = ROOT / "tests" / "data"
        spec = json.loads((data / "fixture_sets.json").read_text(encoding="utf-8"))["sets"][
            set_name]
        (file,) = spec["files"]
        _SOURCES[set_name] = json.loads(gzip.decompress((data / file).read_bytes()))[
            spec["key"]]
    return strip_locs(_SOURCES[set_name][case]["ttgir"])


def compact(name: str, rec: dict) -> dict:
    """``rec`` as the fixture keeps it: its TTGIR texts replaced by ``"source": [set, case]``
    (the kernel's fixture set) and ``"changed": {line: new text}`` (the lines the rewrite
    changed; every line keeps its place). Raises ``ValueError`` when the source's text is not
    the record's."""
    if "ttgir" not in rec:
        return rec
    set_name, case = name.split("/", 1)
    case = case.rsplit(":", 1)[0] if "line" in rec else case
    if source_ttgir(set_name, case) != rec["ttgir"]:
        raise ValueError(f"{name}: the source's TTGIR differs")
    old, new = rec["ttgir"].split("\n"), rec["new_ttgir"].split("\n")
    out = {k: v for k, v in rec.items() if k not in ("ttgir", "new_ttgir")}
    out["source"] = [set_name, case]
    out["changed"] = {str(i + 1): b for i, (a, b) in enumerate(zip(old, new)) if a != b}
    return out


def texts(rec: dict) -> tuple[str, str]:
    """(old, new) TTGIR of a record, full or :func:`compact`."""
    if "ttgir" in rec:
        return rec["ttgir"], rec["new_ttgir"]
    old = source_ttgir(*rec["source"]).split("\n")
    new = list(old)
    for k, v in rec["changed"].items():
        new[int(k) - 1] = v
    return "\n".join(old), "\n".join(new)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    from fixture import read_fixture, write_or_check
    from probe_compile import probe_arguments

    ap = probe_arguments(__doc__)
    ap.add_argument("--limit", type=int, default=None, help="at most N kernels per set")
    ap.add_argument("--out", type=pathlib.Path, default=OUT, help="fixture path")
    ap.add_argument("--repromise", action="store_true",
                    help="no Triton: re-record each kernel's promise (check's output on the "
                         "old TTGIR) after a deliberate change in what check reports; the "
                         "suggested TTGIR and its compiled lines are kept")
    args = ap.parse_args(argv)
    if args.repromise:
        data = read_fixture(args.out)
        for rec in data["probes"].values():
            if "skipped" not in rec:
                rec["promise"] = promises(check_kernel(texts(rec)[0])[0])
        write_or_check(args.out, data, False)
    elif args.compare_only:
        data = read_fixture(args.out)
    else:
        data = build(args.limit)
        data["global"] = build_global()
        for key in ("probes", "global"):
            data[key] = {n: compact(n, r) for n, r in data[key].items()}
        rc = write_or_check(args.out, data, args.check)
        if rc:
            return rc
    bad = compare(data)
    bad += compare_global(data.get("global", {}))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
