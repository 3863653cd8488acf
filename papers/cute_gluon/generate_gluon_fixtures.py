#!/usr/bin/env python
"""Write tests/data/gluon_roundtrip.json: linlayout's Gluon source, evaluated by Triton itself.

Run with a Python that has Triton 3.9 (CPU only, no GPU or CUDA driver)::

    python papers/cute_gluon/generate_gluon_fixtures.py          # write
    python papers/cute_gluon/generate_gluon_fixtures.py --check  # compare

For each layout below (the CuTe atoms of ``linlayout.cute``, CUTLASS's shared-memory atoms,
the built-in examples' synthesized swizzles, Triton's own random encodings and random linear
layouts) this script asks linlayout (this checkout, ``linlayout.triton.to_gluon``) for the
Gluon source, evaluates that source with ``triton.experimental.gluon.language`` and records
the bases of Triton's ``to_linear_layout`` of it (``GluonOpBuilder.to_linear_layout``, as
``tests/data/generate_triton_fixtures.py`` does). ``tests/cute/test_gluon.py`` then checks,
without Triton, that linlayout still emits the same source and that Triton's bases are the
layout's own: the oracle is Triton, not linlayout.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "data" / "gluon_roundtrip.json"

import fixture_file  # noqa: E402  (this directory)
import triton  # noqa: E402
from triton._C.libtriton import ir  # noqa: E402
from triton._C.libtriton.gluon_ir import GluonOpBuilder  # noqa: E402
from triton.experimental.gluon import language as gl  # noqa: E402

from linlayout import LinearLayout, examples, synthesize_swizzle  # noqa: E402
from linlayout.cute import atoms, parse_layout  # noqa: E402
from linlayout.triton import to_gluon  # noqa: E402
from linlayout.triton.encodings.sampling import random_distributed  # noqa: E402

CTX = ir.context()
ir.load_dialects(CTX)
B = GluonOpBuilder(CTX)
ETYPE = {8: B.get_int8_ty(), 16: B.get_half_ty(), 32: B.get_float_ty(), 64: B.get_double_ty()}


def triton_bases(source: str, shape: list[int], bits: int) -> dict:
    obj = eval(source, {"gl": gl})  # noqa: S307 - linlayout's own emitted expression
    attr = obj._to_ir(B)
    ll = B.to_linear_layout(attr, shape)
    if hasattr(ll, "reg_bases"):
        return {"register": ll.reg_bases, "lane": ll.lane_bases, "warp": ll.warp_bases,
                "block": ll.block_bases}
    return {"offset": ll.offset_bases, "block": ll.block_bases}


def entry(what: str, layout: LinearLayout, bits: int, prefer: str = "swizzled") -> dict:
    source = to_gluon(layout, bits, prefer=prefer)
    shape = list(layout.out_dims.values())
    return {"what": what, "layout": layout.to_dict(), "element_bits": bits, "prefer": prefer,
            "source": source, "triton_bases": triton_bases(source, shape, bits)}


def layouts() -> list[dict]:
    out = []
    for a in atoms():
        bits = 16 if 16 in a.element_bits else a.element_bits[0]
        out.append(entry(f"CuTe atom {a.name}", a.linear_layout(bits if a.units == "bits" else None),
                         bits))
    cute = json.loads((ROOT / "tests" / "data" / "cute_atoms.json").read_text())
    for lay in cute["layouts"]:
        if lay["note"].startswith("random"):
            continue
        bits = int(lay["note"].split("<")[1].split("-")[0]) if "GMMA" in lay["note"] else {
            "half_t": 16, "tfloat32_t": 32, "int8_t": 8, "double": 64}[
            next(t for t in ("half_t", "tfloat32_t", "int8_t", "double") if t in lay["note"])]
        M = parse_layout(lay["cute"])
        for prefer in ("swizzled", "nvmma"):
            out.append(entry(f"CUTLASS smem atom {lay['note']}: {lay['cute']}", M, bits, prefer))
    for name in examples.names():
        ex = examples.get(name)
        r = synthesize_swizzle(ex.store, ex.load, element_bits=ex.element_bits)
        out.append(entry(f"synthesized swizzle of example {name}", r.layout, ex.element_bits))
    rng = random.Random(16)
    for _ in range(40):
        enc, what = random_distributed(rng, num_warps=rng.choice([1, 2, 4, 8]))
        shape = [rng.choice([16, 32, 64, 128]), rng.choice([16, 32, 64, 128])]
        out.append(entry(f"Triton {what} at {shape}", enc.to_linear_layout(shape), 16))
    for i in range(12):  # no name fits: DistributedLinearLayout. Triton 3.9 accepts only
        # unit bases that form a permutation once broadcasts are removed (LinearEncodingAttr)
        L = LinearLayout.random({"register": 4, "lane": 32, "warp": 4},
                                {"dim0": 16, "dim1": 32}, rng=rng, kind="unit",
                                broadcast=0.1 * (i % 3), surjective=True)
        out.append(entry(f"random linear layout {i}", L, 16))
    return out


def build() -> dict:
    return {"generator": "papers/cute_gluon/generate_gluon_fixtures.py (Triton evaluates "
                         "linlayout's Gluon source)",
            "triton_version": triton.__version__, "layouts": layouts()}


def dumps(data) -> str:
    head = {k: v for k, v in data.items() if k != "layouts"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    lines.append('  "layouts": [')
    rows = data["layouts"]
    lines += [f"    {json.dumps(e, separators=(',', ':'))}" + ("," if i < len(rows) - 1 else "")
              for i, e in enumerate(rows)]
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(fixture_file.main(build, dumps, OUT, ROOT, __doc__))
