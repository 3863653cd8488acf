"""Shuffle plans built as select–shuffle–select stages, the construction of Triton 3.9's
``transferWithinWarp``, on every pair it applies to.

Triton factors the in-warp part of ``src⁻¹ ∘ dst`` into a register permutation, a lane
permutation and *mixed transpositions* (each exchanges one register bit with one lane bit;
``getWarpLayoutConvertDecomposition``, ``lib/Analysis/Utility.cpp``) and lowers them with
lane-conditional stages (:mod:`linlayout.lowering.shuffle`): per transposition a layer of
``selp`` — or, for elements packed below 32 bits, ``prmt`` byte permutes whose selector is
chosen per lane at run time (``selp`` of two constant selectors, shared by every register
pair) — then one shuffle per register, then the second layer. On gfx950 a transposition with
lane bit 4 or 5 is one ``v_permlane16/32_swap_b32`` per register pair instead
(``ConvertLayoutOpPermlaneSwap``, ``third_party/amd/lib/TritonAMDGPUToLLVM``).

Triton takes this path only when the factorisation has at most one transposition
(``cvtNeedsWarpShuffle``); the planner builds it for any number, costs it on the plan's
target as Triton would emit it (:func:`~linlayout.lowering.convert.shuffle_instructions`) and
keeps it when it beats the per-lane tables of :mod:`.shuffle` — so on every pair Triton
shuffles, the shuffle family costs at most what Triton's own lowering costs. The register
renaming before packing is solved from the stages rather than taken from the selector walk's
bookkeeping (:func:`~linlayout.lowering.shuffle.lower_warp_shuffle`), so every stage plan
reaches ``dst`` — on every bit permutation tried, packed 8- and 16-bit elements with any
number of transpositions included — and Triton 3.9's compiled stages, run lane by lane, do
the same with the same instructions (``papers/conversion/stage_probes.py``, Triton's
``force_warp_shuffle``). The value graph is still run, not trusted:
:func:`~linlayout.plan_conversion` keeps a stage plan only when
:func:`~linlayout.conversion.execute_plan` proves it reaches ``dst``. The construction needs
the in-warp conversion to be a permutation of register and lane bits (unit-vector bases);
otherwise no stage plan is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import instance_of
from ..errors import LayoutError
from ..lowering import Target
from ..lowering.amd_pack import source_words
from ..lowering.convert import check_source_load, shuffle_instructions
from ..lowering.shuffle import WarpShuffleLowering, lower_warp_shuffle
from .problem import ConversionProblem
from .shuffle import warp_map
from .triton import register_kinds

__all__ = ["StagePlan", "plan_stages"]


@dataclass(frozen=True)
class StagePlan:
    """A shuffle conversion as lane-conditional stages (module docstring).

    Attributes:
        target: the target the instructions are counted for (``"cuda:90"``, ``"hip:gfx950"``).
        method: ``"ship"`` (one transposition, one value per register pair shipped) or
            ``"swap"`` (stages around one shuffle per register), Triton's two methods.
        transpositions: the mixed register/lane transpositions it implements (Triton itself
            takes this path only for at most one).
        permlane: the stages run as gfx950 ``v_permlane*_swap`` instructions.
        opcodes: instructions per thread by opcode, as emitted on :attr:`target`.
        instructions: the same per kind of :data:`~linlayout.conversion.cost.KINDS`.
        lowering: the value graph (:class:`~linlayout.lowering.shuffle.WarpShuffleLowering`)
            the executor runs.
    """

    target: str
    method: str
    transpositions: int
    permlane: bool
    opcodes: dict[str, int]
    instructions: dict[str, int]
    lowering: WarpShuffleLowering

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: target, method, transpositions, permlane and opcodes (the
        value graph is left out)."""
        return {"stages": self.method, "target": self.target,
                "transpositions": self.transpositions, "permlane": self.permlane,
                "opcodes": dict(self.opcodes)}


def plan_stages(problem: ConversionProblem, target: Target | str,
                source_load: tuple[int, int] | None = None,
                packed_source: bool = False, *,
                wide_source: bool = False) -> StagePlan | None:
    """The stage plan of ``problem`` counted on ``target``, or None when data must cross
    warps or the in-warp conversion is not a permutation of register and lane bits.

    ``source_load``: ``(dim, contiguity_elems)`` when the source came from a global load
    with consecutive addresses along out dim ``dim`` — on AMD, packing 8/16-bit elements
    then costs what :func:`~linlayout.lowering.convert.convert_path` says for the same
    convert (:mod:`~linlayout.lowering.amd_pack`); None: one element per register.
    ``packed_source``: the source is a float truncation to 16 bits, whose packed registers
    cost nothing to build (AMD; :func:`~linlayout.lowering.convert.convert_path`).
    ``wide_source``: the producer left each 8/16-bit element in a 32-bit register (a gather's
    or ``redux.sync`` reduction's result): packing costs what
    :func:`~linlayout.lowering.convert.convert_path` says for the same convert (NVIDIA: one
    ``prmt.b32`` per word of two 16-bit elements). The selects that only pick a ``prmt``
    selector are counted as ``selector`` (:func:`~linlayout.conversion.triton.register_kinds`).

    Raises:
        LayoutError: ``problem`` is not a :class:`ConversionProblem`, an unknown target,
            ``source_load`` not ``(dim, contiguity)`` naming a dim of ``src``, or
            ``wide_source`` not a bool.

    Source: ``transferWithinWarp`` (``ConvertLayoutOpToLLVM.cpp``) and gfx950's
    ``ConvertLayoutOpPermlaneSwap``, Triton 3.9, as modelled by
    :func:`~linlayout.lowering.shuffle.lower_warp_shuffle`.
    """
    instance_of(problem, ConversionProblem, "problem")
    target = Target.parse(target)
    check_source_load(source_load, problem.src)
    if not isinstance(wide_source, bool):
        raise LayoutError(f"wide_source must be True or False, got {wide_source!r}")
    if warp_map(problem) is None or problem.lane_bits == 0 \
            or "register" not in problem.src.in_dims or "register" not in problem.dst.in_dims:
        return None  # nothing to exchange between lanes, or not a warp shuffle
    try:
        low = lower_warp_shuffle(problem.src, problem.dst, problem.element_bits)
    except LayoutError:
        return None
    words = None
    if not target.is_nvidia and problem.element_bits in (8, 16):
        words = (source_words(problem.src, problem.element_bits, *source_load)
                 if source_load is not None else
                 source_words(problem.src, problem.element_bits, wide=wide_source))
    opcodes = {e.opcode: e.per_thread
               for e in shuffle_instructions(low, target, words, packed_source=packed_source,
                                             wide_source=wide_source)}
    kinds = register_kinds(opcodes, low)
    permlane = any(op.startswith("v_permlane") for op in opcodes)
    return StagePlan(target.name, low.method, len(low.decomposition.transpositions),
                     permlane, opcodes, kinds, low)
