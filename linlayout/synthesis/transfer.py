"""What every synthesis function takes: the transfer (a store and its loads) and the objective.

:class:`Transfer` is a tile written to shared memory by one distributed layout (the store) and
read back by one or more (the loads), with the element width, the hardware model and how
often each side runs (its weight). It is validated once, when it is built, with the messages
:func:`~linlayout.synthesize_swizzle` has always given, and is immutable afterwards: the
synthesis functions (:func:`~linlayout.synthesize_swizzle`,
:func:`~linlayout.synthesis.synthesize_padding`, :func:`~linlayout.synthesis.is_optimal`, …) each
build one from their keyword arguments and pass it on.

:class:`Objective` is what a synthesis minimises — the weighted total of wavefronts per warp,
then of instructions, or the other order — and holds the one function that orders costs,
:meth:`Objective.key`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._checks import as_int, shown
from ..errors import LayoutError
from ..hardware.kinds import Distributed, distributed_columns, require_same_tensor
from ..hardware.model import BankModel, HardwareModel, bank_model
from ..layout import LinearLayout

__all__ = ["INSTRUCTIONS", "MAX_LOADS", "OBJECTIVES", "WAVEFRONTS", "Objective", "Transfer"]

#: Most distinct loads a transfer may have (loads with the same columns count once: a
#: synthesis merges them into one side with their summed weight). The search over access
#: assignments grows exponentially with the number of distinct sides and is cut by budgets
#: (:data:`~linlayout.synthesis.synthesize.MAX_ASSIGNMENTS`, ``node_limit``); real kernels
#: read a tile with a handful of layouts.
MAX_LOADS = 16

#: Names of the objectives (``objective=`` values): which total is minimised first.
OBJECTIVES = ("wavefronts", "instructions")


@dataclass(frozen=True)
class Objective:
    """Which weighted total a synthesis minimises first: wavefronts or instructions.

    Attributes:
        name: ``"wavefronts"`` (total wavefronts per warp, then total instructions per warp:
            bandwidth first) or ``"instructions"`` (the other order; Triton's generic
            swizzling prefers the widest vectors).

    Build one with :meth:`parse` (which also accepts an :class:`Objective`), or use
    :data:`WAVEFRONTS` / :data:`INSTRUCTIONS`.

    Raises:
        LayoutError: ``name`` is not one of :data:`OBJECTIVES` (from the constructor).
    """

    name: str

    def __post_init__(self) -> None:
        if self.name not in OBJECTIVES:
            raise LayoutError(f"objective must be one of {OBJECTIVES}, got {shown(self.name)}")

    @classmethod
    def parse(cls, value: Any) -> Objective:
        """``value`` as an :class:`Objective`: an objective itself or one of its names.

        Raises:
            LayoutError: anything else (``objective must be one of ('wavefronts',
                'instructions'), got …``).
        """
        if isinstance(value, Objective):
            return value
        if value == "wavefronts":
            return WAVEFRONTS
        if value == "instructions":
            return INSTRUCTIONS
        raise LayoutError(f"objective must be one of {OBJECTIVES}, got {shown(value)}")

    def key(self, wavefronts: int, instructions: int) -> tuple[int, int]:
        """The lexicographic key a cost is minimised by (smaller is better).

        Args:
            wavefronts: wavefronts per warp (weighted total, or one side's).
            instructions: instructions per warp, likewise.

        Returns:
            ``(wavefronts, instructions)`` for ``"wavefronts"``, ``(instructions,
            wavefronts)`` for ``"instructions"``.
        """
        return (wavefronts, instructions) if self.name == "wavefronts" else \
            (instructions, wavefronts)

    def totals(self, key: tuple[int, int]) -> tuple[int, int]:
        """The inverse of :meth:`key`: ``(wavefronts, instructions)`` from a key."""
        first, second = key
        return (first, second) if self.name == "wavefronts" else (second, first)

    def __str__(self) -> str:
        return self.name


#: Minimise wavefronts per warp, then instructions (the default).
WAVEFRONTS = Objective("wavefronts")
#: Minimise instructions per warp, then wavefronts.
INSTRUCTIONS = Objective("instructions")


@dataclass(frozen=True)
class Transfer:
    """A tile moved through shared memory: one store, its loads, and how to count them.

    Attributes:
        store: the distributed layout that writes the tile (in dims among ``register, lane,
            warp, block``); its out-dim order is the one results use.
        loads: the distributed layouts that read it (at least one), over the same out dims
            with the same sizes (in any order).
        element_bits: bits per element, a power of two up to the widest access (128).
        hardware: the :class:`~linlayout.hardware.HardwareModel` (``None`` given: ``NVIDIA``).
        weights: one positive int per side (store first): how often each side runs
            (``None`` given: 1 each).

    Derived (not compared): ``model`` (the :class:`~linlayout.hardware.BankModel` of
    ``element_bits`` on ``hardware``) and ``sides`` (each side's flat columns, store first,
    loads transposed to the store's out-dim order).

    Build one with :meth:`make` (keyword arguments as :func:`~linlayout.synthesize_swizzle`
    takes them; ``load`` may be one layout) or the constructor; both validate, in this
    order: the element width and hardware, the store, the loads, the weights.

    Raises:
        LayoutError: invalid ``element_bits`` or hardware parameters; ``store`` not a
            :class:`~linlayout.LinearLayout`; no load, or more than :data:`MAX_LOADS`
            distinct loads; wrong in dims, more lanes than a warp,
            or out dims / sizes that differ between the sides; ``weights`` not one positive
            int per side.

    Source: the whole-tile cost of ``docs/theory.md`` §5 (module docstring).
    """

    store: LinearLayout
    loads: tuple[LinearLayout, ...]
    element_bits: int
    hardware: HardwareModel | None = None
    weights: tuple[int, ...] | None = None
    model: BankModel = field(init=False, repr=False, compare=False)
    sides: tuple[Distributed, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        model = bank_model(self.element_bits, self.hardware)
        store, loads = self.store, self.loads
        if not isinstance(store, LinearLayout):
            raise LayoutError(f"store must be a LinearLayout, got {type(store).__name__}")
        sides = [distributed_columns(store, "store", model.warp_log2)]
        loads = [loads] if isinstance(loads, LinearLayout) or not isinstance(loads, Sequence) \
            else list(loads)
        if not loads:
            raise LayoutError("give at least one load layout")
        for i, ld in enumerate(loads):
            name = "load" if len(loads) == 1 else f"load {i}"
            # the same out dims, sizes and order (the usual case), or checked to be the same
            # tensor: then the same order of out dims iff the same dims
            same = isinstance(ld, LinearLayout) and ld.out_dims_log2 == store.out_dims_log2
            if not same:
                require_same_tensor(store, ld, "store", name)
            sides.append(distributed_columns(ld if same else ld.transpose_outs(
                store.out_dim_names), name, model.warp_log2))
        if len(loads) > MAX_LOADS and len(
                {(s.register, s.lane, s.warp, s.block) for s in sides[1:]}) > MAX_LOADS:
            raise LayoutError(f"more than {MAX_LOADS} distinct load layouts (MAX_LOADS); "
                              "synthesize for the most frequent "
                              "loads and count the others with bank_conflicts")
        # the frozen fields, set in one go (object.__setattr__ for each does the same)
        self.__dict__.update(loads=tuple(loads), element_bits=model.element_bits,
                             hardware=model.hardware,
                             weights=_weights(self.weights, len(sides)), model=model,
                             sides=tuple(sides))

    @classmethod
    def make(cls, store: LinearLayout, load: LinearLayout | Sequence[LinearLayout], *,
             element_bits: int, hardware: HardwareModel | None = None,
             weights: Sequence[int] | None = None) -> Transfer:
        """The transfer of ``store`` and ``load`` (one layout or a sequence), validated.

        Args: as :func:`~linlayout.synthesize_swizzle`.

        Raises:
            LayoutError: as the class (the messages :func:`~linlayout.synthesize_swizzle`
                gives).
        """
        # the constructor's work without its per-field frozen __setattr__ calls: the given
        # fields, then the same validation (__post_init__), which sets every field again
        out = _new(cls)
        out.__dict__.update(store=store, loads=load, element_bits=element_bits,
                            hardware=hardware, weights=weights)
        out.__post_init__()
        return out

    def with_registers_first(self, firsts: Sequence[Sequence[int]]) -> Transfer:
        """The same transfer with, on each side (store first), the register bases ``firsts[i]``
        (indices into that side's register dim, in order) moved to the front and the others
        kept in their order: the same elements per thread, only the registers' names change.

        Equal to :meth:`make` of the reordered layouts, built without validating again (this
        transfer was validated; a reorder keeps every rule): the layouts from their flat
        columns, each side's flat columns permuted.

        Args:
            firsts: one sequence per side of distinct register indices (empty: unchanged).

        Raises:
            LayoutError: not one sequence per side, or an index that is not a distinct
                register of its side.
        """
        if isinstance(firsts, (str, bytes)) or not isinstance(firsts, Sequence) or \
                len(firsts) != len(self.sides):
            raise LayoutError(f"give one sequence of register indices per side "
                              f"({len(self.sides)}), got {shown(firsts)}")
        layouts, sides = [], []
        for layout, side, first in zip(self.layouts, self.sides, firsts):
            nregs = len(side.register)
            first = tuple(first)
            if len(set(first)) != len(first) or any(
                    type(i) is not int or not 0 <= i < nregs for i in first):
                raise LayoutError(f"register indices must be distinct, from 0 to {nregs - 1}; "
                                  f"got {shown(first)}")
            if first == tuple(range(len(first))):
                layouts.append(layout)
                sides.append(side)
                continue
            order = first + tuple(i for i in range(nregs) if i not in first)
            at = 0  # the register dim's first flat column
            for name, bits in layout.in_dims_log2:
                if name == "register":
                    break
                at += bits
            cols = list(layout.columns)
            cols[at:at + nregs] = [cols[at + i] for i in order]
            layouts.append(LinearLayout.unchecked(layout.in_dims_log2, layout.out_dims_log2,
                                                  cols))
            moved = _new(Distributed)
            moved.__dict__.update(side.__dict__,
                                  register=tuple(side.register[i] for i in order))
            sides.append(moved)
        out = _new(Transfer)
        out.__dict__.update(self.__dict__, store=layouts[0], loads=tuple(layouts[1:]),
                            sides=tuple(sides))
        return out

    @property
    def layouts(self) -> tuple[LinearLayout, ...]:
        """Every side's layout as given: the store, then each load."""
        return (self.store, *self.loads)

    @property
    def names(self) -> tuple[str, ...]:
        """Every side's name: ``"store"``, then ``"load"`` (one load) or ``"load 0"``, …"""
        return ("store",) + (("load",) if len(self.loads) == 1 else
                             tuple(f"load {i}" for i in range(len(self.loads))))

    def totals(self, reports: Iterable[Any]) -> tuple[int, int]:
        """``(Σ weight · wavefronts_per_warp, Σ weight · instructions_per_warp)`` of one
        report per side, store first (e.g. :class:`~linlayout.ConflictReport`\\ s)."""
        waves = instrs = 0
        for w, r in zip(self.weights, reports):  # type: ignore[arg-type]
            waves += w * r.wavefronts_per_warp
            instrs += w * r.instructions_per_warp
        return waves, instrs


def _weights(weights: Any, nsides: int) -> tuple[int, ...]:
    """Per-side weights, validated (default 1 each)."""
    if weights is None:
        return (1,) * nsides
    if isinstance(weights, (str, bytes)) or not isinstance(weights, Iterable):
        raise LayoutError(f"weights must be one positive int per side, got {shown(weights)}")
    ws = tuple(as_int(w, "a weight") for w in weights)
    if len(ws) != nsides or any(w < 1 for w in ws):
        raise LayoutError(f"weights must be {nsides} positive ints (store first, then each "
                          f"load), got {list(ws)}")
    return ws


_new = object.__new__
