"""Why a synthesized layout is what it is: the constraint behind each offset bit.

:func:`explain_synthesis` takes a :class:`~linlayout.SwizzleResult` and the transfer it was
synthesized for, and says, for every offset bit of the layout (every basis vector of its
``offset → tile`` map, lowest first), which constraint put that tile direction there:

* **vector** — the bit lies inside some side's vector (``ld/st.shared``: the ``2^k``
  elements one lane moves; ``ldmatrix``/``stmatrix``: the 16-byte row). A vector's elements
  must sit at consecutive, aligned offsets, so the register bits that form it take the lowest
  offset bits (step 1 of the construction, :mod:`linlayout.synthesis.plans`).
* **word** — below the bank word (elements narrower than 4 bytes): lanes that share a word
  never conflict, so lane directions placed here cost nothing.
* **free** — a bank bit: it picks the bank inside one row of banks; any direction that is not
  a vector or segment direction serves here, and the construction takes one that no side
  vectorises through.
* **avoids** — a segment bit that, with the segment bits below it, adds no direction inside
  any side's *phase span* ``X = span(lanes of one phase) + Z`` (``Z``: the vector and
  within-word bits): no two lanes of one phase differ by it, so it adds no conflict
  (Lemma 9.5's avoiding sequence).
* **forced** — a segment bit inside a side's phase span: it doubles that side's conflict
  degree, and no layout giving the side the same access does better (the side pays the
  degree of its :class:`~linlayout.synthesis.result.SideBound`, with the bound's instruction
  and vector: any ``s``-dimensional segment meets an ``X`` of dimension ``dim X`` in at least
  ``s − (n − dim X)`` dimensions).
* **chosen** — as forced, but above the side's own bound: the price of serving the other sides
  (with three or more sides they can block each other), or, when the result is not proven
  optimal, a conflict not proven necessary.
* **mode** — as forced, for a layout pinned to a fixed TMA swizzle mode (``fixed=``): the mode
  writes this direction, and every layout it can write was counted (the bound's
  ``"exhaustive"`` method), none cheaper.

Each segment bit's share of a side's conflicts is read off the conflict subspace
``St ∩ X`` (:attr:`ConflictReport.conflict_offsets`, Lemma 9.4): in its echelon basis, leading
bits descending, each basis vector's leading bit is one offset bit that raises the degree, so
the bits marked ``conflict`` for a side number exactly ``log2(degree)``. Each such direction is
realised by two lanes of one phase that reach the same banks in different words
(:func:`linlayout.conflicts.explain.explain_conflicts`).

Every claim is data a test recounts: the vector bits lie in the side's register span, the
conflict bits' count is ``log2`` of :func:`linlayout.bank_conflicts`' degree, and the colliding
lanes collide in an address-by-address recount.

Source: the construction of ``docs/theory.md`` (optimal swizzles; Lemmas 9.4 and 9.5 of the
Linear Layouts paper, arXiv 2505.23819) as :mod:`linlayout.synthesis.plans` implements it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .. import f2
from .._checks import instance_of, sequence_of
from ..conflicts import ConflictReport
from ..conflicts.explain import explain_conflicts
from ..errors import LayoutError
from ..hardware.access import plan_access
from ..hardware.model import HardwareModel, bank_model
from ..layout import LinearLayout
from .result import SwizzleResult
from .transfer import Transfer

__all__ = ["REASONS", "BitExplanation", "SideRole", "SynthesisExplanation", "explain_synthesis"]

#: The reasons an offset bit can have, in the order of the module docstring.
REASONS = ("vector", "word", "free", "avoids", "forced", "chosen", "mode")

_DIM_NAMES = ("register", "lane", "warp", "block")


@dataclass(frozen=True)
class SideRole:
    """What one offset bit is to one side of the transfer.

    Attributes:
        side: ``"store"``, ``"load"`` or ``"load i"`` (several loads).
        holds: the side's input bits whose image is this bit's tile direction, e.g.
            ``"register 1"`` or ``"lane 0 ⊕ register 2"``; ``""`` when the side does not reach
            that direction (it holds part of the tile only).
        in_vector: the bit lies inside the side's vector (or matrix row).
        conflict: the bit raises the side's conflict degree (a segment bit in its phase span).
        direction: with ``conflict``, the conflict direction whose leading bit this is (an
            element offset, segment bits only); else None.
        lanes: with ``conflict``, two lanes of one phase (for ``ldmatrix``/``stmatrix``: the
            lanes supplying two rows' addresses) that reach the same banks in different words
            because of this direction; else None.
    """

    side: str
    holds: str
    in_vector: bool
    conflict: bool
    direction: int | None = None
    lanes: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"side": self.side, "holds": self.holds, "in_vector": self.in_vector,
                "conflict": self.conflict, "direction": self.direction,
                "lanes": None if self.lanes is None else list(self.lanes)}


@dataclass(frozen=True)
class BitExplanation:
    """One offset bit of the synthesized layout and the constraint that put it there.

    Attributes:
        bit: the offset bit (``2^bit`` elements).
        tile: the tile coordinate it maps to (one entry per out dim, the store's order).
        kind: where the bit sits in the bank model: ``"word"`` (below the bank word),
            ``"bank"`` (picks the bank) or ``"segment"`` (above a row of banks).
        reason: one of :data:`REASONS`.
        text: the reason in one sentence.
        sides: one :class:`SideRole` per side, store first.
    """

    bit: int
    tile: dict[str, int]
    kind: str
    reason: str
    text: str
    sides: tuple[SideRole, ...]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"bit": self.bit, "tile": dict(self.tile), "kind": self.kind,
                "reason": self.reason, "text": self.text,
                "sides": [s.to_dict() for s in self.sides]}


@dataclass(frozen=True)
class SynthesisExplanation:
    """Per offset bit, the constraint behind a synthesized layout.

    Attributes:
        bits: one :class:`BitExplanation` per offset bit, lowest first.
        side_names: the sides, store first.
        degrees: each side's conflict degree (as the result's reports count it).
        bound_degrees: each side's least degree for its access (the result's bound).
        within_word_bits: offset bits inside one bank word.
        seg_lo: the first segment offset bit.
    """

    bits: tuple[BitExplanation, ...]
    side_names: tuple[str, ...]
    degrees: tuple[int, ...]
    bound_degrees: tuple[int, ...]
    within_word_bits: int
    seg_lo: int

    def reasons(self) -> dict[str, list[int]]:
        """``{reason: [offset bits]}`` for the reasons that occur, in :data:`REASONS` order."""
        out: dict[str, list[int]] = {}
        for r in REASONS:
            bits = [b.bit for b in self.bits if b.reason == r]
            if bits:
                out[r] = bits
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields."""
        return {"side_names": list(self.side_names), "degrees": list(self.degrees),
                "bound_degrees": list(self.bound_degrees),
                "within_word_bits": self.within_word_bits, "seg_lo": self.seg_lo,
                "reasons": self.reasons(), "bits": [b.to_dict() for b in self.bits]}


def _side_names(nloads: int) -> list[str]:
    return ["store"] + (["load"] if nloads == 1 else [f"load {i}" for i in range(nloads)])


def _holds(target: int, cols: dict[str, tuple[int, ...]]) -> str:
    """The side's input bits whose image is ``target``: one bit where one does, else the
    solution with free variables zero; ``""`` when no combination reaches it."""
    for name in _DIM_NAMES:
        for i, c in enumerate(cols[name]):
            if c == target:
                return f"{name} {i}"
    labels = [f"{name} {i}" for name in _DIM_NAMES for i in range(len(cols[name]))]
    flat = [c for name in _DIM_NAMES for c in cols[name]]
    x = f2.solve(flat, target) if target else None
    if x is None:
        return ""
    return " ⊕ ".join(labels[j] for j in range(len(flat)) if x >> j & 1)


def _conflict_roles(report: ConflictReport, side: LinearLayout, memory: LinearLayout,
                    element_bits: int, hardware: HardwareModel | None,
                    load: bool) -> dict[int, tuple[int, tuple[int, int]]]:
    """``{offset bit: (direction, lanes)}`` for the segment bits that raise this side's degree
    (``load``: the side is a load, counted as ``ld.shared``).

    The directions are the echelon basis of the conflict subspace (leading bits descending);
    lanes combine the colliding pairs :func:`explain_conflicts` gives for its basis.
    """
    if report.degree == 1:
        return {}
    ld_st = report.instruction == "ld/st.shared"
    exp = explain_conflicts(side, memory, element_bits=element_bits, hardware=hardware,
                            vector_elems=report.vector_elems if ld_st else None,
                            instruction=(("ld.shared" if load else "st.shared") if ld_st
                                         else report.instruction))
    dirs = [p.direction for p in exp.pairs]
    out = {}
    for v in f2.echelon(dirs):
        x = f2.solve(dirs, v)
        if x is None:  # impossible: v is in their span
            raise LayoutError("internal: a conflict direction outside the pairs' span")
        other = 0
        for j, p in enumerate(exp.pairs):
            if x >> j & 1:
                other ^= p.lanes[1]
        out[v.bit_length() - 1] = (v, (0, other))
    return out


def explain_synthesis(result: SwizzleResult, store: LinearLayout | Transfer,
                      load: LinearLayout | Sequence[LinearLayout] | None = None, *,
                      hardware: HardwareModel | None = None) -> SynthesisExplanation:
    """Explain, offset bit by offset bit, the layout :func:`~linlayout.synthesize_swizzle`
    returned (module docstring).

    Args:
        result: the :class:`~linlayout.SwizzleResult`.
        store: the store's distributed layout, or the whole
            :class:`~linlayout.synthesis.Transfer` (then ``load`` and ``hardware`` are taken
            from it).
        load: the load's layout, or the list of loads, as given to the synthesis.
        hardware: the bank model of the synthesis (default NVIDIA).

    Returns:
        A :class:`SynthesisExplanation`: one :class:`BitExplanation` per offset bit.

    Raises:
        LayoutError: ``result`` is not a SwizzleResult, the layouts are not distributed
            layouts over the result's tensor, or their number does not match the result's
            sides.

    Example::

        >>> from linlayout import examples, synthesize_swizzle
        >>> ex = examples.get("transpose")
        >>> r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
        >>> explain_synthesis(r, ex.store, ex.load).reasons()
        {'vector': [0, 1], 'free': [2, 3, 4], 'avoids': [5, 6, 7, 8]}
    """
    instance_of(result, SwizzleResult, "result")
    if isinstance(store, Transfer):
        sides = [store.store, *store.loads]
        hardware = store.hardware
    else:
        if load is None:
            raise LayoutError("explain_synthesis needs the loads: give load= (a layout or a "
                              "list), or pass the Transfer as store")
        loads = [load] if isinstance(load, LinearLayout) else list(
            sequence_of(load, LinearLayout, "load"))
        sides = [store, *loads]
    for i, s in enumerate(sides):
        instance_of(s, LinearLayout, "store" if i == 0 else "load")
    if len(sides) != len(result.reports):
        raise LayoutError(f"the result has {len(result.reports)} sides (store and loads) but "
                          f"{len(sides)} layouts were given; give the layouts it was "
                          "synthesized for")
    names = _side_names(len(sides) - 1)
    bits = result.element_bits
    model = bank_model(bits, hardware)
    memory = result.layout
    counted = result.counted or (True,) * len(sides)
    plans = [plan_access(s, memory, model.warp_log2) for s in sides]
    nbits = plans[0].offset_bits
    mem_cols = plans[0].memory_cols[:nbits]
    out_names = list(sides[0].out_dim_names)
    out_bits = [sides[0].out_bits(n) for n in out_names]
    # each side in its own flat coordinates (plan_access flattens in the side's out-dim order)
    side_cols = [{n: getattr(p, n) for n in _DIM_NAMES} for p in plans]
    conflicts = [
        _conflict_roles(rep, s, memory, bits, hardware, k > 0) if c else {}
        for k, (rep, s, c) in enumerate(zip(result.reports, sides, counted))]
    vec_log2 = [rep.vector_elems.bit_length() - 1 for rep in result.reports]
    w, seg_lo = model.within_word_bits, model.seg_lo
    bound_degrees = tuple(b.degree for b in result.bound.sides) if len(result.bound.sides) \
        == len(sides) else tuple(rep.degree for rep in result.reports)
    explained = []
    for i in range(nbits):
        t = mem_cols[i]
        tile, rest = {}, t
        for n, b in zip(out_names, out_bits):
            tile[n] = rest & ((1 << b) - 1)
            rest >>= b
        roles = []
        for k, name in enumerate(names):
            hit = conflicts[k].get(i)
            roles.append(SideRole(name, _holds(plans[k].memory_cols[i], side_cols[k]),
                                  i < vec_log2[k] and counted[k],
                                  hit is not None, hit[0] if hit else None,
                                  hit[1] if hit else None))
        kind = "word" if i < w else "bank" if i < seg_lo else "segment"
        reason, text = _reason(i, roles, result, w, seg_lo, counted)
        explained.append(BitExplanation(i, tile, kind, reason, text, tuple(roles)))
    return SynthesisExplanation(tuple(explained), tuple(names),
                                tuple(rep.degree for rep in result.reports), bound_degrees,
                                w, seg_lo)


def _vector_words(rep: ConflictReport) -> str:
    if rep.instruction == "ld/st.shared":
        return f"{rep.vector_elems}-element vector"
    return f"{rep.instruction} row of {rep.vector_elems} elements (16 bytes)"


def _bound_access(b: Any) -> str:
    """A SideBound's access in words."""
    if b.instruction == "ld/st.shared":
        return f"{b.vector_elems}-element vectors"
    return b.instruction


def _reason(i: int, roles: list[SideRole], result: SwizzleResult, w: int, seg_lo: int,
            counted: Sequence[bool]) -> tuple[str, str]:
    """(reason, sentence) for offset bit ``i``."""
    reps = result.reports
    vec = [(r, rep) for r, rep in zip(roles, reps) if r.in_vector]
    if vec:
        who = "; ".join(f"the {r.side}'s {_vector_words(rep)} ({r.holds or 'no own bit'})"
                        for r, rep in vec)
        tails = []
        if any(rep.instruction == "ld/st.shared" for _, rep in vec):
            tails.append("a lane's vector sits at consecutive, aligned offsets, so the register "
                         "bits that form it take the lowest offset bits")
        if any(rep.instruction != "ld/st.shared" for _, rep in vec):
            tails.append("a matrix row is 16 contiguous bytes at one lane's address, so the "
                         "bits that walk it take the lowest offset bits")
        return "vector", f"vector: inside {who}; " + "; ".join(tails)
    if i < w:
        return "word", "word: inside one bank word; lanes that share a word never conflict"
    if i < seg_lo:
        return "free", ("free: a bank bit picks the bank within a row of banks; any direction "
                        "that is no vector or segment direction serves here")
    hits = [(k, r) for k, r in enumerate(roles) if r.conflict]
    if not hits:
        sides = ", ".join(r.side for r, c in zip(roles, counted) if c)
        return "avoids", (f"avoids: a segment bit that, with the segment bits below it, adds "
                          f"no direction inside the phase span of any side ({sides}): no two "
                          f"lanes of one phase differ by it, so it adds no conflict")
    parts = []
    for k, r in hits:
        lanes = f"lanes {r.lanes[0]} and {r.lanes[1]}" if r.lanes else "two lanes"
        parts.append(f"the {r.side}'s phase span ({lanes} reach the same banks in different "
                     f"words; {reps[k].degree}-way in all)")
    where = " and ".join(parts)
    if result.bound.method == "exhaustive":
        return "mode", (f"mode: a segment bit inside {where}; the fixed TMA swizzle mode writes "
                        f"it, and none of the {result.bound.candidates} layouts the mode can "
                        f"write costs less")
    sides = result.bound.sides

    def at_bound(k: int) -> bool:  # the side pays its own bound, for the same access
        if len(sides) != len(reps):
            return False
        b = sides[k]
        return (reps[k].degree <= b.degree and reps[k].instruction == b.instruction
                and reps[k].vector_elems == b.vector_elems)

    forced = all(at_bound(k) for k, _ in hits)
    if forced:
        return "forced", (f"forced: a segment bit inside {where}; no layout giving these sides "
                          f"the same access does better (each pays its bound: any segment meets "
                          f"its phase span in that many dimensions)")
    own = "; ".join(
        f"the {r.side}'s bound: {sides[k].degree}-way with {_bound_access(sides[k])}"
        for k, r in hits if len(sides) == len(reps) and not at_bound(k))
    why = ("the price of serving the other sides at once (the total is proven optimal)"
           if result.optimal else "the result does not reach its bound (see the gap), so this "
           "conflict is not proven necessary")
    return "chosen", (f"chosen: a segment bit inside {where}, above the side's own bound "
                      f"({own}); {why}")
