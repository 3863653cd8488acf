"""What the AMD ``may_merge`` draws' replay tests share: one drawn kernel's outcome."""

from __future__ import annotations

from linlayout.check import check_module
from linlayout.check.global_memory.compare import amd_merge_outcome
from linlayout.triton import read_ttgir
from tests.check.shared_memory.triton_fixtures import entries


def outcome(set_name: str, case: str) -> tuple[bool, str]:
    """(whether ``check`` names a ``may_merge`` on any global row of the kernel ``case`` of
    the fixture set ``set_name``, the final AMDGCN's
    :func:`~linlayout.check.global_memory.compare.amd_merge_outcome`)."""
    e = entries(set_name)[case]
    rep = check_module(read_ttgir(e["ttgir"]), suggest=False)
    named = any(g.prediction is not None and g.prediction.may_merge is not None
                for g in rep.global_ops)
    return named, amd_merge_outcome(rep.global_ops, e["amdgcn"])
