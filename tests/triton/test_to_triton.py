"""``linlayout.triton.to_triton``: a shared layout printed as Triton text, exactly."""

from __future__ import annotations

import itertools
import random

import pytest

from linlayout import LayoutError, LinearLayout, examples, synthesize_swizzle
from linlayout.triton import encodings as L
from linlayout.triton import express, parse_encoding, to_offset_layout, to_triton_text


def _roundtrip(memory: LinearLayout, bits: int | None, **kw) -> str:
    text = to_triton_text(memory, bits, **kw)
    shape = [memory.out_dims[f"dim{i}"] for i in range(len(memory.out_dims))]
    assert to_offset_layout(parse_encoding(text).to_linear_layout(shape)) == \
        to_offset_layout(memory)
    return text


def test_swizzled_layouts_come_back_as_swizzled_shared():
    rng = random.Random(3)
    for _ in range(150):
        rank = rng.choice([2, 2, 3])
        order = list(range(rank))
        rng.shuffle(order)
        enc = L.swizzled_shared(1 << rng.randint(0, 3), 1 << rng.randint(0, 3),
                                1 << rng.randint(0, 3), order)
        shape = [1 << rng.randint(2, 6) for _ in range(rank)]
        text = _roundtrip(enc.to_linear_layout(shape), None)
        assert text.startswith("#ttg.swizzled_shared")


@pytest.mark.parametrize("sw, bits, tr", list(itertools.product((0, 32, 64, 128),
                                                                (8, 16, 32, 64),
                                                                (False, True))))
def test_nvmma_layouts_come_back_as_nvmma_shared(sw, bits, tr):
    mem = L.nvmma_shared(sw, bits, transposed=tr).to_linear_layout([128, 128])
    text = _roundtrip(mem, bits, prefer="nvmma")
    assert text.startswith("#ttg.nvmma_shared")
    assert _roundtrip(mem, bits)  # swizzled_shared first when it also matches


def test_synthesized_layout_prints_and_parses_back():
    ex = examples.get("transpose")
    r = synthesize_swizzle(ex.store, ex.load, element_bits=32)
    text = _roundtrip(r.layout, 32)
    assert text.startswith("#ttg.")


def test_arbitrary_bijection_falls_back_to_shared_linear():
    mem = LinearLayout({"offset": [[1, 1], [0, 1], [2, 0], [0, 2], [4, 0], [0, 4]]},
                       out_dims={"dim0": 8, "dim1": 8})
    text = _roundtrip(mem, 16)
    assert text == ("#ttg.shared_linear<{offset = [[1, 1], [0, 1], [2, 0], [0, 2], [4, 0], "
                    "[0, 4]]}, alignment = 16>")
    assert isinstance(express(mem, 16), L.SharedLinearEncoding)


def test_bad_layouts_raise_layout_error():
    with pytest.raises(LayoutError, match="dim0"):
        to_triton_text(LinearLayout({"offset": [[1]]}, out_dims={"m": 2}))
    with pytest.raises(LayoutError, match="bijection"):
        to_triton_text(LinearLayout({"offset": [[1], [1]]}, out_dims={"dim0": 4}))
    with pytest.raises(LayoutError, match="prefer"):
        to_triton_text(L.nvmma_shared(0, 16).to_linear_layout([8, 8]), 16, prefer="fastest")
    with pytest.raises(LayoutError, match="LinearLayout"):
        to_triton_text("#ttg.swizzled_shared<{}>")  # type: ignore[arg-type]


@pytest.mark.parametrize("bits", ["16", 16.0, True, 0, -16, 12])
def test_an_element_width_that_is_not_a_power_of_two_is_refused(bits):
    """``element_bits`` None or a positive power of two; anything else was silently ignored
    (the nvmma candidates skipped, a ``shared_linear`` printed), in the Triton text, the Gluon
    source and the synthesis report's interop forms alike."""
    from linlayout.show.synthesis import interop
    from linlayout.triton import to_gluon

    memory = L.nvmma_shared(128, 16).to_linear_layout([64, 64])
    for call in (lambda: to_triton_text(memory, bits), lambda: to_gluon(memory, bits),
                 lambda: interop(memory, bits)):
        with pytest.raises(LayoutError, match="element_bits"):
            call()
    assert to_triton_text(memory, 16, prefer="nvmma").startswith("#ttg.nvmma_shared")
    # 4-bit elements: no nvmma candidate, no error
    assert to_triton_text(memory, 4, prefer="nvmma").startswith("#ttg.swizzled_shared")
    assert interop(memory, 16, tma=True)["triton"].startswith("#ttg.nvmma_shared")
