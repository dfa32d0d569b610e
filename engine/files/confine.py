"""Opening files only inside a root: knap never follows a link out of the folder it was given.

A pack may come from a stranger (a pull request in CI), and a link in it can lead anywhere
(`env.yaml -> ~/.env`): lint would quote the target's lines in a public log. So every file of a pack is
opened here. The last component is opened with O_NOFOLLOW: a link there is resolved and checked instead
of followed. The folder holding the file is resolved and checked to lie inside the root, which catches a
link anywhere between the root and the file. The root itself may be a link: a pack linked into a content
folder as a whole is read where it really is.
"""

from __future__ import annotations

import errno
import os
import stat

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # without it (Windows), a link is looked for before opening
_FLAGS = (
    os.O_RDONLY
    | _NOFOLLOW
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
# what opening a link with O_NOFOLLOW gives: ELOOP on Linux and macOS, EMLINK on FreeBSD
_LINK_ERRORS = {errno.ELOOP, errno.EMLINK}


class LinkOutside(Exception):
    """A path that leads out of its root through a link. Says nothing of where it leads."""


class Root:
    """A folder whose files may be read; one per pack and run (it remembers which folders it checked)."""

    def __init__(self, folder):
        self.folder = os.path.abspath(folder)
        self.real = os.path.realpath(folder)
        self._folders: dict[str, bool] = {}

    def contains(self, real_path: str) -> bool:
        """Whether a resolved path lies inside the (resolved) root."""
        return real_path == self.real or real_path.startswith(self.real.rstrip(os.sep) + os.sep)

    def _folder_inside(self, folder: str) -> bool:
        inside = self._folders.get(folder)
        if inside is None:
            inside = self._folders[folder] = self.contains(os.path.realpath(folder))
        return inside

    def leads_out(self, path) -> bool:
        """Whether `path` (a file or a folder) is, or lies behind, a link leading out of the root."""
        absolute = os.path.abspath(path)
        return not self._folder_inside(os.path.dirname(absolute)) or (
            os.path.islink(absolute) and not self.contains(os.path.realpath(absolute))
        )

    def open(self, path) -> int:
        """A descriptor of `path` (anything: check it is a regular file). Raises LinkOutside for a link out
        of the root, OSError when it cannot be opened."""
        absolute = os.path.abspath(path)
        if not self._folder_inside(os.path.dirname(absolute)):
            raise LinkOutside(path)
        try:
            if _NOFOLLOW or not os.path.islink(absolute):
                return os.open(absolute, _FLAGS)
        except OSError as exc:
            if exc.errno not in _LINK_ERRORS or not os.path.islink(absolute):
                raise
        target = os.path.realpath(absolute)
        if not self.contains(target):
            raise LinkOutside(path)
        return os.open(target, _FLAGS)

    def read(self, path, limit: int) -> bytes | None:
        """At most `limit` bytes of the regular file `path`; None for anything else (a FIFO or a device
        would block or never end) or when it cannot be read. Raises LinkOutside."""
        try:
            descriptor = self.open(path)
        except OSError:
            return None
        return _read_regular(descriptor, limit)


def read_unlinked(path, limit: int = -1) -> bytes | None:
    """At most `limit` bytes of the regular file `path` itself, never through a link (for knap's own files,
    such as the cache, where a link is never expected); None for anything else."""
    try:
        descriptor = os.open(path, _FLAGS)
    except OSError:
        return None
    return _read_regular(descriptor, limit)


def _read_regular(descriptor: int, limit: int) -> bytes | None:
    """Read from an open descriptor (and close it) only if it is a regular file."""
    to_close: int | None = descriptor  # None once the file object owns it
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return None
        with os.fdopen(descriptor, "rb") as handle:
            to_close = None
            return handle.read(limit)
    except OSError:
        return None
    finally:
        if to_close is not None:
            os.close(to_close)
