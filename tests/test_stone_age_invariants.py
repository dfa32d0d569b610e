"""The invariants of issue 14's "Done when", as tests/invariants.py and tests/pack_invariants.py check them
after every decision (in the game tests and in tools/soak.py): each check is shown to catch what it is for —
a score changed outside the rules (generic: any pack), a card moved outside the rules, a figure lost, a
resource area over its players' limit (but not where the mammoth stands), food below 0 — and the soak runs
them."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from invariants import Watch

from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.rules import load

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def packs():
    return {name: load(REPO / "content" / name) for name in ("stone-age", "stone-age-mammoth-herd", "cro-magnon")}


def _played(rules, players=2, steps=60, seed=4):
    game = Game.new(rules, players, seed)
    watch = Watch(game)
    session.play_randomly(game, random.Random(seed), after=watch, limit=steps)
    assert not game.over
    return game, watch


@pytest.mark.parametrize("pack", ["stone-age", "stone-age-mammoth-herd", "cro-magnon"])
def test_a_forged_score_change_is_caught_at_the_next_decision(packs, pack):
    """Scores change only by the rules (any pack): 3 points written into the state by hand, between two
    decisions, are within every bound the counter has; the Watch still names the score and the decision."""
    game, watch = _played(packs[pack])
    game.state["counters"]["P1"]["vp"] += 3
    with pytest.raises(
        AssertionError,
        match=r"P1's vp is -?\d+ after decision \d+, but the rules make it -?\d+: it "
        r"changed outside the rules",
    ):
        watch(game)


def test_a_forged_change_is_caught_even_when_the_game_goes_on(packs):
    """The forged points are caught after the next decision too: the rules never make them up."""
    game, watch = _played(packs["stone-age"])
    game.state["counters"]["P2"]["vp"] -= 10
    decision = game.decision
    if decision.is_chance:
        game.apply_chance()
    else:
        game.apply(game.legal(decision.players[0])[0], decision.players[0])
    with pytest.raises(AssertionError, match="P2's vp .* changed outside the rules"):
        watch(game)


def test_a_card_moved_outside_the_rules_is_caught(packs):
    game, watch = _played(packs["stone-age"])
    card = game.state["zones"]["civ_deck"][0]
    game.move(card, "civ_cards:P1")
    with pytest.raises(AssertionError, match="where the rules did not put them"):
        watch(game)


def test_a_lost_figure_is_caught(packs):
    """Every figure in one place of its player ("Player": 10 figures each)."""
    game, watch = _played(packs["stone-age-mammoth-herd"])
    game.move(game.state["zones"]["figure_box:P1"][0], "_removed")
    with pytest.raises(AssertionError, match="P1 has 9 figures"):
        watch(game)


def _three_colours_on(game, area):
    for player in game.state["players"]:
        box = game.state["zones"][f"figure_box:{player}"]
        game.move(box[0], f"{area}:{player}")


@pytest.mark.parametrize("pack", ["stone-age", "stone-age-mammoth-herd"])
def test_a_resource_area_over_the_players_limit_is_caught(packs, pack):
    """ "Capacities": with 3 players at most 2 colours on a resource area."""
    game, watch = _played(packs[pack], players=3)
    area = next(
        a
        for n, a in enumerate(game.params["resource_areas"], 1)
        if n != game.state["counters"]["table"].get("mammoth_area", 0)
    )
    _three_colours_on(game, area)
    with pytest.raises(AssertionError, match=f"3 colours on {area}"):
        watch.pack_checks[0](game)


def test_where_the_mammoth_stands_the_players_limit_is_lifted(packs):
    """The Mammoth Herd, "Changes for 2-3 Players": every player may place where the token stands."""
    game, watch = _played(packs["stone-age-mammoth-herd"], players=3)
    game.state["counters"]["table"]["mammoth_area"] = 2
    _three_colours_on(game, game.params["resource_areas"][1])
    watch.pack_checks[0](game)  # no complaint


def test_food_below_zero_is_caught(packs):
    game, watch = _played(packs["stone-age"])
    game.state["counters"]["P1"]["food"] = -1
    with pytest.raises(AssertionError, match="food is -1, below its minimum"):
        watch(game)


@pytest.mark.slow
def test_the_soak_checks_them_after_every_decision():
    """tools/soak.py plays with the same Watch: a few games of each pack end without error."""
    for pack in ("stone-age", "stone-age-mammoth-herd"):
        done = subprocess.run(
            [sys.executable, "tools/soak.py", pack, "-n", "1", "--players", "2", "--jobs", "1"],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=REPO,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "2 players: 1 of 1 games ended without error" in done.stdout
        assert "invariants checked after each" in done.stdout


@pytest.mark.slow
def test_a_soak_cut_short_goes_on_from_its_record(tmp_path):
    """`--record FILE`: a soak run again plays only the games FILE does not hold yet, and a line cut short by a
    killed run is played again, so 12,000 watched games may take several sittings and count as one run."""
    record = tmp_path / "soak.jsonl"

    def soak(games):
        done = subprocess.run(
            [
                sys.executable,
                "tools/soak.py",
                "stone-age",
                "-n",
                str(games),
                "--players",
                "2",
                "--jobs",
                "1",
                "--record",
                str(record),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=REPO,
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    soak(1)
    first = record.read_text().splitlines()
    assert len(first) == 1 and '"seed": 0' in first[0]
    record.write_text(first[0] + "\n" + first[0][:25] + "\n")  # seed 1 was being written when the run died
    again = soak(2)
    assert "1 games already in" in again.stderr and "playing the 1 others" in again.stderr
    assert "2 players: 2 of 2 games ended without error" in again.stdout
    assert [line for line in record.read_text().splitlines() if line.endswith("}")][-1].count('"seed": 1') == 1


def _soak_module(rules):
    sys.path.insert(0, str(REPO / "tools"))
    import soak

    soak.RULES = rules
    return soak


def test_the_soak_replays_each_log_alongside_its_game(packs, monkeypatch):
    """The soak's copy that only the rules move starts as the game the log replays to and is given the log's
    answers as they come: one game played fewer than replaying it afterwards, and a log that does not hold
    the game's answers, or ends elsewhere, is still an error of that game."""
    soak = _soak_module(packs["stone-age"])
    _players, _seed, error, reason, decisions, rounds = soak.one((2, 3))
    assert error is None and reason and decisions > 100 and rounds > 5
    made = session.game_log

    def short_of_an_answer(game, **kwargs):
        log = made(game, **kwargs)
        return dict(log, decisions=log["decisions"][:-1]) if game.over else log

    monkeypatch.setattr(session, "game_log", short_of_an_answer)
    assert "the log's answers are not those the game was given" in soak.one((2, 3))[2]

    def elsewhere(game, **kwargs):
        log = made(game, **kwargs)
        return dict(log, final_hash="0" * 64) if game.over else log

    monkeypatch.setattr(session, "game_log", elsewhere)
    assert "the log does not replay to the same state" in soak.one((2, 3))[2]
