"""A secret choice asks what it asked before its shortcuts (issue 16, verbs.ChooseSecretly): options written out as
plain texts and numbers (`from ["object", "let it lie"]`) are the same for every chooser, so they are read and
placed once and the work of placing them for each chooser is charged at once; a choice of one pick each whose words
are fixed (a plain text, or none) and whose options have no labels is asked without `_ask`. Each is compared with
the way before it (the general gathering, the oracle of test_runtime_speed_m_verbs; `_ask`), and a test fails if
the shortcut is gone."""

from __future__ import annotations

import json

import pytest
from test_runtime_speed_b_secret import verb_of
from test_runtime_speed_m_verbs import _gathered_before, charged_per_chooser
from test_secret_choice import pack

from engine.runtime import verbs
from engine.runtime.context import Ctx
from engine.runtime.errors import ContentError
from engine.runtime.game import Game

WRITTEN = ['["object", "let it lie"]', '["a", "a", 7]', "[1, 2, 3]", '["x", 7, "x", 7]']


def _secret(tmp_path, source: str, words: str = ' with "Which?"', players: int = 3):
    effect = f"choose_secretly players from {source} as picks{words}\ngain 1 vp"
    game = Game.new(pack(tmp_path, effect), players, 0)
    assert game.decision.kind == "secret"
    frame = game.state["stack"][-1]
    return game, verb_of(game), frame


@pytest.mark.parametrize("source", WRITTEN)
def test_written_options_are_placed_once_as_the_long_way_placed_them(tmp_path, monkeypatch, source):
    """The options and each chooser's places are those of the general gathering; the work charged is the sum
    it charged chooser by chooser; the options are read once (they fail without the shortcut: one read each)."""
    game, verb, frame = _secret(tmp_path, source)
    assert verb.written_options
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    options, own, gathered = _gathered_before(game, verb, c, frame["wait"]["players"])
    assert frame["wait"]["options"] == options and frame["wait"]["own"] == own
    places = list(frame["wait"]["own"].values())
    assert len(set(map(id, places))) == len(places)  # each chooser's own list, as the long way made them
    verb.written = None  # (placed when the game asked it: placed again, read once more)
    assert charged_per_chooser(game, verb, frame, monkeypatch) == [sum(gathered)]  # one read, all of it charged


@pytest.mark.parametrize("source", WRITTEN)
def test_written_options_are_read_at_the_first_run_alone_and_each_run_has_lists_of_its_own(
    tmp_path, monkeypatch, source
):
    """Written out, the options are the same at every run: read and placed at the first (`ChooseSecretly.written`),
    and each later run charges the same work and keeps the same options and places, in new lists of its own that
    the verb does not hold (a change to one run's leaves the next's as they were). Fails with the options read at
    every run."""
    game, verb, _frame = _secret(tmp_path, source)
    monkeypatch.setattr(verbs.ChooseSecretly, "_pending", lambda self, g, c, frame: None)
    reads = []
    source_of = verb.args["from"]
    monkeypatch.setitem(verb.args, "from", lambda c: reads.append(1) or source_of(c))
    verb.written = None
    c = Ctx(game, {}, "P1", None)
    waits, charged = [], []
    for _ in range(3):
        frame: dict = {}
        before = game.work
        verb.run(game, c, frame)
        charged.append(before - game.work)
        waits.append(frame["wait"])
        frame["wait"]["options"].append("changed")  # (a run's own lists: the next's are not these)
        for places in frame["wait"]["own"].values():
            places.append(99)
    assert len(reads) == 1
    assert len(set(charged)) == 1
    assert waits[1] == waits[2] and waits[1]["options"][-1] == "changed"
    assert waits[1]["options"][:-1] == waits[0]["options"][:-1]
    assert {p: k[:-1] for p, k in waits[2]["own"].items()} == {p: k[:-1] for p, k in waits[0]["own"].items()}
    assert all(99 not in k[:-1] for k in waits[2]["own"].values())


@pytest.mark.parametrize("source", ["[me, 1]", "opponents", "hand(me)", "[]", '["a", [1, 2]]'])
def test_options_that_differ_or_are_not_plain_values_are_gathered_chooser_by_chooser(tmp_path, source):
    """Only a list of plain texts and numbers is the same for everyone (`me`, a list inside, none at all: not)."""
    effect = f"choose_secretly players from {source} as picks\ngain 1 vp"
    game = Game.new(pack(tmp_path, effect), 3, 0)
    step = next(step[1] for step in game.rules.code["phase/pick/effect"].steps if step[0] == "verb")
    assert not step.written_options


@pytest.mark.parametrize("source", WRITTEN[:2])
def test_written_options_run_out_of_work_as_before(tmp_path, monkeypatch, source):
    """Charged at once, the work runs out exactly when the charges chooser by chooser ran it out."""
    game, verb, frame = _secret(tmp_path, source)
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    total = sum(_gathered_before(game, verb, c, frame["wait"]["players"])[2])
    monkeypatch.setattr(verbs.ChooseSecretly, "_pending", lambda self, g, c, frame: None)
    game.work = total
    verb.run(game, c, {})
    assert game.work == 0
    game.work = total - 1
    with pytest.raises(ContentError) as error:
        verb.run(game, c, {})
    assert error.value.code == "X101"


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ('["object", "let it lie"]', ' with "Do you object?"'),
        ("hand(me)", ' with "Which do you keep?"'),
        ("hand(me)", ""),  # no words: "Choose picks (in secret)"
        ("opponents", ' with ""'),  # empty words: the plain ones too
        ("opponents", ' with "Aim at {me}"'),  # words for each chooser: `_ask`
        ("hand(me)", ' with "Which?" showing "{item.name}"'),  # labelled options: `_ask`
    ],
)
def test_a_choice_of_one_pick_each_is_asked_as_ask_asked_it(tmp_path, monkeypatch, source, words):
    """The decision and the wait the choice keeps are `_ask`'s, to the order of their keys."""
    game, verb, frame = _secret(tmp_path, source, words)
    c = Ctx(game, frame["env"], frame["me"], frame["card"])
    fast: dict = {}
    asked = verb.run(game, c, fast)
    monkeypatch.setattr(verb, "fixed_prompt", None)  # the way before: `_ask` words and builds it
    slow: dict = {}
    before = verb.run(game, c, slow)
    assert json.dumps([asked, fast]) == json.dumps([before, slow])


@pytest.mark.parametrize("source", ['["object", "let it lie"]', "hand(me)"])
def test_fixed_words_ask_without_ask(tmp_path, monkeypatch, source):
    """Fails if the shortcut is gone: `_ask` is not called for fixed words and options without labels."""
    game, verb, frame = _secret(tmp_path, source)
    assert verb.fixed_prompt == "Which?"

    def no_ask(*_):
        raise AssertionError("asked the long way")

    monkeypatch.setattr(verbs.ChooseSecretly, "_ask", no_ask)
    pending = verb.run(game, Ctx(game, frame["env"], frame["me"], frame["card"]), {})
    assert pending["prompt"] == "Which?" and pending["kind"] == "secret"
