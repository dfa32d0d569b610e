"""Paleo: A New Beginning without its modules (content/paleo-a-new-beginning), rule by rule: each test plays the
situation of one point of shared/rulebooks/paleo-a-new-beginning.txt (its section named in the docstring) and checks
what the rules say; the rulebook's worked examples are tests. The card texts are not public: the cards used here are
the pack's placeholders and the cards the rulebook names, by id. Every scenario is saved and loaded before it is
played on."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import invariants
from paleo_table import (
    HELP,
    IGNORE,
    RESOLVE,
    SLEEP,
    explore,
    group_of,
    number_of,
    roll,
    set_table,
    table,
    wounds,
    zone,
)
from scenario import answer, ids, options, prompt, put, saved_and_loaded, stack_deck

from engine.runtime import rules as rules_module
from engine.runtime.game import CHANCE, Game
from engine.runtime.log_words import worded_log
from engine.runtime.session import play_randomly

PACK = Path(__file__).resolve().parent.parent / "content" / "paleo-a-new-beginning"
STABLE, SLAUGHTER = "stable: the yield of every animal", "slaughter an animal"
HARVEST, GRIND = "harvest grain", "grind grain"


@cache
def ruleset():
    return rules_module.load(PACK)


SAFE = ["fishing_spot", "clay_pit", "shell_beach"]


def p1_resolves(game, card: str, deck_top=()):
    """P1 takes `card` and resolves an action of it; P2 takes Berry bushes and ignores them. `deck_top`: the cards
    then put on top of P1's deck (the first on top), for costs paid from it."""
    explore(game, {"P1": card, "P2": "berry_bushes"})
    if deck_top:
        stack_deck(game, "deck:P1", list(deck_top))
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")


def wound(game, human, count):
    game.set_card_counter(number_of(game, human), "wounds", count)


def hunt_food(card_id):
    """The food of an animal card's hunt action (its printed values are placeholders)."""
    stats = ruleset().cards[card_id]["stats"]
    return stats["abc"[stats["hunt"] - 1] + "_food"]


def where(game, card_id):
    return {game.state["loc"][n] for n, c in enumerate(game.rules.instances) if c == card_id}


def two_player_game(p1=("person_20", "person_19"), p2=("person_17", "person_18")):
    """Two groups of new humans without tools, nothing brought (Builder and Elder; Herder and Farmer)."""
    game = Game.new(ruleset(), 2, 0)
    group_of(game, "P1", p1)
    group_of(game, "P2", p2)
    return game


def animal_action(game, which):
    """P1 takes At Home (whose second action is the farm's) and answers `which` animal action."""
    p1_resolves(game, "at_home")
    act(game, 2)
    answer(game, which)


def ready(game):
    return saved_and_loaded(game)


def in_stable(game, *animals):
    for animal in animals:
        put(game, animal, "stable")


def log_text(game):
    """The whole log, as its lines read."""
    return "\n".join(line[0] if isinstance(line, list) else str(line) for line in worded_log(game))


def act(game, k, player=None):
    """Answer "which action" with action k; when it is the only action the group can resolve, it was taken at once
    (the checks that follow show it was action k)."""
    if prompt(game).startswith("Which action of"):
        answer(game, f"Action {k}:", player)


def forced(game, player):
    """Whether the player's option was taken at once (the only one it had): it is not among those still asked."""
    return player not in game.decision.players


def night(game):
    """Both groups go to sleep early: the night follows."""
    explore(game, {"P1": SLEEP, "P2": SLEEP})


# ---------------------------------------------------------------- the farm: animals
def test_stable_action_gives_every_animals_yield():
    """ "Animal Actions", its example: the stable action gives 1 pelt from the Sheep and 1 food from the Tame Dodo;
    the revealed card (At Home) is discarded as normal."""
    game = two_player_game()
    in_stable(game, "sheep", "tame_dodo")
    game = ready(game)
    food, pelts = table(game, "food"), table(game, "pelts")
    animal_action(game, STABLE)
    assert (table(game, "food"), table(game, "pelts")) == (food + 1, pelts + 1)
    assert ids(game, "stable") == ["sheep", "tame_dodo"] and "at_home" in ids(game, "discard_up")


def test_stable_yield_counts_animals_without_a_fence():
    """ "Animal Actions": the yield comes from every animal, whether or not it has a fence (3 animals, 1 fence)."""
    game = two_player_game()
    in_stable(game, "sheep", "wild_goat", "wild_duck")
    game = ready(game)
    food, pelts = table(game, "food"), table(game, "pelts")
    animal_action(game, STABLE)
    assert (table(game, "food"), table(game, "pelts")) == (food + 2, pelts + 2)


def test_slaughtering_the_tame_dodo():
    """ "Animal Actions", its example: slaughter the Tame Dodo: its hunt reward without requirements or costs, then
    the Tame Dodo goes to the graveyard."""
    game = two_player_game(p1=("person_19", "person_15"))  # no strength at all: the hunt's 1 strength is not needed
    in_stable(game, "sheep", "tame_dodo")
    game = ready(game)
    food = table(game, "food")
    animal_action(game, SLAUGHTER)
    answer(game, "Tame Dodo")
    assert table(game, "food") == food + hunt_food("tame_dodo")
    assert ids(game, "stable") == ["sheep"] and "tame_dodo" in ids(game, "cemetery")


def test_a_pig_gives_no_yield_but_can_be_slaughtered():
    """ "Pig": a captured pig gives no yield in a stable action, but may be slaughtered as normal."""
    game = two_player_game()
    in_stable(game, "pig", "sheep")
    game = ready(game)
    food, pelts = table(game, "food"), table(game, "pelts")
    animal_action(game, STABLE)
    assert (table(game, "food"), table(game, "pelts")) == (food, pelts + 1)
    p1_resolves(game, "building_site")  # nothing to build: its animal action is the only one, taken at once
    answer(game, SLAUGHTER)
    answer(game, "Pig")
    assert table(game, "food") == food + hunt_food("pig") and "pig" in ids(game, "cemetery")


def test_no_animals_no_animal_action():
    """ "New Farm Symbols", Animal action: with no animal in the stable the animal action cannot be used (At Home
    offers only its grain action)."""
    game = two_player_game()
    set_table(game, "grain", 1, "grain_supply")
    game = ready(game)
    p1_resolves(game, "at_home")
    assert prompt(game).startswith("Which grain action?")  # the only action left is taken at once


def test_capturing_an_animal_and_a_full_stable():
    """ "New Farm Symbols", Capture an animal: the card goes into the stable; with 3 animals there one of them is
    discarded to the face-up discard pile first."""
    game = ready(two_player_game())
    p1_resolves(game, "sheep")
    act(game, 2)
    assert ids(game, "stable") == ["sheep"]
    game = two_player_game()
    in_stable(game, "pig", "wild_goat", "wild_duck")
    game = ready(game)
    p1_resolves(game, "sheep")
    act(game, 2)
    assert prompt(game).startswith("The stable is full")
    answer(game, "Pig")
    assert sorted(ids(game, "stable")) == ["sheep", "wild_duck", "wild_goat"] and "pig" in ids(game, "discard_up")


def test_removing_a_captured_animal():
    """ "New Farm Symbols", Remove a captured animal: 1 captured animal goes to the graveyard (the Fox at the stable's
    negative action, which a group that cannot drive it off must resolve)."""
    game = two_player_game(p1=("person_20", "person_8"))  # no perception
    in_stable(game, "sheep", "tame_dodo")
    game = ready(game)
    explore(game, {"P1": "fox_at_the_stable", "P2": "berry_bushes"})
    assert forced(game, "P1")  # a danger: only "resolve an action"
    answer(game, IGNORE, "P2")
    act(game, 2)
    answer(game, "Sheep")
    assert ids(game, "stable") == ["tame_dodo"] and "sheep" in ids(game, "cemetery")


def test_discarding_a_captured_animal():
    """ "New Farm Symbols", Discard a captured animal: 1 captured animal to the face-up discard pile (the Fox's third
    option, fenced or not: the Sheep stands in the fenced space)."""
    game = two_player_game(p1=("person_20", "person_8"))  # no perception
    in_stable(game, "sheep")
    game = ready(game)
    explore(game, {"P1": "fox_at_the_stable", "P2": "berry_bushes"})
    answer(game, IGNORE, "P2")
    act(game, 3)
    assert ids(game, "stable") == [] and "sheep" in ids(game, "discard_up")


def test_a_danger_about_animals_is_avoided_without_animals():
    """ "Avoidable Dangers": the Fox at the stable asks about animals: with none on the farm, help or ignore."""
    game = ready(two_player_game())
    explore(game, {"P1": "fox_at_the_stable", "P2": "berry_bushes"})
    assert options(game, "P1") == [HELP, IGNORE]


# ---------------------------------------------------------------- the farm: grain
def test_harvesting_with_the_scythe():
    """ "Grain Actions", its example: with the scythe built, harvesting discards the top 2 cards of the deck and gives
    2 grain; the revealed card is discarded as normal."""
    game = two_player_game()
    put(game, "scythe", "farm")
    set_table(game, "grain", 1, "grain_supply")  # so that grinding could be chosen too
    game = ready(game)
    explore(game, {"P1": "field", "P2": "berry_bushes"})
    stack_deck(game, "deck:P1", ["fishing_spot", "clay_pit"])
    deck = len(zone(game, "deck:P1"))
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")
    act(game, 1)
    answer(game, HARVEST)
    assert table(game, "grain") == 1 + 2
    assert ids(game, "discard_down")[-2:] == ["fishing_spot", "clay_pit"] and "field" in ids(game, "discard_up")
    assert len(zone(game, "deck:P1")) + len(zone(game, "looking:P1")) == deck - 2


def test_harvesting_without_the_scythe_gives_1_grain():
    """ "Grain Actions": harvest grain: discard 2 cards and receive 1 grain."""
    game = ready(two_player_game())
    p1_resolves(game, "field", SAFE[:2])
    act(game, 1)  # without grain, harvesting is the only grain action: taken at once
    assert table(game, "grain") == 1 and ids(game, "discard_down") == ["fishing_spot", "clay_pit"]


def test_grinding_grain_and_the_millstone():
    """ "Grain Actions": grind: spend 1 grain, receive 2 food, no cards discarded; the millstone improves it."""
    game = two_player_game()
    set_table(game, "grain", 2, "grain_supply")
    game = ready(game)
    food = table(game, "food")
    p1_resolves(game, "field")
    act(game, 1)
    answer(game, GRIND)
    assert (table(game, "grain"), table(game, "food"), zone(game, "discard_down")) == (1, food + 2, [])
    game = two_player_game()
    set_table(game, "grain", 1, "grain_supply")
    put(game, "millstone", "farm")
    game = ready(game)
    p1_resolves(game, "field")
    act(game, 1)
    answer(game, GRIND)
    assert (table(game, "grain"), table(game, "food")) == (0, food + 3)


def test_receiving_grain():
    """ "New Farm Symbols", Receive grain: from the supply onto the camp (8 grain in the game, "Setup")."""
    game = two_player_game()
    set_table(game, "grain", 0, "grain_supply")
    game = ready(game)
    assert (table(game, "grain"), table(game, "grain_supply")) == (0, 8)
    p1_resolves(game, "wild_grain")
    act(game, 1)
    assert (table(game, "grain"), table(game, "grain_supply")) == (2, 6)


# ---------------------------------------------------------------- expansion tokens
def test_building_one_expansion_token_per_action():
    """ "Build Expansion Tokens", "Expansion Tokens on the Farm": pay the resources shown to build 1 expansion token
    (a fence onto the stable); one per action. 1 fence lies on the farm from the setup."""
    game = two_player_game()
    set_table(game, "wood", 4, "wood_supply")
    set_table(game, "stone", 2, "stone_supply")
    game = ready(game)
    assert ids(game, "farm") == ["fence"]
    p1_resolves(game, "clay_pit")
    act(game, 2)
    assert sorted(options(game)) == [
        "Fence (0 food, 2 wood, 0 stone, 0 pelts)",
        "Millstone (0 food, 0 wood, 2 stone, 0 pelts)",
        "Scythe (0 food, 1 wood, 1 stone, 0 pelts)",
    ]
    answer(game, "Fence")
    assert ids(game, "farm") == ["fence", "fence"] and (table(game, "wood"), table(game, "stone")) == (2, 2)
    assert prompt(game).startswith("Take one")


def test_nothing_to_build_no_expansion_action():
    """ "Build Expansion Tokens": without the resources of any token the expansion action cannot be chosen."""
    game = ready(two_player_game())
    p1_resolves(game, "building_site")  # nothing to build and no animal: no action at all
    assert "building_site" in ids(game, "discard_up") and ids(game, "farm") == ["fence"]


def test_the_craft_action_never_builds_expansion_tokens():
    """ "Build Expansion Tokens": the craft action cannot build expansion tokens (Quarry: craft an idea from the
    workbench, like the At Home cards)."""
    game = two_player_game()
    set_table(game, "wood", 5, "wood_supply")
    set_table(game, "stone", 5, "stone_supply")
    game = ready(game)
    p1_resolves(game, "quarry")
    act(game, 2)
    answer(game, "yes")
    offered = options(game)
    assert offered and not any(o.startswith(("Fence", "Scythe", "Millstone", "Hut")) for o in offered)
    answer(game, "Torch")
    assert ids(game, "tools:P1") == ["torch"] and ids(game, "farm") == ["fence"]


def test_the_hut_heals_at_night():
    """ "Expansion Tokens on the Farm", Hut: with its roof, each night up to 2 damage is healed from 1 or 2 humans,
    also of different groups; "New Symbols", Everlasting dream: a human in the dream world cannot be healed."""
    game = two_player_game()
    put(game, "hut_roof", "farm")
    wound(game, "person_20", 2)
    wound(game, "person_17", 1)
    put(game, "person_16", "dreaming:P1")
    wound(game, "person_16", 1)
    game = ready(game)
    night(game)
    assert sorted(options(game)) == ["Builder of P1 (2 wounds)", "Herder of P2 (1 wounds)"]  # not the dreamer
    answer(game, "Builder")
    answer(game, "Herder")
    assert (wounds(game, "person_20"), wounds(game, "person_17"), wounds(game, "person_16")) == (1, 0, 1)


def test_no_roof_no_healing():
    """ "Expansion Tokens on the Farm", Hut: without the roof the hut does not heal."""
    game = two_player_game()
    wound(game, "person_20", 2)
    game = ready(game)
    night(game)
    assert wounds(game, "person_20") == 2 and prompt(game).startswith("Take one of the top cards")


# ---------------------------------------------------------------- secret tokens
def test_medicinal_herbs_places_secret_token_1_and_at_most_2_on_the_farm():
    """ "Base Cards", Medicinal Herbs; "Secret Tokens on the Farm": secret token 1 goes face up onto the farm; with 2
    tokens there already, one of them (or the new one) returns to the box."""
    game = two_player_game()
    put(game, "manure_token", "farm")
    put(game, "cocoa_token", "farm")
    game = ready(game)
    p1_resolves(game, "medicinal_herbs")
    act(game, 1)
    assert prompt(game).startswith("The farm holds 2 secret tokens")
    answer(game, "Secret token 2: Manure")
    assert sorted(ids(game, "farm")) == ["cocoa_token", "fence", "medicinal_herbs_token"]
    assert ids(game, "box")[-1] == "manure_token"


def test_the_medicinal_herbs_token_as_a_grain_action():
    """ "Secret Tokens", Medicinal Herbs: a grain action, discard 1 card from your deck, heal 2 damage."""
    game = two_player_game()
    put(game, "medicinal_herbs_token", "farm")
    wound(game, "person_20", 2)
    game = ready(game)
    p1_resolves(game, "field", SAFE[:1])
    act(game, 1)
    answer(game, "Secret token 1: Medicinal Herbs")  # the Builder is the only wounded human: healed at once
    assert wounds(game, "person_20") == 0 and ids(game, "discard_down") == ["fishing_spot"]


def test_a_heal_reward_heals_as_many_as_shown():
    """Reference, "Rewards" (heal N): Medicinal Herbs' second action (a placeholder: heal 1) heals 1 of the
    Builder's 2 damage."""
    game = two_player_game()
    wound(game, "person_20", 2)
    game = ready(game)
    p1_resolves(game, "medicinal_herbs")
    act(game, 2)
    assert wounds(game, "person_20") == 1


def test_the_manure_token_as_an_animal_action():
    """ "Secret Tokens", Manure: an animal action, discard 2 cards, 1 grain for each captured animal."""
    game = two_player_game()
    put(game, "manure_token", "farm")
    in_stable(game, "sheep", "pig")
    game = ready(game)
    p1_resolves(game, "at_home", SAFE[:2])
    act(game, 2)
    answer(game, "Secret token 2: Manure")
    assert table(game, "grain") == 2 and len(zone(game, "discard_down")) == 2


def test_the_cocoa_token_as_a_grain_action():
    """ "Secret Tokens", Cocoa: a grain action gives 1 dream card and 2 food."""
    game = two_player_game()
    put(game, "cocoa_token", "farm")
    game = ready(game)
    food, dreams = table(game, "food"), len(zone(game, "dreams"))
    p1_resolves(game, "field")
    act(game, 1)
    answer(game, "Secret token 3: Cocoa")
    assert table(game, "food") == food + 2 and len(zone(game, "dreams")) == dreams - 1


def test_the_sacrificial_altar_token():
    """ "Secret Tokens", Sacrificial Altar: an animal action places a captured animal in the graveyard without its
    rewards, for 1 talisman and 2 food."""
    game = two_player_game()
    put(game, "sacrificial_altar_token", "farm")
    in_stable(game, "sheep")
    game = ready(game)
    food = table(game, "food")
    animal_action(game, "Secret token 7: Sacrificial Altar")  # the Sheep, the only animal, is taken at once
    assert "sheep" in ids(game, "cemetery") and ids(game, "tools:P1") == ["talisman"]
    assert table(game, "food") == food + 2 and table(game, "pelts") == 0


def test_obsidian_tokens_count_as_tools_with_the_group():
    """ "Secret Tokens", Obsidian Axe and Obsidian Spear: with the group they give strength (and skill)
    permanently; two humans without strength can then hunt the Pig (2 strength)."""
    game = two_player_game(p1=("person_19", "person_15"))
    game = ready(game)
    p1_resolves(game, "pig")  # too weak to hunt it: capturing it is the only action, taken at once
    assert ids(game, "stable") == ["pig"]
    game = two_player_game(p1=("person_19", "person_15"))
    put(game, "obsidian_spear", "tools:P1")
    game = ready(game)
    p1_resolves(game, "pig")
    assert any(o.startswith("Action 1") for o in options(game))


def test_the_obsidian_jewelry_spares_the_dice():
    """ "Secret Tokens", Obsidian Jewelry: an action with a requirement of 1 or 2 dice is resolved without a roll."""
    game = two_player_game(p1=("person_20", "person_8"))  # 4 strength
    put(game, "obsidian_jewelry", "tools:P1")
    game = ready(game)
    food = table(game, "food")
    p1_resolves(game, "wild_goat")
    act(game, 1)
    assert not (game.decision and game.decision.is_chance)
    assert table(game, "food") == food + hunt_food("wild_goat") and "wild_goat" in ids(game, "cemetery")


# ---------------------------------------------------------------- new tools and symbols
def test_bow_and_shell_necklace_add_permanently():
    """ "New Tools": the bow & arrow gives +2 strength, the shell necklace +1 perception, permanently (they stay
    after use)."""
    game = two_player_game(p1=("person_19", "person_15"))  # no strength, 3 perception
    put(game, "bow_arrow", "tools:P1")
    game = ready(game)
    p1_resolves(game, "sheep")
    act(game, 1)
    p1_resolves(game, "pig")
    act(game, 1)
    assert {"sheep", "pig"} <= set(ids(game, "cemetery")) and ids(game, "tools:P1") == ["bow_arrow"]
    game = two_player_game(p1=("person_8", "person_6"))  # strength only
    game = ready(game)
    p1_resolves(game, "wild_duck")
    assert "wild_duck" in ids(game, "discard_up")  # neither of its actions: discarded
    game = two_player_game(p1=("person_8", "person_6"))
    put(game, "shell_necklace", "tools:P1")
    game = ready(game)
    p1_resolves(game, "wild_duck")
    assert "wild_duck" in ids(game, "cemetery")  # hunted with the necklace's perception


def test_the_flute():
    """ "New Tools", Flute: spend it to the supply to put the top 2 cards of the face-down discard pile on top of
    your deck."""
    game = two_player_game()
    put(game, "flute", "tools:P1")
    for card in ("wolves", "clay_pit"):
        put(game, card, "discard_down")
    game = ready(game)
    p1_resolves(game, "fishing_spot")
    assert prompt(game).startswith("Spend the flute")
    answer(game, "yes")
    assert where(game, "wolves") | where(game, "clay_pit") <= {"deck:P1", "looking:P1"}  # on top, looked at next
    assert ids(game, "tools:P1") == [] and "flute" in ids(game, "tool_supply") and zone(game, "discard_down") == []


def test_the_flute_split_with_a_helper():
    """ "New Tools", Flute, its note: with a helper, the 2 cards may be divided between the two players."""
    game = two_player_game()
    put(game, "flute", "tools:P1")
    for card in ("wolves", "clay_pit"):
        put(game, card, "discard_down")
    game = ready(game)
    explore(game, {"P1": "berry_bushes", "P2": "fishing_spot"})
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")  # P1's is the only group to help: joined at once
    answer(game, "yes")
    answer(game, "P2")  # the top card, Clay pit
    answer(game, "P1")  # then Wolves
    assert where(game, "clay_pit") <= {"deck:P2", "looking:P2"} and where(game, "wolves") <= {"deck:P1", "looking:P1"}


def test_receive_any_tool_from_the_trader():
    """ "New Symbols", Receive any tool; "Base Cards", Trader: any tool from the supply or the workbench, no idea
    needed (the bow & arrow's idea is not on the workbench); unrevealed secret tokens are not offered."""
    game = ready(two_player_game())
    p1_resolves(game, "trader")
    act(game, 1)
    offered = options(game)
    assert any(o.startswith("Bow & arrow") for o in offered) and not any(o.startswith("Secret token") for o in offered)
    answer(game, "Bow & arrow")
    assert ids(game, "tools:P1") == ["bow_arrow"]


def test_spend_any_tool_counts_face_up_secret_tokens():
    """ "New Symbols", Spend any tool: any tool of the group; face-up secret tokens in the group count as tools."""
    game = two_player_game()
    put(game, "obsidian_axe", "tools:P1")
    game = ready(game)
    p1_resolves(game, "trader")
    act(game, 2)
    assert ids(game, "tools:P1") == [] and ids(game, "box")[-1] == "obsidian_axe" and table(game, "wood") == 2


def test_spend_any_tool_needs_a_tool():
    """ "New Symbols", Spend any tool: a group without a tool cannot resolve that action (the Storm's first action):
    the danger's negative action is left."""
    game = ready(two_player_game())
    explore(game, {"P1": "storm", "P2": "berry_bushes"})
    stack_deck(game, "deck:P1", ["fishing_spot", "clay_pit"])
    assert forced(game, "P1")
    answer(game, IGNORE, "P2")
    answer(game, "Builder")
    assert wounds(game, "person_20") == 1 and ids(game, "discard_down")[-2:] == ["fishing_spot", "clay_pit"]


def test_a_discard_cost_wounds_once_per_red_back_all_on_one_human():
    """Reference, "Costs" (discard from the top of your deck, a wound for each red back) and "Damage" (all wounds
    from one source on one human): River crossing discards 2, both red, so one human takes 2 wounds."""
    game = ready(two_player_game())
    p1_resolves(game, "river_crossing", deck_top=("sabretooth", "wolves"))
    assert prompt(game).startswith("2 wound(s) from one source")
    answer(game, "Builder")
    assert wounds(game, "person_20") == 2 and wounds(game, "person_19") == 0
    assert ids(game, "discard_down") == ["sabretooth", "wolves"] and table(game, "victory") == 1


def test_remove_special_cards_and_return_dreams():
    """ "New Symbols", Remove special cards (the next card with that back from your deck to the graveyard) and Return
    dream cards (from anywhere in your deck) — the Cave of dreams' second action."""
    game = ready(two_player_game())
    explore(game, {"P1": "cave_of_dreams", "P2": "berry_bushes"})
    stack_deck(game, "deck:P1", ["dream_fire", "wolves", "fishing_spot"])
    dreams = len(zone(game, "dreams"))
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")
    act(game, 2)
    assert "wolves" in ids(game, "cemetery") and "dream_fire" not in ids(game, "deck:P1")
    assert len(zone(game, "dreams")) == dreams + 1 and ids(game, "dreams")[0] == "dream_fire"


def test_return_dreams_returns_only_the_number_shown():
    """ "New Symbols", Return dream cards: the number shown (the Cave of dreams: 1) returns to the dream deck; a
    second dream in the deck stays with the player."""
    game = ready(two_player_game())
    explore(game, {"P1": "cave_of_dreams", "P2": "berry_bushes"})
    stack_deck(game, "deck:P1", ["dream_fire", "dream_feast", "fishing_spot"])
    dreams = len(zone(game, "dreams"))
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")
    act(game, 2)
    assert len(zone(game, "dreams")) == dreams + 1 and ids(game, "dreams")[0] == "dream_fire"
    assert "dream_feast" not in ids(game, "dreams")


def test_remove_special_cards_from_a_helpers_deck():
    """ "New Symbols", Remove special cards, its note: a helper may remove the card from their deck instead."""
    game = ready(two_player_game())
    explore(game, {"P1": "cave_of_dreams", "P2": "berry_bushes"})
    for n in [
        n
        for n in zone(game, "deck:P1")
        if game.rules.instances[n]
        in ("wolves", "sabretooth", "rockfall", "storm", "snake", "cave_bear", "mice_in_the_grain", "fox_at_the_stable")
    ]:
        game.move(n, "deck:P2", 1)
    stack_deck(game, "deck:P1", ["dream_fire"])
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")  # joins P1's group at once (the only one resolving)
    act(game, 2)
    assert any(c in ids(game, "cemetery") for c in ("wolves", "sabretooth", "rockfall", "storm", "snake"))


def test_everlasting_dream_and_awaken():
    """ "New Symbols", Everlasting dream: a human is flipped face down (keeps its damage, is no longer counted, still
    eats); Awaken flips it face up again."""
    game = two_player_game()
    wound(game, "person_20", 1)
    game = ready(game)
    p1_resolves(game, "dream_everlasting")
    act(game, 1)
    answer(game, "Builder")
    assert ids(game, "dreaming:P1") == ["person_20"] and ids(game, "group:P1") == ["person_19"]
    assert wounds(game, "person_20") == 1
    set_table(game, "food", 3, "food_supply")
    game = ready(game)
    night(game)
    assert table(game, "skulls") == 1  # 4 humans eat, the one in the dream world too: 3 food, 1 skull
    p1_resolves(game, "dream_of_waking")
    act(game, 1)
    assert ids(game, "group:P1") == ["person_19", "person_20"] and ids(game, "dreaming:P1") == []


def test_everlasting_dream_of_the_last_human_brings_a_new_one():
    """ "New Symbols", Everlasting dream, its note: flipping your last human face down brings a new human."""
    game = two_player_game(p1=("person_20",))
    game = ready(game)
    p1_resolves(game, "dream_everlasting")
    act(game, 1)
    assert ids(game, "dreaming:P1") == ["person_20"] and len(zone(game, "group:P1")) == 1


def test_humans_in_the_dream_world_take_no_damage():
    """ "New Symbols", Everlasting dream: a human in the dream world cannot take damage."""
    game = two_player_game(p1=("person_19",))
    put(game, "person_20", "dreaming:P1")
    wound(game, "person_19", 1)  # one of the Elder's 2 hearts is full
    game = ready(game)
    explore(game, {"P1": "sabretooth", "P2": "berry_bushes"})
    assert forced(game, "P1")
    answer(game, IGNORE, "P2")  # the 2 wounds can only go to the Elder, who dies
    assert "person_19" in ids(game, "cemetery") and ids(game, "dreaming:P1") == ["person_20"]
    assert wounds(game, "person_20") == 0 and len(zone(game, "group:P1")) == 1


# ---------------------------------------------------------------- avoidable dangers
def test_an_avoidable_danger_without_grain_is_avoided():
    """ "Avoidable Dangers", its example: no grain in the camp: the group may help another player or ignore the card,
    which is discarded as normal."""
    game = ready(two_player_game())
    explore(game, {"P1": "mice_in_the_grain", "P2": "berry_bushes"})
    assert options(game, "P1") == [HELP, IGNORE]
    answer(game, IGNORE, "P1")
    answer(game, IGNORE, "P2")
    assert "mice_in_the_grain" in ids(game, "discard_up") and wounds(game, "person_20") == 0


def test_an_avoidable_danger_with_the_item_is_a_danger():
    """ "Avoidable Dangers": owning the item (grain), the danger cannot be avoided nor ignored: its negative action."""
    game = two_player_game()
    set_table(game, "grain", 1, "grain_supply")
    game = ready(game)
    explore(game, {"P1": "mice_in_the_grain", "P2": "berry_bushes"})
    assert forced(game, "P1")  # a danger again: only "resolve an action"
    answer(game, IGNORE, "P2")
    answer(game, "Builder")
    assert table(game, "grain") == 0 and wounds(game, "person_20") == 1


# ---------------------------------------------------------------- the night
def test_food_spoils_grain_wood_and_stone_stay():
    """ "Night Phase", Food spoils: after feeding and the missions all food left on the camp returns to the supply;
    grain, wood and stone stay."""
    game = two_player_game()
    set_table(game, "food", 9, "food_supply")
    set_table(game, "grain", 2, "grain_supply")
    set_table(game, "wood", 3, "wood_supply")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    night(game)
    assert (table(game, "food"), table(game, "grain"), table(game, "wood"), table(game, "stone")) == (0, 2, 3, 1)
    assert table(game, "food_supply") == 20 and table(game, "skulls") == 0


def test_hunger_still_gives_skulls():
    """ "Night Phase": without enough food for the humans, skulls as normal."""
    game = two_player_game()
    set_table(game, "food", 1, "food_supply")
    game = ready(game)
    night(game)
    assert table(game, "skulls") == 3


def test_an_animal_escapes():
    """ "Night Phase", its example: 2 animals and 1 fence; the team keeps the Sheep and spends no grain: the Tame Dodo
    goes to the face-up discard pile (and is shuffled and dealt with it for the next day)."""
    game = two_player_game()
    in_stable(game, "sheep", "tame_dodo")
    game = ready(game)
    night(game)
    assert prompt(game).startswith("Rearrange the stable")
    answer(game, "Sheep")
    assert ids(game, "stable") == ["sheep"]
    assert "Tame Dodo has no fence and runs away" in log_text(game)
    assert where(game, "tame_dodo") & {"deck:P1", "deck:P2", "looking:P1", "looking:P2"}


def test_grain_keeps_an_animal_without_a_fence():
    """ "Night Phase", Care for animals: 1 grain spent keeps an animal without a fence."""
    game = two_player_game()
    in_stable(game, "sheep", "tame_dodo")
    set_table(game, "grain", 1, "grain_supply")
    game = ready(game)
    night(game)
    answer(game, "Tame Dodo")
    assert prompt(game).startswith("Sheep has no fence: spend 1 grain")
    answer(game, "yes")
    assert sorted(ids(game, "stable")) == ["sheep", "tame_dodo"] and table(game, "grain") == 0


def test_fenced_animals_stay():
    """ "Night Phase", Care for animals; "Expansion Tokens on the Farm", Fence: as many animals as fences stay without
    a choice."""
    game = two_player_game()
    in_stable(game, "sheep", "tame_dodo")
    put(game, "fence", "farm")
    game = ready(game)
    night(game)
    assert sorted(ids(game, "stable")) == ["sheep", "tame_dodo"] and prompt(game).startswith("Take one")


# ---------------------------------------------------------------- new humans
def test_a_new_human_brings_resources_and_ideas():
    """ "New Humans": resources a human brings go onto the camp, an idea onto the workbench, at once."""
    game = two_player_game()
    stack_deck(game, "people", ["person_7", "person_12"])
    game = ready(game)
    food, bench = table(game, "food"), len(zone(game, "workbench"))
    p1_resolves(game, "dream_friend")
    assert ids(game, "group:P1")[-1] == "person_7" and table(game, "food") == food + 2
    game = two_player_game()
    stack_deck(game, "people", ["person_12"])
    game = ready(game)
    p1_resolves(game, "dream_friend")
    assert ids(game, "group:P1")[-1] == "person_12" and len(zone(game, "workbench")) == bench + 1


def test_a_human_brings_a_dream_onto_the_deck():
    """ "New Humans": a dream a human brings goes on top of the player's deck."""
    game = two_player_game()
    stack_deck(game, "people", ["person_14"])
    game = ready(game)
    p1_resolves(game, "dream_friend")
    assert "dream" in [game.rules.cards[c]["type"] for c in ids(game, "looking:P1")]  # on top: looked at next


def test_a_dream_brought_at_setup_waits_for_the_deal():
    """ "New Humans", its note: a human with a dream received at setup: the dream goes on top of the deck after the
    initial deal (it is among the 3 cards looked at first)."""
    found = 0
    for seed in range(40):
        game = Game.new(ruleset(), 2, seed)
        for p in ("P1", "P2"):
            brought = sum(game.rules.cards[c].get("stats", {}).get("brings_dream", 0) for c in ids(game, f"group:{p}"))
            if brought:
                found += 1
                looked = [game.rules.cards[c]["type"] for c in ids(game, f"looking:{p}")]
                assert looked.count("dream") >= brought, (seed, p, looked)
    assert found


def test_the_new_humans_replace_the_old():
    """ "Card Setup": the 20 new humans and the 35 new base cards replace the old ones."""
    game = Game.new(ruleset(), 2, 0)
    people = [c for c in game.rules.instances if game.rules.cards[c]["type"] == "human"]
    base = [c for c in game.rules.instances if game.rules.cards[c].get("deck") == "wilderness"]
    assert len(people) == 20 and all(c.startswith("person_") for c in people)
    assert len(base) == 35 and "berries" not in base


# ---------------------------------------------------------------- named cards: dreams and secrets
def test_manure_dream_places_secret_token_2():
    """ "Dreams", Manure: secret token 2 goes onto an open space of the farm board."""
    game = ready(two_player_game())
    p1_resolves(game, "manure")
    act(game, 1)
    assert "manure_token" in ids(game, "farm")


def test_last_chance_exchanges_the_group():
    """ "Dreams", Last Chance: the whole group, whatever its size, is exchanged for a new group of 3 humans, and 1
    skull is received."""
    game = two_player_game(p1=("person_20",))
    game = ready(game)
    p1_resolves(game, "last_chance")
    act(game, 1)
    assert len(zone(game, "group:P1")) == 3 and "person_20" not in ids(game, "group:P1")
    assert table(game, "skulls") == 1


def test_last_chance_with_a_helper_exchanges_one_group():
    """ "Dreams", Last Chance, its note: with a helper, the helper's whole group may be exchanged instead (only one
    group, the new humans not shared)."""
    game = ready(two_player_game())
    explore(game, {"P1": "last_chance", "P2": "berry_bushes"})
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")
    act(game, 1)
    answer(game, "P2")
    assert len(zone(game, "group:P2")) == 3 and not {"person_17", "person_18"} & set(ids(game, "group:P2"))
    assert ids(game, "group:P1") == ["person_20", "person_19"] and table(game, "skulls") == 1


def test_the_artifact_rerolls_dice():
    """ "Secrets", Artifact: after a roll, 1 or both dice may be rolled again, each once. The goat hunt (3 strength,
    1 die) with 3 strength: a strength face defeats it, the reroll saves it."""
    game = two_player_game(p1=("person_8", "person_19"))  # Woodcutter 2 + Elder 0
    put(game, "spear", "tools:P1")  # 3 strength
    put(game, "artifact", "kept:P1")
    game = ready(game)
    food = table(game, "food")
    p1_resolves(game, "wild_goat")
    act(game, 1)
    roll(game, [4])  # strength: 4 needed
    assert prompt(game).startswith("The Artifact")
    answer(game, "1")
    roll(game, [1])  # blank
    assert table(game, "food") == food + hunt_food("wild_goat") and "wild_goat" in ids(game, "cemetery")


def test_dark_power_sends_the_artifact_back():
    """ "Secrets", Dark Power: a face-up Artifact with any player (helping or not) goes back into the secrets deck,
    from where it can be revealed again."""
    game = two_player_game()
    put(game, "artifact", "kept:P2")
    game = ready(game)
    p1_resolves(game, "dark_power")
    answer(game, "Builder")
    assert "artifact" in ids(game, "secrets") and ids(game, "kept:P2") == []
    assert "dark_power" in ids(game, "secrets_told")


def test_the_totem_after_a_roll():
    """ "Secrets", Totem: placed in the graveyard after a die roll, it gives 1 of each ability for this action."""
    game = two_player_game(p1=("person_8", "person_19"))
    put(game, "spear", "tools:P1")  # 3 strength
    put(game, "totem", "kept:P1")
    game = ready(game)
    food = table(game, "food")
    p1_resolves(game, "wild_goat")
    act(game, 1)
    roll(game, [4])  # strength: 4 needed, 3 there
    assert prompt(game).startswith("Place the Totem")
    answer(game, "yes")
    assert table(game, "food") == food + hunt_food("wild_goat") and {"totem", "wild_goat"} <= set(ids(game, "cemetery"))


def test_the_totem_before_choosing():
    """ "Secrets", Totem: placed in the graveyard, it gives 1 of each ability for one action (two humans without
    strength hunt the Tame Dodo, 1 strength)."""
    game = two_player_game(p1=("person_19", "person_15"))
    put(game, "totem", "kept:P1")
    game = ready(game)
    food = table(game, "food")
    p1_resolves(game, "tame_dodo")
    assert prompt(game).startswith("Place the Totem")
    answer(game, "yes")
    act(game, 1)
    assert table(game, "food") == food + hunt_food("tame_dodo") and {"totem", "tame_dodo"} <= set(ids(game, "cemetery"))


def test_reeds_need_the_scythe():
    """ "Secrets", Reeds: only with the scythe built and 2 cards discarded; then the card stays with the group."""
    game = ready(two_player_game())
    p1_resolves(game, "reeds")
    assert "reeds" in ids(game, "secrets_told") and ids(game, "kept:P1") == []
    game = two_player_game()
    put(game, "scythe", "farm")
    game = ready(game)
    p1_resolves(game, "reeds", SAFE[:2])
    assert ids(game, "kept:P1") == ["reeds"] and ids(game, "discard_down") == ["fishing_spot", "clay_pit"]


# ---------------------------------------------------------------- setup
def test_setup_of_the_expansion():
    """ "Setup": 1 fence on the farm, 2 fences, scythe, millstone and the roof below it; 8 grain in the supply; the 7
    secret tokens face down; secret cards 6 and 7 face down on the night board; 2 more traps and 2 of each new
    tool; the new dreams and ideas shuffled into their decks."""
    game = Game.new(ruleset(), 3, 1)
    assert ids(game, "farm") == ["fence"] and sorted(ids(game, "farm_supply")) == [
        "fence",
        "fence",
        "hut_roof",
        "millstone",
        "scythe",
    ]
    brought = sum(
        game.rules.cards[c]["stats"].get("brings_grain", 0) for p in ("P1", "P2", "P3") for c in ids(game, f"group:{p}")
    )
    assert (table(game, "grain"), table(game, "grain_supply")) == (brought, 8 - brought)
    assert len(zone(game, "secret_tokens")) == 7 and sorted(ids(game, "night_board")) == ["secret_6", "secret_7"]
    tools = [
        game.rules.instances[n]
        for n in range(len(game.rules.instances))
        if game.rules.cards[game.rules.instances[n]]["type"] == "tool"
    ]
    assert [tools.count(t) for t in ("trap", "bow_arrow", "shell_necklace", "flute")] == [6, 2, 2, 2]
    dreams = [c for c in game.rules.instances if game.rules.cards[c]["type"] == "dream"]
    assert len(dreams) == 16 + 5 and {"manure", "last_chance"} <= set(dreams)
    assert {"idea_bow_arrow", "idea_shell_necklace", "idea_flute"} <= set(game.rules.instances)


# ---------------------------------------------------------------- whole games
def test_random_games_at_every_player_count_end_without_error():
    """Seeded random games at 1-4 players (the base game's counts, reference "Players and groups") end without
    error, the invariants holding after every decision."""
    for seed, players in enumerate([1, 2, 3, 4, 2, 3]):
        game = Game.new(ruleset(), players, seed, max_rounds=8)
        watch = invariants.Watch(game)
        play_randomly(game, random.Random(seed), after=watch)
        assert game.over, (seed, players)


def test_save_load_continue_gives_the_same_game():
    """Determinism: a game saved and loaded midway, continued with the same answers, ends in the same state."""
    game = Game.new(ruleset(), 3, 7, max_rounds=6)
    play_randomly(game, random.Random(7), limit=60)
    copy = saved_and_loaded(game)
    play_randomly(game, random.Random(99))
    play_randomly(copy, random.Random(99))
    assert game.over and copy.state_hash() == game.state_hash()


def test_nobody_reads_a_card_they_never_saw():
    """ "Choosing a card" (reference): until the reveal no player sees another's chosen card, and nobody sees any
    deck's order, nor the face-down secret tokens and secret cards (random games at every player count)."""
    from test_view_leaks import play_watched

    checks = 0
    for seed, players in enumerate([1, 2, 3, 4]):
        game = Game.new(ruleset(), players, seed, max_rounds=6)
        checks += play_watched(game, seed, 300, f"paleo_a_new_beginning, seed {seed}, {players} players").checks
    assert checks > 100


# ---------------------------------------------------------------- the hooks modules use (HOOKS.md, "As built")
HOOKED_PACK = {
    "pack.yaml": "kind: pack\nid: paleo_hook_test\nname: Hook test\nversion: 0.1.0\nextends: [paleo_a_new_beginning]\n",
    "cards.yaml": """kind: card
id: test_mission
name: Test mission
type: mission
deck: missions
effect: |
  gain 1 wood
  lose 1 wood_supply
  log "Test mission: 1 wood, with {food} food on the camp"
---
kind: card
id: test_late_mission
name: Test late mission
type: mission
deck: missions
stats: {late: 1}
effect: |
  if food = 0:
      gain 1 stone
      lose 1 stone_supply
---
kind: card
id: test_camp_card
name: Test camp card
type: camp
deck: camp
stats: {actions: 1, help_action: 1, a_min_buildings: 2, a_victory: 1, a_remove: 1}
---
kind: card
id: test_relic
name: Test relic
type: wilderness
deck: wilderness
tags: [camp]
back: camp
stats: {actions: 2, a_special: 1, b_food: 1}
refs: {a_needs_no_card: artifact, b_needs_card: artifact}
effect: |
  gain 1 pelts
  lose 1 pelts_supply
  log "Test relic: its own rule after action {me.action_taken}"
---
kind: card
id: test_cave
name: Test cave
type: wilderness
deck: wilderness
tags: [mountain]
back: mountain
stats: {actions: 1, a_secret_token: 5}
---
kind: card
id: test_idea
name: "Idea: test"
type: idea
deck: box
stats: {actions: 1, help_action: 1, a_pay_food: 1, a_grain: 1}
---
kind: card
id: test_curse
name: Test curse
type: wilderness
deck: wilderness
tags: [camp]
back: camp
stats: {actions: 1, a_remove_secret: 24}
---
kind: action
id: gain_victory
replace: true
name: A skull instead
subroutine: true
params: [n]
effect: |
  lose n skulls
---
kind: function
id: may_sleep_early
replace: true
params: [p]
body: 'false'
""",
}


def hooked_game(tmp_path):
    from conftest import write_tree

    root = write_tree(tmp_path / "paleo-hook-test", HOOKED_PACK)
    game = Game.new(rules_module.load(root), 2, 0)
    group_of(game, "P1", ("person_20", "person_19"))
    group_of(game, "P2", ("person_17", "person_18"))
    return game


def test_the_hooks_missions_late_missions_and_no_early_sleep(tmp_path):
    """HOOKS.md 1 and 4 ("Night Phase": missions after feeding, late ones after food spoils and the animals; module
    R's "you cannot go to sleep early" by one function): with sleeping forbidden, the day runs until the decks are
    empty; at night the mission gives wood while food is still on the camp, the late one stone once it spoiled."""
    game = hooked_game(tmp_path)
    set_table(game, "food", 9, "food_supply")
    for p in ("P1", "P2"):  # only the 3 cards each player looks at are left: the day is short
        for n in list(zone(game, f"deck:{p}")):
            game.move(n, "discard_down")
    game = ready(game)
    assert SLEEP not in options(game, "P1")
    nights = 0
    while not nights and not game.over:
        decision = game.decision
        if decision.is_chance:
            game.apply(0, CHANCE)
            continue
        for player in list(decision.players):
            offered = options(game, player)
            answer(game, IGNORE if IGNORE in offered else offered[0], player)
        nights = log_text(game).count("Test mission: 1 wood")
    lines = log_text(game).split("\n")
    mission = next(i for i, line in enumerate(lines) if line.startswith("Test mission: 1 wood, with"))
    spoiled = next(i for i, line in enumerate(lines) if line.endswith("food spoils and returns to the supply"))
    late = next(i for i, line in enumerate(lines) if line == "The team resolves the mission card Test late mission")
    assert mission < spoiled < late and not lines[mission].endswith("with 0 food on the camp")
    assert (table(game, "wood"), table(game, "stone")) == (1, 1)


def test_the_hooks_special_rule_conditions_camp_card_and_victory(tmp_path):
    """HOOKS.md 2, 3 and 4: a card's own rule runs after its action (`a_special`); conditions on an action
    (`needs_no_card`/`needs_card`: only one of the relic's actions while nobody has the Artifact); a card at the camp
    used through a help option once 2 buildings stand (`min_buildings`); every victory token through `gain_victory`
    (replaced here: a skull removed instead)."""
    game = hooked_game(tmp_path)
    put(game, "fence", "farm")
    set_table(game, "skulls", 2)
    game = ready(game)
    explore(game, {"P1": "test_relic", "P2": "berry_bushes"})
    assert "use an action of a card at the camp" in options(game, "P2")
    answer(game, RESOLVE, "P1")
    answer(game, "use an action of a card at the camp", "P2")
    answer(game, "P2: ")  # the team's order: the camp card's user is resolved in it too
    assert table(game, "skulls") == 1 and table(game, "victory") == 0 and "test_camp_card" in ids(game, "cemetery")
    assert table(game, "pelts") == 1 and "Test relic: its own rule after action 1" in log_text(game)


def test_removing_a_named_secret_card_wherever_it_is(tmp_path):
    """ "New Symbols", Remove special cards: a symbol showing a specific secret card removes it wherever it is (the
    Artifact, face up with another group, to the graveyard)."""
    game = hooked_game(tmp_path)
    put(game, "artifact", "kept:P2")
    game = ready(game)
    p1_resolves(game, "test_curse")
    assert "artifact" in ids(game, "cemetery") and ids(game, "kept:P2") == []


def test_an_idea_on_the_workbench_used_through_a_help_option(tmp_path):
    """HOOKS.md ("Requests from helper B"): an idea whose action is used while it lies on the workbench (module M's
    Isolation, R's Sacrificial Altar) is offered instead of helping, and stays on the workbench."""
    game = hooked_game(tmp_path)
    put(game, "test_idea", "workbench")
    game = ready(game)
    food = table(game, "food")
    explore(game, {"P1": "fishing_spot", "P2": "berry_bushes"})
    answer(game, IGNORE, "P1")
    answer(game, "use an action of a card at the camp", "P2")
    assert (table(game, "food"), table(game, "grain")) == (food - 1, 1) and "test_idea" in ids(game, "workbench")
    assert "berry_bushes" in ids(game, "discard_up")


def test_a_secret_token_placed_with_the_group(tmp_path):
    """ "Secret Tokens on the Farm" (a token face up with the group, as instructed) and "Secret Tokens", Obsidian
    Jewelry: token 5 goes face up to the group, where it counts as a tool."""
    game = hooked_game(tmp_path)
    game = ready(game)
    p1_resolves(game, "test_cave")
    assert ids(game, "tools:P1") == ["obsidian_jewelry"] and ids(game, "farm") == ["fence"]
