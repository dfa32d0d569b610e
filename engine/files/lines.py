"""A file that grows a line at a time as work finishes (a run's `games.jsonl`): only whole lines are ever written,
and the line a killed process left half-written is cut off when the file is read back, so what is read is always
what was written whole.

Appending is `os.write` on a descriptor opened with O_APPEND: each batch of lines goes to the kernel in one call
(a loop, should the kernel take less), so a process killed afterwards loses nothing, and there is no buffer of ours
to flush. A link is never followed: the file is the run folder's own (O_NOFOLLOW).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from .atomic import WriteError, _reason, _write_all

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_BINARY = getattr(os, "O_BINARY", 0)

try:  # POSIX: one writer at a time
    import fcntl
except ImportError:  # pragma: no cover -- Windows: no lock, the folder is the user's to keep to one run
    fcntl = None  # type: ignore[assignment]


class Busy(WriteError):
    """Another process is appending to the file."""


class LineWriter:
    """Appends whole lines to `path` (made when missing), holding a lock on it so that two processes never append
    to one file. Raises WriteError (the path and why) when it cannot, Busy when another process holds it."""

    def __init__(self, path):
        self.path = path
        try:
            self.fd: int | None = os.open(
                path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW | _CLOEXEC | _BINARY, 0o666
            )
        except OSError as exc:
            raise WriteError(path, "it is a link" if os.path.islink(path) else _reason(exc)) from None
        if fcntl is not None:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                self.close()
                raise Busy(path, "another process is writing it") from None

    def append(self, lines: bytes) -> None:
        """Write `lines` (each ending in a newline) at the end of the file, in one call to the kernel."""
        if self.fd is None:
            raise WriteError(self.path, "it was closed")
        try:
            _write_all(self.fd, lines)
        except OSError as exc:
            raise WriteError(self.path, _reason(exc)) from None

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            with contextlib.suppress(OSError):
                os.fsync(fd)  # the run's lines on the disk before it says it is done
            os.close(fd)


def whole_lines(path) -> Iterator[tuple[int, bytes]]:
    """The whole lines of `path` as (line number from 1, the line without its newline), read as they come (a file of
    a million lines is never held at once). A last line without its newline, torn by a process killed as it wrote
    it, is not yielded, and the file is cut back to the line before it once the reading is done. A missing file
    has no lines; any other OSError (and WriteError, when the cut fails) is the caller's."""
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _BINARY)
    except FileNotFoundError:
        return
    whole = 0  # bytes up to the end of the last whole line
    torn = False
    with os.fdopen(fd, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.endswith(b"\n"):
                torn = True
                break
            whole += len(line)
            yield number, line[:-1]
    if torn:
        try:
            os.truncate(path, whole)
        except OSError as exc:
            raise WriteError(path, _reason(exc)) from None
