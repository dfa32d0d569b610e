"""The lint cache's files: where they may live, and why a verdict read from them can be believed.

A cache folder may be committed to a repository or edited by whoever can write the project, so a cache
file is a stranger's word until proven otherwise. Each file carries a MAC (keyed BLAKE2b) made with a key
kept outside every project, in the user's cache folder (`$XDG_CACHE_HOME/knap`, created 0600 on first
use): only this user's knap can write an entry it will believe. An entry whose MAC does not verify, or
whose content has the wrong shape, is ignored and rebuilt. Without a place for the key, there is no cache.

The cache writes only into a folder it made itself: one that did not exist (knap creates it, with a
`.gitignore` holding `*` and a CACHEDIR.TAG naming knap, in one step), or one an older knap made (its
`.gitignore` holds exactly `*`). It never adds a file to anyone else's folder.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
import stat
from dataclasses import fields
from pathlib import Path

from engine import __version__
from engine.diagnostics import Diagnostic, Severity
from engine.files import confine, resources

FORMAT = b"knap-cache/2"
KEY_NAME = "lint-key"
KEY_BYTES = 32
TAG_NAME = "CACHEDIR.TAG"
TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by knap (the cache of `knap lint`).\n"
    "# For information about cache directory tags, see https://bford.info/cachedir/\n"
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


# ------------------------------------------------------------------------------ where
def user_folder() -> Path | None:
    """`$XDG_CACHE_HOME/knap`, else `~/.cache/knap` (a relative XDG_CACHE_HOME is ignored, as the XDG
    specification says); None when there is no home to put it in."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        home = os.path.expanduser("~")
        if not os.path.isabs(home):
            return None
        base = os.path.join(home, ".cache")
    return Path(base) / "knap"


def fallback_folder() -> Path | None:
    """Where lint's cache goes when the folder asked for is refused."""
    folder = user_folder()
    return folder / "lint" if folder is not None else None


def owned(folder: Path) -> bool | None:
    """True: a folder knap made (CACHEDIR.TAG naming knap, or an older knap's `.gitignore` of `*`);
    None: no such folder yet (knap may create it); False: someone else's folder, or not a folder."""
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        return None
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False
    return "created by knap" in _small_text(folder / TAG_NAME) or _small_text(folder / ".gitignore") == "*\n"


def _small_text(path: Path) -> str:
    return _plain_file(path, 4096).decode("utf-8", "replace")


def _create(folder: Path) -> bool:
    """Make the cache folder already marked as knap's: marked under a passing name beside it, then renamed into
    place, so that another run never finds it made but unmarked (and refuses it as someone else's). False when
    the folder exists (then it is not ours, unless another knap has just made it: `owned` tells)."""
    temp = _passing_name(folder)
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        temp.mkdir()
    except OSError:
        return False
    try:
        for name, text in ((".gitignore", "*\n"), (TAG_NAME, TAG)):
            _write_new(temp / name, text.encode())
        if os.path.lexists(folder):  # (rename would replace an empty folder someone else made)
            raise FileExistsError(folder)
        os.rename(temp, folder)
        return True
    except OSError:
        shutil.rmtree(temp, ignore_errors=True)
        return False


def _passing_name(path: Path) -> Path:
    """A name beside `path` for what is made whole there, then renamed or linked into place: hidden, this
    process's own, never another run's."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")


def _write_new(path: Path, data: bytes, mode: int = 0o644):
    """Write a file that must not exist yet; never through a link."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


# ------------------------------------------------------------------------------ the key
def key() -> bytes | None:
    """This user's cache key, made on first use; None when it cannot be kept safely (no home, a folder or
    key file of another user or readable by others): then lint runs without a cache."""
    folder = user_folder()
    if folder is None:
        return None
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(folder)
        if not stat.S_ISDIR(info.st_mode) or not _mine(info):
            return None
        path = folder / KEY_NAME
        if not os.path.lexists(path):
            temp = _passing_name(path)
            _write_new(temp, secrets.token_bytes(KEY_BYTES), 0o600)
            try:
                os.link(temp, path)  # two runs at once: the first key stays, both use it
            except FileExistsError:
                pass
            except OSError:  # a file system without hard links
                os.replace(temp, path)
            finally:
                if os.path.lexists(temp):
                    os.unlink(temp)
        return _read_key(path)
    except OSError:
        return None


def _mine(info: os.stat_result) -> bool:
    return not hasattr(os, "geteuid") or info.st_uid == os.geteuid()


def _read_key(path: Path) -> bytes | None:
    descriptor = os.open(path, os.O_RDONLY | _NOFOLLOW)
    try:
        info = os.fstat(descriptor)
        private = os.name != "posix" or stat.S_IMODE(info.st_mode) & 0o077 == 0
        if not stat.S_ISREG(info.st_mode) or not _mine(info) or not private:
            return None
        data = os.read(descriptor, KEY_BYTES + 1)
    finally:
        os.close(descriptor)
    return data if len(data) == KEY_BYTES else None


# ------------------------------------------------------------------------------ the files
_CHECKING_PACKAGES = ("content", "dsl", "files", "lint")  # the code a verdict comes from (not the runtime's)


def engine_key() -> str:
    """Anything that can change a verdict: the version, the schemas, the grammar and the checking code."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{__version__}/{FORMAT.decode()}".encode())
    for folder in ("schemas", "grammar"):
        for path in sorted(resources.root(folder).glob("*")):
            if path.is_file():
                digest.update(path.name.encode())
                digest.update(path.read_bytes())
    engine = Path(__file__).resolve().parent.parent
    for module in sorted(engine.glob("*.py")):
        digest.update(module.read_bytes())
    for package in _CHECKING_PACKAGES:
        for module in sorted((engine / package).glob("*.py")):
            digest.update(f"{package}/{module.name}".encode())
            digest.update(module.read_bytes())
    return digest.hexdigest()


class Cache:
    """The cache of one lint run. Two files per pack: a small one with the pack's verdict and each file's
    stat and content hash, and a large one with each file's own results, read only when some file changed
    (lint.py; a file whose size and modification time are unchanged keeps its recorded hash without being
    read, as git's index does). `load` gives an entry only if its MAC verifies and its shape is right;
    `save` writes only into a folder knap made. `directory` is None when there is no usable cache.
    `reads=False`: write fresh entries without believing the old ones (a retry after a bad entry)."""

    def __init__(self, directory: Path | None, *, reads: bool = True):
        self.key = key() if directory else None
        self.directory = directory if self.key and directory and owned(Path(directory)) is not False else None
        self.engine = engine_key() if self.directory else ""
        self.reads = reads

    def _path(self, root: Path, part: str) -> Path:
        name = hashlib.blake2b(str(root).encode(), digest_size=10).hexdigest()
        assert self.directory is not None  # load and store ask only a usable cache
        return self.directory / f"{part}-{name}.json"

    def _mac(self, root: Path, part: str, body: bytes) -> bytes:
        assert self.key is not None  # a usable cache has its key
        digest = hashlib.blake2b(key=self.key, digest_size=32)
        digest.update(f"{part}\0{root}\0".encode())  # an entry is valid for its own pack and part only
        digest.update(body)
        return digest.hexdigest().encode()

    def load(self, root: Path, part: str) -> dict:
        if not self.directory or not self.reads:
            return {}
        raw = _plain_file(self._path(root, part))
        header, _, body = raw.partition(b"\n")
        name, _, mac = header.partition(b" ")
        if name != FORMAT or not hmac.compare_digest(mac, self._mac(root, part, body)):
            return {}
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("engine") != self.engine:
            return {}
        return data if SHAPES[part](data) else {}

    def save(self, root: Path, part: str, data: dict):
        self.store(root, part, json.dumps({"engine": self.engine, **data}, separators=(",", ":")).encode())

    def store(self, root: Path, part: str, body: bytes):
        """Sign and write one entry (atomically: a reader sees the old entry or the new one)."""
        if not self.directory:
            return
        folder = Path(self.directory)
        try:
            if owned(folder) is None:
                _create(folder)  # (made by another knap meanwhile: theirs is used)
            if not owned(folder):
                return
            target = self._path(root, part)
            temp = _passing_name(target)
            _write_new(temp, FORMAT + b" " + self._mac(root, part, body) + b"\n" + body)
            os.replace(temp, target)
        except OSError:
            pass  # a read-only folder only costs speed


def _plain_file(path: Path, limit: int = -1) -> bytes:
    """A regular file's bytes, never through a link nor from a FIFO; b"" when there is none."""
    return confine.read_unlinked(path, limit) or b""


# ------------------------------------------------------------------------------ shapes
# What a signed entry must look like before any of it is used; a bug (or an edit made with the key) that
# breaks the shape costs a rebuild, never an internal error or a wrong verdict from a half-read entry.
def _int(value) -> bool:
    return type(value) is int


def _str(value) -> bool:
    return type(value) is str


_DIAGNOSTIC_FIELDS = {f.name for f in fields(Diagnostic)} | {"name"}
_TEXT_FIELDS = ("code", "message", "file", "hint", "source", "name")
_NUMBER_FIELDS = ("line", "col")
_SEVERITIES = {s.value for s in Severity}


def _diagnostic(value) -> bool:
    return (
        type(value) is dict
        and _str(value.get("code"))
        and _str(value.get("message"))
        and value.keys() <= _DIAGNOSTIC_FIELDS
        and all(_str(value[k]) for k in _TEXT_FIELDS if k in value)
        and all(_int(value[k]) for k in _NUMBER_FIELDS if k in value)
        and value.get("severity", "error") in _SEVERITIES
    )


def _diagnostics(value) -> bool:
    return type(value) is list and all(map(_diagnostic, value))


def _counts(value) -> bool:
    return type(value) is dict and all(_str(k) and _int(v) for k, v in value.items())


def _stats(value) -> bool:
    return (
        type(value) is dict
        and _str(value.get("pack"))
        and _counts(value.get("documents"))
        and _counts(value.get("provenance"))
        and all(_int(value.get(k)) for k in ("cards", "card_copies", "dsl_texts"))
    )


def _fingerprint(value) -> bool:  # one per file of the pack, on every warm run: kept cheap
    return (
        type(value) is dict
        and type(value.get("hash")) is str
        and type(value.get("size", 0)) is int
        and type(value.get("mtime", 0)) is int
    )


def _pack_part(data: dict) -> bool:
    files, extends = data.get("files"), data.get("extends")
    return (
        _str(data.get("key"))
        and type(files) is dict
        and all(map(_fingerprint, files.values()))
        and _diagnostics(data.get("diagnostics"))
        and _stats(data.get("stats"))
        and type(extends) is list
        and len(extends) == 2
        and (extends[0] is None or _str(extends[0]))
        and type(extends[1]) is list
        and all(map(_str, extends[1]))
    )


def _file_result(value) -> bool:
    if type(value) is not dict:
        return False
    docs, texts, invalid = value.get("docs"), value.get("texts"), value.get("invalid")
    return (
        _diagnostics(value.get("d"))
        and type(docs) is list
        and all(type(d) is list and len(d) == 2 and _int(d[0]) and type(d[1]) is dict for d in docs)
        and type(texts) is list
        and all(
            type(t) is list
            and len(t) == 3
            and _int(t[0])
            and type(t[1]) is list
            and all(_str(s) or _int(s) for s in t[1])
            for t in texts
        )
        and type(invalid) is list
        and all(map(_int, invalid))
    )


def _files_part(data: dict) -> bool:
    results = data.get("results")
    return type(results) is dict and all(
        type(entry) is dict and _str(entry.get("hash")) and _file_result(entry.get("result"))
        for entry in results.values()
    )


SHAPES = {"pack": _pack_part, "files": _files_part}
