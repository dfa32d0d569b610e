"""Paleo: A New Beginning, modules M-R and the six recommended scenarios (content/paleo-module-*/,
content/paleo-scenario-*/), rule by rule: each test plays the situation of one rule of
shared/rulebooks/paleo-a-new-beginning.txt ("Module X: ..." or the card list's entry, named in its docstring) and
checks what it says. The card texts are not public: the cards used are the packs' placeholders and the cards the
rulebook names, by id. Every scenario is saved and loaded before it is played on."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import invariants
import pytest
from paleo_table import (
    HELP,
    IGNORE,
    RESOLVE,
    SLEEP,
    explore,
    group_of,
    number_of,
    set_table,
    table,
    zone,
)
from scenario import answer, ids, options, prompt, put, saved_and_loaded, stack_deck

from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.session import game_log, play_randomly, replay

CONTENT = Path(__file__).resolve().parent.parent / "content"
MODULES = ["m", "n", "o", "p", "q", "r"]
SCENARIOS = {"i": ["m"], "ii": ["n"], "iii": ["o"], "iv": ["p"], "v": ["o", "q"], "vi": ["n", "q", "r"]}
CAMP = "use an action of a card at the camp"
STABLE = "stable: the yield of every animal"


@cache
def ruleset(pack: str):
    return rules_module.load(CONTENT / pack)


def p1_takes(game, card: str, stance=RESOLVE, deck_top=()):
    """P1 takes `card` and picks `stance`; P2 takes Berry bushes and ignores them. `deck_top`: the cards then put on
    top of P1's deck (the first on top), for costs paid from it."""
    explore(game, {"P1": card, "P2": "berry_bushes"})
    if deck_top:
        stack_deck(game, "deck:P1", list(deck_top))
    if "P1" in game.decision.players:  # else its only option (a danger's action) was taken at once
        answer(game, stance, "P1")
    answer(game, IGNORE, "P2")


def act(game, k, player=None):
    """Answer "which action" with action k (when it is the only one the group can do, it was taken at once)."""
    if prompt(game).startswith("Which action of"):
        answer(game, f"Action {k}:", player)


def night(game):
    """Both groups go to sleep early: the night follows."""
    explore(game, {"P1": SLEEP, "P2": SLEEP})


def new_game(pack: str, players=2, seed=0, p1=("person_20", "person_19"), p2=("person_17", "person_18")) -> Game:
    """A game of `pack` at its first exploration, with two groups of new humans bringing nothing (Builder and
    Elder: 2 strength, 2 perception, 3 skill; Herder and Farmer: 3 strength, 1 perception, 1 skill)."""
    game = Game.new(ruleset(pack), players, seed)
    group_of(game, "P1", p1)
    if players > 1:
        group_of(game, "P2", p2)
    return game


def module(letter, **kw):
    return new_game(f"paleo-module-{letter}", **kw)


def ready(game):
    return saved_and_loaded(game)


def log_text(game):
    return "\n".join(str(line) for line in game.view("P1")["log"])


def build(game, *tokens):
    """Put expansion tokens from below the farm board onto the farm (built)."""
    for token in tokens:
        put(game, token, "farm")


# ---------------------------------------------------------------- module M: A New Beginning
def test_settled_needs_five_buildings_and_gives_one_victory_token():
    """ "Module M", Settled: the card lies face up at the camp; its action counts every expansion built, the fence
    placed at setup too, and needs 5; only 1 of its 2 victory tokens is received because the card is removed."""
    game = module("m")
    assert ids(game, "camp") == ["settled"] and ids(game, "farm") == ["fence"]
    build(game, "fence", "fence", "scythe")  # 4 buildings with the setup fence
    game = ready(game)
    explore(game, {"P1": "fishing_spot", "P2": "berry_bushes"})
    assert CAMP not in options(game, "P1")
    game = module("m")
    build(game, "fence", "fence", "scythe", "millstone")  # 5 with the setup fence
    game = ready(game)
    p1_takes(game, "fishing_spot", stance=CAMP)
    assert table(game, "victory") == 1 and ids(game, "camp") == [] and "settled" in ids(game, "cemetery")
    assert "fishing_spot" in ids(game, "discard_up")  # the revealed card is discarded, as for help


def test_bull_stable_action_may_reveal_secret_23():
    """ "Module M Cards", Bull: with a captured bull, the stable action may reveal secret card 23 (Reeds, which needs
    the scythe and 2 discarded cards, then stays with the group)."""
    game = module("m")
    put(game, "bull", "stable")
    build(game, "scythe")
    game = ready(game)
    p1_takes(game, "at_home", deck_top=("shell_beach", "clay_pit"))
    act(game, 2)
    answer(game, STABLE)
    assert prompt(game).startswith("Bull: reveal secret card 23?")
    answer(game, "yes")
    assert ids(game, "kept:P1") == ["reeds"]


def test_bull_secret_23_may_be_kept_secret():
    """ "Module M Cards", Bull: revealing secret card 23 is a choice ("you may")."""
    game = module("m")
    put(game, "bull", "stable")
    game = ready(game)
    p1_takes(game, "at_home")
    act(game, 2)
    answer(game, STABLE)
    answer(game, "no")
    assert "reeds" in ids(game, "secrets") and ids(game, "kept:P1") == []


def test_clay_is_placed_with_the_group():
    """ "Module M Cards", Clay: the card is placed with your group; it has no other action."""
    game = ready(module("m"))
    p1_takes(game, "clay", deck_top=("shell_beach",))
    assert ids(game, "kept:P1") == ["clay"]


def test_escape_is_avoided_without_animals():
    """ "Module M Cards", Escape, and "Avoidable Dangers": with no animals on the farm nothing happens, and you may
    help or ignore the card."""
    game = ready(module("m"))
    explore(game, {"P1": "escape", "P2": "berry_bushes"})
    assert options(game, "P1") == [HELP, IGNORE]


def test_escape_third_option_discards_a_captured_animal_fenced_or_not():
    """ "Module M Cards", Escape: with animals it is a danger; its 3rd option places 1 captured animal on the face-up
    discard pile, whether it was fenced in or not (1 animal, the setup fence)."""
    game = module("m")
    put(game, "sheep", "stable")
    group_of(game, "P1", ["person_19"])  # the Elder alone: no strength for the 1st option
    game = ready(game)
    explore(game, {"P1": "escape", "P2": "berry_bushes"})
    assert "P1" not in game.decision.players  # a danger: its only option, an action, was taken at once
    answer(game, IGNORE, "P2")
    act(game, 3)
    assert ids(game, "stable") == [] and "sheep" in ids(game, "discard_up")


def test_isolation_needs_the_hut_and_removes_reeds_and_clay():
    """ "Module M", Isolation: to resolve this action you must have a completed hut (a hut with a roof), and you must
    remove the "Reeds" and "Clay" cards from your group (or a helping player's: `needs`/`needs_2` read the team)
    to the graveyard (the idea, used through a help option while it lies on the workbench)."""
    game = module("m")
    put(game, "idea_isolation", "workbench")
    put(game, "reeds", "kept:P1")
    put(game, "clay", "kept:P1")
    game = ready(game)
    explore(game, {"P1": "fishing_spot", "P2": "berry_bushes"})
    assert CAMP not in options(game, "P1")  # no roof on the hut
    game = module("m")
    put(game, "idea_isolation", "workbench")
    put(game, "reeds", "kept:P1")
    build(game, "hut_roof")
    game = ready(game)
    explore(game, {"P1": "fishing_spot", "P2": "berry_bushes"})
    assert CAMP not in options(game, "P1")  # no Clay in the team
    game = module("m")
    put(game, "idea_isolation", "workbench")
    put(game, "reeds", "kept:P1")
    put(game, "clay", "kept:P1")
    build(game, "hut_roof")
    game = ready(game)
    p1_takes(game, "fishing_spot", stance=CAMP)
    assert {"reeds", "clay", "idea_isolation"} <= set(ids(game, "cemetery")) and table(game, "victory") == 1
    assert ids(game, "kept:P1") == ids(game, "kept:P2") == []


def test_isolation_takes_reeds_and_clay_from_a_helping_group():
    """ "Module M", Isolation: "you must remove the "Reeds" and "Clay" cards from your group, or a helping player's
    group, in the graveyard". P1 holds the Reeds, P2 the Clay: P1 may use the idea because P2 may still help, and
    once P2 helps, both cards go to the graveyard; without P2's help the action cannot be resolved."""
    for helps in (True, False):
        game = module("m")
        put(game, "idea_isolation", "workbench")
        put(game, "reeds", "kept:P1")
        put(game, "clay", "kept:P2")
        build(game, "hut_roof")
        game = ready(game)
        explore(game, {"P1": "fishing_spot", "P2": "berry_bushes"})
        assert CAMP in options(game, "P1")
        answer(game, CAMP, "P1")
        answer(game, HELP if helps else IGNORE, "P2")
        game = ready(game)
        if helps:
            assert {"reeds", "clay", "idea_isolation"} <= set(ids(game, "cemetery")) and table(game, "victory") == 1
            assert ids(game, "kept:P1") == ids(game, "kept:P2") == []
        else:
            assert "can use the action of no card at the camp" in log_text(game)
            assert (ids(game, "kept:P1"), ids(game, "kept:P2")) == (["reeds"], ["clay"]) and table(game, "victory") == 0
            assert "idea_isolation" in ids(game, "workbench")


def test_mission_m_each_night():
    """ "Module M", Mission card M (its text a placeholder): resolved each night after feeding, the team pays 1 food,
    else 1 wood, else a human takes a wound."""
    game = module("m")
    set_table(game, "food", 6, "food_supply")
    game = ready(game)
    night(game)
    assert "Mission M: the settlers share 1 food" in log_text(game)
    game = module("m")
    set_table(game, "food", 4, "food_supply")
    set_table(game, "wood", 1, "wood_supply")
    game = ready(game)
    night(game)
    assert table(game, "wood") == 0 and table(game, "skulls") == 0
    game = module("m")
    set_table(game, "food", 4, "food_supply")
    game = ready(game)
    night(game)
    assert prompt(game).startswith("Mission M: which group takes 1 wound")


# ---------------------------------------------------------------- module N: Nocturnal
def night_deck_of(game, *cards):
    """Leave only these night cards in the night deck (the others to the box)."""
    for n in list(zone(game, "night_deck")):
        if game.rules.instances[n] not in cards:
            game.move(n, "box")


def test_night_cards_are_revealed_after_food_spoils_and_go_back():
    """ "Module N", Mission card: after each night phase 2 night cards are revealed and resolved one at a time in any
    order, then return face down to the night deck; their food comes after food spoils, so it does not spoil."""
    game = module("n")
    assert len(zone(game, "night_deck")) == 5 and ids(game, "missions") == ["mission_n"]
    night_deck_of(game, "night_hunt", "night_thieves")
    set_table(game, "wood", 2, "wood_supply")
    game = ready(game)
    night(game)
    assert prompt(game).startswith("The team chooses: which night card")
    answer(game, "A night hunt")
    assert table(game, "food") == 2 and table(game, "wood") == 1  # 4 fed from 5, 1 spoiled, then 2 from the hunt
    assert sorted(ids(game, "night_deck")) == ["night_hunt", "night_thieves"] and ids(game, "night_revealed") == []


def test_a_trap_on_the_mission_card_stops_a_night_card():
    """ "Module N", Traps, with the night cards: a trap on the mission card springs against the prowlers (in the order
    the team picks), and the thieves that come next find none."""
    game = module("n")
    night_deck_of(game, "night_prowlers", "night_thieves")
    put(game, "trap", "mission_traps")
    set_table(game, "wood", 2, "wood_supply")
    game = ready(game)
    night(game)
    answer(game, "Prowlers in the dark")
    assert ids(game, "mission_traps") == [] and table(game, "food") == 2 and table(game, "wood") == 1


def test_the_fireflies_reveal_secret_card_25():
    """ "Module N", Mission card, the night cards (placeholders): the fireflies reveal secret card 25 (Dark power),
    which is resolved at once (its wound)."""
    game = module("n")
    night_deck_of(game, "night_fireflies", "night_hunt")
    set_table(game, "wood", 2, "wood_supply")
    game = ready(game)
    night(game)
    answer(game, "Fireflies")
    assert ids(game, "secrets_told") == ["dark_power"] and prompt(game).startswith("1 wound(s) from one source")


def test_a_help_action_places_a_trap_on_the_mission_card():
    """ "Module N", Traps: you can always use a "help" action, discard 1 card and spend 1 wood to place a trap from
    the supply on the mission card (never with your group)."""
    game = module("n")
    set_table(game, "wood", 1, "wood_supply")
    game = ready(game)
    p1_takes(game, "fishing_spot", stance=CAMP, deck_top=("shell_beach",))
    assert ids(game, "mission_traps") == ["trap"] and table(game, "wood") == 0
    assert len(zone(game, "discard_down")) == 1 and ids(game, "tools:P1") == []
    assert ids(game, "missions") == ["mission_n"] and "fishing_spot" in ids(game, "discard_up")


def test_with_no_trap_left_in_the_supply_the_trap_action_is_not_offered():
    """ "Module N", Traps: the help action places "a trap from the supply": with none left there, the mission
    card's action is not offered (its card and wood are not paid for nothing)."""
    game = module("n")
    set_table(game, "wood", 1, "wood_supply")
    for n in [n for n in zone(game, "tool_supply") if game.rules.instances[n] == "trap"]:
        game.move(n, "box")
    game = ready(game)
    explore(game, {"P1": "fishing_spot", "P2": "berry_bushes"})
    assert CAMP not in options(game, "P1") and RESOLVE in options(game, "P1")


def test_a_trap_received_may_go_on_the_mission_card():
    """ "Module N", Traps: as soon as you receive a trap, you may place it with your group or on the mission card
    (the Trader: any tool)."""
    game = module("n")
    game = ready(game)
    p1_takes(game, "trader")
    act(game, 1)
    answer(game, "Trap")
    assert prompt(game).startswith("A trap: place it on mission card N")
    answer(game, "yes")
    assert ids(game, "mission_traps") == ["trap"] and ids(game, "tools:P1") == []


def test_ergot_is_avoided_without_grain():
    """ "Module N Cards", Ergot: an avoidable danger; with no grain on your camp nothing happens and you can choose
    to help or ignore it; with grain it is a danger."""
    game = ready(module("n"))
    explore(game, {"P1": "ergot", "P2": "berry_bushes"})
    assert options(game, "P1") == [HELP, IGNORE]
    game = module("n")
    set_table(game, "grain", 1, "grain_supply")
    game = ready(game)
    explore(game, {"P1": "ergot", "P2": "berry_bushes"})
    assert "P1" not in game.decision.players  # a danger: its only option, an action, was taken at once


def test_curse_actions_depend_on_the_artifact():
    """ "Module N Cards", Curse: one action can be chosen only if any player has the "Artifact", the other only if no
    player has it."""
    game = ready(module("n"))
    p1_takes(game, "curse")
    assert prompt(game).startswith("2 wound(s) from one source") and table(game, "skulls") == 0  # no Artifact: the 2nd
    game = module("n")
    put(game, "artifact", "kept:P2")
    game = ready(game)
    p1_takes(game, "curse")
    assert table(game, "skulls") == 1  # the Artifact in play: only the 1st action (1 skull)


# ---------------------------------------------------------------- module O: The Xrib Tribe
def angry(game):
    """Turn mission card O to its angry side."""
    put(game, "xrib_friendly", "xrib_other_side")
    put(game, "xrib_angry", "missions")


def test_friendly_only_actions():
    """ "Module O", Double-sided mission card, Friendly: an action with the friendly symbol can be chosen only if the
    Xrib tribe is friendly (Xrib hunters: 2 food and secret card 13 while friendly; while angry only the negative
    action is left)."""
    game = module("o")
    assert ids(game, "missions") == ["xrib_friendly"] and ids(game, "xrib_other_side") == ["xrib_angry"]
    game = ready(game)
    food = table(game, "food")
    p1_takes(game, "xrib_hunters")
    act(game, 1)
    assert table(game, "food") == food + 2 + 2 and "secret_13" in ids(game, "secrets_told")  # secret 13: 2 food
    game = module("o")
    angry(game)
    game = ready(game)
    p1_takes(game, "xrib_hunters")
    assert prompt(game).startswith("2 wound(s) from one source")  # only the 2nd action could be chosen


def test_mood_changes_turn_the_mission_card():
    """ "Module O", Mood changes: turn the mission card to the indicated side; if that side is already face up,
    there is no further effect (the hunters' negative action makes them angry; the gift-bearers friendly again)."""
    game = ready(module("o"))
    p1_takes(game, "xrib_hunters")
    act(game, 2)
    answer(game, "Builder")
    assert ids(game, "missions") == ["xrib_angry"] and ids(game, "xrib_other_side") == ["xrib_friendly"]
    game = module("o")
    angry(game)
    game = ready(game)
    p1_takes(game, "xrib_gift")
    act(game, 1)
    assert ids(game, "missions") == ["xrib_friendly"] and ids(game, "xrib_other_side") == ["xrib_angry"]
    game = ready(module("o"))
    p1_takes(game, "xrib_gift")
    act(game, 1)
    assert ids(game, "missions") == ["xrib_friendly"] and ids(game, "xrib_other_side") == ["xrib_angry"]


def test_the_angry_xrib_wound_at_night():
    """ "Module O", Double-sided mission card: while the angry side is face up, you might be in trouble with the Xrib
    (their night: 1 wound on a human of a group the team picks)."""
    game = module("o")
    angry(game)
    set_table(game, "food", 4, "food_supply")
    game = ready(game)
    night(game)
    assert prompt(game).startswith("The angry Xrib raid the camp")


def test_dodo_cards_are_recognised_by_name():
    """ "Module O", Dodo cards: every card with "Dodo" in its title is a Dodo card, whatever module it is from (the
    expansion's Tame Dodo is served at the Xrib feast: 3 food, and the Xrib become friendly)."""
    game = module("o")
    angry(game)
    put(game, "tame_dodo", "stable")
    put(game, "sheep", "stable")
    game = ready(game)
    food = table(game, "food")
    p1_takes(game, "xrib_feast")
    act(game, 1)
    assert ids(game, "stable") == ["sheep"] and "tame_dodo" in ids(game, "cemetery")
    assert table(game, "food") == food + 3 and ids(game, "missions") == ["xrib_friendly"]


def test_exchange_needs_the_friendly_xrib_and_four_ideas():
    """ "Module O Cards", Exchange: the top action only if the Xrib are friendly; 4 ideas of your choice go from the
    workbench to the graveyard (with fewer it cannot be chosen); secret token 3 on the farm."""
    game = ready(module("o"))
    assert len(zone(game, "workbench")) == 3
    p1_takes(game, "exchange", deck_top=("shell_beach",))
    assert "cocoa_token" not in ids(game, "farm")  # the 2nd action was taken at once: 3 ideas are too few
    game = module("o")
    put(game, "idea_tent", "workbench")
    put(game, "idea_trap", "workbench")
    game = ready(game)
    p1_takes(game, "exchange")
    act(game, 1)
    for idea in ("idea_torch", "idea_stone_axe", "idea_spear", "idea_tent"):
        answer(game, f"Idea: {idea[5:].replace('_', ' ')}")
    assert ids(game, "workbench") == ["idea_trap"] and "cocoa_token" in ids(game, "farm")
    game = module("o")
    angry(game)
    put(game, "idea_tent", "workbench")
    game = ready(game)
    p1_takes(game, "exchange", deck_top=("shell_beach",))
    assert "cocoa_token" not in ids(game, "farm") and len(zone(game, "workbench")) == 4


# ---------------------------------------------------------------- module P: The Black Rock
def test_obsidian_is_a_resource_received_and_spent():
    """ "Module P": the 5 obsidian tokens are an additional resource in the supply (not a tool token); receive
    obsidian places 1 on your camp, spend obsidian returns 1 to the supply (the obsidian vein)."""
    game = module("p")
    assert (table(game, "obsidian"), table(game, "obsidian_supply")) == (0, 5)
    game = ready(game)
    p1_takes(game, "obsidian_vein", deck_top=("shell_beach",))
    assert (table(game, "obsidian"), table(game, "obsidian_supply")) == (1, 4)  # no obsidian: only the 1st action
    game = module("p")
    set_table(game, "obsidian", 1, "obsidian_supply")
    game = ready(game)
    p1_takes(game, "obsidian_vein", deck_top=("shell_beach",))
    act(game, 2)
    assert (table(game, "obsidian"), table(game, "obsidian_supply")) == (0, 5)
    assert ids(game, "tools:P1") == ["obsidian_axe"]  # secret 27: the Obsidian Axe token with the group


def dream_cards(game):
    return {n for n, c in enumerate(game.rules.instances) if game.rules.cards[c].get("type") == "dream"}


def test_obsidian_is_not_a_tool_token():
    """ "Module P": obsidian is not a tool token: with obsidian on the camp and no tool in the group, the Trader's
    "spend any tool" action cannot be chosen (only its 1st action is left, taken at once)."""
    game = module("p")
    set_table(game, "obsidian", 2, "obsidian_supply")
    game = ready(game)
    p1_takes(game, "trader")
    assert prompt(game).startswith("Which tool does your group take")


def test_icy_wind_needs_only_to_possess_clothing():
    """ "Module P Cards", Icy Wind: you, or a player helping you, need only to possess the "Clothing" token; it is
    not spent to receive the dream card."""
    game = module("p")
    group_of(game, "P1", ["person_20", "person_19"], tools=["clothing"])
    game = ready(game)
    p1_takes(game, "icy_wind")
    act(game, 1)
    dreams_held = [n for n in zone(game, "deck:P1") + zone(game, "looking:P1") if n in dream_cards(game)]
    assert ids(game, "tools:P1") == ["clothing"] and len(dreams_held) == 1
    game = ready(module("p"))
    p1_takes(game, "icy_wind")
    assert prompt(game).startswith("2 wound(s) from one source")  # no clothing: only the negative action


def test_three_secret_tokens_in_the_group_or_a_helpers():
    """ "Module P Cards", the untitled card: all 3 secret tokens shown must be in your group, or the token of a
    helping player (the Obsidian Spear with the helping group)."""
    game = module("p")
    group_of(game, "P1", ["person_20", "person_19"], tools=["obsidian_axe", "obsidian_jewelry"])
    group_of(game, "P2", ["person_17", "person_18"], tools=["obsidian_spear"])
    game = ready(game)
    explore(game, {"P1": "three_tokens", "P2": "berry_bushes"})
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")
    act(game, 1)
    assert table(game, "victory") == 1 and "three_tokens" in ids(game, "cemetery")
    game = module("p")
    group_of(game, "P1", ["person_20", "person_19"], tools=["obsidian_axe", "obsidian_jewelry"])
    group_of(game, "P2", ["person_17", "person_18"], tools=["obsidian_spear"])
    game = ready(game)
    p1_takes(game, "three_tokens", deck_top=("shell_beach",))
    assert table(game, "victory") == 0 and table(game, "food") == 5 + 1  # alone: only the 2nd action


def test_mission_p_trades_three_obsidian_for_a_victory_token():
    """ "Module P", mission card P (its text a placeholder): at night the team may spend 3 obsidian for a victory
    token; otherwise the cold of the black rock wounds."""
    game = module("p")
    set_table(game, "obsidian", 3, "obsidian_supply")
    game = ready(game)
    night(game)
    answer(game, "yes")
    assert table(game, "victory") == 1 and (table(game, "obsidian"), table(game, "obsidian_supply")) == (0, 5)
    game = ready(module("p"))
    night(game)
    assert prompt(game).startswith("The black rock's cold")


def test_the_obsidian_hatchet_idea_is_crafted_from_obsidian():
    """ "Module P": the "Obsidian Hatchet" idea card ("Obsidian is suitable for creating high-quality tools"); on the
    workbench it is crafted like any idea (the Quarry: craft an idea), its cost (a placeholder: 1 obsidian) paid
    from the camp back to the supply, its tool going to the group. Without obsidian it cannot be crafted."""
    game = module("p")
    put(game, "idea_obsidian_hatchet", "workbench")
    set_table(game, "wood", 1, "wood_supply")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    p1_takes(game, "quarry")
    act(game, 2)
    answer(game, "yes")
    assert prompt(game) == "Which tool do you craft?" and "Obsidian hatchet" not in " ".join(options(game, "P1"))
    game = module("p")
    put(game, "idea_obsidian_hatchet", "workbench")
    set_table(game, "obsidian", 1, "obsidian_supply")
    game = ready(game)
    p1_takes(game, "quarry")
    act(game, 2)
    answer(game, "yes")  # the hatchet is the only tool the camp can pay for: taken at once
    assert ids(game, "tools:P1") == ["obsidian_hatchet"]
    assert (table(game, "obsidian"), table(game, "obsidian_supply")) == (0, 5)


def test_forgotten_cave_places_secret_token_5_with_the_group():
    """ "Forgotten Cave": you must place secret token 5 face up with your group (the Obsidian Jewelry)."""
    game = ready(module("p"))
    p1_takes(game, "forgotten_cave", deck_top=("shell_beach",))
    act(game, 1)
    assert ids(game, "tools:P1") == ["obsidian_jewelry"] and ids(game, "farm") == ["fence"]


# ---------------------------------------------------------------- module Q: Dream Journey
Q_DREAMS = [
    "spirit_of_the_wolf",
    "spirit_of_the_river",
    "spirit_of_the_bear",
    "spirit_of_the_ancestors",
    "dream_of_the_elders",
    "dream_of_the_totem",
    "dream_of_plenty",
    "dream_of_healing",
    "dream_of_the_stars",
]


def test_setup_returns_nine_old_dreams_and_shuffles_in_the_nine_new():
    """ "Module Q", additional setup: the 21 dream cards are shuffled, 9 of them returned to the box, and the 9 dream
    cards of the module shuffled with the 12 remaining ones."""
    for seed in range(3):
        game = module("q", seed=seed)
        boxed = [c for c in ids(game, "box") if game.rules.cards[c].get("type") == "dream"]
        in_play = [game.rules.instances[n] for n in dream_cards(game) if game.state["loc"][n] != "box"]
        assert len(boxed) == 9 and not set(boxed) & set(Q_DREAMS)  # a human's dream may already be on a deck
        assert len(in_play) == 21 and set(Q_DREAMS) <= set(in_play) and ids(game, "dream_journey") == []


def test_deep_sleep_takes_the_next_marked_dream():
    """ "Module Q Cards", Deep Sleep: instead of the top card, the next marked dream card from the dream deck goes on
    top of your deck; drawing a dream otherwise takes the top card, marked or not."""
    game = module("q")
    stack_deck(game, "dreams", ["dream_feast", "spirit_of_the_bear"])
    game = ready(game)
    p1_takes(game, "deep_sleep")
    act(game, 1)
    held = ids(game, "deck:P1") + ids(game, "looking:P1")
    assert "spirit_of_the_bear" in held and "dream_feast" not in held and ids(game, "dreams")[-1] == "dream_feast"


def test_deep_sleep_without_marked_dreams_takes_the_top_one():
    """ "Module Q Cards", Deep Sleep: if there are no marked cards remaining in the deck, you place the top card."""
    game = module("q")
    for spirit in Q_DREAMS[:4]:
        put(game, spirit, "box")
    stack_deck(game, "dreams", ["dream_feast"])
    game = ready(game)
    p1_takes(game, "deep_sleep")
    act(game, 1)
    assert "dream_feast" in ids(game, "deck:P1") + ids(game, "looking:P1")


def test_licking_the_toad_puts_a_dream_on_top_of_your_deck():
    """ "Module Q Cards", Toad: when resolving the stable action, the toad's yield places a dream card on top of your
    deck."""
    game = module("q")
    put(game, "toad", "stable")
    stack_deck(game, "dreams", ["dream_feast"])
    game = ready(game)
    p1_takes(game, "at_home")
    act(game, 2)
    answer(game, STABLE)
    assert "dream_feast" in ids(game, "deck:P1") + ids(game, "looking:P1")


def test_a_spirit_removed_is_placed_next_to_the_graveyard():
    """ "Module Q", Mission card: Spirit cards (by name) that are removed are placed next to the graveyard to track
    how many have been removed."""
    game = ready(module("q"))
    p1_takes(game, "spirit_of_the_wolf", deck_top=("shell_beach",))
    act(game, 1)
    assert ids(game, "removed_spirits") == ["spirit_of_the_wolf"]


def test_three_spirits_removed_remove_the_mission_and_heal_three():
    """ "Module Q", Mission card: after 3 spirits are removed, the mission card is removed and 3 damage is healed
    collectively among all players."""
    game = module("q")
    for spirit in Q_DREAMS[:3]:
        put(game, spirit, "removed_spirits")
    game.set_card_counter(number_of(game, "person_20"), "wounds", 2)
    game.set_card_counter(number_of(game, "person_17"), "wounds", 2)
    game = ready(game)
    night(game)
    for human in ("Builder", "Herder", "Builder"):
        assert prompt(game).startswith("Heal 1 damage")
        answer(game, human)
    assert "mission_q" in ids(game, "cemetery") and ids(game, "missions") == []
    assert game.card_counter(number_of(game, "person_20"), "wounds") == 0
    assert game.card_counter(number_of(game, "person_17"), "wounds") == 1


def test_before_three_spirits_the_mission_stays():
    """ "Module Q", Mission card: with fewer than 3 spirits removed the mission card stays (and the spirits haunt the
    camp)."""
    game = module("q")
    for spirit in Q_DREAMS[:2]:
        put(game, spirit, "removed_spirits")
    game = ready(game)
    night(game)
    assert prompt(game).startswith("The angry spirits") and ids(game, "missions_done") == ["mission_q"]


def _no_food_no_wood(game):
    set_table(game, "food", 4, "food_supply")  # 4 humans eat it all: mission M finds neither food nor wood


def _angry_xrib(game):
    angry(game)
    set_table(game, "food", 4, "food_supply")


def _prowlers_first(game):
    night_deck_of(game, "night_prowlers", "night_restless")
    set_table(game, "wood", 2, "wood_supply")


@pytest.mark.parametrize(
    "letter, prepare, card_first, wounded",
    [
        ("m", _no_food_no_wood, None, 1),
        ("n", _prowlers_first, "Prowlers in the dark", 1),
        ("o", _angry_xrib, None, 1),
        ("p", lambda game: None, None, 1),
        ("q", lambda game: None, None, 1),
    ],
)
def test_a_missions_wounds_all_go_on_one_human_of_the_group_the_team_picks(letter, prepare, card_first, wounded):
    """ "Module M", "Module N" (the night cards), "Module O" (the angry Xrib), "Module P", "Module Q" (the angry
    spirits), with Reference, "Damage": the team picks the group, and the wounds of that one source all go on one of
    its humans, however many the mission card deals."""
    game = module(letter)
    prepare(game)
    game = ready(game)
    night(game)
    if card_first:
        answer(game, card_first)
    assert f"which group takes {wounded} wound" in prompt(game) or prompt(game).startswith(f"{wounded} wound(s) in")
    answer(game, "P2")
    assert prompt(game).startswith(f"{wounded} wound(s) from one source: which human")
    answer(game, "Herder")
    assert game.card_counter(number_of(game, "person_17"), "wounds") == wounded
    assert game.card_counter(number_of(game, "person_18"), "wounds") == 0


# ---------------------------------------------------------------- module R: Wrath of the Fire God (in scenario VI)
def scenario(key, **kw):
    return new_game(f"paleo-scenario-{key}", **kw)


VOLCANO = [
    "volcano_lava_flow",
    "volcano_ash_cloud",
    "volcano_falling_rocks",
    "volcano_tremor",
    "volcano_fire_rain",
    "volcano_boiling_river",
    "volcano_eruption",
    "volcano_smoke",
]


def test_volcano_and_rescue_setup():
    """ "Module R", additional setup: of the 8 shuffled volcano cards, 6 are a face-down deck at the camp and 2 are
    shuffled in with the base cards (dealt); the 20 base-game humans are a face-down deck at the camp; both mission
    cards are on the night board."""
    game = scenario("vi")
    dealt = [c for p in ("P1", "P2") for c in ids(game, f"deck:{p}") + ids(game, f"looking:{p}") if c in VOLCANO]
    assert len(zone(game, "volcano_deck")) == 6 and len(dealt) == 2
    assert len(zone(game, "rescue_camp")) == 20
    assert {"wrath_of_the_fire_god", "rescue"} <= set(ids(game, "missions"))


def test_no_victory_tokens_a_skull_is_removed_instead():
    """ "Module R", Mission card 1, Victory tokens: whenever you would receive a victory token, you remove 1 skull
    token from the night board instead (the cave painting)."""
    game = scenario("vi")
    set_table(game, "skulls", 2)
    set_table(game, "wood", 1, "wood_supply")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    p1_takes(game, "cave_painting")
    assert table(game, "victory") == 0 and table(game, "skulls") == 1


def test_you_cannot_go_to_sleep_early():
    """ "Module R", Mission card 1: you cannot go to sleep early (the exploration offers only the top cards)."""
    game = ready(scenario("vi"))
    assert SLEEP not in options(game, "P1")
    game = ready(module("n"))
    assert SLEEP in options(game, "P1")


def to_the_night(game):
    """Play the day out (module R forbids sleeping early): every group takes its first card and ignores it (a danger:
    its first option), every other question gets its first answer, until the night is over and a new day begins."""
    day = game.state["turn"]["round"]
    for _ in range(400):
        if game.over or game.state["turn"]["round"] != day:
            return
        player = game.decision.players[0]
        if IGNORE in options(game, player):
            answer(game, IGNORE, player)
        else:
            game.apply(game.legal(player)[0], player)
    raise AssertionError("the night did not come")


def test_a_volcano_card_joins_the_face_down_discard_pile_each_night():
    """ "Module R", The volcano: after each night phase, before dealing, 1 volcano card from the deck at the camp goes
    onto the face-down discard pile (and is dealt with it)."""
    game = scenario("vi")
    game = ready(game)
    to_the_night(game)
    assert len(zone(game, "volcano_deck")) == 5
    dealt = [c for p in ("P1", "P2") for c in ids(game, f"deck:{p}") + ids(game, f"looking:{p}") if c in VOLCANO]
    assert len(dealt) == 3


def test_rescue_three_humans_each_night():
    """ "Module R", Mission card 2, Rescue: during each night phase, after feeding, 3 humans are rescued from the
    camp automatically (returned to the box)."""
    game = ready(scenario("vi"))
    to_the_night(game)
    rescued = sum(c.startswith("rescue_human_") for c in ids(game, "box"))
    assert "Rescue: 3 human(s) rescued from the camp" in log_text(game)
    assert rescued >= 3 and len(zone(game, "rescue_camp")) == 20 - rescued  # (the day's cards may rescue too)


def test_rescuing_the_last_humans_wins_at_once():
    """ "Module R": if you rescue a total of 20 humans, you immediately win the game (the Rescue mission rescues the
    last 3; the late missions and the deal do not follow)."""
    game = scenario("vi")
    for n in list(zone(game, "rescue_camp"))[3:]:
        game.move(n, "box")
    game = ready(game)
    to_the_night(game)
    assert game.over and game.state["result"]["winners"] == ["P1", "P2"]
    assert game.state["result"]["reason"] == "all_humans_rescued" and len(zone(game, "volcano_deck")) == 6


def test_the_rescue_symbol():
    """ "Module R", Special symbols, Rescue humans: return 1 human from the camp to the box for each symbol (the
    escape route rescues 2)."""
    game = ready(scenario("vi"))
    p1_takes(game, "escape_route", deck_top=("shell_beach",))
    act(game, 1)
    assert len(zone(game, "rescue_camp")) == 18


def test_discarding_a_volcano_card_gives_a_skull():
    """ "Module R", Special symbols, Discard volcano cards: for each volcano card you discard face down to complete
    an action, you receive 1 skull token (its red back also wounds, as a danger's)."""
    game = ready(scenario("vi"))
    p1_takes(game, "escape_route", deck_top=("volcano_smoke",))
    act(game, 1)
    answer(game, "Builder")
    assert table(game, "skulls") == 1 and "volcano_smoke" in ids(game, "discard_down")
    assert game.card_counter(number_of(game, "person_20"), "wounds") == 1


def test_the_sacrificial_altar_idea_places_secret_token_7_on_the_farm():
    """ "Module R", the "Sacrificial Altar" idea card, and "Secret Tokens", Sacrificial Altar (on the farm board):
    the idea's action (a placeholder cost, used through a help option from the workbench) places token 7."""
    game = scenario("vi")
    put(game, "idea_sacrificial_altar", "workbench")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    p1_takes(game, "fishing_spot", stance=CAMP)
    assert "sacrificial_altar_token" in ids(game, "farm") and "idea_sacrificial_altar" in ids(game, "cemetery")
    assert table(game, "stone") == 0


def test_module_r_alone_is_flagged():
    """ "Scenario Overview", Combining Modules: module R must be combined with 2 other modules. Played with the
    expansion alone (no other mission card on the night board) the game is flagged at its start: the table flag
    `module_r_alone` and a warning in the log (it is played all the same); with N and Q (scenario VI) it is not."""
    game = Game.new(ruleset("paleo-module-r"), 2, 0)
    assert game.state["flags"]["table"].get("module_r_alone")
    assert "Warning: module R must be combined with 2 other modules; this game has 0" in log_text(game)
    game = scenario("vi")
    assert not game.state["flags"]["table"].get("module_r_alone") and "Warning: module R" not in log_text(game)


# ---------------------------------------------------------------- the packs and the recommended scenarios
def test_scenario_packs_extend_the_modules_of_their_row():
    """ "Scenario Overview", Recommended Scenarios: I = C + M, II = H + N, III = G + O, IV = I + P, V = O + Q, VI = N + Q
    + R, as printed; C, G, H and I are not modules of this expansion (the source notes it): a scenario extends the
    modules of its row that exist, keeps the printed letters in its description, and says so as an assumption."""
    printed = {"i": "CM", "ii": "HN", "iii": "GO", "iv": "IP", "v": "OQ", "vi": "NQR"}
    for key, letters in printed.items():
        manifest = ruleset(f"paleo-scenario-{key}").manifest
        assert manifest["extends"] == [f"paleo_module_{m}" for m in SCENARIOS[key]]
        assert " + ".join(f"Module {x}" for x in letters) in manifest["description"]
        odd = [x for x in letters if x.lower() not in MODULES]
        assert (manifest.get("provenance") == "assumption") == bool(odd)
    for letter in MODULES:
        assert ruleset(f"paleo-module-{letter}").manifest["extends"] == ["paleo_a_new_beginning"]


def test_each_module_brings_its_printed_card_count():
    """ "Modules": M 12 cards, N 18, O 18, P 17, Q 20, R 15 — the cards each module adds, named or placeholders;
    secret cards are apart ("Card Setup": 8 new secret cards besides the 100 module cards), and so are tokens, the
    base game's humans (R) and the base game's clothing idea (P); mission card O's two sides are one card."""
    printed = {"m": 12, "n": 18, "o": 18, "p": 17, "q": 20, "r": 15}
    expansion = rules_module.load(CONTENT / "paleo-a-new-beginning").cards
    for letter, count in printed.items():
        cards = ruleset(f"paleo-module-{letter}").cards
        added = [
            c
            for c, card in cards.items()
            if c not in expansion
            and card.get("type") not in ("secret", "tool", "rescued_human")
            and c not in ("idea_clothing", "xrib_angry")
        ]
        assert len(added) == count, (letter, len(added))


def test_scenario_vi_keeps_every_modules_change():
    """ "Scenario Overview", Combining Modules: modules combine freely; scenario VI (N + Q + R) keeps what each of
    them changed in the expansion: N's traps received (`receive_tool`), R's rules (no early sleep), Q's dream deck."""
    game = scenario("vi")
    assert ids(game, "dream_journey") == [] and not set(Q_DREAMS) & set(ids(game, "box"))
    assert SLEEP not in options(game, "P1")
    game = ready(game)
    p1_takes(game, "trader")
    act(game, 1)
    answer(game, "Trap")
    assert prompt(game).startswith("A trap: place it on mission card N")


def test_every_module_and_scenario_pack_lints_clean(lint_json):
    """Every module pack and every scenario pack lints clean (`knap lint`)."""
    paths = [CONTENT / f"paleo-module-{m}" for m in MODULES] + [CONTENT / f"paleo-scenario-{s}" for s in SCENARIOS]
    code, found = lint_json(*paths)
    assert found == [] and code == 0


@pytest.mark.parametrize("key", list(SCENARIOS))
def test_random_games_of_each_scenario_end_with_the_invariants_kept(key):
    """Seeded random games of each recommended scenario at 1-4 players (the base game's counts) end without error,
    the invariants checked after every decision (every card in one place, resources never negative, ...)."""
    for players in (1, 2, 3, 4):
        game = Game.new(ruleset(f"paleo-scenario-{key}"), players, players, max_rounds=4)
        watch = invariants.Watch(game)
        play_randomly(game, random.Random(players), after=watch)
        assert game.over


EXPANSION_AND_SCENARIOS = ["paleo-a-new-beginning"] + [f"paleo-scenario-{key}" for key in SCENARIOS]


@pytest.mark.parametrize("pack", EXPANSION_AND_SCENARIOS)
def test_save_load_and_continue_gives_the_same_game(pack):
    """A game of the expansion or of a scenario saved halfway and loaded goes on exactly as the game that was not
    saved (3 players)."""
    game = Game.new(ruleset(pack), 3, 7, max_rounds=6)
    rnd = random.Random(7)
    play_randomly(game, rnd, limit=40)
    copy = Game.load(game.rules, game.save())
    assert copy.state_hash() == game.state_hash()
    state = rnd.getstate()
    play_randomly(game, rnd)
    rnd.setstate(state)
    play_randomly(copy, rnd)
    assert copy.state_hash() == game.state_hash() and copy.over and game.state["result"] == copy.state["result"]


@pytest.mark.parametrize("pack", EXPANSION_AND_SCENARIOS)
def test_a_game_log_replays_exactly(pack):
    """A random game of the expansion or of a scenario replays from its log to the same final state."""
    rules = ruleset(pack)
    game = Game.new(rules, 2, 3, max_rounds=5)
    play_randomly(game, random.Random(3))
    assert replay(rules, game_log(game)).state_hash() == game.state_hash()


@pytest.mark.parametrize("pack", EXPANSION_AND_SCENARIOS)
def test_no_player_sees_a_chosen_card_before_the_reveal_nor_a_deck_order(pack):
    """Base rules ("Day": the chosen cards are revealed together; "Choosing a card": the backs of a deck may be
    seen, never its fronts nor its order), in the expansion and every scenario at 3 players: P1's pick changes
    nothing in the others' views until all have chosen, nobody sees the front of the card taken, and no view
    shows a card of any deck."""
    game = Game.new(ruleset(pack), 3, 5)
    while not prompt(game).startswith("Take one of the top cards"):  # a question of the setup (a trap's place)
        game.apply(game.legal(game.decision.players[0])[0], game.decision.players[0])
    game = ready(game)
    others = {seat: game.view(seat) for seat in ("P2", "P3")}
    first = next(o for o in options(game, "P1") if o != SLEEP)
    taken = game.state["pending"]["options"][game.legal("P1")[options(game, "P1").index(first)]]
    answer(game, first, "P1")
    assert game.decision is not None and game.decision.players == ["P2", "P3"]  # not revealed yet
    assert {seat: game.view(seat) for seat in ("P2", "P3")} == others
    for seat in ("P1", "P2", "P3"):
        view = game.view(seat)
        assert not game.can_see(taken, seat)
        for deck in ("deck:P1", "deck:P2", "deck:P3", "looking:P1"):
            assert "cards" not in view["zones"][deck]
            assert all(not game.can_see(n, seat) for n in zone(game, deck))
