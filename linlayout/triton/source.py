"""MLIR text as the reader receives it: files read within
:data:`~linlayout.triton.limits.MAX_FILE_BYTES`, and positions turned into line and column numbers.

Lines are counted the way MLIR counts them: only ``\\n`` ends a line (``\\r\\n`` is one line
break; a form feed, ``\\x85``, ``\\u2028`` or a lone ``\\r`` inside a line is just a character,
although :meth:`str.splitlines` would break there). A UTF-8 byte-order mark at the start of a
file is dropped, ``\\r\\n`` is read as ``\\n``, and a file whose only line breaks are ``\\r``
(old Mac OS line endings) is read with each ``\\r`` as ``\\n`` (:func:`normalize_line_breaks`).
"""

from __future__ import annotations

import os
import re
import stat

from ..errors import LayoutError
from .limits import MAX_FILE_BYTES, clip

__all__ = ["BOM", "LineIndex", "code_end", "module_attribute", "normalize_line_breaks",
           "read_text_file", "strip_bom"]

#: The byte-order mark some editors write at the start of UTF-8 files.
BOM = "\ufeff"


def strip_bom(text: str) -> str:
    """``text`` without a leading byte-order mark (U+FEFF)."""
    return text[1:] if text.startswith(BOM) else text


def normalize_line_breaks(text: str) -> str:
    """``text`` with ``\\r\\n`` read as ``\\n``, and, when it has no ``\\n`` at all, each ``\\r``
    read as ``\\n`` (a file saved with old Mac OS line endings).

    MLIR's lexer takes ``\\r`` as whitespace and as the end of a ``//`` comment
    (``mlir/lib/AsmParser/Lexer.cpp``: ``Lexer::lexToken``, ``Lexer::skipComment``), so Triton
    parses such a file; the reader here works line by line, so its lines are made ``\\n``
    lines. Line numbers are unchanged for every file with a ``\\n``: a ``\\r\\n`` stays one
    break, and a lone ``\\r`` among ``\\n`` lines stays a character of its line, as MLIR counts
    lines. In a file of ``\\r`` lines only, MLIR would put everything on line 1; here each
    ``\\r`` ends a line, as an editor that shows such a file numbers them.

    Raises:
        nothing: any ``str`` is accepted.
    """
    if "\r" not in text:
        return text
    if "\n" not in text:
        return text.replace("\r", "\n")
    return text.replace("\r\n", "\n")


def code_end(line: str) -> int:
    """Where the code of one line of MLIR ends: the offset of a ``//`` line comment that
    starts outside a quoted string (``loc("a//b.py":3:1)`` holds no comment), or
    ``len(line)`` when there is none. A string runs to its closing ``"``, a ``\\`` escaping
    the next character (MLIR's string literals, ``Lexer::lexString``); an unclosed string
    runs to the end of the line. Linear in the line's length.

    Raises:
        nothing: any ``str`` is accepted.
    """
    i, n = 0, len(line)
    while i < n:
        j = line.find("/", i)
        q = line.find('"', i, j if j >= 0 else n)
        if q < 0:
            if j < 0:
                return n
            if line.startswith("//", j):
                return j
            i = j + 1
            continue
        i = q + 1  # inside a string: skip to its closing quote
        while i < n:
            c = line[i]
            if c == "\\":
                i += 2
                continue
            i += 1
            if c == '"':
                break
    return n


_FUNC_LINE = re.compile(r"[ \t]*tt\.func\b")


def module_attribute(text: str, name: str, value: str = r"(-?[\w.]+)") -> str | None:
    """The value text of the module attribute ``ttg.<name>`` (or ``triton_gpu.<name>``;
    ``"ttg.num-warps" = 4 : i32`` gives ``"4"``), or None when the text has none. ``value``
    is the regex of the value, its group 1 returned (default: a word; ``r'"([^"\\n]*)"'``
    for a string such as ``ttg.target``).

    Skipped: an occurrence inside a ``//`` comment (:func:`code_end`), which MLIR does not
    read, and one on a ``tt.func`` line, which is the function's own attribute
    (:func:`~.warp_specialize.find_function_warps`). Each line is looked at once: linear in
    the text's size. Source: the module attributes Triton 3.9 writes (``TritonGPUDialect``'s
    ``ttg.num-warps``, ``ttg.num-ctas``, ``ttg.threads-per-warp``, ``ttg.target``).

    Raises:
        nothing: a value that is not the attribute's is the caller's to refuse.
    """
    pattern = re.compile(r'"?(?:ttg|triton_gpu)\.' + re.escape(name)
                         + r'"?\s*=\s*' + value)
    at = 0
    while True:
        m = pattern.search(text, at)
        if m is None:
            return None
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        if not _FUNC_LINE.match(text, start):
            cut = start + code_end(text[start:end])
            if m.start() < cut:
                return m.group(1)
        at = end + 1
        if at > len(text):
            return None


def read_text_file(path: str | os.PathLike, what: str = "TTGIR file") -> str:
    """The UTF-8 text of a regular file of at most :data:`MAX_FILE_BYTES` bytes.

    The file is checked with ``stat`` before it is opened, so a FIFO, a device such as
    ``/dev/zero`` or a directory is refused without blocking or reading; at most
    ``MAX_FILE_BYTES + 1`` bytes are ever read (a file that grows while it is read is refused
    too). A leading byte-order mark is dropped; line breaks are read as
    :func:`normalize_line_breaks` says.

    Args:
        path: the file.
        what: how messages name the file (``"TTGIR file"``).

    Returns:
        The decoded text.

    Raises:
        LayoutError: the file cannot be opened or read, is not a regular file, is larger than
            :data:`MAX_FILE_BYTES` bytes, or is not UTF-8 text (one line naming the path).
    """
    name = os.fspath(path)
    shown = repr(clip(name, 200)) if isinstance(name, str) else repr(name)[:200]
    try:
        st = os.stat(name)
        if not stat.S_ISREG(st.st_mode):
            raise LayoutError(f"cannot read {what} {shown}: not a regular file (a "
                              f"{_kind(st.st_mode)}); pass a file of at most "
                              f"{MAX_FILE_BYTES} bytes")
        if st.st_size > MAX_FILE_BYTES:
            raise _too_big(what, shown, st.st_size)
        with open(name, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # replaced since the stat
                raise LayoutError(f"cannot read {what} {shown}: not a regular file")
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise LayoutError(f"cannot read {what} {shown}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL character in the name: os.stat refuses it
        raise LayoutError(f"cannot read {what} {shown}: {exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _too_big(what, shown, None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LayoutError(f"{what} {shown} is not UTF-8 text: {exc.reason}") from None
    return normalize_line_breaks(strip_bom(text))


def _too_big(what: str, shown: str, size: int | None) -> LayoutError:
    has = f"{size} bytes" if size is not None else f"more than {MAX_FILE_BYTES} bytes"
    return LayoutError(f"{what} {shown} has {has}; at most {MAX_FILE_BYTES} "
                       f"({MAX_FILE_BYTES >> 20} MiB) are read")


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISDIR, "directory"), (stat.S_ISFIFO, "pipe"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket")):
        if test(mode):
            return kind
    return "special file"


class LineIndex:
    """Line and column numbers of offsets into one text, counted on ``\\n`` only.

    Building the index counts the line breaks of each :data:`BLOCK`-character block once
    (linear in the text, a few integers per block); each query then scans at most one block,
    so any number of queries — one per tolerated error, one per operation — stays linear in
    the text's size. Memory does not grow with the number of lines.
    """

    #: Characters per block of the index.
    BLOCK = 4096

    def __init__(self, text: str):
        """Index ``text`` (a str; the index keeps a reference to it)."""
        self.text = text
        b = self.BLOCK
        #: newlines before each block, and the offset of the last one (-1: none)
        self._before = [0]
        self._last = [-1]
        for start in range(0, len(text), b):
            n = text.count("\n", start, start + b)
            j = text.rfind("\n", start, start + b)
            self._before.append(self._before[-1] + n)
            self._last.append(j if j >= 0 else self._last[-1])

    def line(self, i: int) -> int:
        """The 1-based line of offset ``i`` (0 ≤ i ≤ len(text))."""
        k = i // self.BLOCK
        return self._before[k] + self.text.count("\n", k * self.BLOCK, i) + 1

    def line_start(self, i: int) -> int:
        """The offset where the line holding offset ``i`` starts."""
        k = i // self.BLOCK
        j = self.text.rfind("\n", k * self.BLOCK, i)
        return (j if j >= 0 else self._last[k]) + 1

    def column(self, i: int) -> int:
        """The 1-based column (in characters) of offset ``i``."""
        return i - self.line_start(i) + 1
