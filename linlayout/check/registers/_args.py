"""Argument checks shared by the public functions of :mod:`linlayout.check.registers`."""

from __future__ import annotations

from typing import Any

from ..._checks import as_int, instance_of, log2_exact, sequence_of
from ...errors import LayoutError
from ...layout import LinearLayout
from ...lowering.target import Target
from ...triton.axisinfo import ModuleAxisInfo, analyse_axis_info
from ...triton.ttgir import TTGIRModule


def checked(layout: Any, axis: Any, target: Any, what: str = "operand") -> int:
    """``axis`` as an int after checking ``layout`` (a LinearLayout with out dim
    ``dim{axis}``) and ``target`` (a Target).

    Raises:
        LayoutError: any of them wrong.
    """
    instance_of(layout, LinearLayout, what)
    instance_of(target, Target, "target")
    if isinstance(axis, bool):
        raise LayoutError(f"axis must be an int, got {axis!r}")
    axis = as_int(axis, "axis")
    if f"dim{axis}" not in layout.out_dim_names:
        raise LayoutError(f"axis {axis} is not a dim of the {what} "
                          f"({dict(layout.out_dims)}); use an axis below "
                          f"{len(layout.out_dims)}")
    return axis


def bits_tuple(bits: Any) -> tuple[int, ...]:
    """Each operand's moved bits, checked (powers of two, 1 to 64).

    Raises:
        LayoutError: not a non-empty sequence of such ints.
    """
    out = sequence_of(bits, int, "operand_bits")
    if not out:
        raise LayoutError("operand_bits must name at least one operand's bits")
    for b in out:
        if isinstance(b, bool):
            raise LayoutError(f"operand_bits must be ints, got {b!r}")
        log2_exact(b, "operand bits", 1, 64)
    return tuple(out)


def module_axis(module: Any, axis: Any) -> ModuleAxisInfo:
    """``axis`` (Triton's AxisInfo of ``module``), computed when None, after checking
    ``module`` (a TTGIRModule) and ``axis`` (a ModuleAxisInfo or None).

    Raises:
        LayoutError: either of the wrong type.
    """
    instance_of(module, TTGIRModule, "module")
    if axis is not None:
        instance_of(axis, ModuleAxisInfo, "axis")
    return axis or analyse_axis_info(module)
