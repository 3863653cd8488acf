"""``linlayout.triton.allocation``: Triton 3.9's shared-memory allocator replayed — the
placement algorithm on hand-made buffers, the modules it refuses, and every offset and total
size Triton's own pass gave on the probe TTGIRs (``papers/triton_lowering/allocation_probes.py``)."""

from __future__ import annotations

import gzip
import json
import pathlib
import pytest

from linlayout.check.shared_memory.ops import module_allocation, predict_module
from linlayout.triton.allocation import (SharedBuffer, padded_elems, place_buffers,
                                         scalar_atomic_bytes, shared_allocation)
from linlayout.triton.ttgir import read_ttgir
from linlayout.triton.warp_specialize import find_warp_specialize

from tests.triton.test_warp_specialize import TEXT

DATA = pathlib.Path(__file__).resolve().parents[1] / "data"
FULL = (0, 1 << 64)


def _offsets(buffers):
    placed, size = place_buffers(buffers)
    return [b.offset_bytes for b in placed], size


def test_buffers_live_at_different_times_share_an_offset():
    a = SharedBuffer("alloc", 1, 4096, 16, (0, 3))
    b = SharedBuffer("alloc", 2, 1024, 16, (5, 8))
    assert _offsets([a, b]) == ([0, 0], 4096)


def test_buffers_live_together_are_stacked_largest_first_and_aligned():
    a = SharedBuffer("alloc", 1, 100, 16, (0, 9))
    b = SharedBuffer("alloc", 2, 1024, 1024, (2, 5))
    state = SharedBuffer("state", 0, 8, 4, FULL)
    offsets, size = _offsets([a, b, state])
    assert offsets[1] == 0 and offsets[0] == 1024 and offsets[2] == 1124 and size == 1132


def test_a_kernel_with_only_warp_specialisation_buffers():
    placed, why = shared_allocation(TEXT, 4, find_warp_specialize(TEXT))
    assert placed is not None, why
    assert {b.kind for b in placed.buffers} == {"state", "captures"}


def test_an_op_with_unmodelled_scratch_is_refused_with_the_reason():
    text = TEXT.replace("tt.return", "%cv = ttg.convert_layout %x : tensor<4xi32> -> "
                                     "tensor<4xi32>\n    tt.return")
    placed, why = shared_allocation(text, 4, find_warp_specialize(text))
    assert placed is None and "convert_layout" in why
    line = text.split("\n").index(next(ln for ln in text.split("\n") if "convert_layout" in ln))
    placed, _ = shared_allocation(text, 4, find_warp_specialize(text), {line + 1: 512})
    assert placed is not None and placed.offset("scratch") is not None


_FIXTURE = json.loads(gzip.decompress((DATA / "triton_allocation_offsets.json.gz")
                                      .read_bytes()))
CASES = sorted(_FIXTURE["probes"].items())
_SOURCES: dict = {"variants": {k: {"ttgir": t} for k, t in _FIXTURE["variants"].items()}}


def _ttgir(key):
    source, name = key.split("/", 1)
    if source not in _SOURCES:
        _SOURCES[source] = json.loads(gzip.decompress((DATA / f"{source}.json.gz")
                                                      .read_bytes()))["probes"]
    return _SOURCES[source][name]["ttgir"]


def test_the_fixture_covers_hundreds_of_modules():
    assert len(CASES) >= 1100
    assert sum(1 for _, t in CASES if t["captures"]) >= 200
    assert sum(1 for _, t in CASES if t["scratch"]) >= 100
    assert all(t["size"] is not None for _, t in CASES)


def test_gather_histogram_and_atomic_scratch_is_sized():
    """Each op's scratch as Triton's allocator sizes it: the module's ``ttg.shared``."""
    sizes = {k: t["size"] for k, t in CASES}
    assert sizes["variants/gather_warps_on_axis"] == 128 * 8 * 8  # the whole i64 source
    assert sizes["variants/atomic_broadcast_result"] == 256 * 4  # 16 warps over 256 f32
    assert sizes["variants/atomic_scalar_results"] == 4  # one f32
    # 16x64 f16 with 1 pad per 512 (2050 bytes), then 16x32 f16 at 16-byte alignment
    assert sizes["variants/two_padded_buffers"] == 2064 + 1026
    hist = [k for k in sizes if "/hist_" in k]
    assert hist and all(sizes[k] > 0 for k in hist)


@pytest.mark.parametrize("key,truth", CASES, ids=[k for k, _ in CASES])
def test_offsets_equal_tritons_allocator(key, truth):
    """Converts' scratch sized as ``check`` sizes it (``module_allocation``)."""
    module = read_ttgir(_ttgir(key), "probe")
    placed, why = module_allocation(module, predict_module(module))
    assert placed is not None, why
    got = {kind: [b.offset_bytes for b in placed.buffers if b.kind == kind]
           for kind in ("alloc", "captures", "scratch")}
    got["state"] = placed.offset("state")
    got["size"] = placed.size_bytes
    assert got == truth


def test_a_scalar_atomic_result_takes_one_element_of_scratch():
    assert scalar_atomic_bytes("%o = tt.atomic_rmw fadd, acq_rel, gpu, %p, %v, %t : "
                               "(!tt.ptr<f64>, f64, i1) -> f64") == 8
    assert scalar_atomic_bytes("%o = tt.atomic_cas acq_rel, gpu, %p, %c, %v : "
                               "(!tt.ptr<i1>, i1, i1) -> i1 loc(#loc3)") == 1
    assert scalar_atomic_bytes("%o = tt.atomic_rmw add, relaxed, gpu, %p, %v, %m : (…) -> "
                               "tensor<128xi32, #blocked>") is None


def test_padding_follows_every_interval_but_the_last():
    enc = "#ttg.padded_shared<[512:+1, 64:+4] {order = [1, 0], shape = [16, 64]}>"
    assert padded_elems(1024, enc) == 1024 + 1 + 15 * 4
    assert padded_elems(1024, "#ttg.padded_shared<{order = [1, 0]}>") is None


def _placed(text):
    module = read_ttgir(text, "probe")
    placed, why = module_allocation(module, predict_module(module))
    assert placed is not None, why
    return placed


def test_an_inner_loops_arguments_do_not_keep_an_outer_loops_buffer_live():
    """``%arg = %view`` in an inner ``scf.for`` defines the loop's argument; it is no use of
    the buffer at the loop, so after its ``local_dealloc`` the convert's scratch takes the
    buffer's bytes (Triton: scratch at 0, 16384 bytes in all)."""
    placed = _placed(_ttgir("variants/loop_in_loop_dealloc"))
    assert placed.offset("alloc") == 0 and placed.offset("scratch") == 0
    assert placed.size_bytes == 16384


def test_a_buffer_yielded_into_a_loop_is_live_from_the_top_of_the_loop():
    """The loop's block argument aliases the buffer allocated in its body and yielded, from
    the loop's condition block on: the convert early in the body may not share its bytes
    (Triton: buffers at 0 and 8192, the scratch at 16384)."""
    placed = _placed(_ttgir("variants/yielded_into_loop"))
    assert [b.offset_bytes for b in placed.buffers if b.kind == "alloc"] == [0, 8192]
    assert placed.offset("scratch") == 16384


#: Compiled kernels of the held-out traffic set placed by these two rules (before them the
#: replay differed from Triton's allocator on each): grouped and persistent matmuls whose K
#: loop sits inside an outer loop, and sm_100 attention yielding a buffer into its loop.
LOOP_ARGUMENT_KERNELS = (
    "after_grouped_gemm_15_cuda80", "after_grouped_gemm_22_cuda80",
    "after_grouped_gemm_45_cuda80", "after_grouped_gemm_72_cuda100",
    "grouped_gemm_219_cuda100", "grouped_gemm_287_cuda80", "grouped_gemm_6_cuda100",
    "grouped_gemm_91_cuda80", "matmul_persistent_126_cuda100",
    "matmul_persistent_148_cuda100", "matmul_persistent_19_cuda100",
    "matmul_persistent_234_cuda100", "attention_138_cuda100", "attention_254_cuda100",
)


@pytest.mark.parametrize("name", LOOP_ARGUMENT_KERNELS)
def test_kernels_with_loop_carried_buffers_are_placed_as_triton_places_them(name):
    """Every buffer, scratch and the total against Triton's ``allocate_shared_memory_nv``
    (kept in the held-out traffic fixture)."""
    from tests.check.shared_memory.triton_fixtures import entries

    e = entries("heldout_traffic")[name]
    placed = _placed(e["ttgir"])
    got = {kind: [b.offset_bytes for b in placed.buffers if b.kind == kind]
           for kind in ("alloc", "captures", "scratch")}
    got["state"] = placed.offset("state")
    got["size"] = placed.size_bytes
    assert got == e["allocation"]


@pytest.mark.parametrize("res, match", [
    # %q:900000000 named 9·10^8 results one by one (minutes, gigabytes)
    ("%q:900000000", r"900000000 results; at most 4096 \(MAX_OP_RESULTS\)"),
    ("%q:" + "9" * 5000, "an integer with 5000 digits"),  # was a ValueError
])
def test_a_result_count_no_op_has_is_refused(res, match):
    from linlayout import LayoutError
    from linlayout.triton.allocation import shared_allocation

    text = TEXT.replace("%pid = tt.get_program_id x : i32", f"{res} = tt.get_program_id x : i32")
    with pytest.raises(LayoutError, match=match):
        shared_allocation(text, 4)


def test_a_memdesc_dim_of_5000_digits_is_refused():
    from linlayout import LayoutError
    from linlayout.triton.allocation import shared_allocation

    text = TEXT.replace("%pid = tt.get_program_id x : i32",
                        "%b = ttg.local_alloc : () -> !ttg.memdesc<" + "9" * 5000
                        + "xf16, #shared, #smem, mutable>")
    with pytest.raises(LayoutError, match="an integer with 5000 digits"):
        shared_allocation(text, 4)
