"""A secret choice and a secret answer go as they did before their faster paths: one pick each limited without a
loop over the choosers, each round's offers worked out in `_pending` itself (no call of `_offer` nor `spend` a
chooser), the picks told without a call of `card_label` (verbs.ChooseSecretly); the answers of several players
given without a comprehension (interpreter.answer). Each is compared with an oracle copy of the code before it."""

from __future__ import annotations

import copy
import random
from itertools import count, filterfalse
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lockstep import kept_before, play_side_by_side, swapped_in
from test_compiled_effects import interpreted
from test_runtime_speed_b_secret import verb_of
from test_secret_choice import KEEP, pack

from engine.runtime import interpreter, verbs
from engine.runtime.budget import spend
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.protocol import DONE
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"


# ------------------------------------------------------------------------------------------- the oracles
def _run_before(self, g, c, frame):
    """ChooseSecretly.run before: the limits set by a loop over the choosers."""
    f = self.players_of
    players = g.items_of(self.players if f is None else f(c))
    options: list = []
    own: dict = {}
    positions: dict = {}
    hashable = True
    source = self.args.get("from")
    chooser = Ctx(g, c.env, None, c.card)
    for player in players:
        chooser.me = player
        items = g.items_read(source(chooser)) if source is not None else []
        spend(g, len(items) * (1 + (len(positions) if hashable else len(options))))
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
                    try:  # noqa: SIM105 -- the oracle as it was
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
    choosers: dict = {}
    limits: dict = {}
    if high > 0:
        choosers = own
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
    return _pending_before(self, g, c, frame)


def _offer_before(self, g, player, keys, picks, low, options):
    """ChooseSecretly._offer before: called for each chooser at each round."""
    spend(g, len(keys))
    start = picks[-1] + 1 if picks else 0
    still = low - len(picks)
    end = len(keys) - still + 1 if still > 0 else len(keys)
    window = keys[start:end]
    if self.of_cards and verbs._same_kind_twice(g, list(map(options.__getitem__, window))):
        offer, allowed, seen = [], [], set()
        can_see, instances, loc, orient = g.can_see, g.rules.instances, g.state["loc"], g.state["orient"]
        for j in range(start, end):
            key = keys[j]
            value = options[key]
            if type(value) is int and can_see(value, player):
                same = (instances[value], loc[value], orient[value])
                if same in seen:
                    continue
                seen.add(same)
            offer.append(j)
            allowed.append(key)
    else:
        offer, allowed = list(range(start, end)), window
    if len(picks) >= low:
        offer.append(-1)
        allowed.append(len(options))
    return offer, allowed


def _pending_before(self, g, c, frame):
    """ChooseSecretly._pending before: `_offer` called for each chooser."""
    wait = kept_before(frame["wait"])
    limits, picked, options = wait["limits"], wait["picks"], wait["options"]
    allowed: dict = {}
    offers: dict = {}
    done = False
    for player, keys in wait["own"].items():
        picks = picked[player]
        low, high = limits[player]
        if len(picks) >= high or (picks and picks[-1] < 0):
            continue
        offer, allowed_now = _offer_before(self, g, player, keys, picks, low, options)
        if offer == [-1] or not offer:
            continue
        done = done or offer[-1] == -1
        offers[player] = offer
        allowed[player] = allowed_now
    if not allowed:
        return None
    options = options + [DONE] if done else list(options)
    wait["offer"] = offers
    askers = list(allowed)
    wait["order"] = askers
    if "first" not in wait:
        wait["first"] = {p: [offers[p], allowed[p]] for p in askers}
    plain = self.plain
    question = self.args.get("with")
    if question is None:
        asked = dict.fromkeys(askers, plain)
    elif self.same_question:
        asked = dict.fromkeys(askers, question(c) or plain)
    else:
        asked = {p: question(Ctx(g, c.env, p, c.card)) or plain for p in askers}
    most = max(wait["limits"][p][1] for p in askers) if wait["taking"] else 1
    if most > 1:
        round_of = f" ({1 + min(len(wait['picks'][p]) for p in askers)} of {most})"
        asked = {p: text + round_of for p, text in asked.items()}
        plain += round_of
    alike = len(set(asked.values())) == 1
    pending = {
        "kind": "secret",
        "by": list(askers),
        "order": list(askers),
        "answers": {},
        "prompt": next(iter(asked.values())) if alike else plain,
        "options": options,
        "allowed": allowed,
        "cards": self.of_cards,
    }
    if not alike:
        pending["prompts"] = asked
    owner = None
    if self.args.get("showing") is not None:
        owner = {key: p for p, keys in reversed(wait["own"].items()) for key in keys}
    return verbs.labelled(self, g, c, pending, owner)


def _resume_before(self, g, c, frame, answer):
    """ChooseSecretly.resume before: `_place_answered` called for each answer, a card's name told through
    `card_label`."""
    wait = kept_before(frame["wait"])
    if "own" not in wait:
        frame["wait"] = wait = verbs._one_round(wait)
    own, offers, picks = wait["own"], wait["offer"], wait["picks"]
    for player, key in zip(wait["order"], answer, strict=False):
        picks[player].append(verbs._place_answered(own[player], offers[player], key))
    if wait["taking"]:
        pending = _pending_before(self, g, c, frame)
        if pending is not None:
            return pending
    options = wait["options"]
    chosen = {}
    for p, places in picks.items():
        if places and places[-1] < 0:
            places = places[:-1]
        chosen[p] = list(map(options.__getitem__, map(own[p].__getitem__, places)))
    if wait["taking"]:
        self.bind(c, [chosen.get(p, []) for p in wait["players"]])
    else:
        self.bind(c, [(chosen[p] or [None])[0] if p in chosen else None for p in wait["players"]])
    everyone = (1 << len(g.players)) - 1
    told = []
    for p, values in chosen.items():
        for v in values:
            if self.of_cards and type(v) is int:
                told.append([p, g.card_label(v, None), verbs.seen_by(g, v)])
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


def _answer_before(g, player, option):
    """interpreter.answer before: the answers of several players read by a comprehension."""
    state = g.state
    pending = state["pending"]
    if len(pending["by"]) > 1 or pending.get("answers") is not None:
        pending.setdefault("answers", {})[player] = option
        pending["by"] = list(filter(player.__ne__, pending["by"]))
        if pending["by"]:
            return
        given = [pending["answers"][p] for p in pending["order"]]
        if state["attempt"] is not None:
            state["attempt"]["path"].append(",".join(map(str, given)))
            state["attempt"]["counts"].append(-1)
        state["pending"] = None
        interpreter.resume_verb(g, state["stack"][-1], given)
        return
    state["pending"] = None
    attempt = state["attempt"]
    if attempt is not None:
        attempt["path"].append(option)
        attempt["counts"].append(len(pending["options"]))
    if pending["kind"] == "action":
        interpreter.start_action(g, pending["options"][option], pending, option)
        return
    interpreter.resume_verb(g, state["stack"][-1], option)


def _as_before():
    """The code before the faster paths, for as long as the block runs (`_run_before` read when it starts:
    test_the_run_oracle_runs_in_lowered_effects counts its calls)."""
    secret = verbs.ChooseSecretly
    return swapped_in(
        [
            (secret, "run", _run_before),
            (secret, "_pending", _pending_before),
            (secret, "resume", _resume_before),
            (Game, "_answer", _answer_before),
        ]
    )


# ------------------------------------------------------------------------------------------- as before
@pytest.mark.parametrize("amount", ["1", "2", "between(1, 3)", "between(0, 2)", "all", None])
@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_secret_games_go_as_before(tmp_path, amount, copies):
    """One pick or several (None: without `taking`), "done" offered or not, identical cards or none, 2 or 3 players:
    every state and the work left the same as before (`all`: every pick forced, none asked)."""
    effect = KEEP.replace(" taking {amount}", "") if amount is None else KEEP.format(amount=amount)
    rules = pack(tmp_path, effect, copies)
    asked = sum(play_side_by_side(rules, 2 + seed % 2, seed, _as_before)["secret"] for seed in range(4))
    assert asked > 4 or amount == "all"


@pytest.mark.parametrize("interpret", [False, True])
def test_neolithibum_goes_as_before(interpret):
    """The pack with the most secret choices (hands of cards, opponents), lowered and step by step."""
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            assert play_side_by_side(rules, 4, 2, _as_before)["secret"] > 10
    else:
        assert play_side_by_side(rules, 3, 3, _as_before)["secret"] > 10


def _at_a_secret_choice(tmp_path_factory, amount="1"):
    rules = pack(tmp_path_factory.mktemp("secret"), KEEP.format(amount=amount))
    game = Game.new(rules, 3, 0)
    assert game.decision.kind == "secret"
    return game


@pytest.fixture(scope="module")
def secret_game(tmp_path_factory):
    return _at_a_secret_choice(tmp_path_factory, "between(1, 3)")


_PLACES = st.lists(st.integers(0, 5), max_size=4)


@settings(max_examples=200, deadline=None)
@given(
    own=st.fixed_dictionaries({p: st.lists(st.integers(0, 6), min_size=1, max_size=6) for p in ("P1", "P2", "P3")}),
    limits=st.fixed_dictionaries({p: st.tuples(st.integers(0, 3), st.integers(0, 4)) for p in ("P1", "P2", "P3")}),
    picks=st.fixed_dictionaries({p: _PLACES for p in ("P1", "P2", "P3")}),
    done=st.fixed_dictionaries({p: st.booleans() for p in ("P1", "P2", "P3")}),
)
def test_each_round_is_offered_as_before(secret_game, own, limits, picks, done):
    """Any round of any wait: no pick yet or some, "done" said or not, limits of none, fewer or more than the
    options: the same offers, decision, wait and work as `_offer` called for each chooser worked out."""
    verb = verb_of(secret_game)
    options = list(range(7))
    wait = {
        "players": ["P1", "P2", "P3"],
        "own": own,
        "limits": {p: [low, low + extra] for p, (low, extra) in limits.items()},
        "picks": {p: sorted(set(places))[: len(own[p]) - 1] + ([-1] if done[p] else []) for p, places in picks.items()},
        "options": options,
        "taking": True,
    }
    results = []
    for pending_of in (verbs.ChooseSecretly._pending, _pending_before):
        g = secret_game.clone()
        frame = copy.deepcopy(g.state["stack"][-1])
        frame["wait"] = copy.deepcopy(wait)
        g.work = 10**9
        pending = pending_of(verb, g, Ctx(g, frame["env"], frame["me"], frame["card"]), frame)
        results.append((pending, frame["wait"], g.work))
    assert results[0] == results[1]


@settings(max_examples=100, deadline=None)
@given(
    players=st.lists(st.sampled_from(["P1", "P2", "P3"]), min_size=1, max_size=4),
    choosers=st.lists(st.sampled_from(["P1", "P2", "P3"]), unique=True, max_size=3),
    answers=st.lists(st.integers(0, 3), min_size=3, max_size=3),
)
def test_one_pick_each_is_bound_as_before(secret_game, players, choosers, answers):
    """Without `taking`: each player's one pick, None for a player who picked nothing (not a chooser), a player
    named twice bound twice: the same values bound, the same line told, as before. Not the wait: the picks are no
    longer kept in it, which interpreter.resume_verb drops as `resume` returns None, before any decision or save
    could read it (test_runtime_speed_zd_asked_choices pins that)."""
    verb = copy.copy(verb_of(secret_game))
    verb.takes = False
    options = [0, 1, 2, 3]  # the cards of P1's hand, as the verb's options
    results = []
    for resume in (verbs.ChooseSecretly.resume, _resume_before):
        g = secret_game.clone()
        frame = copy.deepcopy(g.state["stack"][-1])
        frame["wait"] = {
            "players": players,
            "own": {p: [0, 1, 2, 3] for p in choosers},
            "limits": {p: [1, 1] for p in choosers},
            "picks": {p: [] for p in choosers},
            "options": options,
            "taking": False,
            "order": list(choosers),
            "offer": {p: [0, 1, 2, 3] for p in choosers},
        }
        c = Ctx(g, frame["env"], frame["me"], frame["card"])
        assert resume(verb, g, c, frame, answers[: len(choosers)]) is None
        results.append((dict(frame["env"]), g.state["log"][-1:] if choosers else None))
    assert results[0] == results[1]


# ------------------------------------------------------------------------------------------- the fast paths
def _play_neolithibum(answers: int) -> Game:
    game = Game.new(load(CONTENT / "neolithibum"), 4, 0)
    play_randomly(game, random.Random(0), limit=answers)
    return game


def _told_together(game: Game) -> int:
    """How many secret choices were told (log_words.TOGETHER lines)."""
    return sum(line[0] == "together" for line in game.state["log"])


def test_each_round_is_paid_without_a_call_of_spend(monkeypatch):
    """A secret choice's round pays for each chooser's options as `_offer` did, without a call of `spend` a chooser
    (the units: test_each_round_is_offered_as_before): fails without the fast path."""
    calls = []
    pending = verbs.ChooseSecretly._pending

    def counting(*args):
        monkeypatch.setattr(verbs, "spend", lambda g, units, *rest: calls.append(units) or spend(g, units, *rest))
        try:
            return pending(*args)
        finally:
            monkeypatch.setattr(verbs, "spend", spend)

    monkeypatch.setattr(verbs.ChooseSecretly, "_pending", counting)
    game = _play_neolithibum(60)
    assert _told_together(game) > 2
    assert calls == []


def test_answers_are_told_without_card_label(monkeypatch):
    """The picks' cards are named without `card_label`: fails without the fast path."""

    def refused(*args):
        raise AssertionError("called")

    resume = verbs.ChooseSecretly.resume

    def resume_refusing_card_label(self, g, c, frame, answer):
        g.card_label = refused  # (for this game only, while the verb resumes)
        try:
            return resume(self, g, c, frame, answer)
        finally:
            del g.card_label

    monkeypatch.setattr(verbs.ChooseSecretly, "resume", resume_refusing_card_label)
    game = _play_neolithibum(60)
    assert _told_together(game) > 2


@pytest.mark.parametrize("interpret", [False, True])
def test_the_run_oracle_runs_in_lowered_effects(monkeypatch, interpret):
    """`play_side_by_side` runs `_run_before` for the game played as before and `ChooseSecretly.run` for the other, as
    often, lowered or step by step. A lowered effect keeps the `run` it was built with: with the oracle patched on the
    class alone, each game ran whichever `run` its effects happened to be lowered with (342 and 516 of 429 each)."""
    calls, oracle, now = [], _run_before, verbs.ChooseSecretly.run

    def counted_before(*args):
        calls.append("before")
        return oracle(*args)

    def counted_now(*args):
        calls.append("now")
        return now(*args)

    monkeypatch.setitem(globals(), "_run_before", counted_before)
    monkeypatch.setattr(verbs.ChooseSecretly, "run", counted_now)
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            play_side_by_side(rules, 3, 3, _as_before)
    else:
        play_side_by_side(rules, 3, 3, _as_before)
    assert calls.count("before") == calls.count("now") > 10


def test_one_pick_each_keeps_no_limits_picks_or_offers():
    """Without `taking` (one pick each, all in one round) the wait keeps no limits, picks or offers, nor what was first
    offered: its answers are options' places, told at once (`resume`), and an imagined game has no pick to forget."""
    game = _play_neolithibum(0)
    wait = game.state["stack"][-1]["wait"]
    assert set(wait) == {"players", "own", "options", "taking", "order"}
    assert wait["taking"] is False and wait["order"] == game.state["pending"]["order"]


@pytest.mark.parametrize("answered", [0, 1, 3])
def test_a_save_from_before_of_one_pick_each_plays_on_the_same(answered):
    """A game saved at a secret choice of one pick each before its wait stopped keeping limits, picks and offers (those
    given back as they were made: lockstep.kept_before) loads and plays on to the very same end as today's, whether
    none, some or all but one of its choosers had answered."""
    game = _play_neolithibum(0)
    while not (game.state["pending"]["kind"] == "secret" and len(game.state["pending"]["answers"]) == answered):
        play_randomly(game, random.Random(len(game.history)), limit=1)
    old = game.clone()
    wait = kept_before(old.state["stack"][-1]["wait"])
    assert {"limits", "picks", "offer", "first"} <= set(wait)
    old = Game.load(game.rules, old.save())
    for played in (game, old):
        play_randomly(played, random.Random(7))
    assert game.over and old.state_hash() == game.state_hash()
