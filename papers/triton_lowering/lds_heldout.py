#!/usr/bin/env python
"""A held-out draw for the AMD LDS instruction model (``linlayout/lowering/lds_pairs.py``:
LLVM's ``LoadStoreVectorizer`` merges and ``SILoadStoreOptimizer`` pairs): compile a fresh
draw of ``cvt_heldout_probes.build`` (Gluon converts and ``tl`` kernels) on gfx942 and gfx950
and compare, kernel by kernel, the LDS opcodes and their counts per thread of the final
AMDGCN with ``linlayout check --json``'s. Nothing is written but the draw itself, to
``--save`` when given. Needs Triton 3.9.0 (CPU only)::

    N_GLUON=60 N_TL=30 python papers/triton_lowering/lds_heldout.py SEED [--save PATH]

Prints each kernel with LDS traffic whose opcodes differ and the count that agree as drawn.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))

#: An LDS load or store of the AMDGCN (not ``ds_bpermute``/``ds_swizzle``, not atomics).
LDS = re.compile(r"ds_(read|write)(2st64|2)?_[biu]\d+(_tr_b\d+)?")


def lds_of_asm(p: dict) -> dict:
    """The kernel's LDS opcodes and counts per thread, from a probe of the draw."""
    from cvt_heldout_probes import _kernel_shared

    return {k: v for k, v in _kernel_shared(p).items() if LDS.fullmatch(k) and v}


def lds_of_check(ttgir: str) -> dict:
    """``check --json``'s LDS opcodes and counts per thread over the whole kernel."""
    from cvt_heldout_probes import check_json

    out: collections.Counter = collections.Counter()
    for o in check_json(ttgir)["ops"]:
        for i in o["instructions"]:
            op = i.get("isa") or ""
            if LDS.fullmatch(op) and i.get("per_thread"):
                out[op] += i["per_thread"]
    return dict(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seed", type=int)
    ap.add_argument("--save", type=pathlib.Path)
    args = ap.parse_args()
    import cvt_heldout_probes as C

    data = C.build(args.seed, ("gfx942", "gfx950"))
    if args.save:
        args.save.write_bytes(gzip.compress(json.dumps(data).encode()))
    agree = total = 0
    for name, p in sorted(data["probes"].items()):
        seen = lds_of_asm(p)
        if not seen:
            continue
        total += 1
        got = lds_of_check(p["ttgir"])
        if got == seen:
            agree += 1
        else:
            print(f"{name}: check {got}, AMDGCN {seen}")
    print(f"{len(data['probes'])} kernels, {total} with LDS traffic: {agree} of {total} "
          f"equal by LDS opcode and count as drawn")
    return 0


if __name__ == "__main__":
    sys.exit(main())
