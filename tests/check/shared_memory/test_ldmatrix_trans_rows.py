"""A ``.trans`` ``ldmatrix``/``stmatrix`` of Triton 3.9 pairs the rows of each 8×8 matrix in the
register ``getLdStMatrixRowPermutation`` picks (the least-conflicting one on a 128-byte row of
banks), not in register 0: ``linlayout check`` counts the access with the registers in that
order (:func:`linlayout.lowering.vectorise.triton_matrix_order`).

* ``tr9_smem_f16_w4`` (``papers/hardware/triton``): measured on an H100 at 8 wavefronts per
  ``LDSM.16.MT88.4`` per warp; with register 0 as the row pair check said 16.
* the ``ldmatrix_trans_rows`` fixture (``papers/triton_lowering/ldmatrix_trans_rows.py``):
  random swizzled buffers read by ``ldmatrix…trans``, each instruction's wavefronts per warp
  counted from the row addresses Triton's PTX computes for every thread.
* the rule is the bank-model minimum: with 128-byte rows of banks the picked register's
  degree is the least over every choice of row-pair register (brute force, by the replay).
"""

from __future__ import annotations

import gzip
import json
import random

import pytest

from linlayout import LinearLayout, bank_conflicts, simulate_bank_access
from linlayout.check.analysis import check_module
from linlayout.check.render import op_dict
from linlayout.lowering.vectorise import access_map, matrix_row_register, triton_matrix_order
from linlayout.triton.ttgir import read_ttgir

from tests.support import DATA

TR9 = """\
#blocked = #ttg.blocked<{sizePerThread = [1, 2], threadsPerWarp = [32, 1], warpsPerCTA = [2, 2], order = [0, 1]}>
#blocked1 = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>
#shared = #ttg.swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 4 : i32, ttg.target = "cuda:90", "ttg.threads-per-warp" = 32 : i32, "ttng.two-ctas" = false} {
  tt.func public @g_smem(%X: !tt.ptr<f16> {tt.divisibility = 16 : i32}, %Y: !tt.ptr<f16> {tt.divisibility = 16 : i32}) attributes {noinline = false} {
    %cst = arith.constant dense<32> : tensor<64x1xi32, #blocked>
    %cst_0 = arith.constant dense<32> : tensor<64x1xi32, #blocked1>
    %rm = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>>
    %rn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>>
    %x = tt.expand_dims %rm {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked}>> -> tensor<64x1xi32, #blocked>
    %x_1 = arith.muli %x, %cst : tensor<64x1xi32, #blocked>
    %x_2 = tt.splat %X : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked>
    %x_3 = tt.addptr %x_2, %x_1 : tensor<64x1x!tt.ptr<f16>, #blocked>, tensor<64x1xi32, #blocked>
    %x_4 = tt.expand_dims %rn {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked}>> -> tensor<1x32xi32, #blocked>
    %x_5 = tt.broadcast %x_3 : tensor<64x1x!tt.ptr<f16>, #blocked> -> tensor<64x32x!tt.ptr<f16>, #blocked>
    %x_6 = tt.broadcast %x_4 : tensor<1x32xi32, #blocked> -> tensor<64x32xi32, #blocked>
    %x_7 = tt.addptr %x_5, %x_6 : tensor<64x32x!tt.ptr<f16>, #blocked>, tensor<64x32xi32, #blocked>
    %x_8 = tt.load %x_7 : tensor<64x32x!tt.ptr<f16>, #blocked>
    %t = ttg.local_alloc : () -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    ttg.local_store %x_8, %t : tensor<64x32xf16, #blocked> -> !ttg.memdesc<64x32xf16, #shared, #smem, mutable>
    %y = ttg.local_load %t : !ttg.memdesc<64x32xf16, #shared, #smem, mutable> -> tensor<64x32xf16, #blocked1>
    %dm = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>>
    %dn = tt.make_range {end = 32 : i32, start = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>>
    %0 = tt.expand_dims %dm {axis = 1 : i32} : tensor<64xi32, #ttg.slice<{dim = 1, parent = #blocked1}>> -> tensor<64x1xi32, #blocked1>
    %1 = arith.muli %0, %cst_0 : tensor<64x1xi32, #blocked1>
    %2 = tt.splat %Y : !tt.ptr<f16> -> tensor<64x1x!tt.ptr<f16>, #blocked1>
    %3 = tt.addptr %2, %1 : tensor<64x1x!tt.ptr<f16>, #blocked1>, tensor<64x1xi32, #blocked1>
    %4 = tt.expand_dims %dn {axis = 0 : i32} : tensor<32xi32, #ttg.slice<{dim = 0, parent = #blocked1}>> -> tensor<1x32xi32, #blocked1>
    %5 = tt.broadcast %3 : tensor<64x1x!tt.ptr<f16>, #blocked1> -> tensor<64x32x!tt.ptr<f16>, #blocked1>
    %6 = tt.broadcast %4 : tensor<1x32xi32, #blocked1> -> tensor<64x32xi32, #blocked1>
    %7 = tt.addptr %5, %6 : tensor<64x32x!tt.ptr<f16>, #blocked1>, tensor<64x32xi32, #blocked1>
    tt.store %7, %y : tensor<64x32x!tt.ptr<f16>, #blocked1>
    tt.return
  }
}
"""


def _matrix_entries(ttgir: str, name: str) -> list[dict]:
    report = check_module(read_ttgir(ttgir, name), suggest=False)
    return [i for r in report.ops for i in op_dict(r)["instructions"]
            if i.get("ptx", "").startswith(("ldmatrix", "stmatrix"))]


def test_tr9_ldmatrix_trans_is_8_wavefronts_per_instruction():
    (e,) = _matrix_entries(TR9, "tr9_smem_f16_w4.ttgir")
    assert e["ptx"] == "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16"
    assert e["per_thread"] == 2
    assert e["degree"] == 2
    assert e["wavefronts_per_warp"] == 16  # 8 per instruction, as the H100 counted


def test_tr9_row_register_is_the_one_tritons_ptx_uses():
    # blocked1 on 64x32: registers (0,8), (0,16), (16,0), (32,0); the buffer keeps dim0
    # contiguous (64 elements = 128 bytes per dim1 index), swizzled in 8-element chunks
    dist = LinearLayout({"register": [[0, 8], [0, 16], [16, 0], [32, 0]],
                         "lane": [[0, 1], [0, 2], [1, 0], [2, 0], [4, 0]],
                         "warp": [[0, 4], [8, 0]]}, {"dim0": 64, "dim1": 32})
    mem = _swizzled_64x32()
    m = access_map(dist, mem, 16)
    assert m.registers == (512, 1024, 16, 32)
    # Triton 3.9's PTX: lane 1's row address is lane 0's + 32 bytes = register 2's offset
    assert matrix_row_register(m) == 2
    ordered = triton_matrix_order(dist, mem, 16, "ldmatrix.x4.trans")
    assert ordered.bases["register"] == [[16, 0], [0, 8], [0, 16], [32, 0]]
    rep = bank_conflicts(ordered, mem, element_bits=16, instruction="ldmatrix.x4.trans")
    assert (rep.degree, rep.wavefronts_per_instruction) == (2, 8)
    # register 0 as the row pair (the PTX reading of the layout as given): 16
    rep0 = bank_conflicts(dist, mem, element_bits=16, instruction="ldmatrix.x4.trans")
    assert (rep0.degree, rep0.wavefronts_per_instruction) == (4, 16)
    # non-transposed instructions and plain accesses keep the layout
    assert triton_matrix_order(dist, mem, 16, "ldmatrix.x4") is dist


def _swizzled_64x32() -> LinearLayout:
    """``swizzled_shared<{vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1]}>`` of 64x32:
    offset = n*64 + (m ^ 8*((n // 2) % 4))."""
    offs = [[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [32, 0],
            [0, 1], [8, 2], [16, 4], [0, 8], [0, 16]]
    return LinearLayout({"offset": offs}, {"dim0": 64, "dim1": 32})


def _fixture() -> dict:
    return json.loads(gzip.decompress((DATA / "triton_ldmatrix_trans_rows.json.gz").read_bytes()))


def test_the_fixture_was_written_by_triton_3_9():
    doc = _fixture()
    assert doc["triton_version"].startswith("3.9")
    assert len(doc["cases"]) >= 20


@pytest.mark.parametrize("name", sorted(_fixture()["cases"]))
def test_check_counts_the_rows_tritons_ptx_addresses(name):
    case = _fixture()["cases"][name]
    entries = [e for e in _matrix_entries(case["ttgir"], name) if e["ptx"].startswith("ldmatrix")]
    got = []
    for e in entries:
        got += [e["wavefronts_per_warp"] // e["per_thread"]] * e["per_thread"]
    # every warp issues the same addresses up to a translation: warp 0 stands for all
    want = [r["wavefronts_per_warp"][0] for r in case["ldmatrix"]]
    assert all(len(set(r["wavefronts_per_warp"])) == 1 for r in case["ldmatrix"])
    assert sorted(got) == sorted(want)


def _random_trans_access(rng: random.Random):
    """A 16-bit .trans access of a 16x(8·2^k) tile: lanes 2, 3, 4 along the 16-byte row (dim0
    bits 0-2), lanes 0, 1 and the registers on other tensor bits in random order, the memory
    a random invertible map keeping dim0 bits 0-2 as offset bits 0-2 (every other offset
    bit an XOR of the other tensor bits: a swizzle of whole 16-byte rows)."""
    # tensor bits: dim0 has 4 bits (16), dim1 has 5 (32): 9 bits, 3 of them the row
    others = [[8, 0]] + [[0, 1 << i] for i in range(5)]
    rng.shuffle(others)
    lanes = others[:2]
    regs = others[2:]
    dist = LinearLayout({"register": regs, "lane": lanes + [[1, 0], [2, 0], [4, 0]]},
                        {"dim0": 16, "dim1": 32})
    # memory: offset bits 0-2 = dim0 bits 0-2, the rest a random invertible mix
    rest = [[8, 0]] + [[0, 1 << i] for i in range(5)]
    rng.shuffle(rest)
    mixed = []
    for i, b in enumerate(rest):
        v = list(b)
        for c in rest[:i]:
            if rng.random() < 0.3:
                v = [v[0] ^ c[0], v[1] ^ c[1]]
        mixed.append(v)
    mem = LinearLayout({"offset": [[1, 0], [2, 0], [4, 0]] + mixed}, {"dim0": 16, "dim1": 32})
    return dist, mem


@pytest.mark.parametrize("seed", range(12))
def test_tritons_pick_is_the_least_degree_by_replay(seed):
    rng = random.Random(9100 + seed)
    done = 0
    while done < 5:
        dist, mem = _random_trans_access(rng)
        if not mem.is_invertible:  # the XOR mix is triangular: always invertible
            continue
        done += 1
        instr = "ldmatrix.x1.trans"
        picked = triton_matrix_order(dist, mem, 16, instr)
        closed = bank_conflicts(picked, mem, element_bits=16, instruction=instr)
        assert closed == simulate_bank_access(picked, mem, element_bits=16, instruction=instr)
        regs = dist.bases["register"]
        degrees = []
        for j in range(len(regs)):
            order = [regs[j]] + regs[:j] + regs[j + 1:]
            lay = LinearLayout({**dist.bases, "register": order}, dict(dist.out_dims))
            degrees.append(simulate_bank_access(lay, mem, element_bits=16,
                                                instruction=instr).degree)
        assert closed.degree == min(degrees)
