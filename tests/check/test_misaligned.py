"""``check`` never says ``ok`` about an instruction that cannot run or was not counted:
MISALIGNED ops fail the run, lane accesses the counter cannot count are listed and make the
verdict ``incomplete`` (a failure with ``--strict``)."""

from __future__ import annotations

import json

from linlayout.check import (OpStatus, check_module, complete, misaligned_ops,
                             not_counted_instructions, passes, render_text, to_json)
from linlayout.check.render import op_dict
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import entries
from tests.support import run_cli

PADDED = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#shared = #ttg.SHARED
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "TARGET", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x32xf32, #blocked>) {
    %a = ttg.local_alloc %x : (tensor<32x32xf32, #blocked>) -> !ttg.memdesc<32x32xf32, #shared, #smem>
    %y = ttg.local_load %a : !ttg.memdesc<32x32xf32, #shared, #smem> -> tensor<32x32xf32, #blocked>
    tt.return
  }
}
"""
OFFSETS = "[[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [1, 0], [2, 0], [4, 0], [8, 0], [16, 0]]"


def _text(shared: str, target: str = "cuda:90") -> str:
    return PADDED.replace("SHARED", shared).replace("TARGET", target)


def _padded(pad: int, target: str = "cuda:90") -> str:
    return _text(f"padded_shared<[32:+{pad}] {{offset = {OFFSETS}, block = []}}>", target)


def test_a_pad_that_breaks_the_vector_makes_both_ops_misaligned(capsys, tmp_path):
    k = check_module(read_ttgir(_padded(1)))
    assert [r.status for r in k.ops] == [OpStatus.MISALIGNED] * 2
    assert k.misaligned == k.ops and not k.not_counted
    for r in k.ops:
        (i,) = r.instructions
        # the instruction Triton emits is kept, without a cost
        assert i.emitted.opcode.endswith("shared.v4.b32") and i.emitted.per_thread == 8
        assert i.report is None and r.degree is None
        f = r.fault
        assert (f.warp, f.lane, f.register, f.byte_address) == (0, 1, 0, 132)
        assert "lane 1" in r.note and "16-byte" in r.note
        d = op_dict(r)
        assert d["status"] == "misaligned"
        assert d["fault"] == {"warp": 0, "lane": 1, "register": 0, "byte_address": 132,
                              "reason": f.reason}
    assert not passes([k], 64) and misaligned_ops([k]) == 2
    assert to_json([k], 64)["ok"] is False
    text = render_text([k], 64)
    assert text.count("| MISALIGNED") == 2
    assert text.splitlines()[-1].startswith("FAIL: 2 op(s) misaligned")
    path = tmp_path / "pad.ttgir"
    path.write_text(_padded(1))
    code, out, _ = run_cli(capsys, "check", "--max-degree", "32", str(path))
    assert code == 1 and "line 6: st.shared.v4.b32 misaligned: warp 0 lane 1" in out
    code, out, _ = run_cli(capsys, "check", "--json", str(path))
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    assert [op["status"] for op in doc["files"][0]["ops"]] == ["misaligned"] * 2


def test_a_pad_that_keeps_the_vector_aligned_is_counted(capsys, tmp_path):
    k = check_module(read_ttgir(_padded(4)))
    assert [r.status for r in k.ops] == [OpStatus.COUNTED] * 2
    assert passes([k], 1) and not k.misaligned
    path = tmp_path / "pad4.ttgir"
    path.write_text(_padded(4))
    code, out, _ = run_cli(capsys, "check", "--json", str(path))
    assert code == 0 and [op["status"] for op in json.loads(out)["files"][0]["ops"]] == ["counted"] * 2
    assert all("fault" not in op for op in json.loads(out)["files"][0]["ops"])


def test_amd_lds_runs_unaligned_so_only_the_counter_gives_up():
    k = check_module(read_ttgir(_padded(1, "hip:gfx942").replace(
        '"ttg.threads-per-warp" = 32', '"ttg.threads-per-warp" = 64').replace(
        "threadsPerWarp = [32, 1]", "threadsPerWarp = [32, 2]")))
    assert not k.misaligned
    assert all(r.status is OpStatus.NOT_COUNTED for r in k.ops)
    assert not_counted_instructions([k]) == 2 and passes([k], 1)
    assert not complete([k]) and not passes([k], 1, strict=True)
    text = render_text([k], 1)
    assert "| not counted" in text
    assert text.splitlines()[-1] == ("incomplete: worst degree 1 <= --max-degree 1 over what "
                                     "was counted; 2 instruction(s) not counted")
    assert render_text([k], 1, strict=True).splitlines()[-1] == (
        "FAIL: worst degree 1 <= --max-degree 1 over what was counted; 2 instruction(s) not "
        "counted (--strict)")
    doc = to_json([k], 1)
    assert doc["ok"] is True and doc["complete"] is False and doc["not_counted"] == 2
    assert to_json([k], 1, strict=True)["ok"] is False


def test_instructions_not_counted_are_listed_but_named_ops_are_not(capsys, tmp_path):
    files = entries("corpus")
    lds = check_module(read_ttgir(files["g_amd_buffer_load_lds_f16x8_gfx950.ttgir"]["ttgir"]))
    (r,) = [r for r in lds.ops if r.access.op == "buffer_load_to_local"]
    assert r.status is OpStatus.NOT_COUNTED and r.not_counted
    assert op_dict(r)["status"] == "not counted"
    assert "1 instruction(s) not counted" in render_text([lds]).splitlines()[-1]
    path = tmp_path / "lds.ttgir"
    path.write_text(files["g_amd_buffer_load_lds_f16x8_gfx950.ttgir"]["ttgir"])
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 0  # not counted does not fail the run, but it is never "ok"
    assert out.strip().splitlines()[-1].startswith("incomplete: ")
    code, out, _ = run_cli(capsys, "check", "--strict", str(path))
    assert code == 1 and out.strip().splitlines()[-1].startswith("FAIL: ")
    assert out.strip().endswith("(--strict)")
    code, out, _ = run_cli(capsys, "check", "--strict", "--json", str(path))
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and doc["complete"] is False and doc["strict"]
    # a TMA kernel: its copies are named, not counted, and not listed
    tma = next(v["ttgir"] for k, v in sorted(files.items())
               if "async_tma_copy" in v["ttgir"] and "cuda90" in k)
    rep = check_module(read_ttgir(tma))
    named = [r for r in rep.ops if r.access.op.startswith("async_tma")]
    assert named and all(r.status is OpStatus.NOT_COUNTED and not r.not_counted
                         for r in named)
    assert all(op_dict(r)["status"] == r.status.value for r in rep.ops)
    assert not rep.not_counted and (complete([rep]) or rep.totals.not_analysed)


VIEW = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [32, 1], warpsPerCTA = [1, 1], order = [1, 0]}>
#shared = #ttg.padded_shared<[1024:+1] {order = [1, 0], shape = [32, 32]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x32xf32, #blocked>, %i: i32) {
    %c1_i32 = arith.constant 1 : i32
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x32x32xf32, #shared, #smem, mutable>
    %v = ttg.memdesc_index %a[INDEX] : !ttg.memdesc<2x32x32xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    %s = ttg.memdesc_subslice %v[OFF] : !ttg.memdesc<32x32xf32, #shared, #smem, mutable> -> !ttg.memdesc<16x32xf32, #shared, #smem, mutable, 32x32>
    ttg.local_store %x, %v : tensor<32x32xf32, #blocked> -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable>
    %y = ttg.local_load %s : !ttg.memdesc<16x32xf32, #shared, #smem, mutable, 32x32> -> tensor<16x32xf32, #blocked>
    tt.return
  }
}
"""


def test_views_are_checked_where_they_lie_in_their_allocation():
    """Stage 1 of two [1024:+1]-padded 32x32 f32 buffers starts at padded element 1025
    (byte 4100, as Triton 3.9 compiles it): its 16-byte vectors are misaligned; stage 0 and
    a subslice at row 16 (no pad before element 1024) are not."""
    def statuses(index: str, off: str) -> list[OpStatus]:
        text = VIEW.replace("INDEX", index).replace("OFF", off)
        return [op.status for op in check_module(read_ttgir(text)).ops]

    assert OpStatus.MISALIGNED not in statuses("%c0_i32", "16, 0")
    assert statuses("%c1_i32", "0, 0") == [OpStatus.MISALIGNED] * 2
    assert statuses("%i", "16, 0") == [OpStatus.MISALIGNED] * 2  # any stage may be used
    k = check_module(read_ttgir(VIEW.replace("INDEX", "%c1_i32").replace("OFF", "16, 0")))
    assert k.ops[0].fault.byte_address == 4100
    assert not passes([k], max_degree=64)


def test_a_padded_stage_starting_inside_a_bank_word_is_not_counted():
    """f16 scalars of stage 1 of [1024:+1] buffers start at byte 2050: legal, but their bank
    pattern is not the origin's, so the access is listed as not counted (never a wrong
    count); stage 0 is counted."""
    text = (VIEW.replace("f32", "f16").replace("sizePerThread = [1, 4], threadsPerWarp = [32, 1]",
                                                 "sizePerThread = [1, 1], threadsPerWarp = [1, 32]"))
    k1 = check_module(read_ttgir(text.replace("INDEX", "%c1_i32").replace("OFF", "0, 0")))
    assert [op.status for op in k1.ops] == [OpStatus.NOT_COUNTED] * 2
    assert "4-byte bank word" in render_text([k1])
    k0 = check_module(read_ttgir(text.replace("INDEX", "%c0_i32").replace("OFF", "0, 0")))
    assert k0.ops[0].status is OpStatus.COUNTED
