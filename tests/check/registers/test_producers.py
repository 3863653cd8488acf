"""Where a convert's loaded source sits (linlayout/check/registers/producers.py), and
``check`` counting AMD packing with it: the gfx942 AMDGCN of a shuffle probe
(papers/triton_lowering/shuffle_probes.py) has 16 v_perm_b32 packing 16-bit elements that
the loads left in different registers."""

from __future__ import annotations

import pytest

from linlayout.check.analysis import check_module
from linlayout.check.registers import load_sources, truncated_sources, truncated_words
from linlayout.lowering import Target
from linlayout.errors import LayoutError
from linlayout.triton.ttgir import read_ttgir
from tests.check.shared_memory.triton_fixtures import entries


def _probe(name: str):
    return read_ttgir(entries("shuffle")[name]["ttgir"])


def test_load_sources_names_the_load_and_its_dim():
    module = _probe("warp_b16_32x128_w4_4bb57b_gfx942")
    assert load_sources(module) == {"%x_8": (1, 128)}


def test_refuses_a_non_module():
    with pytest.raises(LayoutError):
        load_sources("not a module")


@pytest.mark.parametrize("name,perms", [
    ("warp_b16_32x128_w4_4bb57b_gfx942", 16),  # every pair from two dwordx2 halves apart
    ("blocked_b16_32x16_w1_5c905c_gfx942", 0),  # pairs the loads already packed
])
def test_check_counts_amd_packing(name, perms):
    report = check_module(_probe(name))
    (op,) = [r for r in report.ops if r.access.kind == "convert"]
    counts = {i.emitted.opcode: i.emitted.per_thread for i in op.instructions}
    assert counts.get("v_perm_b32", 0) == perms
    assert entries("shuffle")[name]["counts"].get("v_perm_b32", 0) == perms


def test_a_truncated_accumulator_is_packed_by_its_conversion():
    # held-out gfx950 probe: f32 MFMA accumulators truncated to f16, then a permlane convert;
    # the AMDGCN has its 8 v_permlane32_swap_b32 and no v_perm_b32
    e = entries("cvt_heldout")["t_dot_b16_128x64_w4_b3bb67_gfx950"]
    module = read_ttgir(e["ttgir"])
    assert truncated_sources(module) == {"%4"}
    report = check_module(module)
    (op,) = [r for r in report.ops if r.access.kind == "convert" and not r.uses_shared]
    assert {i.emitted.opcode: i.emitted.per_thread for i in op.instructions} == \
        {"v_permlane32_swap_b32": 8}
    # the probe's assembly is counted by TTGIR op: the convert's own line
    assert e["lines"][f"probe.ttgir:{op.access.line}"] == {"v_permlane32_swap_b32_e32": 8}


def test_an_i32_sum_truncated_to_i16_packs_its_words_with_prmt_on_nvidia():
    # the confirm draw's cuda:80 probe: an i16 sum promoted to i32, truncated back, converted
    # through shared memory: two truncations per 32-bit word, one prmt.b32 each (4 words)
    e = entries("reg_confirm")["t_reduce_i16_sum_a1_8x256_w2_b35714_cuda80"]
    module = read_ttgir(e["ttgir"])
    (name,) = truncated_words(module, Target.parse("cuda:80"))
    assert truncated_words(module, Target.parse("hip:gfx942")) == frozenset()
    report = check_module(module)
    (op,) = [r for r in report.ops if r.access.kind == "convert"]
    assert op.access.operands[0] == name
    regs = {i.emitted.opcode: i.emitted.per_thread for i in op.instructions
            if i.emitted.side not in ("load", "store")}
    assert regs == {"prmt.b32": 4}
    assert e["lowering"]["data"]["lines"][f"probe.ttgir:{op.access.line}"]["prmt.b32"] == 4


#: the shape of an exploration kernel: an f32 sum (a slice layout) truncated to f16 and
#: converted on gfx942; both assemblies pack the pairs without v_perm_b32 (the lowering with
#: v_pack_b32_f16), where check counted one v_perm_b32 per word before it followed a truncf
#: whose type has a nested slice encoding
SLICE_TRUNCF = """#blocked = #ttg.blocked<{sizePerThread = [2, 2], threadsPerWarp = [32, 2], warpsPerCTA = [2, 1], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [2], threadsPerWarp = [64], warpsPerCTA = [2], order = [0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 2 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @k(%X: !tt.ptr<f32>, %Y: !tt.ptr<f16>) {
    %x = tt.splat %X : !tt.ptr<f32> -> tensor<128x4x!tt.ptr<f32>, #blocked>
    %v = tt.load %x : tensor<128x4x!tt.ptr<f32>, #blocked>
    %r = "tt.reduce"(%v) <{axis = 1 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tt.reduce.return %s : f32
    }) : (tensor<128x4xf32, #blocked>) -> tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %h = arith.truncf %r : tensor<128xf32, #ttg.slice<{dim = 1, parent = #blocked}>> to tensor<128xf16, #ttg.slice<{dim = 1, parent = #blocked}>>
    %y = ttg.convert_layout %h : tensor<128xf16, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<128xf16, #blocked1>
    %p = tt.splat %Y : !tt.ptr<f16> -> tensor<128x!tt.ptr<f16>, #blocked1>
    tt.store %p, %y : tensor<128x!tt.ptr<f16>, #blocked1>
    tt.return
  }
}
"""


def test_a_truncated_slice_is_followed():
    module = read_ttgir(SLICE_TRUNCF)
    assert truncated_sources(module) == {"%h"}
    report = check_module(module)
    (op,) = [r for r in report.ops if r.access.kind == "convert"]
    assert "v_perm_b32" not in {i.emitted.opcode for i in op.instructions}


def test_truncated_sources_refuses_a_non_module():
    with pytest.raises(LayoutError):
        truncated_sources("not a module")


def test_wide_and_scalar_sources_name_the_producers():
    """A 16-bit gather with one source register per column (NVIDIA) leaves its results in
    32-bit registers; an AMD reduction over all 64 lanes leaves 16-bit scalars."""
    from linlayout.check.registers import scalar_sources, wide_sources
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.triton.ttgir import find_accesses

    module = read_ttgir(entries("cvt_heldout")["t_gather_b16_16x256_w2_d79a7a_cuda80"]["ttgir"])
    accesses = find_accesses(module)
    gathers = {a.result for a in accesses if a.op == "gather"}
    assert wide_sources(accesses, module_target(module)) == gathers
    assert scalar_sources(accesses, module_target(module)) == frozenset()
    with pytest.raises(LayoutError):
        wide_sources(accesses, "cuda:80")
    with pytest.raises(LayoutError):
        scalar_sources(["not an access"], module_target(module))


def test_produced_values_name_amd_scans_and_reductions():
    """The producer probes' AMD scans and partial-warp reductions of f16/i16/i8 are followed
    register by register; NVIDIA ones are not (their packing is the element's width)."""
    from linlayout.check.registers import produced_values
    from linlayout.check.shared_memory.ops import module_target
    from linlayout.triton.ttgir import find_accesses

    probes = entries("producer")
    for name in ("scan_b16_fp16_16x64_ax0_w2_a44def_gfx942",
                 "reduce_b16_fp16_32x32_ax0_w1_233d31_gfx950"):
        module = read_ttgir(probes[name]["ttgir"])
        accesses = find_accesses(module)
        made = produced_values(accesses, module_target(module))
        assert set(made) == {a.result for a in accesses if a.op in ("scan", "reduce")}
    nvidia = next(e for n, e in probes.items() if n.startswith("scan") and
                  e["target"].startswith("cuda"))
    module = read_ttgir(nvidia["ttgir"])
    assert produced_values(find_accesses(module), module_target(module)) == {}
    with pytest.raises(LayoutError):
        produced_values(["not an access"], module_target(module))
