"""Do the runtime's changes keep the same games? Records, for seeded random and greedy games of every
shipped pack and player count, the decisions made (their hash), the result and the final state hash;
`--check FILE` replays the same seeds and names every game that differs.

    python tools/same_games.py --record tools/bench/same_games.json
    python tools/same_games.py --check tools/bench/same_games.json

A speed change must keep every game (issue 16). A change of the log's wording alone changes the state hash
but not the decisions or the result: `--check` reports those apart, so they can be re-recorded once, on
purpose, in one commit (`--record FILE --only TEXT` re-records only those games of FILE)."""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.runtime import agents as agent_table
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.session import play_out, play_randomly

RANDOM_SEEDS = 4
GREEDY = {
    "cro-magnon": [2],
    "cro-magnon-solo": [1],
    "neolithibum": [2],
    "stone-age": [2],
    "stone-age-mammoth-herd": [2],
}  # one short greedy game each: the look-ahead and clone() too


def _digest(data) -> str:
    return hashlib.sha256(json.dumps(data, separators=(",", ":"), sort_keys=True).encode()).hexdigest()[:16]


def _record(game: Game) -> dict:
    result = game.state["result"]
    return {
        "decisions": _digest(game.state["history"]),
        "count": len(game.state["history"]),
        "result": _digest([result["winners"], result["scores"], result["reason"], result["turns"]]),
        "state": game.state_hash()[:16],
    }


def games():
    """(name, pack folder, players, seed, agents) of every recorded game, in a fixed order."""
    for folder in sorted(p for p in (ROOT / "content").iterdir() if (p / "pack.yaml").exists()):
        rules = rules_module.load(folder)
        low, high = rules.players
        for players in range(low, high + 1):
            for seed in range(RANDOM_SEEDS):
                yield f"{folder.name} {players}p random seed {seed}", rules, players, seed, None
        for players in GREEDY.get(folder.name, []):
            yield f"{folder.name} {players}p greedy seed 0", rules, players, 0, "greedy"


def play(rules, players, seed, agent) -> Game:
    game = Game.new(rules, players, seed)
    if agent is None:
        play_randomly(game, random.Random(seed))
    else:
        play_out(game, [agent_table.make(agent, seed * 31 + i) for i in range(players)])
    return game


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--record", metavar="FILE")
    action.add_argument("--check", metavar="FILE")
    parser.add_argument("--only", default="", help="only games whose name contains this text")
    args = parser.parse_args(argv)
    if args.record:
        target = Path(args.record)
        kept = json.loads(target.read_text()) if args.only and target.exists() else {}  # --only: update those
        records = {
            name: _record(play(rules, players, seed, agent))
            for name, rules, players, seed, agent in games()
            if args.only in name
        }
        target.write_text(json.dumps(kept | records, indent=1, sort_keys=True) + "\n")
        print(f"{len(records)} games recorded in {args.record}")
        return 0
    expected = json.loads(Path(args.check).read_text())
    differ = worded = same = 0
    for name, rules, players, seed, agent in games():
        if args.only not in name or name not in expected:
            continue
        now, then = _record(play(rules, players, seed, agent)), expected[name]
        if now == then:
            same += 1
        elif {k: v for k, v in now.items() if k != "state"} == {k: v for k, v in then.items() if k != "state"}:
            worded += 1
            print(f"same decisions and result, other final state: {name}")
        else:
            differ += 1
            print(f"DIFFERENT GAME: {name}: {then} -> {now}")
    print(
        f"{same} games the same, {worded} with the same decisions and result but another final state, "
        f"{differ} different"
    )
    return 1 if differ or worded else 0


if __name__ == "__main__":
    sys.exit(main())
