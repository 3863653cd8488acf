"""Triton's published bank-conflict expectations, reproduced by linlayout's counter.

Triton's ``python/test/gluon/test_frontend.py::test_bank_conflicts`` (the same eleven cases as
``BankConflictTest.bankConflicts`` in ``unittest/Dialect/TritonGPU/SwizzleTest.cpp``) pairs a
register layout (blocked, mma v2/v3 accumulators, dot operands) with a shared layout (swizzled,
NVMMA 0/32/64/128-byte swizzles) and publishes the conflict count Triton's
``bankConflictsMemDesc`` must return: extra wavefronts per wavefront, i.e. ``degree − 1``.

The linear layouts of each case were taken from Triton 3.9 itself (``extract_triton.py`` →
``data/triton_layouts.json``, which also records the count that Triton returned live). This
script recomputes every case with :func:`linlayout.bank_conflicts` (closed form) and
:func:`linlayout.simulate_bank_access` (brute force) and checks ``degree − 1`` against the
published number. With Triton installed and ``--live``, it also re-asks Triton.

Run:  python papers/linear_layouts/triton_bank_conflicts.py [--live]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from linlayout import LinearLayout, bank_conflicts, simulate_bank_access

HERE = Path(__file__).resolve().parent


def short(attr: str) -> str:
    """A compact name for a Gluon layout repr."""
    for long, s in (("NVMMADistributedLayout", "mma"), ("NVMMASharedLayout", "nvmma"),
                    ("DotOperandLayout", "dot"), ("BlockedLayout", "blocked"),
                    ("SwizzledSharedLayout", "swizzled"), ("swizzle_byte_width=", "sw="),
                    ("element_bitwidth=", "bits="), ("operand_index=", "op="),
                    ("warps_per_cta=", "w="), ("instr_shape=", "i="), ("version=", "v="),
                    ("k_width=", "k="), ("transposed=True", "T"), ("transposed=False", ""),
                    ("cga_layout=[]", ""), ("fp4_padded=False", ""), ("rank=2", ""),
                    ("size_per_thread=", "spt="), ("threads_per_warp=", "tpw="),
                    ("order=", "o="), ("per_phase=", "pp="), ("max_phase=", "mp=")):
        attr = attr.replace(long, s)
    while ", ," in attr or ", )" in attr:
        attr = attr.replace(", ,", ",").replace(", )", ")")
    return attr


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--live", action="store_true",
                    help="re-run extract_triton.py first (needs Triton installed)")
    args = ap.parse_args(argv)
    if args.live:
        import subprocess
        rc = subprocess.run([sys.executable, str(HERE / "extract_triton.py")]).returncode
        if rc:
            return rc
    data = json.loads((HERE / "data" / "triton_layouts.json").read_text(encoding="utf-8"))
    cases = data["bank_conflict_cases"]
    print(f"Triton's published bank-conflict expectations ({len(cases)} cases; layouts from "
          f"Triton {data['triton_version']})\n")
    rows = []
    ok = True
    for c in cases:
        reg, shared = LinearLayout.from_dict(c["reg"]), LinearLayout.from_dict(c["shared"])
        bits = c["bitwidth"]
        cf = bank_conflicts(reg, shared, element_bits=bits)
        bf = simulate_bank_access(reg, shared, element_bits=bits)
        good = cf.degree - 1 == bf.degree - 1 == c["expected"] == c["triton_live"]
        ok &= good
        rows.append([short(c["reg_attr"]), short(c["shared_attr"]),
                     "x".join(map(str, c["shape"])), str(bits), str(c["expected"]),
                     str(c["triton_live"]), str(cf.degree - 1), str(bf.degree - 1),
                     f"{cf.vector_elems}x{cf.phases}", "ok" if good else "MISMATCH"])
    head = ["register layout", "shared layout", "shape", "bits", "published", "Triton live",
            "closed form", "simulator", "vec x phases", ""]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
    print(" | ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("-+-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(x.ljust(w) for x, w in zip(r, widths)))
    print("\ncounts are extra wavefronts per wavefront (degree - 1), Triton's convention")
    print("all claims reproduced" if ok else "SOME CLAIMS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
