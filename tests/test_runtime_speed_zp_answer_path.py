"""The fixed cost of one answer made cheaper (issue 16, helper P), each part held to what it replaced:

- `session.play_randomly` reads the game's state, its bound `_take` and its answer limit once for the game (the limit
  again after `after`, which may set it), and a player's legal answers already worked out for the pending decision
  (`Game._answerable`, as `Game._legal_now` reads them) without a call of `_legal_now`;
- `undo.live_options` gives every option as a copy of a list made in advance, a new list at each call;
- `protocol.allowed_for` looks for an option twice among a player's own with typed locals when compiled
  (protocol.pxd): the same answers for every input;
- `interpreter.answer` gathers the answers of several players with a comprehension, not a `map` of a method.
"""

from __future__ import annotations

import json
import random

import pytest
from scenario import ruleset

from engine.runtime import compiled_modules, protocol, undo
from engine.runtime.errors import Stalled
from engine.runtime.game import Game
from engine.runtime.protocol import CHANCE, allowed_for
from engine.runtime.session import _BIT_LENGTHS, play_randomly


def old_play_randomly(game: Game, rnd, *, after=None, limit: int | None = None) -> int:
    """`session.play_randomly` as it was at 7ce2298: everything read from the game at each answer, the legal answers
    through `_legal_now` every time."""
    made = 0
    getrandbits = rnd.getrandbits if type(rnd) is random.Random else None
    while game.state["stage"] != "over" and (limit is None or made < limit):
        pending = game.state["pending"]
        assert pending is not None
        by = pending["by"]
        player = by[0]
        if player == CHANCE and len(by) == 1:
            game.apply_chance()
        else:
            legal = game._legal_now(pending, player)
            n = len(legal)
            if getrandbits is not None and n > 0:
                bits = _BIT_LENGTHS[n] if n < len(_BIT_LENGTHS) else n.bit_length()
                drawn = getrandbits(bits)
                while drawn >= n:
                    drawn = getrandbits(bits)
            else:
                drawn = rnd.randrange(n)
            option = legal[drawn]
            if game.max_answers_per_turn is None:
                game._take(player, option)
            else:
                game.apply(option, player)
            made += 1
        if after is not None:
            after(game)
    return made


def old_live_options(g, pending) -> list[int]:
    """`undo.live_options` as it was: every option as a list made of a range."""
    count = len(pending["options"])
    dead = g.state["dead"]
    if not dead or pending["kind"] in ("invite", "bid", "secret"):
        return list(range(count))
    attempt = g.state["attempt"]
    if attempt is None:
        if pending["kind"] != "action":
            return list(range(count))
        path = []
    else:
        path = attempt["path"]
    depth = len(path)
    gone = {d[-1] for d in dead if len(d) == depth + 1 and d[:depth] == path}
    return [i for i in range(count) if i not in gone]


def old_allowed_for(pending, player, live):
    """`protocol.allowed_for` as it was (word for word)."""
    if "limit" in pending:
        limits = pending["limit"]
        limit = limits.get(player) if limits is not None else None
        if limit is not None:
            live = [o for o in live if o < limit]
    if "allowed" in pending:
        allowed = pending["allowed"]
        own = None
        if allowed is not None and player in allowed:
            own = allowed[player]
        if own is not None:
            if len(live) == len(pending["options"]):
                kept = sorted(own)
                for i in range(1, len(kept)):
                    if kept[i] == kept[i - 1]:
                        kept = sorted(set(own))
                        break
                if not kept or (kept[0] >= 0 and kept[-1] < len(live)):
                    return kept
            live = list(filter(set(own).__contains__, live))
    return live


def _states(play, pack, seed, players=4, limit=None, after=None):
    """The state (as JSON, `steps` included) and the work left after every answer of a seeded random game."""
    seen = []
    game = Game.new(ruleset(pack), players, seed)

    def record(g):
        seen.append((json.dumps(g.state, sort_keys=True), g.work))
        if after is not None:
            after(g)

    made = play(game, random.Random(seed), after=record, limit=limit)
    return made, seen


@pytest.mark.parametrize(
    ("pack", "seed", "players"), [("neolithibum", 5, 4), ("neolithibum", 6, 3), ("cro-magnon", 4, 3)]
)
def test_play_randomly_plays_the_games_it_played(pack, seed, players):
    """The same answers, states, work and count as the loop of before, to the game's end."""
    made, seen = _states(play_randomly, pack, seed, players)
    assert (made, seen) == _states(old_play_randomly, pack, seed, players)
    assert made > 10 and '"stage": "over"' in seen[-1][0]


def test_legal_answers_already_worked_out_are_read_without_legal_now(monkeypatch):
    """At a secret of four (whose players' legal answers `advance` worked out as it stopped there) no `_legal_now` is
    called: of the first answers of a Neolithibum game, fewer calls than answers (the loop of before: one each)."""
    calls = []
    real = Game._legal_now

    def counted(self, pending, player):
        calls.append(player)
        return real(self, pending, player)

    monkeypatch.setattr(Game, "_legal_now", counted)
    game = Game.new(ruleset("neolithibum"), 4, 0)
    assert game.state["pending"]["kind"] == "secret"
    made = play_randomly(game, random.Random(0), limit=4)
    assert made == 4 and calls == []
    made = play_randomly(game, random.Random(1), limit=200)
    assert made == 200 and 0 < len(calls) < made


@pytest.mark.parametrize(("pack", "seed"), [("neolithibum", 2), ("cro-magnon", 1)])
def test_an_answer_limit_set_after_an_answer_is_kept_from_the_next(pack, seed):
    """An `after` that sets an answer limit: the next answers go through `apply` and its count, Stalled where the loop
    of before was stalled, after the same answers."""

    def limited(game):
        if len(game.state["history"]) == 30:
            game.max_answers_per_turn = 2

    outcomes = []
    for play in (play_randomly, old_play_randomly):
        with pytest.raises(Stalled):
            _states(play, pack, seed, after=limited)
        seen: list = []
        game = Game.new(ruleset(pack), 4 if pack == "neolithibum" else 3, seed)
        with pytest.raises(Stalled):
            play(game, random.Random(seed), after=lambda g, seen=seen: (seen.append(json.dumps(g.state)), limited(g)))
        outcomes.append((seen, json.dumps(game.state, sort_keys=True)))
    assert outcomes[0] == outcomes[1] and len(outcomes[0][0]) >= 30


class _Held:
    def __init__(self, dead=(), attempt=None):
        self.state = {"dead": list(dead), "attempt": attempt}


@pytest.mark.parametrize("count", [0, 1, 2, 7, 255, 256, 300])
def test_every_option_is_a_new_list_at_each_call(count):
    """No dead end known: every option, in a list of its own at each call (one changed by its holder changes no other
    decision's), as `list(range(count))` gave it."""
    pending = {"kind": "choose", "options": list(range(count))}
    first = undo.live_options(_Held(), pending)
    assert first == old_live_options(_Held(), pending) == list(range(count)) and type(first) is list
    first.append(-1)
    again = undo.live_options(_Held(), pending)
    assert again == list(range(count)) and again is not first
    menu = {"kind": "choose", "options": list(range(count))}
    outside = undo.live_options(_Held(dead=[[0]]), menu)  # dead ends known, outside an action, not the menu
    assert outside == list(range(count)) and outside is not again


def test_live_options_with_dead_ends_as_before():
    """Dead ends known on the menu and inside an action: the options left, as before."""
    menu = {"kind": "action", "options": list(range(5))}
    held = _Held(dead=[[1], [3, 0], [4]])
    assert undo.live_options(held, menu) == old_live_options(held, menu) == [0, 2, 3]
    inside = _Held(dead=[[3, 0], [3, 2], [1]], attempt={"path": [3]})
    ask = {"kind": "choose", "options": list(range(4))}
    assert undo.live_options(inside, ask) == old_live_options(inside, ask) == [1, 3]


def test_allowed_for_as_before_for_every_kind_of_own_answers():
    """Random decisions: own answers sorted or not, twice, out of range or negative, none, with limits and some
    options dead; the same legal answers as before, each a list of its own."""
    rnd = random.Random(16)
    for _ in range(3000):
        count = rnd.randrange(0, 9)
        pending: dict = {"kind": rnd.choice(["secret", "bid", "choose"]), "options": list(range(count))}
        players = ["P1", "P2", "P3"]
        if rnd.random() < 0.5:
            pending["limit"] = None if rnd.random() < 0.1 else {p: rnd.randrange(-1, 10) for p in players[:2]}
        if rnd.random() < 0.8:
            pending["allowed"] = (
                None
                if rnd.random() < 0.1
                else {p: [rnd.randrange(-2, count + 2) for _ in range(rnd.randrange(0, 6))] for p in players[:2]}
            )
        live = list(range(count)) if rnd.random() < 0.6 else sorted(rnd.sample(range(count), rnd.randrange(count + 1)))
        for player in players:
            now = allowed_for(pending, player, list(live))
            assert now == old_allowed_for(pending, player, list(live)), (pending, player, live)
            if "allowed" in pending and pending["allowed"] and player in pending["allowed"]:
                assert now is not pending["allowed"][player]


def test_a_decision_with_no_dead_end_known_is_worked_out_without_live_options(monkeypatch):
    """`Game._work_out_live` gives every option itself when no dead end is known (`undo.live_options`' answer, a new
    list each time): `_live` is called only with dead ends known, and the live options are those it would give."""
    asked = []
    real = Game._live

    def counted(self, pending):
        asked.append(bool(self.state["dead"]))
        return real(self, pending)

    monkeypatch.setattr(Game, "_live", counted)
    game = Game.new(ruleset("neolithibum"), 4, 3)
    rnd = random.Random(3)
    seen = 0
    while not game.over and seen < 300:
        pending = game.state["pending"]
        live = game._live_now(pending)[0]
        assert live == old_live_options(game, pending)
        seen += 1
        play_randomly(game, rnd, limit=1)
    assert seen == 300 and all(asked)


@pytest.mark.skipif("protocol" not in compiled_modules(), reason="protocol.py runs from its source")
def test_the_compiled_protocol_module_was_built_with_its_declarations():
    """Fails if the build ignores protocol.pxd: Cython exports a .pxd's functions in `__pyx_capi__`."""
    assert "allowed_for" in getattr(protocol, "__pyx_capi__", {})
