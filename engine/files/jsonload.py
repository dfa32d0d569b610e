"""Reading JSON a stranger may have written (game logs, saves): bounded and strict.

Python's `json` takes `NaN` and `Infinity`, turns `1e999` into infinity, keeps the last of two equal
keys, raises `RecursionError` on deep nesting and `ValueError` on a 5000-digit integer. Here every
one of those is a `JsonFileError` that says what is wrong and where (line and column when known), and
the size and nesting depth are capped before anything else looks at the data.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from pathlib import Path

MAX_BYTES = 32 << 20  # a 500-round stalled game's save is a few MiB; a finished game's well under 1
MAX_DEPTH = 64  # real saves nest about 6 deep (state > stack > frame > env > list > list)
MAX_DIGITS = 30  # integers up to 10**30: random-stream states are 64-bit


class JsonFileError(ValueError):
    """A file that is not acceptable JSON; `line`/`col` are 1-based, 0 when not known."""

    def __init__(self, message: str, line: int = 0, col: int = 0):
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


def read(path, limit: int = MAX_BYTES):
    """The JSON value in the file at `path`. OSError (no such file, a folder, no permission) is left to
    the caller, who knows whether it is a usage mistake."""
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise JsonFileError(f"the file is {size} bytes; the limit is {_size(limit)}")
        raw = handle.read(limit + 1)
    return parse(raw, limit)


def parse(raw: bytes | str, limit: int = MAX_BYTES):
    """Parse JSON text (bytes must be UTF-8; a byte order mark is allowed)."""
    if len(raw) > limit:
        raise JsonFileError(f"the file is {len(raw)} bytes; the limit is {_size(limit)}")
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line, col = _position(raw, exc.start)
            raise JsonFileError("the file is not UTF-8 text", line, col) from None
    else:
        text = raw.removeprefix("\ufeff")
    try:
        data = json.loads(
            text,
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_short_int,
            object_pairs_hook=_no_duplicates,
        )
    except _Refused as exc:
        line, col = _find_key(text, exc.token) if exc.is_key else _find(text, exc.token)
        raise JsonFileError(exc.message, line, col) from None
    except json.JSONDecodeError as exc:
        raise JsonFileError(f"not valid JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonFileError(f"the data nests too deeply (the limit is {MAX_DEPTH} levels)") from None
    _check_depth(data)
    return data


class _Refused(ValueError):
    def __init__(self, message: str, token: str, is_key: bool = False):
        super().__init__(message)
        self.message, self.token, self.is_key = message, token, is_key


def _no_constant(name: str):
    raise _Refused(f"`{name}` is not a number JSON allows; write a number", name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:40]} is too large", text)
    return value


def _short_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise _Refused(f"a whole number of {len(text.lstrip('-'))} digits is too long (at most {MAX_DIGITS})", text)
    return int(text)


def _no_duplicates(pairs):
    data = {}
    for key, value in pairs:
        if key in data:
            raise _Refused(f"the key {shown(key, 60)} appears twice in one object", json.dumps(key), is_key=True)
        data[key] = value
    return data


def _check_depth(data) -> None:
    """Nesting deeper than MAX_DEPTH is refused (iteratively: checking must not recurse either)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children: Iterable[object] = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth > MAX_DEPTH:
            raise JsonFileError(f"the data nests too deeply (the limit is {MAX_DEPTH} levels)")
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))


_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[^\s"]+', re.DOTALL)


def _find(text: str, token: str) -> tuple[int, int]:
    """Where a refused token first stands outside a string (strings are matched whole, so a key is
    found as `"key"` and a number inside a text is skipped)."""
    bare = not token.startswith('"')
    for match in _TOKENS.finditer(text):
        found = match.group()
        if found == token or (bare and not found.startswith('"') and token in found):
            start = match.start() + (found.index(token) if bare else 0)
            return _position(text, start)
    return 0, 0


def _find_key(text: str, token: str) -> tuple[int, int]:
    """Where a repeated key is repeated, when the file names that key just twice (else nothing: the
    parser does not say which object it was reading)."""
    found = [m.start() for m in re.finditer(re.escape(token) + r"\s*:", text)]
    return _position(text, found[1]) if len(found) == 2 else (0, 0)


def _position(text, offset: int) -> tuple[int, int]:
    newline = b"\n" if isinstance(text, bytes) else "\n"
    line = text.count(newline, 0, offset) + 1
    return line, offset - (text.rfind(newline, 0, offset) + 1) + 1


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"


def shown(value, width: int = 40) -> str:
    """A value from a stranger's file, safe to print: JSON with every control and non-ASCII character
    escaped (no terminal escape sequences get through), cut to `width`."""
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= width else text[: width - 3] + "..."


def path_text(path) -> str:
    """A path given on the command line, printable whatever bytes its name holds."""
    return os.fsdecode(Path(path)).encode("utf-8", "backslashreplace").decode("utf-8")
