"""What a player has seen stays known (issue 13): the state keeps, per card, the seats that know where it lies
although they cannot see it there (they saw it go: `known`), and `Game.determinized(player)` leaves those
cards where they are instead of re-dealing them. Moving the card again, or shuffling its pile, forgets it."""

from __future__ import annotations

import pytest
from test_view_leaks import peek_pack

from engine.runtime import rules as rules_module
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.persist import SaveError
from engine.runtime.verbs import Give, Move, Reveal, Shuffle

SEEDS = range(40)


@pytest.fixture
def game(tmp_path):
    rules = rules_module.load(peek_pack(tmp_path))
    game = Game.new(rules, 3, 0)
    for seat in ("P1", "P2"):  # three cards from the deck into each of two hands
        for card in [x for x in game.state["zones"]["deck"] if x is not None][-3:]:
            game.move(card, f"hand:{seat}")
    return game


def run(step, game, me):
    return step.run(game, Ctx(game, {}, me, None), {})


def places(game, player, card) -> set[str]:
    return {game.determinized(player, seed).state["loc"][card] for seed in SEEDS}


def test_a_card_shown_to_p1_in_p2s_hand_stays_there_for_p1(game):
    shown = game.state["zones"]["hand:P2"][0]
    run(Reveal("reveal", {"cards": lambda c: [shown], "to": lambda c: ["P1"]}, {}), game, "P2")
    assert places(game, "P1", shown) == {"hand:P2"}
    # P3 was not shown it: in P3's imagined games it may be anywhere unseen
    assert len(places(game, "P3", shown)) > 1


def test_a_card_p1_gave_away_stays_known_until_it_moves_unseen(game):
    given = game.state["zones"]["hand:P1"][0]
    run(Give("give", {"cards": lambda c: [given], "to": lambda c: "P2"}, {}), game, "P1")
    assert game.state["loc"][given] == "hand:P2"
    assert game.state["known"][str(given)] == ["P1"]
    assert places(game, "P1", given) == {"hand:P2"}
    assert len(places(game, "P3", given)) > 1  # P3 never saw it
    loaded = Game.load(game.rules, game.save())  # the information set is part of the save
    assert loaded.state["known"] == game.state["known"]
    # P2 puts it in their vault, hidden from everyone: P1 did not see that move and forgets where it is;
    # P2, who saw it go, knows
    run(Move("move", {"cards": lambda c: [given], "to": lambda c: "vault"}, {}), game, "P2")
    assert game.state["known"][str(given)] == ["P2"]
    assert len(places(game, "P1", given)) > 1 and places(game, "P2", given) == {"vault:P2"}


def test_a_card_p1_never_saw_may_move(game):
    unseen = game.state["zones"]["hand:P2"][0]
    assert not game.can_see(unseen, "P1")
    assert len(places(game, "P1", unseen)) > 1


def test_a_shuffle_forgets_where_cards_lie_in_the_pile(game):
    card = game.state["zones"]["hand:P1"][0]
    run(Move("move", {"cards": lambda c: [card], "to": lambda c: "stash"}, {}), game, "P1")  # a hidden pile
    assert game.state["known"][str(card)] == ["P1"]
    assert places(game, "P1", card) == {"stash"}
    run(Shuffle("shuffle", {"zone": lambda c: "stash"}, {}), game, "P1")
    assert str(card) not in game.state["known"]


def test_a_save_whose_information_set_names_a_stranger_is_refused(game):
    card = game.state["zones"]["hand:P1"][0]
    game.state["known"][str(card)] = ["P9"]
    with pytest.raises(SaveError) as caught:
        Game.load(game.rules, game.save())
    assert "known" in str(caught.value)


def test_a_save_from_before_keeps_no_information_set(game):
    """A save written before `known` existed loads, plays, and hashes as it did."""
    del game.state["known"]
    loaded = Game.load(game.rules, game.save())
    given = loaded.state["zones"]["hand:P1"][0]
    run(Give("give", {"cards": lambda c: [given], "to": lambda c: "P2"}, {}), loaded, "P1")
    assert "known" not in loaded.state
