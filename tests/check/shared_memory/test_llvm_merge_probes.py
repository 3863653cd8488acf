"""Held-out probes for LLVM's merging of Triton's ``ld/st.shared`` vectors on NVIDIA
(``tests/data/triton_llvm_merge_probes.json.gz``, written by
``papers/triton_lowering/llvm_merge_probes.py`` after the rule in
``linlayout/lowering/llvm_merge.py`` was written): random register layouts stored into
``shared_linear`` layouts with XORs of the low offset bits and loaded back, and plain
converts, on cuda:80/90/100. Each probe is compared with the PTX by
``test_triton_fixtures.py``; this file checks that the set exercises the rule."""

from __future__ import annotations

import re

from tests.check.shared_memory.triton_fixtures import entries, known_mismatches


def _llvm_merged(e: dict) -> bool:
    ptx = sum(n for k, n in e["counts"].items() if k.startswith(("ld.shared", "st.shared")))
    pre = sum(n for k, n in e["preopt"]["types"].items() if k.startswith(("load", "store")))
    return ptx < pre


def test_the_probes_cover_merges_and_non_merges_on_every_nvidia_target():
    ps = entries("llvm_merge")
    assert len(ps) >= 150
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100"}
    merged = [n for n, e in ps.items() if _llvm_merged(e)]
    assert len(merged) >= 30
    assert len(ps) - len(merged) >= 30
    assert {re.search(r"_b(\d+)_", n).group(1) for n in merged} >= {"8", "16", "32"}


def test_the_known_mismatches_are_loads_llvm_knows_too_little_about():
    for s, most in (("llvm_merge", 0), ("llvm_merge_confirm", 0)):
        known = known_mismatches().get(s, {})
        assert len(known) <= most
        assert all(n in entries(s) and "computeKnownBits" in why for n, why in known.items())


def test_a_deep_x_keeps_its_mixed_group_unmerged():
    """The two probes where ``-O3`` leaves ``X`` too deep for ``computeKnownBits`` below the
    mixed group's ``xor``: on 803b78 InstCombine's ``reassociateForUses`` pushes the load's
    single-use lane terms under the two it shares with the store (6 deep: nothing proven);
    on e8688c Triton's balanced tree stays, but ``(tid & 8) << 1`` is 5 deep and its ``and``
    has another user (so no ``(tid << 1) & 16``): only bit 0 proven. Either way the group's
    base keeps align 4 and its loads stay 4-byte, as in the PTX; 73fac9's mixed store base
    (7 terms, the one ``and`` without another user folded into its shift) gets align 16."""
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

    for s, name, want in (
            ("llvm_merge", "smem_linear_xorlinear_linear_b32_64x32_w1_803b78_cuda100",
             {"ld.shared/16B": 8, "ld.shared/4B": 32, "st.shared/4B": 64}),
            ("llvm_merge_confirm", "smem_blocked_xorlinear_linear_b32_64x32_w1_e8688c_cuda100",
             {"ld.shared/8B": 16, "ld.shared/4B": 32, "st.shared/8B": 32}),
            ("llvm_merge", "smem_linear_xorlinear_blocked_b16_128x128_w4_73fac9_cuda90",
             None)):
        e = entries(s)[name]
        got, _ = predicted_counts(e["ttgir"], name)
        assert got == ptx_counts(e["counts"])
        if want is not None:
            assert got == want
        else:
            assert set(got) == {"st.shared/16B", "ld.shared/4B"}, got


def test_the_held_out_draw_covers_slp_targets_and_merges():
    ps = entries("llvm_merge_confirm")
    assert len(ps) == 30
    assert {"cuda90", "cuda100"} <= {e["target"] for e in ps.values()}
    assert sum(_llvm_merged(e) for e in ps.values()) >= 5


def test_slp_keeps_the_sm90_loads_mixed_constants_apart():
    """The sm_90 load whose XOR constants 16, 20, 144 and 148 bytes share their lane bits:
    with LLVM's SLP vectoriser (every NVIDIA target but sm_80) the PTX pairs only ``X``'s own
    group, as ``check`` predicts; the same kernel compiled for sm_80 (no SLP) would pair all."""
    from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts

    name = "smem_blocked_xorlinear_linear_b32_32x64_w1_8a6dda_cuda90"
    e = entries("llvm_merge")[name]
    got, _ = predicted_counts(e["ttgir"], name)
    assert got == ptx_counts(e["counts"]) == {"st.shared/4B": 64, "ld.shared/8B": 16,
                                              "ld.shared/4B": 32}
    sm80 = e["ttgir"].replace('"cuda:90"', '"cuda:80"')
    assert predicted_counts(sm80, name)[0] == {"st.shared/4B": 64, "ld.shared/8B": 32}
