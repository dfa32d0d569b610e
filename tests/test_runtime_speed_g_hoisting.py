"""A part of a loop's test that is the same for every item is worked out once per evaluation of the loop, lazily
(codegen `ExpressionCompiler.src`, `_kept`, `Loop`): whole games are the same with and without it; a kept value is
worked out at its first use only (never for an empty list, nor when every item fails an earlier part of the test,
an error surfacing at the same item), afresh at the next evaluation; what reads the item, or a name bound inside the
loop, is never kept."""

from __future__ import annotations

import random

import pytest
from scenario import ROOT, ruleset

from engine import dsl
from engine.runtime import codegen, exists, functions
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

PACKS = sorted(p.name for p in (ROOT / "content").iterdir() if (p / "pack.yaml").exists())


def _played(pack: str, hoisting: bool, seed: int):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codegen, "HOISTING", hoisting)
        rules = load(ROOT / "content" / pack)  # compiled anew, with or without kept values
        low, high = rules.players
        game = Game.new(rules, min(max(low, 4), high), seed)
        play_randomly(game, random.Random(seed))
    return game.history, game.state_hash()


@pytest.mark.parametrize("pack", PACKS)
def test_whole_games_are_the_same_with_and_without_kept_values(pack):
    """A seeded random game of every shipped pack: the same answers and final state with values kept and without
    (tools/same_games.py checks the recorded games, with them kept)."""
    assert _played(pack, True, 5) == _played(pack, False, 5)


def _function_source(pack: str, name: str, hoisting: bool = True) -> str:
    rules = ruleset(pack)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codegen, "HOISTING", hoisting)
        compiler = exists.ExistsCompiler(rules, "test/kept", frozenset({"player"}), {"player": "v_player"})
        return compiler.src(codegen.function_body_ir(rules, name))


def test_the_shipped_menu_filters_keep_what_does_not_change():
    """The comparison above means something: the Cro-Magnon menu's filters keep the tableau's counts (three per
    filter, not three per settlement) and the hand's tally for the costs; without hoisting, nothing."""
    sites = _function_source("cro-magnon", "foundable_sites")
    assert sites.count("_keep(_h") == 3 and "for _h0, _h1, _h2 in (([], [], [], ),) for _i0 in" in sites
    assert "R_can_pay(c, ('hand:%s' % (v_player,))" in _function_source("cro-magnon", "affordable_technologies")
    for name in ("foundable_sites", "affordable_technologies"):
        assert "_keep" not in _function_source("cro-magnon", name, hoisting=False)


class _Counted:
    """A built-in function that counts its calls."""

    def __init__(self, function):
        self.function, self.calls = function, 0

    def __call__(self, *args):
        self.calls += 1
        return self.function(*args)


def _compiled(text: str, hoisting: bool = True, counted: str = "count"):
    """(the compiled expression, the counter of the calls of the built-in `counted`, a context for P1 of a new
    two-player Cro-Magnon game)."""
    rules = ruleset("cro-magnon")
    spy = _Counted(functions.BUILTINS[counted])
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(functions.BUILTINS, counted, spy)
        patch.setattr(codegen, "HOISTING", hoisting)
        expression = exists.compile_expression(rules, "test/kept", ir, frozenset())  # as the runtime compiles it
    game = Game.new(rules, 2, 0)
    return expression, spy, Ctx(game, {}, game.players[0], None)


@pytest.mark.parametrize("asked", ["list", "exists"])
def test_a_value_that_does_not_change_is_worked_out_once_per_evaluation(asked):
    """`count(hand(me))` reads no item: once for all items (at each item without keeping), and afresh at the next
    evaluation, where it has changed. Also as "is there some X?" (exists.py's `any`, which stops at the first)."""
    text = "numbers(1, 5) where item > count(hand(me))"
    text = f"count({text}) > 0" if asked == "exists" else text
    calls = {"list": {True: (1, 2), False: (5, 10)}, "exists": {True: (1, 2), False: (1, 4)}}[asked]
    for hoisting in (True, False):
        expression, spy, context = _compiled(text, hoisting)
        game = context.g
        hand = f"hand:{game.players[0]}"
        for card in list(game.state["zones"][hand]):
            game.move(card, "box")
        assert expression(context) == (True if asked == "exists" else [1, 2, 3, 4, 5])
        assert spy.calls == calls[hoisting][0]
        for card in game.state["zones"]["weapons_deck"][:2]:
            game.move(card, hand)
        assert expression(context) == (True if asked == "exists" else [3, 4, 5])  # worked out again: two cards now
        assert spy.calls == calls[hoisting][1]
        for card in game.state["zones"]["weapons_deck"][:3]:
            game.move(card, hand)
        assert expression(context) == (False if asked == "exists" else [])  # and again: five cards
        assert spy.calls == calls[hoisting][1] + (1 if hoisting else 5)  # no item passes: each tested


def test_a_kept_value_is_worked_out_at_its_first_use_only():
    """Never for an empty list, nor when every item fails an earlier part of the test (`1 / 0` would fail); at the
    first item that reaches it, where its error surfaces as without keeping."""
    for text in ("[] where 1 / 0 > item", "numbers(1, 3) where item > 5 and 1 / 0 > item"):
        expression, _, context = _compiled(text)
        assert expression(context) == []
        expression, _, context = _compiled(f"count({text}) > 0")
        assert expression(context) is False
    expression, spy, context = _compiled("numbers(1, 5) where item > 3 and count(weapons_deck) >= item")
    assert len(context.g.state["zones"]["weapons_deck"]) >= 5
    assert expression(context) == [4, 5]
    assert spy.calls == 1  # at item 4, the first that passes `item > 3`
    errors = []
    for hoisting in (True, False):
        expression, spy, context = _compiled(
            "numbers(1, 3) where count(weapons_deck) > item and item > 1 and 1 / 0 > item", hoisting
        )
        with pytest.raises(ContentError) as raised:
            expression(context)
        errors.append((raised.value.code, str(raised.value), spy.calls))
    assert errors[0][:2] == errors[1][:2]
    assert errors[0][0] == "X108"
    assert (errors[0][2], errors[1][2]) == (1, 2)  # at item 2, as without keeping (which counted at items 1 and 2)


def test_a_prepared_cost_check_reads_its_hand_once_and_lazily():
    """`can_pay(COST, hand(me), JOKER)` in a filter: its hand counted once for every cost tested, never when no
    item reaches it; the same answers as without keeping."""
    text = "weapons_row + daily_life_row + dwelling_row where can_pay(card.cost, hand(me), [spoils, spoils_joker])"
    answers = []
    for hoisting in (True, False):
        expression, spy, context = _compiled(text, hoisting, counted="can_pay")
        context.g.state["zones"][f"hand:{context.g.players[0]}"].extend(context.g.state["zones"]["weapons_deck"][:6])
        answers.append(expression(context))
        assert spy.calls == (0 if hoisting else 12)  # kept: the prepared pair is called, never can_pay itself
    assert answers[0] == answers[1] and answers[0]
    tallies = _Counted(functions._tally)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(functions, "_tally", tallies)
        expression, _, context = _compiled(text)
        context.g.held_memo.clear()
        tallies.calls = 0
        expression(context)
        assert tallies.calls == 1
        expression, _, context = _compiled("numbers(1, 3) where item > 5 and can_pay([item], hand(me), none)")
        tallies.calls = 0
        assert expression(context) == []
        assert tallies.calls == 0


def test_what_reads_the_item_or_a_name_bound_in_the_loop_is_not_kept():
    """`count(numbers(1, item))` reads the item; the inner filter's source reads the outer item; a value of the inner
    loop reads its own item; `map`'s value reads the item `map` binds: each worked out at every item, with the
    answers of the text as written. An inner loop the same for every outer item is kept whole, and what the inner
    loop's test keeps is worked out once with it; what does not change inside an inner loop whose items change
    is kept by the outer loop, across every inner loop."""
    cases = {
        "numbers(1, 4) where count(numbers(1, item)) > 2": ([3, 4], 4),
        "numbers(1, 3) where count(numbers(1, item) where item > 1) > 1": ([3], 3),
        "numbers(1, 3) where count(numbers(1, 3) where item > count(numbers(2, 3))) = 1": ([1, 2, 3], 2),
        "numbers(1, 3) where count(map(numbers(1, item), count(numbers(1, item)))) > 1": ([2, 3], 3 + 6),
        "numbers(1, 3) where count(numbers(1, 3) where count(numbers(1, 3) where item < 3) > 1) = 3": ([1, 2, 3], 2),
        "numbers(1, 2) where count(numbers(item, 3) where count(numbers(1, 3)) > 1) > 0": ([1, 2], 1),
    }
    for text, (expected, calls) in cases.items():
        for hoisting in (True, False):
            expression, spy, context = _compiled(text, hoisting)
            assert expression(context) == expected, text
            if hoisting:
                assert spy.calls == calls, text


def test_a_part_kept_across_a_loop_whose_item_it_reads_stops_the_compiler():
    """`_kept` checks what `_loop_reads` said of a part against the item reads of the source made for it: were they
    ever to disagree, the pack would fail to load rather than play with a stale value."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codegen.ExpressionCompiler, "_name_reads", lambda self, word, depth: 0)
        with pytest.raises(AssertionError, match="kept across"):
            _compiled("numbers(1, 4) where count(numbers(1, item)) > 2")
