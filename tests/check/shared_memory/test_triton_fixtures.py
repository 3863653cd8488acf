"""Every probe of the Triton 3.9.0 fixture sets (:mod:`.triton_fixtures`: ``trans``,
``reduce``, ``scan``, ``heldout``, ``convert``, ``padded_fault``, ``lds_alignment``,
``roundtrip``, ``unused_result``, ``matrix_round``, ``warp_specialize``, ``llvm_merge``,
``llvm_merge_confirm``, ``equal_arms``, ``reduce_fresh``, ``scan_fresh``, ``scan_amd_fresh``, ``bank_order``,
``bank_order_warps``), one rule for all: the instructions ``linlayout`` predicts for the
module equal the ones in Triton's assembly.

* NVIDIA: per-thread counts by opcode, ``ld/st.shared`` compared by bytes per lane (NVPTX
  spells one 4- or 8-byte vector of 16-bit values ``.b32``/``.v2.b16`` or
  ``.v2.b32``/``.v4.b16`` depending on how the values are used).
* AMD: LDS bytes per thread for loads and stores (a ``ds_read2*``/``ds_write2*`` moves two of
  its width) and the number of LDS atomics. A ``tt.scan`` across warps is compared so too:
  ``check`` counts the reloads the final AMDGCN runs (Triton's less the unused reload of the
  last total, which LLVM deletes), as on NVIDIA; Triton's own reloads are compared with its
  LLVM IR before the optimiser in ``test_scan_probes.py``.

Known mismatches are strict xfails (``tests/data/known_mismatches.json``). The corpus of real
kernels has its own op-by-op test (``test_corpus.py``)."""

from __future__ import annotations

import pytest

from tests.check.shared_memory.asm_counts import lds_bytes, predicted_counts, ptx_counts
from tests.check.shared_memory.triton_fixtures import SETS, cases, entries, load

PROBE_SETS = ("trans", "reduce", "scan", "heldout", "convert", "padded_fault", "lds_alignment",
              "roundtrip", "unused_result", "matrix_round", "warp_specialize", "llvm_merge",
              "llvm_merge_confirm", "equal_arms", "reduce_fresh", "scan_fresh", "scan_amd_fresh", "scan_amd_bytes",
              "bank_order", "bank_order_warps")


def _all_cases() -> list:
    out = []
    for s in PROBE_SETS:
        # partial: warp-specialised probes with a width check reports as not counted
        # (test_warp_specialize_probes.py)
        for p in cases(s, lambda n, e: "ttgir" in e and not e.get("partial")):
            out.append(pytest.param(s, p.values[0], marks=p.marks, id=f"{s}-{p.id}"))
    return out


@pytest.mark.parametrize("fixture_set, case", _all_cases())
def test_instructions_equal_tritons_assembly(fixture_set, case):
    e = entries(fixture_set)[case]
    got, totals = predicted_counts(e["ttgir"], case)
    if "gfx" not in e["target"]:
        assert got == ptx_counts(e["counts"])
    else:
        assert totals == lds_bytes(e["counts"])


def test_every_set_was_written_by_triton_3_9():
    for s in SETS:
        assert load(s)["triton_version"].startswith("3.9"), s
        assert entries(s), s


def test_the_registry_names_files_and_generators_that_exist():
    from tests.check.shared_memory.triton_fixtures import registry
    from tests.support import DATA, ROOT

    for name, spec in registry().items():
        for f in spec["files"]:
            assert (DATA / f).exists(), (name, f)
        for cmd in spec["commands"]:
            assert (ROOT / cmd[0]).is_file(), (name, cmd)
