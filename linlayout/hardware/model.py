"""Shared-memory hardware models: banks, warps, and how a warp access splits into phases.

A :class:`HardwareModel` says how many banks a row of shared memory has, how wide a bank word
is, how many lanes a warp has, the widest per-lane access, and which lanes are served together
in one **phase** (wavefront group) for each access width.

Phases are described as linear functionals on the lane id: a phase-index bit is the parity of
``lane & mask``. Lanes with equal phase index run together, so the lanes of one phase form a
coset of the kernel of those functionals — which keeps the conflict count a subspace question
(:mod:`linlayout.conflicts`). The default rule splits by lane id (NVIDIA: a warp access of
``b`` bytes per lane runs in phases of ``row_bytes / max(b, bank_bytes)`` consecutive lanes);
models may override it per access width with explicit functionals, as AMD's ``ds_read_b128``
needs (non-consecutive lane groups).

Presets:

* :data:`NVIDIA` — 32 banks × 4 bytes, warps of 32, phases by lane id (PTX ISA and the CUDA
  programming guide, "Shared Memory" bank rules), and **return packing** of wide loads: an
  ``ld.shared`` of 8 or 16 bytes per lane whose lanes ``n`` and ``n ^ 1`` (or ``n`` and
  ``n ^ 2``) all ask for the same address runs in the phases of an access half as wide
  (:meth:`BankModel.packed`; measured on an H200 with Nsight Compute,
  ``papers/hardware/``, and stated for sm_70/75 in NVIDIA's developer-forum answer on
  "shared memory loads with uniform addresses": the data path returns one register per lane
  per wavefront, and such pairs let it pack two).
* :data:`AMD_CDNA3` — wave64, 32 banks × 4 bytes; 128-bit accesses run in 8 phases of 8 lanes,
  lanes ``{0-3, 20-23}``, ``{4-7, 16-19}``, ``{8-11, 28-31}``, ``{12-15, 24-27}`` and the same
  +32: phase bits ``(t5, t2 ⊕ t4, t3)``.
* :data:`AMD_CDNA4` — wave64, 64 banks × 4 bytes; 128-bit accesses run in 4 phases of 16
  lanes: phase bits ``(t5, t2 ⊕ t3 ⊕ t4)``.

The AMD phase groups are the ones Triton's bank-conflict tests model (``unittest/Dialect/
TritonGPU/SwizzleTest.cpp``, ``bruteforceBankConflictsPerWavefront64``); narrower accesses
split by lane id as on NVIDIA.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .._memo import memoize
from .. import f2
from .._checks import log2_exact, shown
from ..errors import LayoutError

__all__ = ["AMD_CDNA3", "AMD_CDNA4", "NVIDIA", "PRESETS", "BankModel", "HardwareModel", "bank_model"]



@dataclass(frozen=True)
class HardwareModel:
    """A shared-memory bank model.

    Attributes:
        name: a label for reports.
        num_banks: banks per row (power of two).
        bank_bytes: bytes per bank word (power of two).
        warp_size: lanes per warp (power of two, 32 on NVIDIA, 64 on AMD CDNA).
        max_access_bytes: widest access one lane can make (16: ``ld.shared.v4.b32``,
            ``ds_read_b128``).
        phase_overrides: ``((access_bytes, (mask, …)), …)``: for an access of that many
            bytes per lane, phase-index bit ``j`` is the parity of ``lane & mask[j]``.
            Widths not listed split by lane id.
        packing_lanes: lane ids ``m`` such that a load whose lanes ``n`` and ``n ^ m`` all
            share their address, with at least two bank words per lane, is served in the
            phases of an access half as wide (return packing; ``(1, 2)`` on NVIDIA, none
            where not measured). Stores never pack.

    Raises:
        LayoutError: a size that is not a power of two, a row narrower than the widest
            access, or phase masks that are not independent functionals on the lane bits
            or do not give rows' worth of lanes per phase.

    Source: the presets' sources (module docstring: the PTX ISA and CUDA guide for NVIDIA,
    Triton's ``SwizzleTest.cpp`` and published LDS measurements for AMD);
    ``docs/hardware-model.md``.
    """

    name: str = "custom"
    num_banks: int = 32
    bank_bytes: int = 4
    warp_size: int = 32
    max_access_bytes: int = 16
    phase_overrides: tuple[tuple[int, tuple[int, ...]], ...] = field(default=())
    packing_lanes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        banks = log2_exact(self.num_banks, "num_banks", 1, 1 << 16)
        word = log2_exact(self.bank_bytes, "bank_bytes", 1, 1 << 10)
        warp = log2_exact(self.warp_size, "warp_size", 1, 1 << 10)
        access = log2_exact(self.max_access_bytes, "max_access_bytes", 1, 1 << 10)
        if banks + word < access:
            raise LayoutError(
                f"a row of {self.num_banks} banks × {self.bank_bytes} bytes is narrower than the "
                f"{self.max_access_bytes}-byte widest access; use a wider row or a narrower access"
            )
        overrides = self.phase_overrides
        if isinstance(overrides, (str, bytes)) or not isinstance(overrides, Iterable):
            raise LayoutError(
                f"phase_overrides must be a tuple of (access_bytes, (mask, ...)) pairs, got "
                f"{shown(overrides)}"
            )
        overrides = tuple(overrides)
        for entry in overrides:
            try:
                width, masks = entry
                masks = tuple(masks)
            except (TypeError, ValueError):
                raise LayoutError(
                    f"phase_overrides entries are (access_bytes, (mask, ...)), got {shown(entry)}"
                ) from None
            w = log2_exact(width, "phase override access_bytes", 1, self.max_access_bytes)
            for m in masks:
                if not isinstance(m, int) or isinstance(m, bool) or m <= 0 or m >> warp:
                    raise LayoutError(
                        f"phase mask {shown(m)} for {width}-byte accesses must be a nonzero lane mask "
                        f"below {self.warp_size}"
                    )
            if f2.rank(masks) != len(masks):
                raise LayoutError(
                    f"phase masks {masks} for {width}-byte accesses are linearly dependent; each "
                    "must add one independent bit to the phase index"
                )
            lanes_log2 = warp - len(masks)
            if lanes_log2 > banks + word - max(w, word):
                raise LayoutError(
                    f"{width}-byte accesses with {1 << lanes_log2} lanes per phase need more than "
                    f"one row of {self.num_banks} banks per wavefront; add phase masks"
                )

        packing = self.packing_lanes
        if isinstance(packing, (str, bytes)) or not isinstance(packing, Iterable):
            raise LayoutError(f"packing_lanes must be a tuple of lane ids, got {shown(packing)}")
        packing = tuple(packing)
        for m in packing:
            if not isinstance(m, int) or isinstance(m, bool) or m <= 0 or m >> warp or m & (m - 1):
                raise LayoutError(f"packing_lanes entries are single lane bits below "
                                  f"{self.warp_size} (1, 2, 4, …), got {shown(m)}")
        object.__setattr__(self, "packing_lanes", tuple(sorted(set(int(m) for m in packing))))
        # hashable and canonical (the model keys caches): ((bytes, (mask, ...)), ...)
        object.__setattr__(self, "phase_overrides",
                           tuple((int(wd), tuple(int(m) for m in ms)) for wd, ms in overrides))
        _set_hash(self)

    def __hash__(self) -> int:
        # the model keys caches (through every BankModel): its fields are hashed once, here
        # the hash the dataclass would compute, over the same fields
        return self._hash  # type: ignore[attr-defined]

    def __getstate__(self) -> dict[str, Any]:
        return _state(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        _set_hash(self)

    @property
    def row_bytes(self) -> int:
        """Bytes one wavefront can serve: ``num_banks · bank_bytes``."""
        return self.num_banks * self.bank_bytes

    def phase_masks(self, access_bits: int) -> tuple[int, ...]:
        """Lane masks whose parities give the phase index of an access of ``access_bits`` per lane.

        The default (by lane id) puts ``row_bytes / max(access_bytes, bank_bytes)`` consecutive
        lanes in a phase: the masks are the single higher lane bits.
        """
        for width, masks in self.phase_overrides:
            if width * 8 == access_bits:
                return tuple(masks)
        warp = self.warp_size.bit_length() - 1
        per_lane_bits = max(access_bits, self.bank_bytes * 8)
        lanes = max(1, (self.row_bytes * 8) // per_lane_bits)
        p = min(warp, lanes.bit_length() - 1)
        return tuple(1 << i for i in range(p, warp))

    def with_banks(self, num_banks: int | None = None, bank_bytes: int | None = None) -> HardwareModel:
        """A copy with other bank parameters (None keeps the current value)."""
        if num_banks is None and bank_bytes is None:
            return self
        return replace(
            self,
            name=f"{self.name} (modified)",
            num_banks=self.num_banks if num_banks is None else num_banks,
            bank_bytes=self.bank_bytes if bank_bytes is None else bank_bytes,
        )


def _set_hash(model: HardwareModel) -> None:
    """Store the hash of ``model``'s fields (all of them compare) on ``model``."""
    object.__setattr__(model, "_hash", hash(
        (model.name, model.num_banks, model.bank_bytes, model.warp_size, model.max_access_bytes,
         model.phase_overrides, model.packing_lanes)))


def _state(model: Any) -> dict[str, Any]:
    """A model's attributes for pickling and copying, without its stored hash (string
    hashes differ between processes; :meth:`__setstate__` takes it again)."""
    return {k: v for k, v in model.__dict__.items() if k != "_hash"}


NVIDIA = HardwareModel(name="NVIDIA", packing_lanes=(1, 2))
AMD_CDNA3 = HardwareModel(
    name="AMD_CDNA3",
    num_banks=32,
    warp_size=64,
    phase_overrides=((16, (1 << 5, (1 << 2) | (1 << 4), 1 << 3)),),
)
AMD_CDNA4 = HardwareModel(
    name="AMD_CDNA4",
    num_banks=64,
    warp_size=64,
    phase_overrides=((16, (1 << 5, (1 << 2) | (1 << 3) | (1 << 4))),),
)
#: Presets by name (for the command line).
PRESETS = {m.name: m for m in (NVIDIA, AMD_CDNA3, AMD_CDNA4)}


@dataclass(frozen=True)
class BankModel:
    """A hardware model specialised to one element size: the numbers the counters need.

    Attributes:
        hardware: the :class:`HardwareModel`.
        element_log2: log2(element_bits).
        element_bits: bits per element.
        word_log2: log2 of the bank word in bits.
        banks_log2: log2 of the banks per row.
        warp_log2: log2 of the lanes per warp.
        max_vector_log2: largest k with 2^k · element_bits ≤ the widest access.
        within_word_bits: w, the offset bits that address inside one bank word (0 for
            word-or-wider elements).
        seg_lo: first offset bit of the segment part: log2(row_bits / element_bits).

    The derived numbers are computed once, at construction (the counters read them in their
    inner loops), as are the phase masks and lanes of each vector width, on first use.

    Source: :class:`HardwareModel` (``docs/hardware-model.md`` §1–§4).
    """

    hardware: HardwareModel
    element_log2: int
    element_bits: int = field(init=False, repr=False, compare=False)
    word_log2: int = field(init=False, repr=False, compare=False)
    banks_log2: int = field(init=False, repr=False, compare=False)
    warp_log2: int = field(init=False, repr=False, compare=False)
    max_vector_log2: int = field(init=False, repr=False, compare=False)
    within_word_bits: int = field(init=False, repr=False, compare=False)
    seg_lo: int = field(init=False, repr=False, compare=False)
    _phases: dict[tuple[int, bool], tuple[tuple[int, ...], tuple[int, ...], int | None]] = \
        field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name, value in _derived(self.hardware, self.element_log2).items():
            object.__setattr__(self, name, value)

    def __hash__(self) -> int:
        # the hash of (hardware, element_log2), the compared fields, taken at construction
        # (:func:`bank_model`'s models key the synthesis caches)
        return self._hash  # type: ignore[attr-defined]

    def __getstate__(self) -> dict[str, Any]:
        return _state(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _hash=hash((state["hardware"], state["element_log2"])))

    def phase_info(self, vector_log2: int, packed: bool = False,
                   ) -> tuple[tuple[int, ...], tuple[int, ...], int | None]:
        """``(masks, lanes, p)`` of vectors of ``2^vector_log2`` elements: the
        :meth:`phase_masks`, the :meth:`phase_lanes`, and ``p`` when the lanes of one phase
        are the lane ids ``0 … 2^p − 1`` (the lanes basis is ``1, 2, …, 2^(p−1)``: a split
        by lane id, whose phase offsets are the first ``p`` lane images, no composition
        needed) — None for an override with other lane groups. Computed once per width.

        Source: :meth:`HardwareModel.phase_masks` (PTX ISA / CUDA guide shared-memory
        phases; the AMD overrides of the presets)."""
        key = (vector_log2, packed)
        got = self._phases.get(key)
        if got is None:
            hw = self.hardware
            warp = self.warp_log2
            if hw.phase_overrides and any(
                    wd * 8 == (self.element_bits << vector_log2) >> packed  # packed: half
                    for wd, _ in hw.phase_overrides):
                masks = tuple(hw.phase_masks((self.element_bits << vector_log2) >> packed))
                lanes = _phase_lanes(masks, warp)
                prefix = len(lanes) if lanes == _UNITS[:len(lanes)] else None
            else:  # by lane id (HardwareModel.phase_masks): the first p lanes share a phase,
                # p = log2(row bits / max(bits per lane, word bits)), at least 0, at most warp
                bits_log2 = self.element_log2 + vector_log2 - packed
                p = min(warp, max(0, self.word_log2 + self.banks_log2 - max(bits_log2,
                                                                             self.word_log2)))
                masks, lanes, prefix = _UNITS[p:warp], _UNITS[:p], p
            got = self._phases[key] = (masks, lanes, prefix)
        return got

    def lane_prefix(self, vector_log2: int, packed: bool = False) -> int | None:
        """``p`` of :meth:`phase_info` where the hardware splits every width by lane id (no
        ``phase_overrides``): one phase holds the lane ids ``0 … 2^p − 1`` and there are
        ``2^(warp_log2 − p)`` phases, with ``p = log2(row bits / max(bits per lane, word
        bits))`` kept within ``[0, warp_log2]`` (``packed``: half the bits per lane). None
        on hardware with overrides (ask :meth:`phase_info`). Worked out each time, in logs:
        no masks, no cache.

        Raises:
            Nothing of its own: a hot-path helper for widths the caller took from this
            model (``p`` is clamped to ``[0, warp_log2]`` as above).

        Source: :meth:`HardwareModel.phase_masks` (PTX ISA / CUDA guide shared-memory
        phases)."""
        if self.hardware.phase_overrides:
            return None
        bits = self.element_log2 + vector_log2 - packed
        word = self.word_log2
        p = word + self.banks_log2 - (bits if bits > word else word)
        return self.warp_log2 if p > self.warp_log2 else (p if p > 0 else 0)

    def phase_masks(self, vector_log2: int, packed: bool = False) -> tuple[int, ...]:
        """Phase-index lane masks for vectors of ``2^vector_log2`` elements (``packed``: a
        load whose return is packed, :meth:`packed`, which runs in the phases of an access
        half as wide)."""
        return self.phase_info(vector_log2, packed)[0]

    def phase_lanes(self, vector_log2: int, packed: bool = False) -> tuple[int, ...]:
        """A basis of lane ids (ints over the lane bits) spanning the lanes of one phase
        (``packed`` as in :meth:`phase_masks`).

        Sorted ascending, so a by-lane-id split gives the unit lane ids ``1, 2, 4, …``.
        """
        return self.phase_info(vector_log2, packed)[1]

    def may_pack(self, vector_log2: int, load: bool) -> bool:
        """Whether an access of ``2^vector_log2`` elements per lane can have its return packed
        at all: a load (``load``) of at least two bank words per lane on hardware with
        ``packing_lanes`` (which lane pairs must share an address is :meth:`packed`'s
        question)."""
        return (load and bool(self.hardware.packing_lanes)
                and (self.element_bits << vector_log2) >= 2 << self.word_log2)

    def packed(self, lane_images: Sequence[int], vector_log2: int, load: bool) -> bool:
        """Whether a warp access is served with its return packed (fewer phases).

        Args:
            lane_images: the image of each lane bit (lane ``2^i`` → ``lane_images[i]``), in
                any coordinates where equal addresses are equal images (tensor columns or
                memory offsets); missing lane bits count as broadcast (zero).
            vector_log2: log2 of the elements per lane.
            load: True for a load (``ld.shared``); stores never pack.

        Returns:
            True when ``load``, the access is at least two bank words per lane, and the lane
            bit of one of the hardware's ``packing_lanes`` has a zero image (every lane pair
            ``n``, ``n ^ m`` shares its address).

        Source: :data:`NVIDIA` (measured, ``papers/hardware/``).
        """
        # may_pack, inlined (a synthesis asks for every side it counts)
        if not load or (self.element_bits << vector_log2) < 2 << self.word_log2:
            return False
        for m in self.hardware.packing_lanes:
            i = m.bit_length() - 1
            if i >= len(lane_images) or not lane_images[i]:
                return True
        return False


#: The unit lane ids ``1 << i`` for ``i < 16``: phase masks and lanes by lane id are slices.
_UNITS = tuple(1 << i for i in range(16))


def _derived(hardware: HardwareModel, e: int) -> dict[str, Any]:
    """The numbers a :class:`BankModel` of ``hardware`` and ``2^e``-bit elements derives."""
    word = (hardware.bank_bytes * 8).bit_length() - 1
    banks = hardware.num_banks.bit_length() - 1
    return {
        "element_bits": 1 << e,
        "word_log2": word,
        "banks_log2": banks,
        "warp_log2": hardware.warp_size.bit_length() - 1,
        "max_vector_log2": max(0, (hardware.max_access_bytes * 8).bit_length() - 1 - e),
        "within_word_bits": max(0, word - e),
        "seg_lo": max(0, word + banks - e),
        "_phases": {},
        "_hash": hash((hardware, e)),
    }


@memoize(256)
def _phase_lanes(masks: tuple[int, ...], warp_log2: int) -> tuple[int, ...]:
    """Kernel of the phase functionals ``masks`` on the ``warp_log2`` lane bits (cached on
    the masks themselves: hashing a hardware model covers every field, hashing masks
    costs little)."""
    if all(m > 0 and not m & (m - 1) for m in masks):  # single lane bits: the other unit lanes
        return tuple(1 << i for i in range(warp_log2) if (1 << i) not in masks)
    cols = [sum(((m >> i) & 1) << j for j, m in enumerate(masks)) for i in range(warp_log2)]
    return tuple(sorted(f2.null_space(cols)))


def bank_model(element_bits: Any, hardware: HardwareModel | None = None) -> BankModel:
    """Validate the parameters of one access and combine them into a :class:`BankModel`.

    Args:
        element_bits: bits per element, a power of two up to the widest access.
        hardware: the model (default :data:`NVIDIA`); :meth:`HardwareModel.with_banks`
            derives one with other bank parameters.

    Raises:
        LayoutError: ``element_bits`` is not a power of two in range, or ``hardware`` is not a
            HardwareModel.

    Source: the presets' bank model (module docstring; ``docs/hardware-model.md``).
    """
    if hardware is None:
        hardware = NVIDIA
    elif not isinstance(hardware, HardwareModel):
        raise LayoutError(
            f"hardware must be a HardwareModel (e.g. linlayout.hardware.NVIDIA, or "
            f"NVIDIA.with_banks(num_banks=16)), got {type(hardware).__name__}"
        )
    if type(element_bits) is int and 0 < element_bits <= hardware.max_access_bytes * 8 and \
            not element_bits & (element_bits - 1):
        e = element_bits.bit_length() - 1
    else:  # anything unusual: checked, with the message
        e = log2_exact(element_bits, "element_bits", 1, hardware.max_access_bytes * 8)
    # the dataclass's own constructor, without its per-field frozen __setattr__ calls
    model = _new(BankModel)
    model.__dict__.update(_derived(hardware, e), hardware=hardware, element_log2=e)
    return model


_new = object.__new__
