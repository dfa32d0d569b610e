"""A greedy bot's own work made smaller (issue 16), the same games:

- `imagine.shuffle` draws a word of 32 bits for each place at once (`getrandbits(32 * n)`, the words one by one, the
  first the lowest) and reads them in C, a draw alone only once they are used up: the same order as
  `random.Random.shuffle`, the generator left where it leaves it, and far fewer calls;
- `_cached_where` keys its items by one flat tuple (each zone its count of cards, then its cards), not a tuple a zone:
  two keys are equal exactly when the keys of before are, so the same items and work are read back;
- a clone takes its source's set of the owners of counters (a game's players never change) and its tables one by one,
  not through a loop of `setattr`: the same tables, the same attributes in the same order.
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from engine.runtime import codegen, imagine
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"


class _CountedDraws(random.Random):
    """A generator that counts the calls of `getrandbits`."""

    calls = 0

    def getrandbits(self, k):
        self.calls += 1
        return super().getrandbits(k)


@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 8, 9, 14, 21, 33, 64, 200])
def test_the_shuffle_is_random_shuffle_with_fewer_draws(count):
    """The same order and the generator left where `random.Random.shuffle` leaves it, from one call for all the first
    words and a call alone for each draw after them: fails before, a call for each draw (at least one a place; some
    half as many calls as places now, for a dozen cards and more)."""
    calls = []
    for seed in range(40):
        mine, theirs = _CountedDraws(seed), random.Random(seed)
        cards, expected = list(range(count)), list(range(count))
        imagine.shuffle(mine, cards)
        theirs.shuffle(expected)
        assert cards == expected
        assert mine.getstate() == theirs.getstate()
        calls.append(mine.calls)
    if count >= 12:
        assert sum(calls) < 0.8 * len(calls) * (count - 1)


def test_the_shuffle_of_a_list_of_other_things():
    """Cards of any kind (a gap, None, among them) are moved as `random.Random.shuffle` moves them."""
    for seed in range(20):
        cards = [None, "a", 3, ("t",), None, 7, "b", 0]
        expected = list(cards)
        imagine.shuffle(random.Random(seed), cards)
        random.Random(seed).shuffle(expected)
        assert cards == expected


# ---------------------------------------------------------------- the key of a cached `where`
def _key_before(g, ident, wholes, tops, everyones, owned, values) -> tuple:
    """The key `_cached_where` made before this step: a tuple a zone (the oracle)."""
    zones = g.state["zones"]
    everyone = []
    if everyones:
        players = codegen._every_key(g, everyones)
        try:
            everyone = [tuple(zones[zone]) for zone in players]
        except (KeyError, TypeError):
            everyone = [codegen._held(zones.get(zone)) for zone in players]
    parts = [ident, values]
    parts += [tuple(zones[zone]) for zone in wholes]
    parts += [tuple(zones[zone][-1:]) for zone in tops]
    parts += everyone
    parts += [(zone, codegen._held(zones.get(zone))) for zone in owned]
    return tuple(parts)


def _key_now(g, *parts) -> tuple:
    """The key `_cached_where` keeps its items under (its cache, read back)."""
    cache: dict = {}
    assert codegen._cached_where(g, cache, *parts, lambda: ["x"], "k", 1) == ["x"]
    (key,) = cache
    return key


def _reads(g) -> list[tuple]:
    """Reads of a `where` of every shape: table zones whole and their tops, every player's zones, owned zones (one not
    made), none."""
    zones = list(g.state["zones"])
    table = [zone for zone in zones if ":" not in zone]
    everyones = tuple(zone for zone, spec in g.rules.zones.items() if spec.get("owner") == "player")
    owned = tuple(zone for zone in zones if zone.endswith(":P2"))
    return [
        ("w", (), (), (), (), ()),
        ("w", tuple(table[:3]), tuple(table[-3:]), everyones[:1], (), ("1",)),
        ("w", tuple(table), (), everyones, owned[:2], ()),
        ("w", (), tuple(table), (), ("nowhere", *owned), ("'P2'",)),
        ("v", tuple(table[:1]), (), everyones[:2], owned[:1], ()),
    ]


@pytest.mark.parametrize(("pack", "players"), [("cro-magnon", 2), ("cro-magnon", 3), ("neolithibum", 4)])
def test_cached_where_keys_are_equal_when_those_of_before_are(pack, players):
    """Across random games (their zones changing, a zone emptied, a player's zone taken away): each key is one flat
    tuple (fails before: a tuple a zone), and two keys are equal exactly when the keys of before are."""
    rules = load(CONTENT / pack)
    pairs = []
    for seed in range(3):
        game = Game.new(rules, players, seed)
        for step in range(6):
            play_randomly(game, random.Random(seed * 10 + step), limit=15)
            for parts in _reads(game):
                pairs.append((_key_before(game, *parts), _key_now(game, *parts)))
        zones = game.state["zones"]
        for zone in list(zones)[:4]:
            zones[zone] = []  # (emptied: no top card)
        del zones[next(zone for zone in zones if zone.endswith(":P1"))]  # a player's zone not made
        for parts in _reads(game):
            pairs.append((_key_before(game, *parts), _key_now(game, *parts)))
    assert all(type(part) is not tuple or part is codegen._NO_TOP for _, now in pairs for part in now[2:])
    assert len({before for before, _ in pairs}) > len(pairs) // 4  # (many keys, not the same few)
    for (before, now), (other_before, other_now) in itertools.combinations(pairs, 2):
        assert (before == other_before) == (now == other_now)


def test_a_player_count_is_told_apart():
    """The same cards read for two players and for three (the pack's cache is kept across games of any seating): not
    the same key."""
    rules = load(CONTENT / "cro-magnon")
    two, three = Game.new(rules, 2, 0), Game.new(rules, 3, 0)
    parts = ("w", (), (), ("tableau",), ("weapons_row",), ())
    for game in (two, three):
        for zone in game.state["zones"]:
            if zone.startswith("tableau:") or zone == "weapons_row":
                game.state["zones"][zone] = []
    assert _key_now(two, *parts) != _key_now(three, *parts)


# ---------------------------------------------------------------- a clone's tables
def test_a_clone_shares_its_sources_owners_of_counters_and_tables():
    """Fails before: each clone made its set of the owners of counters anew. The tables are its source's, set in
    `bind_tables`' order (the same attributes in the same order as a new game)."""
    rules = load(CONTENT / "cro-magnon")
    game = Game.new(rules, 3, 1)
    play_randomly(game, random.Random(1), limit=40)
    for copy in (game.clone(), game.clone(sharing_lists=True), game.determinized("P2", 3)):
        assert copy.counters_of is game.counters_of == {"P1", "P2", "P3", "table"}
        assert copy.layout is game.layout and copy._counter_limits is game._counter_limits
        assert list(vars(copy)) == list(vars(Game.new(rules, 3, 2)))
