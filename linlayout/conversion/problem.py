"""The validated input of a layout conversion: two distributed layouts of one tensor.

:class:`ConversionProblem` checks a ``(src, dst, element_bits)`` triple once and holds what
every path needs: the register, lane, warp and block columns of both layouts (in ``src``'s
out-dim order) and the bit counts. Each path's feasibility is a statement about these
columns (the Linear Layouts paper, arXiv 2505.23819, §5: a conversion ``src → dst`` is the map
``src⁻¹ ∘ dst``; Triton 3.9 decides its lowering from the same map in
``ConvertLayoutOpToLLVM.cpp``, ``cvtNeedsWarpShuffle``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from .. import f2
from .._checks import instance_of, shown
from ..errors import LayoutError
from ..hardware import NVIDIA, HardwareModel
from ..layout import LinearLayout

__all__ = ["DISTRIBUTED_DIMS", "ELEMENT_BITS", "MAX_LANE_BITS", "MAX_REGISTER_BITS",
           "ConversionProblem", "dim_bits"]

#: The in dims a distributed layout may have, in the order the columns are read.
DISTRIBUTED_DIMS = ("register", "lane", "warp", "block")
#: Element widths the conversion planner models (a shuffle moves 32-bit words).
ELEMENT_BITS = (8, 16, 32, 64)
#: Most register bits of either layout: 2^8 values per thread (at 32 bits, a whole register
#: file: 255 registers on NVIDIA, 256 VGPRs on AMD; narrower values fit more, but are refused). Refused above it, before any planning: the shuffle
#: planner merges what each lane sends round by round, work that grows with the square of the
#: registers per thread (about a second at 2^8 values, half a minute at 2^10).
MAX_REGISTER_BITS = 8
#: Most lane bits (64 lanes, an AMD wavefront).
MAX_LANE_BITS = 6


@dataclass(frozen=True)
class ConversionProblem:
    """A checked conversion ``src → dst`` of one tensor between two distributed layouts.

    Attributes:
        src: the layout the values are in (in dims among ``register, lane, warp, block``).
        dst: the layout they must end in, its out dims reordered to ``src``'s.
        element_bits: bits per element, one of :data:`ELEMENT_BITS`.
        hardware: the hardware model (warp size, banks) for the shared-memory path.

    Source: the Linear Layouts paper (arXiv 2505.23819) §5 and Triton 3.9's
    ``ConvertLayoutOpToLLVM.cpp`` (module docstring).
    """

    src: LinearLayout
    dst: LinearLayout
    element_bits: int
    hardware: HardwareModel

    @classmethod
    def make(cls, src: LinearLayout, dst: LinearLayout, element_bits: int,
             hardware: HardwareModel | None = None) -> "ConversionProblem":
        """Check the arguments and build the problem.

        Raises:
            LayoutError: a layout is not a :class:`LinearLayout`; has an in dim other than
                ``register, lane, warp, block``; the out dims or their sizes differ; the lane,
                warp or block sizes differ; a layout is not surjective (some element is held
                by no thread); more lanes than the hardware's warp; more than
                :data:`MAX_REGISTER_BITS` register bits; ``element_bits`` not in
                :data:`ELEMENT_BITS`.
        """
        instance_of(src, LinearLayout, "src")
        instance_of(dst, LinearLayout, "dst")
        hw = NVIDIA if hardware is None else instance_of(hardware, HardwareModel, "hardware")
        if isinstance(element_bits, bool) or element_bits not in ELEMENT_BITS:
            raise LayoutError(f"element_bits must be one of {list(ELEMENT_BITS)}, got "
                              f"{shown(element_bits)}")
        for name, lay in (("src", src), ("dst", dst)):
            extra = [d for d in lay.in_dim_names if d not in DISTRIBUTED_DIMS]
            if extra:
                raise LayoutError(f"{name} has in dims {extra}; a conversion takes distributed "
                                  f"layouts, with in dims among {list(DISTRIBUTED_DIMS)}")
            if not lay.is_surjective:
                raise LayoutError(f"{name} holds only {1 << lay.rank} of the tensor's "
                                  f"{1 << lay.total_out_bits} elements; give a layout that "
                                  "holds every element (a surjective one)")
            if dim_bits(lay, "register") > MAX_REGISTER_BITS:
                raise LayoutError(f"{name} has {1 << dim_bits(lay, 'register')} registers per "
                                  f"thread; the planner takes at most {1 << MAX_REGISTER_BITS} "
                                  "(MAX_REGISTER_BITS); split the tensor or plan a sublayout")
            lanes = dim_bits(lay, "lane")
            if lanes > MAX_LANE_BITS or (1 << lanes) > hw.warp_size:
                raise LayoutError(f"{name} has {1 << lanes} lanes; the hardware "
                                  f"{hw.name!r} has {hw.warp_size} lanes per warp")
        if dict(src.out_dims) != dict(dst.out_dims):
            raise LayoutError(f"src and dst must cover the same tensor: src's out dims are "
                              f"{dict(src.out_dims)}, dst's {dict(dst.out_dims)}")
        if dst.out_dim_names != src.out_dim_names:
            dst = dst.transpose_outs(list(src.out_dim_names))
        for dim in ("lane", "warp", "block"):
            if dim_bits(src, dim) != dim_bits(dst, dim):
                raise LayoutError(f"src has {1 << dim_bits(src, dim)} of in dim {dim!r}, dst "
                                  f"{1 << dim_bits(dst, dim)}; a conversion keeps the number "
                                  "of lanes, warps and blocks")
        src, dst = (lay.transpose_ins([d for d in DISTRIBUTED_DIMS if d in lay.in_dims])
                    for lay in (src, dst))
        return cls(src, dst, element_bits, hw)

    # ------------------------------------------------------------------ columns
    def columns(self, which: str, dim: str) -> tuple[int, ...]:
        """Flat columns of ``which`` (``"src"`` or ``"dst"``) for one in dim (empty if absent)."""
        return getattr(self, which).dim_columns(dim)

    @property
    def register_bits(self) -> tuple[int, int]:
        """``(src, dst)`` register bits."""
        return dim_bits(self.src, "register"), dim_bits(self.dst, "register")

    @property
    def lane_bits(self) -> int:
        """Lane bits (the same in both layouts)."""
        return dim_bits(self.src, "lane")

    @property
    def warp_bits(self) -> int:
        """Warp plus block bits (the same in both layouts)."""
        return dim_bits(self.src, "warp") + dim_bits(self.src, "block")

    def same_columns(self, dims: tuple[str, ...]) -> bool:
        """Whether ``src`` and ``dst`` map every bit of these in dims to the same element."""
        return all(self.columns("src", d) == self.columns("dst", d) for d in dims)

    def within(self, moving: tuple[str, ...], fixed: tuple[str, ...]) -> bool:
        """Whether the conversion can keep the ``fixed`` dims: their columns agree, and every
        ``dst`` column of the ``moving`` dims lies in the span of ``src``'s ``moving``
        columns (each thread group spanned by ``fixed`` already holds what it needs)."""
        if not self.same_columns(fixed):
            return False
        span = [c for d in moving for c in self.columns("src", d)]
        return all(f2.in_span(c, span) for d in moving for c in self.columns("dst", d))

    def thread_elements(self, which: str, register: int, lane: int, warp: int) -> int:
        """The flat element (out dims flattened, first lowest) ``which`` holds at one
        register of one thread; ``warp`` is the warp and block bits together (warp lowest)."""
        flat = self._flat_columns.get(which)
        if flat is None:
            lay = getattr(self, which)
            rb, lb = dim_bits(lay, "register"), dim_bits(lay, "lane")
            return lay.apply_flat(register | lane << rb | warp << (rb + lb))
        cols, rb, lb = flat
        return f2.apply(cols, register | lane << rb | warp << (rb + lb))

    @cached_property
    def _flat_columns(self) -> dict[str, tuple[tuple[int, ...], int, int]]:
        """Per layout, its flat columns (in dims in :data:`DISTRIBUTED_DIMS` order) and its
        register and lane bits: what :meth:`thread_elements` reads, worked out once."""
        return {which: (tuple(c for d in DISTRIBUTED_DIMS for c in self.columns(which, d)),
                        dim_bits(lay, "register"), dim_bits(lay, "lane"))
                for which, lay in (("src", self.src), ("dst", self.dst))}


def dim_bits(layout: LinearLayout, dim: str) -> int:
    """log2 of the size of in dim ``dim`` of ``layout``; 0 when the layout lacks it."""
    return layout.in_bits(dim) if dim in layout.in_dims else 0
