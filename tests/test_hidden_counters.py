"""Counters a player may not read (`visibility` in counters.yaml; engine/runtime/counter_visibility.py).

Neolithibum's meal tokens lie "face down in front of" each player (rulebook "Setup") and the bag is a bag:
`meals` is `visibility: owner`, `meal_bag` is `visibility: hidden`. Another player's view shows "?" for
them, and the log tells the others that meals changed hands, never how many: P2 learns nothing of P1's
meal count that the play itself (stones carried, bids revealed) does not show.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scenario import answer, new_game, ready, set_counter

from engine.runtime.counter_visibility import HIDDEN

PACK = "neolithibum"


def seen_by(g, player) -> str:
    """Everything `player` is shown, view and log, as one text."""
    return json.dumps(g.view(player), sort_keys=True, default=str)


def with_meals(g, player, value):
    """Set a player's meals, the difference taken from or put back into the bag (the pool stays whole)."""
    counters = g.state["counters"]
    counters["table"]["meal_bag"] -= value - counters[player]["meals"]
    set_counter(g, player, "meals", value)
    return g


# ---------------------------------------------------------------------------------------------- the view
def test_a_player_reads_their_own_meals_and_not_the_others():
    """ "Setup": each player places his meal tokens face down in front of him: the owner reads the count,
    the others see "?"; the bag's count nobody reads."""
    g = new_game(3, 0, pack=PACK)
    view = g.view("P2")
    assert view["counters"]["P2"]["meals"] == 5
    assert view["counters"]["P1"]["meals"] == HIDDEN and view["counters"]["P3"]["meals"] == HIDDEN
    assert view["counters"]["table"]["meal_bag"] == HIDDEN
    assert g.view(None)["counters"]["P1"]["meals"] == HIDDEN  # a spectator reads no one's


def test_the_view_of_another_player_is_the_same_whatever_p1_holds():
    g = ready(with_meals(new_game(4, 1, pack=PACK), "P1", 2))
    h = ready(with_meals(new_game(4, 1, pack=PACK), "P1", 9))
    for player in ("P2", "P3", "P4"):
        assert seen_by(g, player) == seen_by(h, player)
    assert seen_by(g, "P1") != seen_by(h, "P1")


# ---------------------------------------------------------------------------------------------- the log
def _round(g, cards, aims):
    for player, card in cards.items():
        answer(g, card, player)
    for player, target in aims.items():
        answer(g, target, player)


@pytest.mark.parametrize("p1_meals", [7, 9])
def test_a_clubman_robbing_the_glutton_tells_only_the_two_of_them_how_many(p1_meals):
    """ "Clubman": he receives all the meal tokens of the Glutton: how many is the Glutton's count. The
    Clubman (P3) and the Glutton (P1) read it in the log; P2 reads that meals changed hands, no number."""
    g = ready(with_meals(new_game(3, 0, pack=PACK), "P1", p1_meals))
    _round(g, {"P1": "Glutton", "P2": "Glutton", "P3": "Clubman"}, {"P1": "P2", "P2": "P3", "P3": "P1"})
    assert g.state["counters"]["P1"]["meals"] == 0 and g.state["counters"]["P3"]["meals"] == 5 + p1_meals + 5
    assert f"P1 loses {p1_meals} meals" in g.view("P1")["log"]
    assert f"P3 gains {p1_meals} meals" in g.view("P3")["log"]
    assert "P1 loses some meals" in g.view("P2")["log"] and "P3 gains some meals" in g.view("P2")["log"]
    assert not any(str(p1_meals) in line for line in g.view("P2")["log"])


def test_p2_reads_the_same_log_whatever_p1_held_when_robbed():
    games = []
    for p1_meals in (7, 9):
        g = ready(with_meals(new_game(3, 0, pack=PACK), "P1", p1_meals))
        _round(g, {"P1": "Glutton", "P2": "Glutton", "P3": "Clubman"}, {"P1": "P2", "P2": "P3", "P3": "P1"})
        games.append(g)
    assert seen_by(games[0], "P2") == seen_by(games[1], "P2")


# ---------------------------------------------------------------------------------------------- fuzzing
def _same_shape(g, h, watcher) -> bool:
    """Whether both games wait on the same public question and offer `watcher` the same options."""
    a, b = g.state["pending"], h.state["pending"]
    if (a is None) != (b is None):
        return False
    if a is None:
        return True
    return (a["kind"], sorted(a["by"]), a.get("prompt")) == (b["kind"], sorted(b["by"]), b.get("prompt")) and g.legal(
        watcher
    ) == h.legal(watcher)


def _step(g, rnd, options_for):
    decision = g.decision
    if decision.is_chance:
        g.apply_chance()
        return
    player = decision.players[0]
    options = options_for(player)
    g.apply(options[rnd.randrange(len(options))], player)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 5),
    seed=st.integers(0, 10_000),
    prefix=st.integers(0, 120),
    low=st.integers(3, 6),
    extra=st.integers(1, 6),
)
@example(players=5, seed=48, prefix=48, low=5, extra=1)  # a Clubman robbing P1, left with 0 meals or 1
def test_p2_never_sees_p1s_meal_count(players, seed, prefix, low, extra):
    """A random game prefix; then the same game twice, P1 holding `low` meals in one and `low + extra` in
    the other (the difference kept in the bag), played on with the same answers. P2's view and log, as
    JSON, stay the same in both as long as the play itself does not tell them apart (the same question
    pending, the same options for P2, P1 able to pay for any stone, P2 not handed P1's meals by a Clubman:
    those are public facts of the rules). Oracle outcomes come from the game's own stream, the same in both games."""
    rnd = random.Random(seed)
    g = new_game(players, seed, pack=PACK)
    for _ in range(prefix):
        if g.over:
            return
        _step(g, rnd, g.legal)
    if g.over or g.state["counters"]["table"]["meal_bag"] < low + extra:
        return
    g = ready(with_meals(g, "P1", low))
    h = ready(with_meals(g.clone(), "P1", low + extra))
    assert seen_by(g, "P2") == seen_by(h, "P2")
    compared = 0
    for _ in range(80):
        if g.over or h.over or not _same_shape(g, h, "P2") or g.state["counters"]["P1"]["meals"] < 3:
            break
        state = random.Random(rnd.random())
        if g.decision.is_chance and not h.decision.is_chance:
            break
        both = lambda p: [o for o in g.legal(p) if o in set(h.legal(p))]
        if not both(g.decision.players[0]) and not g.decision.is_chance:
            break
        _step(g, state, both)
        player, option = g.state["history"][-1]
        h.apply(option, player)
        if g.state["counters"]["P2"] != h.state["counters"]["P2"]:
            break  # P2 was the Clubman who took all of P1's meals: P2 counts them, by the rules
        if _same_shape(g, h, "P2"):
            assert seen_by(g, "P2") == seen_by(h, "P2"), "P2 learned something of P1's meals"
            compared += 1


# ---------------------------------------------------------------------------------------------- the schema
@pytest.mark.parametrize(
    "counter,clean",
    [
        ("kind: counter\nid: coins\nname: Coins\nowner: player\nvisibility: owner\n", True),
        ("kind: counter\nid: pool\nname: Pool\nowner: table\nvisibility: hidden\n", True),
        ("kind: counter\nid: pool\nname: Pool\nowner: table\nvisibility: owner\n", False),  # no owner to show it to
        ("kind: counter\nid: coins\nname: Coins\nowner: player\nvisibility: secret\n", False),
    ],
)
def test_the_schema_takes_a_counters_visibility(make_pack, lint_json, counter, clean):
    code, found = lint_json(make_pack({"extra.yaml": counter}))
    assert (code == 0) == clean, found
    if not clean:
        assert any(name == "extra.yaml" for name, *_ in found), found
