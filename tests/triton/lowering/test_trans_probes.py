"""``tl.trans`` and ``tl.dot`` probes compiled by Triton 3.9.0
(``tests/data/triton_trans_probes.json.gz``, written by
``papers/triton_lowering/trans_probes.py``): element types, shapes, warp counts and targets
the rules were not fitted on. NVIDIA: predicted instructions and counts per thread equal the
PTX's — ``ld/st.shared`` compared by bytes per lane, because NVPTX spells the same 4- or
8-byte vector of 16-bit values ``.b32``/``.v2.b16`` or ``.v2.b32``/``.v4.b16`` depending on
how the values are used; AMD: LDS bytes per thread for loads and stores equal the AMDGCN's (a
``ds_read2*``/``ds_write2*`` moves two of its width)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from functools import lru_cache

import pytest

from linlayout.triton.lowering.ops import predict_module
from linlayout.triton.ttgir import read_ttgir

from tests.support import DATA
from tests.triton.lowering.asm_counts import lds_bytes, predicted_counts, ptx_counts

#: Probes whose instructions are not predicted yet, and why (none since the sub-32-bit
#: converts follow ``getVecBasisLdSt``).
KNOWN: dict[str, str] = {}


@lru_cache(maxsize=1)
def probes() -> dict:
    return json.loads(gzip.decompress((DATA / "triton_trans_probes.json.gz").read_bytes()))


@pytest.mark.parametrize("name", sorted(probes()["probes"]))
def test_trans_probe(name):
    e = probes()["probes"][name]
    got, nbytes = predicted_counts(e["ttgir"], name)
    ok = nbytes == lds_bytes(e["counts"]) if e["target"].startswith("gfx") \
        else got == ptx_counts(e["counts"])
    if name in KNOWN:
        assert not ok, f"{name} now matches: remove it from KNOWN"
        pytest.skip(KNOWN[name])
    assert ok, (got, e["counts"])


def test_most_probes_match():
    names = probes()["probes"]
    assert len(names) == 146 and not KNOWN
    assert sum(n.startswith("dot_") for n in names) == 92 and not any(
        n.startswith("dot_") for n in KNOWN)
