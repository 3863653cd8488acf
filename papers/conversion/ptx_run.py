"""A small interpreter for the straight-line PTX of one-warp probe kernels: runs every lane
in lock step on concrete values, so a compiled convert can be checked element by element
without a GPU.

It knows the instructions Triton 3.9 emits for a load–convert–store kernel (integer
arithmetic, ``setp``/``selp``, ``prmt``, ``shfl.sync``, ``cvt``, ``mov`` with vector packing,
``ld``/``st.global`` with vectors and guards) and refuses anything else (``PtxError``), so
an unknown opcode can never be run wrongly. Semantics follow the PTX ISA (sections 9.7.1
integer arithmetic, 9.7.8.7 ``prmt``, 9.7.8.6 ``shfl.sync``, 9.7.9 data movement); only the
default ``prmt`` mode is modelled.

Usage: :func:`run_kernel` (``ptx``, the parameters' byte buffers) returns global memory
after the kernel. Needs no Triton.
"""

from __future__ import annotations

import re

__all__ = ["PtxError", "run_kernel"]


class PtxError(RuntimeError):
    """An instruction or operand the interpreter does not model."""


_WIDTH = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16,
          "b32": 32, "u32": 32, "s32": 32, "b64": 64, "u64": 64, "s64": 64}
_REG_WIDTH = {"p": 1, "rs": 16, "r": 32, "rd": 64}


def _width_of(types: list[str]) -> int:
    for t in reversed(types):
        if t in _WIDTH:
            return _WIDTH[t]
    raise PtxError(f"no type in {types}")


def _signed(v: int, w: int) -> int:
    v &= (1 << w) - 1
    return v - (1 << w) if v >> (w - 1) & 1 else v


def _split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _instructions(ptx: str) -> list[tuple[str | None, bool, str, list[str]]]:
    """(guard predicate, negated, opcode, operands) of each instruction of the entry body."""
    body = ptx[ptx.index("{", ptx.index(".entry")) + 1:]
    body = body[:body.index("\n}")]
    out = []
    for raw in body.split(";"):
        lines = [ln.split("//")[0].strip() for ln in raw.splitlines()]
        s = " ".join(ln for ln in lines if ln and not ln.startswith("."))
        s = re.sub(r"^\$\w+:\s*", "", s).strip()
        if not s:
            continue
        guard, neg = None, False
        if s.startswith("@"):
            g, s = s.split(None, 1)
            neg = g.startswith("@!")
            guard = g.lstrip("@!")
        parts = s.split(None, 1)
        out.append((guard, neg, parts[0], _split_operands(parts[1]) if len(parts) > 1 else []))
    return out


def _prmt(a: int, b: int, sel: int) -> int:
    src = (a & 0xFFFFFFFF) | (b & 0xFFFFFFFF) << 32
    out = 0
    for d in range(4):
        s = sel >> (4 * d) & 0xF
        byte = src >> (8 * (s & 7)) & 0xFF
        if s & 8:
            byte = 0xFF if byte & 0x80 else 0
        out |= byte << (8 * d)
    return out


def run_kernel(ptx: str, params: list[bytes | None], lanes: int = 32,
               max_steps: int = 100_000, registers: list | None = None
               ) -> dict[int, bytearray]:
    """Run the kernel's one warp. ``params``: per ``.param .u64`` pointer, the initial bytes
    of its buffer (None: a null pointer). Returns ``{param index: buffer after the run}``.

    Raises:
        PtxError: an instruction, operand or access the interpreter does not model (branches,
            an address outside every buffer, an unknown opcode).
    """
    base = 1 << 32
    mem: dict[int, bytearray] = {}
    for i, buf in enumerate(params):
        if buf is not None:
            mem[i] = bytearray(buf)
    regs: list[dict] = [{} for _ in range(lanes)]
    if registers is not None:
        registers[:] = regs

    def locate(addr: int) -> tuple[bytearray, int]:
        i, off = divmod(addr - base, 1 << 28)
        if i not in mem or not 0 <= off < len(mem[i]) or addr < base:
            raise PtxError(f"address {addr:#x} outside every buffer")
        return mem[i], off

    def reg_width(name: str) -> int:
        m = re.match(r"%([a-z]+)\d+$", name)
        if not m or m.group(1) not in _REG_WIDTH:
            raise PtxError(f"unknown register {name}")
        return _REG_WIDTH[m.group(1)]

    def value(lane: int, op: str, w: int) -> int:
        op = op.strip()
        if op.startswith("%"):
            if op in ("%tid.x", "%laneid"):
                return lane
            if op in ("%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z"):
                return 0
            if op not in regs[lane]:
                raise PtxError(f"read of unset register {op}")
            return regs[lane][op]
        m = re.fullmatch(r"(-?)(0[xX][0-9a-fA-F]+|\d+)U?", op)
        if not m:
            raise PtxError(f"unknown operand {op}")
        v = int(m.group(2), 0)
        return (-v if m.group(1) else v) & ((1 << w) - 1)

    def setreg(lane: int, name: str, v: int) -> None:
        if name == "_":  # the sink operand
            return
        regs[lane][name] = v & ((1 << reg_width(name)) - 1)

    def address(lane: int, op: str) -> int:
        inner = op.strip()[1:-1].strip()
        m = re.fullmatch(r"(%\w+)\s*(?:\+\s*(-?\d+))?", inner)
        if not m:
            raise PtxError(f"unknown address {op}")
        return value(lane, m.group(1), 64) + int(m.group(2) or 0)

    def vec(op: str) -> list[str]:
        op = op.strip()
        return [x.strip() for x in op[1:-1].split(",")] if op.startswith("{") else [op]

    prog = _instructions(ptx)
    steps = 0
    for guard, neg, opcode, ops in prog:
        steps += 1
        if steps > max_steps:
            raise PtxError("too many steps")
        parts = opcode.split(".")
        name = parts[0]
        if name == "ret":
            break
        if name == "shfl":
            mode, w = parts[2], 32
            srcs = [value(ln, ops[1], w) for ln in range(lanes)]
            for ln in range(lanes):
                if guard is not None and bool(regs[ln][guard]) == neg:
                    continue
                b, c = value(ln, ops[2], 32), value(ln, ops[3], 32)
                seg = c >> 8 & 0x1F
                max_lane = (ln & seg) | (c & 0x1F & ~seg)
                min_lane = ln & seg
                if mode == "idx":
                    j = min_lane | (b & 0x1F & ~seg)
                    ok = j <= max_lane
                elif mode == "bfly":
                    j = ln ^ b
                    ok = j <= max_lane
                else:
                    raise PtxError(f"shfl mode {mode}")
                dst = ops[0].split("|")[0]
                setreg(ln, dst, srcs[j if ok and j < lanes else ln])
            continue
        for ln in range(lanes):
            if guard is not None and bool(regs[ln].get(guard, 0)) == neg:
                continue
            _step(ln, name, parts, ops, value, setreg, address, vec, locate)
    return mem


def _step(ln, name, parts, ops, value, setreg, address, vec, locate) -> None:
    types = parts[1:]
    if name == "ld" and types[0] == "param":
        idx = int(re.search(r"_param_(\d+)", ops[1]).group(1))
        setreg(ln, ops[0], (1 << 32) + (idx << 28))
        return
    if name in ("ld", "st"):
        if types[0] != "global":
            raise PtxError(f"{name}.{types[0]} not modelled")
        n = next((int(t[1:]) for t in types if re.fullmatch(r"v\d", t)), 1)
        ew = _width_of(types) // 8
        if name == "ld":
            dsts, addr = vec(ops[0]), address(ln, ops[1])
            assert len(dsts) == n
            for k, d in enumerate(dsts):
                buf, off = locate(addr + k * ew)
                setreg(ln, d, int.from_bytes(buf[off:off + ew], "little"))
        else:
            addr, srcs = address(ln, ops[0]), vec(ops[1])
            for k, s in enumerate(srcs):
                buf, off = locate(addr + k * ew)
                buf[off:off + ew] = (value(ln, s, ew * 8) & ((1 << ew * 8) - 1)).to_bytes(
                    ew, "little")
        return
    w = _width_of(types) if types else 32
    mask = (1 << w) - 1
    if name == "mov":
        if ops[0].startswith("{"):  # unpack
            parts_ = vec(ops[0])
            v = value(ln, ops[1], w)
            pw = w // len(parts_)
            for k, p in enumerate(parts_):
                setreg(ln, p, v >> (k * pw))
        elif ops[1].startswith("{"):  # pack
            parts_ = vec(ops[1])
            pw = w // len(parts_)
            v = 0
            for k, p in enumerate(parts_):
                v |= (value(ln, p, pw) & ((1 << pw) - 1)) << (k * pw)
            setreg(ln, ops[0], v)
        else:
            setreg(ln, ops[0], value(ln, ops[1], w))
        return
    if name == "cvt":
        dw, sw = _WIDTH[types[-2]], _WIDTH[types[-1]]
        v = value(ln, ops[1], sw) & ((1 << sw) - 1)
        if types[-1].startswith("s"):
            v = _signed(v, sw)
        setreg(ln, ops[0], v & ((1 << dw) - 1))
        return
    if name == "setp":
        cmp_, t = types[0], types[-1]
        a, b = value(ln, ops[1], w), value(ln, ops[2], w)
        if t.startswith("s"):
            a, b = _signed(a, w), _signed(b, w)
        r = {"eq": a == b, "ne": a != b, "lt": a < b, "le": a <= b, "gt": a > b,
             "ge": a >= b}.get(cmp_)
        if r is None:
            raise PtxError(f"setp.{cmp_}")
        setreg(ln, ops[0].split("|")[0], int(r))
        return
    if name == "selp":
        setreg(ln, ops[0], value(ln, ops[1], w) if value(ln, ops[3], 1) else
               value(ln, ops[2], w))
        return
    if name == "prmt":
        if len(types) != 1:
            raise PtxError("prmt mode not modelled")
        setreg(ln, ops[0], _prmt(value(ln, ops[1], 32), value(ln, ops[2], 32),
                                 value(ln, ops[3], 32)))
        return
    if name == "bfe":
        a, pos, ln_ = value(ln, ops[1], w), value(ln, ops[2], 32) & 0xFF, \
            value(ln, ops[3], 32) & 0xFF
        v = (a >> pos) & ((1 << ln_) - 1) if ln_ else 0
        if types[-1].startswith("s") and ln_ and v >> (ln_ - 1) & 1:
            v -= 1 << ln_
        setreg(ln, ops[0], v & mask)
        return
    if name == "bfi":
        f, b = value(ln, ops[1], w), value(ln, ops[2], w)
        pos, ln_ = value(ln, ops[3], 32) & 0xFF, value(ln, ops[4], 32) & 0xFF
        m = ((1 << ln_) - 1) << pos
        setreg(ln, ops[0], (b & ~m) | ((f << pos) & m))
        return
    if name == "lop3":
        a, b, c, lut = (value(ln, o, w) for o in ops[1:5])
        v = 0
        for bit in range(w):
            i = (a >> bit & 1) << 2 | (b >> bit & 1) << 1 | (c >> bit & 1)
            v |= (lut >> i & 1) << bit
        setreg(ln, ops[0], v)
        return
    if name == "not":
        setreg(ln, ops[0], ~value(ln, ops[1], w))
        return
    if name == "mad" or name == "mul":
        wide = "wide" in types
        sw = w
        a, b = value(ln, ops[1], sw), value(ln, ops[2], sw)
        if types[-1].startswith("s"):
            a, b = _signed(a, sw), _signed(b, sw)
        p = a * b
        if name == "mul" and "hi" in types:
            p >>= sw
        if name == "mad":
            p += value(ln, ops[3], 2 * sw if wide else sw)
        setreg(ln, ops[0], p)
        return
    binops = {"and": lambda a, b: a & b, "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b,
              "add": lambda a, b: a + b, "sub": lambda a, b: a - b,
              "shl": lambda a, b: a << b if b < w else 0,
              "min": min, "max": max}
    if name in binops:
        a = value(ln, ops[1], w)
        b = value(ln, ops[2], 32 if name == "shl" else w)
        if name in ("min", "max") and types[-1].startswith("s"):
            a, b = _signed(a, w), _signed(b, w)
        setreg(ln, ops[0], binops[name](a, b))
        return
    if name == "shr":
        a, b = value(ln, ops[1], w), value(ln, ops[2], 32)
        if types[-1].startswith("s"):
            a = _signed(a, w)
        setreg(ln, ops[0], a >> min(b, w))
        return
    raise PtxError(f"opcode {'.'.join([name] + types)} not modelled")
