"""Scenario tests: the Neolithibum pack played by the engine, rule by rule, against its rulebook
(shared/rulebooks/neolithibum.txt). Each scenario is set up on a new game, saved and loaded, then driven
by answering options by their labels: the secret choices (`choose_secretly`, kind "secret") and the sealed
bids (kind "bid") player by player, the oracle (kind "oracle", players ["chance"]) by the outcome wanted.
Each docstring names the rulebook section it checks.

Numbers that the rulebook does not print (meals in the bag, stones and handicaps per pile, skull pieces,
retries, the oracle's model) are the pack's own placeholders and assumptions, read from content/neolithibum.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario import (
    answer,
    ids,
    new_game,
    options,
    prompt,
    put,
    ready,
    ruleset,
    set_counter,
    stack_deck,
)

PACK = "neolithibum"
CARD = {
    "small": "Stone Carrier (small stone)",
    "medium": "Stone Carrier (medium stone)",
    "large": "Stone Carrier (large stone)",
    "know_it_all": "Know-it-all",
    "glutton": "Glutton",
    "clubman": "Clubman",
}
STONE = {1: "small_stone", 2: "medium_stone", 3: "large_stone"}
PILE = {1: "small_stones", 2: "medium_stones", 3: "large_stones"}
FULL_PILES = {"small_stones": 8, "medium_stones": 6, "large_stones": 4}
PIECES = ["skull_crown", "brow_ridge", "upper_jaw", "lower_jaw"]
CHOOSE_CARD = "Which action card do you play this round?"
AIM = "At which player does your card point?"
OBJECTION = "Does the stone lie properly, or do you object?"
HOLD_FIRM = "Your stone is doubted. Hold firm"
LAST_DOUBT = "Your stone is doubted and may not be placed again"
TRY_AGAIN = "Only your own stone fell. Try again?"
FROM_PIT = "Take a piece from the bone pit"
GIVE_FROM_PIT = "Give the winner a piece from the bone pit"
COWARDICE = "No stone was placed this round"
SIDES = "A duel of meals: whose side do you take?"


# ---------------------------------------------------------------------------------------------- helpers
def from_bag(g, piece, zone):
    """Move one copy of a skull piece out of the bag (never from a skull or the pit) into a zone."""
    number = next(n for n in g.state["zones"]["piece_bag"] if g.rules.instances[n] == piece)
    g.move(number, zone)


def game(players=2, *, meals=None, skulls=None, pit=(), bag=(), temple=(), handicaps=None, meal_bag=None, seed=0):
    """A new game at the first round's card choice: pieces on skulls and in the bone pit (taken from the
    bag), the bag's top stacked (first named on top), stones already on the temple, meals set."""
    g = new_game(players, seed, pack=PACK)
    for player, pieces in (skulls or {}).items():
        for piece in pieces:
            from_bag(g, piece, f"skull:{player}")
    for piece in pit:
        from_bag(g, piece, "bone_pit")
    for stone in temple:
        put(g, stone, "temple")
    for player, value in (meals or {}).items():
        set_counter(g, player, "meals", value)
    if meal_bag is not None:
        g.state["counters"]["table"]["meal_bag"] = meal_bag
    if bag:
        stack_deck(g, "piece_bag", list(bag))
    for category, top in (handicaps or {}).items():
        stack_deck(g, f"handicaps_{category}", top)
    return ready(g)


def with_parameters(g, **values):
    """Change the pack's parameters of a game already loaded (a save holds the pack's own parameters, so the
    change is made after loading, in memory)."""
    assert set(values) <= set(g.params)
    g.params.update(values)
    return g


def meals(g, player):
    return g.state["counters"][player]["meals"]


def meal_bag(g):
    return g.state["counters"]["table"]["meal_bag"]


def sorted_ids(g, zone):
    return sorted(ids(g, zone))


def log(g, player="P1"):
    return g.view(player)["log"]


def choose_cards(g, **cards):
    """Everyone's secret card choice: P1="small", P2="glutton", ..."""
    assert g.decision.kind == "secret" and prompt(g) == CHOOSE_CARD
    for player, card in cards.items():
        answer(g, CARD[card], player)


def choose_aims(g, **aims):
    """Everyone's secret direction; with two players each has one possible target, given at once."""
    if len(g.state["players"]) == 2:
        assert prompt(g) != AIM
        return
    assert g.decision.kind == "secret" and prompt(g) == AIM
    for player, target in aims.items():
        answer(g, target, player)


def play(g, **moves):
    """One round's secret choices: P1=("small", "P2") plays the small carrier pointing at P2."""
    choose_cards(g, **{p: card for p, (card, _) in moves.items()})
    choose_aims(g, **{p: target for p, (_, target) in moves.items()})


def duel(g, carrier_bid, doubter_bid):
    """P1 carries a small stone that stays, P2 (Clubman) objects, P1 holds firm, both bid in secret."""
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    objections(g, P2=True)
    answer(g, "yes")
    answer(g, str(carrier_bid), "P1")
    answer(g, str(doubter_bid), "P2")


def land(g, outcome):
    """The oracle: the table says how the stone landed."""
    assert g.decision.kind == "oracle" and g.decision.players == ["chance"], prompt(g)
    g.apply(g.state["pending"]["options"].index(outcome), "chance")


def landing_chances(g):
    """The oracle's probabilities of "it stays", "only this stone falls", "other stones fall"."""
    assert g.decision.kind == "oracle"
    assert g.state["pending"]["options"] == ["it stays", "only this stone falls", "other stones fall"]
    return g.decision.probabilities


def objections(g, **said):
    """The secret objection round after a stone stays: every other player answers (default: let it lie)."""
    assert g.decision.kind == "secret" and prompt(g) == OBJECTION, prompt(g)
    for player in list(g.decision.players):
        answer(g, "object" if said.get(player) else "let it lie", player)


def nobody_objects(g):
    objections(g)


def new_round(g, number):
    return (
        g.decision is not None
        and g.decision.kind == "secret"
        and prompt(g) == CHOOSE_CARD
        and g.state["turn"]["number"] == number
    )


def total_meals(g):
    return meal_bag(g) + sum(meals(g, p) for p in g.state["players"])


# ---------------------------------------------------------------------------------------------- 1. setup
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup(players):
    """Rulebook "Setup": the temple (wooden disc) is empty, the three sizes of stones lie on their piles,
    the handicap cards of categories 1 to 3 lie face down, the meals and the skull pieces are in their bags;
    each player has a set of 6 Stone Age cards and has taken 5 meals from the bag. The game starts with
    the first round's choice of cards."""
    g = ready(new_game(players, 0, pack=PACK))
    names = [f"P{i}" for i in range(1, players + 1)]
    assert ids(g, "temple") == [] and ids(g, "bone_pit") == []
    assert {pile: len(ids(g, pile)) for pile in FULL_PILES} == FULL_PILES
    assert set(ids(g, "small_stones")) == {"small_stone"} and set(ids(g, "large_stones")) == {"large_stone"}
    assert sorted_ids(g, "handicaps_1") == ["eyes_closed", "one_hand", "standing_up", "wrong_hand"]
    assert sorted_ids(g, "handicaps_2") == ["elbow_only", "humming", "on_one_leg"]
    assert sorted_ids(g, "handicaps_3") == ["backwards", "looking_away", "two_fingers"]
    assert sorted_ids(g, "piece_bag") == sorted(PIECES * 5)
    for player in names:
        assert sorted_ids(g, f"hand:{player}") == sorted(
            ["small_carrier", "medium_carrier", "large_carrier", "know_it_all", "glutton", "clubman"]
        )
        assert meals(g, player) == 5
        assert ids(g, f"skull:{player}") == [] and ids(g, f"played:{player}") == []
        assert ids(g, f"handicaps:{player}") == []
    assert meal_bag(g) == 53 - 5 * players  # meals_in_bag (Stone Age's 53) − 5 × players
    view = g.view("P1")["zones"]
    for pile in ("handicaps_1", "handicaps_2", "handicaps_3", "piece_bag"):
        assert "cards" not in view[pile] and view[pile]["count"] == len(ids(g, pile))  # face down / unseen
    assert "cards" not in view["hand:P2"] and view["hand:P2"]["count"] == 6
    assert g.decision.kind == "secret" and g.decision.players == names and prompt(g) == CHOOSE_CARD
    assert g.state["turn"]["number"] == 1


# ---------------------------------------------------------------------------------------------- 2. course of play
def test_choices_are_secret_until_everyone_has_chosen():
    """Rulebook "Course of Play": each player chooses a card from his set; until every player has chosen,
    nobody sees another's choice (views, log, legal options), neither of the card nor of where it points."""
    g = game(3)
    assert g.decision.players == ["P1", "P2", "P3"]
    for player in ("P1", "P2", "P3"):
        assert options(g, player) == [
            f"{CARD[c]} ({player}'s action cards)"
            for c in ("small", "medium", "large", "know_it_all", "glutton", "clubman")
        ]
    before = {p: json.dumps(g.view(p)) for p in ("P2", "P3")}
    legal = {p: g.legal(p) for p in ("P2", "P3")}
    answer(g, CARD["glutton"], "P1")
    for p in ("P2", "P3"):
        assert json.dumps(g.view(p)) == before[p]
        assert g.legal(p) == legal[p]
    assert g.view("P1")["decision"]["waiting_for"] == ["P2", "P3"]
    before = json.dumps(g.view("P3"))
    answer(g, CARD["small"], "P2")
    assert json.dumps(g.view("P3")) == before
    answer(g, CARD["know_it_all"], "P3")
    # the direction: also chosen by everyone at once, unseen
    assert g.decision.kind == "secret" and prompt(g) == AIM and g.decision.players == ["P1", "P2", "P3"]
    assert sorted(options(g, "P3")) == ["P1", "P2"]
    before = {p: json.dumps(g.view(p)) for p in ("P2", "P3")}
    legal = g.legal("P3")
    answer(g, "P3", "P1")
    assert json.dumps(g.view("P2")) == before["P2"]
    answer(g, "P1", "P2")
    assert json.dumps(g.view("P3")) == before["P3"] and g.legal("P3") == legal
    assert g.view("P1")["decision"]["waiting_for"] == ["P3"]
    answer(g, "P2", "P3")
    assert "Chosen together: P1 P3, P2 P1, P3 P2" in log(g, "P3")


def test_cards_stay_blind_while_the_players_choose_their_direction():
    """Rulebook "Course of Play": the chosen cards are laid blind on the table, then the players determine
    in which direction their card points; only then are they carried out. While the directions are being
    chosen nobody knows another's card."""
    g = game(3)
    choose_cards(g, P1="glutton", P2="small", P3="know_it_all")
    assert prompt(g) == AIM
    for p in ("P2", "P3"):  # P1's Glutton: in no log, not on the table
        view = g.view(p)
        assert not any("Glutton" in line for line in view["log"]), (p, view["log"][-1])
        assert "cards" not in view["zones"]["played:P1"]
    for p in ("P1", "P3"):  # nor P2's Stone Carrier
        assert not any("Stone Carrier" in line for line in g.view(p)["log"]), p


def test_cards_are_revealed_together_into_the_played_zones():
    """Rulebook "Course of Play": once everyone has chosen a card and its direction, the cards lie on the
    table (each player's played card, public) and everyone sees them and where they point."""
    g = game(3)
    play(g, P1=("glutton", "P3"), P2=("small", "P1"), P3=("know_it_all", "P2"))
    assert ids(g, "played:P1") == ["glutton"] and ids(g, "played:P2") == ["small_carrier"]
    assert ids(g, "played:P3") == ["know_it_all"]
    assert len(ids(g, "hand:P1")) == 5 and "glutton" not in ids(g, "hand:P1")
    for p in ("P1", "P2", "P3"):
        lines = log(g, p)
        mine = {"P1": "P1 Glutton", "P2": "P2 Stone Carrier (small stone)", "P3": "P3 Know-it-all"}
        laid_blind = ", ".join(mine[q] if q == p else f"{q} a card" for q in ("P1", "P2", "P3"))
        assert f"Chosen together: {laid_blind}" in lines  # each sees only their own card
        assert "Chosen together: P1 P3, P2 P1, P3 P2" in lines
        assert g.view(p)["zones"]["played:P2"]["cards"] == [{"id": "small_carrier", "name": CARD["small"]}]


def test_cards_are_carried_out_in_seat_order():
    """Rulebook "Course of Play": the players carry out their action cards one after another (in seat
    order, an assumption of the pack): P1's stone is placed before P2's, whatever they point at."""
    g = game(2, bag=["upper_jaw", "lower_jaw", "brow_ridge"])
    play(g, P1=("small", "P2"), P2=("medium", "P1"))
    assert ids(g, "temple") == ["small_stone"] and meals(g, "P1") == 4 and meals(g, "P2") == 5
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"]
    # now P2's stone, on a temple already holding P1's
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone", "medium_stone"]
    assert meals(g, "P2") == 3
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P2") == ["lower_jaw", "brow_ridge"]
    lines = log(g)
    assert lines.index("P1 draws Small stone from Small stones to Temple (the wooden disc)") < lines.index(
        "P2 draws Medium stone from Medium stones to Temple (the wooden disc)"
    )
    assert new_round(g, 2)


# ---------------------------------------------------------------------------------------------- 3. carriers
@pytest.mark.parametrize("size,card", [(1, "small"), (2, "medium"), (3, "large")])
def test_a_stone_carrier_pays_meals_and_earns_pieces_by_size(size, card):
    """Rulebook "Stone Carriers": depending on the size of the stone, hand in 1, 2 or 3 meals (back into
    the bag, an assumption); the stone is placed on the wooden disc; if it stays, receive 1, 2 or 3 pieces
    of the cave-bear skull (here from the bag, the bone pit being empty). The stone stays on the temple."""
    pieces = ["upper_jaw", "lower_jaw", "brow_ridge"]
    g = game(2, bag=pieces)
    bag_before = meal_bag(g)
    play(g, P1=(card, "P2"), P2=("clubman", "P1"))  # a Clubman without a Glutton: nothing
    assert meals(g, "P1") == 5 - size and meal_bag(g) == bag_before + size
    assert ids(g, "temple") == [STONE[size]]
    assert len(ids(g, PILE[size])) == FULL_PILES[PILE[size]] - 1
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == pieces[:size]
    assert len(ids(g, "piece_bag")) == 5 * len(PIECES) - size and ids(g, "bone_pit") == []
    assert new_round(g, 2)
    assert ids(g, "temple") == [STONE[size]]  # the temple grows round by round
    assert meals(g, "P2") == 5 and ids(g, "skull:P2") == []
    assert sorted_ids(g, "hand:P1") == sorted(
        ["small_carrier", "medium_carrier", "large_carrier", "know_it_all", "glutton", "clubman"]
    )


def test_without_enough_meals_the_carrier_card_is_lost():
    """Rulebook "Stone Carriers": "If you are unable to hand in the appropriate number of meals, the surplus
    of the card is lost": no meal is handed in, no stone is placed, no piece is won."""
    g = game(2, meals={"P1": 2})
    bag_before = meal_bag(g)
    play(g, P1=("large", "P2"), P2=("small", "P1"))
    # P1's card did nothing; the oracle now is P2's small stone
    assert g.decision.kind == "oracle"
    assert meals(g, "P1") == 2 and meals(g, "P2") == 4 and meal_bag(g) == bag_before + 1
    assert ids(g, "temple") == ["small_stone"] and len(ids(g, "large_stones")) == 4
    assert "Not enough meals: the Stone Carrier card is lost" in log(g)
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == [] and len(ids(g, "skull:P2")) == 1
    assert new_round(g, 2)


def test_a_piece_may_be_taken_from_the_bone_pit_in_the_open():
    """Rulebook "Receiving and Giving Puzzle Pieces": the player may choose to take the piece from the bone
    pit (visible), choosing which."""
    g = game(2, pit=["upper_jaw", "lower_jaw"], bag=["brow_ridge"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    nobody_objects(g)
    assert prompt(g).startswith(FROM_PIT) and g.decision.players == ["P1"]
    answer(g, "yes")
    assert options(g) == ["Upper jaw (Bone pit)", "Lower jaw (Bone pit)"]
    answer(g, "Lower jaw")
    assert ids(g, "skull:P1") == ["lower_jaw"] and ids(g, "bone_pit") == ["upper_jaw"]
    assert ids(g, "piece_bag")[-1] == "brow_ridge"  # the bag was not touched
    assert new_round(g, 2)


def test_a_piece_may_be_taken_unseen_from_the_bag():
    """Rulebook "Receiving and Giving Puzzle Pieces": or the piece comes from the bag, unseen."""
    g = game(2, pit=["upper_jaw"], bag=["brow_ridge"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    nobody_objects(g)
    answer(g, "no")
    assert ids(g, "skull:P1") == ["brow_ridge"] and ids(g, "bone_pit") == ["upper_jaw"]
    assert "P1 draws a card from Bag of skull pieces to P1's play area" in log(g, "P2")
    assert new_round(g, 2)


def test_a_piece_already_on_the_skull_goes_to_the_bone_pit():
    """Rulebook "Receiving and Giving Puzzle Pieces": the piece received is placed on the puzzle at once;
    if this piece is already there, it is put in the bone pit."""
    g = game(2, skulls={"P1": ["upper_jaw"]}, bag=["upper_jaw", "lower_jaw"])
    play(g, P1=("medium", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    nobody_objects(g)
    # the first piece (from the bag: the pit was empty) is a second upper jaw: into the pit; the second
    # comes from the bag too, unasked: the pit holds only that upper jaw, which the player has already
    assert ids(g, "skull:P1") == ["upper_jaw", "lower_jaw"]
    assert not any(FROM_PIT in line for line in log(g))
    assert ids(g, "bone_pit") == ["upper_jaw"]
    assert new_round(g, 2)


def test_only_your_own_stone_falls_and_you_try_again():
    """Rulebook "Stone Carriers": "If only your own stone falls, you may try again to place it": the stone
    comes back to its pile, the carrier tries again without paying again; success then earns the pieces."""
    g = game(2, bag=["upper_jaw"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    land(g, "only this stone falls")
    assert ids(g, "temple") == [] and len(ids(g, "small_stones")) == 8
    assert g.decision.kind == "ask" and g.decision.players == ["P1"] and prompt(g).startswith(TRY_AGAIN)
    answer(g, "yes")
    assert ids(g, "temple") == ["small_stone"] and meals(g, "P1") == 4
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"] and meals(g, "P1") == 4
    assert new_round(g, 2)


def test_a_carrier_may_decline_to_try_again():
    """Rulebook "Stone Carriers": trying again is a "may": declining leaves no stone, no piece, and the
    meals handed in stay handed in."""
    g = game(2, bag=["upper_jaw", "lower_jaw"])
    bag_before = meal_bag(g)
    play(g, P1=("small", "P2"), P2=("small", "P1"))
    land(g, "only this stone falls")
    answer(g, "no")
    # P2's stone now
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]
    assert ids(g, "skull:P1") == [] and meals(g, "P1") == 4 and meal_bag(g) == bag_before + 2
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == [] and ids(g, "skull:P2") == ["upper_jaw"]
    assert new_round(g, 2)


def test_tries_again_are_limited():
    """Rulebook "Stone Carriers" ("may try again", no limit printed): the pack allows `retries` (2) more tries
    to keep a round finite (an assumption); after the third fall the carrier is not asked again."""
    g = game(2, bag=["upper_jaw"])
    play(g, P1=("small", "P2"), P2=("small", "P1"))
    for _ in range(2):
        land(g, "only this stone falls")
        assert prompt(g).startswith(TRY_AGAIN)
        answer(g, "yes")
    land(g, "only this stone falls")
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]  # P2's stone now
    assert meals(g, "P1") == 4 and ids(g, "skull:P1") == []


def test_placing_again_after_an_objection_does_not_use_up_the_tries():
    """Rulebook "Stone Carriers" and "Law of the Hardest Club": placing the stone again after accepting a
    protest is not a try after a fall: when the carrier's own stone then falls for the first time, he may
    still try again."""
    g = game(2, bag=["upper_jaw"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    for _ in range(2):
        land(g, "it stays")
        objections(g, P2=True)
        answer(g, "no")  # accepts the protest: places it again
    land(g, "only this stone falls")
    assert g.decision.kind == "ask" and prompt(g).startswith(TRY_AGAIN)


def test_a_doubted_stone_is_placed_again_at_most_replacings_times():
    """Rulebook "Law of the Hardest Club" (accepting the protest means placing the stone again; no limit
    printed): the pack allows `replacings` (3) placings again per turn, an assumption that keeps a turn
    finite. After the third, a fourth doubt may not be met by placing again: the carrier holds firm or takes
    the stone back (no stone, no piece, the meals stay handed in); he is never offered a placing that does
    not come."""
    g = game(2, bag=["upper_jaw"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    for _ in range(3):
        land(g, "it stays")
        objections(g, P2=True)
        assert prompt(g).startswith(HOLD_FIRM)
        answer(g, "no")
        assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]
    land(g, "it stays")
    objections(g, P2=True)
    assert g.decision.players == ["P1"] and prompt(g).startswith(LAST_DOUBT)
    answer(g, "no")  # takes it back
    assert ids(g, "temple") == [] and len(ids(g, "small_stones")) == 8
    assert ids(g, "skull:P1") == [] and meals(g, "P1") == 4
    assert "The stone may not be placed again: it goes back and the Stone Carrier card is spent" in log(g)
    assert prompt(g).startswith(COWARDICE)  # no stone stayed this round


def test_with_no_placing_again_left_a_lost_duel_takes_the_stone_back():
    """Rulebook "Law of the Hardest Club": "If the doubter wins, the player must place his stone again"; with
    `replacings` used up (0 here) he may not: the stone goes back, the doubter receives his piece."""
    g = game(2, bag=["brow_ridge", "upper_jaw"])
    with_parameters(g, replacings=0)
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    objections(g, P2=True)
    assert prompt(g).startswith(LAST_DOUBT)
    answer(g, "yes")  # holds firm
    answer(g, "0", "P1")
    answer(g, "1", "P2")
    assert ids(g, "skull:P2") == ["brow_ridge"] and ids(g, "skull:P1") == []
    assert ids(g, "temple") == [] and len(ids(g, "small_stones")) == 8
    assert g.decision.kind != "oracle" and prompt(g).startswith(COWARDICE)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), retries=st.integers(0, 2), replacings=st.integers(0, 3))
def test_tries_after_a_fall_and_placings_again_are_bounded_apart(data, retries, replacings):
    """Rulebook "Stone Carriers" ("you may try again") and "Law of the Hardest Club" ("place the stone
    again"), each bounded by its own parameter (`retries`, `replacings`; assumptions): whatever the table
    answers, a carrier's own stone falls back at most `retries` times before he is no longer asked, is
    placed again after a doubt at most `replacings` times, so placed at most 1 + retries + replacings times;
    and every "Try again?" or accepted protest answered so leads to a new placing (an oracle), never to
    nothing."""
    g = with_parameters(game(2), retries=retries, replacings=replacings)
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    placings = falls = again = 0
    while g.decision is not None:
        kind, asked = g.decision.kind, prompt(g)
        if kind == "oracle":
            placings += 1
            outcome = data.draw(st.sampled_from(["it stays", "only this stone falls"]))
            falls += outcome == "only this stone falls"
            land(g, outcome)
            continue
        if asked == OBJECTION:
            objections(g, P2=data.draw(st.booleans()))
            continue
        if kind == "bid":
            for player in list(g.decision.players):
                answer(g, data.draw(st.sampled_from(options(g, player))), player)
            continue
        if asked.startswith((FROM_PIT, GIVE_FROM_PIT)):
            answer(g, "no")
            continue
        if asked.startswith((TRY_AGAIN, HOLD_FIRM, LAST_DOUBT)):
            yes = data.draw(st.booleans())
            answer(g, "yes" if yes else "no")
            if asked.startswith(TRY_AGAIN) and yes:
                assert g.decision.kind == "oracle", "a try again that does nothing"
            if asked.startswith(HOLD_FIRM) and not yes:
                assert g.decision.kind == "oracle", "a placing again that does nothing"
                again += 1
            continue
        break  # P1's card is carried out
    assert falls <= retries + 1 and again <= replacings
    assert placings <= 1 + retries + replacings


# ---------------------------------------------------------------------------------------------- 4. know-it-all
def test_a_know_it_all_pointing_at_a_carrier():
    """Rulebook "Know-it-all": pointing at a player who played a Stone Carrier, the carrier must take a
    handicap card (category 1) and place the stone with it; the Know-it-all receives one skull piece."""
    g = game(2, handicaps={1: ["one_hand"]}, bag=["upper_jaw", "lower_jaw"])
    play(g, P1=("small", "P2"), P2=("know_it_all", "P1"))
    assert ids(g, "handicaps:P1") == ["one_hand"] and len(ids(g, "handicaps_1")) == 3
    assert ids(g, "handicaps:P2") == []
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"] and ids(g, "skull:P2") == ["lower_jaw"]
    assert new_round(g, 2)
    assert ids(g, "handicaps:P1") == [] and ids(g, "handicaps_1")[0] == "one_hand"  # back under its pile


def test_a_know_it_all_not_pointing_at_a_carrier_has_no_effect():
    """Rulebook "Know-it-all": "If a Know-it-all does not point at a Stone Carrier, this card has no effect"
    (P2 points at the Glutton while P3 carries a stone)."""
    g = game(3, bag=["upper_jaw", "lower_jaw"])
    play(g, P1=("glutton", "P2"), P2=("know_it_all", "P1"), P3=("small", "P1"))
    assert all(ids(g, f"handicaps:{p}") == [] for p in ("P1", "P2", "P3"))
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P2") == [] and ids(g, "skull:P3") == ["upper_jaw"]
    assert ids(g, "piece_bag")[-1] == "lower_jaw"
    assert new_round(g, 2)


def test_two_know_it_alls_on_one_carrier_give_handicaps_of_category_1_and_2():
    """Rulebook "Know-it-all": if more than one Know-it-all points at a Stone Carrier, the carrier takes 2
    handicap cards, one of the 1st category and one of the 2nd, and carries them out together; each
    Know-it-all receives a piece."""
    g = game(
        3, handicaps={1: ["eyes_closed"], 2: ["humming"]}, bag=["upper_jaw", "lower_jaw", "brow_ridge", "skull_crown"]
    )
    play(g, P1=("medium", "P2"), P2=("know_it_all", "P1"), P3=("know_it_all", "P1"))
    assert ids(g, "handicaps:P1") == ["eyes_closed", "humming"]
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw", "lower_jaw"]
    assert ids(g, "skull:P2") == ["brow_ridge"] and ids(g, "skull:P3") == ["skull_crown"]
    assert new_round(g, 2)


@pytest.mark.parametrize("players", [4, 5])
def test_at_most_three_handicaps(players):
    """Rulebook "Know-it-all": "The maximum number of handicap cards to be taken is 3": three (or four)
    Know-it-alls on one carrier give one handicap of each category."""
    g = game(players, handicaps={1: ["one_hand"], 2: ["on_one_leg"], 3: ["backwards"]})
    moves = {"P1": ("small", "P2")}
    for i in range(2, players + 1):
        moves[f"P{i}"] = ("know_it_all", "P1")
    play(g, **moves)
    assert ids(g, "handicaps:P1") == ["one_hand", "on_one_leg", "backwards"]
    assert len(ids(g, "handicaps_1")) == 3 and len(ids(g, "handicaps_2")) == 2
    assert len(ids(g, "handicaps_3")) == 2
    land(g, "it stays")
    nobody_objects(g)
    # the carrier's piece, then one for every Know-it-all pointing at him
    assert all(len(ids(g, f"skull:P{i}")) == 1 for i in range(1, players + 1))
    assert new_round(g, 2) and ids(g, "handicaps:P1") == []


def test_handicap_cards_are_numbered_1_to_3():
    """Rulebook "Setup": "The handicap cards (numbered 1 to 3)", and "Know-it-all": "one of the 1st category
    and one of the 2nd": every handicap card bears a number 1, 2 or 3, its category, and lies on that
    category's pile. The rulebook prints those numbers but not how many cards bear each nor their texts:
    each card is a placeholder whose reason says just that."""
    handicaps = {i: c for i, c in ruleset(PACK).cards.items() if c["type"] == "handicap"}
    assert {c["stats"]["category"] for c in handicaps.values()} == {1, 2, 3}
    for card_id, card in handicaps.items():
        assert card["deck"] == f"handicaps_{card['stats']['category']}", card_id
        assert card["provenance"] == "placeholder", card_id
        assert "numbered 1 to 3" in card["reason"] and "how many" in card["reason"], card_id


def test_every_carrier_pointed_at_gets_the_handicaps_the_rule_demands():
    """Rulebook "Know-it-all": every carrier a Know-it-all points at "must take a handicap card", one of the
    1st and one of the 2nd category for two Know-it-alls. In the busiest round of 5 players, two carriers
    pointed at (one by two Know-it-alls), the piles (the counts per number are placeholders) serve them all:
    two cards numbered 1 and one numbered 2."""
    g = game(5)
    play(
        g,
        P1=("small", "P3"),
        P2=("small", "P3"),
        P3=("know_it_all", "P1"),
        P4=("know_it_all", "P1"),
        P5=("know_it_all", "P2"),
    )
    taken = {p: [ruleset(PACK).cards[c]["stats"]["category"] for c in ids(g, f"handicaps:{p}")] for p in ("P1", "P2")}
    assert taken == {"P1": [1, 2], "P2": [1]}


# ---------------------------------------------------------------------------------------------- 5. glutton, clubman
def test_a_glutton_takes_five_meals_from_the_bag():
    """Rulebook "Glutton": the player takes 5 meal tokens from the bag (no Clubman was played)."""
    g = game(2)
    bag_before = meal_bag(g)
    play(g, P1=("glutton", "P2"), P2=("small", "P1"))
    assert meals(g, "P1") == 10 and meal_bag(g) == bag_before - 5 + 1
    land(g, "it stays")
    nobody_objects(g)
    assert meals(g, "P1") == 10 and new_round(g, 2)


def test_a_glutton_takes_what_is_left_in_the_bag():
    """Rulebook "Glutton": the 5 meals come from the bag; a bag holding fewer gives what it holds."""
    g = game(2, meal_bag=3)
    play(g, P1=("glutton", "P2"), P2=("small", "P1"))
    assert meals(g, "P1") == 8 and meal_bag(g) == 1  # 3 eaten, then P2's meal handed in


@pytest.mark.parametrize("glutton,clubman", [("P1", "P2"), ("P2", "P1")])
def test_one_clubman_takes_all_the_meals_of_the_glutton(glutton, clubman):
    """Rulebook "Glutton" / "Clubman": with a Clubman played the Glutton takes nothing, and the Clubman
    receives all the meal tokens of the player who played the Glutton (whichever of them sits first)."""
    g = game(3, meals={glutton: 7})
    bag_before = meal_bag(g)
    moves = {glutton: ("glutton", clubman), clubman: ("clubman", glutton), "P3": ("small", "P1")}
    play(g, **dict(sorted(moves.items())))
    assert meals(g, glutton) == 0 and meals(g, clubman) == 12
    assert meal_bag(g) == bag_before + 1
    land(g, "it stays")
    nobody_objects(g)
    assert new_round(g, 2) and meals(g, glutton) == 0 and meals(g, clubman) == 12


def test_one_clubman_robs_every_glutton():
    """Rulebook "Clubman": the Clubman receives all the meals of the players (plural) who played a Glutton."""
    g = game(4, meals={"P1": 3, "P2": 4})
    play(g, P1=("glutton", "P2"), P2=("glutton", "P1"), P3=("clubman", "P1"), P4=("small", "P1"))
    assert meals(g, "P1") == 0 and meals(g, "P2") == 0 and meals(g, "P3") == 5 + 3 + 4


def test_two_clubmen_quarrel_and_the_glutton_eats():
    """Rulebook "Clubman": with more than one Clubman they quarrel and have no influence on the game; so
    (the pack's reading of "except if the Clubman was also played") the Glutton still takes 5 meals."""
    g = game(4)
    bag_before = meal_bag(g)
    play(g, P1=("glutton", "P2"), P2=("clubman", "P1"), P3=("clubman", "P1"), P4=("small", "P1"))
    assert meals(g, "P1") == 10 and meals(g, "P2") == 5 and meals(g, "P3") == 5 and meals(g, "P4") == 4
    assert meal_bag(g) == bag_before - 5 + 1


def test_a_clubman_without_a_glutton_does_nothing():
    """Rulebook "Clubman": he receives the meals of the Gluttons; with none played there is nothing."""
    g = game(3)
    play(g, P1=("clubman", "P2"), P2=("small", "P1"), P3=("know_it_all", "P1"))
    assert [meals(g, p) for p in ("P1", "P2", "P3")] == [5, 4, 5]


# ---------------------------------------------------------------------------------------------- 6. collapse
def test_a_collapse_costs_two_pieces_and_ends_the_round():
    """Rulebook "What if the temple collapses?": the player responsible throws two skull pieces of his choice
    into the bone pit; all stones go back to their piles; a new round begins, and the players who had not
    yet had their turn are out of luck (P2's Glutton does not eat, P3's Know-it-all gets no piece). No
    "cowardice" follows (an assumption: a new round begins at once)."""
    g = game(
        3,
        skulls={"P1": ["upper_jaw", "lower_jaw", "brow_ridge"]},
        temple=["small_stone", "medium_stone"],
        bag=["skull_crown"],
    )
    play(g, P1=("large", "P2"), P2=("glutton", "P1"), P3=("know_it_all", "P1"))
    assert ids(g, "temple") == ["small_stone", "medium_stone", "large_stone"]
    land(g, "other stones fall")
    assert g.decision.players == ["P1"] and prompt(g).startswith("The temple collapsed")
    answer(g, "Upper jaw")
    answer(g, "Brow ridge")
    assert ids(g, "skull:P1") == ["lower_jaw"] and sorted_ids(g, "bone_pit") == ["brow_ridge", "upper_jaw"]
    assert ids(g, "temple") == []
    assert {pile: len(ids(g, pile)) for pile in FULL_PILES} == FULL_PILES
    assert meals(g, "P1") == 2  # the meals handed in are gone
    assert meals(g, "P2") == 5 and ids(g, "skull:P3") == []  # out of luck
    assert ids(g, "piece_bag")[-1] == "skull_crown"
    assert new_round(g, 2)
    assert not any(line.startswith(COWARDICE) for line in log(g))
    assert all(ids(g, f"played:{p}") == [] for p in ("P1", "P2", "P3"))
    assert ids(g, "handicaps:P1") == [] and len(ids(g, "handicaps_1")) == 4


@pytest.mark.parametrize("owned", [[], ["upper_jaw"]])
def test_a_collapse_with_fewer_than_two_pieces_throws_what_there_is(owned):
    """Rulebook "What if the temple collapses?": two pieces are thrown away; a player with fewer throws
    what he has (the pack's reading)."""
    g = game(2, skulls={"P1": owned}, temple=["small_stone"])
    play(g, P1=("small", "P2"), P2=("small", "P1"))
    land(g, "other stones fall")
    assert new_round(g, 2)
    assert ids(g, "skull:P1") == [] and ids(g, "bone_pit") == owned
    assert ids(g, "temple") == [] and meals(g, "P2") == 5


# ---------------------------------------------------------------------------------------------- 7. cowardice
def test_no_stone_placed_everyone_hands_in_a_piece():
    """Rulebook "What if no stone is placed in a round?": all players are punished: each hands in one
    puzzle piece of his choice (into the bone pit, an assumption)."""
    g = game(2, skulls={"P1": ["upper_jaw", "lower_jaw"], "P2": ["brow_ridge"]})
    play(g, P1=("know_it_all", "P2"), P2=("know_it_all", "P1"))
    assert COWARDICE + ": each player hands in a piece or places a stone without reward" in log(g)
    assert g.decision.players == ["P1"] and prompt(g).startswith(COWARDICE)
    assert options(g) == ["0", "1", "2", "3"]
    answer(g, "0")
    assert prompt(g) == "Which piece do you hand in?"
    answer(g, "Lower jaw")
    answer(g, "0", "P2")  # P2's only piece goes without asking
    assert ids(g, "skull:P1") == ["upper_jaw"] and ids(g, "skull:P2") == []
    assert ids(g, "bone_pit") == ["lower_jaw", "brow_ridge"]
    assert new_round(g, 2) and meals(g, "P1") == 5 and meals(g, "P2") == 5


def test_no_stone_placed_a_stone_placed_for_nothing_saves_the_piece():
    """Rulebook "What if no stone is placed in a round?": to escape, a player may still place a stone of his
    choice, handing in its meals, but then he receives no puzzle piece for it."""
    g = game(2, skulls={"P1": ["upper_jaw"], "P2": ["brow_ridge"]}, bag=["lower_jaw"])
    bag_before = meal_bag(g)
    play(g, P1=("glutton", "P2"), P2=("know_it_all", "P1"))
    assert meals(g, "P1") == 10
    answer(g, "2")  # P1 places a medium stone
    assert meals(g, "P1") == 8 and ids(g, "temple") == ["medium_stone"]
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"]  # kept, and nothing won
    assert prompt(g).startswith(COWARDICE) and g.decision.players == ["P2"]
    answer(g, "0")
    assert ids(g, "skull:P2") == [] and ids(g, "bone_pit") == ["brow_ridge"]
    assert ids(g, "piece_bag")[-1] == "lower_jaw" and meal_bag(g) == bag_before - 5 + 2
    assert new_round(g, 2) and ids(g, "temple") == ["medium_stone"]


def test_no_stone_placed_a_stone_that_falls_does_not_save_the_piece():
    """Rulebook "What if no stone is placed in a round?": the players may still *try* to place a stone; if it
    does not stay, the piece is handed in all the same."""
    g = game(2, skulls={"P1": ["upper_jaw"]})
    play(g, P1=("know_it_all", "P2"), P2=("know_it_all", "P1"))
    answer(g, "1")
    land(g, "only this stone falls")
    answer(g, "no")
    assert ids(g, "skull:P1") == [] and ids(g, "bone_pit") == ["upper_jaw"] and meals(g, "P1") == 4
    answer(g, "0", "P2")
    assert new_round(g, 2)


def test_after_a_collapse_nobody_is_punished_for_cowardice():
    """Rulebook "What if the temple collapses?": "As soon as the temple has collapsed, a new round begins":
    no stone stays this round, yet (an assumption of the pack) nobody hands in a piece for it."""
    g = game(2, skulls={"P1": ["upper_jaw", "lower_jaw", "brow_ridge"], "P2": ["skull_crown"]}, temple=["small_stone"])
    play(g, P1=("clubman", "P2"), P2=("small", "P1"))
    land(g, "other stones fall")  # P2 throws its only piece, without a choice
    assert new_round(g, 2)
    assert ids(g, "skull:P1") == ["upper_jaw", "lower_jaw", "brow_ridge"] and ids(g, "skull:P2") == []
    assert ids(g, "bone_pit") == ["skull_crown"]


def test_a_collapse_while_escaping_cowardice_starts_the_new_round():
    """Rulebook "What if the temple collapses?" within "What if no stone is placed in a round?": a player
    trying to escape the punishment brings the temple down; as soon as the temple has collapsed a new round
    begins, so the players after him are not offered to place a stone."""
    g = game(
        3,
        skulls={"P1": ["upper_jaw", "lower_jaw", "brow_ridge"], "P2": ["skull_crown"], "P3": ["upper_jaw"]},
        temple=["small_stone"],
    )
    play(g, P1=("clubman", "P2"), P2=("clubman", "P3"), P3=("clubman", "P1"))
    answer(g, "1")  # P1 tries a small stone
    land(g, "other stones fall")
    answer(g, "Upper jaw")
    answer(g, "Lower jaw")
    assert ids(g, "temple") == []
    assert not prompt(g).startswith(COWARDICE), g.decision.players
    assert new_round(g, 2)


def test_a_temple_holding_every_stone_is_cleared_at_the_round_end():
    """Rulebook "Setup" and "What if the temple collapses?": stones lie on their piles and go back to them
    when the temple falls; the rulebook says nothing of piles run empty. The pack's rule (an assumption):
    once every stone is on the temple, at the end of that round they all go back on their piles, with no
    one blamed: else a table whose stones all stay stalls, no stone left to carry (issue 11)."""
    last_small = ["small_stone"] * 7 + ["medium_stone"] * 6 + ["large_stone"] * 4
    g = game(2, temple=last_small, bag=["upper_jaw"], skulls={"P2": ["brow_ridge"]})
    assert [len(ids(g, pile)) for pile in FULL_PILES] == [1, 0, 0]
    play(g, P1=("small", "P2"), P2=("medium", "P1"))
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"]  # the 18th stone earns its piece
    assert new_round(g, 2)
    assert ids(g, "temple") == [] and {pile: len(ids(g, pile)) for pile in FULL_PILES} == FULL_PILES
    assert "Every stone is on the temple: they all go back on their piles" in log(g)
    assert ids(g, "skull:P2") == ["brow_ridge"] and ids(g, "bone_pit") == []  # nobody blamed
    assert meals(g, "P2") == 5  # P2's card found no medium stone


def test_a_temple_with_a_stone_left_on_a_pile_stands():
    """The clearing waits for the last stone: with one left on its pile the temple stays as it is."""
    g = game(2, temple=["small_stone"] * 6 + ["medium_stone"] * 6 + ["large_stone"] * 4)
    play(g, P1=("small", "P2"), P2=("glutton", "P1"))
    land(g, "it stays")
    nobody_objects(g)
    assert new_round(g, 2) and len(ids(g, "temple")) == 17 and len(ids(g, "small_stones")) == 1


# ---------------------------------------------------------------------------------------------- 8. hardest club
def test_an_objection_accepted_means_placing_the_stone_again():
    """Rulebook "Law of the Hardest Club": an opponent objects; the carrier may accept this protest and try
    to place the stone again (it comes off the temple and is placed once more, at no new cost)."""
    g = game(2, bag=["upper_jaw"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    first = landing_chances(g)
    land(g, "it stays")
    objections(g, P2=True)
    assert g.decision.kind == "ask" and g.decision.players == ["P1"] and prompt(g).startswith(HOLD_FIRM)
    answer(g, "no")
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]
    assert len(ids(g, "small_stones")) == 7 and meals(g, "P1") == 4 and meals(g, "P2") == 5
    assert landing_chances(g) == first  # the temple is as before: the stone came off
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"] and new_round(g, 2)


def test_a_duel_is_a_sealed_bid_and_the_doubter_wins():
    """Rulebook "Law of the Hardest Club": the carrier says the stone lies properly; a duel follows in which
    each secretly takes food in his hand (one sealed bid of both at once); all food used is set aside (back
    into the bag, an assumption). The doubter wins with more: the carrier must place his stone again and
    the doubter receives one piece, chosen by the opponent (the carrier, who may pick any piece of the pit)."""
    g = game(2, pit=["upper_jaw", "lower_jaw"], skulls={"P2": ["upper_jaw"]}, bag=["brow_ridge"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    objections(g, P2=True)
    answer(g, "yes")
    assert g.decision.kind == "bid" and g.decision.players == ["P1", "P2"]
    assert options(g, "P1") == ["0", "1", "2", "3", "4"] and options(g, "P2") == ["0", "1", "2", "3", "4", "5"]
    before = json.dumps(g.view("P2"))
    total = total_meals(g)
    answer(g, "1", "P1")
    assert json.dumps(g.view("P2")) == before  # sealed
    answer(g, "3", "P2")
    assert meals(g, "P1") == 3 and meals(g, "P2") == 2 and total_meals(g) == total
    assert "Bids revealed: P1 1, P2 3" in log(g, "P2")
    # the loser (P1) chooses the piece the winner receives
    assert g.decision.players == ["P1"] and prompt(g).startswith(GIVE_FROM_PIT)
    answer(g, "yes")
    assert options(g) == ["Upper jaw (Bone pit)", "Lower jaw (Bone pit)"]
    answer(g, "Upper jaw")  # one P2 has: it goes straight back
    assert ids(g, "skull:P2") == ["upper_jaw"] and sorted_ids(g, "bone_pit") == ["lower_jaw", "upper_jaw"]
    # the stone is placed again
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]
    assert len(ids(g, "small_stones")) == 7 and meals(g, "P1") == 3
    land(g, "it stays")
    nobody_objects(g)
    answer(g, "yes")
    assert options(g) == ["Lower jaw (Bone pit)", "Upper jaw (Bone pit)"]
    answer(g, "Lower jaw")
    assert ids(g, "skull:P1") == ["lower_jaw"] and ids(g, "skull:P2") == ["upper_jaw"]
    assert ids(g, "bone_pit") == ["upper_jaw"] and ids(g, "piece_bag")[-1] == "brow_ridge"
    assert new_round(g, 2)


def test_the_doubter_winning_receives_a_piece_from_the_bag_chosen_by_the_loser():
    """Rulebook "Law of the Hardest Club": the winner of the duel receives a piece chosen by the opponent;
    with the bone pit empty it comes from the bag."""
    g = game(2, bag=["brow_ridge", "upper_jaw"])
    duel(g, carrier_bid=0, doubter_bid=1)
    assert ids(g, "skull:P2") == ["brow_ridge"] and meals(g, "P2") == 4 and meals(g, "P1") == 4
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw"]


def test_the_carrier_winning_the_duel_keeps_the_stone_and_receives_only_the_duels_piece():
    """Rulebook "Law of the Hardest Club": "If the Stone Carrier wins, the stone simply stays where it is" and
    the winner receives one piece, chosen by the opponent (the doubter). "Stone Carriers": the stone's own
    pieces come only with a stone placed without "an opponent doubting the correctness of the stone's
    position": a doubted medium stone earns its 2 pieces no more, even when the doubt is beaten."""
    g = game(2, pit=["lower_jaw"], bag=["brow_ridge", "upper_jaw", "skull_crown"])
    bag_before = meal_bag(g)
    play(g, P1=("medium", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    objections(g, P2=True)
    answer(g, "yes")
    answer(g, "2", "P1")
    answer(g, "1", "P2")
    assert meals(g, "P1") == 1 and meals(g, "P2") == 4 and meal_bag(g) == bag_before + 2 + 3
    assert g.decision.players == ["P2"] and prompt(g).startswith(GIVE_FROM_PIT)
    answer(g, "no")  # unseen, from the bag
    assert ids(g, "skull:P1") == ["brow_ridge"] and ids(g, "temple") == ["medium_stone"]
    assert new_round(g, 2)  # and no piece for the stone itself
    assert ids(g, "skull:P1") == ["brow_ridge"] and ids(g, "skull:P2") == []
    assert ids(g, "bone_pit") == ["lower_jaw"] and ids(g, "piece_bag")[-1] == "upper_jaw"
    assert ids(g, "temple") == ["medium_stone"]


def test_a_tied_duel_changes_nothing_and_the_stone_stays():
    """Rulebook "Law of the Hardest Club": "In case of a tie nothing happens and the stone stays in place":
    no piece for either duelist, nor the stone's pieces ("Stone Carriers": pieces come only without an
    opponent doubting the stone); the food bid is spent all the same. The stone stays on the temple, so a
    stone was placed this round: nobody is punished for cowardice."""
    g = game(2, bag=["upper_jaw", "lower_jaw"])
    duel(g, carrier_bid=2, doubter_bid=2)
    assert new_round(g, 2)
    assert meals(g, "P1") == 2 and meals(g, "P2") == 3
    assert ids(g, "skull:P1") == [] and ids(g, "skull:P2") == [] and ids(g, "temple") == ["small_stone"]
    assert ids(g, "piece_bag")[-2:] == ["lower_jaw", "upper_jaw"]
    assert not any(line.startswith(COWARDICE) for line in log(g))


def test_an_undoubted_stone_placed_again_earns_its_pieces():
    """Rulebook "Stone Carriers" with "Law of the Hardest Club": the doubter won, the carrier places his
    stone again; that new placing, if nobody doubts it, is a stone placed without doubt: its pieces."""
    g = game(2, bag=["brow_ridge", "upper_jaw", "lower_jaw"])
    play(g, P1=("medium", "P2"), P2=("clubman", "P1"))
    land(g, "it stays")
    objections(g, P2=True)
    answer(g, "yes")
    answer(g, "0", "P1")
    answer(g, "1", "P2")
    assert ids(g, "skull:P2") == ["brow_ridge"]
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P1") == ["upper_jaw", "lower_jaw"] and new_round(g, 2)


def test_followers_add_their_meals_but_never_receive_the_piece():
    """Rulebook "Law of the Hardest Club": other players may join the duel by siding with one of the two
    parties (a secret choice), their tokens added to that side; only one of those who initiated the duel
    receives a piece, never a follower. The doubter is the first objector in seat order after the carrier
    (an assumption)."""
    g = game(3, bag=["brow_ridge", "upper_jaw"])
    play(g, P1=("glutton", "P2"), P2=("small", "P1"), P3=("clubman", "P1"))  # P3 robs P1 later
    land(g, "it stays")
    assert g.decision.players == ["P3", "P1"]
    objections(g, P1=True, P3=True)  # P3 sits first after P2: the doubter
    answer(g, "yes")
    assert g.decision.kind == "secret" and prompt(g) == SIDES and g.decision.players == ["P1"]
    answer(g, "side with the doubter", "P1")
    assert g.decision.kind == "bid" and g.decision.players == ["P2", "P3", "P1"]
    answer(g, "4", "P2")  # P2 has 4 after the stone
    answer(g, "2", "P3")
    answer(g, "3", "P1")  # 2 + 3 > 4: the doubter's side wins
    assert [meals(g, p) for p in ("P1", "P2", "P3")] == [2, 0, 3]  # the Glutton ate nothing: a Clubman
    assert ids(g, "skull:P3") == ["brow_ridge"] and ids(g, "skull:P1") == []  # the doubter, not P1
    assert g.decision.kind == "oracle" and ids(g, "temple") == ["small_stone"]
    land(g, "it stays")
    nobody_objects(g)
    assert ids(g, "skull:P2") == ["upper_jaw"]
    assert ids(g, "skull:P1") == [] and ids(g, "skull:P3") == ["brow_ridge"]
    assert meals(g, "P1") == 0 and meals(g, "P3") == 3 + 2  # then P3's Clubman robs the Glutton


def test_a_follower_of_the_winning_carrier_receives_nothing():
    """Rulebook "Law of the Hardest Club": a follower on the carrier's side adds meals; the carrier, not the
    follower, receives the piece (chosen by the doubter)."""
    g = game(3, bag=["brow_ridge", "upper_jaw"])
    play(g, P1=("small", "P2"), P2=("clubman", "P1"), P3=("clubman", "P1"))
    land(g, "it stays")
    objections(g, P2=True)
    answer(g, "yes")
    answer(g, "side with the carrier", "P3")
    assert g.decision.players == ["P1", "P3", "P2"]
    answer(g, "1", "P1")
    answer(g, "1", "P3")
    answer(g, "1", "P2")
    assert ids(g, "skull:P1") == ["brow_ridge"] and ids(g, "skull:P3") == []  # the duel's piece only
    assert ids(g, "skull:P2") == [] and [meals(g, p) for p in ("P1", "P2", "P3")] == [3, 4, 4]
    assert new_round(g, 2)


# ---------------------------------------------------------------------------------------------- 9. end
def test_the_first_complete_skull_wins_at_once():
    """Rulebook "End of the Game": the first player to complete his cave-bear puzzle (all its pieces) wins,
    at once: the cards later in the round are not carried out."""
    have = [p for p in PIECES if p != "lower_jaw"]
    g = game(2, skulls={"P1": have}, bag=["lower_jaw"])
    play(g, P1=("small", "P2"), P2=("glutton", "P1"))
    land(g, "it stays")
    nobody_objects(g)
    assert g.over and g.decision is None
    assert g.state["result"]["reason"] == "skull_complete" and g.state["result"]["winners"] == ["P1"]
    assert sorted_ids(g, "skull:P1") == sorted(PIECES)
    assert meals(g, "P2") == 5  # P2's Glutton never came


def test_a_know_it_all_completing_the_skull_wins_mid_round():
    """Rulebook "End of the Game": the Know-it-all's piece completes P1's skull before P2's stone is even
    placed; P1 alone wins."""
    have = [p for p in PIECES if p != "upper_jaw"]
    g = game(2, skulls={"P1": have, "P2": have}, bag=["upper_jaw"])
    play(g, P1=("know_it_all", "P2"), P2=("small", "P1"))
    assert g.over
    assert g.state["result"]["reason"] == "skull_complete" and g.state["result"]["winners"] == ["P1"]
    assert ids(g, "temple") == [] and meals(g, "P2") == 5


def test_a_duel_piece_completing_the_skull_wins():
    """Rulebook "End of the Game" and "Law of the Hardest Club": the doubter's duel piece completes his
    skull: he wins at once, before the stone is placed again."""
    have = [p for p in PIECES if p != "brow_ridge"]
    g = game(2, skulls={"P2": have}, bag=["brow_ridge"])
    duel(g, carrier_bid=0, doubter_bid=1)
    assert g.over and g.state["result"]["winners"] == ["P2"]
    assert g.state["result"]["reason"] == "skull_complete"


# ---------------------------------------------------------------------------------------------- 10. oracle
def first_landing_chances(players=2, temple=(), moves=None, handicaps=None):
    g = game(players, temple=temple, handicaps=handicaps)
    play(g, **(moves or {"P1": ("small", "P2"), "P2": ("clubman", "P1")}))
    return landing_chances(g)


def test_the_oracle_model_makes_bigger_stones_fuller_temples_and_handicaps_harder():
    """Rulebook "Stone Carriers" (placing is a physical act): the pack's model `landing_weights` gives the
    oracle's chances: a bigger stone, a fuller temple and harder handicaps make "it stays" less likely."""
    base = first_landing_chances()
    assert sum(base) == pytest.approx(1) and base[0] > 0.8
    medium = first_landing_chances(moves={"P1": ("medium", "P2"), "P2": ("clubman", "P1")})
    large = first_landing_chances(moves={"P1": ("large", "P2"), "P2": ("clubman", "P1")})
    assert base[0] > medium[0] > large[0]
    fuller = first_landing_chances(temple=["small_stone", "medium_stone", "large_stone"])
    assert fuller[0] < base[0] and fuller[2] > base[2]  # and the temple is likelier to collapse
    one = first_landing_chances(moves={"P1": ("small", "P2"), "P2": ("know_it_all", "P1")})
    two = first_landing_chances(
        3, moves={"P1": ("small", "P2"), "P2": ("know_it_all", "P1"), "P3": ("know_it_all", "P1")}
    )
    three = first_landing_chances(
        4,
        moves={
            "P1": ("small", "P2"),
            "P2": ("know_it_all", "P1"),
            "P3": ("know_it_all", "P1"),
            "P4": ("know_it_all", "P1"),
        },
    )
    assert base[0] > one[0] > two[0] > three[0]
    assert all(0 < p[0] < 1 for p in (large, fuller, three))


def test_the_oracle_sees_only_the_stones_already_on_the_temple():
    """Rulebook "Stone Carriers": the second stone of a round is placed on a temple holding the first: its
    chance to stay is lower than the first's."""
    g = game(2, bag=["upper_jaw"])
    play(g, P1=("small", "P2"), P2=("small", "P1"))
    first = landing_chances(g)
    land(g, "it stays")
    nobody_objects(g)
    second = landing_chances(g)
    assert second[0] < first[0]


# ---------------------------------------------------------------------------------------------- lint
def test_the_pack_lints_clean(knap):
    """The whole pack passes every lint stage."""
    code, out, _ = knap("lint", "content/neolithibum", "--no-cache")
    assert code == 0, out
