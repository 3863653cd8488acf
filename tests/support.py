"""What the tests share: hypothesis strategies, seeded random layouts, oracles and helpers.

* **Hypothesis strategies** for the algebra tests (:func:`layouts`, :func:`invertible_layouts`,
  :func:`surjective_layouts`, …): in dims among ``register, lane, warp`` and out dims ``dim0,
  dim1``; images are biased towards zeros (broadcast), unit bits (Triton's usual layouts) and
  duplicates, so that free variables, identity dims and non-surjective cases come up often.
* **Small oracles** that do not use the code under test: brute-force enumeration of inputs
  (:func:`all_inputs`) and galois.GF2 matrix products (:func:`gf_matmul_equal`).
* **Seeded random layouts** for the property tests of the counters and the synthesizer
  (:func:`random_distributed`, :func:`random_memory`, :func:`random_pair`, …): unit-vector or
  general bases, with broadcast on request.
* **Fixed layouts** several test files use (the article's 16×32 transpose memories, the mma
  operand of a 16×16 fp16 tile), paths to ``tests/data``, the junk values of the robustness
  walks, the helpers that run the ``linlayout`` command in-process, and
  :func:`papers_module`, which imports a ``papers/`` script for the replay tests.

Imported as ``from tests.support import …`` (``tests`` and its subfolders are packages).
"""

from __future__ import annotations

import functools
import importlib.util
import itertools
import json
import random
import sys
from pathlib import Path

import galois
import numpy as np
import pytest
from hypothesis import strategies as st

from linlayout import LayoutError, LinearLayout, Subspace, f2

GF2 = galois.GF2

#: The repository root and the Triton-generated fixtures.
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
TTGIR_DIR = DATA / "ttgir"


# ============================================================================ strategies (algebra)
@st.composite
def gl_columns(draw, n: int):
    """Columns of a random element of GL(n, 2): identity, column transvections, permutation."""
    cols = [1 << i for i in range(n)]
    if n >= 2:
        ops = draw(
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n)
        )
        for i, j in ops:
            if i != j:
                cols[i] ^= cols[j]
    perm = draw(st.permutations(range(n)))
    return [cols[p] for p in perm]


IN_NAMES = ("register", "lane", "warp")
OUT_NAMES = ("dim0", "dim1")


# ---------------------------------------------------------------------------- oracles
def all_inputs(layout: LinearLayout):
    """Every input point of a (small) layout as a dict."""
    names = list(layout.in_dims)
    for vals in itertools.product(*(range(s) for s in layout.in_dims.values())):
        yield dict(zip(names, vals))


def flat_in(layout: LinearLayout, point: dict) -> int:
    x, s = 0, 0
    for n, size in layout.in_dims.items():
        x |= point.get(n, 0) << s
        s += size.bit_length() - 1
    return x


def unflat(dims: dict, flat: int) -> dict:
    out = {}
    for n, size in dims.items():
        b = size.bit_length() - 1
        out[n] = flat & (size - 1)
        flat >>= b
    return out


def identity_on(dims: dict) -> LinearLayout:
    out = LinearLayout.empty()
    for n, s in dims.items():
        out = out * LinearLayout.identity_1d(s, n, n)
    return out


def gf(layout: LinearLayout):
    return GF2(layout.matrix)


def gf_matmul_equal(a, b, expected) -> bool:
    """a @ b == expected over GF(2), tolerating empty dimensions."""
    if a.shape[1] == 0:
        return not np.any(expected)
    return np.array_equal(np.asarray(GF2(a) @ GF2(b)), np.asarray(expected))


# ---------------------------------------------------------------------------- strategies
@st.composite
def images(draw, out_bits: list[int], n: int, pool: list | None = None):
    """n images (one int per out dim) biased towards zeros, unit bits and duplicates (of the
    images drawn so far, also those in ``pool``: other dims' images)."""
    res = []
    pool = [] if pool is None else pool
    for _ in range(n):
        kind = draw(st.sampled_from(["zero", "unit", "random", "random", "dup"]))
        if kind == "zero" or not any(out_bits):
            res.append([0] * len(out_bits))
        elif kind == "dup" and (res or pool):
            res.append(list(draw(st.sampled_from(res + pool))))
        elif kind == "unit":
            j = draw(st.sampled_from([j for j, b in enumerate(out_bits) if b]))
            img = [0] * len(out_bits)
            img[j] = 1 << draw(st.integers(0, out_bits[j] - 1))
            res.append(img)
        else:
            res.append([draw(st.integers(0, (1 << b) - 1)) for b in out_bits])
    return res


@st.composite
def layouts(draw, in_names=None, out_dims=None, max_in_bits=4, max_out_bits=4, ordered=False):
    """A random layout: in dims among register/lane/warp (0-4 bits each), out dims dim0/dim1."""
    if in_names is None:
        if ordered:
            in_names = [n for n in IN_NAMES if draw(st.booleans())]
        else:
            in_names = draw(st.lists(st.sampled_from(IN_NAMES), unique=True, max_size=3))
    if out_dims is None:
        out_dims = {n: 1 << draw(st.integers(0, max_out_bits)) for n in OUT_NAMES}
    out_bits = [s.bit_length() - 1 for s in out_dims.values()]
    bases: dict = {}
    for n in in_names:
        k = draw(st.integers(0, max_in_bits))
        bases[n] = draw(images(out_bits, k, [img for imgs in bases.values() for img in imgs]))
    return LinearLayout(bases, out_dims=dict(out_dims))


@st.composite
def split_bits(draw, total: int, names) -> dict:
    """Sizes {name: 2**b} with the b summing to total (names in the given order)."""
    names = list(names)
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=len(names) - 1,
                                max_size=len(names) - 1)))
    bounds = [0] + cuts + [total]
    return {n: 1 << (bounds[i + 1] - bounds[i]) for i, n in enumerate(names)}


@st.composite
def invertible_layouts(draw, max_bits=8):
    n = draw(st.integers(0, max_bits))
    in_names = draw(st.lists(st.sampled_from(IN_NAMES), unique=True, min_size=1, max_size=3))
    ins = draw(split_bits(n, in_names))
    outs = draw(split_bits(n, OUT_NAMES))
    return LinearLayout.from_columns(draw(gl_columns(n)), ins, outs)


@st.composite
def surjective_layouts(draw, in_names=None, out_dims=None, max_extra=4, max_out=6):
    """Surjective: a GL(n) block scattered among extra random columns."""
    if out_dims is None:
        n = draw(st.integers(0, max_out))
        out_dims = draw(split_bits(n, OUT_NAMES))
    n = sum(s.bit_length() - 1 for s in out_dims.values())
    extra = draw(st.lists(st.integers(0, (1 << n) - 1), max_size=max_extra))
    extra = [0 if draw(st.booleans()) else e for e in extra]  # plenty of broadcast zeros
    cols = draw(st.permutations(draw(gl_columns(n)) + extra))
    if in_names is None:
        in_names = draw(st.lists(st.sampled_from(IN_NAMES), unique=True, min_size=1, max_size=3))
    ins = draw(split_bits(len(cols), in_names))
    return LinearLayout.from_columns(cols, ins, out_dims)


def bit_range(dims: dict, name: str) -> range:
    """The flat bit positions of dim ``name`` in a ``{name: size}`` dict (first dim lowest)."""
    start = 0
    for n, size in dims.items():
        if n == name:
            return range(start, start + size.bit_length() - 1)
        start += size.bit_length() - 1
    raise KeyError(name)


@st.composite
def named_dims(draw, names, max_bits, min_dims=1):
    """{name: size} over a random subset of ``names`` (sizes up to 2**max_bits)."""
    chosen = draw(st.lists(st.sampled_from(names), min_size=min_dims, max_size=len(names),
                           unique=True))
    return {n: 1 << draw(st.integers(0, max_bits)) for n in chosen}


@st.composite
def random_layouts(draw, max_out_bits=6, out_names=("dim0", "dim1", "dim2")):
    """LinearLayout.random over random dims (up to four in dims, three out dims)."""
    ins = draw(named_dims(("register", "lane", "warp", "block"), 4))
    outs = draw(named_dims(out_names, max_out_bits))
    seed = draw(st.integers(0, 2**32 - 1))
    kind = draw(st.sampled_from(["unit", "general"]))
    return LinearLayout.random(ins, outs, kind=kind, rng=random.Random(seed))


# ============================================================================ seeded random layouts
def random_invertible(rng: random.Random, n: int, unit: bool) -> list[int]:
    """Columns of a random bijection of F2^n: a permutation of unit vectors, or a general one."""
    if unit:
        cols = [1 << i for i in range(n)]
        rng.shuffle(cols)
        return cols
    while True:
        cols = [rng.getrandbits(n) for _ in range(n)] if n else []
        if f2.rank(cols) == n:
            return cols


def split_out(flat: int, out_bits: list[int]) -> list[int]:
    vals = []
    for b in out_bits:
        vals.append(flat & ((1 << b) - 1))
        flat >>= b
    return vals


def out_dims_for(out_bits: list[int]) -> dict[str, int]:
    return {f"dim{i}": 1 << b for i, b in enumerate(out_bits)}


def random_out_bits(rng: random.Random, d: int) -> list[int]:
    a = rng.randint(0, d)
    return [a, d - a]


def random_memory(rng: random.Random, out_bits: list[int], unit: bool) -> LinearLayout:
    d = sum(out_bits)
    cols = random_invertible(rng, d, unit)
    return LinearLayout(
        {"offset": [split_out(c, out_bits) for c in cols]}, out_dims_for(out_bits)
    )


def random_distributed(
    rng: random.Random,
    out_bits: list[int],
    *,
    unit: bool,
    warp_bits: int,
    broadcast: float = 0.0,
    lane_bits: int = 5,
) -> LinearLayout:
    """A distributed layout onto the tensor: lane bits first, then warps, registers the rest.

    With probability ``broadcast`` each basis is replaced by zero (or a copy of another basis).
    The in-bits exceed the tensor bits when needed so that every tensor bit is covered.
    """
    d = sum(out_bits)
    cols = random_invertible(rng, d, unit)
    extra = max(0, lane_bits + warp_bits - d)
    cols = cols + [0] * extra
    lanes = cols[:lane_bits]
    warps = cols[lane_bits:lane_bits + warp_bits]
    regs = cols[lane_bits + warp_bits:]

    def noisy(cs: list[int]) -> list[int]:
        out = []
        for c in cs:
            if broadcast and rng.random() < broadcast:
                c = rng.choice([0, rng.choice(cols)])
            out.append(c)
        return out

    bases = {
        "register": [split_out(c, out_bits) for c in noisy(regs)],
        "lane": [split_out(c, out_bits) for c in noisy(lanes)],
    }
    if warp_bits:
        bases["warp"] = [split_out(c, out_bits) for c in noisy(warps)]
    return LinearLayout(bases, out_dims_for(out_bits))


def random_memory_vectorisable(
    rng: random.Random, layout: LinearLayout, unit: bool
) -> LinearLayout:
    """A random memory layout whose first offset bits are register directions of ``layout``.

    So that wide vectors (and the phases they bring) get exercised.
    """
    out_bits = [layout.out_bits(n) for n in layout.out_dim_names]
    d = sum(out_bits)
    regs = [c for c in layout.dim_columns("register") if c]
    rng.shuffle(regs)
    first = f2.extend_basis([], regs)[: rng.randint(0, 4)]
    rest = random_invertible(rng, d, unit)
    cols = first + f2.extend_basis(first, rest)
    return LinearLayout(
        {"offset": [split_out(c, out_bits) for c in cols]},
        dict(zip(layout.out_dim_names, (1 << b for b in out_bits))),
    )


def random_pair(
    rng: random.Random,
    out_bits: list[int],
    *,
    unit: bool,
    warp_bits: int,
    broadcast: float = 0.0,
) -> tuple[LinearLayout, LinearLayout]:
    """A store and a load over the same tensor whose register spans share 0-4 directions."""
    store = random_distributed(rng, out_bits, unit=unit, warp_bits=warp_bits, broadcast=broadcast)
    d = sum(out_bits)
    regs = [c for c in store.dim_columns("register") if c]
    rng.shuffle(regs)
    shared = f2.extend_basis([], regs)[: rng.randint(0, 4)]
    rest = f2.extend_basis(shared, random_invertible(rng, d, unit))
    rng.shuffle(rest)
    lane_bits = 5
    cols = rest + [0] * max(0, lane_bits + warp_bits - len(rest))
    lanes, warps, regs_b = cols[:lane_bits], cols[lane_bits:lane_bits + warp_bits], cols[lane_bits + warp_bits:]
    regs_b = shared + regs_b
    if broadcast:
        lanes = [0 if rng.random() < broadcast else c for c in lanes]
    bases = {
        "register": [split_out(c, out_bits) for c in regs_b],
        "lane": [split_out(c, out_bits) for c in lanes],
    }
    if warp_bits:
        bases["warp"] = [split_out(c, out_bits) for c in warps]
    load = LinearLayout(bases, out_dims_for(out_bits))
    return store, load


# ============================================================================ fixed layouts
def reg_lane_layout() -> LinearLayout:
    """Two register bits along dim0, two lane bits along dim1, onto a 4×4 tensor (a new
    object on every call, for the tests that try to mutate one)."""
    return LinearLayout(
        {"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]]},
        out_dims={"dim0": 4, "dim1": 4},
    )


#: reg_lane_layout with a size-1 ``block`` dim: the receiver of the robustness walks and of
#: the tests that check which dim an error message names.
BASE_LAYOUT = LinearLayout({"register": [[1, 0], [2, 0]], "lane": [[0, 1], [0, 2]], "block": []},
                           {"dim0": 4, "dim1": 4})


#: The article's 16×32 fp32 tile: dim0 = m (rows), dim1 = n (columns).
ARTICLE_OUT = {"dim0": 16, "dim1": 32}


def article_memory(mask_shift: int | None) -> LinearLayout:
    """The article's memory layouts: offset = 32·m + (n ⊕ (m << shift)); None is row-major."""
    bank = [[0, 1 << i] for i in range(5)]
    seg = []
    for j in range(4):
        n_bits = 0 if mask_shift is None else 1 << (j + mask_shift)
        seg.append([1 << j, n_bits])
    return LinearLayout({"offset": bank + seg}, ARTICLE_OUT)


OUT16 = {"dim0": 16, "dim1": 16}
#: The mma v2 operand-A fragment of a 16×16 fp16 tile (Triton's dot operand, kWidth 2).
MMA_A = LinearLayout({"register": [[0, 1], [8, 0], [0, 8]],
                      "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]}, OUT16)
#: Row-major memory for a 16×16 tile: 32-byte rows of fp16.
ROW_MAJOR_16X16 = LinearLayout(
    {"offset": [[0, 1], [0, 2], [0, 4], [0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]}, OUT16)
#: A blocked layout of the same tile: 8 consecutive dim1 elements per thread.
BLOCKED_16X16 = LinearLayout({"register": [[0, 1], [0, 2], [0, 4]],
                              "lane": [[0, 8], [1, 0], [2, 0], [4, 0], [8, 0]]}, OUT16)


# ============================================================================ robustness walks
#: Junk for every argument of the synthesis-level API (synthesize_swizzle, bank_conflicts,
#: simulate_bank_access, optimal_swizzles, is_optimal, HardwareModel).
SYNTHESIS_JUNK = [None, -1, 0, 3, 2.5, "x", [], [1], {}, True, object(), (1, 2), [[1, 0]],
                  "128B", "auto", 10**9]


#: Junk for every argument of LinearLayout's and Subspace's methods.
LAYOUT_JUNK = [None, 0, -1, 3, 2.5, True, float("nan"), "", "nope", "dim0", "register", b"x", [],
               ["nope"], [3], [[1]], [("x", 3)], {}, {"nope": 3}, {"register": 3}, {3: 4},
               object(), LinearLayout.empty(), Subspace([7])]


def walk_with_junk(table) -> None:
    """``table`` maps a method name to ``(receiver, valid args, valid kwargs)``. Call each
    method with its valid arguments, then with each argument replaced in turn by every
    :data:`LAYOUT_JUNK` value: every call must return or raise LayoutError."""

    def call(name, args, kwargs):
        receiver = table[name][0]
        if name == "__init__":  # the constructor: the receiver is the class
            return receiver(*args, **kwargs)
        return getattr(receiver, name)(*args, **kwargs)

    for name, (_, args, kwargs) in table.items():
        call(name, args, kwargs)  # the valid call works
        slots = [(i, None) for i in range(len(args))] + [(None, k) for k in kwargs]
        for i, key in slots:
            for junk in LAYOUT_JUNK:
                a = list(args)
                kw = dict(kwargs)
                if key is None:
                    a[i] = junk
                else:
                    kw[key] = junk
                try:
                    call(name, a, kw)
                except LayoutError:
                    pass
                except Exception as exc:  # pragma: no cover - the failure report
                    pytest.fail(f"{name}({a}, {kw}) raised {type(exc).__name__}: {exc}")


def returns_or_raises_layout_error(fn, *args, **kwargs) -> None:
    """Call ``fn``; a LayoutError is fine, any other exception fails the test."""
    try:
        fn(*args, **kwargs)
    except LayoutError:
        pass


# ============================================================================ the CLI in-process
def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``linlayout *argv`` through ``main``: (exit code, stdout, stderr)."""
    from linlayout.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_file(tmp_path, name: str, data) -> str:
    """Write ``data`` (text as is, anything else as JSON) to ``tmp_path/name``; its path."""
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def assert_one_line_error(code: int, out: str, err: str) -> None:
    """Bad input: exit status 2, nothing on stdout, one ``linlayout: error:`` line."""
    assert code == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("linlayout: error: ")
    assert "Traceback" not in err


# ============================================================================ Triton fixtures
def load_json(name: str):
    """A JSON fixture of ``tests/data``."""
    return json.loads((DATA / name).read_text())


def read_ttgir_fixture(name: str):
    """A TTGIR file of ``tests/data/ttgir``, read by linlayout.triton.read_ttgir."""
    from linlayout.triton import read_ttgir

    return read_ttgir((TTGIR_DIR / name).read_text(), name)


# ============================================================================ papers scripts
@functools.lru_cache(maxsize=None)
def papers_module(relative: str):
    """The ``papers/`` script at ``relative`` (to the repository root, e.g.
    ``"papers/triton_lowering/producer_probes.py"``) imported as a module named by its file
    stem, once per session: its helpers are what the replay tests reuse (the probe scripts
    import Triton only when compiling). The module is registered in ``sys.modules`` while it
    loads (dataclasses look their module up then)."""
    path = ROOT / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
