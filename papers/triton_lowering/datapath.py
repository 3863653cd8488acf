"""Which instructions of a kernel's PTX/AMDGCN lie on its data path: the instructions that
move or combine the tensor's values, as opposed to the address and lane-index arithmetic
around them. ``linlayout check`` reports data-path instructions only (shuffles, selects and
byte permutes of values, shared-memory accesses; never the ``and``/``shl``/``or``/``add`` of
an address), so the probe scripts count the assembly the same way (``docs/triton-lowering.md``,
"What is counted: the data path"). No Triton is needed.

An instruction is on the data path when it is in either of two slices by def-use:

* **backward from the stored values**: the value operands of the kernel's global stores
  (``st.global``, ``red``/``atom`` values; AMD ``global_store``/``buffer_store``/
  ``flat_store`` data, global atomics) are in it, and an instruction whose result a sliced
  operand reads joins it with the definitions of its *data* operands;
* **forward from the loaded values**: the results of global loads and shared-memory loads,
  and every instruction one of whose data operands reads the slice (a shuffle whose result
  nothing uses still moves the values: NVPTX keeps a dead ``shfl.sync``).

The data operands are a shuffle's value — not its lane, clamp or mask (PTX ISA
"shfl.sync"); AMD ``ds_bpermute``'s data, not its address —, a select's two values — not its
predicate (``selp``, ``v_cndmask_b32``) —, a store's value — not its address —, and every
operand of anything else, a byte permute's selector included (``prmt``, ``v_perm_b32``:
Triton's ``transferWithinWarp`` picks a thread's selector with a select, which ``check``
counts as part of the exchange). A shared-memory load in the backward slice puts every
shared-memory store in it (the scratch carries the values from one to the other). Kernel
arguments (``ld.param``, ``s_load``), thread ids and constants start no slice.

So a select whose two values are constants or thread-id arithmetic, and whose result feeds
only addresses or shuffle lanes, is not on the data path, and neither is a byte permute that
instruction selection made of an and/shift/or chain of lane bits.

Definitions reach their uses over the kernel's basic blocks (reaching definitions: labels
and branches split the blocks; AMDGCN reuses registers and places the branches of predicated
stores out of line, so straight-line order is not enough). A write of part of a register
(AMD ``d16``/``sdwa``/``op_sel``) keeps the rest, so it reads its destination too.

:func:`data_path_lines` gives the 0-based indices of the assembly lines whose instruction is
on the data path; ``cvt_heldout_probes.asm_lines(asm, data=True)`` counts only those (the
probes' ``"data"`` records, written by ``lowering_reference.py`` and
``producer_probes.py``).
"""

from __future__ import annotations

import re

from linlayout.triton.warp_specialize import split_types

#: PTX register names (``%r12``, ``%rd3``, ``%rs1``, ``%p1``, ``%f2``); special registers
#: (``%tid.x``, ``%laneid``) are thread ids, where a slice ends
_PTX_REG = re.compile(r"%[a-z]+\d+\b")
#: AMDGCN registers: ``v12``, ``s[4:5]``, ``a3``, ``vcc``, ``exec``, ``m0``, ``scc``
_AMD_REG = re.compile(r"\b([vsa])(?:(\d+)|\[(\d+):(\d+)\])|\b(vcc|exec|m0|scc)(?:_lo|_hi)?\b")
_PTX_NO_DEF = re.compile(r"^(st\.|stmatrix|red\.|bar\.|bra|ret|exit|membar|fence|barrier|"
                         r"cp\.async|prefetch|trap|@)")
_AMD_NO_DEF = re.compile(r"^(ds_(write|store)|global_store|buffer_store|flat_store|scratch_store|"
                         r"s_store|s_(cbranch|branch|waitcnt|barrier|endpgm|nop|setprio|cmp|"
                         r"bitcmp|sleep|dcache|setpc)|v_cmpx_|global_atomic(?!.*_rtn)|"
                         r"buffer_atomic(?!.*_rtn)|ds_(add|sub|min|max|and|or|xor|inc|dec)_"
                         r"(?!rtn))")


#: an AMD write of part of its destination register (16-bit halves, SDWA bytes)
_PARTIAL = re.compile(r"^\S*(d16|_sdwa)|\b(op_sel|dst_sel):")


def _ptx_regs(operand: str) -> list[str]:
    return _PTX_REG.findall(operand)


def _amd_regs(operand: str) -> list[str]:
    out = []
    for m in _AMD_REG.finditer(operand):
        if m.group(5):
            out.append(m.group(5))
        elif m.group(2) is not None:
            out.append(m.group(1) + m.group(2))
        else:
            out.extend(f"{m.group(1)}{i}" for i in range(int(m.group(3)), int(m.group(4)) + 1))
    return out


class _Instr:
    """One instruction: its line, opcode, defined registers, source operands (each a list of
    registers, ``None`` for a memory address), which sources are data, and for a branch its
    target and whether it falls through."""

    __slots__ = ("line", "op", "defs", "sources", "data", "kind", "branch")

    def __init__(self, line, op, defs, sources, data, kind, branch=None):
        self.line, self.op, self.defs, self.sources, self.data, self.kind = \
            line, op, defs, sources, data, kind
        self.branch = branch  # (target label or None, falls through) where a block ends


def _ptx_instr(i: int, stmt: str) -> _Instr | None:
    guarded = stmt.strip().startswith("@")
    stmt = re.sub(r"^@!?%\w+\s+", "", stmt.strip())
    if not stmt or stmt.startswith((".", "//", "{", "}")) or stmt.endswith(":"):
        return None
    parts = stmt.split(None, 1)
    op = parts[0]
    ops = split_types(parts[1]) if len(parts) > 1 else []
    mem = [o.startswith("[") for o in ops]
    if _PTX_NO_DEF.match(op) or not ops:
        defs, srcs, smem = [], ops, mem
    else:
        defs, srcs, smem = _ptx_regs(ops[0]), ops[1:], mem[1:]
    sources = [None if m else _ptx_regs(o) for o, m in zip(srcs, smem)]
    data = list(range(len(sources)))
    if op.startswith("shfl."):
        data = [0]
    elif op.startswith("selp."):
        data = [0, 1]
    kind = ""
    if op.startswith(("st.global", "red.global", "atom.global", "red.", "atom.")):
        kind = "root"
    elif op.startswith(("ld.shared", "ldmatrix")):
        kind = "shared_load"
    elif op.startswith(("st.shared", "stmatrix", "cp.async")):
        kind = "shared_store"
    elif op.startswith(("ld.global", "ld.volatile.global", "ld.relaxed.global", "ld.acquire")):
        kind = "data_load"
    elif op.startswith("ld."):
        kind = "load"
    if kind in ("root", "shared_store"):
        data = [k for k, s in enumerate(sources) if s is not None]
    branch = None
    if op.startswith("bra"):
        branch = (ops[-1].strip() if ops else None, guarded)
    elif op in ("ret", "exit") or op.startswith(("ret.", "exit.")):
        branch = (None, guarded)
    return _Instr(i, op, defs, sources, data, kind, branch)


def _amd_instr(i: int, stmt: str) -> _Instr | None:
    s = stmt.split(";", 1)[0].strip()
    if not s or s.startswith((".", "//")) or s.endswith(":") or not re.match(r"^[a-z]", s):
        return None
    parts = s.split(None, 1)
    op = parts[0]
    ops = [o.split()[0] if o.split() else o for o in split_types(parts[1])] \
        if len(parts) > 1 else []
    if _AMD_NO_DEF.match(op) or not ops:
        defs, srcs = [], ops
    elif "_co_" in op or op.startswith(("v_mad_u64", "v_mad_i64", "v_div_scale")) \
            or "permlane" in op and "swap" in op:
        defs, srcs = _amd_regs(ops[0]) + _amd_regs(ops[1]), ops[2:] if "swap" not in op else ops
    else:
        defs, srcs = _amd_regs(ops[0]), ops[1:]
    shift = 1 if defs and _PARTIAL.search(s) else 0
    if shift:  # a part of the destination written: the rest is read
        srcs = [ops[0]] + srcs
    sources = [_amd_regs(o) for o in srcs]
    data = list(range(len(sources)))
    if op.startswith("v_cndmask_b32"):
        data = [shift, shift + 1]
    elif op.startswith(("ds_bpermute", "ds_permute")):
        data = [shift + 1]
    kind = ""
    if op.startswith(("ds_read", "ds_load")):
        kind, data = "shared_load", list(range(shift))
    elif op.startswith(("ds_write", "ds_store")):
        kind, data = "shared_store", list(range(1, len(sources)))
    elif op.startswith(("global_store", "flat_store", "scratch_store")):
        kind, data = "root", [1]
    elif op.startswith("buffer_store"):
        kind, data = "root", [0]
    elif op.startswith(("global_atomic", "buffer_atomic", "flat_atomic")):
        kind = "root"
        data = [1] if not op.startswith("buffer") else [0]
        if defs:
            data = [k + 1 for k in data]
    elif op.startswith(("global_load", "buffer_load", "flat_load")):
        kind, data = "data_load", list(range(shift))
    elif op.startswith(("scratch_load", "s_load", "s_buffer_load")):
        kind, data = "load", list(range(shift))
    branch = None
    if op.startswith("s_cbranch"):
        branch = (ops[0] if ops else None, True)
    elif op == "s_branch":
        branch = (ops[0] if ops else None, False)
    elif op in ("s_endpgm", "s_setpc_b64"):
        branch = (None, False)
    return _Instr(i, op, defs, [s or [] for s in sources], data, kind, branch)


_LABEL = re.compile(r"^\s*([.$\w]+):\s*(?:(?://|;).*)?$")


def _blocks(asm: str, amd: bool) -> tuple[list[_Instr], list[list[int]], list[list[int]]]:
    """The instructions of ``asm`` in order, its basic blocks (lists of instruction indices)
    and each block's successors: a block ends at a label or after a branch (PTX ``bra``,
    ``ret``, ``exit``; AMD ``s_branch``, ``s_cbranch_*``, ``s_endpgm``), and falls through
    unless that branch is unconditional."""
    instrs: list[_Instr] = []
    blocks: list[list[int]] = [[]]
    labels: dict[str, int] = {}
    ends: list[tuple[str | None, bool]] = []  # per block: branch target, falls through

    def close(target, falls):
        ends.append((target, falls))
        blocks.append([])

    for i, raw in enumerate(asm.splitlines()):
        if raw.strip() == "---":  # AMDGCN: the metadata after the code
            break
        m = _LABEL.match(raw)
        if m:
            if blocks[-1]:
                close(None, True)
            labels[m.group(1)] = len(blocks) - 1
            continue
        stmts = [raw] if amd else raw.split("//", 1)[0].split(";")
        for stmt in stmts:
            ins = (_amd_instr if amd else _ptx_instr)(i, stmt)
            if not ins:
                continue
            instrs.append(ins)
            blocks[-1].append(len(instrs) - 1)
            if ins.branch is not None:
                close(*ins.branch)
    ends.append((None, True))
    succ = []
    for b, (target, falls) in enumerate(ends):
        out = [labels[target]] if target in labels else []
        if falls and b + 1 < len(blocks):
            out.append(b + 1)
        succ.append(out)
    return instrs, blocks, succ


def _reaching(instrs: list[_Instr], blocks: list[list[int]], succ: list[list[int]]
              ) -> list[list[list[int]]]:
    """Per instruction, per source operand: the instructions whose definitions reach it
    (reaching definitions over the blocks, iterated to a fixed point)."""
    ins_of: list[dict[str, frozenset]] = [{} for _ in blocks]
    preds: list[list[int]] = [[] for _ in blocks]
    for b, ss in enumerate(succ):
        for t in ss:
            preds[t].append(b)

    def transfer(b: int, state: dict) -> dict:
        state = dict(state)
        for k in blocks[b]:
            for r in instrs[k].defs:
                state[r] = frozenset((k,))
        return state

    outs = [transfer(b, {}) for b in range(len(blocks))]
    changed = True
    while changed:
        changed = False
        for b in range(len(blocks)):
            merged: dict[str, frozenset] = {}
            for p in preds[b]:
                for r, ds in outs[p].items():
                    merged[r] = merged.get(r, frozenset()) | ds
            if merged != ins_of[b]:
                ins_of[b] = merged
                new = transfer(b, merged)
                changed |= new != outs[b]
                outs[b] = new
    reach: list[list[list[int]]] = [[] for _ in instrs]
    for b, ks in enumerate(blocks):
        state = dict(ins_of[b])
        for k in ks:
            reach[k] = [sorted(set().union(*(state.get(r, ()) for r in (src or []))))
                        for src in instrs[k].sources]
            for r in instrs[k].defs:
                state[r] = frozenset((k,))
    return reach


def data_path_lines(asm: str, amd: bool) -> set[int]:
    """0-based indices of the lines of PTX (``amd=False``) or AMDGCN text ``asm`` whose
    instruction is on the data path (the two slices of the module docstring). Raises
    nothing; text it cannot read as an instruction (directives, labels, comments, AMDGCN
    metadata after ``---``) is skipped."""
    instrs, blocks, succ = _blocks(asm, amd)
    reach = _reaching(instrs, blocks, succ)
    on: set[int] = set()
    work: list[int] = []

    def pull(k: int) -> None:
        for j in instrs[k].data:
            if j < len(reach[k]):
                for d in reach[k][j]:
                    if d not in on:
                        on.add(d)
                        work.append(d)

    for k, ins in enumerate(instrs):
        if ins.kind == "root":
            on.add(k)
            work.append(k)
    stores_in = False
    while work:
        while work:
            pull(work.pop())
        if not stores_in and any(instrs[k].kind == "shared_load" for k in on):
            stores_in = True
            for k, ins in enumerate(instrs):
                if ins.kind == "shared_store" and k not in on:
                    on.add(k)
                    work.append(k)
    # forward: what reads the loaded values (a move whose result nothing uses still moves them)
    carried: set[int] = set()
    grew = True
    while grew:  # to a fixed point (a definition may reach a use above it round a loop)
        grew = False
        for k, ins in enumerate(instrs):
            if k not in carried and (ins.kind in ("data_load", "shared_load") or any(
                    d in carried for j in ins.data if j < len(reach[k]) for d in reach[k][j])):
                carried.add(k)
                grew = True
    return {instrs[k].line for k in on | carried}


def is_amdgcn(asm: str) -> bool:
    """Whether assembly text ``asm`` is AMDGCN (else PTX)."""
    return ".amdgcn_target" in asm or "amdhsa" in asm
