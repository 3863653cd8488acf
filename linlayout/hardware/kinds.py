"""The two kinds of layout the hardware functions take, and their validation.

* A **distributed** layout maps hardware positions to tensor coordinates: in dims among
  ``register, lane, warp, block`` (Triton's names).
* A **shared-memory** layout maps an element offset to tensor coordinates: in dims ``offset``
  [+ ``block``], or ``vector, bank, segment`` [+ ``reps``] as a synthesized swizzle has them
  (flattened in that order into the offset, vector least significant). It must be a bijection.

Both are returned as flat columns (one int per input bit, the tensor coordinate flattened with
dim0 in the low bits), which is what the counting and synthesis code works on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import as_int, instance_of, shown
from ..errors import LayoutError, NotInvertibleError
from ..layout import LinearLayout

__all__ = [
    "DISTRIBUTED_IN_DIMS",
    "MEMORY_IN_DIMS",
    "Distributed",
    "distributed_columns",
    "embed_at_origin",
    "fitting_warp_log2",
    "is_distributed",
    "is_smaller_tile",
    "memory_columns",
    "to_offset_layout",
    "require_same_tensor",
]

#: In dims a distributed (register) layout may have.
DISTRIBUTED_IN_DIMS = ("register", "lane", "warp", "block")
#: Accepted in-dim sets for shared-memory layouts, each in flattening order.
MEMORY_IN_DIMS = (("offset", "block"), ("vector", "bank", "segment", "reps"))
#: Each distributed in dim's position in :data:`DISTRIBUTED_IN_DIMS`.
_SLOT = {n: i for i, n in enumerate(DISTRIBUTED_IN_DIMS)}


@dataclass(frozen=True)
class Distributed:
    """Flat columns of a distributed layout, per hardware dim.

    Attributes:
        register, lane, warp, block: the flattened tensor coordinate of each input bit;
            ``lane`` is zero-extended (broadcast) to the warp's lanes.
    """

    register: tuple[int, ...]
    lane: tuple[int, ...]
    warp: tuple[int, ...]
    block: tuple[int, ...]


def require_same_tensor(a: Any, b: Any, name_a: str, name_b: str) -> None:
    """Raise LayoutError unless ``b`` is a LinearLayout over ``a``'s out dims, same sizes.

    The out dims may come in another order (callers transpose); names and sizes must match.

    Raises:
        LayoutError: as above, or ``name_a``/``name_b`` not strings.
    """
    if not isinstance(name_a, str) or not isinstance(name_b, str):
        raise LayoutError(f"name_a and name_b must be strings (the layouts' names in the "
                          f"message), got {shown(name_a)} and {shown(name_b)}")
    if not isinstance(a, LinearLayout):
        raise LayoutError(f"{name_a} must be a LinearLayout, got {type(a).__name__}")
    if not isinstance(b, LinearLayout):
        raise LayoutError(f"{name_b} must be a LinearLayout, got {type(b).__name__}")
    if a.out_dims_log2 == b.out_dims_log2:  # the same dims, sizes and order
        return
    if set(a.out_dim_names) != set(b.out_dim_names):
        raise LayoutError(
            f"{name_a} and {name_b} must have the same out dims; got {list(a.out_dim_names)} "
            f"and {list(b.out_dim_names)}"
        )
    bsizes = b.out_dims
    for n, size in a.out_dims.items():
        if size != bsizes[n]:
            raise LayoutError(
                f"out dim {shown(n)} has size {size} in the {name_a} but {bsizes[n]} in the "
                f"{name_b}; both must describe the same tensor"
            )


def is_smaller_tile(tile: LinearLayout, memory: LinearLayout) -> bool:
    """True when ``tile`` covers part of ``memory``'s tensor: the same out-dim names, each no
    larger, and not all the same sizes (e.g. a warp's MMA atom inside a larger shared-memory
    tile). Such a tile is counted at the memory's origin (:func:`embed_at_origin`).

    Args:
        tile: a layout onto tensor out dims (usually distributed).
        memory: a layout onto tensor out dims (usually shared memory).

    Raises:
        LayoutError: ``tile`` or ``memory`` not a LinearLayout.
    """
    instance_of(tile, LinearLayout, "tile")
    instance_of(memory, LinearLayout, "memory")
    if tile.out_dims == memory.out_dims or set(tile.out_dims) != set(memory.out_dims):
        return False
    return all(s <= memory.out_dims[n] for n, s in tile.out_dims.items())


def embed_at_origin(tile: LinearLayout, memory: LinearLayout) -> LinearLayout:
    """``tile`` with the out-dim sizes of ``memory``: the smaller tensor placed at the origin of
    the larger one (same bases; each out dim keeps ``tile``'s name and order, ``memory``'s
    size), so that the two layouts can be compared by :func:`linlayout.bank_conflicts`.

    Args:
        tile: a layout whose out dims are all out dims of ``memory``, each no larger.
        memory: the layout of the larger tensor (a ``memdesc`` allocation, a shared-memory
            tile).

    Returns:
        ``tile`` itself when the out dims already agree, else the resized layout.

    Raises:
        LayoutError: an out dim of ``tile`` is missing from ``memory`` or larger there;
            ``tile`` or ``memory`` not a LinearLayout.
    """
    instance_of(tile, LinearLayout, "tile")
    instance_of(memory, LinearLayout, "memory")
    if tile.out_dims == memory.out_dims:
        return tile
    for n, s in tile.out_dims.items():
        if n not in memory.out_dims or memory.out_dims[n] < s:
            raise LayoutError(f"the tensor ({tile.out_dims}) does not fit in the buffer "
                              f"({memory.out_dims})")
    return LinearLayout(tile.bases, out_dims={n: memory.out_dims[n] for n in tile.out_dim_names})


def is_distributed(layout: LinearLayout) -> bool:
    """True when every in dim is one of ``register, lane, warp, block`` (and there is one).

    Raises:
        LayoutError: ``layout`` not a LinearLayout.
    """
    instance_of(layout, LinearLayout, "layout")
    names = set(layout.in_dim_names)
    return bool(names) and names <= set(DISTRIBUTED_IN_DIMS)


def distributed_columns(layout: Any, what: str = "layout", warp_log2: int = 5) -> Distributed:
    """Validate a distributed layout and return its flat columns.

    Args:
        layout: the layout to check.
        what: how to name it in error messages (``"store"``, ``"load"``, …).
        warp_log2: log2 of the lanes per warp; a smaller lane dim is padded with broadcast
            (zero) lanes, as Triton treats a missing dim as size 1.

    Raises:
        LayoutError: not a LinearLayout, an in dim outside ``register, lane, warp, block``,
            or more lanes than a warp has; ``warp_log2`` not an int from 0 to 16.
    """
    if not isinstance(what, str):
        what = shown(what)
    if not isinstance(layout, LinearLayout):
        raise LayoutError(f"{what} must be a LinearLayout, got {type(layout).__name__}")
    if type(warp_log2) is not int or not 0 <= warp_log2 <= 16:
        warp_log2 = as_int(warp_log2, "warp_log2")
        if not 0 <= warp_log2 <= 16:
            raise LayoutError(f"warp_log2 must be log2 of the lanes per warp, from 0 to 16, "
                              f"got {warp_log2}")
    cols = layout.columns
    parts = [(), (), (), ()]  # register, lane, warp, block columns
    start = 0
    try:
        for n, bits in layout.in_dims_log2:  # one pass: each dim's columns, by position
            parts[_SLOT[n]] = cols[start:start + bits]
            start += bits
    except KeyError:  # n is not a distributed in dim
        hint = ("it is a shared-memory layout's in dim: was the memory layout given "
                "where the threads' layout is expected?"
                if n in ("offset", "vector", "bank", "segment")
                else "rename it, e.g. 'thread' -> 'lane'")
        raise LayoutError(
            f"{what} has in dim {shown(n)}; a distributed layout's in dims are among "
            f"{list(DISTRIBUTED_IN_DIMS)} ({hint})"
        ) from None
    register, lane, warp, block = parts
    if len(lane) > warp_log2:
        raise LayoutError(
            f"{what}'s lane dim has size {1 << len(lane)} but a warp has {1 << warp_log2} "
            "lanes; move the extra bits to 'warp'"
        )
    if len(lane) < warp_log2:
        lane = lane + (0,) * (warp_log2 - len(lane))
    side = _new(Distributed)  # the frozen dataclass, without its per-field __setattr__
    side.__dict__.update(register=register, lane=lane, warp=warp, block=block)
    return side


_new = object.__new__


#: log2 of the widest warp a layout can be shown for: an AMD wavefront of 64 lanes.
MAX_WARP_LOG2 = 6


def fitting_warp_log2(layout: Any, what: str = "layout") -> int:
    """log2 of the narrowest warp that holds a distributed layout's lane dim: 5 (an NVIDIA
    warp, 32 lanes) for up to 32 lanes, 6 (an AMD CDNA wavefront, 64 lanes) for 64.

    What a picture or text grid needs, which shows who holds what and has no bank model to
    fix the warp size; the counting functions take the warp size from their ``HardwareModel``
    instead. Source: PTX ISA §2.2 (32-thread warps); AMD CDNA3 ISA §1.1 (64-wide wavefronts).

    Raises:
        LayoutError: not a LinearLayout, or a lane dim of more than 64 lanes (move the extra
            bits to ``warp``).
    """
    instance_of(layout, LinearLayout, what if isinstance(what, str) else shown(what))
    bits = layout.in_bits("lane") if "lane" in layout.in_dims else 0
    if bits > MAX_WARP_LOG2:
        raise LayoutError(f"{what}'s lane dim has size {1 << bits} but the widest warp (an AMD "
                          f"wavefront) has {1 << MAX_WARP_LOG2} lanes; move the extra bits to "
                          f"'warp'")
    return max(5, bits)


def memory_columns(memory: Any, out_order: tuple[str, ...] | None = None) -> tuple[tuple[int, ...], int]:
    """Validate a shared-memory layout; return its flat columns in canonical in-dim order.

    Args:
        memory: the layout to check.
        out_order: out-dim order for the flattened columns (default: the layout's own);
            must be a permutation of the memory's out dims.

    Returns:
        ``(columns, offset_bits)``: the offset bits (``offset``, or ``vector, bank, segment,
        reps``) first, then ``block`` bits; ``offset_bits`` counts the former.

    Raises:
        LayoutError: not a LinearLayout, unknown in dims, or a bad ``out_order``.
        NotInvertibleError: the memory layout is not a bijection.
    """
    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    names = set(memory.in_dim_names)
    for group in MEMORY_IN_DIMS:
        if names and names <= set(group):
            break
    else:
        raise LayoutError(
            f"a shared-memory layout has in dims 'offset' [+ 'block'] or 'vector', 'bank', "
            f"'segment' [+ 'reps']; got {list(memory.in_dim_names)}"
        )
    if group[0] == "offset" and "offset" not in names:
        raise LayoutError("a shared-memory layout with a 'block' in dim also needs 'offset'")
    mem = memory.transpose_outs(out_order if out_order is not None else memory.out_dim_names)
    cols: list[int] = []
    offset_bits = 0
    for n in group:
        c = mem.dim_columns(n)
        cols.extend(c)
        if n != "block":
            offset_bits += len(c)
    if not mem.is_invertible:
        raise NotInvertibleError(
            f"the shared-memory layout must be a bijection from its {mem.total_in_bits} "
            f"in bits onto the {mem.total_out_bits} tensor bits, but its rank is {mem.rank}; "
            "every element needs exactly one offset"
        )
    return tuple(cols), offset_bits


def to_offset_layout(memory: LinearLayout) -> LinearLayout:
    """``memory`` with in dims ``offset`` (+ ``block``) and out dims ``dim0, dim1, …`` in
    Triton's order.

    Raises:
        LayoutError: out dims are not ``dim0 … dim{r-1}``, the in dims are not a shared-memory
            layout's, or it is not a bijection.
    """
    if not isinstance(memory, LinearLayout):
        raise LayoutError(f"memory must be a LinearLayout, got {type(memory).__name__}")
    rank = len(memory.out_dim_names)
    names = [f"dim{i}" for i in range(rank)]
    if sorted(memory.out_dim_names) != sorted(names):
        raise LayoutError(f"Triton names tensor dims dim0…dim{rank - 1}; got out dims "
                          f"{list(memory.out_dim_names)} (rename them first)")
    mem = memory.transpose_outs(names)
    cols, offset_bits = memory_columns(mem, tuple(names))
    in_dims = {"offset": 1 << offset_bits}
    nblock = len(cols) - offset_bits
    if nblock:
        in_dims["block"] = 1 << nblock
    return LinearLayout.from_columns(cols, in_dims, mem.out_dims)
