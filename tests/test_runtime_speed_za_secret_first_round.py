"""A secret choice of one pick each (the commonest: Neolithibum asks two every round, and each of its stone's
doubts) offered to every chooser at once in its first round, without the round's loop over the choosers
(verbs.ChooseSecretly._pending -> _first_pending; identical cards still one option, the work the same), and its answers bound
and told as their options, without a list of picks per chooser (ChooseSecretly.resume). Compared with oracle
copies of both before, on scenarios and whole seeded games, lowered and step by step."""

from __future__ import annotations

from itertools import count, filterfalse
from pathlib import Path

import pytest
from lockstep import as_kept_now, kept_before, play_side_by_side, swapped_in
from test_compiled_effects import interpreted
from test_runtime_speed_b_secret import verb_of
from test_secret_choice import KEEP, pack

from engine.runtime import verbs
from engine.runtime.budget import out_of_work, spend
from engine.runtime.context import Ctx
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.protocol import DONE
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"


# ------------------------------------------------------------------------------------------- the oracle
def _pending_at_head(self, g, c, frame):
    """ChooseSecretly._pending before (the oracle): every round, the first of one pick each too, worked out
    chooser by chooser."""
    wait = kept_before(frame["wait"])
    limits, picked, options = wait["limits"], wait["picks"], wait["options"]
    allowed: dict[str, list[int]] = {}
    offers: dict[str, list[int]] = {}
    done = False  # whether anyone may say "done": the option after the others
    of_cards = self.of_cards
    for player, keys in wait["own"].items():
        picks = picked[player]
        low, high = limits[player]
        if picks:
            if len(picks) >= high or picks[-1] < 0:
                continue
            start = picks[-1] + 1
        elif high <= 0:
            continue
        else:
            start = 0
        size = len(keys)
        g.work -= size  # (`spend`, without its call)
        if g.work < 0:
            out_of_work()
        still = low - len(picks)
        end = size - still + 1 if still > 0 else size
        window = keys[start:end]
        if of_cards and verbs._same_kind_twice(g, list(map(options.__getitem__, window))):
            offer, window, seen = [], [], set()
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
                window.append(key)
        else:
            offer = list(range(start, end))
        if still <= 0:  # "done" offered too (unless it is all there is)
            if not offer:
                continue
            offer.append(-1)
            window.append(len(options))
            done = True
        elif not offer:
            continue
        offers[player] = offer
        allowed[player] = window
    if not allowed:
        return None
    options = options + [DONE] if done else list(options)
    wait["offer"] = offers
    askers = list(allowed)
    wait["order"] = askers
    if "first" not in wait:  # what each could pick at first: an imagined game forgets others' picks (imagine.py)
        wait["first"] = {p: [offers[p], allowed[p]] for p in askers}
    plain = self.plain
    question = self.args.get("with")
    if question is None:
        asked = dict.fromkeys(askers, plain)
    elif self.same_question:
        asked = dict.fromkeys(askers, question(c) or plain)
    else:  # worded for each chooser as `me` (its values may come from what only they see)
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
    if not alike:  # each reads their own; those waiting read the plain words
        pending["prompts"] = asked
    owner = None  # an option's chooser, for its `showing` label (the first of those who share it)
    if self.args.get("showing") is not None:
        owner = {key: p for p, keys in reversed(wait["own"].items()) for key in keys}
    return verbs.labelled(self, g, c, pending, owner)  # `showing` labels for each option's chooser, list options


def _run_at_head(self, g, c, frame):
    """ChooseSecretly.run before (the oracle): the limits and the picks made by comprehensions."""
    f = self.players_of
    players = g.items_of(self.players if f is None else f(c))
    options: list = []
    own: dict[str, list[int]] = {}  # each chooser's options, as places in `options`, in their order
    positions: dict = {}  # where each (hashable) option is in `options`
    hashable = True  # every option so far is hashable: `options` is then `positions`' keys, in order
    source = self.args.get("from")
    chooser = Ctx(g, c.env, None, c.card)  # one context, `me` each chooser in turn: expressions only read it
    for player in players:
        chooser.me = player
        # only read: each item is kept in `options`, never the list itself
        items = g.items_read(source(chooser)) if source is not None else []
        # each option is looked for among those so far
        spend(g, len(items) * (1 + (len(positions) if hashable else len(options))))
        keys = None
        if hashable:
            try:  # the new options take the next places, in their order, without a loop of Python
                positions.update(zip(filterfalse(positions.__contains__, items), count(len(positions))))
                keys = list(map(positions.__getitem__, items))
            except TypeError:  # a list or a mapping among them: from here on, the way below
                hashable = False
                options = list(positions)  # with this player's first items: found again below
        if keys is None:
            keys = []
            for item in items:
                try:
                    key = positions.get(item)
                except TypeError:  # a list or a mapping: looked for in the list
                    key = options.index(item) if item in options else None
                if key is None:
                    key = len(options)
                    options.append(item)
                    try:  # noqa: SIM105 -- the oracle as it was
                        positions[item] = key
                    except TypeError:  # an unhashable option: found by `options.index` above
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
        low = high = len(options)  # each chooser's every option (less, below, for fewer options)
    elif isinstance(amount, dict):
        low, high = (int(x) for x in amount["between"])
    else:
        low = high = int(amount or 0)
    choosers: dict[str, list[int]] = {}  # those with something to pick: fewer options, fewer picks
    limits: dict[str, list[int]] = {}
    if high > 0:  # (every chooser in `own` has an option)
        choosers = own
        if low == high == 1:  # one pick each, most often: [1, 1] each
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
    return _pending_at_head(self, g, c, frame)


def _resume_at_head(self, g, c, frame, answer):
    """ChooseSecretly.resume before (the oracle): the places picked recorded, the options read from them."""
    wait = kept_before(frame["wait"])
    if "own" not in wait:  # a save from before `taking`: one pick each, told at once
        frame["wait"] = wait = verbs._one_round(wait)
    own, offers, picks = wait["own"], wait["offer"], wait["picks"]
    for player, key in zip(wait["order"], answer, strict=False):
        picks[player].append(verbs._place_answered(own[player], offers[player], key))
    if wait["taking"]:  # (one pick each, without `taking`: everyone has picked)
        pending = _pending_at_head(self, g, c, frame)
        if pending is not None:
            return pending
    options = wait["options"]
    chosen = {}
    for p, places in picks.items():
        if places and places[-1] < 0:  # "done", their last pick: no option
            places = places[:-1]
        chosen[p] = list(map(options.__getitem__, map(own[p].__getitem__, places)))
    if wait["taking"]:
        self.bind(c, [chosen.get(p, []) for p in wait["players"]])
    else:
        self.bind(c, [(chosen[p] or [None])[0] if p in chosen else None for p in wait["players"]])
    everyone = (1 << len(g.state["players"])) - 1  # a card chosen from a hidden place stays "a card" to
    told = []  # whoever cannot see it
    of_cards = self.of_cards
    names = g._card_names  # `card_label(card, None)`, without its call
    for p, values in chosen.items():
        for v in values:
            if of_cards and type(v) is int:
                told.append([p, names[v], verbs.seen_by(g, v)])
            elif type(v) is list:  # named for the seats that see every card in it, "a card" to the rest
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


def _as_before():
    """`run`, `_first_pending`, `_pending` and `resume` as they were, for as long as the block runs."""
    secret = verbs.ChooseSecretly
    return swapped_in(
        [
            (secret, "run", _run_at_head),
            (secret, "_first_pending", _pending_at_head),
            (secret, "_pending", _pending_at_head),
            (secret, "resume", _resume_at_head),
        ]
    )


# ------------------------------------------------------------------------------------------- as before
@pytest.mark.parametrize("amount", ["1", "2", "between(0, 2)", None])
@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_secret_games_go_as_before(tmp_path, amount, copies):
    """One pick each (`taking 1` or none: the fast path) or several (the loop), identical cards or none, 2 or 3
    players: every state and the work left the same as before."""
    effect = KEEP.replace(" taking {amount}", "") if amount is None else KEEP.format(amount=amount)
    rules = pack(tmp_path, effect, copies)
    assert sum(play_side_by_side(rules, 2 + seed % 2, seed, _as_before)["secret"] for seed in range(4)) > 4


@pytest.mark.parametrize("interpret", [False, True])
def test_neolithibum_goes_as_before(interpret):
    """The pack with the most secret choices (hands of cards, opponents, fixed words), lowered and step by step."""
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            assert play_side_by_side(rules, 4, 2, _as_before)["secret"] > 10
    else:
        assert play_side_by_side(rules, 4, 0, _as_before)["secret"] > 10
        assert play_side_by_side(rules, 3, 1, _as_before)["secret"] > 10


def test_paleo_goes_as_before():
    """Paleo's secret choices: cards seen only by their backs, a list of options joined to words."""
    rules = load(CONTENT / "paleo-a-new-beginning")
    assert play_side_by_side(rules, 3, 0, _as_before)["secret"] > 0


# ------------------------------------------------------------------------------------------- the fast path itself
def _first_round(tmp_path, amount, copies=None):
    """A game at the first round of a secret choice (`amount` None: no `taking`), and whether `_pending` asked it at
    once (`_first_pending`), its first time."""
    seen: list[str] = []
    secret = verbs.ChooseSecretly
    first, pending = secret._first_pending, secret._pending
    secret._first_pending = lambda self, g, c, frame: (seen.append("at once"), first(self, g, c, frame))[1]
    secret._pending = lambda self, g, c, frame: (seen.append("asked"), pending(self, g, c, frame))[1]
    effect = KEEP.replace(" taking {amount}", "") if amount is None else KEEP.format(amount=amount)
    rules = pack(tmp_path, effect, copies)
    try:
        with interpreted(rules):
            game = Game.new(rules, 3, 0)
    finally:
        secret._first_pending, secret._pending = first, pending
    assert game.decision.kind == "secret"
    return game, seen


@pytest.mark.parametrize(("amount", "at_once"), [(None, True), ("1", False), ("2", False), ("between(0, 2)", False)])
def test_one_pick_each_is_offered_at_once(tmp_path, amount, at_once):
    """Fails without the fast path: a choice of one pick each (no `taking`: its one round) is asked at once, and
    only it (`taking`, even of 1: rounds that go on from the picks made, through the loop)."""
    _, seen = _first_round(tmp_path, amount)
    assert seen[:2] == (["asked", "at once"] if at_once else ["asked", "asked"])[: len(seen[:2])]
    assert ("at once" in seen) == at_once


@pytest.mark.parametrize("copies", [None, {"Bread": 3, "Fig": 2}, {"Bread": 1, "Cheese": 1, "Plum": 1}])
def test_the_first_round_is_what_the_loop_offers(tmp_path, copies):
    """The pending decision and the wait of the first round, asked again at once and through the loop: the same,
    identical cards a chooser sees one option (Bread twice: one place offered), and the same work."""
    game, _ = _first_round(tmp_path, None, copies)
    frame = game.state["stack"][-1]
    verb = verb_of(game)
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    fresh = {k: v for k, v in frame["wait"].items() if k in ("players", "own", "limits", "picks", "options", "taking")}
    now_frame, before_frame = {"wait": dict(fresh)}, {"wait": dict(fresh)}
    game.work = 10_000
    now = verb._first_pending(game, c, now_frame)
    left = game.work
    game.work = 10_000
    before = _pending_at_head(verb, game, c, before_frame)
    assert now == before and now_frame == as_kept_now({"stack": [before_frame]})["stack"][0] and left == game.work
    if copies is None:  # Bread, Bread, Cheese, Plum, Fig, Fig dealt: a hand with two of a kind offers it once
        assert any(
            len(set(map(now["options"].__getitem__, a))) < len(a) or len(a) < len(frame["wait"]["own"][p])
            for p, a in now["allowed"].items()
        )


def test_running_out_of_work_at_once_as_before(tmp_path):
    """The work of the whole round charged at once: an answer that runs out does so as before (X101), and one
    that has just enough does not."""
    game, _ = _first_round(tmp_path, None)
    frame = game.state["stack"][-1]
    verb = verb_of(game)
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    needed = sum(map(len, frame["wait"]["own"].values()))
    fresh = {k: v for k, v in frame["wait"].items() if k in ("players", "own", "limits", "picks", "options", "taking")}
    for work, fails in ((needed - 1, True), (needed, False)):
        outcomes = []
        for ask in (lambda f: verb._first_pending(game, c, f), lambda f: _pending_at_head(verb, game, c, f)):
            game.work = work
            try:
                ask({"wait": dict(fresh)})
                outcomes.append(None)
            except ContentError as exc:
                outcomes.append(exc.code)
        assert outcomes == [("X101" if fails else None)] * 2
