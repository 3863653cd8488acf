"""Exploratory adversarial driver for the command line (not a test; slow).

Mutates real TTGIR (the hand-written fixtures and the compiled corpus) *semantically* — shapes,
element types, layout parameters, module attributes, targets, whole lines — and runs
``linlayout check`` on each mutant; also runs ``convert``/``synthesize`` with odd layouts and
weights. Each run is a forked child with a CPU-time alarm and an address-space limit, so a hang
or a memory blow-up shows as a finding instead of stalling the driver. A finding is anything but
exit 0/1, or exit 2 with exactly one ``linlayout: error:`` line.

    PYTHONPATH=. python benchmarks/fuzz_cli.py --n 500 --seed 11 --out /tmp/fuzz

Each finding's argv and input files are kept under ``--out``. ``--what api-cli`` runs
``linlayout convert``/``synthesize`` with odd layout texts, weights and flags the same way.

``--what census`` is not a fuzz: it checks every seed (each distinct TTGIR text once) with the
checkout named by ``--checkout`` (default this one) and writes, per seed, how many ops and
global ops were analysed, to ``--out`` (a JSON file). ``--compare BEFORE.json AFTER.json``
lists the input kernels whose analysed counts fell (a rule that turns real kernels into "not
analysed") and the totals:

    python benchmarks/fuzz_cli.py --what census --checkout /tmp/base --out /tmp/before.json
    python benchmarks/fuzz_cli.py --what census --out /tmp/after.json
    python benchmarks/fuzz_cli.py --compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import resource
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
if "--checkout" in sys.argv[:-1]:  # import linlayout (and the fixtures) from that checkout
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--checkout") + 1]).resolve()))

from linlayout.cli import main  # noqa: E402

TIMEOUT_S = 20
MEMORY_BYTES = 3 << 30


def run_forked(argv: list[str]) -> tuple[str, int, str, float]:
    """Run ``main(argv)`` in a child; returns (kind, code, stderr, seconds)."""
    fd_err, err_path = tempfile.mkstemp()
    os.close(fd_err)
    t0 = time.time()
    pid = os.fork()
    if pid == 0:  # child
        try:
            resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
            signal.alarm(TIMEOUT_S)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            err = os.open(err_path, os.O_WRONLY | os.O_TRUNC)
            os.dup2(err, 2)
            sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False))
            sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
            os.environ["LINLAYOUT_DEBUG"] = "1"
            code = main(argv)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code if isinstance(code, int) else 99)
        except BaseException:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(98)
    _, status = os.waitpid(pid, 0)
    dt = time.time() - t0
    err = Path(err_path).read_text(errors="replace")
    os.unlink(err_path)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        return ("hang" if sig == signal.SIGALRM else f"signal{sig}"), -sig, err, dt
    code = os.WEXITSTATUS(status)
    if code in (0, 1):
        return "ok", code, err, dt
    if code == 2:
        lines = err.splitlines()
        if len(lines) == 1 and lines[0].startswith("linlayout: error: "):
            return "ok", 2, err, dt
        if lines and re.match(r"linlayout \w+: error: ", lines[-1]) and \
                lines[0].startswith("usage: ") and \
                all(x.startswith(" ") for x in lines[1:-1]):
            return "usage", 2, err, dt  # argparse's usage error: usage lines, one error
        return "bad-stderr", 2, err, dt
    return "crash", code, err, dt


# ---------------------------------------------------------------------------------------- seeds

def ttgir_seeds() -> list[str]:
    from tests.check.shared_memory.triton_fixtures import entries, registry
    seeds = [p.read_text() for p in sorted((ROOT / "tests/data/ttgir").glob("*.ttgir"))]
    for name in sorted(registry()):
        spec = registry()[name]
        if "key" not in spec:
            continue
        try:
            for entry in entries(name).values():
                if isinstance(entry, dict) and isinstance(entry.get("ttgir"), str):
                    seeds.append(entry["ttgir"])
        except Exception:  # noqa: BLE001
            continue
    return seeds


SHAPE_VALUES = ["0", "1", "3", "7", "48", "96", "1048576", "65536", "1", "2", "4096", "100"]
ELEMENTS = ["i1", "i8", "i16", "i32", "i64", "f8E4M3FN", "f8E5M2", "f8E4M3FNUZ", "f8E5M2FNUZ",
            "bf16", "f16", "f32", "f64", "!tt.ptr<f16>", "!tt.ptr<i64>", "i128", "f4E2M1FN",
            "index", "i0", "i3", "complex<f32>", "vector<4xf16>", "tf32", "i24"]
NUMBERS = ["0", "-1", "3", "5", "1048576", "2147483648", "64", "128", "256", "33", "1", "2",
           "999999999999999999", "6"]
TARGETS = ["cuda:0", "cuda:75", "cuda:120", "cuda:999", "hip:gfx1100", "hip:gfx90a", "hip:",
           "cuda:", "foo", "", "cuda:90a", "hip:gfx942:sramecc+:xnack-", "cuda:-1"]
ATTR_KEYS = ["sizePerThread", "threadsPerWarp", "warpsPerCTA", "order", "CTAsPerCGA",
             "CTASplitNum", "CTAOrder", "vec", "perPhase", "maxPhase", "versionMajor",
             "versionMinor", "instrShape", "kWidth", "opIdx", "dim", "swizzlingByteWidth",
             "elementBitWidth", "isTransposed", "mDim", "nDim", "tilesPerWarp"]


def _sub_nth(pattern: str, text: str, repl, rng: random.Random) -> str:
    hits = list(re.finditer(pattern, text))
    if not hits:
        return text
    m = rng.choice(hits)
    return text[:m.start()] + repl(m) + text[m.end():]


def mutate_ttgir(text: str, rng: random.Random) -> tuple[str, str]:
    """One to three semantic edits; returns (text, description)."""
    done = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["shape", "shape", "elem", "elem", "attr", "attr", "attr", "list",
                           "warps", "tpw", "target", "truncate", "delete", "dup", "swap",
                           "bases", "zerod", "encoding", "op", "alloc_shape"])
        lines = text.split("\n")
        if kind == "shape":
            v = rng.choice(SHAPE_VALUES)
            text = _sub_nth(r"(?<=[<x])\d+(?=x)", text, lambda m: v, rng)
        elif kind == "elem":
            e = rng.choice(ELEMENTS)
            text = _sub_nth(r"(?<=x)(i1|i8|i16|i32|i64|f16|bf16|f32|f64|f8E\w+)(?=[,>])",
                            text, lambda m: e, rng)
        elif kind == "attr":
            key = rng.choice(ATTR_KEYS)
            v = rng.choice(NUMBERS)
            text = _sub_nth(key + r" = (\[[^\]]*\]|-?\d+)", text,
                            lambda m: f"{key} = " + (
                                "[" + ", ".join(rng.choice(NUMBERS) for _ in
                                                range(m.group(1).count(",") + 1)) + "]"
                                if m.group(1).startswith("[") else v), rng)
        elif kind == "list":  # change a list's length
            key = rng.choice(ATTR_KEYS)
            n = rng.choice([0, 1, 3, 4])
            text = _sub_nth(key + r" = \[[^\]]*\]", text,
                            lambda m: f"{key} = [" + ", ".join(
                                rng.choice(["0", "1", "2", "4"]) for _ in range(n)) + "]", rng)
        elif kind == "warps":
            v = rng.choice(["0", "3", "64", "-1", "1024", "7", "2147483647"])
            text = re.sub(r'"ttg.num-warps" = -?\d+', f'"ttg.num-warps" = {v}', text)
        elif kind == "tpw":
            v = rng.choice(["0", "16", "64", "33", "-32", "1"])
            text = re.sub(r'"ttg.threads-per-warp" = -?\d+', f'"ttg.threads-per-warp" = {v}',
                          text)
        elif kind == "target":
            v = rng.choice(TARGETS)
            text = re.sub(r'ttg.target = "[^"]*"', f'ttg.target = "{v}"', text)
        elif kind == "truncate":
            text = "\n".join(lines[:rng.randint(0, len(lines))])
        elif kind == "delete":
            i = rng.randrange(len(lines))
            text = "\n".join(lines[:i] + lines[i + 1:])
        elif kind == "dup":
            i = rng.randrange(len(lines))
            text = "\n".join(lines[:i] + [lines[i]] * rng.randint(2, 5) + lines[i:])
        elif kind == "swap":
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == "bases":
            v = rng.choice(["[0, 3]", "[3, 0]", "[1048576, 0]", "[0, 0]", "[7, 7]", "[-1, 0]",
                            "[0]", "[1, 2, 4]", "[64, 0]"])
            text = _sub_nth(r"\[\d+, \d+\](?=[,\]])", text, lambda m: v, rng)
        elif kind == "zerod":
            text = _sub_nth(r"tensor<[\dx]+x(?=[a-z!])", text, lambda m: "tensor<", rng)
        elif kind == "encoding":
            enc = rng.choice(["#ttg.bogus<{}>", "#ttg.blocked<{}>", "#ttg.linear<{}>",
                              "#ttg.swizzled_shared<{vec = 8}>", "#ttg.amd_mfma<{}>",
                              "#ttg.nvidia_mma<{versionMajor = 9}>",
                              "#ttg.slice<{dim = 5, parent = #blocked}>",
                              "#ttg.dot_op<{opIdx = 2, parent = #blocked}>",
                              "#ttg.padded_shared<[0:+4] {order = [1, 0], shape = [64, 64]}>",
                              "#ttg.padded_shared<[3:+5] {order = [1, 0], shape = [64, 64]}>",
                              "#ttg.nvmma_shared<{swizzlingByteWidth = 48, transposed = false, "
                              "elementBitWidth = 16}>",
                              "#ttg.shared_linear<{offset = [[0, 3]], block = []}>"])
            text = _sub_nth(r"^#\w+ = .*$", text,
                            lambda m: m.group(0).split(" = ")[0] + " = " + enc, rng) \
                if rng.random() < 0.5 else _sub_nth(r"(?<=, )#\w+(?=>)", text,
                                                    lambda m: enc, rng)
        elif kind == "op":
            op = rng.choice(["ttg.bogus_op", "ttg.local_load", "ttg.local_store",
                             "ttg.convert_layout", "tt.trans", "tt.reduce", "tt.scan",
                             "ttg.memdesc_index", "ttg.memdesc_subslice", "tt.gather",
                             "ttg.async_copy_global_to_local", "tt.dot", "tt.histogram",
                             "ttg.local_alloc", "tt.load", "tt.store", "tt.atomic_rmw"])
            text = _sub_nth(r"(?<== )[a-z_]+\.[a-z_]+(?= )", text, lambda m: op, rng)
        elif kind == "alloc_shape":
            text = _sub_nth(r"(?<=mutable)>", text,
                            lambda m: ", " + rng.choice(["2x64x64", "0x64", "3x48", "1x1x1",
                                                         "1048576x64x64"]) + ">", rng)
        done.append(kind)
    return text, "+".join(done)


def mutate_more(text: str, rng: random.Random) -> tuple[str, str]:
    """Edits the first round lacked: warp_specialize partitions' warps, memdesc and copy
    shapes, huge numbers anywhere, deep nesting, unicode, a cut inside a line, CRLF."""
    kind = rng.choice(["pwarps", "pwarps", "ldshape", "ldshape", "huge", "nest", "unicode",
                       "cut", "crlf", "wpc", "nul", "longline", "subslice", "index"])
    if kind == "pwarps":
        v = rng.choice(["0", "2", "3", "8", "16", "64", "4294967296", "9" * rng.choice([19, 5000]),
                        "-1", ""])
        text = _sub_nth(r"num_warps\(\d+\)", text, lambda m: f"num_warps({v})", rng)
    elif kind == "ldshape":  # the tensor side of a local copy
        v = rng.choice(["32x64", "1x64", "64x32", "2x64x64", "0x64", "1", "64x64x1", "128x128"])
        text = _sub_nth(r"(?<=-> tensor<)[\dx]+(?=x[a-z])|(?<=: tensor<)[\dx]+(?=x[a-z])", text,
                        lambda m: v, rng)
    elif kind == "huge":
        v = rng.choice(["9" * 19, "9" * 400, "18446744073709551616", "4294967296",
                        "9" * 5000, "-9223372036854775809"])
        text = _sub_nth(r"(?<![\w#%])\d+(?![\w])", text, lambda m: v, rng)
    elif kind == "nest":
        depth = rng.choice([10, 70, 500, 5000])
        body = "".join("  scf.if %c {\n" for _ in range(depth)) + \
            "".join("  }\n" for _ in range(depth))
        i = text.find("tt.return")
        text = text[:i] + body + text[i:] if i >= 0 else text + body
    elif kind == "unicode":
        u = rng.choice(["é", "\u202e", "𝕏", "\ufeff", "\u0000", "ß" * 1000, "\u2028"])
        i = rng.randrange(len(text) + 1)
        text = text[:i] + u + text[i:]
    elif kind == "cut":
        text = text[:rng.randrange(len(text) + 1)]
    elif kind == "crlf":
        text = text.replace("\n", "\r\n")
    elif kind == "wpc":
        v = rng.choice(["[8, 1]", "[2, 1]", "[1, 1]", "[1048576, 1]", "[0, 4]", "[1, 2, 2]"])
        text = _sub_nth(r"warpsPerCTA = \[[^\]]*\]", text, lambda m: f"warpsPerCTA = {v}", rng)
    elif kind == "nul":
        text = text.replace("\n", "\x00", 1)
    elif kind == "longline":
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        lines[i] = lines[i] + " " + "x" * rng.choice([10 ** 5, 10 ** 6])
        text = "\n".join(lines)
    elif kind == "subslice":
        v = rng.choice(["[0, 0]", "[32, 0]", "[64, 0]", "[999999, 0]", "[0]", "[1, 2, 3]",
                        "[-1, 0]"])
        text = _sub_nth(r"(?<=memdesc_subslice %)[\w$.-]+ ?\[[^\]]*\]", text,
                        lambda m: m.group(0).split("[")[0] + v, rng)
    elif kind == "index":
        v = rng.choice(["%c0_i32", "%c7_i32", "%c99999999999999999999_i32", "%nope"])
        text = _sub_nth(r"(?<=memdesc_index %)[\w$.-]+\[[^\]]*\]", text,
                        lambda m: m.group(0).split("[")[0] + f"[{v}]", rng)
    return text, kind


# ------------------------------------------------------------- synthesize / convert arguments

def _tensor_types(seeds: list[str], rng: random.Random, n: int = 400) -> list[str]:
    """Tensor types of the input kernels with their encodings written out (``--src`` text)."""
    out = []
    for text in rng.sample(seeds, min(len(seeds), 200)):
        aliases = dict(re.findall(r"^(#\w+) = (#ttg\.\w+<.*>)\s*$", text, re.M))
        for t in re.findall(r"tensor<[\dx]+x(?:f16|bf16|f32|i32|i8|f8E4M3FN|i64|f64)"
                            r", #\w+>", text):
            enc = t.split(", ")[1][:-1]
            if enc in aliases:
                out.append(t.replace(enc, aliases[enc]))
        if len(out) >= n:
            break
    return out or ["tensor<16x16xf16, #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = "
                   "[4, 8], warpsPerCTA = [1, 1], order = [1, 0]}>>"]


def _odd_layout_json(rng: random.Random) -> str:
    """A layout file: a random layout, or one broken in a way a person might write it."""
    from linlayout import LinearLayout

    lanes = rng.choice([32, 32, 64, 16, 1])
    ins = {"register": 1 << rng.choice([0, 1, 3, 6, 10]), "lane": lanes,
           "warp": 1 << rng.choice([0, 2, 5])}
    bits = rng.randint(0, 12)
    out = {"dim0": 1 << (bits // 2), "dim1": 1 << (bits - bits // 2)}
    try:
        d = LinearLayout.random(ins, out, kind=rng.choice(["unit", "general"]),
                                broadcast=rng.choice([0.0, 0.5]),
                                surjective=rng.random() < 0.7,
                                rng=rng.randrange(1 << 30)).to_dict()
    except Exception:  # noqa: BLE001
        d = {"bases": {"register": [[1, 0]]}, "out_dims": {"dim0": 2, "dim1": 1}}
    edit = rng.choice(["none", "none", "huge", "negative", "float", "name", "unicode", "deep",
                       "outsize", "empty", "nonpow2", "string", "null", "many"])
    if edit == "huge":
        d["out_dims"]["dim0"] = rng.choice([1 << 40, 1 << 64, 10 ** 400])
    elif edit == "negative":
        d["out_dims"]["dim1"] = -4
    elif edit == "float":
        d["out_dims"]["dim0"] = 2.5
    elif edit == "name":
        d["bases"]["thread"] = d["bases"].pop("lane", [])
    elif edit == "unicode":
        d["out_dims"] = {"dïm0" if k == "dim0" else k: v for k, v in d["out_dims"].items()}
    elif edit == "deep":  # written as text: json.dumps itself recurses
        depth = rng.choice([50, 5000])
        d["bases"]["register"] = "@DEEP@"
        return json.dumps(d).replace('"@DEEP@"', "[" * depth + "1" + "]" * depth)
    elif edit == "outsize":
        d["out_dims"]["dim0"] *= 2
    elif edit == "empty":
        d = {"bases": {}, "out_dims": {}}
    elif edit == "nonpow2":
        d["out_dims"]["dim1"] = 3
    elif edit == "string":
        return rng.choice(["", "{", "[]", "null", "\ufeff{}", "{" * 100000, "1e999"])
    elif edit == "null":
        d["bases"]["lane"] = None
    elif edit == "many":
        d["bases"]["register"] = [[0, 0]] * rng.choice([40, 70])
    return json.dumps(d)


def _odd_layout_arg(rng: random.Random, types: list[str], out: Path, name: str) -> str:
    from linlayout.cute.atoms import atom_names

    kind = rng.choice(["json", "json", "tensor", "tensor", "atom", "cute", "junk"])
    if kind == "json":
        p = out / f"{name}.json"
        p.write_text(_odd_layout_json(rng))
        return str(p)
    if kind == "tensor":
        t = rng.choice(types)
        if rng.random() < 0.5:  # the first round's TTGIR edits, on the type alone
            t = mutate_ttgir(t, rng)[0]
        return t
    if kind == "atom":
        a = rng.choice(atom_names())
        return a if rng.random() < 0.8 else a + rng.choice(["x", ".", "é"])
    if kind == "cute":
        return rng.choice(["(_8,_64):(_64,_1) on 16x16", "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"
                           " on 16x16", "(_32,_4):(_1,_32) on 0x0", "(_1048576):(_1) on "
                           "1048576x1", "((_2,_2),_2):((_1,_2),_4) on 3x3"])
    return rng.choice(["", " ", "tensor<", "#ttg.blocked<{}>", "x" * 5000, "/nonexistent.json",
                       "tensor<64x64xf16, #blocked>", "\x00"])


def _pair_json(rng: random.Random, out: Path, types: list[str]
               ) -> tuple[str, str, str | None]:
    """Two layout files over one tensor (``fuzz_api.random_pair``), so that the planners run
    rather than the argument checks."""
    from fuzz_api import random_pair

    hw = rng.choice(["NVIDIA", "AMD_CDNA3", "AMD_CDNA4"])
    try:
        a, b = random_pair(rng, hw)
    except Exception:  # noqa: BLE001
        return (_odd_layout_arg(rng, types, out, "src"),
                _odd_layout_arg(rng, types, out, "dst"), None)
    (out / "src.json").write_text(json.dumps(a.to_dict()))
    (out / "dst.json").write_text(json.dumps(b.to_dict()))
    return str(out / "src.json"), str(out / "dst.json"), hw


def _same_tensor(t: str, types: list[str], rng: random.Random) -> str:
    """Another type of ``types`` over the same shape and element type as ``t``, if any."""
    head = t.split(", ", 1)[0]
    same = [u for u in types if u.split(", ", 1)[0] == head]
    return rng.choice(same) if same else t


def fuzz_api_cli(n: int, rng: random.Random, out: Path, stats: dict) -> None:
    """``linlayout synthesize`` and ``convert`` with odd layouts, widths, weights and flags."""
    types = _tensor_types(ttgir_seeds(), rng)
    print(f"{len(types)} tensor types", flush=True)
    good = {"bits": ["8", "16", "32", "64"], "weight": ["1", "0", "4", "1000000"],
            "banks": ["16", "32", "64"], "bank_bytes": ["4", "8"],
            "target": ["cuda:80", "cuda:90", "cuda:100", "hip:gfx942", "hip:gfx950"],
            "instructions": ["auto", "none,none", "auto,ldmatrix.x4", "stmatrix.x4,auto"],
            "fixed": ["none", "32B", "64B", "128B"], "wkind": ["shfl", "selp", "bar.sync",
                                                                 "wavefront", "ld.shared"]}
    odd = {"bits": ["0", "7", "128", "-8", "1e3", "99999999999999999999"],
           "weight": ["-1", "2147483648", "9" * 19, "9" * 5000, "nan", "inf", "1e308", "2.5"],
           "banks": ["3", "0", "1048576", "1"], "bank_bytes": ["2", "3", "0", "1024"],
           "target": TARGETS, "instructions": ["x,y,z", "", "tma,none", "ldmatrix.x4"],
           "fixed": ["7B", "", "1024B"], "wkind": ["nope", "", "shfl.sync"]}
    for i in range(n):
        spoil = rng.choice(list(odd)) if rng.random() < 0.35 else None

        def val(key: str) -> str:
            return rng.choice(odd[key] if key == spoil else good[key])

        r = rng.random()
        hw = None
        if r < 0.3:  # a real pair over one tensor, then maybe one side spoilt
            src = rng.choice(types)
            dst = _same_tensor(src, types, rng)
            if rng.random() < 0.2:
                dst = mutate_ttgir(dst, rng)[0]
        elif r < 0.7:
            src, dst, hw = _pair_json(rng, out, types)
        else:
            src = _odd_layout_arg(rng, types, out, "src")
            dst = _odd_layout_arg(rng, types, out, "dst")
        if rng.random() < 0.5:
            argv = ["convert", "--src", src, "--dst", dst]
            if rng.random() < 0.4 or spoil in ("weight", "wkind"):
                argv += ["--weight", val("wkind") + "=" + val("weight")]
            if rng.random() < 0.3:
                argv += ["--wide-source"]
        else:
            argv = ["synthesize", "--src", src, "--dst", dst]
            if rng.random() < 0.3:
                argv += ["--dst", _odd_layout_arg(rng, types, out, "dst2")]
            if rng.random() < 0.3 or spoil == "weight":
                argv += ["--weights"] + [val("weight") for _ in
                                         range(argv.count("--dst") + 1)]
            if rng.random() < 0.2 or spoil == "instructions":
                argv += ["--instructions", val("instructions")]
            if rng.random() < 0.2 or spoil == "fixed":
                argv += ["--fixed", val("fixed")]
            for flag in ("--padding", "--explain"):
                if rng.random() < 0.2:
                    argv.append(flag)
            if rng.random() < 0.3:
                argv += ["--lowering", rng.choice(["hardware", "triton"])]
            if rng.random() < 0.2:
                argv += ["--objective", "instructions"]
        if argv[0] == "synthesize" or not src.startswith("tensor<") or rng.random() < 0.3 \
                or spoil == "bits":
            argv += ["--element-bits", val("bits")]
        if hw is not None and rng.random() < 0.9:
            argv += ["--hardware", hw]
        elif rng.random() < 0.3:
            argv += ["--hardware", rng.choice(["NVIDIA", "AMD_CDNA3", "AMD_CDNA4"])]
        if rng.random() < 0.2 or spoil == "banks":
            argv += ["--num-banks", val("banks")]
        if rng.random() < 0.2 or spoil == "bank_bytes":
            argv += ["--bank-bytes", val("bank_bytes")]
        if rng.random() < 0.3 or spoil == "target":
            argv += ["--target", val("target")]
        if rng.random() < 0.3:
            argv.append("--json")
        kind, code, err, dt = run_forked(argv)
        key = f"{argv[0]}-{kind}{code}"
        if _tally(stats, key, i, kind, dt):
            k = len(list(out.glob("finding*.argv.json")))
            files = {a: Path(a).read_text() for a in argv if a.endswith(".json")
                     and Path(a).is_file()}
            (out / f"finding{k}.argv.json").write_text(json.dumps({"argv": argv,
                                                                   "files": files}))
            tail = err.strip().splitlines()[-3:] if err.strip() else []
            print(f"[{i}] {kind} code={code} {dt:.1f}s {argv[:6]} -> finding{k}: {tail}",
                  flush=True)


def _tally(stats: dict, key: str, i: int, kind: str, seconds: float) -> bool:
    """Count run ``i``'s outcome under ``key``, print the tally every 50 runs, and say
    whether the run is a finding (not a clean exit or usage error, or over 10 s)."""
    stats[key] = stats.get(key, 0) + 1
    if (i + 1) % 50 == 0:
        print(f"[{i + 1}] {json.dumps(stats)}", flush=True)
    return kind not in ("ok", "usage") or seconds > 10

# ---------------------------------------------------------------------------------- main loop

def fuzz_check(n: int, rng: random.Random, out: Path, stats: dict,
               containing: str | None = None) -> None:
    seeds = [t for t in ttgir_seeds() if containing is None or containing in t]
    print(f"{len(seeds)} TTGIR seeds", flush=True)
    for i in range(n):
        seed = rng.choice(seeds)
        if rng.random() < 0.5:
            text, what = mutate_ttgir(seed, rng)
        else:
            text, what = mutate_more(seed, rng)
        path = out / "cur.ttgir"
        path.write_text(text)
        argv = ["check", str(path)] + rng.choice([[], [], ["--json"], ["--strict"],
                                                  ["--hardware", "AMD_CDNA3"],
                                                  ["--hardware", "AMD_CDNA4", "--json"],
                                                  ["--num-banks", rng.choice(["16", "64", "3"])],
                                                  ["--bank-bytes", rng.choice(["8", "2", "3"])],
                                                  ["--pass", "x"]])
        kind, code, err, dt = run_forked(argv)
        key = f"{kind}{code}"
        if _tally(stats, key, i, kind, dt):
            k = len(list(out.glob("finding*.ttgir")))
            (out / f"finding{k}.ttgir").write_text(text)
            tail = err.strip().splitlines()[-3:] if err.strip() else []
            print(f"[{i}] {kind} code={code} {dt:.1f}s {what} -> finding{k}: {tail}",
                  flush=True)


def census(out: Path) -> None:
    """Per distinct seed: ops by status and global ops analysed, or the error raised."""
    import hashlib

    from linlayout.check import check_module
    from linlayout.triton import read_ttgir

    seeds = {hashlib.sha1(t.encode()).hexdigest()[:16]: t for t in ttgir_seeds()}
    rows: dict = {}
    for key, text in sorted(seeds.items()):
        try:
            report = check_module(read_ttgir(text), suggest=False)
        except Exception as exc:  # noqa: BLE001
            rows[key] = {"error": f"{type(exc).__name__}: {str(exc)[:160]}"}
            continue
        ops: dict = {}
        for r in report.ops:
            ops[r.status.value] = ops.get(r.status.value, 0) + 1
        rows[key] = {"ops": ops,
                     "global": sum(g.prediction is not None for g in report.global_ops),
                     "global_not": sum(g.prediction is None for g in report.global_ops)}
    out.write_text(json.dumps(rows, indent=0, sort_keys=True))
    print(f"{len(rows)} seeds -> {out}", flush=True)


def compare(before: Path, after: Path) -> int:
    """Seeds whose analysed op or global-op counts fell, or that now fail; returns their
    number."""
    a, b = json.loads(before.read_text()), json.loads(after.read_text())
    fell = 0
    tot = {"ops": [0, 0], "global": [0, 0]}
    for key in sorted(set(a) & set(b)):
        x, y = a[key], b[key]
        if "error" in x:
            continue
        if "error" in y:
            fell += 1
            print(f"{key}: now fails: {y['error']}")
            continue
        nx = sum(n for s, n in x["ops"].items() if s != "not analysed")
        ny = sum(n for s, n in y["ops"].items() if s != "not analysed")
        tot["ops"][0] += nx
        tot["ops"][1] += ny
        tot["global"][0] += x["global"]
        tot["global"][1] += y["global"]
        if ny < nx or y["global"] < x["global"]:
            fell += 1
            print(f"{key}: analysed ops {nx} -> {ny}, global ops {x['global']} -> "
                  f"{y['global']}")
    print(f"{len(set(a) & set(b))} seeds in both; analysed ops {tot['ops'][0]} -> "
          f"{tot['ops'][1]}, analysed global ops {tot['global'][0]} -> {tot['global'][1]}; "
          f"{fell} seed(s) lost analysed ops or now fail")
    return fell


def main_() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--out", default="/tmp/fuzz")
    ap.add_argument("--what", default="check", choices=["check", "api-cli", "census"])
    ap.add_argument("--checkout", help="census: the checkout whose linlayout is imported")
    ap.add_argument("--containing", metavar="TEXT",
                    help="check: only seeds containing TEXT (e.g. ttg.warp_specialize)")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="compare two census files")
    a = ap.parse_args()
    if a.compare:
        sys.exit(1 if compare(Path(a.compare[0]), Path(a.compare[1])) else 0)
    if a.what == "census":
        census(Path(a.out))
        return
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    stats: dict = {}
    t0 = time.time()
    if a.what == "check":
        fuzz_check(a.n, rng, out, stats, a.containing)
    elif a.what == "api-cli":
        fuzz_api_cli(a.n, rng, out, stats)
    print(json.dumps(stats), f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main_()
