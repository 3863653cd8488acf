"""Layouts as Gluon source: the Python expression that builds the same layout in a Gluon kernel.

Gluon (``triton.experimental.gluon.language``, imported as ``gl``) writes Triton's encodings
as Python objects. :func:`to_gluon` returns the constructor call for a linlayout layout:

* shared memory — what :func:`linlayout.triton.express` picks (the same choice as
  :func:`~linlayout.triton.to_triton_text`): ``gl.SwizzledSharedLayout(vec=…, per_phase=…,
  max_phase=…, order=[…])``, ``gl.NVMMASharedLayout(swizzle_byte_width=…,
  element_bitwidth=…, …)``, else ``gl.SharedLinearLayout(offset_bases=[…])``;
* distributed — the named encoding :func:`linlayout.triton.recognize.recognize_distributed`
  finds (``gl.NVMMADistributedLayout``, ``gl.DotOperandLayout``, ``gl.BlockedLayout``), else
  ``gl.DistributedLinearLayout(reg_bases=…, lane_bases=…, warp_bases=…, block_bases=…,
  shape=[…])``.

Arguments equal to the Gluon defaults are left out (``rank=2``, ``transposed=False``,
``cga_layout=[]``, ``alignment=16``). :func:`gluon_source` writes one encoding. Nothing here
imports Triton; ``tests/data/gluon_roundtrip.json`` (written with Triton 3.9 by
``papers/cute_gluon/generate_gluon_fixtures.py``) records what Triton's own
``to_linear_layout`` makes of the emitted source.

Source: Gluon's ``python/triton/experimental/gluon/language/_layouts.py`` (the constructors'
signatures), ``layoutToGluon`` in ``python/src/gluon_ir.cc`` (the attribute → object map).
"""

from __future__ import annotations

from collections.abc import Sequence

from .._checks import instance_of, log2_exact
from ..errors import LayoutError
from ..hardware.kinds import is_distributed
from ..layout import LinearLayout
from ..lowering.target import Target
from .encodings import Encoding, LinearEncoding
from .recognize import distributed_bases, recognize_distributed
from .to_triton import express

__all__ = ["gluon_source", "to_gluon"]

_IN_DIMS = ("register", "lane", "warp", "block")


def gluon_source(enc: Encoding, shape: Sequence[int] | None = None, *,
                 module: str = "gl") -> str:
    """The Gluon constructor call for one Triton encoding: ``enc.gluon(shape, module=…)``.

    Args:
        enc: a :mod:`linlayout.triton.encodings` value: blocked, slice, nvidia_mma, dot_op,
            linear, swizzled_shared, nvmma_shared or shared_linear.
        shape: the tensor shape; needed for ``linear`` (``gl.DistributedLinearLayout`` takes
            it).
        module: the name the kernel imported ``triton.experimental.gluon.language`` as.

    Raises:
        LayoutError: an encoding Gluon cannot build this way (``amd_rotating_shared``; the
            AMD encodings are not written here), or ``linear`` without a shape.

    Example::

        >>> from linlayout.triton import nvmma_shared
        >>> gluon_source(nvmma_shared(128, 16))
        'gl.NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16)'
    """
    instance_of(enc, Encoding, "enc")
    return enc.gluon(shape, module=module)


def to_gluon(layout: LinearLayout, element_bits: int | None = None, *,
             prefer: str = "swizzled", module: str = "gl", target: str | None = None,
             operand: int | None = None) -> str:
    """Gluon source for a linlayout layout (module docstring).

    Args:
        layout: a distributed layout (in dims among ``register, lane, warp, block``) or a
            shared-memory layout (``offset`` [+ ``block``], or ``vector, bank, segment``
            [+ ``reps``]); out dims ``dim0 … dim{r-1}``.
        element_bits: element width (None, or a positive power of two), needed to name an
            ``NVMMASharedLayout`` (8, 16, 32, 64).
        prefer: ``"swizzled"`` or ``"nvmma"`` when both name a shared layout (as
            :func:`linlayout.triton.express`).
        module: the name of the Gluon language module in the kernel (``gl``).
        target: for a distributed layout, the target the kernel is compiled for
            (``"cuda:80"``, ``"sm90"``, ``"hip:gfx942"``, …): below sm_90 and on AMD no
            ``version=[3, 0]`` (wgmma) layout is named, only what the target accepts
            (:func:`~linlayout.triton.recognize.recognize_distributed`). None: the first
            exact encoding, which may be a Hopper one.
        operand: for a distributed layout that feeds a dot, 0 (A) or 1 (B): it is named as
            ``gl.DotOperandLayout`` when it is that operand, even where an accumulator
            layout is the same.

    Returns:
        One Python expression, e.g. ``gl.SwizzledSharedLayout(vec=8, per_phase=1,
        max_phase=8, order=[1, 0])``.

    Raises:
        LayoutError: ``target`` not a target, ``element_bits`` neither None nor a positive
            power of two, not a layout of either kind, out dims not
            ``dim0 …``, a shared layout
            that is not a bijection, or a distributed layout no Gluon layout expresses: Triton
            3.9 verifies that a distributed layout is surjective and, for
            ``gl.DistributedLinearLayout``, that its nonzero bases are distinct single bits (a
            permutation matrix once broadcasts are removed).

    Example::

        >>> from linlayout.cute import atom, parse_layout
        >>> to_gluon(parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)"))
        'gl.SwizzledSharedLayout(vec=8, per_phase=1, max_phase=8, order=[1, 0])'
        >>> to_gluon(atom("sm90_64x64.C"))
        'gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[4, 1], instr_shape=[16, 64, 16])'
    """
    if not isinstance(layout, LinearLayout):
        raise LayoutError(f"layout must be a LinearLayout, got {type(layout).__name__}")
    if target is not None:
        Target.parse(target)  # a malformed target is refused for either kind of layout
    if element_bits is not None:
        log2_exact(element_bits, "element_bits")
    if is_distributed(layout):
        if not layout.is_surjective:
            raise LayoutError("Triton requires a distributed layout to be surjective (every "
                              "tensor element held by some thread); this one is not")
        enc = recognize_distributed(layout, target=target, operand=operand)
        shape = list(layout.out_dims.values())
        if enc is not None:
            return gluon_source(enc, shape, module=module)
        lanes = 64 if len(layout.bases.get("lane", [])) > 5 or (
            target is not None and Target.parse(target).threads_per_warp == 64) else 32
        b = distributed_bases(layout, lanes)
        seen: set[tuple[int, int]] = set()
        for dim in _IN_DIMS:
            for i, v in enumerate(b[dim]):
                nz = [(d, x) for d, x in enumerate(v) if x]
                if not nz:
                    continue
                if len(nz) > 1 or nz[0][1] & (nz[0][1] - 1) or nz[0] in seen:
                    raise LayoutError(
                        f"{dim} basis {i} = {v} is not a new single bit of one dim; Triton "
                        "3.9's gl.DistributedLinearLayout (LinearEncodingAttr) requires the "
                        "bases, broadcasts removed, to be a permutation matrix, so no Gluon "
                        "layout expresses this one"
                    )
                seen.add(nz[0])
        return gluon_source(LinearEncoding(b["register"], b["lane"], b["warp"], b["block"],
                                           len(shape)), shape, module=module)
    return gluon_source(express(layout, element_bits, prefer=prefer), module=module)
