"""``check``'s sectors and lines per request equal brute force on compiled kernels, and
the global rows render as text and JSON."""

from __future__ import annotations

import gzip
import json

from linlayout.check import check_module
from linlayout.check.render import render_text, to_json
from linlayout.global_memory import simulate_global_access
from linlayout.triton import read_ttgir
from linlayout.triton.axisinfo import RUNTIME_STRIDE, analyse_axis_info
from tests.support import DATA

PROBES = json.loads(gzip.decompress((DATA / "triton_global_probes.json.gz").read_bytes()))


def test_sectors_equal_brute_force_on_the_probes():
    checked = 0
    for name, p in sorted(PROBES["probes"].items()):
        if not p["target"].startswith("cuda") or checked >= 60:
            continue
        module = read_ttgir(p["ttgir"])
        axis = analyse_axis_info(module)
        for g in check_module(module, suggest=False).global_ops:
            c = g.cost
            strides = axis.strides.get(g.op.pointer)
            if c is None or c.base_alignment_bytes != 256 or strides is None \
                    or not all(0 < s < RUNTIME_STRIDE for s in strides):
                continue
            ref = simulate_global_access(g.op.pointer_type.layout, list(strides),
                                         element_bits=c.element_bits,
                                         vector_elems=c.vector_elems)
            assert (c.sectors_per_instruction, c.lines_per_instruction, c.sectors_per_warp,
                    c.useful_bytes_per_warp) == \
                (ref.sectors_per_instruction, ref.lines_per_instruction, ref.sectors_per_warp,
                 ref.useful_bytes_per_warp), name
            checked += 1
    assert checked >= 20


KERNEL = """#blocked = #ttg.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%X: !tt.ptr<f32> {tt.divisibility = 16 : i32}, %n: i32 {tt.divisibility = 16 : i32}) {
    %c1 = arith.constant dense<1> : tensor<1024xi32, #blocked>
    %r = tt.make_range {end = 1024 : i32, start = 0 : i32} : tensor<1024xi32, #blocked>
    %n2 = tt.splat %n : i32 -> tensor<1024xi32, #blocked>
    %m = arith.cmpi slt, %r, %n2 : tensor<1024xi32, #blocked>
    %p = tt.splat %X : !tt.ptr<f32> -> tensor<1024x!tt.ptr<f32>, #blocked>
    %q = tt.addptr %p, %r : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %q, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    %q1 = tt.addptr %q, %c1 : tensor<1024x!tt.ptr<f32>, #blocked>, tensor<1024xi32, #blocked>
    %w = tt.load %q1 : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.store %q, %w, %m : tensor<1024x!tt.ptr<f32>, #blocked>
    tt.return
  }
}
"""


def test_rows_text_json_and_suggestion():
    rep = check_module(read_ttgir(KERNEL))
    load, shifted, store = rep.global_ops
    assert (load.prediction.opcode, load.prediction.per_thread) == ("ld.global.v4.b32", 2)
    assert (shifted.prediction.opcode, shifted.prediction.per_thread) == ("ld.global.b32", 8)
    assert (store.prediction.opcode, store.prediction.per_thread) == ("st.global.v4.b32", 2)
    assert load.cost.coalesced and load.cost.sectors_per_instruction == 16
    # one f32 past the aligned base: 17 sectors per request, and the hint is conditional
    assert shifted.cost.sectors_per_instruction == 17 and not shifted.cost.coalesced
    assert "tl.multiple_of" in shifted.suggestion and "if the pointer" in shifted.suggestion
    text = render_text([rep])
    assert "ld.global.b32 x8" in text and "uncoalesced" in text
    # one table per kernel: the global rows sit between the shared ones, in line order
    assert text.count(" space ") == 1 and "| global |" in text
    assert "global totals per warp:" in text
    assert text.rstrip().endswith("ok: worst degree 1 <= --max-degree 1")  # not a failure
    doc = to_json([rep])
    g = doc["files"][0]["global_ops"]
    assert [o["instructions"][0]["ptx"] for o in g] == \
        ["ld.global.v4.b32", "ld.global.b32", "st.global.v4.b32"]
    assert g[1]["instructions"][0]["space"] == "global"
    assert g[1]["instructions"][0]["sectors_per_request"] == 17
    assert doc["files"][0]["global_totals"]["per_thread"]["ld.global.b32"] == 8
    assert doc["ok"]


def test_amd_waves_are_counted_in_128_byte_lines_equal_to_brute_force():
    checked = 0
    for name, p in sorted(PROBES["probes"].items()):
        if not p["target"].startswith("gfx") or checked >= 60:
            continue
        module = read_ttgir(p["ttgir"])
        axis = analyse_axis_info(module)
        for g in check_module(module, suggest=False).global_ops:
            c = g.cost
            strides = axis.strides.get(g.op.pointer)
            if c is None or c.base_alignment_bytes != 256 or strides is None \
                    or not all(0 < s < RUNTIME_STRIDE for s in strides):
                continue
            assert c.sector_bytes == c.line_bytes == 128 and "128-byte" in g.note
            ref = simulate_global_access(g.op.pointer_type.layout, list(strides),
                                         element_bits=c.element_bits,
                                         vector_elems=c.vector_elems, lanes_per_warp=64,
                                         sector_bytes=128, line_bytes=128)
            assert (c.sectors_per_instruction, c.sectors_per_warp, c.useful_bytes_per_warp) \
                == (ref.sectors_per_instruction, ref.sectors_per_warp,
                    ref.useful_bytes_per_warp), name
            checked += 1
    assert checked >= 20


def test_an_amd_row_in_json_names_its_128_byte_unit():
    text = KERNEL.replace('"cuda:80"', '"hip:gfx942"').replace(
        "threadsPerWarp = [32]", "threadsPerWarp = [64]").replace(
        '"ttg.threads-per-warp" = 32', '"ttg.threads-per-warp" = 64').replace(
        "1024", "2048")
    rep = check_module(read_ttgir(text))
    load = rep.global_ops[0]
    # 64 lanes x 16 bytes: 8 full 128-byte lines per wave instruction
    assert load.cost.sectors_per_instruction == 8 and load.cost.efficiency == 1.0
    assert "assumed" not in load.note  # gfx942: the documented MI300 line
    entry = to_json([rep])["files"][0]["global_ops"][0]["instructions"][0]
    assert entry["sector_bytes"] == 128 and entry["isa"] == "global_load_dwordx4"
    gfx950 = check_module(read_ttgir(text.replace("gfx942", "gfx950"))).global_ops[0]
    assert "assumed" in gfx950.note
