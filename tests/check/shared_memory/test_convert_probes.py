"""Random layout conversions compiled by Triton 3.9.0 (``tests/data/triton_convert_probes.json.gz``,
written by ``papers/triton_lowering/convert_probes.py``): ``convert_layout`` and
``local_alloc``/``local_load`` between random blocked, linear, mma and dot-operand layouts
through random swizzled, NVMMA and linear shared layouts, on five targets. Each probe is
compared with Triton's assembly by ``test_triton_fixtures.py``.

Four probes are known mismatches (``tests/data/known_mismatches.json``): each stores a tile
into a ``shared_linear`` layout whose XOR swizzle reaches the low offset bits, so the elements
of a wider vector land at adjacent addresses in another order than the registers hold them;
Triton (``largestVectorisation``) emits narrower stores and LLVM's load-store vectoriser
merges them. The prediction reports Triton's (``docs/triton-lowering.md``)."""

from __future__ import annotations

from collections import Counter

from tests.check.shared_memory.triton_fixtures import entries, known_mismatches


def test_the_probes_cover_every_kind_and_target():
    ps = entries("convert")
    assert len(ps) >= 230
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                    "gfx950"}
    kinds = Counter(k for n in ps for k in n.split("_")[1:4])
    assert all(kinds[k] >= 5 for k in ("blocked", "linear", "mma", "dot", "swizzled"))
    assert sum(n.startswith("smem_") for n in ps) >= 40


def test_known_mismatches_are_llvm_store_merges_of_shared_linear_stores():
    known = known_mismatches()["convert"]
    assert all(n in entries("convert") for n in known)
    assert all(n.startswith("smem_") and "linear" in n for n in known)
    assert all("LLVM merged" in why for why in known.values())
