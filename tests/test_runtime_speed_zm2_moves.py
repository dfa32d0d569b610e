"""Moving cards, cut (issue 16): `Move.run` reads its arguments in one read (`plan`, bound when the verb is built) and
gives a zone of one card straight to `_move_one_logged`; `_move_one_logged` reads the state's shown cards once;
`Table.move` reads the state's maps in C (`state` a dict to Cython) and asks whether the target is a zone of the layout
once; who knows where a card lies (`known`, `shown`) is kept under the card's text made once (log_words.CARD_TEXTS),
not made again by `str` at each move and each `remember`. Each is compared with an oracle copy of the code before it,
in whole seeded games and in small cases, and each that a test can see fails without it."""

from __future__ import annotations

import random
from collections import Counter
from contextlib import nullcontext
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lockstep import play_side_by_side, swapped_in
from test_compiled_effects import interpreted

from engine.runtime import log_words, verbs
from engine.runtime.context import Ctx
from engine.runtime.driver import NOBODY
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.log_words import MOVE, seat_bits, seen_by
from engine.runtime.places import capacity_of, check_capacity
from engine.runtime.rules import load
from engine.runtime.session import play_randomly
from engine.runtime.state import SETUP_STAGES
from engine.runtime.table import Table

CONTENT = Path(__file__).resolve().parents[1] / "content"


def _refused(*args, **kwargs):
    raise AssertionError("called on the fast path")


# ------------------------------------------------------------------------------------------- the oracles
def _move_run_before(self, g, c, frame):
    """Move.run before: each argument read off the verb at each run; a zone's cards through `_move_logged`."""
    f = self.for_player
    me = c.me
    player = me if f is None else f(c) or me
    f = self.to_of
    target_value = self.to if f is None else f(c)
    if target_value is None:
        target_value = next((z for z, d in g.rules.zones.items() if d.get("type") == "hand"), None)
        if target_value is None:
            raise ContentError(f"`{self.name}` needs `to`: the pack has no hand zone", code="X115")
    target = None
    if type(target_value) is str:
        zones = g.state["zones"]
        if target_value in zones:
            target = target_value
        else:
            own = g._own_keys.get(target_value)
            if own is not None:
                target = own.get(player)
    if target is None:
        target = g.zone_key(target_value, player)
    moved = self.moved
    if moved is not None:
        moved = moved(c)
    cards = None if type(moved) is int else self.cards(c, moved)
    actor = None if c.env.get(NOBODY) else me
    f = self.at_of
    slot = self.at if f is None else f(c)
    if cards is None:
        verbs._move_one_logged(g, moved, target, actor, self.word, slot)
    else:
        verbs._move_logged(g, cards, target, actor, self.word, slot)


def _move_one_logged_before(g, card, target, actor, verb, slot):
    """verbs._move_one_logged before: the shown cards read before and after the move."""
    if g.log is log_words.unread_log:
        g.move(card, target, slot)
        return
    state = g.state
    source = state["loc"][card]
    masks = g.sight_masks
    before = masks.get(source)
    if before is None or state["shown"]:
        before = seen_by(g, card)
    g.move(card, target, slot)
    setup = 0
    if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES:
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    now = masks.get(target)
    if now is None or state["shown"]:
        now = seen_by(g, card)
    if before & ~now:
        log_words.remember(g, card, before & ~now)
    state["log"].append([MOVE, setup, actor, verb, source, target, [card], [before | now]])


def _remember_before(g, card, mask):
    """log_words.remember before: the card's text made by `str`."""
    known = g.state.get("known")
    if known is None:
        return
    known[str(card)] = [p for p, bit in seat_bits(g).items() if mask & bit]


def _table_move_before(self, card, target, slot=None):
    """Table.move before: the card's text made by `str` for `shown` and `known`; the target looked up twice."""
    state = self.state
    if self.held_memo:
        self.held_memo = {}
    loc = state["loc"]
    known_zones = self._zone_defs
    source = loc[card]
    if (target in self._capacity or target not in known_zones) and capacity_of(self, target) is not None:
        check_capacity(self, target, source)
    zones = state["zones"]
    slotted, sharing = self._slotted, self.sharing_snapshot
    cards = zones[source]
    if sharing is not None:
        sharing = sharing["zones"]
        if cards is sharing.get(source):
            cards = zones[source] = cards.copy()
    if source in slotted if source in known_zones else self.slotted(source):
        cards[cards.index(card)] = None
    else:
        cards.remove(card)
    dest = zones[target]
    if sharing is not None and dest is sharing.get(target):
        dest = zones[target] = dest.copy()
    if target in slotted if target in known_zones else self.slotted(target):
        if slot is not None and 1 <= slot <= len(dest) and dest[slot - 1] is None:
            dest[slot - 1] = card
        elif None in dest:
            dest[dest.index(None)] = card
        else:
            dest.append(card)
    elif slot is not None:
        dest.insert(max(0, min(len(dest), slot - 1)), card)
    else:
        dest.append(card)
    loc[card] = target
    state["orient"][card] = 0
    shown = state["shown"]
    if shown:
        shown.pop(str(card), None)
    known = state.get("known")
    if known:
        known.pop(str(card), None)


def _draw_run_before(self, g, c, frame):
    """Draw.run before: each argument read off the verb at each run; `player`, `acting`, `single` and `bind` called."""
    player = self.player(c)
    f = self.amount_of
    amount = int((self.amount if f is None else f(c)) or 0)
    zones = g.state["zones"]
    f = self.from_of
    source = self.source if f is None else f(c)
    if type(source) is not str or source not in zones:
        source = g.zone_key(source, player)
    f = self.to_of
    target_value = self.to if f is None else f(c)
    target = None
    if type(target_value) is str:
        if target_value in zones:
            target = target_value
        else:
            own = g._own_keys.get(target_value)
            if own is not None:
                target = own.get(player)
    if target is None:
        target = g.zone_key(target_value, player) if target_value is not None else f"_drawn:{player}"
    f = self.at_of
    slot = self.at if f is None else f(c)
    drawn = []
    actor = verbs.acting(c)
    for _ in range(amount):
        card = next((x for x in reversed(zones[source]) if x is not None), None)
        if card is None:
            if not g.refill(source):
                break
            card = next(x for x in reversed(zones[source]) if x is not None)
        drawn.append(card)
        verbs._move_one_logged(g, card, target, actor, "draws", slot)
    self.bind(c, (drawn[0] if drawn else None) if self.single() else drawn)


BEFORE = [
    (verbs.Move, "run", _move_run_before),
    (verbs.Draw, "run", _draw_run_before),
    (verbs, "_move_one_logged", _move_one_logged_before),
    (verbs, "remember", _remember_before),
    (log_words, "remember", _remember_before),
    (Table, "move", _table_move_before),
]


def _as_before():
    """The oracles in place of the fast paths, for as long as the block runs."""
    return swapped_in(BEFORE)


def _play_side_by_side(pack_id: str, players: int, seed: int, answers: int, interpret: bool = False) -> Counter[str]:
    """A random game of `pack_id` played now and, answer for answer, as before (tests/lockstep.py), the game as before
    with rules of its own, loaded with the oracles in place; `interpret`: both step by step."""
    with _as_before():
        before_rules = load(CONTENT / pack_id)
    now_rules = load(CONTENT / pack_id)
    with (
        interpreted(now_rules) if interpret else nullcontext(),
        interpreted(before_rules) if interpret else nullcontext(),
    ):
        return play_side_by_side(now_rules, players, seed, _as_before, rules_before=before_rules, answers=answers)


# ------------------------------------------------------------------------------------------- as before
@pytest.mark.parametrize(
    ("pack_id", "players", "seed"),
    [("neolithibum", 4, 3), ("neolithibum", 2, 4), ("cro-magnon", 3, 1), ("stone-age-mammoth-herd", 2, 0)],
)
def test_games_go_as_before(pack_id, players, seed):
    """Moves by nobody and by players, of one card and of several, from hidden places to public ones and back, to
    places that hold only so many: every state (its log and who knows where cards lie) the same."""
    assert _play_side_by_side(pack_id, players, seed, 400).total() > 50


def test_neolithibum_step_by_step_goes_as_before():
    """The same, every effect run by the step interpreter (verbs looked up at each step)."""
    _play_side_by_side("neolithibum", 4, 5, 250, interpret=True)


def test_paleo_goes_as_before():
    """Paleo: cards shown, slotted rows, hidden decks."""
    _play_side_by_side("paleo-a-new-beginning", 3, 0, 150)


# ------------------------------------------------------------------------------------------- each fast path
def _neolithibum(answers: int, players: int = 4, seed: int = 0) -> Game:
    game = Game.new(load(CONTENT / "neolithibum"), players, seed)
    play_randomly(game, random.Random(seed), limit=answers)
    return game


def test_a_zone_of_one_card_goes_straight_to_the_move_of_one(monkeypatch):
    """`move ZONE` of a zone holding one card: no `_move_logged` (fails without the fast path); the same state as
    before, by a player and by nobody, to a public place and back to a hand."""
    game = _neolithibum(40)
    player = game.players[0]
    hand = f"hand:{player}"
    for card in list(game.state["zones"][hand])[1:]:
        game.move(card, "bone_pit")
    assert len(game.state["zones"][hand]) == 1
    for source, to, env in ((hand, "bone_pit", {}), ("bone_pit", hand, {NOBODY: True})):
        if source == "bone_pit":
            for card in list(game.state["zones"]["bone_pit"])[:-1]:
                game.move(card, "_removed")
            assert len(game.state["zones"]["bone_pit"]) == 1
        move = verbs.Move("move", {"cards": verbs.Fixed(source), "to": verbs.Fixed(to)}, {})
        fast, slow = game.clone(), game.clone()
        with monkeypatch.context() as patched:
            patched.setattr(verbs, "_move_logged", _refused)
            assert move.run(fast, Ctx(fast, dict(env), player, None), {}) is None
        with _as_before():
            _move_run_before(move, slow, Ctx(slow, dict(env), player, None), {})
        assert fast.state == slow.state and not fast.state["zones"][source]
        game = fast


def test_a_zone_of_several_cards_still_goes_through_the_move_of_cards(monkeypatch):
    """Several cards are moved together as before (one line of the log), through `_move_logged`."""
    game = _neolithibum(40)
    player = game.players[0]
    hand = f"hand:{player}"
    assert len(game.state["zones"][hand]) > 1
    move = verbs.Move("move", {"cards": verbs.Fixed(hand), "to": verbs.Fixed("bone_pit")}, {})
    fast, slow = game.clone(), game.clone()
    with monkeypatch.context() as patched:
        patched.setattr(verbs, "_move_one_logged", _refused)
        move.run(fast, Ctx(fast, {}, player, None), {})
    with _as_before():
        _move_run_before(move, slow, Ctx(slow, {}, player, None), {})
    assert fast.state == slow.state and not fast.state["zones"][hand]


def test_a_move_reads_its_arguments_as_bound_when_it_was_built():
    """`run` reads the verb's arguments in one read, `plan` (fails without it: each was read off the verb)."""
    game = _neolithibum(40)
    player = game.players[0]
    card = game.state["zones"][f"hand:{player}"][0]
    move = verbs.Take("take", {"cards": verbs.Fixed(card), "to": verbs.Fixed("bone_pit")}, {})
    assert move.plan == (None, None, "bone_pit", move.moved, None, None, "takes")
    for name in ("for_player", "to_of", "to", "moved", "at_of", "at", "word"):
        setattr(move, name, _refused)
    move.run(game, Ctx(game, {}, player, None), {})
    assert game.state["loc"][card] == "bone_pit"
    assert game.state["log"][-1][:7] == [MOVE, 0, player, "takes", f"hand:{player}", "bone_pit", [card]]


@pytest.mark.parametrize("amount", [0, 1, 3, 40])
@pytest.mark.parametrize("binds", [None, "piece"])
def test_a_draw_calls_nothing_of_the_verb(monkeypatch, amount, binds):
    """`draw N from ZONE [to ZONE] [as NAME] for PLAYER`, none, one, several, past the bag's end: no `player`,
    `acting`, `single` nor `bind` called (fails without the fast path); the same state and names bound as before."""
    game = _neolithibum(40)
    player = game.players[1]
    args = {"amount": verbs.Fixed(amount), "from": verbs.Fixed("piece_bag"), "for": lambda c: player}
    if binds:
        args["as"] = binds  # (a name, as the compiler gives it)
    draw = verbs.Draw("draw", args, {"amount": ["num", 0, amount]})
    fast, slow = game.clone(), game.clone()
    fast_env, slow_env = {}, {}
    with monkeypatch.context() as patched:
        for name in ("player", "single", "bind"):
            patched.setattr(verbs.VerbStep, name, _refused)
        patched.setattr(verbs, "acting", _refused)
        assert draw.run(fast, Ctx(fast, fast_env, game.players[0], None), {}) is None
    with _as_before():
        _draw_run_before(draw, slow, Ctx(slow, slow_env, game.players[0], None), {})
    assert fast.state == slow.state and fast_env == slow_env
    assert len(fast.state["zones"][f"_drawn:{player}"]) == min(amount, len(game.state["zones"]["piece_bag"]))


def test_who_knows_where_a_card_lies_is_kept_under_its_text_made_once():
    """`remember` keeps the card's text of CARD_TEXTS (fails without it: `str` made a new one at each call)."""
    game = _neolithibum(40)
    card = game.state["zones"][f"hand:{game.players[0]}"][0]
    game.state["known"].clear()
    log_words.remember(game, card, 0b101)
    (key,) = game.state["known"]
    assert key is log_words.CARD_TEXTS[card]
    assert game.state["known"] == {str(card): [game.players[0], game.players[2]]}


@settings(max_examples=200, deadline=None)
@given(
    card=st.one_of(st.integers(0, 4200), st.sampled_from([0, 4095, 4096, 10**6, -1, True, False])),
    mask=st.integers(0, 15),
    shown=st.booleans(),
)
def test_the_texts_of_cards_are_str_s(card, mask, shown):
    """Any card number, below the texts made once or past them (or a yes/no standing for one): `remember` keys it as
    `str` does (a stand-in game: only what it reads)."""

    class _Layout:
        def __init__(self):
            self.seat_bits = {"P1": 1, "P2": 2, "P3": 4, "P4": 8}

    class _Stub:
        def __init__(self):
            self.layout = _Layout()

    game, before = _Stub(), _Stub()
    for stub in (game, before):
        stub.state = {"known": {"7": ["P1"]}, "shown": {str(card): "all"} if shown else {}}
    log_words.remember(game, card, mask)
    _remember_before(before, card, mask)
    assert game.state == before.state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), picks=st.lists(st.integers(0, 10**6), min_size=1, max_size=12))
def test_table_moves_go_as_before(seed, picks):
    """Any card to any zone, any place (slotted rows, piles at a place, shown and known cards forgotten, capacities
    checked): the same state or the same error as `Table.move` before, on a Paleo game (rows of slots)."""
    game = Game.new(_paleo(), 3, seed % 7)
    other = game.clone()
    zones = sorted(game.state["zones"])
    cards = range(len(game.state["loc"]))
    for n, pick in enumerate(picks):
        card, target, slot = cards[pick % len(cards)], zones[(pick // 7) % len(zones)], (None, 1, 2, 5)[pick % 4]
        for g in (game, other):
            if n % 3 == 0:
                g.state["shown"][str(card)] = "all"
            g.state["known"][str(card)] = ["P1"]
        outcomes = []
        for g, move in ((game, Table.move), (other, _table_move_before)):
            try:
                move(g, card, target, slot)
                outcomes.append(None)
            except ContentError as exc:
                outcomes.append((exc.code, str(exc)))
        assert outcomes[0] == outcomes[1]
        assert game.state == other.state


_PALEO: list = []


def _paleo():
    if not _PALEO:
        _PALEO.append(load(CONTENT / "paleo-a-new-beginning"))
    return _PALEO[0]
