"""The hardware: shared-memory bank models, the access instructions, the two kinds of layout.

* :mod:`.model` — :class:`HardwareModel` (banks, bank words, warp size, widest access, which
  lanes share a phase) and its presets :data:`NVIDIA`, :data:`AMD_CDNA3`, :data:`AMD_CDNA4`;
  :class:`BankModel`, a model specialised to one element size.
* :mod:`.instructions` — the instructions that move data between registers and shared
  memory (``ld/st.shared``, ``ldmatrix``/``stmatrix``) and what each needs of the layouts.
* :mod:`.lds` — AMD LDS instructions (``ds_read_b128``, ``ds_read2_b64``, transpose loads,
  ``global_load_lds_dwordx4``) and the bank model each is counted on.
* :mod:`.kinds` — distributed (register, lane, warp, block) versus shared-memory (offset)
  layouts, their validation, and a smaller tile placed at a memory's origin.
* :mod:`.access` — the ``ld/st.shared`` access rule: which vector width a warp access uses
  and its alignment (shared by :mod:`linlayout.conflicts` and :mod:`linlayout.synthesis`),
  and ``access_fault``: whether an emitted access is legal on a linear or padded buffer.

``from linlayout.hardware import NVIDIA`` and the other names below stay importable from
this package.
"""

from .instructions import (DEFAULT, Instruction, MatrixGeometry, check_matrix_access,
                           matrix_geometry, parse_instruction)
from .kinds import (
    DISTRIBUTED_IN_DIMS,
    MEMORY_IN_DIMS,
    Distributed,
    distributed_columns,
    embed_at_origin,
    is_distributed,
    is_smaller_tile,
    memory_columns,
    require_same_tensor,
)
from .lds import LDS_INSTRUCTIONS, LdsInstruction, lds_instruction
from .model import AMD_CDNA3, AMD_CDNA4, NVIDIA, PRESETS, BankModel, HardwareModel, bank_model

__all__ = [
    "AMD_CDNA3",
    "AMD_CDNA4",
    "DEFAULT",
    "DISTRIBUTED_IN_DIMS",
    "LDS_INSTRUCTIONS",
    "MEMORY_IN_DIMS",
    "NVIDIA",
    "PRESETS",
    "BankModel",
    "Distributed",
    "HardwareModel",
    "Instruction",
    "LdsInstruction",
    "MatrixGeometry",
    "bank_model",
    "check_matrix_access",
    "distributed_columns",
    "embed_at_origin",
    "is_distributed",
    "is_smaller_tile",
    "lds_instruction",
    "matrix_geometry",
    "memory_columns",
    "parse_instruction",
    "require_same_tensor",
]
