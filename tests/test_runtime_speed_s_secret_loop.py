"""A secret choice and the interpreter's loop run as they did before their faster paths: the choosers' options
merged without a loop of Python and read through one context (verbs.ChooseSecretly.run), no next round worked out
after the one pick of a choice without `taking` (`resume`), and a frame's lowered function run from
`interpreter.advance` without a call of `run_frame`. Each is compared with an oracle copy of the code before it."""

from __future__ import annotations

import copy
import random
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
from engine.runtime.protocol import ASKED_ALWAYS, CHANCE, allowed_for
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"


def _run_before(self, g, c, frame):
    """ChooseSecretly.run before: a context per chooser, each option placed by a loop of Python (the oracle)."""
    f = self.players_of
    players = g.items_of(self.players if f is None else f(c))
    options: list = []
    own: dict = {}
    positions: dict = {}
    place = positions.setdefault
    hashable = True
    source, env, card = self.args.get("from"), c.env, c.card
    for player in players:
        items = g.items_read(source(Ctx(g, env, player, card))) if source is not None else []
        spend(g, len(items) * (1 + (len(positions) if hashable else len(options))))
        keys = None
        if hashable:
            try:
                keys = [place(item, len(positions)) for item in items]
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
    for player, keys in own.items():
        if min(high, len(keys)) > 0:
            choosers[player] = keys
            limits[player] = [min(low, len(keys)), min(high, len(keys))]
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


def _resume_before(self, g, c, frame, answer):
    """ChooseSecretly.resume before: the next round always worked out, the picks read by a comprehension."""
    wait = kept_before(frame["wait"])
    if "own" not in wait:
        frame["wait"] = wait = verbs._one_round(wait)
    own, offers, picks = wait["own"], wait["offer"], wait["picks"]
    for player, key in zip(wait["order"], answer, strict=False):
        picks[player].append(verbs._place_answered(own[player], offers[player], key))
    pending = self._pending(g, c, frame)
    if pending is not None:
        return pending
    options = wait["options"]
    chosen = {}
    for p, places in picks.items():
        keys = own[p]
        chosen[p] = [options[keys[j]] for j in places if j >= 0]
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


def _advance_before(g):
    """interpreter.advance before: each frame run through `run_frame`."""
    state = g.state
    state["steps"] = 0
    while state["stage"] != "over":
        pending = state["pending"]
        if pending is not None:
            by = pending["by"]
            if (
                len(pending["options"]) == 1
                and len(by) == 1
                and not state["dead"]
                and pending["kind"] not in ASKED_ALWAYS
                and by[0] != CHANCE
            ):
                interpreter.answer(g, by[0], 0)
                continue
            live, legal = g._live_now(pending)
            if not live:
                if state["attempt"] is not None:
                    interpreter.fail(g, interpreter.dead_end(g, pending.get("prompt", "")))
                    continue
                if pending["kind"] == "action":
                    interpreter.nothing_left(g)
                    continue
                raise interpreter.GameError(f"nobody can answer: {pending.get('prompt', '')}", code="X302")
            kind = pending["kind"]
            if len(live) == 1 and len(by) == 1 and kind not in ASKED_ALWAYS and by[0] != CHANCE:
                interpreter.answer(g, by[0], live[0])
                continue
            if kind in interpreter._FORCED_EACH:
                forced = []
                for player in by:
                    own = legal.get(player)
                    if own is None:
                        own = legal[player] = allowed_for(pending, player, live)
                    if len(own) == 1:
                        forced.append((player, own[0]))
                if forced:
                    for player, option in forced:
                        interpreter.answer(g, player, option)
                    continue
            return
        if state["stack"]:
            interpreter.run_frame(g)
            continue
        interpreter.driver_step(g)


def _as_before():
    """The code before the faster paths, for as long as the block runs."""
    return swapped_in(
        [
            (verbs.ChooseSecretly, "run", _run_before),
            (verbs.ChooseSecretly, "resume", _resume_before),
            (Game, "_advance", _advance_before),
        ]
    )


@pytest.mark.parametrize("amount", ["1", "2", "between(1, 3)", "all"])
@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_secret_games_go_as_before(tmp_path, amount, copies):
    """One pick or several, identical cards or none, 2 or 3 players: every state the same as before (`all`: every
    pick forced, none asked)."""
    rules = pack(tmp_path, KEEP.format(amount=amount), copies)
    asked = sum(play_side_by_side(rules, 2 + seed % 2, seed, _as_before)["secret"] for seed in range(4))
    assert asked > 4 or amount == "all"


@pytest.mark.parametrize("interpret", [False, True])
def test_neolithibum_goes_as_before(interpret):
    """The pack with the most secret choices (hands, opponents, fixed words), lowered and step by step."""
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            assert play_side_by_side(rules, 4, 1, _as_before)["secret"] > 10
    else:
        assert play_side_by_side(rules, 4, 0, _as_before)["secret"] > 10


_ITEM = st.one_of(
    st.integers(0, 5),
    st.booleans(),
    st.sampled_from(["P1", "P2", "stay out"]),
    st.lists(st.integers(0, 3), max_size=2),
)


def _at_a_secret_choice(tmp_path_factory, amount="1"):
    rules = pack(tmp_path_factory.mktemp("secret"), KEEP.format(amount=amount))
    game = Game.new(rules, 3, 0)
    assert game.decision.kind == "secret"
    return game


@pytest.fixture(scope="module", params=["1", "between(1, 3)"])
def secret_game(request, tmp_path_factory):
    return _at_a_secret_choice(tmp_path_factory, request.param)


@settings(max_examples=150, deadline=None)
@given(items=st.fixed_dictionaries({p: st.lists(_ITEM, max_size=5) for p in ("P1", "P2", "P3")}))
def test_the_options_are_merged_as_before(secret_game, items):
    """Any options each chooser may have: hashable or not (then found by equality), shared, repeated, `True`
    and `1` alike: the same options, places, limits and decision, and the same work spent, as before."""
    verb = copy.copy(verb_of(secret_game))
    verb.args = dict(verb.args, **{"from": lambda c: items[c.me]})
    results = []
    for run in (verbs.ChooseSecretly.run, _run_before):
        g = secret_game.clone()
        frame = g.state["stack"][-1]
        frame["wait"] = None
        g.work = 10**9
        c = Ctx(g, frame["env"], frame["me"], frame["card"])
        pending = run(verb, g, c, frame)
        results.append((pending, frame["wait"], dict(frame["env"]), g.work))
    assert results[0] == results[1]


def test_the_choosers_options_are_read_through_one_context(tmp_path_factory):
    """One context for every chooser, `me` each in turn (not one made per chooser): fails without the fast path."""
    game = _at_a_secret_choice(tmp_path_factory)
    verb = copy.copy(verb_of(game))
    seen = []
    verb.args = dict(verb.args, **{"from": lambda c: seen.append((c, c.me)) or [c.me]})
    frame = game.state["stack"][-1]
    verbs.ChooseSecretly.run(verb, game, Ctx(game, frame["env"], frame["me"], frame["card"]), frame)
    assert [me for _, me in seen] == ["P1", "P2", "P3"]
    assert all(context is seen[0][0] for context, _ in seen)  # (kept: a context let go may leave its id to the next)


def test_one_pick_each_works_out_no_next_round(tmp_path, monkeypatch):
    """Without `taking`, everyone has picked once all have answered: each choice's round is worked out once,
    when it is asked, not again after the answers. Fails without the fast path (twice a choice)."""
    rules = pack(tmp_path, KEEP.format(amount=1).replace(" taking 1", ""))
    counted = {"asked": 0, "worked out": 0}
    run, pending = verbs.ChooseSecretly.run, verbs.ChooseSecretly._pending

    def counting(key, method):
        def counted_call(*args):
            counted[key] += 1
            return method(*args)

        return counted_call

    monkeypatch.setattr(verbs.ChooseSecretly, "run", counting("asked", run))
    monkeypatch.setattr(verbs.ChooseSecretly, "_pending", counting("worked out", pending))
    for seed in range(3):
        game = Game.new(rules, 2 + seed % 2, seed)
        rnd = random.Random(seed)
        while not game.over:
            player = game.decision.players[0]
            legal = game.legal(player)
            game.apply(legal[rnd.randrange(len(legal))], player)
    assert counted["asked"] > 3
    assert counted["worked out"] == counted["asked"]


def test_the_loop_runs_lowered_functions_without_run_frame(monkeypatch):
    """The loop runs each frame itself, as `run_frame` does (its function worked out by `first_entry` the first
    time a frame runs from a step): never a call of `run_frame`. Fails without the fast path (a call a frame run)."""
    rules = load(CONTENT / "neolithibum")
    calls = []
    monkeypatch.setattr(interpreter, "run_frame", lambda g: calls.append(1))
    for code in rules.code.values():
        code.entries = None
    game = Game.new(rules, 4, 0)
    play_randomly(game, random.Random(0), limit=200)
    assert sum(len(code.entries or ()) for code in rules.code.values()) > 10  # frames ran, from many steps
    assert calls == []


def test_each_steps_function_is_worked_out_once(monkeypatch):
    """`first_entry` keeps what it works out: one `lowering.entry` a step, however often frames run from there."""
    rules = load(CONTENT / "neolithibum")
    for code in rules.code.values():
        code.entries = None
    worked_out = []
    entry = interpreter.lowering.entry
    monkeypatch.setattr(
        interpreter.lowering, "entry", lambda code, pc: worked_out.append((code.key, pc)) or entry(code, pc)
    )
    game = Game.new(rules, 4, 0)
    play_randomly(game, random.Random(0), limit=100)
    assert worked_out and len(worked_out) == len(set(worked_out))
