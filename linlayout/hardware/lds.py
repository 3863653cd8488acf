"""AMD LDS instructions as Triton/LLVM emit them, and how each one's lanes group into phases.

An LDS access on CDNA is counted like a vectorised ``ld/st.shared`` of fixed width, on a
hardware model that may differ per instruction; what each instruction changes:

* ``ds_read_b32 / b64 / b128``, ``ds_write_b32 / b64 / b128``: 4, 8, 16 contiguous bytes per
  lane. Phases are the preset's (``AMD_CDNA3``: 32 banks; b32 in 2 phases of 32 lanes, b64 in
  4 of 16, b128 in 8 of 8 with phase bits ``(t5, t2⊕t4, t3)``; ``AMD_CDNA4``: 64 banks; b32 one
  phase, b64 2 of 32, b128 4 of 16 with ``(t5, t2⊕t3⊕t4)``), which match the read groupings
  measured on MI300X/MI350X (nod-ai/amd-shark-ai ``docs/empirical-lds``) and the groupings of
  Triton's ``bruteforceBankConflictsPerWavefront64`` (``unittest/Dialect/TritonGPU/
  SwizzleTest.cpp``). Exception: ``ds_write_b128`` on CDNA3 runs in 8 phases of 8
  *consecutive* lanes (AMD's LDS guide as quoted in amd-shark-ai
  ``docs/amdgpu_kernel_optimization_guide.md``). Write groupings on CDNA4 are not documented;
  the read groupings are assumed.
* ``ds_read2_b64 / ds_read2st64_b64 / ds_write2_b64 / ds_write2st64_b64`` (and the ``_b32``
  forms): what LLVM's ``SILoadStoreOptimizer`` (``mergeRead2Pair`` / ``mergeWrite2Pair``)
  makes of two b64 (b32) accesses whose offsets fit the 8-bit fields (units of the size, or of
  64 sizes for ``st64``). The two halves are served one after the other, each as a b64 (b32)
  access, so they are counted as two such accesses (``instructions_per_warp`` counts halves).
  On CDNA4 a merged ``ds_read2_b64`` behaves as 32 banks with 16-lane phases: that is Triton's
  model (``composePaddedLayoutForAsyncCopyCDNA4`` in ``third_party/amd/lib/
  TritonAMDGPUTransforms/Utility.cpp``: "for isKContig && kWidthBytes == 8 we do use
  ds_read2_b64 which uses 32 banks"; PR #9544), and the counts it implies match the conflicts
  the Triton authors observed (PRs #9074, #9544); not confirmed on hardware here.
* ``ds_read_b64_tr_b16 / _b8 / _b4`` (CDNA4 only; CDNA4 ISA, DS opcodes "Read 64 bits of
  data per lane … transpose the matrix"): each lane *supplies* 8 contiguous bytes, but the
  register layout it *receives* is the transpose within 16-lane groups. The bank cost is that of
  a b64 read of the addressed layout (:func:`transpose_address_layout`; the lane mapping of
  Triton's ``chooseDsReadTrLayout``, checked on compiled kernels).
* ``global_load_lds_dword / _dwordx4`` (x4 on CDNA4 only; Triton
  ``supportsDirectToLdsLoadBitWidth``): direct-to-LDS copies write ``M0 + size·lane``: the
  wave's lanes fill ``64·size`` contiguous bytes in lane order, which is conflict-free; the
  memory layout must put each lane's vector there (checked by the counter).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .._checks import shown
from ..errors import LayoutError
from ..layout import LinearLayout
from .model import HardwareModel

__all__ = ["LDS_INSTRUCTIONS", "LdsInstruction", "is_lds_instruction", "lds_hardware",
           "lds_instruction", "transpose_address_layout"]


@dataclass(frozen=True)
class LdsInstruction:
    """One AMD LDS instruction kind (module docstring).

    Attributes:
        name: the mnemonic, e.g. ``"ds_read_b128"``.
        bytes_per_lane: bytes one lane moves per address (4, 8 or 16).
        store: True for writes (``ds_write*``, ``global_load_lds*`` write LDS).
        halves: 2 for the dual-address ``ds_read2*``/``ds_write2*`` forms, else 1.
        transpose_bits: element bits of a ``ds_read_b64_tr_b*`` (16, 8, 4), else 0.
        direct: a direct-to-LDS copy (``global_load_lds_*``).
        cdna4_only: not available on CDNA3 (gfx942).
    """

    name: str
    bytes_per_lane: int
    store: bool
    halves: int = 1
    transpose_bits: int = 0
    direct: bool = False
    cdna4_only: bool = False


def _table() -> dict[str, LdsInstruction]:
    out = {}
    for b in (4, 8, 16):
        bits = b * 8
        out[f"ds_read_b{bits}"] = LdsInstruction(f"ds_read_b{bits}", b, False)
        out[f"ds_write_b{bits}"] = LdsInstruction(f"ds_write_b{bits}", b, True)
    for b in (4, 8):
        bits = b * 8
        for st64 in ("", "st64"):
            out[f"ds_read2{st64}_b{bits}"] = LdsInstruction(f"ds_read2{st64}_b{bits}", b, False, 2)
            out[f"ds_write2{st64}_b{bits}"] = LdsInstruction(f"ds_write2{st64}_b{bits}", b, True,
                                                             2)
    for t in (16, 8, 4):
        out[f"ds_read_b64_tr_b{t}"] = LdsInstruction(f"ds_read_b64_tr_b{t}", 8, False,
                                                     transpose_bits=t, cdna4_only=True)
    out["global_load_lds_dword"] = LdsInstruction("global_load_lds_dword", 4, True, direct=True)
    out["global_load_lds_dwordx4"] = LdsInstruction("global_load_lds_dwordx4", 16, True,
                                                    direct=True, cdna4_only=True)
    return out


#: Every modelled instruction by mnemonic.
LDS_INSTRUCTIONS: dict[str, LdsInstruction] = _table()


def is_lds_instruction(name: object) -> bool:
    """True when ``name`` is an AMD LDS mnemonic (or an :class:`LdsInstruction`).

    Raises:
        nothing: any other value gives False.
    """
    return isinstance(name, LdsInstruction) or (isinstance(name, str) and
                                                 name in LDS_INSTRUCTIONS)


def lds_instruction(name: str | LdsInstruction) -> LdsInstruction:
    """The :class:`LdsInstruction` of a mnemonic.

    Raises:
        LayoutError: an unknown mnemonic (the message lists the known ones). ``ds_read_b96``,
            ``ds_read_b96_tr_b6`` and ``global_load_lds_dwordx3`` move 12 bytes, which the
            power-of-two bank model cannot express.

    Source: the LDS instruction table (module docstring: Triton's AMD backend, LLVM's
    ``SILoadStoreOptimizer``, published LDS measurements).
    """
    if isinstance(name, LdsInstruction):
        return name
    if not isinstance(name, str) or name not in LDS_INSTRUCTIONS:
        raise LayoutError(f"unknown AMD LDS instruction {shown(name)}; known: "
                          f"{', '.join(sorted(LDS_INSTRUCTIONS))}")
    return LDS_INSTRUCTIONS[name]


def lds_hardware(instr: LdsInstruction, hardware: HardwareModel) -> HardwareModel:
    """The bank model one instruction is counted on (module docstring).

    Args:
        instr: the instruction.
        hardware: ``AMD_CDNA3`` or ``AMD_CDNA4`` (or a wave64 model derived from them).

    Raises:
        LayoutError: a non-wave64 model, or a CDNA4-only instruction on a 32-bank model.

    Source: module docstring (per rule).
    """
    if hardware.warp_size != 64:
        raise LayoutError(f"{instr.name} is an AMD CDNA instruction (wave64); pass "
                          f"hardware=AMD_CDNA3 or AMD_CDNA4 (--hardware on the command line), not "
                          f"{hardware.name}")
    cdna4 = hardware.num_banks == 64
    if instr.cdna4_only and not cdna4:
        raise LayoutError(f"{instr.name} exists on CDNA4 (gfx950) only; pass "
                          "hardware=AMD_CDNA4 (--hardware AMD_CDNA4)")
    if instr.name == "ds_write_b128" and not cdna4:
        # 8 phases of 8 consecutive lanes
        over = tuple(o for o in hardware.phase_overrides if o[0] != 16)
        return replace(hardware, name=f"{hardware.name}:ds_write_b128",
                       phase_overrides=over + ((16, (1 << 3, 1 << 4, 1 << 5)),))
    if instr.halves == 2 and instr.bytes_per_lane == 8 and not instr.store and cdna4:
        return replace(hardware, name=f"{hardware.name}:ds_read2_b64", num_banks=32,
                       phase_overrides=tuple(o for o in hardware.phase_overrides
                                             if o[0] != 16) + (
                           (16, (1 << 5, (1 << 2) | (1 << 4), 1 << 3)),))
    return hardware


def transpose_address_layout(layout: LinearLayout, element_bits: int) -> LinearLayout:
    """The layout whose addresses a ``ds_read_b64_tr_b{element_bits}`` uses, given the layout
    the lanes receive.

    With ``e = log2(64 / element_bits)``, the received layout's register bits ``0 … e−1`` and
    lane bits ``0 … 3`` are rotated: the addressed register bit ``j`` is the received lane bit
    ``j``, the addressed lane bit ``k`` is the received lane bit ``k + e`` (``k < 4 − e``) and
    the addressed lane bit ``4 − e + j`` is the received register bit ``j``; all other bits are
    unchanged. (b16: a 16-lane group reads a 4×16 tile, lane ``l`` pointing at row ``l // 4``,
    elements ``4(l % 4) …``; lane ``i`` receives column ``i``.)

    Raises:
        LayoutError: ``element_bits`` not 16, 8 or 4, fewer than ``e`` register bits or fewer
            than 4 lane bits.

    Source: Triton ``chooseDsReadTrLayout`` (``third_party/amd/lib/TritonAMDGPUToLLVM/
    MemoryOpToLLVM.cpp``) and the CDNA4 ISA's ``DS_READ_B64_TR_B*`` descriptions.
    """
    if element_bits not in (16, 8, 4):
        raise LayoutError(f"ds_read_b64_tr_b* moves 16-, 8- or 4-bit elements, not {element_bits}")
    e = (64 // element_bits).bit_length() - 1
    bases = {k: [list(v) for v in vs] for k, vs in layout.bases.items()}
    regs, lanes = bases.get("register", []), bases.get("lane", [])
    if len(regs) < e or len(lanes) < 4:
        raise LayoutError(f"ds_read_b64_tr_b{element_bits} needs at least {e} register bits and "
                          f"4 lane bits (16-lane groups); the layout has {len(regs)} and "
                          f"{len(lanes)}")
    r, ln = regs[:e], lanes[:4]
    bases["register"] = ln[:e] + regs[e:]
    bases["lane"] = ln[e:] + r + lanes[4:]
    return LinearLayout(bases, out_dims=layout.out_dims)
