"""The hand-written Cro-Magnon (tools/bench/handcoded_cromagnon.py), the benchmark's yardstick, plays the
rules the engine plays from content/cro-magnon: from the same position, with the same answers, both ask
the same questions and end in the same state. Each scenario is set up on the engine (tests/scenario.py),
copied into the hand-written game, then both are driven by one script of (player, engine label,
hand-written answer); the hand-written game's player fails the test on any question the script did not
expect, so an extra or a missing decision point is caught as well as a wrong outcome."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from scenario import answer, new_game, put, ready, set_counter, stack_deck


def _load_handcoded():
    """tools/bench is no package, and its engine.py must not shadow the engine package: load by path."""
    path = Path(__file__).resolve().parents[1] / "tools" / "bench" / "handcoded_cromagnon.py"
    spec = importlib.util.spec_from_file_location("handcoded_cromagnon", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hand = _load_handcoded()

PACK = hand.Pack()
ALL_CARDS = sum(card.get("copies", 1) for card in PACK.cards)


class ScriptDone(Exception):
    """The script has been played through: the hand-written game stops at its next question."""


def engine_position(players=2, *, hands=None, tableaus=None, vp=None, decks=None, rows=None):
    g = new_game(players=players, seed=3)
    for zone, cards in (rows or {}).items():
        for slot, card in cards.items():
            put(g, card, zone, slot=slot)
    for player, cards in (tableaus or {}).items():
        for card in cards:
            put(g, card, f"tableau:{player}")
    for player, cards in (hands or {}).items():
        for card in cards:
            put(g, card, f"hand:{player}")
    for player, value in (vp or {}).items():
        set_counter(g, player, "vp", value)
    for zone, top in (decks or {}).items():
        stack_deck(g, zone, top)
    return ready(g)


def copied(g) -> hand.HandGame:
    """The engine's position as a hand-written game (cards by id, in the same order, turn under way)."""
    state, inst = g.state, g.rules.instances
    players = state["players"]
    h = hand.HandGame(PACK, len(players), deal=False)

    def ids(zone):
        return [None if x is None else inst[x] for x in state["zones"][zone]]

    for zone in h.zones:
        h.zones[zone] = ids(zone)
    for seat, p in enumerate(players):
        h.hand[seat] = ids(f"hand:{p}")
        h.tableau[seat] = ids(f"tableau:{p}")
        h.orient[seat] = [state["orient"][x] for x in state["zones"][f"tableau:{p}"]]
        h.trophies[seat] = ids(f"trophies:{p}")
        h.vp[seat] = state["counters"][p]["vp"]
    turn = state["turn"]
    h.current, h.number = players.index(turn["player"]), turn["number"]
    h.ap = state["counters"][turn["player"]]["ap"]
    return h


def outcome_of_engine(g) -> dict:
    state, inst = g.state, g.rules.instances
    players = state["players"]
    zones = {
        z: [None if x is None else inst[x] for x in state["zones"][z]]
        for z in PACK.zones
        if PACK.zones[z].get("owner") != "player"
    }
    seats = []
    for p in players:
        seats.append(
            {
                "hand": sorted(inst[x] for x in state["zones"][f"hand:{p}"]),
                "tableau": [(inst[x], state["orient"][x]) for x in state["zones"][f"tableau:{p}"]],
                "trophies": [inst[x] for x in state["zones"][f"trophies:{p}"]],
                "vp": state["counters"][p]["vp"],
            }
        )
    result = state["result"]
    winners = None if result is None else [players.index(p) for p in result["winners"]]
    ap = None if result else state["counters"][state["turn"]["player"]]["ap"]
    return {"zones": zones, "seats": seats, "winners": winners, "ap": ap}


def outcome_of_hand(h, over) -> dict:
    seats = [
        {
            "hand": sorted(h.hand[s]),
            "tableau": list(zip(h.tableau[s], h.orient[s], strict=True)),
            "trophies": list(h.trophies[s]),
            "vp": h.vp[s],
        }
        for s in range(h.n)
    ]
    return {
        "zones": {z: list(c) for z, c in h.zones.items()},
        "seats": seats,
        "winners": h.winners if over else None,
        "ap": None if over else h.ap,
    }


def play_both(g, script):
    """Answer the engine by labels and the hand-written game by values, step by step, from one script of
    (seat, engine label, hand-written answer). Returns both outcomes."""
    h = copied(g)
    for seat, label, _ in script:
        answer(g, label, player=g.state["players"][seat])
    steps = iter(script)

    def scripted(game, player, kind, options):
        step = next(steps, None)
        if step is None:
            raise ScriptDone
        seat, label, value = step
        assert player == seat, f"the hand-written game asks seat {player}, the script expects {seat} ({label})"
        assert value in options, f"`{value}` is not among the hand-written options {options} ({label})"
        return options.index(value)

    h.agent = scripted
    over = True
    try:
        h.play(resume=True)
    except ScriptDone:
        over = False
    assert next(steps, None) is None, "the hand-written game stopped asking before the script ended"
    assert (g.state["result"] is not None) == over
    return outcome_of_engine(g), outcome_of_hand(h, over)


EXPLORE_FOREST = [(0, "Explore Terrain", "explore"), (0, "Forest", "forest")]


def test_a_joint_predator_hunt_gives_the_same_trophies_and_shares():
    g = engine_position(
        3, tableaus={"P1": ["axe"], "P2": ["chopper"], "P3": ["stone_knife"]}, decks={"forest": ["wolf"]}
    )
    engine, written = play_both(
        g,
        EXPLORE_FOREST
        + [
            (0, "yes", True),
            (0, "1", 1),
            (1, "yes", True),
            (2, "yes", True),  # hunt, share 1, both join
            (0, "P2", 1),
            (0, "vp", "vp"),  # the share: 1 VP to P2
        ],
    )
    assert engine == written
    assert written["seats"][0]["trophies"] == ["wolf"] and written["seats"][1]["vp"] == 1


def test_flint_pairs_add_to_a_herbivore_hunts_spoils():
    g = engine_position(2, tableaus={"P1": ["axe"]}, hands={"P1": ["flint"] * 4}, decks={"forest": ["deer_bird"]})
    engine, written = play_both(
        g, EXPLORE_FOREST + [(0, "yes", True), (0, "0", 0), (1, "no", False), (0, "1", 1)]
    )  # one pair of Flint burnt
    assert engine == written
    assert written["seats"][0]["hand"] == ["flint", "flint", "spoils", "spoils"]


def test_a_predator_too_strong_is_declined_and_costs_the_chosen_cards():
    g = engine_position(2, hands={"P1": ["wood", "stone", "wood"]}, decks={"forest": ["wolf"]})
    engine, written = play_both(g, EXPLORE_FOREST + [(0, "no", False), (0, "Stone", "stone")])
    assert engine == written
    assert written["ap"] == 2 and written["seats"][0]["hand"] == ["wood", "wood"]


def test_mastering_from_a_deck_top_with_three_spoils_and_technology_progress():
    g = engine_position(
        2,
        tableaus={"P1": ["axe", "stone_knife"]},
        hands={"P1": ["wood", "flint", "spoils", "spoils", "spoils", "stone"]},
        decks={"weapons_deck": ["spear"]},
    )
    engine, written = play_both(
        g, [(0, "Mastering a Technology", "master_technology"), (0, "Spear", "spear"), (0, "3 × Spoils", "joker")]
    )
    assert engine == written
    assert written["seats"][0]["vp"] == 3  # 1 for the Spear, +1 for each prerequisite held


def test_mastering_from_a_row_returns_the_last_resource_to_its_place():
    g = engine_position(2, hands={"P1": ["wood", "stone", "grass"]})
    engine, written = play_both(g, [(0, "Mastering a Technology", "master_technology"), (0, "Axe", "axe")])
    assert engine == written
    assert written["zones"]["weapons_row"][0] == "stone"


def test_new_technology_takes_a_row_resource_and_the_row_is_refilled():
    g = engine_position(
        2, tableaus={"P1": ["campfire"]}, rows={"weapons_row": {1: "wood"}}, decks={"weapons_deck": ["bola"]}
    )
    engine, written = play_both(g, [(0, "New Technology", "new_technology")])
    assert engine == written
    assert written["zones"]["weapons_row"][0] == "bola" and written["seats"][0]["tableau"] == [("campfire", 1)]


def test_developing_with_nothing_to_take_is_undone_and_not_offered_again():
    g = engine_position(2)
    engine, written = play_both(
        g, [(0, "Developing a Technology", "develop_technology"), (0, "Explore Terrain", "explore")]
    )
    assert engine == written
    assert written["ap"] == 1


def test_attacking_an_empty_hand_is_undone_and_that_victim_not_offered_again():
    g = engine_position(3, tableaus={"P1": ["axe"]}, hands={"P2": ["wood"]})
    engine, written = play_both(
        g,
        [
            (0, "Attack", "attack"),
            (0, "P3", 2),  # P3 has no card: undone
            (0, "Attack", "attack"),
        ],
    )  # only P2 is left to attack
    assert engine == written
    assert written["seats"][0]["hand"] == ["wood"] and written["seats"][0]["tableau"] == [("axe", 2)]


def test_additional_exploration_draws_per_dividing_line_and_a_decline_gives_no_ap():
    g = engine_position(2, vp={"P1": 5, "P2": 13}, decks={"forest": ["wood", "deer_bird"]})
    engine, written = play_both(
        g,
        [
            (0, "Additional Terrain Exploration", "additional_exploration"),
            (0, "Forest", "forest"),
            (0, "Forest", "forest"),
            (0, "no", False),
        ],
    )
    assert engine == written
    assert written["ap"] == 2 and written["seats"][0]["hand"] == ["wood"]


def test_the_hand_limit_asks_only_which_kinds_of_card_go():
    """Identical cards in one's own hand are one option: 7 Wood and a Stone over a limit of 5 ask only
    whether the Stone goes, once; then the next player's turn starts with 2 AP."""
    g = engine_position(2, hands={"P1": ["wood"] * 7 + ["stone"]})
    engine, written = play_both(g, [(0, "end turn", "end_turn"), (0, "Stone", "stone")])
    assert engine == written
    assert written["seats"][0]["hand"] == ["wood"] * 5 and written["ap"] == 2


def test_reaching_the_goal_gives_last_turns_then_the_winner_by_vp():
    """2 players, goal 30: P1 reaches it by a hunt, P2 plays a last turn, then P1; final scoring adds 1 VP
    per 2 cards in hand and the predator figures; a tie shares the win."""
    g = engine_position(
        2,
        tableaus={"P1": ["axe", "chopper", "stone_knife"]},
        vp={"P1": 29, "P2": 29},
        hands={"P2": ["wood", "stone", "grass", "clay"]},
        decks={"forest": ["wolf"]},
    )
    engine, written = play_both(
        g,
        EXPLORE_FOREST
        + [
            (0, "yes", True),
            (0, "0", 0),
            (1, "no", False),  # the wolf: 30 VP, P1's turn ends at once
            (1, "end turn", "end_turn"),
            (0, "end turn", "end_turn"),
        ],
    )
    assert engine == written
    assert written["winners"] == [0, 1] and [s["vp"] for s in written["seats"]] == [31, 31]


def test_a_rule_played_differently_fails_the_comparison(monkeypatch):
    """The comparison can fail: a hand-written game that forgets that an attack reverses a weapon for good,
    or that counts no weapons in a hunt, ends in another state than the engine's."""
    g = engine_position(3, tableaus={"P1": ["axe"]}, hands={"P2": ["wood"]})
    monkeypatch.setattr(hand, "REVERSED", hand.UPRIGHT)
    engine, written = play_both(g, [(0, "Attack", "attack"), (0, "P2", 1)])
    assert engine != written
    monkeypatch.undo()
    g = engine_position(2, tableaus={"P1": ["axe", "chopper", "stone_knife"]}, decks={"forest": ["wolf"]})
    monkeypatch.setattr(hand.HandGame, "weapons", lambda self, player: 0)
    engine, written = play_both(g, EXPLORE_FOREST + [(0, "yes", True), (0, "0", 0), (1, "no", False)])
    assert engine != written and written["seats"][0]["trophies"] == []


def cards_on_the_table(h):
    return sum(len([c for c in cards if c is not None]) for cards in h.zones.values()) + sum(
        len(h.hand[s]) + len(h.tableau[s]) + len(h.trophies[s]) for s in range(h.n)
    )


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_hand_written_games_end_with_a_winner(players):
    for seed in range(8):
        h = hand.HandGame(PACK, players, seed)
        winners = h.play()
        assert winners and all(h.vp[w] == max(h.vp) for w in winners)
        assert max(h.vp) >= h.goal  # no game of random players reaches the turn limit
        assert cards_on_the_table(h) == ALL_CARDS  # no card made or lost
        assert all(o in (0, 1, 2) for orient in h.orient for o in orient)
        assert h.decisions > 100 * players / 2


def test_random_hand_written_games_are_the_same_games_for_the_same_seed():
    first, again = hand.HandGame(PACK, 4, 11), hand.HandGame(PACK, 4, 11)
    first.play(), again.play()
    assert (first.vp, first.decisions) == (again.vp, again.decisions)
