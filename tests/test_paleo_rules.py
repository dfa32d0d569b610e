"""Paleo, the base game (content/paleo), rule by rule: each test plays the situation of one point of
shared/reference/paleo-base.md (named in its docstring) and checks what the rules say. Paleo's card texts are
not public: the cards used here are the pack's placeholders, named by id. Dice are chance decisions that a
scenario answers with the faces it needs; every scenario is saved and loaded before it is played on."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from paleo_table import (
    HELP,
    IGNORE,
    RESOLVE,
    SLEEP,
    explore,
    group_of,
    look,
    number_of,
    roll,
    set_table,
    table,
    wounds,
    zone,
)
from scenario import answer, ids, options, prompt, put, saved_and_loaded, stack_deck

from engine.runtime import rules as rules_module
from engine.runtime.game import Game

PACK = Path(__file__).resolve().parent.parent / "content" / "paleo"


@cache
def ruleset():
    return rules_module.load(PACK)


def new_game(players=2, seed=0) -> Game:
    """A game at its first exploration: every player looks at the backs of the top 3 cards of their deck."""
    return Game.new(ruleset(), players, seed)


def p1_resolves(game, card: str):
    """P1 takes `card` and resolves an action of it; P2 takes Berry bushes and ignores them."""
    explore(game, {"P1": card, "P2": "berries"})
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")


def ready(game):
    return saved_and_loaded(game)


def wound(game, human, count):
    game.set_card_counter(number_of(game, human), "wounds", count)


def where(game, card_id):
    return {game.state["loc"][n] for n, c in enumerate(game.rules.instances) if c == card_id}


def two_player_game(p1=("strongman", "lookout"), p2=("hunter", "healer")):
    game = new_game(2)
    group_of(game, "P1", [f"human_{h}" if h.isdigit() else HUMANS[h] for h in p1])
    group_of(game, "P2", [f"human_{h}" if h.isdigit() else HUMANS[h] for h in p2])
    return game


HUMANS = {
    "hunter": "human_1",
    "scout": "human_2",
    "crafter": "human_3",
    "strongman": "human_9",
    "lookout": "human_10",
    "artisan": "human_11",
    "elder": "human_13",
    "healer": "human_15",
    "child": "human_19",
    "warrior": "human_18",
}


# ---------------------------------------------------------------- setup
def test_setup():
    """ "Setup", "Setup details" and the first point: 5 food in camp (20 in all, limited), 12 wood and 8 stone in
    the supply; the torch, stone axe and spear ideas on the workbench; each player 2 humans face up with their
    tools; the 32 base cards dealt face down as evenly as possible; no skull, no victory token."""
    for players, sizes in ((1, [32]), (2, [16, 16]), (3, [11, 11, 10]), (4, [8, 8, 8, 8])):
        game = new_game(players)
        seats = [f"P{k}" for k in range(1, players + 1)]
        assert table(game, "food") == 5 and table(game, "food_supply") == 15
        assert (table(game, "wood"), table(game, "wood_supply"), table(game, "stone"), table(game, "stone_supply")) == (
            0,
            12,
            0,
            8,
        )
        assert table(game, "skulls") == 0 and table(game, "victory") == 0
        assert sorted(ids(game, "workbench")) == ["idea_spear", "idea_stone_axe", "idea_torch"]
        assert all(len(zone(game, f"group:{p}")) == 2 for p in seats)
        # the first exploration has taken up to 3 cards of every deck to look at
        dealt = [len(zone(game, f"deck:{p}")) + len(zone(game, f"looking:{p}")) for p in seats]
        assert dealt == sizes
        # every human's tool came with it
        for p in seats:
            shown = [game.rules.cards[c].get("refs", {}).get("brings") for c in ids(game, f"group:{p}")]
            assert sorted(t for t in shown if t) == sorted(ids(game, f"tools:{p}"))
        tokens = sum(len(zone(game, k)) for k in game.state["zones"] if k == "tool_supply" or k.startswith("tools:"))
        assert tokens == 48


def test_decks_are_private_and_face_down():
    """ "Setup" (dealt face down), "Choosing a card" (never reorder): nobody sees the fronts of any deck, not even
    their own, nor the cards they look at; "Day" (look at the backs of the top 3 cards), "Choosing a card" (the
    backs of the whole deck may be looked at): the options are offered by their backs, which everyone sees."""
    game = new_game(2)
    for n in zone(game, "deck:P1") + zone(game, "looking:P1"):
        assert not game.can_see(n, "P1") and not game.can_see(n, "P2")
    looking = zone(game, "looking:P1")
    backs = [game.card_def(n)["back"] for n in looking]
    assert [o for o in options(game, "P1") if o != SLEEP] == [
        f"a face-down card ({back} back) #{i} in P1's looking at" for i, back in enumerate(backs, 1)
    ]
    for seat in ("P1", "P2"):
        zones = game.view(seat)["zones"]
        assert zones["looking:P1"]["backs"] == backs and "cards" not in zones["looking:P1"]
        assert zones["deck:P1"]["backs"] == [game.card_def(n)["back"] for n in zone(game, "deck:P1")]


# ---------------------------------------------------------------- the day
def test_explore_takes_one_the_others_back_on_top():
    """ "Day", "Choosing a card": a group looks at its top 3 cards, takes 1 face down, and the other two go back on
    top of the deck in the order the player chooses."""
    game = ready(two_player_game())
    before = len(zone(game, "deck:P1"))
    look(game, "P1", "deer")
    others = [n for n in zone(game, "looking:P1") if game.rules.instances[n] != "deer"]
    look(game, "P2", "mushrooms")
    assert prompt(game).startswith("Which of the two cards goes back first")
    assert game.decision.players == ["P1"]
    game.apply(game.legal("P1")[1], "P1")  # the second card looked at goes back first, under the other
    deck = zone(game, "deck:P1")
    assert len(deck) == before + 2 and deck[-2:] == [others[1], others[0]]
    assert ids(game, "chosen:P1") == ["deer"]


def test_chosen_cards_stay_secret_until_revealed_together():
    """ "Day": everyone chooses at once; the chosen cards are revealed together. Until all have chosen, no
    player sees another's choice (nor their own card's front)."""
    game = ready(two_player_game())
    look(game, "P1", "deer")
    view = str(game.view("P2"))
    assert "Deer" not in view
    look(game, "P2", "mushrooms")
    while prompt(game).startswith("Which of the two cards goes back"):
        game.apply(game.legal(game.decision.players[0])[0], game.decision.players[0])
    assert ids(game, "revealed:P1") == ["deer"] and ids(game, "revealed:P2") == ["mushrooms"]
    for n in zone(game, "revealed:P1"):
        assert game.can_see(n, "P2")


def test_sleeping_early_discards_the_rest_of_the_deck():
    """ "Day", "Going to sleep early": instead of exploring, a group discards the rest of its deck without effect
    (face down) and sleeps; once asleep it neither resolves nor helps."""
    game = ready(two_player_game())
    rest = len(zone(game, "deck:P1")) + len(zone(game, "looking:P1"))
    down = len(zone(game, "discard_down"))
    explore(game, {"P1": SLEEP, "P2": "berries"})
    assert zone(game, "deck:P1") == [] and len(zone(game, "discard_down")) == down + rest
    assert game.state["flags"]["P1"].get("asleep")
    # P2 alone: no one to help, so P2 only resolves or ignores
    assert HELP not in options(game, "P2")


def test_day_ends_when_everyone_is_asleep():
    """ "Day": an empty deck means asleep; the day ends when all are asleep, and the night follows (here: 4
    humans eat 4 of the 5 food)."""
    game = ready(two_player_game())
    explore(game, {"P1": SLEEP, "P2": SLEEP})
    assert table(game, "food") == 1
    assert game.state["pending"]["prompt"].startswith("Take one of the top cards")  # a new day has begun


# ---------------------------------------------------------------- options of a revealed card
def test_action_help_or_ignore_and_ignore_discards_face_up():
    """ "Action cards": a revealed card offers an action, help for another group, or ignore (discard face up)."""
    game = ready(two_player_game())
    explore(game, {"P1": "berries", "P2": "fishing"})
    assert options(game, "P1") == [RESOLVE, HELP, IGNORE]
    answer(game, IGNORE, "P1")
    answer(game, IGNORE, "P2")
    assert "berries" in ids(game, "discard_up") and "fishing" in ids(game, "discard_up")


def test_a_danger_cannot_be_ignored():
    """ "Action cards": a danger card cannot be ignored (nor used to help): only an action is offered."""
    game = ready(two_player_game())
    explore(game, {"P1": "wolves", "P2": "berries"})
    assert options(game, "P2") == [RESOLVE, HELP, IGNORE]
    assert "P1" not in game.state["pending"]["by"] or options(game, "P1") == [RESOLVE]


def test_talisman_ignores_a_revealed_danger():
    """ "Tools": a talisman is discarded to ignore a revealed danger."""
    game = two_player_game()
    put(game, "talisman", "tools:P1")
    game = ready(game)
    explore(game, {"P1": "wolves", "P2": "berries"})
    assert options(game, "P1") == [RESOLVE, "spend a talisman to ignore it"]
    answer(game, "spend a talisman to ignore it", "P1")
    answer(game, IGNORE, "P2")
    assert "talisman" not in ids(game, "tools:P1") and "wolves" in ids(game, "discard_up")


def test_danger_without_a_resolvable_action_resolves_a_negative_one():
    """ "Action cards": a danger with no resolvable action resolves a negative one (Wolves: 2 wounds, all on one
    chosen human) — "Damage": all damage from one card on one human."""
    game = ready(two_player_game(p1=("child", "lookout")))
    explore(game, {"P1": "wolves", "P2": "berries"})
    answer(game, IGNORE, "P2")
    assert prompt(game).startswith("2 wound(s) from one source")
    answer(game, "Lookout")
    assert wounds(game, "human_10") == 2 and wounds(game, "human_19") == 0
    assert "wolves" in ids(game, "discard_up")


def test_team_chooses_the_order():
    """ "Day", "Choosing a card": the players decide the order in which the revealed cards are resolved (the
    first seat answers for the team)."""
    game = ready(two_player_game())
    explore(game, {"P1": "berries", "P2": "fishing"})
    answer(game, RESOLVE, "P1")
    answer(game, RESOLVE, "P2")
    assert prompt(game) == "The team chooses: whose card is resolved next?"
    assert options(game) == ["P1: Berry bushes", "P2: Fishing spot"]
    answer(game, "P2: Fishing spot")  # then the Berry bushes, the only card left: no question
    assert ids(game, "discard_up")[-2:] == ["fishing", "berries"]


# ---------------------------------------------------------------- requirements, help, costs
def test_requirements_summed_over_group_tools_and_helper():
    """ "Requirements", "Helping": strength is summed over the group's humans, its tools and a helping group; it
    is checked, never spent. The Quarry (2 strength) is out of reach of Lookout + Elder (0) alone; with the
    Hunter's group helping (2 strength + a spear) it is resolved, and nobody's humans or tools are spent."""
    game = ready(two_player_game(p1=("lookout", "elder"), p2=("hunter", "healer")))
    put(game, "spear", "tools:P2")
    explore(game, {"P1": "quarry", "P2": "berries"})
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")
    # P2 helps P1, the only group resolving; the Quarry's one action is then resolved
    assert "berries" in ids(game, "discard_up") and "quarry" in ids(game, "discard_up")
    assert table(game, "stone") == 2
    assert len(zone(game, "group:P2")) == 2 and ids(game, "tools:P2") == ["spear"]


def test_without_help_the_requirement_is_not_met():
    """ "Requirements": a group alone whose abilities fall short cannot resolve the action; a non-danger card
    is then discarded face up without effect."""
    game = ready(two_player_game(p1=("lookout", "elder"), p2=("hunter", "healer")))
    p1_resolves(game, "quarry")
    assert table(game, "stone") == 0 and "quarry" in ids(game, "discard_up")


def test_discard_cost_from_the_top_and_red_backs_wound():
    """ "Costs", "Requirements": a discard cost takes cards from the top of the active player's own deck, face
    down; each red back (a danger) among them deals a wound."""
    game = two_player_game(p1=("strongman", "lookout"))
    game = ready(game)
    explore(game, {"P1": "deer", "P2": "berries"})
    stack_deck(game, "deck:P1", ["sabretooth"])
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")
    assert prompt(game).startswith("1 wound(s) from one source")
    answer(game, "Strongman")
    assert "sabretooth" in ids(game, "discard_down") and wounds(game, "human_9") == 1
    assert table(game, "food") == 5 + 3


def test_a_helper_never_pays_the_discard_cost():
    """ "Helping": only the active player discards from the deck; the helper's deck is untouched."""
    game = ready(two_player_game(p1=("lookout", "elder"), p2=("strongman", "healer")))
    explore(game, {"P1": "deer", "P2": "berries"})
    helper_deck = list(zone(game, "deck:P2"))
    active = len(zone(game, "deck:P1"))
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")
    assert "deer" in ids(game, "discard_up")
    # (the next exploration has taken the top 3 cards of each deck to look at)
    assert sorted(zone(game, "deck:P2") + zone(game, "looking:P2")) == sorted(helper_deck)
    assert len(zone(game, "deck:P1")) + len(zone(game, "looking:P1")) == active - 1


def test_a_helper_may_take_the_wounds():
    """ "Helping": the helper may take wounds instead of the helped group."""
    game = ready(two_player_game(p1=("child", "lookout"), p2=("hunter", "healer")))
    explore(game, {"P1": "mushrooms", "P2": "berries"})
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")
    answer(game, "Action 2")  # 1 food and 1 wound
    assert "Hunter of P2 (0 wounds, 3 hearts)" in options(game)
    answer(game, "Hunter of P2")
    assert wounds(game, "human_1") == 1


def test_a_tool_paid_gives_no_ability_and_goes_to_the_supply():
    """ "Costs": a tool paid goes from the group to the supply (Storm: pay a tool, else the negative action)."""
    game = two_player_game(p1=("lookout", "elder"))
    put(game, "spear", "tools:P1")
    game = ready(game)
    explore(game, {"P1": "storm", "P2": "berries"})
    answer(game, IGNORE, "P2")
    assert options(game)[0] == "Action 1: 0 strength, 0 perception, 0 skill"
    answer(game, "Action 1")  # the spear, the only tool, is paid
    assert ids(game, "tools:P1") == [] and "spear" in ids(game, "tool_supply")


def test_a_card_may_require_a_tent():
    """ "Tools": the tent has no effect of its own, other cards may require it (Shelter, a placeholder)."""
    game = two_player_game(p1=("lookout", "elder"))
    set_table(game, "wood", 1, "wood_supply")
    game = ready(game)
    p1_resolves(game, "shelter")
    # without a tent only the 2nd action (1 wood) could be resolved, and it was, without a question
    assert table(game, "victory") == 0 and table(game, "wood") == 2 and "shelter" in ids(game, "discard_up")


# ---------------------------------------------------------------- dice
def test_dice_raise_requirements_then_a_negative_action():
    """ "Dice": dice are rolled after help is decided; their faces raise the requirements; an action then out of
    reach gives way to a negative action (Sabre-toothed cat: 4 strength, a die showing strength, then 3 wounds)."""
    game = ready(two_player_game(p1=("strongman", "4"), p2=("lookout", "healer")))
    explore(game, {"P1": "sabretooth", "P2": "berries"})
    answer(game, IGNORE, "P2")
    answer(game, "Action 1")
    roll(game, [4])  # the 4th face: +1 strength; the one negative action follows
    assert prompt(game).startswith("3 wound(s) from one source")
    answer(game, "Strongman")
    assert wounds(game, "human_9") == 3 and table(game, "food") == 5


def test_dice_met_resolves_the_action():
    """ "Dice": a blank face adds nothing, and the action is resolved."""
    game = ready(two_player_game(p1=("strongman", "4"), p2=("lookout", "healer")))
    explore(game, {"P1": "sabretooth", "P2": "berries"})
    answer(game, IGNORE, "P2")
    answer(game, "Action 1")
    roll(game, [1])
    assert table(game, "food") == 5 + 4


def test_dice_without_a_negative_action_the_card_is_ignored():
    """ "Dice": when the raised requirements cannot be met and the card has no negative action, it is ignored."""
    game = ready(two_player_game(p1=("strongman", "lookout"), p2=("lookout", "healer")))
    p1_resolves(game, "wild_boar")
    roll(game, [4])
    assert table(game, "food") == 5 and "wild_boar" in ids(game, "discard_up")


# ---------------------------------------------------------------- wounds and death
def test_a_human_dies_when_the_hearts_are_full():
    """ "Wounds": one wound per empty heart; the next goes on the skull space and the person dies (remaining
    wounds ignored), goes to the cemetery, and a skull is placed."""
    game = ready(two_player_game(p1=("child", "lookout")))
    explore(game, {"P1": "wolves", "P2": "berries"})
    answer(game, IGNORE, "P2")
    answer(game, "Child")  # 1 heart, 2 wounds
    assert ids(game, "cemetery") == ["human_19"] and table(game, "skulls") == 1
    assert ids(game, "group:P1") == ["human_10"]


def test_the_last_human_dies_and_a_new_one_is_drawn():
    """ "Wounds": if it was the group's last person, a new person is drawn at once."""
    game = ready(two_player_game(p1=("child",)))
    explore(game, {"P1": "wolves", "P2": "berries"})
    answer(game, IGNORE, "P2")
    assert ids(game, "cemetery") == ["human_19"] and len(zone(game, "group:P1")) == 1


def test_heal_is_split_among_the_team():
    """ "Rewards": healing is split among one's own people or those of a group one helps or is helped by."""
    game = two_player_game(p1=("strongman", "lookout"), p2=("hunter", "healer"))
    wound(game, "human_9", 1)
    wound(game, "human_1", 1)
    game = ready(game)
    explore(game, {"P1": "herbs", "P2": "berries"})
    answer(game, RESOLVE, "P1")
    answer(game, HELP, "P2")
    answer(game, "Strongman of P1")  # the second point goes to the only wounded human left, the Hunter
    assert wounds(game, "human_9") == 0 and wounds(game, "human_1") == 0


def test_heal_removes_as_many_wounds_as_the_action_shows():
    """ "Rewards": heal N removes N damage, not more (Healing herbs, a placeholder: heal 2, on a human with 3)."""
    game = two_player_game(p1=("strongman", "crafter"), p2=("hunter", "scout"))
    wound(game, "human_9", 3)
    game = ready(game)
    p1_resolves(game, "herbs")
    assert wounds(game, "human_9") == 1


# ---------------------------------------------------------------- rewards
def test_resources_are_limited_by_the_components():
    """ "Rewards": resources are limited by the components: none left, none gained."""
    game = two_player_game()
    set_table(game, "food", 19, "food_supply")
    game = ready(game)
    explore(game, {"P1": "berries", "P2": "fishing"})
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")
    assert table(game, "food") == 20 and table(game, "food_supply") == 0


def test_a_dream_goes_face_down_on_top_of_the_deck():
    """ "Rewards": a dream, the top of the dream deck, goes face down on top of one's own deck."""
    game = ready(two_player_game(p1=("lookout", "elder")))
    p1_resolves(game, "glade")
    # the next exploration looks at the top of the deck: the dream is the first card taken to look at
    top = zone(game, "looking:P1")[0]
    assert game.rules.cards[game.rules.instances[top]]["type"] == "dream" and not game.can_see(top, "P1")


def test_an_idea_goes_to_the_workbench_and_a_full_bench_loses_one():
    """ "Rewards": an idea goes face up onto an empty workbench slot with its tool tokens (they can be crafted);
    a full workbench means one idea goes to the cemetery."""
    game = two_player_game(p1=("lookout", "elder"))
    for idea in ("idea_tent", "idea_trap", "idea_raft"):
        put(game, idea, "workbench")
    game = ready(game)
    p1_resolves(game, "storytelling")
    assert prompt(game).startswith("The workbench is full")
    answer(game, "Idea: raft") if "Idea: raft" in options(game) else answer(game, "Idea: unnamed tool D")
    assert len(zone(game, "workbench")) == 6 and "idea_raft" in ids(game, "cemetery")


def test_craft_pays_the_idea_and_takes_its_tool():
    """ "Rewards": craft N ideas, a tool token of an idea on the workbench for its cost."""
    game = two_player_game(p1=("artisan", "lookout"))
    set_table(game, "wood", 2, "wood_supply")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    p1_resolves(game, "toolmaking")
    answer(game, "yes")
    answer(game, "Spear")
    answer(game, "yes")  # the torch is all the camp can still pay for
    assert sorted(ids(game, "tools:P1")) == ["spear", "torch"]
    assert table(game, "wood") == 0 and table(game, "stone") == 0


def test_a_new_human_comes_with_its_tool():
    """ "Rewards": a person is drawn face up, with its tools."""
    game = two_player_game(p1=("lookout", "elder"))
    stack_deck(game, "people", ["human_1"])
    game = ready(game)
    p1_resolves(game, "wanderer")
    assert "human_1" in ids(game, "group:P1") and "spear" in ids(game, "tools:P1")
    assert "wanderer" in ids(game, "cemetery")  # the action removes the card


def test_a_secret_is_revealed_once():
    """ "Rewards": a secret is the numbered card from the secret deck, resolved by the player who revealed it,
    never again once revealed."""
    game = ready(two_player_game(p1=("lookout", "artisan")))
    p1_resolves(game, "waterfall")
    answer(game, "Action 1")
    assert ids(game, "secrets_told") == ["secret_1"] and table(game, "food") == 5 + 3


def test_victory_token_reward():
    """ "Rewards": a victory token (Cave painting, a placeholder: 3 skill, 1 wood, 1 stone)."""
    game = two_player_game(p1=("artisan", "lookout"))
    set_table(game, "wood", 1, "wood_supply")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    p1_resolves(game, "cave_painting")
    assert table(game, "victory") == 1 and "cave_painting" in ids(game, "cemetery")


# ---------------------------------------------------------------- the night
def test_night_feeding_and_skulls_for_the_unfed():
    """ "Night": each person eats 1 food from the storage; each unfed person adds a skull and does not die."""
    game = two_player_game()
    set_table(game, "food", 1, "food_supply")
    game = ready(game)
    explore(game, {"P1": SLEEP, "P2": SLEEP})
    assert table(game, "food") == 0 and table(game, "skulls") == 3
    assert len(zone(game, "group:P1")) == 2 and ids(game, "cemetery") == []


def test_night_reshuffles_both_piles_and_the_cemetery_stays():
    """ "Night": both discard piles are shuffled together and dealt face down as evenly as possible; the graveyard
    never returns."""
    game = ready(two_player_game(p1=("child", "lookout")))
    explore(game, {"P1": "wolves", "P2": "berries"})
    answer(game, IGNORE, "P2")
    answer(game, "Child")  # dies: to the cemetery
    explore(game, {"P1": SLEEP, "P2": SLEEP})
    decks = [len(zone(game, f"deck:{p}")) + len(zone(game, f"looking:{p}")) for p in ("P1", "P2")]
    assert decks == [16, 16] and zone(game, "discard_up") == [] and zone(game, "discard_down") == []
    assert ids(game, "cemetery") == ["human_19"]


def test_a_night_card_in_a_group_is_resolved_each_night():
    """ "Night", "Special cards": a card placed in a group with a night action is resolved once every night with
    one of its actions, never ignored (Cave bear: too strong, 1 wound and it stays)."""
    game = ready(two_player_game(p1=("lookout", "elder"), p2=("scout", "healer")))
    explore(game, {"P1": "cave_bear", "P2": "berries"})
    answer(game, IGNORE, "P2")
    answer(game, "Lookout")
    assert ids(game, "kept:P1") == ["cave_bear"]
    explore(game, {"P1": SLEEP, "P2": SLEEP})
    assert prompt(game).startswith("1 wound(s) from one source")
    answer(game, "Lookout")
    assert wounds(game, "human_10") == 2 and ids(game, "kept:P1") == ["cave_bear"]


# ---------------------------------------------------------------- the shared outcome
def test_fifth_victory_token_wins_for_everyone():
    """ "Win": the 5th victory token wins the game for every player."""
    game = two_player_game(p1=("artisan", "lookout"))
    set_table(game, "victory", 4)
    set_table(game, "wood", 1, "wood_supply")
    set_table(game, "stone", 1, "stone_supply")
    game = ready(game)
    p1_resolves(game, "cave_painting")
    assert game.over and game.state["result"]["winners"] == ["P1", "P2"]
    assert game.state["result"]["reason"] == "fifth_victory_token"


def test_fifth_skull_loses_for_everyone():
    """ "Win": the 5th skull loses the game for everyone."""
    game = two_player_game()
    set_table(game, "skulls", 4)
    set_table(game, "food", 3, "food_supply")
    game = ready(game)
    explore(game, {"P1": SLEEP, "P2": SLEEP})
    assert game.over and game.state["result"]["winners"] == []
    assert game.state["result"]["reason"] == "fifth_skull"


def test_fifth_skull_and_fifth_victory_at_once_win():
    """ "Win": both at once win. The Dream of a painting (3 skill, discard 1: a victory token) discards a red back:
    its wound kills the wounded Child (the 5th skull), and the same action gives the 5th victory token."""
    game = two_player_game(p1=("artisan", "child"))
    wound(game, "human_19", 1)  # the Child's one heart is full
    set_table(game, "victory", 4)
    set_table(game, "skulls", 4)
    game = ready(game)
    explore(game, {"P1": "dream_painting", "P2": "berries"})
    stack_deck(game, "deck:P1", ["wolves"])
    answer(game, RESOLVE, "P1")
    answer(game, IGNORE, "P2")
    answer(game, "Child")
    assert table(game, "skulls") == 5 and table(game, "victory") == 5
    assert game.over and game.state["result"]["winners"] == ["P1", "P2"]


def test_the_game_ends_at_once_at_the_fifth_skull():
    """ "Win": the 5th skull loses at once: the cards still revealed are not resolved and no night follows."""
    game = two_player_game(p1=("child", "lookout"))
    set_table(game, "skulls", 4)
    game = ready(game)
    explore(game, {"P1": "wolves", "P2": "berries"})
    answer(game, RESOLVE, "P2")
    answer(game, "P1: Wolves")
    answer(game, "Child")
    assert game.over and game.state["result"]["winners"] == [] and game.state["result"]["reason"] == "fifth_skull"
    assert ids(game, "revealed:P2") == ["berries"] and table(game, "food") == 5


# ---------------------------------------------------------------- view safety
def test_nobody_reads_a_card_they_never_saw():
    """ "Choosing a card", "Setup": until the reveal no player sees another's chosen card, and nobody sees any
    deck's order (random games at every player count, every view, log line and option checked)."""
    from test_view_leaks import play_watched

    checks = 0
    for seed, players in enumerate([1, 2, 3, 4]):
        game = Game.new(ruleset(), players, seed, max_rounds=6)
        checks += play_watched(game, seed, 300, f"paleo, seed {seed}, {players} players").checks
    assert checks > 100
