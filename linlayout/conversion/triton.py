"""Triton 3.9's own path for a conversion, costed under the plan's weights.

:func:`~linlayout.lowering.convert_path` says which path ``ConvertLayoutOpToLLVM.cpp`` takes
(``none``, ``registers``, ``shuffle``, ``shared``) and, on the shuffle path, the register
instructions it emits; on the registers path an AMD 8-bit conversion's in-thread byte
permutes (``ConvertLayoutOpInThreadSwap``: ``v_perm_b32``, the count ``check`` reports,
:func:`~linlayout.lowering.amd_pack.inthread_permutes`) are priced as ``prmt``, every other
renaming at nothing. On the shared path the scratch layout is Triton's own
(:func:`~linlayout.lowering.triton_scratch_layout`, ``transferWithinBlockSwizzling``) and each
side is lowered through it as a ``local_store``/``local_load``
(:func:`~linlayout.synthesis.lowered.lower_sides`: ``ld/st.shared`` at Triton's vector, or
``ldmatrix``/``stmatrix``), then counted exactly on the bank model, with the byte permutes
that pack 8- and 16-bit elements into those stores and out of those loads
(:func:`~.round_trip.round_trip_packing`, priced as for the planner's own round trip). A
conversion in ``r`` rounds (the scratch layout's ``reps``) issues a barrier after each store
and one before each later store: ``2r − 1`` ``bar.sync``.

:func:`triton_choice` is the entry point; :func:`~.plan.plan_conversion` reports it beside
its own plan, with the saving.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import LayoutError
from ..lowering import Target, convert_path, triton_scratch_layout
from ..lowering.scratch import drop_broadcast_registers
from ..lowering.shuffle import WarpShuffleLowering, live_prmt_selectors
from ..lowering.target import target_for
from ..synthesis.lowered import lower_sides
from ..synthesis.transfer import Transfer
from .._checks import instance_of, shown, string
from .cost import KINDS, path_cost, resolve_weights
from .problem import ConversionProblem
from .round_trip import ScratchRoundTrip, offset_layout, round_trip_packing

__all__ = ["TritonChoice", "kind_of", "register_kinds", "resolve_conversion_target",
           "selector_selects", "triton_choice"]


@dataclass(frozen=True)
class TritonChoice:
    """The path Triton 3.9 takes for a conversion and its cost.

    Attributes:
        target: the compilation target (``"cuda:90"``, ``"hip:gfx942"``).
        path: :func:`~linlayout.lowering.convert_path`'s path: ``"none"``, ``"registers"``,
            ``"shuffle"`` or ``"shared"``.
        note: what Triton does, in words (or why it is not costed).
        opcodes: instructions per thread by opcode as they reach the PTX/AMDGCN
            (``{"shfl.sync.idx.b32": 4, "selp.b32": 2}``; ``st.shared.v4.b32`` …).
        instructions: the same per kind of :data:`~linlayout.conversion.cost.KINDS` (AMD
            ``ds_bpermute``/DPP/``v_permlane`` moves count as ``shfl``, ``v_cndmask`` as
            ``selp``, ``v_perm`` as ``prmt``; ``ldmatrix``/``stmatrix`` as ``ld/st.shared``).
        wavefronts: shared-memory wavefronts per warp (store plus load).
        scratch_bytes: shared memory per CTA (one round of the scratch layout).
        barriers: ``bar.sync`` per conversion.
        cost: the weighted cost per warp, or None when not costed (a shuffle conversion whose
            bases are not a permutation of hardware bits, a scratch side the bank counter
            does not model).
        scratch: on a costed shared path, the scratch layout and each side's report
            (:class:`~.round_trip.ScratchRoundTrip`; left out of :meth:`to_dict`), else None.
    """

    target: str
    path: str
    note: str
    opcodes: dict[str, int] = field(default_factory=dict)
    instructions: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    wavefronts: int = 0
    scratch_bytes: int = 0
    barriers: int = 0
    cost: float | None = None
    scratch: ScratchRoundTrip | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field."""
        return {"target": self.target, "path": self.path, "note": self.note,
                "opcodes": dict(self.opcodes), "instructions": dict(self.instructions),
                "wavefronts": self.wavefronts, "scratch_bytes": self.scratch_bytes,
                "barriers": self.barriers, "cost": self.cost}


def kind_of(opcode: str) -> str:
    """The cost kind (:data:`~linlayout.conversion.cost.KINDS`) of an emitted register or
    shared-memory opcode: ``shfl.*``, ``ds_bpermute_b32``, ``v_mov_b32_dpp``,
    ``v_permlane*`` → ``shfl``; ``selp.*``, ``v_cndmask_b32`` → ``selp``; ``prmt.b32``,
    ``v_perm_b32`` → ``prmt``; stores (``st.shared``, ``stmatrix``, ``ds_write``) →
    ``st.shared``; loads → ``ld.shared``; ``mov`` otherwise.

    Raises:
        LayoutError: ``opcode`` is not a string.
    """
    op = string(opcode, "opcode").lower()
    if op.startswith(("shfl", "ds_bpermute", "v_mov_b32_dpp", "v_permlane", "ds_swizzle")):
        return "shfl"
    if op.startswith(("selp", "v_cndmask")):
        return "selp"
    if op.startswith(("prmt", "v_perm")):
        return "prmt"
    if op.startswith(("st", "ds_write")):
        return "st.shared"
    if op.startswith(("ld", "ds_read")):
        return "ld.shared"
    return "mov"


def selector_selects(low: WarpShuffleLowering) -> int:
    """The selects of a shuffle lowering that only pick a lane's ``prmt`` selector: a select
    of two constant selectors on a lane bit (``transferWithinWarp`` emits one per distinct
    pair, shared by every register pair; ``selp.b32`` of two immediates in the PTX). They are
    among ``low.counts["select"]`` and the emitted ``selp``/``v_cndmask_b32``.

    Raises:
        LayoutError: ``low`` is not a WarpShuffleLowering.

    Source: :func:`~linlayout.lowering.shuffle.live_prmt_selectors` (two constants each).
    """
    instance_of(low, WarpShuffleLowering, "low")
    return len(live_prmt_selectors(low)) // 2


def register_kinds(opcodes: Mapping[str, int], low: WarpShuffleLowering | None = None
                   ) -> dict[str, int]:
    """Emitted register instructions per thread (``{"shfl.sync.idx.b32": 2, "selp.b32": 3}``)
    by cost kind (:data:`~linlayout.conversion.cost.KINDS`, :func:`kind_of`), the selects
    that only pick a ``prmt`` selector (:func:`selector_selects` of ``low``, the lowering
    that emitted them) moved from ``selp`` to ``selector``: lane-index arithmetic, priced by
    the ``selector`` weight (:mod:`~linlayout.conversion.cost`) on every path alike. The
    opcodes themselves are left as emitted (``check`` reports them as the PTX has them).

    Raises:
        LayoutError: ``opcodes`` not a mapping of opcode strings to counts ≥ 0, or ``low``
            of the wrong type.
    """
    if not isinstance(opcodes, Mapping):
        raise LayoutError(f"opcodes must be a mapping {{opcode: count}}, got {shown(opcodes)}")
    kinds = dict.fromkeys(KINDS, 0)
    for op, n in opcodes.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise LayoutError(f"the count of {shown(op)} must be an int >= 0, got {shown(n)}")
        kinds[kind_of(op)] += n
    if low is not None:
        moved = min(kinds["selp"], selector_selects(low))
        kinds["selp"] -= moved
        kinds["selector"] += moved
    return kinds


def resolve_conversion_target(target: Target | str | None, problem: ConversionProblem
                              ) -> Target:
    """``target`` parsed, or the hardware preset's default
    (:func:`~linlayout.lowering.target.default_target`).

    Raises:
        LayoutError: an unknown target, or one whose warp size differs from the hardware
            model's.
    """
    instance_of(problem, ConversionProblem, "problem")
    return target_for(target, problem.hardware)


def triton_choice(problem: ConversionProblem, target: Target | str,
                  weights: Mapping[str, float] | None = None,
                  source_load: tuple[int, int] | None = None,
                  packed_source: bool = False, *,
                  wide_source: bool = False) -> TritonChoice:
    """Triton 3.9's path for ``problem`` on ``target`` and its cost under ``weights``.

    Args:
        problem: the validated conversion (:class:`~.problem.ConversionProblem`).
        target: the compilation target (a :class:`~linlayout.lowering.Target` or its text;
            :func:`resolve_conversion_target`).
        weights: weights (:func:`~.cost.resolve_weights`: overrides of the defaults).
        source_load: ``(dim, contiguity_elems)`` of the global load that produced the
            source, as :func:`~linlayout.lowering.convert_path` takes it (AMD packing); None:
            any other producer. ``check`` passes the same, so both count one convert alike.
        packed_source: the source is a float truncation of 32-bit values to 16 bits, which
            builds its packed registers itself (AMD: no ``v_perm_b32`` to pack for a shuffle;
            :func:`~linlayout.lowering.convert_path`'s ``packed_source``).
        wide_source: the producer left each 8/16-bit element in a 32-bit register (a gather's
            or ``redux.sync`` reduction's result, :func:`linlayout.check.registers.
            wide_sources`): Triton's packing for a shuffle or a round trip is priced as
            ``check`` counts it (:func:`~linlayout.lowering.convert_path`'s ``wide_source``).

    Returns:
        A :class:`TritonChoice` (``cost`` None when Triton's instructions are not modelled;
        an AMD 8-bit register renaming priced with its in-thread ``v_perm_b32``, as
        ``check`` counts them).

    Raises:
        LayoutError: ``problem`` not a ConversionProblem, an unknown target, bad weights, a
            bad ``source_load``, ``packed_source`` or ``wide_source`` not a bool.

    Source: ``ConvertLayoutOpToLLVM.cpp`` (``matchAndRewrite``, ``transferWithinWarp``,
    ``transferWithinBlockSwizzling``) and ``lib/Tools/GenericSwizzling.cpp``, Triton 3.9.
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    weights = resolve_weights(weights)
    src, dst, bits = problem.src, problem.dst, problem.element_bits
    cp = convert_path(src, dst, bits, target, source_load, packed_source=packed_source,
                      wide_source=wide_source)
    if cp.path == "none":
        return TritonChoice(target.name, "none", "the layouts are equal: no code", cost=0.0)
    if cp.path == "registers":
        if not cp.counts:
            return TritonChoice(target.name, "registers",
                                "register renaming in each thread: no instructions", cost=0.0)
        # AMD 8-bit: ConvertLayoutOpInThreadSwap packs and permutes bytes (v_perm_b32), the
        # instructions check counts for the convert
        kinds = register_kinds(cp.counts)
        return TritonChoice(target.name, "registers",
                            "register renaming in each thread, bytes moved by in-thread "
                            "permutes (ConvertLayoutOpInThreadSwap)", dict(cp.counts), kinds,
                            cost=path_cost(kinds, 0, weights))
    if cp.path == "shuffle":
        if cp.counts is None:
            return TritonChoice(target.name, "shuffle", "warp shuffles; not counted (the "
                                "bases are not a permutation of hardware bits)")
        kinds = register_kinds(cp.counts, cp.lowering)
        return TritonChoice(target.name, "shuffle",
                            "warp shuffles (transferWithinWarp)", dict(cp.counts), kinds,
                            cost=path_cost(kinds, 0, weights))
    plan = triton_scratch_layout(src, dst, bits,
                                 **target.scratch_options())
    barriers = 2 * plan.reps - 1
    scratch = (1 << len(plan.memory.columns)) // plan.reps * max(8, bits) // 8
    rounds = f"{plan.reps} round{'s' if plan.reps > 1 else ''}"
    try:
        transfer = Transfer.make(drop_broadcast_registers(src), drop_broadcast_registers(dst),
                                 element_bits=max(8, bits), hardware=problem.hardware)
        memory = offset_layout(plan.memory)
        sides = lower_sides(memory, transfer, target)
    except LayoutError as exc:
        return TritonChoice(target.name, "shared", f"a round trip through Triton's scratch "
                            f"layout ({rounds}); not costed: {exc}", barriers=barriers,
                            scratch_bytes=scratch)
    opcodes: dict[str, int] = {}
    kinds = dict.fromkeys(KINDS, 0)
    kinds["bar.sync"] = barriers
    wavefronts = 0
    for s in sides:
        opcodes[s.emitted.opcode] = opcodes.get(s.emitted.opcode, 0) \
            + s.report.instructions_per_warp
        kinds["st.shared" if s.side == "store" else "ld.shared"] += \
            s.report.instructions_per_warp
        wavefronts += s.report.wavefronts_per_warp
    packing = round_trip_packing(problem, memory, sides[0].emitted, sides[-1].emitted, target,
                                 source_load, packed_source, wide_source=wide_source)
    if packing:
        op = "prmt.b32" if target.is_nvidia else "v_perm_b32"
        opcodes[op] = packing
        kinds["prmt"] += packing
    return TritonChoice(target.name, "shared",
                        f"a round trip through Triton's scratch layout ({rounds}: "
                        f"{plan.store_tile} store, {plan.load_tile} load"
                        + (f"; {packing} byte permutes to pack and unpack" if packing else "")
                        + ")", opcodes, kinds,
                        wavefronts, scratch, barriers, path_cost(kinds, wavefronts, weights),
                        ScratchRoundTrip(plan.memory, sides[0].report, sides[-1].report,
                                         plan.reps))
