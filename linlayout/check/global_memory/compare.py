"""How an AMD kernel's final global loads and stores compare with ``check``'s global rows:
:func:`amd_merge_outcome`, for the fixture replays and ``papers/global_memory/amd_merges.py``.

``check`` counts Triton's IR (:attr:`GlobalPrediction.per_thread`) and, where LLVM's back end
may merge a thread's run of consecutive accesses, the merged instruction
(:attr:`GlobalPrediction.may_merge`). The final AMDGCN then has, per op, Triton's count, the
merged one, or (some runs merged) one between; an atomic LLVM expands into compare-and-swap
loops adds the load each loop begins with (:attr:`GlobalPrediction.loop_load`).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from ..._checks import instance_of
from ...errors import LayoutError
from .report import GlobalOpReport

__all__ = ["AGREES", "AMD_VARIANTS", "amd_merge_outcome", "normalise_amd_counts"]

#: the outcomes of :func:`amd_merge_outcome` that ``check``'s rows allow: Triton's count, the
#: merged one, or between them as LLVM merges some runs or ops and not others
AGREES = ("as counted", "merged", "some merged", "between")

#: opcode spellings of one width and count that the final AMDGCN picks from how the value is
#: used, not from the access: a sign-extending load (``global_load_sbyte``/``_sshort``) and a
#: store of a register's high half (``global_store_byte_d16_hi``/``_short_d16_hi``)
AMD_VARIANTS = (("_sbyte", "_ubyte"), ("_sshort", "_ushort"), ("_d16_hi", ""))

_WIDTH = re.compile(r"_(ubyte|byte|ushort|short|dword|dwordx2|dwordx3|dwordx4)$")
_BYTES = {"ubyte": 1, "byte": 1, "ushort": 2, "short": 2, "dword": 4, "dwordx2": 8,
          "dwordx3": 12, "dwordx4": 16}
#: the most ops with a ``may_merge`` whose merged-or-not combinations are tried one by one
_MAX_COMBINATIONS = 12


def normalise_amd_counts(counts: Mapping[str, int]) -> dict[str, int]:
    """``counts`` (AMDGCN opcode → static count) with the :data:`AMD_VARIANTS` spelled as
    their plain opcode, and only global/buffer loads and stores kept (no atomics, no
    direct-to-LDS ``global_load_lds_*``).

    Raises:
        LayoutError: ``counts`` is not a mapping of opcode strings to non-negative ints.
    """
    instance_of(counts, Mapping, "counts")
    for opcode, n in counts.items():
        if not isinstance(opcode, str) or isinstance(n, bool) or not isinstance(n, int) \
                or n < 0:
            raise LayoutError(f"counts must map opcode strings to counts (ints >= 0), got "
                              f"{opcode!r}: {n!r}")
    out: Counter = Counter()
    for opcode, n in counts.items():
        if not re.match(r"(global|buffer)_(load|store)_", opcode) or "_lds_" in opcode:
            continue
        for variant, plain in AMD_VARIANTS:
            opcode = opcode.replace(variant, plain)
        out[opcode] += n
    return dict(out)


def _nbytes(opcode: str) -> int:
    m = _WIDTH.search(opcode)
    return _BYTES[m.group(1)] if m else 0


def amd_merge_outcome(ops: Sequence[GlobalOpReport], counts: Mapping[str, int]) -> str:
    """How the final AMDGCN's global loads and stores (``counts``: opcode → static count per
    thread, the whole kernel) compare with ``check``'s rows ``ops`` of that kernel:

    * ``"as counted"``: equal to Triton's IR counts (no run merged);
    * ``"merged"``: equal with every ``may_merge`` taken;
    * ``"some merged"``: equal with the ``may_merge`` of some ops taken, the others not;
    * ``"between"``: per side (load, store) the same bytes as Triton's IR, in a count
      between the all-merged one and Triton's (runs merged in part, or to a narrower width);
    * ``"differs"``: none of these.

    Atomics, ``cp.async`` and AMD direct-to-LDS copies are left out on both sides, but the
    load each compare-and-swap loop of an atomic begins with
    (:attr:`~.predict.GlobalPrediction.loop_load`) counts on ``check``'s side in every
    outcome (a vector-memory one: not a scalar ``s_load_dword``); opcode variants are :func:`normalise_amd_counts`'s.

    Raises:
        LayoutError: ``ops`` is not a sequence of :class:`~.report.GlobalOpReport` or
            ``counts`` not a mapping of opcode strings to non-negative ints.
    """
    if not isinstance(ops, Sequence) or not all(isinstance(g, GlobalOpReport) for g in ops):
        raise LayoutError("ops must be a sequence of GlobalOpReport")
    final = normalise_amd_counts(counts)
    base: Counter = Counter()
    merges = []
    for g in ops:
        p = g.prediction
        if p is not None and p.loop_load is not None and \
                p.loop_load[0].startswith(("global_", "buffer_")):
            base[p.loop_load[0]] += p.loop_load[1]
        if p is None or p.side not in ("load", "store") or p.opcode.startswith("cp.async"):
            continue
        if p.may_merge is None:
            base[p.opcode] += p.per_thread
        else:
            merges.append(p)
    ir = base + Counter({p.opcode: 0 for p in merges})
    for p in merges:
        ir[p.opcode] += p.per_thread
    if dict(+ir) == final:
        return "as counted"
    if len(merges) <= _MAX_COMBINATIONS:
        for take in itertools.product((False, True), repeat=len(merges)):
            c = Counter(base)
            for t, p in zip(take, merges):
                m = p.may_merge
                assert m is not None
                c[m.opcode if t else p.opcode] += m.per_thread if t else p.per_thread
            if dict(+c) == final:
                return "merged" if all(take) else "some merged"
    most = Counter(base)
    for p in merges:
        m = p.may_merge
        assert m is not None
        most[m.opcode] += m.per_thread
    for side in ("load", "store"):
        def part(c: Mapping[str, int]) -> dict[str, int]:
            return {k: v for k, v in c.items() if v and f"_{side}_" in k}
        f, lo, hi = part(final), part(most), part(ir)
        if sum(_nbytes(k) * v for k, v in f.items()) != \
                sum(_nbytes(k) * v for k, v in hi.items()):
            return "differs"
        if not sum(lo.values()) <= sum(f.values()) <= sum(hi.values()):
            return "differs"
    return "between" if merges else "differs"
