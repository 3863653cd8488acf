"""The copies of a convert's Swap selects that LLVM's AMDGPU back end makes where a predicated
store consumes them (:func:`copy_sunk_selects`). This models AMDGPU's code generation, not
Triton's lowering: Triton's LLVM IR has one select each.

Triton 3.9's AMD ``tt.store`` lowering puts each vector store behind its own branch when
the store is predicated (a mask, or the redundant-thread predicate of a layout that
broadcasts over lanes, warps or blocks: ``LoadStoreOpToLLVM.cpp``, ``llStore``): one
out-of-line block per store, each followed by a join block. A second-stage Swap select of a
warp-shuffle convert (:func:`linlayout.lowering.shuffle.post_shuffle_selects`) picks one
32-bit register, a packed word of 8/16-bit elements; when its elements go to two or more of
those stores, ``MachineSink`` moves the select to their nearest common dominator: the join
block before the first of them (the entry block when that is the first store). A join block
holding nothing else is then duplicated into its out-of-line predecessor by
``MachineBlockPlacement``'s tail duplication, select included: one ``v_cndmask_b32`` more.
A join block also receives every address part that two or more later stores share and
that no earlier store used (a row offset ``or``-ed and multiplied once, a column offset
``or``-ed once: one part per dim of the register's coordinates); such a block is too big to
duplicate and the select keeps one copy. A select whose elements all go to one store sinks
into that store's block and is not copied either.

Measured on compiled gfx942/gfx950 probes, the assembly of Triton's LLVM IR with ``-O3``
skipped (``papers/triton_lowering/producer_probes.py``, ``amd_producer_probes.py``,
``shuffle_probes.py``); after ``-O3`` the copies are gone (the final assembly keeps one
select each).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from ..._checks import instance_of, sequence_of
from ...errors import LayoutError
from ...lowering.shuffle import lower_warp_shuffle, post_shuffle_selects
from ...lowering.target import Target
from ...triton.axisinfo import analyse_axis_info
from ...triton.ttgir import Access, TTGIRModule
from ..global_memory.predict import predict_global
from ..shared_memory.predict import Prediction

__all__ = ["copy_sunk_selects", "sunk_select_copies"]

_STORE = re.compile(r"^\s*tt\.store\s+%[\w$.-]+\s*,\s*(%[\w$.-]+)")
_SELECT = "v_cndmask_b32"


def sunk_select_copies(words: tuple[tuple[int, ...], ...], coords: list[tuple[int, ...]],
                       vec: int) -> int:
    """``v_cndmask_b32`` copies tail duplication adds for the second-stage Swap selects of one
    convert whose result a predicated store writes ``vec`` elements at a time (module
    docstring).

    Args:
        words: per select, the destination registers it fills
            (:func:`~linlayout.lowering.shuffle.post_shuffle_selects`).
        coords: per non-broadcast destination register, in order, its register part of the
            tensor coordinates (the layout applied to the register alone).
        vec: elements per vector store.

    Raises:
        LayoutError: ``vec`` not a positive int, or a register of ``words`` outside
            ``coords``.
    """
    if not isinstance(vec, int) or isinstance(vec, bool) or vec < 1:
        raise LayoutError(f"vec must be a positive int, got {vec!r}")
    if any(r < 0 or r >= len(coords) for w in words for r in w):
        raise LayoutError(f"a select's register is outside the {len(coords)} destination "
                          "registers")
    first: dict = {}
    uses: Counter = Counter()
    for store in range(0, len(coords), vec):
        parts = {(d, x) for d, x in enumerate(coords[store]) if x} if len(coords[store]) > 1 \
            else set()  # one dim: each store's whole offset is its own, in its own block
        for p in parts:
            first.setdefault(p, store // vec)
            uses[p] += 1
    busy = {s for p, s in first.items() if uses[p] > 1}
    copies = 0
    for w in words:
        stores = {r // vec for r in w}
        head = min(stores)
        if len(stores) > 1 and head > 0 and head not in busy:
            copies += 1
    return copies


def _predicated(op) -> bool:
    layout = op.pointer_type.layout
    return op.mask is not None or any(
        not any(b) for d in ("lane", "warp", "block") for b in layout.bases.get(d, []))


def copy_sunk_selects(pairs: list, module: TTGIRModule, target: Target) -> list:
    """``pairs`` (``(Access, Prediction | LayoutError)``, as
    :func:`~linlayout.check.shared_memory.ops.predict_module` builds them) with, on AMD, each
    warp-shuffle convert's ``v_cndmask_b32`` count raised by the copies of its Swap selects
    that the AMDGPU back end makes under a predicated ``tt.store`` of its result
    (:func:`sunk_select_copies`), and a note saying how many. Other ops pass unchanged.

    Raises:
        LayoutError: ``pairs`` is not a sequence of pairs, ``module`` not a TTGIR module or
            ``target`` not a Target.
    """
    sequence_of(pairs, tuple, "pairs")
    instance_of(module, TTGIRModule, "module")
    instance_of(target, Target, "target")
    if target.is_nvidia:
        return list(pairs)
    wanted = {}
    for a, pred in pairs:
        if isinstance(pred, Prediction) and a.kind == "convert" and a.result and \
                any(e.opcode == _SELECT and e.per_thread for e in pred.registers) and \
                not any(e.opcode.startswith("v_permlane") for e in pred.registers):
            wanted[a.result] = a
    if not wanted:
        return list(pairs)
    axis = analyse_axis_info(module)
    stores: dict = {}
    for op in axis.global_ops:
        m = _STORE.match(op.text)
        if m and m.group(1) in wanted:
            stores.setdefault(m.group(1), []).append(op)
    extra: dict[int, int] = {}
    for name, ops in stores.items():
        a = wanted[name]
        if len(ops) != 1 or ops[0].pointer_type is None or ops[0].pointer_type.kind != "tensor":
            continue
        try:
            n = _copies(a, ops[0], axis, target) if _predicated(ops[0]) else 0
        except LayoutError:
            continue  # the store or the convert is reported on its own
        if n:
            extra[a.line] = n
    out = []
    for a, pred in pairs:
        n = extra.get(a.line) if isinstance(pred, Prediction) else None
        if n:
            regs = tuple(replace(e, per_thread=e.per_thread + n) if e.opcode == _SELECT else e
                         for e in pred.registers)
            note = (f"{n} Swap select{'s' if n != 1 else ''} copied by AMDGPU's tail "
                    "duplication under the predicated store (LLVM's back end, not Triton)")
            pred = replace(pred, registers=regs, note=f"{pred.note}; {note}")
        out.append((a, pred))
    return out


def _copies(a: Access, store, axis, target: Target) -> int:
    dst = a.destination.layout
    low = lower_warp_shuffle(a.distributed.layout, dst, max(8, a.element_bits))
    if low.method != "swap":
        return 0
    words = post_shuffle_selects(low)
    if not words:
        return 0
    vec = predict_global(store, axis, target).vector_elems
    cols = [i for i, b in enumerate(dst.bases["register"]) if any(b)]
    coords = []
    for r in range(1 << len(cols)):
        full = sum(1 << cols[b] for b in range(len(cols)) if r >> b & 1)
        coords.append(tuple(dst.apply({"register": full}).values()))
    return sunk_select_copies(words, coords, vec)
