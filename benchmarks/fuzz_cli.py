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
lists the seeds whose analysed counts fell (a rule that turns real kernels into "not
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


# ---------------------------------------------------------------------------------- main loop

def fuzz_check(n: int, rng: random.Random, out: Path, stats: dict) -> None:
    seeds = ttgir_seeds()
    print(f"{len(seeds)} TTGIR seeds", flush=True)
    for i in range(n):
        seed = rng.choice(seeds)
        text, what = mutate_ttgir(seed, rng)
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
        stats[key] = stats.get(key, 0) + 1
        if (i + 1) % 50 == 0:
            print(f"[{i + 1}] {json.dumps(stats)}", flush=True)
        if kind != "ok" or dt > 10:
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
        fuzz_check(a.n, rng, out, stats)
    print(json.dumps(stats), f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main_()
