"""linlayout.triton.ttgir: reading TTGIR from Triton's compiler (module attributes, aliases,
Triton 3.0's spellings, errors naming the line) and finding every shared-memory access, views
resolved to their allocation.
"""

from __future__ import annotations

import re

import pytest

from linlayout import LayoutError
from linlayout.check import check_module
from linlayout.triton import find_accesses, read_ttgir

from tests.support import TTGIR_DIR, load_json, read_ttgir_fixture


EXPECTED = load_json("ttgir_expected.json")
FILES = sorted(EXPECTED["files"])


def test_module_attributes_and_aliases_are_read():
    m = read_ttgir_fixture("matmul_sm80.ttgir")
    assert (m.threads_per_warp, m.num_warps, m.target) == (32, 4, "cuda:80")
    assert {"blocked", "blocked1", "mma", "shared", "shared1", "smem"} <= set(m.aliases)
    assert read_ttgir_fixture("tma_sm90.ttgir").target == "cuda:90"


@pytest.mark.parametrize("name", FILES)
def test_accesses_match_the_fixture(name):
    accesses = [a for a in find_accesses(read_ttgir_fixture(name))
                if a.kind in ("store", "load", "convert")]
    want = EXPECTED["files"][name]
    got = [(a.line, a.op, a.result, a.memdesc) for a in accesses]
    assert got == [(o["line"], o["op"], o["result"], o["memdesc"]) for o in want]


def test_views_resolve_to_their_allocation():
    acc = find_accesses(read_ttgir_fixture("matmul_sm80.ttgir"))
    roots = {a.root for a in acc if a.kind != "convert"}
    assert roots == {"%a", "%b"}  # through memdesc_index, memdesc_subslice and scf.for
    sub = [a for a in acc if a.op == "local_load"]
    assert all(a.memory.layout_shape != a.distributed.shape for a in sub)
    copies = [a for a in acc if a.op == "async_copy_global_to_local"]
    assert all(a.max_vector_elems == 8 and a.element_bits == 16 for a in copies)


def test_malformed_ttgir_names_the_line():
    text = (TTGIR_DIR / "transpose2.ttgir").read_text().replace(
        "-> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>",
        "-> !ttg.memdesc<64x60xf16, #shared, #smem, mutable>", 1)
    with pytest.raises(LayoutError, match=r"k\.ttgir: line 25, column \d+: .*power of two"):
        read_ttgir(text, "k.ttgir")
    with pytest.raises(LayoutError, match="no MLIR module"):
        read_ttgir("hello world\n")
    with pytest.raises(LayoutError, match="no file 'kernels/missing.ttgir'"):
        read_ttgir("kernels/missing.ttgir")  # a mistyped path is named as one, not parsed


LEGACY = """#blocked = #triton_gpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0]}>
#C = #triton_gpu.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [4, 1]}>
#A = #triton_gpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0], CTAsPerCGA = [1, 1], CTASplitNum = [1, 1], CTAOrder = [1, 0], hasLeadingOffset = false}>
module attributes {"triton_gpu.num-ctas" = 1 : i32, "triton_gpu.num-warps" = 4 : i32, triton_gpu.target = "cuda:80", "triton_gpu.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<128x16xf16, #blocked>, %w: !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory>) {
    %a = triton_gpu.local_alloc %x : (tensor<128x16xf16, #blocked>) -> !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory>
    %a_op = triton_gpu.local_load %a : !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory> -> tensor<128x16xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>>
    %w_op = triton_gpu.local_load %w shouldHoist = true : !tt.memdesc<128x16xf16, #A, #triton_gpu.shared_memory> -> tensor<128x16xf16, #triton_gpu.dot_op<{opIdx = 0, parent = #C, kWidth = 2}>>
    tt.return
  }
}
"""


def test_triton_3_0_syntax_is_read():
    """``triton_gpu.`` ops, ``!tt.memdesc``, ``#triton_gpu.shared``, CTA triples and an mma
    without instrShape, as Triton 3.0 printed them; a function-argument buffer."""
    m = read_ttgir(LEGACY, "old.ttgir")
    assert (m.threads_per_warp, m.num_warps, m.target) == (32, 4, "cuda:80")
    reports = check_module(m).ops
    assert [(r.access.op, r.access.memdesc) for r in reports] == [
        ("local_alloc", "%a"), ("local_load", "%a"), ("local_load", "%w")]
    assert reports[1].degree > 1 and reports[1].suggestion is not None
    assert reports[2].access.root == "%w"


def test_hopper_matmul_epilogue_and_three_stage_buffers():
    """wgmma fed by TMA: operand buffers are ``3x128x64`` (three stages — not a power of two,
    which only the laid-out dims must be); the epilogue stores the mma accumulator with
    ``local_alloc`` into ``nvmma_shared`` for the TMA store."""
    m = read_ttgir_fixture("matmul_tma_sm90.ttgir")
    assert {"%a", "%b"} <= {n.split("_")[0] for n in m.ttng_uses}
    (rep,) = [r for r in check_module(m).ops if r.access.kind in ("store", "load", "convert")]
    a = rep.access
    assert (a.op, a.kind) == ("local_alloc", "store")
    assert a.distributed.encoding.mnemonic == "nvidia_mma"
    assert a.memory.encoding.mnemonic == "nvmma_shared"
    # sm_90 stores the f16 accumulator with stmatrix (16-byte rows), as Triton's PTX does
    assert rep.instructions[0].emitted.opcode == "stmatrix.sync.aligned.m8n8.x4.shared.b16"
    assert (rep.degree, rep.vector_elems) == (1, 8)
    alloc = next(op for op in m.ops if op.short == "local_alloc" and op.results == ("%a",))
    assert alloc.types[0].shape == (3, 128, 64) and alloc.types[0].view_shape == (128, 64)


def test_a_reduce_knows_which_results_are_used_and_what_each_reads():
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 2], order = [1, 0]}>
module attributes {"ttg.num-warps" = 8 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<64x64xf32, #blocked>, %i: tensor<64x64xi32, #blocked>) {
    %1:2 = "tt.reduce"(%x, %i) <{axis = 0 : i32}> ({
    ^bb0(%a: f32 loc(#loc1), %b: i32 loc(#loc1), %c: f32 loc(#loc1), %d: i32 loc(#loc1)):
      %lt = arith.cmpf olt, %a, %c : f32 loc(#loc2)
      %v = arith.select %lt, %a, %c : f32 loc(#loc2)
      %j = arith.select %lt, %b, %d : i32 loc(#loc2)
      tt.reduce.return %v, %j : f32, i32 loc(#loc2)
    }) : (tensor<64x64xf32, #blocked>, tensor<64x64xi32, #blocked>) -> (tensor<64xf32, #ttg.slice<{dim = 0, parent = #blocked}>>, tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>)
    %2 = arith.addi %1#1, %1#1 : tensor<64xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    tt.return
  }
}
"""
    (a,) = [a for a in find_accesses(read_ttgir(text)) if a.op == "reduce"]
    assert a.results_used == (False, True)
    assert a.combine == (frozenset({0}), frozenset({0, 1}))


def test_view_offsets_and_stages_follow_chains_of_views():
    from linlayout.triton.ttgir import view_offsets, view_stages
    text = """#shared = #ttg.padded_shared<[32:+1] {order = [1, 0], shape = [64, 32]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 1 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%i: i32) {
    %a = ttg.local_alloc : () -> !ttg.memdesc<3x64x32xf32, #shared, #smem, mutable>
    %b = ttg.memdesc_index %a[%c2_i32] : !ttg.memdesc<3x64x32xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf32, #shared, #smem, mutable>
    %c = ttg.memdesc_index %a[%i] : !ttg.memdesc<3x64x32xf32, #shared, #smem, mutable> -> !ttg.memdesc<64x32xf32, #shared, #smem, mutable>
    %d = ttg.memdesc_subslice %b[32, 0] : !ttg.memdesc<64x32xf32, #shared, #smem, mutable> -> !ttg.memdesc<32x32xf32, #shared, #smem, mutable, 64x32>
    %e = ttg.memdesc_subslice %d[16, 16] : !ttg.memdesc<32x32xf32, #shared, #smem, mutable, 64x32> -> !ttg.memdesc<16x16xf32, #shared, #smem, mutable, 64x32>
    tt.return
  }
}
"""
    m = read_ttgir(text)
    assert view_offsets(m) == {"%d": (32, 0), "%e": (48, 16)}
    assert view_stages(m) == {"%b": (2,), "%c": (0, 1, 2), "%d": (2,), "%e": (2,)}


def test_a_loop_result_is_rooted_at_its_own_iter_arg_s_buffer():
    """A pipelined loop's memdesc results (``%r#1``, ``%r#2``) are the buffers their
    iter_args carry: loads after the loop group with their own allocation, not with every
    other result of the loop (``%r``), so a suggestion covers all of a buffer's accesses."""
    from linlayout.triton.ttgir import buffer_root, view_parents
    md = "!ttg.memdesc<32x32xf16, #shared, #smem, mutable>"
    t = "tensor<32x32xf16, #blocked>"
    text = f"""#blocked = #ttg.blocked<{{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]}}>
#shared = #ttg.swizzled_shared<{{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}}>
#smem = #ttg.shared_memory
module attributes {{"ttg.num-warps" = 1 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32}} {{
  tt.func public @k(%n: i32, %v: {t}) {{
    %a = ttg.local_alloc : () -> !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable>
    %a0 = ttg.memdesc_index %a[%c0_i32] : !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable> -> {md}
    %b0 = ttg.memdesc_index %b[%c0_i32] : !ttg.memdesc<2x32x32xf16, #shared, #smem, mutable> -> {md}
    %r:3 = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%k = %c0_i32, %x = %a0, %y = %b0) -> (i32, {md}, {md}) : i32 {{
      ttg.local_store %v, %x : {t} -> {md}
      scf.yield %k, %x, %y : i32, {md}, {md}
    }}
    %s = scf.for %i = %c0_i32 to %n step %c1_i32 iter_args(%z = %b0) -> ({md}) : i32 {{
      scf.yield %z : {md}
    }}
    %la = ttg.local_load %r#1 : {md} -> {t}
    %lb = ttg.local_load %r#2 : {md} -> {t}
    %ls = ttg.local_load %s : {md} -> {t}
    tt.return
  }}
}}
"""
    m = read_ttgir(text)
    parents = view_parents(m)
    assert [buffer_root(n, parents) for n in ("%r#1", "%r#2", "%s", "%x", "%r")] == \
        ["%a", "%b", "%b", "%a", "%r"]
    loads = {a.result: a.root for a in find_accesses(m) if a.kind == "load"}
    assert loads == {"%la": "%a", "%lb": "%b", "%ls": "%b"}


@pytest.mark.parametrize("warps", ["0", "3", "-1", "12"])
def test_num_warps_must_be_a_power_of_two(warps):
    # 0 and 3 were taken as they came (the sunk-load replay divides by it); -1 was skipped
    text = (TTGIR_DIR / "transpose2.ttgir").read_text()
    with pytest.raises(LayoutError, match=f"ttg.num-warps is {warps}; a CTA has a power-of-two"):
        read_ttgir(text.replace('"ttg.num-warps" = 4', f'"ttg.num-warps" = {warps}'))



@pytest.mark.parametrize("attr", ["num-warps", "num-ctas", "threads-per-warp"])
def test_a_module_count_that_is_not_an_integer_is_refused(attr):
    # "4RPS" (a template placeholder half filled in) was read as 4
    text = (TTGIR_DIR / "transpose2.ttgir").read_text()
    bad = re.sub(rf'"ttg\.{attr}" = (\d+)', rf'"ttg.{attr}" = \1RPS', text, count=1)
    assert bad != text
    with pytest.raises(LayoutError, match=rf"ttg\.{attr} is '\d+RPS', not an integer"):
        read_ttgir(bad)

def test_threads_per_warp_defaults_to_the_targets():
    text = (TTGIR_DIR / "transpose2.ttgir").read_text().replace(
        '"ttg.threads-per-warp" = 32 : i32, ', "").replace("cuda:90", "hip:gfx942")
    assert read_ttgir(text).threads_per_warp == 64


_COPIES = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%a: tensor<64x64xf16, #blocked>) {
    %t = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %y = ttg.local_load %t : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    ttg.local_store %a, %t : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %b = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %c0 = arith.constant 0 : i32
    %v = ttg.memdesc_index %b[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %w = ttg.local_load %v : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    %s = ttg.memdesc_subslice %t[32, 0] : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64>
    %z = ttg.local_load %s : !ttg.memdesc<32x64xf16, #shared, #smem, mutable, 64x64> -> tensor<32x64xf16, #blocked>
    tt.return
  }
}
"""


def test_views_smaller_than_their_buffer_are_copied_at_their_own_shape():
    # a subslice (32x64 of a 64x64 buffer) and a stage of a 2-buffer allocation: valid
    # (Triton 3.9 parses and verifies this module), every copy analysed
    report = check_module(read_ttgir(_COPIES))
    assert [(r.access.line, r.status.value) for r in report.ops] == [
        (6, "counted"), (7, "counted"), (8, "counted"), (12, "counted"), (14, "counted")]


@pytest.mark.parametrize("old, new, line, match", [
    # each was counted; Triton 3.9's verifier rejects it: "'ttg.local_load' op source shape
    # [64, 64] must match [destination shape 32, 64]"
    ("%t : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16",
     "%t : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<32x64xf16", 7,
     r"shape \[32, 64\] through a memdesc of shape \[64, 64\]"),
    # the view's own shape, not its allocation's: a 32x64 subslice read as 64x64
    ("64x64> -> tensor<32x64xf16", "64x64> -> tensor<64x64xf16", 14,
     r"shape \[64, 64\] through a memdesc of shape \[32, 64\]"),
    ("ttg.local_store %a, %t : tensor<64x64xf16, #blocked>",
     "ttg.local_store %a, %t : tensor<64x32xf16, #blocked>", 8, r"shape \[64, 32\]"),
    ("%t = ttg.local_alloc %a : (tensor<64x64xf16, #blocked>)",
     "%t = ttg.local_alloc %a : (tensor<64x64xf32, #blocked>)", 6,
     "f32 elements through a memdesc of f16"),
    # the whole two-buffer allocation read as one buffer
    ("%w = ttg.local_load %v : !ttg.memdesc<64x64xf16, #shared, #smem, mutable>",
     "%w = ttg.local_load %b : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>", 12,
     r"shape \[64, 64\] through a memdesc of shape \[2, 64, 64\]"),
])
def test_a_copy_whose_tensor_and_memdesc_differ_is_refused(old, new, line, match):
    assert old in _COPIES
    with pytest.raises(LayoutError, match=f"line {line}: ttg.local_(load|store|alloc) moves "
                                          f".*{match}.*Triton's verifier rejects"):
        find_accesses(read_ttgir(_COPIES.replace(old, new, 1)))


@pytest.mark.parametrize("count, match", [
    ("9" * 5000, "an integer with 5000 digits"),  # was a ValueError (exit 3)
    ("900000000", r"900000000 results; at most 4096 \(MAX_OP_RESULTS\)"),
], ids=["5000 digits", "9e8 results"])
def test_a_loop_result_count_no_loop_has_is_refused(count, match):
    text = (TTGIR_DIR / "matmul_sm80.ttgir").read_text()
    assert "%acc_49:15 = scf.for" in text
    with pytest.raises(LayoutError, match=match):
        read_ttgir(text.replace("%acc_49:15 = scf.for", f"%acc_49:{count} = scf.for"))
