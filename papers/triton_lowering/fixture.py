"""Writing (or checking) a probe fixture: one gzip-compressed JSON file under tests/data/,
byte-stable (sorted keys, no timestamp), shared by the probe scripts of this folder."""

from __future__ import annotations

import gzip
import json
import pathlib


def write_or_check(out: pathlib.Path, data: dict, check: bool) -> int:
    """With ``check``: compare ``data`` with the fixture at ``out`` and return 0 when equal,
    1 otherwise; without: write it. Prints one line either way. When ``data``'s probes have no
    ``"lowering"`` records (``lowering_reference.py`` adds them afterwards), the fixture's are
    left out of the comparison."""
    if check:
        old = read_fixture(out)
        fresh = data.get("probes", {}).values()
        if not any(isinstance(p, dict) and "lowering" in p for p in fresh):
            for p in old.get("probes", {}).values():
                if isinstance(p, dict):
                    p.pop("lowering", None)
        same = old == data
        print("fixture up to date" if same else "fixture differs")
        return 0 if same else 1
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    out.write_bytes(gzip.compress(blob, mtime=0))
    print(f"wrote {out} ({len(data['probes'])} probes)")
    return 0


def read_fixture(out: pathlib.Path) -> dict:
    """The decoded fixture at ``out`` (gzip-compressed JSON, as :func:`write_or_check`
    writes it)."""
    return json.loads(gzip.decompress(out.read_bytes()))


def draw_parser(doc: str):
    """The command line shared by the scripts that compile a seeded draw of probes
    (``argparse.ArgumentParser``, ``doc`` the script's docstring): ``--check`` (compare,
    write nothing), ``--compare-only`` (compare the committed fixture with check's
    prediction, no Triton needed) and ``--seed N`` (compile and compare a fresh draw, write
    nothing). A script adds its own options before parsing."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--compare-only", action="store_true",
                    help="compare the committed fixture with check's prediction; compile "
                         "nothing (no Triton needed)")
    ap.add_argument("--seed", type=int, default=None,
                    help="compile a fresh draw with this seed and compare it; write nothing")
    return ap


def main_for(doc: str, out: pathlib.Path, build, argv: list[str] | None = None,
             compare=None) -> int:
    """The command line of a probe script: ``--check`` compares ``build()`` with the fixture
    at ``out``, otherwise writes it; ``doc`` is the script's docstring. With ``compare`` (a
    function of the decoded fixture returning an exit status), the fixture is then compared
    (when the first step exits 0), and ``--compare-only`` compares the committed fixture
    without building it (no Triton needed)."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    if compare is not None:
        ap.add_argument("--compare-only", action="store_true",
                        help="compare the committed fixture only (no Triton needed)")
    args = ap.parse_args(argv)
    if compare is not None and args.compare_only:
        return compare(read_fixture(out))
    status = write_or_check(out, build(), args.check)
    if compare is None or status:
        return status
    return compare(read_fixture(out))


def main_then_compare(doc: str, out: pathlib.Path, build, compare,
                      argv: list[str] | None = None, compare_first: bool = False) -> int:
    """The command line of a probe script that compares what it compiled whatever the
    fixture step says: ``--check`` compares ``build()`` with the fixture at ``out``,
    otherwise writes it (:func:`write_or_check`); ``compare(data)`` (a count of
    differences, or an exit status) runs on the built data, after that step or, with
    ``compare_first``, before it. Returns 1 on a difference, else the fixture step's
    status."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    args = ap.parse_args(argv)
    data = build()
    bad = compare(data) if compare_first else 0
    status = write_or_check(out, data, args.check)
    return 1 if bad or (not compare_first and compare(data)) else status
