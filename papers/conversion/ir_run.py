"""A small interpreter for the straight-line LLVM IR that ``packed_exchange_ir.llvm_ir``
writes for AMDGPU: runs every lane of one wavefront in lock step on concrete values, so the
IR a probe compiles can be checked element by element without an AMD GPU or simulator.

It knows only the instructions that builder emits (``add``, ``mul``, ``shl``, ``lshr``,
``or``, ``and``, ``zext``, ``trunc``, ``getelementptr``, ``load``, ``store``, ``insertelement``,
``extractelement``, ``bitcast`` between ``i32`` and ``<2 x i16>``, ``extractvalue``, and the
calls ``llvm.amdgcn.workitem.id.x``, ``llvm.amdgcn.ds.bpermute``, ``llvm.amdgcn.perm``,
``llvm.amdgcn.permlane16.swap``, ``llvm.amdgcn.permlane32.swap``) and refuses anything else
(``IrError``). The intrinsics follow LLVM's ``AMDGPUUsage`` descriptions: ``ds.bpermute``
reads the value of the lane its byte address names (address / 4, modulo the lanes);
``perm`` is ``v_perm_b32`` (AMD CDNA3 ISA: each selector byte 0–7 picks a byte of
``{S0, S1}``, bytes 0–3 from ``S1``); ``permlane16.swap`` trades the odd 16-lane rows of its
first operand with the even rows of its second, ``permlane32.swap`` rows 2–3 of the first
with rows 0–1 of the second, the first result the first operand's register. These are read
from the documentation, not run on hardware. Needs no Triton.
"""

from __future__ import annotations

import re

__all__ = ["IrError", "run_ir"]


class IrError(RuntimeError):
    """An instruction or operand the interpreter does not model."""


_ASSIGN = re.compile(r"^\s*(%[\w.]+) = (.*)$")
_FLAGS = re.compile(r"\b(nuw|nsw|disjoint|exact)\s+")


def _swap(a: list[int], b: list[int], mask: int) -> tuple[list[int], list[int]]:
    """The rows of ``a`` with ``mask`` set trade places with those of ``b`` without it."""
    n = len(a)
    new_a = [b[lane ^ mask] if lane & mask else a[lane] for lane in range(n)]
    new_b = [b[lane] if lane & mask else a[lane ^ mask] for lane in range(n)]
    return new_a, new_b


def _perm(s0: int, s1: int, sel: int) -> int:
    data = (s0 << 32) | s1
    out = 0
    for k in range(4):
        byte = sel >> 8 * k & 0xFF
        if byte > 7:
            raise IrError(f"v_perm_b32 selector byte {byte:#x} is not modelled")
        out |= (data >> 8 * byte & 0xFF) << 8 * k
    return out


def run_ir(ir: str, buffers: dict[str, list[int]], lanes: int) -> dict[str, list[int]]:
    """Run the kernel ``ir`` on ``lanes`` lanes. ``buffers`` maps each pointer parameter's
    name (``in``, ``out``, ``tab``) to its elements (in the element type the IR indexes it
    by); returns them after the kernel (``store`` writes in place).

    Raises:
        IrError: an instruction or operand outside the modelled set, or two lanes storing
            different values to one element.
    """
    env: dict[str, list] = {}

    def val(tok: str) -> list:
        tok = tok.strip()
        if tok.startswith("%"):
            return env[tok]
        if tok in ("undef", "poison"):
            return [(0, 0)] * lanes
        if tok in ("false", "true"):
            return [int(tok == "true")] * lanes
        return [int(tok)] * lanes

    def width(ty: str) -> int:
        m = re.fullmatch(r"i(\d+)", ty.strip())
        if not m:
            raise IrError(f"type {ty!r} is not modelled")
        return int(m.group(1))

    for line in ir.splitlines():
        s = line.strip()
        if (not s or s.startswith(("target", "declare", "define")) or s == "}"
                or s == "ret void"):
            continue
        m = re.fullmatch(r"store (i\d+) (%[\w.]+), ptr addrspace\(1\) (%[\w.]+)", s)
        if m:
            v, p = env[m.group(2)], env[m.group(3)]
            for lane in range(lanes):
                buf, idx = p[lane]
                old = buffers[buf][idx]
                buffers[buf][idx] = v[lane] & ((1 << width(m.group(1))) - 1)
                if old and old != buffers[buf][idx]:
                    raise IrError(f"two values stored to {buf}[{idx}]")
            continue
        m = _ASSIGN.match(_FLAGS.sub("", s))
        if not m:
            raise IrError(f"not modelled: {s}")
        name, rhs = m.groups()
        op = rhs.split()[0]
        if rhs == "call i32 @llvm.amdgcn.workitem.id.x()":
            env[name] = list(range(lanes))
        elif op in ("add", "mul", "shl", "lshr", "or", "and"):
            mm = re.fullmatch(r"\w+ (i\d+) ([^,]+), (.+)", rhs)
            w = width(mm.group(1))
            a, b = val(mm.group(2)), val(mm.group(3))
            f = {"add": lambda x, y: x + y, "mul": lambda x, y: x * y,
                 "shl": lambda x, y: x << y, "lshr": lambda x, y: x >> y,
                 "or": lambda x, y: x | y, "and": lambda x, y: x & y}[op]
            env[name] = [f(x, y) & ((1 << w) - 1) for x, y in zip(a, b)]
        elif op in ("zext", "trunc"):
            mm = re.fullmatch(r"\w+ (i\d+) (\S+) to (i\d+)", rhs)
            w = width(mm.group(3))
            env[name] = [x & ((1 << w) - 1) for x in val(mm.group(2))]
        elif op == "getelementptr":
            mm = re.fullmatch(r"getelementptr i\d+, ptr addrspace\(1\) %(\w+), i32 (\S+)", rhs)
            env[name] = [(mm.group(1), i) for i in val(mm.group(2))]
        elif op == "load":
            mm = re.fullmatch(r"load i\d+, ptr addrspace\(1\) (%[\w.]+)", rhs)
            env[name] = [buffers[buf][i] for buf, i in env[mm.group(1)]]
        elif op == "insertelement":
            mm = re.fullmatch(r"insertelement <2 x i16> (\S+), i16 (\S+), i32 ([01])", rhs)
            vec, x, k = val(mm.group(1)), val(mm.group(2)), int(mm.group(3))
            env[name] = [tuple(e if j != k else y for j, e in enumerate(v))
                         for v, y in zip(vec, x)]
        elif op == "bitcast":
            mm = re.fullmatch(r"bitcast (<2 x i16>|i32) (\S+) to (<2 x i16>|i32)", rhs)
            x = val(mm.group(2))
            env[name] = ([v[0] | v[1] << 16 for v in x] if mm.group(1) != "i32" else
                         [(v & 0xFFFF, v >> 16) for v in x])
        elif op == "extractelement":
            mm = re.fullmatch(r"extractelement <2 x i16> (\S+), i32 ([01])", rhs)
            env[name] = [v[int(mm.group(2))] for v in val(mm.group(1))]
        elif op == "extractvalue":
            mm = re.fullmatch(r"extractvalue \{i32, i32\} (\S+), ([01])", rhs)
            env[name] = list(env[mm.group(1)][int(mm.group(2))])
        elif rhs.startswith("call i32 @llvm.amdgcn.ds.bpermute("):
            mm = re.fullmatch(r"call i32 @llvm.amdgcn.ds.bpermute\(i32 (\S+), i32 (\S+)\)", rhs)
            addr, x = val(mm.group(1)), val(mm.group(2))
            env[name] = [x[(a >> 2) % lanes] for a in addr]
        elif rhs.startswith("call i32 @llvm.amdgcn.perm("):
            mm = re.fullmatch(r"call i32 @llvm.amdgcn.perm\(i32 (\S+), i32 (\S+), i32 (\S+)\)",
                              rhs)
            a, b, sel = (val(mm.group(k)) for k in (1, 2, 3))
            env[name] = [_perm(x, y, z) for x, y, z in zip(a, b, sel)]
        elif rhs.startswith("call {i32, i32} @llvm.amdgcn.permlane"):
            mm = re.fullmatch(r"call \{i32, i32\} @llvm.amdgcn.permlane(16|32).swap\(i32 (\S+), "
                              r"i32 (\S+), i1 false, i1 false\)", rhs)
            mask = int(mm.group(1))
            if mask >= lanes:
                raise IrError(f"a permlane{mask} swap on {lanes} lanes")
            env[name] = _swap(val(mm.group(2)), val(mm.group(3)), mask)
        else:
            raise IrError(f"not modelled: {s}")
    return buffers


def every_element_arrives(ir: str, table: list[int], n: int, lanes: int,
                          garbage: bool = False) -> bool:
    """Run ``ir`` (a plan moving ``n`` 8-bit elements from buffer ``in`` to ``out``, with the
    lane table ``tab``) on ``lanes`` lanes: does every element arrive? Element ``i`` holds
    one base-255 digit of ``i`` plus 1, a run per digit: the IR moves data by tables alone
    (no value decides where an element goes), so element ``i`` arriving with every digit
    right in every run is element ``i`` arriving. ``garbage``: each source register's upper
    24 bits hold junk (``0xa5b6c7`` minus the element's index), as a wide source's do."""
    k = 1
    while True:
        x = [i // k % 255 + 1 for i in range(n)]
        words = [v | (0xA5B6C7 - i) << 8 for i, v in enumerate(x)] if garbage else list(x)
        out = run_ir(ir, {"in": words, "out": [0] * n, "tab": list(table)}, lanes)
        if out["out"] != x:
            return False
        if k * 255 >= n:
            return True
        k *= 255

