"""Which side of a ``convert_layout`` through LDS vectorises on gfx950 (64 banks) and gfx942
(32 banks): Gluon converts between random linear layouts compiled by Triton 3.9.0
(``papers/triton_lowering/gfx950_bank_order_probes.py``; sets ``bank_order``, one warp, the
draw the rule was measured on, and ``bank_order_warps``, 2 to 8 warps and 8 to 64 bits,
drawn after it). Each kernel's only LDS traffic is the convert; the vector width and
per-thread count of every LDS load and store in Triton's LLVM IR (before LLVM's optimiser)
equal the prediction. The rule they pin down: ``optimalSwizzlingLdSt`` puts the bank bases
one side holds in registers first only with at most 32 banks
(:func:`linlayout.lowering.scratch.reorders_bank_bases`)."""

from __future__ import annotations

import re

import pytest

import linlayout.lowering.scratch as scratch
from tests.check.shared_memory.triton_fixtures import cases, entries


def _triton_vectors(preopt: dict) -> dict:
    """``{(side, vector elements): per-thread count}`` of the LLVM IR's LDS accesses."""
    out: dict = {}
    for key, n in preopt["types"].items():
        m = re.fullmatch(r"(load|store) (?:<(\d+) x \w+>|\w+)", key)
        assert m, key
        k = (m.group(1), int(m.group(2) or 1))
        out[k] = out.get(k, 0) + n
    return out


def _predicted_vectors(ttgir: str, name: str) -> dict:
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.triton.ttgir import read_ttgir

    out: dict = {}
    for _, p in predict_module(read_ttgir(ttgir, name)):
        assert not isinstance(p, Exception), p
        for s in p.sides:
            e = s.emitted
            k = (e.side, e.vector_elems)
            # a ds_read2*/ds_write2* LLVM made stands for two of Triton's accesses
            out[k] = out.get(k, 0) + e.per_thread * e.bytes_per_lane // (
                e.vector_elems * max(8, e.element_bits) // 8)
    return out


def _all_cases() -> list:
    return [pytest.param(s, p.values[0], marks=p.marks, id=f"{s}-{p.id}")
            for s in ("bank_order", "bank_order_warps") for p in cases(s)]


@pytest.mark.parametrize("fixture_set, case", _all_cases())
def test_lds_vectors_equal_tritons_llvm_ir(fixture_set, case):
    e = entries(fixture_set)[case]
    assert _predicted_vectors(e["ttgir"], case) == _triton_vectors(e["preopt"])


def test_the_sets_cover_both_targets_warps_and_widths():
    one, warps = entries("bank_order"), entries("bank_order_warps")
    assert len(one) == 32 and len(warps) == 96
    for ps in (one, warps):
        assert {e["target"] for e in ps.values()} == {"gfx942", "gfx950"}
    assert {e["bits"] for e in one.values()} == {8, 16}
    assert {(e["warps"], e["bits"]) for e in warps.values()} == \
        {(w, b) for w in (2, 4, 8) for b in (8, 16, 32, 64)}


def _decided(fixture_set: str, monkeypatch) -> set[str]:
    """The kernels whose prediction changes when the bank bases are reordered on any bank
    count (the rule without its ``numBanks <= 32`` guard; the package's memo caches are
    emptied around it)."""
    from linlayout import clear_caches

    rule = scratch.reorders_bank_bases
    with_guard = {n: _predicted_vectors(e["ttgir"], n)
                  for n, e in entries(fixture_set).items()}
    clear_caches()
    monkeypatch.setattr(scratch, "reorders_bank_bases", lambda v, banks: rule(v, 32))
    try:
        return {n for n, e in entries(fixture_set).items()
                if _predicted_vectors(e["ttgir"], n) != with_guard[n]}
    finally:
        clear_caches()


def test_the_bank_count_guard_decides_ten_one_warp_gfx950_kernels(monkeypatch):
    """Without the guard ten one-warp gfx950 loads would widen to a 32-bit word; Triton's
    stay scalar (the test above). gfx942 (32 banks) is unaffected."""
    decided = _decided("bank_order", monkeypatch)
    assert len(decided) == 10
    assert all(n.endswith("_gfx950") for n in decided)
    for n in decided:
        assert _triton_vectors(entries("bank_order")[n]["preopt"])[("load", 1)] > 0


def test_the_guard_decides_no_multi_warp_kernel(monkeypatch):
    """With warps a sub-word scratch vector is padded with warp bases (``getVecBasisLdSt``),
    which neither side holds in registers, so no side widens past it either way."""
    assert not _decided("bank_order_warps", monkeypatch)
