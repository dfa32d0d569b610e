"""Runs of many games kept in a folder (`knap sim --out DIR`, engine/balance/runs.py) and the summary they are
counted into one outcome at a time (sim.Summary), in any order, to the byte what the list-based summary gave."""

from __future__ import annotations

import contextlib
import json
import math
import random
import statistics
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.balance.bundle import Bundle, BundleError
from engine.runtime import sim

PACK = "cro-magnon"


# ------------------------------------------------------------------------------ the summary, one game at a time
def _old_summarise(rules, results, players, names, seed) -> dict:
    """The summary as sim.summarise made it from a list in seed order before the accumulator (commit f522de7),
    kept here as the reference the accumulator must equal."""

    def spread(values):
        if not values:
            return {}
        ordered = sorted(values)
        try:
            mean, sd = round(statistics.fmean(values), 2), round(statistics.pstdev(values), 2)
        except OverflowError:
            mean = sd = None
        return {"mean": mean, "sd": sd, "min": ordered[0], "median": median(ordered), "max": ordered[-1]}

    def median(ordered):
        middle = len(ordered) // 2
        if len(ordered) % 2:
            return ordered[middle]
        total = ordered[middle - 1] + ordered[middle]
        if total % 2 == 0:
            return total // 2
        try:
            return total / 2
        except OverflowError:
            return total // 2

    def win_rate(wins, games):
        low, high = sim.wilson(wins, games)
        return {
            "wins": round(wins, 2),
            "win_rate": round(wins / games, 4) if games else 0.0,
            "ci95": [round(low, 4), round(high, 4)],
        }

    done = [r for r in results if "error" not in r and "stalled" not in r]
    errors = [r for r in results if "error" in r]
    stuck = [r for r in results if "stalled" in r]
    seats = [f"P{i}" for i in range(1, players + 1)]
    seat_rows = []
    agent_wins: Counter = Counter()
    agent_games: Counter = Counter()
    for i, seat in enumerate(seats):
        agent = names[i % len(names)]
        wins = sum(1 / len(r["winners"]) for r in done if seat in r["winners"])
        scores = [r["scores"].get(seat, 0) for r in done if r["scores"]]
        seat_rows.append({"seat": seat, "agent": agent, **win_rate(wins, len(done)), "score": spread(scores)})
        agent_wins[agent] += wins
        agent_games[agent] += len(done)
    per_agent = {a: {"seat_games": agent_games[a], **win_rate(agent_wins[a], agent_games[a])} for a in agent_games}
    all_scores = Counter(v for r in done for v in (r["scores"] or {}).values())
    team = win_rate(sum(1 for r in done if r["winners"]), len(done)) if rules.cooperative else None
    stalled = sorted([r["seed"] for r in done if r["reason"] == sim.STALLED] + [r["seed"] for r in stuck])
    return {
        "pack": rules.pack_id,
        "players": players,
        "agents": [names[i % len(names)] for i in range(players)],
        "seed": seed,
        "games": len(results),
        "played": len(done),
        "errors": len(errors),
        "score_counter": rules.score_counter,
        "seats": seat_rows,
        "per_agent": per_agent,
        "team": team,
        "score_distribution": {str(k): all_scores[k] for k in sorted(all_scores)},
        "turns": spread([r["turns"] for r in done]),
        "decisions": spread([r["decisions"] for r in done]),
        "length_unit": "rounds" if rules.in_rounds else "turns",
        "endings": dict(Counter(r["reason"] for r in done)),
        "stalled": {"count": len(stalled), "seeds": stalled[:50]},
        "stall_samples": [{"seed": r["seed"], "code": r.get("code"), "why": r["stalled"]} for r in stuck[:10]],
        "error_samples": [{"seed": r["seed"], "code": r.get("code") or None, "error": r["error"]} for r in errors[:10]],
        "log_errors": [r["log_error"] for r in results if "log_error" in r],
    }


def _rules(cooperative=False):
    return SimpleNamespace(pack_id="x", score_counter="vp", cooperative=cooperative, in_rounds=False, root="x")


def _outcome(draw, index: int, players: int, seed: int, ties: int) -> dict:
    """A made-up outcome of game `index`: played (with up to `ties` winners), stalled or failed."""
    seats = [f"P{i + 1}" for i in range(players)]
    kind = draw(st.sampled_from(["done", "done", "done", "stalled", "error"]))
    outcome: dict = {"index": index, "seed": seed + index}
    if kind == "stalled":
        outcome |= {"stalled": f"turn {index} never ends", "code": "X310", "turns": 3, "decisions": 7}
    elif kind == "error":
        outcome |= {"error": f"boom {index}", "code": draw(st.sampled_from([None, "", "X101"]))}
    else:
        winners = draw(st.lists(st.sampled_from(seats), unique=True, max_size=ties))
        scored = draw(st.booleans())
        scores = {s: draw(st.integers(-3, 40) | st.just(10**30)) for s in seats} if scored else {}
        outcome |= {
            "winners": winners,
            "scores": scores,
            "reason": draw(st.sampled_from(["goal", "deck_out", sim.STALLED])),
            "turns": draw(st.integers(1, 60)),
            "decisions": draw(st.integers(1, 900)),
        }
    if draw(st.integers(0, 9)) == 0:
        outcome["log_error"] = f"cannot write seed-{seed + index}.json: no room"
    return outcome


@st.composite
def _runs(draw, ties: int = 3):
    players = draw(st.integers(1, 4))
    seed = draw(st.integers(-5, 1000))
    count = draw(st.integers(0, 80))
    outcomes = [_outcome(draw, i, players, seed, ties) for i in range(count)]
    names = draw(st.sampled_from([["random"], ["greedy", "random"], ["a", "b", "c"]]))
    return players, seed, names, outcomes, draw(st.randoms())


def _accumulated(rules, outcomes, players, names, seed) -> str:
    summary = sim.Summary(rules, players, names, seed)
    for outcome in outcomes:
        summary.add(outcome)
    return json.dumps(summary.result(), indent=2)


@settings(max_examples=100, deadline=None)
@given(_runs(), st.booleans())
def test_the_summary_is_the_same_whatever_order_the_games_arrive_in(run, cooperative):
    players, seed, names, outcomes, shuffler = run
    rules = _rules(cooperative)
    in_order = _accumulated(rules, outcomes, players, names, seed)
    shuffled = list(outcomes)
    shuffler.shuffle(shuffled)
    assert _accumulated(rules, shuffled, players, names, seed) == in_order
    assert json.dumps(sim.summarise(rules, shuffled, players, names, seed), indent=2) == in_order


@settings(max_examples=100, deadline=None)
@given(_runs(ties=2))
def test_the_summary_equals_the_list_based_one(run):
    """Shares of one or two winners add up exactly in floats too: there the old sum in seed order is exact."""
    players, seed, names, outcomes, _ = run
    for cooperative in (False, True):
        rules = _rules(cooperative)
        expected = json.dumps(_old_summarise(rules, outcomes, players, names, seed), indent=2)
        assert _accumulated(rules, outcomes, players, names, seed) == expected


def test_shares_of_three_winners_are_counted_exactly():
    """A float sum of thirds depends on its order; the exact sum does not, and it rounds as the old one did."""
    outcomes = [
        {
            "index": i,
            "seed": i,
            "winners": ["P1", "P2", "P3"],
            "scores": {},
            "reason": "goal",
            "turns": 1,
            "decisions": 1,
        }
        for i in range(30)
    ]
    summary = sim.summarise(_rules(), outcomes, 3, ["random"], 0)
    assert summary["seats"][0]["wins"] == 10.0 and summary["per_agent"]["random"]["wins"] == 30.0
    assert json.dumps(summary) == json.dumps(_old_summarise(_rules(), outcomes, 3, ["random"], 0))


def test_memory_is_bounded_by_distinct_values():
    """Many stalled and failed games: the summary keeps 50 seeds and 10 samples of each, whatever the count."""
    summary = sim.Summary(_rules(), 2, ["random"], 0)
    order = list(range(5000))
    random.Random(3).shuffle(order)
    for i in order:
        if i % 2:
            summary.add({"index": i, "seed": i, "stalled": "never ends", "code": "X310", "turns": 1, "decisions": 2})
        else:
            summary.add({"index": i, "seed": i, "error": "boom", "code": None})
    assert len(summary._stalled_seeds) == 50 and len(summary._stall_samples) == len(summary._error_samples) == 10
    result = summary.result()
    assert result["stalled"] == {"count": 2500, "seeds": list(range(1, 100, 2))}
    assert [s["seed"] for s in result["error_samples"]] == list(range(0, 20, 2))


@pytest.mark.parametrize("values", [[3], [1, 2], [5, 1, 4, 4], [10**400, 2, 10**400], [2.5, 1, 7.25]])
def test_spread_of_a_counter_is_that_of_its_values(values):
    expected_mean = None
    with contextlib.suppress(OverflowError):
        expected_mean = round(statistics.fmean(values), 2)
    spread = sim._spread(Counter(values))
    assert spread == sim._spread(values) and spread["mean"] == expected_mean
    assert spread["median"] == (statistics.median(values) if expected_mean is not None else spread["median"])
    assert spread["sd"] is None or math.isclose(spread["sd"], round(statistics.pstdev(values), 2))


def test_the_summary_of_real_games_equals_the_list_based_one():
    """Random Cro-Magnon games (2 and 3 players): the accumulator in any order gives the old summary's bytes."""
    from engine.commands.play import _load_pack

    rules = _load_pack(PACK)
    for players in (2, 3):
        outcomes = sim._play(rules, 12, players, ["random", "greedy"], 7, 1, 500, None, None)
        expected = json.dumps(_old_summarise(rules, outcomes, players, ["random", "greedy"], 7), indent=2)
        random.Random(players).shuffle(outcomes)
        assert json.dumps(sim.summarise(rules, outcomes, players, ["random", "greedy"], 7), indent=2) == expected


# ------------------------------------------------------------------------------------------ the run's folder
GAMES = 24
SETTINGS = ("--players", "2", "--agents", "random", "--seed", "5", "-n", str(GAMES))


def _sim(knap, out, *extra, pack=PACK, settings=SETTINGS):
    """`knap sim` of a few random Cro-Magnon games kept in `out`, in this process; (exit code, stdout, stderr)."""
    return knap("sim", pack, *settings, "--jobs", "1", "--format", "json", "--out", out, *extra)


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory):
    """An uninterrupted run's folder, and the summary a plain `knap sim` (no folder) prints for the same games."""
    from engine.commands.cli import main

    out = tmp_path_factory.mktemp("whole") / "run"
    assert main(["sim", PACK, *SETTINGS, "--jobs", "1", "--format", "json", "--out", str(out)]) == 0
    plain = tmp_path_factory.mktemp("plain") / "summary.json"
    assert main(["sim", PACK, *SETTINGS, "--jobs", "2", "--format", "json", "--output", str(plain)]) == 0
    return out, plain.read_text()


def _records(folder) -> list[dict]:
    return [json.loads(line) for line in (folder / "games.jsonl").read_text().splitlines()]


def test_a_run_kept_in_a_folder_writes_its_settings_its_games_and_its_summary(whole_run):
    out, plain = whole_run
    assert sorted(p.name for p in out.iterdir()) == ["games.jsonl", "run.json", "summary.json"]
    assert (out / "summary.json").read_text() == plain  # what --format json prints, with or without a folder
    run = json.loads((out / "run.json").read_text())
    assert run["format"] == "knap-run/1" and run["pack"]["id"] == "cro_magnon"
    assert run["pack"]["hash"].startswith("sha256:") and run["pack"]["path"].endswith("cro-magnon")
    assert {k: run[k] for k in ("players", "agents", "seed", "games", "max_rounds", "max_answers_per_turn")} == {
        "players": 2,
        "agents": ["random", "random"],
        "seed": 5,
        "games": GAMES,
        "max_rounds": 500,
        "max_answers_per_turn": 1000,
    }
    records = _records(out)
    assert sorted(r["index"] for r in records) == list(range(GAMES))
    from engine.commands.play import _load_pack

    sim._RULES = _load_pack(PACK)
    for record in records[:3]:  # the outcome, the agents by seat and the recorder's keys
        outcome = sim._one((record["index"], record["seed"], 2, ["random"], 500, 1000, False, False))
        assert record == {**record, **outcome} and record["agents"] == ["random", "random"]
        assert set(record) - set(outcome) - {"agents"}, "GameRecorder's keys are in the record"


def _resumed(knap, tmp_path, whole_run, cut) -> tuple:
    """The whole run's folder with games.jsonl cut by `cut(bytes)` and no summary, then resumed."""
    out = tmp_path / "run"
    out.mkdir(parents=True)
    (out / "run.json").write_bytes((whole_run[0] / "run.json").read_bytes())
    (out / "games.jsonl").write_bytes(cut((whole_run[0] / "games.jsonl").read_bytes()))
    code, printed, err = _sim(knap, out, "--resume")
    return out, code, printed, err


@pytest.mark.parametrize("kept", [0, 1, 10, GAMES])
def test_a_run_cut_after_some_games_resumes_to_the_same_summary(knap, tmp_path, whole_run, kept):
    out, code, printed, err = _resumed(knap, tmp_path, whole_run, lambda data: b"".join(data.splitlines(True)[:kept]))
    assert code == 0, err
    assert (out / "summary.json").read_text() == printed == whole_run[1]
    assert sorted(r["index"] for r in _records(out)) == list(range(GAMES))


def test_a_torn_last_line_is_dropped_and_its_game_played_again(knap, tmp_path, whole_run):
    def torn(data: bytes) -> bytes:
        lines = data.splitlines(True)
        return b"".join(lines[:7]) + lines[7][: len(lines[7]) // 2]

    out, code, _, err = _resumed(knap, tmp_path, whole_run, torn)
    assert code == 0, err
    assert (out / "summary.json").read_text() == whole_run[1]
    text = (out / "games.jsonl").read_text()
    assert text.endswith("\n") and sorted(r["index"] for r in _records(out)) == list(range(GAMES))


def test_a_line_that_is_no_record_is_refused(knap, tmp_path, whole_run):
    _, code, _, err = _resumed(knap, tmp_path, whole_run, lambda data: b'{"index": 3}\n' + data)
    assert code == 2 and "games.jsonl, line 1: " in err and "remove that line" in err
    _, code, _, err = _resumed(knap, tmp_path / "again", whole_run, lambda data: data + data.splitlines(True)[0])
    assert code == 2 and f"line {GAMES + 1}: game" in err and "twice" in err


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (("--players", "3", "--agents", "random", "--seed", "5", "-n", str(GAMES)), "--players 2, not 3"),
        (("--players", "2", "--agents", "greedy", "--seed", "5", "-n", str(GAMES)), "--agents random,random, not"),
        (("--players", "2", "--agents", "random", "--seed", "6", "-n", str(GAMES)), "--seed 5, not 6"),
        (("--players", "2", "--agents", "random", "--seed", "5", "-n", "30"), f"-n {GAMES}, not 30"),
        ((*SETTINGS, "--max-rounds", "40"), "--max-rounds 500, not 40"),
    ],
)
def test_resume_refuses_other_settings(knap, tmp_path, whole_run, change, said):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_bytes((whole_run[0] / "run.json").read_bytes())
    code, _, err = _sim(knap, out, "--resume", settings=change)
    assert code == 2 and said in err and "choose another --out folder" in err, err
    assert len(err.splitlines()) == 1 and not (out / "games.jsonl").exists()


def test_resume_refuses_a_pack_whose_files_changed(knap, tmp_path):
    import shutil

    from engine.content.packs import resolve_target

    pack = tmp_path / "cro-magnon"
    shutil.copytree(resolve_target(PACK), pack)
    settings = ("--players", "2", "-n", "3")
    out = tmp_path / "run"
    assert _sim(knap, out, pack=pack, settings=settings)[0] == 0
    rules = next(p for p in sorted(pack.rglob("*.yaml")) if p.name != "pack.yaml")
    rules.write_text(rules.read_text() + "\n# a comment is a change too\n")
    code, _, err = _sim(knap, out, "--resume", pack=pack, settings=settings)
    assert code == 2 and "the files of the pack `cro_magnon`" in err and "changed since the run" in err, err
    rules.write_text(rules.read_text().removesuffix("\n# a comment is a change too\n"))
    assert _sim(knap, out, "--resume", pack=pack, settings=settings)[0] == 0


def test_a_folder_that_is_not_empty_is_refused_without_resume(knap, tmp_path, whole_run):
    code, _, err = _sim(knap, whole_run[0])
    assert code == 2 and "is not empty; pass --resume" in err and "choose another --out folder" in err
    (tmp_path / "notes.txt").write_text("mine")
    code, _, err = _sim(knap, tmp_path, "--resume")
    assert code == 2 and "holds no run (run.json is missing)" in err
    code, _, err = _sim(knap, tmp_path / "notes.txt")
    assert code == 2 and "is a file, not a folder" in err
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_resume_of_a_run_not_started_starts_it(knap, tmp_path, whole_run):
    out = tmp_path / "new"
    code, printed, _ = _sim(knap, out, "--resume")
    assert code == 0 and printed == whole_run[1] == (out / "summary.json").read_text()


def test_options_that_do_not_go_together(knap, tmp_path):
    code, _, err = knap("sim", PACK, "--resume")
    assert code == 2 and "give it with --out DIR" in err
    code, _, err = knap("sim", PACK, "--address", "auto")
    assert code == 2 and "--backend ray" in err
    code, _, err = knap("sim", "--compare", PACK, PACK, "--out", tmp_path / "x")
    assert code == 2 and "not --compare" in err


def test_every_record_is_written_whole_as_its_game_finishes(tmp_path, monkeypatch):
    """After each game the file holds exactly the games finished so far, each on a whole line."""
    from engine.balance import runs
    from engine.commands.play import _load_pack

    out = tmp_path / "run"
    seen = []

    def look():
        data = (out / "games.jsonl").read_bytes()
        seen.append(data.count(b"\n"))
        assert data.endswith(b"\n") and all(json.loads(line) for line in data.splitlines())

    plan = runs.Plan(_load_pack(PACK), 2, ["random"], 0, 6)
    runs.run(plan, out=out, jobs=1, progress=look)
    assert seen == [1, 2, 3, 4, 5, 6]


def test_stalled_games_leave_their_logs_with_a_run_folder_too(knap, tmp_path):
    """The same logs as a run without a folder writes, and none in the records."""
    logs, plain_logs = tmp_path / "logs", tmp_path / "plain"
    settings = ("--players", "2", "-n", "3", "--max-rounds", "1")
    code, printed, _ = _sim(knap, tmp_path / "run", "--log-dir", logs, settings=settings)
    assert code == 0 and json.loads(printed)["stalled"]["count"] == 3
    assert sorted(p.name for p in logs.iterdir()) == ["seed-0.json", "seed-1.json", "seed-2.json"]
    assert all("log" not in r for r in _records(tmp_path / "run"))
    code, plain, _ = knap("sim", PACK, *settings, "--jobs", "1", "--format", "json", "--log-dir", plain_logs)
    assert code == 0 and plain == printed
    assert all((logs / p.name).read_bytes() == p.read_bytes() for p in plain_logs.iterdir())


def test_ctrl_c_keeps_every_record_whole_and_the_run_resumes(tmp_path, whole_run):
    """A real SIGINT to `knap sim` while it plays: exit 130, a hint to resume, whole lines; resumed, the summary of
    an uninterrupted run."""
    import signal
    import subprocess
    import sys
    import time

    from conftest import REPO

    out = tmp_path / "run"
    many = ("--players", "2", "--agents", "random", "--seed", "5", "-n", "2000")
    command = [sys.executable, "-m", "engine.commands.cli", "sim", PACK, *many, "--jobs", "1", "--out", str(out)]
    child = subprocess.Popen(command, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    games = out / "games.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not games.exists() or games.read_bytes().count(b"\n") < 3):
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "resume with --resume" in err and "Traceback" not in err and len(err.splitlines()) == 1, err
    data = games.read_bytes()
    assert data.endswith(b"\n") and not (out / "summary.json").exists()
    kept = [json.loads(line) for line in data.splitlines()]
    assert 3 <= len(kept) < 2000
    # the folder says 2000 games; cut it to this test's run of GAMES to compare with the uninterrupted one
    run = json.loads((out / "run.json").read_text()) | {"games": GAMES}
    (out / "run.json").write_text(json.dumps(run))
    games.write_text("".join(json.dumps(r) + "\n" for r in kept if r["index"] < GAMES))
    from engine.commands.cli import main

    assert main(["sim", PACK, *SETTINGS, "--jobs", "1", "--format", "json", "--out", str(out), "--resume"]) == 0
    assert (out / "summary.json").read_text() == whole_run[1]


@pytest.mark.parametrize("name", ["../outside.yaml", "/tmp/knap-absolute.yaml", "pack/../../outside.yaml"])
def test_a_bundle_writes_nothing_outside_its_folder(tmp_path, name):
    """A worker lays a shipped pack out in a folder of its own (balance.bundle.Bundle.unpack): a file name that climbs
    out of it, or is absolute, is refused before anything is written (docs/security.md: nothing read or written
    outside the roots knap was given)."""
    into = tmp_path / "copy"
    into.mkdir()
    bundle = Bundle(
        top="pack", files=(("pack/pack.yaml", b"kind: pack\n"), (name, b"x")), digest="sha256:0", shown={}, root="pack"
    )
    with pytest.raises(BundleError, match="outside"):
        bundle.unpack(into)
    assert not (tmp_path / "outside.yaml").exists() and not Path("/tmp/knap-absolute.yaml").exists()
    assert not any(into.rglob("*.yaml"))  # checked before the first file is written
