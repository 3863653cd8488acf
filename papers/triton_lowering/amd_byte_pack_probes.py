#!/usr/bin/env python
"""Fresh 8-bit AMD conversion probes for the byte packing LLVM's AMDGPU back end adds around
a convert: ``linlayout check --json`` against the final AMDGCN Triton 3.9.0 emits (with
``-O3``), on kernels drawn after a candidate packing rule was written.

The first draw (:data:`DRAW`) was made after a candidate rule that also counted byte stores:
after an 8-bit round trip through shared memory, LLVM's SelectionDAG merges a thread's four
byte stores of one row into one ``global_store_dword`` (``DAGCombiner::mergeConsecutiveStores``),
and a merged word whose two 16-bit halves are in-order halves of two scratch words loaded by
two ``ds_read_b32`` is one ``v_perm_b32`` on the convert's line. It applied to 6 kernels and
was exact on 3: in the other 3 one of a thread's two such words (same alignment) stays four
``global_store_byte`` — whether the DAG merges a word is not predicted from the TTGIR. The
rule adopted (``linlayout.lowering.round_trip_pack.stored_word_permutes``) counts only the
4-byte vectors Triton stores itself; the second draw (``--vector``, :data:`VECTOR_DRAW`) was
made after it. The third draw (``--swap``, :data:`SWAP_DRAW`) was made after the rule for
four bytes of one ``global_load_dwordx2``
(``linlayout.lowering.amd_pack.dwordx2_pack_permutes``): 38 of 40 equal as drawn, the two
others ``dwordx4`` sources taking one byte of each loaded word, which led to
``dwordx4_column_permutes``; the fourth (``--swap --confirm``, :data:`CONFIRM_DRAW`) was made
after both: 37 of 40. The fifth (``--merge``, :data:`MERGE_DRAW`) was made after ``check``
gave the byte stores' other outcome (``may_merge``: every word merged, or some;
``linlayout.check.report.StoreMerge``), with the first draw's families weighted towards
``g_hv_*``. Differences are listed in ``tests/data/known_mismatches.json`` (sets
``amd_byte_pack``, ``amd_byte_pack_vector``, ``amd_byte_pack_swap``,
``amd_byte_pack_swap_confirm``, ``amd_byte_merge``). After ``check`` priced 8-bit pairs in
16-bit slots (``linlayout.lowering.amd_pack.slot_pair_permutes``) and named the range LLVM's
packing may take (``may_pack``), three draws were held out in ``/tmp`` (not committed; seeds
and results in ``papers/triton_lowering/README.md``), the third of ``--slots``: ``g_s2_*``,
the ``g_sw_*`` draw kept where ``linlayout`` models a shuffle packing two bytes a register
(:func:`packs_pairs`).

Run with Triton 3.9.0 installed (CPU only; ~3 min)::

    python papers/triton_lowering/amd_byte_pack_probes.py                 # writes the fixture
    python papers/triton_lowering/amd_byte_pack_probes.py --check         # compare, write nothing
    python papers/triton_lowering/amd_byte_pack_probes.py --compare-only  # the committed fixture
    python papers/triton_lowering/amd_byte_pack_probes.py --seed N        # another draw, compared
    python papers/triton_lowering/amd_byte_pack_probes.py --vector        # the second draw
    python papers/triton_lowering/amd_byte_pack_probes.py --swap          # the third draw
    python papers/triton_lowering/amd_byte_pack_probes.py --swap --confirm  # the fourth
    python papers/triton_lowering/amd_byte_pack_probes.py --merge         # the fifth
    python papers/triton_lowering/amd_byte_pack_probes.py --seed N --slots  # pairs in slots

One Gluon kernel per probe (``gluon_kernels.py``'s ``g_cvt``: a global load in layout
``L``, ``gl.convert_layout`` to ``D``, a global store in ``D``) of ``i8`` elements on gfx942
or gfx950, seed :data:`DRAW`, four families of random layouts:

* ``g_hv_*``: a round trip whose scratch vector may span two rows (both sides hold column
  bit 0 and a row bit in registers, the destination column bit 1 too: a 4-byte store word
  of one row that may take its halves from two loaded scratch words; :func:`draw_halves`);
* ``g_rt_*``: a round trip through shared memory (a warp basis exchanged with a register or
  lane basis), the destination's registers shuffled so that a 4-byte global store often takes
  its bytes from two loaded scratch words;
* ``g_sw_*``: in-warp register/lane exchanges (one to three), with the source's and the
  destination's register bases permuted (gfx950's swap method, gfx942's ``ds_bpermute_b32``);
* ``g_bl_*``: random ``BlockedLayout`` pairs.

Each probe keeps its TTGIR (``loc`` removed) and the final assembly's register and LDS opcodes
by TTGIR op and on the convert's own TTGIR line, whole and on the data path (:mod:`datapath`),
as ``cvt_heldout_probes.py`` records them (:func:`cvt_heldout_probes.convert_located`);
:func:`cvt_heldout_probes.compare` compares them with ``check`` (the final assembly: there is no
``"lowering"`` record). Exits 1 on a difference not listed in
``tests/data/known_mismatches.json``.
"""

from __future__ import annotations

import os
import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(HERE), str(ROOT)]

from cvt_heldout_probes import compare, convert_located  # noqa: E402
from fixture import draw_parser, read_fixture, write_or_check  # noqa: E402

OUT = ROOT / "tests" / "data" / "triton_amd_byte_pack_probes.json.gz"
#: (seed, probes): drawn after the candidate store-merge rule (not adopted)
DRAW = (90217, 120)
#: (seed, probes) of the second draw (``--vector``), made after the rule adopted
#: (``linlayout.lowering.round_trip_pack.stored_word_permutes``): ``g_vs_*`` as ``g_hv_*``
#: with the destination's column bits 0 and 1 first (Triton stores 4-byte vectors), and
#: ``g_bl_*``
VECTOR_DRAW = (90241, 60)
VECTOR_OUT = ROOT / "tests" / "data" / "triton_amd_byte_pack_vector_probes.json.gz"
#: (seed, probes) of the third draw (``--swap``), made after the rule for a register of four
#: bytes of one ``global_load_dwordx2``
#: (``linlayout.lowering.amd_pack.dwordx2_pack_permutes``): ``g_s8_*`` (in-warp
#: register/lane exchanges whose source holds 8 or 16 contiguous bytes per thread in
#: permuted registers, :func:`draw_swap8`) and ``g_sw_*``
SWAP_DRAW = (90263, 40)
SWAP_OUT = ROOT / "tests" / "data" / "triton_amd_byte_pack_swap_probes.json.gz"
#: (seed, probes) of the fourth draw (``--swap --confirm``), the same families drawn after
#: ``dwordx4_column_permutes`` too (the third draw's two misses led to it)
CONFIRM_DRAW = (90271, 40)
CONFIRM_OUT = ROOT / "tests" / "data" / "triton_amd_byte_pack_swap_confirm_probes.json.gz"
#: (seed, probes) of the fifth draw (``--merge``), made after ``check`` reported the other
#: outcome of byte stores LLVM's SelectionDAG may merge (``may_merge``): the first draw's
#: families, ``g_hv_*`` weighted up (where Triton stores bytes after a round trip)
MERGE_DRAW = (90289, 48)
MERGE_OUT = ROOT / "tests" / "data" / "triton_amd_byte_merge_probes.json.gz"
TARGETS = ("gfx942", "gfx950")


def draw_layouts(rng: random.Random, family: str, M: int, N: int, lanes: int, warps: int
                 ) -> tuple[list, list]:
    """``(src, dst)``, each ``(register, lane, warp)`` flat-bit bases of an ``M×N`` tensor
    (column bits low), for ``family`` ``"rt"`` or ``"sw"``."""
    d = (M * N).bit_length() - 1
    lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
    bits = [1 << i for i in range(d)]
    if rng.random() < 0.5:
        rng.shuffle(bits)
    else:  # low column bits in registers: contiguous global loads and stores
        head = bits[:d - wb - lb]
        tail = bits[d - wb - lb:]
        rng.shuffle(tail)
        bits = tail[:wb] + tail[wb:] + head
    reg, lane, warp = bits[wb + lb:], bits[wb:wb + lb], bits[:wb]
    t_reg, t_lane, t_warp = list(reg), list(lane), list(warp)
    if family == "rt":
        for _ in range(rng.choice([1, 1, 2])):
            if not t_warp:
                break
            k = rng.randrange(len(t_warp))
            if rng.random() < 0.6 and t_reg:
                i = rng.randrange(len(t_reg))
                t_reg[i], t_warp[k] = t_warp[k], t_reg[i]
            else:
                i = rng.randrange(len(t_lane))
                t_lane[i], t_warp[k] = t_warp[k], t_lane[i]
        if rng.random() < 0.5:
            rng.shuffle(t_lane)
    else:
        for _ in range(rng.choice([1, 1, 2, 3])):
            i, j = rng.randrange(len(t_reg)), rng.randrange(len(t_lane))
            t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
        if rng.random() < 0.3:
            rng.shuffle(t_lane)
        if rng.random() < 0.6:
            rng.shuffle(reg)
    if rng.random() < 0.8:
        rng.shuffle(t_reg)
    return (reg, lane, warp), (t_reg, t_lane, t_warp)


def draw_swap8(rng: random.Random, N: int, lanes: int, warps: int, n_reg: int
               ) -> tuple[list, list]:
    """``(src, dst)`` as :func:`draw_layouts` for an ``M×N`` tensor with ``n_reg`` register
    bits per thread (``M·N = lanes·warps·2**n_reg``): the source's registers are the column
    bits ``0 … n_reg-1`` (``2**n_reg`` contiguous bytes, one ``global_load_dwordx2`` or
    ``dwordx4``) in a random order, the other bits spread over lanes and warps; the
    destination exchanges one register basis (two in one draw of four) with a lane basis and
    permutes its registers (Triton's 8-bit swap or ship method, or a round trip)."""
    lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
    d = n_reg + lb + wb
    reg = [1 << i for i in range(n_reg)]
    other = [1 << i for i in range(n_reg, d)]
    rng.shuffle(other)
    lane, warp = other[:lb], other[lb:]
    if rng.random() < 0.9:
        rng.shuffle(reg)
    t_reg, t_lane = list(reg), list(lane)
    for _ in range(rng.choice([1, 1, 1, 2])):
        i, j = rng.randrange(len(t_reg)), rng.randrange(len(t_lane))
        t_reg[i], t_lane[j] = t_lane[j], t_reg[i]
    rng.shuffle(t_reg)
    if rng.random() < 0.3:
        rng.shuffle(t_lane)
    return (reg, lane, warp), (t_reg, t_lane, list(warp))


def draw_halves(rng: random.Random, M: int, N: int, lanes: int, warps: int,
                in_order: bool = False) -> tuple[list, list]:
    """``(src, dst)`` as :func:`draw_layouts`, for a round trip whose scratch vector may span
    two rows: both sides hold column bit 0 and one row bit in registers, the destination
    also column bit 1 (a 4-byte store word of one row), the source another bit instead; the
    other bits spread over lanes and warps at random on each side (warps differ). With
    ``in_order`` the destination's first two register bases are column bits 0 and 1 (Triton
    stores it in vectors of 4 bytes or more)."""
    d = (M * N).bit_length() - 1
    lb, wb = lanes.bit_length() - 1, warps.bit_length() - 1
    n_reg = d - lb - wb
    nb1 = N.bit_length() - 1  # the first row bit
    row = 1 << rng.randrange(nb1, d)
    rest = [1 << i for i in range(2, d) if 1 << i != row]
    rng.shuffle(rest)
    extra = rest[:n_reg - 3]
    src_reg = [1, row, rest[n_reg - 3]] + extra
    dst_reg = [1, 2, row] + extra
    src_other = [2] + rest[n_reg - 2:]
    dst_other = rest[n_reg - 3:n_reg - 2] + rest[n_reg - 2:]
    rng.shuffle(src_reg)
    if in_order:  # columns 0 and 1 first: Triton stores 4-byte vectors
        tail = dst_reg[2:]
        rng.shuffle(tail)
        dst_reg[2:] = tail
    else:
        rng.shuffle(dst_reg)
    rng.shuffle(src_other)
    while True:
        rng.shuffle(dst_other)
        if wb == 0 or set(dst_other[:wb]) != set(src_other[:wb]):
            break
    return ((src_reg, src_other[wb:], src_other[:wb]),
            (dst_reg, dst_other[wb:], dst_other[:wb]))


def _byte_path(src: tuple, dst: tuple, M: int, N: int, target: str):
    """``linlayout``'s model of Triton's lowering of ``src`` → ``dst`` (flat-bit bases as
    :func:`draw_layouts` returns them, an ``M×N`` tile of bytes) on ``hip:<target>``: its
    ``ConvertPath``, or None where linlayout refuses the pair. No Triton needed."""
    from linlayout import LinearLayout
    from linlayout.lowering import convert_path

    nb = N.bit_length() - 1

    def lay(bases: tuple) -> LinearLayout:
        img = lambda c: [c >> nb, c & ((1 << nb) - 1)]  # noqa: E731
        return LinearLayout({"register": [img(c) for c in bases[0]],
                             "lane": [img(c) for c in bases[1]],
                             "warp": [img(c) for c in bases[2]], "block": []},
                            {"dim0": M, "dim1": N})

    try:
        return convert_path(lay(src), lay(dst), 8, f"hip:{target}")
    except Exception:  # noqa: BLE001 - a pair linlayout refuses is not drawn
        return None


def packs_pairs(src: tuple, dst: tuple, M: int, N: int, target: str) -> bool:
    """Whether ``linlayout``'s model of Triton's lowering of ``src`` → ``dst`` (as
    :func:`_byte_path`) is a warp shuffle that packs two bytes per register (8-bit pairs in
    16-bit slots) on ``target``. No Triton needed."""
    path = _byte_path(src, dst, M, N, target)
    if path is None:
        return False
    low = path.lowering
    return path.path == "shuffle" and low is not None and any(len(p) == 2 for p in low.packs)


def permlane_pairs(src: tuple, dst: tuple, M: int, N: int) -> bool:
    """Whether ``linlayout``'s model of ``src`` → ``dst`` (as :func:`packs_pairs`) on gfx950 is
    the permlane swap (``v_permlane16/32_swap_b32``) of registers packing two bytes each (the
    pairs :func:`linlayout.lowering.amd_pack.permlane_pair_permutes` prices). No Triton
    needed."""
    path = _byte_path(src, dst, M, N, "gfx950")
    if path is None:
        return False
    low = path.lowering
    return path.path == "shuffle" and low is not None and \
        any(len(p) == 2 for p in low.packs) and \
        any(op.startswith("v_permlane") for op in (path.counts or {}))


def build(seed: int, n: int, vector: bool = False, swap: bool = False,
          merge: bool = False, slots: bool = False, permlane: bool = False) -> dict:
    """Compile ``n`` probes of seed ``seed`` (Triton 3.9.0); with ``vector``, the families of
    :data:`VECTOR_DRAW` instead; with ``swap``, those of :data:`SWAP_DRAW`; with ``merge``,
    the first draw's families weighted as :data:`MERGE_DRAW` says; with ``slots``, ``g_s2_*``:
    the ``g_sw_*`` family kept where ``linlayout`` models a shuffle packing two bytes per
    register (:func:`packs_pairs`; drawn after ``check``'s slot-pair rule and ``may_pack``);
    with ``permlane``, ``g_p2_*``: the ``g_sw_*`` family on gfx950 kept where ``linlayout``
    models a permlane swap of such registers (:func:`permlane_pairs`; drawn after
    ``permlane_pair_permutes``)."""
    import triton
    from corpus import strip_locs
    from gluon_kernels import convert_kernel, linear_layout, random_blocked
    from triton.experimental.gluon._runtime import GluonASTSource
    from probe_compile import gpu_target

    g_cvt = convert_kernel()

    rng = random.Random(seed)
    probes: dict = {}
    fails = 0
    while len(probes) < n:
        tname = "gfx950" if permlane else rng.choice(TARGETS)
        family = "p2" if permlane else "s2" if slots else \
            rng.choices(["s8", "sw"], [3, 1])[0] if swap else \
            rng.choices(["vs", "bl"], [4, 1])[0] if vector else \
            rng.choices(["hv", "rt", "sw", "bl"], [8, 2, 1, 1])[0] if merge else \
            rng.choices(["hv", "rt", "sw", "bl"], [4, 2, 4, 1])[0]
        warps = rng.choice([1, 2, 4, 8]) if family in ("sw", "s8", "s2", "p2") else \
            rng.choice([2, 4, 8])
        M, N = rng.choice([(16, 64), (32, 32), (8, 128), (64, 32), (128, 32), (32, 128)])
        while M * N < 64 * warps * 4:
            M *= 2
        if family == "s8":
            n_reg = rng.choice([3, 3, 3, 4])
            N = rng.choice([32, 64, 128])
            M = 64 * warps * (1 << n_reg) // N
            src, dst = draw_swap8(rng, N, 64, warps, n_reg)
            L, D = linear_layout(*src, M, N), linear_layout(*dst, M, N)
        elif family == "bl":
            L, D = random_blocked(rng, M, N, 64, warps), random_blocked(rng, M, N, 64, warps)
        elif family in ("hv", "vs"):
            src, dst = draw_halves(rng, M, N, 64, warps, in_order=family == "vs")
            L, D = linear_layout(*src, M, N), linear_layout(*dst, M, N)
        elif family == "s2":
            src, dst = draw_layouts(rng, "sw", M, N, 64, warps)
            if not packs_pairs(src, dst, M, N, tname):
                continue
            L, D = linear_layout(*src, M, N), linear_layout(*dst, M, N)
        elif family == "p2":
            src, dst = draw_layouts(rng, "sw", M, N, 64, warps)
            if not permlane_pairs(src, dst, M, N):
                continue
            L, D = linear_layout(*src, M, N), linear_layout(*dst, M, N)
        else:
            src, dst = draw_layouts(rng, family, M, N, 64, warps)
            L, D = linear_layout(*src, M, N), linear_layout(*dst, M, N)
        name = f"g_{family}_b8_{M}x{N}_w{warps}_{rng.getrandbits(24):06x}_{tname}"
        sig = {"X": "*i8", "Y": "*i8", "M": "constexpr", "N": "constexpr", "L": "constexpr",
               "D": "constexpr"}
        try:
            k = triton.compile(GluonASTSource(fn=g_cvt, signature=sig,
                                              constexprs={"M": M, "N": N, "L": L, "D": D}),
                               target=gpu_target(tname), options={"num_warps": warps})
        except Exception:  # noqa: BLE001 - a kernel Triton rejects is skipped
            fails += 1
            continue
        probes[name] = {"target": tname, **convert_located(strip_locs(k.asm["ttgir"]), tname,
                                                           k.asm["amdgcn"])}
        if len(probes) % 20 == 0:
            print(f"  {len(probes)} compiled", flush=True)
    print(f"{len(probes)} probes compiled; {fails} not compiled")
    return {"triton_version": triton.__version__, "probes": probes}


def main(argv: list[str] | None = None) -> int:
    ap = draw_parser(__doc__)
    ap.add_argument("--vector", action="store_true",
                    help="the second draw (VECTOR_DRAW, tests/data/"
                         "triton_amd_byte_pack_vector_probes.json.gz) instead")
    ap.add_argument("--swap", action="store_true",
                    help="the third draw (SWAP_DRAW, tests/data/"
                         "triton_amd_byte_pack_swap_probes.json.gz) instead")
    ap.add_argument("--confirm", action="store_true",
                    help="with --swap: the fourth draw (CONFIRM_DRAW, tests/data/"
                         "triton_amd_byte_pack_swap_confirm_probes.json.gz)")
    ap.add_argument("--slots", action="store_true",
                    help="with --seed: the g_s2_* family (shuffles packing two bytes per "
                         "register), compared, nothing written")
    ap.add_argument("--permlane", action="store_true",
                    help="with --seed: the g_p2_* family (gfx950 permlane swaps of registers "
                         "packing two bytes), compared, nothing written")
    ap.add_argument("--merge", action="store_true",
                    help="the fifth draw (MERGE_DRAW, tests/data/"
                         "triton_amd_byte_merge_probes.json.gz) instead")
    args = ap.parse_args(argv)
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    out, draw, known = \
        (MERGE_OUT, MERGE_DRAW, "amd_byte_merge") if args.merge else \
        (CONFIRM_OUT, CONFIRM_DRAW, "amd_byte_pack_swap_confirm") if args.swap and args.confirm \
        else (SWAP_OUT, SWAP_DRAW, "amd_byte_pack_swap") if args.swap else \
        (VECTOR_OUT, VECTOR_DRAW, "amd_byte_pack_vector") if args.vector else \
        (OUT, DRAW, "amd_byte_pack")
    if args.seed is not None:
        return 1 if compare(build(args.seed, draw[1], args.vector, args.swap, args.merge,
                                  args.slots, args.permlane), known) else 0
    if not args.compare_only:
        rc = write_or_check(out, build(*draw, vector=args.vector, swap=args.swap,
                                       merge=args.merge), args.check)
        if rc:
            return rc
    return 1 if compare(read_fixture(out), known) else 0


if __name__ == "__main__":
    sys.exit(main())
