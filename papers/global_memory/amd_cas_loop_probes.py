"""Fresh AMD atomic kernels compiled ``-O3`` by Triton 3.9 (gfx942/gfx950): ``check``'s global
rows, the loads of its atomics' compare-and-swap loops (``loop_load``) included, against the
final AMDGCN's global/buffer loads and stores (``compare.amd_merge_outcome``). Weighted to the
atomics LLVM expands into loops: f16/bf16 CAS, 16-bit float adds (vector 1 or 2, scalar
pointers), system-scope f32 adds and i32 max; a few native ones. Uses the Gluon kernel of
``amd_atomic_probes.py``; writes nothing.

Usage: ``python papers/global_memory/amd_cas_loop_probes.py SEED COUNT`` (seeds used: 57713,
57719; see ``docs/triton-lowering.md``, "AMD compare-and-swap loops and their loads")."""
import collections
import os
import pathlib
import random
import re
import sys

os.environ["TRITON_ALWAYS_COMPILE"] = "1"
ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "papers/global_memory"))
sys.path.insert(0, str(ROOT / "papers/triton_lowering"))
import amd_atomic_probes as A
import triton
from probe_compile import private_triton_cache
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon._runtime import GluonASTSource

from linlayout.check import check_module
from linlayout.check.global_memory.compare import amd_merge_outcome
from linlayout.triton import read_ttgir

#: the final AMDGCN's global and buffer loads and stores
MEM = re.compile(r"\b((?:global|buffer)_(?:load|store)_\w+)")
#: the (OP, element type) pairs drawn: OP as ``amd_atomic_probes._kernel``'s (0 add, 1 max,
#: 2 xchg, 3 cas, 4 scalar-pointer add)
PAIRS = [(3, "f16"), (3, "f16"), (3, "bf16"), (0, "f16"), (0, "bf16"), (4, "f16"),
         (4, "bf16"), (1, "i32"), (0, "f32"), (2, "i32"), (1, "f32")]


def main(seed: int, count: int) -> collections.Counter:
    """Draws ``count`` kernels from ``seed``, prints each one's outcome and the tally."""
    rng = random.Random(seed)
    kamd = A._kernel()
    tally: collections.Counter = collections.Counter()
    drawn = tried = 0
    while drawn < count and tried < 400:
        tried += 1
        tname = rng.choice(["gfx942", "gfx950"])
        op, ty = rng.choice(PAIRS)
        w = rng.choice([1, 2, 4])
        spt0, spt1 = rng.choice([1, 2]), rng.choice([1, 1, 2, 4])
        tpw0, tpw1 = A._split(rng, 64)
        w0, w1 = A._split(rng, w)
        ord0 = rng.choice([0, 1])
        m_dim, n_dim = min(128, spt0 * tpw0 * w0), min(128, spt1 * tpw1 * w1)
        if m_dim * n_dim > 4096:
            continue
        sr = rng.choice([n_dim, 2 * n_dim, 1])
        sc = rng.choice([1, 1, 2]) if sr != 1 else m_dim
        mask = rng.choice([0, 0, 1]) if op != 3 else 0
        used = rng.random() < 0.5
        sem, scope = rng.choice(["relaxed", "acq_rel"]), rng.choice(["gpu", "gpu", "sys"])
        sig = {"X": A.DTYPES[ty], "Y": A.DTYPES[ty], "n": "i32", "sr": "i32"}
        consts = {"M": m_dim, "N": n_dim, "SPT0": spt0, "SPT1": spt1, "TPW0": tpw0,
                  "TPW1": tpw1, "W0": w0, "W1": w1, "ORD0": ord0, "SR": sr, "SC": sc,
                  "OP": op, "MASK": mask, "USED": used, "SEM": sem, "SCOPE": scope}
        attrs = {(i,): [["tt.divisibility", 16]] for i in range(4) if rng.random() < 0.7}
        sig.update({k: "constexpr" for k in consts})
        name = (f"{['add', 'max', 'xchg', 'cas', 'scalar_add'][op]}_{ty}_{m_dim}x{n_dim}_"
                f"{scope}_{tname}")
        try:
            with private_triton_cache():
                k = triton.compile(GluonASTSource(fn=kamd, signature=sig, constexprs=consts,
                                                  attrs=attrs),
                                   target=GPUTarget("hip", tname, 64), options={"num_warps": w})
        except Exception as exc:  # noqa: BLE001 - Triton refuses some configurations
            print("not compiled", name, type(exc).__name__, str(exc)[-80:])
            continue
        drawn += 1
        counts = collections.Counter(MEM.findall(k.asm["amdgcn"]))
        rep = check_module(read_ttgir(k.asm["ttgir"], name), suggest=False)
        out = amd_merge_outcome(rep.global_ops, counts)
        loads = [g.prediction.loop_load for g in rep.global_ops
                 if g.prediction and g.prediction.loop_load]
        tally[out] += 1
        print(drawn, name, out, "loop_load", loads, "final", dict(counts), flush=True)
    print("TALLY", dict(tally))
    return tally


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
