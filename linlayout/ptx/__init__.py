"""The hardware's fixed shared-memory swizzles (TMA, tcgen05/wgmma, CuTe) as F₂ layouts.

**The algebra.** Every PTX/TMA swizzle mode XORs a few bits of the *absolute* shared-memory
byte address into lower bits. 128B (PTX ISA §5.5.7, "Swizzling Modes") permutes the eight
16-byte chunks of each 128-byte line by the line index mod 8::

    swizzled(a) = a ⊕ 16·(⌊a/128⌋ & 7)        # address bits 7,8,9 flip bits 4,5,6

Each output bit is the XOR of input bits, so the map is a :class:`LinearLayout` on byte
offsets. 2-bit worked example (the 32B swizzle seen on address bits 4 and 7 only, written as
``x = chunk + 2·line``)::

    L(x) = x ⊕ line              columns: bit 0 (chunk) -> 0b01, bit 1 (line) -> 0b11
    line 0: chunks 0, 1 stay     line 1: chunk 0 <-> chunk 1    (PTX's 32B table: "1 0 3 2 …")

The modes, as ``(target bit, source bit)`` pairs on byte addresses. Each is checked against
every 16-byte-cell table of PTX ISA §5.5.7 "Swizzling Modes" and CUDA C++ Programming Guide
§10.29.3.2 "The Swizzle Modes" (``tests/ptx/``, ``papers/ptx_swizzles``):

=========================  =========================  ====================  ==============
mode                       XOR pairs                   repeats after         CuTe
=========================  =========================  ====================  ==============
``none``                   —                           (128 B line)          ``Sw<0,4,3>``
``32B``                    4←7                         256 B                 ``Sw<1,4,3>``
``64B``                    4←7, 5←8                    512 B                 ``Sw<2,4,3>``
``96B``                    4←7 (rows are 96 B!)        256 B                 address map only
``128B``                   4←7, 5←8, 6←9               1024 B                ``Sw<3,4,3>``
``128B_atom_32B``          5←7, 6←8                    512 B                 ``Sw<2,5,2>``
``128B_atom_32B_flip_8B``  5←7, 6←8, 3←7               512 B                 none (two)
``128B_atom_64B``          6←7                         256 B                 ``Sw<1,6,1>``
=========================  =========================  ====================  ==============

**Where the algebra stops.**

* *Base offsets* (:func:`buffer_layout`). Relative to a buffer at byte ``base`` the map is
  ``o ↦ swizzled(base + o) − base``. For a 128-byte-aligned base (what TMA requires) with
  ``k = base/128`` and ``n`` source bits it is ``o ↦ o ⊕ T(((o >> 7) + k) mod 2ⁿ)``: linear iff
  ``k ≡ 0 (mod 2ⁿ)``, i.e. the base is aligned to the repeat period; affine iff adding ``k``
  mod ``2ⁿ`` is affine, which holds iff ``n − tz(k) ≤ 2`` (with ``t = tz(k)``, the carry into
  row bit ``t + 2`` is ``y_t ∧ y_{t+1}`` or ``y_t ∨ y_{t+1}``, not an XOR of bits). So
  32B/96B/64B/atom modes are affine at every 128-aligned base, and 128B (n = 3) exactly when
  the base is 256-byte aligned. Other bases are decided by exhaustive check (e.g. 32B at base
  64 is linear; most others leave the buffer).
* *96B* (:func:`swizzle96_cell`): the address map equals 32B's, but a 96B box packs rows of 96
  bytes, and ``row ↦ 96·row`` is not F₂-linear (``96 ⊕ 192 = 160 ≠ 288``); it is modelled on
  (row, 16-byte cell) coordinates by an explicit evaluator, and asking for a linear
  (row, column) layout raises :class:`LayoutError`.
* *CuTe*: ``128B_atom_32B_flip_8B`` is the composition ``Sw<1,3,4> ∘ Sw<2,5,2>`` (its written
  bits 3, 5, 6 are not contiguous), so no single ``Swizzle<B,M,S>`` expresses it. The 96B mode
  has no CuTe form as a tile (its 96-byte rows are not a power-of-two layout), although its
  address map is ``Sw<1,4,3>``. ``128B_atom_64B``, although a sub-mode of 128B, *is* a single
  CuTe swizzle, ``Sw<1,6,1>``: PTX §5.5.7's 64-byte-atomicity table ("0 1 2 3 | 4 5 6 7" /
  "4 5 6 7 | 0 1 2 3", then repeat) swaps the two 64-byte halves of odd lines only, so the one
  address bit 7 flips bit 6.

**Numberings.** The driver's ``CUtensorMapSwizzle``, PTX ``tensormap.replace``'s
``.swizzle_mode``/``.swizzle_atomicity`` fields, and the tcgen05 and wgmma shared-memory
descriptors' layout-type fields all number the modes differently (``1`` is 32B to the driver,
128B with 32-byte atomicity to tcgen05 and 128B to wgmma); :class:`SwizzleMode` keeps each
numbering separate and an int is never accepted as a mode name:

=========================  ====  ==============  ===========  ===========
mode                       CU    PTX mode/atom.  tcgen05      wgmma
=========================  ====  ==============  ===========  ===========
``none``                   0     0 / —           0            0
``32B``                    1     1 / 0           6            3
``64B``                    2     2 / 0           4            2
``96B``                    —     4 / 0           —            —
``128B``                   3     3 / 0           2            1
``128B_atom_32B``          4     3 / 1           1            —
``128B_atom_32B_flip_8B``  5     3 / 2           —            —
``128B_atom_64B``          6     3 / 3           —            —
=========================  ====  ==============  ===========  ===========

Units: names say ``_bytes`` or ``_elems``/``element_bits``; the ``offset`` dims of
:func:`swizzle_layout` and :func:`buffer_layout` are bytes, those of :func:`tma_tile_layout`
and :func:`tcgen05_atom` are elements (``element_bits`` bits each).

**Modules** (everything below is re-exported here: ``from linlayout import ptx`` is enough):

* :mod:`linlayout.ptx.modes` — :class:`SwizzleMode`, :func:`swizzle_mode`, :func:`cute_name`;
* :mod:`linlayout.ptx.addresses` — :func:`swizzled_address`, :func:`swizzle_layout`,
  :func:`address_formula`, :func:`chunk_table`, :func:`format_chunk_table`,
  :func:`base_offset`, :func:`buffer_offset`, the 96B evaluator :func:`swizzle96_address` /
  :func:`swizzle96_cell`;
* :mod:`linlayout.ptx.buffers` — :class:`AffineLayout`, :func:`buffer_layout`;
* :mod:`linlayout.ptx.tma` — :func:`tma_tile_layout`, :func:`tma_layouts`,
  :func:`match_tma_mode`, :func:`tma_matches`, :class:`TmaMatch`;
* :mod:`linlayout.ptx.tcgen05` — :func:`tcgen05_atom`, :data:`TCGEN05_ATOM_SHAPES`.

The XOR-pair arithmetic is shared with :mod:`linlayout.cute` (:func:`linlayout.cute.xor_pairs`,
:func:`~linlayout.cute.apply_xor_pairs`, :func:`~linlayout.cute.xor_pairs_layout`,
:func:`~linlayout.cute.cute_from_xor_pairs`).

**Sources** (public; table numbers differ between releases of these documents, their titles
do not):

* PTX ISA §5.5.7 "Swizzling Modes" (#swizzling-modes): the per-mode tables, Table 14 "Valid
  combination of swizzle-atomicity with swizzling-mode", the repeating-pattern boundaries and
  the base-offset formulas;
* PTX ISA ``tensormap.replace`` (#data-movement-and-conversion-instructions-tensormap-replace):
  the ``.swizzle_mode``/``.swizzle_atomicity`` values; the tcgen05 shared memory descriptor
  (#tcgen05-shared-memory-desc-layout) and wgmma matrix descriptor
  (#asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor) layout-type
  fields;
* PTX ISA §9.7.16.10.6 "Shared Memory Layout and Swizzling": Table 55 "Layout for swizzle
  atoms";
* CUDA C++ Programming Guide §10.29.3.2 "The Swizzle Modes" (#the-swizzle-modes): Table 11
  (offset formula, index relation ``smem[y][((y+offset)%8)^x]``), Table 12 (swizzle width,
  box inner dimension, repeat);
* CUDA driver API: the ``CUtensorMapSwizzle`` enum taken by ``cuTensorMapEncodeTiled``
  (``cuda.h``);
* CUTLASS: ``include/cute/swizzle.hpp`` (``Swizzle<B,M,S>``),
  ``include/cute/arch/mma_sm100_desc.hpp`` (``UMMA::LayoutType``),
  ``include/cute/arch/mma_sm90_desc.hpp`` (``GMMA::LayoutType``),
  ``include/cute/atom/mma_traits_sm90_gmma.hpp`` and ``mma_traits_sm100.hpp`` (the atoms).
"""

from __future__ import annotations

from .addresses import (
    DEFAULT_SIZE_BYTES,
    address_formula,
    base_offset,
    buffer_offset,
    chunk_table,
    format_chunk_table,
    swizzle96_address,
    swizzle96_cell,
    swizzle_layout,
    swizzled_address,
)
from .buffers import AffineLayout, buffer_layout
from .modes import LINE_BYTES, SwizzleMode, cute_name, swizzle_mode
from .tcgen05 import TCGEN05_ATOM_SHAPES, tcgen05_atom
from .tma import (
    MATCH_ORDER,
    MAX_BOX_ELEMS,
    TmaMatch,
    match_tma_mode,
    tma_layouts,
    tma_matches,
    tma_tile_layout,
)

__all__ = [
    "AffineLayout",
    "SwizzleMode",
    "TCGEN05_ATOM_SHAPES",
    "TmaMatch",
    "address_formula",
    "base_offset",
    "buffer_layout",
    "buffer_offset",
    "chunk_table",
    "cute_name",
    "format_chunk_table",
    "match_tma_mode",
    "swizzle96_address",
    "swizzle96_cell",
    "swizzle_layout",
    "swizzle_mode",
    "swizzled_address",
    "tcgen05_atom",
    "tma_matches",
    "tma_tile_layout",
]

#: Public names outside ``__all__``, as before the split: the constants, and
#: :func:`tma_layouts` (used by :mod:`linlayout.synthesis`).
_ALSO_PUBLIC = (DEFAULT_SIZE_BYTES, LINE_BYTES, MATCH_ORDER, MAX_BOX_ELEMS, tma_layouts)
