"""A choice's log line is kept as facts and worded when read (issue 16; log_words.log_choice): every reader
reads exactly what the choice was worded as at once before (the old wording is kept below, only here), at
the moment of the choice and at any later moment, naming only the cards the reader could see then.
"""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import pytest
from test_expressions import make

from engine.runtime import log_words, verbs
from engine.runtime import rules as rules_module
from engine.runtime.functions import option_words
from engine.runtime.game import Game
from engine.runtime.log_words import CHOICE, seen_by, word
from engine.runtime.persist import SaveError
from engine.runtime.session import play_randomly

REPO = Path(__file__).resolve().parents[1]
# packs whose choices name cards seen by some and not others, carry `showing` labels, list options, backs
GAMES = [
    ("cro-magnon", 4, 0),
    ("cro-magnon", 2, 3),
    ("neolithibum", 3, 1),
    ("stone-age", 4, 2),
    ("paleo", 3, 0),
    ("paleo-a-new-beginning", 2, 1),
    ("paleo-module-q", 2, 0),
    ("docs/examples/summit-dice", 2, 0),  # options that are lists of plain numbers
]


@cache
def _rules(pack):
    return rules_module.load(REPO / pack if "/" in pack else REPO / "content" / pack)


# ------------------------------------------------------------------ the wording before it was kept as facts
def _old_answered(player, prompt, name, answer) -> str:
    if prompt:
        return f'{player}, asked "{prompt}", chooses {answer}'
    if name:
        return f"{player} chooses {str(name).replace('_', ' ')}: {answer}"
    return f"{player} chooses {answer}"


def _old_line(g, by, prompt, name, forced, cards, chosen, labels, shape) -> tuple[str, str]:
    """(what everyone reads, what the chooser reads), worded at once from the table as it is now, as
    `Choose.public_words` and `Choose.resume` did (the `showing` labels as they worked them out)."""
    pending = {"kind": "choose", "cards": cards, "shape": shape, "options": chosen}
    if labels is not None:
        pending["labels"] = labels
    readers = (None, by) if cards else (None,)
    words = [
        ", ".join(
            option_words(g, pending, i, value, reader)
            or (g.public_label([value], cards) if reader is None or not cards else g.card_label(value, reader))
            for i, value in enumerate(chosen)
        )
        for reader in readers
    ]
    line = _old_answered(by, prompt, name, words[0])
    own = _old_answered(by, prompt, name, words[1]) if cards else line
    if forced:
        own += " (only one option)"
    setup = "Setup: " if g.in_setup() else ""
    return setup + line, setup + own


def _played_noting_choices(monkeypatch, rules, players, seed, answers=None):
    """A seeded random game; each choice's entry with the lines the old code worded for it then."""
    noted = []

    def log_choice(g, by, prompt, name, forced, cards, chosen, labels, shape):
        then = _old_line(g, by, prompt, name, forced, cards, chosen, labels, shape)
        log_words.log_choice(g, by, prompt, name, forced, cards, chosen, labels, shape)
        entry = g.state["log"][-1]
        assert entry[0] == CHOICE
        noted.append((entry, then))
        for reader in [*g.state["players"], None]:  # at the moment of the choice
            assert word(g, entry, reader) == (then[1] if reader == by else then[0])

    monkeypatch.setattr(verbs, "log_choice", log_choice)
    game = Game.new(rules, players, seed)
    play_randomly(game, random.Random(seed), limit=answers)
    return game, noted


def _assert_worded_as_then(game, noted):
    for entry, (line, own) in noted:
        for reader in [*game.state["players"], None, "someone else"]:
            assert word(game, entry, reader) == (own if reader == entry[2] else line), (reader, entry)


@pytest.mark.parametrize(("pack", "players", "seed"), GAMES)
def test_a_choice_reads_as_it_was_worded_then_for_every_reader(monkeypatch, pack, players, seed):
    game, noted = _played_noting_choices(monkeypatch, _rules(pack), players, seed)
    assert noted, "the game made no choice"
    _assert_worded_as_then(game, noted)  # at the game's end, the table changed since
    saved = Game.load(game.rules, game.save())  # and after a save, as JSON
    _assert_worded_as_then(saved, noted)
    assert saved.state_hash() == game.state_hash()


def test_the_choices_of_these_games_name_cards_whose_sight_changed_since(monkeypatch):
    """The games above are a test of something: some chosen cards seen by a reader then are hidden from them
    at the end, and some hidden then are seen at the end; some options carry `showing` labels."""
    went_out_of_sight = came_into_sight = labelled = False
    for pack, players, seed in GAMES:
        game, noted = _played_noting_choices(monkeypatch, _rules(pack), players, seed)
        for entry in (entry for entry, _ in noted):
            labelled = labelled or entry[8] is not None
            for card, then in zip(entry[10], entry[11], strict=True):
                now = seen_by(game, card)
                went_out_of_sight = went_out_of_sight or bool(then & ~now)
                came_into_sight = came_into_sight or bool(now & ~then)
    assert went_out_of_sight and came_into_sight and labelled


def _a_choice_of_a_card(monkeypatch, hidden_from_someone: bool):
    """A game just after a choice of one card that everyone sees (or that someone does not see)."""
    for seed in range(40):
        game, noted = _played_noting_choices(monkeypatch, _rules("cro-magnon"), 3, seed, answers=60)
        everyone = (1 << len(game.state["players"])) - 1
        for entry, then in noted:
            if entry[6] and len(entry[10]) == 1 and (entry[11][0] != everyone) == hidden_from_someone:
                return game, entry, then
    raise AssertionError("no such choice in 40 games")


def test_a_card_seen_at_the_choice_then_hidden_is_still_named(monkeypatch):
    game, entry, (line, own) = _a_choice_of_a_card(monkeypatch, hidden_from_someone=False)
    card = entry[10][0]
    hidden = next(zone for zone in game.state["zones"] if log_words._zone_sight(game, zone) == 0)
    game.move(card, hidden)
    game.state["shown"].pop(str(card), None)
    assert seen_by(game, card) == 0
    _assert_worded_as_then(game, [(entry, (line, own))])
    assert game.card_label(card, None) in line


def test_a_card_hidden_at_the_choice_then_shown_to_everyone_stays_a_card(monkeypatch):
    game, entry, (line, own) = _a_choice_of_a_card(monkeypatch, hidden_from_someone=True)
    card = entry[10][0]
    game.state["shown"][str(card)] = "all"
    assert seen_by(game, card) == (1 << len(game.state["players"])) - 1
    _assert_worded_as_then(game, [(entry, (line, own))])
    assert game.card_label(card, None) not in line


def test_no_view_gets_a_choice_entry_only_its_words(monkeypatch):
    game, noted = _played_noting_choices(monkeypatch, _rules("cro-magnon"), 3, 0, answers=80)
    assert noted
    for reader in [*game.state["players"], None]:
        view = game.view(reader)
        assert all(type(line) is str for line in view["log"])
        assert "choice" not in json.dumps(view["log"]).replace("chooses", "")


def test_a_forged_choice_naming_a_card_it_keeps_no_sight_of_is_refused(monkeypatch):
    game, _ = _played_noting_choices(monkeypatch, _rules("cro-magnon"), 3, 0, answers=80)
    state = json.loads(game.save())
    index = next(i for i, e in enumerate(state["log"]) if e[0] == CHOICE and e[6] and e[10])
    state["log"][index][10], state["log"][index][11] = [], []
    with pytest.raises(SaveError) as caught:
        Game.load(game.rules, json.dumps(state))
    assert caught.value.pointer == f"/log/{index}/7", str(caught.value)
    state["log"][index][2] = "P9"
    with pytest.raises(SaveError) as caught:
        Game.load(game.rules, json.dumps(state))
    assert caught.value.pointer == f"/log/{index}/2", str(caught.value)


SMALL_EFFECT = """draw 1 from deck to hand
choose 1 from map(hand(me), [item, 2]) as deal
choose 1 from hand(me) as pick showing "{item.name}!"
move pick to market
choose between(1, 2) from market as taken with "Which tools?"
move taken to hand
gain 1 vp"""

SMALL_SETUP = """kind: phase
id: opening
name: Opening
when: setup
effect: |
  choose 1 from market as first_tool
  move first_tool to hand
"""


def test_list_options_labels_and_setup_choices_read_as_then(monkeypatch, tmp_path):
    """A small pack whose choices are lists of a card and a plain number (`shape`), `showing` labels of cards
    in a hand, several picks, and a choice in the setup."""
    root = make(tmp_path, SMALL_EFFECT, extra="---\n" + SMALL_SETUP)
    kinds = set()
    rules = rules_module.load(root)
    for seed in range(3):
        game, noted = _played_noting_choices(monkeypatch, rules, 2, seed, answers=120)
        _assert_worded_as_then(game, noted)
        _assert_worded_as_then(Game.load(rules, game.save()), noted)
        for entry, _ in noted:
            kinds |= {"shape"} if entry[9] else set()
            kinds |= {"labels"} if entry[8] else set()
            kinds |= {"setup"} if entry[1] else set()
            kinds |= {"hidden"} if any(mask != 3 for mask in entry[11]) else set()
    assert kinds == {"shape", "labels", "setup", "hidden"}
