"""linlayout.show.copy_picture: the first instruction of a copy, split into wavefronts.

The split is checked against the counter (as many wavefronts as ``bank_conflicts`` counts
per instruction) and against the bank rule (a wavefront asks at most one word of each bank).
"""

from __future__ import annotations

import random
from collections import defaultdict

import pytest

from linlayout import bank_conflicts, cute, examples, synthesize_swizzle

from tests.support import random_memory_vectorisable, random_distributed, random_out_bits

mpl = pytest.importorskip("matplotlib")

from linlayout.show.copy_picture import copy_wavefronts, draw_copy  # noqa: E402
from linlayout.show.pictures import save  # noqa: E402


def _check(cw, element_bits):
    rep = cw.report
    assert cw.wavefronts == rep.wavefronts_per_instruction
    banks = defaultdict(set)
    for word, wfs in cw.words.items():
        for wf in wfs:
            assert word % cw.num_banks not in banks[wf]  # one word per bank per wavefront
            banks[wf].add(word % cw.num_banks)
    assert set(banks) == set(range(cw.wavefronts))


def test_transpose_load_on_row_major_is_16_wavefronts():
    ex = examples.get("transpose")
    rm = examples.row_major(ex.store.out_dims)
    cw = copy_wavefronts(ex.load, rm, element_bits=32)
    _check(cw, 32)
    assert cw.wavefronts == 16 and cw.wavefront_lanes[0] == (0, 16)
    cw = copy_wavefronts(ex.store, rm, element_bits=32)
    assert cw.wavefronts == 1 and len(cw.elements) == 32


def test_ldmatrix_phases_are_matrices():
    g = examples.get("gemm-operand")
    rm = examples.row_major(g.load.out_dims)
    cw = copy_wavefronts(g.load, rm, element_bits=16, instruction="ldmatrix.x4")
    _check(cw, 16)
    assert cw.wavefronts == 32 and len(cw.elements) == 256
    r = synthesize_swizzle(g.store, g.load, element_bits=16, instructions="auto")
    cw = copy_wavefronts(g.load, r.layout, element_bits=16, instruction="ldmatrix.x4")
    _check(cw, 16)
    assert cw.wavefronts == 4
    atom = cute.atom("sm80_16x8x16.A")
    mem = cute.parse_layout("(_64,_64):(_64,_1)")
    cw = copy_wavefronts(atom, mem, element_bits=16, instruction="ldmatrix.x4")  # at the origin
    _check(cw, 16)


def test_random_copies_match_the_counter():
    rng = random.Random(30)
    for _ in range(40):
        out_bits = random_out_bits(rng, rng.randint(6, 9))
        side = random_distributed(rng, out_bits, unit=rng.random() < 0.5, warp_bits=0,
                                  broadcast=0.1)
        mem = random_memory_vectorisable(rng, side, unit=rng.random() < 0.5)
        bits = rng.choice([8, 16, 32, 64])
        cw = copy_wavefronts(side, mem, element_bits=bits)
        _check(cw, bits)
        assert cw.wavefronts == bank_conflicts(side, mem, element_bits=bits).wavefronts_per_instruction


def test_draw_copy_outlines_one_colour_per_wavefront(tmp_path):
    ex = examples.get("transpose")
    rm = examples.row_major(ex.store.out_dims)
    fig = draw_copy(ex.load, rm, element_bits=32)
    ax_t, ax_m = fig.axes[:2]
    labels = [t.get_text() for t in ax_m.get_legend().get_texts()]
    assert len(labels) == 16 and labels[0] == "wavefront 0: lanes 0, 16"
    from matplotlib.collections import PathCollection

    outlines = [c for c in ax_m.collections if isinstance(c, PathCollection)]
    assert len(outlines) == 1  # one artist: a path per wavefront, a box per word
    paths = outlines[0].get_paths()
    assert len(paths) == 16 and all(len(p.vertices) == 2 * 5 for p in paths)
    colours = [tuple(c) for c in outlines[0].get_edgecolor()]
    assert len(colours) == 16 and len(set(colours)) == 10  # ten colours cycled
    assert "16 wavefront(s)" in fig._suptitle.get_text()
    save(fig, str(tmp_path / "copy.png"))
    assert (tmp_path / "copy.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_amd_wavefront_copy_of_a_triton_mfma_layout():
    from linlayout import LayoutError
    from linlayout.hardware.model import AMD_CDNA3, AMD_CDNA4
    from linlayout.triton.encodings import amd_mfma

    L = amd_mfma(3, [2, 2], [32, 32, 8], True).to_linear_layout([64, 64])
    rm = examples.row_major(L.out_dims)
    for hw in (AMD_CDNA3, AMD_CDNA4):
        cw = copy_wavefronts(L, rm, element_bits=16, hardware=hw)
        _check(cw, 16)
        assert cw.wavefronts == bank_conflicts(L, rm, element_bits=16,
                                               hardware=hw).wavefronts_per_instruction
        assert {lane for p in cw.phase_lanes for lane in p} == set(range(64))
        assert {v[0] for v in cw.elements.values()} == set(range(64))
    fig = draw_copy(cute.atom("amd_mfma_f32_32x32x8_f16.A"),
                    cute.parse_layout("(_64,_64):(_64,_1)"), element_bits=16,
                    hardware=AMD_CDNA3)
    assert fig.axes[1].images[0].get_array().shape[1] == 32  # 32 LDS banks
    with pytest.raises(LayoutError, match="hardware=AMD_CDNA3"):
        copy_wavefronts(L, rm, element_bits=16)  # NVIDIA's 32-lane warp
