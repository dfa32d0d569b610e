"""Reads the compiled runtime makes in C (issue 16): exact `dict` and `list` locals where verbs.py and codegen.py's
runtime helpers call `get` or slice (Cython then calls the dict's or list's own code, not a method looked up by name),
`opponents` read from the seats without `in_play_from`'s call when nobody is out, a secret choice's options read
without `items_read`'s call when they are a list without gaps or a zone without places, and `_cached_where`'s key made
by plain loops. The same answers, keys and errors as the code before (oracle copies here), and the calls left out."""

from __future__ import annotations

import operator
import random
from pathlib import Path

import pytest

from engine.runtime import codegen, verbs
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly
from engine.runtime.table import Table

CONTENT = Path(__file__).resolve().parents[1] / "content"


@pytest.fixture(scope="module")
def neolithibum():
    return load(CONTENT / "neolithibum")


def opponents_before(g, me) -> list:
    """codegen._opponents before: the players `in_play_from` gives, less `me` (the oracle)."""
    players = g.in_play_from(me)
    if players and players[0] == me:
        return players[1:]
    return [p for p in players if p != me]


class _Seats(list):
    """The seats in a list of a kind of its own: read as a list is."""


@pytest.mark.parametrize("out", [None, {}, {"P2": "round"}, {"P1": "game", "P4": "round"}])
def test_opponents_as_before_for_every_seat_and_nobody(neolithibum, out):
    game = Game.new(neolithibum, 4, 3)
    if out is not None:
        game.state["out"] = out
    for seats in (game.state["players"], _Seats(game.state["players"])):
        game.state["players"] = seats
        for me in [*seats, "P9", None]:
            now = codegen._opponents(game, me)
            assert now == opponents_before(game, me) and type(now) is list
            assert now is not seats


def test_opponents_with_nobody_out_asks_no_in_play_from(neolithibum, monkeypatch):
    """Fails before: `_opponents` called `in_play_from` for every read."""
    game = Game.new(neolithibum, 4, 3)
    asked = []
    in_play_from = Table.in_play_from
    monkeypatch.setattr(Table, "in_play_from", lambda self, p: asked.append(p) or in_play_from(self, p))
    assert codegen._opponents(game, "P3") == ["P4", "P1", "P2"] and not asked
    game.state["out"] = {"P4": "round"}
    assert codegen._opponents(game, "P3") == ["P1", "P2"] and asked == ["P3"]


def test_secret_choices_read_their_options_without_items_read(neolithibum, monkeypatch):
    """Fails before: Neolithibum's secret choices (`from hand(me)`, `from opponents`) read each chooser's options by
    `items_read`; a zone without places and a list without gaps are read as they are, the same games as before."""
    inside = []
    reads = []
    run, items_read = verbs.ChooseSecretly.run, Table.items_read

    def watched_run(self, g, c, frame):
        inside.append(self)
        try:
            return run(self, g, c, frame)
        finally:
            inside.pop()

    def watched_read(self, value):
        if inside:
            reads.append(value)
        return items_read(self, value)

    monkeypatch.setattr(verbs.ChooseSecretly, "run", watched_run)
    monkeypatch.setattr(Table, "items_read", watched_read)
    for seed in range(2):
        play_randomly(Game.new(neolithibum, 4, seed), random.Random(seed))
    assert inside == [] and reads == []


_LAST = operator.itemgetter(slice(-1, None))


def cached_where_key_before(g, ident, wholes, tops, everyones, owned, values) -> tuple:
    """The key codegen._cached_where made before, by `map`s and a tuple display (the oracle)."""
    zones = g.state["zones"]
    read = zones.__getitem__
    players = codegen._every_key(g, everyones) if everyones else ()
    try:
        everyone = tuple(map(tuple, map(read, players)))
    except (KeyError, TypeError):
        everyone = tuple(map(codegen._held, map(zones.get, players)))
    return (
        ident,
        values,
        *map(tuple, map(read, wholes)),
        *map(tuple, map(_LAST, map(read, tops))),
        *everyone,
        *(((zone, codegen._held(zones.get(zone))) for zone in owned) if owned else ()),
    )


def flat_key(g, old_key: tuple, wholes, tops, everyones, owned) -> tuple:
    """The key of before (`cached_where_key_before`) as `_cached_where` keeps it now, one flat tuple (since
    tests/test_runtime_speed_zg3_where_key.py): each zone its count of cards then its cards (None: no such zone), each top
    card (`_NO_TOP`: none), the count of every player's zones before them, each owned zone's key before its cards."""
    ident, values, *rest = old_key
    parts: list = [ident, values]
    for cards in rest[: len(wholes)]:
        parts += [len(cards), *cards]
    for top in rest[len(wholes) : len(wholes) + len(tops)]:
        parts.append(top[0] if top else codegen._NO_TOP)
    players = rest[len(wholes) + len(tops) : len(rest) - len(owned)]
    if everyones:
        parts.append(len(players))
        for cards in players:
            parts += [None] if cards is None else [len(cards), *cards]
    for zone, cards in rest[len(rest) - len(owned) :]:
        parts += [zone, None] if cards is None else [zone, len(cards), *cards]
    return tuple(parts)


def _key_now(g, *parts) -> tuple:
    """The key `_cached_where` keeps its items under now (its cache, read back)."""
    cache: dict = {}
    items = codegen._cached_where(g, cache, *parts, lambda: ["x"], "k", 1)
    assert items == ["x"]
    (key,) = cache
    return key


def test_cached_where_keys_as_before(neolithibum):
    game = Game.new(neolithibum, 4, 5)
    play_randomly(game, random.Random(5), limit=30)
    zones = game.state["zones"]
    table_zones = [z for z in zones if ":" not in z]
    everyones = tuple(z for z, spec in neolithibum.zones.items() if spec.get("owner") == "player")[:2]
    owned = tuple(z for z in zones if z.endswith(":P2"))[:2]
    cases = [
        ("w", (), (), (), (), None),
        ("w", tuple(table_zones[:3]), tuple(table_zones[-2:]), everyones, owned, (1, "P2")),
        ("w", (), tuple(table_zones), (), ("nowhere", *owned), ()),
    ]
    for parts in cases:
        assert _key_now(game, *parts) == flat_key(game, cached_where_key_before(game, *parts), *parts[1:5])
    del zones[f"{everyones[0]}:P3"]  # a player's zone not made: None in its place, as before
    parts = ("w", (), (), everyones, (), None)
    assert _key_now(game, *parts) == flat_key(game, cached_where_key_before(game, *parts), *parts[1:5])
    for missing in (("w", ("nowhere",), (), (), (), None), ("w", (), ("nowhere",), (), (), None)):
        with pytest.raises(KeyError) as before:
            cached_where_key_before(game, *missing)
        with pytest.raises(KeyError) as now:
            _key_now(game, *missing)
        assert now.value.args == before.value.args


def test_cached_where_reads_back_and_pays_as_before(neolithibum):
    """A second read of the same zones is the cache's, and pays the work the first cost."""
    game = Game.new(neolithibum, 4, 5)
    cache: dict = {}
    computed = []

    def compute():
        computed.append(1)
        game.work -= 7
        return ["a"]

    parts = ("w", ("stones",) if "stones" in game.state["zones"] else (), (), (), (), None)
    before = game.work
    assert codegen._cached_where(game, cache, *parts, compute, "k", 1) == ["a"]
    assert codegen._cached_where(game, cache, *parts, compute, "k", 1) == ["a"]
    assert computed == [1] and game.work == before - 14
