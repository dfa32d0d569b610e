"""A secret choice's places, offers and picks made by plain loops, which cost less than chains of builtins once the
runtime is compiled (verbs.ChooseSecretly: `run` placing each chooser's options, `_first_pending` copying them and
reading every option's kind at once, `resume` binding one pick each): the same states, work and log as the code before,
an oracle copy of it, played side by side (tests/lockstep.py): Neolithibum (hands, opponents, fixed words), and a
pack whose hands hold identical cards (one option for identical cards a chooser sees)."""

from __future__ import annotations

from itertools import chain, count, filterfalse, repeat
from pathlib import Path

import pytest
from lockstep import kept_before, play_side_by_side, swapped_in
from test_compiled_effects import interpreted
from test_secret_choice import pack

from engine.runtime import verbs
from engine.runtime.budget import out_of_work
from engine.runtime.context import Ctx
from engine.runtime.functions import cards_in, composite_words
from engine.runtime.log_words import log_together, seat_bits, seen_by
from engine.runtime.rules import load
from engine.runtime.verbs import _one_of_each_seen, _one_round, _place_answered, _same_kind_twice

CONTENT = Path(__file__).resolve().parents[1] / "content"

ONE_EACH = """choose_secretly players from hand(me) as picks with "Which do you keep?"
let n = 0
for each p in players:
    let n = n + 1
    move picks[n] to basket for p
    gain 1 vp for p
"""


def run_before(self, g, c, frame):
    """ChooseSecretly.run before: each chooser's new options placed by `dict.update` of a `zip` (the oracle)."""
    f = self.players_of
    players = g.items_of(self.players if f is None else f(c))
    options: list = []
    own: dict[str, list[int]] = {}  # each chooser's options, as places in `options`, in their order
    positions: dict = {}  # where each (hashable) option is in `options`
    hashable = True  # every option so far is hashable: `options` is then `positions`' keys, in order
    source = self.args.get("from")
    if self.written_options and players:  # the same options for all: places found once, charged as below
        items = source(c)
        positions.update(zip(filterfalse(positions.__contains__, items), count()))
        keys = list(map(positions.__getitem__, items))
        size = len(items)  # the first chooser finds no option before theirs, the others all of them
        g.work -= size + (len(players) - 1) * size * (1 + len(positions))  # (`spend` each, without its calls)
        if g.work < 0:
            out_of_work()
        own = {}
        for player in players:  # (no comprehension: a frame less)
            own[player] = keys[:]
    else:
        chooser = Ctx(g, c.env, None, c.card)  # one context, `me` each chooser in turn: expressions only read it
        for player in players:
            chooser.me = player
            # only read: each item is kept in `options`, never the list itself
            items = g.items_read(source(chooser)) if source is not None else []
            # each option is looked for among those so far (`spend`, without its call)
            g.work -= len(items) * (1 + (len(positions) if hashable else len(options)))
            if g.work < 0:
                out_of_work()
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
                        try:  # noqa: SIM105 -- a hot loop: contextlib.suppress costs three calls an item
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
    picks: dict[str, list[int]] = {}  # each chooser's picks so far: none (one loop fills both, no comprehension)
    if high > 0:  # (every chooser in `own` has an option)
        choosers = own
        if low == high == 1:  # one pick each, most often: [1, 1] each
            for player in own:
                limits[player] = [1, 1]
                picks[player] = []
        else:
            for player, keys in own.items():
                n = len(keys)
                limits[player] = [min(low, n), min(high, n)]
                picks[player] = []
    frame["wait"] = {
        "players": players,
        "own": choosers,
        "limits": limits,
        "picks": picks,
        "options": options,
        "taking": taking,
    }
    if not choosers:
        self.bind(c, [[] if taking else None for _ in players])
        return None
    return self._pending(g, c, frame)


def first_pending_before(self, g, c, frame):
    """ChooseSecretly._first_pending before: its dicts made by `dict(zip(...))`, kinds chooser by chooser."""
    wait = kept_before(frame["wait"])
    own, options = wait["own"], wait["options"]
    g.work -= sum(map(len, own.values()))  # as `_pending` charges it, one chooser after another
    if g.work < 0:
        out_of_work()
    allowed = dict(zip(own, map(list, own.values()), strict=True))  # (copies, as `_pending`'s slices)
    offers = dict(zip(own, map(list, map(range, map(len, own.values()))), strict=True))
    # identical cards a chooser sees are one option to them (no card among the options: no loop, no call)
    if self.of_cards and int in map(type, options):
        for player, keys in own.items():
            if _same_kind_twice(g, list(map(options.__getitem__, keys))):
                offers[player], allowed[player] = _one_of_each_seen(g, player, keys, options, 0, len(keys))
    prompt = self.fixed_prompt
    if prompt is None or self.shape is not None or self.args.get("showing") is not None:
        return self._ask(g, c, wait, allowed, offers, False)
    # `_ask` without its call when its words are fixed and no option is labelled: no "done", no rounds
    wait["offer"] = offers
    askers = list(own)  # (`allowed` names them in the same order)
    wait["order"] = askers
    wait["first"] = dict(zip(askers, map(list, zip(offers.values(), allowed.values(), strict=True)), strict=True))
    return {
        "kind": "secret",
        "by": list(askers),
        "order": list(askers),
        "answers": {},
        "prompt": prompt,
        "options": list(options),
        "allowed": allowed,
        "cards": self.of_cards,
    }


def resume_before(self, g, c, frame, answer):
    """ChooseSecretly.resume before: the picks of one pick each told from `dict(zip(...))`."""
    wait = kept_before(frame["wait"])
    if "own" not in wait:  # a save from before `taking`: one pick each, told at once
        frame["wait"] = wait = _one_round(wait)
    options = wait["options"]
    if wait["taking"]:
        own, offers, picks = wait["own"], wait["offer"], wait["picks"]
        for player, key in zip(wait["order"], answer, strict=False):
            picks[player].append(_place_answered(own[player], offers[player], key))
        pending = self._pending(g, c, frame)
        if pending is not None:
            return pending
        chosen = {}
        for p, places in picks.items():
            if places and places[-1] < 0:  # "done", their last pick: no option
                places = places[:-1]
            chosen[p] = list(map(options.__getitem__, map(own[p].__getitem__, places)))
        self.bind(c, [chosen.get(p, []) for p in wait["players"]])
        told_of = chain.from_iterable(map(zip, map(repeat, chosen), chosen.values()))  # (chooser, option) each
    else:  # one pick each, everyone's now: an answer is its option's place in `options` (`allowed` holds those
        # places), the option at the place picked in the chooser's own: bound and told without lists of picks,
        # nor kept in the wait's (interpreter.resume_verb drops the wait as this returns: no decision sees it)
        picked = dict(zip(wait["order"], map(options.__getitem__, answer), strict=False))
        if self.binds:  # (`bind` without its call)
            c.env[self.binds] = list(map(picked.get, wait["players"]))
        told_of = picked.items()
    everyone = (1 << len(g.state["players"])) - 1  # a card chosen from a hidden place stays "a card" to
    told = []  # whoever cannot see it
    of_cards = self.of_cards
    names = g._card_names  # `card_label(card, None)`, without its call
    text_names = g._text_names  # (table.text_names)
    for p, v in told_of:
        if of_cards and type(v) is int:
            told.append([p, names[v], seen_by(g, v)])
        elif type(v) is str:  # a player, a word (most options but cards): `label`, without its call
            name = text_names.get(v)
            told.append([p, v if name is None else name, everyone])
        elif type(v) is list:  # named for the seats that see every card in it, "a card" to the rest
            sight = everyone
            for card in cards_in(g, v, self.shape) if self.of_cards else ():
                sight &= seen_by(g, card)
            reader = next((q for q, bit in seat_bits(g).items() if sight & bit), None)
            told.append([p, composite_words(g, v, self.shape, reader, self.of_cards), sight or everyone])
        else:
            told.append([p, g.label(v), everyone])
    if told:
        log_together(g, told)
    return None


def _as_before():
    """The code before the loops, for as long as the block runs."""
    return swapped_in(
        [
            (verbs.ChooseSecretly, "run", run_before),
            (verbs.ChooseSecretly, "_first_pending", first_pending_before),
            (verbs.ChooseSecretly, "resume", resume_before),
        ]
    )


@pytest.mark.parametrize("interpret", [False, True])
def test_neolithibum_goes_as_before(interpret):
    """The pack with the most secret choices, lowered and step by step."""
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            assert play_side_by_side(rules, 4, 2, _as_before)["secret"] > 10
    else:
        for seed in (0, 3):
            assert play_side_by_side(rules, 4, seed, _as_before)["secret"] > 10


@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_one_pick_each_of_hands_goes_as_before(tmp_path, copies):
    """Hands with identical cards (Bread and Fig twice: `_one_of_each_seen`) or none, 2 or 3 players."""
    rules = pack(tmp_path, ONE_EACH, copies)
    asked = sum(play_side_by_side(rules, 2 + seed % 2, seed, _as_before)["secret"] for seed in range(4))
    assert asked > 4
