"""The pycute-generated fixtures (``tests/data/cute_atoms.json``, written by
``papers/cute_gluon/generate_cute_fixtures.py`` with NVIDIA's pycute; pycute is not needed
here)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


@lru_cache(maxsize=None)
def cute_fixtures() -> dict:
    with open(DATA / "cute_atoms.json", encoding="utf-8") as fh:
        return json.load(fh)
