"""Checking TTGIR files from disk: one :class:`~linlayout.check.report.KernelReport` per
readable file, one :class:`FileError` per file that could not be read or parsed."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from .._checks import as_int, file_path, sequence_of
from ..errors import LayoutError
from ..hardware.model import HardwareModel
from ..triton.source import read_text_file
from ..triton.ttgir import read_ttgir
from .analysis import check_module
from .report import KernelReport

__all__ = ["FileError", "check_file", "check_files", "complete", "misaligned_ops",
           "not_analysed_ops", "not_counted_instructions",
           "passes", "worst_degree"]


@dataclass(frozen=True)
class FileError:
    """A file that could not be checked.

    Attributes:
        file: the path as given.
        message: one line saying why (unreadable, not UTF-8, not TTGIR, a malformed alias or
            type with its line and column, an unknown ``ttg.target``).
    """

    file: str
    message: str


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _path_name(path: object, what: str) -> str:
    """``path`` as a str (a str, or an ``os.PathLike`` giving one), whatever characters it
    holds: a name no file has is a :class:`FileError` of its own, not an argument error.

    Raises:
        LayoutError: not a path.
    """
    name = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(name, str):
        file_path(path, what)  # raises
    return name


def check_file(path: str, *, hardware: HardwareModel | None = None,
               pass_name: str | None = None) -> KernelReport | FileError:
    """Read and check one TTGIR file (text or ``MLIR_ENABLE_DUMP=1`` output).

    Args:
        path: the file.
        hardware: the bank model; default the module's ``ttg.target``.
        pass_name: for dumps, the section to analyse (:func:`~linlayout.triton.read_ttgir`).

    Returns:
        The :class:`~linlayout.check.report.KernelReport`, or a :class:`FileError` when the
        file cannot be read or parsed (never raises for a bad file): not a regular file (a
        FIFO, ``/dev/zero``), larger than :data:`~linlayout.triton.limits.MAX_FILE_BYTES`,
        not UTF-8, not TTGIR, or over another limit of the reader (``docs/limits.md``); a
        name with a NUL character too.

    Raises:
        LayoutError: ``path`` is not a path (a str or an ``os.PathLike`` giving one).
    """
    path = _path_name(path, "path")
    try:
        text = read_text_file(path)
        return check_module(read_ttgir(text, path, pass_name=pass_name), hardware=hardware)
    except LayoutError as exc:
        return FileError(path, _one_line(exc))


def check_files(paths: Sequence[str], *, hardware: HardwareModel | None = None,
                pass_name: str | None = None) -> list[KernelReport | FileError]:
    """:func:`check_file` for each path, in order.

    Raises:
        LayoutError: ``paths`` not a list of paths (a file that cannot be read or checked is a
            :class:`FileError` in the list, never an exception).
    """
    if isinstance(paths, (str, bytes)) or not isinstance(paths, Sequence):
        raise LayoutError(f"paths must be a list of file paths, got {type(paths).__name__}")
    paths = [_path_name(p, f"paths[{i}]") for i, p in enumerate(paths)]
    return [check_file(p, hardware=hardware, pass_name=pass_name) for p in paths]


def _results(results: Sequence[KernelReport | FileError]) -> tuple[KernelReport | FileError, ...]:
    """``results`` checked: a list of :class:`KernelReport` or :class:`FileError` (what
    :func:`check_files` returns).

    Raises:
        LayoutError: not a list, or an entry of another type.
    """
    return sequence_of(results, (KernelReport, FileError), "results")


def worst_degree(results: Sequence[KernelReport | FileError]) -> int:
    """The worst conflict degree over every counted op of the readable files (1 when none).

    Raises:
        LayoutError: ``results`` not a list of :class:`~linlayout.check.report.KernelReport` /
            :class:`FileError` (what :func:`check_files` returns).
    """
    results = _results(results)
    return max((r.worst_degree or 1 for r in results if isinstance(r, KernelReport)), default=1)


def misaligned_ops(results: Sequence[KernelReport | FileError]) -> int:
    """How many ops of the readable files are misaligned
    (:attr:`~linlayout.check.report.KernelReport.misaligned`: an emitted instruction faults).

    Raises:
        LayoutError: ``results`` not a list of :class:`~linlayout.check.report.KernelReport` /
            :class:`FileError` (what :func:`check_files` returns).
    """
    results = _results(results)
    return sum(len(r.misaligned) for r in results if isinstance(r, KernelReport))


def not_counted_instructions(results: Sequence[KernelReport | FileError]) -> int:
    """How many legal lane accesses of the readable files the bank counter could not count
    (:attr:`~linlayout.check.report.KernelReport.not_counted`).

    Raises:
        LayoutError: ``results`` not a list of :class:`~linlayout.check.report.KernelReport` /
            :class:`FileError` (what :func:`check_files` returns).
    """
    results = _results(results)
    return sum(len(r.not_counted) for r in results if isinstance(r, KernelReport))


def not_analysed_ops(results: Sequence[KernelReport | FileError]) -> int:
    """How many ops of the readable files could not be analysed
    (:attr:`~linlayout.check.report.OpStatus.NOT_ANALYSED`: their layouts could not be read
    or lowered).

    Raises:
        LayoutError: ``results`` not a list of :class:`~linlayout.check.report.KernelReport` /
            :class:`FileError` (what :func:`check_files` returns).
    """
    results = _results(results)
    return sum(r.totals.not_analysed for r in results if isinstance(r, KernelReport))


def complete(results: Sequence[KernelReport | FileError]) -> bool:
    """Whether a ``check`` run counted everything it found: no lane access the bank counter
    could not count (:func:`not_counted_instructions`) and no op it could not analyse
    (:func:`not_analysed_ops`). Ops that are only named (TMA copies, wgmma/tcgen05 operand
    reads through descriptors) and private scratch without a layout have no lane access to
    count and do not make a run incomplete. ``"complete"`` in JSON; the text verdict of an
    incomplete run starts with ``incomplete:``, never ``ok:``.

    Raises:
        LayoutError: ``results`` not a list of :class:`~linlayout.check.report.KernelReport` /
            :class:`FileError` (what :func:`check_files` returns).

    Source: the verdict of ``linlayout check`` (``docs/cli.md``, "check" and "Exit status").
    """
    return not_counted_instructions(results) == 0 and not_analysed_ops(results) == 0


def passes(results: Sequence[KernelReport | FileError], max_degree: int,
           strict: bool = False) -> bool:
    """The verdict of a ``check`` run (``"ok"`` in JSON, exit status 0 unless a file could
    not be read): no op misaligned and the worst degree at most ``max_degree``; with
    ``strict`` (``check --strict``) also :func:`complete`. Without ``strict``, instructions
    not counted and ops not analysed do not fail it; the verdict line lists them and says
    ``incomplete``.

    Raises:
        LayoutError: ``max_degree`` not an int; ``results`` not reports.

    Source: the verdict of ``linlayout check`` (``docs/cli.md``, "check" and "Exit status").
    """
    max_degree = as_int(max_degree, "max_degree")
    ok = misaligned_ops(results) == 0 and worst_degree(results) <= max_degree
    return ok and (not strict or complete(results))
