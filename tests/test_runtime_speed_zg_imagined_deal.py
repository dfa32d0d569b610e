"""The imagined deal with fewer calls a card, for the compiled build (issue 16, helper G):

- `imagine._unseen_runs` finds a zone whose hidden cards are all of one home by the first card's home holding them
  all (`_cards_of_homes`, a set a home), not by the set of every card's home made through a map of a method wrapper:
  the same runs as that test of before (`_runs_as_before`), with gaps (None) and cards of another home in a deck;
- `imagine._redeal_snapshot` and `determinized` place the re-dealt cards in loops (tests/test_runtime_speed_h_greedy.py
  and tests/test_runtime_speed_z_look_ahead.py hold them to the re-deal of before).
"""

from __future__ import annotations

import pytest
from scenario import ruleset
from test_greedy_agent import _sampled_states

from engine.runtime import imagine


def _runs_as_before(g, player):
    """`_unseen_runs` with the test of before for a zone of one home: the set of its cards' homes, of one member."""
    original = imagine._cards_of_homes

    class _SetOfHomes:
        """In place of the sets of the homes' cards: whether every card is of the first card's home, as before."""

        def __init__(self, numbers):
            self.numbers = numbers

        def __getitem__(self, number):
            return self

        def issuperset(self, cards):
            return len(set(map(self.numbers.__getitem__, cards))) == 1

    imagine._cards_of_homes = lambda rules: _SetOfHomes(imagine._homes(rules)[1])
    try:
        return list(imagine._unseen_runs(g, player))
    finally:
        imagine._cards_of_homes = original


@pytest.mark.parametrize("pack, players", [("cro-magnon", 2), ("cro-magnon", 4), ("neolithibum", 3), ("stone-age", 2)])
def test_the_runs_are_those_of_the_set_of_homes(pack, players):
    """At states across a random game, every player's runs are those the set of each zone's homes found."""
    states = [g for g in _sampled_states(pack, players, 5, 300, 11) if not g.over]
    assert len(states) >= 10
    whole = 0
    for game in states:
        for player in game.state["players"]:
            runs = list(imagine._unseen_runs(game, player))
            assert runs == _runs_as_before(game, player)
            whole += sum(count > 1 for *_, count in runs)
    assert whole > 0


def test_a_deck_with_a_gap_or_a_stranger_is_read_card_by_card():
    """A deck holding a gap (None) or a card of another home is no run of one home: card by card, as before."""
    game = next(g for g in _sampled_states("cro-magnon", 2, 1, 40, 39) if not g.over)
    zones = game.state["zones"]
    forest, river = zones["forest"], zones["river"]
    assert len(forest) > 3 and len(river) > 3
    homes = imagine._homes(game.rules)[1]
    assert homes[forest[0]] != homes[river[0]]
    for changed in ([None, *forest[1:]], [*forest[:2], None, *forest[3:]], [*forest[:2], river[0], *forest[3:]]):
        zones["forest"] = changed
        runs = list(imagine._unseen_runs(game, "P1"))
        assert runs == _runs_as_before(game, "P1")
        assert all(count == 1 for _, key, _, count in runs if key == "forest")
        assert any(key == "forest" for _, key, _, _ in runs)


def test_the_cards_of_each_home_are_those_of_the_homes():
    """Each home's set holds the very cards whose home it is, worked out again when the homes are."""
    rules = ruleset("cro-magnon")
    numbers = imagine._homes(rules)[1]
    sets = imagine._cards_of_homes(rules)
    assert sets is imagine._cards_of_homes(rules)
    assert [sorted(cards) for cards in sets] == [
        [card for card, home in enumerate(numbers) if home == number] for number in range(len(sets))
    ]
    rules.__dict__["_imagined_homes"] = (list(imagine._homes(rules)[0]), list(numbers))  # homes worked out anew
    assert imagine._cards_of_homes(rules) is not sets and imagine._cards_of_homes(rules) == sets
