"""A run of many games kept in a folder (`knap sim --out DIR`), so that it can be read game by game afterwards and
resumed after an interruption (`--resume`): the same summary however often it was stopped.

    DIR/run.json       what the run plays (format "knap-run/1"): the pack (id, path, a hash of its files and
                       those of the packs it extends), players, agents by seat, seed, games, the limits, knap's version
    DIR/games.jsonl    one record per finished game, appended as games finish (so in finishing order), whole
                       lines only: sim._one's outcome with the agents by seat and what runtime.records adds
    DIR/summary.json   at the end, the summary `knap sim --format json` prints

The driver keeps the summary's accumulator (sim.Summary), never the outcomes, so memory stays flat however many
games a run has; which games are done is a bitmap. Games are played here (`sim.stream`, a pool of forked workers)
or on a Ray cluster (`ray_backend`): both hand batches of finished outcomes to the same `_Sink`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

from engine import __version__
from engine.files import jsonload
from engine.files.atomic import WriteError, write_text
from engine.files.lines import Busy, LineWriter, whole_lines
from engine.runtime import sim
from engine.runtime.budget import MAX_ANSWERS_PER_TURN
from engine.runtime.session import held_interrupts, write_logs

from .bundle import Bundle, BundleError, gather

FORMAT = "knap-run/1"
RUN, GAMES, SUMMARY = "run.json", "games.jsonl", "summary.json"
# the settings a resume must repeat, and the option that sets each
SETTINGS = {
    "players": "--players",
    "agents": "--agents",
    "seed": "--seed",
    "games": "-n",
    "max_rounds": "--max-rounds",
    "max_answers_per_turn": "--max-answers-per-turn",
}


class RunError(Exception):
    """A run that cannot start or go on: one sentence with its hint, for `knap: ...` and exit 2."""


@dataclass
class Plan:
    """What a run plays: game i plays seed + i with these agents by seat (names repeat as `knap sim` repeats them)."""

    rules: object
    players: int
    names: list[str]
    seed: int = 0
    games: int = 100
    max_rounds: int = 500
    max_answers_per_turn: int = MAX_ANSWERS_PER_TURN

    @property
    def agents(self) -> list[str]:
        return [self.names[i % len(self.names)] for i in range(self.players)]

    def header(self, bundle: Bundle) -> dict:
        """run.json: what the run plays, which a resume must repeat."""
        rules = self.rules
        return {
            "format": FORMAT,
            "pack": {"id": rules.pack_id, "path": str(rules.root), "hash": bundle.digest},  # type: ignore[attr-defined]
            "players": self.players,
            "agents": self.agents,
            "seed": self.seed,
            "games": self.games,
            "max_rounds": self.max_rounds,
            "max_answers_per_turn": self.max_answers_per_turn,
            "knapper": __version__,
        }

    def work(self, keep_logs: bool, record: bool) -> tuple:
        """What every game of the run shares, as sim._one takes it after the index and the seed."""
        return (self.players, self.names, self.max_rounds, self.max_answers_per_turn, keep_logs, record)


def run(
    plan: Plan,
    *,
    out=None,
    resume: bool = False,
    backend: str = "local",
    jobs: int | None = None,
    address: str | None = None,
    logs_dir=None,
    progress: Callable[[], None] | None = None,
    started: Callable[[int], None] | None = None,
) -> dict:
    """Play the run and return its summary. With `out`, the run is kept in that folder (see the module) and, with
    `resume`, the games it already holds are not played again. `started(done)` is called once the games already
    done are known; `progress()` after each game. Raises RunError for a folder or a setting that does not fit,
    KeyboardInterrupt when interrupted (every record written is whole: resume with `resume`)."""
    on_ray = backend == "ray"
    if on_ray:
        from . import ray_backend  # only a Ray run loads it, and it loads ray itself

        try:
            ray_backend.available()  # no ray: say so before any folder is made
        except ray_backend.RayError as exc:
            raise RunError(str(exc)) from None
    bundle = None
    if out is not None or on_ray:
        try:
            bundle = gather(plan.rules.root)  # type: ignore[attr-defined]
        except BundleError as exc:
            raise RunError(str(exc)) from None
    summary = sim.Summary(plan.rules, plan.players, plan.names, plan.seed)
    folder = RunFolder(Path(out), plan.header(bundle), resume) if out is not None and bundle is not None else None
    try:
        done = folder.replay(summary) if folder is not None else Done(plan.games)
        if started is not None:
            started(done.count)
        sink = _Sink(summary, folder, logs_dir, progress)
        if logs_dir is not None:
            write_logs(logs_dir, [])  # the folder is made even when no game leaves a log, as it always was
        count, keep_logs, record = plan.games - done.count, logs_dir is not None, folder is not None
        if count and on_ray:
            assert bundle is not None
            try:
                ray_backend.play(plan, bundle, done.missing(), count, sink.take, jobs, address, keep_logs, record)
            except ray_backend.RayError as exc:
                kept = "; the games played so far are kept: resume with --resume" if folder is not None else ""
                raise RunError(f"{exc}{kept}") from None
        elif count:
            work = (plan.players, plan.names, plan.seed, jobs, plan.max_rounds, plan.max_answers_per_turn)
            stream = sim.stream(plan.rules, done.missing(), *work, keep_logs=keep_logs, record=record, count=count)
            with closing(stream):  # interrupted: the workers stop at once
                for outcome in stream:
                    sink.take([outcome])
        result = summary.result()
        if folder is not None:
            folder.finish(result)
        return result
    finally:
        if folder is not None:
            folder.close()


class _Sink:
    """Where finished games go, a batch at a time: their logs (`--log-dir`), the run's file, the summary."""

    def __init__(self, summary: sim.Summary, folder: RunFolder | None, logs_dir, progress):
        self.summary, self.folder, self.logs_dir, self.progress = summary, folder, logs_dir, progress

    def take(self, outcomes: list[dict]) -> None:
        if self.logs_dir is not None and any("log" in o for o in outcomes):
            write_logs(self.logs_dir, outcomes)  # a log that cannot be written is noted (`log_error`), not fatal
        if self.folder is not None:
            self.folder.append(outcomes)
        for outcome in outcomes:
            self.summary.add(outcome)
            if self.progress is not None:
                self.progress()


class Done:
    """Which games of the run are done: a bit per game (a million games, 125 kB)."""

    def __init__(self, games: int):
        self.games, self.count = games, 0
        self.bits = bytearray((games + 7) // 8)

    def __contains__(self, index: int) -> bool:
        return bool(self.bits[index >> 3] & (1 << (index & 7)))

    def add(self, index: int) -> None:
        self.bits[index >> 3] |= 1 << (index & 7)
        self.count += 1

    def missing(self) -> Iterator[int]:
        """The games still to play, in index order, read lazily."""
        return (i for i in range(self.games) if i not in self)


class RunFolder:
    """The folder of one run: its record checked or written, its games read back, new ones appended."""

    def __init__(self, folder: Path, header: dict, resume: bool):
        self.folder, self.header = folder, header
        self.lines: LineWriter | None = None
        if folder.exists() and not folder.is_dir():
            raise RunError(f"{folder} is a file, not a folder; give --out a folder for the run")
        existing = folder.is_dir() and any(folder.iterdir())
        if existing and not resume:
            raise RunError(
                f"{folder} is not empty; pass --resume to go on with the run in it, or choose another --out folder"
            )
        try:
            if existing:
                self._check(self._recorded())
            else:
                folder.mkdir(parents=True, exist_ok=True)
                write_text(folder / RUN, json.dumps(header, indent=2) + "\n")
            self.lines = LineWriter(folder / GAMES)
        except Busy as exc:
            raise RunError(f"{exc}: is another `knap sim` playing this run? Wait for it, or stop it") from None
        except (OSError, WriteError) as exc:
            raise RunError(f"cannot keep the run in {folder}: {exc.strerror or exc}") from None

    def _recorded(self) -> dict:
        path = self.folder / RUN
        try:
            recorded = jsonload.read(path)
        except FileNotFoundError:
            raise RunError(
                f"{self.folder} holds no run ({RUN} is missing); choose another --out folder, or empty this one"
            ) from None
        except (jsonload.JsonFileError, OSError) as exc:
            raise RunError(f"{path} is not a run's record ({exc}); choose another --out folder") from None
        if not isinstance(recorded, dict) or recorded.get("format") != FORMAT:
            raise RunError(f"{path} is not a {FORMAT} record; choose another --out folder")
        return recorded

    def _check(self, recorded: dict) -> None:
        """Refuse to resume a run whose settings, pack or knap differ from this command's: its games would not
        add up to the run the command asks for."""
        for key, option in SETTINGS.items():
            if recorded.get(key) != self.header[key]:
                was, now = (_shown(v) for v in (recorded.get(key), self.header[key]))
                raise RunError(
                    f"the run in {self.folder} was started with {option} {was}, not {now}; "
                    f"resume it with {option} {was}, or choose another --out folder"
                )
        pack, now = recorded.get("pack") or {}, self.header["pack"]
        if not isinstance(pack, dict) or pack.get("id") != now["id"]:
            raise RunError(
                f"the run in {self.folder} plays another pack ({_shown(pack.get('id') if isinstance(pack, dict) else pack)}); "
                "resume it with that pack, or choose another --out folder"
            )
        if pack.get("hash") != now["hash"]:
            raise RunError(
                f"the files of the pack `{now['id']}` (or of a pack it extends) changed since the run in {self.folder} "
                "began; its games would not add up; restore them, or choose another --out folder"
            )
        if recorded.get("knapper") != self.header["knapper"]:
            raise RunError(
                f"the run in {self.folder} was played by knap {_shown(recorded.get('knapper'))}, this is "
                f"{self.header['knapper']}: the same seeds may play other games; resume it with that version, "
                "or choose another --out folder"
            )

    def replay(self, summary: sim.Summary) -> Done:
        """Count the games the folder holds into `summary`; a last line torn by a killed run is cut off."""
        games, seed = self.header["games"], self.header["seed"]
        done = Done(games)
        path = self.folder / GAMES
        try:
            for number, line in whole_lines(path):
                record = _record(line, games, seed)
                if isinstance(record, str):
                    raise RunError(f"{path}, line {number}: {record}; remove that line (or empty the folder) to go on")
                if record["index"] in done:
                    raise RunError(
                        f"{path}, line {number}: game {record['index']} is there twice; remove one (was the run "
                        "resumed twice at once?)"
                    )
                done.add(record["index"])
                summary.add(record)
        except (OSError, WriteError) as exc:
            raise RunError(f"cannot read {path}: {exc.strerror or exc}") from None
        return done

    def append(self, outcomes: list[dict]) -> None:
        """Append the records, whole: Ctrl-C waits until they are written."""
        data = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in outcomes).encode()
        assert self.lines is not None
        with held_interrupts():
            try:
                self.lines.append(data)
            except WriteError as exc:
                raise RunError(f"{exc}; the games written so far are kept: resume with --resume") from None

    def finish(self, summary: dict) -> None:
        try:
            write_text(self.folder / SUMMARY, json.dumps(summary, indent=2) + "\n")
        except WriteError as exc:
            raise RunError(f"{exc}; every game is in {GAMES}: resume with --resume to write it again") from None

    def close(self) -> None:
        if self.lines is not None:
            self.lines.close()


def _record(line: bytes, games: int, seed: int) -> dict | str:
    """A line of games.jsonl as a record of this run, or what is wrong with it."""
    try:
        record = json.loads(line)
    except ValueError:
        return "not a JSON record"
    if not isinstance(record, dict):
        return "not a JSON object"
    index = record.get("index")
    if type(index) is not int or not 0 <= index < games:
        return f"no game index from 0 to {games - 1}"
    if record.get("seed") != seed + index:
        return f"game {index} should have seed {seed + index}"
    if not (
        isinstance(record.get("error"), str)
        or isinstance(record.get("stalled"), str)
        or all(k in record for k in ("winners", "scores", "reason", "turns", "decisions"))
    ):
        return f"game {index} has no outcome"
    return record


def _shown(value) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return "none" if value is None else str(value)
