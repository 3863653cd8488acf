"""Triton's NVMMASharedLayout (the layout Triton gives TMA/wgmma tiles) equals tma_tile_layout.

An independent oracle where Triton is installed: Triton 3.9's Gluon builder converts an
``NVMMASharedLayout(swizzle_byte_width, element_bitwidth, transposed)`` to a linear layout
(``offset_bases``: element offset -> [dim0, dim1]). It runs in a subprocess because Triton aborts
the interpreter on shapes it rejects. Skipped without Triton.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from linlayout import LinearLayout, ptx

CASES = [  # (swizzle bytes, element bits, [dim0, dim1], transposed)
    (128, 16, [8, 64], False), (128, 16, [16, 128], False), (64, 16, [8, 32], False),
    (32, 8, [8, 32], False), (128, 32, [8, 32], False), (0, 16, [8, 8], False),
    (0, 16, [8, 64], False), (128, 16, [64, 8], True), (128, 16, [128, 32], True),
    (64, 8, [16, 64], False), (32, 16, [32, 16], True),
]

PROGRAM = r"""
import json, sys
from triton._C.libtriton import ir, gluon_ir
import triton.experimental.gluon.language as gl
ctx = ir.context(); ir.load_dialects(ctx)
b = gluon_ir.GluonOpBuilder(ctx)
out = []
for sw, eb, shape, tr in json.loads(sys.argv[1]):
    lay = gl.NVMMASharedLayout(swizzle_byte_width=sw, element_bitwidth=eb, rank=2, transposed=tr)
    out.append(b.to_linear_layout(lay._to_ir(b), shape).offset_bases)
print("RESULT " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def triton_bases():
    pytest.importorskip("triton")
    try:
        proc = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(CASES)],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip("Triton took too long to start")
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        pytest.skip(f"this Triton cannot build NVMMA layouts here: {proc.stderr[-300:]}")
    return json.loads(lines[0][len("RESULT "):])


@pytest.mark.parametrize("i", range(len(CASES)))
def test_nvmma_shared_equals_tma_tile(triton_bases, i):
    sw, eb, (d0, d1), transposed = CASES[i]
    theirs = LinearLayout({"offset": triton_bases[i]}, {"dim0": d0, "dim1": d1})
    mode = {0: "none", 32: "32B", 64: "64B", 128: "128B"}[sw]
    if transposed:  # dim0 contiguous: build with the dims swapped, then swap back
        t = ptx.tma_tile_layout(mode, element_bits=eb, rows=d1, cols=d0,
                                box_inner_bytes=None if sw else d0 * eb // 8)
        ours = LinearLayout({"offset": [[b[1], b[0]] for b in t.bases["offset"]]},
                            {"dim0": d0, "dim1": d1})
    else:
        ours = ptx.tma_tile_layout(mode, element_bits=eb, rows=d0, cols=d1,
                                   box_inner_bytes=None if sw else d1 * eb // 8)
    assert ours == theirs
    got = ptx.match_tma_mode(theirs, eb)
    assert got is not None
    assert got.inner_dim == ("dim0" if transposed else "dim1")
    if sw:
        assert got.mode.value == mode
