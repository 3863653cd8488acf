"""Bank conflicts of every shared-memory access in a TTGIR module, and better layouts.

:func:`check_module` evaluates each :class:`~linlayout.triton.ttgir.Access`:

* loads and stores: :func:`linlayout.bank_conflicts` of the register layout against the
  buffer's shared layout, at the vector width Triton's codegen picks
  (:func:`triton_vector_elems`; capped by ``contiguity`` for ``cp.async``). A view
  (``memdesc_subslice``, ``memdesc_index``) is analysed inside its allocation: the shared layout
  of the whole allocated tile, the register layout placed in it — the offset of the view XORs
  every address with one constant, which moves no access between banks.
* ``convert_layout``: when warps exchange data the compiler goes through a scratch buffer whose
  layout it picks; the report is the optimum, :func:`linlayout.synthesize_swizzle` of the pair
  (degree = the worse side; wavefronts and instructions per warp = store + load). Conversions that stay inside each warp
  (register moves and shuffles) use no shared memory and get no degree.

For a buffer with an access of degree > 1 a **suggestion** is computed from the candidates
``swizzled_shared`` (every vec/perPhase/maxPhase and minor-dim order for the tile) and
:func:`~linlayout.synthesize_swizzle` of each (store, load) pair of the buffer, all judged on
every access of the buffer at Triton's vector widths, and printed as Triton text
(:func:`~linlayout.triton.to_triton.to_triton_text`). Buffers also used by ``ttng`` operations
(TMA copies, wgmma/tcgen05 operands) must stay ``nvmma_shared`` (with their ``transposed``
flag), so only those swizzle widths are tried for them.

The model is :func:`linlayout.bank_conflicts`'s ``ld.shared``/``st.shared`` vectors per lane,
as in Triton's own counter; Triton also lowers some loads to ``ldmatrix`` and some stores to
``stmatrix``, whose 8-lane row groups are not modelled here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..conflicts import ConflictReport, bank_conflicts
from ..hardware.model import HardwareModel
from ..errors import LayoutError
from ..layout import LinearLayout
from ..swizzle import synthesize_swizzle
from . import encodings as Lyt
from .to_triton import to_offset_layout, to_triton_text
from .ttgir import Access, TTGIRModule, buffer_root, find_accesses, view_parents

__all__ = ["AccessReport", "check_module", "embed_in_buffer", "triton_vector_elems"]


@dataclass(frozen=True)
class AccessReport:
    """The verdict on one access.

    Attributes:
        access: the :class:`~linlayout.triton.ttgir.Access`.
        degree: conflict degree (1 = conflict-free; for converts the worse side), or None
            when not applicable (a convert without shared memory) or not computable (see
            ``note``).
        vector_elems: elements per lane per access (for converts: the widest vector both
            sides of the scratch layout share).
        report: the :class:`~linlayout.ConflictReport` (loads/stores), else None.
        store, load: the two sides of a convert's optimal scratch layout, else None.
        suggestion: Triton text of a better shared layout for this buffer (only when the
            degree is above 1 and one exists), else None.
        suggestion_degree: the worst degree of the buffer's accesses under the suggestion.
        note: why a value is missing, or what the suggestion is based on.
    """

    access: Access
    degree: int | None
    vector_elems: int | None
    report: ConflictReport | None = None
    store: ConflictReport | None = None
    load: ConflictReport | None = None
    suggestion: str | None = None
    suggestion_degree: int | None = None
    note: str = ""

    @property
    def reports(self) -> tuple[ConflictReport, ...]:
        """The counted sides: the access's report, or a convert's store and load."""
        if self.report is not None:
            return (self.report,)
        return tuple(r for r in (self.store, self.load) if r is not None)

    @property
    def wavefronts_per_instruction(self) -> int | None:
        """Wavefronts of one warp-level instruction (a load or store; None for converts,
        whose two sides differ: see their ``store`` and ``load``)."""
        return None if self.report is None else self.report.wavefronts_per_instruction

    @property
    def instructions_per_warp(self) -> int | None:
        """Instructions one warp issues for the whole tile (converts: store + load)."""
        reps = self.reports
        return sum(r.instructions_per_warp for r in reps) if reps else None

    @property
    def wavefronts_per_warp(self) -> int | None:
        """Wavefronts one warp pays for the whole tile (converts: store + load)."""
        reps = self.reports
        return sum(r.wavefronts_per_warp for r in reps) if reps else None

    @property
    def wavefront_floor(self) -> int | None:
        """The fewest wavefronts the bytes a warp moves could take (128 bytes each on
        NVIDIA; converts: store + load)."""
        reps = self.reports
        return sum(r.wavefront_floor for r in reps) if reps else None

    def to_dict(self) -> dict:
        """JSON-ready: ``line, op, result, memdesc, element_type, element_bits, vector_elems,
        degree, wavefronts_per_instruction, instructions_per_warp, wavefronts_per_warp,
        wavefront_floor, suggestion`` (+ ``suggestion_degree``, ``note``)."""
        a = self.access
        out = {
            "line": a.line,
            "op": a.op,
            "result": a.result,
            "memdesc": a.memdesc,
            "element_type": a.element_type,
            "element_bits": a.element_bits,
            "vector_elems": self.vector_elems,
            "degree": self.degree,
            "wavefronts_per_instruction": self.wavefronts_per_instruction,
            "instructions_per_warp": self.instructions_per_warp,
            "wavefronts_per_warp": self.wavefronts_per_warp,
            "wavefront_floor": self.wavefront_floor,
            "suggestion": self.suggestion,
        }
        if self.suggestion is not None:
            out["suggestion_degree"] = self.suggestion_degree
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class _Side:
    """A load/store prepared for counting: register layout inside the allocated tile."""

    line: int
    dist: LinearLayout
    memory: LinearLayout
    bits: int
    cap: int | None
    kind: str


def embed_in_buffer(dist: LinearLayout, memory: LinearLayout) -> LinearLayout:
    """``dist`` with the out-dim sizes of ``memory``: the tensor of a view (``memdesc``
    subslice or pipeline stage) placed inside its larger allocation, so that the two layouts
    can be compared by :func:`linlayout.bank_conflicts` and the simulator.

    Raises:
        LayoutError: an out dim of ``dist`` is missing from ``memory`` or larger there.
    """
    if dist.out_dims == memory.out_dims:
        return dist
    for n, s in dist.out_dims.items():
        if n not in memory.out_dims or memory.out_dims[n] < s:
            raise LayoutError(f"the tensor ({dist.out_dims}) does not fit in the buffer "
                              f"({memory.out_dims})")
    return LinearLayout(dist.bases, out_dims={n: memory.out_dims[n] for n in dist.out_dim_names})


def triton_vector_elems(dist: LinearLayout, memory: LinearLayout, element_bits: int) -> int:
    """The vector width Triton's lowering picks for this access.

    Triton's ``largestVectorisation`` (LayoutUtils.cpp, used by ``local_load``/``local_store``
    codegen and by its ``bank_conflicts`` counter) takes the largest ``v ≤ 128 / bits`` such
    that ``v`` register bases map exactly to element offsets ``1, 2, …, v/2`` (in any order)
    and every other register, lane, warp and block basis maps to an offset that is a multiple
    of ``v``. :func:`linlayout.bank_conflicts`'s own default is wider in two cases: register
    directions that only *combine* to those offsets (re-basing registers is free), and lanes
    whose offsets are not aligned to the vector (a permuted vector no instruction can
    express — that default over-estimates the vector there).

    Raises:
        LayoutError: the layouts do not fit together (different out dims, not a bijection).
    """
    cvt = dist.invert_and_compose(to_offset_layout(memory))  # hardware -> (offset[, block])
    outs = cvt.out_dim_names
    oi = outs.index("offset")
    regs = [img for img in cvt.bases.get("register", []) if any(img)]
    others = [img for n in ("lane", "warp", "block") for img in cvt.bases.get(n, [])]
    v = max(1, 128 // element_bits)
    while v > 1:
        k = v.bit_length() - 1
        used: set[int] = set()
        for i in range(k):
            hit = next((j for j, img in enumerate(regs) if j not in used and img[oi] == 1 << i
                        and not any(x for t, x in enumerate(img) if t != oi)), None)
            if hit is None:
                break
            used.add(hit)
        else:
            rest = [img for j, img in enumerate(regs) if j not in used] + others
            if all(img[oi] & (v - 1) == 0 for img in rest):
                return v
        v //= 2
    return 1


def _count(dist: LinearLayout, memory: LinearLayout, bits: int, cap: int | None,
           hardware: HardwareModel | None) -> ConflictReport:
    """Bank conflicts at the vector width Triton's codegen uses (capped by ``cap``)."""
    v = triton_vector_elems(dist, memory, bits)
    if cap is not None:
        while v > max(1, cap):
            v //= 2
    return bank_conflicts(dist, memory, element_bits=bits, hardware=hardware, vector_elems=v)


def _needs_shared(src: LinearLayout, dst: LinearLayout) -> bool:
    """Whether a conversion moves data between warps or CTAs (Triton's
    ``cvtNeedsSharedMemory``: the conversion map is not the identity on ``warp`` and
    ``block``)."""
    try:
        cvt = dst.invert_and_compose(src)  # dst hardware position -> src hardware position
    except LayoutError:
        return True
    outs = cvt.out_dim_names
    for dim in ("warp", "block"):
        if dim not in outs and dim not in cvt.in_dim_names:
            continue
        for name, imgs in cvt.bases.items():
            for i, img in enumerate(imgs):
                vals = dict(zip(outs, img))
                want = (1 << i) if name == dim else 0
                if vals.get(dim, 0) != want:
                    return True
                if name == dim and any(v for o, v in vals.items() if o != dim):
                    return True
    return False


def check_module(module: TTGIRModule, *,
                 hardware: HardwareModel | None = None) -> list[AccessReport]:
    """Bank conflicts of every shared-memory access of ``module``, with suggestions.

    Args:
        module: from :func:`~linlayout.triton.ttgir.read_ttgir`.
        hardware: the bank model (default ``NVIDIA``).

    Returns:
        One :class:`AccessReport` per access, in file order.

    Raises:
        LayoutError: the module is not for 32-lane warps (AMD wave64 is not modelled), or an
            access's types are malformed.
    """
    if module.threads_per_warp != 32:
        raise LayoutError(
            f"{module.path + ': ' if module.path else ''}the module has "
            f"ttg.threads-per-warp = {module.threads_per_warp}; linlayout's bank model is "
            "NVIDIA's 32-lane warps"
        )
    accesses = find_accesses(module)
    reports: list[AccessReport | None] = [None] * len(accesses)
    sides: dict[int, _Side] = {}
    groups: dict[str, list[int]] = defaultdict(list)
    for idx, a in enumerate(accesses):
        if a.kind == "convert":
            reports[idx] = _convert(a, hardware)
            continue
        assert a.memory is not None
        try:
            memory = a.memory.layout
            dist = embed_in_buffer(a.distributed.layout, memory)
            rep = _count(dist, memory, a.element_bits, a.max_vector_elems, hardware)
        except LayoutError as exc:
            reports[idx] = AccessReport(a, None, None, note=f"not analysed: {exc}")
            continue
        reports[idx] = AccessReport(a, rep.degree, rep.vector_elems, rep)
        sides[idx] = _Side(a.line, dist, memory, a.element_bits, a.max_vector_elems, a.kind)
        groups[a.root or a.memdesc or f"line{a.line}"].append(idx)
    parents = view_parents(module)
    ttng = {buffer_root(n, parents) for n in module.ttng_uses}
    for root, members in groups.items():
        worst = max(reports[i].degree or 1 for i in members)  # type: ignore[union-attr]
        if worst <= 1:
            continue
        nvmma_only = root in ttng
        best = _suggest([sides[i] for i in members], nvmma_only, hardware,
                        accesses[members[0]].memory.encoding)  # type: ignore[union-attr]
        for i in members:
            r = reports[i]
            assert r is not None
            if (r.degree or 1) <= 1:
                continue
            if best is None:
                note = ("no shared layout with these vectors does better for all accesses of "
                        f"buffer {root}")
                reports[i] = _replace(r, note=note)
            else:
                text, deg, basis = best
                if deg >= worst:
                    reports[i] = _replace(r, note=f"the best layout found ({basis}) is not "
                                                  f"better: degree {deg}")
                else:
                    reports[i] = _replace(r, suggestion=text, suggestion_degree=deg,
                                          note=f"suggestion for buffer {root}: {basis}")
    return [r for r in reports if r is not None]


def _replace(r: AccessReport, **kw) -> AccessReport:
    d = {f: getattr(r, f) for f in AccessReport.__dataclass_fields__}
    d.update(kw)
    return AccessReport(**d)


def _convert(a: Access, hardware: HardwareModel | None) -> AccessReport:
    assert a.destination is not None
    try:
        src, dst = a.distributed.layout, a.destination.layout
    except LayoutError as exc:
        return AccessReport(a, None, None, note=f"not analysed: {exc}")
    if not _needs_shared(src, dst):
        return AccessReport(a, None, None,
                            note="stays within each warp (registers/shuffles): no shared memory")
    try:
        r = synthesize_swizzle(src, dst, element_bits=a.element_bits, hardware=hardware)
    except LayoutError as exc:
        return AccessReport(a, None, None, note=f"not analysed: {exc}")
    degree = max(r.store.degree, r.load.degree)
    note = "optimal scratch layout (synthesize_swizzle)"
    if degree > 1:
        note += f"; no layout does better: {r.bound.argument}"
    return AccessReport(a, degree, r.vector_elems, store=r.store, load=r.load, note=note)


def _catalog(shape: list[int], bits: int) -> list[tuple[LinearLayout, str]]:
    """``swizzled_shared`` layouts for a tile: both orders of the two minor dims (others
    major), every vec / perPhase / maxPhase that changes the layout."""
    rank = len(shape)
    out: list[tuple[LinearLayout, str]] = []
    seen: set[LinearLayout] = set()
    minor_pairs = [(rank - 1, rank - 2), (rank - 2, rank - 1)] if rank >= 2 else [(0,)]
    for pair in minor_pairs:
        order = list(pair) + [d for d in range(rank - 1, -1, -1) if d not in pair]
        cols = shape[order[0]]
        rows = shape[order[1]] if rank >= 2 else 1
        vecs = [1 << k for k in range(max(1, cols).bit_length()) if (1 << k) <= cols]
        phases = [1 << k for k in range(max(1, rows).bit_length()) if (1 << k) <= rows]
        for vec in vecs:
            maxes = [1 << k for k in range((cols // vec).bit_length()) if (1 << k) <= cols // vec]
            for per in phases:
                for mx in maxes:
                    if mx == 1 and (per != 1 or vec != 1):
                        continue
                    try:
                        layout = Lyt.swizzled_shared(vec, per, mx, order).to_linear_layout(shape)
                    except LayoutError:
                        continue
                    if layout in seen:
                        continue
                    seen.add(layout)
                    out.append((layout, f"swizzled_shared vec={vec} perPhase={per} "
                                        f"maxPhase={mx} order={order}"))
    return out


def _suggest(sides: Sequence[_Side], nvmma_only: bool, hardware: HardwareModel | None,
             current: Lyt.Encoding | None = None) -> tuple[str, int, str] | None:
    """Best layout for all ``sides`` of one buffer: (text, worst degree, how it was found).

    Candidates are scored by (worst degree, wavefronts of all the accesses — per instruction
    times instructions, so wider vectors count —, 0 for a named Triton layout / 1 for a
    synthesized one): a ``swizzled_shared`` is preferred when it is as good.
    """
    tile = sides[0].memory
    bits = sides[0].bits
    shape = [tile.out_dims[f"dim{i}"] for i in range(len(tile.out_dims))]
    cands: list[tuple[LinearLayout, str, int]] = []
    if nvmma_only:
        transposed = [current.transposed] if isinstance(current, Lyt.NvmmaSharedEncoding) \
            else [False, True]
        for sw in (128, 64, 32, 0):
            for tr in transposed:
                try:
                    enc = Lyt.nvmma_shared(sw, bits, transposed=tr, rank=len(shape))
                    cands.append((enc.to_linear_layout(shape),
                                  f"nvmma_shared swizzle {sw}B{' transposed' if tr else ''} "
                                  "(the buffer is used by TMA/wgmma/tcgen05)", 0))
                except LayoutError:
                    continue
    else:
        cands.extend((lay, how, 0) for lay, how in _catalog(shape, bits))
        uniq: list[_Side] = []
        for s in sides:
            if not any(u.dist == s.dist and u.kind == s.kind for u in uniq):
                uniq.append(s)
        stores = [s for s in uniq if s.kind == "store"] or uniq
        loads = [s for s in uniq if s.kind == "load"] or uniq
        for st in stores:
            for ld in loads:
                try:
                    r = synthesize_swizzle(st.dist, ld.dist, element_bits=bits,
                                           hardware=hardware)
                except LayoutError:
                    continue
                cands.append((r.layout, f"synthesize_swizzle(store line {st.line}, "
                                        f"load line {ld.line})", 1))
    best: tuple[tuple[int, int, int], LinearLayout, str] | None = None
    for layout, how, rank_pref in cands:
        try:
            reps = [_count(s.dist, layout, s.bits, s.cap, hardware) for s in sides]
        except LayoutError:
            continue
        # total wavefronts of the whole access: per instruction × instructions
        score = (max(r.degree for r in reps),
                 sum(r.wavefronts_per_warp for r in reps), rank_pref)
        if best is None or score < best[0]:
            best = (score, layout, how)
    if best is None:
        return None
    (deg, _, _), layout, how = best
    text = to_triton_text(layout, bits if bits in (8, 16, 32, 64) else None,
                          prefer="nvmma" if nvmma_only else "swizzled")
    return text, deg, how
