"""Opcode spellings and vector rules of the global-memory lowering."""

from __future__ import annotations

from linlayout.check.global_memory.predict import amd_global_name, nvidia_global_name


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
