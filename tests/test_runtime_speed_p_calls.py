"""Fewer calls in compiled expressions (issue 16): `count(own(ZONE, PLAYER))` is one call (functions.count_own), and
`can_pay` reads a printed cost as the pack's own tuple instead of a copy (codegen `_READ_ONLY_ARGS`). Each gives
the value, the work charged and the error of the calls it replaces."""

from __future__ import annotations

import pytest
from scenario import ruleset

from engine import dsl
from engine.runtime import codegen, exists, functions
from engine.runtime.game import Ctx, Game


def _source(pack: str, text: str, scope=frozenset()) -> str:
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    return codegen.ExpressionCompiler(ruleset(pack), "test/calls", scope).src(ir)


def _evaluated(game: Game, text: str, fused: bool):
    """(the value, the work it charged) of `text` compiled as the runtime compiles it, for P1; `fused`: False with the
    built-in `count` replaced by a function that only calls it (so that nothing is fused)."""
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    with pytest.MonkeyPatch.context() as patch:
        if not fused:
            plain = functions.BUILTINS["count"]
            patch.setitem(functions.BUILTINS, "count", lambda c, items: plain(c, items))
        expression = exists.compile_expression(game.rules, "test/calls", ir, frozenset())
    before = game.work
    try:
        value = expression(Ctx(game, {}, game.players[0], None))
    except Exception as error:  # noqa: BLE001 -- compared as it is raised
        value = (type(error), str(error))
    return value, before - game.work


def test_count_of_own_is_one_call_only_of_the_built_ins_themselves():
    assert "B_count_own(c, 'forest', c.me)" in _source("stone-age", "count(own(forest, me))")
    with pytest.MonkeyPatch.context() as patch:  # a spy on `count` (tests/test_runtime_speed_g_hoisting.py) sees it
        patch.setitem(functions.BUILTINS, "count", lambda c, items: 0)
        assert "count_own" not in _source("stone-age", "count(own(forest, me))")
    assert "count_own" not in _source("stone-age", "count(forest(me))")


@pytest.mark.parametrize(
    "text",
    [
        "count(own(forest, me))",  # a place of P1's, with cards moved there below
        'count(own(hut, "P2"))',  # another player's, empty
        "count(own(civ_display, me))",  # a zone of the table: the error of `own`
        "count(own(forest, 3))",  # no player: the key `own` makes of it
        "count(own([1, 2], me))",  # no zone
        "count(own(forest, [me]))",  # an unhashable player
    ],
)
def test_count_of_own_is_what_the_two_calls_give(text):
    game = Game.new(ruleset("stone-age"), 4, 0)
    source = next(key for key, cards in game.state["zones"].items() if cards and key != "forest:P1")
    for card in list(game.state["zones"][source])[:3]:
        game.move(card, "forest:P1")
    assert _evaluated(game, text, fused=True) == _evaluated(game, text, fused=False)


def test_a_counted_row_of_a_player_skips_its_gaps_as_count_does():
    game = Game.new(ruleset("stone-age"), 4, 0)
    context = Ctx(game, {}, game.players[0], None)
    game.state["zones"]["forest:P1"] = [None, 7, None]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(game, "_slotted", game._slotted | {"forest:P1"})
        before = game.work
        assert functions.count_own(context, "forest", "P1") == 1 == functions._count(context, "forest:P1")
        assert before - game.work == 2  # charged as `count` charges it, twice


def test_can_pay_reads_the_printed_cost_uncopied():
    text = "hand(me) where can_pay(item.cost, hand(me), [spoils, spoils_joker])"
    source = _source("cro-magnon", text)
    assert "T_cost[_i0]" in source and "list(T_cost" not in source
    assert "list(T_cost[_i0])" in _source("cro-magnon", "map(hand(me), item.cost)")  # a value kept: a copy
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 2, 0)
    context = Ctx(game, {}, game.players[0], None)
    for cost in (("wood",), ("spoils", "spoils"), ("spoils", "spoils", "spoils", "wood")):
        ready = functions._can_pay_ready(context, f"hand:{game.players[0]}", ["spoils", 3])
        before = game.work
        as_list = functions._can_pay_with(context, list(cost), ready)
        charged = before - game.work
        assert functions._can_pay_with(context, cost, ready) == as_list  # the tuple itself, as a list
        assert before - game.work == 2 * charged
    table = functions.static_field_table(rules, "cost")
    assert table is not None and table[1] and all(type(cost) is tuple for cost in table[0])  # never changed
