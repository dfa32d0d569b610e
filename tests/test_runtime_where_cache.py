"""The `where` cache (codegen.where_parts, _cached_where): a filter's first conjuncts that provably read only the
table's zones, everyone's zones and printed fields are kept under those zones' contents. Whatever changes a zone
(a move, a shuffle, a save and load, another player's zone), the answer is the one worked out afresh; what cannot be
proved is never kept; whole games are the same with and without it."""

from __future__ import annotations

import random

import pytest
from scenario import ROOT, ruleset, saved_and_loaded

from engine import dsl
from engine.runtime import codegen
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

KEPT = "(weapons_row + dwelling_row + [top(weapons_deck)]) where requires_met(card, tableau)"


def _compiled(rules, text, cached: bool):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    with pytest.MonkeyPatch.context() as patch:
        if not cached:
            patch.setattr(codegen, "_calls", lambda node: False)  # nothing is worth keeping: nothing kept
        return codegen.compile_expression(rules, "test/where", ir, frozenset())


def _both(rules, game):
    """(kept answer, fresh answer) of KEPT in `game`."""
    context = Ctx(game, {}, game.players[0], None)
    return _compiled(rules, KEPT, True)(context), _compiled(rules, KEPT, False)(context)


def test_the_kept_answer_follows_every_kind_of_zone_change():
    """A move out of a row, onto a deck's top, into another player's tableau, a shuffle of a row, a save and load:
    each time the kept answer is the fresh one, and it did change (the test can fail)."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 3, 0)
    cache = rules.__dict__.setdefault("_where_cache", {})
    cache.clear()
    kept = _compiled(rules, KEPT, True)
    fresh = _compiled(rules, KEPT, False)
    answers = []

    def check():
        context = Ctx(game, {}, game.players[0], None)
        answer = kept(context)
        assert answer == fresh(context)
        assert kept(context) == answer  # read back from the cache
        answers.append(answer)

    zones = game.state["zones"]
    check()
    assert len(cache) == 1
    game.move(zones["weapons_row"][0], "box")  # a card leaves a row
    check()
    game.move(zones["dwelling_deck"][-1], "weapons_deck")  # a new top card of a deck
    check()
    row = zones["dwelling_row"]
    row.reverse()  # the same cards in another order (as a shuffle leaves them)
    check()
    needing = next(
        n
        for n, def_id in enumerate(rules.instances)
        if rules.cards[def_id].get("requires") and game.state["loc"][n] != "weapons_row"
    )
    game.move(needing, "weapons_row")  # a technology whose prerequisites nobody has mastered
    check()
    assert needing not in answers[-1]
    for need in rules.cards[rules.instances[needing]]["requires"]:
        card = next(n for n, def_id in enumerate(rules.instances) if def_id == need)
        game.move(card, f"tableau:{game.players[1]}")  # another player masters its prerequisites
    check()
    assert needing in answers[-1]
    game = saved_and_loaded(game)
    zones = game.state["zones"]
    check()
    assert len({tuple(a) for a in answers}) >= 4  # the answers did change
    assert len(cache) >= 4


def test_a_filter_reading_anything_else_is_not_kept():
    """A counter, who is acting, a player's zone by a bare name, a card counter: not provably the zones' contents."""
    rules = ruleset("cro-magnon")
    for text in (
        "weapons_row where count(hand) > 0 and requires_met(card, tableau)",  # only a first part is kept
        "weapons_row where requires_met(card, hand(me))",
        "weapons_row where count(tableau(me)) > 0",
    ):
        ir, _ = dsl.parse(text, dsl.EXPRESSION)
        compiler = codegen.ExpressionCompiler(rules, "test/where", frozenset())
        assert "_cached_where" not in compiler.src(ir), text
    ir, _ = dsl.parse(KEPT, dsl.EXPRESSION)
    assert "_cached_where" in codegen.ExpressionCompiler(rules, "test/where", frozenset()).src(ir)
    ir, _ = dsl.parse("weapons_row where requires_met(card, tableau) and count(hand) > 0", dsl.EXPRESSION)
    kept, rest = codegen.ExpressionCompiler(rules, "test/where", frozenset()).src(ir).rsplit("'test/where', 0) if", 1)
    assert "_cached_where" in kept and "'hand'" not in kept and "'hand'" in rest
    assert codegen._zone_reads(rules, ["name", 0, "me"], True, frozenset()) is None
    assert codegen._zone_reads(rules, ["name", 0, "hand"], True, frozenset()) is None  # whose hand?
    ir, _ = dsl.parse("count(tableau) > 0", dsl.EXPRESSION)
    assert codegen._zone_reads(rules, ir, True, frozenset({"tableau"})) is None  # a name bound earlier


@pytest.mark.parametrize("pack,players,seed", [("cro-magnon", 4, 5), ("cro-magnon", 2, 1), ("stone-age", 3, 2)])
def test_whole_games_are_the_same_with_and_without_the_cache(pack, players, seed):
    """A seeded random game played with the cache and with nothing kept: the same answers, the same final state."""
    ends = []
    for cached in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            if not cached:
                patch.setattr(codegen, "_calls", lambda node: False)
            rules = load(ROOT / "content" / pack)
            game = Game.new(rules, players, seed)
            play_randomly(game, random.Random(seed))
        ends.append((game.history, game.state_hash()))
    assert ends[0] == ends[1]
