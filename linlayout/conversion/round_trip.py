"""The byte permutes a round trip through shared memory spends packing and unpacking, priced
alike for Triton's scratch layout and the planner's swizzled one.

A round trip stores each thread's source registers as vectors and loads the destination's
back. Elements under 32 bits are put into 32-bit words before a wide store and taken out
after a wide load: Triton 3.9 builds and splits LLVM vectors (``lowerLdStShared``,
``ConvertLayoutOpToLLVM.cpp``) and LLVM's instruction selection spends byte permutes on it
(:func:`~linlayout.lowering.round_trip_pack.round_trip_permutes`, measured on compiled
code: on NVIDIA three ``prmt.b32`` per 8-bit word stored 4 bytes or more at a time and four
per word of a multi-word 8-bit load; on AMD ``v_perm_b32`` by where the producer left the
elements). Both shared-memory paths — Triton's own (:mod:`.triton`) and the planner's
(:func:`~linlayout.plan_conversion`'s ``shared_memory`` family) — would be emitted through
the same vector stores and loads, so both are priced with that one rule, on their own
instructions and vectors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._checks import instance_of
from ..conflicts import ConflictReport
from ..layout import LinearLayout
from ..lowering import Target, access_map
from ..lowering.emitted import Emitted
from ..lowering.local import ld_st, matrix
from ..lowering.round_trip_pack import round_trip_permutes
from ..lowering.scratch import drop_broadcast_registers
from .problem import ConversionProblem

__all__ = ["ScratchRoundTrip", "offset_layout", "round_trip_packing", "side_emitted"]

@dataclass(frozen=True)
class ScratchRoundTrip:
    """A round trip through one given scratch layout (Triton's own, for the shared family's
    ``"triton scratch"`` variant), shaped like the parts of a
    :class:`~linlayout.SwizzleResult` a plan reports and the executor runs.

    Attributes:
        layout: the scratch layout (in dims ``vector, bank, segment, reps``), a bijection
            onto the tensor (:func:`~linlayout.conversion.execute_shared` runs it).
        store, load: each side's exact :class:`~linlayout.ConflictReport`.
        reps: rounds the conversion is split into.
    """

    layout: LinearLayout
    store: ConflictReport
    load: ConflictReport
    reps: int


_MATRIX = re.compile(r"^(ld|st)matrix\.x(\d)(\.trans)?$")


def offset_layout(memory: LinearLayout) -> LinearLayout:
    """A scratch layout (in dims such as ``vector, bank, segment, reps``, flattened in that
    order) as one ``offset`` in dim over the same tensor: offset bit ``i`` is the layout's
    ``i``-th input column (the flattening Triton's ``lowerLdStShared`` addresses by).

    Raises:
        LayoutError: ``memory`` is not a :class:`~linlayout.LinearLayout`.
    """
    instance_of(memory, LinearLayout, "memory")
    return LinearLayout.from_columns(memory.columns, {"offset": 1 << len(memory.columns)},
                                     dict(memory.out_dims))


def side_emitted(side: str, layout: LinearLayout, memory: LinearLayout, instruction: str,
                 vector_elems: int, element_bits: int, target: Target) -> Emitted:
    """The instruction one side of a round trip issues, as an
    :class:`~linlayout.lowering.emitted.Emitted` record.

    Args:
        side: ``"store"`` or ``"load"``.
        layout: the distributed layout of that side (broadcast registers dropped).
        memory: the scratch layout with one ``offset`` in dim (:func:`offset_layout`).
        instruction: the bank counter's instruction name (``"ld/st.shared"``,
            ``"ldmatrix.x4.trans"``, ``"stmatrix.x2"``, or an AMD LDS mnemonic).
        vector_elems: elements each lane moves per instruction.
        element_bits: bits per element.
        target: the compilation target.

    Raises:
        LayoutError: the layout does not fit the memory; no access of that width exists.
    """
    m = access_map(layout, memory, element_bits)
    found = _MATRIX.match(instruction)
    if found:
        return matrix(side, m, int(found.group(2)), bool(found.group(3)))
    if instruction == "ld/st.shared":
        return ld_st(side, m, target, vector_elems)
    bits = max(8, element_bits)
    return Emitted(side, instruction, max(1, m.registers_per_thread // vector_elems),
                   vector_elems, bits, vector_elems * bits // 8, instruction)


def round_trip_packing(problem: ConversionProblem, memory: LinearLayout,
                       store: Emitted, load: Emitted, target: Target,
                       source_load: tuple[int, int] | None = None,
                       packed_source: bool = False) -> int:
    """The byte permutes per thread (``prmt.b32``/``v_perm_b32``, kind ``prmt``) that pack
    ``problem``'s source into ``store`` and unpack ``load`` through ``memory`` (module
    docstring); 0 for 32- and 64-bit elements.

    Args:
        problem: the conversion.
        memory: the scratch layout with one ``offset`` in dim (:func:`offset_layout`).
        store, load: each side's instruction (:func:`side_emitted`).
        target: the compilation target.
        source_load, packed_source: where the producer left the source elements (AMD), as
            :func:`~linlayout.lowering.convert_path` takes them.

    Raises:
        LayoutError: an argument of the wrong type, or the source does not fit ``memory``.

    Source: :func:`~linlayout.lowering.round_trip_pack.round_trip_permutes`.
    """
    instance_of(problem, ConversionProblem, "problem")
    lean = drop_broadcast_registers(problem.src)
    bits = max(8, problem.element_bits)
    emitted = round_trip_permutes(lean, access_map(lean, memory, bits), (store,), (load,),
                                  problem.element_bits, target, source_load, packed_source)
    return sum(e.per_thread or 0 for e in emitted)
