"""TTGIR text helpers the scripts of this folder share, importable without Triton."""

from __future__ import annotations

import re

__all__ = ["strip_locs"]


def strip_locs(text: str) -> str:
    """Remove every loc(...) (balanced) and blank the '#locN = loc(...)' lines; keep line count."""
    out = []
    for line in text.split("\n"):
        if re.match(r"^#loc\d*\s*=", line):
            out.append("")
            continue
        res, i = [], 0
        while True:
            j = line.find("loc(", i)
            if j < 0:
                res.append(line[i:])
                break
            if j > 0 and (line[j - 1].isalnum() or line[j - 1] in "_."):
                res.append(line[i:j + 4])
                i = j + 4
                continue
            res.append(line[i:j].rstrip(" "))
            depth, k = 0, j + 3
            while k < len(line):
                if line[k] == "(":
                    depth += 1
                elif line[k] == ")":
                    depth -= 1
                    if depth == 0:
                        break
                elif line[k] == '"':  # skip quoted strings (file names may contain parens)
                    k = line.index('"', k + 1)
                k += 1
            i = k + 1
        out.append("".join(res).rstrip())
    return "\n".join(out)
