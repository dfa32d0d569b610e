"""Stone Age (content/stone-age), rule by rule: each test plays the situation of one point of
shared/reference/stone-age-base.md (named in its docstring) and checks what the rules say, including every
worked example the reference lists. Dice are chance decisions: a scenario answers them with the faces the
example shows; every scenario starts from a saved and loaded game."""

from __future__ import annotations

import pytest
from scenario import answer, ids, options, prompt, put, ready, saved_and_loaded, stack_deck
from scenario import new_game as _new_game

from engine.runtime.game import CHANCE

PACK = "stone-age"
HUNT = "Hunting grounds"


def new_game(players=2, seed=0):
    return ready(_new_game(players, seed, pack=PACK))


def place(game, where, n=None):
    """The player to place puts `n` figures (all that are asked when there is one choice) on `where`."""
    answer(game, where)
    if prompt(game).startswith("How many"):
        answer(game, str(n))


def roll(game, faces):
    for face in faces:
        assert game.decision.is_chance, prompt(game)
        game.apply(face - 1, CHANCE)


def placing(game) -> bool:
    return prompt(game).startswith("Where do you place")


def rest_on_hunting(game):
    """Everyone still placing puts all their figures on the hunting grounds (or anywhere, if already there)."""
    while placing(game):
        where = HUNT if HUNT in options(game) else options(game)[0]
        place(game, where, len(game.state["zones"][f"home:{game.decision.players[0]}"]))


def passive(game):
    """A player who hunts with everything, declines every purchase, keeps their tools and will not pay
    hunger with resources."""
    asked, offered = prompt(game), options(game)
    if asked.startswith("Where do you place"):
        return HUNT if HUNT in offered else offered[0]
    if asked.startswith("How many figures"):
        return offered[-1]
    return "done" if "done" in offered else "no" if "no" in offered else None


def play_on(game, until, choose=None):
    """Answer (chance from the game's stream, choices by `choose(game)`, else as `passive`, else the first
    legal option) until `until(game)` holds."""
    while not game.over and not until(game):
        if game.decision.is_chance:
            game.apply_chance()
            continue
        label = (choose(game) if choose else None) or passive(game)
        if label is None:
            game.apply(game.legal(game.decision.players[0])[0], game.decision.players[0])
        else:
            answer(game, label)


def counter(game, player, name):
    return game.state["counters"][player][name]


def set_counter(game, player, name, value):
    game.state["counters"][player][name] = value


def home(game, player):
    return len(game.state["zones"][f"home:{player}"])


def to_resolve(game, player):
    """Play on until `player` is asked which place to resolve (or its only place starts resolving)."""
    play_on(
        game,
        lambda g: g.decision.players == [player] or (g.decision.is_chance and g.state["stack"][-1]["me"] == player),
    )


def on_top(game, card_id, zone):
    """A card on top of a pile: one already there moves up, else one from elsewhere (a copy in the box)."""
    here = [x for x in game.state["zones"][zone] if game.rules.instances[x] == card_id]
    if here:
        game.move(here[0], zone)
    else:
        put(game, card_id, zone)


def resolve(game, player, where):
    """Play on to `player`'s actions and resolve `where` first (asked only when they have several places)."""
    to_resolve(game, player)
    if not game.decision.is_chance and prompt(game).startswith("Which of your places"):
        answer(game, where)


# ---------------------------------------------------------------- setup
def test_setup_for_two_players():
    """ "Supply", "Player": 5 figures and food worth 12 each; buildings in piles of 7, one per player, the
    rest in the box; 4 civilization cards laid out (36 - 4 left in the deck); agriculture and score 0."""
    game = new_game(2)
    for p in ("P1", "P2"):
        assert home(game, p) == 5 and len(game.state["zones"][f"figure_box:{p}"]) == 5
        assert counter(game, p, "food") == 12 and counter(game, p, "agriculture") == 0
        assert counter(game, p, "vp") == 0
    assert [len(game.state["zones"][f"building_pile_{k}"]) for k in range(1, 5)] == [7, 7, 0, 0]
    assert len(game.state["zones"]["building_box"]) == 14
    assert None not in game.state["zones"]["civ_display"] and len(game.state["zones"]["civ_deck"]) == 32
    # only the top building of a pile is face up
    pile = game.state["zones"]["building_pile_1"]
    assert game.can_see(pile[-1], "P2") and not game.can_see(pile[0], "P2")


def test_four_players_have_four_piles():
    """ "Player": one pile of 7 buildings per player."""
    game = new_game(4)
    assert [len(game.state["zones"][f"building_pile_{k}"]) for k in range(1, 5)] == [7, 7, 7, 7]
    assert "Building pile 4" in options(game)


# ---------------------------------------------------------------- placement
def test_never_where_you_already_are_and_no_passing():
    """ "Placement": a player may never add figures to a place where they already have some, and may not
    pass while a figure can still be placed (there is no option to pass)."""
    game = new_game(4)
    place(game, HUNT, 2)
    for _ in range(3):
        place(game, "Forest", 1)
    assert game.decision.players == ["P1"]
    assert HUNT not in options(game) and "Forest" in options(game) and "Clay pit" in options(game)
    assert not any("pass" in o.lower() or o == "done" for o in options(game))


def test_hut_takes_exactly_two_of_one_player_placed_together():
    """ "Capacities", "Placement": the hut takes exactly 2 figures of one player, placed together; a player
    with a single figure left cannot use it."""
    game = new_game(4)
    answer(game, "Hut")
    assert home(game, "P1") == 3 and len(game.state["zones"]["hut:P1"]) == 2  # no "how many": always 2
    assert "Hut" not in options(game)  # P2: the hut is full
    game = new_game(4)
    place(game, HUNT, 4)  # P1 keeps 1 figure
    for _ in range(3):
        place(game, "Forest", 1)
    assert game.decision.players == ["P1"] and "Hut" not in options(game) and "Field" in options(game)


def test_single_places_take_one_figure():
    """ "Capacities": tool maker 1, field 1, each civilization card 1, each top building 1."""
    game = new_game(4)
    for where in ("Tool maker", "Field", "Civilization card 1 (costs 1)", "Building pile 1"):
        answer(game, where)  # one figure: no "how many" question
        assert not prompt(game).startswith("How many")
        assert where not in options(game)  # the next player cannot go there
    assert all(
        len(game.state["zones"][z]) == 1 for z in ("tool_maker:P1", "field:P2", "civ_place_1:P3", "building_place_1:P4")
    )


def test_forest_example_is_full_at_seven():
    """Worked example "Forest": Red 4 figures, Yellow adds 2, Blue adds 1: the forest is full (7)."""
    game = new_game(4)
    place(game, "Forest", 4)  # Red
    place(game, "Forest", 2)  # Yellow
    answer(game, "Forest")  # Blue: at most 7 - 6 = 1 figure
    assert home(game, "P3") == 4 and len(game.state["zones"]["forest:P3"]) == 1
    assert "Forest" not in options(game)  # the fourth player: full
    assert game.rules.zones["forest"]["capacity"] == 7


def test_forest_offers_only_the_room_left():
    """ "Capacities": with 5 figures on the forest the next player may put at most 2 there; then it is full."""
    game = new_game(4)
    place(game, "Forest", 5)
    answer(game, "Forest")
    assert options(game) == ["1", "2"]
    answer(game, "2")
    assert "Forest" not in options(game)


@pytest.mark.parametrize("players, limit", [(2, 2), (3, 2), (4, 3)])
def test_village_limit_by_player_count(players, limit):
    """ "Capacities": with 2-3 players only 2 of the tool maker, hut and field are used in a round."""
    game = new_game(players)
    used = 0
    for where in ("Tool maker", "Field", "Hut"):
        if where not in options(game):
            break
        place(game, where)
        used += 1
    assert used == limit
    if limit == 2:
        assert "Hut" not in options(game) and "Tool maker" not in options(game)


@pytest.mark.parametrize("players, limit", [(2, 1), (3, 2), (4, 4)])
def test_players_per_resource_area(players, limit):
    """ "Capacities": with 3 players at most 2 players on a resource area, with 2 players only 1; the
    hunting grounds are unlimited."""
    game = new_game(players)
    for _ in range(limit):
        place(game, "Quarry", 1)
    assert "Quarry" not in options(game)
    assert HUNT in options(game)


def test_placement_ends_when_nobody_can_place():
    """ "Placement": placement goes round in turn order until every figure is placed."""
    game = new_game(2)
    place(game, HUNT, 1)
    place(game, HUNT, 5)  # P2 is done
    place(game, "Forest", 1)  # P1 goes on alone
    place(game, "River", 1)
    place(game, "Clay pit", 2)
    assert not placing(game) and home(game, "P1") == 0 and home(game, "P2") == 0


# ---------------------------------------------------------------- gathering and tools: the worked examples
def _hunt_with(tools, figures, faces, use, *, turned=()):
    """P1 (2 players) puts `figures` on the hunting grounds holding tool tiles `tools`; the dice show
    `faces`; P1 adds the tools named in `use`. Returns the game after P1's hunt."""
    game = new_game(2)
    for value in tools:
        put(game, f"tool_{value}", "tools:P1")
    for value in turned:
        card = next(
            x
            for x in game.state["zones"]["tools:P1"]
            if game.rules.instances[x] == f"tool_{value}" and game.state["orient"][x] == 0
        )
        game.state["orient"][card] = 1
    game = saved_and_loaded(game)
    place(game, HUNT, figures)
    rest_on_hunting(game)
    resolve(game, "P1", HUNT)
    roll(game, faces)
    for value in use:
        answer(game, f"Tool {value}")
    if game.decision is not None and game.decision.players == ["P1"] and "done" in options(game):
        answer(game, "done")
    return game


def test_hunting_five_dice_fourteen_no_tools_seven_food():
    """Worked example: hunting, 5 dice show 14, no tools: 7 food."""
    game = _hunt_with([], 5, [2, 3, 3, 3, 3], [])
    assert counter(game, "P1", "food") == 12 + 7


def test_hunting_eleven_and_a_tool_of_one_six_food_tool_spent():
    """Worked example: hunting, 3 dice show 11, one tool of value 1: 12, so 6 food; the tool is spent."""
    game = _hunt_with([1], 3, [3, 4, 4], [1])
    assert counter(game, "P1", "food") == 12 + 6
    (tool,) = game.state["zones"]["tools:P1"]
    assert game.state["orient"][tool] == 1  # turned: used this round


def test_hunting_four_and_two_tools_of_one_three_food():
    """Worked example: hunting, 2 dice show 4, two tools of value 1: 6, so 3 food."""
    game = _hunt_with([1, 1], 2, [2, 2], [1, 1])
    assert counter(game, "P1", "food") == 12 + 3


def test_tools_are_chosen_after_the_roll_and_may_be_kept():
    """ "Tools": tools are added after seeing the dice, each whole, and a player may keep them."""
    game = new_game(2)
    put(game, "tool_1", "tools:P1")
    game = saved_and_loaded(game)
    place(game, HUNT, 3)
    rest_on_hunting(game)
    resolve(game, "P1", HUNT)
    roll(game, [2, 3, 4])  # 9: 4 food with or without the tool (10 / 2 = 5 with it)
    assert prompt(game).startswith("The dice are rolled") and options(game) == ["Tool 1 (P1's tool tiles)", "done"]
    answer(game, "done")
    assert counter(game, "P1", "food") == 12 + 4
    (tool,) = game.state["zones"]["tools:P1"]
    assert game.state["orient"][tool] == 0


def _river(tools, faces, use, *, turned=()):
    game = new_game(2)
    for value in tools:
        put(game, f"tool_{value}", "tools:P1")
    for card in game.state["zones"]["tools:P1"][: len(turned)]:
        game.state["orient"][card] = 1
    game = saved_and_loaded(game)
    place(game, "River", len(faces))
    rest_on_hunting(game)
    place(game, HUNT, 5 - len(faces)) if placing(game) else None
    resolve(game, "P1", "River")
    roll(game, faces)
    for value in use:
        answer(game, f"Tool {value}")
    if game.decision is not None and game.decision.players == ["P1"] and "done" in options(game):
        answer(game, "done")
    return game


def test_river_five_with_the_only_tool_used_gives_nothing():
    """Worked example: river, 2 dice show 5, the only tool already used: 5 / 6 = 0 gold (no tool offered)."""
    game = _river([1], [2, 3], [], turned=[1])
    assert counter(game, "P1", "gold") == 0


def test_river_seven_and_three_tools_of_two_gives_two_gold():
    """Worked example: river, 3 dice show 7, three tools of value 2: 13, so 2 gold."""
    game = _river([2, 2, 2], [1, 2, 4], [2, 2, 2])
    assert counter(game, "P1", "gold") == 2


@pytest.mark.parametrize(
    "where, faces, counter_name, expected",
    [
        ("Forest", [6, 6, 6], "wood", 6),
        ("Clay pit", [6, 6, 6], "clay", 4),
        ("Quarry", [6, 6, 6], "stone", 3),
        ("River", [6, 6, 6], "gold", 3),
        ("Forest", [1, 1], "wood", 0),
    ],
)
def test_gathering_divides_down(where, faces, counter_name, expected):
    """ "Gathering": a die per figure, the sum divided down: forest /3, clay pit /4, quarry /5, river /6."""
    game = new_game(2)
    place(game, where, len(faces))
    rest_on_hunting(game)
    resolve(game, "P1", where)
    roll(game, faces)
    assert counter(game, "P1", counter_name) == expected


# ---------------------------------------------------------------- village
def _visit(game_players, where, prepare=None):
    game = new_game(game_players)
    if prepare:
        prepare(game)
        game = saved_and_loaded(game)
    place(game, where)
    play_on(game, lambda g: g.state["turn"]["number"] == 2 or g.over)
    return game


def test_tool_maker_gives_new_tiles_then_upgrades():
    """ "Tools": the 1st-3rd tools are new tiles of 1; the 4th turns a 1 into a 2."""
    game = _visit(2, "Tool maker")
    assert ids(game, "tools:P1") == ["tool_1"]
    game = _visit(2, "Tool maker", lambda g: put(g, "tool_1", "tools:P1", copies=3))
    assert sorted(ids(game, "tools:P1")) == ["tool_1", "tool_1", "tool_2"]


def test_tools_top_out_at_twelve():
    """ "Tools": at most 3 tiles, 12 in all: three tiles of 4 gain nothing more."""
    game = _visit(2, "Tool maker", lambda g: put(g, "tool_4", "tools:P1", copies=3))
    assert ids(game, "tools:P1") == ["tool_4"] * 3


def test_tools_are_upright_again_next_round():
    """ "New round": used tools become usable again."""
    game = _hunt_with([1], 3, [3, 4, 4], [1])
    play_on(game, lambda g: g.state["turn"]["number"] == 2)
    assert [game.state["orient"][x] for x in game.state["zones"]["tools:P1"]] == [0]


def test_hut_gives_a_figure_up_to_ten():
    """ "Hut +1 figure" (max 10)."""
    game = _visit(2, "Hut")
    assert home(game, "P1") == 6 and len(game.state["zones"]["figure_box:P1"]) == 4

    def ten(g):
        for card in list(g.state["zones"]["figure_box:P1"]):
            g.move(card, "home:P1")
        set_counter(g, "P1", "food", 30)

    game = _visit(2, "Hut", ten)
    assert home(game, "P1") == 10


def test_field_raises_agriculture_up_to_ten():
    """ "Field agriculture +1 (0..10)"; agriculture feeds first ("Feeding")."""
    game = _visit(2, "Field")
    assert counter(game, "P1", "agriculture") == 1
    game = _visit(2, "Field", lambda g: set_counter(g, "P1", "agriculture", 10))
    assert counter(game, "P1", "agriculture") == 10


# ---------------------------------------------------------------- civilization cards
def _buy_civ(card, slot, *, resources=None, pay=(), buy=True, deck_top=(), after=None, players=2):
    """P1 puts a figure on display place `slot` holding `card`, the rest on the hunting grounds, and buys it
    (or not), paying with the kinds in `pay`. Returns the game right after the purchase."""
    game = new_game(players)
    put(game, card, "civ_display", slot=slot)
    if deck_top:
        stack_deck(game, "civ_deck", list(deck_top))
    for kind, amount in (resources or {}).items():
        set_counter(game, "P1", kind, amount)
    game = saved_and_loaded(game)
    place(game, f"Civilization card {slot} (costs {slot})")
    rest_on_hunting(game)
    resolve(game, "P1", f"Civilization card {slot}")
    if not prompt(game).startswith("Buy this civilization card"):
        return game
    answer(game, "yes" if buy else "no")
    for kind in pay:
        answer(game, kind)
    if after:
        after(game)
    return game


def test_a_civilization_card_costs_its_place_in_any_resources():
    """ "Civ card": pay 1-4 resources by the card's place, any mix of wood/clay/stone/gold (no food); its
    top is carried out at once (Music: 3 points)."""
    game = _buy_civ("music_points", 3, resources={"wood": 1, "gold": 2}, pay=["wood"])
    assert "music_points" in ids(game, "civ_cards:P1") and counter(game, "P1", "vp") == 3
    assert counter(game, "P1", "wood") == 0 and counter(game, "P1", "gold") == 0
    assert counter(game, "P1", "food") == 12  # food never pays


def test_a_civilization_card_may_be_declined_and_stays():
    """ "Civilization card": the player may refuse to pay: the figure comes back and the card stays."""
    game = _buy_civ("music_points", 2, resources={"stone": 2}, buy=False)
    assert ids(game, "civ_display")[1] == "music_points" and counter(game, "P1", "stone") == 2
    assert game.state["zones"]["civ_place_2:P1"] == []


def test_a_civilization_card_nobody_can_pay_stays():
    """ "Civilization card": a player unable to pay gets nothing; the card stays (nothing is asked)."""
    game = _buy_civ("music_points", 4, resources={"stone": 3})
    assert ids(game, "civ_display")[3] == "music_points" and counter(game, "P1", "stone") == 3


def test_dice_for_everyone_buyer_chooses_first():
    """ "Civ top effects": dice for everyone: a die per player, the buyer takes one first, then the others in
    turn; 1 wood, 2 clay, 3 stone, 4 gold, 5 a tool, 6 agriculture."""

    def take(game):
        roll(game, [6, 1, 5])
        assert prompt(game) == "Which die do you take?" and options(game, "P1") == ["6", "1", "5"]
        answer(game, "6")  # P1: agriculture
        assert game.decision.players == ["P2"] and options(game) == ["1", "5"]
        answer(game, "5")  # P2: a tool; P3 is left the 1: wood

    game = _buy_civ("pottery_dice", 1, resources={"clay": 1}, after=take, players=3)
    assert counter(game, "P1", "agriculture") == 1
    assert ids(game, "tools:P2") == ["tool_1"] and counter(game, "P3", "wood") == 1


def test_writing_takes_an_extra_card_whose_top_does_nothing():
    """ "Civ top effects": extra card (only its bottom counts): the top card of the deck is taken, its top
    effect is not carried out."""
    game = _buy_civ("writing_extra_card", 1, resources={"wood": 1}, deck_top=["music_points"])
    assert sorted(ids(game, "civ_cards:P1")) == ["music_points", "writing_extra_card"]
    assert counter(game, "P1", "vp") == 0


def test_a_one_use_tool_card_is_used_once_and_kept():
    """ "One-use tool civilization cards lie beside the board until used, then are scored with the others"."""
    game = new_game(2)
    put(game, "tool_makers_tool_3", "civ_cards:P1")
    game = saved_and_loaded(game)
    place(game, HUNT, 5)
    rest_on_hunting(game)
    resolve(game, "P1", HUNT)
    roll(game, [1, 1, 1, 1, 1])
    answer(game, "Tool makers (1): one-use tool 3")
    assert counter(game, "P1", "food") == 12 + 4  # (5 + 3) / 2
    (card,) = game.state["zones"]["civ_cards:P1"]
    assert game.state["orient"][card] == 2  # turned over for good
    play_on(game, lambda g: g.state["turn"]["number"] == 2)
    assert game.state["orient"][card] == 2


# ---------------------------------------------------------------- buildings
def _build(building, resources, answers, *, buy=True):
    game = new_game(2)
    on_top(game, building, "building_pile_1")
    for kind, amount in resources.items():
        set_counter(game, "P1", kind, amount)
    game = saved_and_loaded(game)
    place(game, "Building pile 1")
    rest_on_hunting(game)
    resolve(game, "P1", "Building pile 1")
    if prompt(game).startswith("Buy this building"):
        answer(game, "yes" if buy else "no")
        for label in answers:
            answer(game, label)
    return game


def test_a_fixed_building_scores_its_printed_value():
    """ "Building": pay the shown resources and score at once: 2 wood + 1 clay = 10; the next building of
    the pile is then face up."""
    game = _build("building_wwc", {"wood": 2, "clay": 2}, [])
    assert counter(game, "P1", "vp") == 10 and ids(game, "buildings:P1") == ["building_wwc"]
    assert counter(game, "P1", "wood") == 0 and counter(game, "P1", "clay") == 1
    pile = game.state["zones"]["building_pile_1"]
    assert len(pile) == 7 and game.can_see(pile[-1], "P2")


def test_a_choice_building_scores_the_value_paid():
    """ "Building": a choice building takes 4 or 5 resources of exactly so many kinds and scores the value
    paid (wood 3, clay 4, stone 5, gold 6): 4 of 2 kinds as 1 wood + 3 gold = 21."""
    game = _build("building_4_of_2", {"wood": 1, "gold": 3, "clay": 1}, [])
    assert prompt(game) == "Which kinds of resources do you pay?"
    assert options(game) == ["wood + gold", "clay + gold"]  # wood + clay cannot make 4 (a list option: " + ")
    answer(game, "wood + gold")  # then gold only is left to pay: no question
    assert counter(game, "P1", "vp") == 3 + 6 * 3 and counter(game, "P1", "clay") == 1


def test_an_any_building_takes_one_to_seven():
    """ "Building": 1-7 resources of any kind, scoring the value paid."""
    game = _build("building_any", {"stone": 2, "wood": 9}, ["2", "stone", "stone"])
    assert counter(game, "P1", "vp") == 10 and counter(game, "P1", "wood") == 9
    game = _build("building_any", {"wood": 9}, [])
    assert options(game) == [str(n) for n in range(1, 8)]


def test_a_building_may_be_declined():
    """ "Buildings likewise": the figure comes back and the building stays on its pile."""
    game = _build("building_ssg", {"stone": 2, "gold": 1}, [], buy=False)
    assert counter(game, "P1", "vp") == 0 and ids(game, "building_pile_1")[-1] == "building_ssg"


# ---------------------------------------------------------------- feeding
def _feed(food, agriculture, resources, pay):
    game = new_game(2)
    set_counter(game, "P1", "food", food)
    set_counter(game, "P1", "agriculture", agriculture)
    for kind, amount in resources.items():
        set_counter(game, "P1", kind, amount)
    game = saved_and_loaded(game)
    place(game, "River", 5)
    rest_on_hunting(game)
    resolve(game, "P1", "River")
    roll(game, [1, 1, 1, 1, 1])  # no gold
    play_on(
        game,
        lambda g: (
            g.decision.players == ["P1"] and prompt(g).startswith("Not enough food") or g.state["turn"]["number"] == 2
        ),
    )
    if prompt(game).startswith("Not enough food"):
        answer(game, pay[0])
        for label in pay[1:]:
            answer(game, label)
    play_on(game, lambda g: g.state["turn"]["number"] == 2)
    return game


def test_agriculture_feeds_first():
    """ "Feeding": first 1 food per agriculture level, then 1 food per figure: 2 food + 3 = 5 figures fed."""
    game = _feed(2, 3, {}, [])
    assert counter(game, "P1", "food") == 0 and counter(game, "P1", "vp") == 0


def test_short_of_food_pays_with_resources():
    """ "Feeding": short, all food is used, then resources pay the rest 1:1."""
    game = _feed(3, 0, {"stone": 1, "wood": 1}, ["yes", "stone"])
    assert counter(game, "P1", "food") == 0 and counter(game, "P1", "stone") == 0
    assert counter(game, "P1", "wood") == 0 and counter(game, "P1", "vp") == 0


def test_short_of_food_may_take_minus_ten_and_go_negative():
    """ "Feeding": a player who will not pay loses exactly 10 points; the score may go negative."""
    game = _feed(3, 0, {"stone": 5}, ["no"])
    assert counter(game, "P1", "vp") == -10 and counter(game, "P1", "stone") == 5
    assert counter(game, "P1", "food") == 0


def test_short_of_food_and_of_resources_loses_ten():
    """ "Feeding": a player who cannot pay loses 10 points (nothing is asked)."""
    game = _feed(0, 0, {"stone": 1}, [])
    assert counter(game, "P1", "vp") == -10 and counter(game, "P1", "stone") == 1


# ---------------------------------------------------------------- a new round
def test_new_round_slides_the_cards_right_and_refills():
    """Worked example "New round": the 2nd and 3rd cards were taken; the 1st stays, the 4th slides right next
    to it, two new cards fill the rest; the first player passes left."""
    game = new_game(2)
    for slot, card in enumerate(["music_points", "farmers_food", "shamans_gold", "art_tool"], 1):
        put(game, card, "civ_display", slot=slot)
    stack_deck(game, "civ_deck", ["pottery_food", "healing_food"])
    for taken in game.state["zones"]["civ_display"][1:3]:
        game.move(taken, "_removed")
    game = saved_and_loaded(game)
    assert ids(game, "civ_display") == ["music_points", None, None, "art_tool"]
    play_on(game, lambda g: g.state["turn"]["number"] == 2)
    assert ids(game, "civ_display") == ["music_points", "art_tool", "pottery_food", "healing_food"]
    assert game.decision.players == ["P2"] and placing(game)  # P2 is the first player now


# ---------------------------------------------------------------- the ends and the final scoring
def test_game_ends_at_once_when_the_display_cannot_be_filled():
    """ "End" (1): at the start of a round there are not enough civilization cards to fill the 4 places:
    the game ends at once (no placement in that round)."""
    game = new_game(2)
    display = game.state["zones"]["civ_display"]
    for card in display[:2]:
        game.move(card, "_removed")
    for card in list(game.state["zones"]["civ_deck"])[1:]:
        game.move(card, "_removed")
    game = saved_and_loaded(game)
    play_on(game, lambda g: False)
    assert game.over and game.state["result"]["reason"] == "display_cannot_refill"
    assert game.state["result"]["turns"] == 1


def test_an_empty_building_pile_ends_the_game_after_the_round():
    """ "End" (2): a building pile is empty: the round is finished (feeding included), then the game ends.
    P1 buys the last building of pile 1 (10 points), hunts 2 food with 4 figures and, with no food or
    resource left, loses 10 at the feeding of that same round."""
    game = new_game(2)
    on_top(game, "building_wwc", "building_pile_1")
    for card in game.state["zones"]["building_pile_1"][:-1]:
        game.move(card, "building_box")
    set_counter(game, "P1", "wood", 2)
    set_counter(game, "P1", "clay", 1)
    set_counter(game, "P1", "food", 0)
    game = saved_and_loaded(game)
    place(game, "Building pile 1")
    rest_on_hunting(game)
    resolve(game, "P1", HUNT)
    roll(game, [1, 1, 1, 1])
    answer(game, "Building pile 1") if prompt(game).startswith("Which of your places") else None
    answer(game, "yes")
    assert game.state["zones"]["building_pile_1"] == [] and not game.over
    play_on(game, lambda g: False)
    assert game.state["result"]["reason"] == "building_pile_empty" and game.state["result"]["turns"] == 1
    assert game.state["result"]["scores"]["P1"] == 10 - 10


def _ending_now(prepare):
    """A game that ends after its first round (the display cannot be refilled); `prepare` lays out the
    players' cards and counters first; everyone hunts with dice of 1."""
    game = new_game(2)
    display = game.state["zones"]["civ_display"]
    game.move(display[0], "_removed")
    for card in list(game.state["zones"]["civ_deck"]):
        game.move(card, "_removed")
    prepare(game)
    game = saved_and_loaded(game)
    play_on(game, lambda g: False)
    assert game.state["result"]["reason"] == "display_cannot_refill"
    return game


def test_final_scoring():
    """ "Final scoring": green sets of different symbols score their size squared, several sets (pottery,
    healing, weaving + pottery: 9 + 1); farmers x agriculture (2 x 3), tool makers x tool value (2 x 5),
    hut builders x buildings (3 x 2), shamans x figures (2 x 5); 1 per resource left (3), not food."""

    def prepare(game):
        for card in (
            "pottery_food",
            "pottery_dice",
            "healing_food",
            "weaving_food_3",
            "farmers_food",
            "tool_makers_dice",
            "hut_builders_points",
            "shamans_clay",
        ):
            put(game, card, "civ_cards:P1")
        put(game, "tool_2", "tools:P1")
        put(game, "tool_3", "tools:P1")
        put(game, "building_wwc", "buildings:P1")
        put(game, "building_any", "buildings:P1")
        set_counter(game, "P1", "agriculture", 3)
        set_counter(game, "P1", "wood", 2)
        set_counter(game, "P1", "gold", 1)

    game = _ending_now(prepare)
    assert game.state["result"]["scores"]["P1"] == (9 + 1) + 2 * 3 + 2 * 5 + 3 * 2 + 2 * 5 + 3
    assert game.state["result"]["winners"] == ["P1"]


def test_ties_are_broken_by_agriculture_tools_and_figures():
    """ "Ties": the tied players compare agriculture level + total tool value + number of figures."""
    game = _ending_now(lambda g: set_counter(g, "P2", "agriculture", 1))
    scores = game.state["result"]["scores"]
    assert scores["P1"] == scores["P2"] and game.state["result"]["winners"] == ["P2"]
    game = _ending_now(lambda g: None)
    assert game.state["result"]["winners"] == ["P1", "P2"]


# ---------------------------------------------------------------- the generic primitives the pack uses
def test_a_full_place_refuses_one_more_card_with_a_clear_error():
    """A zone's `capacity` counts all players' cards there: a rule that moves an 8th figure onto the forest
    stops with a content error naming the place (no silent overfilling)."""
    from engine.runtime.errors import ContentError

    game = new_game(4)
    place(game, "Forest", 5)
    place(game, "Forest", 2)
    spare = game.state["zones"]["home:P3"][0]
    with pytest.raises(ContentError, match="P3's forest is full: it holds at most 7") as caught:
        game.move(spare, "forest:P3")
    assert caught.value.code == "X112"  # zone-full; the message names the place and its capacity
    game.move(game.state["zones"]["forest:P1"][0], "forest:P1")  # a move inside the place is fine


def test_room_counts_capacity_slots_or_everything():
    """`room(zone)`: what is left of a capacity over all players, the empty slots of a row, else every card."""
    from engine.runtime.compiler import compile_text
    from engine.runtime.game import Ctx

    game = new_game(3)
    place(game, "Forest", 3)
    game.move(game.state["zones"]["civ_display"][1], "_removed")

    def value(text):
        return compile_text(game.rules, "test", text, "expression")(Ctx(game, {}, "P2", None))

    assert value("room(forest)") == 4 and value("room(civ_display)") == 1
    assert value("room(hunting_grounds)") == len(game.rules.instances)
    assert value("count(own(forest, current))") == 3 and value("amount(food, current)") == 12
    assert value("players_from(next_player(current))") == ["P2", "P3", "P1"]


def test_slide_needs_a_row_of_slots():
    """`slide` on a zone that is not a row of slots is a content error, not a crash."""
    from engine.runtime.errors import ContentError
    from engine.runtime.places import slide

    game = new_game(2)
    with pytest.raises(ContentError) as caught:
        slide(game, "civ_deck", None)
    assert caught.value.code == "X113"  # not-a-slotted-row
    display = game.state["zones"]["civ_display"]
    kept = [display[0], display[3]]
    game.move(display[1], "_removed")
    game.move(display[2], "_removed")
    assert slide(game, "civ_display", None) == [] and display == kept + [None, None]
