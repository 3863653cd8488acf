"""Check the machine code: each case's loop issues exactly its instructions, of the right kind.

The measurement divides counter differences by ``iters × warps × instructions``, which is only
right if the compiled loop body holds exactly ``instructions_per_warp`` shared-memory
instructions of the intended width — no more (split accesses), no fewer (hoisted or merged
ones). This reads each kernel's SASS with ``cuobjdump --dump-sass`` (``build/obj/<case>.o``)
and checks, between the two ``CS2R Rx, SR_CLOCKLO`` that bracket the loop:

* one backward branch (the loop) and every shared-memory instruction inside it — for a
  ``serial`` case (the warps take turns) one or more loops, since the compiler may copy the
  loop into each turn;
* as many of them as the case has instructions per warp (in each loop);
* all with the expected opcode: ``LDS.U8``/``LDS.U16``/``LDS``/``LDS.64``/``LDS.128`` for 1- to
  16-byte ``ld.shared`` (``STS…`` for ``st.shared``), ``LDSM.16.M88{,.2,.4}`` for
  ``ldmatrix.x{1,2,4}`` (``MT88`` with ``.trans``), ``STSM…`` for ``stmatrix``.

Needs only Python's standard library and ``cuobjdump`` (on the GPU machine's CUDA toolkit, or
``pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm`` on a machine without one).

Run:  python papers/hardware/check_sass.py [--build DIR] [--cuobjdump PATH] [--out sass.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)\s*([^;]*);")
_SHARED = {"LDS", "STS", "LDSM", "STSM"}
_WIDTH = {1: ".U8", 2: ".U16", 4: "", 8: ".64", 16: ".128"}


def expected_opcode(case: dict) -> str:
    """The SASS opcode the case's access should compile to."""
    instr = case["linlayout_instruction"]
    if "matrix" in instr:
        n = instr.split(".x")[1][0]
        shape = "MT88" if instr.endswith(".trans") else "M88"
        op = "LDSM" if instr.startswith("ld") else "STSM"
        return f"{op}.16.{shape}" + ("" if n == "1" else f".{n}")
    op = "STS" if case["direction"] == "st" else "LDS"
    return op + _WIDTH[case["access_bytes"]]


def parse_sass(text: str) -> list[tuple[int, str, str]]:
    """``(address, opcode, operands)`` of every instruction in a ``cuobjdump --dump-sass`` text."""
    out = []
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return out


def loop_shared_ops(instrs: list[tuple[int, str, str]], many: bool = False) -> dict:
    """The shared-memory instructions between the clock reads, and whether all are in the loop
    (``many``: any number of loops, each listed; ``in_loop`` is then the first loop's)."""
    clocks = [a for a, op, args in instrs if op == "CS2R" and "SR_CLOCKLO" in args]
    if len(clocks) != 2:
        return {"error": f"expected 2 clock reads, found {len(clocks)}"}
    t0, t1 = clocks
    body = [(a, op, args) for a, op, args in instrs if t0 < a < t1]
    back = []
    for a, op, args in body:
        if op == "BRA":
            m = re.search(r"0x([0-9a-f]+)", args)
            if m and int(m.group(1), 16) < a:
                back.append((int(m.group(1), 16), a))
    if len(back) != 1 and not (many and back):
        return {"error": f"expected one loop (backward branch), found {len(back)}"}
    shared = [(a, op) for a, op, _ in body if op.split(".")[0] in _SHARED]
    # innermost loops only (a serial case's turn loop may hold the measured loop)
    back = [(lo, hi) for lo, hi in back
            if not any((lo, hi) != (l2, h2) and lo <= l2 and h2 <= hi for l2, h2 in back)]
    loops = [[op for a, op in shared if lo <= a <= hi] for lo, hi in back]
    inside = sum(len(x) for x in loops)
    return {"in_loop": loops[0], "loops": loops, "outside_loop": len(shared) - inside}


def check_case(case: dict, sass: str) -> dict:
    """Check one case's SASS; returns ``{"ok", "opcodes", "count", "expected", ...}``."""
    want = expected_opcode(case)
    found = loop_shared_ops(parse_sass(sass), many=case.get("category") == "serial")
    if "error" in found:
        return {"ok": False, "expected": want, "error": found["error"]}
    ops = found["in_loop"]
    ok = (found["outside_loop"] == 0
          and all(len(x) == case["instructions_per_warp"] and set(x) == {want}
                  for x in found["loops"]))
    return {"ok": ok, "expected": want, "expected_count": case["instructions_per_warp"],
            "count": len(ops), "opcodes": sorted(set(ops)), "loops": len(found["loops"]),
            "outside_loop": found["outside_loop"]}


def find_cuobjdump(given: str | None) -> str | None:
    if given:
        return given
    found = shutil.which("cuobjdump")
    if found:
        return found
    for cand in sorted(Path("/usr/local").glob("cuda*/bin/cuobjdump")):
        return str(cand)
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", type=Path, default=HERE / "build")
    ap.add_argument("--cases", type=Path, default=HERE / "cases.json")
    ap.add_argument("--cuobjdump", default=None)
    ap.add_argument("--out", type=Path, default=None, help="write the per-case results (JSON)")
    args = ap.parse_args(argv)
    tool = find_cuobjdump(args.cuobjdump)
    if tool is None:
        print("check_sass: no cuobjdump found; SASS not checked")
        return 2
    cases = json.loads(args.cases.read_text(encoding="utf-8"))["cases"]

    def one(c: dict) -> dict:
        obj = args.build / "obj" / f"{c['case']}.o"
        proc = subprocess.run([tool, "--dump-sass", "--function", c["kernel"], str(obj)],
                              capture_output=True, text=True, check=False)
        if proc.returncode:
            return {"ok": False, "error": (proc.stderr or proc.stdout).strip()[:300]}
        return check_case(c, proc.stdout)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        found = list(pool.map(one, cases))
    results, bad = {}, 0
    for c, res in zip(cases, found):
        results[c["case"]] = res
        if not res["ok"]:
            bad += 1
            print(f"{c['case']}: {res}")
    print(f"SASS: {len(cases) - bad} of {len(cases)} kernels issue exactly their instructions "
          f"in the loop" + ("" if not bad else f"; {bad} FAILED"))
    if args.out:
        args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
