"""Run folders for the balance tests: made by balance.runs as `knap sim PACK --out DIR` makes them, in this process, or
written by hand from records made up for a test."""

from __future__ import annotations

import json
from pathlib import Path

from scenario import ruleset

from engine.balance import runs
from engine.runtime import sim
from engine.runtime.budget import MAX_ANSWERS_PER_TURN


def record(rules, index: int, seed: int, players: int, names: list[str], max_rounds: int = 500) -> dict:
    """One game's record, as a run kept in a folder plays it (sim._one, recording)."""
    sim._RULES = rules  # (what sim._one plays: a worker's pack)
    return sim._one((index, seed, players, names, max_rounds, MAX_ANSWERS_PER_TURN, False, True))


def make_run(
    folder: Path,
    pack: str = "cro-magnon",
    games: int = 20,
    players: int = 3,
    names=("random",),
    seed: int = 0,
    max_rounds: int = 500,
) -> Path:
    """A run folder of `games` games of `pack` (a built-in pack id), seeds `seed` on, as `knap sim --out` writes it
    (balance.runs, played in this process)."""
    plan = runs.Plan(ruleset(pack), players, list(names), seed, games, max_rounds)
    runs.run(plan, out=folder, jobs=1)
    return folder


def write_run(folder: Path, meta: dict, records, summary: dict | None = None) -> Path:
    """A run folder holding `records`, one a line."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "run.json").write_text(json.dumps({"format": "knap-run/1", **meta}, indent=2) + "\n", encoding="utf-8")
    with open(folder / "games.jsonl", "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(item, separators=(",", ":")) + "\n" for item in records)
    if summary is not None:
        (folder / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return folder


def hand_made(
    winners, *, seats=2, first="P1", turns=10, cards=None, actions=None, margin=None, track=None, reason="goal"
):
    """A record as a run keeps it, made by hand: `cards` (seat -> card -> times) are taken, `actions` seat -> action ->
    times."""
    players = [f"P{i}" for i in range(1, seats + 1)]
    return {
        "index": 0,
        "seed": 0,
        "winners": winners,
        "scores": dict.fromkeys(players, 0),
        "reason": reason,
        "turns": turns,
        "decisions": 3 * turns,
        "agents": ["random"] * seats,
        "first": first,
        "track": track,
        "margin": margin,
        "drawn": {p: {} for p in players},
        "taken": {p: dict((cards or {}).get(p, {})) for p in players},
        "used": {p: {} for p in players},
        "actions": {p: dict((actions or {}).get(p, {})) for p in players},
    }
