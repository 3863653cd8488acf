"""How Triton's backends spell a shared-memory access of a given width.

NVIDIA (PTX as printed by LLVM's NVPTX backend for Triton 3.9.0): vectors of 32-bit or wider
words are packed as ``<n x i32>``/``<n x i64>`` (``st.shared.v4.b32``, ``ld.shared.v2.b64``),
narrower ones are one scalar (``ld.shared.b16``, ``st.shared.b8``); matrix instructions are
``ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16`` and the ``stmatrix`` twin. AMD
(AMDGCN, CDNA3/4 ISA): ``ds_read_u8/u16/b32/b64/b96/b128`` and ``ds_write_b8/b16/b32/b64/b96/b128``
before LLVM's ``SILoadStoreOptimizer`` pairs them into ``ds_read2*``/``ds_write2*``.
"""

from __future__ import annotations

from ..errors import LayoutError

__all__ = ["amd_lds", "cp_async", "matrix_name", "nvidia_ld_st"]


def nvidia_ld_st(side: str, vector_elems: int, element_bits: int) -> str:
    """``ld.shared…``/``st.shared…`` for ``vector_elems`` elements of ``element_bits``.

    Raises:
        LayoutError: a width no single PTX access has (over 16 bytes).
    """
    op = "ld" if side == "load" else "st"
    bits = vector_elems * max(8, element_bits)
    if bits > 128:
        raise LayoutError(f"{bits}-bit shared access: PTX has no wider access than 128 bits")
    if bits <= 16:
        return f"{op}.shared.b{bits}"
    word = 64 if element_bits >= 64 else 32
    n = bits // word
    return f"{op}.shared.b{word}" if n == 1 else f"{op}.shared.v{n}.b{word}"


def matrix_name(side: str, matrices: int, trans: bool) -> str:
    """``ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16`` and the like."""
    op = "ldmatrix" if side == "load" else "stmatrix"
    return f"{op}.sync.aligned.m8n8.x{matrices}{'.trans' if trans else ''}.shared.b16"


def cp_async(vector_bytes: int) -> str:
    """``cp.async.cg.shared.global`` for 16-byte copies (L2 only), ``.ca`` for 4 and 8.

    Raises:
        LayoutError: another size (``cp.async`` copies 4, 8 or 16 bytes).
    """
    if vector_bytes == 16:
        return "cp.async.cg.shared.global"
    if vector_bytes in (4, 8):
        return "cp.async.ca.shared.global"
    raise LayoutError(f"cp.async copies 4, 8 or 16 bytes per lane, not {vector_bytes}")


def amd_lds(side: str, vector_bytes: int) -> str:
    """``ds_read_b128``, ``ds_write_b16``, ``ds_read_u8`` … for one lane's bytes.

    Raises:
        LayoutError: a width with no LDS instruction.
    """
    if side == "load":
        names = {1: "ds_read_u8", 2: "ds_read_u16", 4: "ds_read_b32", 8: "ds_read_b64",
                 12: "ds_read_b96", 16: "ds_read_b128"}
    else:
        names = {1: "ds_write_b8", 2: "ds_write_b16", 4: "ds_write_b32", 8: "ds_write_b64",
                 12: "ds_write_b96", 16: "ds_write_b128"}
    if vector_bytes not in names:
        raise LayoutError(f"no LDS instruction moves {vector_bytes} bytes per lane")
    return names[vector_bytes]
