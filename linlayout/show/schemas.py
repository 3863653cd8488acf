"""The JSON the commands print with ``--json``: its version and its JSON Schema files.

Each document ``linlayout synthesize``, ``conflicts``, ``check`` and ``ptx`` prints starts with
``"schema_version"`` (:data:`SCHEMA_VERSION`); ``linlayout/data/schemas/COMMAND.json`` is the
JSON Schema (draft 2020-12) of that command's document, shipped with the package and
documented in ``docs/cli.md``. The version is bumped when a key is renamed, moved or removed;
new keys may appear without a bump.

Example::

    >>> schema("check")["title"]
    'linlayout check --json'
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from .._checks import need_mapping
from ..errors import LayoutError

__all__ = ["COMMANDS", "SCHEMA_VERSION", "schema", "versioned"]

#: The version of every command's JSON document.
SCHEMA_VERSION = 1

#: The commands whose ``--json`` output has a schema.
COMMANDS = ("synthesize", "conflicts", "coalescing", "check", "ptx", "convert")


def schema(command: str) -> dict[str, Any]:
    """The JSON Schema of ``linlayout COMMAND --json`` (a fresh dict).

    Raises:
        LayoutError: ``command`` is not one of :data:`COMMANDS`.
    """
    if command not in COMMANDS:
        raise LayoutError(f"no JSON schema for {command!r}; choose one of {list(COMMANDS)}")
    text = resources.files("linlayout").joinpath(f"data/schemas/{command}.json").read_text(
        "utf-8")
    return json.loads(text)


def versioned(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` with ``"schema_version"`` as its first key (a new dict).

    Raises:
        LayoutError: ``document`` is not a mapping.
    """
    need_mapping(document, "document")
    return {"schema_version": SCHEMA_VERSION, **document}
