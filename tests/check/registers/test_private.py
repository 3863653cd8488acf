"""check's register instructions (linlayout/check/registers/private.py and the convert rows):
a convert or reduce that stays in its warps lists its shuffles, in text and in JSON
(``"space": "register"``)."""

from __future__ import annotations

import json

from linlayout.check import check_module, render_json, render_text
from linlayout.triton.ttgir import read_ttgir

CVT = """#blocked = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [16, 2], warpsPerCTA = [1, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [2, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [0, 1]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<16x4xf32, #blocked>) -> tensor<16x4xf32, #blocked1> {
    %y = ttg.convert_layout %x : tensor<16x4xf32, #blocked> -> tensor<16x4xf32, #blocked1>
    tt.return %y : tensor<16x4xf32, #blocked1>
  }
}
"""

RED = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<32x64xf32, #blocked>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>> {
    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: f32, %b: f32):
      %m = arith.maxnumf %a, %b : f32
      tt.reduce.return %m : f32
    }) : (tensor<32x64xf32, #blocked>) -> tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
    tt.return %r : tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>
  }
}
"""


def _ops(text):
    return json.loads(render_json([check_module(read_ttgir(text))]))["files"][0]["ops"]


def test_a_shuffle_convert_lists_its_register_instructions():
    (op,) = _ops(CVT)
    assert op["status"] == "no shared memory" and not op["uses_shared_memory"]
    regs = [i for i in op["instructions"] if i.get("space") == "register"]
    assert regs and all(i["side"] in ("shuffle", "select", "permute") for i in regs)
    assert all(i["degree"] is None and i["per_thread"] > 0 for i in regs)
    assert any(i["ptx"].startswith("shfl.sync") for i in regs)
    text = render_text([check_module(read_ttgir(CVT))])
    assert "shfl.sync" in text


def test_a_reduce_lists_its_butterflies():
    (op,) = _ops(RED)
    assert {i["ptx"]: i["per_thread"] for i in op["instructions"]} == {"shfl.sync.bfly.b32": 16}
    assert op["instructions"][0]["space"] == "register"


def test_totals_include_the_shuffles():
    report = check_module(read_ttgir(RED))
    assert report.totals.per_thread == {"shfl.sync.bfly.b32": 16}
