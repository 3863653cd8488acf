"""Exploratory adversarial driver for ``plan_conversion`` and ``synthesize_swizzle`` (not a
test; slow). Random distributed layouts with many registers, broadcast bases, general (non-
unit) bases, 8- to 64-bit elements, every hardware preset and target; each call runs in a
forked child with a time alarm and an address-space limit. A finding is any exception other
than LayoutError, a hang, or a memory blow-up.

    PYTHONPATH=. python benchmarks/fuzz_api.py --n 300 --seed 5
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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", default="/tmp/fuzz-api")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(a.seed)
    stats: dict = {}
    t0 = time.time()
    for i in range(a.n):
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
