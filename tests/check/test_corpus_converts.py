"""No ``convert_layout`` of the committed Triton fixtures is left as
"no shared memory, nothing counted". Every convert gets its path and its instructions: a
round trip through shared memory (each side an instruction with its count per thread), warp
shuffles (their register instructions), or a register renaming (stated as no instructions:
a count of zero). The converts still left without a count are listed with the reason."""

from __future__ import annotations

from linlayout.check.shared_memory.ops import predict_module
from linlayout.triton.ttgir import read_ttgir
from tests.check.shared_memory.triton_fixtures import SETS, entries

#: (set, case, line) → why its register instructions are not predicted (none left: the
#: converts from a source broadcast over warps are warp shuffles whose index reads the warp id,
#: ``linlayout.lowering.decompose.warp_broadcast_bits``).
KNOWN: dict = {}


def _uncounted() -> tuple[int, dict]:
    n, out = 0, {}
    for s in SETS:
        for case, e in sorted(entries(s).items()):
            if "ttgir" not in e:
                continue
            for a, p in predict_module(read_ttgir(e["ttgir"], case)):
                if a.kind != "convert":
                    continue
                n += 1
                assert not isinstance(p, Exception), (s, case, a.line, p)
                if p.uses_shared:
                    ok = bool(p.sides) and all(x.emitted.per_thread is not None
                                               for x in p.sides)
                elif p.registers:
                    ok = all(r.per_thread for r in p.registers)
                else:
                    ok = "no instructions" in p.note
                if not ok:
                    out[(s, case, a.line)] = p.note
    return n, out


def test_every_convert_in_the_corpus_has_its_instructions():
    n, missing = _uncounted()
    assert n > 900  # every committed set is read
    assert set(missing) <= set(KNOWN), sorted(set(missing) - set(KNOWN))
    assert set(KNOWN) <= set(missing), "a known case is now counted: remove it from KNOWN"
