"""Stone Age: The Mammoth Herd (content/stone-age-mammoth-herd), an expansion pack that extends
content/stone-age: each test plays one point of shared/rulebooks/stone-age-mammoth-herd.txt (named in its
docstring), including the rulebook's Red/Blue/Yellow example; then seeded random games, `knap diff` and the
terminal."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from conftest import knap_process
from invariants import Watch
from scenario import answer, ids, options, prompt, put, ruleset, saved_and_loaded
from scenario import new_game as _new_game
from test_stone_age_rules import HUNT, place, placing, play_on, resolve, roll

from engine.runtime import session
from engine.runtime.game import Game

PACK = "stone-age-mammoth-herd"
REPO = Path(__file__).resolve().parent.parent
AREAS = ["forest", "clay_pit", "quarry", "river"]


def herd_game(players, tile="herd_forest_tool", prepare=None):
    """A game whose mammoth of round 1 is `tile` (the token on its area)."""
    game = _new_game(players, 0, pack=PACK)
    for card in list(game.state["zones"]["herd_tile"]):
        game.move(card, "herd")
    put(game, tile, "herd_tile")
    area = game.rules.cards[tile]["refs"]["area"]
    game.state["counters"]["table"]["mammoth_area"] = AREAS.index(area) + 1
    if prepare:
        prepare(game)
    return saved_and_loaded(game)


def gather_and_send(game, player, where, faces, sent):
    """`player` resolves `where` first: the dice show `faces`, then `sent` figures go to the mammoth."""
    resolve(game, player, where)
    roll(game, faces)
    assert prompt(game).startswith("How many of these figures do you send"), prompt(game)
    food = game.state["counters"][player]["food"]
    answer(game, str(sent))
    return food - game.state["counters"][player]["food"]


def tame(game, *rolls):
    """Play on to the taming and roll each tamer's dice, in turn order from the first player."""
    play_on(game, lambda g: g.decision.is_chance and g.state["stack"][-1]["code"] == "phase/taming/effect")
    for faces in rolls:
        roll(game, faces)


def test_red_blue_yellow_example():
    """ "Taming a Mammoth", the example: Red and Blue sent 2 people, Yellow 1. Red and Yellow tie on the
    highest die, Red wins on the next one (Yellow has no die left): Red takes the top reward, a tool; Blue
    and Yellow get the bottom reward, 3 points; Red keeps the tile face down. "Changes for 2-3 Players":
    all three colours may stand on the forest where the token is."""
    game = herd_game(3)
    place(game, "Forest", 2)  # Red
    place(game, "Forest", 2)  # Blue
    place(game, "Forest", 1)  # Yellow: a third colour on a resource area, with 3 players
    while placing(game):
        place(game, HUNT, len(game.state["zones"][f"home:{game.decision.players[0]}"]))
    paid = [
        gather_and_send(game, "P1", "Forest", [1, 1], 2),
        gather_and_send(game, "P2", "Forest", [1, 1], 2),
        gather_and_send(game, "P3", "Forest", [1], 1),
    ]
    assert [len(game.state["zones"][f"herd_figures:{p}"]) for p in ("P1", "P2", "P3")] == [2, 2, 1]
    assert paid == [2, 2, 1]  # 1 food a figure
    tame(game, [6, 3], [5, 4], [6])
    assert prompt(game).startswith("You tamed the mammoth") and game.decision.players == ["P1"]
    answer(game, "no")
    assert ids(game, "tools:P1") == ["tool_1"]
    assert [game.state["counters"][p]["vp"] for p in ("P1", "P2", "P3")] == [0, 3, 3]
    assert ids(game, "tamed:P1") == ["herd_forest_tool"] and game.state["zones"]["herd_figures:P1"] == []


def _send_one_each(game, faces):
    place(game, "Forest", 1)
    place(game, "Forest", 1)
    while placing(game):
        place(game, HUNT, len(game.state["zones"][f"home:{game.decision.players[0]}"]))
    gather_and_send(game, "P1", "Forest", [1], 1)
    gather_and_send(game, "P2", "Forest", [1], 1)
    tame(game, *faces)


def test_a_full_tie_gives_everyone_the_bottom_and_removes_the_tile():
    """ "Taming a Mammoth": a tie after comparing all dice: all get the bottom reward; the tile is removed."""
    game = herd_game(2)
    _send_one_each(game, [[4], [4]])
    assert [game.state["counters"][p]["vp"] for p in ("P1", "P2")] == [3, 3]
    assert ids(game, "herd_gone") == ["herd_forest_tool"] and ids(game, "tamed:P1") == ids(game, "tamed:P2") == []


def test_the_winner_may_take_the_bottom_reward():
    """ "Taming a Mammoth": instead of the top reward, the winner may take the bottom one."""
    game = herd_game(2)
    _send_one_each(game, [[2], [5]])
    assert game.decision.players == ["P2"]
    answer(game, "yes")
    assert [game.state["counters"][p]["vp"] for p in ("P1", "P2")] == [3, 3]
    assert ids(game, "tools:P2") == [] and ids(game, "tamed:P2") == ["herd_forest_tool"]


def test_nobody_taming_removes_the_tile():
    """ "Taming a Mammoth": if nobody placed people at the bonus tile, nobody is rewarded, the tile goes."""
    game = herd_game(2)
    while placing(game):
        place(game, HUNT, len(game.state["zones"][f"home:{game.decision.players[0]}"]))
    play_on(
        game,
        lambda g: g.state["turn"]["number"] == 2,
        lambda g: "0" if prompt(g).startswith("How many of these") else None,
    )
    assert ids(game, "herd_gone") == ["herd_forest_tool"]
    assert len(game.state["zones"]["herd_tile"]) == 1  # the next mammoth is up


def test_only_the_mammoth_area_lifts_the_two_or_three_player_limit():
    """ "Changes for 2-3 Players": the limit does not apply where the token is; elsewhere it does, and the 7
    places still apply there."""
    game = herd_game(2, "herd_river_points")
    place(game, "Quarry", 1)
    assert "Quarry" not in options(game) and "River" in options(game)
    place(game, "River", 4)
    answer(game, "River")
    assert options(game) == ["1", "2", "3"]  # 7 places: 4 taken


def test_sending_is_paid_with_food_or_a_resource_and_only_from_that_area():
    """ "Sending People": right after gathering there, some of those figures may go, 1 food each, or 1
    resource instead; the others return."""
    game = herd_game(2, "herd_forest_tool", lambda g: g.state["counters"]["P1"].update(stone=1))
    place(game, "Forest", 2)
    while placing(game):
        place(game, HUNT, len(game.state["zones"][f"home:{game.decision.players[0]}"]))
    resolve(game, "P1", "Forest")
    roll(game, [1, 1])  # no wood
    assert options(game) == ["0", "1", "2"]
    answer(game, "2")
    assert options(game) == ["food", "stone"]
    answer(game, "stone")  # then only food is left: no question
    assert game.state["counters"]["P1"]["stone"] == 0 and game.state["counters"]["P1"]["food"] == 11
    assert len(game.state["zones"]["herd_figures:P1"]) == 2 and game.state["zones"]["forest:P1"] == []


def test_an_empty_stack_removes_the_token():
    """ "Start of Round": no bonus tile left in the stack: the token leaves and play goes on as usual."""

    def last_tile(game):
        for card in list(game.state["zones"]["herd"]):
            game.move(card, "herd_gone")

    game = herd_game(2, prepare=last_tile)
    play_on(
        game,
        lambda g: g.state["turn"]["number"] == 2,
        lambda g: "0" if prompt(g).startswith("How many of these") else None,
    )
    assert game.state["counters"]["table"]["mammoth_area"] == 0 and game.state["zones"]["herd_tile"] == []


def test_most_tiles_score_ten_each_when_tied():
    """ "End of Game": the player with the most bonus tiles scores 10; tied players score 10 each."""
    from engine.runtime.compiler import compile_text
    from engine.runtime.game import Ctx

    game = herd_game(3)
    put(game, "herd_river_points", "tamed:P1")
    put(game, "herd_quarry_tool", "tamed:P2")
    before = {p: game.state["counters"][p]["vp"] for p in ("P1", "P2", "P3")}
    game.push("scoring/herd_majority/effect", "P1")
    game._run_frame()
    after = {p: game.state["counters"][p]["vp"] - before[p] for p in before}
    assert after == {"P1": 10, "P2": 10, "P3": 0}
    assert compile_text(game.rules, "t", "compare_dice([6, 3], [6])", "expression")(Ctx(game, {}, "P1", None)) == 1


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_the_invariants_and_replay(players):
    """Seeded random games of the expansion end by a base end rule, keep the generic invariants after
    every decision, and replay exactly; the herd's tiles are all in one place."""
    rules = ruleset(PACK)
    for seed in range(1):  # tools/soak.py plays many more
        game = Game.new(rules, players, seed)
        session.play_randomly(game, random.Random(seed), after=Watch(game))
        assert game.state["result"]["reason"] in ("display_cannot_refill", "building_pile_empty")
        log = json.loads(json.dumps(session.game_log(game)))
        assert session.replay(rules, log).state_hash() == game.state_hash()


def test_knap_diff_lists_what_the_expansion_adds_and_changes(knap):
    """`knap diff stone-age-mammoth-herd`: the 16 tiles and the herd's rules added, and exactly the base
    documents it patches (the turn order of the round's phases, the placement limit, the actions)."""
    code, out, _ = knap("diff", "stone-age-mammoth-herd", "--format", "json")
    assert code == 0
    report = json.loads(out)
    text = json.dumps(report)
    for changed in ("take_actions", "open_places", "placement", "actions", "feeding"):
        assert changed in text
    assert text.count("herd_") >= 16 and "mammoth_arrives" in text and "herd_majority" in text


@pytest.mark.slow
def test_knap_play_the_expansion_at_the_terminal(tmp_path):
    """`knap play stone-age-mammoth-herd --players 3 --human 1` plays a whole game at the terminal."""
    answers = "2\n1\n3\n4\n5\n6\n0\n" * 1000 + "q\n"
    result = knap_process(
        "play",
        PACK,
        "--players",
        "3",
        "--human",
        "1",
        "--seed",
        "3",
        "--agents",
        "random",
        "--log",
        str(tmp_path / "g.json"),
        stdin=answers,
        timeout=600,
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "The mammoth of this round" in result.stdout and "The game ends. Winner(s)" in result.stdout
