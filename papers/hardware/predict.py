"""Predictions for a case: linlayout's count, the simulator's, and the address model's.

For every case :func:`predict` computes

1. ``linlayout.bank_conflicts`` (the closed form) and ``linlayout.simulate_bank_access`` (brute
   force over the layouts) — required to agree;
2. the per-lane byte addresses the kernel will use (:mod:`addresses`), and the hardware model
   applied to those addresses (``addresses.count``) — required to agree with 1 on every case
   linlayout can express.

Padded buffers (``offset + (offset // interval) · pad``) are not F₂-linear and linlayout does
not model them yet: the vector width and instruction grouping still come from linlayout on the
unpadded buffer, and the wavefronts come from the address model alone (``prediction_source =
"address-model"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import addresses
from cases import MAX_INSTRS, MAX_SMEM, Case

from linlayout import bank_conflicts, simulate_bank_access

#: PTX spelling of ld/st.shared by bytes per lane (PTX ISA §9.7.9.8 "ld", §9.7.9.10 "st").
PTX_TYPE = {1: "u8", 2: "u16", 4: "u32", 8: "v2.u32", 16: "v4.u32"}

_FIELDS = ("degree", "wavefronts_per_instruction", "vector_elems", "phases",
           "instructions_per_warp")


@dataclass(frozen=True)
class Prediction:
    """What a case should measure, and the address table that realises it.

    Attributes:
        case: the case.
        table: ``table[w][i][lane]`` byte addresses (from the buffer's start).
        access_bytes: bytes per lane (16 for a matrix row).
        ptx: the PTX instruction the kernel issues.
        count: the address model on ``table``.
        report: linlayout's ``ConflictReport`` (on the unpadded buffer for padded cases).
        source: ``"linlayout"`` or ``"address-model"`` (padded).
        smem_bytes: bytes of shared memory the buffer needs.
    """

    case: Case
    table: list[list[list[int]]]
    access_bytes: int
    ptx: str
    count: addresses.Count
    report: object
    source: str
    smem_bytes: int

    @property
    def warps(self) -> int:
        return len(self.table)

    @property
    def instructions(self) -> int:
        return len(self.table[0])

    def to_json(self) -> dict:
        """The ``cases.json`` entry (without the kernel file names)."""
        c, n = self.case, self.count
        rep = self.report
        return {
            "case": c.name,
            "category": c.category,
            "description": c.description,
            "instruction": self.ptx,
            "linlayout_instruction": c.instruction,
            "direction": "st" if c.is_store else "ld",
            "element_bits": c.element_bits,
            "access_bytes": self.access_bytes,
            "vector_elems": rep.vector_elems,
            "warps": self.warps,
            "instructions_per_warp": self.instructions,
            "phases": n.phases,
            "predicted_degree": n.degree,
            "predicted_wavefronts": max(x for w in n.wavefronts for x in w),
            "predicted_wavefronts_per_warp": max(n.per_warp),
            "predicted_wavefronts_per_block": n.total,
            "uniform": n.uniform,
            "prediction_source": self.source,
            "padding": None if c.padding is None else
            {"interval": c.padding[0], "pad": c.padding[1]},
            "smem_bytes": self.smem_bytes,
            "layout": c.layout.to_dict(),
            "memory": c.memory.to_dict(),
        }


def ptx_name(case: Case, access_bytes: int) -> str:
    """The PTX mnemonic the kernel uses for the case's access."""
    if case.is_matrix:
        op, rest = case.instruction.split(".", 1)
        n = rest.split(".")[0]
        trans = ".trans" if case.instruction.endswith(".trans") else ""
        return f"{op}.sync.aligned.m8n8.{n}{trans}.shared.b16"
    op = "st" if case.is_store else "ld"
    return f"{op}.shared.{PTX_TYPE[access_bytes]}"


def predict(case: Case) -> Prediction:
    """Linlayout's prediction, the simulator's, the address table and the address model.

    Raises:
        ValueError: the three disagree (on an unpadded case), or the case does not fit a kernel.
    """
    e = case.element_bits
    kw = {"element_bits": e}
    kw["instruction"] = case.instruction  # ld.shared / st.shared: the direction matters
    if not case.is_matrix and case.vector_elems is not None:
        kw["vector_elems"] = case.vector_elems
    rep = bank_conflicts(case.layout, case.memory, **kw)
    sim = simulate_bank_access(case.layout, case.memory, **kw)
    for f in _FIELDS:
        if getattr(rep, f) != getattr(sim, f):
            raise ValueError(f"{case.name}: closed form and simulator disagree on {f}: "
                             f"{getattr(rep, f)} != {getattr(sim, f)}")
    grid = addresses.enumerate_grid(case.layout, case.memory)
    if case.is_matrix:
        matrices = int(case.instruction.split(".x")[1][0])
        elems = addresses.matrix_table(grid, e, matrices, case.instruction.endswith(".trans"))
        access_bytes, unit = 16, 128 // e
    else:
        matrices = 0
        elems = addresses.vector_table(grid, rep.vector_elems)
        access_bytes, unit = rep.vector_elems * e // 8, rep.vector_elems
    size = 1
    for v in case.memory.out_dims.values():
        size *= v
    if case.padding is not None:
        interval, pad = case.padding
        if interval % unit:
            raise ValueError(f"{case.name}: padding interval {interval} splits a {unit}-element "
                             "access")
        elems = [[[addresses.padded(o, interval, pad) for o in lanes] for lanes in w]
                 for w in elems]
        size = addresses.padded(size - 1, interval, pad) + 1
    table = [[[o * e // 8 for o in lanes] for lanes in w] for w in elems]
    smem = max(16, size * e // 8)
    count = addresses.count(table, access_bytes, matrices,
                            load=not case.is_store and not case.is_matrix)
    source = "linlayout" if case.padding is None else "address-model"
    if case.padding is None:
        checks = {"wavefronts per instruction": (count.wavefronts[0][0],
                                                 rep.wavefronts_per_instruction),
                  "degree": (count.degree, rep.degree),
                  "instructions per warp": (len(table[0]), rep.instructions_per_warp),
                  "phases": (count.phases, rep.phases)}
        if not count.uniform:
            checks["uniform"] = (False, True)
        for what, (a, b) in checks.items():
            if a != b:
                raise ValueError(f"{case.name}: address model and linlayout disagree on {what}: "
                                 f"{a} != {b}")
    if len(table[0]) > MAX_INSTRS:
        raise ValueError(f"{case.name}: {len(table[0])} instructions per warp > {MAX_INSTRS}")
    if smem > MAX_SMEM:
        raise ValueError(f"{case.name}: {smem} bytes of shared memory > {MAX_SMEM}")
    return Prediction(case=case, table=table, access_bytes=access_bytes,
                      ptx=ptx_name(case, access_bytes), count=count, report=rep, source=source,
                      smem_bytes=smem)
