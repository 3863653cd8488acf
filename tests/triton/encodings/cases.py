"""Fixture cases for the per-module encoding tests, grouped by the class that reads them.

``tests/data/triton_layouts.json`` holds attribute texts as Triton 3.9 prints them with the
bases of its ``toLinearLayout``; ``tests/data/gluon_roundtrip.json`` holds layouts with the
Gluon source linlayout writes for them, evaluated by Triton 3.9.
"""

from __future__ import annotations

from functools import lru_cache

from linlayout import LinearLayout
from linlayout.triton import express, parse_encoding, recognize_distributed
from linlayout.hardware.kinds import is_distributed

from tests.support import load_json

DATA = load_json("triton_layouts.json")
CASES = DATA["cases"]
ROUNDTRIP = load_json("gluon_roundtrip.json")["layouts"]


def mnemonic_of(text: str) -> str:
    """``blocked`` for ``#ttg.blocked<…>``."""
    return text.split("<", 1)[0].split(".", 1)[1]


def cases_of(*classes) -> list[dict]:
    """The triton_layouts.json cases whose outer attribute is one of ``classes``."""
    names = {c.mnemonic for c in classes}
    return [c for c in CASES if mnemonic_of(c["text"]) in names]


def case_id(case: dict) -> str:
    return f"{case['family']}-{case['shape']}"


def check_case(case: dict) -> None:
    """The parsed case is Triton's layout bit for bit and prints back as Triton printed it."""
    enc = parse_encoding(case["text"])
    got = enc.to_linear_layout(case["shape"])
    want = LinearLayout(case["layout"]["bases"], out_dims=case["layout"]["out_dims"])
    assert got.bases == want.bases
    assert got.out_dims == want.out_dims
    assert list(got.in_dim_names) == list(case["layout"]["bases"])
    assert enc.text() == case["text"]
    assert parse_encoding(enc.text()) == enc


def roundtrip_encoding(entry: dict):
    """The encoding :func:`linlayout.triton.to_gluon` writes for a gluon_roundtrip.json entry,
    and the shape it passes."""
    lay = LinearLayout.from_dict(entry["layout"])
    if is_distributed(lay):
        shape = list(lay.out_dims.values())
        return recognize_distributed(lay), shape
    return express(lay, entry["element_bits"], prefer=entry["prefer"]), None


def roundtrip_of(*classes) -> list[tuple[object, list | None, str]]:
    """``(encoding, shape, Gluon source)`` of the gluon_roundtrip.json entries whose layout is
    one of ``classes`` (entries written as ``gl.DistributedLinearLayout`` have no named
    encoding and are left to the ``linear`` tests)."""
    return [(enc, shape, source) for enc, shape, source in _roundtrips()
            if enc is not None and type(enc) in classes]


@lru_cache(maxsize=None)
def _roundtrips() -> tuple[tuple[object, list | None, str], ...]:
    """``(encoding, shape, Gluon source)`` of every gluon_roundtrip.json entry, worked out
    once for the modules that each take their classes' share."""
    return tuple((*roundtrip_encoding(e), e["source"]) for e in ROUNDTRIP)
