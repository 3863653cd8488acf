"""The compilation target of a TTGIR module (:class:`~linlayout.lowering.target.Target`).

``ttg.target`` is ``"cuda:<compute capability>"`` (``"cuda:80"``, ``"cuda:90"``,
``"cuda:100"``) or ``"hip:<gfx arch>"`` (``"hip:gfx942"``, ``"hip:gfx950"``); warps have
``ttg.threads-per-warp`` lanes (32 on NVIDIA, 64 on AMD CDNA). Source: Triton's
``GPUTarget`` and the module attributes printed by ``ttg``'s ``ConvertTritonToTritonGPU``.
"""

from __future__ import annotations

import re

from .._checks import shown
from ..errors import LayoutError
from ..lowering.target import Target
from ..triton.limits import mlir_int

__all__ = ["Target", "check_lanes", "parse_target"]


def parse_target(text: str | None, threads_per_warp: int | None = None) -> Target:
    """The :class:`Target` of a ``ttg.target`` string; None means CUDA sm_80 for 32-lane
    modules and gfx942 for 64-lane ones.

    Args:
        text: ``ttg.target`` (``"cuda:90"``, ``"hip:gfx942"``) or None.
        threads_per_warp: the module's ``ttg.threads-per-warp``; None: the target's own (32
            on CUDA, 64 on HIP). It must be the target's own: the bank models are those of
            NVIDIA warps (32 lanes, PTX ISA §2.2) and AMD CDNA wavefronts (64 lanes, CDNA3
            ISA §1.1); a 32-lane AMD wave (RDNA, gfx1250) has no model here.

    Raises:
        LayoutError: a target that is neither ``cuda:<int>`` nor ``hip:<gfx…>``, or
            ``threads_per_warp`` other than the target's lanes per warp (a module with 64
            lanes on CUDA was counted with AMD's bank model, one with 32 on HIP with 64-lane
            wavefronts, both without a word).
    """
    if threads_per_warp is not None and (type(threads_per_warp) is not int
                                         or threads_per_warp not in (32, 64)):
        raise LayoutError(f"ttg.threads-per-warp is {shown(threads_per_warp)}; a warp has 32 "
                          "lanes on NVIDIA and 64 on AMD CDNA, and no other warp size is "
                          "modelled")
    if text is None:
        return Target("cuda", 80, 32) if threads_per_warp in (None, 32) else \
            Target("hip", "gfx942", threads_per_warp)
    m = re.fullmatch(r"cuda:(\d+)", text.strip())
    if m:
        target = Target("cuda", mlir_int(m.group(1), "ttg.target"), 32)
    else:
        m = re.fullmatch(r"hip:(gfx\w+)", text.strip())
        if not m:
            raise LayoutError(f"unknown ttg.target {text!r}; expected 'cuda:<cc>' (e.g. "
                              "'cuda:90') or 'hip:<gfx arch>' (e.g. 'hip:gfx942')")
        target = Target("hip", m.group(1), 64)
    if threads_per_warp is not None and threads_per_warp != target.threads_per_warp:
        why = ("CUDA warps have 32 lanes" if target.is_nvidia else
               "only AMD CDNA wavefronts of 64 lanes are modelled (not 32-lane RDNA/gfx1250 "
               "waves)")
        raise LayoutError(f"ttg.threads-per-warp = {threads_per_warp} with ttg.target "
                          f"{text.strip()!r}: {why}; fix the module's attributes")
    return target


def check_lanes(t: object, target: Target, ctas: int | None = None,
                warps: tuple[int | None, str] | None = None) -> None:
    """Refuse a tensor type whose layout spreads over another number of lanes than the
    target's warp has.

    Triton's verifier rejects such a module (every distributed encoding's lanes multiply to
    ``ttg.threads-per-warp``); counted anyway, a 16-lane layout was costed as a half-warp
    with the other lanes idle, and a 64-lane layout on CUDA not at all — numbers for code no
    compiler emits. ``t`` is a :class:`~linlayout.triton.parse.TritonType`; memdescs and
    types without an encoding pass. With ``ctas`` (the module's ``ttg.num-ctas``), the
    layout's ``block`` dim must hold that many CTAs, as the verifier also requires
    (``CTAsPerCGA = [1048576, 1048576]`` in a one-CTA module was counted as one element per
    thread, conflict-free). With ``warps`` (``(count, where it comes from)``, as
    :meth:`~linlayout.triton.ttgir.TTGIRModule.warps_at` gives for the op's line: the
    ``num_warps`` of its ``warp_specialize`` partition, else its function's ``ttg.num-warps``,
    else the module's; a count of None checks nothing), the layout's ``warp`` dim must be that count: a layout over 8 warps
    in a 4-warp kernel was counted for warps that do not exist, and one over the module's 4
    warps inside a 1-warp partition for warps that do not run the partition.

    Raises:
        LayoutError: a tensor layout whose ``lane`` dim is not ``target.threads_per_warp``,
            whose ``block`` dim is not ``ctas``, or whose ``warp`` dim is not the count of
            ``warps`` (also any error building the layout).

    Source: Triton 3.9's layout verifier (``TritonGPUAttrDefs.td`` / ``Dialect.cpp``:
    ``threadsPerWarp`` multiplies to the module's ``ttg.threads-per-warp``, ``CTAsPerCGA`` to
    its ``ttg.num-ctas``, ``warpsPerCTA`` to the warps of the op's context — the enclosing
    partition's ``num_warps``, the function's or the module's ``ttg.num-warps`` — checked by
    parsing with Triton 3.9: "Layout has 8 warps per CTA, but the context requires 4 warps per CTA").
    """
    if getattr(t, "kind", None) != "tensor" or getattr(t, "encoding", None) is None:
        return
    lanes = t.layout.in_dims.get("lane", 1)  # type: ignore[attr-defined]
    if lanes != target.threads_per_warp:
        raise LayoutError(f"a tensor layout over {lanes} lanes in a module whose warps have "
                          f"{target.threads_per_warp} (ttg.threads-per-warp): the encoding's "
                          "threadsPerWarp (or lane bases) must cover exactly one warp, as "
                          "Triton's verifier requires")
    blocks = t.layout.in_dims.get("block", 1)  # type: ignore[attr-defined]
    if ctas is not None and blocks != ctas:
        raise LayoutError(f"a tensor layout over {blocks} CTAs in a module of {ctas} "
                          "(ttg.num-ctas): the encoding's CTAsPerCGA (or block bases) must "
                          "cover exactly the cluster, as Triton's verifier requires")
    if warps is not None and warps[0] is not None:
        have = t.layout.in_dims.get("warp", 1)  # type: ignore[attr-defined]
        if have != warps[0]:
            raise LayoutError(f"a tensor layout over {have} warp{'s' if have != 1 else ''} "
                              f"where the op runs on "
                              f"{warps[0]} ({warps[1]}): the encoding's warpsPerCTA (or warp "
                              "bases) must cover exactly those warps, as Triton's verifier "
                              "requires")
