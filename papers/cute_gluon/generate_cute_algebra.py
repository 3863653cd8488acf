#!/usr/bin/env python
"""Write tests/data/cute_algebra.json: CuTe's layout algebra on random power-of-two layouts,
computed by NVIDIA's pycute, and compare linlayout.cute with it.

Run with a Python that has the ``nvidia-cutlass`` wheel (its ``pycute`` module needs no CUDA;
``pip install --no-deps nvidia-cutlass`` into a separate venv is enough) from the repository
root::

    python papers/cute_gluon/generate_cute_algebra.py          # compare, then write
    python papers/cute_gluon/generate_cute_algebra.py --check  # compare, and check the file

Every case is one operation (``coalesce``, ``complement``, ``composition``, the four divides,
the four products, ``blocked_product``, ``raked_product``, ``size``, ``cosize``, ``rank``,
``depth``, ``downcast``) on seeded random layouts whose shape leaves are powers of two and
whose strides are 0 or powers of two, sometimes behind a ``Sw<B,M,S> o offset o``. pycute
computes the expected layout; the fixture keeps its C++ text and its value at every
coordinate. Where pycute has no such function, the expected value is built from pycute's own
primitives the way CUTLASS's ``include/cute/layout.hpp`` defines it: ``flat_divide`` /
``flat_product`` (both modes of the zipped result unpacked), ``blocked_product`` /
``raked_product`` (``zip`` of ``logical_product``'s modes after ``append<R>``), ``downcast``
(transcribed per leaf); a swizzled left operand applies the operation to the inner layout and
keeps the swizzle (``include/cute/layout_composed.hpp``). A case whose pycute answer fails an
assertion or leaves the power-of-two subset (a 0-sized mode, a stride that is not a power of
two) expects linlayout to raise ``LayoutError``.

Exit status 1 when linlayout disagrees with pycute on any case (printed), or with ``--check``
when the file is not current.
"""

from __future__ import annotations

import json
import pathlib
import random
import sys
from importlib import metadata

import fixture_file
import pycute
from pycute import ComposedLayout, Layout, Swizzle

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
OUT = ROOT / "tests" / "data" / "cute_algebra.json"

from linlayout import LayoutError, cute  # noqa: E402

#: Largest layout whose every coordinate is written to the fixture.
MAX_EVAL = 1024
SEED = 20261127
COUNT = 600


# ----------------------------------------------------------------------------- text
def cpp(x) -> str:
    """A pycute object as C++ ``cute::print`` writes it (static integers)."""
    if isinstance(x, Layout):
        return f"{cpp(x.shape)}:{cpp(x.stride)}"
    if isinstance(x, tuple):
        return "(" + ",".join(cpp(e) for e in x) + ")"
    return f"_{x}"


def tiler_json(t):
    if t is None or isinstance(t, int):
        return t
    if isinstance(t, tuple):
        return [tiler_json(x) for x in t]
    return cpp(t)


def tiler_linlayout(t):
    if isinstance(t, list):
        return tuple(tiler_linlayout(x) for x in t)
    return t


# ----------------------------------------------------------------------------- random input
def pow2(n):
    return n > 0 and not n & (n - 1)


def random_mode(rng, depth_left):
    if depth_left and rng.random() < 0.3:
        parts = [random_mode(rng, depth_left - 1) for _ in range(rng.randint(1, 3))]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    s = 1 << rng.choice([0, 1, 1, 2, 2, 3])
    d = 0 if rng.random() < 0.1 else 1 << rng.randint(0, 7)
    return s, d


def random_layout(rng, compact_bias=0.5, max_rank=3):
    """A random power-of-two layout; about half are compact (a permutation of [0, size))."""
    rank = rng.randint(1, max_rank)
    if rng.random() < compact_bias:
        leaves = [1 << rng.randint(0, 3) for _ in range(rng.randint(1, 4))]
        order = list(range(len(leaves)))
        rng.shuffle(order)
        stride = [0] * len(leaves)
        acc = 1
        for i in order:
            stride[i] = acc
            acc *= leaves[i]
        # group the leaves into modes
        groups = [[] for _ in range(rank)]
        for i in range(len(leaves)):
            groups[min(rank - 1, rng.randrange(rank))].append(i)
        modes = []
        for g in groups:
            if not g:
                modes.append((1, 0))
            elif len(g) == 1 and rng.random() < 0.7:
                modes.append((leaves[g[0]], stride[g[0]]))
            else:
                modes.append((tuple(leaves[i] for i in g), tuple(stride[i] for i in g)))
    else:
        modes = [random_mode(rng, 1) for _ in range(rank)]
    if rank == 1 and rng.random() < 0.5:
        return Layout(*modes[0])
    return Layout(tuple(m[0] for m in modes), tuple(m[1] for m in modes))


def random_tiler(rng, a: Layout, by_mode_ok=True):
    r = rng.random()
    if by_mode_ok and r < 0.35:
        n = rng.randint(1, len(a))
        out = []
        for i in range(n):
            q = rng.random()
            if q < 0.15:
                out.append(None)
            elif q < 0.5:
                out.append(1 << rng.randint(0, 3))
            else:
                out.append(random_layout(rng, 0.7, 1))
        return tuple(out)
    if r < 0.45:
        return 1 << rng.randint(0, 4)
    return random_layout(rng, 0.7, 2)


def random_swizzle(rng, a):
    if rng.random() < 0.85:
        return None
    B = rng.randint(1, 3)
    return (B, rng.randint(0, 3), rng.randint(B, B + 3)), rng.choice([0, 0, 64])


# ----------------------------------------------------------------------------- pycute ops
def as_layout(t):
    if isinstance(t, int):
        return Layout(t)
    if isinstance(t, tuple):
        return tuple(as_layout(x) if x is not None else None for x in t)
    return t


def modes(lay):
    return [lay[i] for i in range(len(lay))]


def append(lay, r):
    if len(lay) == r:
        return lay
    return pycute.make_layout(modes(lay) + [Layout(1, 0)] * (r - len(lay)))


def zip2(x, y):
    """C++ zip: a non-tuple x zips to the one mode ((x, y)) with y whole."""
    if not isinstance(x.shape, tuple):
        return Layout(((x.shape, y.shape),), ((x.stride, y.stride),))
    if not isinstance(y.shape, tuple):
        y = Layout((y.shape,), (y.stride,))
    return pycute.make_layout(pycute.make_layout(x[i], y[i]) for i in range(len(x)))


def unpack(lay):
    """C++'s slice layout(repeat<R>(_)): the modes, or the layout whole when R is 1."""
    return modes(lay) if len(lay) > 1 else [lay]


def rank_product(a, b, block_first):
    r = max(len(a), len(b))
    res = pycute.logical_product(append(a, r), append(b, r))
    return zip2(res[0], res[1]) if block_first else zip2(res[1], res[0])


def downcast(n, shape, stride):
    if isinstance(shape, tuple):
        parts = [downcast(n, s, d) for s, d in zip(shape, stride)]
        return tuple(p[0] for p in parts), tuple(p[1] for p in parts)
    if stride in (1, -1):
        return shape * n, stride
    return shape, stride * n


def products_tiler(t):
    """pycute's logical_product reads an int tiler through logical_divide; C++ as n:1."""
    return as_layout(t)


def tuple_depth(t):
    return 1 + max(tuple_depth(e) for e in t) if isinstance(t, tuple) else 0


OPS = {
    "coalesce": lambda a, t: pycute.coalesce(a, t),
    "complement": lambda a, t: pycute.complement(a, t),
    "composition": lambda a, t: pycute.composition(a, as_layout(t)),
    "logical_divide": lambda a, t: pycute.logical_divide(a, as_layout(t)),
    "zipped_divide": lambda a, t: pycute.zipped_divide(a, as_layout(t)),
    "tiled_divide": lambda a, t: pycute.tiled_divide(a, as_layout(t)),
    "flat_divide": lambda a, t: (lambda z: pycute.make_layout(unpack(z[0]) + unpack(z[1])))(
        pycute.zipped_divide(a, as_layout(t))),
    "logical_product": lambda a, t: pycute.logical_product(a, products_tiler(t)),
    "zipped_product": lambda a, t: pycute.zipped_product(a, products_tiler(t)),
    "tiled_product": lambda a, t: pycute.tiled_product(a, products_tiler(t)),
    "flat_product": lambda a, t: (lambda z: pycute.make_layout(unpack(z[0]) + unpack(z[1])))(
        pycute.zipped_product(a, products_tiler(t))),
    "blocked_product": lambda a, t: rank_product(a, as_layout(t), True),
    "raked_product": lambda a, t: rank_product(a, as_layout(t), False),
    "downcast": lambda a, t: Layout(*downcast(t, a.shape, a.stride)),
}
SCALARS = {
    "size": lambda a: pycute.size(a),
    "cosize": lambda a: pycute.cosize(a),
    "rank": lambda a: len(a),
    "depth": lambda a: tuple_depth(a.shape),  # pycute has none: CuTe's int_tuple.hpp depth
}
LIN = {name: getattr(cute, name) for name in list(OPS) + list(SCALARS)}


def in_subset(lay):
    from pycute import flatten
    return all(pow2(s) for s in flatten(lay.shape)) and all(
        d == 0 or pow2(d) for d in flatten(lay.stride))


def random_case(rng):
    op = rng.choice(list(OPS) + list(SCALARS))
    a = random_layout(rng)
    sw = random_swizzle(rng, a) if op in OPS and op not in ("complement", "downcast") else None
    if op == "coalesce":
        arg = tuple(1 for _ in range(rng.randint(1, len(a)))) if (
            isinstance(a.shape, tuple) and rng.random() < 0.3) else None
    elif op == "complement":
        arg = 1 << rng.randint(0, 12)
    elif op == "downcast":
        arg = 1 << rng.randint(1, 4)
    elif op in SCALARS:
        arg = None
    else:
        arg = random_tiler(rng, a, op not in ("blocked_product", "raked_product"))
    return op, a, sw, arg


def evaluate(lay, sw):
    n = pycute.size(lay)
    if n > MAX_EVAL:
        return None
    if sw is None:
        return [lay(i) for i in range(n)]
    (B, M, S), off = sw
    c = ComposedLayout(Swizzle(B, M, S), off, lay)
    return [c(i) for i in range(n)]


def case_entry(op, a, sw, arg):
    text = cpp(a) if sw is None else f"Sw<{sw[0][0]},{sw[0][1]},{sw[0][2]}> o _{sw[1]} o {cpp(a)}"
    entry = {"op": op, "layout": text}
    if op in SCALARS:
        entry["expect"] = SCALARS[op](a)
        return entry
    entry["arg"] = tiler_json(arg)
    try:
        if op == "downcast" and 1 not in pycute.flatten(a.stride):
            raise AssertionError("Downcast requires adjacent elements")
        res = OPS[op](a, arg)
        ok = in_subset(res) and pycute.size(res) <= 1 << 24
        why = None if ok else f"pycute gives {cpp(res)}, outside the power-of-two subset"
    except (AssertionError, ZeroDivisionError, IndexError) as exc:
        res, ok, why = None, False, f"pycute refuses: {type(exc).__name__} {exc}".strip()
    if not ok:
        entry["expect"] = None
        entry["why"] = why
        return entry
    out = cpp(res)
    entry["expect"] = out if sw is None else \
        f"Sw<{sw[0][0]},{sw[0][1]},{sw[0][2]}> o _{sw[1]} o {out}"
    entry["values"] = evaluate(res, sw)
    return entry


def linlayout_answer(entry):
    """linlayout's answer to a case: its text, a scalar, or ("error", message)."""
    fn = LIN[entry["op"]]
    try:
        if entry["op"] in SCALARS:
            return fn(entry["layout"])
        arg = tiler_linlayout(entry["arg"])
        return fn(entry["layout"], arg)
    except LayoutError as exc:
        return ("error", str(exc))


def agrees(entry) -> str | None:
    """None when linlayout agrees with the fixture entry, else what differs."""
    got = linlayout_answer(entry)
    want = entry["expect"]
    if isinstance(got, tuple):
        return None if want is None else f"linlayout raised {got[1]!r}; pycute: {want}"
    if entry["op"] in SCALARS:
        return None if got == want else f"linlayout {got}, pycute {want}"
    if want is None:
        return f"linlayout gave {got.text()}; pycute: {entry['why']}"
    if got.text() != want:
        return f"linlayout {got.text()}, pycute {want}"
    if entry.get("values") is not None:
        vals = [got(i) for i in range(got.size)]
        if vals != entry["values"]:
            return "same text, different values"
    return None


def build() -> dict:
    rng = random.Random(SEED)
    cases = [case_entry(*random_case(rng)) for _ in range(COUNT)]
    bad = [(c, why) for c in cases if (why := agrees(c))]
    per_op = {}
    for c in cases:
        k = per_op.setdefault(c["op"], [0, 0])
        k[0] += 1
        k[1] += c["expect"] is None
    for op, (n, refused) in sorted(per_op.items()):
        print(f"{op:16s} {n:4d} cases, {refused:3d} outside the subset (LayoutError expected)")
    for c, why in bad:
        print(f"MISMATCH {c['op']}({c['layout']}, {c.get('arg')!r}): {why}")
    print(f"{len(cases) - len(bad)} of {len(cases)} cases agree with pycute")
    if bad:
        sys.exit(1)
    return {
        "generator": "papers/cute_gluon/generate_cute_algebra.py",
        "pycute_source": f"nvidia-cutlass {metadata.version('nvidia-cutlass')} wheel, "
                         "module pycute",
        "seed": SEED,
        "cases": cases,
    }


def dumps(data) -> str:
    lines = ["{"]
    keys = list(data)
    for i, k in enumerate(keys):
        v = data[k]
        end = "," if i < len(keys) - 1 else ""
        if isinstance(v, list):
            lines.append(f"  {json.dumps(k)}: [")
            lines += [f"    {json.dumps(e, separators=(',', ':'))}"
                      + ("," if j < len(v) - 1 else "") for j, e in enumerate(v)]
            lines.append(f"  ]{end}")
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}{end}")
    lines.append("}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(fixture_file.main(build, dumps, OUT, ROOT, __doc__))
