"""Play many seeded random games per player count, checking the invariants after every decision, that
every game's log replays to the same final hash, and that saving, loading and continuing a game at a
seeded moment ends exactly as continuing it. Run: python tools/soak.py PACK -n 2000.

The invariants (tests/invariants.py): every card in exactly one zone, no place over its capacity, counters
within their bounds, scores (every counter, and every card's place) changed only by the rules (a copy of the
game given the same answers agrees after every decision), a legal option for whoever must decide, and the
pack's own limits (tests/pack_invariants.py: for Stone Age every figure in one place of its player, the
per-area and village limits, food and resources never below 0).

The test suite runs a dozen games per player count; this is the long version, for release notes. With
`--record FILE` each finished game is appended to FILE (one JSON line) as it ends, and a run started again with
the same FILE plays only the games not yet recorded: 12,000 watched games need not fit in one sitting."""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import invariants

from engine.content.packs import resolve_target
from engine.runtime import persist, session
from engine.runtime import rules as rules_module
from engine.runtime.game import Game

RULES = None


def one(args):
    """One game: invariants after every decision, the log replayed, and at one seeded decision the game
    saved, loaded and continued with the same answers, which must end in the same state.

    The log is replayed alongside the game rather than after it: the watch's copy that only the rules move
    starts as the game the log replays to (`session.replay` of the log before its first answer: the same
    checks and the same new game), and is given the log's answers one by one, as `replay` gives them. At
    the end the log (checked against its schema, as a file would be) must hold exactly the answers the copy
    was given, and its final hash must be the copy's: one game played fewer than replaying afterwards."""
    players, seed = args
    import random

    try:
        game = Game.new(RULES, players, seed)
        rnd = random.Random(seed)
        watch = invariants.Watch(game, rules_copy=session.replay(RULES, _as_read(session.game_log(game))))
        decisions = session.play_randomly(game, rnd, after=watch, limit=1 + seed % 150)
        saved = (game.save(), rnd.getstate())
        decisions += session.play_randomly(game, rnd, after=watch)
        log = _as_read(session.game_log(game))
        persist.check_log(log)
        replayed = watch.rules_copy
        assert log["decisions"] == replayed.history, "the log's answers are not those the game was given"
        assert replayed.state_hash() == log["final_hash"] == game.state_hash(), (
            "the log does not replay to the same state"
        )
        loaded = Game.load(RULES, saved[0])
        again = random.Random()
        again.setstate(saved[1])
        session.play_randomly(loaded, again)
        assert loaded.save() == game.save(), "save, load and continue differs from continuing"
        return players, seed, None, game.state["result"]["reason"], decisions, game.state["result"]["turns"]
    except Exception as exc:  # noqa: BLE001
        return players, seed, f"seed {seed}: {type(exc).__name__}: {exc}", None, 0, 0


def _as_read(log: dict) -> dict:
    """The log as `knap replay` reads it from a file: JSON text parsed again, nothing shared with the game."""
    return json.loads(json.dumps(log))


def recorded(path: Path | None, pack: str) -> dict:
    """The games already played into a record file, by (players, seed); a line cut short by a killed run, or
    of another pack, is ignored (that game is played again)."""
    games = {}
    if path is None or not path.exists():
        return games
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
            if entry["pack"] == pack:
                games[(entry["players"], entry["seed"])] = entry
        except (ValueError, KeyError, TypeError):
            continue
    return games


def main():
    global RULES
    parser = argparse.ArgumentParser()
    parser.add_argument("pack")
    parser.add_argument("-n", type=int, default=2000)
    parser.add_argument("--players", default="")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    parser.add_argument(
        "--record",
        type=Path,
        help="append each finished game to this file (JSON lines); games already in it are not played again",
    )
    args = parser.parse_args()
    RULES = rules_module.load(resolve_target(args.pack))
    low, high = RULES.players
    counts = [int(p) for p in args.players.split(",")] if args.players else list(range(low, high + 1))
    games = recorded(args.record, args.pack)
    work = [(p, seed) for p in counts for seed in range(args.n) if (p, seed) not in games]
    if games:
        print(f"{len(games)} games already in {args.record}; playing the {len(work)} others", file=sys.stderr)
    started = time.perf_counter()
    record = args.record.open("a", encoding="utf-8") if args.record else None
    try:
        with multiprocessing.get_context("fork").Pool(args.jobs) as pool:
            for done, (players, seed, error, reason, made, rounds) in enumerate(
                pool.imap_unordered(one, work, chunksize=8), 1
            ):
                if done % 500 == 0:
                    print(
                        f"... {done} of {len(work)} games, {time.perf_counter() - started:.0f} s",
                        file=sys.stderr,
                        flush=True,
                    )
                games[(players, seed)] = entry = {
                    "pack": args.pack,
                    "players": players,
                    "seed": seed,
                    "error": error,
                    "reason": reason,
                    "decisions": made,
                    "rounds": rounds,
                }
                if record is not None:
                    record.write(json.dumps(entry) + "\n")
                    record.flush()
    finally:
        if record is not None:
            record.close()
    elapsed = time.perf_counter() - started
    errors = []
    for players in counts:
        mine = [games[(players, seed)] for seed in range(args.n) if (players, seed) in games]
        errors += [(players, g["error"]) for g in mine if g["error"]]
        ended = Counter(g["reason"] for g in mine if not g["error"])
        played = sum(ended.values())
        decisions = sum(g["decisions"] for g in mine if not g["error"])
        rounds = sum(g["rounds"] for g in mine if not g["error"])
        print(
            f"{players} players: {played} of {args.n} games ended without error {dict(ended)}, "
            f"{rounds / max(1, played):.1f} {'rounds' if RULES.in_rounds else 'turns'} a game on average, "
            f"{decisions} decisions, invariants checked after each, every log replayed exactly, "
            f"each game saved, loaded and continued to the same end"
        )
    for players, error in errors[:20]:
        print(f"ERROR ({players} players) {error}")
    print(f"{len(work)} games in {elapsed:.0f} s on {args.jobs} workers")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
