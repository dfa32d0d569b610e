"""Record what every seat reads in the log (`Game.log_for`) over seeded random games of every shipped pack
and player count, from the code as it stands: `tests/test_log_words.py` plays the same games and must read
the very same lines. Re-record only on purpose (a change of the log's wording), in its own commit:

    python tests/log_words/generate.py [--only PACK ...]

For each game: the pack's fingerprint (a pack whose content changed plays other games: record again), the
lines everyone reads (the spectator's, `log_for(None)`) and, per seat, only the lines that seat reads
otherwise (line number -> text); and along the way, after every CHECK_EVERY-th answer, the
log's length and a digest of every reader's last TAIL lines at that moment (the log is cut back when an
action is undone, so a reader that keeps earlier wording must notice).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))

from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.session import play_randomly

EXPECTED = HERE / "expected.json.gz"
CHECK_EVERY, TAIL = 5, 30
SEEDS = {"cro-magnon": (0, 1)}  # undone actions cut the log back: two games; other packs one game
DEFAULT_SEEDS = (0,)


def digest(game: Game) -> str:
    """The log's length and one fingerprint of the end of every seat's log and the spectator's, read now."""
    readers = [*game.state["players"], None]
    tails = [game.log_for(p)[-TAIL:] for p in readers]
    return f"{len(game.state['log'])}:" + hashlib.sha256(json.dumps(tails).encode()).hexdigest()[:12]


def games(only=None):
    """(name, rules, players, seed) of every recorded game (of the packs `only` names), in a fixed order."""
    for folder in sorted(p for p in (ROOT / "content").iterdir() if (p / "pack.yaml").exists()):
        if only and folder.name not in only:
            continue
        rules = rules_module.load(folder)
        low, high = rules.players
        for players in range(low, high + 1):
            for seed in SEEDS.get(folder.name, DEFAULT_SEEDS):
                yield f"{folder.name} {players}p seed {seed}", rules, players, seed


def read_game(rules, players: int, seed: int) -> dict:
    """Play one seeded random game and note what each seat reads."""
    game = Game.new(rules, players, seed)
    checks = []
    answers = [0]

    def after(g):
        answers[0] += 1
        if answers[0] % CHECK_EVERY == 0:
            checks.append(digest(g))

    play_randomly(game, random.Random(seed), after=after)
    public = game.log_for(None)
    own = {}
    for p in game.state["players"]:
        lines = game.log_for(p)
        assert len(lines) == len(public)
        own[p] = {str(i): line for i, (line, seen) in enumerate(zip(lines, public, strict=True)) if line != seen}
    return {"public": public, "own": own, "checks": checks, "pack": rules.fingerprint}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        action="append",
        metavar="PACK",
        help="record again only this pack's games (a pack whose content changed); repeatable",
    )
    args = parser.parse_args(argv)
    records = json.loads(gzip.decompress(EXPECTED.read_bytes())) if args.only and EXPECTED.exists() else {}
    for name, rules, players, seed in games(args.only):
        records[name] = read_game(rules, players, seed)
    EXPECTED.write_bytes(gzip.compress(json.dumps(records, sort_keys=True).encode(), mtime=0))
    print(f"{len(records)} games recorded in {EXPECTED.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
