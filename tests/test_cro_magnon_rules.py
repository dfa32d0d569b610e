"""Scenario tests: the Cro-Magnon pack played by the engine, rule by rule, against its rulebook
(shared/rulebooks/cro-magnon.txt). Each scenario is set up on a new game, saved and loaded, then
driven by answering options by their labels; each docstring names the rulebook section it checks.

Card values (costs, VP, stats) are the pack's own (many are placeholders), read from content/cro-magnon.
"""

from __future__ import annotations

import pytest
from scenario import (
    answer,
    clear,
    ids,
    new_game,
    options,
    prompt,
    put,
    ready,
    set_counter,
    stack_deck,
)

MENU = "Choose an action, or end your turn"


# ---------------------------------------------------------------------------------------------- helpers
def game(players=2, *, hands=None, tableaus=None, vp=None, decks=None, seed=0):
    """A new game with cards put in hands / tableaus (player -> list of ids), VP set, decks stacked."""
    g = new_game(players=players, seed=seed)
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


def ap(g, player="P1"):
    return g.state["counters"][player]["ap"]


def vp(g, player="P1"):
    return g.state["counters"][player]["vp"]


def orients(g, zone):
    return [g.state["orient"][n] for n in g.state["zones"][zone] if n is not None]


def sorted_ids(g, zone):
    return sorted(x for x in ids(g, zone) if x is not None)


def at_menu(g, player="P1"):
    return (
        g.decision is not None and g.decision.kind == "action" and g.decision.players == [player] and prompt(g) == MENU
    )


def explore(g, terrain="Forest"):
    answer(g, "Explore Terrain")
    answer(g, terrain)


def hunt(g, share="0", joining=()):
    """Answer "yes" to a hunt, offer `share`, then the invited opponents answer (joining ones "yes")."""
    answer(g, "yes")
    answer(g, share)
    invited = list(g.decision.players)
    assert g.decision.kind == "invite"
    for player in invited:
        answer(g, "yes" if player in joining else "no", player=player)


def pick(g, label):
    """Answer a question the engine may have answered itself: one with a single possible answer is never
    asked (docs/runtime.md); the test's later assertions check the outcome either way."""
    if g.decision is not None and g.decision.kind != "action":
        answer(g, label)


def end_turn(g):
    answer(g, "end turn")


# ---------------------------------------------------------------------------------------------- 1. turns
def test_two_action_points_and_the_same_action_repeated():
    """Rulebook "Sequence of Play": each turn a player has 2 AP; the same action may be repeated as long
    as the player has AP; "1. Explore Terrain" costs 1 AP."""
    g = game(decks={"forest": ["wood", "wood", "wood"]})
    assert ap(g) == 2 and g.state["turn"]["player"] == "P1" and g.state["turn"]["number"] == 1
    explore(g)
    assert ap(g) == 1 and ids(g, "hand:P1") == ["wood"]
    explore(g)
    assert ap(g) == 0 and ids(g, "hand:P1") == ["wood", "wood"]
    assert at_menu(g)
    assert "Explore Terrain" not in options(g)  # no AP left for it
    assert ids(g, "forest")[-1] == "wood"  # the third wood is still on the deck


def test_free_actions_cost_no_action_points():
    """Rulebook "Sequence of Play": free actions cost no AP, in any number ("2. Natural Exchange (cost
    0 AP)", "3. Mastering a Technology (cost 0 AP)")."""
    g = game(hands={"P1": ["wood"] * 3 + ["wood", "stone"]})
    answer(g, "Natural Exchange")
    pick(g, "Wood")
    assert ap(g) == 2 and sorted_ids(g, "hand:P1") == ["spoils", "stone", "wood"]
    answer(g, "Mastering a Technology")
    pick(g, "Axe")
    assert ap(g) == 2 and ids(g, "tableau:P1") == ["axe"] and ids(g, "hand:P1") == ["spoils"]
    assert "Explore Terrain" in options(g)


def test_ending_the_turn_passes_to_the_next_player_with_two_ap():
    """Rulebook "Sequence of Play": the turn passes clockwise to the next player, who has 2 AP; AP left
    over are not carried over to the next turn."""
    g = game(decks={"forest": ["wood"]})
    explore(g)
    end_turn(g)
    assert g.state["turn"]["player"] == "P2" and g.state["turn"]["number"] == 2
    assert ap(g, "P2") == 2 and at_menu(g, "P2")
    end_turn(g)
    assert g.state["turn"]["player"] == "P1" and g.state["turn"]["number"] == 3
    assert ap(g, "P1") == 2  # a fresh 2, not 1 + 2


def test_turn_order_with_three_players():
    """Rulebook "Sequence of Play": the players take turns, passing the turn clockwise."""
    g = game(players=3)
    seen = []
    for _ in range(4):
        seen.append(g.state["turn"]["player"])
        end_turn(g)
    assert seen == ["P1", "P2", "P3", "P1"]


# ---------------------------------------------------------------------------------------------- 2. explore
def test_explore_takes_a_resource_into_hand():
    """Rulebook "1. Explore Terrain": spend 1 AP, choose a terrain deck, take its top card; a resource
    goes to the player's hand."""
    g = game(decks={"mountains": ["stone", "markhor_bird"]})
    answer(g, "Explore Terrain")
    assert options(g) == ["Forest deck", "Mountains deck", "River deck", "Plains deck"]
    answer(g, "Mountains deck")
    assert ids(g, "hand:P1") == ["stone"]
    assert ids(g, "mountains")[-1] == "markhor_bird"
    assert ap(g) == 1 and at_menu(g)


def test_an_exhausted_terrain_deck_is_rebuilt_from_its_discard_pile():
    """Rulebook "1. Explore Terrain": if the cards in a terrain deck run out, its discard pile is shuffled
    into a new terrain deck."""
    g = new_game()
    clear(g, "forest")
    put(g, "wood", "forest_discard", copies=4)
    g = ready(g)
    explore(g)
    assert ids(g, "hand:P1") == ["wood"]
    assert ids(g, "forest") == ["wood"] * 3
    assert ids(g, "forest_discard") == []
    assert ap(g) == 1


def test_exploring_a_terrain_with_no_cards_left_is_not_possible():
    """Rulebook "1. Explore Terrain": the player takes 1 card from the chosen deck; with no card in the
    deck nor in its discard pile there is nothing to take, and no animal to hunt or decline."""
    g = new_game()
    clear(g, "forest")
    g = ready(g)
    answer(g, "Explore Terrain")
    if "Forest deck" in options(g):
        answer(g, "Forest deck")
    assert not prompt(g).startswith("Hunt this animal")
    assert at_menu(g) and ap(g) == 2
    assert ids(g, "hand:P1") == []


# ---------------------------------------------------------------------------------------------- 3. hidden
def test_resources_in_hand_are_hidden_from_other_players():
    """Rulebook "Resources": the resource card stays in the player's hand face down; the player does not
    need to show it to the others."""
    g = game(decks={"forest": ["wood"]})
    explore(g)
    theirs = g.view("P2")["zones"]["hand:P1"]
    assert theirs["count"] == 1 and "cards" not in theirs
    assert "Wood" not in repr(theirs)
    assert not any("Wood" in line for line in g.view("P2")["log"])
    mine = g.view("P1")["zones"]["hand:P1"]
    assert mine["cards"] == [{"id": "wood", "name": "Wood"}]


def test_no_trading_of_resource_cards():
    """Rulebook "Resources", caution: any trade or transfer of resource cards between players is
    forbidden: no action of the pack gives cards to another player."""
    g = game(
        hands={"P1": ["wood", "wood", "wood", "clay", "clay"], "P2": ["stone"]}, tableaus={"P1": ["campfire", "syrets"]}
    )
    assert set(options(g)) <= {
        "Explore Terrain",
        "Natural Exchange",
        "Mastering a Technology",
        "Attack",
        "New Technology",
        "Improve Dwelling",
        "Developing a Technology",
        "Founding a Settlement",
        "Additional Terrain Exploration",
        "end turn",
    }
    for action in g.rules.actions.values():
        effect = action.get("effect") or ""
        assert not any(line.strip().startswith("give ") for line in effect.splitlines()), action["id"]


# ---------------------------------------------------------------------------------------------- 4. herbivores
@pytest.mark.parametrize("weapons, spoils", [(["axe"], 1), (["axe", "chopper", "stone_knife"], 2)])
def test_hunting_a_herbivore_gives_a_spoils_per_weapon_at_most_two(weapons, spoils):
    """Rulebook "Hunting a herbivore": 1 Spoils card per mastered Weapons technology, no more than 2 from
    a single herbivore; then the herbivore card goes to the discard pile of its terrain."""
    g = game(tableaus={"P1": weapons}, decks={"forest": ["deer_bird"]})
    explore(g)
    assert prompt(g).startswith("Hunt this animal?")
    hunt(g)
    assert ids(g, "hand:P1") == ["spoils"] * spoils
    assert ids(g, "forest_discard") == ["deer_bird"]
    assert len(ids(g, "spoils_deck")) == 15 - spoils
    assert ap(g) == 1 and vp(g) == 0 and at_menu(g)


def test_declining_a_herbivore_gives_one_ap_and_discards_it():
    """Rulebook "Declining the hunt on a herbivore": the herbivore goes to its discard pile and the player
    gains 1 AP."""
    g = game(tableaus={"P1": ["axe"]}, decks={"mountains": ["markhor_bird"]})
    explore(g, "Mountains")
    answer(g, "no")
    assert ids(g, "mountains_discard") == ["markhor_bird"]
    assert ids(g, "hand:P1") == []
    assert ap(g) == 2 and at_menu(g)  # 2 - 1 for exploring + 1 for declining


# ---------------------------------------------------------------------------------------------- 5. predators
def test_hunting_a_predator_with_enough_weapons():
    """Rulebook "Hunting a predator": with at least as many Weapons technologies as its strength (wolf:
    3), the player gains its VP and Spoils (1 and 1) and takes the figure; the card leaves play."""
    g = game(tableaus={"P1": ["axe", "chopper", "stone_knife"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g)
    assert vp(g) == 1
    assert ids(g, "hand:P1") == ["spoils"]
    assert ids(g, "trophies:P1") == ["wolf"]
    assert "wolf" not in ids(g, "forest") + ids(g, "forest_discard")
    assert ap(g) == 1 and at_menu(g)


def test_too_weak_for_a_predator_the_hunt_is_declined():
    """Rulebook "Hunting a predator", caution: with fewer Weapons technologies than the predator's
    strength the player must decline: the result is that of declining (resources equal to its VP
    discarded, chosen by the player; the card to the discard pile; +1 AP)."""
    g = game(tableaus={"P1": ["axe", "chopper"]}, hands={"P1": ["wood", "grass"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g)
    assert options(g) == ["Wood (P1's hand)", "Grass (P1's hand)"]
    answer(g, "Grass")
    assert ids(g, "hand:P1") == ["wood"]
    assert ids(g, "plains_discard") == ["grass"]
    assert ids(g, "forest_discard") == ["wolf"]
    assert ids(g, "trophies:P1") == [] and vp(g) == 0
    assert ap(g) == 2 and at_menu(g)


def test_declining_a_predator_discards_resources_equal_to_its_vp():
    """Rulebook "Declining the hunt on a predator": discard as many resource cards as the predator's VP
    (crocodile: 2), chosen by the player, to their terrains' discard piles; +1 AP."""
    g = game(hands={"P1": ["wood", "stone", "clay"]}, decks={"river": ["crocodile"]})
    explore(g, "River")
    answer(g, "no")
    answer(g, "Wood")
    answer(g, "Clay")
    assert ids(g, "hand:P1") == ["stone"]
    assert ids(g, "forest_discard") == ["wood"] and ids(g, "plains_discard") == ["clay"]
    assert ids(g, "river_discard") == ["crocodile"]
    assert ap(g) == 2 and at_menu(g)


@pytest.mark.parametrize("hand", [["wood"], []])
def test_declining_a_predator_with_too_few_resources_discards_them_all(hand):
    """Rulebook "Declining the hunt on a predator": with fewer resource cards than must be discarded, the
    player discards all of them; with none, nothing."""
    g = game(hands={"P1": hand}, decks={"plains": ["sabre_toothed_tiger"]})
    explore(g, "Plains")
    answer(g, "no")
    assert ids(g, "hand:P1") == []
    assert ids(g, "forest_discard") == hand
    assert ids(g, "plains_discard") == ["sabre_toothed_tiger"]
    assert ap(g) == 2 and at_menu(g)


# ---------------------------------------------------------------------------------------------- 6. joint hunt
def test_joint_herbivore_hunt_shares_the_agreed_spoils():
    """Rulebook "Hunting a herbivore", caution: a joint hunt adds the hunters' Weapons technologies; the
    division of the Spoils agreed before the hunt is honoured. Every opponent is invited."""
    g = game(players=3, tableaus={"P1": ["axe"], "P2": ["chopper"]}, decks={"forest": ["deer_bird"]})
    explore(g)
    answer(g, "yes")
    assert options(g) == ["0", "1", "2"]
    answer(g, "1")
    assert g.decision.kind == "invite" and sorted(g.decision.players) == ["P2", "P3"]
    assert options(g, "P2") == ["yes", "no"] and options(g, "P3") == ["yes", "no"]
    answer(g, "yes", player="P2")
    answer(g, "no", player="P3")
    assert ids(g, "hand:P1") == ["spoils"]  # 1 + 1 weapons = 2 Spoils, 1 agreed to P2
    assert ids(g, "hand:P2") == ["spoils"]
    assert ids(g, "hand:P3") == []
    assert ids(g, "forest_discard") == ["deer_bird"]
    assert at_menu(g) and ap(g) == 1


def test_joint_predator_hunt_sums_weapons_and_shares_the_trophies():
    """Rulebook "Hunting a predator", caution: hunters add their Weapons technologies (1 + 1 + 1 = the
    wolf's strength 3); the agreed share (1 VP) goes to the chosen helper, the rest and the figure to
    the hunter."""
    g = game(players=3, tableaus={"P1": ["axe"], "P2": ["chopper"], "P3": ["stone_knife"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g, share="1", joining=("P2", "P3"))
    answer(g, "P2")  # who receives the shared trophy
    answer(g, "vp")  # the shared trophy is a victory point
    assert vp(g, "P2") == 1 and ids(g, "hand:P2") == []
    assert vp(g, "P1") == 0 and ids(g, "hand:P1") == ["spoils"]
    assert vp(g, "P3") == 0 and ids(g, "hand:P3") == []
    assert ids(g, "trophies:P1") == ["wolf"]
    assert at_menu(g)


def test_a_share_offered_to_nobody_who_joined_stays_with_the_hunter():
    """Rulebook "Hunting a herbivore": the agreement divides the Spoils between the players taking part in
    the joint hunt; if nobody joins, the hunter hunts alone and receives all its Spoils."""
    g = game(tableaus={"P1": ["axe", "chopper"]}, decks={"forest": ["deer_bird"]})
    explore(g)
    hunt(g, share="1")  # P2 declines the invitation
    assert ids(g, "hand:P1") == ["spoils", "spoils"]
    assert ids(g, "forest_discard") == ["deer_bird"]
    assert ap(g) == 1 and at_menu(g)


def test_a_shared_spoils_card_leaves_the_predators_vp_to_the_hunter():
    """Rulebook "Hunting a predator": the agreed division of the VP and Spoils is honoured; the wolf gives
    1 VP and 1 Spoils: if the helper's share is the Spoils card, the hunter gains the VP."""
    g = game(tableaus={"P1": ["axe"], "P2": ["chopper", "stone_knife"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g, share="1", joining=("P2",))
    answer(g, "Spoils")  # the share is a Spoils card
    assert ids(g, "hand:P2") == ["spoils"] and vp(g, "P2") == 0
    assert vp(g, "P1") == 1 and ids(g, "hand:P1") == []
    assert len(ids(g, "spoils_deck")) == 14


def test_a_shared_predator_never_gives_more_vp_than_it_shows():
    """Rulebook "Hunting a predator": the players divide the victory points and Spoils shown on the card
    (wolf: 1 VP, 1 Spoils); sharing them all gives the helper exactly those, whatever is asked first."""
    g = game(tableaus={"P1": ["axe"], "P2": ["chopper", "stone_knife"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g, share="2", joining=("P2",))
    while not at_menu(g):
        answer(g, "vp" if "vp" in options(g) else "Spoils")  # a victory point while there is one
    assert vp(g, "P2") == 1 and ids(g, "hand:P2") == ["spoils"]
    assert vp(g, "P1") == 0 and ids(g, "hand:P1") == []
    assert ids(g, "trophies:P1") == ["wolf"]


# ---------------------------------------------------------------------------------------------- 7. flint
def test_two_flint_add_one_weapon_against_a_predator():
    """Rulebook "2. Natural Exchange", exception: during a hunt, discarding 2 Flint adds 1 to the number of
    the player's Weapons technologies (2 weapons + 1 = the wolf's strength 3)."""
    g = game(tableaus={"P1": ["axe", "chopper"]}, hands={"P1": ["flint"] * 3}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g)
    assert options(g) == ["0", "1"]  # 3 Flint: one pair at most
    answer(g, "1")
    assert ids(g, "river_discard") == ["flint", "flint"]
    assert ids(g, "hand:P1") == ["flint", "spoils"]
    assert ids(g, "trophies:P1") == ["wolf"] and vp(g) == 1


def test_two_flint_add_one_spoils_against_a_herbivore():
    """Rulebook "2. Natural Exchange", exception, with "Hunting a herbivore": 1 weapon + 2 Flint count as
    2 weapons: 2 Spoils."""
    g = game(tableaus={"P1": ["axe"]}, hands={"P1": ["flint", "flint"]}, decks={"forest": ["deer_bird"]})
    explore(g)
    hunt(g)
    answer(g, "1")
    assert ids(g, "hand:P1") == ["spoils", "spoils"]
    assert ids(g, "river_discard") == ["flint", "flint"]


def public_log(g, last=None):
    return g.log_for(None)[-last if last else 0 :]


def test_a_helpers_flint_discard_is_logged_as_the_helpers_own():
    """Rulebook "Hunting a predator", caution (a joint hunt: "all players taking part in the joint hunt add
    together their mastered Weapons technologies") with "2. Natural Exchange", exception ("a player may ...
    discard 2 or more Flint cards from hand"): the helper P2 discards their own Flint, and the log says P2
    does, not the hunter P1."""
    g = game(tableaus={"P1": ["axe"], "P2": ["chopper"]}, hands={"P2": ["flint", "flint"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g, joining=("P2",))
    answer(g, "1", player="P2")  # P2 discards a pair of Flint: 1 + 1 + 1 = 3
    discards = [line for line in public_log(g) if "discards Flint" in line]
    assert discards == ["P2 discards Flint from P2's hand to River discard pile"] * 2
    assert ids(g, "trophies:P1") == ["wolf"]


# ---------------------------------------------------------------------------------------------- 7b. hunts explained
def test_a_predator_hunt_log_shows_the_strengths_compared():
    """Rulebook "Hunting a predator": the player "counts their mastered Weapons technology cards and compares
    the number with the predator's strength"; in a joint hunt the hunters' weapons add up. The log shows both
    numbers and the outcome."""
    g = game(players=3, tableaus={"P1": ["axe"], "P2": ["chopper"], "P3": ["stone_knife"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g, joining=("P2", "P3"))
    assert "Hunt: strength 3 (P1, P2, P3) vs 3 (Wolf): success" in public_log(g)


def test_a_predator_too_strong_is_explained_in_the_log():
    """Rulebook "Hunting a predator", caution: fewer Weapons technologies than the predator's strength: the
    hunt is declined, and the log says why (1 against the wolf's 3)."""
    g = game(tableaus={"P1": ["axe"]}, decks={"forest": ["wolf"]})
    explore(g)
    hunt(g)
    assert "Hunt: strength 1 (P1) vs 3 (Wolf): too weak, the hunt is declined" in public_log(g)
    assert ids(g, "forest_discard") == ["wolf"]


def test_a_herbivore_hunt_log_shows_the_strength_and_the_spoils():
    """Rulebook "Hunting a herbivore": 1 Spoils card per mastered Weapons technology, at most 2 from one
    herbivore; with 3 weapons the log shows strength 3 and 2 Spoils."""
    g = game(tableaus={"P1": ["axe", "chopper", "stone_knife"]}, decks={"forest": ["deer_bird"]})
    explore(g)
    hunt(g)
    assert "Hunt: strength 3 (P1) against Deer/Bird: 2 Spoils (1 per weapon, at most 2)" in public_log(g)
    assert ids(g, "hand:P1") == ["spoils", "spoils"]


# ---------------------------------------------------------------------------------------------- 8. exchange
def test_natural_exchange_at_the_printed_rate():
    """Rulebook "2. Natural Exchange": resources discarded at the rate printed on them (Wood: 3) to their
    terrain discard pile for 1 Spoils card, without spending AP."""
    g = game(hands={"P1": ["wood"] * 4 + ["flint", "clay", "clay"]})
    answer(g, "Natural Exchange")
    assert options(g) == ["Wood (P1's hand)", "Clay (P1's hand)"]  # Flint has no exchange rate
    answer(g, "Wood")
    assert sorted_ids(g, "hand:P1") == ["clay", "clay", "flint", "spoils", "wood"]
    assert ids(g, "forest_discard") == ["wood"] * 3
    assert ap(g) == 2 and at_menu(g)


def test_natural_exchange_needs_the_full_rate():
    """Rulebook "2. Natural Exchange": Clay's rate is 2: with 1 Clay the exchange cannot be made; with 2
    it gives 1 Spoils."""
    g = game(hands={"P1": ["clay", "flint"]})
    assert "Natural Exchange" not in options(g)
    assert sorted_ids(g, "hand:P1") == ["clay", "flint"] and ids(g, "plains_discard") == []
    g = game(hands={"P1": ["clay", "clay"]})
    answer(g, "Natural Exchange")
    assert ids(g, "hand:P1") == ["spoils"] and ids(g, "plains_discard") == ["clay", "clay"]


def test_flint_alone_offers_no_natural_exchange():
    """Rulebook "2. Natural Exchange", exception: Flint cannot be exchanged (it has no rate)."""
    g = game(hands={"P1": ["flint"] * 4})
    assert "Natural Exchange" not in options(g)


# ---------------------------------------------------------------------------------------------- 9. mastering
def test_mastering_with_a_prerequisite_held_by_another_player():
    """Rulebook "3. Mastering a Technology": the prerequisite technologies must be mastered on the table,
    by anyone (Throwing Club needs Chopper, held by P2); no Technology Progress bonus (1 VP); the last
    resource of the cost (Stone) takes the technology's place in its row, the others are discarded."""
    g = new_game()
    put(g, "chopper", "tableau:P2")
    put(g, "throwing_club", "weapons_row", slot=2)
    put(g, "wood", "hand:P1")
    put(g, "stone", "hand:P1")
    g = ready(g)
    answer(g, "Mastering a Technology")
    answer(g, "Throwing Club")
    assert ids(g, "tableau:P1") == ["throwing_club"]
    assert vp(g) == 1
    assert ids(g, "weapons_row")[1] == "stone"
    assert ids(g, "forest_discard") == ["wood"] and ids(g, "mountains_discard") == []
    assert ids(g, "hand:P1") == [] and ap(g) == 2 and at_menu(g)


def test_mastering_is_impossible_while_nobody_has_the_prerequisite():
    """Rulebook "3. Mastering a Technology", caution: if no player has the technologies shown at the
    bottom of the card, mastering it is impossible for now."""
    g = new_game()
    put(g, "chopper", "_removed")
    put(g, "throwing_club", "weapons_row", slot=2)
    for card in ("wood", "wood", "stone", "stone"):  # enough for Axe, Chopper and Throwing Club
        put(g, card, "hand:P1")
    g = ready(g)
    answer(g, "Mastering a Technology")
    offered = options(g) if g.decision.kind != "action" else []  # one option only: taken at once
    assert not any(label.startswith("Throwing Club") for label in offered)
    pick(g, "Axe")
    assert ids(g, "tableau:P1") == ["axe"] and ids(g, "weapons_row")[1] == "throwing_club"


def test_technology_progress_one_vp_per_prerequisite_mastered_by_the_player():
    """Rulebook "Special Rule: Technology Progress": +1 VP for each prerequisite the player mastered
    themselves; one held by another player gives nothing (Spear: 1 VP, needs Axe (P1) and Stone Knife
    (P2)); the last resource (Flint) goes back to the row."""
    g = new_game()
    put(g, "axe", "tableau:P1")
    put(g, "stone_knife", "tableau:P2")
    put(g, "spear", "weapons_row", slot=1)
    put(g, "wood", "hand:P1")
    put(g, "flint", "hand:P1")
    g = ready(g)
    answer(g, "Mastering a Technology")
    answer(g, "Spear")
    assert vp(g) == 1 + 1
    assert ids(g, "tableau:P1") == ["axe", "spear"]
    assert ids(g, "weapons_row")[0] == "flint"
    assert ids(g, "forest_discard") == ["wood"]


def test_mastering_from_the_top_of_a_technology_deck_discards_every_resource():
    """Rulebook "Refilling the Technology Rows with Resources": a technology mastered from the deck puts
    no resource in the row: they all go to the discard piles (Sling: Grass, Stone; needs Fibre, held by
    the player: 1 + 1 VP)."""
    g = new_game()
    put(g, "fibre", "tableau:P1")
    stack_deck(g, "weapons_deck", ["sling", "bola"])
    put(g, "grass", "hand:P1")
    put(g, "stone", "hand:P1")
    g = ready(g)
    row = ids(g, "weapons_row")
    answer(g, "Mastering a Technology")
    pick(g, "Sling")
    assert ids(g, "tableau:P1") == ["fibre", "sling"]
    assert ids(g, "weapons_row") == row
    assert ids(g, "weapons_deck")[-1] == "bola"
    assert ids(g, "plains_discard") == ["grass"] and ids(g, "mountains_discard") == ["stone"]
    assert vp(g) == 2 and ids(g, "hand:P1") == []


def test_valuable_spoils_covering_the_last_resource_put_one_spoils_in_the_row():
    """Rulebook "Special Rule: Valuable Spoils": 3 Spoils may replace any one resource; when they cover the
    resource shown last (Axe: Wood, Stone), 1 Spoils goes into the row, the others to the discard pile."""
    g = game(hands={"P1": ["wood", "spoils", "spoils", "spoils"]})
    answer(g, "Mastering a Technology")
    answer(g, "Axe")
    assert ids(g, "tableau:P1") == ["axe"] and vp(g) == 1
    assert ids(g, "weapons_row")[0] == "spoils"
    assert ids(g, "spoils_discard") == ["spoils", "spoils"]
    assert ids(g, "forest_discard") == ["wood"]
    assert ids(g, "hand:P1") == []


def test_valuable_spoils_for_another_resource_are_all_discarded():
    """Rulebook "Special Rule: Valuable Spoils": the player may pay Wood with the Wood card or with 3
    Spoils; the Spoils paying Wood (not the last resource) are all discarded, the Stone goes to the row."""
    g = game(hands={"P1": ["wood", "stone", "spoils", "spoils", "spoils"]})
    answer(g, "Mastering a Technology")
    answer(g, "Axe")
    assert options(g) == ["Wood", "3 × Spoils"]
    answer(g, "3 × Spoils")
    assert ids(g, "tableau:P1") == ["axe"]
    assert ids(g, "hand:P1") == ["wood"]
    assert ids(g, "weapons_row")[0] == "stone"
    assert ids(g, "spoils_discard") == ["spoils"] * 3


def test_a_variant_with_two_spoils_for_a_resource_offers_and_takes_two():
    """Rulebook "Special Rule: Valuable Spoils", with the pack's parameter `spoils_joker` changed as a variant
    would: the menu offers the number the rule takes (2), and paying takes exactly that many."""
    g = new_game()
    g.state["params"]["spoils_joker"] = 2
    for card in ("wood", "stone", "spoils", "spoils", "spoils"):
        put(g, card, "hand:P1")
    g = ready(g)
    answer(g, "Mastering a Technology")
    answer(g, "Axe")
    assert options(g) == ["Wood", "2 × Spoils"]
    answer(g, "2 × Spoils")
    assert ids(g, "tableau:P1") == ["axe"]
    assert sorted(ids(g, "hand:P1")) == ["spoils", "wood"]
    assert ids(g, "spoils_discard") == ["spoils"] * 2


def test_mastering_needs_the_resources_in_hand():
    """Rulebook "3. Mastering a Technology": the player must hold the resources shown on the card."""
    g = game(hands={"P1": ["wood"]})
    assert "Mastering a Technology" not in options(g)  # Axe needs Wood and Stone: nothing is affordable
    assert ids(g, "tableau:P1") == [] and ids(g, "hand:P1") == ["wood"] and ids(g, "weapons_row")[0] == "axe"
    assert vp(g) == 0


# ---------------------------------------------------------------------------------------------- 10. attack
def test_attack_takes_a_blind_card_and_reverses_a_weapon():
    """Rulebook "Weapons": Attack (1 AP) takes 1 card, chosen by its back, from another player's hand;
    then one of the attacker's Weapons technologies is turned 180 degrees."""
    g = game(tableaus={"P1": ["axe", "chopper"]}, hands={"P2": ["wood", "wood", "clay"]})
    answer(g, "Attack")
    assert g.decision.kind == "choose" and g.state["pending"]["blind"]
    assert options(g) == [f"a face-down card #{i} in P2's hand" for i in (1, 2, 3)]
    answer(g, "a face-down card #3")
    assert ids(g, "hand:P1") == ["clay"] and ids(g, "hand:P2") == ["wood", "wood"]
    answer(g, "Axe")
    assert ids(g, "tableau:P1") == ["axe", "chopper"]
    assert orients(g, "tableau:P1") == [2, 0]
    assert ap(g) == 1 and at_menu(g)


def test_a_reversed_weapon_no_longer_counts_for_hunts_or_attacks():
    """Rulebook "Weapons": the turned card no longer counts for hunting and cannot be used for Attack, but
    remains a mastered technology."""
    g = game(tableaus={"P1": ["axe", "chopper"]}, hands={"P2": ["wood", "wood"]}, decks={"forest": ["deer_bird"]})
    answer(g, "Attack")
    answer(g, "a face-down card #1")
    answer(g, "Axe")
    explore(g)
    hunt(g)
    assert sorted_ids(g, "hand:P1") == ["spoils", "wood"]  # only Chopper counted: 1 Spoils
    assert ids(g, "tableau:P1") == ["axe", "chopper"] and orients(g, "tableau:P1") == [2, 0]
    g = game(tableaus={"P1": ["axe"]}, hands={"P2": ["wood", "wood"]})
    answer(g, "Attack")
    answer(g, "a face-down card #1")
    assert orients(g, "tableau:P1") == [2]
    assert "Attack" not in options(g)


# ---------------------------------------------------------------------------------------------- 11. new technology
def test_new_technology_takes_a_row_resource_and_turns_daily_life():
    """Rulebook "Daily Life": New Technology (1 AP) takes a resource from a technology row, the row's deck
    fills its place; the Daily Life card is turned 90 degrees and cannot be used again this turn."""
    g = new_game()
    put(g, "campfire", "tableau:P1")
    put(g, "wood", "forest_discard")
    put(g, "stone", "weapons_row", slot=1)
    stack_deck(g, "weapons_deck", ["spear", "bola"])
    g = ready(g)
    answer(g, "New Technology")
    assert options(g) == ["Wood (Forest discard pile)", "Stone (Weapons technology row (top))"]
    answer(g, "Stone")
    assert ids(g, "hand:P1") == ["stone"]
    assert ids(g, "weapons_row") == ["spear", "chopper", "stone_knife", ids(g, "weapons_row")[3]]
    assert ids(g, "weapons_deck")[-1] == "bola"
    assert orients(g, "tableau:P1") == [1]
    assert ap(g) == 1 and "New Technology" not in options(g)


def test_new_technology_from_a_discard_pile_and_upright_again_next_turn():
    """Rulebook "Daily Life": the top resource of a discard pile may be taken; the player restores their
    Daily Life cards upright at the start of their next turn (not before)."""
    g = new_game()
    put(g, "campfire", "tableau:P1")
    put(g, "wood", "forest_discard", copies=2)
    put(g, "clay", "plains_discard")
    g = ready(g)
    answer(g, "New Technology")
    answer(g, "Clay")
    assert ids(g, "hand:P1") == ["clay"] and ids(g, "plains_discard") == []
    assert orients(g, "tableau:P1") == [1]
    end_turn(g)
    assert g.state["turn"]["player"] == "P2" and orients(g, "tableau:P1") == [1]
    end_turn(g)
    assert g.state["turn"]["player"] == "P1" and orients(g, "tableau:P1") == [0]
    assert "New Technology" in options(g)


# ---------------------------------------------------------------------------------------------- 12. dwelling
def test_improve_dwelling_up_to_its_spoils_for_as_many_vp():
    """Rulebook "Dwelling": Improve Dwelling (1 AP) discards up to the number of Spoils shown (Hut: 2) for
    as many VP; the dwelling is turned 180 degrees and cannot improve again."""
    g = game(tableaus={"P1": ["hut"]}, hands={"P1": ["spoils"] * 3})
    answer(g, "Improve Dwelling")  # the first Spoils is not optional: taken at once
    answer(g, "Spoils")
    assert vp(g) == 2 and ids(g, "hand:P1") == ["spoils"]
    assert ids(g, "spoils_discard") == ["spoils", "spoils"]
    assert orients(g, "tableau:P1") == [2]
    assert ap(g) == 1 and "Improve Dwelling" not in options(g)
    end_turn(g)
    end_turn(g)
    assert g.state["turn"]["player"] == "P1"
    assert orients(g, "tableau:P1") == [2] and "Improve Dwelling" not in options(g)


def test_improve_dwelling_with_fewer_spoils_than_shown():
    """Rulebook "Dwelling": at will the player may discard fewer Spoils than the icon shows."""
    g = game(tableaus={"P1": ["hut"]}, hands={"P1": ["spoils"] * 3})
    answer(g, "Improve Dwelling")
    answer(g, "done")
    assert vp(g) == 1 and ids(g, "hand:P1") == ["spoils", "spoils"]
    assert orients(g, "tableau:P1") == [2]


def test_improve_dwelling_is_not_offered_without_spoils():
    """Rulebook "Dwelling": Improve Dwelling discards "from 1 to 3 Spoils cards" for as many VP; with no
    Spoils in hand there is nothing to discard, so the action is not offered: no AP is spent and the
    dwelling is not turned for nothing."""
    g = game(tableaus={"P1": ["hut"]}, hands={"P1": ["wood", "clay"]})
    assert "Improve Dwelling" not in options(g)
    assert ap(g) == 2 and orients(g, "tableau:P1") == [0]


def test_improve_dwelling_discards_at_least_one_spoils():
    """Rulebook "Dwelling": "from 1 to 3 Spoils cards"; fewer than shown at will, but at least 1: the first
    Spoils card is not optional (no "done" before it)."""
    g = game(tableaus={"P1": ["stone_wall"]}, hands={"P1": ["spoils"] * 2})
    answer(g, "Improve Dwelling")
    # the first pick has one possible answer (the engine answers it): "done" comes only from the second
    assert prompt(g) == "Discard a Spoils card for 1 VP? (2 of 2)"
    assert options(g) == ["Spoils (P1's hand)", "done"]
    answer(g, "done")
    assert vp(g) == 1 and ids(g, "hand:P1") == ["spoils"] and orients(g, "tableau:P1") == [2]
    g = game(tableaus={"P1": ["stone_wall"]}, hands={"P1": ["spoils"]})
    answer(g, "Improve Dwelling")
    assert at_menu(g) and vp(g) == 1 and ids(g, "hand:P1") == [] and ap(g) == 1


# ---------------------------------------------------------------------------------------------- 13. hand limit
def test_hand_limit_with_dwelling_icons_at_the_end_of_own_turn():
    """Rulebook "1. Explore Terrain", caution, and "Dwelling": at the end of their own turn a player keeps
    5 cards plus their dwelling icons (Syrets: 1) and chooses which excess cards to discard to their
    terrains' discard piles."""
    g = game(tableaus={"P1": ["syrets"]}, hands={"P1": ["wood"] * 5 + ["clay", "clay"]})
    end_turn(g)
    assert prompt(g).startswith("Which cards do you discard down to your hand limit?")
    answer(g, "Clay")
    assert sorted_ids(g, "hand:P1") == ["clay"] + ["wood"] * 5
    assert ids(g, "plains_discard") == ["clay"]
    assert g.state["turn"]["player"] == "P2" and at_menu(g, "P2")


def test_over_the_limit_outside_own_turn_keeps_the_cards_until_own_turn_ends():
    """Rulebook "1. Explore Terrain", caution: a player may hold more than the limit outside their own
    turn, and discards down to 5 only at the end of their own turn."""
    g = game(hands={"P2": ["grass"] * 8})
    end_turn(g)
    assert g.state["turn"]["player"] == "P2"
    assert ids(g, "hand:P2") == ["grass"] * 8
    end_turn(g)
    assert ids(g, "hand:P2") == ["grass"] * 5
    assert ids(g, "plains_discard") == ["grass"] * 3
    assert g.state["turn"]["player"] == "P1"


# ---------------------------------------------------------------------------------------------- 14. developing
def test_developing_a_technology_costs_two_ap():
    """Rulebook "5. Developing a Technology": for 2 AP, take the top resource of any discard pile or a
    resource from a technology row."""
    g = new_game()
    put(g, "wood", "forest_discard")
    put(g, "stone", "forest_discard")
    put(g, "clay", "dwelling_row", slot=1)
    stack_deck(g, "dwelling_deck", ["hut"])
    g = ready(g)
    answer(g, "Developing a Technology")
    assert options(g) == ["Stone (Forest discard pile)", "Clay (Dwelling technology row (bottom))"]
    answer(g, "Stone")
    assert ids(g, "hand:P1") == ["stone"] and ids(g, "forest_discard") == ["wood"]
    assert ids(g, "dwelling_row")[0] == "clay"
    assert ap(g) == 0 and at_menu(g)
    assert "Developing a Technology" not in options(g)


def test_developing_a_technology_needs_two_ap():
    """Rulebook "5. Developing a Technology": with 1 AP left the action is not available."""
    g = new_game()
    put(g, "wood", "forest_discard")
    set_counter(g, "P1", "ap", 1)
    g = ready(g)
    assert "Developing a Technology" not in options(g)


# ---------------------------------------------------------------------------------------------- 15. settlement
def settlement_game(tableau=("axe", "campfire", "syrets"), p2=()):
    g = new_game()
    for card in tableau:
        put(g, card, "tableau:P1")
    for card in p2:
        put(g, card, "tableau:P2")
    for row in ("weapons_row", "daily_life_row", "dwelling_row"):  # the dealt settlements back to the box
        g.move(g.state["zones"][row][3], "box")
    put(g, "seasonal_camp", "weapons_row", slot=4)
    put(g, "hunters_camp", "daily_life_row", slot=4)
    stack_deck(g, "weapons_deck", ["spear", "bola"])
    return ready(g)


def test_founding_a_settlement_takes_the_whole_turn_and_gives_six_vp():
    """Rulebook "6. Founding a Settlement": with the required kinds of technologies (Seasonal Camp: 1
    Weapons, 1 Daily Life, 1 Dwelling) the settlement is laid out, the row's deck fills its 4th place,
    +6 VP, and the whole turn is spent."""
    g = settlement_game()
    answer(g, "Founding a Settlement")
    pick(g, "Seasonal Camp")  # Hunters' Camp needs 2 Weapons: not offered
    assert ids(g, "tableau:P1") == ["axe", "campfire", "syrets", "seasonal_camp"]
    assert ids(g, "weapons_row")[3] == "spear"
    assert ids(g, "weapons_deck")[-1] == "bola"
    assert vp(g) == 6
    assert g.state["turn"]["player"] == "P2" and at_menu(g, "P2")


def test_founding_needs_the_players_own_technologies_of_each_kind():
    """Rulebook "6. Founding a Settlement": all required technologies must be the player's own (Hunters'
    Camp needs 2 Weapons; P1 has 1; P2's Dwelling does not count for a settlement that needs one)."""
    g = settlement_game(tableau=("axe", "campfire"), p2=("syrets", "chopper"))
    assert "Founding a Settlement" not in options(g)
    assert vp(g) == 0 and ids(g, "tableau:P1") == ["axe", "campfire"]
    assert ids(g, "weapons_row")[3] == "seasonal_camp" and ids(g, "daily_life_row")[3] == "hunters_camp"
    g = settlement_game(tableau=("axe", "chopper", "campfire", "syrets"))
    answer(g, "Founding a Settlement")
    assert options(g) == [
        "Seasonal Camp (Weapons technology row (top))",
        "Hunters' Camp (Daily Life technology row (middle))",
    ]


def test_founding_is_not_offered_after_another_action():
    """Rulebook "6. Founding a Settlement": it takes the entire turn; no other action in that turn."""
    g = settlement_game()
    assert "Founding a Settlement" in options(g)
    explore(g)
    if not at_menu(g):
        answer(g, "no")
    assert "Founding a Settlement" not in options(g)


def test_a_settlement_only_once_per_game():
    """Rulebook "6. Founding a Settlement": each participant may found no more than one settlement."""
    g = settlement_game(tableau=("axe", "chopper", "campfire", "syrets"))
    answer(g, "Founding a Settlement")
    answer(g, "Seasonal Camp")
    end_turn(g)
    assert g.state["turn"]["player"] == "P1"
    assert ids(g, "daily_life_row")[3] == "hunters_camp"  # one P1 could found
    assert "Founding a Settlement" not in options(g)


# ------------------------------------------------------------------------------------- 16. additional exploration
def test_additional_exploration_one_card_per_dividing_line():
    """Rulebook "7. Additional Terrain Exploration": free, 1 card per dividing line (6, 12, 18, 24)
    between the player's marker (0) and a chosen opponent's (13): 2 cards; declining a hunt during it
    gives no AP; once per turn."""
    g = game(vp={"P2": 13}, decks={"forest": ["wood", "deer_bird", "wood"]})
    answer(g, "Additional Terrain Exploration")
    answer(g, "Forest deck")
    assert ids(g, "hand:P1") == ["wood"]
    answer(g, "Forest deck")
    assert prompt(g).startswith("Hunt this animal?")
    answer(g, "no")
    assert ids(g, "forest_discard") == ["deer_bird"]
    assert ids(g, "forest")[-1] == "wood"  # only 2 cards taken
    assert ap(g) == 2 and at_menu(g)  # free, and no AP for declining
    assert "Additional Terrain Exploration" not in options(g)


@pytest.mark.parametrize("mine, rival, cards", [(5, 6, 1), (6, 11, 0), (6, 12, 1), (0, 24, 4), (13, 5, 0)])
def test_additional_exploration_counts_lines_to_the_chosen_opponent(mine, rival, cards):
    """Rulebook "7. Additional Terrain Exploration": only lines between the player's marker and that of a
    chosen opponent above it count (a line n lies between spaces n-1 and n)."""
    g = game(vp={"P1": mine, "P2": rival}, decks={"forest": ["wood"] * 5})
    if cards == 0:  # no line to cross: not offered at all
        assert "Additional Terrain Exploration" not in options(g)
        return
    answer(g, "Additional Terrain Exploration")
    while not at_menu(g):
        answer(g, "Forest deck")
    assert ids(g, "hand:P1") == ["wood"] * cards
    assert "Additional Terrain Exploration" not in options(g)  # once per turn


def test_additional_exploration_against_one_of_several_opponents():
    """Rulebook "7. Additional Terrain Exploration": the player chooses the opponent (P2 at 11: no line
    from 6; P3 at 12: one line)."""
    g = game(players=3, vp={"P1": 6, "P2": 11, "P3": 12}, decks={"forest": ["wood", "wood"]})
    answer(g, "Additional Terrain Exploration")
    assert options(g) == ["Forest deck", "Mountains deck", "River deck", "Plains deck"]  # P3, the only choice
    answer(g, "Forest deck")
    assert ids(g, "hand:P1") == ["wood"] and at_menu(g)


def test_the_rulebooks_dividing_line_example():
    """Rulebook "7. Additional Terrain Exploration", its illustrated example: the "copper" player may take
    2 cards, the "green" and "yellow" players 1 card each, and the "red" player leads and cannot use the
    action. (The picture's marker positions are not in the text; copper 5, green 8, yellow 10, red 14
    reproduce its counts with the pack's lines at 6, 12, 18, 24.)"""
    copper, red, green, yellow = "P1", "P2", "P3", "P4"
    g = game(players=4, vp={copper: 5, red: 14, green: 8, yellow: 10}, decks={"forest": ["wood"] * 6})
    taken = {}
    for player in (copper, red, green, yellow):
        assert g.state["turn"]["player"] == player
        before = len(ids(g, f"hand:{player}"))
        if "Additional Terrain Exploration" in options(g):
            answer(g, "Additional Terrain Exploration")
            if prompt(g).startswith("Count the dividing lines"):  # asked only when several are above
                answer(g, red)  # count the lines up to the leader
            while not at_menu(g, player):
                answer(g, "Forest deck")
        taken[player] = len(ids(g, f"hand:{player}")) - before
        end_turn(g)
    assert taken == {copper: 2, red: 0, green: 1, yellow: 1}


# ---------------------------------------------------------------------------------------------- 17. end
def play_to_end(g):
    """End every turn until the game is over; the players whose turns were played, in order."""
    order = []
    while not g.over:
        assert at_menu(g, g.state["turn"]["player"])
        order.append(g.state["turn"]["player"])
        end_turn(g)
    return order


@pytest.mark.parametrize("players, goal", [(2, 30), (3, 24), (4, 22)])
def test_reaching_the_goal_ends_the_turn_then_last_turns(players, goal):
    """Rulebook "End of the Game and Scoring": at 30/24/22 VP (2/3/4 players) the player immediately ends
    their turn; the others each take one last turn in order, then that player, and the game ends."""
    g = game(players=players, vp={"P1": goal - 1}, hands={"P1": ["wood", "stone"]})
    answer(g, "Mastering a Technology")
    pick(g, "Axe")
    assert vp(g) == goal
    others = [f"P{i}" for i in range(2, players + 1)]
    order = play_to_end(g)
    assert order == others + ["P1"]
    result = g.state["result"]
    assert result["winners"] == ["P1"] and result["reason"] == "victory_point_goal"
    assert result["scores"]["P1"] == goal
    assert g.state["turn"]["number"] == players + 1


def test_one_vp_short_of_the_goal_the_game_goes_on():
    """Rulebook "End of the Game and Scoring": the game continues until a player reaches the set number."""
    g = game(vp={"P1": 28}, hands={"P1": ["wood", "stone"]})
    answer(g, "Mastering a Technology")
    pick(g, "Axe")
    assert vp(g) == 29 and at_menu(g) and g.state["ending"] is None


def test_the_trigger_player_takes_the_very_last_turn():
    """Rulebook "End of the Game and Scoring": with 3 players, P2 reaching 24 VP ends their turn; P3 and P1
    take their last turns, then P2, and the game ends."""
    g = game(players=3, vp={"P2": 23}, hands={"P2": ["wood", "stone"]})
    end_turn(g)
    answer(g, "Mastering a Technology")
    pick(g, "Axe")
    assert vp(g, "P2") == 24
    assert play_to_end(g) == ["P3", "P1", "P2"]
    assert g.state["result"]["winners"] == ["P2"]


def test_a_helper_reaching_the_goal_in_another_players_turn_plays_last():
    """Rulebook "End of the Game and Scoring", with the pack's assumption for a case the rulebook leaves open
    (content/cro-magnon/rules/end.yaml): P3 helps P1 hunt the wolf in a joint hunt and reaches 24 VP during
    P1's turn; P1's turn goes on and counts as P1's last, P2 plays a last turn, then P3, and the game ends."""
    g = game(
        players=3, vp={"P3": 23}, tableaus={"P1": ["axe"], "P3": ["chopper", "stone_knife"]}, decks={"forest": ["wolf"]}
    )
    explore(g)
    hunt(g, share="1", joining=("P3",))
    answer(g, "vp")  # the agreed share: the wolf's VP, for P3
    assert vp(g, "P3") == 24 and vp(g, "P1") == 0
    assert at_menu(g) and g.state["ending"]["by"] == "P3"
    assert play_to_end(g) == ["P1", "P2", "P3"]  # P1 finishes the turn in progress
    assert g.state["result"]["winners"] == ["P3"]


# ---------------------------------------------------------------------------------------------- 18. final scoring
def test_final_scoring_cards_in_hand_and_predator_figures():
    """Rulebook "Final Scoring": 1 VP per 2 resource cards left in hand; predator figures: Wolf 1, Cave
    Bear 2, Crocodile 3, Sabre-toothed Tiger 4."""
    g = new_game()
    set_counter(g, "P1", "vp", 29)
    for card in ("wood", "stone", "grass", "grass", "grass", "clay"):
        put(g, card, "hand:P1")
    put(g, "clay", "hand:P2", copies=3)
    put(g, "wolf", "trophies:P1")
    put(g, "crocodile", "trophies:P1")
    put(g, "cave_bear", "trophies:P2")
    put(g, "sabre_toothed_tiger", "trophies:P2")
    g = ready(g)
    answer(g, "Mastering a Technology")
    answer(g, "Axe")  # 30 VP, 4 cards left
    assert play_to_end(g) == ["P2", "P1"]
    scores = g.state["result"]["scores"]
    assert scores == {"P1": 30 + 2 + 1 + 3, "P2": 0 + 1 + 2 + 4}
    assert vp(g, "P1") == 36 and vp(g, "P2") == 7
    assert g.state["result"]["winners"] == ["P1"]
