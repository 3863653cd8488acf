"""The swizzle seen from a buffer: when is ``o ↦ swizzled(base + o) − base`` F₂-affine?

:func:`buffer_layout` answers for any base (closed form for 128-byte-aligned bases, checked
against every offset) and returns an :class:`AffineLayout` — a :class:`LinearLayout` plus a
constant — or raises :class:`LayoutError` saying which offset breaks affinity and which
alignment fixes it. Offsets are in **bytes**.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .._checks import as_int, log2_exact, shown
from ..cute import apply_xor_pairs
from ..errors import LayoutError
from ..layout import LinearLayout
from .addresses import DEFAULT_SIZE_BYTES, base_offset
from .modes import LINE_BYTES, SwizzleMode, swizzle_mode

__all__ = ["MAX_BUFFER_BYTES", "AffineLayout", "buffer_layout"]


@dataclass(frozen=True)
class AffineLayout:
    """An F₂-affine map ``x ↦ linear(x) ⊕ constant``.

    Attributes:
        linear: the linear part, a :class:`LinearLayout`.
        constant: the image of 0: one int per out dim of ``linear``, in out-dim order (the
            same shape as one basis image).

    ``apply`` and ``apply_flat`` evaluate the map; :attr:`is_linear` is ``constant`` all
    zero. :func:`buffer_layout` returns one: a swizzle seen from a buffer whose base is not
    aligned to the repeat period is, at best, affine.

    Raises (constructor):
        LayoutError: ``linear`` is not a LinearLayout, or ``constant`` has the wrong length or a
            value outside its out dim.

    Example::

        >>> a = buffer_layout("32B", 128, 256)
        >>> a.constant, a.apply({"offset": 0}), a.is_linear
        ((16,), {'offset': 16}, False)

    Source: PTX ISA §5.5.7 (base offsets), as :func:`buffer_layout`.
    """

    linear: LinearLayout
    constant: tuple[int, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.linear, LinearLayout):
            raise LayoutError(f"linear must be a LinearLayout, got {type(self.linear).__name__}")
        if isinstance(self.constant, (str, bytes)) or not isinstance(self.constant, Iterable):
            raise LayoutError(f"constant must be a tuple of ints, got {shown(self.constant)}")
        const = tuple(as_int(c, "constant entry") for c in self.constant)
        outs = self.linear.out_dims
        if len(const) != len(outs):
            raise LayoutError(
                f"constant {const} needs one int per out dim {list(outs)}"
            )
        for v, (name, size) in zip(const, outs.items()):
            if v < 0 or v >= size:
                raise LayoutError(f"constant {v} for out dim {shown(name)} is outside [0, {size})")
        object.__setattr__(self, "constant", const)

    @property
    def is_linear(self) -> bool:
        """True when the constant is zero (the map is linear)."""
        return not any(self.constant)

    def _flat_constant(self) -> int:
        flat, s = 0, 0
        for v, size in zip(self.constant, self.linear.out_dims.values()):
            flat |= v << s
            s += size.bit_length() - 1
        return flat

    def apply_flat(self, x: int) -> int:
        """Evaluate on a flat input (in dims concatenated); returns the flat output."""
        return self.linear.apply_flat(x) ^ self._flat_constant()

    def apply(self, inputs: Mapping[str, int]) -> dict[str, int]:
        """Evaluate at one point: ``linear.apply(inputs)`` XOR ``constant``, per out dim.

        Raises:
            LayoutError: as :meth:`LinearLayout.apply`.
        """
        out = self.linear.apply(inputs)
        return {n: v ^ c for (n, v), c in zip(out.items(), self.constant)}

    def to_dict(self) -> dict[str, Any]:
        """``{"linear": {"bases", "out_dims"}, "constant": [...]}`` (JSON-ready)."""
        return {"linear": self.linear.to_dict(), "constant": list(self.constant)}

    def __str__(self) -> str:
        consts = ", ".join(f"{n}={c}" for n, c in zip(self.linear.out_dim_names, self.constant))
        return f"{self.linear}\nthen XOR the constant ({consts})"


def _affine_alignment(m: SwizzleMode) -> int:
    """Base alignment that makes the buffer map affine, for 128-aligned bases."""
    n = len({s for _, s in m.xor_pairs})
    return LINE_BYTES << max(0, n - 2)


#: Default limit of :func:`buffer_layout`'s ``size_bytes`` (it evaluates every offset): 16 MiB,
#: far above any GPU's shared memory (228 KiB per SM on Hopper and Blackwell).
MAX_BUFFER_BYTES = 1 << 24


def buffer_layout(mode: Any, base: int, size_bytes: int = DEFAULT_SIZE_BYTES, *,
                  limit: int | None = None) -> AffineLayout:
    """The swizzle seen from a buffer at byte ``base``: buffer offset -> swizzled buffer offset.

    The map is ``f(o) = swizzled_address(mode, base + o) − base`` on ``o`` in
    ``[0, size_bytes)`` (bytes). When is it F₂-affine? For a 128-byte-aligned base
    (TMA requires 128-byte alignment, CUDA guide §10.29.3.2) write ``k = base / 128`` and let
    ``n`` be the number of source bits of the mode (1 for 32B/96B/128B_atom_64B, 2 for 64B
    and the 32-byte-atom modes, 3 for 128B). Then ``f(o) = o ⊕ T(((o >> 7) + k) mod 2ⁿ)``
    with ``T`` linear — the CUDA guide's ``smem[y][((y + offset) % 8) ^ x]``. So

    * ``f`` is **linear** iff ``k ≡ 0 (mod 2ⁿ)``: the base is aligned to the repeat period;
    * ``f`` is **affine** iff ``y ↦ y + k (mod 2ⁿ)`` is, i.e. iff ``n − tz(k) ≤ 2`` (``tz`` =
      trailing zeros): the carry into row bit ``tz(k) + 2`` is an AND or OR of row bits. That
      holds at every 128-aligned base for all modes except 128B, which is affine exactly when
      the base is 256-byte aligned (e.g. base 128: rows run 1,2,…,7,0 and ``3 = 1 + 2`` has a
      carry that XOR cannot express);
    * bases that are not 128-byte aligned are decided exactly by evaluating every offset:
      usually swizzled offsets leave the buffer (the 128-byte lines straddle its start), a few
      stay affine (e.g. 32B at base 64: the carry into bit 7 is ``o₆``, which is linear).

    The answer is periodic in ``base`` with the mode's repeat period.

    Args:
        mode: a swizzle mode (96B: its address map, equal to 32B's).
        base: the buffer's absolute shared-memory byte address (non-negative).
        size_bytes: buffer size, a power of two (default 1024: one 128B repeat period).
        limit: the largest ``size_bytes`` accepted (default :data:`MAX_BUFFER_BYTES`): every
            offset is evaluated, so the cost is linear in the size.

    Returns:
        :class:`AffineLayout` with in dim ``offset`` (bytes) -> out dim ``offset`` (bytes);
        its ``constant`` is ``(0,)`` exactly when the map is linear. Verified against
        :func:`buffer_offset` on every offset before it is returned.

    Raises:
        LayoutError: unknown mode, negative base, bad size, a size over ``limit``; or the map is not F₂-affine on
            ``[0, size_bytes)`` — the message gives the offending offset, the reason and the
            alignment that fixes it.

    Source: PTX ISA §5.5.7 (base offset formulas), CUDA C++ Programming Guide §10.29.3.2
    Table 11 (index relation ``((y+offset)%8)^x``); the characterisation above is ours and is
    checked against brute force over every offset and every base in ``tests/ptx/test_buffers.py``.

    Example::

        >>> buffer_layout("128B", 1024).is_linear
        True
        >>> buffer_layout("128B", 512).constant      # base offset 4: rows start at phase 4
        (64,)
    """
    m = swizzle_mode(mode)
    b = as_int(base, "base")
    if b < 0:
        raise LayoutError(f"base must be a non-negative byte address, got {b}")
    n = log2_exact(size_bytes, "size_bytes")
    size = 1 << n
    limit = MAX_BUFFER_BYTES if limit is None else as_int(limit, "limit")
    if size > limit:
        raise LayoutError(
            f"buffer_layout evaluates every offset: size_bytes = {size} (2^{n}) is over the "
            f"limit of {limit} bytes (pass limit= to go on); the closed form is above: at a "
            f"base aligned to {m.repeat_bytes} bytes the map is swizzle_layout({shown(m.value)}, "
            "size_bytes), and buffer_offset() gives single offsets at any base")
    pairs = m.xor_pairs
    vals = [apply_xor_pairs(pairs, b + o) - b for o in range(size)]
    for o, v in enumerate(vals):
        if not 0 <= v < size:
            raise LayoutError(
                f"with base {b} the {m.value} swizzle moves buffer offset {o} to {v}, outside "
                f"the buffer [0, {size}): the pattern's 128-byte lines straddle the buffer's "
                f"{'start' if v < 0 else 'end'}, so no map on the buffer exists; align the base "
                f"to 128 bytes (TMA requires it) or use buffer_offset() for the exact values"
            )
    c = vals[0]
    cols = [vals[1 << i] ^ c for i in range(n)]
    # Evaluate the candidate affine map on every offset (Gray-code order, one XOR each).
    pred = [c] * size
    for o in range(1, size):
        low = (o & -o).bit_length() - 1
        pred[o] = pred[o & (o - 1)] ^ cols[low]
    if pred != vals:
        o = next(i for i in range(size) if pred[i] != vals[i])
        bits = [1 << i for i in range(n) if o >> i & 1]
        hint = ""
        if b % LINE_BYTES == 0:
            hint = (f"; base offset {base_offset(m, b)} is added to the line index with carries "
                    f"(CUDA guide Table 11: ((y + offset) % {m.base_modulus}) ^ x); align the "
                    f"base to {_affine_alignment(m)} bytes for an affine map or "
                    f"{m.repeat_bytes} bytes for a linear one")
        raise LayoutError(
            f"the {m.value} swizzle seen from base {b} is not F2-affine: offset {o} = "
            f"{' ⊕ '.join(map(str, bits))} maps to {vals[o]}, but an affine map would give "
            f"{pred[o]} (from f(0) = {c} and the images of the single bits){hint}; use "
            "buffer_offset() for the exact values"
        )
    lin = LinearLayout.from_columns(cols, {"offset": size}, {"offset": size})
    return AffineLayout(lin, (c,))
