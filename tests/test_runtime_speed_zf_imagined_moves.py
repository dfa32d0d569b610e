"""A move in a greedy bot's imagined game made cheaper (issue 16), held to the code it replaced:

- in a bot's imagined game (`log_words.unread_log` as its `Table.log`) `verbs._move_logged` and `_move_one_logged`
  move the cards alone: nothing it plays reads its log nor what its players remember (`known`, read only by
  `determinized`, which re-deals a real game); the cards, their places, turns and shown marks are as before;
- in a real game, `_move_one_logged` reads who sees the card by its zone alone from the game's zone masks, not by a
  call of `seen_by` (which it still calls where a zone shows only its top card, cards are shown, or a zone's mask is
  not worked out yet): the same log entry and the same memory as the code of before (`_move_one_logged_as_before`).

Greedy bots of today choose as bots whose imagined games log and remember every move, with the same margins, their
generators drawn as far and the real game's state and hash the same, in every pack
(`test_the_bot_chooses_as_before_in_every_pack`).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import ruleset
from test_greedy_agent import _sampled_states
from test_runtime_speed_zb_imagined_log import _greedy_game, _Recorded

from engine.runtime import log_words, verbs
from engine.runtime.errors import ContentError, GameError
from engine.runtime.game import Game
from engine.runtime.log_words import MOVE, remember, seen_by, worded_log
from engine.runtime.table import SETUP_STAGES

PACKS = sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "content").iterdir() if (p / "pack.yaml").exists()
)


# ---------------------------------------------------------------- the code of before, word for word
def _move_logged_as_before(g, cards, target, actor, verb, slot=None):
    """verbs._move_logged before this step, word for word."""
    if not cards:
        return
    if len(cards) == 1:
        _move_one_logged_as_before(g, cards[0], target, actor, verb, slot)
        return
    before = [seen_by(g, x) for x in cards]
    source = g.state["loc"][cards[0]]
    piled = slot is not None and not g.slotted(target)
    for n, x in enumerate(cards):
        g.move(x, target, slot + n if piled else slot)
    setup = 0
    if g.in_setup():
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    seen = []
    for x, sight in zip(cards, before, strict=True):
        now = seen_by(g, x)
        if sight & ~now:
            remember(g, x, sight & ~now)
        seen.append(sight | now)
    g.state["log"].append([MOVE, setup, actor, verb, source, target, list(cards), seen])


def _move_one_logged_as_before(g, card, target, actor, verb, slot):
    """verbs._move_one_logged before this step, word for word."""
    state = g.state
    before = seen_by(g, card)
    source = state["loc"][card]
    g.move(card, target, slot)
    setup = 0
    if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES:
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    now = seen_by(g, card)
    if before & ~now:
        remember(g, card, before & ~now)
    state["log"].append([MOVE, setup, actor, verb, source, target, [card], [before | now]])


# ---------------------------------------------------------------- moves of every kind, in states of real games
_STATES: dict = {}


def _states(pack: str) -> list[Game]:
    """States of a random 3-player game of `pack` (2 where it may not have 3), each as a fresh game with no zone mask
    worked out yet, kept for the module."""
    if pack not in _STATES:
        rules = ruleset(pack)
        players = max(rules.players[0], min(3, rules.players[1]))
        _STATES[pack] = [Game(rules, game.state) for game in _sampled_states(pack, players, 3, 160, every=40)]
    return _STATES[pack]


def _moves(game: Game, rnd: random.Random, setup: bool) -> list[tuple]:
    """Moves to try on `game`: one card or several, from any zone to any zone, by a seat or by nobody, at a place or
    not, some cards shown to some seats or everyone first, in play or as it were the setup."""
    zones = list(game.state["zones"])
    cards = [card for card, zone in enumerate(game.state["loc"]) if zone in game.state["zones"]]
    seats = [*game.state["players"], None]
    moves = []
    for _ in range(12):
        shown = {}
        for card in rnd.sample(cards, min(len(cards), rnd.choice((0, 0, 1, 3)))):
            shown[str(card)] = rnd.choice(("all", [rnd.choice(game.state["players"])]))
        picked = rnd.sample(cards, min(len(cards), rnd.choice((1, 1, 1, 2, 3))))
        moves.append((shown, picked, rnd.choice(zones), rnd.choice(seats), rnd.choice((None, None, 1, 2)), setup))
    return moves


def _after(game: Game, move: tuple, mover) -> tuple:
    """The state, worded log and zone masks after `mover` made `move` on a copy of `game` (or the error it raised)."""
    shown, cards, target, actor, slot, setup = move
    copy = Game(game.rules, game.clone().state)  # its own zone masks, none worked out yet
    if setup:
        copy.state["turn"]["number"], copy.state["stage"] = 0, "setup"
    copy.state["shown"].update(shown)
    try:
        mover(copy, list(cards), target, actor, "moves", slot)
    except (ContentError, GameError) as error:  # a full zone, as before
        return type(error), getattr(error, "code", None)
    return copy.state, worded_log(copy), copy.sight_masks


@pytest.mark.parametrize("pack", PACKS)
def test_a_real_game_moves_and_logs_as_before(pack):
    """Moves of every kind in states of a random game, in play and as in the setup: the same state (the log entry and
    who remembers where a card lies included), the same worded log and the same zone masks as the code of before."""
    rnd = random.Random(pack)
    remembered = 0
    for game in _states(pack):
        for setup in (False, True):
            for move in _moves(game, rnd, setup):
                today = _after(game, move, verbs._move_logged)
                assert today == _after(game, move, _move_logged_as_before), move
                remembered += len(today[0]["known"]) if len(today) == 3 else 0
    assert remembered or pack in _NOTHING_REMEMBERED  # the moves reach the path that remembers


_NOTHING_REMEMBERED: set = set()  # packs where no move above takes a card out of a seat's sight (none today)


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.booleans())
def test_a_move_of_one_card_reads_the_masks_as_seen_by_does(rnd, setup):
    """A move of one card in Cro-Magnon, its zone masks worked out already or not, cards shown or not: the entry
    and memory of before (the masks read in place of `seen_by` say what it says)."""
    game = _states("cro-magnon")[rnd.randrange(len(_states("cro-magnon")))]
    shown, cards, target, actor, slot, _ = _moves(game, rnd, setup)[0]
    warm = Game(game.rules, game.clone().state)
    for card in range(len(warm.state["loc"])):  # every zone's mask worked out, as in a game well under way
        seen_by(warm, card)
    for source in (game, warm):
        move = (shown, cards[:1], target, actor, slot, setup)
        assert _after(source, move, verbs._move_logged) == _after(source, move, _move_logged_as_before)


# ---------------------------------------------------------------- an imagined game moves the cards alone
def _imagined_after(game: Game, move: tuple, mover) -> dict:
    shown, cards, target, actor, slot, _ = move
    copy = game.clone()
    copy.log = log_words.unread_log
    copy.state["shown"].update(shown)
    mover(copy, list(cards), target, actor, "moves", slot)
    return copy.state


@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum", "stone-age-mammoth-herd", "paleo-a-new-beginning"])
def test_an_imagined_game_moves_the_cards_alone(pack):
    """In a bot's imagined game a move leaves the cards where the code of before left them (places, turns, shown
    marks, others' memory of the cards moved forgotten) and keeps no log entry nor a new memory: fails without the
    fast path (the entry is kept)."""
    rnd = random.Random(pack)
    for game in _states(pack):
        for move in _moves(game, rnd, False):
            try:
                today = _imagined_after(game, move, verbs._move_logged)
            except (ContentError, GameError):
                continue
            before = _imagined_after(game, move, _move_logged_as_before)
            assert len(today["log"]) == len(game.state["log"])  # no entry
            assert len(before["log"]) == len(game.state["log"]) + 1
            forgotten = {str(card) for card in move[1]}
            assert today["known"] == {k: v for k, v in game.state["known"].items() if k not in forgotten}
            assert {k: v for k, v in before["known"].items() if k not in forgotten} == today["known"]
            rest = ("log", "known")
            assert {k: v for k, v in today.items() if k not in rest} == {
                k: v for k, v in before.items() if k not in rest
            }


# ---------------------------------------------------------------- the bot as a whole
@pytest.mark.parametrize("pack", PACKS)
def test_the_bot_chooses_as_before_in_every_pack(pack, monkeypatch):
    """Greedy bots of today and greedy bots whose imagined games log and remember every move as before: the same
    choices with the same margins, their generators drawn as far, and the real game's state, log and hash the same."""
    monkeypatch.setattr(_Recorded, "margins", [])
    today = _greedy_game(pack, 8)
    monkeypatch.setattr(_Recorded, "margins", [])
    monkeypatch.setattr(verbs, "_move_logged", _move_logged_as_before)
    monkeypatch.setattr(verbs, "_move_one_logged", _move_one_logged_as_before)
    assert _greedy_game(pack, 8) == today
    assert any(margins for _, margins, _, _ in today[:-1])


def test_a_move_of_one_card_between_zones_of_known_masks_calls_no_seen_by(monkeypatch):
    """Once its zones' masks are worked out and no card is shown, a move of one card reads them in place of two calls
    of `seen_by`: fails without the fast path. The entry says what `seen_by` says (checked above)."""
    game = Game(ruleset("cro-magnon"), _states("cro-magnon")[-1].clone().state)
    game.state["shown"].clear()
    for card in range(len(game.state["loc"])):
        seen_by(game, card)
    masks = game.sight_masks
    card = next(c for c, zone in enumerate(game.state["loc"]) if masks.get(zone, -1) not in (None, -1))
    target = next(z for z in game.state["zones"] if masks.get(z, -1) not in (None, -1) and z != game.state["loc"][card])

    def no_seen_by(g, card):
        raise AssertionError("seen_by called by a move of one card")

    monkeypatch.setattr(verbs, "seen_by", no_seen_by)
    verbs._move_logged(game, [card], target, "P1", "moves")
    assert game.state["log"][-1][:7] == [MOVE, 0, "P1", "moves", game.state["log"][-1][4], target, [card]]
