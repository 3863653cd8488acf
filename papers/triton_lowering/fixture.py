"""Writing (or checking) a probe fixture: one gzip-compressed JSON file under tests/data/,
byte-stable (sorted keys, no timestamp), shared by the probe scripts of this folder."""

from __future__ import annotations

import gzip
import json
import pathlib


def write_or_check(out: pathlib.Path, data: dict, check: bool) -> int:
    """With ``check``: compare ``data`` with the fixture at ``out`` and return 0 when equal,
    1 otherwise; without: write it. Prints one line either way."""
    if check:
        same = json.loads(gzip.decompress(out.read_bytes())) == data
        print("fixture up to date" if same else "fixture differs")
        return 0 if same else 1
    blob = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    out.write_bytes(gzip.compress(blob, mtime=0))
    print(f"wrote {out} ({len(data['probes'])} probes)")
    return 0
