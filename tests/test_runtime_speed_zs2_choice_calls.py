"""A choice's and a secret choice's cycle with fewer calls and lists once the runtime is compiled: the candidates of a
`choose` and the players of a `choose_secretly` made without a call of `items_of` when written as a list without gaps
(verbs.Choose.run, verbs.ChooseSecretly.run), the places of options of no card sliced from `_PLACES` and `can_see`
looked up only for a card whose zone keeps no mask (Choose._pending), the askers and options of a secret choice copied
by slices (ChooseSecretly._first_pending), the options chosen and the picks bound by comprehensions rather than `map`s
(Choose.resume, ChooseSecretly.resume), and a choice's log line kept without a set of a `map` nor a call of
`cards_named` when only card numbers or names were chosen (log_words.log_choice). The same states, work and log as the
code before, an oracle copy of it, played side by side (tests/lockstep.py): Neolithibum (hands, opponents, written
words, choices of pieces and numbers), packs of many `choose`, a pack whose hands hold identical cards; and log lines
of every kind of option kept as before."""

from __future__ import annotations

import copy
from itertools import chain, count, filterfalse, repeat
from pathlib import Path

import pytest
from lockstep import play_side_by_side, swapped_in
from test_compiled_effects import interpreted
from test_runtime_speed_zn_secret_loops import ONE_EACH
from test_secret_choice import pack

from engine.runtime import log_words, verbs
from engine.runtime.budget import out_of_work
from engine.runtime.context import Ctx
from engine.runtime.functions import cards_in, composite_words
from engine.runtime.game import Game
from engine.runtime.log_words import CHOICE, cards_named, log_together, seat_bits, seen_by, unread_log
from engine.runtime.protocol import DONE
from engine.runtime.rules import load
from engine.runtime.state import SETUP_STAGES
from engine.runtime.verbs import (
    _MANY_PLACES,
    _PLACES,
    _holds_card,
    _one_of_each_seen,
    _one_round,
    _place_answered,
    _same_kind_twice,
    labelled,
)

CONTENT = Path(__file__).resolve().parents[1] / "content"
_FLAT = frozenset({int, str})  # values a choice's line kept as they were (log_choice before)


def choose_run_before(self, g, c, frame):
    """Choose.run before: the candidates always by `items_of` (the oracle)."""
    if self.unless is not None and self.unless(c):
        self.bind(c, None if self.binds_one else [])
        return None
    f = self.amount_of
    amount = self.amount if f is None else f(c)
    f = self.from_of
    candidates = g.items_of(self.source if f is None else f(c))
    work = g.work = g.work - len(candidates)  # (`spend`, without its call)
    if work < 0:
        out_of_work()
    if amount == "all":
        low = high = len(candidates)
    elif isinstance(amount, dict):
        low, high = amount["between"]
    else:
        low = high = int(amount or 0)
    high = min(high, len(candidates))
    if high <= 0 and low <= 0:
        self.bind(c, None if self.binds_one else [])
        return None
    if len(candidates) < low:
        if g.attempt is not None:
            return "fail"
        low = high = len(candidates)
    f = self.by_of
    by = (self.by if f is None else f(c)) or c.me
    f = self.with_of
    prompt = self.prompt if f is None else f(c)
    frame["wait"] = {
        "cands": candidates,
        "picked": [],
        "low": low,
        "high": high,
        "by": by,
        "cards": self.of_cards,
        "prompt": str(prompt) if prompt is not None else None,
    }
    return self._pending(g, c, frame)


def choose_pending_before(self, g, c, frame):
    """Choose._pending before: the places of an option of no card by `list(range(...))` (the oracle)."""
    # (dicts and lists to Cython, as `run` makes them: `get` and slices in C, not looked up by name)
    wait: dict = frame["wait"]
    cands: list = wait["cands"]
    picked: list = wait["picked"]
    low, by = wait["low"], wait["by"]
    start = picked[-1] + 1 if picked else 0
    still = max(0, low - len(picked))
    stop = len(cands) - still + 1 if still else len(cands)
    blind = False
    window = cands[start:stop]
    if wait["cards"] and _holds_card(window):
        offer, options, seen = [], [], set()
        can_see, instances, loc, orient = g.can_see, g.rules.instances, g.state["loc"], g.state["orient"]
        # nothing shown: whether `by` sees a card is its zone's alone, `seen_by`'s mask where one is kept (a
        # `top` zone's is None: asked of `can_see`, as is every card while cards are shown or `by` is no seat)
        bit = 0
        if type(by) is str and not g.state["shown"]:
            bits: dict = seat_bits(g)
            bit = bits.get(by, 0)
        masks: dict = g.sight_masks
        for j in range(start, stop):
            value = cands[j]
            if type(value) is int:
                sight = masks.get(loc[value]) if bit else None
                if can_see(value, by) if sight is None else sight & bit:  # identical cards seen: one option
                    key = (instances[value], loc[value], orient[value])
                    if key in seen:
                        continue
                    seen.add(key)
                else:
                    blind = True
            offer.append(j)
            options.append(value)
    else:  # no cards (numbers by their making, names): every place is an option
        offer, options = list(range(start, stop)), window
    if len(picked) >= low:
        offer.append(-1)
        options.append(DONE)
    wait["offer"] = offer
    if len(offer) > 1:  # the chooser had a choice (else the log tells them "only one option")
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
    if self.showing is None and self.shape is None:  # nothing to label (`labelled` without its call)
        return pending
    return labelled(self, g, c, pending)


def choose_resume_before(self, g, c, frame, answer):
    """Choose.resume before: the options chosen by a `map` (the oracle)."""
    wait: dict = frame["wait"]  # (`get` called in C)
    j = wait["offer"][answer]
    picked: list = wait["picked"]
    if j >= 0:
        picked.append(j)
    if j < 0 or len(picked) >= wait["high"] or picked[-1] >= len(wait["cands"]) - 1:
        cands = wait["cands"]
        chosen = list(map(cands.__getitem__, picked))
        if self.binds:
            c.env[self.binds] = (chosen[0] if chosen else None) if self.binds_one else chosen
        if chosen:  # a forced choice is logged as any other, so that its absence tells nothing
            labels = None  # `showing` labels read the state: worked out now, the rest is worded when read
            if self.showing is not None:
                labels = labelled(self, g, c, {"options": chosen})["labels"]
            shape = list(self.shape) if self.shape is not None else None
            forced = not wait.get("free")
            log_choice_before(
                g, wait["by"], wait.get("prompt"), self.binds, forced, wait["cards"], chosen, labels, shape
            )
        return None
    return self._pending(g, c, frame)


def secret_run_before(self, g, c, frame):
    """ChooseSecretly.run before: the players always by `items_of` (the oracle)."""
    f = self.players_of
    players = g.items_of(self.players if f is None else f(c))
    options: list = []
    own: dict[str, list[int]] = {}  # each chooser's options, as places in `options`, in their order
    positions: dict = {}  # where each (hashable) option is in `options`
    hashable = True  # every option so far is hashable: `options` is then `positions`' keys, in order
    args: dict = self.args  # (a dict to Cython: `get` called in C)
    source = args.get("from")
    if self.written_options and players:  # the same options for all: places found once, charged as below
        items = source(c)
        positions.update(zip(filterfalse(positions.__contains__, items), count()))
        keys = list(map(positions.__getitem__, items))
        size = len(items)  # the first chooser finds no option before theirs, the others all of them
        # (`spend` each, without its calls)
        work = g.work = g.work - (size + (len(players) - 1) * size * (1 + len(positions)))
        if work < 0:
            out_of_work()
        own = {}
        for player in players:  # (no comprehension: a frame less)
            own[player] = keys[:]
    else:
        chooser = Ctx(g, c.env, None, c.card)  # one context, `me` each chooser in turn: expressions only read it
        zones: dict = g.state["zones"]
        slotted = g._slotted
        for player in players:
            chooser.me = player
            # only read: each item is kept in `options`, never the list itself (`items_read` without its call for
            # a list without gaps or a zone without places, the commonest: `opponents`, `hand(me)`)
            items = None
            if source is not None:
                value = source(chooser)
                if type(value) is list:
                    if None not in value:
                        items = value
                elif type(value) is str and value not in slotted:
                    items = zones.get(value)
                if items is None:
                    items = g.items_read(value)
            else:
                items = []
            # each option is looked for among those so far (`spend`, without its call)
            work = g.work = g.work - len(items) * (1 + (len(positions) if hashable else len(options)))
            if work < 0:
                out_of_work()
            keys = None
            if hashable:
                # a new option takes the next place, in their order (a plain loop: compiled, it costs less than a
                # chain of builtins, `dict.update` of a `zip` of a `filterfalse`, then a `map`)
                keys = []
                try:
                    for item in items:
                        key = positions.get(item)
                        if key is None:
                            key = positions[item] = len(positions)
                        keys.append(key)
                except TypeError:  # a list or a mapping among them: from here on, the way below
                    hashable = False
                    options = list(positions)  # with this player's first items: found again below
                    keys = None
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


def secret_first_pending_before(self, g, c, frame):
    """ChooseSecretly._first_pending before: the askers and the options copied by `list` (the oracle)."""
    # (dicts and lists to Cython, as `run` makes them: slices and `get` in C, not looked up by name)
    wait: dict = frame["wait"]
    own: dict = wait["own"]
    options: list = wait["options"]
    keys: list  # each chooser's places in `options`
    places: list = _PLACES
    allowed: dict[str, list[int]] = {}  # (plain loops: compiled, they cost less than `dict(zip(...))` of `map`s)
    offers: dict[str, list[int]] = {}
    size = 0  # every chooser's options, counted in the loop that reads them (no `sum` of a `map`)
    for player, keys in own.items():
        allowed[player] = keys[:]  # (copies, as `_pending`'s slices)
        n = len(keys)
        size += n
        offers[player] = places[:n] if n <= _MANY_PLACES else list(range(n))
    work = g.work = g.work - size  # as `_pending` charges it, one chooser after another (nothing kept before)
    if work < 0:
        out_of_work()
    # identical cards a chooser sees are one option to them (no card among the options: no loop, no call)
    if self.may_hold_cards and _holds_card(options):
        # every option's kind at once when all are card numbers, the commonest (`_same_kind_twice`'s way; compiled,
        # comprehensions cost less than a `map` of a method's wrapper)
        instances = g.rules.instances
        try:
            kinds = [instances[option] for option in options]
        except TypeError:  # a name or a list among them: chooser by chooser
            kinds = None
        for player, keys in own.items():
            if kinds is None:
                twice = _same_kind_twice(g, list(map(options.__getitem__, keys)))
            else:
                twice = len({kinds[key] for key in keys}) < len(keys)
            if twice:
                offers[player], allowed[player] = _one_of_each_seen(g, player, keys, options, 0, len(keys))
    prompt = self.fixed_prompt
    args: dict = self.args
    if prompt is None or self.shape is not None or args.get("showing") is not None:
        return self._ask(g, c, wait, allowed, offers, False)
    # `_ask` without its call when its words are fixed and no option is labelled: no "done", no rounds
    wait["offer"] = offers
    askers = list(own)  # (`allowed` and `offers` name them in the same order)
    wait["order"] = askers
    first = {}
    for player, offer in offers.items():
        first[player] = [offer, allowed[player]]
    wait["first"] = first
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


def secret_resume_before(self, g, c, frame, answer):
    """ChooseSecretly.resume before: one pick each bound by a `map` of `picked.get` (the oracle)."""
    wait: dict = frame["wait"]
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
        picked: dict = {}  # (a plain loop: compiled, it costs less than `dict(zip(...))`)
        order = wait["order"]
        for i in range(min(len(order), len(answer))):
            picked[order[i]] = options[answer[i]]
        if self.binds:  # (`bind` without its call)
            c.env[self.binds] = list(map(picked.get, wait["players"]))
        told_of = picked.items()
    everyone = (1 << len(g.state["players"])) - 1  # a card chosen from a hidden place stays "a card" to
    told = []  # whoever cannot see it
    of_cards = self.of_cards
    names = g._card_names  # `card_label(card, None)`, without its call
    text_names: dict = g._text_names  # (table.text_names; a dict to Cython: `get` called in C)
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


def log_choice_before(g, by, prompt, name, forced: bool, of_cards: bool, chosen: list, labels, shape) -> None:
    """log_words.log_choice before: the kinds of the options a set of a `map`, the cards named by `cards_named` (the oracle)."""
    if g.log is unread_log:  # a bot's imagined game: nobody reads its log, so nobody's sight of the cards is read
        return
    cards = cards_named(chosen, len(g.rules.instances)) if of_cards else []
    everyone = (1 << len(g.state["players"])) - 1
    seen, backs = [], []
    for card in cards:
        sight = seen_by(g, card)
        seen.append(sight)
        if sight != everyone and g.card_def(card).get("back") and g.sees_back(card, None):
            backs.append(card)
    if set(map(type, chosen)) <= _FLAT:  # card numbers or names, most often: a copy of the list is enough
        kept = list(chosen)
    else:
        kept = [value if type(value) is int or type(value) is str else copy.deepcopy(value) for value in chosen]
    state = g.state  # (`in_setup` without its call)
    setup = 1 if state["turn"]["number"] == 0 and state["stage"] in SETUP_STAGES else 0
    state["log"].append([CHOICE, setup, by, prompt, name, forced, of_cards, kept, labels, shape, cards, seen, backs])


def _as_before():
    """The code before, for as long as the block runs (`log_choice` where verbs imported it by name too)."""
    return swapped_in(
        [
            (verbs.Choose, "run", choose_run_before),
            (verbs.Choose, "_pending", choose_pending_before),
            (verbs.Choose, "resume", choose_resume_before),
            (verbs.ChooseSecretly, "run", secret_run_before),
            (verbs.ChooseSecretly, "_first_pending", secret_first_pending_before),
            (verbs.ChooseSecretly, "resume", secret_resume_before),
            (verbs, "log_choice", log_choice_before),
            (log_words, "log_choice", log_choice_before),
        ]
    )


@pytest.mark.parametrize("interpret", [False, True])
def test_neolithibum_goes_as_before(interpret):
    """The pack with the most secret choices (hands, opponents, written words), lowered and step by step."""
    rules = load(CONTENT / "neolithibum")
    if interpret:
        with interpreted(rules):
            kinds = play_side_by_side(rules, 4, 5, _as_before)
            assert kinds["secret"] > 10
    else:
        for seed in (1, 4):
            kinds = play_side_by_side(rules, 3 + seed % 2, seed, _as_before)
            assert kinds["secret"] > 10 and kinds["choose"] > 0


@pytest.mark.parametrize("pack_name", ["cro-magnon", "paleo-a-new-beginning", "stone-age"])
def test_choices_go_as_before(pack_name):
    """Packs of many `choose` of cards, names and numbers, lowered."""
    rules = load(CONTENT / pack_name)
    kinds = play_side_by_side(rules, 3, 2, _as_before, answers=300)
    assert kinds["choose"] > 5


@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_one_pick_each_of_hands_goes_as_before(tmp_path, copies):
    """Hands with identical cards (Bread and Fig twice) or none, 2 or 3 players."""
    rules = pack(tmp_path, ONE_EACH, copies)
    asked = sum(play_side_by_side(rules, 2 + seed % 2, seed, _as_before)["secret"] for seed in range(4))
    assert asked > 4


@pytest.mark.parametrize(
    ("of_cards", "chosen"),
    [
        (True, [3]),
        (True, [3, 5, 3]),  # a card twice: named once
        (True, [True]),  # yes or no, read as a card (`cards_named`)
        (True, [2, "P1"]),
        (True, [[1, 4], 7]),  # a list option: the cards inside it
        (True, []),
        (False, [3, 5]),
        (False, ["P2", "object"]),
        (False, [[1, 2], {"a": [3]}]),  # kept as deep copies
    ],
)
def test_a_choice_is_logged_as_before(of_cards, chosen):
    """Every kind of option chosen, of cards or not: the same log line, its values copies as before."""
    rules = load(CONTENT / "neolithibum")
    lines = []
    for log_choice in (log_words.log_choice, log_choice_before):
        game = Game.new(rules, 4, 0)
        kept = copy.deepcopy(chosen)
        log_choice(game, "P1", "Which?", "pick", False, of_cards, kept, None, None)
        line = game.state["log"][-1]
        assert line[0] == CHOICE and line[7] == chosen and line[7] is not kept
        if chosen and type(chosen[-1]) is dict:
            assert line[7][-1] is not kept[-1]  # a mapping chosen is copied, not shared with the game's
        lines.append(line)
    assert lines[0] == lines[1]
