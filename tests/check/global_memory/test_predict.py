"""Opcode spellings and vector rules of the global-memory lowering."""

from __future__ import annotations

from linlayout.check.global_memory.predict import (amd_atomic_name, amd_buffer_atomic_name,
                                                   amd_cas_loop_load, amd_global_name,
                                                   nvidia_atomic_name, nvidia_global_name)


def test_nvidia_names_follow_the_word_rule():
    assert nvidia_global_name("load", 4, 32) == "ld.global.v4.b32"
    assert nvidia_global_name("load", 8, 16) == "ld.global.v4.b32"
    assert nvidia_global_name("load", 2, 16) == "ld.global.b32"
    assert nvidia_global_name("load", 1, 16) == "ld.global.b16"
    assert nvidia_global_name("load", 1, 8) == "ld.global.b8"
    assert nvidia_global_name("store", 2, 64) == "st.global.v2.b64"
    assert nvidia_global_name("store", 16, 8) == "st.global.v4.b32"


def test_nvidia_cache_modifiers():
    assert nvidia_global_name("load", 4, 32, "{cache = cg}") == "ld.global.v4.b32"
    assert nvidia_global_name("load", 4, 32, "cache_modifier = cg") == "ld.global.cg.v4.b32"
    assert nvidia_global_name("store", 1, 32, "cacheModifier = wt") == "st.global.wt.b32"


def test_amd_names_by_bytes():
    assert amd_global_name("load", 16) == "global_load_dwordx4"
    assert amd_global_name("load", 2) == "global_load_ushort"
    assert amd_global_name("store", 1) == "global_store_byte"
    assert amd_global_name("load", 8, buffer=True) == "buffer_load_dwordx2"


def test_nvidia_atomic_names():
    assert nvidia_atomic_name("fadd", "relaxed", "gpu", "f32", 32, 1, 1, True) == \
        "red.global.gpu.relaxed.add.f32"
    assert nvidia_atomic_name("fadd", "acq_rel", "gpu", "f32", 32, 4, 1, False) == \
        "atom.global.gpu.acq_rel.add.v4.f32"
    assert nvidia_atomic_name("fadd", "acquire", "cta", "f16", 16, 1, 2, False) == \
        "atom.global.cta.acquire.add.noftz.f16x2"
    assert nvidia_atomic_name("fadd", "release", "sys", "bf16", 16, 1, 1, False) == \
        "atom.global.sys.release.add.noftz.bf16"
    assert nvidia_atomic_name("add", "relaxed", "cta", "i32", 32, 1, 1, True) == \
        "red.global.cta.relaxed.add.u32"
    assert nvidia_atomic_name("umax", "acquire", "gpu", "i64", 64, 1, 1, False) == \
        "atom.global.gpu.acquire.max.u64"
    assert nvidia_atomic_name("exch", "relaxed", "gpu", "f32", 32, 1, 1, False) == \
        "atom.global.gpu.relaxed.exch.b32"
    # CAS puts the order before the scope
    assert nvidia_atomic_name("cas", "acq_rel", "gpu", "f16", 16, 1, 1, False) == \
        "atom.global.acq_rel.gpu.cas.b16"


def test_amd_atomic_names():
    assert amd_atomic_name("add", "gpu", "i32", 32) == "global_atomic_add"
    assert amd_atomic_name("max", "cta", "i64", 64) == "global_atomic_smax_x2"
    assert amd_atomic_name("umin", "gpu", "i32", 32) == "global_atomic_umin"
    assert amd_atomic_name("fadd", "gpu", "f32", 32) == "global_atomic_add_f32"
    assert amd_atomic_name("exch", "sys", "f64", 64) == "global_atomic_swap_x2"
    # at system scope LLVM expands all but integer add and exchange into a CAS loop
    assert amd_atomic_name("fadd", "sys", "f32", 32) == "global_atomic_cmpswap"
    assert amd_atomic_name("and", "sys", "i64", 64) == "global_atomic_cmpswap_x2"
    # 16-bit float adds: packed pk_add below system scope, else a 32-bit CAS loop
    assert amd_atomic_name("fadd", "gpu", "f16", 16, packed=True) == "global_atomic_pk_add_f16"
    assert amd_atomic_name("fadd", "cta", "bf16", 16, packed=True) == \
        "global_atomic_pk_add_bf16"
    assert amd_atomic_name("fadd", "sys", "bf16", 16, packed=True) == "global_atomic_cmpswap"
    assert amd_atomic_name("fadd", "gpu", "f16", 16) == "global_atomic_cmpswap"


def test_amd_buffer_atomic_names():
    assert amd_buffer_atomic_name("add", "i32", 32) == "buffer_atomic_add"
    assert amd_buffer_atomic_name("max", "i64", 64) == "buffer_atomic_smax_x2"
    assert amd_buffer_atomic_name("fadd", "f32", 32) == "buffer_atomic_add_f32"
    assert amd_buffer_atomic_name("fadd", "bf16", 16) == "buffer_atomic_pk_add_bf16"
    assert amd_buffer_atomic_name("cas", "i64", 64) == "buffer_atomic_cmpswap_x2"
    assert amd_buffer_atomic_name("exch", "i32", 32) == "buffer_atomic_swap"


def test_amd_atomic_names_refuse_bad_arguments_and_name_unknown_kinds_by_family():
    import pytest

    from linlayout.errors import LayoutError

    assert amd_buffer_atomic_name("fadd", "f8E4M3FN", 8) == "buffer_atomic"
    assert amd_buffer_atomic_name("nand", "i32", 32) == "buffer_atomic"
    assert amd_atomic_name("nand", "gpu", "i32", 32) is None
    for bad in [(1, "i32", 32), ("add", None, 32), ("add", "i32", 7), ("add", "i32", True)]:
        with pytest.raises(LayoutError):
            amd_buffer_atomic_name(*bad)
    with pytest.raises(LayoutError):
        amd_atomic_name("add", 3, "i32", 32)
    with pytest.raises(LayoutError):
        amd_atomic_name("fadd", "gpu", "f16", 16, packed="yes")


def test_amd_sub_word_atomics_are_compare_and_swap_loops_but_and_or_xor():
    """8/16-bit atomics: LLVM expands every kind but and/or/xor into a 32-bit compare-and-swap
    loop on the containing word; and/or/xor are widened to a 32-bit atomic of the word."""
    for kind in ("add", "max", "min", "umax", "umin", "exch", "cas"):
        for bits in (8, 16):
            assert amd_atomic_name(kind, "gpu", f"i{bits}", bits) == "global_atomic_cmpswap"
    for kind, stem in (("and", "and"), ("or", "or"), ("xor", "xor")):
        assert amd_atomic_name(kind, "gpu", "i16", 16) == f"global_atomic_{stem}"
        assert amd_atomic_name(kind, "sys", "i16", 16) == "global_atomic_cmpswap"
    assert amd_atomic_name("exch", "gpu", "f16", 16) == "global_atomic_cmpswap"


def test_amd_cas_loop_loads():
    import pytest

    from linlayout.errors import LayoutError

    # a 16-bit cas: one loop per element, each begins with a load of the 32-bit word
    assert amd_cas_loop_load("cas", 16, (("global_atomic_cmpswap", 16),)) == \
        ("global_load_dword", 16)
    # a native 32/64-bit cas: no loop
    assert amd_cas_loop_load("cas", 32, (("global_atomic_cmpswap", 4),)) is None
    assert amd_cas_loop_load("cas", 64, (("global_atomic_cmpswap_x2", 4),)) is None
    # a 16-bit float add with vector 1: the packed add is native, its two scalar fallbacks
    # are loops
    assert amd_cas_loop_load("fadd", 16, (("global_atomic_pk_add_bf16", 2),
                                          ("global_atomic_cmpswap", 4))) == \
        ("global_load_dword", 4)
    # a system-scope 64-bit max: a loop on the 64-bit element
    assert amd_cas_loop_load("max", 64, (("global_atomic_cmpswap_x2", 2),)) == \
        ("global_load_dwordx2", 2)
    assert amd_cas_loop_load("add", 32, (("global_atomic_add", 4),)) is None
    # a scalar pointer's uniform address: the load goes through scalar memory
    assert amd_cas_loop_load("fadd", 16, (("global_atomic_cmpswap", 1),), uniform=True) == \
        ("s_load_dword", 1)
    with pytest.raises(LayoutError):
        amd_cas_loop_load("fadd", 16, (), uniform="yes")
    for bad in [(3, 16, ()), ("cas", 12, ()), ("cas", 16, [("x", -1)]),
                ("cas", 16, "global_atomic_cmpswap")]:
        with pytest.raises(LayoutError):
            amd_cas_loop_load(*bad)
