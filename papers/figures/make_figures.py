"""Draw the pictures of docs/library.md into papers/figures/ (needs matplotlib:
pip install "linlayout[plot]").

* ``article_three_layouts.png`` — the 16×32 fp32 transpose of "Swizzle by hand, swizzle by
  algebra" in shared memory under the article's three swizzles (row-major, XOR m, XOR 2m),
  coloured by bank as in the article (hue = bank ÷ 2, odd banks darker), with the elements the
  load's first instruction touches outlined (threads 0–15 black, 16–31 red) and the wavefront
  counts from :func:`linlayout.bank_conflicts`: 16, 2, 1.
* ``swizzle_before_after.png`` — a real Triton conversion, a 64×64 fp16 tile from a blocked
  layout (8 contiguous elements per thread) to the mma v2 accumulator layout (layouts from
  Triton 3.9, ``papers/linear_layouts/data/triton_layouts.json``): row-major shared memory
  (load 8-way) against :func:`linlayout.synthesize_swizzle`'s layout (1-way), first 16 rows.
* ``transpose_layouts.png`` — the article's two access layouts (colour = lane, number =
  register, thread 9 ringed) and the XOR-2m memory layout as an F₂ matrix (bank | segment).

Run:  python papers/figures/make_figures.py
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

from linlayout import LinearLayout, bank_conflicts, examples
from linlayout.show import pictures as P

HERE = Path(__file__).resolve().parent
MN = {"dim0": "m", "dim1": "n"}
AXES = {"dim0": "m (row, dim0)", "dim1": "n (column, dim1)"}


def article_memory(shift: int | None) -> LinearLayout:
    """offset = 32·m + (n ⊕ (m << shift)); None = row-major."""
    bank = [[0, 1 << i] for i in range(5)]
    seg = [[1 << j, 0 if shift is None else 1 << (j + shift)] for j in range(4)]
    return LinearLayout({"offset": bank + seg}, {"dim0": 16, "dim1": 32})


def three_layouts(path: Path) -> None:
    from matplotlib.figure import Figure

    ex = examples.get("transpose")
    fig = Figure(figsize=(11, 15.5), layout="constrained")
    axes = fig.subplots(3, 1)
    for ax, (name, shift) in zip(axes, (("row-major: offset = 32·m + n", None),
                                        ("XOR m: offset = 32·m + (n ⊕ m)", 0),
                                        ("XOR 2m: offset = 32·m + (n ⊕ 2m)", 1))):
        mem = article_memory(shift)
        groups, load = P.instruction_elements(ex.load, mem, 32)
        groups = {k.replace("load, lanes", "load step 0, threads"): v for k, v in groups.items()}
        store = bank_conflicts(ex.store, mem, element_bits=32)
        P.draw_memory(mem, 32, highlight=groups, label="bank", ax=ax, legend=ax is axes[-1],
                      names=AXES,
                      title=f"{name}    store {store.wavefronts_per_instruction}, load {load.wavefronts_per_instruction} "
                            f"wavefront(s) per instruction")
    fig.suptitle("16×32 fp32 transpose in shared memory, colour = bank (number = bank)",
                 fontsize=11)
    P.save(fig, str(path))


def before_after(path: Path) -> None:
    data = json.loads((HERE.parent / "linear_layouts" / "data" / "triton_layouts.json")
                      .read_text(encoding="utf-8"))
    z = next(z for z in data["zoo"] if z["name"].startswith("blocked->mma2"))
    src, dst = LinearLayout.from_dict(z["src"]), LinearLayout.from_dict(z["dst"])
    fig = P.draw_swizzle(src, dst, z["bitwidth"], max_rows=16,
                         titles=("before: row-major shared memory",
                                 "after: linlayout.synthesize_swizzle"))
    attr = lambda a: a.replace(", cga_layout=[]", "")  # noqa: E731
    fig.suptitle(f"Triton convert_layout {attr(z['src_attr'])}\n→ {attr(z['dst_attr'])}, "
                 "64×64 fp16 (first 16 rows; colour = bank)", fontsize=10)
    P.save(fig, str(path))


def transpose_layouts(path: Path) -> None:
    from matplotlib.figure import Figure

    ex = examples.get("transpose")
    fig = Figure(figsize=(11, 17), layout="constrained")
    a, b, m = fig.subplots(3, 1, height_ratios=[6.5, 6.5, 4.5])
    P.draw_distributed(ex.store, ring=9, ax=a, names=AXES,
                       title="A, the store: colour = lane, number = register; lane 9 ringed")
    P.draw_distributed(ex.load, ring=9, ax=b, names=AXES,
                       title="B, the load: colour = lane, number = register; lane 9 ringed")
    P.draw_matrix(article_memory(1), element_bits=32, names=MN, ax=m,
                  title="M, the XOR-2m memory layout: bank bits → n, segment bit j → m_j ⊕ n_(j+1)")
    P.save(fig, str(path))


def main() -> int:
    if importlib.util.find_spec("matplotlib") is None:
        print(P.INSTALL_HINT, file=sys.stderr)
        return 2
    for name, fn in (("article_three_layouts.png", three_layouts),
                     ("swizzle_before_after.png", before_after),
                     ("transpose_layouts.png", transpose_layouts)):
        fn(HERE / name)
        print(f"wrote papers/figures/{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
