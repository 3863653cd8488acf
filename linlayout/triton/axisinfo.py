"""Triton 3.9's AxisInfo analysis over a parsed TTGIR module: contiguity, divisibility and
constancy of every integer and pointer value, per tensor dimension.

Triton decides how wide each global ``tt.load``/``tt.store``/``cp.async`` is from this
analysis (``lib/Analysis/AxisInfo.cpp``, Triton 3.9). For a value ``v`` and dim ``d``:

* **contiguity** ``c``: along ``d`` the values come in runs of ``c`` consecutive integers
  (``[4, 5, 6, 7, 12, 13, 14, 15]`` has 4);
* **divisibility** ``q``: the first value of every run is a multiple of ``q`` (a power of two;
  for pointers in bytes);
* **constancy** ``k``: runs of ``k`` equal values.

The rules are Triton's visitors, re-derived: ``tt.make_range`` (contiguity ``end − start``,
divisibility of ``start``), ``arith.constant`` (splat tensors; other dense constants are
unknown), ``tt.splat``/``tt.broadcast``/``tt.expand_dims``, ``tt.addptr`` (the offset's
divisibility times the pointee's bytes), ``arith.addi``/``subi``/``muli``/``divsi``/
``divui``/``remsi``/``remui``/``andi``/``ori``/``xori``/``shli``/``shrsi``/``shrui``/
``maxsi``/``minsi``/… , ``arith.cmpi``, ``arith.select``, casts (``extsi``, ``extui``,
``trunci``, ``ttg.convert_layout``, ``tt.bitcast``: the operand's info) and ``tt.load``
(constancy only). Every other op (``tt.reshape``, ``tt.trans``, ``tt.get_program_id``, …) is
the pessimistic state, 1 everywhere, as in Triton. Hints override: function arguments'
``tt.divisibility``/``tt.contiguity``/``tt.constancy`` and the same discardable attributes on
any op (``tl.multiple_of``/``tl.max_contiguous`` write them). ``scf.for`` loop-carried values
are joined (gcd) with their yields to a fixpoint, the induction variable gets
``gcd(div(lb), div(step))``; ``scf.if`` results join both branches.

:func:`contiguity`, :func:`alignment` and :func:`mask_alignment` are Triton's
``ModuleAxisInfoAnalysis::getContiguity``/``getAlignment``/``getMaskAlignment``: they read the
info along the layout's fastest dim (``order[0]`` of its linear encoding) and cap it by the
consecutive elements one thread holds (``getContigPerThread``).

The reader is linear in the text: one pass splits lines and each op line is read once. The
fixpoint takes rounds over the whole function (never nested per loop), at most
:data:`MAX_FIXPOINT_ROUNDS`, the whole evaluation capped at :data:`MAX_EVALUATIONS` op visits
and regions nested at most :data:`MAX_REGION_DEPTH` deep.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._checks import instance_of
from .._memo import memoize
from ..errors import LayoutError
from ..layout import LinearLayout
from .limits import mlir_int, result_count
from .parse import TritonType, parse_type
from .ttgir import TTGIRModule

__all__ = ["AxisInfo", "GlobalOp", "ModuleAxisInfo", "MAX_DIVISOR", "MAX_EVALUATIONS",
           "MAX_FIXPOINT_ROUNDS", "RUNTIME_STRIDE", "alignment", "analyse_axis_info", "contiguity",
           "contig_per_thread", "layout_order", "mask_alignment", "pointee_bits"]

#: Triton's ``highestPowOf2Divisor(0)``: the divisibility of 0 (and of unknown loop values).
MAX_DIVISOR = 1 << 62
#: Most rounds over a function to reach the loops' fixpoint (each round lowers some power of
#: two; real kernels settle in two or three).
MAX_FIXPOINT_ROUNDS = 64
#: The stride given to a dim multiplied by a runtime scalar (``rm * stride_m``): large enough
#: that rows never share a 128-byte line. :mod:`linlayout.check.global_memory` says so where
#: it assumes it.
RUNTIME_STRIDE = 1 << 20
#: Deepest nesting of regions evaluated (real kernels nest a few loops).
MAX_REGION_DEPTH = 64
#: Most op visits of one module, loops included (hostile nesting is cut off here).
MAX_EVALUATIONS = 500_000


def _pow2_divisor(n: int) -> int:
    """Triton's ``highestPowOf2Divisor``: the largest power of two dividing ``n`` (capped)."""
    if n == 0:
        return MAX_DIVISOR
    return min(n & -n, MAX_DIVISOR)


def _gcd(*xs: int) -> int:
    g = 0
    for x in xs:
        g = math.gcd(g, x)
    return g


@dataclass(frozen=True)
class AxisInfo:
    """What Triton knows of one value, per dimension (a scalar has one dimension).

    Attributes:
        contiguity: run length of consecutive integers per dim.
        divisibility: power of two dividing each run's first value (bytes for pointers).
        constancy: run length of equal values per dim.
        constant: the value when it is a known constant (splat), else None.
    """

    contiguity: tuple[int, ...]
    divisibility: tuple[int, ...]
    constancy: tuple[int, ...]
    constant: int | None = None

    @property
    def rank(self) -> int:
        """Number of dims (1 for a scalar)."""
        return len(self.contiguity)

    @staticmethod
    def pessimistic(rank: int) -> "AxisInfo":
        """Nothing known: 1 in every dim (Triton ``getPessimisticValueState``)."""
        ones = (1,) * max(1, rank)
        return AxisInfo(ones, ones, ones)


def _join(a: AxisInfo | None, b: AxisInfo | None) -> AxisInfo | None:
    """Triton ``AxisInfo::join``: gcd of each property; a constant only when both agree."""
    if a is None:
        return b
    if b is None or a.rank != b.rank:
        return a if b is None else AxisInfo.pessimistic(a.rank)
    return AxisInfo(tuple(_gcd(x, y) for x, y in zip(a.contiguity, b.contiguity)),
                    tuple(_div_from_contig(a, b, d) for d in range(a.rank)),
                    tuple(_gcd(x, y) for x, y in zip(a.constancy, b.constancy)),
                    a.constant if a.constant is not None and a.constant == b.constant else None)


def _div_from_contig(a: AxisInfo, b: AxisInfo, d: int) -> int:
    """Triton ``getDivisibilityFromContiguity``."""
    ca, cb = a.contiguity[d], b.contiguity[d]
    if ca == cb or ca == MAX_DIVISOR or cb == MAX_DIVISOR:
        return _gcd(a.divisibility[d], b.divisibility[d])
    return _gcd(a.divisibility[d], b.divisibility[d], ca, cb)


@dataclass(frozen=True)
class GlobalOp:
    """One op that reads or writes global memory.

    Attributes:
        line: 1-based line in the file.
        name: full op name (``"tt.load"``, ``"ttg.async_copy_global_to_local"``,
            ``"amdg.buffer_load"`` …).
        pointer: SSA name of the pointer tensor (for buffer ops: the offsets tensor).
        base: for AMD buffer ops, the scalar base pointer; else None.
        mask: SSA name of the mask, or None.
        pointer_type: the pointer (or offsets) tensor type; None for a scalar access.
        value_type: the loaded/stored value type (None for async copies).
        element_type: the element type in memory (``"f16"`` …).
        attrs: the op's attribute text (cache modifiers, ``contiguity``, atomic kind …).
        source: ``file.py:line`` from the op's ``loc``, when the module kept it (else None).
        result_used: whether a later line uses the op's result (atomics: ``red`` vs ``atom``).
        text: the op line without its location.
    """

    line: int
    name: str
    pointer: str
    base: str | None
    mask: str | None
    pointer_type: TritonType | None
    value_type: TritonType | None
    element_type: str
    attrs: str
    source: str | None = None
    result_used: bool = True
    text: str = ""

    @property
    def short(self) -> str:
        """The name after the dialect (``"load"``)."""
        return self.name.split(".", 1)[1]


@dataclass(frozen=True)
class ModuleAxisInfo:
    """AxisInfo of a whole module.

    Attributes:
        values: ``{SSA name: AxisInfo}`` for every value the analysis reached.
        shapes: ``{SSA name: shape}`` (``()`` for scalars).
        global_ops: the module's global-memory ops, in file order.
        complete: False when :data:`MAX_EVALUATIONS` cut the analysis short (values not
            reached are then unknown).
        strides: ``{SSA name: index strides per dim}`` for values that are an unknown scalar
            plus ``Σ stride_d · i_d`` (a pointer's strides count pointee elements); values
            not of that form are absent.
    """

    values: Mapping[str, AxisInfo]
    shapes: Mapping[str, tuple[int, ...]]
    global_ops: tuple[GlobalOp, ...]
    complete: bool = True
    strides: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def info(self, name: str | None) -> AxisInfo | None:
        """The info of ``name`` (None when unknown)."""
        return None if name is None else self.values.get(name)


# ------------------------------------------------------------------------------ the reader
_OP_LINE = re.compile(
    r"^\s*(?:(?P<res>%[\w$.-]+(?::\d+)?(?:\s*,\s*%[\w$.-]+(?::\d+)?)*)\s*=\s*)?"
    r"\"?(?P<name>[a-z_][\w]*\.[\w.]+)\"?")
_SSA = re.compile(r"%[\w$.-]+(?:#\d+)?")
_ARG = re.compile(r"(%[\w$.-]+)\s*:\s*")
_HINT = re.compile(r"tt\.(divisibility|contiguity|constancy)\s*=\s*(?:dense<\[?([-\d,\s]+)\]?>"
                   r"(?:\s*:\s*tensor<(\d+)x)?|(-?\d+))")
_INT_CONST = re.compile(r"arith\.constant\s+(?:dense<(-?\d+|true|false)>|(-?\d+|true|false))"
                        r"\s*:\s*(?:tensor<(?:\d+x)*(i\d+)|(i\d+|index))")
_RANGE = re.compile(r"end\s*=\s*(-?\d+)\s*:\s*i32\s*,\s*start\s*=\s*(-?\d+)")
_AXIS = re.compile(r"axis\s*=\s*(\d+)")
_PRED = re.compile(r"arith\.cmpi\s+(\w+)")
_FOR = re.compile(r"scf\.for\s+(%[\w$.-]+)\s*=\s*(%[\w$.-]+)\s+to\s+(%[\w$.-]+)\s+step\s+"
                  r"(%[\w$.-]+)")
_ITER = re.compile(r"(%[\w$.-]+)\s*=\s*(%[\w$.-]+(?:#\d+)?)")

_CASTS = {"arith.extsi", "arith.extui", "arith.trunci", "ttg.convert_layout",
          "triton_gpu.convert_layout", "tt.bitcast", "builtin.unrealized_conversion_cast"}
_GLOBAL = {"tt.load", "tt.store", "tt.atomic_rmw", "tt.atomic_cas",
           "ttg.async_copy_global_to_local", "triton_gpu.async_copy_global_to_local",
           "amdg.buffer_load", "amdg.buffer_store", "amdg.buffer_atomic_rmw",
           "amdg.buffer_atomic_cas", "amdg.buffer_load_to_local"}


def _split_sig(text: str) -> tuple[str, str]:
    """``operands {attrs} : types`` split at the first top-level ``" : "`` (bracket depth
    counted between candidates at C speed)."""
    depth, at = 0, 0
    for m in _COLON.finditer(text):
        i = m.start()
        seg = text[at:i]
        depth += sum(seg.count(c) for c in "([{<") - sum(seg.count(c) for c in ")]}>") \
            + seg.count("->")
        at = i
        if depth == 0:
            return text[:i + 1], text[i + 2:]
    return text, ""


_COLON = re.compile(" : ")


def _sig_types(sig: str) -> list[str]:
    """The types of a signature, split at top-level commas and ``->``."""
    return list(_sig_type_tuple(sig))


@memoize(4096)
def _sig_type_tuple(sig: str) -> tuple[str, ...]:
    """:func:`_sig_types`, cached per signature text (a kernel repeats a few types)."""
    out, cur, depth, i = [], [], 0, 0
    while i < len(sig):
        c = sig[i]
        if c == "-" and sig[i + 1:i + 2] == ">" and depth == 0:
            out.append("".join(cur))
            cur = []
            i += 2
            continue
        if c in "()" and depth == 0:  # a parenthesised list of operand types
            i += 1
            continue
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return tuple(t.strip().strip("()").strip() for t in out if t.strip().strip("()").strip())


_DIMS = re.compile(r"tensor<((?:\d+x)+)")


def _shape_elem(t: str) -> tuple[tuple[int, ...], str]:
    """``(shape, element type)`` of a type text; shape ``()`` for a scalar."""
    m = _DIMS.match(t)
    if not m:
        return (), t.split(" ")[0]
    shape = tuple(mlir_int(x, "a tensor shape") for x in m.group(1).split("x") if x)
    rest = t[m.end():]
    depth, j = 0, 0
    while j < len(rest):
        c = rest[j]
        if c == "<":
            depth += 1
        elif c == ">":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        j += 1
    return shape, rest[:j].strip()


def pointee_bits(element_type: str) -> int:
    """Bits of the pointee of ``!tt.ptr<T>`` (or of ``T`` itself), as Triton's
    ``getPointeeBitWidth`` (``i1`` is 1 bit). Unknown types count 8."""
    t = element_type.strip()
    if t.startswith("!tt.ptr<") and t.endswith(">"):
        t = t[len("!tt.ptr<"):-1]
    if t.startswith("!tt.ptr"):
        return 64
    m = re.fullmatch(r"[su]?i(\d+)", t)
    if m:
        return mlir_int(m.group(1), f"element type {t[:24]}")
    if t in ("f16", "bf16"):
        return 16
    if t in ("f32", "tf32"):
        return 32
    if t == "f64":
        return 64
    if t.startswith(("f8", "f6")):
        return 8
    if t.startswith("f4"):
        return 4
    return 8


@dataclass
class _Node:
    """One op of the tree: a plain op, or a region op with its children."""

    line: int
    name: str
    results: list[str]
    operands: list[str]
    attrs: str
    types: list[str]
    text: str
    regions: list[list["_Node"]] = field(default_factory=list)
    yields: list[list[str]] = field(default_factory=list)


def _results(res: str | None, line: int = 0) -> list[str]:
    """The names an op defines: ``%r:3`` gives ``%r#0 … %r#2``.

    Raises:
        LayoutError: a count above :data:`~.limits.MAX_OP_RESULTS` (or of more than 18
            digits).
    """
    if not res:
        return []
    out = []
    for r in res.split(","):
        r = r.strip()
        if ":" in r:
            name, n = r.split(":", 1)
            out.extend(f"{name}#{i}"
                       for i in range(result_count(n, f"line {line}: {name}:{n[:20]}")))
        else:
            out.append(r)
    return out


def _strip_loc(line: str) -> str:
    i = line.rfind(" loc(")
    if i >= 0 and line.rstrip().endswith(")"):
        return line[:i]
    return line


def _read(text: str) -> tuple[list[_Node], dict[str, AxisInfo], dict[str, tuple[int, ...]]]:
    """The op tree of every ``tt.func`` of ``text`` and the function arguments' info."""
    args: dict[str, AxisInfo] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    root: list[_Node] = []
    stack: list[tuple[_Node | None, list[_Node]]] = [(None, root)]
    for lineno, raw in enumerate(text.split("\n"), 1):
        s = raw.strip()
        if not s or s.startswith(("#", "//")):
            continue
        if s.startswith("}"):
            if len(stack) > 1:
                stack.pop()
            if s.rstrip().endswith("{") and stack[-1][1] and stack[-1][1][-1].regions:
                node = stack[-1][1][-1]  # `} else {`: the next region of the same op
                node.regions.append([])
                stack.append((node, node.regions[-1]))
            continue
        m = _OP_LINE.match(s)
        if not m:
            if s.endswith("{"):  # a block label or an unknown region opener
                stack.append((None, stack[-1][1]))
            continue
        name = m.group("name")
        body = _strip_loc(s)
        if name in ("tt.func", "func.func"):
            _func_args(body, args, shapes)
            stack.append((None, stack[-1][1]))
            continue
        if name == "module" or name.startswith("module"):
            continue
        rest = body[m.end():]
        head, sig = _split_sig(rest)
        operand_text, attrs = head, ""
        b = head.find("{")
        if b >= 0 and not head.rstrip().endswith("{") or (b >= 0 and head.count("{") > 1):
            e = head.rfind("}")
            attrs = head[b:e + 1]
            operand_text = head[:b] + head[e + 1:]
        if name in ("scf.for", "scf.if", "scf.while") and "->" in rest:
            sig = rest[rest.rfind("->") + 2:]  # the result types
        node = _Node(lineno, name, _results(m.group("res"), lineno), _SSA.findall(operand_text),
                     attrs, _sig_types(sig.rstrip("{ ").rstrip()), body)
        if name == "scf.yield" and stack[-1][0] is not None:
            stack[-1][0].yields.append(node.operands)
        stack[-1][1].append(node)
        if body.rstrip().endswith("{"):
            node.regions.append([])
            stack.append((node, node.regions[-1]))
    return root, args, shapes


def _func_args(body: str, args: dict[str, AxisInfo], shapes: dict[str, tuple[int, ...]]
               ) -> None:
    """The arguments of a ``tt.func`` line with their hint attributes."""
    i = body.find("(")
    if i < 0:
        return
    ms = list(_ARG.finditer(body, i))
    for k, m in enumerate(ms):
        end = ms[k + 1].start() if k + 1 < len(ms) else len(body)
        piece = body[m.end():end]
        shape, _ = _shape_elem(piece.strip())
        rank = max(1, len(shape))
        info = AxisInfo.pessimistic(rank)
        info = _hinted(info, piece)
        args[m.group(1)] = info
        shapes[m.group(1)] = shape


def _hinted(info: AxisInfo, attrs: str) -> AxisInfo:
    """``info`` with ``tt.contiguity``/``tt.divisibility``/``tt.constancy`` hints applied
    (Triton ``initDimVectorFromHint``: an integer gives rank 1, a dense array one per dim; a
    splat ``dense<16> : tensor<2xi32>`` — what ``tl.multiple_of(x, [16, 16])`` writes —
    holds its one value once per element of its type)."""
    if "tt." not in attrs:
        return info
    vals = {"contiguity": info.contiguity, "divisibility": info.divisibility,
            "constancy": info.constancy}
    for m in _HINT.finditer(attrs):
        if m.group(2) is not None:
            v = tuple(mlir_int(x, f"tt.{m.group(1)}") for x in
                      m.group(2).replace(" ", "").split(",") if x)
            if len(v) == 1 and m.group(3) is not None:
                n = mlir_int(m.group(3), f"tt.{m.group(1)}")
                if n != info.rank:
                    return info  # one value per dim of another rank (and never 10^11 copies)
                v = v * n
        else:
            v = (mlir_int(m.group(4), f"tt.{m.group(1)}"),)
        if v:
            vals[m.group(1)] = v
    if any(len(v) != info.rank for v in vals.values()):
        return info
    return AxisInfo(vals["contiguity"], vals["divisibility"], vals["constancy"], info.constant)


# --------------------------------------------------------------------------- the visitors
class _Eval:
    def __init__(self, args: dict[str, AxisInfo], shapes: dict[str, tuple[int, ...]]):
        self.values: dict[str, AxisInfo] = dict(args)
        self.shapes = shapes
        self.budget = MAX_EVALUATIONS
        self.complete = True
        self.depth = 0
        self.changed = False
        #: loop-carried values of each ``scf.for`` (by line) after the last round
        self.loops: dict[int, list[AxisInfo]] = {}
        #: iter args whose strides change from one iteration to the next
        self.not_affine: set[str] = set()
        #: ``{name: element strides per dim}`` of values affine in their tensor indices
        self.strides: dict[str, tuple[int, ...]] = {a: (0,) * max(1, len(shapes.get(a, ())))
                                                    for a in args}

    def get(self, name: str, rank: int) -> AxisInfo:
        v = self.values.get(name)
        if v is None or v.rank != max(1, rank):
            return AxisInfo.pessimistic(rank)
        return v

    def block(self, nodes: list[_Node]) -> None:
        if self.depth >= MAX_REGION_DEPTH:
            self.complete = False  # values inside stay unknown
            return
        self.depth += 1
        try:
            for n in nodes:
                if self.budget <= 0:
                    self.complete = False
                    return
                self.budget -= 1
                if n.name == "scf.for":
                    self.for_op(n)
                elif n.name == "scf.if":
                    self.if_op(n)
                else:
                    for r in n.regions:
                        self.block(r)
                    self.op(n)
        finally:
            self.depth -= 1

    def for_op(self, n: _Node) -> None:
        """One visit of an ``scf.for``: its loop-carried values are the join of what they
        were on the previous round (at first: the initial values) with the initial values
        and the yields; the caller repeats rounds over the whole function until no loop's
        values change (Triton's sparse fixpoint, reached without nesting the rounds)."""
        m = _FOR.search(n.text)
        iters = _ITER.findall(n.text[n.text.find("iter_args"):]) if "iter_args" in n.text else []
        types = n.types
        for k, (a, _) in enumerate(iters):
            self.shapes[a] = _shape_elem(types[k])[0] if k < len(types) else ()
        for k, r in enumerate(n.results):
            self.shapes[r] = _shape_elem(types[k])[0] if k < len(types) else ()
        if m:
            iv, lb, _, step = m.groups()
            d = _gcd(self.get(lb, 0).divisibility[0], self.get(step, 0).divisibility[0])
            self.values[iv] = AxisInfo((1,), (d,), (1,))
            self.shapes[iv] = ()
        inits = [self.get(b, len(self.shapes.get(a, ()))) for a, b in iters]
        old = self.loops.get(n.line)
        state = inits if old is None else [_join(o, i) for o, i in zip(old, inits)]
        body = n.regions[0] if n.regions else []
        for (a, b), v in zip(iters, state):
            self.values[a] = v
            if b in self.strides and a not in self.not_affine:
                self.strides[a] = self.strides[b]
            else:
                self.strides.pop(a, None)
        self.block(body)
        ys = n.yields[-1] if n.yields else []
        new = [_join(v, self.get(y, len(self.shapes.get(a, ()))))
               for (a, _), v, y in zip(iters, state, ys)] + state[len(ys):]
        for (a, _), y in zip(iters, ys):
            if a in self.strides and self.strides.get(y) != self.strides[a]:
                self.not_affine.add(a)  # its strides change in the loop
                self.changed = True
        if new != old:
            self.changed = True
        self.loops[n.line] = new
        for (a, _), r in zip(iters, n.results):
            if a in self.strides and a not in self.not_affine:
                self.strides[r] = self.strides[a]
            else:
                self.strides.pop(r, None)
        for r, v in zip(n.results, new):
            self.values[r] = v

    def run(self, nodes: list[_Node]) -> None:
        """Rounds over the whole function until no loop-carried value changes."""
        for _ in range(MAX_FIXPOINT_ROUNDS):
            self.changed = False
            self.block(nodes)
            if not self.changed or self.budget <= 0:
                break
        else:
            self.complete = False

    def if_op(self, n: _Node) -> None:
        for k, r in enumerate(n.results):
            self.shapes[r] = _shape_elem(n.types[k])[0] if k < len(n.types) else ()
        for reg in n.regions:
            self.block(reg)
        outs: list[AxisInfo | None] = [None] * len(n.results)
        for ys in n.yields:
            for k, y in enumerate(ys[:len(outs)]):
                outs[k] = _join(outs[k], self.get(y, len(self.shapes.get(n.results[k], ()))))
        for r, v in zip(n.results, outs):
            self.values[r] = v if v is not None else AxisInfo.pessimistic(
                len(self.shapes.get(r, ())))

    def op(self, n: _Node) -> None:
        if not n.results:
            return
        res_t = n.types[-1] if n.types else ""
        if n.name in ("tt.addptr", "amdg.buffer_load") and n.types:
            res_t = n.types[0] if n.name == "tt.addptr" else res_t
        shape, elem = _shape_elem(res_t)
        if n.name == "arith.cmpi" and n.types:
            shape = _shape_elem(n.types[0])[0]
        for r in n.results:
            self.shapes[r] = shape
        info = self.visit(n, shape, elem)
        rank = max(1, len(shape))
        if info is None or info.rank != rank:
            info = AxisInfo.pessimistic(rank)
        info = _hinted(info, n.attrs)
        st = self.affine(n, shape)
        for r in n.results:
            self.values[r] = info
            if st is None:
                self.strides.pop(r, None)
            else:
                self.strides[r] = st

    def affine(self, n: _Node, shape: tuple[int, ...]) -> tuple[int, ...] | None:
        """Strides (per dim, in index units) when the value is ``base + Σ stride_d · i_d``
        with an unknown scalar ``base``; None otherwise."""
        name, ops = n.name, n.operands
        rank = max(1, len(shape))
        zero = (0,) * rank
        if name in _CASTS and ops:
            return self.strides.get(ops[0])
        if name == "tt.make_range":
            return (1,)
        if name in ("arith.constant", "tt.splat", "tt.get_program_id", "tt.get_num_programs"):
            return zero if name != "arith.constant" or _constant(n.text, shape, n.line) \
                else None
        if name == "tt.expand_dims" and ops:
            m = _AXIS.search(n.attrs)
            src = self.strides.get(ops[0])
            if m is None or src is None:
                return None
            a = mlir_int(m.group(1), f"line {n.line}: axis")
            return src[:a] + (0,) + src[a:] if len(shape) > 1 or len(src) == 0 else None
        if name == "tt.broadcast" and ops:
            src = self.strides.get(ops[0])
            return src if src is not None and len(src) == rank else None
        if name in ("tt.addptr", "arith.addi", "arith.subi") and len(ops) >= 2:
            a, b = self.strides.get(ops[0]), self.strides.get(ops[1])
            if a is None or b is None or len(a) != len(b):
                return None
            sign = -1 if name == "arith.subi" else 1
            return tuple(x + sign * y for x, y in zip(a, b))
        if name in ("arith.muli", "arith.shli") and len(ops) >= 2:
            a, b = self.strides.get(ops[0]), self.strides.get(ops[1])
            ca, cb = self.values.get(ops[0]), self.values.get(ops[1])
            kb = cb.constant if cb is not None else None
            ka = ca.constant if ca is not None else None
            if name == "arith.shli":
                return tuple(x << kb for x in a) if a is not None and kb is not None \
                    and 0 <= kb < 32 else None
            if a is not None and kb is not None:
                return tuple(x * kb for x in a)
            if b is not None and ka is not None:
                return tuple(x * ka for x in b)
            if a is not None and b is not None and not any(a) and not any(b):
                return zero
            if a is not None and b is not None and (not any(a) or not any(b)):
                # an affine value times an unknown uniform scalar (a runtime stride)
                return tuple(min(RUNTIME_STRIDE, RUNTIME_STRIDE * max(x, y))
                             for x, y in zip(a, b))
            return None
        return None

    def visit(self, n: _Node, shape: tuple[int, ...], elem: str) -> AxisInfo | None:
        name = n.name
        ops = n.operands
        rank = max(1, len(shape))
        if name in _CASTS and ops:
            return self.get(ops[0], rank)
        if name == "tt.make_range":
            m = _RANGE.search(n.attrs)
            if not m:
                return None
            end = mlir_int(m.group(1), f"line {n.line}: end")
            start = mlir_int(m.group(2), f"line {n.line}: start")
            return AxisInfo((end - start,), (_pow2_divisor(start),), (1,))
        if name == "arith.constant":
            return _constant(n.text, shape, n.line)
        if name == "tt.splat" and ops:
            src = self.get(ops[0], 0)
            return AxisInfo((1,) * rank, (src.divisibility[0],) * rank, tuple(shape) or (1,),
                            src.constant)
        if name == "tt.expand_dims" and ops:
            m = _AXIS.search(n.attrs)
            if not m:
                return None
            axis = mlir_int(m.group(1), f"line {n.line}: axis")
            src = self.get(ops[0], rank - 1)
            if src.constant is not None:
                nd = _pow2_divisor(src.constant)
            else:
                nd = 0
                for d in range(src.rank):
                    nd = _gcd(nd, 1 if src.contiguity[d] > 1 else src.divisibility[d])
            ins = lambda t, v: t[:axis] + (v,) + t[axis:]  # noqa: E731
            return AxisInfo(ins(src.contiguity, 1), ins(src.divisibility, nd),
                            ins(src.constancy, 1), src.constant)
        if name == "tt.broadcast" and ops:
            src_shape = _shape_elem(n.types[0])[0] if n.types else shape
            src = self.get(ops[0], len(src_shape))
            if src.rank != rank or len(src_shape) != rank:
                return None
            return AxisInfo(
                tuple(1 if src_shape[d] == 1 else src.contiguity[d] for d in range(rank)),
                src.divisibility,
                tuple(shape[d] if src_shape[d] == 1 else src.constancy[d] for d in range(rank)),
                src.constant)
        if name == "tt.load" and ops:
            p = self.get(ops[0], rank)
            mask = self.get(ops[1], rank) if len(ops) > 1 else None
            return AxisInfo((1,) * rank, (1,) * rank,
                            tuple(_gcd(p.constancy[d], mask.constancy[d] if mask else 0)
                                  for d in range(rank)))
        if name == "arith.select" and len(ops) >= 3:
            return self.select(n, ops, rank)
        if name == "arith.cmpi" and len(ops) >= 2:
            return self.cmp(n, ops, shape)
        if name in _BINARY and len(ops) >= 2:
            lhs, rhs = self.get(ops[0], rank), self.get(ops[1], rank)
            ptr_bytes = max(1, pointee_bits(elem) // 8) if name == "tt.addptr" else 1
            return _binary(name, lhs, rhs, shape, ptr_bytes, _int_bits(elem))
        return None

    def select(self, n: _Node, ops: list[str], rank: int) -> AxisInfo:
        cond_t = n.types[0] if n.types else ""
        cond_scalar = not cond_t.startswith("tensor<")
        cond = self.get(ops[0], 0 if cond_scalar else rank)
        lhs, rhs = self.get(ops[1], rank), self.get(ops[2], rank)
        if cond.constant is not None:
            return rhs if cond.constant == 0 else lhs
        con, cont, div = [], [], []
        for d in range(rank):
            if cond_scalar:
                con.append(_gcd(lhs.constancy[d], rhs.constancy[d]))
                cont.append(_gcd(lhs.contiguity[d], rhs.contiguity[d]))
            else:
                con.append(_gcd(lhs.constancy[d], rhs.constancy[d], cond.constancy[d]))
                cont.append(_gcd(lhs.contiguity[d], rhs.contiguity[d], cond.constancy[d]))
            div.append(_div_from_contig(lhs, rhs, d))
        const = lhs.constant if lhs.constant is not None and lhs.constant == rhs.constant \
            else None
        return AxisInfo(tuple(cont), tuple(div), tuple(con), const)

    def cmp(self, n: _Node, ops: list[str], shape: tuple[int, ...]) -> AxisInfo | None:
        if not shape:
            return None  # Triton: a scalar compare is unknown
        rank = len(shape)
        m = _PRED.search(n.text)
        pred = m.group(1) if m else ""
        lhs, rhs = self.get(ops[0], rank), self.get(ops[1], rank)
        con = []
        const = None
        for d in range(rank):
            if lhs.constant is not None and rhs.constant is not None:
                hint = lhs.constancy[d]
                const = int(_compare(pred, lhs.constant, rhs.constant))
            else:
                hint = _gcd(lhs.constancy[d], rhs.constancy[d])
                if pred in ("sgt", "ugt", "sle", "ule") and lhs.constancy[d] == shape[d]:
                    hint = max(hint, _gcd(rhs.contiguity[d], lhs.divisibility[d],
                                          rhs.divisibility[d]))
                elif pred in ("slt", "ult", "sge", "uge") and rhs.constancy[d] == shape[d]:
                    hint = max(hint, _gcd(lhs.contiguity[d], lhs.divisibility[d],
                                          rhs.divisibility[d]))
            con.append(hint)
        return AxisInfo((1,) * rank, (1,) * rank, tuple(con), const)


def _compare(pred: str, a: int, b: int) -> bool:
    ua, ub = a % (1 << 64), b % (1 << 64)
    return {"eq": a == b, "ne": a != b, "slt": a < b, "sle": a <= b, "sgt": a > b,
            "sge": a >= b, "ult": ua < ub, "ule": ua <= ub, "ugt": ua > ub,
            "uge": ua >= ub}.get(pred, False)


def _int_bits(elem: str) -> int:
    m = re.fullmatch(r"i(\d+)", elem)
    return mlir_int(m.group(1), f"element type {elem[:24]}") if m else 64


def _constant(text: str, shape: tuple[int, ...], line: int = 0) -> AxisInfo | None:
    """``arith.constant``: an integer or bool scalar, or a splat integer tensor (Triton reads
    the value zero-extended from its width). A type wider than 64 bits gives None (unknown):
    Triton's AxisInfo holds constants as ``int64_t``.

    Raises:
        LayoutError: a literal of more than :data:`~.limits.MAX_INT_DIGITS` digits (was a
            ``ValueError`` past Python's 4,300-digit limit).
    """
    m = _INT_CONST.search(text)
    if not m:
        return None
    lit = m.group(1) if m.group(1) is not None else m.group(2)
    ty = m.group(3) or m.group(4)
    if "dense<" in text and m.group(1) is None:
        return None
    bits = 64 if ty == "index" else mlir_int(ty[1:], f"line {line}: element type {ty[:24]}")
    if bits > 64:
        return None  # an i99999… constant: 1 << bits ran out of memory
    v = {"true": 1, "false": 0}.get(lit)
    if v is None:
        v = mlir_int(lit, f"line {line}: arith.constant")
    v %= 1 << bits
    if not shape:
        return AxisInfo((1,), (_pow2_divisor(v),), (1,), v)
    rank = len(shape)
    return AxisInfo((1,) * rank, (_pow2_divisor(v),) * rank, tuple(shape), v)


_BINARY = {"tt.addptr", "arith.addi", "arith.subi", "arith.muli", "arith.divsi", "arith.divui",
           "arith.remsi", "arith.remui", "arith.andi", "arith.ori", "arith.xori", "arith.shli",
           "arith.shrsi", "arith.shrui", "arith.maxsi", "arith.maxui", "arith.minsi",
           "arith.minui"}


def _binary(name: str, lhs: AxisInfo, rhs: AxisInfo, shape: tuple[int, ...], ptr_bytes: int,
            bits: int) -> AxisInfo:
    """Triton's binary visitors (``BinaryOpVisitorImpl`` and its subclasses)."""
    rank = lhs.rank
    lc, rc = lhs.constant, rhs.constant
    if name in ("arith.maxsi", "arith.maxui", "arith.minsi", "arith.minui"):
        if lc is not None and rc is not None:
            v = max(lc, rc) if "max" in name else min(lc, rc)
            return AxisInfo((1,) * rank, (1,) * rank, (1,) * rank, v)
        return AxisInfo(tuple(_gcd(a, b) for a, b in zip(lhs.contiguity, rhs.contiguity)),
                        tuple(_div_from_contig(lhs, rhs, d) for d in range(rank)),
                        tuple(_gcd(a, b) for a, b in zip(lhs.constancy, rhs.constancy)))
    const = _const_value(name, lc, rc, ptr_bytes)
    if const is not None:
        return AxisInfo((1,) * rank, (_pow2_divisor(const),) * rank,
                        tuple(max(a, b) for a, b in zip(lhs.constancy, rhs.constancy)), const)
    cont, div, con = [], [], []
    for d in range(rank):
        cont.append(_contig(name, lhs, rhs, shape, d))
        div.append(_divis(name, lhs, rhs, ptr_bytes, d))
        con.append(_consty(name, lhs, rhs, shape, d))
    return AxisInfo(tuple(cont), tuple(div), tuple(con))


def _const_value(name: str, a: int | None, b: int | None, ptr_bytes: int) -> int | None:
    if name in ("arith.remsi", "arith.remui") and b == 1:
        return 0
    if a is None or b is None:
        return None
    try:
        return _int64({"tt.addptr": lambda: a + b * ptr_bytes, "arith.addi": lambda: a + b,
                "arith.subi": lambda: a - b, "arith.muli": lambda: a * b,
                "arith.divsi": lambda: int(a / b), "arith.divui": lambda: a // b,
                "arith.remsi": lambda: int(math.fmod(a, b)), "arith.remui": lambda: a % b,
                "arith.andi": lambda: a & b, "arith.ori": lambda: a | b,
                "arith.xori": lambda: a ^ b, "arith.shli": lambda: a << b if 0 <= b < 64 else 0,
                "arith.shrsi": lambda: a >> b if 0 <= b < 64 else 0,
                "arith.shrui": lambda: a >> b if 0 <= b < 64 else 0}[name]())
    except (ZeroDivisionError, KeyError):
        return None


def _int64(v: int) -> int:
    """``v`` wrapped to a signed 64-bit integer, as Triton's AxisInfo holds constants
    (``std::optional<int64_t>``): unwrapped, 40 chained ``arith.muli`` of a constant with
    itself built an integer of 2^40 digits (a hang)."""
    return ((v + (1 << 63)) & ((1 << 64) - 1)) - (1 << 63)


def _is_contig_dim(x: AxisInfo, shape: tuple[int, ...], d: int) -> bool:
    return bool(shape) and x.contiguity[d] == shape[d]


def _is_const_dim(x: AxisInfo, shape: tuple[int, ...], d: int) -> bool:
    return bool(shape) and x.constancy[d] == shape[d]


def _contig(name: str, lhs: AxisInfo, rhs: AxisInfo, shape: tuple[int, ...], d: int) -> int:
    if name == "arith.subi":
        return _gcd(lhs.contiguity[d], rhs.constancy[d])
    if name in ("tt.addptr", "arith.addi"):
        return max(_gcd(lhs.constancy[d], rhs.contiguity[d]),
                   _gcd(lhs.contiguity[d], rhs.constancy[d]))
    if name == "arith.muli":
        return max(lhs.contiguity[d] if rhs.constant == 1 else 1,
                   rhs.contiguity[d] if lhs.constant == 1 else 1)
    if name in ("arith.divsi", "arith.divui"):
        return lhs.contiguity[d] if rhs.constant == 1 else 1
    if name in ("arith.remsi", "arith.remui"):
        if shape and _is_contig_dim(lhs, shape, d) and _is_const_dim(rhs, shape, d):
            return _gcd(lhs.contiguity[d], lhs.divisibility[d], rhs.divisibility[d])
        return 1
    if name in ("arith.shli", "arith.shrsi", "arith.shrui"):
        return lhs.contiguity[d] if rhs.constant == 0 else 1
    return 1  # andi/ori/xori


def _divis(name: str, lhs: AxisInfo, rhs: AxisInfo, ptr_bytes: int, d: int) -> int:
    if name in ("tt.addptr", "arith.addi", "arith.subi"):
        rd = rhs.divisibility[d]
        if name == "tt.addptr":
            rd = MAX_DIVISOR if rd > MAX_DIVISOR // ptr_bytes else rd * ptr_bytes
        return _gcd(lhs.divisibility[d], rd)
    if name == "arith.muli":
        ld = 1 if lhs.contiguity[d] > 1 and rhs.constant != 1 else lhs.divisibility[d]
        rd = 1 if rhs.contiguity[d] > 1 and lhs.constant != 1 else rhs.divisibility[d]
        return MAX_DIVISOR if ld > MAX_DIVISOR // rd else ld * rd
    if name in ("arith.divsi", "arith.divui"):
        if lhs.constant == 0 or rhs.constant == 1:
            return lhs.divisibility[d]
        if rhs.constant is not None and rhs.constant != 0 and \
                abs(rhs.constant) & (abs(rhs.constant) - 1) == 0 and lhs.contiguity[d] == 1:
            return max(1, lhs.divisibility[d] // abs(rhs.constant))
        return 1
    if name in ("arith.remsi", "arith.remui"):
        if rhs.constancy[d] > 1:
            return _gcd(lhs.divisibility[d], rhs.divisibility[d])
        return 1
    if name == "arith.shli":
        shift = rhs.constant or 0
        ld = 1 if lhs.contiguity[d] > 1 and shift else lhs.divisibility[d]
        if not 0 <= shift < 62:
            return MAX_DIVISOR
        return MAX_DIVISOR if ld > MAX_DIVISOR >> shift else ld << shift
    if name in ("arith.shrsi", "arith.shrui"):
        if rhs.constant is None:
            return 1
        shift = rhs.constant
        ld = 1 if lhs.contiguity[d] > 1 and shift else lhs.divisibility[d]
        return max(1, ld >> shift) if 0 <= shift < 63 else 1
    return 1  # andi/ori/xori


def _consty(name: str, lhs: AxisInfo, rhs: AxisInfo, shape: tuple[int, ...], d: int) -> int:
    base = _gcd(lhs.constancy[d], rhs.constancy[d])
    if name in ("arith.divsi", "arith.divui") and shape:
        if _is_contig_dim(lhs, shape, d) and _is_const_dim(rhs, shape, d):
            return max(base, _gcd(lhs.contiguity[d], lhs.divisibility[d], rhs.divisibility[d]))
        return base
    if name in ("arith.remsi", "arith.remui") and shape:
        return shape[d] if rhs.constant == 1 else base
    return base


# ----------------------------------------------------------------------- the global ops
def _walk(nodes: list[_Node]) -> list[_Node]:
    """Every node of the tree in file order, without recursion."""
    out: list[_Node] = []
    stack = [nodes]
    while stack:
        for n in stack.pop():
            out.append(n)
            stack.extend(n.regions)
    out.sort(key=lambda n: n.line)
    return out


def _global_ops(nodes: list[_Node], aliases: Mapping[str, Any], uses: dict[str, int],
                out: list[GlobalOp], cache: dict[str, TritonType]) -> None:
    for n in _walk(nodes):
        if n.name not in _GLOBAL:
            continue
        short = n.name.split(".", 1)[1]
        ops = n.operands
        mask = None
        base = None
        ptr = ops[0] if ops else ""
        if short in ("buffer_load", "buffer_store", "buffer_atomic_rmw", "buffer_atomic_cas",
                     "buffer_load_to_local"):
            # `%base[%offsets], %mask …` / `%value, %base[%offsets] …`
            mb = re.search(r"(%[\w$.-]+)\[(%[\w$.-]+)\]", n.text)
            if mb:
                base, ptr = mb.group(1), mb.group(2)
            mm = re.search(r"\]\s*,\s*(%[\w$.-]+)", n.text)
            mask = mm.group(1) if mm else None
        elif short == "load" and len(ops) > 1:
            mask = ops[1]
        elif short == "store" and len(ops) > 2:
            mask = ops[2]
        elif short == "atomic_rmw":
            mask = ops[2] if len(ops) > 2 else None
        elif short == "async_copy_global_to_local":
            mm = re.search(r"\bmask\s+(%[\w$.-]+)", n.text)
            mask = mm.group(1) if mm else None
        ptype = vtype = None
        tensors = [t for t in n.types if t.startswith("tensor<")]
        ptr_t = next((t for t in tensors if "!tt.ptr" in t), None)
        if short.startswith("buffer"):
            ptr_t = next((t for t in tensors if "!tt.ptr" not in t), None) \
                if short not in ("buffer_load",) else None
        try:
            if ptr_t is not None:
                ptype = cache.get(ptr_t) or parse_type(ptr_t, aliases)
                cache[ptr_t] = ptype
            val_t = n.types[-1] if n.types and n.types[-1].startswith("tensor<") else None
            if val_t is not None and val_t != ptr_t:
                vtype = cache.get(val_t) or parse_type(val_t, aliases)
                cache[val_t] = vtype
        except LayoutError:
            pass
        elem = ""
        if ptype is not None and ptype.element_type.startswith("!tt.ptr<"):
            elem = ptype.element_type[len("!tt.ptr<"):-1]
        elif vtype is not None:
            elem = vtype.element_type
        else:  # a scalar access: its pointer type is ``!tt.ptr<T>``
            scalar = next((t for t in n.types if t.startswith("!tt.ptr<")), None)
            if scalar is not None:
                elem = scalar[len("!tt.ptr<"):-1]
        if short.startswith("buffer") and vtype is not None:
            elem = vtype.element_type
            if ptype is None:
                ptype = vtype
        if short == "buffer_load" and vtype is not None:
            ptype = vtype  # the offsets share the result's layout
        if short.startswith("buffer") and ptr and base is None:
            base = None
        used = any(uses.get(r.split("#")[0], 0) > n.line for r in n.results) if n.results \
            else False
        out.append(GlobalOp(n.line, n.name, ptr, base, mask, ptype, vtype, elem, n.attrs,
                            None, used, n.text))


def _last_uses(text: str) -> dict[str, int]:
    """``{SSA name: last line using it}``, in one pass."""
    last: dict[str, int] = {}
    for lineno, line in enumerate(text.split("\n"), 1):
        for m in _SSA.finditer(line):
            last[m.group(0).split("#")[0]] = lineno
    return last


def analyse_axis_info(module: TTGIRModule) -> ModuleAxisInfo:
    """Triton 3.9's AxisInfo of every value of ``module`` and its global-memory ops.

    Args:
        module: from :func:`~linlayout.triton.read_ttgir` (its analysed text is kept in
            :attr:`~linlayout.triton.ttgir.TTGIRModule.text`).

    Returns:
        A :class:`ModuleAxisInfo`. Values the analysis does not reach are absent (callers
        treat them as unknown: 1 everywhere).

    Raises:
        LayoutError: ``module`` is not a :class:`~linlayout.triton.ttgir.TTGIRModule`.

    Source: ``lib/Analysis/AxisInfo.cpp`` (``AxisInfoAnalysis``, its visitors,
    ``AxisInfo::join``, ``visitForOpInductionVar``), Triton 3.9.
    """
    instance_of(module, TTGIRModule, "module")
    text = module.text
    nodes, args, shapes = _read(text)
    ev = _Eval(args, shapes)
    ev.run(nodes)
    gops: list[GlobalOp] = []
    if any(g in text for g in ("tt.load", "tt.store", "tt.atomic", "async_copy_global",
                               "amdg.buffer")):
        _global_ops(nodes, module.aliases, _last_uses(text), gops, {})
    return ModuleAxisInfo(ev.values, ev.shapes, tuple(gops), ev.complete, ev.strides)


# ------------------------------------------------------- Triton's per-layout readings
def layout_order(layout: LinearLayout) -> list[int]:
    """``order`` of the linear encoding of a distributed layout: dims in the order the
    register bases first move them, then the rest from the last dim down (Triton
    ``LinearEncodingAttr::getOrder``).

    Raises:
        LayoutError: ``layout`` has no ``register`` in dim.
    """
    bases = layout.bases
    if "register" not in bases:
        raise LayoutError("a distributed layout needs a 'register' in dim")
    rank = len(layout.out_dim_names)
    seen: list[int] = []
    for b in bases["register"]:
        for i, v in enumerate(b):
            if v:
                if i not in seen:
                    seen.append(i)
                break
    return seen + [d for d in range(rank - 1, -1, -1) if d not in seen]


def contig_per_thread(layout: LinearLayout) -> list[int]:
    """Consecutive elements one thread holds per dim: the leading register bases ``1, 2, 4,
    …`` along ``order[0]``, then along ``order[1]`` … (Triton
    ``LinearEncodingAttr::getContigPerThread``)."""
    order = layout_order(layout)
    regs = layout.bases["register"]
    rank = len(order)
    contig = [1] * rank
    k = 0
    for dim in order:
        want = [0] * rank
        want[dim] = 1
        while k < len(regs) and list(regs[k]) == want:
            contig[dim] *= 2
            want[dim] *= 2
            k += 1
    return contig


def _unique_layout(layout: LinearLayout) -> LinearLayout:
    """The layout without zero (broadcast) register bases (``removeZeroBasesAlongDim``)."""
    bases = layout.bases
    regs = [b for b in bases["register"] if any(b)]
    if len(regs) == len(bases["register"]):
        return layout
    nb = dict(bases)
    nb["register"] = regs
    return LinearLayout(nb, layout.out_dims)


def alignment(info: AxisInfo | None, ttype: TritonType, element_bits: int) -> int:
    """Triton ``ModuleAxisInfoAnalysis::getAlignment``: elements per aligned run along
    ``order[0]`` — ``min(divisibility / element bytes, contiguity)`` for a pointer tensor,
    ``min(divisibility, contiguity)`` for offsets.

    Raises:
        LayoutError: ``ttype`` has no linear layout.
    """
    if info is None or ttype.kind != "tensor":
        return 1
    order = layout_order(ttype.layout)
    d = order[0]
    if d >= info.rank:
        return 1
    div = info.divisibility[d]
    if ttype.element_type.startswith("!tt.ptr"):
        div = max(div // max(element_bits // 8, 1), 1)
    return max(1, min(div, info.contiguity[d]))


def contiguity(info: AxisInfo | None, ttype: TritonType, element_bits: int) -> int:
    """Triton ``ModuleAxisInfoAnalysis::getContiguity``: :func:`alignment` capped by the
    consecutive elements one thread holds along ``order[0]``.

    Raises:
        LayoutError: ``ttype`` has no linear layout.
    """
    if info is None or ttype.kind != "tensor":
        return 1
    lay = ttype.layout
    order = layout_order(lay)
    return max(1, min(alignment(info, ttype, element_bits), contig_per_thread(lay)[order[0]]))


def mask_alignment(info: AxisInfo | None, ttype: TritonType) -> int:
    """Triton ``ModuleAxisInfoAnalysis::getMaskAlignment``: the mask's constancy along
    ``order[0]`` (at least 1).

    Raises:
        LayoutError: ``ttype`` has no linear layout.
    """
    if info is None or ttype.kind != "tensor":
        return 1
    order = layout_order(ttype.layout)
    d = order[0]
    return max(1, info.constancy[d]) if d < info.rank else 1


def unique_registers(ttype: TritonType) -> int:
    """Distinct elements one thread holds (Triton ``getUniqueElemsPerThread``)."""
    return 1 << len(_unique_layout(ttype.layout).bases["register"])


__all__ += ["unique_registers"]
