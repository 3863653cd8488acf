"""Size limits of the Triton text reader (:mod:`linlayout.triton.parse` and the TTGIR reader).

Every limit sits far above real Triton output and keeps hostile text cheap: nesting stays
below Python's recursion limit, alias chains cannot multiply work, integers cannot reach the
interpreter's int-to-str digit limit, and error messages quote bounded excerpts. Each
violation raises :class:`linlayout.LayoutError` naming the limit.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import LayoutError
from .encodings.registry import MAX_LAYOUT_DEPTH, clip, layout_depth

__all__ = ["MAX_ALIASES", "MAX_FILE_BYTES", "MAX_INT_DIGITS", "MAX_LAYOUT_DEPTH", "MAX_NAME_CHARS",
           "MAX_MODULE_LINES", "MAX_NESTING", "MAX_OPS", "MAX_REGION_NESTING",
           "MAX_OP_RESULTS", "MAX_PARTITION_WARPS", "MAX_SUGGEST_ACCESSES", "MAX_SUGGEST_BYTES",
           "MAX_TYPE_ELEMENTS", "clip",
           "int_token", "layout_depth", "mlir_int", "result_count"]

#: Deepest nesting of ``[…]``, ``{…}`` and attributes inside one attribute or type. Triton's
#: deepest real attribute (a slice of a dot operand of an mma layout, with list-of-list bases)
#: nests about 6 levels; deeper text is refused before Python's recursion limit is reached.
MAX_NESTING = 32
# MAX_LAYOUT_DEPTH (longest chain of layouts inside layouts), layout_depth and clip live in
# linlayout.triton.encodings.registry, whose parent checks use them; they are re-exported here.
#: Longest name (attribute, key, alias, element type) accepted; real ones are under 40.
MAX_NAME_CHARS = 256
#: Most elements one tensor or memdesc type may have (its shape's product): 2^24. A GPU's
#: shared memory (at most 228 KiB) and a CTA's registers (64K 32-bit) hold at most 2^19
#: elements; the layout search of ``linlayout check`` grows with the log of each dimension
#: (about 1 s per buffer at 2^20, 15 s at 2^32), so far larger types are refused.
MAX_TYPE_ELEMENTS = 1 << 24
#: Largest TTGIR file read, in bytes (128 MiB). ``MLIR_ENABLE_DUMP`` output of a large kernel,
#: every pass's IR in one file, runs to tens of MB; a single module's TTGIR is well under 1 MB.
#: At most this many bytes plus one are ever read, so ``/dev/zero`` or an endless file cannot
#: fill memory (non-regular files are refused before they are opened).
MAX_FILE_BYTES = 128 << 20
#: Most shared-memory operations (the ops :func:`~linlayout.triton.read_ttgir` keeps) in one
#: module; real kernels have tens to a few hundred.
MAX_OPS = 50_000
#: Most layout aliases (``#name = #ttg.…``) in one module; real files define tens. Each costs
#: a parse of its attribute (about 0.1 ms), so the cap bounds that work to about a second.
MAX_ALIASES = 10_000
#: Most distinct accesses (layout, kind, width) of one buffer for which ``linlayout check``
#: searches a better layout (:mod:`linlayout.check.suggest`): every candidate layout is costed
#: on every distinct access. Real buffers have a handful; a buffer with more gets no
#: suggestion.
MAX_SUGGEST_ACCESSES = 16
#: Largest shared buffer, in bytes, for which ``linlayout check`` searches a better layout
#: (256 KiB): more than any GPU's shared memory (228 KiB on sm_90/sm_100, 160 KiB LDS on
#: gfx950), so Triton could not allocate it; every candidate is costed per register of every
#: access, work that grows with the buffer (about 2 s at 2^17 elements here). Larger buffers
#: are still counted, with a note instead of a suggestion.
MAX_SUGGEST_BYTES = 256 << 10
#: Most lines of the one module (or dump section) ``linlayout check`` analyses: 2^18. A real
#: kernel's TTGIR has a few thousand; the analysis reads the module line by line several
#: times (about 4 s of CPU per million lines), so longer text is refused up front.
MAX_MODULE_LINES = 1 << 18
#: Deepest nesting of regions (lines ending in ``{``: the module, functions, ``scf.for``,
#: ``scf.if``, ``warp_specialize`` partitions) in the analysed module: real kernels nest a
#: handful; the analysis keeps each op's enclosing regions, so deeper text is refused.
MAX_REGION_NESTING = 64
#: Most results of one op (``%r:N = …``): real multi-result ops (loops carrying their
#: ``iter_args``, reductions of several operands) have tens. Each result gets a name
#: (``%r#0`` …), so ``%r:900000000`` took minutes and gigabytes.
MAX_OP_RESULTS = 1 << 12
#: Most warps one ``ttg.warp_specialize`` partition may run (``num_warps(…)``): 1024, far above
#: the 32 warps (1,024 threads) a CTA holds on NVIDIA and the 16 wavefronts on AMD CDNA. The
#: default warps store one state byte per worker warp, which ``linlayout check`` lists store by
#: store: a partition of 2^32 warps ran for minutes.
MAX_PARTITION_WARPS = 1 << 10
#: Most decimal digits of one integer; no shape, basis or parameter needs more (2^63 has 19).
MAX_INT_DIGITS = 18


def int_token(digits: str, where: Callable[[], str]) -> int:
    """``int(digits)`` for a ``-?\\d+`` token, refusing more than :data:`MAX_INT_DIGITS`
    digits (whatever ``sys.set_int_max_str_digits`` says)."""
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise LayoutError(f"malformed MLIR at {where()}: an integer with {len(digits.lstrip('-'))} "
                          f"digits; at most {MAX_INT_DIGITS} digits are accepted")
    return int(digits)


def result_count(digits: str, what: str) -> int:
    """The ``N`` of ``%r:N`` (an op's number of results): :func:`mlir_int`, at most
    :data:`MAX_OP_RESULTS`.

    Raises:
        LayoutError: more than :data:`MAX_INT_DIGITS` digits or more than
            :data:`MAX_OP_RESULTS` results.
    """
    n = mlir_int(digits, what)
    if n > MAX_OP_RESULTS:
        raise LayoutError(f"{what}: {n} results; at most {MAX_OP_RESULTS} (MAX_OP_RESULTS) are "
                          "read (real ops have tens)")
    return n


def mlir_int(digits: str, what: str) -> int:
    """An integer read from MLIR text (``\\d+``), at most :data:`MAX_INT_DIGITS` digits.

    Args:
        digits: the decimal digits (an optional leading ``-``).
        what: what the integer is, for the message (``"ttg.num-warps"``).

    Raises:
        LayoutError: more than :data:`MAX_INT_DIGITS` digits (refused whatever
            ``sys.set_int_max_str_digits`` allows).
    """
    return int_token(digits, lambda: what)
