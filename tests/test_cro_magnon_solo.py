"""Scenario tests: Cro-Magnon's solo mode, "The Approach of Winter", as the variant pack
content/cro-magnon-solo plays it, rule by rule against shared/rulebooks/cro-magnon.txt ("Solo Mode:
The Approach of Winter"). Each scenario starts from a saved-and-loaded state; each docstring names
the part of the solo rules it checks. The 8 ordinary events are placeholders (the rulebook does not
print them); their tests check that each does what its own text says."""

from __future__ import annotations

import json
import random

import pytest
from scenario import (
    answer,
    ids,
    new_game,
    options,
    prompt,
    put,
    ready,
    ruleset,
    stack_deck,
)

from engine.runtime import session
from engine.runtime.game import Game, GameError

PACK = "cro-magnon-solo"
MENU = "Choose an action, or end your turn"
EVENTS = [
    "storm",
    "forest_fire",
    "drought",
    "rockfall",
    "illness",
    "herd_migration",
    "bountiful_season",
    "predators_roam",
]


def solo(*, hand=(), tableau=(), events=None, decks=None, seed=0):
    g = new_game(players=1, seed=seed, pack=PACK)
    for card in tableau:
        put(g, card, "tableau:P1")
    for card in hand:
        put(g, card, "hand:P1")
    if events:
        stack_deck(g, "events", events)
    for zone, top in (decks or {}).items():
        stack_deck(g, zone, top)
    return ready(g)


def ap(g):
    return g.state["counters"]["P1"]["ap"]


def at_menu(g):
    return g.decision is not None and g.decision.kind == "action" and prompt(g) == MENU


def end_turn(g):
    answer(g, "end turn")


def settlement_ready(tableau=("axe", "campfire", "syrets"), **kwargs):
    """Seasonal Camp (1 Weapons, 1 Daily Life, 1 Dwelling) waits in the Weapons row's 4th place."""
    g = new_game(players=1, pack=PACK)
    for card in tableau:
        put(g, card, "tableau:P1")
    for row in ("weapons_row", "daily_life_row", "dwelling_row"):
        g.move(g.state["zones"][row][3], "box")
    put(g, "seasonal_camp", "weapons_row", slot=4)
    for card in kwargs.get("hand", ()):
        put(g, card, "hand:P1")
    for zone, top in (kwargs.get("decks") or {}).items():
        stack_deck(g, zone, top)
    return ready(g)


# ------------------------------------------------------------------------------------------ preparing
def test_the_solo_game_is_for_one_player():
    """ "Solo Mode": the player competes with time, not with other players."""
    assert ruleset(PACK).players == (1, 1)
    with pytest.raises(GameError) as caught:
        Game.new(ruleset(PACK), 2, 0)
    assert caught.value.code == "X304"  # player-count (docs/runtime-errors.md)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_the_event_deck_is_eight_shuffled_events_with_winter_under_them(seed):
    """ "Preparing the Solo Game", steps 2-4: Winter is set aside, the 8 other Event cards are shuffled
    face down, and Winter is placed face down under them."""
    g = ready(new_game(players=1, seed=seed, pack=PACK))
    deck = ids(g, "events")
    assert deck[0] == "winter" and sorted(deck[1:]) == sorted(EVENTS)
    assert ids(g, "winter_aside") == []
    view = g.view("P1")
    assert view["zones"]["events"] == {"name": "Event deck", "count": 9}  # face down
    assert not any(card in str(view) for card in ('"winter"', "Storm", "Drought", "Illness"))


def test_the_event_order_depends_on_the_seed_only():
    """ "Preparing the Solo Game", step 3: the events are shuffled; the same seed gives the same deck."""
    orders = {tuple(ids(new_game(players=1, seed=s, pack=PACK), "events")) for s in range(8)}
    assert len(orders) > 1
    assert ids(new_game(players=1, seed=5, pack=PACK), "events") == ids(
        new_game(players=1, seed=5, pack=PACK), "events"
    )


def test_the_standard_setup_still_holds():
    """ "All the main rules of the game remain in force" and "Prepare for the game using the standard
    rules": the technology rows hold their first technologies and a settlement each, the terrain decks
    are full."""
    g = ready(new_game(players=1, pack=PACK))
    for row in ("weapons_row", "daily_life_row", "dwelling_row"):
        assert len(ids(g, row)) == 4 and all(ids(g, row)), row
    assert len(ids(g, "forest")) == 21 and len(ids(g, "mountains")) == 19
    assert ids(g, "hand:P1") == []


# ------------------------------------------------------------------------------------------ playing
def test_four_action_points_and_a_marker_removed_for_each_spent():
    """ "Playing the Solo Game": 4 AP a turn; each AP spent removes one of the 4 coloured markers from the
    Event deck; the same action may be repeated."""
    g = solo(decks={"forest": ["wood", "wood", "wood", "wood"]})
    assert ap(g) == 4 and g.state["turn"]["number"] == 1
    assert "markers" in g.rules.counters["ap"]["name"]
    for left in (3, 2, 1, 0):
        answer(g, "Explore Terrain")
        answer(g, "Forest")
        assert ap(g) == left
    assert ids(g, "hand:P1") == ["wood"] * 4
    assert "Explore Terrain" not in options(g)


def test_at_the_end_of_each_turn_the_top_event_is_resolved_and_removed():
    """ "Playing the Solo Game": once the player has performed the actions they want, they take the top
    card of the Event deck, resolve it and remove it from the game; the markers go on the next card
    (a new turn with 4 AP begins)."""
    g = solo(events=["bountiful_season", "drought"])
    answer(g, "Explore Terrain")
    answer(g, "Forest")
    if not at_menu(g):
        answer(g, "no")
    end_turn(g)
    assert ids(g, "_removed")[-1] == "bountiful_season"
    assert "spoils" in ids(g, "hand:P1")
    assert len(ids(g, "events")) == 8 and ids(g, "events")[-1] == "drought"
    assert g.state["turn"]["number"] == 2 and ap(g) == 4 and at_menu(g)
    assert any("Bountiful Season" in str(entry) for entry in g.log_for("P1"))


def test_nine_months_then_winter_loses():
    """ "Playing the Solo Game": the game lasts nine turns (game months); "Ending the Solo Game": the
    player loses if they draw the Event card Winter, which lies under the 8 others."""
    g = solo(events=["bountiful_season"] * 1)
    for month in range(1, 10):
        assert not g.over and g.state["turn"]["number"] == month
        while not at_menu(g):
            answer(g, options(g)[0])
        end_turn(g)
        while not g.over and not at_menu(g):
            answer(g, options(g)[0])
    assert g.over
    result = g.state["result"]
    assert result["winners"] == [] and result["reason"] == "winter_comes" and result["turns"] == 9
    assert "winter" in ids(g, "_removed") or "winter" in ids(g, "_drawn:P1")


# ------------------------------------------------------------------------------------------ special rules
def test_founding_a_settlement_costs_four_action_points_and_wins():
    """ "Special Rules for the Solo Game": "Founding a Settlement" costs 4 AP; "Ending the Solo Game":
    the player wins if they perform it."""
    g = settlement_ready()
    assert "Founding a Settlement" in options(g)
    answer(g, "Founding a Settlement")
    if not g.over:
        answer(g, "Seasonal Camp")
    assert g.over
    result = g.state["result"]
    assert result["winners"] == ["P1"] and result["reason"] == "settlement_founded" and result["turns"] == 1
    assert "seasonal_camp" in ids(g, "tableau:P1")
    assert g.state["counters"]["P1"]["vp"] == 0


def test_founding_is_not_possible_once_an_action_point_is_spent():
    """ "Special Rules for the Solo Game": "Founding a Settlement" costs 4 AP, the 4 AP of a turn: with 1 AP
    spent the player cannot pay it."""
    g = settlement_ready(decks={"forest": ["wood"]})
    answer(g, "Explore Terrain")
    answer(g, "Forest")
    assert ap(g) == 3 and "Founding a Settlement" not in options(g)


def test_founding_still_takes_the_whole_turn_after_ap_won_back():
    """ "Solo Mode": "All the main rules of the game remain in force", and the solo rules change only the
    cost of "Founding a Settlement" (4 AP): "6. Founding a Settlement" still takes the whole turn, "No other
    actions may be performed in that turn!". An AP won back by declining a hunt ("Declining the hunt on a
    herbivore": +1 AP) brings the 4 AP back, yet another action was performed: no settlement this turn."""
    g = settlement_ready(decks={"forest": ["deer_bird"]})
    answer(g, "Explore Terrain")
    answer(g, "Forest")
    answer(g, "no")  # declines the hunt: +1 AP
    assert ap(g) == 4 and at_menu(g)
    assert "Founding a Settlement" not in options(g)


def test_no_free_action_before_founding():
    """ "6. Founding a Settlement" (in force in the solo game, "All the main rules of the game remain in
    force"): "No other actions may be performed in that turn!" — not even a free Natural Exchange (0 AP)."""
    g = settlement_ready(hand=["clay", "clay"])
    assert "Founding a Settlement" in options(g)
    answer(g, "Natural Exchange")
    assert ids(g, "hand:P1") == ["spoils"] and ap(g) == 4
    assert "Founding a Settlement" not in options(g)


def test_no_attack_and_no_improve_dwelling():
    """ "Special Rules for the Solo Game": the player may not perform "Attack" and "Improve Dwelling",
    even with an upright Weapons technology and a Dwelling with Spoils in hand."""
    g = solo(tableau=("axe", "syrets"), hand=("spoils",))
    menu = options(g)
    assert "Attack" not in menu and "Improve Dwelling" not in menu
    assert {"attack", "improve_dwelling", "additional_exploration"}.isdisjoint(g.rules.actions)


def test_no_victory_points_are_awarded():
    """ "Special Rules for the Solo Game": no victory points are awarded — mastering a technology worth
    VP leaves the VP at 0, and there is no final scoring."""
    g = new_game(players=1, pack=PACK)
    put(g, "throwing_club", "weapons_row", slot=2)
    put(g, "chopper", "tableau:P1")
    put(g, "wood", "hand:P1")
    put(g, "stone", "hand:P1")
    g = ready(g)
    answer(g, "Mastering a Technology")
    answer(g, "Throwing Club")
    assert "throwing_club" in ids(g, "tableau:P1")
    assert g.state["counters"]["P1"]["vp"] == 0
    assert g.rules.scorings == [] and g.rules.score_counter is None


def test_a_hunt_asks_for_no_helpers():
    """ "Solo Mode": there are no other players, so a hunt is never joint — no share is promised, nobody
    is invited (the full game's "joint hunt", "1. Explore Terrain", needs other players)."""
    g = solo(decks={"forest": ["deer_bird"]})
    answer(g, "Explore Terrain")
    answer(g, "Forest")
    assert prompt(g).startswith("Hunt this animal?")
    answer(g, "yes")
    assert g.decision is None or g.decision.kind != "invite"
    assert "promise" not in prompt(g)


def test_the_event_comes_before_the_hand_limit():
    """ "Playing the Solo Game" (the event ends the turn) with "1. Explore Terrain" (the hand limit at
    the end of one's turn): the pack assumes the event first — a Bountiful Season's Spoils card counts
    towards the hand limit of 5."""
    g = solo(hand=["wood"] * 5, events=["bountiful_season"])
    end_turn(g)
    assert prompt(g) == "Which cards do you discard down to your hand limit?"
    assert "spoils" in ids(g, "hand:P1") and len(ids(g, "hand:P1")) == 6


# ------------------------------------------------------------------------------------------ the events
def test_storm_discards_a_chosen_card():
    """Placeholder event "Storm": discard one card of your choice from hand."""
    g = solo(hand=["wood", "clay"], events=["storm"])
    end_turn(g)
    assert prompt(g) == "The storm: which card do you discard?"
    answer(g, "Clay")
    assert ids(g, "hand:P1") == ["wood"] and ids(g, "plains_discard") == ["clay"]


@pytest.mark.parametrize(
    "event,hand,kept,pile",
    [
        ("forest_fire", ["wood", "clay", "wood"], ["clay"], "forest_discard"),
        ("drought", ["spring", "wood", "spring"], ["wood"], "river_discard"),
    ],
)
def test_fire_and_drought_discard_every_card_of_one_resource(event, hand, kept, pile):
    """Placeholder events "Forest Fire" (all Wood cards) and "Drought" (all Spring cards); the other
    resources stay in hand."""
    g = solo(hand=hand, events=[event])
    end_turn(g)
    assert ids(g, "hand:P1") == kept
    assert len(ids(g, pile)) == 2


def test_rockfall_buries_two_mountain_cards():
    """Placeholder event "Rockfall": the top 2 cards of the Mountains deck go to its discard pile."""
    g = solo(events=["rockfall"], decks={"mountains": ["stone", "markhor_bird"]})
    end_turn(g)
    assert sorted(ids(g, "mountains_discard")) == ["markhor_bird", "stone"] and len(ids(g, "mountains")) == 17


def test_illness_leaves_three_action_points_next_turn():
    """Placeholder event "Illness": the next turn has 1 AP fewer (3 markers), the one after 4 again."""
    g = solo(events=["illness", "drought"])
    end_turn(g)
    assert g.state["turn"]["number"] == 2 and ap(g) == 3
    end_turn(g)
    assert g.state["turn"]["number"] == 3 and ap(g) == 4


def test_predators_roam_discards_two_chosen_cards():
    """Placeholder event "Predators Roam": discard 2 cards of your choice (all of them with fewer)."""
    g = solo(hand=["wood", "stone", "clay"], events=["predators_roam"])
    end_turn(g)
    answer(g, "Wood")
    answer(g, "Stone")
    assert ids(g, "hand:P1") == ["clay"]
    g = solo(hand=["wood"], events=["predators_roam"])
    end_turn(g)
    assert ids(g, "hand:P1") == []


def test_herd_migration_explores_without_action_points():
    """Placeholder event "Herd Migration": the top card of the Forest or Mountains deck, resolved as an
    exploration, without spending AP."""
    g = solo(events=["herd_migration"], decks={"mountains": ["stone"]})
    end_turn(g)
    answer(g, "Mountains")
    assert ids(g, "hand:P1") == ["stone"] and g.state["turn"]["number"] == 2 and ap(g) == 4


def test_every_ordinary_event_is_a_marked_placeholder_and_winter_is_not():
    """The rulebook names only Winter; the 8 other events are placeholders with a reason, each with an
    effect an author can replace in YAML."""
    cards = ruleset(PACK).cards
    for event in EVENTS:
        assert cards[event]["provenance"] == "placeholder" and cards[event]["reason"], event
        assert cards[event]["effect"].strip(), event
    assert "provenance" not in cards["winter"]


# ------------------------------------------------------------------------------------------ whole games
@pytest.mark.parametrize("seed", range(8))
def test_random_solo_games_end_keep_the_invariants_and_replay(seed):
    """Seeded random solo games end (won or lost within nine months), keep the invariants after every
    decision, and replay from their logs to the same state."""
    from invariants import Watch

    rules = ruleset(PACK)
    game = Game.new(rules, 1, seed)
    session.play_randomly(game, random.Random(seed), after=Watch(game))
    assert game.over and game.state["result"]["reason"] in ("winter_comes", "settlement_founded")
    assert game.state["result"]["turns"] <= 9
    replayed = session.replay(rules, session.game_log(game))
    assert replayed.state_hash() == game.state_hash()


def test_knap_sim_prints_the_win_rate_of_each_agent(knap, tmp_path):
    """`knap sim cro-magnon-solo`: one player by default; the win rate of the agent with its interval, how
    games ended (a settlement or Winter), and no score columns (the solo game has no score)."""
    for agent, games in (("random", 12), ("greedy", 3)):  # greedy looks ahead: slow
        out_json = tmp_path / f"{agent}.json"
        code, out, _ = knap("sim", PACK, "-n", str(games), "--agents", agent, "--jobs", "1", "--json", out_json)
        assert code == 0 and "1 player," in out and "win %" in out and "mean" not in out
        summary = json.loads(out_json.read_text())
        assert summary["players"] == 1 and summary["errors"] == 0 and summary["played"] == games
        assert set(summary["per_agent"]) == {agent} and 0 <= summary["per_agent"][agent]["win_rate"] <= 1
        assert set(summary["endings"]) <= {"winter_comes", "settlement_founded"}
