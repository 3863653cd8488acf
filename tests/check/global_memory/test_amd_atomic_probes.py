"""``check``'s AMD global atomics equal Triton 3.9's on random-layout kernels
(``papers/global_memory/amd_atomic_probes.py``; ``tests/data/triton_amd_atomic_probes.json.gz``,
drawn after the rule for 16-bit float adds was written): per kernel the AMDGCN atomic
mnemonics with their static counts per thread — the packed ``global_atomic_pk_add_f16``/
``_bf16`` and the two scalar compare-and-swap fallbacks of an unpacked 16-bit add included —
and the total against the ``atomicrmw``/``cmpxchg`` (and buffer-atomic intrinsics) of Triton's
LLVM IR before LLVM's optimiser; buffer atomics by their exact mnemonic too."""

from __future__ import annotations

import collections

import pytest

from linlayout.check import check_module
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import cases, entries

SET = "amd_atomics"


def _predicted(ttgir: str) -> dict:
    rep = check_module(read_ttgir(ttgir), suggest=False)
    out: collections.Counter = collections.Counter()
    for g in rep.global_ops:
        assert g.prediction is not None, g.note
        if g.prediction.side == "atomic":
            for opcode, n in g.prediction.instructions():
                out[opcode] += n
    return dict(sorted(out.items()))


@pytest.mark.parametrize("case", cases(SET))
def test_amd_atomics_equal_the_compiled_kernel(case):
    p = entries(SET)[case]
    got = _predicted(p["ttgir"])
    assert got == p["counts"]
    assert sum(got.values()) == p["llir_atomics"]


def test_the_draw_covers_packed_paired_and_scalar_16_bit_adds():
    probes = entries(SET)
    assert {p["target"] for p in probes.values()} == {"gfx942", "gfx950"}
    opcodes = collections.Counter(k for p in probes.values() for k in p["counts"])
    assert opcodes["global_atomic_pk_add_bf16"] and opcodes["global_atomic_pk_add_f16"]
    # an unpacked 16-bit add: one packed and two compare-and-swap atomics per element
    paired = [p for p in probes.values()
              if p["counts"].get("global_atomic_cmpswap", 0) ==
              2 * p["counts"].get("global_atomic_pk_add_bf16", -1)]
    assert paired
    assert any("_used_" in n for n in probes) and any("_m3_" in n for n in probes)
    # buffer atomics (Triton's ConvertToBufferOps), the packed 16-bit one included
    assert sum(bool(p.get("buffer")) for p in probes.values()) >= 10
    assert any(k.startswith("buffer_atomic_pk_add_") for k in opcodes)
