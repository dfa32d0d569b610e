""" "Why can't I?" (issue 11): every action the menu leaves out comes with the first condition that failed,
in words (`view["decision"]["unavailable"]`), and an action chosen and then undone says why, in a log line
its player reads ("<action> undone: <why>") and in the menu that no longer offers it.

Generic behaviour is checked on a small pack written here; the rulebook cases on Cro-Magnon
(shared/rulebooks/cro-magnon.txt), each docstring naming its section.
"""

from __future__ import annotations

import pytest
from conftest import MINIMAL_RULES, goal_end
from scenario import answer, clear, ids, new_game, put, ready, set_counter

from engine.runtime.game import Game
from engine.runtime.rules import load

_PACK = """kind: pack
id: why
name: Why
version: 1.0.0
players: {min: 2, max: 2}
"""
_RULES = (
    MINIMAL_RULES
    + """---
kind: counter
id: ap
name: Action points
owner: player
start: 1
---
"""
    + goal_end(30)
    + """---
kind: action
id: costly
name: Costly
cost: {ap: 2}
effect: gain 1 vp
---
kind: action
id: once
name: Once
limit: once_per_turn
effect: gain 1 vp
---
kind: action
id: big
name: Big
whole_turn: true
effect: gain 1 vp
---
kind: action
id: picky
name: Picky
available: me.vp >= 0 and count(hand(me)) > 0 and me.vp < 10
effect: gain 1 vp
---
kind: action
id: explained
name: Explained
available: count(hand(me)) > 0
why_not: You need a card in your hand.
effect: gain 1 vp
---
kind: action
id: helper
name: Helper
subroutine: true
effect: gain 1 vp
---
kind: action
id: doomed
name: Doomed
effect: |
  gain 1 vp
  require me.vp > 5
---
kind: action
id: told
name: Told
effect: |
  gain 1 vp
  require me.vp > 5 with "You need more than 5 VP."
---
kind: action
id: broke
name: Broke
effect: pay 3 vp
---
kind: action
id: picking
name: Picking
effect: choose 1 from hand(me) as picked with "Which card do you show?"
---
kind: action
id: pair
name: Pair
effect: choose 2 from numbers(1, 1) as two with "Which two numbers?"
"""
)


@pytest.fixture
def game(make_pack):
    return Game.new(load(make_pack({"rules.yaml": _RULES}, manifest=_PACK)), 2, 0)


def unavailable(g, player="P1") -> dict:
    decision = g.view(player)["decision"]
    return {entry["key"]: entry for entry in decision.get("unavailable", [])}


def take(g, action, player="P1"):
    g.apply(g.decision.options.index(action), player)


def test_each_action_left_out_of_the_menu_says_which_condition_failed_first(game):
    out = unavailable(game)
    assert set(out) == {"costly", "picky", "explained"}  # subroutines are never on a menu
    assert out["costly"] == {"key": "costly", "label": "Costly", "why": "it costs 2 Action points and you have 1"}
    # the first conjunct of `available` that is false, from the author's text
    assert out["picky"]["why"] == "the condition `count(hand(me)) > 0` is not met"
    # an author's own words
    assert out["explained"]["why"] == "You need a card in your hand."
    assert "unavailable" not in (game.view("P2")["decision"] or {})  # only the player at the menu reads it


def test_limits_and_whole_turn_actions_say_why_they_are_left_out(game):
    take(game, "once")
    out = unavailable(game)
    assert out["once"]["why"] == "it may be taken once per turn, and it was taken this turn"
    assert out["big"]["why"] == "it takes the whole turn, and this turn something was already done"


def test_an_undone_action_says_why_in_its_players_log_and_in_the_menu(game):
    take(game, "doomed")
    assert game.decision.kind == "action" and game.state["counters"]["P1"]["vp"] == 0  # undone
    why = "the condition `me.vp > 5` is not met"
    assert game.view("P1")["log"][-1] == f"Doomed undone: {why}"
    assert why not in " ".join(game.view("P2")["log"])  # another player's reasons stay theirs
    assert unavailable(game)["doomed"]["why"] == why


def test_a_require_may_say_why_in_the_authors_words(game):
    take(game, "told")
    assert game.view("P1")["log"][-1] == "Told undone: You need more than 5 VP."
    assert unavailable(game)["told"]["why"] == "You need more than 5 VP."


def test_a_payment_short_of_its_amount_and_a_choice_with_nothing_to_choose_say_why(game):
    take(game, "broke")
    assert unavailable(game)["broke"]["why"] == "it takes 3 Victory points and you have 0"
    take(game, "picking")
    assert unavailable(game)["picking"]["why"] == 'there is nothing to choose for "Which card do you show?"'
    take(game, "pair")
    assert unavailable(game)["pair"]["why"] == 'only 1 to choose from for "Which two numbers?", not enough'


def test_the_reason_survives_save_and_load_and_is_forgotten_after_the_next_action(game):
    take(game, "doomed")
    loaded = Game.load(game.rules, game.save())
    assert unavailable(loaded)["doomed"]["why"] == "the condition `me.vp > 5` is not met"
    take(loaded, "once")
    assert "doomed" not in unavailable(loaded)  # the board changed: it is offered again


# ---------------------------------------------------------------------------------------------- Cro-Magnon
def test_a_technology_whose_prerequisite_nobody_mastered_is_explained():
    """Rulebook "3. Mastering a Technology": "the technologies shown at the bottom of the technology card
    ... must already be mastered on the game table ... If no player has such technologies, mastering that
    technology is impossible for now!". P1 holds the Spear's cost, but nobody has mastered the Axe and the
    Stone Knife it requires: Mastering a Technology is left out, and the menu says why."""
    g = new_game()
    for zone in ("weapons_row", "daily_life_row", "dwelling_row", "weapons_deck", "daily_life_deck", "dwelling_deck"):
        clear(g, zone)
    put(g, "spear", "weapons_row", slot=1)
    put(g, "wood", "hand:P1")
    put(g, "flint", "hand:P1")
    g = ready(g)
    out = unavailable(g)
    assert "master_technology" in out and "master_technology" not in g.decision.options
    assert out["master_technology"]["label"] == "Mastering a Technology"
    assert out["master_technology"]["why"] == g.rules.actions["master_technology"]["why_not"]
    assert "prerequisite" in out["master_technology"]["why"]


def test_developing_with_an_animal_on_top_of_every_discard_pile_is_undone_and_says_why():
    """Rulebook "5. Developing a Technology": spending 2 AP, the player takes "1 top resource card from any
    discard pile OR 1 resource card from any technology row". With an animal on top of every discard pile
    and no resource in the rows there is nothing to take: the action is undone (no AP spent), the player
    reads why, and the menu says why it is no longer offered."""
    g = new_game()
    for pile, animal in (
        ("forest_discard", "deer_bird"),
        ("mountains_discard", "markhor_bird"),
        ("river_discard", "crocodile"),
        ("plains_discard", "sabre_toothed_tiger"),
    ):
        put(g, animal, pile)
    g = ready(g)
    assert all(
        ids(g, row).count(None) == len(ids(g, row))
        or all(g.rules.cards[c]["type"] != "resource" for c in ids(g, row) if c)
        for row in ("weapons_row", "daily_life_row", "dwelling_row")
    )
    set_counter(g, "P1", "ap", 2)
    answer(g, "Developing a Technology")
    assert g.decision.kind == "action" and g.state["counters"]["P1"]["ap"] == 2
    why = 'there is nothing to choose for "Which resource do you take?"'
    assert g.view("P1")["log"][-1] == f"Developing a Technology undone: {why}"
    assert unavailable(g)["develop_technology"] == {
        "key": "develop_technology",
        "label": "Developing a Technology",
        "why": why,
    }


def test_an_action_short_of_action_points_says_so():
    """Rulebook "5. Developing a Technology (cost 2 AP)": with 1 AP left it is not offered, and the menu
    says what it costs."""
    g = new_game()
    set_counter(g, "P1", "ap", 1)
    g = ready(g)
    assert unavailable(g)["develop_technology"]["why"] == "it costs 2 Action points and you have 1"


def test_exploring_a_terrain_with_no_card_left_is_undone_in_the_authors_words():
    """Rulebook "1. Explore Terrain": the player takes 1 card from the chosen terrain deck (rebuilt from its
    discard pile when it runs out). With neither left there is nothing to take: the pack's `require ...
    with "..."` gives the player its reason."""
    g = new_game()
    clear(g, "forest")
    clear(g, "forest_discard")
    g = ready(g)
    answer(g, "Explore Terrain")
    answer(g, "Forest deck")
    assert g.view("P1")["log"][-1] == (
        "Explore Terrain undone: That terrain has no card left, in its deck or its discard pile"
    )
    assert g.view("P2")["log"][-1] == "P1 takes back Explore Terrain"


# ---------------------------------------------------------------------------------------------- hidden counters
_SECRET_RULES = (
    MINIMAL_RULES
    + """---
kind: counter
id: coins
name: Coins
owner: player
visibility: owner
start: 2
---
kind: counter
id: bag
name: Bag
owner: table
visibility: hidden
start: 4
---
"""
    + goal_end(30)
    + """---
kind: action
id: rob
name: Rob
effect: pay 5 coins for next_player(me)
---
kind: action
id: spend
name: Spend
effect: pay 5 coins
---
kind: action
id: dig
name: Dig
cost: {bag: 9}
effect: gain 1 vp
---
kind: action
id: buy
name: Buy
cost: {coins: 3}
effect: gain 1 vp
"""
)


@pytest.fixture
def secret_game(make_pack):
    return Game.new(load(make_pack({"rules.yaml": _SECRET_RULES}, manifest=_PACK)), 2, 0)


def test_why_never_tells_a_counter_its_reader_may_not_read(secret_game):
    """docs/runtime.md, hidden counters: a player reads their own face-down coins, not another's, and nobody
    reads the bag. "Why can't I?" used to quote the number all the same ("P2 has 2", "you have 4" of the
    bag); it now says only that the amount falls short, and still quotes what the reader may read."""
    g = secret_game
    out = unavailable(g)
    assert out["dig"]["why"] == "it costs 9 Bag and you have fewer"  # the bag: nobody reads it
    assert out["buy"]["why"] == "it costs 3 Coins and you have 2"  # my own coins: I read them
    take(g, "rob")
    assert g.view("P1")["log"][-1] == "Rob undone: it takes 5 Coins and P2 has fewer"
    assert "P2 has 2" not in " ".join(g.view("P1")["log"]) + str(unavailable(g))
    take(g, "spend")
    assert g.view("P1")["log"][-1] == "Spend undone: it takes 5 Coins and you have 2"
