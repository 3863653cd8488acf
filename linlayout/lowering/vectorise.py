"""Which vector and which matrix instruction Triton can use for one register ⇄ shared copy.

Everything here works on the *conversion map* of an access: for each register, lane and warp
basis of the distributed layout, the shared-memory element offset it reaches
(:class:`AccessMap`, Triton's ``regLayout.invertAndCompose(sharedLayout)`` with broadcast
registers removed, ``actionRemoveBroadcastedRegs``).

Rules follow Triton 3.9.0:

* :func:`largest_vectorisation` — ``largestVectorisation`` in ``lib/Tools/LayoutUtils.cpp``
  (used by ``lowerLdSt`` in ``lib/Conversion/TritonGPUToLLVM/Utility.cpp``);
* :func:`matrix_tile` — the tile test of ``lowerLdStMatrix`` in
  ``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Utility.cpp`` (``ldmatrix``/``stmatrix``);
* :func:`matrix_row_register` / :func:`triton_matrix_order` — which register a ``.trans``
  ``ldmatrix``/``stmatrix`` pairs rows with (``getLdStMatrixRowPermutation``, same file);
* :func:`transposed_read_tile` — ``lowerDsReadTr`` / ``queryLDSTransLoadParams`` in the AMD
  backend (``ds_read_b64_tr_b16`` / ``_b8`` on CDNA4).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of, shown
from .._memo import memoize
from ..errors import LayoutError
from ..layout import LinearLayout
from ..hardware.kinds import to_offset_layout

__all__ = ["AccessMap", "access_map", "largest_vectorisation", "matrix_row_register",
           "matrix_tile", "transposed_read_tile", "triton_matrix_order"]


@dataclass(frozen=True)
class AccessMap:
    """Where each hardware basis of a distributed layout lands in a shared buffer.

    Attributes:
        registers: element offsets of the register bases, broadcast (zero) registers removed.
        lanes: element offsets of the lane bases (0 for a broadcast lane), lane 0 first.
        warps: element offsets of the warp bases.
        blocks: element offsets of the block (CTA) bases inside the CTA's buffer.
        element_bits: bits per element in memory.

    Source: Triton's ``regLayout.invertAndCompose(sharedLayout)`` (module docstring).
    """

    registers: tuple[int, ...]
    lanes: tuple[int, ...]
    warps: tuple[int, ...]
    blocks: tuple[int, ...] = ()
    element_bits: int = 16

    @property
    def registers_per_thread(self) -> int:
        """Distinct elements one thread moves (``2^len(registers)``)."""
        return 1 << len(self.registers)


def access_map(dist: LinearLayout, memory: LinearLayout, element_bits: int) -> AccessMap:
    """The :class:`AccessMap` of ``dist`` (register/lane/warp/block → tensor) stored in
    ``memory`` (offset[/block] → the same tensor).

    Raises:
        LayoutError: the layouts do not describe the same tensor, or ``memory`` is not a
            bijection; an argument of the wrong type, or ``element_bits`` not a positive int.

    Source: Triton's ``regLayout.invertAndCompose(sharedLayout)`` with broadcast registers
    removed (``actionRemoveBroadcastedRegs``; module docstring).
    """
    instance_of(dist, LinearLayout, "dist")
    instance_of(memory, LinearLayout, "memory")
    element_bits = as_int(element_bits, "element_bits")
    if element_bits < 1:
        raise LayoutError(f"element_bits must be a positive int, got {shown(element_bits)}")
    return _access_map(dist, memory, element_bits)


@memoize(8192)
def _access_map(dist: LinearLayout, memory: LinearLayout, element_bits: int) -> AccessMap:
    """:func:`access_map` on checked arguments, cached (a layout search maps the same access
    onto the same candidate buffer once per op that repeats it).

    ``memory`` is a bijection (:func:`~linlayout.hardware.kinds.to_offset_layout` checks it),
    so ``dist.invert_and_compose(memory)`` is the unique ``memory⁻¹ ∘ dist``: when both have
    the same out dims in the same order, each basis's offset is read off the cached inverse
    matrix (:func:`_buffer_inverse`); otherwise ``invert_and_compose`` lines the dims up."""
    off, inverse, offset_mask = _buffer_inverse(memory)
    if dist.out_dims_log2 == off.out_dims_log2:
        def image(col: int) -> int:
            return f2.apply(inverse, col)

        dims = dist.in_dims
        regs = [img & offset_mask for img in map(image, dist.dim_columns("register"))
                if img] if "register" in dims else []

        def offs(dim: str) -> tuple[int, ...]:
            if dim not in dims:
                return ()
            return tuple(image(c) & offset_mask for c in dist.dim_columns(dim))

        return AccessMap(tuple(regs), offs("lane"), offs("warp"), offs("block"), element_bits)
    cvt = dist.invert_and_compose(off)
    oi = cvt.out_dim_names.index("offset")
    bases = cvt.bases

    def offs_of(dim: str) -> tuple[int, ...]:
        return tuple(img[oi] for img in bases.get(dim, []))

    regs = [img[oi] for img in bases.get("register", []) if any(img)]
    return AccessMap(tuple(regs), offs_of("lane"), offs_of("warp"), offs_of("block"),
                     element_bits)


@memoize(1024)
def _buffer_inverse(memory: LinearLayout) -> tuple[LinearLayout, list[int], int]:
    """``(offset layout, its inverse columns, mask of the offset bits)`` of a buffer layout:
    :func:`~linlayout.hardware.kinds.to_offset_layout` (``offset`` bits first, then
    ``block``) and the tensor → (offset, block) matrix, cached per buffer layout (every
    access of a buffer, and every access costed on a candidate layout, share it).

    Raises:
        LayoutError: as :func:`~linlayout.hardware.kinds.to_offset_layout`.
    """
    off = to_offset_layout(memory)
    offset_mask = off.in_dims["offset"] - 1
    return off, f2.inverse(off.columns), offset_mask


def largest_vectorisation(m: AccessMap, max_vec: int | None = None,
                          permute: bool = True) -> int:
    """Elements per lane of each ``ld``/``st`` Triton emits for this access.

    The largest power of two ``v ≤ max_vec`` (default ``128 / element_bits``, a 128-bit
    access) such that ``log2 v`` registers map exactly to offsets ``1, 2, …, v/2`` — in any
    order when ``permute`` (Triton's ``regPermForDivide``), registers ``0 … log2 v − 1`` in
    order otherwise (``cp.async`` and an explicit ``maxVec``) — and every other register, lane,
    warp and block basis maps to a multiple of ``v`` (``divideLeft`` by ``identity1D(v)``).

    Source: ``largestVectorisation`` (Triton ``lib/Tools/LayoutUtils.cpp``, 3.9.0).

    Raises:
        LayoutError: ``m`` not an :class:`AccessMap`, or ``max_vec`` not an int (or None).
    """
    instance_of(m, AccessMap, "m")
    cap = max(1, 128 // m.element_bits)
    if max_vec is not None:
        cap = max(1, min(cap, as_int(max_vec, "max_vec")))
    v = 1 << (cap.bit_length() - 1)
    regs = list(m.registers)
    while v > 1:
        k = v.bit_length() - 1
        if permute:
            used = [regs.index(1 << i) if (1 << i) in regs else -1 for i in range(k)]
            ok = all(u >= 0 for u in used)
        else:
            used = list(range(k))
            ok = len(regs) >= k and all(regs[i] == 1 << i for i in range(k))
        if ok:
            rest = [r for j, r in enumerate(regs) if j not in used]
            rest += list(m.lanes) + list(m.warps) + list(m.blocks)
            if all(o % v == 0 for o in rest):
                return v
        v //= 2
    return 1


def matrix_tile(m: AccessMap, trans: bool, b8_trans: bool = False) -> int | None:
    """Matrices per ``ldmatrix``/``stmatrix`` (1, 2 or 4) when the access fits its tile,
    else None.

    Non-transposed (any ``element_bits ≤ 32``, moved as 32-bit words): registers hold offsets
    ``1 … c/2`` (``c = 32 / element_bits``, one word per lane, any order), lane 0 → ``c``,
    lane 1 → ``2c`` (four lanes = one 16-byte row), and every other basis is a multiple of
    ``128 / element_bits`` (16-byte aligned rows). Transposed (``.trans``, 16-bit elements;
    8-bit only when ``b8_trans``, i.e. sm_100): lanes 2, 3, 4 → offsets 1, 2, 4 (the 8
    elements of a row), at least 2 registers, every other basis 16-byte aligned.
    The width is ``min(4, R · element_bits / 32)`` matrices (``R`` registers per thread).

    Source: ``lowerLdStMatrix`` and its ``divideLeft`` tile (Triton
    ``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Utility.cpp``, 3.9.0).

    Raises:
        LayoutError: ``m`` not an :class:`AccessMap`.
    """
    instance_of(m, AccessMap, "m")
    bits = m.element_bits
    if bits > 32 or len(m.lanes) != 5:
        return None
    row = 128 // bits
    regs = list(m.registers)
    lanes = list(m.lanes)
    if not trans:
        c = 32 // bits
        k = c.bit_length() - 1
        used = []
        for i in range(k):
            if (1 << i) not in regs:
                return None
            used.append(regs.index(1 << i))
        if lanes[0] != c or lanes[1] != 2 * c:
            return None
        rest = [r for j, r in enumerate(regs) if j not in used] + lanes[2:]
    else:
        if not (bits == 16 or (bits == 8 and b8_trans)):
            return None
        if bits == 8:
            return None  # the b8 transposed shapes (m16n16/m8n16) are not modelled
        if lanes[2:5] != [1, 2, 4] or len(regs) < 1:
            return None
        rest = regs + lanes[:2]
    rest += list(m.warps) + list(m.blocks)
    if any(o % row for o in rest):
        return None
    words = m.registers_per_thread * bits // 32
    if words < 1:
        return None
    return min(4, words)


def matrix_row_register(m: AccessMap) -> int:
    """The register (an index into ``m.registers``) whose two values Triton 3.9 puts in the
    two 16-bit halves of one 32-bit register of a ``.trans`` ``ldmatrix``/``stmatrix``: the
    rows ``2k`` and ``2k + 1`` of every 8×8 matrix differ in it (with lanes 0 and 1 it spans
    a matrix's 8 rows; lanes 2, 3, 4 run along a row, :func:`matrix_tile`).

    Triton does not take register 0. Among the registers (broadcasts already removed) it
    takes the one whose 8 rows conflict least on a 128-byte row of banks — cost ``dim(span(
    rows) ∩ span(offset bits of 128 bytes and above))``, counted in 16-byte rows — ties going
    to register 0 (the packed order kept), then to the lowest index. The other registers
    keep their order: the next ``log2(n)`` of them pick the matrices of one ``.xn``, the rest
    the instructions. So the register order of the distributed layout does not decide which
    rows form a matrix; the buffer layout does.

    Returns:
        The index; 0 when ``m`` has no register.

    Raises:
        LayoutError: ``m`` not an :class:`AccessMap`.

    Source: ``getLdStMatrixRowPermutation``, called by ``lowerLdStMatrix`` (Triton
    ``third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/Utility.cpp``, 3.9.0) with the cost
    ``triton::gpu::bankConflicts`` (``lib/Tools/GenericSwizzling.cpp``). Seen in the PTX
    Triton 3.9 emits for a 64×32 f16 ``swizzled_shared<{vec = 8, perPhase = 2, maxPhase =
    4, order = [0, 1]}>`` buffer read into a ``blocked`` layout by ``ldmatrix.x4.trans``: the
    address of lane 1 differs from lane 0's by register 2's offset, not register 0's.
    """
    instance_of(m, AccessMap, "m")
    regs = m.registers
    if not regs or len(m.lanes) < 2:
        return 0
    row_log2 = max(0, (128 // m.element_bits).bit_length() - 1)  # elements of a 16-byte row
    l0, l1 = m.lanes[0] >> row_log2, m.lanes[1] >> row_log2

    def cost(i: int) -> tuple[int, bool, int]:
        rows = [regs[i] >> row_log2, l0, l1]
        return f2.rank(rows) - f2.rank([x & 7 for x in rows]), i != 0, i

    return min(range(len(regs)), key=cost)


def triton_matrix_order(dist: LinearLayout, memory: LinearLayout, element_bits: int,
                        counter: str) -> LinearLayout:
    """``dist`` with its registers in the order Triton 3.9's ``lowerLdStMatrix`` gives them to
    the matrix instruction ``counter`` (a :func:`linlayout.bank_conflicts` name), so that
    :func:`linlayout.bank_conflicts` — which reads a ``.trans`` layout's register 0 as the
    row-pair register, as PTX does — counts what Triton emits: for ``.trans`` the register
    :func:`matrix_row_register` picks is moved first, the others keep their order
    (broadcast registers, which Triton drops first, are never picked: a broadcast register
    0 is moved behind the pick). Non-transposed matrix
    instructions and plain accesses: ``dist`` unchanged (their rows do not depend on the
    register order).

    Raises:
        LayoutError: as :func:`access_map`.

    Source: as :func:`matrix_row_register`.
    """
    instance_of(dist, LinearLayout, "dist")
    if not counter.endswith(".trans") or not isinstance(memory, LinearLayout) \
            or "register" not in dist.in_dims:
        return dist
    m = access_map(dist, memory, element_bits)
    # access_map drops the broadcast registers (zero columns), as Triton does first
    kept = [i for i, c in enumerate(dist.dim_columns("register")) if c]
    if not kept:
        return dist
    j = kept[matrix_row_register(m)]
    if j == 0:
        return dist
    bases = dist.bases
    regs = bases["register"]
    bases = dict(bases)
    bases["register"] = [regs[j]] + [b for i, b in enumerate(regs) if i != j]
    return LinearLayout(bases, dict(dist.out_dims))


def transposed_read_tile(m: AccessMap) -> bool:
    """Whether AMD CDNA4's ``ds_read_b64_tr_b{element_bits}`` can load this access.

    Lanes ``0 … log2(t) − 1`` must map to offsets ``1, 2, …, t/2`` with ``t = 64 /
    element_bits`` (consecutive lanes hold consecutive elements of the contiguous dimension),
    every other basis to a multiple of ``t``, and each thread must hold at least 64 bits.

    Source: ``TransLocalLoadOpConversion`` / ``lowerDsReadTr`` and
    ``TargetInfo::queryLDSTransLoadParams`` (Triton ``third_party/amd/lib/TritonAMDGPUToLLVM``,
    3.9.0).

    Raises:
        LayoutError: ``m`` not an :class:`AccessMap`.
    """
    instance_of(m, AccessMap, "m")
    bits = m.element_bits
    if bits not in (8, 16):
        return False
    t = 64 // bits
    k = t.bit_length() - 1
    lanes = list(m.lanes)
    if len(lanes) < k or lanes[:k] != [1 << i for i in range(k)]:
        return False
    if m.registers_per_thread * bits < 64:
        return False
    rest = list(m.registers) + lanes[k:] + list(m.warps) + list(m.blocks)
    return all(o % t == 0 for o in rest)


def require_bits(element_bits: int) -> None:
    """Raise LayoutError unless ``element_bits`` is a power of two from 1 to 128."""
    if element_bits < 1 or element_bits > 128 or element_bits & (element_bits - 1):
        raise LayoutError(f"element_bits must be a power of two from 1 to 128, got "
                          f"{element_bits}")
