"""linlayout.check.analysis: the bank conflicts of every access of a TTGIR module, at the
vector width Triton's codegen picks, and suggestions that really are conflict-free.

The degrees are checked against Triton 3.9's own counter (``gl.bank_conflicts``):
``tests/data/ttgir_expected.json`` for the TTGIR accesses, and
``tests/data/triton_bank_conflicts.json`` for 240 (register layout, shared layout, shape,
element width) cases. Triton reports *extra accesses per wavefront*: ``degree - 1``. At the
vector width Triton's codegen picks (:func:`triton_vector_elems`) the two agree on every access
of at least one bank word per lane. For narrower (sub-word) accesses Triton under-counts: it
intersects the lanes with the segment span only and misses lanes whose offsets differ by a
segment direction *plus* a within-word byte — which land in the same bank, in different words.
Our closed form counts them, and the brute-force simulator agrees with us. One test asks a live
Triton's counter (skipped without Triton).
"""

from __future__ import annotations

import pytest

from linlayout import LayoutError, bank_conflicts, simulate_bank_access
from linlayout.check import OpStatus, check_module, triton_vector_elems
from linlayout.check.render import op_dict
from linlayout.triton import parse_encoding, read_ttgir
from linlayout.triton import encodings as L
from linlayout.check.analysis import embed_in_buffer

from tests.support import load_json, read_ttgir_fixture, run_cli


EXPECTED = load_json("ttgir_expected.json")


def lane_reports(reports):
    """The loads, stores and converts (not the named TMA/MMA/tensor-memory ops)."""
    return [r for r in reports if r.access.kind in ("store", "load", "convert")]
FILES = sorted(EXPECTED["files"])


@pytest.mark.parametrize("name", FILES)
def test_degrees_agree_with_triton_and_the_simulator(name):
    reports = lane_reports(check_module(read_ttgir_fixture(name)).ops)
    for rep, want in zip(reports, EXPECTED["files"][name]):
        a = rep.access
        assert a.line == want["line"]
        if a.kind == "convert":
            continue
        (ins,) = rep.instructions
        dist = embed_in_buffer(a.distributed.layout, a.memory.layout)
        if ins.emitted.counter is None:  # ld/st.shared: Triton's own counter models it
            if want["triton_extra"] is not None:
                assert rep.degree - 1 == want["triton_extra"]
            sim = simulate_bank_access(dist, a.memory.layout, element_bits=a.element_bits,
                                       vector_elems=rep.vector_elems)
        else:  # ldmatrix / stmatrix: 8-lane row groups
            sim = simulate_bank_access(dist, a.memory.layout, element_bits=a.element_bits,
                                       instruction=ins.emitted.counter)
        assert (sim.degree, sim.wavefronts_per_instruction) == (rep.degree, rep.wavefronts_per_instruction)


def test_transpose_report_and_suggestion():
    reports = check_module(read_ttgir_fixture("transpose2.ttgir")).ops
    summary = [(r.access.line, r.access.op, r.vector_elems, r.degree) for r in reports]
    assert summary == [(25, "local_alloc", 8, 1), (26, "local_load", 1, 8),
                       (39, "local_store", 8, 1), (40, "local_load", 1, 8)]
    # both buffers get the same conflict-free swizzle; check it on every access
    sugg = {r.suggestion.text for r in reports if r.degree > 1}
    assert sugg == {"#ttg.swizzled_shared<{vec = 8, perPhase = 8, maxPhase = 8, order = [1, 0]}>"}
    new = parse_encoding(sugg.pop()).to_linear_layout([64, 64])
    for r in reports:
        a = r.access
        v = triton_vector_elems(a.distributed.layout, new, 16)
        rep = bank_conflicts(a.distributed.layout, new, element_bits=16, vector_elems=v)
        assert rep.degree == 1
        assert v == r.vector_elems  # the fix keeps the stores' 16-byte vectors


def test_tma_buffer_only_gets_nvmma_candidates():
    (rep,) = lane_reports(check_module(read_ttgir_fixture("tma_sm90.ttgir")).ops)
    assert (rep.degree, rep.vector_elems) == (8, 1)
    assert rep.suggestion is None
    assert "TMA" in rep.note


def test_matmul_is_conflict_free_and_the_epilogue_needs_shared_memory():
    reports = check_module(read_ttgir_fixture("matmul_sm80.ttgir")).ops
    assert all(r.degree == 1 for r in reports)
    conv = reports[-1]
    assert conv.access.op == "convert_layout" and conv.store is not None
    assert conv.wavefronts_per_warp == conv.store.wavefronts_per_warp + conv.load.wavefronts_per_warp
    assert conv.instructions_per_warp == conv.store.instructions_per_warp + conv.load.instructions_per_warp
    assert conv.wavefronts_per_instruction is None


def test_convert_within_a_warp_uses_no_shared_memory():
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<32x32xf32, #blocked>) {
    %y = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked> loc(#loc)
    %z = ttg.convert_layout %x : tensor<32x32xf32, #blocked> -> tensor<32x32xf32, #blocked1>
    tt.return
  }
}
"""
    r = check_module(read_ttgir(text)).ops
    assert r[0].degree is None and "no shared memory" in r[0].note
    assert r[1].degree is not None  # warps 0..3 own different rows in the two layouts


def test_wave64_modules_are_read_with_an_amd_model():
    text = ('module attributes {"ttg.threads-per-warp" = 64 : i32} {\n'
            '  tt.func @f() {\n    tt.return\n  }\n}\n')
    assert check_module(read_ttgir(text)).ops == ()
    bad = text.replace('{"ttg', '{ttg.target = "opencl:1", "ttg')
    with pytest.raises(LayoutError, match="unknown ttg.target"):
        check_module(read_ttgir(bad)).ops


def test_buffers_used_by_wgmma_through_a_view_get_nvmma_suggestions():
    text = """#blocked = #ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<64x64xf16, #blocked>, %c0: i32) {
    %buf = ttg.local_alloc : () -> !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable>
    %v = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    ttg.local_store %x, %v : tensor<64x64xf16, #blocked> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %v2 = ttg.memdesc_index %buf[%c0] : !ttg.memdesc<2x64x64xf16, #shared, #smem, mutable> -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %acc = ttng.warp_group_dot %v2, %v2, %cst : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> * !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf32, #mma>
    tt.return
  }
}
"""
    (rep,) = lane_reports(check_module(read_ttgir(text)).ops)
    assert rep.access.root == "%buf" and rep.degree == 8
    assert rep.suggestion is None and "TMA/wgmma" in rep.note


def test_layouts_without_a_linear_form_do_not_stop_the_file(capsys, tmp_path):
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#padded = #ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>
#future = #ttg.hyper_shared<{wobble = <3>}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<64x64xf16, #blocked>) {
    %p = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #padded, #smem, mutable>
    %q = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #future, #smem, mutable>
    %r = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    tt.return
  }
}
"""
    reports = check_module(read_ttgir(text)).ops
    assert [r.degree for r in reports] == [None, None, 1]
    # Triton caps the vector at the interval (8 f16 = 16 bytes), but a 4-element pad breaks
    # the 16-byte alignment of every other row: the op is misaligned, not counted
    assert reports[0].status is OpStatus.MISALIGNED
    assert "padded [32:+4]" in reports[0].note
    fault = reports[0].instructions[0].fault
    assert (fault.warp, fault.lane, fault.register, fault.byte_address) == (0, 4, 0, 72)
    assert "16-byte" in reports[0].instructions[0].note
    assert "not a layout linlayout knows" in reports[1].note
    path = tmp_path / "mixed.ttgir"
    path.write_text(text)
    code, out, _ = run_cli(capsys, "check", str(path))
    assert code == 1 and "skipped" in out and "line 9: not analysed" in out
    assert "MISALIGNED" in out and "FAIL: 1 op(s) misaligned" in out
    assert out.strip().endswith("1 op(s) not analysed")
    # outside a TTGIR file the attribute parses, but has no linear layout
    with pytest.raises(LayoutError, match="padding"):
        parse_encoding("#ttg.padded_shared<[32:+4] {order = [1, 0], shape = [64, 64]}>"
                       ).to_linear_layout([64, 64])


DATA = load_json("triton_bank_conflicts.json")
CASES = DATA["cases"]


def _layouts(case):
    dist = parse_encoding(case["register"]).to_linear_layout(case["shape"])
    shared = parse_encoding(case["shared"]).to_linear_layout(case["shape"])
    return dist, shared


def test_fixtures_cover_both_regimes():
    assert len(CASES) >= 200
    bits = {c["element_bits"] for c in CASES}
    assert bits == {8, 16, 32, 64}
    assert sum(c["triton_extra"] > 0 for c in CASES) > 50


@pytest.mark.parametrize("i", range(len(CASES)))
def test_degree_matches_tritons_counter_on_the_fixtures(i):
    case = CASES[i]
    dist, shared = _layouts(case)
    bits = case["element_bits"]
    v = triton_vector_elems(dist, shared, bits)
    ours = bank_conflicts(dist, shared, element_bits=bits, vector_elems=v)
    if ours.access_bits >= 32:
        assert ours.degree - 1 == case["triton_extra"]
    else:
        # Triton misses sub-word conflicts; it never sees more than there are
        assert ours.degree - 1 >= case["triton_extra"]
    if ours.access_bits < 32 or i % 4 == 0:
        sim = simulate_bank_access(dist, shared, element_bits=bits, vector_elems=v)
        assert (sim.degree, sim.wavefronts_per_instruction) == (ours.degree, ours.wavefronts_per_instruction)


def test_triton_undercounts_subword_accesses_worked_example():
    """int8 mma v2 operand A (kWidth 4) read from a vec=1 swizzle: Triton says 0 extra."""
    case = next(c for c in CASES if c["register"].startswith("#ttg.dot_op<{opIdx = 0")
                and "kWidth = 4" in c["register"] and c["shape"] == [64, 64]
                and c["shared"] == "#ttg.swizzled_shared<{vec = 1, perPhase = 2, maxPhase = 4, "
                                   "order = [1, 0]}>")
    assert case["triton_extra"] == 0
    dist, shared = _layouts(case)
    assert triton_vector_elems(dist, shared, 8) == 1
    ours = bank_conflicts(dist, shared, element_bits=8, vector_elems=1)
    assert ours.degree == 4
    assert simulate_bank_access(dist, shared, element_bits=8, vector_elems=1).degree == 4
    # The witnesses: lanes holding rows 0, 2, 4, 6 of column 0 read bytes 0, 129, 258, 387 —
    # words 0, 32, 64, 96, all in bank 0. 129 = 128 ^ 1 is a segment direction (128 bytes =
    # one row of banks) plus a byte inside the word, so Triton's span(segment) ∩ span(lanes)
    # test does not see it.
    inv = shared.invert()
    offsets = []
    for row in (0, 2, 4, 6):
        off = inv.apply({"dim0": row, "dim1": 0})["offset"]
        offsets.append(off)
    assert offsets == [0, 129, 258, 387]
    assert {o // 4 % 32 for o in offsets} == {0}
    assert len({o // 4 for o in offsets}) == 4


def test_triton_reports_degree_minus_one_not_extra_wavefronts():
    """For multi-phase accesses (64/128-bit vectors) Triton's number is per wavefront:
    ``degree - 1``, not ``ConflictReport.extra_wavefronts`` (= phases · (degree - 1))."""
    seen = 0
    for case in CASES:
        dist, shared = _layouts(case)
        v = triton_vector_elems(dist, shared, case["element_bits"])
        rep = bank_conflicts(dist, shared, element_bits=case["element_bits"], vector_elems=v)
        if rep.phases > 1 and rep.degree > 1:
            assert case["triton_extra"] == rep.degree - 1 != rep.extra_wavefronts
            seen += 1
    assert seen > 20


def test_triton_vector_rule_lanes_must_be_aligned():
    """Lanes whose offsets are not multiples of the vector cannot use one vector instruction:
    Triton and ``bank_conflicts`` (and the simulator) agree on scalar accesses here."""
    dist = L.blocked([1, 8], [4, 8], [4, 1], [1, 0]).to_linear_layout([64, 64])
    shared = L.swizzled_shared(1, 1, 64, [1, 0]).to_linear_layout([64, 64])
    assert bank_conflicts(dist, shared, element_bits=16).vector_elems == 1
    assert simulate_bank_access(dist, shared, element_bits=16).vector_elems == 1
    assert triton_vector_elems(dist, shared, 16) == 1


def test_triton_vector_rule_needs_single_register_bases():
    """Triton only permutes register bases; a register *combination* reaching an offset
    does not count (re-basing registers would be free, Triton does not do it)."""
    dist = L.blocked([4, 2], [1, 32], [1, 4], [0, 1]).to_linear_layout([128, 256])
    shared = L.swizzled_shared(2, 1, 2, [0, 1]).to_linear_layout([128, 256])
    assert bank_conflicts(dist, shared, element_bits=16).vector_elems == 8
    assert triton_vector_elems(dist, shared, 16) == 2


_MMA2_14 = L.nvidia_mma(2, [1, 4], [16, 8])


@pytest.mark.parametrize("dist, shared, shape, bits, ref", [
    (L.blocked([1], [32], [4], [0]), L.swizzled_shared(1, 1, 1, [0]), [32], 32, 0),
    (L.blocked([1], [32], [4], [0]), L.swizzled_shared(1, 1, 1, [0]), [32], 16, 0),
    (L.nvidia_mma(3, [4, 1], [16, 32, 16]), L.nvmma_shared(128, 16), [128, 128], 16, 0),
    (L.dot_operand(1, _MMA2_14, 2), L.nvmma_shared(64, 16), [64, 32], 16, 0),
    (L.dot_operand(0, _MMA2_14, 2), L.nvmma_shared(64, 16, transposed=True), [32, 64], 16, 0),
    (L.dot_operand(1, _MMA2_14, 1), L.nvmma_shared(32, 8), [8, 32], 8, 0),
    (L.nvidia_mma(2, [4, 1], [16, 8]), L.nvmma_shared(64, 16, transposed=True), [64, 64], 16, 0),
    (L.nvidia_mma(3, [2, 2], [16, 32, 16]), L.nvmma_shared(64, 16), [64, 32], 16, 0),
    (L.nvidia_mma(2, [4, 1], [16, 8]), L.nvmma_shared(32, 8), [32, 32], 8, 0),
    (L.nvidia_mma(2, [2, 4], [16, 8]), L.nvmma_shared(0, 16), [4, 64], 16, 3),
    (L.nvidia_mma(3, [4, 1], [16, 32, 16]), L.nvmma_shared(128, 32), [128, 64], 32, 1),
])
def test_matches_tritons_own_bank_conflict_tests(dist, shared, shape, bits, ref):
    """The cases and expected counts of Triton's ``test_bank_conflicts``
    (python/test/gluon/test_frontend.py)."""
    dl, sl = dist.to_linear_layout(shape), shared.to_linear_layout(shape)
    rep = bank_conflicts(dl, sl, element_bits=bits, vector_elems=triton_vector_elems(dl, sl, bits))
    assert rep.degree - 1 == ref


def test_bank_conflicts_match_a_live_tritons_counter(triton_generator):
    cases = [
        ("#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], "
         "order = [0, 1]}>",
         "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
         [64, 64], 16),
        ("#ttg.nvidia_mma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], "
         "instrShape = [16, 32, 16]}>",
         "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 32}>",
         [128, 64], 32),
        ("#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 4], "
         "instrShape = [16, 8]}>",
         "#ttg.nvmma_shared<{swizzlingByteWidth = 0, transposed = false, elementBitWidth = 16}>",
         [4, 64], 16),
    ]
    for reg, shared, shape, bits in cases:
        d, s = parse_encoding(reg), parse_encoding(shared)
        dl, sl = d.to_linear_layout(shape), s.to_linear_layout(shape)
        rep = bank_conflicts(dl, sl, element_bits=bits,
                             vector_elems=triton_vector_elems(dl, sl, bits))
        assert triton_generator.triton_bank_conflicts(d, s, shape, shape, bits) == rep.degree - 1


def test_suggestion_lists_the_instructions_triton_would_then_emit():
    """A row-major register tile stored into a column-major buffer moves one element per
    st.shared (and conflicts); the suggested layout brings the 16-byte vector back."""
    text = """#blocked = #ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:80", "ttg.threads-per-warp" = 32 : i32} {
  tt.func @f(%x: tensor<64x64xf16, #blocked>) {
    %a = ttg.local_alloc %x : (tensor<64x64xf16, #blocked>) -> !ttg.memdesc<64x64xf16, #shared, #smem, mutable>
    %y = ttg.local_load %a : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> tensor<64x64xf16, #blocked>
    tt.return
  }
}
"""
    st, ld = check_module(read_ttgir(text)).ops
    assert st.instructions[0].emitted.opcode == "st.shared.b16" and st.degree > 1
    assert st.suggestion is not None and st.suggestion.degree == 1
    assert [(e.opcode, e.per_thread) for e in st.suggestion_instructions] == [
        ("st.shared.v4.b32", 4)]
    assert op_dict(st)["suggestion_instructions"][0]["ptx"] == "st.shared.v4.b32"
