"""What a bare card id means as a value (docs/runtime.md, "Cards and zones"): the kind of card, whose printed
fields it reads and whose name it is in words, never a card on the table. A verb that moves cards, given an
id, used to do nothing at all; it now stops with X107 at the line."""

from __future__ import annotations

import pytest
from conftest import DECK_AND_HAND, one_action_rules, tiny_manifest, write_tree

from engine.commands.cli import main
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.rules import load

CARDS = (
    """kind: card
id: axe
name: Axe
type: technology
deck: deck
stats: {vp: 2}
---
"""
    + DECK_AND_HAND
)


def _act(tmp_path, effect: str) -> Game:
    pack = write_tree(
        tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": one_action_rules(effect, before=CARDS)}
    )
    game = Game.new(load(pack), 1, 0)
    game.apply(game.decision.options.index("act"), "P1")
    return game


def test_an_id_reads_the_printed_fields_of_its_card(tmp_path):
    game = _act(tmp_path, "gain axe.vp vp")
    assert game.counter("P1", "vp") == 2


def test_an_id_in_words_is_its_cards_name_and_lint_accepts_it(tmp_path, capsys):
    game = _act(tmp_path, 'log "{axe} ({axe.vp} VP)"')
    assert game.view("P1")["log"][-1] == "Axe (2 VP)"
    assert main(["lint", "--no-cache", "--select", "D004", str(tmp_path / "tiny")]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("verb", ["move axe to hand", "discard axe", "remove axe", "reveal axe"])
def test_a_verb_that_moves_or_shows_cards_refuses_an_id(tmp_path, verb):
    with pytest.raises(ContentError) as caught:
        _act(tmp_path, verb)
    assert caught.value.code == "X107"
    assert "`axe` is the id of a kind of card" in caught.value.message


def test_cards_with_an_id_are_picked_from_a_zone(tmp_path):
    game = _act(tmp_path, "move deck where id = axe to hand")
    assert [game.card_label(c, "P1") for c in game.state["zones"]["hand:P1"]] == ["Axe"]
