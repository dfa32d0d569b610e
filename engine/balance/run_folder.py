"""Reading a run folder (`knap sim ... --out DIR`): its `run.json`, `summary.json` and `games.jsonl`, one record a line.

A run may come from anyone and may still be being written, or have been stopped half-way: the records are read one at
a time (a million games never sit in memory), a last line without its newline that is not JSON yet is a record torn
by the stop and is left out, and anything else wrong is a `RunError` of one line naming the file (and the line).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from engine.files.jsonload import JsonFileError, path_text, read

from .runs import FORMAT, GAMES, RUN, SUMMARY

MAX_LINE = 1 << 20  # a record is a few KiB; a line longer than this is no record


class RunError(ValueError):
    """A run folder that cannot be read, in one line."""


@dataclass
class Run:
    """A run folder: its description (`run.json`), its summary when it has one, and its games read on demand."""

    folder: Path
    meta: dict
    summary: dict | None

    @property
    def name(self) -> str:
        """What a report calls the run: its folder's name."""
        return self.folder.name or path_text(self.folder)

    def records(self) -> Iterator[dict]:
        """Each game's record, in the file's order; a torn last line is left out."""
        path = self.folder / GAMES
        try:
            handle = open(path, "rb")  # noqa: SIM115 -- closed by the `with` below, opened here to word its error
        except OSError as exc:
            raise RunError(f"{path_text(path)}: cannot read it ({exc.strerror or exc})") from None
        with handle:
            number = 0
            for line in handle:
                number += 1
                if not line.strip():
                    continue
                try:
                    record = _record(line)
                except ValueError as exc:
                    if not line.endswith(b"\n"):  # the last line, cut short: the run was stopped as it wrote it
                        return
                    raise RunError(f"{path_text(path)}:{number}: not a game's record: {exc}") from None
                if not isinstance(record, dict):
                    raise RunError(f"{path_text(path)}:{number}: not a game's record: a JSON object is expected")
                yield record


def _record(line: bytes):
    """One line's JSON: Python's own parser (a million lines are read in a run's report), refusing what jsonload
    refuses that could pass it: a line too long, `NaN` and `Infinity`, nesting too deep."""
    if len(line) > MAX_LINE:
        raise ValueError(f"the line is {len(line)} bytes; a record is at most {MAX_LINE}")
    try:
        return json.loads(line, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not valid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError("the data nests too deeply") from None


def _no_constant(name: str):
    raise ValueError(f"`{name}` is not a number JSON allows")


def read_run(folder) -> Run:
    """The run in `folder`, its games not yet read (`Run.records`)."""
    root = Path(folder)
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise RunError(f"{path_text(root)} {what}: give the folder `knap sim PACK --out DIR` wrote")
    meta = _document(root / RUN, required=True)
    assert meta is not None
    if meta.get("format") != FORMAT:
        raise RunError(f"{path_text(root / RUN)}: not a run's description (its `format` is not {FORMAT})")
    if not (root / GAMES).is_file():
        raise RunError(f"{path_text(root / GAMES)} is missing: the run wrote no game")
    return Run(root, meta, _document(root / SUMMARY, required=False))


def _document(path: Path, required: bool) -> dict | None:
    if not path.is_file():
        if required:
            raise RunError(
                f"{path_text(path)} is missing: is {path_text(path.parent)} a folder `knap sim --out` wrote?"
            )
        return None
    try:
        data = read(path)
    except OSError as exc:
        raise RunError(f"{path_text(path)}: cannot read it ({exc.strerror or exc})") from None
    except JsonFileError as exc:
        where = f":{exc.line}" if exc.line else ""
        raise RunError(f"{path_text(path)}{where}: {exc.message}") from None
    if not isinstance(data, dict):
        raise RunError(f"{path_text(path)}: a JSON object is expected")
    return data
