"""Random layout conversions compiled by Triton 3.9.0 (``tests/data/triton_convert_probes.json.gz``,
written by ``papers/triton_lowering/convert_probes.py``): ``convert_layout`` and
``local_alloc``/``local_load`` between random blocked, linear, mma and dot-operand layouts
through random swizzled, NVMMA and linear shared layouts, on five targets. Each probe is
compared with Triton's assembly by ``test_triton_fixtures.py``.

Four probes store a tile into a ``shared_linear`` layout whose XOR swizzle reaches the low
offset bits, so a thread's elements land at adjacent addresses in another order than its
registers hold them: Triton (``largestVectorisation``) emits narrower stores and LLVM's
load-store vectoriser merges them; the prediction models that merge
(``linlayout/lowering/llvm_merge.py``) and equals the PTX."""

from __future__ import annotations

from collections import Counter

from tests.check.shared_memory.asm_counts import predicted_counts, ptx_counts
from tests.check.shared_memory.triton_fixtures import entries, known_mismatches


def test_the_probes_cover_every_kind_and_target():
    ps = entries("convert")
    assert len(ps) >= 230
    assert {e["target"] for e in ps.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                    "gfx950"}
    kinds = Counter(k for n in ps for k in n.split("_")[1:4])
    assert all(kinds[k] >= 5 for k in ("blocked", "linear", "mma", "dot", "swizzled"))
    assert sum(n.startswith("smem_") for n in ps) >= 40


#: The probes whose stores LLVM merges (fewer ``st.shared`` in the PTX than Triton emits).
LLVM_MERGED = ("smem_blocked_linear_blocked_b16_16x256_w4_107f37_cuda80",
               "smem_blocked_linear_linear_b16_128x128_w8_f9b4be_cuda100",
               "smem_linear_linear_mma_b32_16x256_w4_8cecb7_cuda90",
               "smem_mma_linear_dot_b8_128x128_w8_e91553_cuda80")


def test_no_convert_probe_is_a_known_mismatch():
    assert not known_mismatches().get("convert")


def test_stores_llvm_merges_are_predicted_after_the_merge():
    for name in LLVM_MERGED:
        e = entries("convert")[name]
        ptx = sum(n for k, n in e["counts"].items() if k.startswith("st.shared"))
        triton = sum(n for k, n in e["preopt"]["types"].items() if k.startswith("store"))
        assert ptx < triton, name
        got, _ = predicted_counts(e["ttgir"], name)
        assert got == ptx_counts(e["counts"]), name


def test_a_merged_side_is_counted_on_llvms_vectors():
    """The side LLVM merged carries a register layout re-based so that its first registers
    reach offsets 1, 2, … of the merged vector (what the bank counter reads as the vector),
    spanning the same registers as before."""
    from linlayout.check.count import count_side
    from linlayout.check.shared_memory.ops import predict_module
    from linlayout.hardware.model import NVIDIA
    from linlayout.lowering.vectorise import access_map
    from linlayout.triton.ttgir import read_ttgir

    name = LLVM_MERGED[0]
    sides = [s for _, p in predict_module(read_ttgir(entries("convert")[name]["ttgir"], name))
             for s in p.sides if s.emitted.side == "store"]
    (side,) = sides
    w = side.emitted.vector_elems
    assert (side.emitted.opcode, side.emitted.per_thread, w) == ("st.shared.v2.b16", 16, 2)
    m = access_map(side.dist, side.memory, side.emitted.element_bits)
    assert list(m.registers[:w.bit_length() - 1]) == [1 << i for i in range(w.bit_length() - 1)]
    report = count_side(side, NVIDIA)
    assert report is not None and report.degree == 1  # as check reports it
