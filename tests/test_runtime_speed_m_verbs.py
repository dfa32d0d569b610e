"""The verbs' faster reckoning does what it did before (issue 16): arguments written as values are bound once
(verbs.Fixed, VerbStep.argument); a secret choice gathers its options without a loop of Python while they are
hashable, and the long way from the first that is not; `choose` offers places of options that are no cards at
once; `_same_kind_twice` reads card kinds without a loop; a choice's line copies flat values as they are
(log_words.log_choice); `places.room` reads a place's capacity first. Each is checked against the reckoning
before it (the oracles below), in random games of the packs where it runs."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_runtime_speed_b_secret import verb_of
from test_secret_choice import KEEP, pack

from engine.runtime import verbs
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.log_words import log_choice
from engine.runtime.places import capacity_of, cards_in_place, room
from engine.runtime.protocol import DONE
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"


def _steps(game, key: str) -> list:
    return [step[1] for step in game.rules.code[key].steps if step[0] == "verb"]


def test_arguments_written_as_values_are_bound_once(tmp_path):
    """`gain 2 vp`: the number and the counter's name are values, read without a call; `gain n vp` calls its
    expression. Both still read as functions of the context (why.py and `value` call them) and gain the same."""
    effect = 'let n = 2\ngain 2 vp\ngain n vp\nlog "plain words"'
    game = Game.new(pack(tmp_path, effect), 2, 0)
    fixed, computed, log = _steps(game, "phase/pick/effect")
    assert (fixed.amount_of, fixed.amount, fixed.counter_of, fixed.counter) == (None, 2, None, "vp")
    assert computed.amount_of is not None and computed.amount is None and computed.counter == "vp"
    assert type(fixed.args["amount"]) is verbs.Fixed and fixed.args["amount"](None) == 2
    assert fixed.value(None, "counter") == "vp" and fixed.argument("to", 7) == (None, 7)
    assert (log.message_of, log.message) == (None, "plain words")
    assert game.state["counters"]["P1"]["vp"] == 4  # both gains ran (the first round's phase, for P1)


def _gathered_before(g, verb, c, players) -> tuple[list, dict, list]:
    """ChooseSecretly.run's options before the hashable path: the oracle (options, each player's places, the
    work spent per player)."""
    options, own, positions, spent = [], {}, {}, []
    for player in players:
        items = g.items_read(verb.args["from"](Ctx(g, c.env, player, c.card)))
        spent.append(len(items) * (1 + len(options)))
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
    return options, own, spent


@pytest.mark.parametrize(
    "source",
    [
        "hand(me)",  # cards: hashable
        "[me, [1, 2], me]",  # a list after a name: the long way from the second item of the first chooser
        "[[1, 2], me]",  # a list first
        '[me, "both", "both"]',  # the same option twice in one chooser's items
        "opponents + [[me]]",
    ],
)
def test_a_secret_choice_gathers_its_options_as_before(tmp_path, monkeypatch, source):
    effect = f"choose_secretly players from {source} as picks\ngain 1 vp"
    game = Game.new(pack(tmp_path, effect), 3, 0)
    assert game.decision.kind == "secret"
    frame = game.state["stack"][-1]
    verb, c = verb_of(game), Ctx(game, frame["env"], frame["me"], frame["card"])
    options, own, gathered = _gathered_before(game, verb, c, frame["wait"]["players"])
    assert frame["wait"]["options"] == options and frame["wait"]["own"] == own
    assert charged_per_chooser(game, verb, frame, monkeypatch) == gathered


def charged_per_chooser(game, verb, frame, monkeypatch) -> list[int]:
    """The work a secret choice charges as it gathers each chooser's options (ChooseSecretly.run, again): what
    `g.work` lost from one reading of its options to the next, and after the last (its asking left out)."""
    marks: list[int] = []
    source = verb.args["from"]

    def read(c):
        marks.append(game.work)
        value = source(c)
        marks.append(game.work)
        return value

    monkeypatch.setitem(verb.args, "from", read)
    monkeypatch.setattr(verbs.ChooseSecretly, "_pending", lambda self, g, c, frame: None)
    verb.run(game, Ctx(game, frame["env"], frame["me"], frame["card"]), {})
    marks.append(game.work)
    return [marks[i] - marks[i + 1] for i in range(1, len(marks) - 1, 2)]


def _choose_before(g, wait) -> tuple[list, list, bool]:
    """Choose._pending's offer before options that are no cards were offered at once: the oracle."""
    cands, picked, low, by = wait["cands"], wait["picked"], wait["low"], wait["by"]
    start = picked[-1] + 1 if picked else 0
    still = max(0, low - len(picked))
    offer, seen, blind = [], set(), False
    for j in range(start, len(cands) - still + 1 if still else len(cands)):
        value = cands[j]
        if wait["cards"] and type(value) is int:
            if g.can_see(value, by):
                key = (g.rules.instances[value], g.state["loc"][value], g.state["orient"][value])
                if key in seen:
                    continue
                seen.add(key)
            else:
                blind = True
        offer.append(j)
    if len(picked) >= low:
        offer.append(-1)
    return offer, [cands[j] if j >= 0 else DONE for j in offer], blind


def _room_before(g, key: str) -> int:
    """places.room before it read a place's capacity first: the oracle."""
    if key in g._zone_defs:
        cap = g._capacity.get(key)
        if key in g._slotted:
            if cap is None:
                return g.state["zones"][key].count(None)
        elif cap is None:
            return len(g._card_defs)
        else:
            zones = g.state["zones"]
            return max(0, cap - sum(map(len, map(zones.__getitem__, g.layout.place[key]))))
    cap = capacity_of(g, key)
    if cap is None and g.slotted(key):
        return g.state["zones"][key].count(None)
    if cap is None:
        return len(g.rules.instances)
    return max(0, cap - cards_in_place(g, key))


@pytest.mark.parametrize("pack_name", ["cro-magnon", "stone-age", "neolithibum"])
def test_every_choice_and_room_is_as_before_in_random_games(pack_name):
    """At every `choose` of random games: the same places, options and blindness as the loop before; at every
    decision of Stone Age (places with capacities, rows with slots): the same room in every zone."""
    rules = load(CONTENT / pack_name)
    asked = 0
    for seed in range(2):
        game = Game.new(rules, 4, seed)
        rnd = random.Random(seed)
        while not game.over and len(game.state["history"]) < 400:
            decision = game.decision
            if decision.kind == "choose":
                wait = game.state["stack"][-1]["wait"]
                offer, options, blind = _choose_before(game, copy.deepcopy(wait))
                assert (wait["offer"], decision.options, game.state["pending"]["blind"]) == (offer, options, blind)
                asked += 1
            if pack_name == "stone-age":
                for key in [*game.state["zones"], *game.rules.zones]:
                    assert room(game, key) == _room_before(game, key), key
            if decision.is_chance:
                game.apply_chance()
                continue
            legal = game.legal(decision.players[0])
            game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
    assert asked > 10


def _same_kind_twice_before(g, values: list) -> bool:
    kinds = [g.rules.instances[value] for value in values if type(value) is int]
    return len(set(kinds)) < len(kinds)


@pytest.mark.parametrize(
    "values",
    [[0, 1, 2], [0, 2, 3], [3, "P1", 0], ["P1", "P2"], [[0, 1], 1], [True, 1], [False, 2], [], [2.0, 3], [None, 1, 2]],
)
def test_same_kind_twice_is_as_before(values):
    """A yes or no is read as a card by the faster way: at worst a "yes", where the long offer is the same."""
    g = SimpleNamespace(rules=SimpleNamespace(instances=["bread", "bread", "fig", "plum"]))
    now, before = verbs._same_kind_twice(g, values), _same_kind_twice_before(g, values)
    assert now == before or (now and any(type(v) is bool for v in values))


def test_a_choices_line_keeps_its_values_apart_from_the_choice(tmp_path):
    """Flat values are copied as a list, lists deeply: changing what was chosen changes no line of the log."""
    game = Game.new(pack(tmp_path, "gain 1 vp"), 2, 0)
    for chosen in ([3, "P1"], [[1, 2], "P1"]):
        log_choice(game, "P1", None, "pick", False, False, chosen, None, None)
        entry = game.state["log"][-1]
        assert entry[7] == chosen and entry[7] is not chosen
        if type(chosen[0]) is list:
            assert entry[7][0] is not chosen[0]


@pytest.mark.parametrize("amount", ["1", "2", "between(1, 3)"])
def test_a_secret_answer_finds_the_place_it_found_before(tmp_path, amount):
    """At every pick of random games with identical cards: for each option a chooser may answer, the place the
    answer is kept as (`_place_answered`) is the first offered place holding it, as the loop before found it."""
    rules = pack(tmp_path, KEEP.format(amount=amount))
    checked = 0
    for seed in range(4):
        game = Game.new(rules, 2 + seed % 2, seed)
        rnd = random.Random(seed)
        while not game.over:
            decision = game.decision
            if decision.kind == "secret":
                wait, pending = game.state["stack"][-1]["wait"], game.state["pending"]
                for player in pending["by"]:
                    keys, offer = wait["own"][player], wait["offer"][player]
                    for key in pending["allowed"][player]:
                        before = next((j for j in offer if j >= 0 and keys[j] == key), -1)
                        assert verbs._place_answered(keys, offer, key) == before
                        checked += 1
            legal = game.legal(decision.players[0])
            game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
    assert checked > 20
