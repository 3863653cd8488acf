"""NVPTX's byte extracts of a warp-shuffle convert's moved words (four 8-bit elements per
32-bit register) read by the next reduction (``shuffled_byte_positions`` and the reader rules
of ``linlayout/check/registers/byte_readers.py``): the convert unpacks each shuffled or
selected word with a ``bitcast`` to ``<4 x i8>`` and four ``extractelement`` s, the IR a
shared-memory load's unpacking has, and NVPTX selects them alike
(``papers/triton_lowering/byte_extract_isel.py``, ``"moved_words"``).

The expected counts are Triton 3.9.0's lowering (``-O3`` skipped) of the ``r3`` probe
``r3_i8_min_4x8x32_ax01_w1_2cf076_cuda80`` of an ``r3``-only draw
(``papers/triton_lowering/README.md``) and of variants of it with the second layout, the
warps and the combine op replaced, each compiled for sm_80, sm_90 and sm_100 (the same on
all three). The kernels here keep only the two reductions and the convert between them.

Also here: a reduction's reloaded words packed back four to a register by a shuffle convert
(``shuffled_word_sources``: the build folds into the words), and the in-thread reader of
``_in_thread_zero_reads`` (an ``and`` step, or ``add``/``xor``/``or`` before a partitioned
round of identity 0: byte 0 of each word free), on shuffled and on loaded words — a rule
read off compiled kernels (``papers/triton_lowering/README.md``)."""

from __future__ import annotations

import pytest

from linlayout.check.registers.byte_readers import (loaded_byte_positions,
                                                    shuffled_byte_positions,
                                                    shuffled_word_sources)
from linlayout.check.shared_memory.ops import predict_module
from linlayout.errors import LayoutError
from linlayout.lowering.convert import convert_path
from linlayout.lowering.shuffle import unpacked_bytes
from linlayout.lowering.target import Target
from linlayout.triton.ttgir import find_accesses, read_ttgir

KERNEL = """\
#blocked = #ttg.blocked<{sizePerThread = [FIRST_SIZE], threadsPerWarp = [FIRST_LANES], warpsPerCTA = [WA, WB, WC], order = [FIRST_ORDER]}>
#blocked1 = #ttg.blocked<{sizePerThread = [S0, S1], threadsPerWarp = [T0, T1], warpsPerCTA = [W0, W1], order = [ORDER]}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = WARPS : i32, ttg.target = "TARGET", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<4x8x32xi8, #blocked>) -> tensor<8xi8, #ttg.slice<{dim = 1, parent = #blocked1}>> {
    %r = "tt.reduce"(%x) <{axis = 0 : i32}> ({
    ^bb0(%a: i8, %b: i8):
      %m = COMBINE %a, %b : i8
      tt.reduce.return %m : i8
    }) : (tensor<4x8x32xi8, #blocked>) -> tensor<8x32xi8, #ttg.slice<{dim = 0, parent = #blocked}>>
    %z = ttg.convert_layout %r : tensor<8x32xi8, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<8x32xi8, #blocked1>
    %s = "tt.reduce"(%z) <{axis = 1 : i32}> ({
    ^bb0(%c: i8, %d: i8):
      %n = COMBINE %c, %d : i8
      tt.reduce.return %n : i8
    }) : (tensor<8x32xi8, #blocked1>) -> tensor<8xi8, #ttg.slice<{dim = 1, parent = #blocked1}>>
    tt.return %s : tensor<8xi8, #ttg.slice<{dim = 1, parent = #blocked1}>>
  }
}
"""

#: the layouts of the second reduction's operand: (sizePerThread, threadsPerWarp,
#: warpsPerCTA, the first layout's warps along its dims 0, 1 and 2)
FULL_WARP = ((1, 1), (1, 32), (1, 1), (1, 1, 1))       # the probe: a full-warp redux.sync round
PARTITIONED = ((4, 1), (2, 16), (1, 2), (1, 1, 2))     # a partitioned round, then across warps
IN_THREAD = ((2, 1), (4, 8), (1, 2), (1, 2, 1))        # an in-thread step first, then butterflies
#: the first layout of the probe (sizePerThread, threadsPerWarp)
PROBE_FIRST = ((4, 4, 1), (1, 2, 16))


def kernel(shape, combiner: str, target: str, first=PROBE_FIRST, order=(0, 1),
           first_order=(2, 1, 0)) -> str:
    (s0, s1), (t0, t1), (w0, w1), (wa, wb, wc) = shape
    subs = {"FIRST_SIZE": ", ".join(map(str, first[0])),
            "FIRST_ORDER": ", ".join(map(str, first_order)),
            "FIRST_LANES": ", ".join(map(str, first[1])), "ORDER": ", ".join(map(str, order)),
            "S0": s0, "S1": s1, "T0": t0, "T1": t1, "W0": w0, "W1": w1, "WA": wa, "WB": wb,
            "WC": wc, "WARPS": w0 * w1, "TARGET": target, "COMBINE": combiner}
    text = KERNEL
    # longest placeholder first: "WA" is a prefix of "WARPS"
    for key in sorted(subs, key=len, reverse=True):
        text = text.replace(key, str(subs[key]))
    return text


def permutes(text: str, ops=("%z", "%s")) -> dict[str, int]:
    """``prmt.b32`` per thread that ``check`` puts on the convert and the second reduction
    (or the ops ``ops`` name)."""
    out = {}
    for a, p in predict_module(read_ttgir(text, "probe")):
        assert not isinstance(p, Exception), p
        if a.result in ops:
            out[a.result] = sum(e.per_thread or 0 for e in p.registers
                                if e.opcode == "prmt.b32")
    return out


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90", "cuda:100"])
@pytest.mark.parametrize("combiner", ["arith.minsi", "arith.maxsi"])
def test_a_signed_round_takes_the_shuffled_bytes_sign_extending_extracts(combiner, target):
    """6 packing the two shuffled words; each unpacked byte 0 a cvt.s32.s8, bytes 1-3 a
    prmt.b32 on the reduction's line (the probe: check had 14 and 0)."""
    assert permutes(kernel(FULL_WARP, combiner, target)) == {"%z": 6, "%s": 6}


@pytest.mark.parametrize("combiner", ["arith.minui", "arith.addi", "arith.xori", "arith.andi"])
def test_a_full_warp_zero_extending_round_keeps_every_extract(combiner):
    assert permutes(kernel(FULL_WARP, combiner, "cuda:90")) == {"%z": 14, "%s": 0}


@pytest.mark.parametrize("combiner, convert, reduce", [
    ("arith.minsi", 3, 14), ("arith.maxsi", 3, 14),   # 4 extracts: 3 moved, byte 0 free
    ("arith.addi", 6, 7), ("arith.ori", 6, 7), ("arith.xori", 6, 7), ("arith.maxui", 6, 7),
    ("arith.minui", 7, 7), ("arith.andi", 7, 7)])
def test_a_partitioned_round_reads_shuffled_bytes_as_loaded_ones(combiner, convert, reduce):
    """Zero identity: byte 0 free (and.b32 w, 255 on the reduction's line); identity -1:
    every extract kept; signed: the extracts on the reduction's line."""
    assert permutes(kernel(PARTITIONED, combiner, "cuda:80")) == {"%z": convert, "%s": reduce}


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90", "cuda:100"])
@pytest.mark.parametrize("combiner, convert", [("arith.minsi", 11), ("arith.maxsi", 11),
                                               ("arith.andi", 11), ("arith.addi", 12)])
def test_an_in_thread_step_before_butterflies(combiner, convert, target):
    """A signed step: cvt.s8.s32 of the shuffled word for its byte 0 (8 packing, 4 extracts
    less one); an and step: byte 0 free too; an add step keeps it."""
    assert permutes(kernel(IN_THREAD, combiner, target)) == {"%z": convert, "%s": 0}


#: an in-thread step, then a partitioned redux.sync round (one lane bit off the axis)
IN_THREAD_PARTITIONED = ((2, 1), (2, 16), (2, 1), (1, 2, 1))


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90", "cuda:100"])
@pytest.mark.parametrize("combiner, convert", [
    ("arith.addi", 11), ("arith.xori", 11), ("arith.ori", 11), ("arith.andi", 11),
    ("arith.maxui", 12), ("arith.minui", 12), ("arith.muli", 12)])
def test_an_in_thread_step_before_a_partitioned_round(combiner, convert, target):
    """Byte 0 of each shuffled word free under add/xor/or (identity 0) and and steps, kept
    under maxui/minui (and muli, whose round is butterflies)."""
    assert permutes(kernel(IN_THREAD_PARTITIONED, combiner, target))["%z"] == convert


#: the compiled probe ``r3_u8_max_4x8x32_ax01_w2_b2804a_cuda90`` (a draw kept to the
#: reader site above): the first reduction's move to its result layout reloads two words
#: (``ld.shared.v2.b32``) whose bytes the shuffle convert packs back four to a register, each
#: packed register the bytes of one loaded word in order
REPACKED = ((1, 4), (4, 8), (2, 1), (2, 1, 1))
REPACKED_FIRST = ((1, 2, 4), (1, 4, 8))


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90", "cuda:100"])
@pytest.mark.parametrize("combiner", ["arith.maxui", "arith.minui", "arith.addi",
                                      "arith.xori", "arith.ori"])
def test_a_reduction_s_reloaded_words_repacked_by_a_shuffle_convert_fold(combiner, target):
    """The DAG combiner folds each packed register's build into the loaded word (none for one
    word in order): the reduction's 8 byte extracts die (28 -> 20) and the convert's 6
    packing permutes (10 -> 4; check had 28 and 10)."""
    text = kernel(REPACKED, combiner, target, REPACKED_FIRST, (1, 0))
    assert permutes(text, ("%r", "%z")) == {"%r": 20, "%z": 4}


@pytest.mark.parametrize("combiner", ["arith.maxsi", "arith.minsi"])
def test_a_signed_first_reduction_leaves_no_loaded_words_to_fold(combiner):
    """Measured the same way: 28 and 3 (byte 0 of the convert's moved word read by the
    signed in-thread step)."""
    text = kernel(REPACKED, combiner, "cuda:90", REPACKED_FIRST, (1, 0))
    assert permutes(text, ("%r", "%z")) == {"%r": 28, "%z": 3}


def test_shuffled_word_sources():
    src, dst = _convert(kernel(REPACKED, "arith.maxui", "cuda:90", REPACKED_FIRST, (1, 0)))
    sm90 = Target.parse("cuda:90")
    assert shuffled_word_sources(src, dst, sm90) == [(0, 1, 2, 3), (4, 5, 6, 7)]
    assert shuffled_word_sources(src, dst, Target.parse("hip:gfx950")) is None
    assert shuffled_word_sources(dst, dst, sm90) is None
    with pytest.raises(LayoutError):
        shuffled_word_sources(src, dst, "cuda:90")


#: the compiled probe ``r3_i8_add_4x8x32_ax01_w1_926b3a_cuda80`` (a later ``r3`` draw): a
#: convert through shared memory (two ``ld.shared.b32`` per thread) read by an in-thread step,
#: then a partitioned round — the same reader on loaded words
LOADED_IN_THREAD = ((4, 1), (2, 16), (1, 1), (1, 1, 1))
LOADED_FIRST = ((1, 1, 1), (4, 1, 8))


@pytest.mark.parametrize("target", ["cuda:80", "cuda:90", "cuda:100"])
@pytest.mark.parametrize("combiner, convert", [
    ("arith.addi", 30), ("arith.xori", 30), ("arith.ori", 30), ("arith.andi", 30),
    ("arith.maxui", 32), ("arith.minui", 32), ("arith.muli", 32)])
def test_an_in_thread_step_reads_loaded_words_alike(combiner, convert, target):
    text = kernel(LOADED_IN_THREAD, combiner, target, LOADED_FIRST, (0, 1), (0, 2, 1))
    assert loaded_byte_positions(*_convert(text), Target.parse(target)) is not None
    assert permutes(text)["%z"] == convert


def _convert(text: str):
    (a,) = [a for a in find_accesses(read_ttgir(text, "probe")) if a.result == "%z"]
    return a.distributed.layout, a.destination.layout


def test_shuffled_byte_positions():
    src, dst = _convert(kernel(FULL_WARP, "arith.minsi", "cuda:80"))
    sm80 = Target.parse("cuda:80")
    assert shuffled_byte_positions(src, dst, sm80) == (0, 1, 2, 3, 0, 1, 2, 3)
    assert loaded_byte_positions(src, dst, sm80) is None       # no shared memory
    assert shuffled_byte_positions(src, dst, Target.parse("hip:gfx942")) is None
    assert shuffled_byte_positions(dst, dst, sm80) is None     # no move at all
    low = convert_path(src, dst, 8, sm80).lowering
    assert unpacked_bytes(low) == (0, 1, 2, 3, 0, 1, 2, 3)
    assert convert_path(src, dst, 16, sm80).lowering.decomposition.n_pack == 1
    with pytest.raises(LayoutError):
        shuffled_byte_positions(src, dst, "cuda:80")
    with pytest.raises(LayoutError):
        unpacked_bytes(None)


GENERAL = """\
#blocked = #ttg.blocked<{FIRST}>
#blocked1 = #ttg.blocked<{SECOND}>
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = WARPS : i32, ttg.target = "TARGET", "ttg.threads-per-warp" = 32 : i32} {
  tt.func public @k(%x: tensor<SHAPE3xi8, #blocked>) -> tensor<RESULTxi8, #ttg.slice<{dim = AX2, parent = #blocked1}>> {
    %r = "tt.reduce"(%x) <{axis = AX1 : i32}> ({
    ^bb0(%a: i8, %b: i8):
      %m = COMBINE %a, %b : i8
      tt.reduce.return %m : i8
    }) : (tensor<SHAPE3xi8, #blocked>) -> tensor<SHAPE2xi8, #ttg.slice<{dim = AX1, parent = #blocked}>>
    %z = ttg.convert_layout %r : tensor<SHAPE2xi8, #ttg.slice<{dim = AX1, parent = #blocked}>> -> tensor<SHAPE2xi8, #blocked1>
    %s = "tt.reduce"(%z) <{axis = AX2 : i32}> ({
    ^bb0(%c: i8, %d: i8):
      %n = COMBINE %c, %d : i8
      tt.reduce.return %n : i8
    }) : (tensor<SHAPE2xi8, #blocked1>) -> tensor<RESULTxi8, #ttg.slice<{dim = AX2, parent = #blocked1}>>
    tt.return %s : tensor<RESULTxi8, #ttg.slice<{dim = AX2, parent = #blocked1}>>
  }
}
"""


def general(first: str, second: str, shape, ax1: int, ax2: int, combiner: str,
            target: str, warps: int = 1) -> str:
    rest = [n for d, n in enumerate(shape) if d != ax1]
    subs = {"FIRST": first, "SECOND": second, "SHAPE3": "x".join(map(str, shape)),
            "SHAPE2": "x".join(map(str, rest)), "RESULT": str(rest[1 - ax2]), "AX1": ax1,
            "AX2": ax2, "WARPS": warps, "TARGET": target, "COMBINE": combiner}
    text = GENERAL
    for key, value in subs.items():
        text = text.replace(key, str(value))
    return text


#: compiled probes of a later ``r3`` draw whose convert's loaded words (two, and four) are
#: read by an in-thread ``and`` step: each accumulator ands two bytes 0 of two words
#: (``r3_i8_and_16x4x16_ax10_w1_f90a83_cuda90``: lowering 31, check had 32; and
#: ``r3_i8_and_2x16x32_ax01_w1_4297d5_cuda90``: lowering 38, check had 40) — one of the two
#: is the word itself, the other stays a ``prmt.b32 0x7770`` (NVPTX's ``and.b32 w1, b0(w2)``)
AND_PAIRS = [
    ("sizePerThread = [4, 1, 2], threadsPerWarp = [4, 4, 2], warpsPerCTA = [1, 1, 1], "
     "order = [1, 0, 2]",
     "sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]",
     (16, 4, 16), 1, 0, 31),
    ("sizePerThread = [1, 1, 4], threadsPerWarp = [2, 2, 8], warpsPerCTA = [1, 1, 1], "
     "order = [0, 1, 2]",
     "sizePerThread = [4, 1], threadsPerWarp = [2, 16], warpsPerCTA = [1, 1], order = [1, 0]",
     (2, 16, 32), 0, 1, 38),
]


@pytest.mark.parametrize("first, second, shape, ax1, ax2, convert", AND_PAIRS)
def test_an_and_step_of_two_bytes_0_keeps_one_extract(first, second, shape, ax1, ax2,
                                                       convert):
    text = general(first, second, shape, ax1, ax2, "arith.andi", "cuda:90")
    assert permutes(text)["%z"] == convert
