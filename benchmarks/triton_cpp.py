"""Triton 3.9's own C++ swizzle synthesis, called through ctypes — for benchmarks only.

Triton's wheel has no Python binding for ``optimalSwizzlingLdSt`` or ``optimalSwizzling``
(``lib/Tools/GenericSwizzling.cpp``), but ``libtriton.so`` exports both, and its
``LinearLayout`` binding (``triton._C.libtriton.linear_layout``, nanobind) builds the C++
``mlir::triton::LinearLayout`` objects they take. :class:`TritonSwizzling` finds the
exported symbols, takes the C++ object out of a nanobind instance (stored inline, at the
offset written right after the Python object header) and calls:

* ``optimalSwizzlingLdSt(src, dst, bitwidth, numBanks=32, {}, {})`` — what Triton 3.9's
  ``convert_layout`` lowering calls for an ``ld/st.shared`` round trip;
* ``optimalSwizzling(src, dst, srcTiles, dstTiles, bitwidth)`` with the tiles
  ``getSrcDstTiles(targetInfo, bitwidth, …)`` returns for an NVIDIA target that supports
  ``ldmatrix`` and ``stmatrix`` (sm_90): the search over ``ld.shared``/``ldmatrix``/
  ``stmatrix`` tiles. The target is a stand-in object whose virtual table answers True to
  the two capability queries ``getSrcDstTiles`` makes.

Every call of the harness is one C++ call plus the ctypes overhead (about a microsecond);
the layouts are converted to Triton's before timing. It depends on the Itanium C++ ABI of
x86-64 Linux and on Triton 3.9's struct layouts (``LocalMemOpTile``: three
``SmallVector<int32_t>``); :func:`load` returns None, with the reason, when anything is
missing. This file is never imported by the package.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

#: Mangled names in libtriton.so (Triton 3.9, x86-64).
SYMBOLS = {
    "ldst": ("_ZN4mlir6triton3gpu20optimalSwizzlingLdStERKNS0_12LinearLayoutES4_ii"
             "NS1_14LocalMemOpTileES5_"),
    "tiles": ("_ZN4mlir6triton3gpu16optimalSwizzlingERKNS0_12LinearLayoutES4_N4llvm8ArrayRef"
              "INS1_14LocalMemOpTileEEES8_i"),
    "src_dst_tiles": "_ZN4mlir6triton3gpu14getSrcDstTilesERKNS0_14TargetInfoBaseEib",
    "move_assign": "_ZN4mlir6triton12LinearLayoutaSEOS1_",
    "destroy": "_ZN4mlir6triton12LinearLayoutD2Ev",
}
#: sizeof(llvm::SmallVector<int32_t>) (header + 12 inline ints) and of LocalMemOpTile.
SMALLVEC_BYTES = 64
TILE_BYTES = 3 * SMALLVEC_BYTES
#: Bytes reserved for a returned LinearLayout / pair<LinearLayout, pair<int,int>> (more
#: than sizeof; the C++ object is moved out and destroyed after each call).
RESULT_BYTES = 1024
#: Virtual-table slots of the target-info stand-in (byte offsets 0xd8 and 0xe0 are the
#: capability queries getSrcDstTiles makes).
VTABLE_SLOTS = 64


class ArrayRef(ctypes.Structure):
    """llvm::ArrayRef<T>: a pointer and a length, passed by value."""

    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def _empty_tile() -> ctypes.Array:
    """A default-constructed LocalMemOpTile: three empty SmallVectors (BeginX pointing at
    their own inline storage, size 0, capacity 12)."""
    buf = (ctypes.c_char * TILE_BYTES)()
    base = ctypes.addressof(buf)
    for i in range(3):
        at = base + i * SMALLVEC_BYTES
        ctypes.c_void_p.from_address(at).value = at + 16
        ctypes.c_uint32.from_address(at + 8).value = 0
        ctypes.c_uint32.from_address(at + 12).value = 12
    return buf


class TritonSwizzling:
    """Triton 3.9's C++ ``optimalSwizzlingLdSt`` / ``optimalSwizzling`` on linlayout layouts."""

    def __init__(self, lib: ctypes.CDLL, ll_cls: Any) -> None:
        self.ll_cls = ll_cls
        self._ldst = lib[SYMBOLS["ldst"]]
        self._ldst.restype = None
        self._ldst.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                               ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
        self._tiles = lib[SYMBOLS["tiles"]]
        self._tiles.restype = None
        self._tiles.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ArrayRef,
                                ArrayRef, ctypes.c_int]
        self._src_dst = lib[SYMBOLS["src_dst_tiles"]]
        self._src_dst.restype = None
        self._src_dst.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_bool]
        self._move = lib[SYMBOLS["move_assign"]]
        self._move.restype = ctypes.c_void_p
        self._move.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self._destroy = lib[SYMBOLS["destroy"]]
        self._destroy.restype = None
        self._destroy.argtypes = [ctypes.c_void_p]
        self._result = (ctypes.c_char * RESULT_BYTES)()
        # a target-info stand-in: [vptr][computeCapability][ptxVersion]; every virtual slot
        # answers True (getSrcDstTiles asks only whether ldmatrix / stmatrix are supported)
        self._yes = ctypes.CFUNCTYPE(ctypes.c_bool, ctypes.c_void_p)(lambda this: True)
        self._vtable = (ctypes.c_void_p * VTABLE_SLOTS)(
            *[ctypes.cast(self._yes, ctypes.c_void_p).value] * VTABLE_SLOTS)
        self._target = (ctypes.c_char * 64)()
        ctypes.c_void_p.from_address(ctypes.addressof(self._target)).value = \
            ctypes.addressof(self._vtable)
        ctypes.c_int.from_address(ctypes.addressof(self._target) + 8).value = 90
        ctypes.c_int.from_address(ctypes.addressof(self._target) + 12).value = 87
        self._tile_cache: dict[int, tuple] = {}

    # ------------------------------------------------------------------------------ layouts
    def convert(self, layout: Any) -> Any:
        """A linlayout distributed LinearLayout as Triton's (nanobind) LinearLayout, with
        every in dim Triton's code looks up (``register, lane, warp, block``; size 1 when
        the layout has none) and without broadcast (zero) register bases, which Triton's
        lowering removes before it synthesizes (``actionRemoveBroadcastedRegs``)."""
        names = list(layout.out_dim_names)
        dims = ["register", "lane", "warp", "block"]
        bases = {d: [list(v) for v in layout.bases.get(d, [])] for d in dims}
        bases["register"] = [v for v in bases["register"] if any(v)]
        return self.ll_cls.from_bases(
            bases=[(d, bases[d]) for d in dims],
            out_dim_names=names, out_dim_sizes=[layout.out_dims[n] for n in names],
            require_surjective=False)

    @staticmethod
    def pointer(tri: Any) -> int:
        """The C++ LinearLayout inside a nanobind instance: nanobind stores it inline, at
        the offset the int32 after the Python object header gives."""
        return id(tri) + ctypes.c_int32.from_address(id(tri) + 16).value

    def _take(self) -> Any:
        """The LinearLayout the last call returned, moved into a new Python object."""
        out = self.ll_cls()
        self._move(self.pointer(out), ctypes.addressof(self._result))
        self._destroy(ctypes.addressof(self._result))
        return out

    # ------------------------------------------------------------------------------ calls
    def ldst(self, src: Any, dst: Any, bitwidth: int, keep: bool = False) -> Any:
        """``optimalSwizzlingLdSt(src, dst, bitwidth)`` on converted layouts; the shared
        layout when ``keep``, else None (the C++ result is destroyed)."""
        a, b = _empty_tile(), _empty_tile()
        self._ldst(ctypes.addressof(self._result), self.pointer(src), self.pointer(dst),
                   bitwidth, 32, ctypes.addressof(a), ctypes.addressof(b))
        if keep:
            return self._take()
        self._destroy(ctypes.addressof(self._result))
        return None

    def tiles(self, bitwidth: int) -> tuple:
        """``getSrcDstTiles`` for sm_90 (ld/st.shared, ldmatrix, stmatrix), cached per width:
        ``(buffer, src ArrayRef, dst ArrayRef)``."""
        got = self._tile_cache.get(bitwidth)
        if got is None:
            buf = (ctypes.c_char * 2048)()
            self._src_dst(ctypes.addressof(buf), ctypes.addressof(self._target), bitwidth, False)
            base = ctypes.addressof(buf)
            # pair<SmallVector<LocalMemOpTile, 1>, SmallVector<LocalMemOpTile, 1>>
            one = 16 + TILE_BYTES
            refs = []
            for k in range(2):
                at = base + k * one
                refs.append(ArrayRef(ctypes.c_void_p.from_address(at).value,
                                     ctypes.c_uint32.from_address(at + 8).value))
            got = self._tile_cache[bitwidth] = (buf, refs[0], refs[1])
        return got

    def with_tiles(self, src: Any, dst: Any, bitwidth: int, keep: bool = False) -> Any:
        """``optimalSwizzling(src, dst, srcTiles, dstTiles, bitwidth)`` with sm_90's tiles."""
        _, s, d = self.tiles(bitwidth)
        self._tiles(ctypes.addressof(self._result), self.pointer(src), self.pointer(dst), s, d,
                    bitwidth)
        if keep:
            return self._take()
        self._destroy(ctypes.addressof(self._result))
        return None


def load() -> tuple[TritonSwizzling | None, str]:
    """The harness, or None and why not (no Triton, another ABI, a missing symbol)."""
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        return None, "the ctypes harness needs x86-64 Linux (Itanium C++ ABI)"
    try:
        import triton
        from triton._C.libtriton import linear_layout
    except Exception as exc:  # noqa: BLE001 - any import failure means: not measured
        return None, f"`import triton` failed ({type(exc).__name__})"
    version = getattr(triton, "__version__", "?")
    if not version.startswith("3.9"):
        return None, f"triton {version} (the harness knows 3.9's struct layouts only)"
    path = os.path.join(os.path.dirname(triton.__file__), "_C", "libtriton.so")
    try:
        lib = ctypes.CDLL(path)
        return TritonSwizzling(lib, linear_layout.LinearLayout), \
            f"triton {version} C++ (libtriton.so through ctypes)"
    except (OSError, AttributeError) as exc:
        return None, f"libtriton.so symbols not found ({exc})"
