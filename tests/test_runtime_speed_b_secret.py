"""A secret choice's question written as a plain text is worded once for every chooser (verbs.ChooseSecretly
.same_question); one with a value in it (`{...}`) is still worded for each chooser as `me`, and a move of one card
(verbs._move_logged) logs and remembers what the move of several cards did."""

from __future__ import annotations

from test_secret_choice import pack

from engine.runtime import verbs
from engine.runtime.game import Game
from engine.runtime.log_words import MOVE, remember, seen_by, worded_log

PICK = """choose_secretly players from hand(me) as picks with {question}
let n = 0
for each p in players:
    let n = n + 1
    move picks[n] to basket for p
    gain 1 vp for p
"""


def test_a_plain_question_reads_the_same_for_everyone(tmp_path):
    game = Game.new(pack(tmp_path, PICK.format(question='"Which do you keep?"')), 2, 0)
    pending = game.state["pending"]
    assert pending["prompt"] == "Which do you keep?" and "prompts" not in pending
    assert verb_of(game).same_question


def test_a_question_with_a_value_in_it_is_worded_for_each_chooser(tmp_path):
    game = Game.new(pack(tmp_path, PICK.format(question='"{me}, which do you keep?"')), 2, 0)
    pending = game.state["pending"]
    assert pending["prompts"] == {"P1": "P1, which do you keep?", "P2": "P2, which do you keep?"}
    assert not verb_of(game).same_question


def _moved_as_before(g, cards, target, actor, verb, slot=None):
    """verbs._move_logged before its one-card path: the oracle."""
    before = [seen_by(g, x) for x in cards]
    source = g.state["loc"][cards[0]]
    piled = slot is not None and not g.slotted(target)
    for n, x in enumerate(cards):
        g.move(x, target, slot + n if piled else slot)
    setup = 0
    if g.in_setup():
        setup = 2 if actor not in (source.rsplit(":", 1)[-1], target.rsplit(":", 1)[-1]) else 1
    after = [seen_by(g, x) for x in cards]
    for x, sight, now in zip(cards, before, after, strict=True):
        if sight & ~now:
            remember(g, x, sight & ~now)
    g.state["log"].append(
        [MOVE, setup, actor, verb, source, target, list(cards), [s | n for s, n in zip(before, after, strict=True)]]
    )


def test_a_move_of_one_card_logs_and_remembers_as_before(tmp_path):
    """Out of sight (a hand to another hand: its owner remembers where it went), into sight, by nobody, at a place."""
    game = Game.new(pack(tmp_path, PICK.format(question='"Which?"')), 2, 0)
    moves = [("hand:P2", "P1", None), ("basket:P1", None, None), ("hand:P1", "P2", 1)]
    for target, actor, slot in moves:
        card = game.state["zones"]["hand:P1"][0] if target != "hand:P1" else game.state["zones"]["basket:P1"][0]
        fast, slow = game.clone(), game.clone()
        verbs._move_logged(fast, [card], target, actor, "moves", slot)
        _moved_as_before(slow, [card], target, actor, "moves", slot)
        assert fast.state == slow.state
        assert worded_log(fast) == worded_log(slow)
        game = fast
    assert game.state["known"]  # a card went out of a seat's sight: remembered (the test reaches that path)


def verb_of(game):
    frame = game.state["stack"][-1]
    return game.rules.code[frame["code"]].steps[frame["pc"]][1]
