#!/usr/bin/env python
"""Which side a ``convert_layout`` through LDS vectorises, gfx950 vs gfx942 (Triton 3.9.0,
CPU only): the bank-order rule of ``linlayout.lowering.scratch.optimal_swizzling_ldst``.

Triton's ``optimalSwizzlingLdSt`` (``lib/Tools/GenericSwizzling.cpp``) puts, when the scratch
vector is under 128 bits, the bank bases held in one side's registers first, so that side's
accesses widen — only while the target has at most 32 banks (the guard added by Triton's
pull request 11169, "Restrict low-vector swizzle reorder to <=32 banks", a gfx950 workaround
merged before 3.9's branch). gfx942 has 32 banks, gfx950 64: there the bank bases stay in
``complementBasis`` order. Each probe is a Gluon ``g_cvt`` kernel (``gluon_kernels.py``)
between two random ``DistributedLinearLayout``s compiled for both targets; the fixture
keeps the TTGIR (``loc`` information removed), the static count of every LDS instruction of
the AMDGCN and the LDS loads and stores of Triton's LLVM IR before LLVM's optimiser
(``reduce_probes.compile_probe``). The comparison: the vector width and per-thread count
of every LDS load and store in that LLVM IR equal those ``linlayout check --json`` predicts.

Two sets:

* default (``tests/data/triton_bank_order_probes.json.gz``, seed 5, 16 pairs): one warp,
  8- and 16-bit elements, 128 to 1024 elements, the destination's registers taken from the
  source's lanes (so no register is common and the vector is under 128 bits) — the draw the
  rule was measured on;
* ``--warps`` (``tests/data/triton_bank_order_warps_probes.json.gz``): 2, 4 and 8 warps,
  8/16/32/64-bit elements, drawn after the rule and only compared: two random pairs of each
  (``rand``, seed ``WARPS_SEED``: the rule decides none of them, gfx942 and gfx950 agree) and
  two whose destination registers come from the source's lanes (``lanes``, seed
  ``WARPS_LANES_SEED``, drawn when the random pairs turned out not to exercise the rule).

    python papers/triton_lowering/gfx950_bank_order_probes.py                 # write the fixture
    python papers/triton_lowering/gfx950_bank_order_probes.py --warps --check # compare, write nothing
    python papers/triton_lowering/gfx950_bank_order_probes.py --compare-only  # no Triton needed
    python papers/triton_lowering/gfx950_bank_order_probes.py --warps --seed 7  # a fresh draw
    python papers/triton_lowering/gfx950_bank_order_probes.py --compare-only --without-guard

The last line replays the fixture with the guard lifted: 10 of the 32 one-warp kernels, all
gfx950 (8- and 16-bit loads Triton keeps scalar), then differ; none of the 96 multi-warp
ones does. With warps, a sub-word vector is padded with warp bases
(``getVecBasisLdSt``), which no side holds in registers, so no side widens past it; with
a vector of a word or more, neither target widened a side in these draws.

Prints one line per kernel and exits 1 on a difference not listed in
``tests/data/known_mismatches.json`` (sets ``bank_order``, ``bank_order_warps``).
"""

from __future__ import annotations

import os
import pathlib
import random
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "triton_bank_order_probes.json.gz"
WARPS_OUT = ROOT / "tests" / "data" / "triton_bank_order_warps_probes.json.gz"
#: the one-warp draw the rule was measured on: (seed, pairs)
ONE_WARP_DRAW = (5, 16)
#: the multi-warp draws, made after the rule: seeds of the random pairs and of the pairs whose
#: destination registers come from the source's lanes; two pairs of each per (warps, bits)
WARPS_SEED = 8317
WARPS_LANES_SEED = 8318
WARPS = (2, 4, 8)
WARP_BITS = (8, 16, 32, 64)
TARGETS = ("gfx950", "gfx942")
TYPES = {8: "*i8", 16: "*fp16", 32: "*fp32", 64: "*i64"}


def _draw_one_warp(rng: random.Random) -> tuple:
    """(bits, M, N, src (reg, lane, warp), dst (reg, lane, warp)) as flat tensor bits: one
    warp, the destination's registers among the source's lanes."""
    bits = rng.choice([8, 16])
    dim = rng.choice([7, 8, 9, 10] if bits == 8 else [7, 8, 9])
    m = 1 << rng.randint(2, dim - 2)
    n = (1 << dim) // m
    flat = [1 << k for k in range(dim)]
    rng.shuffle(flat)
    reg, lane = flat[6:], flat[:6]
    pool = list(lane)
    rng.shuffle(pool)
    t_reg = pool[:len(reg)]
    t_lane = [b for b in flat if b not in t_reg]
    rng.shuffle(t_lane)
    return bits, m, n, (reg, lane, []), (t_reg, t_lane, [])


def _draw_warps(rng: random.Random, warps: int, bits: int) -> tuple:
    """As :func:`_draw_one_warp` for ``warps`` warps of ``bits``-bit elements: 1 to 4
    registers (1 to 2 for 64 bits), each side a random split of the tensor's bits into
    registers, 64 lanes and warps; half the pairs keep the source's first register in the
    destination's registers."""
    log2w = warps.bit_length() - 1
    nreg = rng.randint(1, {8: 4, 16: 3, 32: 3, 64: 2}[bits])
    dim = 6 + log2w + nreg
    m = 1 << rng.randint(1, dim - 1)
    n = (1 << dim) // m
    flat = [1 << k for k in range(dim)]
    rng.shuffle(flat)
    src = (flat[:nreg], flat[nreg:nreg + 6], flat[nreg + 6:])
    other = list(flat)
    rng.shuffle(other)
    if rng.random() < 0.5 and src[0][0] not in other[:nreg]:
        i = other.index(src[0][0])
        other[0], other[i] = other[i], other[0]
    dst = (other[:nreg], other[nreg:nreg + 6], other[nreg + 6:])
    return bits, m, n, src, dst


def _draw_warps_lanes(rng: random.Random, warps: int, bits: int) -> tuple:
    """As :func:`_draw_warps`, but the destination's registers are taken from the source's
    lanes (no register in common, as in :func:`_draw_one_warp`) and its warps are the
    source's (in another order) or, in half the pairs, a random mix of the source's warps and
    registers — the pairs whose scratch vector stays under 128 bits."""
    log2w = warps.bit_length() - 1
    nreg = rng.randint(1, {8: 4, 16: 3, 32: 3, 64: 2}[bits])
    dim = 6 + log2w + nreg
    m = 1 << rng.randint(1, dim - 1)
    n = (1 << dim) // m
    flat = [1 << k for k in range(dim)]
    rng.shuffle(flat)
    reg, lane, warp = flat[:nreg], flat[nreg:nreg + 6], flat[nreg + 6:]
    pool = list(lane)
    rng.shuffle(pool)
    t_reg = pool[:nreg]
    if rng.random() < 0.5:
        t_warp = list(warp)
    else:
        t_warp = list(warp + reg)
        rng.shuffle(t_warp)
        t_warp = t_warp[:log2w]
    rng.shuffle(t_warp)
    t_lane = [b for b in flat if b not in t_reg and b not in t_warp]
    rng.shuffle(t_lane)
    return bits, m, n, (reg, lane, warp), (t_reg, t_lane, t_warp)


def draws(warps: bool, seed: int | None = None) -> list[tuple[str, int, tuple]]:
    """``(name stem, warps, draw)`` of one set, in drawing order."""
    out = []
    if not warps:
        rng = random.Random(ONE_WARP_DRAW[0] if seed is None else seed)
        for i in range(ONE_WARP_DRAW[1]):
            d = _draw_one_warp(rng)
            out.append((f"{i:02d}_w1_i{d[0]}_{d[1]}x{d[2]}", 1, d))
        return out
    for style, draw, first in (("rand", _draw_warps, WARPS_SEED),
                               ("lanes", _draw_warps_lanes, WARPS_LANES_SEED)):
        rng = random.Random(first if seed is None else seed + first - WARPS_SEED)
        i = 0
        for w in WARPS:
            for bits in WARP_BITS:
                for _ in range(2):
                    d = draw(rng, w, bits)
                    out.append((f"{style}{i:02d}_w{w}_i{bits}_{d[1]}x{d[2]}", w, d))
                    i += 1
    return out


def build(warps: bool, seed: int | None = None) -> dict:
    """Compile every probe of one set (Triton 3.9.0) for both targets."""
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel
    from probe_compile import gpu_target
    from reduce_probes import compile_probe
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    def linear(side, m, n):
        nb = n.bit_length() - 1
        rc = lambda c: [c >> nb, c & ((1 << nb) - 1)]  # noqa: E731 - flat bit -> [row, col]
        reg, lane, warp = side
        return gl.DistributedLinearLayout([rc(c) for c in reg], [rc(c) for c in lane],
                                          [rc(c) for c in warp], [], [m, n])

    probes = {}
    for stem, w, (bits, m, n, src, dst) in draws(warps, seed):
        for tname in TARGETS:
            kernel = GluonASTSource(
                convert_kernel(),
                signature={"X": TYPES[bits], "Y": TYPES[bits], "M": "constexpr",
                           "N": "constexpr", "L": "constexpr", "D": "constexpr"},
                constexprs={"M": m, "N": n, "L": linear(src, m, n), "D": linear(dst, m, n)})
            entry, _ = compile_probe(kernel, gpu_target(tname), w,
                                     "bank_order_warps" if warps else "bank_order",
                                     "gfx950_bank_order_probes.py")
            entry.update(target=tname, warps=w, bits=bits, ttgir=strip_locs(entry["ttgir"]))
            probes[f"{stem}_{tname}"] = entry
    return {"triton_version": triton.__version__, "probes": probes}


def llvm_vectors(preopt: dict) -> dict:
    """``{"store"|"load": {vector elements: per-thread count}}`` of the LDS accesses of
    Triton's LLVM IR (a fixture's ``"preopt"`` record; a scalar access is a vector of one);
    an access of another kind is kept under its own name."""
    out: dict = {"store": {}, "load": {}}
    for key, count in preopt["types"].items():
        m = re.fullmatch(r"(load|store) (?:<(\d+) x \w+>|\w+)", key)
        side, elems = (m.group(1), int(m.group(2) or 1)) if m else (key, 0)
        out.setdefault(side, {})
        out[side][elems] = out[side].get(elems, 0) + count
    return out


def check_vectors(ttgir: str) -> dict:
    """The same, as ``linlayout check --json`` predicts it for the module's converts. ``check``
    names the final assembly's instructions, where AMDGPU's ``SILoadStoreOptimizer`` merges
    two accesses into one ``ds_read2*``/``ds_write2*``: each such instruction is counted as
    the two accesses of Triton's LLVM IR it stands for (as
    ``tests/check/shared_memory/test_bank_order_probes.py`` counts them)."""
    from cvt_heldout_probes import check_json

    out: dict = {"store": {}, "load": {}}
    for op in check_json(ttgir)["ops"]:
        for x in op.get("instructions", []):
            if op["kind"] == "convert" and x["space"] == "shared":
                side = out.setdefault(x["side"], {})
                pairs = 2 if re.match(r"ds_(read|write)2", x.get("isa", "")) else 1
                side[x["vector_elems"]] = side.get(x["vector_elems"], 0) + x["per_thread"] * pairs
    return out


def compare(data: dict, known_set: str, guard: bool = True) -> int:
    """Print one line per kernel; return the number of differences not listed in
    ``tests/data/known_mismatches.json`` under ``known_set``. Without ``guard``, ``check``
    reorders the bank bases whatever the bank count (the rule before the ``numBanks <= 32``
    guard), to show which kernels the guard decides."""
    if not guard:
        import linlayout.lowering.scratch as scratch
        from linlayout import clear_caches

        rule = scratch.reorders_bank_bases
        clear_caches()
        scratch.reorders_bank_bases = lambda vector_bits, num_banks: rule(vector_bits, 32)
        try:
            return compare(data, known_set)
        finally:
            scratch.reorders_bank_bases = rule
            clear_caches()
    from probe_compile import known_mismatches

    known = known_mismatches(known_set)
    bad = total = matched = 0
    for name, e in sorted(data["probes"].items()):
        want, got = llvm_vectors(e["preopt"]), check_vectors(e["ttgir"])
        ok = want == got
        total += 1
        matched += ok
        bad += not ok and name not in known
        tag = "ok" if ok else ("known mismatch" if name in known else "MISMATCH")
        print(f"{name}: Triton store {want['store']} load {want['load']}, "
              f"check store {got['store']} load {got['load']} {tag}", flush=True)
    print(f"{matched}/{total} kernels match")
    return bad


def main(argv: list[str] | None = None) -> int:
    from fixture import draw_parser, read_fixture, write_or_check

    ap = draw_parser(__doc__)
    ap.add_argument("--warps", action="store_true",
                    help="the multi-warp set drawn after the rule instead of the one-warp set")
    ap.add_argument("--without-guard", action="store_true",
                    help="with --compare-only: compare as if the bank bases were reordered on "
                         "64 banks too, showing the kernels the guard decides (exits 1 then)")
    args = ap.parse_args(argv)
    out, known = (WARPS_OUT, "bank_order_warps") if args.warps else (OUT, "bank_order")
    if args.compare_only:
        return 1 if compare(read_fixture(out), known, not args.without_guard) else 0
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    if args.seed is not None:
        return 1 if compare(build(args.warps, args.seed), known) else 0
    data = build(args.warps)
    rc = write_or_check(out, data, args.check)
    return 1 if compare(data, known) else rc


if __name__ == "__main__":
    sys.exit(main())
