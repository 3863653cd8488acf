"""Shared-memory loads that not every warp executes: ptxas sinks them under the predicate
of the store that ends the kernel.

Triton 3.9 predicates every global ``tt.store`` with its *redundant-thread* mask: of the
threads holding copies of one element only the one whose free-variable bits are all zero
stores (``StoreOpConversion`` in ``LoadStoreOpToLLVM.cpp``, the mask from
``getFreeVariableMasks`` of the stored value's layout). The ``ld.shared`` instructions that
read the stored value back from a convert's scratch (or a ``local_load``) are emitted
unpredicated before the ``@p st.global`` instructions. ptxas turns the kernel's *last*
predicated store into an early exit (``@!p EXIT`` then the store, unpredicated) and moves
below that exit the loads whose values only that last store uses; the earlier stores stay
predicated (``@p STG``) and the loads feeding them stay above. So:

* the loads that can sink are those whose registers all go to the last store instruction:
  with Triton's register order (a vector instruction takes consecutive registers, the last
  store the last ``w`` of them), ``w / v`` of the ``v``-element loads when ``v`` divides the
  last store's ``w`` elements, else none. When that is the thread's one load feeding its one
  store, it sinks (every such kernel measured); when the thread has several loads or
  stores, ptxas's scheduler decides whether the last loads sink or are hoisted with the
  others (measured both ways), and check reports both outcomes (``may_sink``);
* a warp none of whose threads store never executes them: the warps that do are the
  ``num_warps / 2^k`` whose ``k`` free warp bits (of the stored layout) are zero;
* in those warps only the threads that store execute them (free lane bits zero): a phase
  with no such lane is skipped, so each free lane bit that selects the phase (a bit at or
  above ``lanes_per_phase``) halves the load's phases. Free lane bits inside a phase only
  remove lanes whose addresses another lane of the phase reads anyway (for accesses of at
  most 4 bytes: same cost); for 8- and 16-byte loads they interact with return packing and
  are not measured, so such loads keep their all-lanes count (with a note).

``ldmatrix`` (``.sync.aligned``: every lane of the warp must execute it) never sinks.

Measured on an H100 (``papers/hardware/README.md``, Triton kernels, Nsight Compute's
per-instruction counters): ``tk_max1_f16_w8``'s one ``LDS.U16`` ran in 1 of 8 warps; a
draw of nine kernels made after the first rule (``tk_sink*``, ``tg_sink*``) showed the
loads feeding earlier stores staying above the exit (three Gluon converts stored with
2–8 ``st.global`` per thread); a second draw of ten (``*_sinkb*``) gave 9 of 10, and its
tenth showed the last of eight ``LDS.128`` sinking alone, its phases halved twice by free
lane bits 3 and 4 (1 wavefront, not 4), where an earlier kernel of the same shape
(``tg_sink0``) had hoisted it. The rule is applied to NVIDIA targets only; AMD's back end is
not modelled here (no measurement).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from ..._checks import instance_of
from ...errors import LayoutError
from ...lowering.target import Target
from ...triton.ttgir import Access, TTGIRModule

__all__ = ["PURE_OPS", "SunkStore", "executing_warps", "sunk_loads_per_thread"]

#: Ops that may sit between the load and the kernel's end without stopping ptxas from
#: sinking the load: side-effect free arithmetic on registers (pointer and mask arithmetic).
PURE_OPS = frozenset({"tt.splat", "tt.broadcast", "tt.addptr", "tt.make_range",
                      "tt.expand_dims", "tt.get_program_id", "tt.get_num_programs"})
_PURE_PREFIXES = ("arith.", "math.")
_NAME = re.compile(r"%[\w$.-]+")
_OP = re.compile(r'^\s*(?:%[\w$.:#-]+(?:\s*,\s*%[\w$.:#-]+)*\s*=\s*)?"?([a-z_]+\.[\w.]+)')
_LOC = re.compile(r"\s+loc\(.*\)\s*$")


def _op_name(line: str) -> str | None:
    m = _OP.match(line)
    return m.group(1) if m else None


@dataclass(frozen=True)
class _TailIndex:
    """What :func:`executing_warps` asks of every line of a module, found in one pass (a scan
    from each op to the kernel's end cost ops × lines: 20,000 loads took minutes).

    ``stop[j]``: the first line index at or after ``j`` that is ``tt.return`` or an op other
    than a store or a pure op (``len(stop)`` if none); ``returns[j]``: line ``j`` is a
    ``tt.return``; ``last_store[j]``: the last ``tt.store`` in ``[j, stop[j])`` (-1 if none);
    ``names[j]``: the SSA names of a store line; ``uses``: per SSA name, the line indices of
    the pure ops and stores that name it, ascending."""

    stop: tuple[int, ...]
    returns: tuple[bool, ...]
    last_store: tuple[int, ...]
    names: dict[int, list[str]]
    uses: dict[str, list[int]]


def _tail_index(module: TTGIRModule) -> _TailIndex:
    """The module's :class:`_TailIndex`, built once and kept on the module."""
    index = module.__dict__.get("_sunk_tail_index")
    if index is None:
        index = _build_tail_index(module.text)
        object.__setattr__(module, "_sunk_tail_index", index)  # a cache, not a field
    return index


def _build_tail_index(text: str) -> _TailIndex:
    lines = text.split("\n")
    n = len(lines)
    kinds = bytearray(n)  # 0 skipped, 1 pure, 2 store, 3 return, 4 anything else
    names: dict[int, list[str]] = {}
    uses: dict[str, list[int]] = {}
    for j, line in enumerate(lines):
        line = _LOC.sub("", line).strip()
        if not line or line.startswith("//"):
            continue
        op = _op_name(line)
        if op == "tt.return":
            kinds[j] = 3
            continue
        if op == "tt.store":
            kinds[j] = 2
        elif op is not None and (op in PURE_OPS or op.startswith(_PURE_PREFIXES)):
            kinds[j] = 1
        else:
            kinds[j] = 4
            continue
        found = _NAME.findall(line)
        if kinds[j] == 2:
            names[j] = found
        for x in dict.fromkeys(found if kinds[j] == 2 else found[1:]):
            uses.setdefault(x, []).append(j)
    stop = [n] * n
    last_store = [-1] * n
    at, seg_last = n, -1
    for j in range(n - 1, -1, -1):
        if kinds[j] >= 3:
            at, seg_last = j, -1
        elif kinds[j] == 2 and seg_last < 0:
            seg_last = j
        stop[j] = at
        last_store[j] = seg_last
    return _TailIndex(tuple(stop), tuple(k == 3 for k in kinds), tuple(last_store), names,
                      uses)


@dataclass(frozen=True)
class SunkStore:
    """The store whose predicate a load may sink under, and who executes it.

    Attributes:
        line: the ``tt.store``'s line.
        warps: warps of the CTA with at least one storing thread.
        free_lanes: the stored layout's free lane bits (threads whose bits there are not all
            zero do not store).
    """

    line: int
    warps: int
    free_lanes: int


def executing_warps(module: TTGIRModule, access: Access, target: Target) -> SunkStore | None:
    """The store ending the kernel under whose predicate the loads of ``access`` (a
    ``ttg.convert_layout`` through shared memory or a ``ttg.local_load``) may sink, with the
    warps and lanes that execute it; None when no load of it can sink.

    The rule applies when: the target is NVIDIA; the op's result is used only as the value
    operand of one ``tt.store``, the kernel's last; every op after it up to ``tt.return`` is
    a store or side-effect free (:data:`PURE_OPS`, ``arith.*``, ``math.*``), at the function's top level
    (no region ends before the return); and the stored layout has free warp or lane bits
    (threads holding copies of other threads' elements). Which of the op's loads sink is
    :func:`sunk_loads_per_thread`.

    Args:
        module: the parsed TTGIR (:func:`~linlayout.triton.ttgir.read_ttgir`), with its text.
        access: one of its accesses of kind ``"convert"`` or ``"load"``.
        target: the module's target.

    Returns:
        A :class:`SunkStore` (``warps`` = ``num_warps / 2^k`` for ``k`` free warp bits of
        the stored layout), or None.

    Raises:
        LayoutError: an argument of the wrong type; the stored layout has no linear form
            (from ``TritonType.layout``).

    Source: Triton ``StoreOpConversion`` (``LoadStoreOpToLLVM.cpp``) and
    ``getFreeVariableMasks`` (``LinearLayout.cpp``) for the predicate; ptxas's placement
    measured on an H100 (module docstring).
    """
    instance_of(module, TTGIRModule, "module")
    instance_of(access, Access, "access")
    instance_of(target, Target, "target")
    if not target.is_nvidia or access.kind not in ("convert", "load") or not access.result:
        return None
    if access.op not in ("convert_layout", "local_load"):
        return None
    stored = access.destination if access.kind == "convert" else access.distributed
    if stored is None or stored.kind != "tensor":
        return None
    name = access.result
    tail = _tail_index(module)
    start = access.line  # index of the line after the op
    if start >= len(tail.stop):
        return None
    end = tail.stop[start]
    if end == len(tail.stop) or not tail.returns[end]:
        return None  # a region end, a barrier, another memory op … before tt.return
    last = tail.last_store[start]
    if last < 0:
        return None
    uses = tail.uses.get(name, ())
    k = bisect.bisect_left(uses, start)
    if k + 1 > len(uses) or uses[k] != last or (k + 1 < len(uses) and uses[k + 1] < end):
        # no use, a use by something other than the last store, or a store after the one
        # using it
        return None
    operands = tail.names[last]
    if len(operands) < 2 or operands[1] != name or operands[0] == name \
            or operands[2:].count(name):
        return None  # used as a pointer or mask
    users = [last + 1]
    if len(users) != 1:
        return None
    masks = stored.layout.free_variable_masks()
    warp_mask, lane_mask = masks.get("warp", 0), masks.get("lane", 0)
    if not (warp_mask or lane_mask):
        return None
    warps = module.warps_at(access.line)[0] or stored.layout.in_dims.get("warp", 1)
    return SunkStore(users[0], warps >> bin(warp_mask).count("1"), lane_mask)


def sunk_loads_per_thread(load_per_thread: int, load_vector_elems: int,
                          store_per_thread: int, store_vector_elems: int) -> int:
    """How many of a thread's ``load_per_thread`` loads (``load_vector_elems`` registers
    each) sink below the early exit: those whose registers all go to the last of the
    thread's ``store_per_thread`` global stores (``store_vector_elems`` registers each), the
    last ``store_vector_elems / load_vector_elems`` loads when that divides, else 0.

    Both cover the same registers in order, consecutive registers per vector (Triton's
    ``transferWithinBlockSwizzling`` loads and ``StoreOpConversion`` stores vectorise over
    the lowest register bits); when the totals differ nothing is claimed (0).

    Raises:
        LayoutError: a count or width below 1.
    """
    for name, v in (("load_per_thread", load_per_thread),
                    ("load_vector_elems", load_vector_elems),
                    ("store_per_thread", store_per_thread),
                    ("store_vector_elems", store_vector_elems)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise LayoutError(f"{name} must be a positive int, got {v!r}")
    if load_per_thread * load_vector_elems != store_per_thread * store_vector_elems:
        return 0
    if store_vector_elems % load_vector_elems:
        return 0
    return store_vector_elems // load_vector_elems
