"""Calls a decision of Neolithibum no longer makes (and a loop of any lowered effect: its work charged without `spend`) (most of its decisions are secret choices, its stones land by an
oracle): `move` of one card straight to `_move_one_logged` (Move.run); a secret choice's words told without `label`
and bound without `bind` (ChooseSecretly.resume), its first limits and picks made in one loop (ChooseSecretly.run);
an oracle's arguments bound once and its weights checked without a loop of Python when they are plain numbers
(Oracle.run); whether a chooser sees a card read off its zone's mask (Choose._pending); the setup told without
`in_setup` (log_words, Table.log, verbs._move_logged); `_inherited` inlined (Perform.run); the seats found with one
walk (Table.in_play_from). Each is compared with an oracle copy of the code before it, in whole seeded games and
in small cases, and each has a test that fails without it."""

from __future__ import annotations

import functools
import math
import random
import sys
from collections import Counter
from contextlib import nullcontext
from itertools import chain, count, filterfalse, repeat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lockstep import as_kept_now, kept_before, play_side_by_side, swapped_in
from python_source import on_python_source
from test_compiled_effects import interpreted

from engine.runtime import ahead, places, verbs
from engine.runtime.context import Ctx
from engine.runtime.driver import NOBODY
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.log_words import _zone_sight
from engine.runtime.rules import load
from engine.runtime.session import play_randomly
from engine.runtime.table import Table

CONTENT = Path(__file__).resolve().parents[1] / "content"


def _refused(*args, **kwargs):
    raise AssertionError("called on the fast path")


def _python_calls(run):
    """The names of the Python functions called while `run()` runs (`run` itself left out), and what it returns."""
    names: list[str] = []

    def profile(frame, event, arg):
        if event == "call":
            names.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        result = run()
    finally:
        sys.setprofile(None)
    return names[1:], result


# ------------------------------------------------------------------------------------------- the oracles
def _move_run_before(self, g, c, frame):
    """Move.run before: every move through `cards` and `_move_logged`."""
    f = self.for_player
    player = c.me if f is None else f(c) or c.me
    f = self.to_of
    target_value = self.to if f is None else f(c)
    if target_value is None:
        target_value = next((z for z, d in g.rules.zones.items() if d.get("type") == "hand"), None)
        if target_value is None:
            raise ContentError(f"`{self.name}` needs `to`: the pack has no hand zone", code="X115")
    target = g.zone_key(target_value, player)
    cards = self.cards(c, self.moved(c) if self.moved is not None else None)
    actor = None if c.env.get(NOBODY) else c.me
    f = self.at_of
    verbs._move_logged(g, cards, target, actor, self.word, self.at if f is None else f(c))


def _oracle_run_before(self, g, c, frame):
    """Oracle.run before: its arguments looked up at each run, every weight checked by a loop of Python."""
    outcomes = self.value(c, "among")
    chances = self.value(c, "with")
    if outcomes is None:
        p = (
            min(100, max(0, chances if isinstance(chances, (int, float)) and not isinstance(chances, bool) else 50))
            / 100
        )
        options, probs = [True, False], [p, 1 - p]
    else:
        options = list(g.items_of(outcomes))
        weights = list(chances) if isinstance(chances, list) else [1] * len(options)
        if (
            not options
            or len(weights) != len(options)
            or any(not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0 for w in weights)
            or not sum(weights)
        ):
            raise ContentError(
                f"`oracle` needs one weight (a number, 0 or more, not all 0) per outcome; got "
                f"{len(weights)} for {len(options)} outcomes",
                code="X116",
            )
        probs = [w / sum(weights) for w in weights]
    return {
        "kind": "oracle",
        "by": ["chance"],
        "prompt": self.value(c, "question"),
        "options": options,
        "probs": probs,
        "stream": "oracle",
    }


def _choose_pending_before(self, g, c, frame):
    """Choose._pending before: `can_see` asked of every card."""
    wait = kept_before(frame["wait"])
    cands, picked, low, by = wait["cands"], wait["picked"], wait["low"], wait["by"]
    start = picked[-1] + 1 if picked else 0
    still = max(0, low - len(picked))
    stop = len(cands) - still + 1 if still else len(cands)
    blind = False
    window = cands[start:stop]
    if wait["cards"] and int in map(type, window):
        offer, options, seen = [], [], set()
        can_see, instances, loc, orient = g.can_see, g.rules.instances, g.state["loc"], g.state["orient"]
        for j in range(start, stop):
            value = cands[j]
            if type(value) is int:
                if can_see(value, by):
                    key = (instances[value], loc[value], orient[value])
                    if key in seen:
                        continue
                    seen.add(key)
                else:
                    blind = True
            offer.append(j)
            options.append(value)
    else:
        offer, options = list(range(start, stop)), window
    if len(picked) >= low:
        offer.append(-1)
        options.append(verbs.DONE)
    wait["offer"] = offer
    if len(offer) > 1:
        wait["free"] = True
    question = wait.get("prompt") or self.plain
    high = wait["high"]
    pending = {
        "kind": "choose",
        "by": [by],
        "prompt": f"{question} ({len(picked) + 1} of {high})" if high > 1 else question,
        "options": options,
        "blind": blind,
        "cards": wait["cards"],
    }
    if self.showing is None and self.shape is None:
        return pending
    return verbs.labelled(self, g, c, pending)


def _secret_resume_before(self, g, c, frame, answer):
    """ChooseSecretly.resume before: the picks bound by `bind`, every option but a card told by `label`."""
    wait = kept_before(frame["wait"])
    if "own" not in wait:
        frame["wait"] = wait = verbs._one_round(wait)
    options = wait["options"]
    if wait["taking"]:
        own, offers, picks = wait["own"], wait["offer"], wait["picks"]
        for player, key in zip(wait["order"], answer, strict=False):
            picks[player].append(verbs._place_answered(own[player], offers[player], key))
        pending = self._pending(g, c, frame)
        if pending is not None:
            return pending
        chosen = {}
        for p, places in picks.items():
            if places and places[-1] < 0:
                places = places[:-1]
            chosen[p] = list(map(options.__getitem__, map(own[p].__getitem__, places)))
        self.bind(c, [chosen.get(p, []) for p in wait["players"]])
        told_of = chain.from_iterable(map(zip, map(repeat, chosen), chosen.values()))
    else:
        picked = dict(zip(wait["order"], map(options.__getitem__, answer), strict=False))
        self.bind(c, list(map(picked.get, wait["players"])))
        told_of = picked.items()
    everyone = (1 << len(g.state["players"])) - 1
    told = []
    names = g._card_names
    for p, v in told_of:
        if self.of_cards and type(v) is int:
            told.append([p, names[v], verbs.seen_by(g, v)])
        elif type(v) is list:
            sight = everyone
            for card in verbs.cards_in(g, v, self.shape) if self.of_cards else ():
                sight &= verbs.seen_by(g, card)
            reader = next((q for q, bit in verbs.seat_bits(g).items() if sight & bit), None)
            told.append([p, verbs.composite_words(g, v, self.shape, reader, self.of_cards), sight or everyone])
        else:
            told.append([p, g.label(v), everyone])
    if told:
        verbs.log_together(g, told)
    return None


def _secret_run_before(self, g, c, frame):
    """ChooseSecretly.run before: the limits and the picks of one pick each made by comprehensions."""
    f = self.players_of
    players = g.items_of(self.players if f is None else f(c))
    options: list = []
    own: dict[str, list[int]] = {}
    positions: dict = {}
    hashable = True
    source = self.args.get("from")
    if self.written_options and players:
        items = source(c)
        positions.update(zip(filterfalse(positions.__contains__, items), count()))
        keys = list(map(positions.__getitem__, items))
        size = len(items)
        g.work -= size + (len(players) - 1) * size * (1 + len(positions))
        if g.work < 0:
            verbs.out_of_work()
        own = {player: keys[:] for player in players}
    else:
        chooser = Ctx(g, c.env, None, c.card)
        for player in players:
            chooser.me = player

            items = g.items_read(source(chooser)) if source is not None else []

            g.work -= len(items) * (1 + (len(positions) if hashable else len(options)))
            if g.work < 0:
                verbs.out_of_work()
            keys = None
            if hashable:
                try:
                    positions.update(zip(filterfalse(positions.__contains__, items), count(len(positions))))
                    keys = list(map(positions.__getitem__, items))
                except TypeError:
                    hashable = False
                    options = list(positions)
            if keys is None:
                keys = []
                for item in items:
                    try:
                        key = positions.get(item)
                    except TypeError:
                        key = options.index(item) if item in options else None
                    if key is None:
                        key = len(options)
                        options.append(item)
                        try:  # noqa: SIM105 -- as it was
                            positions[item] = key
                        except TypeError:
                            pass
                    keys.append(key)
            if keys:
                own[player] = keys
    if hashable:
        options = list(positions)
    taking = self.takes
    f = self.taking_of
    amount = self.taking if f is None else f(c)
    if amount == "all":
        low = high = len(options)
    elif isinstance(amount, dict):
        low, high = (int(x) for x in amount["between"])
    else:
        low = high = int(amount or 0)
    choosers: dict[str, list[int]] = {}
    limits: dict[str, list[int]] = {}
    if high > 0:
        choosers = own
        if low == high == 1:
            limits = {p: [1, 1] for p in own}
        else:
            for player, keys in own.items():
                n = len(keys)
                limits[player] = [min(low, n), min(high, n)]
    frame["wait"] = {
        "players": players,
        "own": choosers,
        "limits": limits,
        "picks": {p: [] for p in choosers},
        "options": options,
        "taking": taking,
    }
    if not choosers:
        self.bind(c, [[] if taking else None for _ in players])
        return None
    return self._pending(g, c, frame)


def _in_play_from_before(self, player):
    """Table.in_play_from before: the seat looked for twice (`in`, then `index`)."""
    state = self.state
    order = state["players"]
    i = order.index(player) if player in order else 0
    seats = order[i:] + order[:i]
    out = state.get("out")
    return [p for p in seats if p not in out] if out else seats


def _move_before(self, card, target, slot=None):
    """Table.move before (the same work, the location read twice), the lists the undo snapshot holds copied on write
    as since (test_runtime_speed_zu_snapshot)."""
    state = self.state
    if self.held_memo:
        self.held_memo = {}
    source = state["loc"][card]
    if (target in self._capacity or target not in self._zone_defs) and places.capacity_of(self, target) is not None:
        places.check_capacity(self, target, source)
    zones, slotted, known_zones = state["zones"], self._slotted, self._zone_defs
    cards = zones[source]
    if self.sharing_snapshot is not None and cards is self.sharing_snapshot["zones"].get(source):
        cards = zones[source] = cards.copy()
    if source in slotted if source in known_zones else self.slotted(source):
        cards[cards.index(card)] = None
    else:
        cards.remove(card)
    dest = zones[target]
    if self.sharing_snapshot is not None and dest is self.sharing_snapshot["zones"].get(target):
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
    state["loc"][card] = target
    state["orient"][card] = 0
    shown = state["shown"]
    if shown:
        shown.pop(str(card), None)
    known = state.get("known")
    if known:
        known.pop(str(card), None)


BEFORE = [
    (verbs.Move, "run", _move_run_before),
    (verbs.Oracle, "run", _oracle_run_before),
    (verbs.Choose, "_pending", _choose_pending_before),
    (verbs.ChooseSecretly, "resume", _secret_resume_before),
    (verbs.ChooseSecretly, "run", _secret_run_before),
    (Table, "in_play_from", _in_play_from_before),
    (Table, "move", _move_before),
]


def _as_before():
    """The oracles in place of the fast paths, for as long as the block runs."""
    return swapped_in(BEFORE)


def _play_side_by_side(pack_id: str, players: int, seed: int, answers: int, interpret: bool = False) -> Counter[str]:
    """A random game of `pack_id` played now and, answer for answer, as before (tests/lockstep.py), the game as before
    with rules of its own, loaded with the oracles in place; `interpret`: both step by step. Returns how many
    decisions of each kind were answered."""
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
    [("neolithibum", 4, 0), ("neolithibum", 3, 1), ("cro-magnon", 4, 0), ("stone-age-mammoth-herd", 4, 0)],
)
def test_games_go_as_before(pack_id, players, seed):
    """Secret choices of cards, players and words, oracles, moves, choices of cards: every state the same."""
    assert _play_side_by_side(pack_id, players, seed, 400).total() > 50


def test_neolithibum_step_by_step_goes_as_before():
    """The same, every effect run by the step interpreter (verbs looked up at each step)."""
    _play_side_by_side("neolithibum", 4, 2, 250, interpret=True)


def test_paleo_goes_as_before():
    """Paleo's secret choices: cards seen only by their backs, lists of options joined to words."""
    _play_side_by_side("paleo-a-new-beginning", 3, 0, 150)


# ------------------------------------------------------------------------------------------- each fast path
def _neolithibum(answers: int, players: int = 4, seed: int = 0) -> Game:
    game = Game.new(load(CONTENT / "neolithibum"), players, seed)
    play_randomly(game, random.Random(seed), limit=answers)
    return game


def test_a_move_of_one_card_goes_straight_to_the_move_of_one(monkeypatch):
    """`move CARD`: no list of the card, no `_move_logged` (fails without the fast path); the same state as
    before, from a hidden place to a public one and back, by nobody and by a player, at a place."""
    game = _neolithibum(40)
    player = game.players[0]
    hand = game.state["zones"][f"hand:{player}"]
    assert hand
    for to, at, env in (("bone_pit", None, {}), (f"hand:{player}", 1, {NOBODY: True}), ("bone_pit", 1, {})):
        card = game.state["zones"][f"hand:{player}"][0] if to == "bone_pit" else game.state["zones"]["bone_pit"][-1]
        args = {"cards": verbs.Fixed(card), "to": verbs.Fixed(to)}
        if at is not None:
            args["at"] = verbs.Fixed(at)
        move = verbs.Move("move", args, {})
        fast, slow = game.clone(), game.clone()
        with monkeypatch.context() as patched:
            patched.setattr(verbs, "_move_logged", _refused)
            patched.setattr(verbs.VerbStep, "cards", _refused)
            assert move.run(fast, Ctx(fast, dict(env), player, None), {}) is None
        _move_run_before(move, slow, Ctx(slow, dict(env), player, None), {})
        assert fast.state == as_kept_now(slow.state)
        game = fast


def test_a_move_of_a_zone_still_goes_through_cards():
    """A zone's cards (a list) are moved as before, through `cards` and `_move_logged`."""
    game = _neolithibum(40)
    player = game.players[0]
    move = verbs.Move("move", {"cards": verbs.Fixed(f"hand:{player}"), "to": verbs.Fixed("bone_pit")}, {})
    fast, slow = game.clone(), game.clone()
    move.run(fast, Ctx(fast, {}, player, None), {})
    _move_run_before(move, slow, Ctx(slow, {}, player, None), {})
    assert fast.state == as_kept_now(slow.state) and not fast.state["zones"][f"hand:{player}"]


def _oracle(among, weights, question="How did it land?"):
    args = {"question": verbs.Fixed(question)}
    if among is not None:
        args["among"] = verbs.Fixed(among)
    if weights is not None:
        args["with"] = verbs.Fixed(weights)
    return verbs.Oracle("oracle", args, {})


def _outcome(run):
    try:
        return run()
    except ContentError as exc:
        return ("error", exc.code, str(exc))


WEIGHT = st.one_of(
    st.integers(-3, 5),
    st.floats(-2, 5),
    st.booleans(),
    st.text(max_size=2),
    st.none(),
    st.just(float("nan")),
)


@settings(max_examples=300, deadline=None)
@given(
    among=st.one_of(st.none(), st.lists(st.sampled_from(["stays", "falls", "rolls"]), max_size=4)),
    weights=st.one_of(st.none(), st.lists(WEIGHT, max_size=5), st.integers(-5, 120), st.booleans()),
)
def test_an_oracle_asks_as_before(among, weights):
    """Any outcomes and weights (numbers, a yes or no, texts, below 0, all 0, not a number): the same decision, or
    the same error (X116), as before."""
    game = _game()
    oracle = _oracle(among, weights)
    now = _outcome(lambda: oracle.run(game, Ctx(game, {}, game.players[0], None), {}))
    before = _outcome(lambda: _oracle_run_before(oracle, game, Ctx(game, {}, game.players[0], None), {}))
    if isinstance(now, dict) and any(map(math.isnan, now["probs"])):  # NaN: equal to nothing, itself included
        assert repr(now) == repr(before)
    else:
        assert now == before


@functools.cache
def _game() -> Game:
    """A game for the oracle's run (it reads nothing of it but `items_of`)."""
    return Game.new(load(CONTENT / "neolithibum"), 3, 0)


@on_python_source  # (the Python calls it makes, which a compiled module does not show)
def test_an_oracle_of_plain_weights_runs_no_python_but_its_own(monkeypatch):
    """Fails without the fast path: plain weights are checked without a loop of Python (no generator), and the
    arguments bound once are read without `value`."""
    game = _game()  # (made first: its setup asks `value`, as every game's does; alone, the test made it here)
    monkeypatch.setattr(verbs.VerbStep, "value", _refused)
    oracle = _oracle(["stays", "falls", "rolls"], [5, 2.5, 0])
    c = Ctx(game, {}, game.players[0], None)
    calls, pending = _python_calls(lambda: oracle.run(game, c, {}))
    assert pending["probs"] == [5 / 7.5, 2.5 / 7.5, 0.0] and pending["prompt"] == "How did it land?"
    assert calls == ["run", "items_of", "<listcomp>"]  # no generator of the weights (the chances: a list)


def _choose_of_cards(game):
    """The innermost frame's `choose` of cards, at its decision (played on until one comes)."""
    rnd = random.Random(3)
    while not game.over:
        pending = game.state["pending"]
        if pending["kind"] == "choose" and pending.get("cards") and int in map(type, pending["options"]):
            frame = game.state["stack"][-1]
            return frame, game.rules.code[frame["code"]].steps[frame["pc"]][1]
        player = game.decision.players[0]
        legal = game.legal(player)
        game.apply(legal[rnd.randrange(len(legal))], player)
    raise AssertionError("no choice of cards")


@pytest.mark.parametrize("pack_id", ["neolithibum", "cro-magnon"])
def test_a_choice_of_cards_reads_who_sees_them_off_their_zones(monkeypatch, pack_id):
    """Fails without the fast path: with nothing shown and each candidate's zone's mask kept, `can_see` is never
    asked; the decision and the wait are those of before (which asks it of every card)."""
    game = Game.new(load(CONTENT / pack_id), 4, 0)
    frame, verb = _choose_of_cards(game)
    assert type(verb) is verbs.Choose and not game.state["shown"]
    for card in frame["wait"]["cands"]:
        if type(card) is int:
            _zone_sight(game, game.state["loc"][card])
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    fresh = {key: list(value) if type(value) is list else value for key, value in frame["wait"].items()}
    if all(game.sight_masks.get(game.state["loc"][x]) is not None for x in fresh["cands"] if type(x) is int):
        with monkeypatch.context() as patched:
            patched.setattr(Table, "can_see", _refused)
            now_frame = {"wait": dict(fresh, picked=[])}
            now = verb._pending(game, c, now_frame)
    else:  # a `top` zone among them: asked of `can_see` as before
        now_frame = {"wait": dict(fresh, picked=[])}
        now = verb._pending(game, c, now_frame)
    before_frame = {"wait": dict(fresh, picked=[])}
    assert now == _choose_pending_before(verb, game, c, before_frame) and now_frame == before_frame


def test_a_choice_of_cards_asks_can_see_while_cards_are_shown():
    """A card shown to some seats is seen by them wherever it lies: while anything is shown, `can_see` decides."""
    game = Game.new(load(CONTENT / "cro-magnon"), 4, 0)
    frame, verb = _choose_of_cards(game)
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    cards = [x for x in frame["wait"]["cands"] if type(x) is int]
    others = [p for p in game.players if p != frame["wait"]["by"]]
    for by in (frame["wait"]["by"], others[0]):
        game.state["shown"] = {str(cards[0]): [by]}
        for card in cards:
            _zone_sight(game, game.state["loc"][card])
        fresh = dict(frame["wait"], picked=[], by=by)
        now_frame, before_frame = {"wait": dict(fresh)}, {"wait": dict(fresh)}
        assert verb._pending(game, c, now_frame) == _choose_pending_before(verb, game, c, before_frame)
        assert now_frame == before_frame


def _secret_at(game, words: str):
    """Plays on until the secret choice whose question starts with `words`."""
    rnd = random.Random(5)
    while not game.over:
        pending = game.state["pending"]
        if pending["kind"] == "secret" and pending["prompt"].startswith(words):
            return pending
        player = game.decision.players[0]
        legal = game.legal(player)
        game.apply(legal[rnd.randrange(len(legal))], player)
    raise AssertionError(f"no secret choice {words!r}")


@pytest.mark.parametrize("words", ["At which player", "Does the stone lie", "Which action card"])
def test_a_secret_choice_is_told_and_bound_without_label_or_bind(monkeypatch, words):
    """Fails without the fast path for players and words: their picks are told without `label` and bound without
    `bind`; the log line and the bound values are those of before (cards: by their names, as before)."""
    game = Game.new(load(CONTENT / "neolithibum"), 4, 0)
    pending = _secret_at(game, words)
    answers = [pending["allowed"][p][-1] for p in pending["order"]]
    fast, slow = game.clone(), game.clone()
    verb = verbs_of(fast)
    with monkeypatch.context() as patched:
        patched.setattr(Table, "label", _refused)
        patched.setattr(verbs.VerbStep, "bind", _refused)
        frame = fast.state["stack"][-1]
        assert verb.resume(fast, Ctx(fast, frame["env"], frame["me"], frame["card"]), frame, answers) is None
    frame = slow.state["stack"][-1]
    _secret_resume_before(verbs_of(slow), slow, Ctx(slow, frame["env"], frame["me"], frame["card"]), frame, answers)
    assert fast.state == as_kept_now(slow.state)
    assert fast.state["log"][-1][0] == "together"


def test_a_secret_choice_of_a_zone_an_action_or_text_reads_as_label_words_it():
    """The words told for a text option are `label`'s: a zone's name, an action's, or the text itself."""
    game = Game.new(load(CONTENT / "neolithibum"), 4, 0)
    pending = _secret_at(game, "Does the stone lie")
    frame = game.state["stack"][-1]
    wait = frame["wait"]
    texts = ["bone_pit", f"hand:{game.players[0]}", next(iter(game.rules.actions)), "let it lie", "P9"]
    wait["options"] = texts + wait["options"]
    fast, slow = game.clone(), game.clone()
    answers = list(range(len(pending["order"])))
    for g, resume in ((fast, verbs_of(fast).resume), (slow, lambda *a: _secret_resume_before(verbs_of(slow), *a))):
        frame = g.state["stack"][-1]
        resume(g, Ctx(g, frame["env"], frame["me"], frame["card"]), frame, answers)
    assert fast.state == as_kept_now(slow.state)
    told = fast.state["log"][-1][2]
    assert [words for _, words, _ in told] == [game.label(x) for x in texts[: len(told)]]


def verbs_of(game):
    frame = game.state["stack"][-1]
    return game.rules.code[frame["code"]].steps[frame["pc"]][1]


def test_a_secret_choice_of_one_pick_each_makes_no_comprehension():
    """Fails without the fast path: the wait of one pick each is made with no comprehension (Neolithibum's every
    round); the wait is as before, less the limits and picks it keeps no more (lockstep.as_kept_now)."""
    game = Game.new(load(CONTENT / "neolithibum"), 4, 0)
    _secret_at(game, "At which player")
    frame = game.state["stack"][-1]
    verb = verbs_of(game)
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    fresh = {"pc": frame["pc"], "wait": None}
    calls, _ = _python_calls(lambda: verb.run(game, c, fresh))
    assert "<dictcomp>" not in calls
    again = {"pc": frame["pc"], "wait": None}
    _secret_run_before(verb, game, c, again)
    assert again["wait"]["limits"] == {p: [1, 1] for p in fresh["wait"]["own"]}  # (the oracle's, as before)
    assert fresh["pc"] == again["pc"]
    assert fresh["wait"] == {k: v for k, v in again["wait"].items() if k not in ("limits", "picks", "offer", "first")}
    assert not {"limits", "picks", "offer", "first"} & set(fresh["wait"])


def test_the_setup_is_told_without_in_setup(monkeypatch):
    """Fails without the fast paths: the lines of counters, choices, secret picks, moves and `log` tell whether they
    are the setup's without a call of `in_setup` (Stone Age lays out its board at the setup, Neolithibum hands out
    its meals), and the setup's lines say so."""
    monkeypatch.setattr(Table, "in_setup", _refused)
    for pack_id in ("stone-age-mammoth-herd", "neolithibum"):
        game = Game.new(load(CONTENT / pack_id), 4, 0)
        play_randomly(game, random.Random(0), limit=60)
        flags = [line[1] for line in game.state["log"] if len(line) > 2 and type(line[1]) is int]
        assert 0 in flags and any(flags)


def test_perform_inherits_nobody_without_a_call(monkeypatch):
    """Fails without the fast path: `perform` works out what the effect it starts inherits without `_inherited`
    (Neolithibum performs an action for each card carried out)."""
    monkeypatch.setattr(verbs, "_inherited", _refused)
    game = _neolithibum(120)
    assert len(game.state["history"]) >= 100


class _NoContains(list):
    """Seats that refuse `in`: who looks for a seat walks them once, with `index`."""

    def __contains__(self, item):
        raise AssertionError("`in` on the seats")


@pytest.mark.parametrize("out", [None, {"P2": "round"}])
def test_the_seats_from_a_player_are_found_with_one_walk(out):
    """Fails without the fast path (`in` before `index`): the seats from any player, a player not seated or None
    from the first, as before."""
    game = Game.new(load(CONTENT / "neolithibum"), 4, 0)
    if out:
        game.state["out"] = dict(out)
    expected = {p: _in_play_from_before(game, p) for p in [*game.players, "nobody", None]}
    game.state["players"] = _NoContains(game.state["players"])
    assert {p: game.in_play_from(p) for p in expected} == expected
    assert expected["P3"][0] == "P3" and expected[None][0] == "P1"


def test_a_lowered_loop_charges_its_items_without_spend(monkeypatch):
    """Fails without the fast path: a lowered `for each` charges its items itself, no call of `spend` (every
    loop of every pack starts so); the work left after every answer is the step interpreter's (which calls it)."""
    sources: list[str] = []
    compile_source = ahead.compiled
    monkeypatch.setattr(ahead, "_TABLE_ON", False)  # (every source compiled now, none made by a factory ahead)
    monkeypatch.setattr(ahead, "compiled", lambda text, name: sources.append(text) or compile_source(text, name))
    rules = load(CONTENT / "neolithibum")
    stepped = load(CONTENT / "neolithibum")
    play_side_by_side(rules, 4, 3, lambda: interpreted(stepped), rules_before=stepped, answers=300)
    loops = [text for text in sources if "items = g.items_of(" in text]
    assert loops and not any("spend(g, len(items))" in text for text in loops)
    assert all("g.work -= len(items)" in text for text in loops)
