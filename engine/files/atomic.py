"""Writing a file whole or not at all.

A full disk or a missing folder used to leave a 0-byte or half-written file behind (and a traceback).
`write_text` writes a temporary file beside the target, flushes it to disk and renames it over the
target (`os.replace`, atomic on POSIX and Windows), so the target is either the old file or the
complete new one. Any OSError becomes a `WriteError` that names the path and the reason.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

from .jsonload import path_text


class WriteError(OSError):
    """A file could not be written; the message names it and says why, in one line."""

    def __init__(self, path, reason: str):
        super().__init__(f"cannot write {path_text(path)}: {reason}")
        self.path, self.reason = path, reason

    def __str__(self) -> str:
        return self.args[0]


def write_text(path, text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically. A target that exists and is not a regular file (a
    terminal, `/dev/stdout`, a pipe) is written in place: there is nothing to rename over it."""
    target = Path(path)
    data = text.encode("utf-8")
    try:
        existing = os.stat(target)
    except FileNotFoundError:
        existing = None
    except OSError as exc:
        raise WriteError(target, _reason(exc)) from None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise WriteError(target, "it is a folder")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        try:
            with open(target, "wb") as handle:
                _write_all(handle.fileno(), data)
        except OSError as exc:
            raise WriteError(target, _reason(exc)) from None
        return
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise WriteError(target, _reason(exc)) from None
    try:
        try:
            if hasattr(os, "fchmod"):  # POSIX; elsewhere the temporary file's mode stays
                os.fchmod(fd, mode)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise WriteError(target, _reason(exc)) from None


def _write_all(fd: int, data: bytes) -> None:
    """os.write may write less than asked; a full disk raises OSError(ENOSPC)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__


_UMASK: list[int] = []


def _umask() -> int:
    """The process's umask, read once (reading it means setting it, so never from two threads)."""
    if not _UMASK:
        current = os.umask(0o022)
        os.umask(current)
        _UMASK.append(current)
    return _UMASK[0]
