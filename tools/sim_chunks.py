"""Long `knap sim` runs in chunks that survive an interrupted session: each chunk of seeds is one `knap sim
--format json` summary in a folder, a chunk already there is not played again, and `--summary` combines
the folder's chunks into one summary (exact counts, mean and longest game; the median only as the range of
the chunks' medians, since a summary keeps no game-by-game lengths).

    python tools/sim_chunks.py PACK --players N --agents greedy -n 1000 --chunk 50 --out DIR
    python tools/sim_chunks.py --summary DIR

Chunk `greedy-N-S.json` holds seeds S to S+chunk-1, played exactly as the same seeds in one `knap sim` run
(game i uses seed i; its agents are seeded from it), so chunks add up to the run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path


def play(args) -> None:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for start in range(args.seed, args.seed + args.n, args.chunk):
        games = min(args.chunk, args.seed + args.n - start)
        target = out / f"{args.agents.replace(',', '+')}-{args.players}-{start}.json"
        if target.exists():
            continue
        command = [
            sys.executable,
            "-m",
            "engine.commands.cli",
            "sim",
            args.pack,
            "-n",
            str(games),
            "--seed",
            str(start),
            "--players",
            str(args.players),
            "--agents",
            args.agents,
            "--jobs",
            str(args.jobs),
            "--format",
            "json",
            "--output",
            str(target),
            "--log-dir",
            str(out / f"logs-{args.players}"),
        ]
        subprocess.run(command, check=True)
        print(f"seeds {start}–{start + games - 1} done", file=sys.stderr, flush=True)


def summary(folder: Path) -> dict:
    """The chunks of `folder`, combined by player count and agents."""
    runs: dict[tuple, dict] = {}
    for path in sorted(folder.glob("*.json")):
        chunk = json.loads(path.read_text(encoding="utf-8"))
        key = (chunk["pack"], chunk["players"], ",".join(chunk["agents"]))
        run = runs.setdefault(
            key,
            {
                "pack": key[0],
                "players": key[1],
                "agents": key[2],
                "chunks": 0,
                "games": 0,
                "played": 0,
                "errors": 0,
                "stalled": 0,
                "stalled_seeds": [],
                "endings": {},
                "seeds": [],
                "_rounds": 0,
                "min": None,
                "max": None,
                "chunk_medians": [],
                "per_agent": {},
            },
        )
        run["chunks"] += 1
        run["games"] += chunk["games"]
        run["played"] += chunk["played"]
        run["errors"] += chunk["errors"]
        run["stalled"] += chunk["stalled"]["count"]
        run["stalled_seeds"] += chunk["stalled"]["seeds"]
        run["seeds"].append((chunk["seed"], chunk["seed"] + chunk["games"] - 1))
        for reason, n in chunk["endings"].items():
            run["endings"][reason] = run["endings"].get(reason, 0) + n
        for agent, row in chunk.get("per_agent", {}).items():  # wins by agent (shared wins split)
            mine = run["per_agent"].setdefault(agent, {"seat_games": 0, "wins": 0.0, "_score": 0.0, "_scored": 0})
            mine["seat_games"] += row["seat_games"]
            mine["wins"] = round(mine["wins"] + row["wins"], 2)
        for seat in chunk.get("seats", []):  # the final score, by agent
            if seat.get("score") and seat["score"].get("mean") is not None:
                mine = run["per_agent"][seat["agent"]]
                mine["_score"] += seat["score"]["mean"] * chunk["played"]
                mine["_scored"] += chunk["played"]
        turns = chunk["turns"]
        if turns:
            run["_rounds"] += turns["mean"] * chunk["played"]
            run["min"] = turns["min"] if run["min"] is None else min(run["min"], turns["min"])
            run["max"] = turns["max"] if run["max"] is None else max(run["max"], turns["max"])
            run["chunk_medians"].append(turns["median"])
    for run in runs.values():
        run["mean"] = round(run.pop("_rounds") / max(1, run["played"]), 1)
        for mine in run["per_agent"].values():
            scored = mine.pop("_scored")
            total = mine.pop("_score")
            if scored:
                mine["mean_score"] = round(total / scored, 1)
        medians = run.pop("chunk_medians")
        run["chunk_median_range"] = [min(medians), max(medians)] if medians else None
        run["seeds"] = _ranges(run["seeds"])
    return {"runs": sorted(runs.values(), key=lambda r: (r["pack"], r["players"], r["agents"]))}


def _ranges(spans) -> list[list[int]]:
    """Seed spans merged where they meet: [[0, 999]] for twenty chunks of fifty."""
    merged: list[list[int]] = []
    for low, high in sorted(spans):
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return merged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pack", nargs="?")
    parser.add_argument("--players", type=int)
    parser.add_argument("--agents", default="greedy")
    parser.add_argument("-n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--chunk", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", help="the folder of chunks")
    parser.add_argument("--summary", metavar="DIR", help="combine the chunks of DIR and print the summary (JSON)")
    args = parser.parse_args()
    if args.summary:
        print(json.dumps(summary(Path(args.summary)), indent=1))
        return
    if not (args.pack and args.players and args.out):
        parser.error("PACK, --players and --out are needed to play")
    play(args)


if __name__ == "__main__":
    main()
