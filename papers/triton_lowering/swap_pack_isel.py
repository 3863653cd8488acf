#!/usr/bin/env python
"""How LLVM's AMDGPU back end builds a 32-bit register of four bytes taken from one
``global_load_dwordx2`` — the packing Triton 3.9's ``transferWithinWarp`` (the 8-bit swap
and ship methods) and a round trip's stores ask for — counted in ``v_perm_b32``: small LLVM
IR kernels compiled to AMDGCN with Triton 3.9's LLVM (``compile_amdgpu``, as the AMD
backend's ``make_amdgcn`` does), gfx942 and gfx950.

Run with Triton 3.9.0 installed (CPU only, ~3 min)::

    python papers/triton_lowering/swap_pack_isel.py          # writes the fixture
    python papers/triton_lowering/swap_pack_isel.py --check  # compile, compare
    python papers/triton_lowering/swap_pack_isel.py --slots  # pairs in 16-bit slots, shown
    python papers/triton_lowering/swap_pack_isel.py --slot-table  # pairs measured (~6 min)
    python papers/triton_lowering/swap_pack_isel.py --load-pairs  # four-register words (~1 min)
    python papers/triton_lowering/swap_pack_isel.py --permlane-pairs  # gfx950 swap pairs (~5 min)

Each kernel loads eight consecutive bytes per thread as eight ``<1 x i8>`` loads (as
Triton's global load of an 8-bit tensor reads them; LLVM's load-store vectorizer merges them
into one ``global_load_dwordx2``), builds ``<4 x i8>`` registers with the ``shufflevector``
chain Triton's LLVM IR has for ``transferWithinWarp``'s ``insertelement``s, bitcasts them to
``i32`` and consumes them. Three sets:

* ``single``: every ordered choice of four of the eight bytes (1680) as one register, stored
  whole; the other four bytes are stored alone (``store volatile i8`` to scattered addresses,
  so no store merge builds another register);
* ``pairs``: 200 random splits of the eight bytes into two registers, each consumed three
  ways: stored whole (``store``), moved by a DPP ``quad_perm`` (``dpp``), or as Triton's swap
  method does (two selects by a lane bit, a DPP move of one, two ``llvm.amdgcn.perm`` with
  per-lane selectors: ``swap``, whose two per-lane ``v_perm_b32`` are subtracted);
* ``columns``: one byte of each word of a 16-byte load (``global_load_dwordx4``) at one
  offset, in each of the 24 word orders (96 registers), stored whole, the other twelve bytes
  alone, against :func:`linlayout.lowering.amd_pack.dwordx4_column_permutes`;
* ``wider``: Triton's packings (register ``r`` of a pack holds byte ``x ^ a·(r&1) ^ b·(r>>1)``)
  of 8- and 16-byte loads, to show where the rule stops: a 16-byte load
  (``global_load_dwordx4``) does not follow it.

The ``v_perm_b32`` are compared with
:func:`linlayout.lowering.amd_pack.dwordx2_pack_permutes` (single, pairs: the sum over the
kernel's registers); the script exits 1 on a difference. ``tests/lowering/test_swap_pack_isel.py``
replays the fixture (``tests/data/amdgpu_dwordx2_packs.json``) without Triton.

``--slot-table`` measures 8-bit pairs in 16-bit slots (``zext(lo) | zext(hi) << 16``, as
``transferWithinWarp`` packs two bytes) and writes ``tests/data/amdgpu_slot_pairs.json``
(:data:`SLOT_OUT`), compared with
:func:`linlayout.lowering.amd_pack.slot_pair_permutes`: ``one``, every ordered pair of one
load of 2, 4, 8 and 16 bytes (the other bytes stored alone); ``two``, every ordered pair of
bytes of two such loads (:data:`RUN_STRIDE` apart, the first loaded first), 1 to 16 bytes;
``reversed``, the 2- and 4-byte pairs again with the loads in reverse order and with each
load's bytes in reverse order (the order changes nothing there), and some 8- and 16-byte
pairs in reverse order (it changes most: not predicted); ``random``, random pairings of all
the bytes of one load, stored whole or swapped (additive).

``--load-pairs`` measures four-register words of two loads of 8 or 16 bytes, ``A`` and ``B``
(:data:`RUN_STRIDE` apart): each 16-bit half one byte of the same word of both loads
(``A.wi, B.wi`` then ``A.wj, B.wj``, either half either way round), all four bytes at one
byte offset ``k`` of their words, every ``(i, j)``, orientation and ``k``, gfx942 and gfx950,
and on gfx942 with the loads' bytes loaded in reverse order; it writes
``tests/data/amdgpu_load_pair_columns.json`` (:data:`LOAD_PAIR_OUT`), compared with
:func:`linlayout.lowering.amd_pack.load_pair_column_permutes` (where that gives a count).
"""

from __future__ import annotations

import argparse
import itertools
import json
import pathlib
import random
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "amdgpu_dwordx2_packs.json"
SLOT_OUT = ROOT / "tests" / "data" / "amdgpu_slot_pairs.json"
LOAD_PAIR_OUT = ROOT / "tests" / "data" / "amdgpu_load_pair_columns.json"
PERMLANE_OUT = ROOT / "tests" / "data" / "amdgpu_permlane_pairs.json"
#: (seed, kernels) of the ``random`` set of ``--slot-table``
SLOT_RANDOM = (7, 60)
TARGETS = ("gfx942", "gfx950")
CONSUMERS = ("store", "dpp", "swap")
#: (seed, kernels) of the ``pairs`` set
PAIRS = (1, 200)

HEAD = """target datalayout = "e-m:e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128:128:48-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9"
target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32 immarg, i32 immarg, i32 immarg, i1 immarg)
declare i32 @llvm.amdgcn.perm(i32, i32, i32)
"""


#: bytes between the runs of a kernel with several (``kernel``'s ``runs``): far enough apart
#: that LLVM's load-store vectorizer merges each run alone
RUN_STRIDE = 4096


def kernel(n_bytes: int, packs: list[tuple[int, ...]], consumer: str = "store",
           alone: tuple[int, ...] = (), runs: int = 1, run_stride: int = RUN_STRIDE,
           pair_form: str = "i32") -> str:
    """LLVM IR: ``n_bytes`` consecutive bytes loaded per thread (``runs`` such runs,
    :data:`RUN_STRIDE` bytes apart: byte ``r·n_bytes + i`` is byte ``i`` of run ``r``), each
    of ``packs`` (four byte indices, low byte first; or two: a pair in 16-bit slots,
    zero-extended and joined by ``shl``/``or`` as ``transferWithinWarp`` packs two 8-bit
    elements) built into an ``i32`` and consumed as ``consumer`` says; the bytes of ``alone``
    stored one by one (volatile, scattered). ``run_stride``: the runs' distance in bytes
    (negative: run 1 lies below run 0, loaded after it). ``pair_form``: how a pair is built
    — ``"i32"`` as ``transferWithinWarp`` does (``zext``/``shl``/``or`` in ``i32``),
    ``"v2i16"`` as gfx950's ``ConvertLayoutOpPermlaneSwap`` does (each byte ``zext`` to
    ``i16``, ``insertelement <2 x i16>``, ``bitcast``), ``"zext2"`` as ``-O3`` leaves that
    (``shufflevector`` of the two ``<1 x i8>`` loads, ``zext <2 x i8> to <2 x i16>``); with
    the consumer ``"permlane16"``, the words are swapped pairwise by
    ``llvm.amdgcn.permlane16.swap`` and stored."""
    lines = ["define amdgpu_kernel void @k(ptr addrspace(1) inreg noalias %X, "
             "ptr addrspace(1) inreg noalias %Y, i32 inreg %s0, i32 inreg %s1) #0 {",
             "  %t = tail call i32 @llvm.amdgcn.workitem.id.x()",
             "  %t2 = and i32 %t, 1023",
             f"  %o = mul i32 %t2, {n_bytes}",
             "  %oz = zext i32 %o to i64",
             "  %p = getelementptr i8, ptr addrspace(1) %X, i64 %oz"]
    add = lines.append
    for i in range(n_bytes * runs):
        # run r at address r·RUN_STRIDE; with a negative stride the later runs lie lower
        add(f"  %pp{i} = getelementptr i8, ptr addrspace(1) %p, i64 "
            f"{(i // n_bytes) * run_stride + i % n_bytes}")
        add(f"  %v{i} = load <1 x i8>, ptr addrspace(1) %pp{i}, align 1")
        add(f"  %b{i} = extractelement <1 x i8> %v{i}, i64 0")
    words = []
    for k, pk in enumerate(packs):
        if len(pk) == 2 and pair_form == "v2i16":
            add(f"  %z{k}a = zext i8 %b{pk[0]} to i16")
            add(f"  %z{k}b = zext i8 %b{pk[1]} to i16")
            add(f"  %z{k}c = insertelement <2 x i16> undef, i16 %z{k}a, i32 0")
            add(f"  %z{k}d = insertelement <2 x i16> %z{k}c, i16 %z{k}b, i32 1")
            add(f"  %w{k} = bitcast <2 x i16> %z{k}d to i32")
            words.append(f"%w{k}")
            continue
        if len(pk) == 2 and pair_form == "zext2":
            add(f"  %z{k}s = shufflevector <1 x i8> %v{pk[0]}, <1 x i8> %v{pk[1]}, "
                "<2 x i32> <i32 0, i32 1>")
            add(f"  %z{k}d = zext <2 x i8> %z{k}s to <2 x i16>")
            add(f"  %w{k} = bitcast <2 x i16> %z{k}d to i32")
            words.append(f"%w{k}")
            continue
        if len(pk) == 2:
            add(f"  %z{k}a = zext i8 %b{pk[0]} to i32")
            add(f"  %z{k}b = zext i8 %b{pk[1]} to i32")
            add(f"  %z{k}c = shl nuw nsw i32 %z{k}b, 16")
            add(f"  %w{k} = or disjoint i32 %z{k}c, %z{k}a")
            words.append(f"%w{k}")
            continue
        b0, b1, b2, b3 = pk
        # the shufflevector chain of Triton's LLVM IR for four insertelements
        add(f"  %q{k}_1 = shufflevector <1 x i8> %v{b0}, <1 x i8> %v{b1}, <4 x i32> "
            "<i32 0, i32 1, i32 poison, i32 poison>")
        add(f"  %e{k}_2 = shufflevector <1 x i8> %v{b2}, <1 x i8> poison, <4 x i32> "
            "<i32 0, i32 poison, i32 poison, i32 poison>")
        add(f"  %q{k}_2 = shufflevector <4 x i8> %q{k}_1, <4 x i8> %e{k}_2, <4 x i32> "
            "<i32 0, i32 1, i32 4, i32 poison>")
        add(f"  %e{k}_3 = shufflevector <1 x i8> %v{b3}, <1 x i8> poison, <4 x i32> "
            "<i32 0, i32 poison, i32 poison, i32 poison>")
        add(f"  %q{k}_3 = shufflevector <4 x i8> %q{k}_2, <4 x i8> %e{k}_3, <4 x i32> "
            "<i32 0, i32 1, i32 2, i32 4>")
        add(f"  %w{k} = bitcast <4 x i8> %q{k}_3 to i32")
        words.append(f"%w{k}")
    add("  %lane = and i32 %t, 4")
    add("  %c = icmp eq i32 %lane, 0")
    outs: list[str] = []
    if consumer == "store":
        outs = words
    elif consumer == "dpp":
        for k, w in enumerate(words):
            add(f"  %d{k} = tail call i32 @llvm.amdgcn.update.dpp.i32(i32 poison, i32 {w}, "
                "i32 27, i32 15, i32 15, i1 true)")
            outs.append(f"%d{k}")
    elif consumer == "permlane16":
        for k in range(0, len(words), 2):
            add(f"  %pl{k} = call {{i32, i32}} @llvm.amdgcn.permlane16.swap(i32 {words[k]}, "
                f"i32 {words[k + 1]}, i1 false, i1 false)")
            add(f"  %pl{k}a = extractvalue {{i32, i32}} %pl{k}, 0")
            add(f"  %pl{k}b = extractvalue {{i32, i32}} %pl{k}, 1")
            outs += [f"%pl{k}a", f"%pl{k}b"]
    elif consumer == "swap":
        for k in range(0, len(words), 2):
            x, y = words[k], words[k + 1]
            add(f"  %sa{k} = select i1 %c, i32 {x}, i32 {y}")
            add(f"  %sb{k} = select i1 %c, i32 {y}, i32 {x}")
            add(f"  %sh{k} = tail call i32 @llvm.amdgcn.update.dpp.i32(i32 poison, i32 %sb{k}, "
                "i32 27, i32 15, i32 15, i1 true)")
            add(f"  %se{k} = select i1 %c, i32 %s0, i32 %s1")
            add(f"  %sf{k} = select i1 %c, i32 %s1, i32 %s0")
            add(f"  %r{k}a = tail call i32 @llvm.amdgcn.perm(i32 %sh{k}, i32 %sa{k}, "
                f"i32 %se{k})")
            add(f"  %r{k}b = tail call i32 @llvm.amdgcn.perm(i32 %sh{k}, i32 %sa{k}, "
                f"i32 %sf{k})")
            outs += [f"%r{k}a", f"%r{k}b"]
    else:
        raise ValueError(consumer)
    add(f"  %oo = mul i32 %t2, {4 * len(outs)}")
    add("  %ooz = zext i32 %oo to i64")
    add("  %y = getelementptr i8, ptr addrspace(1) %Y, i64 %ooz")
    for k, o in enumerate(outs):
        add(f"  %yy{k} = getelementptr i8, ptr addrspace(1) %y, i64 {4 * k}")
        add(f"  store i32 {o}, ptr addrspace(1) %yy{k}, align 4")
    for j, i in enumerate(alone):
        at = 4 * len(outs) + 1024 + 64 * j
        add(f"  %xb{j} = getelementptr i8, ptr addrspace(1) %y, i64 {at}")
        add(f"  store volatile i8 %b{i}, ptr addrspace(1) %xb{j}, align 1")
    add("  ret void")
    add("}")
    add('attributes #0 = { "amdgpu-flat-work-group-size"="1,512" "uniform-work-group-size" }')
    if consumer == "permlane16":
        add("declare {i32, i32} @llvm.amdgcn.permlane16.swap(i32, i32, i1 immarg, i1 immarg)")
    return HEAD + "\n".join(lines) + "\n"


def compile_ir(src: str, arch: str) -> str:
    """AMDGCN of an LLVM IR text, as Triton 3.9's AMD backend compiles its LLVM IR."""
    from triton._C.libtriton import amd
    from triton.backends.amd.compiler import compile_amdgpu, get_llvm_flags

    return compile_amdgpu(src, amd.get_target_triple(arch), arch, "",
                          flags=get_llvm_flags(arch), enable_fp_fusion=True,
                          disable_optimization=False, canonicalize_gep=False,
                          disabled_passes="", dump_ir=False, enable_timing=False)


def opcodes(asm: str) -> list[str]:
    """The kernel's instructions' opcodes, in order."""
    out, on = [], False
    for line in asm.splitlines():
        s = line.strip()
        if s.startswith("k:"):
            on = True
        elif on and s.startswith("s_endpgm"):
            break
        elif on and s and not s.startswith((";", ".")):
            out.append(s.split()[0])
    return out


def measure(n_bytes: int, packs: list, consumer: str, arch: str, alone=(), runs: int = 1,
            run_stride: int = RUN_STRIDE) -> dict:
    ops = opcodes(compile_ir(kernel(n_bytes, packs, consumer, tuple(alone), runs, run_stride),
                             arch))
    perms = ops.count("v_perm_b32") - (len(packs) if consumer == "swap" else 0)
    return {"v_perm_b32": perms,
            "loads": sorted(o for o in ops if o.startswith("global_load"))}


def build() -> dict:
    data: dict = {"single": {}, "pairs": [], "columns": {}, "wider": []}
    for pk in itertools.permutations(range(8), 4):
        alone = [i for i in range(8) if i not in pk]
        data["single"][",".join(map(str, pk))] = {
            t: measure(8, [pk], "store", t, alone)["v_perm_b32"] for t in TARGETS}
    rng = random.Random(PAIRS[0])
    for _ in range(PAIRS[1]):
        order = list(range(8))
        rng.shuffle(order)
        packs = [order[:4], order[4:]]
        data["pairs"].append({"packs": packs, "v_perm_b32": {
            t: {c: measure(8, packs, c, t)["v_perm_b32"] for c in CONSUMERS}
            for t in TARGETS}})
    for order in itertools.permutations(range(4)):
        for k in range(4):
            pk = tuple(4 * w + k for w in order)
            alone = [i for i in range(16) if i not in pk]
            data["columns"][",".join(map(str, pk))] = {
                t: measure(16, [pk], "store", t, alone)["v_perm_b32"] for t in TARGETS}
    for n in (8, 16):
        bits = [1 << i for i in range(n.bit_length() - 1)]
        for a, b in itertools.permutations(bits, 2):
            rest = [x for x in bits if x not in (a, b)]
            packs = []
            for r in range(1 << len(rest)):
                x = sum(rest[i] for i in range(len(rest)) if r >> i & 1)
                packs.append([x, x ^ a, x ^ b, x ^ a ^ b])
            got = {t: measure(n, packs, "store", t) for t in TARGETS}
            data["wider"].append({"bytes": n, "steps": [a, b], "packs": packs,
                                  "v_perm_b32": {t: g["v_perm_b32"] for t, g in got.items()},
                                  "loads": got[TARGETS[0]]["loads"]})
    import triton

    return {"triton_version": triton.__version__, **data}


def compare(data: dict) -> int:
    from linlayout.lowering.amd_pack import dwordx2_pack_permutes, dwordx4_column_permutes

    bad = 0
    for part, rule in (("single", dwordx2_pack_permutes), ("columns", dwordx4_column_permutes)):
        for key, got in data[part].items():
            want = rule(tuple(map(int, key.split(","))))
            for t, n in got.items():
                if n != want:
                    bad += 1
                    print(f"{part} {key} {t}: {n}, rule {want}")
    for case in data["pairs"]:
        want = sum(dwordx2_pack_permutes(tuple(p)) for p in case["packs"])
        for t, by in case["v_perm_b32"].items():
            for c, n in by.items():
                if n != want:
                    bad += 1
                    print(f"pairs {case['packs']} {t} {c}: {n}, rule {want}")
    print(f"{len(data['single'])} single registers x {len(TARGETS)} targets, "
          f"{len(data['pairs'])} two-register kernels x {len(CONSUMERS)} consumers, "
          f"{len(data['columns'])} dwordx4 columns: "
          f"{bad} differences")
    for case in data["wider"]:
        print(f"  {case['bytes']}-byte load, steps {case['steps']}: "
              f"{case['v_perm_b32']} v_perm_b32 for {len(case['packs'])} registers")
    return 1 if bad else 0


def slots() -> None:
    """Print the ``v_perm_b32`` of Triton's pairs in 16-bit slots (two bytes per register) of
    a 4- and an 8-byte load, stored whole or swapped: no rule on the bytes alone fits them
    (``docs/triton-lowering.md``), so they are shown, not compared."""
    for n in (4, 8):
        for step in [1 << i for i in range(n.bit_length() - 1)]:
            rest = [b for b in (1, 2, 4) if b < n and b != step]
            packs = []
            for r in range(1 << len(rest)):
                x = sum(rest[i] for i in range(len(rest)) if r >> i & 1)
                packs.append((x, x ^ step))
            for t in TARGETS:
                got = {c: measure(n, packs, c, t)["v_perm_b32"] for c in ("store", "swap")}
                print(f"{n}-byte load, pairs {packs} on {t}: {got} v_perm_b32")


def _reordered(src: str, order: str, n_bytes: int, runs: int) -> str:
    """``src`` (a :func:`kernel` text) with its byte loads emitted in another order:
    ``"reverse"`` (last byte first) or ``"within"`` (each run's bytes last first)."""
    lines = src.split("\n")
    at = [i for i, x in enumerate(lines) if "%pp" in x and "getelementptr" in x]
    blocks = [lines[i:i + 3] for i in at]
    if order == "reverse":
        blocks = blocks[::-1]
    else:
        blocks = [b for r in range(runs) for b in blocks[r * n_bytes:(r + 1) * n_bytes][::-1]]
    start = at[0]
    return "\n".join(lines[:start] + [x for b in blocks for x in b]
                     + lines[start + 3 * len(at):])


def slot_table() -> dict:
    """The ``--slot-table`` measurements (module docstring). Needs Triton 3.9.0."""
    data: dict = {"one": {}, "two": {}, "reversed": {}, "random": []}
    for n in (2, 4, 8, 16):
        for p in itertools.permutations(range(n), 2):
            alone = tuple(i for i in range(n) if i not in p)
            data["one"][f"{n}:{p[0]},{p[1]}"] = {
                t: measure(n, [p], "store", t, alone)["v_perm_b32"] for t in TARGETS}
    for n in (1, 2, 4, 8, 16):
        for i, j in itertools.product(range(n), repeat=2):
            for p in ((i, n + j), (n + j, i)):
                alone = tuple(k for k in range(2 * n) if k not in p)
                data["two"][f"{n}:{p[0]},{p[1]}"] = {
                    t: measure(n, [p], "store", t, alone, runs=2)["v_perm_b32"]
                    for t in TARGETS}
    cases = [(n, runs, p) for n, runs in ((2, 1), (4, 1), (2, 2), (4, 2))
             for p in itertools.permutations(range(n * runs), 2)
             if runs == 1 or (p[0] < n) != (p[1] < n)]
    cases += [(n, 1, p) for n in (8, 16) for p in ((2, 5), (5, 2), (2, 1), (6, 3), (0, 2),
                                                   (6, 0), (3, 5), (2, 3))]
    for n, runs, p in cases:
        alone = tuple(k for k in range(n * runs) if k not in p)
        for order in ("reverse", "within"):
            if order == "within" and runs == 1 and n > 4:
                continue
            src = _reordered(kernel(n, [p], "store", alone, runs), order, n, runs)
            data["reversed"][f"{n}x{runs}:{p[0]},{p[1]}:{order}"] = \
                opcodes(compile_ir(src, "gfx942")).count("v_perm_b32")
    rng = random.Random(SLOT_RANDOM[0])
    for _ in range(SLOT_RANDOM[1]):
        n = rng.choice([4, 8, 16])
        order = list(range(n))
        rng.shuffle(order)
        packs = [(order[2 * i], order[2 * i + 1]) for i in range(n // 2)]
        c, t = rng.choice(["store", "swap"]), rng.choice(TARGETS)
        data["random"].append({"bytes": n, "packs": packs, "consumer": c, "target": t,
                               "v_perm_b32": measure(n, packs, c, t)["v_perm_b32"]})
    import triton

    return {"triton_version": triton.__version__, **data}


#: the ``--permlane-pairs`` measurement: every ordered pair of one load of these widths, and
#: of two loads of these widths, in these IR forms (gfx950, the target with permlane swaps)
PERMLANE_ONE = (2, 4, 8, 16)
PERMLANE_TWO = (1, 2)
PERMLANE_FORMS = ("i32", "v2i16", "zext2")


def permlane_pairs() -> dict:
    """``--permlane-pairs``: ``v_perm_b32`` of one 8-bit pair in 16-bit slots per IR form
    (``kernel``'s ``pair_form``), stored whole; the ``-O3`` form (``zext2``) for loads of up
    to 4 bytes and two loads only, and a random sample of two pairs of one load moved by
    ``llvm.amdgcn.permlane16.swap``. Needs Triton 3.9.0 (about 5 min)."""
    data: dict = {"one": {}, "two": {}, "swapped": []}
    for n in PERMLANE_ONE:
        for p in itertools.permutations(range(n), 2):
            alone = tuple(i for i in range(n) if i not in p)
            forms = PERMLANE_FORMS if n <= 4 else ("i32", "v2i16")
            data["one"][f"{n}:{p[0]},{p[1]}"] = {
                f: opcodes(compile_ir(kernel(n, [p], "store", alone, pair_form=f),
                                      "gfx950")).count("v_perm_b32") for f in forms}
    for n in PERMLANE_TWO:
        for i, j in itertools.product(range(n), repeat=2):
            for p in ((i, n + j), (n + j, i)):
                alone = tuple(k for k in range(2 * n) if k not in p)
                data["two"][f"{n}:{p[0]},{p[1]}"] = {
                    f: opcodes(compile_ir(kernel(n, [p], "store", alone, runs=2, pair_form=f),
                                          "gfx950")).count("v_perm_b32")
                    for f in PERMLANE_FORMS}
    rng = random.Random(SLOT_RANDOM[0])
    for _ in range(20):
        n = rng.choice([4, 8, 16])
        order = list(range(n))
        rng.shuffle(order)
        packs = [(order[0], order[1]), (order[2], order[3])]
        alone = tuple(order[4:])
        data["swapped"].append({"bytes": n, "packs": packs, "v_perm_b32": {
            f: opcodes(compile_ir(kernel(n, packs, "permlane16", alone, pair_form=f),
                                  "gfx950")).count("v_perm_b32") for f in ("v2i16", "zext2")}})
    import triton

    return {"triton_version": triton.__version__, **data}


def compare_permlane_pairs(data: dict) -> int:
    """Differences between ``--permlane-pairs`` data and
    :func:`linlayout.lowering.amd_pack.permlane_pair_permutes` (printed; the ``i32`` form is
    shown beside it, it is :func:`~linlayout.lowering.amd_pack.slot_pair_permutes`'s)."""
    from linlayout.lowering.amd_pack import permlane_pair_permutes

    bad = cheaper = 0
    for part, runs in (("one", 1), ("two", 2)):
        for key, by in data[part].items():
            n, pair = key.split(":")
            lo, hi = (int(x) for x in pair.split(","))
            want = permlane_pair_permutes(slot_words(int(n), runs, lo),
                                          slot_words(int(n), runs, hi))
            got = {f: c for f, c in by.items() if f != "i32"}
            cheaper += by["i32"] < want
            if set(got.values()) != {want}:
                bad += 1
                print(f"DIFF {part} {key}: {by}, rule {want}")
    for case in data["swapped"]:
        if set(case["v_perm_b32"].values()) != {len(case["packs"])}:
            bad += 1
            print(f"DIFF swapped {case}")
    total = len(data["one"]) + len(data["two"])
    print(f"{total} pairs: {total - bad} as the rule says in Triton's forms; the i32 form is "
          f"cheaper for {cheaper}; swapped: {len(data['swapped'])} kernels")
    return bad


def slot_words(n: int, runs: int, index: int, rank: int | None = None):
    """The :class:`~linlayout.lowering.amd_pack.SourceWord` of byte ``index`` of a
    :func:`kernel` with ``runs`` loads of ``n`` bytes, loaded in address order (``rank``:
    its place in the IR's load order, default ``index``)."""
    from linlayout.lowering.amd_pack import SourceWord

    run, byte = divmod(index, n)
    return SourceWord((run, byte // 4), byte % 4, min(4, n), load=(run,), load_bytes=n,
                      load_byte=byte, rank=index if rank is None else rank, ordered=True)


def compare_slots(data: dict) -> int:
    """Differences between ``--slot-table`` data and ``slot_pair_permutes`` (printed)."""
    from linlayout.lowering.amd_pack import slot_pair_permutes

    bad = 0
    for part, runs in (("one", 1), ("two", 2)):
        for key, got in data[part].items():
            n, pair = key.split(":")
            n, (i, j) = int(n), map(int, pair.split(","))
            want = slot_pair_permutes(slot_words(n, runs, i), slot_words(n, runs, j))
            for t, c in got.items():
                if c != want:
                    bad += 1
                    print(f"{part} {key} {t}: {c}, rule {want}")
    for key, c in data["reversed"].items():
        shape, pair, order = key.split(":")
        n, runs = map(int, shape.split("x"))
        if n > 4:
            continue  # the order matters there: not predicted
        i, j = map(int, pair.split(","))
        want = data["one" if runs == 1 else "two"][f"{n}:{i},{j}"]["gfx942"]
        if c != want:
            bad += 1
            print(f"reversed {key}: {c}, in order {want}")
    for case in data["random"]:
        n = case["bytes"]
        want = sum(slot_pair_permutes(slot_words(n, 1, a), slot_words(n, 1, b))
                   for a, b in case["packs"])
        if case["v_perm_b32"] != want:
            bad += 1
            print(f"random {case['packs']}: {case['v_perm_b32']}, rule {want}")
    print(f"{len(data['one'])} pairs of one load, {len(data['two'])} of two, "
          f"{len(data['reversed'])} reordered, {len(data['random'])} random pairings: "
          f"{bad} differences")
    return 1 if bad else 0


def load_pairs() -> dict:
    """The ``--load-pairs`` measurements (module docstring). Needs Triton 3.9.0."""
    data: dict = {}
    for n in (8, 16):
        for i, j in itertools.permutations(range(n // 4), 2):
            for lo0, lo1 in itertools.product(range(2), repeat=2):
                for k in range(4):
                    regs = ((lo0, i), (1 - lo0, i), (lo1, j), (1 - lo1, j))
                    pk = tuple(r * n + 4 * w + k for r, w in regs)
                    alone = tuple(x for x in range(2 * n) if x not in pk)
                    src = kernel(n, [pk], "store", alone, 2)
                    got = {t: opcodes(compile_ir(src, t)).count("v_perm_b32") for t in TARGETS}
                    got["gfx942_reversed"] = opcodes(compile_ir(
                        _reordered(src, "reverse", n, 2), "gfx942")).count("v_perm_b32")
                    data[f"{n}:{i},{j}:{lo0}{lo1}:{k}"] = got
    import triton

    return {"triton_version": triton.__version__, "words": data}


def compare_load_pairs(data: dict) -> int:
    """Differences between ``--load-pairs`` data and ``load_pair_column_permutes``."""
    from linlayout.lowering.amd_pack import load_pair_column_permutes

    bad = unpredicted = 0
    for key, got in data["words"].items():
        n, ij, _, k = key.split(":")
        i, j = map(int, ij.split(","))
        want = load_pair_column_permutes(int(n), (i, j), int(k))
        if want is None:
            unpredicted += 1
            continue
        for t, c in got.items():
            if c != want:
                bad += 1
                print(f"{key} {t}: {c}, table {want}")
    print(f"{len(data['words'])} four-register words of two loads, {unpredicted} not "
          f"predicted: {bad} differences")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compile and compare, write nothing")
    ap.add_argument("--slots", action="store_true",
                    help="only print the pairs in 16-bit slots (nothing compared or written)")
    ap.add_argument("--slot-table", action="store_true",
                    help="measure pairs in 16-bit slots, write tests/data/amdgpu_slot_pairs.json "
                         "(with --check: compare only)")
    ap.add_argument("--load-pairs", action="store_true",
                    help="measure four-register words of two loads, write "
                         "tests/data/amdgpu_load_pair_columns.json (with --check: compare only)")
    ap.add_argument("--permlane-pairs", action="store_true",
                    help="measure 8-bit pairs as gfx950's permlane swap builds them, write "
                         "tests/data/amdgpu_permlane_pairs.json (with --check: compare only)")
    args = ap.parse_args(argv)
    if args.permlane_pairs:
        data = permlane_pairs()
        if not args.check:
            PERMLANE_OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n",
                                    encoding="utf-8")
            print(f"wrote {PERMLANE_OUT.relative_to(ROOT)}")
        return compare_permlane_pairs(data)
    if args.load_pairs:
        data = load_pairs()
        if not args.check:
            LOAD_PAIR_OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n",
                                     encoding="utf-8")
            print(f"wrote {LOAD_PAIR_OUT.relative_to(ROOT)}")
        return compare_load_pairs(data)
    if args.slot_table:
        data = slot_table()
        if not args.check:
            SLOT_OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n",
                                encoding="utf-8")
            print(f"wrote {SLOT_OUT.relative_to(ROOT)}")
        return compare_slots(data)
    if args.slots:
        slots()
        return 0
    data = build()
    if not args.check:
        OUT.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return compare(data)


if __name__ == "__main__":
    sys.exit(main())
