"""CuTe (CUTLASS) layouts in and out of linlayout.

Read CuTe's printed layouts — ``(_64,_64):(_64,_1)``, ``((_8,_8),_64):((_64,_512),_1)``,
``Sw<3,4,3> o _0 o (_8,_64):(_64,_1)``, ``Sw<3,4,3> o smem_ptr[16b](unset) o …``, pycute's
``SW_3_4_3 o 0 o (8, 64):(64, 1)`` — as linlayout layouts, and write linlayout's shared-memory
layouts back as CuTe text::

    >>> from linlayout import cute
    >>> M = cute.parse_layout("Sw<3,3,3> o _0 o (_8,_64):(_64,_1)")     # offset -> (row, col)
    >>> M.apply({"offset": 64})
    {'dim0': 1, 'dim1': 8}
    >>> cute.to_cute(M)
    'Sw<3,3,3> o _0 o (_8,_64):(_64,_1)'
    >>> cute.atom("sm80_16x8x16.C").bases["lane"]                      # mma.sync accumulator
    [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]

Conventions. A CuTe layout maps a coordinate to an offset; a linlayout *memory* layout maps an
offset (in dim ``offset``, the CuTe layout's units, usually elements) to the coordinate stored
there (out dims ``dim0, dim1, …``, one per top-level mode; a hierarchical mode's coordinate is
CuTe's colexicographic 1-D index of that mode). A CuTe *thread-value* layout
``(thread, value) -> column-major tile index`` becomes a distributed layout: thread bits
``lane`` then ``warp``, value bits ``register``. Only F₂-linear layouts convert: power-of-two
shapes and strides whose bits never carry into each other; every refusal is a
:class:`~linlayout.LayoutError` naming the mode and the reason.

Modules, one job each:

* :mod:`~linlayout.cute.swizzle` — ``Swizzle<B,M,S>`` as a layout and back, and the XOR-pair
  helpers :mod:`linlayout.ptx` shares;
* :mod:`~linlayout.cute.inttuple` — shapes and strides (``IntTuple``), colexicographic
  coordinates;
* :mod:`~linlayout.cute.cutelayout` — :class:`CuteLayout`, one CuTe layout as a value
  (evaluation, printing, the pointer-flag byte swizzle);
* :mod:`~linlayout.cute.parse` — :func:`parse_cute`: CuTe and pycute text, pycute objects;
* :mod:`~linlayout.cute.bits` — the F₂ view: what each coordinate bit adds;
* :mod:`~linlayout.cute.memory` — :func:`parse_layout` (memory layouts), :func:`index_layout`;
* :mod:`~linlayout.cute.tv` — :func:`tv_layout`, :func:`tiled_tv_layout` (``make_tiled_copy``);
* :mod:`~linlayout.cute.recast` — :func:`upcast` (copy atoms are in bits);
* :mod:`~linlayout.cute.tile` — :func:`tile_to_shape` (an atom repeated over a tile);
* :mod:`~linlayout.cute.algebra` — CuTe's layout algebra on the power-of-two subset:
  :func:`coalesce`, :func:`complement`, :func:`composition`, :func:`logical_divide`,
  :func:`zipped_divide`, :func:`tiled_divide`, :func:`flat_divide`, :func:`logical_product`,
  :func:`zipped_product`, :func:`tiled_product`, :func:`flat_product`,
  :func:`blocked_product`, :func:`raked_product`, :func:`size`, :func:`cosize`,
  :func:`rank`, :func:`depth`, :func:`downcast` (checked against pycute);
* :mod:`~linlayout.cute.atoms` — CUTLASS's MMA, copy and shared-memory atoms (SM70 to
  SM120, tcgen05, TMA boxes) and AMD's MFMA/WMMA operands by name: :func:`atom`,
  :func:`atom_names`;
* :mod:`~linlayout.cute.read` — :func:`read_layout`: an atom name, ``… on MxN`` or
  shared-memory text, as the command line reads its layout arguments;
* :mod:`~linlayout.cute.convert` — :func:`to_cute`: a memory layout as the shortest
  ``Sw<B,M,S> o _0 o shape:stride``.

Limits: at most 2^24 elements and 32 levels of nesting; the ``linlayout`` command accepts CuTe
text and atom names wherever it takes a layout file.
"""

from .algebra import (
    NotPowerOfTwoError,
    blocked_product,
    coalesce,
    complement,
    composition,
    cosize,
    depth,
    downcast,
    flat_divide,
    flat_product,
    logical_divide,
    logical_product,
    rank,
    raked_product,
    size,
    tiled_divide,
    tiled_product,
    zipped_divide,
    zipped_product,
)
from .atoms import Atom, atom, atom_info, atom_names, atoms, is_atom_name
from .bits import coordinate_images
from .convert import NoCuteFormError, to_cute, to_cute_layout
from .cutelayout import CuteLayout
from .inttuple import MAX_DEPTH, MAX_ELEMENTS
from .memory import byte_swizzle_hint, index_layout, parse_layout
from .parse import from_pycute, parse_cute
from .read import read_layout
from .recast import upcast
from .swizzle import (
    IDENTITY,
    XorPairs,
    apply_xor_pairs,
    check_swizzle,
    cute_from_xor_pairs,
    cute_swizzle,
    cute_swizzle_offset,
    format_cute_swizzle,
    parse_cute_swizzle,
    to_cute_swizzle,
    xor_pairs,
    xor_pairs_layout,
)
from .tile import tile_to_shape
from .tv import tiled_tv_layout, tv_layout

__all__ = [
    "Atom",
    "CuteLayout",
    "IDENTITY",
    "MAX_DEPTH",
    "MAX_ELEMENTS",
    "NoCuteFormError",
    "NotPowerOfTwoError",
    "XorPairs",
    "apply_xor_pairs",
    "atom",
    "atom_info",
    "atom_names",
    "atoms",
    "blocked_product",
    "byte_swizzle_hint",
    "check_swizzle",
    "coalesce",
    "complement",
    "composition",
    "coordinate_images",
    "cosize",
    "cute_from_xor_pairs",
    "cute_swizzle",
    "cute_swizzle_offset",
    "depth",
    "downcast",
    "flat_divide",
    "flat_product",
    "format_cute_swizzle",
    "from_pycute",
    "index_layout",
    "is_atom_name",
    "logical_divide",
    "logical_product",
    "parse_cute",
    "parse_cute_swizzle",
    "parse_layout",
    "raked_product",
    "read_layout",
    "rank",
    "size",
    "tile_to_shape",
    "tiled_divide",
    "tiled_product",
    "tiled_tv_layout",
    "to_cute",
    "to_cute_layout",
    "to_cute_swizzle",
    "tv_layout",
    "upcast",
    "xor_pairs",
    "xor_pairs_layout",
    "zipped_divide",
    "zipped_product",
]
