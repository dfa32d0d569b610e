"""The greedy bot's imagined deal made cheaper (issue 16), each part held to what it replaced:

- a clone shares its source's zone masks (`Game._take_tables`), not a copy of them: a zone's mask is worked out from
  the seating and the zone's rule alone, both a clone's as they are its source's, so a mask one game works out serves
  every copy;
- `imagine._unseen_runs` asks whether a zone's hidden cards are all of one home with a number per home
  (`imagine._homes`), not a tuple hashed and compared card by card;
- `imagine.determinized` shuffles a whole zone's cards where they lie, with no slice taken and put back.
"""

from __future__ import annotations

import pytest
from scenario import ruleset
from test_greedy_agent import _sampled_states

from engine.runtime import imagine
from engine.runtime.game import Game
from engine.runtime.layout import TOP, hidden_by_zone, sight_of
from engine.runtime.log_words import _zone_sight, seen_by
from engine.runtime.state import copy_state

PACKS = [("cro-magnon", 3), ("neolithibum", 3), ("stone-age", 2), ("paleo-a-new-beginning", 2)]


def _states(pack, players, every=29):
    """Copies of states across a seeded random game, not over."""
    return [state for state in _sampled_states(pack, players, 5, 300, every) if not state.over]


# ---------------------------------------------------------------- a clone shares its source's zone masks
@pytest.mark.parametrize("pack, players", PACKS)
def test_a_clone_shares_its_sources_zone_masks_and_they_are_a_fresh_games(pack, players):
    """A clone, and a clone of a clone, holds its source's very masks (the copy of before: `is not`), and every mask
    any of them works out is the one a game on its own, binding its own tables, works out for that zone."""
    for source in _states(pack, players):
        copy = source.clone()
        assert copy.sight_masks is source.sight_masks
        deeper = copy.clone()
        assert deeper.sight_masks is source.sight_masks
        for card in range(len(deeper.state["loc"])):  # fills the masks of every zone a card lies in
            seen_by(deeper, card)
        alone = Game(source.rules, copy_state(source.state))
        assert alone.sight_masks is not source.sight_masks
        for zone in deeper.state["zones"]:
            assert _zone_sight(deeper, zone) == _zone_sight(alone, zone), zone
        assert alone.sight_masks == source.sight_masks


def test_games_of_other_seatings_never_share_masks():
    """A mask is by seat order: games of their own (new, loaded) each have theirs; only clones share."""
    first, second = Game.new(ruleset("cro-magnon"), 2, 0), Game.new(ruleset("cro-magnon"), 3, 0)
    assert first.sight_masks is not second.sight_masks
    assert Game.load(first.rules, first.save()).sight_masks is not first.sight_masks


# ---------------------------------------------------------------- one home: a set of numbers
@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum", "stone-age", "paleo-a-new-beginning"])
def test_the_home_numbers_are_equal_exactly_where_the_homes_are(pack):
    """Two cards have the same home number if and only if they have the same home."""
    homes, numbers = imagine._homes(ruleset(pack))
    assert len(numbers) == len(homes)
    by_home = dict(zip(homes, numbers, strict=True))
    assert len(set(by_home.values())) == len(by_home)  # one number a home, another for another
    assert [by_home[home] for home in homes] == numbers


def _unseen_runs_as_before(g, player):
    """imagine._unseen_runs before the home numbers, word for word: one home asked as a set of home tuples."""
    state, rules = g.state, g.rules
    placed = {int(card) for card, seen in state["shown"].items() if seen == "all" or (seen and player in seen)}
    placed.update(int(card) for card, seats in (state.get("known") or {}).items() if player in seats)
    homes, with_backs, zones = imagine._homes(rules)[0], imagine._has_backs(rules), state["zones"]
    if tuple(zones) == g.layout.order:
        hidden = g.layout.unseen_zones(player)
    else:
        sights = [(key, g._sight.get(key) or sight_of(rules, key)) for key in zones]
        hidden = tuple((key, sight[0] == TOP) for key, sight in sights if hidden_by_zone(sight, player))
    for key, top in hidden:
        cards = zones[key]
        end = len(cards) - 1 if top else len(cards)
        if end <= 0:
            continue
        whole = not with_backs and None not in cards and placed.isdisjoint(cards)
        if whole and len(set(map(homes.__getitem__, cards[:end]))) == 1:
            yield homes[cards[0]], key, 0, end
            continue
        for i in range(end):
            card = cards[i]
            if card is not None and card not in placed:
                home = homes[card]
                if with_backs:
                    home += (g.card_def(card).get("back") if g.sees_back(card, player) else imagine._UNSEEN,)
                yield home, key, i, 1


@pytest.mark.parametrize("pack, players", [*PACKS, ("cro-magnon-solo", 1)])
def test_the_unseen_runs_are_those_of_before(pack, players):
    """Every player's runs of unseen cards, at states across a random game, are those of before, whole zones
    among them."""
    whole, states = 0, _states(pack, players, every=17)
    for game in states:
        for player in game.state["players"]:
            runs = list(imagine._unseen_runs(game, player))
            assert runs == list(_unseen_runs_as_before(game, player))
            whole += sum(count > 1 for _, _, _, count in runs)
    assert whole > 0 or imagine._has_backs(states[0].rules)  # a pack with card backs: card by card


def test_a_zone_of_two_homes_is_dealt_card_by_card():
    """The numbers tell the homes apart: a zone holding cards of two homes is no one run (with the numbers all
    the same, it would be)."""
    game = _states("cro-magnon", 2)[0]
    homes = imagine._homes(game.rules)[0]
    player = game.state["players"][0]
    zones = game.state["zones"]
    deck = next(key for _, key, _, count in imagine._unseen_runs(game, player) if count > 1 and key in zones)
    other = next(card for card in range(len(homes)) if homes[card] != homes[zones[deck][0]])
    game.move(other, deck)
    runs = [run for run in imagine._unseen_runs(game, player) if run[1] == deck]
    assert len(runs) > 1 and {count for *_, count in runs} == {1}
    assert runs == [run for run in _unseen_runs_as_before(game, player) if run[1] == deck]


# ---------------------------------------------------------------- a whole zone shuffled where it lies
@pytest.mark.parametrize("pack, players", PACKS)
def test_a_whole_zone_is_shuffled_where_it_lies(pack, players, monkeypatch):
    """The lists shuffled for a run that is a whole zone are the imagined game's own zone lists (no slice), and
    the imagined game is the one of shuffling a slice and putting it back (the card-by-card re-deal of before:
    tests/test_runtime_speed_h_greedy.py)."""
    from test_runtime_speed_h_greedy import _determinized_as_before

    shuffled: list[list] = []
    shuffle = imagine.shuffle
    monkeypatch.setattr(imagine, "shuffle", lambda rnd, cards: (shuffled.append(cards), shuffle(rnd, cards))[1])
    in_place, states = 0, _states(pack, players)
    for game in states:
        for player in game.state["players"]:
            shuffled.clear()
            imagined = game.determinized(player, 7)
            zones = imagined.state["zones"]
            whole = [key for _, key, first, count in imagine._unseen_runs(game, player) if count == len(zones[key])]
            lists = {id(cards) for cards in shuffled}
            in_place += sum(id(zones[key]) in lists for key in whole)
            assert all(zones[key] is not game.state["zones"][key] for key in zones)  # the real game untouched
            assert imagined.state == _determinized_as_before(game, player, 7).state
    assert in_place > 0 or imagine._has_backs(states[0].rules)
