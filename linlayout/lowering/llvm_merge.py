"""What LLVM's NVPTX back end makes of Triton's ``ld.shared``/``st.shared`` vectors: LLVM's
``LoadStoreVectorizer``, not Triton.

Triton 3.9 emits each register ⇄ shared copy at its own vector width
(:func:`~.vectorise.largest_vectorisation`), one LLVM ``load``/``store`` per vector. Its LLVM
IR before ``-O3`` is that lowering. LLVM may afterwards merge neighbouring accesses: the NVPTX
code generator runs the ``LoadStoreVectorizer`` (``llvm/lib/Transforms/Vectorize/
LoadStoreVectorizer.cpp``), which joins accesses of one thread whose addresses differ by a
constant into one wider access when they are contiguous and the first is aligned to the
width. Triton's vector test asks more — that the vector's *registers* map, in some order, to
offsets ``1, 2, 4, …`` and that every other basis is a multiple of the width — so when a
shared layout puts a thread's elements next to each other through an XOR of several bits
(a register reaching offset ``2^k + 1``, say), Triton emits narrow accesses and LLVM merges
them.

The addresses LLVM sees. Triton's ``lowerLdSt`` (``lib/Conversion/TritonGPUToLLVM/
Utility.cpp``) computes the lane, warp and block part ``X`` of the offset once, then each
access's offset as ``X ⊕ c``, ``c`` the XOR of the register offsets outside the vector (as an
``xor`` or, for registers disjoint from the lane bits and from the XORed registers, an
``add``: ``actionAdditiveStrides``). ``X`` can only have the bits ``P`` that some lane, warp
or block offset has, so ``X ⊕ c = (X ⊕ (c ∧ P)) + (c ∧ ¬P)``, and LLVM finds that split itself
(known bits: InstCombine turns the ``xor`` of bits known to be zero into a disjoint ``or``,
which ScalarEvolution adds; a constant with bits of both kinds is split before the LSV, as far
as the known bits reach: below). So the accesses of one thread fall into groups, one per value
of ``c ∧ P``: inside a group they differ by the constants ``c ∧ ¬P``; across groups by no
constant LLVM can prove. The alignment LLVM proves for an access (``InferAlignment``) is at
most the lowest set bit of ``P`` and of its constant (in bytes), capped by the buffer's
16-byte base; less where ``X``'s tree is deep (below).

Per group, LLVM (``splitChainByContiguity``, ``splitChainByAlignment``) sorts the accesses by
address, cuts them into runs of contiguous ones, and walks each run from its start: the
longest prefix of at most 16 bytes (``getLoadStoreVecRegBitWidth``) whose size divides the
first access's alignment (NVPTX's ``isLegalToVectorizeLoad/StoreChain``: alignment ≥ size; no
misaligned access) becomes one access, and the walk goes on after it; a first access with no
such prefix stays alone and the walk moves one access on.

Where LLVM proves less about ``X``. Both the alignment (``InferAlignment``) and the split of
``X ^ K`` into ``(X ^ K') + K''`` (which NVPTX's IR passes make before the LSV, over the bits
of ``K`` proven zero in ``X``) rest on LLVM's ``computeKnownBits`` (``llvm/lib/Analysis/
ValueTracking.cpp``), which stops 6 instructions deep (``MaxAnalysisRecursionDepth``).

* Modelled: LLVM's SLP vectoriser (``SLPVectorizer.cpp``; Triton 3.9 runs it on every
  NVIDIA target but sm_80: ``make_llir``, ``disable_slp_vectorizer=capability == 80``)
  turns an OR of at least four operands (:func:`or_operands`: Triton's terms for ``X``,
  ``matrixVectorProd``) into ``llvm.vector.reduce.or`` of one ``shl <4 x i32>`` with a shift
  per lane. Through a vector shift ``computeKnownBits`` keeps only what holds for every
  shift amount the lanes' common bits allow, so on that ``X`` the split no longer finds the
  bits of ``K`` outside ``P``: two accesses whose XOR constants agree on ``P`` but differ
  elsewhere (``X ^ 16`` and ``X ^ 20``) stay in separate groups (``slp=True``). A constant
  with no bit in ``P`` is folded into an addition earlier (InstCombine, before SLP) and
  joins ``X``'s own group either way. Which register offsets Triton XORs and which it adds
  is ``actionAdditiveStrides``'s choice: an offset sharing no bit with a lane, warp or block
  offset nor with an XORed register offset is added. The threshold of four operands is a
  fit to the probes (SLP built the reduction from 4, 5 and 7 operands; its cost model is not
  modelled), and so is "no bit outside ``P`` proven" (the bits a vector shift keeps depend
  on how SLP builds the vector: a splat of the thread id, or one ``insertelement`` per
  operand, each a level deeper). Where it changes a prediction it is right on 7 of 12
  probes drawn for it, the prediction without it on 1 (``papers/triton_lowering/
  README.md``): SLP may also build no reduction for ``X`` (one of its operands taken into
  another vector) or keep more apart than the mixed constants.
* Modelled: the alignment LLVM proves for a group's base (:func:`known_low_zeros`).
  ``InferAlignment`` runs after LoopVectorize, before SLP (its later run adds nothing
  through SLP's reduction), on the tree ``-O3`` has left of Triton's (``matrixVectorProd``:
  pairwise ``treeReduce`` of the OR terms, of the XOR terms, the two ORed). Three steps
  shape it, each read in LLVM's source and seen in the IR after each pass
  (``papers/triton_lowering/llvm_merge_known_bits.py --passes``): EarlyCSE makes a term
  that the kernel's other lane/warp expressions compute too one value with several uses
  (``kernel_terms``: the other copies' ``X``, the ``tt.make_range`` indices), and
  InstCombine's ``reassociateForUses`` then moves it up the ``or`` tree, pushing the
  single-use rest a level down; InstCombine's ``FoldShiftByConstant`` turns ``(x & m) << s``
  into ``(x << s) & (m << s)`` when nothing else uses ``x & m`` (a constant, proven at any
  depth); and when no group at ``X ^ K`` uses ``X``, InstCombine splits ``gep(smem, X)``
  at ``X``'s top ``or disjoint`` nodes into a chain of GEPs. ``computeKnownBits`` asks
  ``X`` one instruction below ``X``'s own group's address and two below a group at
  ``X ^ K``, and stops at depth 6: ``(x & m) << s`` with its ``shl`` 5 deep proves only its
  ``s`` low zeros, a term 6 deep nothing. A group whose base is proven less than its first
  vector's size is not merged (NVPTX merges no misaligned shared access). Reassociate
  re-ranks the tree (its ``or disjoint`` into ``add``, InstCombine back) and InstCombine
  re-applies ``reassociateForUses``; which fixed point that reaches is not modelled (on the
  probes traced its deepest terms were the model's). On 22 probes drawn for it, it equals
  the PTX on 16, the exact alignment on 3 (``papers/triton_lowering/README.md``). Not
  modelled either: terms
  shared with converts through scratch, with global address arithmetic other than a
  ``tt.make_range``'s index, and the block (CTA) part of ``X``.

On AMD the same pass runs with AMDGPU's legality (:func:`split_amd_run`, :func:`lds_speed`:
misaligned runs the back end ranks no slower than their elements merge too), followed by
instruction selection and ``SILoadStoreOptimizer``'s ``ds_read2``/``ds_write2`` pairs: the
whole AMD model is :mod:`.lds_pairs`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of
from .._memo import memoize
from ..errors import LayoutError
from .vectorise import AccessMap

__all__ = [
    "KNOWN_BITS_DEPTH",
    "NO_SLP_CC",
    "SLP_MIN_OPERANDS",
    "MergedAccess",
    "expression_terms",
    "known_low_zeros",
    "llvm_merged_accesses",
    "merged_opcode",
    "or_operands",
    "thread_terms",
]

#: NVPTX's widest shared-memory access (``getLoadStoreVecRegBitWidth``: 128 bits).
MAX_ACCESS_BYTES = 16


#: The CUDA compute capability for which Triton 3.9 turns LLVM's SLP vectoriser off
#: (``make_llir`` in ``third_party/nvidia/backend/compiler.py``: ``disable_slp_vectorizer=
#: capability == 80``, a ptxas work-around); every other NVIDIA target runs it.
NO_SLP_CC = 80

#: The fewest operands of the OR building Triton's lane/warp offset ``X`` that LLVM's SLP
#: vectoriser turns into ``llvm.vector.reduce.or`` of a ``<4 x i32>`` (four 32-bit lanes, a
#: 128-bit vector). A fit: the probes examined show the reduction from 4, 5 and 7 operands,
#: not from a 3-operand OR; SLP's cost model itself is not modelled.
SLP_MIN_OPERANDS = 4


def or_operands(columns: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    """The operands of the OR tree Triton builds for a thread's byte offset ``X`` from its
    lane, warp and block ids, as LLVM's ``-O3`` sees it: each operand given by the offset bits
    it can set, in no particular order.

    ``columns``: the byte offset of each bit of Triton's input ``x`` (the lane id's bits, then
    the warp id's, then the block id's; 0 for a broadcast bit).

    Triton's ``matrixVectorProd`` (``lib/Conversion/TritonGPUToLLVM/Utility.cpp``) walks the
    diagonals of the matrix (the columns whose offset has bit ``col - shift``): a column alone
    on a diagonal (after removing those already taken, to a fixed point) becomes its own term
    — ``x & bit`` shifted, or a ``select`` of its offset when that has several bits — the
    other columns of a diagonal one ``(x & mask) << shift`` term. Terms whose rows no other
    column reaches are ORed (``or disjoint``), the others XORed; InstCombine turns an XOR of
    terms with no common bit into an ``or disjoint`` (``haveNoCommonBitsSet``), so the OR's
    operands are the terms grouped by shared bits: each group one operand.

    Raises:
        LayoutError: ``columns`` not a sequence of non-negative ints.
    """
    if not isinstance(columns, (list, tuple)):
        raise LayoutError(f"columns must be a list or tuple of byte offsets, got "
                          f"{type(columns).__name__}")
    cols = [as_int(c, "column") for c in columns]
    if any(c < 0 for c in cols):
        raise LayoutError(f"columns must be non-negative byte offsets, got {cols}")
    return _or_operands(tuple(cols))


@memoize(1024)
def _or_operands(cols: tuple[int, ...]) -> tuple[int, ...]:
    """:func:`or_operands` on checked columns."""
    ncol = len(cols)
    nrow = max([c.bit_length() for c in cols] + [1])

    def diagonal(shift: int) -> int:
        """The columns (a mask) whose offset has bit ``col - shift``."""
        return sum(1 << c for c in range(max(shift, 0), ncol)
                   if 0 <= c - shift < nrow and cols[c] >> (c - shift) & 1)

    masks = [diagonal(i) for i in range(-nrow + 1, ncol)]
    alone = 0
    grew = True
    while grew:
        grew = False
        for mask in masks:
            rest = mask & ~alone
            if rest and not rest & (rest - 1):
                alone |= rest
                grew = True
    terms = [cols[c] for c in range(ncol) if alone >> c & 1 and cols[c]]
    for shift, mask in zip(range(-nrow + 1, ncol), masks):
        bits = 0
        for c in range(ncol):
            if (mask & ~alone) >> c & 1:
                bits |= 1 << (c - shift)
        if bits:
            terms.append(bits)
    # terms sharing a bit stay XORed together: one operand per connected group
    groups: list[int] = []
    for t in terms:
        joined = [g for g in groups if g & t]
        merged = t
        for g in joined:
            merged |= g
            groups.remove(g)
        groups.append(merged)
    return tuple(groups)


#: How deep LLVM's ``computeKnownBits`` looks below the value it is asked about
#: (``MaxAnalysisRecursionDepth`` in ``llvm/include/llvm/Analysis/ValueTracking.h``): an
#: instruction that deep is not looked into (a constant still is).
KNOWN_BITS_DEPTH = 6


def _tz(x: int) -> int:
    return (x & -x).bit_length() - 1 if x else 32


def _term_bits(t: tuple) -> int:
    """The offset bits a leaf term of Triton's tree can set."""
    kind, mask, s = t
    return mask << s if kind == "shl" else mask >> s if kind == "lshr" else \
        s if kind == "select" else mask


def _triton_tree(cols: tuple[int, ...], nrow: int):
    """Triton 3.9's expression for ``X`` (``matrixVectorProd``): leaves ``(kind, mask,
    shift)`` — ``("shl", m, s)`` is ``(x & m) << s``, ``("lshr", m, s)`` ``(x & m) >> s``,
    ``("and", m, 0)`` ``x & m``, ``("select", bit, offset)`` ``x & bit ? offset : 0`` —
    and nodes ``[op, left, right]`` (``op`` ``"or"`` or ``"xor"``); ``None`` when no lane
    or warp moves the address. Diagonal terms first (diagonal order), then the columns
    alone on a diagonal (column order; one of a single-bit offset is the shift InstCombine
    makes of Triton's ``select``); terms whose rows no other column reaches are ORed, the
    others XORed, each list by ``treeReduce`` (pairs of neighbours, round after round), and
    the two results ORed. An ``xor`` of terms sharing no bit is InstCombine's ``or
    disjoint``."""
    ncol = len(cols)
    unique = {r for r in range(nrow) if sum(c >> r & 1 for c in cols) == 1}

    def diagonal(i: int) -> tuple[int, bool]:
        mask, all_unique = 0, True
        row, col = (-i, 0) if i < 0 else (0, i)
        while row < nrow and col < ncol:
            mask |= (cols[col] >> row & 1) << col
            all_unique = all_unique and row in unique
            row += 1
            col += 1
        return mask, all_unique

    diags = [(i, *diagonal(i)) for i in range(-nrow + 1, ncol)]
    alone = 0
    grew = True
    while grew:
        grew = False
        for _, mask, _u in diags:
            rest = mask & ~alone
            if rest and not rest & (rest - 1):
                alone |= rest
                grew = True
    ors: list = []
    xors: list = []
    for i, mask, all_unique in diags:
        mask &= ~alone
        if mask:
            t = ("lshr", mask, i) if i > 0 else ("shl", mask, -i) if i < 0 else ("and", mask, 0)
            (ors if all_unique else xors).append(t)
    for c in range(ncol):
        basis = cols[c]
        if not (alone >> c & 1 and basis):
            continue
        if basis & (basis - 1):
            t = ("select", 1 << c, basis)
        else:
            s = basis.bit_length() - 1 - c
            t = ("shl", 1 << c, s) if s > 0 else ("lshr", 1 << c, -s) if s < 0 \
                else ("and", 1 << c, 0)
        rows_unique = all(r in unique for r in range(nrow) if basis >> r & 1)
        (ors if rows_unique else xors).append(t)

    def reduce(terms: list, op: str):
        while len(terms) > 1:
            nxt = [[op, terms[k], terms[k + 1]] for k in range(0, len(terms) - 1, 2)]
            if len(terms) % 2:
                nxt.append(terms[-1])
            terms = nxt
        return terms[0] if terms else None

    parts = [p for p in (reduce(ors, "or"), reduce(xors, "xor")) if p is not None]
    tree = parts[0] if len(parts) == 1 else ["or", *parts] if parts else None
    _disjoint_xors(tree)
    return tree


def _is_node(n) -> bool:
    return isinstance(n, list)


def _bits(n) -> int:
    return _bits(n[1]) | _bits(n[2]) if _is_node(n) else _term_bits(n)


def _disjoint_xors(n) -> None:
    """InstCombine: an ``xor`` of operands with no common bit is an ``or disjoint``."""
    if _is_node(n):
        _disjoint_xors(n[1])
        _disjoint_xors(n[2])
        if n[0] == "xor" and not _bits(n[1]) & _bits(n[2]):
            n[0] = "or"


def _reassociate_for_uses(root, shared: frozenset) -> None:
    """InstCombine's ``reassociateForUses`` (``InstCombineAndOrXor.cpp``) to a fixed point:
    ``(X op Y) op Z`` with the inner ``op`` and ``Z`` used once becomes ``(Y op Z) op X`` when
    ``X`` has other uses, else ``(X op Z) op Y`` when ``Y`` has. A term other shared-memory
    accesses of the kernel compute too (``shared``: EarlyCSE made it one value) has other
    uses; inner nodes have one."""
    def once(n) -> bool:
        return _is_node(n) or n not in shared

    def post(n):
        if _is_node(n):
            yield from post(n[1])
            yield from post(n[2])
            yield n

    changed = root is not None
    while changed:
        changed = False
        for n in post(root):
            for inner, z in ((n[1], n[2]), (n[2], n[1])):
                if not (_is_node(inner) and inner[0] == n[0] and once(z)):
                    continue
                x, y = inner[1], inner[2]
                if not once(x):
                    n[1:] = [[n[0], y, z], x]
                elif not once(y):
                    n[1:] = [[n[0], x, z], y]
                else:
                    continue
                changed = True
                break
            if changed:
                break


def _known_tz(n, depth: int, lone: frozenset = frozenset()) -> int:
    """The low zero bits ``computeKnownBits`` proves for ``n`` asked ``depth`` deep; a shift
    whose ``x & m`` has no other user (mask in ``lone``) is InstCombine's ``(x << s) & (m <<
    s)`` (``FoldShiftByConstant``), whose constant is known at any depth."""
    if n is None:
        return 32
    if depth >= KNOWN_BITS_DEPTH:
        return 0
    if _is_node(n):
        return min(_known_tz(n[1], depth + 1, lone), _known_tz(n[2], depth + 1, lone))
    kind, mask, s = n
    if kind == "select":          # both arms are constants
        return _tz(s)
    if kind == "and":             # its constant operand is known at any depth
        return _tz(mask)
    inner_known = depth + 1 < KNOWN_BITS_DEPTH or mask in lone  # the mask under the shift
    if kind == "shl":
        return _tz(mask) + s if inner_known else s
    return max(_tz(mask) - s, 0) if inner_known else 0


def _user(t: tuple) -> tuple:
    """What uses ``x & mask`` for a leaf term: the term itself, or for a ``select`` its
    ``icmp`` (one per bit, shared by every select on that bit)."""
    return ("icmp", t[1], 0) if t[0] == "select" else t


def _lone_masks(own: frozenset, kernel_terms: frozenset) -> frozenset:
    """The masks ``m`` of ``own``'s shift terms whose ``x & m`` (one value after EarlyCSE)
    has that shift as its only user among ``own`` and ``kernel_terms``."""
    users: dict[int, set] = {}
    for t in own | kernel_terms:
        users.setdefault(t[1], set()).add(_user(t))
    return frozenset(t[1] for t in own if t[0] in ("shl", "lshr") and len(users[t[1]]) == 1)


def _tree_columns(m: AccessMap, ebytes: int) -> tuple[tuple[int, ...], int]:
    """The byte offsets of the bits of the ``x`` Triton's ``lowerLdSt`` multiplies (the lane
    id's bits, then the warp id's when the module has several warps), and the rows of its
    matrix (the bits of the buffer's byte offsets)."""
    cols = tuple(o * ebytes for o in list(m.lanes) + list(m.warps))
    every = [o * ebytes for o in list(m.registers) + list(m.lanes) + list(m.warps)]
    nrow = max([o.bit_length() for o in every] + [1])
    return cols, nrow


def expression_terms(columns: tuple[int, ...] | list[int], rows: int) -> frozenset:
    """The leaf terms of Triton's ``matrixVectorProd`` of ``x`` (the lane id's bits, then the
    warp id's) with a matrix of these ``columns`` (the value each bit of ``x`` sets; ``rows``
    bits): ``(kind, mask, shift)`` with kinds ``shl``, ``lshr``, ``and``, ``select`` (see
    :func:`known_low_zeros`). Triton computes the lane/warp part of a shared-memory address
    so (:func:`thread_terms`), and the index of a ``tt.make_range`` (``emitIndices``); LLVM's
    EarlyCSE makes equal terms, and equal ``x & m``, one value.

    Raises:
        LayoutError: ``columns`` not a sequence of non-negative ints, ``rows`` not a
            non-negative int.
    """
    if not isinstance(columns, (list, tuple)):
        raise LayoutError(f"columns must be a list or tuple, got {type(columns).__name__}")
    cols = tuple(as_int(c, "column") for c in columns)
    nrow = as_int(rows, "rows")
    if any(c < 0 for c in cols) or nrow < 0:
        raise LayoutError(f"columns and rows must be non-negative, got {cols} and {nrow}")
    return _tree_leaves(cols, max(nrow, max([c.bit_length() for c in cols] + [1])))


@memoize(4096)
def _tree_leaves(cols: tuple[int, ...], nrow: int) -> frozenset:
    """:func:`_leaves` of :func:`_triton_tree`, cached: every copy of a kernel and every
    ``tt.make_range`` asks for it, and kernels repeat their layouts."""
    return _leaves(_triton_tree(cols, nrow))


def _leaves(tree) -> frozenset:
    out: list = []
    stack = [tree]
    while stack:
        n = stack.pop()
        if _is_node(n):
            stack += [n[1], n[2]]
        elif n is not None:
            out.append(n)
    return frozenset(out)


def thread_terms(m: AccessMap) -> frozenset:
    """The leaf terms of Triton's expression for the lane/warp part ``X`` of the access
    ``m``'s byte offset (:func:`expression_terms` of its byte offsets; each ``(kind, mask,
    shift)``, kinds ``shl``, ``lshr``, ``and``, ``select``: see :func:`known_low_zeros`). Two
    accesses of one kernel with a term in common compute it once after LLVM's EarlyCSE.

    Raises:
        LayoutError: ``m`` not an :class:`~.vectorise.AccessMap`.
    """
    instance_of(m, AccessMap, "m")
    ebytes = max(8, m.element_bits) // 8
    return _tree_leaves(*_tree_columns(m, ebytes))


def known_low_zeros(m: AccessMap, depth: int, kernel_terms: frozenset = frozenset(), *,
                    gep_split: bool = False) -> int:
    """How many low bits of the lane/warp part ``X`` of the access ``m``'s byte offset LLVM
    proves zero when it asks ``depth`` instructions below the address (the address of an
    access at ``X`` is ``gep(smem, X)``: ``X`` at depth 1; one at ``X ^ K``:
    ``gep(smem, xor(X, K))``, depth 2). 32 when no lane or warp moves the address.

    ``kernel_terms``: the leaf terms (:func:`expression_terms`) of the kernel's other
    lane/warp expressions — other shared-memory accesses' ``X``, ``tt.make_range`` indices.
    ``X`` is Triton's tree (``matrixVectorProd``: :func:`thread_terms`) as ``-O3`` leaves it
    before ``InferAlignment``: InstCombine's ``reassociateForUses`` moves a term that another
    expression computes too up and the single-use rest one level down (``(A | B) | (C | D)``
    with ``B`` shared becomes ``(A | (C | D)) | B``), and its ``FoldShiftByConstant`` turns
    ``(x & m) << s`` into ``(x << s) & (m << s)`` when nothing else uses ``x & m``;
    Reassociate re-ranks the tree and the next InstCombine re-applies ``reassociateForUses``
    (which fixed point it reaches is not modelled: on the probes traced the deepest terms,
    and so the proven bits, were those of this model). Then ``computeKnownBits`` stops
    :data:`KNOWN_BITS_DEPTH` deep: ``(x & m) << s`` with its ``shl`` 5 deep gives only its
    ``s`` low zeros (``(x << s) & (m << s)`` all of them), a term 6 deep none, and an ``or``
    keeps the fewest of its operands'. ``gep_split``: the address is ``gep(smem, X)`` and
    nothing else uses ``X`` (no group at ``X ^ K``): InstCombine then splits the GEP at each
    of ``X``'s top ``or disjoint`` nodes (``gep(p, a | b)`` → ``gep(gep(p, a), b)``), and
    the subtrees left are asked 1, 2, … deep from the last (``depth`` ignored). Source:
    ``InstCombineAndOrXor.cpp``
    (``reassociateForUses``), ``InstCombineShifts.cpp`` (``FoldShiftByConstant``),
    ``ValueTracking.cpp`` (``computeKnownBits``), the IR after each pass
    (``papers/triton_lowering/llvm_merge_known_bits.py --passes``), and the IR's
    ``InstCombinerImpl::visitGetElementPtrInst`` (the GEP split).

    Raises:
        LayoutError: ``m`` not an :class:`~.vectorise.AccessMap`, ``depth`` not a
            non-negative int, ``kernel_terms`` not a frozenset, ``gep_split`` not a bool.
    """
    instance_of(m, AccessMap, "m")
    d = as_int(depth, "depth")
    instance_of(kernel_terms, frozenset, "kernel_terms")
    instance_of(gep_split, bool, "gep_split")
    if d < 0:
        raise LayoutError(f"depth must be a non-negative int, got {d}")
    return _known_low_zeros(m, d, _relevant(m, kernel_terms), gep_split)


def _relevant(m: AccessMap, kernel_terms: frozenset) -> frozenset:
    """The terms of ``kernel_terms`` that matter to ``m``'s tree: those sharing a mask with
    one of its terms (the cache then sees equal keys for equal trees)."""
    masks = {t[1] for t in thread_terms(m)}
    return frozenset(t for t in kernel_terms if t[1] in masks)


@memoize(4096)
def _known_low_zeros(m: AccessMap, depth: int, kernel_terms: frozenset,
                     gep_split: bool = False) -> int:
    """:func:`known_low_zeros` on checked arguments; ``gep_split``: the address is
    ``gep(smem, X)`` with no other use of ``X``, which InstCombine splits at ``X``'s top
    ``or disjoint`` nodes (``depth`` is then ignored: :func:`_gep_chain`)."""
    ebytes = max(8, m.element_bits) // 8
    tree = _triton_tree(*_tree_columns(m, ebytes))
    own = _leaves(tree)
    _reassociate_for_uses(tree, own & kernel_terms)
    lone = _lone_masks(own, kernel_terms)
    if gep_split:
        return min([_known_tz(t, d, lone) for t, d in _gep_chain(tree)] + [32])
    return _known_tz(tree, depth, lone)


def _gep_chain(tree) -> list:
    """``gep(smem, X)`` as InstCombine leaves it when nothing else uses ``X``: each ``or
    disjoint`` index split into two GEPs (``gep(p, a | b)`` → ``gep(gep(p, a), b)``, again
    on the new indices), so ``X``'s top ``or`` nodes become a chain of GEPs, its other
    subtrees their indices in order: the last one asked 1 deep, the one before 2, …
    Returns ``[(subtree, depth), …]``."""
    parts: list = []

    def walk(n) -> None:
        if _is_node(n) and n[0] == "or":
            walk(n[1])
            walk(n[2])
        elif n is not None:
            parts.append(n)
    walk(tree)
    return [(t, len(parts) - i) for i, t in enumerate(parts)]


def _thread_columns(m: AccessMap) -> list[int]:
    """The element offsets of the bits of Triton's ``x`` (lane, warp, block ids)."""
    return list(m.lanes) + list(m.warps) + list(m.blocks)


@dataclass(frozen=True)
class MergedAccess:
    """The accesses one thread makes after LLVM's ``LoadStoreVectorizer``.

    Attributes:
        widths: ``((vector_elems, per_thread), …)``, widest first: how many accesses of each
            width one thread makes (straight-line code).
        vector_offsets: when every access has the same width ``w``: the element offsets
            ``1, 2, …, w/2`` (so a register basis can be chosen whose first ``log2 w``
            vectors make the merged vector), else ``()``.
        merged: whether LLVM changed anything (False: Triton's own vectors stay).
        instructions: ``((start, vector_elems), …)``, one per access the thread makes after
            the merge, sorted: ``start`` the element offset constant of its first element (the
            XOR constant ``c`` of the module doc, register offsets only: the access reads
            or writes the ``vector_elems`` elements at ``X ⊕ start, X ⊕ start + 1, …`` for a
            thread whose lane/warp/block part is ``X``; ``start`` is a multiple of
            ``vector_elems``).
    """

    widths: tuple[tuple[int, int], ...]
    vector_offsets: tuple[int, ...] = ()
    merged: bool = False
    instructions: tuple[tuple[int, int], ...] = ()


def _lowbit(x: int) -> int:
    return x & -x


def llvm_merged_accesses(m: AccessMap, vector_elems: int,
                         base_align_bytes: int = MAX_ACCESS_BYTES, *,
                         slp: bool = False, kernel_terms: frozenset = frozenset()
                         ) -> MergedAccess:
    """The ``ld.shared``/``st.shared`` accesses one thread makes once LLVM's NVPTX back end
    has merged Triton's ``vector_elems``-wide vectors of the access ``m``.

    ``m.registers`` are the register offsets (elements) in Triton's order; the vector's own
    registers are the ones reaching ``1, 2, …, vector_elems/2``. ``base_align_bytes``: the
    alignment of the buffer's start (Triton's shared allocation: 16 bytes or more).
    ``slp``: whether LLVM's SLP vectoriser runs on Triton's IR (Triton 3.9: every NVIDIA
    target but sm_80, :data:`NO_SLP_CC`). With it, an
    ``X`` built from at least :data:`SLP_MIN_OPERANDS` OR operands (:func:`or_operands`)
    becomes a vector reduction whose bits LLVM no longer proves, and accesses whose XOR
    constants share their lane/warp bits but differ elsewhere are not joined (module doc).
    ``kernel_terms``: the leaf terms of the kernel's other lane/warp expressions
    (:func:`known_low_zeros`); the alignment LLVM proves for each group's base is
    :func:`known_low_zeros`' (module doc), at most the lowest lane/warp offset.

    Source: ``lowerLdSt`` and ``actionAdditiveStrides`` (Triton 3.9) for the addresses;
    ``Vectorizer::splitChainByContiguity``/``splitChainByAlignment`` (LLVM
    ``LoadStoreVectorizer.cpp``) and ``NVPTXTTIImpl::isLegalToVectorizeLoadChain`` for the
    merge.

    Raises:
        LayoutError: ``m`` not an :class:`~.vectorise.AccessMap`; ``vector_elems`` not a power
            of two whose registers ``m`` has; ``base_align_bytes`` not a positive power of two;
            ``slp`` not a bool; ``kernel_terms`` not a frozenset.
    """
    instance_of(m, AccessMap, "m")
    v = as_int(vector_elems, "vector_elems")
    align0 = as_int(base_align_bytes, "base_align_bytes")
    instance_of(slp, bool, "slp")
    instance_of(kernel_terms, frozenset, "kernel_terms")
    if v < 1 or v & (v - 1) or align0 < 1 or align0 & (align0 - 1):
        raise LayoutError(f"vector_elems and base_align_bytes must be powers of two, got "
                          f"{v} and {align0}")
    return _merged(m, v, align0, slp, _relevant(m, kernel_terms))


@memoize(4096)
def _merged(m: AccessMap, v: int, align0: int, slp: bool = False,
            kernel_terms: frozenset = frozenset()) -> MergedAccess:
    """:func:`llvm_merged_accesses` on checked arguments, cached per access map (a layout
    search meets the same thread addresses on many candidate buffers)."""
    regs = list(m.registers)
    k = v.bit_length() - 1
    rest = list(regs)
    for i in range(k):
        if (1 << i) not in rest:
            raise LayoutError(f"no register of the access reaches offset {1 << i}: not a "
                              f"{v}-element vector")
        rest.remove(1 << i)
    ebytes = max(8, m.element_bits) // 8
    others = [o for o in list(m.lanes) + list(m.warps) + list(m.blocks) if o]
    lane_bits = 0
    for o in others:
        lane_bits |= o
    base_align = min([align0, MAX_ACCESS_BYTES] + [_lowbit(o * ebytes) for o in others])
    width_bytes = v * ebytes
    xors, adds = xor_and_added(rest, lane_bits)
    unsplit = slp and len(or_operands([o * ebytes for o in _thread_columns(m)])) \
        >= SLP_MIN_OPERANDS
    groups: dict[tuple[int, int], list[int]] = {}
    for k in f2.images(xors):
        # the XOR constant's bits outside P: split off by LLVM (module doc) unless SLP has
        # left X's bits unproven; then a mixed constant keeps its own chain
        apart = k & ~lane_bits if unsplit and k & lane_bits else 0
        for a in f2.images(adds):
            c = k ^ a
            groups.setdefault((c & lane_bits, apart), []).append((c & ~lane_bits) * ebytes)
    widths: Counter = Counter()
    accesses: list[tuple[int, int]] = []
    # the alignment InferAlignment proves for a group's base: ``X`` one instruction below
    # the address of X's own group (``gep(smem, X)``), two below a group at ``X ^ K``
    # X's own group is ``gep(smem, X)``: X one below the address, or, when no group at
    # ``X ^ K`` uses X too, split into a chain of GEPs by InstCombine
    gep_split = not any(on_p for on_p, _ in groups)
    known = {d: 1 << min(_known_low_zeros(m, d, kernel_terms, gep_split and d == 1), 31)
             for d in (1, 2)}
    for (on_p, _), starts in groups.items():
        group_align = max(min(base_align, known[2 if on_p else 1]), ebytes)
        for run in contiguous_runs(sorted(starts), width_bytes):
            at = run[0]
            for size in _split(run, width_bytes, group_align):
                widths[size // ebytes] += 1
                accesses.append((on_p | at // ebytes, size // ebytes))
                at += size
    out = tuple(sorted(widths.items(), reverse=True))
    merged = out != ((v, 1 << len(rest)),)
    offsets: tuple[int, ...] = ()
    if len(out) == 1 and merged:
        w = out[0][0]
        offsets = tuple(1 << i for i in range(w.bit_length() - 1))
    return MergedAccess(out, offsets, merged, tuple(sorted(accesses)))


def xor_and_added(registers: list[int], lane_bits: int) -> tuple[list[int], list[int]]:
    """The register offsets Triton XORs into ``X`` and those it adds (``actionAdditiveStrides``
    in ``lowerLdSt``): a register offset is added when it shares no bit with any lane, warp or
    block offset (``lane_bits``) nor with an XORed register offset — to a fixed point, as
    Triton 3.9's IR shows on the probes (``papers/triton_lowering/llvm_merge_known_bits.py``:
    ``X ^ 16`` and ``X ^ 20`` where the 4-byte register offset shares a bit with ``X ^ 148``'s
    register offset only).

    Raises:
        nothing: the callers (:func:`llvm_merged_accesses`, :mod:`.lds_pairs`) check the
        access first.
    """
    bits = lane_bits
    xors: list[int] = []
    grew = True
    while grew:
        grew = False
        for r in registers:
            if r & bits and r not in xors:
                xors.append(r)
                bits |= r
                grew = True
    return xors, [r for r in registers if r not in xors]


def contiguous_runs(starts: list[int], size: int) -> list[list[int]]:
    """Sorted access starts (bytes) cut into runs of contiguous accesses of ``size`` bytes
    (the chains ``Vectorizer::splitChainByContiguity`` of LLVM's ``LoadStoreVectorizer.cpp``
    keeps).

    Raises:
        nothing: the callers pass checked starts.
    """
    runs: list[list[int]] = []
    for s in starts:
        if runs and runs[-1][-1] + size == s:
            runs[-1].append(s)
        else:
            runs.append([s])
    return runs


def _split(run: list[int], size: int, group_align: int) -> list[int]:
    """The access sizes (bytes) LLVM's ``splitChainByAlignment`` makes of one run."""
    out = []
    i = 0
    while i < len(run):
        align = min(group_align, _lowbit(run[i])) if run[i] else group_align
        best = 1
        for n in range(len(run) - i, 1, -1):
            total = n * size
            if total <= MAX_ACCESS_BYTES and align % total == 0:
                best = n
                break
        out.append(best * size)
        i += best
    return out


def lds_speed(bits: int, align: int) -> int | None:
    """The relative speed the AMDGPU back end reports for one LDS access of ``bits`` bits at
    a byte alignment ``align`` on a target with unaligned DS access (gfx90a and later, in
    ROCm's unaligned access mode): None when it refuses the access, 0 or 1 for "slow", else
    the bits of a naturally aligned access of comparable speed.

    Source: ``SITargetLowering::allowsMisalignedMemoryAccessesImpl`` (LLVM
    ``SIISelLowering.cpp``, local address space): 64 bits are fast at 4-byte alignment (one
    ``ds_write2_b32``), 96 bits at 16, 128 bits at 8 (one ``ds_write2_b64``); a wider access
    below 4-byte alignment ranks as one dword; 32 bits or less rank their size when
    naturally aligned, else 0; other sizes are refused.

    Raises:
        nothing: ``bits`` and ``align`` come from checked accesses (a size the back end
        refuses is None, not an error).
    """
    natural = 1
    while natural * 8 < bits:
        natural *= 2
    if bits == 64:
        return 64 if align >= 4 else 32
    if bits in (96, 128):
        need = 16 if bits == 96 else 8
        return bits if align >= need else (32 if align < 4 else 1)
    if bits > 32:
        return None
    return bits if align >= natural else 0


def _allowed_and_fast(size: int, align: int, elem_bits: int) -> bool:
    """LLVM's ``Vectorizer::accessIsAllowedAndFast`` for an LDS chain of ``size`` bytes whose
    first access is ``align``-aligned, of ``elem_bits``-bit elements: aligned to its size, or
    allowed and no slower than the elements one by one (:func:`lds_speed`)."""
    if align % size == 0:
        return True
    vec = lds_speed(8 * size, align)
    if vec is None:
        return False
    return vec >= (lds_speed(elem_bits, align) or 0)


def split_amd_run(run: list[int], size: int, group_align: int,
                  elem_bytes: int) -> list[int]:
    """The access sizes (bytes) LLVM's ``splitChainByAlignment`` makes of one run of
    contiguous ``size``-byte accesses on AMDGPU's LDS: from each start the longest prefix of
    at most 16 bytes (``getLoadStoreVecRegBitWidth``: 128 bits; any number of accesses, not
    only powers of two) that :func:`_allowed_and_fast` accepts at the start's alignment;
    a start with none stays alone.

    Raises:
        nothing: the callers pass checked runs.
    """
    out = []
    i = 0
    while i < len(run):
        # the first access's IR alignment: Triton's (its size) or LLVM's inferred, if more
        align = max(size, min(group_align, _lowbit(run[i])) if run[i] else group_align)
        best = 1
        for n in range(len(run) - i, 1, -1):
            total = n * size
            if total <= MAX_ACCESS_BYTES and _allowed_and_fast(total, align, 8 * elem_bytes):
                best = n
                break
        out.append(best * size)
        i += best
    return out


def merged_opcode(side: str, vector_elems: int, element_bits: int) -> str:
    """How NVPTX prints a vector LLVM merged: ``vector_elems`` elements of ``element_bits``
    kept as their own type (``<2 x i16>`` → ``st.shared.v2.b16``, ``<4 x i16>`` →
    ``.v4.b16``, ``<2 x i8>`` → ``.v2.b8``), except where NVPTX holds several in one 32-bit
    register (``<4 x i8>`` → ``.b32``, ``<8 x i8>`` → ``.v2.b32``, 16 bytes of 8- or 16-bit
    elements → ``.v4.b32``).

    Source: NVPTX's legal vector types (``NVPTXISelLowering.cpp``: ``v2i8``/``v2i16``/``v4i16``
    vectors, ``v4i8`` and ``v2i16`` packed in 32-bit registers), as printed for Triton 3.9.

    Raises:
        LayoutError: a width over 16 bytes, or a side other than ``"load"``/``"store"``.
    """
    if side not in ("load", "store"):
        raise LayoutError(f"side must be 'load' or 'store', got {side!r}")
    n = as_int(vector_elems, "vector_elems")
    bits = max(8, as_int(element_bits, "element_bits"))
    total = n * bits
    if total > 128:
        raise LayoutError(f"{total}-bit shared access: PTX has no wider access than 128 bits")
    op = "ld" if side == "load" else "st"
    if bits >= 32 or n == 1 or total > 64 or (bits == 8 and n >= 4):
        word = 64 if bits >= 64 else (bits if n == 1 else 32)
        k = total // word
        return f"{op}.shared.b{word}" if k == 1 else f"{op}.shared.v{k}.b{word}"
    return f"{op}.shared.v{n}.b{bits}"

