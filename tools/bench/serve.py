"""Benchmark `knap serve`: how long it takes to start, and how long a click takes to be answered.

Usage (from the project's folder, in its virtual environment)::

    python tools/bench/serve.py [--pack cro-magnon] [--clicks 60] [--repeat 3] [--json FILE]

1. Start: `knap serve PACK --port P` in a fresh process, timed from the process's start to the first page
   of the server answered (`GET /`), the best of `--repeat` starts. Goal: under 2 s.
2. Click: a game of a person against the random bot; each click is what the browser does when an option is
   pressed: the answer posted, the redirect followed, the seat's new page received (the bot then plays in
   the background, untimed, and the next click waits for it). Median, 90th percentile and worst of
   `--clicks` clicks. Goal: under 100 ms.

It only measures (exit 0 whether or not a goal is met; 2 when it cannot run) and sends requests to
127.0.0.1 only, a bounded number of them. The server it started is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import re
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
START_GOAL, CLICK_GOAL = 2.0, 0.100
OPTION = re.compile(r"<button name='key' value='(\d+)' class='option'>")
MARK = re.compile(r"name='d' value='([0-9a-f]+)'")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get(url: str, timeout: float = 5.0) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return answer.read().decode()


def post(url: str, fields: dict) -> tuple[str, str]:
    data = urllib.parse.urlencode(fields).encode()
    with urllib.request.urlopen(urllib.request.Request(url, data=data), timeout=10) as answer:
        return answer.geturl(), answer.read().decode()


def start_server(pack: str, port: int) -> tuple[subprocess.Popen, float]:
    knap = Path(sys.executable).with_name("knap")
    began = time.perf_counter()
    process = subprocess.Popen(
        [str(knap), "serve", pack, "--port", str(port)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = began + 30
    while time.perf_counter() < deadline:
        try:
            get(f"http://127.0.0.1:{port}/", timeout=1)
            return process, time.perf_counter() - began
        except (urllib.error.URLError, ConnectionError, OSError):
            if process.poll() is not None:
                raise SystemExit("knap serve stopped before answering") from None
            time.sleep(0.01)
    process.kill()
    raise SystemExit("knap serve did not answer within 30 s")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


def clicks(base: str, pack: str, count: int) -> list[float]:
    """Click `count` options (games are started again as they end); the seconds each click took."""
    times: list[float] = []
    seed = 1
    while len(times) < count:
        _, host = post(base + "/new", {"pack": pack, "seats": "human,random", "seed": str(seed), "max_rounds": "6"})
        seat = re.search(r"href='(/s/[^']+)'", host)
        if seat is None:
            raise SystemExit("the host page names no seat page")
        url = base + seat.group(1)
        page = get(url)
        stale = 0
        while len(times) < count:
            options = OPTION.findall(page)
            if not options:
                if "Game over" in page:
                    break
                stale += 1
                if stale > 500:
                    raise SystemExit("the bot never handed the turn back")
                time.sleep(0.01)  # the bot is playing: wait, untimed
                page = get(url)
                continue
            stale = 0
            mark = MARK.search(page)
            began = time.perf_counter()
            _, page = post(
                url + "/answer", {"key": options[len(times) % len(options)], "d": mark.group(1) if mark else ""}
            )
            times.append(time.perf_counter() - began)
        seed += 1
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pack", default="cro-magnon")
    parser.add_argument("--clicks", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", dest="json_file")
    args = parser.parse_args()
    starts = []
    for _ in range(args.repeat):
        port = free_port()
        process, took = start_server(args.pack, port)
        starts.append(took)
        if len(starts) < args.repeat:
            stop(process)
    try:
        base = f"http://127.0.0.1:{port}"
        get(f"{base}/")  # the pack is loaded at the first game: not part of a click
        began = time.perf_counter()
        post(base + "/new", {"pack": args.pack, "seats": "random,random", "seed": "0", "max_rounds": "1"})
        first_game = time.perf_counter() - began
        times = clicks(base, args.pack, args.clicks)
    finally:
        stop(process)
    ordered = sorted(times)
    result = {
        "start_s": min(starts),
        "first_game_s": first_game,
        "starts_s": starts,
        "click_median_ms": statistics.median(times) * 1000,
        "click_p90_ms": ordered[int(0.9 * (len(ordered) - 1))] * 1000,
        "click_max_ms": ordered[-1] * 1000,
        "clicks": len(times),
    }
    print(f"knap serve {args.pack}: start {result['start_s']:.2f} s (best of {args.repeat}; goal < {START_GOAL} s)")
    print(f"the first game of the pack (it is loaded, linted and compiled then): {first_game:.2f} s")
    print(
        f"click to answered page: median {result['click_median_ms']:.1f} ms, p90 {result['click_p90_ms']:.1f} ms, "
        f"worst {result['click_max_ms']:.1f} ms over {len(times)} clicks (goal < {CLICK_GOAL * 1000:.0f} ms)"
    )
    met = result["start_s"] < START_GOAL and result["click_p90_ms"] < CLICK_GOAL * 1000
    print("goals met" if met else "a goal is missed")
    if args.json_file:
        Path(args.json_file).write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
