"""The warp-shuffle probes (``tests/data/triton_shuffle_probes.json.gz`` and the AMD-only
``tests/data/triton_amd_shuffle_probes.json.gz``, drawn after the AMD rules, written by
``papers/triton_lowering/shuffle_probes.py [--amd]`` with Triton 3.9): for every compiled
``convert_layout``, ``tt.reduce``, ``tt.scan`` and ``tt.gather``, the path and the register
instructions ``check`` predicts (each convert told which global load produced its source)
equal Triton's lowering (the PTX/AMDGCN LLVM's back end selects from Triton's LLVM IR with
``-O3`` skipped, ``papers/triton_lowering/lowering_reference.py``) on the lines attributed
to the op — for a convert through shared memory, the byte permutes packing its round trip
(``linlayout.lowering.round_trip_pack``) — counting the data path only (the probe's
``"data"`` records, ``papers/triton_lowering/datapath.py``: an opcode that computes an address
or a lane index is not what ``check`` reports), and the final PTX/AMDGCN differs only where
``tests/data/llvm_respelling.json`` names the LLVM pass. Known
differences are strict xfails with their reason (``tests/data/known_mismatches.json``)."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from linlayout.check.registers import load_sources, store_destinations
from linlayout.check.shared_memory.ops import module_target, predict_module
from linlayout.check.shared_memory.predict import moved_bits
from linlayout.lowering import convert_path
from linlayout.triton.ttgir import find_accesses, read_ttgir
from tests.check.shared_memory.triton_fixtures import cases, entries
from tests.support import DATA

REGISTER = re.compile(r"^(shfl\.sync\.\w+\.b32|redux\.sync\.\w+|selp\.[bfsu](16|32|64)|prmt\.b32|"
                      r"ds_bpermute_b32|ds_swizzle_b32|v_permlane\w+|v_perm_b32|"
                      r"v_cndmask_b32|\w+_dpp)$")
SHARED = re.compile(r"^(ld\.shared|st\.shared|ldmatrix|stmatrix|ds_read|ds_write)")
SHUFFLE = re.compile(r"^(shfl\.|redux\.|ds_bpermute|ds_swizzle|v_permlane|\w+_dpp)")


def _typeless(op: str) -> str:
    """``selp.f32`` -> ``selp.b32``: one select, spelt by the type of its values."""
    return re.sub(r"^selp\.[fsu](\d+)$", r"selp.b\1", op)


def _observed(counts: dict) -> tuple[str, dict]:
    regs: Counter = Counter()
    for k, v in counts.items():
        k = _typeless(re.sub(r"_e(32|64)$", "", k))
        if REGISTER.match(k):
            regs[re.sub(r"^v_\w+_dpp$", "v_mov_b32_dpp", k)] += v
    if any(SHARED.match(k) for k in counts):
        return "shared", dict(regs)
    return ("shuffle" if regs else "registers"), dict(regs)


def _predicted(ttgir: str) -> tuple[str, dict]:
    module = read_ttgir(ttgir)
    target = module_target(module)
    path, regs = "registers", Counter()
    for a, pred in predict_module(module, target, source_loads=load_sources(module),
                                  stored_values=store_destinations(module)):
        assert not isinstance(pred, Exception), pred
        if pred.uses_shared and pred.sides:
            path = "shared"
        for e in pred.registers:
            if REGISTER.match(e.opcode):
                regs[_typeless(e.opcode)] += e.per_thread
        if a.kind == "convert":
            r = convert_path(a.distributed.layout, a.destination.layout,
                             moved_bits(a.element_bits, a.element_type), target)
            path = "registers" if r.path in ("none", "registers") else r.path
    if path == "registers" and regs:
        path = "shuffle"
    return path, dict(regs)


#: the two sets and their later held-out draws (``shuffle_probes.py --fresh [--amd]``)
_SETS = ("shuffle", "amd_shuffle", "shuffle_fresh", "amd_shuffle_fresh")


def _all_cases() -> list:
    out = []
    for name in _SETS:
        for c in cases(name):
            marks = c.marks if hasattr(c, "marks") else ()
            case = c.values[0] if hasattr(c, "values") else c
            out.append(pytest.param(name, case, marks=marks, id=f"{name}-{case}"))
    return out


def _respelled(fixture_set: str) -> dict:
    doc = json.loads((DATA / "llvm_respelling.json").read_text(encoding="utf-8"))
    return doc["sets"].get(fixture_set, {})


def _compared(case: str, pred: tuple, seen: tuple) -> tuple:
    if case.startswith(("max_", "sum_", "cumsum_", "gather_")):  # shuffles only
        keep = lambda d: {k: v for k, v in d.items() if SHUFFLE.match(k)}  # noqa: E731
        return keep(pred[1]), keep(seen[1])
    return pred, seen  # a round trip's packing too (linlayout.lowering.round_trip_pack)


@pytest.mark.parametrize("fixture_set,case", _all_cases())
def test_register_instructions_equal_tritons_lowering(fixture_set, case):
    """Against Triton's lowering: the probe's ``"lowering"`` record, the assembly LLVM's back
    end selects from Triton's LLVM IR with ``-O3`` skipped."""
    e = entries(fixture_set)[case]
    follows_final = isinstance(_respelled(fixture_set).get(case), dict)  # {"check": "final"}
    counts = (e if follows_final else e["lowering"])["data"]["counts"]
    a, b = _compared(case, _predicted(e["ttgir"]), _observed(counts))
    assert a == b


@pytest.mark.parametrize("fixture_set", _SETS)
def test_the_final_assembly_differs_from_tritons_lowering_only_where_listed(fixture_set):
    """Where LLVM's ``-O3`` changes the compared opcodes, the probe is listed with the pass."""
    differ = set()
    for case, e in entries(fixture_set).items():
        low, final = _observed(e["lowering"]["data"]["counts"]), _observed(e["data"]["counts"])
        if _compared(case, low, low) != _compared(case, final, final):
            differ.add(case)
    assert differ == set(_respelled(fixture_set))


@pytest.mark.parametrize("fixture_set", _SETS)
def test_the_data_path_is_part_of_tritons_lowering(fixture_set):
    """Every probe has its data-path counts (``"data"``, ``papers/triton_lowering/datapath.py``),
    each opcode at most as often as in the whole lowering: slicing only leaves address and
    lane-index arithmetic out."""
    for case, e in entries(fixture_set).items():
        low = e["lowering"]
        assert "counts" in e["data"], case
        assert all(n <= low["counts"].get(op, 0) for op, n in low["data"]["counts"].items()), case


@pytest.mark.parametrize("fixture_set", _SETS)
def test_every_path_is_among_the_probes(fixture_set):
    paths = Counter(_predicted(e["ttgir"])[0] for e in entries(fixture_set).values())
    assert set(paths) == {"registers", "shuffle", "shared"}


def _preopt_cases() -> list:
    return [c for c, e in sorted(entries("shuffle").items()) if e.get("preopt")
            and not c.startswith(("max_", "sum_", "cumsum_", "gather_"))]


@pytest.mark.parametrize("case", _preopt_cases())
def test_cleaned_counts_equal_tritons_llvm_ir_before_o3(case):
    """On NVIDIA the fixture keeps the shuffles, selects and byte permutes of Triton's LLVM IR
    before LLVM's optimiser at the convert's line: they equal the graph's counts after CSE
    and dead code (``WarpShuffleLowering.counts``)."""
    e = entries("shuffle")[case]
    module = read_ttgir(e["ttgir"])
    (a,) = [a for a in find_accesses(module) if a.kind == "convert"]
    r = convert_path(a.distributed.layout, a.destination.layout,
                     moved_bits(a.element_bits, a.element_type), module_target(module))
    if r.path != "shuffle":  # packing around a shared-memory round trip: not modelled
        return
    halves = 2 if a.element_bits == 64 else 1
    got = {k: v * (halves if k == "shuffle" else 1) for k, v in r.lowering.counts.items()
           if k in ("shuffle", "select", "permute") and v}
    assert got == e["preopt"]
