"""The hardware: shared-memory bank models, the access instructions, the two kinds of layout.

* :mod:`.model` — :class:`HardwareModel` (banks, bank words, warp size, widest access, which
  lanes share a phase) and its presets :data:`NVIDIA`, :data:`AMD_CDNA3`, :data:`AMD_CDNA4`;
  :class:`BankModel`, a model specialised to one element size.
* :mod:`.instructions` — the instructions that move data between registers and shared
  memory (``ld/st.shared``, ``ldmatrix``/``stmatrix``) and what each needs of the layouts.
* :mod:`.kinds` — distributed (register, lane, warp, block) versus shared-memory (offset)
  layouts, and their validation.

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
    is_distributed,
    memory_columns,
    require_same_tensor,
)
from .model import AMD_CDNA3, AMD_CDNA4, NVIDIA, PRESETS, BankModel, HardwareModel, bank_model

__all__ = [
    "AMD_CDNA3",
    "AMD_CDNA4",
    "DEFAULT",
    "DISTRIBUTED_IN_DIMS",
    "MEMORY_IN_DIMS",
    "NVIDIA",
    "PRESETS",
    "BankModel",
    "Distributed",
    "HardwareModel",
    "Instruction",
    "MatrixGeometry",
    "bank_model",
    "check_matrix_access",
    "distributed_columns",
    "is_distributed",
    "matrix_geometry",
    "memory_columns",
    "parse_instruction",
    "require_same_tensor",
]
