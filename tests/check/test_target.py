"""linlayout.check.target and names: targets, hardware presets, opcode spellings."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA
from linlayout.check.target import parse_target
from linlayout.lowering.names import amd_lds, cp_async, matrix_name, nvidia_ld_st


def test_targets_pick_the_hardware_model():
    assert parse_target("cuda:90").cc == 90 and parse_target("cuda:90").hardware() == NVIDIA
    assert parse_target("hip:gfx942", 64).hardware() == AMD_CDNA3
    assert parse_target("hip:gfx950", 64).hardware() == AMD_CDNA4
    assert parse_target("hip:gfx950", 64).has_ds_read_tr
    assert not parse_target("hip:gfx942", 64).has_ds_read_tr
    assert parse_target(None, 64).hardware() == AMD_CDNA3
    assert parse_target(None).name == "cuda:80"
    with pytest.raises(LayoutError, match="unknown ttg.target"):
        parse_target("metal:3")


def test_opcode_spellings():
    assert nvidia_ld_st("store", 8, 16) == "st.shared.v4.b32"
    assert nvidia_ld_st("load", 2, 16) == "ld.shared.b32"
    assert nvidia_ld_st("load", 1, 16) == "ld.shared.b16"
    assert nvidia_ld_st("store", 2, 8) == "st.shared.b16"
    assert nvidia_ld_st("load", 1, 64) == "ld.shared.b64"
    assert nvidia_ld_st("store", 2, 64) == "st.shared.v2.b64"
    assert matrix_name("load", 4, True) == "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    assert matrix_name("store", 4, False) == "stmatrix.sync.aligned.m8n8.x4.shared.b16"
    assert cp_async(16) == "cp.async.cg.shared.global" and cp_async(4).startswith("cp.async.ca")
    assert amd_lds("load", 2) == "ds_read_u16" and amd_lds("store", 16) == "ds_write_b128"
    for bad in (lambda: cp_async(2), lambda: amd_lds("load", 3),
                lambda: nvidia_ld_st("load", 4, 64)):
        with pytest.raises(LayoutError):
            bad()


@pytest.mark.parametrize("text, lanes, match", [
    ("cuda:90", 64, "CUDA warps have 32 lanes"),       # was costed with AMD's bank model
    ("hip:gfx1100", 32, "only AMD CDNA wavefronts"),   # was costed as a 64-lane wavefront
    ("hip:gfx942", 32, "only AMD CDNA wavefronts"),
    ("cuda:90", 16, "no other warp size"),
    ("cuda:90", 0, "no other warp size"),
    (None, 33, "no other warp size"),
])
def test_lanes_per_warp_must_be_the_targets(text, lanes, match):
    with pytest.raises(LayoutError, match=match):
        parse_target(text, lanes)


def test_lanes_default_to_the_targets():
    assert parse_target("hip:gfx942").threads_per_warp == 64
    assert parse_target("cuda:80").threads_per_warp == 32


def _module(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new)


@pytest.mark.parametrize("old, new", [
    ('"ttg.threads-per-warp" = 32', '"ttg.threads-per-warp" = 64'),
    ('"ttg.threads-per-warp" = 32', '"ttg.threads-per-warp" = 16'),
    ('ttg.target = "cuda:90"', 'ttg.target = "hip:gfx1100"'),
])
def test_check_refuses_a_warp_size_the_target_lacks(tmp_path, capsys, old, new):
    from linlayout.cli import main
    from tests.support import TTGIR_DIR, assert_one_line_error, write_file

    text = _module((TTGIR_DIR / "transpose2.ttgir").read_text(), old, new)
    code = main(["check", write_file(tmp_path, "k.ttgir", text)])
    assert_one_line_error(code, *capsys.readouterr())


@pytest.mark.parametrize("tpw", ["[4, 4]", "[8, 8]"])
def test_layouts_over_another_lane_count_are_not_analysed(tpw):
    # Triton's verifier rejects them; counted, a 16-lane layout was costed as a half warp
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir
    from tests.support import TTGIR_DIR

    text = _module((TTGIR_DIR / "transpose2.ttgir").read_text(), "threadsPerWarp = [8, 4]",
                   f"threadsPerWarp = {tpw}")
    report = check_module(read_ttgir(text))
    lanes = 16 if tpw == "[4, 4]" else 64
    bad = [r for r in report.ops if r.note and f"over {lanes} lanes" in r.note]
    assert [r.access.line for r in bad] == [26, 40]
    assert all(r.degree is None for r in bad)
    assert [g.op.line for g in report.global_ops if "lanes" in (g.note or "")] == [37, 45]


@pytest.mark.parametrize("cta, attrs, blocks", [
    # a 2^40-CTA layout in a one-CTA module was counted as one element per thread, 1-way
    ("CTAsPerCGA = [1048576, 1048576], CTASplitNum = [1048576, 1048576], CTAOrder = [1, 0]",
     None, 1 << 40),
    ("CTAsPerCGA = [2, 1], CTASplitNum = [2, 1], CTAOrder = [1, 0]", None, 2),
    ("", ('"ttg.num-ctas" = 1', '"ttg.num-ctas" = 2'), 1),
])
def test_layouts_over_another_cta_count_are_not_analysed(cta, attrs, blocks):
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir
    from tests.support import TTGIR_DIR

    text = (TTGIR_DIR / "transpose2.ttgir").read_text()
    if cta:
        text = _module(text, "order = [0, 1]}>", f"order = [0, 1], {cta}}}>")
    if attrs:
        text = _module(text, *attrs)
    report = check_module(read_ttgir(text))
    bad = [r for r in report.ops if r.note and f"over {blocks} CTAs" in r.note]
    assert bad and all(r.degree is None for r in bad)


def test_num_ctas_must_be_a_power_of_two():
    from linlayout.triton import read_ttgir
    from tests.support import TTGIR_DIR

    text = (TTGIR_DIR / "transpose2.ttgir").read_text()
    with pytest.raises(LayoutError, match="ttg.num-ctas is 3"):
        read_ttgir(_module(text, '"ttg.num-ctas" = 1', '"ttg.num-ctas" = 3'))


@pytest.mark.parametrize("wpc, warps", [("[8, 1]", 8), ("[2, 1]", 2), ("[64, 2]", 128)])
def test_layouts_over_another_warp_count_are_not_analysed(wpc, warps):
    # Triton's verifier rejects them ("Layout has 8 warps per CTA, but the context requires
    # 4"); counted, an 8-warp layout in a 4-warp kernel priced warps that do not exist
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir
    from tests.support import TTGIR_DIR

    text = _module((TTGIR_DIR / "transpose2.ttgir").read_text(), "warpsPerCTA = [4, 1]",
                   f"warpsPerCTA = {wpc}")
    report = check_module(read_ttgir(text))
    bad = [r for r in report.ops if r.note and f"over {warps} warps where the op runs on 4 "
           "(ttg.num-warps)" in r.note]
    assert [r.access.line for r in bad] == [25, 39]  # local_alloc, local_store of #blocked
    assert all(r.status.value == "not analysed" and r.degree is None for r in bad)
    assert [g.op.line for g in report.global_ops if g.prediction is None] == [24]
    assert all(r.status.value != "not analysed" for r in report.ops if r not in bad)


def _ws_kernel() -> str:
    from tests.check.shared_memory.triton_fixtures import entries

    return entries("warp_specialize")["ws_d4_p1_a-_bi64_u00_cuda90"]["ttgir"]


def test_a_partition_checks_its_layouts_against_its_own_warps():
    # a real Triton 3.9 warp-specialised kernel: 4 default warps, partition0 of 1 warp whose
    # store's layout covers 1 warp (not the module's 4): analysed
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    module = read_ttgir(_ws_kernel())
    assert module.warps_at(33) == (1, "partition0's num_warps")
    assert module.warps_at(20) == (4, "ttg.num-warps")
    report = check_module(module)
    assert {g.op.line: g.prediction is not None for g in report.global_ops} == \
        {20: True, 33: True}


@pytest.mark.parametrize("old, new, have, runs", [
    # the module's 4 warps inside a 1-warp partition (Triton: "Layout has 4 warps per CTA,
    # but the context requires 1")
    ("warpsPerCTA = [1]", "warpsPerCTA = [4]", "4 warps", 1),
    ("num_warps(1)", "num_warps(2)", "1 warp", 2),
])
def test_a_partition_layout_over_other_warps_is_not_analysed(old, new, have, runs):
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    report = check_module(read_ttgir(_module(_ws_kernel(), old, new)))
    notes = {g.op.line: g.note for g in report.global_ops if g.prediction is None}
    assert list(notes) == [33]
    assert f"over {have} where the op runs on {runs} (partition0's num_warps)" in notes[33]


@pytest.mark.parametrize("old, new", [
    (": (!tt.ptr<f32>, i32) -> ()", ": (!tt.ptr<f32>) -> ()"),  # 2 captures, 1 type
    ("ttg.warp_specialize(%Y, %pid)", "ttg.warp_specialize(%Y, %pid, %nope)"),
])
def test_a_warp_specialize_region_not_read_is_reported_not_left_out(old, new):
    # Triton's verifier rejects these; the op was left out of the report, its state bytes
    # uncounted, and the kernel read "ok" with no shared-memory access
    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    text = _module(_ws_kernel(), old, new)
    report = check_module(read_ttgir(text))
    [ws] = [r for r in report.ops if r.access.op == "warp_specialize"]
    assert ws.status.value == "not analysed" and "its region was not read" in ws.note
