"""CUTLASS's common MMA and copy atoms as distributed layouts, by name.

Each atom is transcribed from its CUTLASS header (CuTe text below, as ``cute::print`` writes
it) and converted with :func:`linlayout.cute.tv_layout`; ``tests/cute/test_atoms.py`` checks
every one, at every element size it accepts, against the maps NVIDIA's pycute computes
(``tests/data/cute_atoms.json``, written by ``papers/cute_gluon/generate_cute_fixtures.py``).

Names are ``<atom>.<part>``, case-insensitive (so CUTLASS's own spelling works:
``SM75_U32x4_LDSM_N.dst``):

* ``sm80_16x8x16.A`` / ``.B`` / ``.C`` — ``MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>`` (also
  the F32-accumulator and BF16 variants): A on the ``(m, k)`` 16×16 tile, B on ``(n, k)`` 8×16
  (CuTe writes B as N×K), C on ``(m, n)`` 16×8; elements; one warp. Likewise
  ``sm80_16x8x8_tf32``, ``sm80_16x8x32_s8`` and ``sm80_8x8x4_f64`` (the TF32, int8 and FP64
  atoms of CUTLASS's SM80 GEMM configurations).
* ``sm90_64xN.C`` (N = 8, 16, 32, 64, 128, 256) — ``SM90::GMMA::CLayout_64xN``, the
  accumulator of every ``SM90_64xNxK`` wgmma, ``(m, n)``; 128 threads (4 warps).
* ``sm90_64x16.A`` — ``SM90::GMMA::ALayout_64x16``, the register A operand of the RS wgmma
  for 16-bit types, ``(m, k)`` 64×16; 128 threads. ``sm90_64x8.A`` (32-bit types, K = 8) and
  ``sm90_64x32.A`` (8-bit, K = 32) likewise (``ALayout_64x8``, ``ALayout_64x32``).
* ``sm75_u32x{1,2,4}_ldsm_n``, ``sm75_u16x{2,4,8}_ldsm_t`` — ``ldmatrix.x1/.x2/.x4`` and
  their ``.trans`` forms; ``sm90_u32x{1,2,4}_stsm_n``, ``sm90_u16x{2,4,8}_stsm_t`` —
  ``stmatrix``; ``sm80_cp_async_u128`` — ``cp.async`` of 16 bytes
  (``SM80_CP_ASYNC_CACHEALWAYS/CACHEGLOBAL<uint128_t>``). Each has ``.src`` and ``.dst``
  (CUTLASS's ``SrcLayout``/``DstLayout``); the bare name is CUTLASS's ``RefLayout``, the
  register side of ldmatrix/stmatrix.

**Units.** MMA atoms are in elements (any width the instruction takes). Copy atoms are in
**bits** in CUTLASS; ``element_bits`` applies ``upcast<element_bits>`` exactly as
``Copy_Atom<Op, T>`` does (:func:`linlayout.cute.upcast`), so it is required for them. The
ldmatrix/stmatrix tile is the ``8·nmat`` rows of 16 bytes the instruction moves: ``dim0`` is
the element within the 16-byte row, ``dim1`` the row (row ``8j + r`` is row ``r`` of matrix
``j``); CuTe's flat index ``(128 / element_bits)·row + column`` is that tile, column-major.

Source: CUTLASS ``include/cute/atom/mma_traits_sm80.hpp``,
``include/cute/atom/mma_traits_sm90_gmma.hpp`` (``CLayout_64xN``, ``ALayout_64x16``),
``include/cute/atom/copy_traits_sm75.hpp``, ``include/cute/atom/copy_traits_sm90.hpp``
(stmatrix = ldmatrix with ``SrcLayout`` and ``DstLayout`` swapped),
``include/cute/atom/copy_traits_sm80.hpp``; PTX ISA sections "Matrix Fragments for
mma.m16n8k16 with floating point type" (and the m16n8k8 / m16n8k32 / m8n8k4 ones),
"Warp-level matrix load instruction: ldmatrix", "Warp-level matrix store instruction:
stmatrix", "Register Fragments and Shared Memory Matrix Layouts" (wgmma), "cp.async".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._checks import as_int, shown
from ..errors import LayoutError
from ..layout import LinearLayout
from .cutelayout import CuteLayout
from .inttuple import product
from .parse import parse_cute
from .recast import upcast
from .tv import tv_layout

__all__ = ["Atom", "atom", "atom_info", "atom_names", "atoms", "is_atom_name"]


@dataclass(frozen=True)
class Atom:
    """One side of one CUTLASS atom.

    Attributes:
        name: the linlayout name (``"sm80_16x8x16.A"``).
        cutlass: the C++ type it is (``"MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>::ALayout"``).
        layout: the CuTe TV layout text, in ``units``.
        tile_shape: the tile its index runs over, column-major, in ``units``.
        tile_dims: what ``dim0, dim1, …`` mean (``("m", "k")``).
        units: ``"elements"`` or ``"bits"``.
        element_bits: the element widths it accepts (for ``"bits"``: the ``upcast`` it takes).
        header: the CUTLASS header that defines it.
        instruction: the PTX instruction.
        role: what the thread-value map says: ``"registers"`` (what each thread holds) or
            ``"shared-memory rows"`` (whose address each thread supplies).
    """

    name: str
    cutlass: str
    layout: str
    tile_shape: tuple[int, ...]
    tile_dims: tuple[str, ...]
    units: str
    element_bits: tuple[int, ...]
    header: str
    instruction: str
    role: str

    @property
    def threads(self) -> int:
        """Threads of the atom (size of the thread mode)."""
        return product(parse_cute(self.layout).modes()[0][0])

    def cute(self, element_bits: int | None = None) -> CuteLayout:
        """The TV layout, upcast to ``element_bits``-bit elements for a bit-unit atom.

        Raises:
            LayoutError: ``element_bits`` missing for a bit-unit atom, or not one it accepts.
        """
        cl = parse_cute(self.layout)
        bits = self._bits(element_bits)
        return cl if bits is None else upcast(cl, bits)

    def tile(self, element_bits: int | None = None) -> tuple[int, ...]:
        """The tile in elements (for a bit-unit atom, its first dim divided by the width)."""
        bits = self._bits(element_bits)
        if bits is None:
            return self.tile_shape
        return (self.tile_shape[0] // bits,) + self.tile_shape[1:]

    def linear_layout(self, element_bits: int | None = None) -> LinearLayout:
        """The distributed layout (``register, lane, warp -> dim0 …``), see :func:`atom`."""
        return tv_layout(self.cute(element_bits), self.tile(element_bits))

    def _bits(self, element_bits: int | None) -> int | None:
        if element_bits is None:
            if self.units == "bits":
                raise LayoutError(
                    f"{self.name} is in bits (CUTLASS copy traits); give element_bits, one of "
                    f"{list(self.element_bits)}, to recast it as Copy_Atom<Op, T> does"
                )
            return None
        e = as_int(element_bits, "element_bits")
        if e not in self.element_bits:
            raise LayoutError(f"{self.name} takes {list(self.element_bits)}-bit elements, not {e}")
        return e if self.units == "bits" else None


_MMA80 = "include/cute/atom/mma_traits_sm80.hpp"
_GMMA = "include/cute/atom/mma_traits_sm90_gmma.hpp"
_LDSM = "include/cute/atom/copy_traits_sm75.hpp"
_STSM = "include/cute/atom/copy_traits_sm90.hpp"
_CPASYNC = "include/cute/atom/copy_traits_sm80.hpp"


def _catalogue() -> dict[str, Atom]:
    out: list[Atom] = []
    mma = "mma.sync.aligned.m16n8k16.row.col (f16/bf16 inputs)"
    t80 = "MMA_Traits<SM80_16x8x16_F16F16F16F16_TN>"
    out += [
        Atom("sm80_16x8x16.A", f"{t80}::ALayout",
             "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))", (16, 16), ("m", "k"),
             "elements", (16,), _MMA80, mma, "registers"),
        Atom("sm80_16x8x16.B", f"{t80}::BLayout",
             "((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", (8, 16), ("n", "k"),
             "elements", (16,), _MMA80, mma, "registers"),
        Atom("sm80_16x8x16.C", f"{t80}::CLayout (SM80_16x8_Row)",
             "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"),
             "elements", (16, 32), _MMA80, mma, "registers"),
    ]
    more = [  # (name, traits, ptx, {part: (layout, tile, dims, widths)})
        ("sm80_16x8x8_tf32", "MMA_Traits<SM80_16x8x8_F32TF32TF32F32_TN>",
         "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", {
             "A": ("((_4,_8),(_2,_2)):((_16,_1),(_8,_64))", (16, 8), ("m", "k"), (32,)),
             "B": ("((_4,_8),_2):((_8,_1),_32)", (8, 8), ("n", "k"), (32,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (32,))}),
        ("sm80_16x8x32_s8", "MMA_Traits<SM80_16x8x32_S32S8S8S32_TN>",
         "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", {
             "A": ("((_4,_8),(_4,_2,_2)):((_64,_1),(_16,_8,_256))", (16, 32), ("m", "k"), (8,)),
             "B": ("((_4,_8),(_4,_2)):((_32,_1),(_8,_128))", (8, 32), ("n", "k"), (8,)),
             "C": ("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))", (16, 8), ("m", "n"), (32,))}),
        ("sm80_8x8x4_f64", "MMA_Traits<SM80_8x8x4_F64F64F64F64_TN>",
         "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", {
             "A": ("((_4,_8),_1):((_8,_1),_0)", (8, 4), ("m", "k"), (64,)),
             "B": ("((_4,_8),_1):((_8,_1),_0)", (8, 4), ("n", "k"), (64,)),
             "C": ("((_4,_8),_2):((_16,_1),_8)", (8, 8), ("m", "n"), (64,))}),
    ]
    for name, traits, ptx_ins, parts in more:
        for part, (text, tile, dims, widths) in parts.items():
            out.append(Atom(f"{name}.{part}", f"{traits}::{part}Layout", text, tile, dims,
                            "elements", widths, _MMA80, ptx_ins, "registers"))
    for n in (8, 16, 32, 64, 128, 256):
        out.append(Atom(
            f"sm90_64x{n}.C", f"SM90::GMMA::CLayout_64x{n}",
            f"((_4,_8,_4),(_2,_2,_{n // 8})):((_128,_1,_16),(_64,_8,_512))", (64, n),
            ("m", "n"), "elements", (16, 32), _GMMA,
            f"wgmma.mma_async.sync.aligned.m64n{n}k* (accumulator)", "registers"))
    for k, bits, text in ((8, 32, "((_4,_8,_4),(_2,_2)):((_64,_1,_16),(_8,_256))"),
                          (16, 16, "((_4,_8,_4),(_2,_2,_2)):((_128,_1,_16),(_64,_8,_512))"),
                          (32, 8, "((_4,_8,_4),(_4,_2,_2)):((_256,_1,_16),(_64,_8,_1024))")):
        out.append(Atom(
            f"sm90_64x{k}.A", f"SM90::GMMA::ALayout_64x{k}", text, (64, k), ("m", "k"),
            "elements", (bits,), _GMMA,
            f"wgmma.mma_async.sync.aligned.m64nNk{k} (A from registers, {bits}-bit)",
            "registers"))
    ldsm = {  # nmat: (SrcLayout = smem rows, DstLayout = registers), bits
        ("u32", 1): ("((_8,_4),_128):((_128,_0),_1)", "(_32,_32):(_32,_1)"),
        ("u32", 2): ("((_16,_2),_128):((_128,_0),_1)", "(_32,(_32,_2)):(_32,(_1,_1024))"),
        ("u32", 4): ("(_32,_128):(_128,_1)", "(_32,(_32,_4)):(_32,(_1,_1024))"),
        ("u16", 1): ("((_8,_4),_128):((_128,_0),_1)",
                     "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))"),
        ("u16", 2): ("((_16,_2),_128):((_128,_0),_1)",
                     "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))"),
        ("u16", 4): ("(_32,_128):(_128,_1)",
                     "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))"),
    }
    for (kind, nmat), (rows, regs) in ldsm.items():
        trans = kind == "u16"
        count = nmat * (2 if trans else 1)
        suffix = "t" if trans else "n"
        bits = (16,) if trans else (8, 16, 32)
        tile, dims = (128, 8 * nmat), ("column", "row")
        ptx = ".trans" if trans else ""
        ld = f"SM75_{kind.upper()}x{count}_LDSM_{suffix.upper()}"
        st = f"SM90_{kind.upper()}x{count}_STSM_{suffix.upper()}"
        ld_ins = f"ldmatrix.sync.aligned.m8n8.x{nmat}{ptx}.shared.b16"
        st_ins = f"stmatrix.sync.aligned.m8n8.x{nmat}{ptx}.shared.b16"
        out += [
            Atom(f"{ld.lower()}.src", f"Copy_Traits<{ld}>::SrcLayout", rows, tile, dims,
                 "bits", bits, _LDSM, ld_ins, "shared-memory rows"),
            Atom(f"{ld.lower()}.dst", f"Copy_Traits<{ld}>::DstLayout", regs, tile, dims,
                 "bits", bits, _LDSM, ld_ins, "registers"),
            Atom(f"{st.lower()}.src", f"Copy_Traits<{st}>::SrcLayout", regs, tile, dims,
                 "bits", bits, _STSM, st_ins, "registers"),
            Atom(f"{st.lower()}.dst", f"Copy_Traits<{st}>::DstLayout", rows, tile, dims,
                 "bits", bits, _STSM, st_ins, "shared-memory rows"),
        ]
    cp = "(_1,_128):(_0,_1)"
    cp_ins = "cp.async.ca/.cg.shared.global [dst], [src], 16"
    for side in ("src", "dst"):
        out.append(Atom(f"sm80_cp_async_u128.{side}",
                        f"Copy_Traits<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>>::"
                        f"{side.capitalize()}Layout (and CACHEGLOBAL)",
                        cp, (128,), ("element",), "bits", (8, 16, 32, 64, 128), _CPASYNC,
                        cp_ins, "registers" if side == "src" else "shared memory"))
    return {a.name.lower(): a for a in out}


_ATOMS = _catalogue()
#: Bare copy-atom names: CUTLASS's RefLayout (the register side).
_REF = {**{n.rsplit(".", 1)[0]: n for n in _ATOMS if "_ldsm_" in n and n.endswith(".dst")},
        **{n.rsplit(".", 1)[0]: n for n in _ATOMS if "_stsm_" in n and n.endswith(".src")},
        "sm80_cp_async_u128": "sm80_cp_async_u128.src"}


def atom_names() -> list[str]:
    """Every atom name :func:`atom` accepts (without the bare copy-atom aliases), sorted.

    Example::

        >>> [n for n in atom_names() if n.startswith("sm80_16x8x16")]
        ['sm80_16x8x16.A', 'sm80_16x8x16.B', 'sm80_16x8x16.C']
    """
    return sorted(a.name for a in _ATOMS.values())


def atoms() -> list[Atom]:
    """Every :class:`Atom`, sorted by name."""
    return [_ATOMS[n.lower()] for n in atom_names()]


def atom_info(name: Any) -> Atom:
    """The :class:`Atom` called ``name`` (case-insensitive; a bare copy-atom name is its
    register side).

    Raises:
        LayoutError: an unknown name (the message lists close matches and how to list all).
    """
    if not isinstance(name, str):
        raise LayoutError(f"an atom name is a string, got {type(name).__name__}")
    key = name.strip().lower()
    key = _REF.get(key, key)
    if key in _ATOMS:
        return _ATOMS[key]
    stem = key.split(".")[0]
    close = [a.name for k, a in _ATOMS.items() if k.startswith(stem[:6])][:6]
    hint = f"; close: {', '.join(close)}" if close else ""
    raise LayoutError(f"unknown CuTe atom {shown(name)}{hint} (linlayout.cute.atom_names() lists "
                      "them all)")


def is_atom_name(name: Any) -> bool:
    """True when :func:`atom_info` knows ``name``."""
    if not isinstance(name, str):
        return False
    key = name.strip().lower()
    return _REF.get(key, key) in _ATOMS


def atom(name: str, element_bits: int | None = None) -> LinearLayout:
    """A CUTLASS atom's thread-value layout as a linlayout distributed layout.

    Args:
        name: an atom name (module docstring), e.g. ``"sm80_16x8x16.A"``,
            ``"sm75_u32x4_ldsm_n"``.
        element_bits: the element width; required for copy atoms (CUTLASS defines them in
            bits and ``Copy_Atom<Op, T>`` upcasts by ``sizeof_bits<T>``); optional for MMA
            atoms (checked against the widths the instruction takes when given).

    Returns:
        ``register, lane, warp -> dim0, dim1, …`` over the atom's tile (:attr:`Atom.tile`,
        dims as :attr:`Atom.tile_dims`).

    Raises:
        LayoutError: an unknown name, or a missing or unsupported ``element_bits``.

    Example::

        >>> atom("sm80_16x8x16.C").bases["register"]
        [[0, 1], [8, 0]]
        >>> atom("sm75_u32x4_ldsm_n", element_bits=16).bases["lane"]
        [[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]]
    """
    return atom_info(name).linear_layout(element_bits)
