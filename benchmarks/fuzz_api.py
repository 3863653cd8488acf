"""Exploratory adversarial driver for ``plan_conversion`` and ``synthesize_swizzle`` (not a
test; slow). Random distributed layouts with many registers, broadcast bases, general (non-
unit) bases, 8- to 64-bit elements, every hardware preset and target; each call runs in a
forked child with a time alarm and an address-space limit. A finding is any exception other
than LayoutError, a hang, or a memory blow-up.

    PYTHONPATH=. python benchmarks/fuzz_api.py --n 300 --seed 5

``--odd`` (a fraction, default 0) draws that share of the calls with odd arguments instead:
layouts with extra or renamed in dims, empty or one-element tensors, many registers, 1-, 16-
or 128-lane warps, element widths and weights no caller should pass (0, 7, 128, negative,
NaN), source loads, several loads with ``instructions``/``fixed``, custom bank models and odd
targets, ``lowering="triton"``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import signal
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from linlayout import LayoutError, LinearLayout, plan_conversion, synthesize_swizzle  # noqa
from linlayout.hardware import AMD_CDNA3, AMD_CDNA4, NVIDIA  # noqa: E402

TIMEOUT_S = 20
MEMORY_BYTES = 3 << 30
HW = {"NVIDIA": NVIDIA, "AMD_CDNA3": AMD_CDNA3, "AMD_CDNA4": AMD_CDNA4}
TARGETS = {"NVIDIA": [None, "cuda:80", "cuda:90", "cuda:100"],
           "AMD_CDNA3": [None, "hip:gfx942"], "AMD_CDNA4": [None, "hip:gfx950"]}


def forked(fn) -> tuple[str, str, float]:
    r, w = os.pipe()
    t0 = time.time()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
        signal.alarm(TIMEOUT_S)
        try:
            fn()
            msg = "ok"
        except LayoutError as exc:
            msg = "layout-error " + str(exc)[:200]
        except BaseException:  # noqa: BLE001
            msg = "crash " + traceback.format_exc()[-1500:]
        os.write(w, msg.encode()[:4000])
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    _, status = os.waitpid(pid, 0)
    dt = time.time() - t0
    if os.WIFSIGNALED(status):
        return ("hang" if os.WTERMSIG(status) == signal.SIGALRM else "signal"), "", dt
    text = data.decode(errors="replace")
    return text.split(" ", 1)[0], text, dt


def random_pair(rng: random.Random, hw_name: str):
    lanes = 64 if hw_name.startswith("AMD") else 32
    reg_bits = rng.choice([0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    warp_bits = rng.choice([0, 1, 2, 3])
    out_bits = rng.randint(0, reg_bits + lanes.bit_length() - 1 + warp_bits)
    ndims = rng.choice([1, 2, 2, 3])
    split = sorted(rng.randint(0, out_bits) for _ in range(ndims - 1))
    sizes = [b - a for a, b in zip([0] + split, split + [out_bits])]
    out = {f"dim{i}": 1 << s for i, s in enumerate(sizes)}
    ins = {"register": 1 << reg_bits, "lane": lanes, "warp": 1 << warp_bits}
    kinds = ["unit", "unit", "general"]
    bc = rng.choice([0.0, 0.0, 0.3, 1.0])
    src = LinearLayout.random(ins, out, kind=rng.choice(kinds), broadcast=bc,
                              surjective=bc < 1 and rng.random() < 0.9, rng=rng.randrange(1 << 30))
    ins2 = dict(ins)
    if rng.random() < 0.1:
        ins2["register"] = 1 << rng.choice([0, 3, 8, 9])
    if rng.random() < 0.05:
        ins2["lane"] = lanes // 2
    out2 = dict(out)
    if rng.random() < 0.05:
        out2 = {k: v for k, v in reversed(list(out.items()))}
    if rng.random() < 0.05 and out2:
        k = next(iter(out2))
        out2[k] *= 2
    bc2 = rng.choice([0.0, 0.0, 0.3, 1.0])
    dst = LinearLayout.random(ins2, out2, kind=rng.choice(kinds), broadcast=bc2,
                              surjective=bc2 < 1 and rng.random() < 0.9,
                              rng=rng.randrange(1 << 30))
    return src, dst


def odd_call(rng: random.Random):
    """A call with odd arguments: returns (what, description, the call)."""
    from linlayout.hardware import HardwareModel

    hw_name = rng.choice(list(HW))
    src, dst = random_pair(rng, hw_name)
    edit = rng.choice(["indim", "rename", "empty", "regs", "lanes", "bits", "weights",
                       "source", "loads", "hardware", "target", "triton", "fixed"])
    bits = rng.choice([8, 16, 32, 64])
    hw = HW[hw_name]
    target = rng.choice(TARGETS[hw_name])
    extra: dict = {}
    if edit == "indim":
        d = src.to_dict()
        d["bases"]["block"] = [[0] * len(d["out_dims"])]
        src = LinearLayout.from_dict(d)
    elif edit == "rename":
        d = dst.to_dict()
        d["bases"] = {("thread" if k == "lane" else k): v for k, v in d["bases"].items()}
        dst = LinearLayout.from_dict(d)
    elif edit == "empty":
        src = LinearLayout.from_dict({"bases": {}, "out_dims": {}})
    elif edit == "regs":
        ins = {"register": 1 << rng.choice([10, 14, 16]), "lane": hw.warp_size, "warp": 1}
        out = {"dim0": 1 << rng.choice([5, 8]), "dim1": 1 << rng.choice([5, 8])}
        try:
            src = LinearLayout.random(ins, out, rng=rng.randrange(1 << 30))
        except LayoutError:
            pass
    elif edit == "lanes":
        d = src.to_dict()
        k = rng.choice([0, 4, 6, 7])
        d["bases"]["lane"] = (d["bases"].get("lane", []) + [[0] * len(d["out_dims"])] * 8)[:k]
        src = LinearLayout.from_dict(d)
    elif edit == "bits":
        bits = rng.choice([0, 1, 4, 7, 12, 24, 128, 256, -8, 10 ** 30])
    elif edit == "weights":
        extra["weights"] = rng.choice([{"shfl": float("nan")}, {"bar.sync": -5.0},
                                       {"wavefront": float("inf")}, {"nope": 1.0},
                                       {"selp": 1e308}, {"mov": 0.0}, [1, 2], "x"])
    elif edit == "source":
        extra["source_load"] = rng.choice([(0, 8), (1, 1), (5, 4), (0, 0), (0, 1 << 40),
                                           (-1, 2), ("x", 1)])
    elif edit == "loads":
        extra["loads"] = [dst] * rng.choice([0, 2, 5])
        extra["instructions"] = rng.choice(["auto", ["none", "ldmatrix.x4"], ["tma", None],
                                            None, ["stmatrix.x4"] * 7, "x"])
        extra["weights"] = rng.choice([None, [1, 2], [0, 0], [-1], [1] * 9])
    elif edit == "hardware":
        try:
            hw = HardwareModel("odd", rng.choice([1, 2, 16, 64, 128, 3]),
                               rng.choice([1, 2, 4, 8, 16, 3]), rng.choice([16, 32, 64, 8]),
                               rng.choice([4, 8, 16, 32, 64]))
        except (LayoutError, ValueError, TypeError):
            hw = HW[hw_name]
    elif edit == "target":
        target = rng.choice(["cuda:0", "cuda:999", "hip:gfx1100", "hip:gfx90a", "", "x",
                             "hip:gfx950", "cuda:100"])
    elif edit == "triton":
        extra["lowering"] = "triton"
    elif edit == "fixed":
        extra["fixed"] = rng.choice(["none", "32B", "64B", "128B", "7B", [[0, 1]], [[1 << 40]],
                                     [], "x"])
    what = rng.choice(["convert", "synth"])
    desc = f"odd {edit} {what} hw={hw.name} bits={bits} target={target} {extra}"[:400]
    if what == "convert":
        def call():
            plan = plan_conversion(src, dst, bits, hardware=hw, target=target,
                                   weights=extra.get("weights") if edit == "weights" else None,
                                   source_load=extra.get("source_load"),
                                   wide_source=rng.random() < 0.3)
            str(plan)
    else:
        def call():
            loads = extra.get("loads", dst)
            r = synthesize_swizzle(src, loads, element_bits=bits, hardware=hw,
                                   weights=extra.get("weights") if edit == "loads" else None,
                                   instructions=extra.get("instructions"),
                                   fixed=extra.get("fixed"),
                                   lowering=extra.get("lowering", "hardware"),
                                   target=target if extra.get("lowering") else None)
            str(r)
    return what, desc, (src, dst), call


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default="/tmp/fuzz-api")
    ap.add_argument("--odd", type=float, default=0.0,
                    help="share of calls with odd arguments (odd_call)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    stats: dict = {}
    t0 = time.time()
    for i in range(a.n):
        if rng.random() < a.odd:
            try:
                what, desc, (src, dst), call = odd_call(rng)
            except LayoutError:
                stats["gen-skip"] = stats.get("gen-skip", 0) + 1
                continue
            kind, text, dt = forked(call)
            stats[f"odd-{what}-{kind}"] = stats.get(f"odd-{what}-{kind}", 0) + 1
            if kind not in ("ok", "layout-error") or dt > 10:
                k = len(list(out.glob("finding*.json")))
                (out / f"finding{k}.json").write_text(json.dumps({
                    "what": desc, "src": src.to_dict(), "dst": dst.to_dict(), "error": text}))
                print(f"[{i}] {desc} {kind} {dt:.1f}s -> finding{k}: {text[-300:]}",
                      flush=True)
            continue
        hw_name = rng.choice(list(HW))
        try:
            src, dst = random_pair(rng, hw_name)
        except LayoutError:
            stats["gen-skip"] = stats.get("gen-skip", 0) + 1
            continue
        bits = rng.choice([8, 16, 32, 64, 64])
        what = rng.choice(["convert", "convert", "synth"])
        target = rng.choice(TARGETS[hw_name])
        wide = rng.random() < 0.2
        if what == "convert":
            def call():
                plan = plan_conversion(src, dst, bits, hardware=HW[hw_name], target=target,
                                       wide_source=wide and bits < 32)
                str(plan)
        else:
            def call():
                r = synthesize_swizzle(src, dst, element_bits=bits, hardware=HW[hw_name])
                str(r)
        kind, text, dt = forked(call)
        stats[f"{what}-{kind}"] = stats.get(f"{what}-{kind}", 0) + 1
        if kind not in ("ok", "layout-error") or dt > 10:
            k = len(list(out.glob("finding*.json")))
            (out / f"finding{k}.json").write_text(json.dumps({
                "what": what, "hw": hw_name, "bits": bits, "target": target, "wide": wide,
                "src": src.to_dict(), "dst": dst.to_dict(), "error": text}))
            print(f"[{i}] {what} {kind} {dt:.1f}s hw={hw_name} bits={bits} -> finding{k}: "
                  f"{text[-300:]}", flush=True)
    print(json.dumps(stats), f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
