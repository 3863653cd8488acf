#!/usr/bin/env python
"""A held-out draw of ``tl`` kernels for ``linlayout check``'s register-side rules of
reductions, scans, gathers, joins, splits and transposes: ``check --json`` against Triton's
lowering and its final assembly, op by op.

Run with Triton 3.9.0 installed (CPU only; about 10 s a probe, with the lowering)::

    python papers/triton_lowering/register_redraw_probes.py                 # writes the fixture
    python papers/triton_lowering/lowering_reference.py reg_redraw          # adds the lowering
    python papers/triton_lowering/register_redraw_probes.py --compare-only  # compare it

``--confirm``, ``--third`` and ``--fourth`` do the same for the later draws (sets
``reg_confirm``, ``reg_third``, ``reg_fourth``), each made after the rule the one before it
showed was committed; ``--seed N`` compiles and compares a draw, writing nothing.

The draw (:data:`DRAW`: seed, probes; a seed no other probe script uses) was made after every
register rule of ``linlayout.check.registers`` was written, on ``cuda:80``, ``cuda:90``,
``gfx942`` and ``gfx950``, 1 to 8 warps, tiles of 256 to 8192 elements. Kernel families:

* ``t_reduce``: one ``tl.sum`` (at the element type or Triton's promoted one), ``tl.max``,
  ``tl.min``, ``tl.argmax`` or ``tl.argmin`` of a 2-D tile over axis 0 or 1, on ``i8``,
  ``i16``, ``i32``, ``i64``, ``f16``, ``bf16``, ``f32`` or ``f64``; one time in three the
  result is broadcast back over the tile and subtracted (a convert from the slice layout);
* ``t_scan``: ``tl.cumsum`` (forward or reversed) or ``tl.cumprod`` over axis 0 or 1, same
  types;
* ``t_gather``: ``tl.gather`` along axis 0 or 1 with an ``i32`` index tile as long as the
  source along that axis, or half as long;
* ``t_join``/``t_split``: ``tl.join`` of two tiles, ``tl.split`` of a ``[M, N, 2]`` tile;
* ``t_trans``: ``tl.trans`` of a 2-D tile, or ``tl.permute`` of a 3-D one.

Each probe's assembly is counted by TTGIR op (``cvt_heldout_probes.op_located``) and
compared as ``cvt_heldout_probes.compare`` does: every register instruction of each
convert's and gather's own TTGIR line, the exchanges (``shfl``/``redux``/``ds_bpermute``/
``ds_swizzle``/DPP/``v_permlane``) of reduces and scans over the rest of the kernel, shared
memory over the whole kernel. Known differences: ``tests/data/known_mismatches.json`` set
``reg_redraw`` (none); ``tests/data/llvm_respelling.json`` lists, with their LLVM pass, the
probes whose final assembly differs from the lowering on what is compared;
``tests/check/test_reg_redraw_probes.py`` replays the fixtures without Triton.

Results (``papers/triton_lowering/README.md``): as drawn, 48/49, 50/55, 49/54 and 51/56 of
56 equal Triton's lowering / the final assembly for the four draws; every probe of all four
equals its reference after the rules each draw showed (reverse-scan flips, the AMD
broadcast-operand merge, ``i32``-to-``i16`` truncations packed with ``prmt.b32``, narrowed
read-outs of truncated reductions) and the listed re-spellings.
"""

from __future__ import annotations

import collections
import os
import pathlib
import random
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "triton_reg_redraw_probes.json.gz"
#: (seed, probes): drawn once, after the register rules; never tuned
DRAW = (71293, 56)
#: ``--confirm``: a second draw of the same families (set ``reg_confirm``), made after the
#: rules the first one showed (reverse-scan flips, AMD broadcast operands) were committed
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_reg_confirm_probes.json.gz"
CONFIRM_DRAW = (71317, 56)
#: ``--third``: a third draw (set ``reg_third``), made after the ``i32``-to-``i16`` truncation
#: rule the second one showed was committed
THIRD_OUT = ROOT / "tests" / "data" / "triton_reg_third_probes.json.gz"
THIRD_DRAW = (71333, 56)
#: ``--fourth``: a fourth draw (set ``reg_fourth``), made after the truncated read-out rule the
#: third one showed was committed
FOURTH_OUT = ROOT / "tests" / "data" / "triton_reg_fourth_probes.json.gz"
FOURTH_DRAW = (71347, 56)
TARGETS = ("cuda80", "cuda90", "gfx942", "gfx950")
SET = "reg_redraw"
CONFIRM_SET = "reg_confirm"
THIRD_SET = "reg_third"
FOURTH_SET = "reg_fourth"


def build(seed: int = DRAW[0], count: int = DRAW[1]) -> dict:
    """Compile ``count`` probes drawn with ``seed`` (Triton 3.9.0), each counted by TTGIR op."""
    import triton
    import triton.language as tl
    from corpus import strip_locs
    from cvt_heldout_probes import asm_counts, op_located
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    @triton.jit
    def t_reduce(X, Y, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr,
                 OP: tl.constexpr, KEEP: tl.constexpr, BCAST: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        if OP == "sum":
            if KEEP:
                r = tl.sum(x, axis=AXIS, dtype=x.dtype)
            else:
                r = tl.sum(x, axis=AXIS)
        elif OP == "max":
            r = tl.max(x, axis=AXIS)
        elif OP == "min":
            r = tl.min(x, axis=AXIS)
        elif OP == "argmax":
            r = tl.argmax(x, axis=AXIS)
        else:
            r = tl.argmin(x, axis=AXIS)
        if BCAST:
            if AXIS == 0:
                y = x - r[None, :].to(x.dtype)
            else:
                y = x - r[:, None].to(x.dtype)
            tl.store(Y + rm[:, None] * N + rn[None, :], y.to(Y.dtype.element_ty))
        elif AXIS == 0:
            tl.store(Y + rn, r.to(Y.dtype.element_ty))
        else:
            tl.store(Y + rm, r.to(Y.dtype.element_ty))

    @triton.jit
    def t_scan(X, Y, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr, OP: tl.constexpr,
               REV: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        if OP == "cumsum":
            y = tl.cumsum(x, axis=AXIS, reverse=REV, dtype=x.dtype)
        else:
            y = tl.cumprod(x, axis=AXIS, reverse=REV)
        tl.store(Y + rm[:, None] * N + rn[None, :], y.to(Y.dtype.element_ty))

    @triton.jit
    def t_gather(X, I, Y, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
                 AXIS: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        x = tl.load(X + rm[:, None] * N + rn[None, :])
        if AXIS == 0:
            rk = tl.arange(0, K)
            i = tl.load(I + rk[:, None] * N + rn[None, :])
            tl.store(Y + rk[:, None] * N + rn[None, :], tl.gather(x, i, 0))
        else:
            rk = tl.arange(0, K)
            i = tl.load(I + rm[:, None] * K + rk[None, :])
            tl.store(Y + rm[:, None] * K + rk[None, :], tl.gather(x, i, 1))

    @triton.jit
    def t_join(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        a = tl.load(X + rm[:, None] * N + rn[None, :])
        b = tl.load(X + M * N + rm[:, None] * N + rn[None, :])
        z = tl.join(a, b)
        r2 = tl.arange(0, 2)
        tl.store(Y + rm[:, None, None] * N * 2 + rn[None, :, None] * 2 + r2[None, None, :], z)

    @triton.jit
    def t_split(X, Y, M: tl.constexpr, N: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        r2 = tl.arange(0, 2)
        z = tl.load(X + rm[:, None, None] * N * 2 + rn[None, :, None] * 2 + r2[None, None, :])
        a, b = tl.split(z)
        tl.store(Y + rm[:, None] * N + rn[None, :], a)
        tl.store(Y + M * N + rm[:, None] * N + rn[None, :], b)

    @triton.jit
    def t_trans(X, Y, M: tl.constexpr, N: tl.constexpr, P3: tl.constexpr):
        rm = tl.arange(0, M)
        rn = tl.arange(0, N)
        if P3:
            r4 = tl.arange(0, 4)
            x = tl.load(X + rm[:, None, None] * N * 4 + rn[None, :, None] * 4
                        + r4[None, None, :])
            y = tl.permute(x, (2, 0, 1))
            tl.store(Y + r4[:, None, None] * M * N + rm[None, :, None] * N
                     + rn[None, None, :], y)
        else:
            x = tl.load(X + rm[:, None] * N + rn[None, :])
            tl.store(Y + rn[:, None] * M + rm[None, :], tl.trans(x))

    T = {"cuda80": GPUTarget("cuda", 80, 32), "cuda90": GPUTarget("cuda", 90, 32),
         "gfx942": GPUTarget("hip", "gfx942", 64), "gfx950": GPUTarget("hip", "gfx950", 64)}
    TY = {"i8": "*i8", "i16": "*i16", "i32": "*i32", "i64": "*i64", "f16": "*fp16",
          "bf16": "*bf16", "f32": "*fp32", "f64": "*fp64"}
    kernels = {"reduce": t_reduce, "scan": t_scan, "gather": t_gather, "join": t_join,
               "split": t_split, "trans": t_trans}
    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    rng = random.Random(seed)
    while len(probes) < count:
        tname = rng.choice(TARGETS)
        kind = rng.choices(list(kernels), [6, 3, 2, 1, 1, 2])[0]
        warps = rng.choice([1, 2, 4, 4, 8])
        ty = rng.choice(list(TY))
        M, N = rng.choice([(16, 16), (16, 64), (64, 16), (32, 32), (64, 64), (32, 128),
                           (128, 32), (8, 256), (256, 8)])
        const: dict = {"M": M, "N": N}
        sig = {"X": TY[ty], "Y": TY[ty]}
        tag = ""
        if kind == "reduce":
            op = rng.choice(["sum", "sum", "max", "min", "argmax", "argmin"])
            const.update(AXIS=rng.randint(0, 1), OP=op, KEEP=rng.random() < 0.5,
                         BCAST=rng.random() < 1 / 3)
            if op.startswith("arg") and not const["BCAST"]:
                sig["Y"] = "*i32"
            tag = f"{op}{'k' if const['KEEP'] and op == 'sum' else ''}" \
                  f"{'b' if const['BCAST'] else ''}_a{const['AXIS']}"
        elif kind == "scan":
            op = rng.choice(["cumsum", "cumsum", "cumprod"])
            const.update(AXIS=rng.randint(0, 1), OP=op, REV=rng.random() < 0.3)
            tag = f"{op}{'r' if const['REV'] else ''}_a{const['AXIS']}"
        elif kind == "gather":
            axis = rng.randint(0, 1)
            const.update(AXIS=axis, K=(M, N)[axis] // rng.choice([1, 1, 2]))
            sig = {"X": TY[ty], "I": "*i32", "Y": TY[ty]}
            tag = f"k{const['K']}_a{axis}"
        elif kind == "trans":
            const["P3"] = rng.random() < 0.4
            tag = "p3" if const["P3"] else "t2"
        sig.update({k: "constexpr" for k in const})
        name = f"t_{kind}_{ty}_{tag + '_' if tag else ''}{M}x{N}_w{warps}_" \
               f"{rng.getrandbits(24):06x}_{tname}"
        src = ASTSource(fn=kernels[kind], signature=sig, constexprs=const)
        try:
            k = triton.compile(src, target=T[tname], options={"num_warps": warps})
        except Exception as e:  # noqa: BLE001 - a kernel Triton rejects is skipped
            fails[f"{kind}:{type(e).__name__}"] += 1
            continue
        asm = k.asm["ptx"] if tname.startswith("cuda") else k.asm["amdgcn"]
        ttgir = strip_locs(k.asm["ttgir"])
        probes[name] = {"target": tname, "ttgir": ttgir, "counts": asm_counts(asm, None),
                        **op_located(ttgir, tname, asm)}
        if len(probes) % 10 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; not compiled: {dict(fails)}")
    return {"triton_version": triton.__version__, "seed": seed, "probes": probes}


def score(data: dict) -> dict:
    """``{"lowering": (equal, total), "final": (equal, total)}``: how many probes'
    ``check --json`` instructions equal Triton's lowering and the final assembly
    (``cvt_heldout_probes.prediction``/``agrees``, data path), known mismatches included."""
    from cvt_heldout_probes import agrees, check_json, data_path, lowering, prediction

    out = {"lowering": [0, 0], "final": [0, 0]}
    for name, p in sorted(data["probes"].items()):
        doc = check_json(p["ttgir"])
        p = data_path(p)
        for label, ref in (("lowering", lowering(p) if "lowering" in p else None),
                           ("final", p)):
            if ref is None:
                continue
            pred, seen, empty, _ = prediction(ref, name, doc, None)
            out[label][0] += agrees(pred, seen, doc) and not empty
            out[label][1] += 1
    return {k: tuple(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    from cvt_heldout_probes import compare
    from fixture import draw_parser, read_fixture, write_or_check

    ap = draw_parser(__doc__)
    ap.add_argument("--confirm", action="store_true",
                    help="the second draw (CONFIRM_DRAW, set reg_confirm) instead")
    ap.add_argument("--third", action="store_true",
                    help="the third draw (THIRD_DRAW, set reg_third) instead")
    ap.add_argument("--fourth", action="store_true",
                    help="the fourth draw (FOURTH_DRAW, set reg_fourth) instead")
    args = ap.parse_args(argv)
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    out, (seed, count), name = (CONFIRM_OUT, CONFIRM_DRAW, CONFIRM_SET) if args.confirm else \
        (THIRD_OUT, THIRD_DRAW, THIRD_SET) if args.third else \
        (FOURTH_OUT, FOURTH_DRAW, FOURTH_SET) if args.fourth else (OUT, DRAW, SET)
    if args.seed is not None:
        data = build(args.seed)
        print(score(data))
        return 1 if compare(data, name) else 0
    if args.compare_only:
        data = read_fixture(out)
        bad = compare(data, name)
        print("agree:", score(data))
        return 1 if bad else 0
    rc = write_or_check(out, build(seed, count), args.check)
    print(f"now run lowering_reference.py {name}, then --compare-only")
    return rc


if __name__ == "__main__":
    sys.exit(main())
