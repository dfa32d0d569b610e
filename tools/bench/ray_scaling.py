"""The Ray backend of `knap sim` (engine/balance/ray_backend.py): does it scale with CPUs, and does its driver stay small?

    python tools/bench/ray_scaling.py [--games 4000] [--cpus 1,2] [--json FILE]
    python tools/bench/ray_scaling.py --full --games 1000000 [--out DIR [--resume]] [--jobs N] [--address ADDR] [--pack PACK]

Scaling (the default): random 2-player Cro-Magnon games on a local Ray of 1 CPU, then of 2 (`--cpus`), the same seeds
each time. Each Ray is warmed up first (its workers load the pack from the shipped bytes once, which is not what is
measured), then `runs.run` plays `--games` games with no folder: games/s at each size, the ratio of the last to the
first (target: 1.8 or more from 1 CPU to 2), and whether the summaries are the same to the byte (they must be).
A machine whose cores are busy with other work shows less than it could; `nice` it and read `os.getloadavg()`,
printed beside the numbers.

Full (`--full`): one whole `knap sim cro-magnon --players 2 --backend ray --out DIR -n GAMES --progress` in a child
process, as a person runs it, reporting its wall time, games/s and the driver's resident memory at each tenth of the
run and at its peak (VmHWM from /proc, the driver alone: not Ray's workers or its raylet): a run kept in a folder keeps
the summary's counts, never its games, so the driver's memory must stay flat from the first tenth to the last. The
folder is left for a look (default: a new temporary one, printed).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

PACK = "cro-magnon"


def scaling(games: int, cpus: list[int]) -> dict:
    import ray

    from engine.balance import runs
    from engine.commands.play import _load_pack

    rules = _load_pack(PACK)
    rows = []
    summaries = []
    for count in cpus:
        ray.init(num_cpus=count, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        try:
            warm = runs.Plan(rules, 2, ["random"], seed=10**6, games=count * 8)
            runs.run(warm, backend="ray")  # every worker loads the pack: not measured
            plan = runs.Plan(rules, 2, ["random"], seed=0, games=games)
            start = time.perf_counter()
            summary = runs.run(plan, backend="ray")
            seconds = time.perf_counter() - start
        finally:
            ray.shutdown()
        summaries.append(json.dumps(summary, indent=2))
        rows.append({"cpus": count, "seconds": round(seconds, 2), "games_per_s": round(games / seconds, 1)})
        print(f"{count} CPU{'s' if count > 1 else ''}: {games} games in {seconds:.1f} s, {games / seconds:.1f} games/s")
    ratio = rows[-1]["games_per_s"] / rows[0]["games_per_s"]
    same = all(s == summaries[0] for s in summaries)
    print(f"ratio {rows[-1]['cpus']} : {rows[0]['cpus']} CPUs = {ratio:.2f}x (target >= 1.8 from 1 CPU to 2)")
    print(f"same summary at every size: {'yes' if same else 'NO'}; load average {os.getloadavg()[0]:.2f}")
    return {"games": games, "rows": rows, "ratio": round(ratio, 3), "same_summary": same, "load": os.getloadavg()}


def _memory(pid: int) -> tuple[int, int]:
    """(resident, peak resident) kB of process `pid`, from /proc (0, 0 when it is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0, 0
    found = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.MULTILINE))
    return int(found.get("VmRSS", 0)), int(found.get("VmHWM", 0))


def _kept(out: Path) -> int:
    """How many games the run folder holds (its whole lines, as a resume counts them: a torn last line is no game)."""
    from engine.balance.runs import GAMES

    try:
        with open(out / GAMES, "rb") as lines:
            return sum(1 for line in lines if line.endswith(b"\n"))
    except FileNotFoundError:
        return 0


def full(games: int, out: Path, jobs: int | None, address: str | None, pack: str = PACK, resume: bool = False) -> dict:
    command = [sys.executable, "-m", "engine.commands.cli", "sim", pack, "--players", "2", "-n", str(games)]
    command += ["--backend", "ray", "--out", str(out), "--progress", "--format", "json", "--output", os.devnull]
    command += ["--jobs", str(jobs)] if jobs else []
    command += ["--resume"] if resume else []
    command += ["--address", address] if address else []
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    print("$ " + " ".join(command[2:]).replace("engine.commands.cli", "knap", 1), flush=True)
    kept_before = _kept(out)
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    samples, peak = [], 0
    assert child.stderr is not None
    for line in child.stderr:  # `--progress` without a terminal: a line at each tenth of the games
        rss, hwm = _memory(child.pid)
        peak = max(peak, hwm)
        done = re.search(r"(\d+)/(\d+) games", line)
        if done:
            elapsed = time.perf_counter() - start
            samples.append({"games": int(done.group(1)), "seconds": round(elapsed, 1), "rss_kb": rss})
            print(f"{done.group(1):>9} games  {elapsed:8.1f} s  driver {rss / 1024:7.1f} MiB resident", flush=True)
        else:
            print(line, end="", file=sys.stderr)
    code = child.wait()
    seconds = time.perf_counter() - start
    kept = _kept(out)
    played = kept - kept_before  # this time: an interrupted or resumed run plays only part of the games
    print(
        f"exit {code}; {played} games played in {seconds:.0f} s ({played / seconds:.1f} games/s, Ray's start included); "
        f"the folder holds {kept} of {games}"
    )
    print(f"driver peak resident memory: {peak / 1024:.1f} MiB; the run is in {out}")
    return {
        "games": games,
        "played": played,
        "kept": kept,
        "exit": code,
        "seconds": round(seconds, 1),
        "peak_rss_kb": peak,
        "samples": samples,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=4000, help="games per measurement (default: 4000)")
    parser.add_argument("--cpus", default="1,2", help="the local Ray sizes to compare, in order (default: 1,2)")
    parser.add_argument("--full", action="store_true", help="one whole `knap sim --backend ray --out DIR` run")
    parser.add_argument("--out", type=Path, help="with --full: the run's folder (default: a new temporary one)")
    parser.add_argument("--jobs", type=int, help="with --full: the local Ray's CPUs (default: all)")
    parser.add_argument("--address", help="with --full: a Ray cluster to join instead")
    parser.add_argument("--pack", default=PACK, help=f"with --full: the pack (default: {PACK}; a small one plays fast)")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="with --full and --out: go on with a run stopped before (knap sim --resume)",
    )
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args()
    try:
        import ray  # noqa: F401 -- there before anything starts
    except ImportError:
        print("ray_scaling.py needs ray: pip install '.[ray]'", file=sys.stderr)
        return 2
    if args.full:
        out = args.out or Path(tempfile.mkdtemp(prefix="knap-ray-run-")) / "run"
        numbers = full(args.games, out, args.jobs, args.address, args.pack, args.resume)
    else:
        numbers = scaling(args.games, [int(c) for c in args.cpus.split(",")])
    if args.json:
        args.json.write_text(json.dumps(numbers, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
