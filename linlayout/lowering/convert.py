"""Which path Triton 3.9 takes for a ``convert_layout`` between distributed layouts, and the
register instructions it emits on the paths that avoid shared memory.

``ConvertLayoutOpConversion::matchAndRewrite``
(``lib/Conversion/TritonGPUToLLVM/ConvertLayoutOpToLLVM.cpp``) reads the *minimal
conversion* (``minimalCvtLayout``, ``lib/Analysis/Utility.cpp``): ``dst⁻¹ ∘ src``
quotiented by ``block``, ``warp``, ``lane`` and ``register`` in that order, as long as the
conversion is trivial over each. What is left decides:

* nothing — the layouts are equal: no code (``"none"``);
* ``register`` only — each thread renames its registers (``transferWithinThread``): no
  instructions (``"registers"``);
* ``register`` and ``lane`` with fewer than two mixed register/lane transpositions
  (``cvtNeedsWarpShuffle``) — warp shuffles (``transferWithinWarp``, :mod:`.shuffle`):
  ``"shuffle"``;
* ``register``, ``lane`` and ``warp`` where the warp bases differ only on warp bits the
  source is broadcast over (its basis zero) and only by what the source's lanes hold (each
  warp holding the elements its threads need) — the same warp shuffles, the destination's
  warp bits read as high bits of the thread id (:func:`.decompose.warp_broadcast_bits`):
  ``"shuffle"``;
* anything else (two or more transpositions, other warps or CTAs, a warp basis the source
  does not broadcast changed, even by source lanes) — a round trip through shared memory
  (``transferWithinBlockSwizzling``, :mod:`.scratch`): ``"shared"``.

:func:`convert_path` is the public entry point.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._checks import instance_of, log2_exact, sequence_of
from ..errors import LayoutError
from ..layout import LinearLayout
from .emitted import Emitted
from .amd_pack import (SourceWord, inthread_permutes, pack_permute_bounds, pack_permutes,
                       pair_permutes, permlane_pair_permutes, source_words)
from .decompose import warp_broadcast_bits
from .shuffle import WarpShuffleLowering, lower_warp_shuffle
from .target import Target

__all__ = ["PATHS", "REGISTER_SIDES", "ConvertPath", "amd_xor", "check_source_load",
           "convert_path", "minimal_conversion", "shuffle_instructions",
           "shuffle_permute_bounds"]

#: The paths a conversion can take, cheapest first.
PATHS = ("none", "registers", "shuffle", "shared")
#: ``Emitted.side`` values of instructions that stay in registers (no shared memory).
REGISTER_SIDES = ("shuffle", "select", "permute")


@dataclass(frozen=True)
class ConvertPath:
    """How Triton 3.9 lowers one conversion.

    Attributes:
        path: ``"none"``, ``"registers"``, ``"shuffle"`` or ``"shared"`` (:data:`PATHS`).
        remaining_dims: the in dims of the minimal conversion (``("register", "lane")`` …).
        mixed_transpositions: register/lane transpositions of the warp decomposition (None
            when data crosses warps, or when the register/lane conversion is not a
            permutation of hardware bits: then ``path`` is ``"shuffle"`` but nothing is
            counted — ``counts`` is None — as Triton's decomposition assumes one).
        instructions: on the shuffle path, the register instructions per thread as they
            reach the PTX/AMDGCN (:class:`~.emitted.Emitted`, ``side`` one of
            :data:`REGISTER_SIDES`); on the registers path, AMD's 8-bit in-thread
            ``v_perm_b32`` (:mod:`.amd_pack`); empty otherwise (the shared-memory path is
            counted by :mod:`.scratch` and ``linlayout check``).
        counts: those counts by opcode (``{"shfl.sync.bfly.b32": 2, "selp.b32": 6}``).
        triton_counts: per kind as ``transferWithinWarp`` builds them, before MLIR's CSE
            and dead-code elimination (``"shuffle"``, ``"select"``, ``"permute"``, ``"pack"``,
            ``"unpack"``); ``lowering.counts`` has them after, as Triton's LLVM IR before
            ``-O3`` does.
        lowering: the :class:`~.shuffle.WarpShuffleLowering` (the value graph), or None.
        permute_bounds: on AMD's shuffle path, ``(low, high)`` of the ``v_perm_b32`` per
            thread where LLVM may pack 8-bit pairs in 16-bit slots either way
            (:func:`~.amd_pack.pack_permute_bounds`; ``counts`` holds a count between them),
            else None.
    """

    path: str
    remaining_dims: tuple[str, ...]
    mixed_transpositions: int | None
    instructions: tuple[Emitted, ...] = ()
    counts: dict | None = None
    triton_counts: dict | None = None
    lowering: WarpShuffleLowering | None = None
    permute_bounds: tuple[int, int] | None = None

    @property
    def uses_shared(self) -> bool:
        """True on the shared-memory path."""
        return self.path == "shared"


def minimal_conversion(src: LinearLayout, dst: LinearLayout) -> LinearLayout:
    """Triton's ``minimalCvtLayout``: ``dst⁻¹ ∘ src`` without the trailing in dims
    (``block``, ``warp``, ``lane``, ``register``, in that order) over which it is trivial.

    Raises:
        LayoutError: the layouts describe different tensors or are not surjective.
    """
    comp = dst.invert_and_compose(src)
    s_dims, d_dims = list(src.in_dim_names), list(dst.in_dim_names)
    common = []
    for a, b in zip(reversed(s_dims), reversed(d_dims)):
        if a != b:
            break
        common.append(a)
    for dim in common:
        if dim not in comp.in_dim_names:
            continue
        q = comp.quotient(dim)
        if q is None:
            break
        comp = q
    return comp


def amd_xor(mask: int, arch: str) -> tuple[str, int]:
    """AMD's ``shuffleXor`` for one lane mask as the 3.9 wheel's AMDGCN has it
    (``shuffleCommonImpl``, ``third_party/amd/lib/TritonAMDGPUToLLVM/Utility.cpp``, then
    LLVM): DPP moves for masks 1 to 8 — one ``quad_perm`` for 1 and 2, ``row_shr`` +
    ``row_shl`` for 4 (two), the same pair for 8, which LLVM's DPP combiner merges into one
    ``row_ror:8``; on gfx950 ``v_permlane16/32_swap_b32`` for 16 and 32; else
    ``ds_bpermute_b32`` (checked on ``papers/triton_lowering/shuffle_probes.py``).

    Returns:
        ``(opcode, instructions per shuffle)``."""
    if mask == 4:
        return "v_mov_b32_dpp", 2
    if mask in (1, 2, 8):
        return "v_mov_b32_dpp", 1
    if arch == "gfx950" and mask in (16, 32):
        return f"v_permlane{mask}_swap_b32", 1
    return "ds_bpermute_b32", 1


def _permlane_swap(low: WarpShuffleLowering) -> tuple[str, ...] | None:
    """gfx950's ``ConvertLayoutOpPermlaneSwap``
    (``third_party/amd/lib/TritonAMDGPUToLLVM/ConvertLayoutOpToLLVM.cpp``): one mixed
    transposition with lane bit 4 or 5, on a whole register, with ``P_lane`` trivial or the
    3-cycle through lanes 4 and 5 — the ``v_permlane{16,32}_swap`` instructions per register
    pair, else None."""
    d = low.decomposition
    if len(d.transpositions) != 1:
        return None
    t = d.transpositions[0]
    if not (t.register >= d.n_pack and t.top_pre == 0x3210 and t.top_post == 0x3210
            and t.lane in (4, 5)):
        return None
    lp = d.lane_perm
    if any(lp[b] != b for b in range(len(lp)) if b not in (4, 5)):
        return None
    three = len(lp) > 5 and lp[4] == 5 and lp[5] == 4
    if not (d.lane_perm_trivial or three):
        return None
    first = "v_permlane32_swap_b32" if t.lane == 5 else "v_permlane16_swap_b32"
    if three:
        return first, ("v_permlane16_swap_b32" if t.lane == 5 else "v_permlane32_swap_b32")
    return (first,)


def shuffle_instructions(low: WarpShuffleLowering, target: Target,
                         words: tuple[SourceWord, ...] | None = None, *,
                         packed_source: bool = False,
                         wide_source: bool = False) -> tuple[Emitted, ...]:
    """The register instructions of a shuffle lowering as ``Emitted`` records (count per
    thread after LLVM's clean-ups). NVIDIA: ``shfl.sync.bfly/idx.b32`` (two per 64-bit
    value), ``selp.b32``/``selp.b64`` (``selp.b16`` on 8/16-bit elements not packed into
    words), ``prmt.b32`` (plus three per register that packs four
    8-bit elements and one per byte a destination register takes out of a shuffled one —
    four per word unless the destination drops some —, as instruction selection spells
    Triton's LLVM IR before ``-O3``). AMD: ``shuffleXor`` as a DPP move, a ``v_permlane*_swap`` or
    ``ds_bpermute_b32`` by lane mask, ``shuffleIdx`` as ``ds_bpermute_b32`` (two per 64-bit
    value), ``v_cndmask_b32`` (two per 64-bit select), ``v_perm_b32``; on gfx950 the
    ``v_permlane{16,32}_swap_b32`` path where it applies; plus, for 8- and 16-bit elements,
    the ``v_perm_b32`` that packing costs given where the source elements sit (``words``,
    :func:`.amd_pack.source_words`; None: one element per register) — none when
    ``packed_source``: the producer builds every packed register itself (a float truncation
    to 16 bits, :func:`convert_path`). ``wide_source``: the producer left each 8/16-bit
    element in a 32-bit register (:func:`convert_path`): on NVIDIA each register packing two
    16-bit elements then costs one ``prmt.b32`` (on AMD ``words`` says it).

    Raises:
        LayoutError: ``target`` is not a Target.
    """
    instance_of(target, Target, "target")
    halves = 2 if low.element_bits == 64 else 1
    c = low.counts
    out: dict[str, list] = {}

    def add(op: str, side: str, n: int) -> None:
        if n:
            out.setdefault(op, [side, 0])[1] += n

    swap = _permlane_swap(low) if target.arch == "gfx950" else None
    if not target.is_nvidia and low.packs and low.element_bits in (8, 16) and not packed_source:
        if words is None:
            n_src = max(max(pk) for pk in low.packs) + 1
            words = tuple(SourceWord((i,), 0, low.element_bits // 8) for i in range(n_src))
        pair = permlane_pair_permutes if swap is not None else pair_permutes
        add("v_perm_b32", "permute",
            sum(pair(words[pk[0]], words[pk[1]])
                if low.element_bits == 8 and len(pk) == 2 else
                pack_permutes(tuple(words[i] for i in pk), low.element_bits)
                for pk in low.packs))
    if swap is not None:
        d = low.decomposition
        regs = (1 << (d.register_bits - d.n_pack)) * halves
        for op in swap:
            add(op, "shuffle", regs // 2)
    elif target.is_nvidia:
        add("shfl.sync.bfly.b32", "shuffle", c.get("shuffle_bfly", 0) * halves)
        add("shfl.sync.idx.b32", "shuffle", c.get("shuffle_idx", 0) * halves)
        add(_nvidia_select(low), "select", c.get("select", 0))
        add("prmt.b32", "permute", c.get("permute", 0))
        if low.element_bits == 16 and low.decomposition.n_pack == 1 and wide_source:
            # two 16-bit halves of 32-bit registers joined: one prmt.b32 (selector 0x5410)
            add("prmt.b32", "permute", c.get("pack", 0))
        if low.element_bits == 8 and low.decomposition.n_pack == 2:
            # four bytes packed into a register: instruction selection builds it with three
            # byte permutes, and takes each byte a destination register keeps out of the
            # shuffled registers with one (Triton's extractelements: the live unpacks, four
            # per word unless the destination drops some, e.g. where it broadcasts a lane
            # bit the source spreads; after -O3 LLVM folds them into the consumer)
            add("prmt.b32", "permute", 3 * c.get("pack", 0) + c.get("unpack", 0))
    else:
        for key, n in c.items():
            if key.startswith("shuffle_bfly_"):
                op, k = amd_xor(int(key.rsplit("_", 1)[1]), str(target.arch))
                add(op, "shuffle", n * k * halves)
        add("ds_bpermute_b32", "shuffle", c.get("shuffle_idx", 0) * halves)
        add("v_cndmask_b32", "select", c.get("select", 0) * halves)
        if target.arch == "gfx950":
            # shuffleXor by 16 or 32 is a v_permlane*_swap plus a select of its two results
            add("v_cndmask_b32", "select", sum(
                n for key, n in c.items() if key in ("shuffle_bfly_16", "shuffle_bfly_32"))
                * halves)
        add("v_perm_b32", "permute", c.get("permute", 0))
    bits = 64 if low.element_bits == 64 else min(low.element_bits, 32)
    return tuple(Emitted(side, op, n, None, bits, 0, "") for op, (side, n) in out.items())


def _nvidia_select(low: WarpShuffleLowering) -> str:
    """The select of a shuffle lowering on NVIDIA: it picks whole registers — 64-bit values,
    32-bit ones or packed words of 8/16-bit elements — or, where 8/16-bit elements are not
    packed, the elements themselves (NVPTX's narrowest select is 16 bits)."""
    if low.element_bits == 64:
        return "selp.b64"
    if low.element_bits < 32 and low.decomposition.n_pack == 0:
        return "selp.b16"
    return "selp.b32"


def check_source_load(source_load: tuple[int, int] | None, src: LinearLayout
                      ) -> tuple[int, int] | None:
    """``source_load`` validated (see :func:`convert_path`): None, or ``(dim,
    contiguity_elems)`` as a tuple of two ints with ``dim`` an out dim of ``src``.

    Raises:
        LayoutError: anything else.
    """
    if source_load is None:
        return None
    source_load = sequence_of(source_load, int, "source_load")
    if len(source_load) != 2 or any(isinstance(v, bool) for v in source_load):
        raise LayoutError(f"source_load must be (dim, contiguity_elems), got "
                          f"{source_load!r}")
    if not 0 <= source_load[0] < len(src.out_dims):
        raise LayoutError(f"source_load dim {source_load[0]} is not a dim of the source "
                          f"({dict(src.out_dims)})")
    return tuple(source_load)


def convert_path(src: LinearLayout, dst: LinearLayout, element_bits: int,
                 target: Target | str = "cuda:90",
                 source_load: tuple[int, int] | None = None, *,
                 packed_source: bool = False, wide_source: bool = False,
                 source_values: tuple[str, ...] | None = None) -> ConvertPath:
    """The path Triton 3.9 takes for ``convert_layout`` ``src`` → ``dst`` and, on the shuffle
    path, the register instructions it emits per thread.

    Args:
        src, dst: distributed layouts of one tensor (in dims ``register``, ``lane``,
            ``warp``, ``block``).
        element_bits: bits per element as moved (sub-byte types move as 8, pointers as 64).
        target: a :class:`~.target.Target` or its text (``"cuda:90"``, ``"hip:gfx942"``).
        source_load: ``(dim, contiguity_elems)`` when the source was loaded from global
            memory with consecutive addresses along out dim ``dim`` (AxisInfo's contiguity
            of the pointer): on AMD, packing 8/16-bit elements then costs nothing where a
            load already filled the register (:mod:`.amd_pack`). None: any other producer.
        packed_source: the source is a float truncation of 32-bit values to 16 bits
            (``arith.truncf``): on AMD, LLVM converts and packs each pair in one step
            (``v_cvt_pk_*_f32``, or two conversions and ``v_pack_b32_f16``), so packing costs
            no ``v_perm_b32``, whichever registers a packed register pairs (measured on
            compiled gfx942/gfx950 converts: ``papers/triton_lowering/cvt_heldout_probes.py``).
        wide_source: the producer left each 8/16-bit element in a 32-bit register with its
            upper bits unknown — the truncation of a 32-bit shuffle or ``redux.sync`` result
            (:func:`linlayout.check.registers.wide_sources`). NVIDIA: packing two 16-bit
            elements into a register costs one ``prmt.b32``; AMD: four bytes of four such
            registers cost no ``v_perm_b32`` (:mod:`.amd_pack`). Measured on compiled
            gathers and reductions feeding converts
            (``papers/triton_lowering/producer_probes.py``).
        source_values: (AMD, 8/16-bit, no ``source_load``) what the producer left in each
            non-broadcast source register, in order (:data:`.amd_pack.VALUE_KINDS`: a raw,
            computed or canonical ``f16`` value; :func:`linlayout.check.registers.produced_values`
            for a scan's or reduction's results); it overrides ``wide_source`` there. None:
            one raw element per register (or as ``wide_source`` says).

    Returns:
        A :class:`ConvertPath`.

    Raises:
        LayoutError: the layouts describe different tensors; ``element_bits`` not a power of
            two in 1…64; an unknown target; ``source_load`` not two ints naming a dim of
            ``src``; ``packed_source`` or ``wide_source`` not a bool; ``source_values``
            not one known kind per non-broadcast source register.

    Source: ``ConvertLayoutOpToLLVM.cpp`` (``matchAndRewrite``, ``transferWithinWarp``),
    ``lib/Analysis/Utility.cpp`` (``minimalCvtLayout``, ``cvtNeedsWarpShuffle``,
    ``getWarpLayoutConvertDecomposition``), Triton 3.9.
    """
    instance_of(src, LinearLayout, "src")
    instance_of(dst, LinearLayout, "dst")
    log2_exact(element_bits, "element_bits", 1, 64)
    target = Target.parse(target)
    if not isinstance(packed_source, bool):
        raise LayoutError(f"packed_source must be True or False, got {packed_source!r}")
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    source_load = check_source_load(source_load, src)
    if dict(src.out_dims) != dict(dst.out_dims):
        raise LayoutError(f"convert between different tensors: {dict(src.out_dims)} vs "
                          f"{dict(dst.out_dims)}")
    comp = minimal_conversion(src, dst)
    dims = tuple(comp.in_dim_names)
    if not dims:
        return ConvertPath("none", dims, 0)
    bits = max(8, element_bits) if element_bits < 8 else element_bits

    def words() -> tuple[SourceWord, ...] | None:
        if bits not in (8, 16) or target.is_nvidia:
            return None
        if source_load is None:
            return source_words(src, bits, wide=wide_source, values=source_values)
        return source_words(src, bits, *source_load)

    if dims == ("register",):
        if not target.is_nvidia and element_bits == 8:
            ems = _inthread_swap(comp, words())
            if ems:
                return ConvertPath("registers", dims, 0, ems, {e.opcode: e.per_thread
                                                               for e in ems})
        return ConvertPath("registers", dims, 0)
    if dims != ("register", "lane") and not (
            "block" not in dims and "warp" in dims and warp_broadcast_bits(src, dst)):
        return ConvertPath("shared", dims, None)
    try:
        low = lower_warp_shuffle(src, dst, bits)
    except LayoutError:
        # bases that are not unit vectors: Triton's decomposition assumes a permutation of
        # hardware bits, so neither its decision nor its instructions are reproduced
        return ConvertPath("shuffle", dims, None)
    m = len(low.decomposition.transpositions)
    if m >= 2:
        return ConvertPath("shared", dims, m)
    w = words()
    ems = shuffle_instructions(low, target, w, packed_source=packed_source,
                               wide_source=wide_source)
    counts = {e.opcode: e.per_thread for e in ems}
    return ConvertPath("shuffle", dims, m, ems, counts, low.triton_counts, low,
                       _permute_bounds(low, w, counts.get("v_perm_b32", 0), packed_source,
                                       _permlane_pairs(low, target)))


def _permlane_pairs(low: WarpShuffleLowering, target: Target) -> bool:
    """Whether the shuffle lowering is gfx950's permlane swap of 8-bit pairs, whose pairs
    cost one ``v_perm_b32`` each (:func:`.amd_pack.permlane_pair_permutes`)."""
    return target.arch == "gfx950" and low.element_bits == 8 and \
        _permlane_swap(low) is not None


def _permute_bounds(low: WarpShuffleLowering, words: tuple[SourceWord, ...] | None,
                    count: int, packed_source: bool, permlane: bool = False
                    ) -> tuple[int, int] | None:
    """``(low, high)`` of the shuffle path's ``v_perm_b32`` (``count`` of them predicted)
    where packing some register is not predicted (:func:`.amd_pack.pack_permute_bounds`),
    else None (also for ``permlane``: gfx950's permlane swap, whose 8-bit pairs each cost
    one)."""
    if words is None or packed_source or not low.packs or low.element_bits != 8:
        return None
    lo = hi = 0
    for pk in low.packs:
        pack = tuple(words[i] for i in pk)
        if permlane and len(pack) == 2:
            continue
        n = pair_permutes(*pack) if len(pack) == 2 else pack_permutes(pack, 8)
        a, b = pack_permute_bounds(pack, 8, vectorisable=len(low.packs) > 1)
        lo += n - a
        hi += b - n
    return (count - lo, count + hi) if lo or hi else None


def shuffle_permute_bounds(src: LinearLayout, dst: LinearLayout, element_bits: int,
                           target: Target | str, source_load: tuple[int, int] | None,
                           *, split: bool = False) -> tuple[int, int] | None:
    """``(low, high)`` of the AMD shuffle path's ``v_perm_b32`` per thread
    (:func:`convert_path`'s count between them) where LLVM may pack the source's 8-bit pairs
    in 16-bit slots in more than one way (:func:`.amd_pack.pack_permute_bounds`) and, with
    ``split``, where the source's global load may have its runs merged or left apart
    (each pair then costs between its two prices:
    :data:`.round_trip_pack.SPLIT_LOAD_REASON`); None off that path or where nothing is open.

    Raises:
        LayoutError: as :func:`convert_path`.

    Source: ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``, Triton 3.9) as the
    AMDGPU back end packs it (:func:`.amd_pack.pack_permute_bounds`).
    """
    path = convert_path(src, dst, element_bits, target, source_load)
    t = Target.parse(target)
    low = path.lowering
    if path.path != "shuffle" or low is None or t.is_nvidia or element_bits != 8 \
            or not low.packs:
        return None
    n = (path.counts or {}).get("v_perm_b32", 0)
    merged = source_words(src, 8, *source_load) if source_load is not None else \
        source_words(src, 8)
    apart = source_words(src, 8) if split else merged
    permlane = _permlane_pairs(low, t)
    lo = hi = 0
    for pk in low.packs:
        if permlane and len(pk) == 2:
            continue  # one v_perm_b32 wherever the bytes sit
        counts = []
        for words in (merged, apart):
            pack = tuple(words[i] for i in pk)
            c = pair_permutes(*pack) if len(pack) == 2 else pack_permutes(pack, 8)
            a, b = pack_permute_bounds(pack, 8, vectorisable=len(low.packs) > 1)
            counts.append((c, a, b))
        base = counts[0][0]
        lo += base - min(a for _, a, _ in counts)
        hi += max(b for _, _, b in counts) - base
    return (n - lo, n + hi) if lo or hi else None


def _inthread_swap(comp: LinearLayout,
                   words: tuple[SourceWord, ...] | None) -> tuple[Emitted, ...]:
    """AMD's ``ConvertLayoutOpInThreadSwap`` for an 8-bit register renaming ``comp``
    (destination register → source register): its ``v_perm_b32`` and those of packing the
    source registers four at a time; empty where the pattern does not apply (a broadcast
    source register, or not a multiple of four registers)."""
    cols = [i for i, c in enumerate(comp.dim_columns("register")) if c]
    n = 1 << len(cols)  # broadcast destination registers are copies: dropped first
    conv = [comp.apply({"register": sum(1 << cols[b] for b in range(len(cols)) if d >> b & 1)}
                       )["register"] for d in range(n)]
    if n % 4 or sorted(conv) != list(range(n)) or words is None or len(words) != n:
        return ()
    perms = inthread_permutes(conv, words)
    return (Emitted("permute", "v_perm_b32", perms, None, 32, 0, ""),) if perms else ()
