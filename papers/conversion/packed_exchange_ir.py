"""A packed exchange plan (``linlayout.conversion.exchange``) written as LLVM IR, for NVPTX
or AMDGPU: the kernel ``k(in, out, table)`` of one plan and its per-lane table.

Each lane loads its source elements from ``in`` at the indices its table row names (8-bit
elements zero-extended to 16 bits, as Triton 3.9's ``transferWithinWarp`` packs them),
packs each pair as a ``<2 x i16>`` bitcast to ``i32`` (for AMDGPU two bytes as Triton's
``-O3`` leaves that packing, before instruction selection: each byte zero-extended to
``i32``, the high one shifted left 16, ``or``; ``amd_byte_join.py`` shows it), runs the plan's rounds
(``llvm.nvvm.shfl.sync.idx.i32`` / ``llvm.amdgcn.ds.bpermute``, the source lane from the
table) and permutes (``llvm.nvvm.prmt`` / ``llvm.amdgcn.perm``, the selector from the
table: lane-index data, as the plan leaves it uncounted), then unpacks each destination
register (bitcast back, ``extractelement``) and stores it to ``out`` at its element's index.

A gfx950 plan's swaps (AMDGPU only) run on whole 32-bit registers
(``llvm.amdgcn.permlane16.swap``/``permlane32.swap``, :func:`_swap_lines`): swaps before
packing on the source elements zero-extended to ``i32`` (two swapped bytes then join by
``shl 16``/``or``, 16-bit halves as ``<2 x i16>``); swaps after unpacking on each
destination register's word as it is, or shifted down 16 bits where the register is a high
half, each register's element then its low bits. A swap plan's source word that no round
or permute reads is never built: the destination registers it feeds are the source
registers themselves.
"""

from __future__ import annotations

#: per backend: target triple, the lane id, the shuffle call (value, source lane) and the
#: permute call (first input, second input, selector)
BACKENDS = {
    "nvptx": {
        "triple": "nvptx64-nvidia-cuda",
        "decls": ["declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)",
                  "declare i32 @llvm.nvvm.prmt(i32, i32, i32)",
                  "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()"],
        "lane": "call i32 @llvm.nvvm.read.ptx.sreg.tid.x()",
        "define": "define void",
        "shuffle": "call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 {v}, i32 {s}, i32 31)",
        # prmt: bytes 0-3 of the first input, 4-7 of the second
        "permute": "call i32 @llvm.nvvm.prmt(i32 {a}, i32 {b}, i32 {sel})",
    },
    "amdgcn": {
        "triple": "amdgcn-amd-amdhsa",
        "decls": ["declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)",
                  "declare i32 @llvm.amdgcn.perm(i32, i32, i32)",
                  "declare i32 @llvm.amdgcn.workitem.id.x()"],
        "lane": "call i32 @llvm.amdgcn.workitem.id.x()",
        "define": "define amdgpu_kernel void",
        # ds_bpermute_b32 takes a byte address: the source lane times 4
        "shuffle": "call i32 @llvm.amdgcn.ds.bpermute(i32 {s4}, i32 {v})",
        # v_perm_b32 D, S0, S1: bytes 0-3 of S1, 4-7 of S0, so the first input goes second
        "permute": "call i32 @llvm.amdgcn.perm(i32 {b}, i32 {a}, i32 {sel})",
    },
}


def unit_layout(cols: list[int], registers: int):
    """A layout of ``len(cols)`` input bits onto one dimension ``dim0`` of ``2^len(cols)``
    elements: the first ``registers`` columns (unit bits of ``dim0``) are the register
    bases, the rest the lane bases (the wide conversions of the packed-exchange drivers)."""
    from linlayout import LinearLayout

    return LinearLayout({"register": [[c] for c in cols[:registers]],
                         "lane": [[c] for c in cols[registers:]]}, {"dim0": 1 << len(cols)})


def selector(halves: tuple[int, int], backend: str) -> int:
    """The selector that writes halves ``(low, high)`` (0–3: low, high of the first input,
    low, high of the second; with the operand order of :data:`BACKENDS` byte ``2h`` and
    ``2h + 1`` on both backends): ``prmt`` takes a nibble per output byte (PTX ISA,
    ``prmt``, default mode), ``v_perm_b32`` a byte per output byte (AMD CDNA3 ISA,
    ``V_PERM_B32``)."""
    width = 4 if backend == "nvptx" else 8
    sel = 0
    for i, h in enumerate(halves):
        for j in range(2):
            sel |= (2 * h + j) << (width * (2 * i + j))
    return sel


def llvm_ir(plan, problem, backend: str, wide: bool = False) -> tuple[str, list[int]]:
    """The kernel of one plan and its table: per lane, the source element index of each
    source register, the source lane of each round, the selector of each permute, the
    destination element index of each destination register.

    ``wide`` (AMDGPU, 8 bits: a ``wide_source`` plan): each source register is a 32-bit
    value whose low byte is the element and whose upper bits LLVM cannot know — ``in`` is
    read as ``i32`` and passed through a ``llvm.amdgcn.ds.bpermute`` of the lane's own
    address (one ``ds_bpermute_b32`` per source register, the producer's, not the plan's),
    as a gather leaves it — and two such bytes join as Triton packs an 8-bit pair (each
    truncated, zero-extended to ``i16``, a ``<2 x i16>``: one ``v_perm_b32``,
    ``wide_join_isel.py``)."""
    b = BACKENDS[backend]
    bits = plan.element_bits
    if wide and (backend != "amdgcn" or bits != 8):
        raise ValueError("wide is modelled for AMDGPU 8-bit plans only")
    ty = f"i{bits}"
    nsrc = 1 << problem.register_bits[0]
    ndst = len(plan.unpack)
    row = nsrc + len(plan.rounds) + len(plan.permutes) + ndst
    table = []
    for lane in range(1 << problem.lane_bits):
        table += [problem.thread_elements("src", r, lane, 0) for r in range(nsrc)]
        table += [rd.source_lane[lane] for rd in plan.rounds]
        table += [selector(p.halves[lane], backend) for p in plan.permutes]
        table += [problem.thread_elements("dst", r, lane, 0) for r in range(ndst)]
    lines = [f'target triple = "{b["triple"]}"', *b["decls"],
             f"{b['define']} @k(ptr addrspace(1) %in, ptr addrspace(1) %out, "
             "ptr addrspace(1) %tab) {",
             f"  %t = {b['lane']}", f"  %row = mul i32 %t, {row}"]

    def field(name: str, k: int) -> str:
        lines.extend([f"  %{name}.i = add i32 %row, {k}",
                      f"  %{name}.p = getelementptr i32, ptr addrspace(1) %tab, i32 %{name}.i",
                      f"  %{name} = load i32, ptr addrspace(1) %{name}.p"])
        return f"%{name}"

    if (plan.swaps or plan.swaps_after) and backend != "amdgcn":
        raise ValueError("a permlane swap is a gfx950 instruction: backend must be amdgcn")
    if plan.swaps or plan.swaps_after:
        lines[1:1] = [SWAP_DECLS[s.lane_mask] for s in sorted(
            set(plan.swaps) | set(plan.swaps_after), key=lambda s: s.lane_mask)
            if SWAP_DECLS[s.lane_mask] not in lines]
    if wide:
        lines.append("  %t4 = shl i32 %t, 2")
    for r in range(nsrc):
        i = field(f"si{r}", r)
        if wide:
            lines += [f"  %sp{r} = getelementptr i32, ptr addrspace(1) %in, i32 {i}",
                      f"  %e{r}.l = load i32, ptr addrspace(1) %sp{r}",
                      f"  %e{r} = call i32 @llvm.amdgcn.ds.bpermute(i32 %t4, i32 %e{r}.l)"]
            continue
        lines += [f"  %sp{r} = getelementptr {ty}, ptr addrspace(1) %in, i32 {i}",
                  f"  %e{r} = load {ty}, ptr addrspace(1) %sp{r}"]
        if not plan.swaps:
            lines.append(f"  %h{r} = zext i8 %e{r} to i16" if bits == 8 else
                         f"  %h{r} = add i16 %e{r}, 0")
    word = {}  # source register -> its i32 value, after the swaps before packing
    if wide:
        word = {r: f"%e{r}" for r in range(nsrc)}
        for k, swap in enumerate(plan.swaps):
            word = _swap_lines(lines, word, swap, f"sw{k}")
    elif plan.swaps:
        # each element zero-extended to a whole VGPR, the registers swapped as
        # RegisterSwap says, then each swapped register's element read back
        word = {r: f"%s{r}" for r in range(nsrc)}
        lines += [f"  %s{r} = zext {ty} %e{r} to i32" for r in range(nsrc)]
        for k, swap in enumerate(plan.swaps):
            word = _swap_lines(lines, word, swap, f"sw{k}")
        for r in range(nsrc):
            lines += [f"  %h{r}.t = trunc i32 {word[r]} to {ty}",
                      f"  %h{r} = zext i8 %h{r}.t to i16" if bits == 8 else
                      f"  %h{r} = add i16 %h{r}.t, 0"]
    values = {}
    for c, (lo, hi) in enumerate(plan.pack):
        if wide and lo == hi:
            lines.append(f"  %x{c} = or i32 {word[lo]}, 0")  # a lone register, as it is
        elif wide:
            # two computed bytes, as Triton packs an 8-bit pair: each truncated to i8,
            # zero-extended to i16, a <2 x i16> bitcast to i32 (one v_perm_b32)
            lines += [f"  %x{c}.lt = trunc i32 {word[lo]} to i8",
                      f"  %x{c}.ht = trunc i32 {word[hi]} to i8",
                      f"  %x{c}.l = zext i8 %x{c}.lt to i16",
                      f"  %x{c}.h = zext i8 %x{c}.ht to i16",
                      f"  %x{c}.a = insertelement <2 x i16> undef, i16 %x{c}.l, i32 0",
                      f"  %x{c}.b = insertelement <2 x i16> %x{c}.a, i16 %x{c}.h, i32 1",
                      f"  %x{c} = bitcast <2 x i16> %x{c}.b to i32"]
        elif backend == "amdgcn" and bits == 8 and lo != hi and plan.swaps:
            # a swap moved whole registers: each still holds its zero-extended byte, so the
            # two join as Triton's -O3 joins two loaded bytes (amd_byte_join.py)
            lines += [f"  %x{c}.b = shl i32 {word[hi]}, 16",
                      f"  %x{c} = or i32 %x{c}.b, {word[lo]}"]
        elif backend == "amdgcn" and bits == 8 and lo != hi:
            # as Triton 3.9's -O3 (llvm.optimize_module, before instruction selection)
            # rewrites the <2 x i16> packing of two zero-extended bytes
            lines += [f"  %x{c}.a = zext i8 %e{lo} to i32",
                      f"  %x{c}.z = zext i8 %e{hi} to i32",
                      f"  %x{c}.b = shl nuw nsw i32 %x{c}.z, 16",
                      f"  %x{c} = or disjoint i32 %x{c}.b, %x{c}.a"]
        else:
            lines += [f"  %x{c}.a = insertelement <2 x i16> undef, i16 %h{lo}, i32 0",
                      f"  %x{c}.b = insertelement <2 x i16> %x{c}.a, i16 %h{hi}, i32 1",
                      f"  %x{c} = bitcast <2 x i16> %x{c}.b to i32"]
        values[("x", c)] = f"%x{c}"
    for t, rd in enumerate(plan.rounds):
        s = field(f"sl{t}", nsrc + t)
        lines.append(f"  %sl{t}.4 = shl i32 {s}, 2")
        call = b["shuffle"].format(v=values[("x", rd.word)], s=s, s4=f"%sl{t}.4")
        lines.append(f"  %recv{t} = {call}")
        values[("recv", t)] = f"%recv{t}"
    for p, perm in enumerate(plan.permutes):
        sel = field(f"sel{p}", nsrc + len(plan.rounds) + p)
        a, c = (values[ref] for ref in perm.inputs)
        lines.append(f"  %perm{p} = " + b["permute"].format(a=a, b=c, sel=sel))
        values[("perm", p)] = f"%perm{p}"
    first = nsrc + len(plan.rounds) + len(plan.permutes)
    # a swap plan's source word that is neither shipped nor permuted is never built: each
    # destination register it feeds is the source register itself (as the plan prices it)
    used = {("x", rd.word) for rd in plan.rounds} | {i for p in plan.permutes for i in p.inputs}
    direct = {r: plan.pack[ref[1]][half] for r, (ref, half) in enumerate(plan.unpack)
              if (plan.swaps or plan.swaps_after) and ref[0] == "x" and ref not in used}
    if plan.swaps_after:
        # each destination register as a whole VGPR: a low half is its word as it is (the
        # high bits are the other element, left unread), a high half is shifted down; then
        # the swaps trade them, and each register's element is its low bits
        out = {}
        for r, (ref, half) in enumerate(plan.unpack):
            if r in direct:
                s = direct[r]
                if wide:
                    word.setdefault(s, f"%e{s}")
                if s not in word:
                    word[s] = f"%s{s}"
                    lines.append(f"  %s{s} = zext {ty} %e{s} to i32")
                out[r] = word[s]
                continue
            if half:
                lines.append(f"  %d{r} = lshr i32 {values[ref]}, 16")
            out[r] = f"%d{r}" if half else values[ref]
        for k, swap in enumerate(plan.swaps_after):
            out = _swap_lines(lines, out, swap, f"sa{k}")
        for r in range(ndst):
            i = field(f"di{r}", first + r)
            lines += [f"  %q{r} = trunc i32 {out[r]} to {ty}",
                      f"  %dp{r} = getelementptr {ty}, ptr addrspace(1) %out, i32 {i}",
                      f"  store {ty} %q{r}, ptr addrspace(1) %dp{r}"]
        lines += ["  ret void", "}"]
        return "\n".join(lines) + "\n", table
    for r, (ref, half) in enumerate(plan.unpack):
        i = field(f"di{r}", first + r)
        if r in direct and wide:
            word.setdefault(direct[r], f"%e{direct[r]}")
        if r in direct:
            lines += [f"  %q{r} = trunc i32 {word[direct[r]]} to {ty}",
                      f"  %dp{r} = getelementptr {ty}, ptr addrspace(1) %out, i32 {i}",
                      f"  store {ty} %q{r}, ptr addrspace(1) %dp{r}"]
            continue
        lines += [f"  %u{r} = bitcast i32 {values[ref]} to <2 x i16>",
                  f"  %o{r} = extractelement <2 x i16> %u{r}, i32 {half}",
                  f"  %q{r} = trunc i16 %o{r} to i8" if bits == 8 else
                  f"  %q{r} = add i16 %o{r}, 0",
                  f"  %dp{r} = getelementptr {ty}, ptr addrspace(1) %out, i32 {i}",
                  f"  store {ty} %q{r}, ptr addrspace(1) %dp{r}"]
    lines += ["  ret void", "}"]
    return "\n".join(lines) + "\n", table


#: the gfx950 swap intrinsics, by the lanes they cross (LLVM's ``AMDGPUUsage``:
#: ``llvm.amdgcn.permlane16.swap`` / ``permlane32.swap``, the two VGPRs' rows traded, the
#: first result the first operand's register)
SWAP_DECLS = {m: f"declare {{i32, i32}} @llvm.amdgcn.permlane{m}.swap(i32, i32, i1 immarg, "
                 "i1 immarg)" for m in (16, 32)}


def _swap_lines(lines: list[str], regs: dict[int, str], swap, name: str) -> dict[int, str]:
    """One :class:`~linlayout.conversion.RegisterSwap` as LLVM IR: a
    ``llvm.amdgcn.permlane{16,32}.swap`` of each register pair ``(r, r | 1 << bit)``, ``r``
    the first operand (``v_permlane*_swap_b32 vdst, vsrc``: in the lanes with the lane bit,
    ``vdst`` takes ``vsrc`` of the lane across it; in the others ``vsrc`` takes ``vdst`` of
    the lane across). Returns the registers' values after it."""
    out = dict(regs)
    for r in sorted(regs):
        if r >> swap.register_bit & 1:
            continue
        hi = r | 1 << swap.register_bit
        v = f"%{name}.{r}"
        lines += [f"  {v} = call {{i32, i32}} @llvm.amdgcn.permlane{swap.lane_mask}.swap("
                  f"i32 {regs[r]}, i32 {regs[hi]}, i1 false, i1 false)",
                  f"  {v}.a = extractvalue {{i32, i32}} {v}, 0",
                  f"  {v}.b = extractvalue {{i32, i32}} {v}, 1"]
        out[r], out[hi] = f"{v}.a", f"{v}.b"
    return out
