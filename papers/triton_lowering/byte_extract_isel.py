#!/usr/bin/env python
"""How LLVM's NVPTX back end selects the byte extracts of a loaded ``<4 x i8>`` word, by how
each byte's readers widen it: small LLVM IR kernels compiled to PTX with Triton 3.9's LLVM
(``triton._C.libtriton.llvm.translate_to_asm``, as ``make_ptx`` does), sm_80, sm_90, sm_100.

Run with Triton 3.9.0 installed (CPU only, a few seconds)::

    python papers/triton_lowering/byte_extract_isel.py          # writes the fixture
    python papers/triton_lowering/byte_extract_isel.py --check  # compile, compare

Each kernel loads one 32-bit word of four bytes from shared memory, takes every byte out
with an ``extractelement`` (as Triton's ``lowerLdStShared`` does) and reads each byte as the
case says. The ``prmt.b32`` of each byte are counted by the selector's low nibble (the byte
it reads: ``0x7770``…``0x7773`` zero-filled, ``0x8880``/``0x9991``/``0xaaa2``/``0xbbb3``
sign-replicated) and compared with
:func:`linlayout.lowering.byte_extracts.byte_extract_permutes` of the case's reader kinds;
the script exits 1 on a difference. A second set of kernels stores one loaded word's bytes as
``<2 x i8>`` pairs and counts the ``prmt.b32`` by ``.loc`` line (load on line 10, stores on
line 20), against :func:`linlayout.lowering.byte_extracts.pair_is_half_word`. A third set
(``"moved_words"``) repeats every case on a word that is not loaded but moved in registers,
as a warp-shuffle convert packing four bytes per register leaves it (``transferWithinWarp``:
a ``bitcast`` of the moved ``i32`` to ``<4 x i8>``, one ``extractelement`` per byte): the
result of a ``shfl.sync.bfly`` (``"shuffled"``) or of a ``select`` between a shuffled and a
kept word (``"selected"``); each is compared with the same reader kinds. A fourth
(``"built_moved_words"``) builds the words of :data:`BUILT` from loaded bytes as a
warp-shuffle convert packs four bytes per register (the ``<4 x i8>`` build, a ``bitcast``
to ``i32``, then a ``shfl.sync.bfly``, or a ``select`` and one) and counts every
``prmt.b32``, against :func:`linlayout.lowering.byte_extracts.built_word_permutes`.
``tests/lowering/test_byte_extracts.py`` replays the fixture
(``tests/data/nvptx_byte_extracts.json``) without Triton.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "nvptx_byte_extracts.json"
TARGETS = (80, 90, 100)

HEAD = """target datalayout = "e-p3:32:32-p4:32:32-p5:32:32-p6:32:32-p7:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
@smem = external addrspace(3) global [0 x i8], align 16
declare i32 @llvm.nvvm.shfl.sync.bfly.i32(i32, i32, i32, i32)
declare i8 @llvm.umax.i8(i8, i8)
declare i8 @llvm.smax.i8(i8, i8)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.redux.sync.add(i32, i32)
declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)
declare i32 @llvm.nvvm.redux.sync.max(i32, i32)
define ptx_kernel void @k(ptr addrspace(1) %out) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %p = getelementptr inbounds i8, ptr addrspace(3) @smem, i32 %t
  %w = load <4 x i8>, ptr addrspace(3) %p, align 4
  %b0 = extractelement <4 x i8> %w, i32 0
  %b1 = extractelement <4 x i8> %w, i32 1
  %b2 = extractelement <4 x i8> %w, i32 2
  %b3 = extractelement <4 x i8> %w, i32 3
"""


def _store(ty: str, value: str, k: int, slot: int = 0) -> str:
    return (f"  %q{k}_{slot} = getelementptr {ty}, ptr addrspace(1) %out, i32 {4 * slot + k}\n"
            f"  store volatile {ty} {value}, ptr addrspace(1) %q{k}_{slot}\n")


def _zext_then(op: str):
    def body(k: int) -> str:
        return (f"  %x{k} = zext i8 %b{k} to i32\n  %h{k} = {op.replace('{k}', str(k))}\n"
                + _store("i32", f"%h{k}", k))
    return body


def _shuffle(widen: str):
    def body(k: int) -> str:
        return (f"  %x{k} = {widen} i8 %b{k} to i32\n"
                f"  %s{k} = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x{k}, i32 1, "
                f"i32 31)\n" + _store("i32", f"%s{k}", k))
    return body


def _widen_store(widen: str, ty: str):
    def body(k: int) -> str:
        return f"  %x{k} = {widen} i8 %b{k} to {ty}\n" + _store(ty, f"%x{k}", k)
    return body


def _byte_op(fn: str):
    def body(k: int) -> str:
        return f"  %m{k} = call i8 @llvm.{fn}.i8(i8 %b{k}, i8 7)\n" + _store("i8", f"%m{k}", k, 1)
    return body


def _butterfly(fn: str):
    """Triton's butterfly step on a byte: shuffle it zero-extended, combine it as a byte."""
    def body(k: int) -> str:
        comb = (f"call i8 @llvm.{fn}.i8(i8 %b{k}, i8 %r{k})" if fn in ("smax", "umax")
                else f"{fn} i8 %b{k}, %r{k}")
        return (f"  %x{k} = zext i8 %b{k} to i32\n"
                f"  %s{k} = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %x{k}, i32 1, "
                f"i32 31)\n  %r{k} = trunc i32 %s{k} to i8\n  %m{k} = {comb}\n"
                + _store("i8", f"%m{k}", k, 1))
    return body


def _select(widen: str):
    def body(k: int) -> str:
        return (f"  %x{k} = {widen} i8 %b{k} to i32\n  %c{k} = icmp eq i32 %t, {k}\n"
                f"  %h{k} = select i1 %c{k}, i32 %x{k}, i32 127\n"
                f"  %s{k} = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %h{k}, i32 1, "
                f"i32 31)\n" + _store("i32", f"%s{k}", k))
    return body


def _redux(widen: str, fn: str, arms: str, identity: int = 0):
    """One in-warp ``redux.sync`` round of Triton's ``TargetInfo::warpReduce`` on the byte
    widened to 32 bits: ``arms`` ``"both"`` is the partitioned round (the lane bit 16 splits
    the warp: one ``redux.sync`` with the other half's values replaced by ``identity``, one
    with this half's, a select of the lane's own result; Triton 3.9's LLVM IR before
    ``-O3``), ``"keep"``/``"drop"`` only its first/second arm, ``"none"`` a full-warp round
    (the value itself)."""
    def body(k: int) -> str:
        out = (f"  %x{k} = {widen} i8 %b{k} to i32\n  %l{k} = and i32 %t, 16\n"
               f"  %c{k} = icmp eq i32 %l{k}, 0\n")
        call = f"call i32 @llvm.nvvm.redux.sync.{fn}"
        if arms == "none":
            out += f"  %r{k} = {call}(i32 %x{k}, i32 -1)\n"
        if arms in ("both", "keep"):
            out += (f"  %p{k} = select i1 %c{k}, i32 %x{k}, i32 {identity}\n"
                    f"  %r{k} = {call}(i32 %p{k}, i32 -1)\n")
        if arms in ("both", "drop"):
            out += (f"  %q{k} = select i1 %c{k}, i32 {identity}, i32 %x{k}\n"
                    f"  %s{k} = {call}(i32 %q{k}, i32 -1)\n")
        if arms == "both":
            out += f"  %u{k} = select i1 %c{k}, i32 %r{k}, i32 %s{k}\n"
        res = {"both": "u", "keep": "r", "drop": "s", "none": "r"}[arms]
        return (out + f"  %v{k} = trunc i32 %{res}{k} to i8\n"
                + _store("i8", f"%v{k}", k, 1))
    return body


#: name: (IR reading byte k, the reader kinds of every byte)
CASES = {
    "zext to i32, shuffled": (_shuffle("zext"), ["zext"]),
    "zext to i32, selected": (_select("zext"), ["zext"]),
    "zext to i32, shifted": (_zext_then("shl i32 %x{k}, 16"), ["zext"]),
    "zext to i32, and": (_zext_then("and i32 %x{k}, %t"), ["zext"]),
    "zext to i32, sub": (_zext_then("sub i32 %t, %x{k}"), ["zext"]),
    "zext to i32, or": (_zext_then("or i32 %x{k}, %t"), ["zext_arith"]),
    "zext to i32, xor": (_zext_then("xor i32 %x{k}, %t"), ["zext_arith"]),
    "zext to i32, add": (_zext_then("add i32 %x{k}, %t"), ["zext_arith"]),
    "zext to i32, mul": (_zext_then("mul i32 %x{k}, %t"), ["zext_arith"]),
    "zext to i16, stored": (_widen_store("zext", "i16"), ["zext"]),
    "zext to i64, stored": (_widen_store("zext", "i64"), ["zext"]),
    "sext to i32, shuffled": (_shuffle("sext"), ["sext"]),
    "sext to i32, selected": (_select("sext"), ["sext"]),
    "sext to i16, stored": (_widen_store("sext", "i16"), ["sext"]),
    "sext to i64, stored": (_widen_store("sext", "i64"), ["sext"]),
    "umax on the byte": (_byte_op("umax"), ["byte"]),
    "smax on the byte": (_byte_op("smax"), ["signed_byte"]),
    "butterfly umax": (_butterfly("umax"), ["zext", "byte"]),
    "butterfly add": (_butterfly("add"), ["zext", "byte"]),
    "butterfly xor": (_butterfly("xor"), ["zext", "byte"]),
    "butterfly smax": (_butterfly("smax"), ["zext", "signed_byte"]),
    "zext, partitioned redux.add": (_redux("zext", "add", "both"), ["zext_partitioned"]),
    "zext, partitioned redux.umin": (_redux("zext", "umin", "both", -1), ["zext"]),
    "zext, redux.add first arm only": (_redux("zext", "add", "keep"), ["zext"]),
    "zext, redux.add second arm only": (_redux("zext", "add", "drop"), ["zext_partitioned"]),
    "zext, full-warp redux.add": (_redux("zext", "add", "none"), ["zext"]),
    "sext, partitioned redux.max": (_redux("sext", "max", "both", -2147483648), ["sext"]),
    "sext, full-warp redux.max": (_redux("sext", "max", "none"), ["sext"]),
    "stored as a byte, shared": (lambda k: (
        f"  %d{k} = getelementptr inbounds i8, ptr addrspace(3) @smem, i32 {256 + 8 * k}\n"
        f"  store volatile i8 %b{k}, ptr addrspace(3) %d{k}, align 1\n"), ["store_byte"]),
    "stored as a byte, global": (lambda k: _store("i8", f"%b{k}", k, 1), ["store_byte"]),
    "zext twice": (lambda k: _shuffle("zext")(k) + f"  %y{k} = zext i8 %b{k} to i32\n"
                   + _store("i32", f"%y{k}", k, 2), ["zext"]),
}


def _packed_pairs() -> str:
    """Triton's packing of two bytes per 32-bit register (``transferWithinWarp``): byte 0
    and byte 2 low (read by the ``or``), bytes 1 and 3 shifted by 16."""
    out = "".join(f"  %x{k} = zext i8 %b{k} to i32\n" for k in range(4))
    out += ("  %h1 = shl i32 %x1, 16\n  %o0 = or i32 %x0, %h1\n"
            "  %h3 = shl i32 %x3, 16\n  %o1 = or i32 %x2, %h3\n")
    return out + _store("i32", "%o0", 0) + _store("i32", "%o1", 1)


def kernel(name: str) -> str:
    if name == "packed pairs":
        body = _packed_pairs()
    else:
        body = "".join(CASES[name][0](k) for k in range(4))
    return HEAD + body + "  ret void\n}\n"


_LOADED = "  %w = load <4 x i8>, ptr addrspace(3) %p, align 4\n"
#: the moved words (``"moved_words"``): how the word each case unpacks is made
MOVED = {
    "shuffled": ("  %l = load i32, ptr addrspace(3) %p, align 4\n"
                 "  %sh = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %l, i32 16, "
                 "i32 31)\n  %w = bitcast i32 %sh to <4 x i8>\n"),
    "selected": ("  %l = load i32, ptr addrspace(3) %p, align 4\n"
                 "  %sh = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %l, i32 16, "
                 "i32 31)\n  %ce = icmp eq i32 %t, 0\n"
                 "  %sl = select i1 %ce, i32 %l, i32 %sh\n  %w = bitcast i32 %sl to <4 x i8>\n"),
}


def moved_kernel(name: str, source: str) -> str:
    """:func:`kernel` with its loaded word replaced by a moved one (:data:`MOVED`)."""
    text = kernel(name)
    assert _LOADED in text
    return text.replace(_LOADED, MOVED[source])


def readers(name: str) -> list[list[str]]:
    """The reader kinds of bytes 0 to 3 of a case."""
    if name == "packed pairs":
        return [["zext_arith"], ["zext"], ["zext_arith"], ["zext"]]
    return [CASES[name][1]] * 4


def names() -> list[str]:
    return list(CASES) + ["packed pairs"]


def permutes_by_byte(ptx: str) -> list[int]:
    """``prmt.b32`` per byte (the selector's low nibble) of a PTX text."""
    out = [0] * 4
    for m in re.finditer(r"prmt\.b32\s+%r\d+, %r\d+, 0, 0x([0-9a-f]{4})U;", ptx):
        out[int(m.group(1)[-1], 16) & 3] += 1
    return out


#: stored words built from the bytes of loaded words (``ld.shared.v2.b32``, or
#: ``ld.shared.v4.b32`` where a byte index reaches 8): the loaded byte (word = byte // 4) of
#: each stored byte, low first; the last five take bytes of three or four words (added after
#: a fresh-seed reduction showed a word of four loaded words built with three ``prmt.b32``)
BUILT = ([0, 4, 1, 5], [2, 6, 3, 7], [0, 1, 4, 5], [0, 4, 2, 6], [3, 2, 1, 0], [0, 1, 2, 3],
         [4, 5, 6, 7], [1, 1, 5, 5], [0, 8, 4, 12], [0, 5, 10, 15], [3, 9, 14, 4],
         [0, 4, 8, 9], [4, 0, 8, 1])


def built_kernel(sources: list[int]) -> str:
    """Two (or four) loaded words, one ``<4 x i8>`` built from their bytes with
    ``insertelement`` and stored to shared memory as Triton builds a stored vector."""
    n = 8 if max(sources) < 8 else 16
    head = HEAD.replace("%w = load <4 x i8>, ptr addrspace(3) %p, align 4",
                        f"%w = load <{n} x i8>, ptr addrspace(3) %p, align {n}")
    head = re.sub(r"  %b\d = extractelement <4 x i8> %w, i32 \d\n", "", head)
    body = "".join(f"  %e{k} = extractelement <{n} x i8> %w, i32 {k}\n" for k in range(n))
    prev = "undef"
    for j, i in enumerate(sources):
        body += f"  %v{j} = insertelement <4 x i8> {prev}, i8 %e{i}, i32 {j}\n"
        prev = f"%v{j}"
    body += ("  %d = getelementptr inbounds i8, ptr addrspace(3) @smem, i32 256\n"
             f"  store <4 x i8> {prev}, ptr addrspace(3) %d, align 4\n")
    return head + body + "  ret void\n}\n"


#: how a built word is read in :func:`built_shuffled_kernel`: a warp-shuffle convert packing
#: four bytes per register shuffles it (``"shuffled"``) or selects it first (``"selected"``)
BUILT_READS = {
    "shuffled": "  %bw = bitcast <4 x i8> {v} to i32\n"
                "  %sh = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %bw, i32 1, i32 31)\n",
    "selected": "  %bw = bitcast <4 x i8> {v} to i32\n  %ce = icmp eq i32 %t, 0\n"
                "  %sl = select i1 %ce, i32 %bw, i32 7\n"
                "  %sh = call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %sl, i32 1, i32 31)\n",
}


def built_shuffled_kernel(sources: list[int], read: str) -> str:
    """:func:`built_kernel` with the built ``<4 x i8>`` packed into an ``i32`` and moved as a
    warp-shuffle convert moves a register of four bytes (``transferWithinWarp``, ``n_pack``
    2; :data:`BUILT_READS`), the shuffled word stored to global memory."""
    text = built_kernel(sources)
    m = re.search(r"  %d = getelementptr inbounds i8, ptr addrspace\(3\) @smem, i32 256\n"
                  r"  store <4 x i8> (%v\d), ptr addrspace\(3\) %d, align 4\n", text)
    assert m
    body = (BUILT_READS[read].format(v=m.group(1))
            + "  %o = getelementptr i32, ptr addrspace(1) %out, i32 0\n"
              "  store volatile i32 %sh, ptr addrspace(1) %o\n")
    return text.replace(m.group(0), body)


#: stored byte pairs (``<2 x i8>``, ``st.shared.v2.b8``) of one loaded word: the loaded byte
#: of each stored byte, low first, pair after pair
PAIRS = ((0, 1, 2, 3), (2, 3, 0, 1), (0, 1, 3, 2), (1, 0, 3, 2), (0, 2, 1, 3), (1, 2, 3, 0),
         (0, 3, 1, 2), (0, 1), (2, 3), (1, 2))

_DEBUG = """!llvm.module.flags = !{!0}
!llvm.dbg.cu = !{!1}
!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = distinct !DICompileUnit(language: DW_LANG_C, file: !2, producer: "k", isOptimized: true, \
runtimeVersion: 0, emissionKind: LineTablesOnly)
!2 = !DIFile(filename: "k.ttgir", directory: "")
!3 = !DISubroutineType(cc: DW_CC_normal, types: !{})
!4 = distinct !DISubprogram(name: "k", linkageName: "k", scope: !2, file: !2, line: 1, \
type: !3, scopeLine: 1, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !1)
!7 = !DILocation(line: 10, column: 1, scope: !4)
!8 = !DILocation(line: 20, column: 1, scope: !4)
""".replace("\\\n", "")


def pair_kernel(bytes_: tuple[int, ...]) -> str:
    """One loaded word (its load and extracts on line 10) stored as byte pairs built with
    ``insertelement`` (line 20), as Triton builds a stored ``<2 x i8>``."""
    head = HEAD.replace("define ptx_kernel void @k(ptr addrspace(1) %out) {",
                        "define ptx_kernel void @k(ptr addrspace(1) %out) !dbg !4 {")
    head = re.sub(r"^(  %.*)$", r"\1, !dbg !7", head, flags=re.M)
    body = ""
    for j in range(0, len(bytes_), 2):
        a, b = bytes_[j], bytes_[j + 1]
        body += (f"  %d{j} = getelementptr inbounds i8, ptr addrspace(3) @smem, "
                 f"i32 {256 + 2 * j}, !dbg !8\n"
                 f"  %u{j} = insertelement <2 x i8> undef, i8 %b{a}, i32 0, !dbg !8\n"
                 f"  %v{j} = insertelement <2 x i8> %u{j}, i8 %b{b}, i32 1, !dbg !8\n"
                 f"  store <2 x i8> %v{j}, ptr addrspace(3) %d{j}, align 2, !dbg !8\n")
    return head + body + "  ret void, !dbg !8\n}\n" + _DEBUG


def permutes_by_line(ptx: str) -> dict[str, int]:
    """``{source line: prmt.b32}`` of a PTX text, by its ``.loc`` lines."""
    out: dict[str, int] = {}
    line = None
    for s in ptx.splitlines():
        m = re.match(r"\s*\.loc\s+\d+\s+(\d+)", s)
        if m:
            line = m.group(1)
        elif re.match(r"\s*prmt\.b32\s", s):
            out[line] = out.get(line, 0) + 1
    return dict(sorted(out.items()))


def build() -> dict:
    import triton
    from triton._C.libtriton import llvm
    from triton.backends.nvidia.compiler import sm_arch_from_capability

    llvm.init_targets()

    def ptx(module: str, cc: int) -> str:
        return llvm.translate_to_asm(module, "nvptx64-nvidia-cuda", sm_arch_from_capability(cc),
                                     "+ptx86", [], False, False, False)

    def per_target(draws, kernel_of, count) -> dict:
        return {",".join(map(str, d)): {f"sm_{cc}": count(ptx(kernel_of(d), cc))
                                        for cc in TARGETS} for d in draws}

    cases = {name: {"readers": readers(name),
                    "prmt_by_byte": {f"sm_{cc}": permutes_by_byte(ptx(kernel(name), cc))
                                     for cc in TARGETS}}
             for name in names()}
    built = per_target(BUILT, built_kernel, lambda text: len(re.findall(r"\bprmt\.b32\b", text)))
    pairs = per_target(PAIRS, pair_kernel, permutes_by_line)
    built_moved = {read: per_target(BUILT, lambda d, r=read: built_shuffled_kernel(d, r),
                                    lambda text: len(re.findall(r"\bprmt\.b32\b", text)))
                   for read in BUILT_READS}
    moved = {src: {name: {f"sm_{cc}": permutes_by_byte(ptx(moved_kernel(name, src), cc))
                          for cc in TARGETS} for name in names()} for src in MOVED}
    return {"triton_version": triton.__version__, "cases": cases, "built_words": built,
            "stored_pairs": pairs, "moved_words": moved, "built_moved_words": built_moved}


def compare(data: dict) -> int:
    """Print each case's measured and predicted ``prmt.b32`` per byte; the number of
    differences."""
    from linlayout.lowering.byte_extracts import byte_extract_permutes

    bad = 0
    for name, case in data["cases"].items():
        want = [byte_extract_permutes(b, case["readers"][b]) for b in range(4)]
        for target, got in case["prmt_by_byte"].items():
            ok = got == want
            bad += not ok
            print(f"{'ok  ' if ok else 'DIFF'} {name:24s} {target}: measured {got}, "
                  f"byte_extract_permutes {want}")
    from linlayout.lowering.byte_extracts import built_word_permutes

    for key, by_target in data["built_words"].items():
        want = built_word_permutes((i // 4, i % 4) for i in map(int, key.split(",")))
        for target, got in by_target.items():
            ok = got == want
            bad += not ok
            print(f"{'ok  ' if ok else 'DIFF'} stored word of loaded bytes {key:10s} {target}: "
                  f"measured {got} prmt.b32, built_word_permutes {want}")
    from linlayout.lowering.byte_extracts import pair_is_half_word

    for key, by_target in data["stored_pairs"].items():
        b = list(map(int, key.split(",")))
        moved = sum(2 for j in range(0, len(b), 2)
                    if pair_is_half_word([(0, b[j]), (0, b[j + 1])]))
        want = {k: v for k, v in (("10", len(b) - moved), ("20", moved)) if v}
        for target, got in by_target.items():
            ok = got == want
            bad += not ok
            print(f"{'ok  ' if ok else 'DIFF'} stored byte pairs {key:8s} {target}: measured "
                  f"prmt.b32 by line {got}, pair_is_half_word {want}")
    for read, by_key in data["built_moved_words"].items():
        for key, by_target in by_key.items():
            want = built_word_permutes((i // 4, i % 4) for i in map(int, key.split(",")))
            for target, got in by_target.items():
                ok = got == want
                bad += not ok
                print(f"{'ok  ' if ok else 'DIFF'} {read} word of loaded bytes {key:10s} "
                      f"{target}: measured {got} prmt.b32, built_word_permutes {want}")
    for src, by_case in data["moved_words"].items():
        for name, by_target in by_case.items():
            want = [byte_extract_permutes(b, data["cases"][name]["readers"][b])
                    for b in range(4)]
            for target, got in by_target.items():
                ok = got == want
                bad += not ok
                print(f"{'ok  ' if ok else 'DIFF'} {src} word, {name:24s} {target}: measured "
                      f"{got}, byte_extract_permutes {want}")
    print(f"{bad} difference(s)")
    return bad


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compile, compare with the fixture")
    args = ap.parse_args(argv)
    data = build()
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.check:
        if OUT.read_text(encoding="utf-8") != text:
            print(f"{OUT} differs from a fresh compile")
            return 1
    else:
        OUT.write_text(text, encoding="utf-8")
    return 1 if compare(data) else 0


if __name__ == "__main__":
    sys.exit(main())
