"""Loads ptxas sinks under the predicate of the store ending the kernel
(linlayout.check.shared_memory.sunk_loads), on Triton 3.9 kernels whose shared-memory
instructions an H100 counted per instruction (papers/hardware/triton)."""

from __future__ import annotations

from pathlib import Path

import pytest

from linlayout import LayoutError
from linlayout.check.analysis import check_module
from linlayout.check.render import op_dict
from linlayout.check.shared_memory.ops import module_target
from linlayout.check.shared_memory.sunk_loads import executing_warps, sunk_loads_per_thread
from linlayout.triton.ttgir import find_accesses, read_ttgir

KERNELS = Path(__file__).resolve().parents[3] / "papers" / "hardware" / "triton" / "kernels"


def _module(name: str, text_edit=None):
    text = (KERNELS / f"{name}.ttgir").read_text(encoding="utf-8")
    if text_edit is not None:
        text = text_edit(text)
    return read_ttgir(text)


def _converts(module):
    return [a for a in find_accesses(module) if a.op == "convert_layout"]


def _loads(module):
    """The ld.shared entries of the module's converts: (per_thread, warps_executing,
    wavefronts_per_warp, may_sink)."""
    out = []
    for r in check_module(module, suggest=False).ops:
        if r.access.op != "convert_layout":
            continue
        for i in op_dict(r)["instructions"]:
            if i.get("ptx", "").startswith("ld.shared"):
                out.append((i["per_thread"], i.get("warps_executing"),
                            i["wavefronts_per_warp"], i.get("may_sink")))
    return out


def test_one_load_feeding_the_last_store_runs_in_the_storing_warps():
    # tl.max over axis 1 of 16x1024 fp16 on 8 warps: the 16 results sit in warp 0; the H100
    # ran the convert's LDS.U16 in 1 warp, 1 wavefront
    m = _module("tk_max1_f16_w8")
    store = executing_warps(m, _converts(m)[0], module_target(m))
    assert store is not None and store.warps == 1
    assert _loads(m) == [(1, 1, 1, None)]


def test_ldmatrix_is_never_sunk():
    # tk_sum0_i8_w8: the convert's load is an ldmatrix; all 8 warps ran it
    m = _module("tk_sum0_i8_w8")
    assert executing_warps(m, _converts(m)[0], module_target(m)) is not None
    assert _loads(m) == []
    for r in check_module(m, suggest=False).ops:
        assert all(i.warps_executing is None for i in r.instructions)


def test_a_convert_followed_by_more_work_is_run_by_every_warp():
    # max then min, each stored: the first convert's store does not end the kernel
    m = _module("tk_sink1_maxmin_bf16_w4")
    first, second = _converts(m)
    target = module_target(m)
    assert executing_warps(m, first, target) is None
    assert executing_warps(m, second, target).warps == 1
    loads = _loads(m)
    assert [w for _, w, _, _ in loads] == [None, 1]


def test_loads_wider_than_the_store_vector_stay_above():
    # two ld.shared.v4 feeding eight scalar st.global: no load feeds only the last store
    m = _module("tg_sink1_f32_w4")
    assert all(w is None and may is None for _, w, _, may in _loads(m))


def test_several_loads_give_both_outcomes():
    # eight LDS.128 each feeding one STG.128: the H100 sank the last one here (1 warp, and
    # only lanes 0-7 store: 1 of its 4 phases), hoisted it in tg_sink0
    for name, wavefronts in (("tg_sinkb6_cvt_f32_w8", 1), ("tg_sink0_f32_w4", 4)):
        [(per_thread, warps, _, may)] = _loads(_module(name))
        assert per_thread == 8 and warps is None
        assert may["per_thread"] == 1 and may["warps_executing"] == 1
        assert may["wavefronts_per_warp"] == wavefronts


def test_rule_needs_an_nvidia_target_and_pure_ops_up_to_the_return():
    amd = _module("tk_max1_f16_w8", lambda t: t.replace('"cuda:90"', '"hip:gfx942"')
                  .replace('"ttg.threads-per-warp" = 32', '"ttg.threads-per-warp" = 64'))
    assert executing_warps(amd, _converts(amd)[0], module_target(amd)) is None

    def barrier_before_return(text):
        return text.replace("    tt.return", "    gpu.barrier\n    tt.return", 1)

    m = _module("tk_max1_f16_w8", barrier_before_return)
    assert executing_warps(m, _converts(m)[0], module_target(m)) is None
    assert _loads(m)[0][1] is None

    def another_store_last(text):
        return text.replace("    tt.return", "    tt.store %1, %4 : tensor<16x!tt.ptr<f16>, "
                            "#blocked1>\n    tt.return", 1)

    m = _module("tk_max1_f16_w8", another_store_last)
    assert executing_warps(m, _converts(m)[0], module_target(m)) is None


@pytest.mark.parametrize("args, sunk", [((1, 1, 1, 1), 1), ((8, 4, 8, 4), 1), ((4, 2, 2, 4), 2),
                                        ((2, 4, 8, 1), 0), ((8, 4, 4, 4), 0), ((2, 4, 1, 8), 2)])
def test_sunk_loads_per_thread(args, sunk):
    assert sunk_loads_per_thread(*args) == sunk


@pytest.mark.parametrize("bad", [(0, 1, 1, 1), (1, True, 1, 1), (1, 1, 1.0, 1), (1, 1, 1, -2)])
def test_sunk_loads_per_thread_rejects_junk(bad):
    with pytest.raises(LayoutError, match="positive int"):
        sunk_loads_per_thread(*bad)


def _plain_walk(module, access):
    """The scan executing_warps made before its one-pass index: from the op's line to
    ``tt.return``, line by line (a reference for the index; ops × lines on big files)."""
    from linlayout.check.shared_memory import sunk_loads as sl

    name = access.result
    users = []
    for k, text in enumerate(module.text.split("\n")[access.line:], access.line + 1):
        text = sl._LOC.sub("", text).strip()
        if not text or text.startswith("//"):
            continue
        op = sl._op_name(text)
        if op == "tt.return":
            break
        names = sl._NAME.findall(text)
        if op == "tt.store":
            if users:
                return None
            if name in names:
                if len(names) < 2 or names[1] != name or names[0] == name \
                        or names[2:].count(name):
                    return None
                users.append(k)
            continue
        if op is None or not (op in sl.PURE_OPS or op.startswith(sl._PURE_PREFIXES)):
            return None
        if name in names[1:]:
            return None
    else:
        return None
    return users[0] if len(users) == 1 else None


def test_the_one_pass_index_finds_the_stores_a_plain_walk_finds():
    found = 0
    for path in sorted(KERNELS.glob("*.ttgir")):
        module = read_ttgir(path.read_text(encoding="utf-8"))
        target = module_target(module)
        for a in find_accesses(module):
            if a.kind not in ("convert", "load") or not a.result:
                continue
            got = executing_warps(module, a, target)
            want = _plain_walk(module, a)
            if got is not None:
                assert got.line == want
                found += 1
            elif want is not None:  # a store found, but no free bits (or not NVIDIA)
                stored = a.destination if a.kind == "convert" else a.distributed
                masks = stored.layout.free_variable_masks()
                assert not (masks.get("warp") or masks.get("lane")) or not target.is_nvidia
    assert found >= 10


def test_the_index_is_built_once_per_module(monkeypatch):
    # 400 loads of one buffer: each scanned the text from its line (20,000 took minutes)
    from linlayout.check.shared_memory import sunk_loads as sl

    built = []
    real = sl._build_tail_index
    monkeypatch.setattr(sl, "_build_tail_index", lambda text: built.append(1) or real(text))
    tr = (Path(__file__).resolve().parents[2] / "data" / "ttgir" / "transpose2.ttgir").read_text()
    load = ("%yy = ttg.local_load %tile : !ttg.memdesc<64x64xf16, #shared, #smem, mutable> -> "
            "tensor<64x64xf16, #blocked1>\n")
    module = read_ttgir(tr.replace("    tt.return", ("    " + load) * 400 + "    tt.return"))
    report = check_module(module, suggest=False)
    assert len(report.ops) > 400 and len(built) == 1
