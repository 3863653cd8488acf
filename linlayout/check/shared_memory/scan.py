"""``tt.scan`` across warps: Triton 3.9.0's shared-memory instructions and what LLVM leaves of
them in the PTX.

Triton (``ScanOpToLLVM.cpp``, ``scanAcrossWarps``): the last lane of each warp publishes its
warp's running total of every chunk and output with one predicated ``st.shared::cta.b<bits>``
per operand; after one barrier every thread reloads, chunk by chunk, the totals of all the
warps along the axis (``scanChunkTotals``) with scalar loads at the element width. The totals
of one chunk and output lie at consecutive scratch elements, warp by warp.

LLVM then changes the loads (not Triton's decision, modelled from the probes of
``papers/triton_lowering/scan_probes.py`` and the corpus):

* the reload of the last warp's total in the last chunk only feeds a total nobody uses: it
  is removed, once per output and operand;
* on NVIDIA, when every thread reloads the same addresses (no lane or warp holds another
  position off the scanned axis), NVPTX's load/store vectoriser merges the loads of one
  chunk and output (the ``W`` totals of the warps along the axis, at consecutive addresses,
  aligned to their size) into vector loads of at most 16 bytes; a run of ``r ≥ 2`` loads
  one short of a full vector (``r + 1`` a power of two, at most 16 bytes) is padded to it
  (``cumsum_1d``: 4 + 3 totals become two ``ld.shared.v4.b32``), a single load stays scalar,
  and loads of different chunks or outputs are never merged (a warp shuffle lies between
  them). When threads reload different addresses (totals of one position lie a whole
  number of positions apart) nothing is merged.

AMD's back end also drops the unused reloads (the same count), then merges and pairs the
stores and the rest of the reloads under its own rules (:func:`_amd_lowered`, through
:func:`linlayout.lowering.lds_pairs.lds_lowered`: the ``LoadStoreVectorizer`` joins the
contiguous reloads of a scan whose threads all reload the same addresses into
``ds_read_b128``/``ds_read_b96``, a 3-byte tail aligned to 4 read as one ``ds_read_b32`` —
the deleted total's byte included, :func:`amd_byte_runs`; ``SILoadStoreOptimizer`` pairs
the single dword and quadword accesses into ``ds_read2*``/``ds_write2*``, but not a dword
reload of totals under 32 bits, a fit to compiled scans; the stores of several operands
interleave and stay unpaired, a fit to compiled argscans that a later draw of ``tl`` scans
contradicts: those pair as often as one operand's). Not modelled:
where threads reload different addresses LLVM leaves a few more reloads single than the
model. ``check`` shows the loads after LLVM on every target; Triton's own are kept for
comparison with its LLVM IR before the optimiser.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..._checks import shown
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.emitted import Emitted
from ...lowering.names import amd_lds, nvidia_ld_st
from ...lowering.target import Target

__all__ = ["ScanShape", "amd_byte_runs", "merged_reload_bytes", "scan_shape", "scan_sides"]


@dataclass(frozen=True)
class ScanShape:
    """How a scan's operand is spread, as ``ScanOpToLLVM.cpp`` sees it.

    Attributes:
        chunks: register repeats along the axis beyond the lanes and warps (1 when none).
        outputs: positions off the axis each thread holds in registers (independent scans).
        warps: warps along the axis (the totals each thread reloads per chunk and output).
        uniform: True when no lane or warp holds another position off the axis, so every
            thread reloads the same addresses.
        roles: what each register basis that is not a broadcast is, in order: ``"element"``
            (contiguous along the axis, within a chunk), ``"chunk"`` or ``"output"`` — the
            order in which Triton numbers the chunks and outputs of a thread's totals in the
            scratch (``storeWarpAccumulator`` walks the registers); empty when not given.
        parallel: the positions off the axis the lanes and warps hold (Triton's
            ``getNonAxisNumThreadsPerCTA``: the scratch stride between a position's totals).
    """

    chunks: int
    outputs: int
    warps: int
    uniform: bool
    roles: tuple[str, ...] = ()
    parallel: int = 1


def scan_shape(layout: LinearLayout, axis: int) -> ScanShape:
    """The :class:`ScanShape` of a scan operand's register layout along ``axis``.

    Raises:
        LayoutError: ``layout`` has no out dim ``dim{axis}``.
    """
    names = layout.out_dim_names
    if f"dim{axis}" not in names:
        raise LayoutError(f"tt.scan axis {shown(axis)} is not a dim of the operand "
                          f"({dict(layout.out_dims)}); use an axis below {len(names)}")
    k = names.index(f"dim{axis}")
    along = [img[k] for d in ("lane", "warp") for img in layout.bases.get(d, []) if img[k]]
    top = max(along, default=0)
    chunks = outs = 0
    roles = []
    for img in layout.bases.get("register", []):
        if img[k] and img[k] > top:
            chunks += 1
            roles.append("chunk")
        elif not img[k] and any(img):
            outs += 1
            roles.append("output")
        elif img[k]:
            roles.append("element")
    warps = 1 << sum(1 for img in layout.bases.get("warp", []) if img[k])
    uniform = not any(any(v for i, v in enumerate(img) if i != k)
                      for d in ("lane", "warp") for img in layout.bases.get(d, []))
    parallel = 1 << sum(1 for d in ("lane", "warp") for img in layout.bases.get(d, [])
                        if any(v for i, v in enumerate(img) if i != k))
    return ScanShape(1 << chunks, 1 << outs, warps, uniform, tuple(roles), parallel)


def merged_reload_bytes(loads: int, element_bytes: int) -> list[int]:
    """Bytes of each vector load NVPTX's vectoriser makes of ``loads`` scalar loads of
    consecutive ``element_bytes`` elements starting at an address aligned to their whole
    size (one chunk and output of a scan's reloads).

    Full 16-byte vectors first; a remainder of one element stays scalar; a remainder ``r ≥ 2``
    with ``r + 1`` a power of two is padded to ``r + 1`` elements; any other remainder is
    split into decreasing powers of two. Source: the probes of
    ``papers/triton_lowering/scan_probes.py`` (``ld.shared`` of the PTX), not LLVM's code.
    """
    out: list[int] = []
    per16 = max(1, 16 // element_bytes)
    while loads >= per16:
        out.append(per16 * element_bytes)
        loads -= per16
    if loads >= 2 and (loads + 1) & loads == 0:
        return out + [(loads + 1) * element_bytes]
    p = per16
    while loads:
        while p > loads:
            p //= 2
        out.append(p * element_bytes)
        loads -= p
    return out


def _reloads_after_llvm(shape: ScanShape, bits: int) -> dict[int, int]:
    """Vector bytes -> loads per thread for one operand, as the NVIDIA PTX has them."""
    nbytes = max(8, bits) // 8
    counts: dict[int, int] = {}
    runs = [(shape.warps, shape.outputs * (shape.chunks - 1)), (shape.warps - 1, shape.outputs)]
    for used, times in runs:
        if not times:
            continue
        pieces = merged_reload_bytes(used, nbytes) if shape.uniform else [nbytes] * used
        for b in pieces:
            counts[b] = counts.get(b, 0) + times
    return counts


def amd_byte_runs(shape: ScanShape) -> list[int]:
    """The lengths, in totals, of the runs of consecutive scratch elements a thread reloads
    and uses, for one operand of a scan across warps whose threads all reload the same
    addresses (``shape.uniform``), in scratch order.

    Triton stores chunk ``c``'s total of warp ``w`` at element ``c * W + w``
    (``storeWarpAccumulator``: a thread's chunks and outputs numbered together in register
    order, ``shape.roles``), and every thread reloads all ``W`` totals of each; the reload of
    the last warp's total of each output's last chunk feeds nothing and is deleted by LLVM,
    which cuts the reloads into runs.

    Raises:
        LayoutError: ``shape.roles`` does not give ``chunks`` and ``outputs`` (a shape made
            by hand without them).
    """
    roles = shape.roles
    if 1 << roles.count("chunk") != shape.chunks or 1 << roles.count("output") != shape.outputs:
        raise LayoutError(f"scan shape {shape} has no register roles for its chunks and "
                          "outputs; build it with scan_shape(layout, axis)")
    live = _live(shape)
    runs, n = [], 0
    for x in live:
        if x:
            n += 1
        elif n:
            runs.append(n)
            n = 0
    return runs + ([n] if n else [])


def _live(shape: ScanShape) -> list[bool]:
    """Per scratch total a thread reloads, in scratch order (chunk ``c`` of warp ``w`` at
    ``c * W + w``, a thread's chunks and outputs numbered in register order): whether the
    reload is used (LLVM deletes the reload of the last warp's total of each output's last
    chunk, :func:`amd_byte_runs`)."""
    roles = shape.roles
    last_elem = [i for i, r in enumerate(roles) if r == "element"]
    chunk_bits = [i for i, r in enumerate(roles) if r == "chunk"]
    live: list[bool] = []
    for reg in range(1 << len(roles)):
        if any(not reg >> i & 1 for i in last_elem):
            continue  # not the last element of its chunk: stores no total
        dead_group = all(reg >> i & 1 for i in chunk_bits)
        live += [True] * (shape.warps - 1) + [not dead_group]
    return live


def scan_sides(shape: ScanShape, operand_bits: tuple[int, ...], target: Target
               ) -> tuple[list[Emitted], list[Emitted], list[Emitted]]:
    """(stores, Triton's loads, loads after LLVM) of a scan across warps, one entry per
    operand and width; ``operand_bits`` the bits each operand moves. Counts per thread.

    On AMD the stores and the loads after LLVM (Triton's less the unused one per output and
    operand) are merged and paired as LLVM's AMDGPU back end does (:func:`_amd_lowered`;
    the module docstring). Source:
    ``ScanOpToLLVM.cpp`` (``scanAcrossWarps``, ``AddPartialReduce``) for Triton's; the
    compiled probes of ``papers/triton_lowering/scan_probes.py`` for LLVM's.
    """
    stores, loads, after = [], [], []
    n = shape.outputs * shape.chunks
    for bits in operand_bits:
        nbytes = max(8, bits) // 8
        if target.is_nvidia:  # TargetInfo::storeDShared: predicated inline asm
            stores.append(Emitted("store", f"st.shared::cta.b{bits}", n, 1, bits, nbytes, ""))
            loads.append(Emitted("load", nvidia_ld_st("load", 1, bits), n * shape.warps, 1,
                                 bits, nbytes, ""))
            for vb, count in sorted(_reloads_after_llvm(shape, bits).items(), reverse=True):
                v = max(1, vb * 8 // max(8, bits))
                name = nvidia_ld_st("load", v, bits)
                after.append(Emitted("load", name, count, v, bits, vb, ""))
        elif 1 << shape.roles.count("chunk") == shape.chunks \
                and 1 << shape.roles.count("output") == shape.outputs:
            stores += _amd_lowered(shape, bits, True, len(operand_bits))
            loads.append(Emitted("load", amd_lds("load", nbytes), n * shape.warps, 1, bits,
                                 nbytes, ""))
            after += _amd_lowered(shape, bits, False)
        else:
            stores.append(Emitted("store", amd_lds("store", nbytes), n, 1, bits, nbytes, ""))
            loads.append(Emitted("load", amd_lds("load", nbytes), n * shape.warps, 1, bits,
                                 nbytes, ""))
            # a shape without its register roles: scratch order unknown, scalar reloads
            after.append(Emitted("load", amd_lds("load", nbytes),
                                 n * shape.warps - shape.outputs, 1, bits, nbytes, ""))
    return stores, loads, after


def _amd_lowered(shape: ScanShape, bits: int, store: bool, operands: int = 1
                 ) -> list[Emitted]:
    """One operand's stores (``store``) or reloads after LLVM on AMD, merged and
    paired as LLVM's AMDGPU back end does (:func:`~linlayout.lowering.lds_pairs.
    lds_lowered`): the totals a thread stores lie ``parallel · W`` elements apart
    (``storeWarpAccumulator``: element ``p + w · parallel + k · parallel · W`` for its
    position ``p``, warp ``w`` and ``k``-th chunk or output), the totals it reloads
    ``parallel`` apart in scratch order, less the reloads LLVM deletes (:func:`_live`); one
    address register, aligned to the element (to 16 bytes when ``parallel`` is 1 and the
    reloads' address is the scratch's own). With ``operands`` operands Triton stores each
    chunk's total of every operand in turn, through each operand's own scratch pointer:
    alias analysis does not prove those stores apart, so none is sunk past another
    operand's and the stores stay unpaired (modelled on compiled Gluon argscans; compiled
    ``tl`` argscans often pair them). A dword reload of totals under 32 bits (four merged,
    or the widened 3-byte tail) stays single (a fit: no compiled scan pairs one)."""
    from ...lowering.lds_pairs import lds_lowered

    nbytes = bits // 8
    n = shape.outputs * shape.chunks
    if store:
        accs = [(i, k * shape.parallel * shape.warps * nbytes) for k in range(n)
                for i in range(operands)]
        align = nbytes
    else:
        accs = [(0, j * shape.parallel * nbytes) for j, used in enumerate(_live(shape)) if used]
        align = 16 if shape.parallel == 1 else nbytes
    side = "store" if store else "load"
    out = []
    # a dword reload of narrow totals stays single (a fit: no compiled scan pairs one)
    kinds = lds_lowered(accs, nbytes, bits, align, store=store, pair_narrow_reads=False)
    if store:  # this operand's share (each operand's accesses alike)
        kinds = tuple((f, size, c // operands) for f, size, c in kinds)
    for form, size, count in kinds:
        if form:
            op = "ds_read" if side == "load" else "ds_write"
            name, per_lane = f"{op}{form}_b{8 * size}", 2 * size
        else:
            name, per_lane = amd_lds(side, size), size
        out.append(Emitted(side, name, count, max(1, per_lane * 8 // bits), bits, per_lane, ""))
    return out
