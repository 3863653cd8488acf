"""Write every case's CUDA kernel and the predictions (``cases.json``), on a machine without a GPU.

For each case of ``cases.catalogue()`` this computes linlayout's prediction
(``bank_conflicts`` = ``simulate_bank_access``) and the per-lane byte addresses, applies the
hardware model to those addresses as an independent check (``predict.py``), and writes

* ``kernels/<case>.cu`` — the case's kernel (``emit.py``), ``kernels/registry.cu`` — the table
  ``cuda/driver.cu`` runs;
* ``cases.json`` — the predictions: per instruction, per warp and per CTA iteration wavefronts,
  the degree, phases, instruction counts, the PTX instruction, and the layouts.

Output is deterministic (the random cases have fixed seeds); ``--check`` regenerates in memory
and exits 1 if the files on disk differ (stale), so the committed kernels always match.

Run:  python papers/hardware/generate.py [--check] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases as catalogue_module  # noqa: E402
import emit  # noqa: E402
from predict import Prediction, predict  # noqa: E402

import linlayout  # noqa: E402

MODEL = ("NVIDIA: 32 banks of 4-byte words; ld/st.shared phases of 128/max(bytes,4) consecutive "
         "lanes; ldmatrix/stmatrix one phase per 8x8 matrix; same-word requests served "
         "together; warps never conflict; an 8- or 16-byte ld.shared whose lanes n and n^1 "
         "(or n and n^2) share addresses runs in the phases of an access half as wide")


def build() -> tuple[list[Prediction], dict[str, str]]:
    """Predictions for every case and the files to write (relative path -> text)."""
    preds = [predict(c) for c in catalogue_module.catalogue()]
    files: dict[str, str] = {}
    entries = []
    for p in preds:
        src = f"kernels/{p.case.name}.cu"
        files[src] = emit.kernel_source(p)
        entry = p.to_json()
        entry["kernel"] = emit.kernel_name(p.case.name)
        entry["source"] = src
        entries.append(entry)
    files["kernels/registry.cu"] = emit.registry_source(preds)
    doc = {
        "generator": "papers/hardware/generate.py",
        "linlayout_version": linlayout.__version__,
        "hardware_model": MODEL,
        "counts": dict(Counter(p.case.category for p in preds)),
        "cases": entries,
    }
    files["cases.json"] = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    return preds, files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE, help="directory to write into")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 if the files on disk are stale")
    args = ap.parse_args(argv)
    preds, files = build()
    if args.check:
        stale = [rel for rel, text in files.items()
                 if not (args.out / rel).is_file()
                 or (args.out / rel).read_text(encoding="utf-8") != text]
        extra = sorted(str(p.relative_to(args.out)) for p in (args.out / "kernels").glob("*.cu")
                       if str(p.relative_to(args.out)) not in files)
        for rel in stale:
            print(f"stale: {rel}")
        for rel in extra:
            print(f"not generated: {rel}")
        print(f"{len(files)} files checked: " + ("up to date" if not stale and not extra
                                                 else "SOME FILES FAILED the check"))
        return 1 if stale or extra else 0
    kdir = args.out / "kernels"
    kdir.mkdir(parents=True, exist_ok=True)
    for old in kdir.glob("*.cu"):
        if f"kernels/{old.name}" not in files:
            old.unlink()
    for rel, text in files.items():
        (args.out / rel).write_text(text, encoding="utf-8")
    counts = Counter(p.case.category for p in preds)
    print(f"{len(preds)} cases: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    sources = Counter(p.source for p in preds)
    print("prediction sources: " + ", ".join(f"{k} {v}" for k, v in sources.items()))
    print(f"wrote {len(files)} files under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
