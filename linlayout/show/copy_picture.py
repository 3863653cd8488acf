"""The copy picture: a distributed layout copied into shared memory, one colour per wavefront.

:func:`draw_copy` draws one warp-level copy between registers and shared memory — a
distributed ``source`` layout and a shared-memory ``memory`` layout of the same tile — as two
panels: the tile coloured by the lane that holds each element, and shared memory as the
hardware sees it, one column per bank and one row per row of banks (128 bytes on NVIDIA;
an AMD CDNA model, ``hardware=AMD_CDNA3`` or ``AMD_CDNA4``, draws 64-lane wavefronts over
its 32 or 64 banks),
each bank word labelled with the ``thread:value`` it holds. The elements the first instruction
moves (warp 0, the registers of its first instruction) are outlined in both panels, one
colour per wavefront: a wavefront serves at most one word per bank, so words of one bank in
one phase fall into successive wavefronts, and a conflict shows as several colours in one
bank column.

Which lanes form each phase and which registers the first instruction moves come from
:func:`linlayout.conflicts.explain.explain_conflicts` (the counter's own phases; for
``ldmatrix``/``stmatrix`` a phase is one 8×8 matrix, matrix ``j`` being each lane's 32-bit
register ``j``); :func:`copy_wavefronts` lists them and is checked against
:func:`linlayout.bank_conflicts`' wavefronts per instruction.

Source: the bank model of ``docs/hardware-model.md``; PTX ISA "Warp-level matrix load
instruction: ldmatrix" (fragment layout); CUTLASS ``print_latex`` for the style.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from .. import f2
from .._checks import as_int, instance_of
from ..conflicts import ConflictReport
from ..conflicts.explain import explain_conflicts
from ..errors import LayoutError
from ..hardware.kinds import distributed_columns, embed_at_origin, is_smaller_tile, memory_columns
from ..hardware.model import HardwareModel, bank_model
from ..layout import LinearLayout
from .cells import (Window, check_cut, check_title, color_strip, frame, mpl, new_figure, outlines,
                    paint, tensor_shape)
from .pictures import bank_color, lane_color
from .tv_pictures import EMPTY, holders

__all__ = ["CopyWavefronts", "copy_wavefronts", "draw_copy", "wavefront_color"]

#: Outline colours of successive wavefronts (matplotlib's tab10, cycled).
WAVEFRONT_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
                    "#e377c2", "#17becf", "#bcbd22", "#7f7f7f")


def wavefront_color(i: int) -> str:
    """The outline colour of wavefront ``i`` (ten colours, cycled).

    Raises:
        LayoutError: ``i`` is not an int.
    """
    return WAVEFRONT_COLORS[as_int(i, "i") % len(WAVEFRONT_COLORS)]


@dataclass(frozen=True)
class CopyWavefronts:
    """The first instruction of a copy, element by element and wavefront by wavefront.

    Attributes:
        report: the access's count (:func:`linlayout.bank_conflicts`).
        elements: ``{flat element: (lane, register, phase, wavefront)}`` for every element
            the first instruction moves (flat: ``dim0`` fastest, the source's out-dim order).
        words: ``{bank word: the wavefronts that serve it}`` of the words it asks for
            (several when lanes of several phases ask for one word).
        offsets: ``{flat element: element offset}`` of those elements.
        phase_lanes: the lanes of each phase (the lanes supplying row addresses, for
            ``ldmatrix``/``stmatrix``).
        wavefront_lanes: the holding lanes of each wavefront, in order.
        num_banks, bank_bytes: the bank model.
    """

    report: ConflictReport
    elements: dict[int, tuple[int, int, int, int]]
    words: dict[int, tuple[int, ...]]
    offsets: dict[int, int]
    phase_lanes: tuple[tuple[int, ...], ...]
    wavefront_lanes: tuple[tuple[int, ...], ...]
    num_banks: int
    bank_bytes: int

    @property
    def wavefronts(self) -> int:
        """Wavefronts of the instruction: equals the report's ``wavefronts_per_instruction``."""
        return len(self.wavefront_lanes)


def copy_wavefronts(source: LinearLayout, memory: LinearLayout, *, element_bits: int,
                    hardware: HardwareModel | None = None,
                    instruction: str | None = None) -> CopyWavefronts:
    """Which elements, words and lanes the first instruction of a copy puts in each wavefront.

    Args:
        source: the distributed layout (registers), over the memory's tile or a smaller tile
            at its origin (an MMA atom inside a larger buffer).
        memory: the shared-memory layout (a linear layout; padded ones are not drawn).
        element_bits: bits per element.
        hardware: the bank model (default NVIDIA).
        instruction: ``None`` (``ld/st.shared``, vectorised as the counter does) or a matrix
            instruction (``"ldmatrix.x4"``, ``"stmatrix.x2.trans"``, …).

    Returns:
        A :class:`CopyWavefronts`. Within a phase, the words of each bank are served in
        address order, word ``i`` of a bank in the phase's ``i``-th wavefront; the phases
        follow each other.

    Raises:
        LayoutError: as :func:`linlayout.bank_conflicts`; an AMD LDS instruction (not drawn);
            a source with more lanes than the hardware's warp (a 64-lane wavefront layout
            with the default NVIDIA model: pass ``hardware=AMD_CDNA3``).
    """
    instance_of(source, LinearLayout, "source")
    instance_of(memory, LinearLayout, "memory")
    if instruction is not None and not str(instruction).startswith(("ld", "st")):
        raise LayoutError(f"the copy picture draws ld/st.shared, ldmatrix and stmatrix, not "
                          f"{instruction!r}")
    model = bank_model(element_bits, hardware)
    lane_bits = source.in_bits("lane") if "lane" in source.in_dims else 0
    if lane_bits > model.warp_log2:
        raise LayoutError(f"source has {1 << lane_bits} lanes but a warp of the "
                          f"{model.hardware.name} model has {1 << model.warp_log2}; a 64-lane "
                          f"AMD wavefront layout needs hardware=AMD_CDNA3 or AMD_CDNA4 "
                          f"(--hardware on the command line)")
    if is_smaller_tile(source, memory):
        source = embed_at_origin(source, memory)
    exp = explain_conflicts(source, memory, element_bits=element_bits, hardware=hardware,
                            instruction=instruction)
    rep = exp.report
    nb = 1 << model.banks_log2
    word_bits = 1 << model.word_log2
    first = exp.instructions[0]
    dist = distributed_columns(source, "source", model.warp_log2)
    mcols, offset_bits = memory_columns(memory, source.out_dim_names)
    inv = f2.inverse(list(mcols))
    mask = (1 << offset_bits) - 1
    reg_img = f2.images(dist.register)
    lane_img = f2.images(dist.lane)
    matrix = rep.instruction not in ("ld/st.shared",)
    per_chunk = max(1, 32 // element_bits)
    regs = list(first.registers)
    phase_of_lane = {lane: i for i, p in enumerate(first.phases) for lane in p.lanes}
    moved: list[tuple[int, int, int, int]] = []  # (flat, lane, register, phase)
    for lane in range(len(lane_img)):
        for j, r in enumerate(regs):
            phase = j // per_chunk if matrix else phase_of_lane[lane]
            moved.append((lane_img[lane] ^ reg_img[r], lane, r, phase))
    offsets = {t: f2.apply(inv, t) & mask for t, *_ in moved}
    # per phase: each bank's distinct words in address order -> their rank
    asks: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for t, _, _, phase in moved:
        o = offsets[t]
        for word in range(o * element_bits // word_bits,
                          (o * element_bits + element_bits - 1) // word_bits + 1):
            asks[phase][word % nb].add(word)
    base, rank, phase_base = 0, {}, {}
    for phase in sorted(asks):
        phase_base[phase] = base
        depth = 0
        for words in asks[phase].values():
            for i, word in enumerate(sorted(words)):
                rank[(phase, word)] = base + i
            depth = max(depth, len(words))
        base += depth
    elements = {}
    lanes_of: dict[int, set[int]] = defaultdict(set)
    words: dict[int, set[int]] = defaultdict(set)
    for t, lane, r, phase in moved:
        o = offsets[t]
        word = o * element_bits // word_bits
        wf = rank[(phase, word)]
        elements.setdefault(t, (lane, r, phase, wf))
        lanes_of[wf].add(lane)
    for (phase, word), wf in rank.items():
        words[word].add(wf)
    return CopyWavefronts(rep, elements, {w: tuple(sorted(v)) for w, v in words.items()},
                          offsets,
                          tuple(tuple(p.lanes) for p in first.phases),
                          tuple(tuple(sorted(lanes_of[w])) for w in range(base)),
                          nb, model.hardware.bank_bytes)


def _ranges(lanes: tuple[int, ...]) -> str:
    """``0-7, 16-23`` for a sorted tuple of lanes."""
    out, start, prev = [], None, None
    for x in lanes:
        if start is None:
            start = prev = x
        elif x == prev + 1:
            prev = x
        else:
            out.append(f"{start}-{prev}" if prev != start else str(start))
            start = prev = x
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(out)


def draw_copy(source: LinearLayout, memory: LinearLayout, *, element_bits: int,
              hardware: HardwareModel | None = None, instruction: str | None = None,
              numbers: bool | None = None, max_rows: int = 64, max_cols: int = 64,
              title: str | None = None):
    """Draw a copy between registers and shared memory (module docstring).

    Args:
        source, memory, element_bits, hardware, instruction: as :func:`copy_wavefronts`.
        numbers: label the cells (``thread:value``; default: when a panel is at most 32
            cells a side).
        max_rows, max_cols: the largest window drawn: of the tile (around the elements the
            first instruction moves) and of shared memory (rows of banks from the first up
            to the last the instruction touches).
        title: the figure title (default: the instruction and its wavefronts).

    Returns:
        The ``matplotlib.figure.Figure``: axes 0 is the tile (colour = lane), axes 1 shared
        memory by bank (colour = bank), then the bank legend strip; both panels outline the
        first instruction's elements, one colour per wavefront, with a legend naming each
        wavefront's phase and lanes.

    Raises:
        LayoutError: as :func:`copy_wavefronts`; a tile that is not 1-D or 2-D.
        MissingMatplotlib: matplotlib is not installed.
    """
    mpl()
    max_rows, max_cols = check_cut(max_rows, max_cols)
    title = check_title(title)
    cw = copy_wavefronts(source, memory, element_bits=element_bits, hardware=hardware,
                         instruction=instruction)
    if is_smaller_tile(source, memory):
        source = embed_at_origin(source, memory)
    rep = cw.report
    rows, cols = tensor_shape(source)
    two_d = len(source.out_dims) == 2
    held = holders(source)
    lanes = max(source.in_dims.get("lane", 1), 2)
    win = Window.around(rows, cols, cw.elements, max_rows, max_cols)  # the instruction's box
    nb = cw.num_banks
    word_bits = cw.bank_bytes * 8
    # shared memory as banks: row = word // banks, column = bank
    word_owner: dict[int, int] = {}
    mcols, offset_bits = memory_columns(memory, source.out_dim_names)
    for t, o in enumerate(f2.images(list(mcols[:offset_bits]))):  # offset t holds element o
        word_owner.setdefault(t * element_bits // word_bits, o)
    bank_rows = max(1, -(-len(word_owner) // nb))
    top = max(cw.words) // nb + 1 if cw.words else 1  # rows up to the last one it touches
    bwin = Window(bank_rows, nb, 0, 0, min(bank_rows, top, max_rows), nb)
    if numbers is None:
        numbers = max(win.nrows, win.ncols) <= 32 and bwin.nrows <= 32
    cell = 0.34 if numbers else 0.14
    wide = win.ncols + nb > 48
    fig = new_figure(max(6.0, (win.ncols + nb) * cell + 3.0) if not wide else
                     max(5.0, max(win.ncols, nb) * cell + 3.0),
                     max(3.0, max(win.nrows, bwin.nrows) * cell + 2.2) if not wide else
                     max(5.0, (win.nrows + bwin.nrows) * cell + 3.2))
    ax_t, ax_m = fig.subplots(2, 1) if wide else fig.subplots(1, 2)
    moved = cw.elements

    def t_color(t: int):
        h = held.get(t)
        if h is None:
            return EMPTY
        return lane_color(h[2], lanes) if t in moved else (0.93, 0.93, 0.93)

    def t_text(t: int) -> str:
        h = held.get(t)
        return f"{h[0]}:{h[1]}" if h is not None and t in moved else ""

    paint(ax_t, win, t_color, t_text if numbers else None, fontsize=4.5)
    names = list(source.out_dim_names)
    frame(ax_t, win, names[0], names[-1], two_d=two_d)
    ax_t.set_title("registers: colour = lane (the first instruction's elements)" + win.note(),
                   fontsize=9)

    def m_color(flat: int):
        r, c = flat % bwin.rows, flat // bwin.rows
        word = r * nb + c
        if word not in word_owner:
            return EMPTY
        return bank_color(c, nb) if word in cw.words else tuple(
            0.75 + 0.25 * x for x in bank_color(c, nb))

    def m_text(flat: int) -> str:
        r, c = flat % bwin.rows, flat // bwin.rows
        word = r * nb + c
        if word not in cw.words:
            return ""
        h = held.get(word_owner[word])
        return f"{h[0]}:{h[1]}" if h is not None else ""

    paint(ax_m, bwin, m_color, m_text if numbers else None, fontsize=4.5)
    frame(ax_m, bwin, f"row of banks ({nb * cw.bank_bytes} bytes)", "bank")
    ax_m.set_title("shared memory: one column per bank, colour = bank" + bwin.note(), fontsize=9)
    by_wavefront: dict[int, list[int]] = defaultdict(list)
    for t, v in moved.items():
        by_wavefront[v[3]].append(t)
    words_of: dict[int, list[int]] = defaultdict(list)
    for w, wfs in cw.words.items():
        for wf in wfs:
            words_of[wf].append((w // nb) + bwin.rows * (w % nb))
    colors = [wavefront_color(wf) for wf in range(len(cw.wavefront_lanes))]
    legend = len(colors) <= 16  # a legend of more would not fit
    outlines(ax_t, win, [(by_wavefront[wf], colors[wf], None) for wf in range(len(colors))])
    handles = outlines(ax_m, bwin, [(words_of[wf], colors[wf],
                                     f"wavefront {wf}: lanes {_ranges(wf_lanes)}"
                                     if legend else None)
                                    for wf, wf_lanes in enumerate(cw.wavefront_lanes)])
    if legend:
        ax_m.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=6,
                    frameon=False)
    color_strip(fig, [ax_t, ax_m], [bank_color(b, nb) for b in range(nb)],
                "bank (hue = bank / 2, odd banks darker); pale: words the instruction does not "
                "touch")
    what = (f"{rep.instruction}, {rep.vector_elems} elements per lane" if not
            rep.instruction.startswith(("ldmatrix", "stmatrix")) else rep.instruction)
    fig.suptitle(title if title is not None else
                 f"first instruction ({what}): {rep.phases} phase(s), {rep.degree}-way, "
                 f"{cw.wavefronts} wavefront(s); one outline colour per wavefront", fontsize=10)
    return fig
