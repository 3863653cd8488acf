"""``linlayout synthesize``: the optimal shared-memory layout for a store and its loads."""

from __future__ import annotations

import argparse

from .. import examples
from ..show.formula import offset_formula
from ..ptx import match_tma_mode
from ..errors import LayoutError
from ..swizzle import SwizzleResult, synthesize_swizzle
from ..swizzle.padding import PaddingResult, synthesize_padding
from ..triton.to_triton import to_triton_text
from .common import CliError, add_hardware_args, dumps, hardware_kwargs, load_layout, table


#: Display names of tensor dims for built-in examples (the article calls them m and n).
EXAMPLE_NAMES = {"transpose": {"dim0": "m", "dim1": "n"}}


def side_rows(names: list[str], reports: list, counted: tuple[bool, ...] = ()) -> list[tuple]:
    """One table row per side: instruction, vector (elements), degree, and the warp's totals
    against the floors; a side not counted (a TMA copy) is marked so."""
    rows = []
    counted = counted or (True,) * len(reports)
    for name, rep, c in zip(names, reports, counted):
        if not c:
            rows.append((name, "TMA copy (not counted)", "-", "-", "-", "-", "-", "-"))
            continue
        rows.append((name, rep.instruction, rep.vector_elems, rep.degree,
                     rep.instructions_per_warp, rep.wavefronts_per_warp, rep.wavefront_floor,
                     rep.bytes_per_warp))
    return rows


#: The header of :func:`side_rows`.
SIDE_HEADER = ("side", "instruction", "vector (elems)", "degree", "instr/warp",
               "wavefronts/warp", "floor (wavefronts)", "bytes/warp")


def interop(memory, element_bits: int) -> dict:
    """The layout as Triton attribute text, Gluon source and CuTe text: ``{"triton", "gluon",
    "cute"}``, each None (with ``"cute_reason"`` for CuTe) where it has no such form."""
    from ..cute import NoCuteFormError, to_cute
    from ..errors import LayoutError
    from ..triton import to_gluon, to_triton_text

    out: dict = {}
    try:
        out["triton"] = to_triton_text(memory, element_bits)
        out["gluon"] = to_gluon(memory, element_bits)
    except LayoutError:
        out["triton"] = out["gluon"] = None
    try:
        out["cute"] = to_cute(memory)
    except NoCuteFormError as exc:
        out["cute"], out["cute_reason"] = None, str(exc)
    return out


def _interop_lines(forms: dict) -> list[str]:
    cute = forms["cute"] or f"none — {forms['cute_reason']}"
    return [f"Triton: {forms['triton']}", f"Gluon:  {forms['gluon']}", f"CuTe:   {cute}"]


def _synthesize_text(title: str, result: SwizzleResult, formula: str,
                     tma_line: str | None = None, forms: dict | None = None) -> str:
    names = ["store"] + (["load"] if len(result.loads) == 1 else
                         [f"load {i}" for i in range(len(result.loads))])
    rows = side_rows(names, list(result.reports), result.counted)
    weighted = any(w != 1 for w in result.weights)
    rows.append(("total" + (" (weighted)" if weighted else ""), "", "", "",
                 result.instructions_per_warp, result.wavefronts_per_warp,
                 result.wavefront_floor, ""))
    b = result.bound
    floor_word = "yes" if result.at_floor else "no"
    summary = (f"conflict-free: {'yes' if result.conflict_free else 'no'}; at the bandwidth "
               f"floor: {floor_word} ({result.wavefronts_per_warp} wavefronts per warp, floor "
               f"{result.wavefront_floor})")
    if result.optimal:
        verdict = (f"proven optimal: yes — no layout beats {b.wavefronts_per_warp} wavefronts "
                   f"and {b.instructions_per_warp} instructions per warp")
    else:
        gw, gi = result.gap
        verdict = (f"proven optimal: no — the bound is {b.wavefronts_per_warp} wavefronts and "
                   f"{b.instructions_per_warp} instructions per warp; this layout is {gw} "
                   f"wavefronts and {gi} instructions above it")
    return "\n".join([
        title,
        "",
        "shared-memory layout (offset bits -> tensor coordinates):",
        str(result.layout),
        "",
        formula,
        *([tma_line] if tma_line else []),
        *(_interop_lines(forms) if forms else []),
        "",
        table(SIDE_HEADER, rows),
        "",
        summary,
        verdict,
        *[f"note: {n}" for n in result.notes],
        f"bound: {b.argument}",
    ])


def _instructions(text: str | None, nsides: int) -> object:
    """``--instructions``: None, ``auto``, or one comma-separated entry per side."""
    if text is None or text == "auto":
        return text
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != nsides:
        raise CliError(f"--instructions needs 'auto' or {nsides} comma-separated entries "
                       f"(store first, then each load), got {text!r}")
    return [None if p in ("", "none", "ld/st", "ld/st.shared") else p for p in parts]


def run(args: argparse.Namespace) -> int:
    """Run the subcommand; returns the exit status (errors raise, ``main`` reports them)."""
    if args.src or args.dst:
        if args.example:
            raise CliError("give either --example or --src/--dst, not both")
        if not (args.src and args.dst):
            raise CliError("--src and --dst go together: give both layout files")
        if args.element_bits is None:
            raise CliError("--element-bits is required with --src/--dst (e.g. 16 for fp16)")
        store = load_layout(args.src, "--src", args.element_bits)
        loads = [load_layout(path, "--dst", args.element_bits) for path in args.dst]
        load = loads[0] if len(loads) == 1 else loads
        element_bits = args.element_bits
        names = None
        title = (f"synthesize: store {args.src}, load {', '.join(args.dst)}, "
                 f"{element_bits}-bit elements")
        example = None
    else:
        example = args.example or examples.DEFAULT
        ex = examples.get(example)
        store, load = ex.store, ex.load
        element_bits = ex.element_bits if args.element_bits is None else args.element_bits
        names = EXAMPLE_NAMES.get(example)
        title = f"example {example} ({element_bits}-bit elements): {ex.description}"
    nsides = 1 + (len(load) if isinstance(load, list) else 1)
    result = synthesize_swizzle(store, load, element_bits=element_bits, **hardware_kwargs(args),
                                objective=args.objective, weights=args.weights,
                                instructions=_instructions(args.instructions, nsides),
                                fixed=args.fixed)
    formula = offset_formula(result.layout, names)
    tma = match_tma_mode(result.layout, element_bits)
    forms = interop(result.layout, element_bits)
    padding = None
    if args.padding:
        padding = synthesize_padding(store, load, element_bits=element_bits,
                                     **hardware_kwargs(args), objective=args.objective,
                                     weights=args.weights)
    if args.json:
        out = result.to_dict()
        out["formula"] = formula
        out["tma_mode"] = tma.to_dict() if tma else None
        out.update(forms)
        if example is not None:
            out["example"] = example
        if padding is not None:
            out["padding"] = padding.to_dict()
            out["padding"]["triton"] = _padded_text(padding)
            out["choice"] = _choice(result, padding, args.objective)[0]
        print(dumps(out))
    else:
        # Only a positive note: "not realisable" would be noise for most synthesized layouts
        # (the JSON always carries "tma_mode", null when no TMA mode writes the layout).
        print(_synthesize_text(title, result, formula, tma.describe() if tma else None, forms))
        if padding is not None:
            print()
            print(_padding_text(result, padding, args.objective))
    return 0


def _padded_text(padding: PaddingResult) -> str | None:
    try:
        return to_triton_text(padding.memory)
    except LayoutError:
        return None


def _choice(result: SwizzleResult, padding: PaddingResult, objective: str) -> tuple[str, str]:
    """("swizzle" | "padding", why): the cheaper by the objective, the swizzle on a tie."""
    s = (result.wavefronts_per_warp, result.instructions_per_warp)
    p = (padding.wavefronts_per_warp, padding.instructions_per_warp)
    if objective == "instructions":
        s, p = s[::-1], p[::-1]
    if p < s:
        return "padding", f"padding is cheaper, for {padding.overhead_bytes} bytes of shared memory"
    if p == s:
        return "swizzle", (f"they tie; the swizzle needs no padding ({padding.overhead_bytes} "
                           "bytes saved)")
    return "swizzle", "the swizzle is cheaper"


def _padding_text(result: SwizzleResult, padding: PaddingResult, objective: str) -> str:
    names = ["store"] + (["load"] if len(padding.loads) == 1 else
                         [f"load {i}" for i in range(len(padding.loads))])
    rows = side_rows(names, list(padding.reports))
    rows.append(("total", "", "", "", padding.instructions_per_warp,
                 padding.wavefronts_per_warp, "", ""))
    pairs = ", ".join(f"{i}:+{p}" for i, p in padding.memory.pairs)
    text = _padded_text(padding)
    choice, why = _choice(result, padding, objective)
    return "\n".join([
        f"best padded layout ({padding.candidates} candidates): pad [{pairs}] (elements), "
        f"overhead {padding.overhead_bytes} bytes per CTA "
        f"({padding.memory.size_bytes(padding.element_bits)} bytes in all)",
        *([f"Triton: {text}"] if text else []),
        "",
        table(SIDE_HEADER, rows),
        "",
        f"swizzle: {result.wavefronts_per_warp} wavefronts, {result.instructions_per_warp} "
        f"instructions per warp, 0 bytes of padding; padding: {padding.wavefronts_per_warp} "
        f"wavefronts, {padding.instructions_per_warp} instructions, "
        f"{padding.overhead_bytes} bytes",
        f"choose: {choice} — {why}",
        *([f"note: the padding caps vectors at {padding.memory.max_vector_elems} elements "
           f"(every interval and pad must be a multiple of the vector)"]
          if padding.memory.max_vector_elems < max(r.vector_elems for r in result.reports)
          else []),
    ])


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``synthesize`` subcommand."""
    s = sub.add_parser("synthesize", help="optimal shared-memory layout for a store/load pair",
                       description="Without arguments: the built-in example "
                                   f"{examples.DEFAULT!r}.")
    s.add_argument("--example", metavar="NAME", help="built-in example (see `linlayout examples`)")
    s.add_argument("--src", metavar="FILE",
                   help="layout of the store (distributed): JSON file, CuTe atom name or CuTe "
                        "TV text ending in 'on MxN'")
    s.add_argument("--dst", metavar="FILE", action="append",
                   help="layout of the load (distributed), same forms; repeat for several loads")
    s.add_argument("--element-bits", type=int, metavar="N",
                   help="bits per element (required with --src/--dst; overrides the example's)")
    add_hardware_args(s)
    s.add_argument("--objective", choices=("wavefronts", "instructions"), default="wavefronts",
                   help="minimise total wavefronts per warp, then instructions (default), or "
                        "the other order")
    s.add_argument("--weights", type=int, nargs="+", metavar="W",
                   help="how often each side runs (store first, then each load), e.g. 1 4")
    s.add_argument("--instructions", metavar="auto|S,L,…", default=None,
                   help="auto: each side may use ldmatrix/stmatrix when that costs less; or "
                        "one entry per side: none (ld/st.shared), ldmatrix.x4, stmatrix.x2.trans, "
                        "auto, or tma for a store done by a TMA copy (with --fixed MODE)")
    s.add_argument("--fixed", metavar="MODE", default=None,
                   help="only layouts TMA writes with this swizzle mode (none, 32B, 64B, 128B, …)")
    s.add_argument("--padding", action="store_true",
                   help="also search padded layouts (row-major remap + interval:+pad) and report "
                        "the best beside the swizzle, with its memory overhead in bytes")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.set_defaults(func=run)
