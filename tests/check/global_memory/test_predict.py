"""Opcode spellings and vector rules of the global-memory lowering."""

from __future__ import annotations

from linlayout.check.global_memory.predict import (amd_atomic_name, amd_buffer_atomic_name,
                                                   amd_global_name, nvidia_atomic_name,
                                                   nvidia_global_name)


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
