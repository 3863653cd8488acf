"""The held-out convert probes (``tests/data/triton_cvt_heldout_probes.json.gz``, written by
``papers/triton_lowering/cvt_heldout_probes.py`` with Triton 3.9, drawn after the convert
rules): for each compiled kernel, what ``linlayout check --json`` lists for its converts — and
the gathers, reduces and scans around them — equals Triton's lowering (the PTX/AMDGCN LLVM's
back end selects from Triton's LLVM IR before ``-O3``, recorded by
``papers/triton_lowering/lowering_reference.py``), and the final PTX/AMDGCN differs from it
only on the probes ``tests/data/llvm_respelling.json`` lists with the LLVM pass responsible
(exactly those; where it marks ``{"check": "final"}``, check models LLVM's final form and is
compared with the final assembly). Compared: every register
instruction of a convert that stays in registers or shuffles (``shfl``/``selp``/``prmt``;
``ds_bpermute``/DPP/``v_permlane*``/``v_cndmask``/``v_perm``), the exchanges of the others,
and the shared-memory instructions by width (NVIDIA) or LDS bytes per thread (AMD). No
convert is left without its instructions. Known differences are strict xfails with their
reason (``tests/data/known_mismatches.json``, set ``cvt_heldout``). Both sides are counted on
the data path (the probes' ``"data"`` records, ``papers/triton_lowering/datapath.py``): an
opcode that computes an address or a lane index is not what ``check`` reports."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache

import pytest

from tests.check.shared_memory.triton_fixtures import cases, entries, known_mismatches
from tests.support import DATA, papers_module

PROBES = papers_module("papers/triton_lowering/cvt_heldout_probes.py")
KERNELS = papers_module("papers/triton_lowering/gluon_kernels.py")


def _respelled(fixture_set: str) -> dict:
    doc = json.loads((DATA / "llvm_respelling.json").read_text(encoding="utf-8"))
    return doc["sets"].get(fixture_set, {})


@lru_cache(maxsize=None)
def _check_json(ttgir: str) -> dict:
    return PROBES.check_json(ttgir)


#: the sets whose ``tl`` kernels another script defines (their ops' source file)
_SCRIPTS = {"tutorial": "tutorial_probes.py"}
_SETS = ["cvt_heldout", "cvt_roundtrip", "cvt_lowering", "cvt_fresh", "cvt_confirm",
         "tutorial", "cvt_warp_slice", "cvt_lane_warp", "cvt_lane_warp_confirm",
         "reg_redraw", "reg_confirm", "reg_third", "reg_fourth"]


def _differs(fixture_set: str, case: str) -> bool:
    """Whether the final assembly's counts differ from Triton's lowering (before ``-O3``)
    on what is compared."""
    e = PROBES.data_path(entries(fixture_set)[case])
    doc = _check_json(e["ttgir"])
    script = _SCRIPTS.get(fixture_set)
    low = PROBES.prediction(PROBES.lowering(e), case, doc, script)[1]
    final = PROBES.prediction(e, case, doc, script)[1]
    return low != final


def _both(fixture_set: str, case: str) -> None:
    # the final assembly differs from the lowering exactly where llvm_respelling.json lists
    # the probe (the known mismatches, xfailed here, are checked by the per-set test below)
    assert _differs(fixture_set, case) == (case in _respelled(fixture_set)), \
        "final assembly vs Triton's lowering: listed in llvm_respelling.json iff they differ"
    e = PROBES.data_path(entries(fixture_set)[case])
    follows_final = isinstance(_respelled(fixture_set).get(case), dict)  # {"check": "final"}
    doc = _check_json(e["ttgir"])
    pred, seen, uncounted, _ = PROBES.prediction(e if follows_final else PROBES.lowering(e),
                                                 case, doc, _SCRIPTS.get(fixture_set))
    assert not uncounted
    assert PROBES.agrees(pred, seen, doc)  # or an outcome check names (may_merge)


@pytest.mark.parametrize("fixture_set", _SETS)
def test_the_final_assembly_differs_from_tritons_lowering_only_where_listed(fixture_set):
    """Where LLVM's ``-O3`` changes what is compared, the probe is listed with the pass.

    Each probe's own test checks this for its probe (:func:`_both`, so that its ``check``
    runs once); here: every listed probe exists, and the probes whose own test is a known
    mismatch (a strict xfail, which would hide this check) are checked."""
    listed = set(_respelled(fixture_set))
    assert listed <= set(entries(fixture_set)), sorted(listed - set(entries(fixture_set)))
    for case in sorted(set(known_mismatches().get(fixture_set, {})) & set(entries(fixture_set))):
        assert _differs(fixture_set, case) == (case in listed), case


@pytest.mark.parametrize("fixture_set", _SETS)
def test_the_data_path_is_part_of_tritons_lowering(fixture_set):
    """Every probe has its data-path counts (``"data"``, ``papers/triton_lowering/datapath.py``)
    by line, each opcode at most as often as in the whole lowering on that line."""
    for case, e in entries(fixture_set).items():
        low = e["lowering"]
        assert set(e["data"]) == {"counts", "lines"}, case
        for line, counts in low["data"]["lines"].items():
            assert all(n <= low["lines"][line].get(op, 0) for op, n in counts.items()), case


@pytest.mark.parametrize("case", cases("cvt_heldout"))
def test_check_json_equals_tritons_lowering(case):
    _both("cvt_heldout", case)


def test_the_set_reaches_every_path_target_and_family():
    data = entries("cvt_heldout")
    assert len(data) >= 250
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                     "gfx950"}
    families = Counter("_".join(n.split("_")[:2]) for n in data)
    assert set(families) == {"g_warp", "g_cross", "g_blocked", "g_slice", "g_mma", "t_trans",
                             "t_join", "t_split", "t_softmax", "t_cumsum", "t_gather", "t_dot"}


@pytest.mark.parametrize("case", cases("cvt_roundtrip"))
def test_round_trip_packing_equals_tritons_lowering(case):
    """The round-trip set (``--roundtrip``, drawn after the packing rules of
    ``linlayout.lowering.round_trip_pack``): every probe has an 8- or 16-bit convert through
    shared memory, whose byte permutes are compared with the rest."""
    _both("cvt_roundtrip", case)


def test_the_round_trip_set_reaches_every_width_and_vendor():
    data = entries("cvt_roundtrip")
    assert len(data) >= 40
    assert {e["target"] for e in data.values()} >= {"cuda80", "cuda90", "cuda100", "gfx942",
                                                     "gfx950"}
    assert {n.split("_")[2] for n in data} >= {"b8", "b16"}


@pytest.mark.parametrize("case", cases("cvt_lowering"))
def test_a_draw_after_the_lowering_rules_equals_tritons_lowering(case):
    """The third draw (``--lowering``, made after the rules read off Triton's lowering before
    ``-O3``: the byte extracts of loaded and shuffled 8-bit words, the selects' width): NVIDIA
    kernels with an 8- or 16-bit convert or a gather."""
    _both("cvt_lowering", case)


def test_the_lowering_draw_reaches_both_widths_and_the_three_nvidia_targets():
    data = entries("cvt_lowering")
    assert len(data) >= 60
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "cuda100"}
    assert {n.split("_")[2] for n in data} >= {"b8", "b16"}
    assert all("lowering" in e for e in data.values())


@pytest.mark.parametrize("case", cases("cvt_fresh"))
def test_a_later_held_out_draw_equals_tritons_lowering(case):
    """A later draw of both families (``--fresh``, seed ``FRESH_DRAW``), compiled after every
    convert rule was written and only compared."""
    _both("cvt_fresh", case)


def test_the_later_draw_reaches_every_target_and_width():
    data = entries("cvt_fresh")
    assert len(data) >= 70
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                     "gfx950"}
    assert {n.split("_")[2] for n in data} == {"b8", "b16", "b32", "b64"}


@pytest.mark.parametrize("case", cases("cvt_confirm"))
def test_a_second_later_draw_equals_tritons_lowering(case):
    """A second later draw (``--fresh --confirm``, ``CONFIRM_DRAW``), made to confirm the
    first."""
    _both("cvt_confirm", case)


@pytest.mark.parametrize("case", cases("cvt_warp_slice"))
def test_sources_broadcast_over_some_warp_bits_equal_tritons_lowering(case):
    """The warp-rule draw (``papers/triton_lowering/cvt_warp_slice_probes.py``, seed 60917,
    made after ``warp_broadcast_bits`` covered sources broadcast over some warp bits):
    slices of 3-d blocked layouts with warps along the sliced dim, and linear sources with
    zero and kept warp bases, cuda:90 and gfx942."""
    _both("cvt_warp_slice", case)


@pytest.mark.parametrize("case", cases("cvt_lane_warp"))
def test_a_draw_with_warp_bases_changed_by_source_lanes_equals_tritons_lowering(case):
    """The lane-warp draw (``papers/triton_lowering/cvt_lane_warp_probes.py``, seeds 71453
    and 71459, made after every convert rule was committed): Gluon converts of
    ``cvt_heldout_probes.build``'s families on cuda:80/90 and gfx942/950, and ``g_lanewarp``
    converts whose source has no broadcast warp basis while the destination's warp bases
    differ from it by source lanes (Triton prints such destinations as
    ``#ttg.generic_linear``), which Triton sends through shared memory."""
    _both("cvt_lane_warp", case)


def test_the_lane_warp_draw_reaches_every_target_width_and_family():
    data = entries("cvt_lane_warp")
    assert len(data) >= 45
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "gfx942", "gfx950"}
    assert {n.split("_")[2] for n in data} == {"b8", "b16", "b32", "b64"}
    families = Counter(n.split("_")[1] for n in data)
    assert set(families) == {"warp", "cross", "blocked", "slice", "mma", "lanewarp"}
    assert families["lanewarp"] >= 15
    lanewarp = [e for n, e in data.items() if n.startswith("g_lanewarp")]
    assert all("#ttg.generic_linear" in e["ttgir"] for e in lanewarp)
    for e in lanewarp:  # every one a round trip through shared memory
        ops = _check_json(e["ttgir"])["ops"]
        (op,) = [o for o in ops if o["kind"] == "convert"]
        assert op["uses_shared_memory"] and op["status"] == "counted"


@pytest.mark.parametrize("case", cases("cvt_lane_warp_confirm"))
def test_a_draw_after_the_lane_warp_fixes_equals_tritons_lowering(case):
    """The second lane-warp draw (``cvt_lane_warp_probes.py --confirm``, seeds 83117, 83119
    and 83123, made after ``#ttg.generic_linear`` was read and the warp rule refined):
    the mixed families, ``g_lanewarp`` again, and ``g_mixwarp``: sources broadcast over
    some warp bits that keep others, the destination changing a kept warp basis by source
    lanes in half the draws."""
    _both("cvt_lane_warp_confirm", case)


def test_the_confirm_draw_reaches_both_sides_of_the_warp_rule():
    data = entries("cvt_lane_warp_confirm")
    assert len(data) >= 45
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "gfx942", "gfx950"}
    paths = Counter()
    for name, e in data.items():
        if name.startswith("g_mixwarp"):
            (op,) = [o for o in _check_json(e["ttgir"])["ops"] if o["kind"] == "convert"]
            # a kept warp basis changed by lanes: Triton prints #ttg.generic_linear
            paths[("generic_linear" in e["ttgir"], op["uses_shared_memory"])] += 1
    # unchanged kept bases shuffle, changed ones take shared memory, none the other way
    assert set(paths) == {(False, False), (True, True)}
    assert min(paths.values()) >= 5


@pytest.mark.parametrize("case", cases("tutorial"))
def test_tutorial_shaped_kernels_equal_tritons_lowering(case):
    """Kernels shaped like Triton's tutorials (``papers/triton_lowering/tutorial_probes.py``:
    fused softmax, layer norm, a pipelined matmul whose accumulator is converted to the
    store's layout, attention's ``P @ V``): every convert's register instructions, the
    reductions' exchanges and the kernel's shared-memory instructions."""
    _both("tutorial", case)


def test_the_tutorial_set_reaches_every_kernel_and_target():
    data = entries("tutorial")
    assert {e["target"] for e in data.values()} == {"cuda80", "cuda90", "cuda100", "gfx942",
                                                     "gfx950"}
    assert {n.split("_")[1] for n in data} == {"softmax", "layernorm", "matmul", "attention"}


def test_an_op_is_counted_on_its_own_ttgir_line_where_the_probe_is_keyed_so():
    cast = {"line": 79, "source": "tutorial_probes.py:122", "kind": "elementwise"}
    convert = {"line": 80, "source": "tutorial_probes.py:122", "kind": "convert"}
    library = {"line": 60, "source": "standard.py:216", "kind": "scratch"}
    by_op = {"lines_by": PROBES.TTGIR_OP}
    assert [PROBES.op_line_key(o, by_op, "tutorial_probes.py")
            for o in (cast, convert, library)] == ["probe.ttgir:79", "probe.ttgir:80",
                                                   "probe.ttgir:60"]
    # keyed by Python source line: the cast and its convert fall together
    assert [PROBES.op_line_key(o, {}, "tutorial_probes.py")
            for o in (cast, convert, library)] == ["tutorial_probes.py:122"] * 2 + [None]


@pytest.mark.parametrize("fixture_set", _SETS)
def test_every_probe_is_counted_by_ttgir_op_with_the_kernels_instructions(fixture_set):
    """Each probe's assembly is counted by TTGIR op (its TTGIR compiled with the locations
    removed, each op at its own line), so no record depends on the probe script's Python
    source lines; that compile has every instruction the kernel compiled from its Python
    source has (a ``tl`` kernel's ``"counts"``, the whole kernel), and a Gluon convert's
    ``"counts"`` are those of the convert's own TTGIR line."""
    for case, e in entries(fixture_set).items():
        assert e["lines_by"] == PROBES.TTGIR_OP, case
        for lines in (e["lines"], e["data"]["lines"], e["lowering"]["lines"],
                      e["lowering"]["data"]["lines"]):
            assert all(k.startswith("probe.ttgir:") for k in lines), case
        if case.startswith("g_"):
            key = f"probe.ttgir:{KERNELS.convert_line(e['ttgir'])}"
            assert e["lines"].get(key, {}) == e["counts"], case
            assert e["lowering"]["lines"].get(key, {}) == e["lowering"]["counts"], case
            assert "loc(" not in e["ttgir"], case
        else:
            total = sum((Counter(v) for v in e["lines"].values()), Counter())
            assert dict(total) == e["counts"], case


def test_a_convert_located_at_a_cast_is_counted_apart_from_the_cast():
    """Triton gives the convert of ``P`` to the dot operand layout the location of the cast
    ``p.to(bf16)`` that produces it (same Python line and column); on gfx942 the cast's
    rounding is integer arithmetic (``v_cndmask_b32``). Counted by op, the selects are on the
    cast's TTGIR line and the convert's (registers renamed) has none."""
    seen = {}
    for case, e in entries("tutorial").items():
        ttgir = e["ttgir"].splitlines()
        doc = _check_json(e["ttgir"])
        for o in doc["ops"]:
            if o["kind"] != "convert" or o["instructions"]:
                continue
            before = ttgir[o["line"] - 2]
            if "arith.truncf" in before and before.split("loc(")[-1] == \
                    ttgir[o["line"] - 1].split("loc(")[-1]:
                cast = e["lowering"]["data"]["lines"].get(f"probe.ttgir:{o['line'] - 1}", {})
                assert f"probe.ttgir:{o['line']}" not in e["lowering"]["data"]["lines"], case
                seen[case] = cast
    assert seen["t_attention_b16_32x32x32_w4_50dc33_gfx942"] == {"v_cndmask_b32_e32": 16}
    assert seen["t_attention_b16_64x32x64_w1_74b5b0_gfx942"] == {"v_cndmask_b32_e64": 32}
