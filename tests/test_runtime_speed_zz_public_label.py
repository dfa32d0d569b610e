"""`Table.public_label` names a card when every seat sees it, read off `seen_by`'s mask of seats (issue 16: a yes-or-no
question about a card words it at each asking), as it did asking `can_see` of each seat: the oracle below, compared
on every card of every shipped pack, after random play, with cards shown to some seats and to all."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())


def _label_before(g, values) -> str:
    """public_label of cards as it was: each seat asked in turn."""
    return ", ".join(
        g.label(x)
        if not isinstance(x, int) or isinstance(x, bool)
        else g.card_label(x, None)
        if all(g.can_see(x, p) for p in g.state["players"])
        else "a card" + g.back_words(x, None)
        for x in values
    )


@pytest.mark.parametrize("pack", PACKS)
def test_every_card_is_labelled_as_each_seat_asked_would_label_it(pack):
    rules = load(CONTENT / pack)
    low, high = rules.players
    for players in sorted({low, high}):
        game = Game.new(rules, players, 7)
        play_randomly(game, random.Random(7), limit=60)
        cards = list(range(len(game.state["loc"])))
        rnd = random.Random(players)
        named = 0
        for shown in ({}, {str(c): "all" for c in rnd.sample(cards, 3)}, {str(c): ["P1"] for c in cards[::2]}):
            game.state["shown"] = shown
            for card in cards:
                assert game.public_label([card], True) == _label_before(game, [card]), (pack, card, shown)
                named += "a card" not in game.public_label([card], True)
            assert game.public_label([*cards[:4], "nobody", True], True) == _label_before(
                game, [*cards[:4], "nobody", True]
            )
        assert 0 < named < 3 * len(cards) or players == 1  # (some named, some not: both ways are tried)
