"""Random layout conversions compiled by Triton 3.9.0 (``tests/data/triton_convert_probes.json.gz``,
written by ``papers/triton_lowering/convert_probes.py``): ``convert_layout`` and
``local_alloc``/``local_load`` between random blocked, linear, mma and dot-operand layouts
through random swizzled, NVMMA and linear shared layouts, on five targets.

NVIDIA: predicted instructions per thread, by opcode, equal the PTX's (``ld/st.shared`` by
bytes per lane, as in ``test_trans_probes``); AMD: LDS bytes per thread for loads and stores
equal the AMDGCN's."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from functools import lru_cache

import pytest

from tests.support import DATA
from tests.triton.lowering.asm_counts import lds_bytes, predicted_counts, ptx_counts

#: Probes whose PTX differs from Triton's own instructions, and why. Each stores a tile into a
#: ``shared_linear`` layout whose XOR swizzle reaches the low offset bits: the elements of a
#: wider vector land at adjacent addresses in another order than the registers hold them, so
#: Triton (``largestVectorisation``) emits narrower stores and LLVM's load-store vectoriser
#: merges them (the prediction reports Triton's; docs/triton-lowering.md).
LLVM_MERGED = "LLVM merged Triton's narrower stores into wider ones (register order differs)"
KNOWN: dict[str, str] = {
    "smem_blocked_linear_blocked_b16_16x256_w4_107f37_cuda80": LLVM_MERGED,
    "smem_blocked_linear_linear_b16_128x128_w8_f9b4be_cuda100": LLVM_MERGED,
    "smem_linear_linear_mma_b32_16x256_w4_8cecb7_cuda90": LLVM_MERGED,
    "smem_mma_linear_dot_b8_128x128_w8_e91553_cuda80": LLVM_MERGED,
}


@lru_cache(maxsize=1)
def probes() -> dict:
    return json.loads(gzip.decompress((DATA / "triton_convert_probes.json.gz").read_bytes()))


NAMES = sorted(probes()["probes"])


def _matches(name: str) -> bool:
    e = probes()["probes"][name]
    got, totals = predicted_counts(e["ttgir"], name)
    if e["target"].startswith("gfx"):
        return totals == lds_bytes(e["counts"])
    return got == ptx_counts(e["counts"])


@pytest.mark.parametrize("name", NAMES)
def test_convert_probe(name):
    ok = _matches(name)
    if name in KNOWN:
        assert not ok, f"{name} now matches: remove it from KNOWN"
        pytest.skip(KNOWN[name])
    assert ok


def test_the_probes_cover_every_kind_and_target():
    ps = probes()["probes"]
    assert probes()["triton_version"].startswith("3.9") and len(ps) >= 230
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                    "gfx950"}
    kinds = Counter(k for n in ps for k in n.split("_")[1:4])
    assert all(kinds[k] >= 5 for k in ("blocked", "linear", "mma", "dot", "swizzled"))
    assert sum(n.startswith("smem_") for n in ps) >= 40 and len(KNOWN) <= 4
