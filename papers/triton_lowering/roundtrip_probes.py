#!/usr/bin/env python
"""Round-trip probes: a layout ``synthesize_swizzle(..., lowering="triton")`` hands out,
written back into a Gluon kernel and compiled by Triton 3.9.0 — does Triton emit exactly the
instructions linlayout said it would?

Run with Triton 3.9.0 installed (``pip install triton==3.9.0``; CPU only; ~10 min)::

    python papers/triton_lowering/roundtrip_probes.py          # writes tests/data/triton_roundtrip_probes.json.gz
    python papers/triton_lowering/roundtrip_probes.py --check  # compare, write nothing

Each probe draws a store and a load layout (random ``blocked`` encodings, random
permutations of the tensor's bits as ``linear`` layouts, the sm80 ``mma`` accumulator and its
dot operands; 8-, 16- and 32-bit elements; 1 to 8 warps; 64x64, 32x128, 128x32 and 128x128
tiles), synthesizes the shared-memory layout with ``lowering="triton"`` for the probe's target
(cuda:80, cuda:90, gfx942), and compiles a kernel that loads the tile in the store layout,
``allocate_shared_memory``s it through the synthesized ``SharedLinearLayout`` and loads it
back in the load layout. The fixture keeps the layouts' bases, the synthesized layout, the
TTGIR (``loc`` removed) and the static count of every shared-memory instruction of the
assembly; ``tests/synthesis/test_roundtrip_probes.py`` replays it without Triton: the
prediction (:func:`linlayout.synthesis.lower_sides`) equals the assembly, and the lowered cost
is never above Triton's own ``convert_layout`` scratch for the same pair. The script prints
that comparison (equal, cheaper, costlier, proven optimal) and exits non-zero when a result
costs more than Triton's own.
"""

from __future__ import annotations

import collections
import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from fixture import main_for  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_roundtrip_probes.json.gz"
SEED = 24
PROBES = 330
TARGETS = ("cuda:80", "cuda:90", "hip:gfx942")


def random_layout(rng: random.Random, shape: tuple[int, int], warps: int, lanes: int,
                  cuda: bool):
    """A random distributed layout over ``shape`` (linlayout), and its kind."""
    from linlayout import LinearLayout
    from linlayout.triton import blocked, dot_operand, nvidia_mma

    M, N = shape
    k = rng.random()
    if k < 0.4:
        for _ in range(100):
            spt = [1 << rng.randint(0, 3) for _ in range(2)]
            tpw = [1, 1]
            for _ in range(lanes.bit_length() - 1):
                tpw[rng.randrange(2)] *= 2
            wpc = [1, 1]
            for _ in range(warps.bit_length() - 1):
                wpc[rng.randrange(2)] *= 2
            if all(s * t * w <= d for s, t, w, d in zip(spt, tpw, wpc, shape)):
                order = rng.choice([[1, 0], [0, 1]])
                return blocked(spt, tpw, wpc, order).to_linear_layout(list(shape)), "blocked"
    if k < 0.8 or not cuda:
        nb = [M.bit_length() - 1, N.bit_length() - 1]
        d = sum(nb)
        cols = [1 << i for i in range(d)]
        rng.shuffle(cols)

        def to(c: int) -> list[int]:  # flat bit (dim1 low) -> [dim0, dim1]
            return [c >> nb[1], c & ((1 << nb[1]) - 1)]

        lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
        bases = {"register": [to(c) for c in cols[lb + wb:]],
                 "lane": [to(c) for c in cols[:lb]], "warp": [to(c) for c in cols[lb:lb + wb]]}
        return LinearLayout(bases, out_dims={"dim0": M, "dim1": N}), "linear"
    wpc = [2, 2] if warps == 4 else [4, 2] if warps == 8 else [warps, 1]
    mma = nvidia_mma(2, wpc, [16, 8])
    if rng.random() < 0.4:
        return mma.to_linear_layout(list(shape)), "mma"
    return dot_operand(rng.randint(0, 1), mma, 2).to_linear_layout(list(shape)), "dot"


def build() -> dict:
    import triton
    from corpus import strip_locs
    from reduce_probes import compile_probe
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    import linlayout as ll
    from linlayout.hardware import AMD_CDNA3

    @gluon.jit
    def g_smem(X, Y, M: gl.constexpr, N: gl.constexpr, L: gl.constexpr, S: gl.constexpr,
               D: gl.constexpr):
        rm = gl.arange(0, M, layout=gl.SliceLayout(1, L))
        rn = gl.arange(0, N, layout=gl.SliceLayout(0, L))
        x = gl.load(X + rm[:, None] * N + rn[None, :])
        smem = gl.allocate_shared_memory(X.dtype.element_ty, [M, N], S, x)
        y = smem.load(D)
        dm = gl.arange(0, M, layout=gl.SliceLayout(1, D))
        dn = gl.arange(0, N, layout=gl.SliceLayout(0, D))
        gl.store(Y + dm[:, None] * N + dn[None, :], y)

    def gluon_layout(layout, shape):
        b = layout.bases
        return gl.DistributedLinearLayout(b.get("register", []), b.get("lane", []),
                                          b.get("warp", []), [], list(shape))

    gpu = {"cuda:80": GPUTarget("cuda", 80, 32), "cuda:90": GPUTarget("cuda", 90, 32),
           "hip:gfx942": GPUTarget("hip", "gfx942", 64)}
    ty = {8: "*i8", 16: "*fp16", 32: "*fp32"}
    rng = random.Random(SEED)
    probes: dict = {}
    fails: collections.Counter = collections.Counter()
    for i in range(PROBES):
        target = TARGETS[i % len(TARGETS)]
        cuda = target.startswith("cuda")
        lanes = 32 if cuda else 64
        warps = rng.choice([4, 4, 8, 1, 2])
        bits = rng.choice([8, 16, 16, 32])
        shape = rng.choice([(64, 64), (32, 128), (128, 32), (128, 128)])
        src, sk = random_layout(rng, shape, warps, lanes, cuda)
        dst, dk = random_layout(rng, shape, warps, lanes, cuda)
        hw = None if cuda else AMD_CDNA3
        try:
            r = ll.synthesize_swizzle(src, dst, element_bits=bits, hardware=hw,
                                      lowering="triton", target=target)
        except ll.LayoutError as exc:
            fails[f"synthesis: {type(exc).__name__}"] += 1
            continue
        from linlayout.hardware.kinds import to_offset_layout
        offset = to_offset_layout(r.layout)
        S = gl.SharedLinearLayout(offset.bases["offset"])
        sig = {"X": ty[bits], "Y": ty[bits], "M": "constexpr", "N": "constexpr",
               "L": "constexpr", "S": "constexpr", "D": "constexpr"}
        consts = {"M": shape[0], "N": shape[1], "L": gluon_layout(src, shape), "S": S,
                  "D": gluon_layout(dst, shape)}
        name = (f"rt_{sk}_{dk}_b{bits}_{shape[0]}x{shape[1]}_w{warps}_{rng.getrandbits(24):06x}"
                f"_{target.replace(':', '')}")
        try:
            entry, _ = compile_probe(GluonASTSource(fn=g_smem, signature=sig, constexprs=consts),
                                     gpu[target], warps, "roundtrip", "roundtrip_probes.py")
        except Exception as exc:  # a layout Triton refuses is a finding: keep its reason
            fails[f"compile: {type(exc).__name__}"] += 1
            probes[name] = {"target": target, "bits": bits, "shape": list(shape),
                            "src": src.bases, "dst": dst.bases,
                            "layout": offset.bases["offset"],
                            "error": f"{type(exc).__name__}: {str(exc)[:300]}"}
            continue
        del entry["set"]
        entry.update({"target": target, "bits": bits, "shape": list(shape), "src": src.bases,
                      "dst": dst.bases, "layout": offset.bases["offset"],
                      "ttgir": strip_locs(entry["ttgir"])})
        probes[name] = entry
    print(f"{len(probes)} probes; not compiled or synthesized: {dict(fails)}")
    if summarise(probes)["costlier"]:
        raise SystemExit("a lowered synthesis costs more than Triton's own convert_layout")
    return {"triton_version": triton.__version__, "probes": probes}


def summarise(probes: dict) -> collections.Counter:
    """Print, over the probes, how the lowered synthesis compares with Triton's own
    ``convert_layout`` for the same pair (equal, cheaper, costlier, or no shared memory) and
    how many results are proven optimal; return the counts. The instruction-by-instruction
    comparison with the assembly is the test's (``tests/synthesis/test_roundtrip_probes.py``)."""
    import linlayout as ll
    from linlayout.check.count import count_side
    from linlayout.check.shared_memory import predict_convert
    from linlayout.hardware import AMD_CDNA3
    from linlayout.lowering import Target

    out: collections.Counter = collections.Counter()
    for e in probes.values():
        if "error" in e:
            continue
        shape = {"dim0": e["shape"][0], "dim1": e["shape"][1]}
        src = ll.LinearLayout(e["src"], out_dims=shape)
        dst = ll.LinearLayout(e["dst"], out_dims=shape)
        hw = None if e["target"].startswith("cuda") else AMD_CDNA3
        r = ll.synthesize_swizzle(src, dst, element_bits=e["bits"], hardware=hw,
                                  lowering="triton", target=e["target"])
        out["proven optimal"] += r.optimal
        target = Target.parse(e["target"])
        p = predict_convert(src, dst, max(8, e["bits"]), target)
        if not p.uses_shared:
            out["no shared memory"] += 1
            continue
        reps = [count_side(x, target.hardware()) for x in p.sides]
        theirs = (sum(x.wavefronts_per_warp for x in reps),
                  sum(x.instructions_per_warp for x in reps))
        ours = (r.wavefronts_per_warp, r.instructions_per_warp)
        out["equal" if ours == theirs else "cheaper" if ours < theirs else "costlier"] += 1
    print("against Triton's own convert_layout: " + ", ".join(
        f"{k} {out[k]}" for k in ("equal", "cheaper", "costlier", "no shared memory",
                                  "proven optimal")))
    return out


def main(argv: list[str] | None = None) -> int:
    return main_for(__doc__, OUT, build, argv)


if __name__ == "__main__":
    sys.exit(main())
