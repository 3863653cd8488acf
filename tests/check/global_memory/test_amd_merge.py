"""``check``'s global ``may_merge`` on AMD (:class:`~linlayout.check.global_memory.predict.
GlobalMerge`): where a thread holds a run of consecutive addresses longer than Triton's
vector, the instruction LLVM's back end may merge the run into, beside Triton's count; none on
NVIDIA or where Triton's vector already spans the run. The run (:func:`address_run`,
:func:`held_block`) and the comparison with an assembly (:func:`amd_merge_outcome`)."""

from __future__ import annotations

import pytest

from linlayout import LayoutError
from linlayout.check import check_module
from linlayout.check.global_memory import GlobalMerge
from linlayout.check.global_memory.compare import (AGREES, amd_merge_outcome,
                                                   normalise_amd_counts)
from linlayout.check.global_memory.predict import held_block
from linlayout.check.global_memory.render import global_dict, global_rows, global_totals
from linlayout.layout import LinearLayout
from linlayout.triton import read_ttgir


def _copy(target: str, warp: int, hint: str = "", bits: int = 8, size=(4,)) -> str:
    """A 1-D copy of 1024 elements, ``size`` per thread, pointers with ``hint``."""
    t = f"i{bits}"
    blocked = (f"#ttg.blocked<{{sizePerThread = [{size[0]}], threadsPerWarp = [{warp}], "
               "warpsPerCTA = [4], order = [0]}>")
    attrs = (f'"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", '
             f'"ttg.threads-per-warp" = {warp} : i32')
    return f"""#blocked = {blocked}
module attributes {{{attrs}}} {{
  tt.func public @copy(%X: !tt.ptr<{t}>{hint}, %Y: !tt.ptr<{t}>{hint}) {{
    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : tensor<1024xi32, #blocked>
    %x = tt.splat %X : !tt.ptr<{t}> -> tensor<1024x!tt.ptr<{t}>, #blocked>
    %xp = tt.addptr %x, %r : tensor<1024x!tt.ptr<{t}>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %xp : tensor<1024x!tt.ptr<{t}>, #blocked>
    %y = tt.splat %Y : !tt.ptr<{t}> -> tensor<1024x!tt.ptr<{t}>, #blocked>
    %yp = tt.addptr %y, %r : tensor<1024x!tt.ptr<{t}>, #blocked>, tensor<1024xi32, #blocked>
    tt.store %yp, %v : tensor<1024x!tt.ptr<{t}>, #blocked>
    tt.return
  }}
}}
"""


def _ops(text: str):
    return check_module(read_ttgir(text), suggest=False).global_ops


def test_unaligned_amd_bytes_name_the_merged_access():
    ops = _ops(_copy("hip:gfx942", 64))
    for g in ops:
        p = g.prediction
        assert p.vector_elems == 1 and p.per_thread == 4 and p.run == 4
        assert p.opcode in ("global_load_ubyte", "global_store_byte")
        assert p.may_merge == GlobalMerge(p.opcode.replace("ubyte", "dword")
                                          .replace("byte", "dword"), 1, 4, 4, 4)
        assert "LLVM's back end decides" in g.note


def test_sixteen_bit_runs_merge_up_to_sixteen_bytes():
    ops = _ops(_copy("hip:gfx950", 64, bits=16, size=(16,)))
    m = ops[1].prediction.may_merge
    assert ops[1].prediction.opcode == "global_store_short"
    assert (m.opcode, m.per_thread, m.vector_bytes) == ("global_store_dwordx4", 2, 16)


def test_sixteen_divisible_pointers_leave_nothing_to_merge():
    ops = _ops(_copy("hip:gfx942", 64, " {tt.divisibility = 16 : i32}"))
    assert [g.prediction.opcode for g in ops] == ["global_load_dword", "global_store_dword"]
    assert all(g.prediction.may_merge is None for g in ops)


def test_nvidia_names_no_merge():
    """Triton's inline ``ld.global``/``st.global`` assembly, which LLVM does not merge."""
    ops = _ops(_copy("cuda:90", 32))
    assert all(g.prediction.run == 4 and g.prediction.may_merge is None for g in ops)


def test_held_block_ignores_register_order():
    lay = LinearLayout({"register": [[0, 2], [0, 1], [1, 0]], "lane": [[0, 4]]},
                       ["dim0", "dim1"])
    assert held_block(lay, 1) == 4 and held_block(lay, 0) == 2


def test_json_text_and_totals_keep_tritons_count():
    ops = _ops(_copy("hip:gfx942", 64))
    d = global_dict(ops[1], nvidia=False)
    (ins,) = d["instructions"]
    assert ins["isa"] == "global_store_byte" and ins["per_thread"] == 4
    assert ins["may_merge"] == {"isa": "global_store_dword", "per_thread": 1,
                                "vector_elems": 4, "vector_bytes": 4, "run": 4}
    assert global_rows(ops)[1][4] == "global_store_byte x4 (may merge: global_store_dword x1)"
    assert global_totals(ops)["per_thread"] == {"global_load_ubyte": 4, "global_store_byte": 4}


def test_may_merge_entries_match_the_check_schema():
    jsonschema = pytest.importorskip("jsonschema")
    from linlayout.show.schemas import schema

    s = schema("check")
    validator = jsonschema.Draft202012Validator({"$defs": s["$defs"],
                                                 "$ref": "#/$defs/global_op"})
    for g in _ops(_copy("hip:gfx942", 64)):
        validator.validate(global_dict(g, nvidia=False))


def test_outcomes():
    ops = _ops(_copy("hip:gfx942", 64))
    assert amd_merge_outcome(ops, {"global_load_ubyte": 4, "global_store_byte": 4}) == \
        "as counted"
    assert amd_merge_outcome(ops, {"global_load_dword": 1, "global_store_dword": 1}) == \
        "merged"
    assert amd_merge_outcome(ops, {"global_load_dword": 1, "global_store_byte": 4}) == \
        "some merged"
    assert amd_merge_outcome(ops, {"global_load_dword": 1, "global_store_short": 2}) == \
        "between"
    assert amd_merge_outcome(ops, {"global_load_dword": 1}) == "differs"
    assert amd_merge_outcome(ops, {"global_load_dword": 1, "global_store_byte_d16_hi": 2,
                                   "global_store_short": 1}) == "between"
    assert "differs" not in AGREES


def test_variants_and_bad_arguments():
    assert normalise_amd_counts({"global_load_sbyte": 2, "global_store_short_d16_hi": 1,
                                 "global_atomic_add": 1, "global_load_lds_dword": 3}) == \
        {"global_load_ubyte": 2, "global_store_short": 1}
    with pytest.raises(LayoutError):
        normalise_amd_counts([("global_load_ubyte", 1)])
    with pytest.raises(LayoutError):
        amd_merge_outcome(["not a report"], {})


def test_held_block_rejects_bad_arguments():
    lay = LinearLayout({"register": [[1]]}, ["dim0"])
    with pytest.raises(LayoutError):
        held_block(lay, 1)
    with pytest.raises(LayoutError):
        held_block("layout", 0)


def _buffer_copy(bits: int, size: int = 4) -> str:
    """A 1-D ``amdg.buffer_load``/``buffer_store`` copy of 1024 ``bits``-bit elements on
    gfx942, ``size`` per thread, pointers without ``tt.divisibility`` (Triton's vector 1)."""
    t = f"i{bits}"
    blocked = (f"#ttg.blocked<{{sizePerThread = [{size}], threadsPerWarp = [64], "
               "warpsPerCTA = [4], order = [0]}>")
    attrs = ('"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", '
             '"ttg.threads-per-warp" = 64 : i32')
    return f"""#blocked = {blocked}
module attributes {{{attrs}}} {{
  tt.func public @copy(%X: !tt.ptr<{t}>, %Y: !tt.ptr<{t}>) {{
    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : tensor<1024xi32, #blocked>
    %v = amdg.buffer_load %X[%r] : !tt.ptr<{t}> -> tensor<1024x{t}, #blocked>
    amdg.buffer_store %v, %Y[%r] : !tt.ptr<{t}> -> tensor<1024x{t}, #blocked>
    tt.return
  }}
}}
"""


@pytest.mark.parametrize("bits", [8, 16])
def test_sub_dword_buffer_accesses_name_no_merge(bits):
    """LLVM merges no buffer access under 32 bits (the IR vectoriser skips the intrinsics,
    ``SILoadStoreOptimizer`` pairs only the dword families): Triton's count, with a note."""
    ops = _ops(_buffer_copy(bits))
    assert [g.prediction.opcode for g in ops] == \
        (["buffer_load_ubyte", "buffer_store_byte"] if bits == 8
         else ["buffer_load_ushort", "buffer_store_short"])
    for g in ops:
        p = g.prediction
        assert p.run == 4 and p.per_thread == 4 and p.may_merge is None
        assert "merges no buffer access under 4 bytes" in g.note
    assert amd_merge_outcome(ops, {"buffer_load_ushort": 4, "buffer_store_short": 4}) == \
        ("as counted" if bits == 16 else "differs")


def test_dword_buffer_accesses_may_merge():
    ops = _ops(_buffer_copy(32))
    for g in ops:
        p = g.prediction
        assert p.opcode in ("buffer_load_dword", "buffer_store_dword") and p.per_thread == 4
        assert p.may_merge is not None and p.may_merge.opcode.endswith("_dwordx4")
        assert p.may_merge.per_thread == 1


def _cas16(target: str = "hip:gfx942") -> str:
    """A 16-bit ``tt.atomic_cas`` of 1024 elements, 4 per thread, after a 16-bit load."""
    lanes = 32 if target.startswith("cuda") else 64  # the target's warp (check_lanes)
    blocked = (f"#ttg.blocked<{{sizePerThread = [4], threadsPerWarp = [{lanes}], "
               "warpsPerCTA = [4], order = [0]}>")
    attrs = (f'"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "{target}", '
             f'"ttg.threads-per-warp" = {lanes} : i32')
    return f"""#blocked = {blocked}
module attributes {{{attrs}}} {{
  tt.func public @cas(%X: !tt.ptr<f16>, %Y: !tt.ptr<f16>) {{
    %r = tt.make_range {{end = 1024 : i32, start = 0 : i32}} : tensor<1024xi32, #blocked>
    %x = tt.splat %X : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %xp = tt.addptr %x, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    %v = tt.load %xp : tensor<1024x!tt.ptr<f16>, #blocked>
    %y = tt.splat %Y : !tt.ptr<f16> -> tensor<1024x!tt.ptr<f16>, #blocked>
    %yp = tt.addptr %y, %r : tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xi32, #blocked>
    %c = tt.atomic_cas acq_rel, gpu, %yp, %v, %v : (tensor<1024x!tt.ptr<f16>, #blocked>, tensor<1024xf16, #blocked>, tensor<1024xf16, #blocked>) -> tensor<1024xf16, #blocked>
    tt.return
  }}
}}
"""


def test_a_sixteen_bit_cas_names_its_loops_loads_and_the_outcome_counts_them():
    ops = _ops(_cas16())
    (a,) = [g for g in ops if g.prediction.side == "atomic"]
    p = a.prediction
    assert p.opcode == "global_atomic_cmpswap" and p.per_thread == 4
    assert p.loop_load == ("global_load_dword", 4)
    assert "begins with a load" in a.note
    assert global_dict(a, nvidia=False)["instructions"][0]["loop_load"] == \
        {"isa": "global_load_dword", "per_thread": 4}
    assert global_rows(ops)[1][4] == \
        "global_atomic_cmpswap x4 (loop load: global_load_dword x4)"
    # Triton's IR has no loop, so the totals leave the loads out
    assert "global_load_dword" not in global_totals(ops)["per_thread"]
    (ld,) = [g for g in ops if g.prediction.side == "load"]
    counted = {ld.prediction.opcode: ld.prediction.per_thread}
    assert amd_merge_outcome(ops, {**counted, "global_load_dword": 4}) == "as counted"
    assert amd_merge_outcome(ops, counted) == "differs"


def test_native_atomics_name_no_loop_load():
    text = _cas16().replace("f16", "f32")
    (a,) = [g for g in _ops(text) if g.prediction.side == "atomic"]
    assert a.prediction.opcode == "global_atomic_cmpswap" and a.prediction.loop_load is None
    (n,) = [g for g in _ops(_cas16("cuda:90")) if g.prediction.side == "atomic"]
    assert n.prediction.loop_load is None


def test_a_scalar_sixteen_bit_add_loads_its_word_through_scalar_memory():
    """A scalar pointer's address is uniform: the loop's load is an ``s_load_dword``, which
    the final AMDGCN's vector-memory counts do not hold."""
    text = """module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "hip:gfx942", "ttg.threads-per-warp" = 64 : i32} {
  tt.func public @add(%X: !tt.ptr<f16>, %Y: !tt.ptr<f16>) {
    %v = tt.load %X : !tt.ptr<f16>
    %o = tt.atomic_rmw fadd, acq_rel, gpu, %Y, %v : (!tt.ptr<f16>, f16) -> f16
    tt.return
  }
}
"""
    ops = _ops(text)
    (a,) = [g for g in ops if g.prediction.side == "atomic"]
    assert a.prediction.opcode == "global_atomic_cmpswap"
    assert a.prediction.loop_load == ("s_load_dword", 1)
    assert amd_merge_outcome(ops, {"global_load_ushort": 1}) == "as counted"
