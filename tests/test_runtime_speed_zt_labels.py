"""Paleo's option labels and every pack's draws made cheaper (issue 16), each held to what it replaced:

- `Table.label` names a text from one dict worked out once per layout (`table.text_names`: the zone keys' and zone ids'
  names over the action ids' and card ids'), not from two dicts and the state's zones; a number is worded before
  the checks of other kinds.
  Paleo words each action of a card with `words(...)` at every choice of one, some seventeen labels a decision;
- `Draw.run` finds a zone's key, or the key of a zone each player has, without `zone_key`'s call (as `Move.run`).
"""

from __future__ import annotations

import functools
import json
import random
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.runtime import verbs
from engine.runtime.context import Ctx
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.layout import id_names
from engine.runtime.rules import load
from engine.runtime.table import Table, text_names

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = ("paleo-a-new-beginning", "cro-magnon", "neolithibum", "stone-age-mammoth-herd")


# ------------------------------------------------------------------------------------------- the oracles
def _label_before(self, value, player=None) -> str:
    """Table.label before: a text looked up in the zones' names, the state's zones, then the ids' names."""
    if type(value) is str:
        name = self._zone_names.get(value)
        if name is None:
            name = self.zone_name(value) if value in self.state["zones"] else text_names_before(self).get(value)
        return name if name is not None else value
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if value is None:
        return "nothing"
    if isinstance(value, list):
        return ", ".join(_label_before(self, v, player) for v in value) or "nothing"
    if isinstance(value, dict):
        return json.dumps(value)
    if value in self.state["zones"] or value in self.rules.zones:
        return self.zone_name(value)
    for table in (self.rules.actions, self.rules.cards):
        if value in table:
            return table[value].get("name") or value
    return str(value)


def text_names_before(game) -> dict[str, str]:
    """The action ids' and card ids' names alone: what `Table._id_names` held before (now `_text_names`)."""
    return id_names(game.rules)


def _draw_run_before(self, g, c, frame):
    """Draw.run before: both zones found by `zone_key`."""
    player = self.player(c)
    f = self.amount_of
    amount = int((self.amount if f is None else f(c)) or 0)
    f = self.from_of
    source = g.zone_key(self.source if f is None else f(c), player)
    f = self.to_of
    target_value = self.to if f is None else f(c)
    target = g.zone_key(target_value, player) if target_value is not None else f"_drawn:{player}"
    f = self.at_of
    slot = self.at if f is None else f(c)
    drawn = []
    zones = g.state["zones"]
    for _ in range(amount):
        card = next((x for x in reversed(zones[source]) if x is not None), None)
        if card is None:
            if not g.refill(source):
                break
            card = next(x for x in reversed(zones[source]) if x is not None)
        drawn.append(card)
        verbs._move_one_logged(g, card, target, verbs.acting(c), "draws", slot)
    self.bind(c, (drawn[0] if drawn else None) if self.single() else drawn)


@contextmanager
def _as_before():
    """The oracles in place of the fast paths while the block runs (rules loaded inside it lower with them)."""
    kept = (Table.__dict__["label"], verbs.Draw.__dict__["run"])
    Table.label, verbs.Draw.run = _label_before, _draw_run_before  # type: ignore[method-assign]
    try:
        yield
    finally:
        Table.label, verbs.Draw.run = kept  # type: ignore[method-assign]


def _refused(*args, **kwargs):
    raise AssertionError("called on the fast path")


def _python_calls(run):
    """The names of the Python functions `run()` calls (itself left out)."""
    names: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return names[1:]


# ------------------------------------------------------------------------------------------- as before
@pytest.mark.parametrize(("pack_id", "players", "seed"), [("paleo-a-new-beginning", 3, 0), ("cro-magnon", 4, 1)])
def test_games_go_as_before(pack_id, players, seed):
    """A random game played now and, answer for answer, with the old `label` and `Draw.run`: every state the same
    (the options Paleo words with `words(...)` among them), and the same work left."""
    with _as_before():
        before_rules = load(CONTENT / pack_id)
        before = Game.new(before_rules, players, seed)
    now = Game.new(load(CONTENT / pack_id), players, seed)
    assert now.state == before.state
    rnd = random.Random(seed)
    for _ in range(150):
        if now.over:
            break
        player = now.decision.players[0]
        legal = now.legal(player)
        option = legal[rnd.randrange(len(legal))]
        now.apply(option, player)
        with _as_before():
            before.apply(option, player)
        assert now.state == before.state
        assert now.work == before.work
    assert len(now.state["history"]) > 30


def _words_met(game: Game) -> list:
    """Every text `label` may be asked about in `game`: zone keys and ids, action and card ids, players, words."""
    rules = game.rules
    return [
        *game.state["zones"],
        *rules.zones,
        *rules.actions,
        *rules.cards,
        *game.state["players"],
        "Action ",
        ": ",
        "",
        "_drawn",
        "hand:P9",
        0,
        7,
        -3,
        True,
        False,
        None,
        [],
        ["hand:P1", 2, "x"],
        {"a": 1},
        2.5,
    ]


@pytest.mark.parametrize("pack_id", PACKS)
def test_label_names_every_text_as_before(pack_id):
    """Every zone key and id, action and card id, player, word and value of another kind: the same words."""
    game = Game.new(load(CONTENT / pack_id), 3, 0)
    for value in _words_met(game):
        for player in (None, "P1"):
            assert game.label(value, player) == _label_before(game, value, player), value


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=12), st.integers(), st.booleans(), st.lists(st.text(max_size=4), max_size=3)))
def test_label_of_any_text_number_or_list_is_as_before(value):
    assert _GAME.label(value) == _label_before(_GAME, value)


_GAME = Game.new(load(CONTENT / "paleo-a-new-beginning"), 3, 0)


# ------------------------------------------------------------------------------------------- each fast path
def test_a_text_is_named_from_one_dict_kept_per_layout():
    """Fails without the fast path: `label` reads the text names alone (a zone key missing from them is no zone's
    to it), and every game of a seating, a clone included, shares the one dict."""
    rules = load(CONTENT / "paleo-a-new-beginning")
    game, other = Game.new(rules, 3, 0), Game.new(rules, 3, 1)
    names = text_names(rules, game.layout)
    assert game._text_names is names is other._text_names is game.clone()._text_names
    assert set(game.state["zones"]) <= set(names)  # every zone key of the state
    key = next(iter(game.state["zones"]))
    game._text_names = {"Action ": "named"}
    assert game.label("Action ") == "named"
    assert game.label(key) == key  # not read from the zones' names nor the state any more


def _draw(source, to, amount=1):
    args = {"amount": verbs.Fixed(amount), "from": verbs.Fixed(source)}
    if to is not None:
        args["to"] = verbs.Fixed(to)
    return verbs.Draw("draw", args, {})


def _neolithibum() -> Game:
    return Game.new(load(CONTENT / "neolithibum"), 4, 0)


def _a_deck(game: Game) -> str:
    return next(key for key, cards in game.state["zones"].items() if ":" not in key and len(cards) > 3)


@pytest.mark.parametrize("to", ["hand", "hand:P2", None, "bone_pit"])
def test_a_draw_finds_its_zones_without_zone_key(monkeypatch, to):
    """Fails without the fast path: a zone's key, or a zone each player has, found without `zone_key`; the same
    state as before (to a player's zone, another's, the play area, a shared zone)."""
    game = _neolithibum()
    if to is not None and to.split(":")[0] not in game.rules.zones:
        pytest.skip(f"no zone {to}")
    draw = _draw(_a_deck(game), to, 2)
    fast, slow = game.clone(), game.clone()
    with monkeypatch.context() as patched:
        patched.setattr(Table, "zone_key", _refused)
        draw.run(fast, Ctx(fast, {}, "P1", None), {})
    _draw_run_before(draw, slow, Ctx(slow, {}, "P1", None), {})
    assert fast.state == slow.state
    assert "zone_key" not in _python_calls(lambda: draw.run(fast, Ctx(fast, {}, "P1", None), {}))


def test_a_draw_from_a_zone_each_player_has_or_no_zone_asks_zone_key():
    """A zone id each player has as the source, or no zone at all: `zone_key`'s key and `zone_key`'s error."""
    game = _neolithibum()
    per_player = next(z for z, d in game.rules.zones.items() if d.get("owner") == "player")
    deck = _a_deck(game)
    for source, to in ((per_player, deck), (deck, "no_such_zone"), (["a list"], None), (deck, 7)):
        fast, slow = game.clone(), game.clone()
        outcomes = []
        draw = _draw(source, to)
        for g, run in ((fast, draw.run), (slow, functools.partial(_draw_run_before, draw))):
            try:
                run(g, Ctx(g, {}, "P1", None), {})
                outcomes.append(None)
            except ContentError as error:
                outcomes.append((error.code, str(error)))
        assert outcomes[0] == outcomes[1]
        assert fast.state == slow.state
