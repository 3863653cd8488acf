"""Name a distributed layout: the Triton encoding (``blocked``, ``nvidia_mma``, ``dot_op``)
that reproduces it bit for bit, when there is one.

Candidates are read off the bases and then *verified* by converting each with Triton's rules
(:meth:`~linlayout.triton.encodings.Encoding.to_linear_layout`) and comparing every basis, so
a returned encoding is always exact; a layout none of them reproduces gets None (write it as
``#ttg.linear`` / ``gl.DistributedLinearLayout``).

* ``nvidia_mma`` v2 (``instrShape = [16, 8]``) and v3 (``[16, N, 16]``, ``N`` = 8 … 256) and
  their ``dot_op`` operands (``kWidth`` 1 … 32) are tried when the lane bases have the mma
  fragment's form: ``[[0, a], [0, 2a], [1, 0], [2, 0], [4, 0]]`` (the accumulator for
  ``a = 2``, operand A for ``kWidth = a``) or ``[[a, 0], [2a, 0], [0, 1], [0, 2], [0, 4]]``
  (operand B), with every split of the warps over the two dims. Rank 2, one CTA.
* ``blocked``: every basis a unit vector (or zero); ``threadsPerWarp``/``warpsPerCTA`` count
  the lane/warp bases per dim, ``sizePerThread`` is where the lanes (or warps) of a dim start,
  every ``order`` is tried.

Several encodings can be one and the same layout: an mma accumulator on one warp is also a
blocked layout, a wgmma (v3) accumulator is also a v2 one with the same warps, and on a 16×16
tile the ``kWidth = 2`` A operand is the accumulator. The first exact candidate in this order
is returned: wgmma accumulators (warps a multiple of 4; widest ``N`` first), mma v2
accumulators, dot operands, blocked — so the answer is exact but may name another of the
equal encodings than the one a kernel was written with.

Source: Triton ``LinearLayoutConversions.cpp`` (the conversions each candidate is checked
with), ``TritonGPUAttrDefs.td``.
"""

from __future__ import annotations

import itertools

from ..errors import LayoutError
from ..layout import LinearLayout
from ..lowering.target import Target
from .encodings import (
    BlockedEncoding,
    DotOperandEncoding,
    Encoding,
    NvidiaMmaEncoding,
    blocked,
    dot_operand,
    nvidia_mma,
)

__all__ = ["distributed_bases", "recognize_distributed"]

_IN = ("register", "lane", "warp", "block")


def distributed_bases(layout: LinearLayout, warp_size: int = 32) -> dict[str, list[list[int]]]:
    """The four distributed in dims' bases, lanes padded with zero (broadcast) bases to a full
    warp, missing dims empty — the form Triton and Gluon write.

    Raises:
        LayoutError: an in dim other than ``register, lane, warp, block``, out dims that are
            not ``dim0 … dim{r-1}`` in order, or more lanes than ``warp_size``.
    """
    if not isinstance(layout, LinearLayout):
        raise LayoutError(f"layout must be a LinearLayout, got {type(layout).__name__}")
    extra = [n for n in layout.in_dim_names if n not in _IN]
    if extra:
        raise LayoutError(f"a distributed layout's in dims are among {list(_IN)}; got {extra}")
    names = [f"dim{i}" for i in range(len(layout.out_dims))]
    if list(layout.out_dim_names) != names:
        raise LayoutError(f"Triton names tensor dims dim0…dim{len(names) - 1} in order; got "
                          f"{list(layout.out_dim_names)}")
    bases = {n: [list(b) for b in layout.bases.get(n, [])] for n in _IN}
    wl = warp_size.bit_length() - 1
    if len(bases["lane"]) > wl:
        raise LayoutError(f"{1 << len(bases['lane'])} lanes do not fit a {warp_size}-lane warp")
    bases["lane"] += [[0] * len(names) for _ in range(wl - len(bases["lane"]))]
    return bases


def _matches(enc: Encoding, shape: list[int], want: dict[str, list[list[int]]],
             warp_size: int = 32) -> bool:
    try:
        got = enc.to_linear_layout(shape)
        if list(got.out_dims.values()) != shape:
            return False
        return distributed_bases(got, warp_size) == want
    except LayoutError:
        return False


def _warp_splits(nwarps: int) -> list[list[int]]:
    w = nwarps.bit_length() - 1
    return [[1 << a, 1 << (w - a)] for a in range(w + 1)]


def _mma_candidates(bases: dict[str, list[list[int]]], shape: list[int],
                    wgmma: bool = True) -> list[Encoding]:
    lane = bases["lane"]
    if len(shape) != 2 or bases["block"] or len(lane) != 5:
        return []
    nwarps = 1 << len(bases["warp"])
    out: list[Encoding] = []
    a = lane[0][1] if lane[0][0] == 0 else 0
    b = lane[0][0] if lane[0][1] == 0 else 0
    splits = _warp_splits(nwarps)[::-1]  # [W, 1] first
    parents: list[Encoding] = []
    if wgmma and nwarps % 4 == 0:  # a warpgroup: wgmma, widest instruction first
        parents += [nvidia_mma(3, warps, [16, n, 16]) for n in (256, 128, 64, 32, 16, 8)
                    if n <= shape[1] for warps in splits]
    parents += [nvidia_mma(2, warps, [16, 8]) for warps in splits]
    if a and lane[1:] == [[0, 2 * a], [1, 0], [2, 0], [4, 0]]:
        if a == 2:
            out += parents
        out += [dot_operand(0, p, a) for p in parents]
    if b and lane[1:] == [[2 * b, 0], [0, 1], [0, 2], [0, 4]]:
        out += [dot_operand(1, p, b) for p in parents
                if isinstance(p, NvidiaMmaEncoding) and p.version_major == 2]
    return out


def _unit(b: list[int]) -> int | None:
    """The dim of a unit-vector basis (one nonzero entry, a power of two); -1 for zero."""
    nz = [i for i, v in enumerate(b) if v]
    if not nz:
        return -1
    if len(nz) == 1 and not b[nz[0]] & (b[nz[0]] - 1):
        return nz[0]
    return None


def _blocked_candidates(bases: dict[str, list[list[int]]], shape: list[int]) -> list[Encoding]:
    if bases["block"]:
        return []
    rank = len(shape)
    dims = {n: [_unit(b) for b in bases[n]] for n in ("register", "lane", "warp")}
    if any(d is None for ds in dims.values() for d in ds):
        return []

    def counts(name: str) -> list[list[int]]:
        """Per-dim sizes; zero bases (broadcast) may belong to any dim: all choices."""
        base = [1] * rank
        for d in dims[name]:
            if d >= 0:
                base[d] *= 2
        zeros = dims[name].count(-1)
        out = []
        for where in itertools.product(range(rank), repeat=zeros):
            c = list(base)
            for d in where:
                c[d] *= 2
            if c not in out:
                out.append(c)
        return out

    def first(name: str, d: int) -> int | None:
        vals = [b[d] for b, u in zip(bases[name], dims[name]) if u == d]
        return min(vals) if vals else None

    spt_options = []
    for d in range(rank):
        start = first("lane", d) or first("warp", d)
        if start is not None:
            spt_options.append([start])
        else:
            regs = sorted(b[d] for b, u in zip(bases["register"], dims["register"]) if u == d)
            opts, v = [1], 1
            for r in regs:
                if r == v:
                    v *= 2
                    opts.append(v)
            spt_options.append(opts)
    out: list[Encoding] = []
    for tpw in counts("lane")[:16]:
        for wpc in counts("warp")[:16]:
            for spt in itertools.product(*spt_options):
                for order in itertools.permutations(range(rank)):
                    out.append(blocked(list(spt), tpw, wpc, list(order)))
                    if len(out) > 2000:
                        return out
    return out


def recognize_distributed(layout: LinearLayout, *, target: str | None = None,
                          operand: int | None = None) -> Encoding | None:
    """The Triton encoding that reproduces a distributed layout exactly, or None.

    Args:
        layout: in dims among ``register, lane, warp, block``; out dims ``dim0 … dim{r-1}``.
        target: the compilation target the encoding is for (``"cuda:80"``, ``"sm90"``,
            ``"hip:gfx942"``, … — :meth:`linlayout.lowering.Target.parse`). ``wgmma`` (mma
            v3) accumulators exist from sm_90 only, so below sm_90 and on AMD only mma v2,
            its operands and blocked layouts are named. None: every candidate, in the
            module docstring's order.
        operand: 0 or 1 to name the layout as that ``dot_op`` operand (``opIdx``) when it is
            one — a kernel feeding ``mma`` needs the operand encoding even where the
            accumulator or another encoding is the same layout; None: the first exact
            candidate.

    Returns:
        A :class:`~linlayout.triton.encodings.NvidiaMmaEncoding`,
        :class:`~linlayout.triton.encodings.DotOperandEncoding` or
        :class:`~linlayout.triton.encodings.BlockedEncoding` whose ``to_linear_layout`` at the
        layout's shape has the same bases (lanes padded to 32 with broadcast lanes); None if
        none of the candidates does (module docstring).

    Raises:
        LayoutError: not a distributed layout with out dims ``dim0 …``; an unknown target;
            ``operand`` not 0, 1 or None.

    Example::

        >>> from linlayout.cute import atom
        >>> recognize_distributed(atom("sm80_16x8x16.C")).text()
        '#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [1, 1], instrShape = [16, 8]}>'
    """
    if operand not in (None, 0, 1):
        raise LayoutError(f"operand must be 0 (A), 1 (B) or None, got {operand!r}")
    wgmma = True
    lane_bits = len(layout.bases.get("lane", [])) if isinstance(layout, LinearLayout) else 0
    warp_size = 64 if lane_bits > 5 else 32
    if target is not None:
        t = Target.parse(target)
        wgmma = t.is_nvidia and t.cc >= 90
        warp_size = max(warp_size, t.threads_per_warp)
    want = distributed_bases(layout, warp_size)
    shape = list(layout.out_dims.values())
    cands = _mma_candidates(want, shape, wgmma)
    if operand is not None:
        cands = [e for e in cands if isinstance(e, DotOperandEncoding)
                 and e.op_idx == operand] + cands
    for enc in cands:
        if _matches(enc, shape, want, warp_size):
            return enc
    for enc in _blocked_candidates(want, shape):
        if _matches(enc, shape, want, warp_size):
            return enc
    return None


#: The encoding classes :func:`recognize_distributed` may return.
RECOGNIZED = (NvidiaMmaEncoding, DotOperandEncoding, BlockedEncoding)

