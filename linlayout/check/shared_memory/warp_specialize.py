"""The shared-memory instructions of Triton 3.9.0's warp-specialisation lowering (NVIDIA).

``ConvertWarpSpecializeToLLVM`` (``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/
ConvertWarpSpecializeToLLVM.cpp``) turns every ``ttg.warp_specialize`` region into a switch
that the worker warps spin in, steered through shared memory:

* **state bytes**: one byte per worker warp (the warps after the default ones, up to the
  kernel's total, which ``AllocateWarpGroups`` rounds up to whole warp groups of 4). Before
  each region the default warps store every worker warp's partition number; before the
  kernel returns they store the exit state. Triton stores byte by byte; LLVM merges the
  constant bytes into 32-bit stores, two or four of them into one 8- or 16-byte vector store
  where the buffer's offset is aligned to it;
* **the switch**: each worker warp loads its state byte (one ``ld.shared.b8`` per thread,
  in the loop the workers wait in);
* **captures**: the region's operands that Triton cannot rematerialise in the partitions
  (``elideTrivialCaptures`` rebuilds kernel arguments and short chains of pure operations on
  them) are stored by the default warps into a packed struct and loaded by each partition
  that uses them (one load per thread of the capture's width).

The byte offsets come from Triton's shared-memory allocator, which the TTGIR does not show:
:func:`~linlayout.triton.allocation.shared_allocation` replays it (checked against Triton's own
pass by ``papers/triton_lowering/allocation_probes.py``). LLVM then shapes the accesses: its
load/store vectoriser joins adjacent aligned captures of one element size (and widens a load
chain to the next power of two where the alignment allows), and the NVPTX backend splits a
misaligned capture into pieces as wide as its offset's alignment (measured on Triton 3.9.0 by
``papers/triton_lowering/warp_specialize_probes.py``). Where the replay does not place the
module (an op whose scratch size it does not model) and an offset would decide a width, the
instruction is reported as not counted, with the bytes it moves.
"""

from __future__ import annotations

from ...lowering.emitted import Emitted
from ...lowering.names import nvidia_ld_st
from ...lowering.target import Target
from ...triton.allocation import SharedAllocation
from ...triton.warp_specialize import WarpSpecialize
from .predict import Prediction, Side

__all__ = ["capture_bytes", "capture_widths", "merged_capture_accesses", "merged_state_stores",
           "predict_warp_specialize", "split_misaligned", "state_bytes"]

_SCALAR_BYTES = {"i1": 1, "i8": 1, "i16": 2, "f16": 2, "bf16": 2, "i32": 4, "f32": 4,
                 "i64": 8, "f64": 8, "index": 4}


def state_bytes(default_warps: int, regions: tuple[WarpSpecialize, ...]) -> int:
    """The number of worker warps, one state byte each: the kernel's total warps (the default
    warps plus the largest region's partitions, rounded up to a multiple of 4 —
    ``AllocateWarpGroups``) minus the default warps."""
    workers = max((sum(r.partition_warps) for r in regions), default=0)
    total = -(-(default_warps + workers) // 4) * 4
    return total - default_warps


def capture_bytes(type_text: str) -> int | None:
    """Bytes of one capture in Triton's packed capture struct: scalars their width (``i1``
    a byte), pointers 8; None for types whose lowered size is not modelled (memdescs,
    tensor descriptors)."""
    t = type_text.strip()
    if t.startswith("!tt.ptr"):
        return 8
    return _SCALAR_BYTES.get(t)


def merged_state_stores(offset: int | None, nbytes: int) -> list[int] | None:
    """The widths in bytes of the stores LLVM leaves for ``nbytes`` constant state bytes at
    byte ``offset``: 16 where 16-byte aligned, 8 where 8-byte aligned, else 4. None when the
    offset is unknown and would decide a width (more than 4 bytes)."""
    if nbytes <= 4:
        return [4] if nbytes else []
    if offset is None:
        return None
    out = []
    while nbytes > 0:
        for w in (16, 8, 4):
            if offset % w == 0 and nbytes >= w:
                break
        out.append(w)
        offset += w
        nbytes -= w
    return out


def _store(widths: list[int]) -> list[Side]:
    sides = []
    for w in sorted(set(widths), reverse=True):
        v = w // 4
        sides.append(Side(Emitted("store", nvidia_ld_st("store", v, 32), widths.count(w), v, 32,
                                  w, "")))
    return sides


def _unknown(side: str, what: str, nbytes: int) -> Side:
    op = "st.shared" if side == "store" else "ld.shared"
    return Side(Emitted(side, f"{op} ({what}: {nbytes} bytes, width not known)", None, None,
                        0, 0, ""))


def merged_capture_accesses(chain: list[tuple[int, int]], widen: bool = False) -> list[int]:
    """The widths in bytes LLVM's load/store vectoriser leaves for accesses to naturally
    aligned captures ``chain`` (``(absolute byte offset, bytes)`` each, in offset order).

    The vectoriser joins only accesses of one element size (its equivalence classes): from
    each position, the longest run of adjacent same-size captures whose total is a power of
    two of at most 16 bytes and whose first offset is aligned to that total becomes one
    access. With ``widen`` (loads), a run whose total is not a power of two is read as the
    next power of two when its first offset is aligned to it (the vectoriser extends load
    chains where the target allows wider loads, as NVPTX does).
    """
    out = []
    i = 0
    while i < len(chain):
        best, best_bytes = 1, chain[i][1]
        total = 0
        for j in range(i, len(chain)):
            if j > i and (chain[j][0] != chain[j - 1][0] + chain[j - 1][1]
                          or chain[j][1] != chain[i][1]):
                break
            total += chain[j][1]
            if total > 16:
                break
            if total & (total - 1) == 0 and chain[i][0] % total == 0:
                best, best_bytes = j - i + 1, total
            elif widen:
                up = 1 << total.bit_length()
                if up <= 16 and chain[i][0] % up == 0:
                    best, best_bytes = j - i + 1, up
        out.append(best_bytes)
        i += best
    return out


def split_misaligned(offset: int, nbytes: int) -> list[int]:
    """The widths in bytes the NVPTX backend splits a capture of ``nbytes`` at absolute byte
    ``offset`` into when the offset is not a multiple of its size: pieces as wide as the
    largest power of two dividing the offset."""
    piece = min(offset & -offset if offset else nbytes, nbytes)
    return [piece] * (nbytes // piece)


def capture_widths(layout: list[tuple[int, int]], base: int, side: str = "store"
                   ) -> list[int]:
    """The widths in bytes of the accesses to the captures ``layout`` (offset in the packed
    struct, bytes), the struct at absolute byte ``base``: the naturally aligned ones merged
    (:func:`merged_capture_accesses`), the misaligned ones split (:func:`split_misaligned`)."""
    chain, widths = [], []
    for off, size in layout:
        if (base + off) % size:
            widths += split_misaligned(base + off, size)
        else:
            chain.append((base + off, size))
    return widths + merged_capture_accesses(chain, widen=side == "load")


def _capture_sides(side: str, layout: list[tuple[int, int, int | None]],
                   base: int | None) -> list[Side]:
    """The accesses to the captures ``layout`` (capture, offset in the packed struct, bytes)
    of one side, the struct at absolute byte ``base`` (:func:`capture_widths`). Where the base
    is not known (None) it is a multiple of 8 (Triton's capture alignment): the widths are
    counted when both residues (0 and 8 modulo 16) give the same, else reported as not
    counted with their bytes; a size not modelled is not counted."""
    sides: list[Side] = []
    sized = [(off, size) for _, off, size in layout if size is not None]
    for _, _, size in layout:
        if size is None:
            sides.append(_unknown(side, "capture", 0))
    if base is None:
        widths = sorted(capture_widths(sized, 0, side))
        if widths != sorted(capture_widths(sized, 8, side)):
            if sized:
                sides.append(_unknown(side, "captures", sum(b for _, b in sized)))
            return sides
    else:
        widths = capture_widths(sized, base, side)
    for w in sorted(set(widths), reverse=True):
        v, bits = (w // 4, 32) if w >= 4 else (1, 8 * w)
        sides.append(Side(Emitted(side, nvidia_ld_st(side, v, bits), widths.count(w), v,
                                  bits, w, "")))
    return sides


def predict_warp_specialize(regions: tuple[WarpSpecialize, ...], default_warps: int,
                            target: Target, allocation: SharedAllocation | None
                            ) -> list[Prediction]:
    """One :class:`~.predict.Prediction` per region, in order; the first also carries the
    kernel-wide parts (the workers' switch load and the exit-state stores).

    Args:
        regions: the module's ``ttg.warp_specialize`` regions.
        default_warps: the module's ``ttg.num-warps``.
        target: the module's target (NVIDIA modelled; AMD reported as not counted).
        allocation: Triton's shared-memory offsets for the module
            (:func:`~linlayout.triton.allocation.shared_allocation`), None where they are not
            known: the widths they decide are then reported as not counted.
    """
    if not regions:
        return []
    if not target.is_nvidia:
        note = "warp specialization on AMD: its shared-memory traffic is not modelled"
        return [Prediction((Side(Emitted("none", "warp_specialize (not modelled on AMD)", None,
                                         None, 0, 0, "")),), note, analysed=False)
                for _ in regions]
    state = state_bytes(default_warps, regions)
    state_at = allocation.offset("state") if allocation is not None else None
    out = []
    for k, r in enumerate(regions):
        sides: list[Side] = []
        notes = [f"{state} worker-warp state bytes stored by the default warps"
                 + (f" at byte {state_at}" if state_at is not None else "")]
        widths = merged_state_stores(state_at, state)
        sides += _store(widths) if widths is not None else [_unknown("store", "state bytes",
                                                                     state)]
        base = allocation.offset("captures", r.line) if allocation is not None else None
        kept = [i for i, t in enumerate(r.trivial) if not t]
        layout, offset = [], 0  # (capture, byte offset, bytes or None) in the packed struct
        for i in kept:
            size = capture_bytes(r.capture_types[i])
            layout.append((i, offset, size))
            offset += size or 0
        sides += _capture_sides("store", layout, base)
        for u in r.used:
            sides += _capture_sides("load", [c for c in layout if c[0] < len(u) and u[c[0]]],
                                    base)
        if kept:
            notes.append(f"{len(kept)} capture(s) passed through shared memory"
                         + (f" (struct at byte {base})" if base is not None else ""))
        if len(r.trivial) - len(kept):
            notes.append(f"{len(r.trivial) - len(kept)} rematerialised")
        if k == 0:
            sides.append(Side(Emitted("load", nvidia_ld_st("load", 1, 8), 1, 1, 8, 1, "")))
            notes.append("each worker warp loads its state byte (switch loop)")
            exit_widths = merged_state_stores(state_at, state)
            sides += _store(exit_widths) if exit_widths is not None else \
                [_unknown("store", "exit state bytes", state)]
            notes.append("exit states stored before the kernel returns")
        if any(s.emitted.per_thread is None for s in sides):
            notes.append("a width that depends on Triton's shared-memory allocator is not "
                         "counted")
        out.append(Prediction(tuple(sides), "; ".join(notes)))
    return out
