"""Cro-Magnon's turn menu with fewer calls (issue 16): "has it an item?" of two `where`s a menu asks of every card in
sight and every opponent is one call of a loop in functions.py, compared here with the code it replaces (the rewrite
turned off): the same answers, errors and work, running out of work at the same point; whole games are checked by
tools/same_games.py and played side by side below.
- `count(CARDS where can_pay(item.FIELD, ZONE, JOKER)) > 0` (functions.some_payable), the cards' costs split once per
  list of cards (a cached `where` gives the same list again and again) and their work charged at once when it fits;
- `count(PLAYERS where lines_between(COUNTER, LOW, item) > 0) > 0` (functions.some_line_above)."""

from __future__ import annotations

import contextlib
import random
from types import SimpleNamespace

import pytest
from lockstep import play_side_by_side
from scenario import fresh_ruleset, ruleset

from engine import dsl
from engine.runtime import ahead, codegen, costs, exists, functions
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game

PACK = "cro-magnon"
NAMES = ("cards", "p", "low", "j")  # a function's parameters: Python variables of the compiled expression

FUSED = [
    ("count(cards where can_pay(card.cost, hand(p), [spoils, 3])) > 0", "some_payable"),
    ("count(cards where can_pay(item.cost, hand(p), j)) >= 1", "some_payable"),
    ("count(cards where can_pay(card.cost, hand(p))) = 0", "some_payable"),
    ("empty(cards where can_pay(card.cost, tableau(p), [spoils, 2]))", "some_payable"),
    ("count(visible_technologies() where can_pay(card.cost, hand(p), [spoils, 3])) > 0", "some_payable"),
    ("count(weapons_row where requires_met(card, tableau) and can_pay(card.cost, hand(p), j)) > 0", "some_payable"),
    ("count(opponents where lines_between(vp, me, item) > 0) > 0", "some_line_above"),
    ("count(cards where lines_between(vp, low, item) >= 1) = 0", "some_line_above"),
    ("count(players where lines_between(vp, p, item) != 0) > 0", "some_line_above"),
]
NOT_FUSED = [
    "count(cards where can_pay(card.cost, hand(item), j)) > 0",  # the zone read per item
    "count(cards where can_pay(card.cost, hand(p), j) and card.vp > 1) > 0",  # another test after it
    "count(cards where requires_met(card, tableau) and can_pay(card.cost, hand(p), j)) > 0",  # before it, not cached
    "count(cards where can_pay(card.cost, hand(p), j)) > 1",  # not "has it an item?"
    "count(cards where lines_between(vp, low, item) > 1) > 0",  # another number
    "count(cards where lines_between(vp, item, low) > 0) > 0",  # the item the low end
    "count(cards where lines_between(vp, card.vp, item) > 0) > 0",  # the low end read per item
    "count(players where lines_between(vp, first(cards), item) > 0) > 0",  # the low end may fail: not read first
]


def _compiled(text: str, fused: bool = True):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    compiler = exists.ExistsCompiler(ruleset(PACK), "test/speed_zu", frozenset(), {n: f"v_{n}" for n in NAMES})
    with pytest.MonkeyPatch.context() as patch:
        if not fused:
            patch.setattr(codegen.ExpressionCompiler, "_fused_exists", lambda self, *args: None)
        return compiler.compile(ir)


def _outcome(call, game: Game, work: int):
    """(the value or the error: its type, code, text and place; the work left). The memo of what zones hold starts
    empty, as after a move (a tally that failed half way stays in it, half made, for the next ask)."""
    game.work = work
    game.held_memo.clear()
    try:
        value = ("value", call())
    except ContentError as exc:
        value = ("content error", exc.code, exc.message, exc.code_key, exc.offset)
    except Exception as exc:  # noqa: BLE001 -- any other error, compared by kind and text
        value = ("error", type(exc), str(exc))
    return value, game.work


def _game(seed: int) -> Game:
    """A 4-player game with cards dealt about at random: hands, tableaux and rows of all sorts, VP apart."""
    game = Game.new(ruleset(PACK), 4, seed)
    rnd = random.Random(seed)
    zones = [zone for zone in game.state["zones"] if zone.startswith(("hand:", "tableau:", "weapons_row"))]
    for _ in range(60):
        with contextlib.suppress(ContentError):
            game.move(rnd.randrange(len(game.state["loc"])), rnd.choice(zones))
    for i, player in enumerate(game.players):
        game.set_counter(player, "vp", rnd.choice([0, 2, 5, 9, 14, 30]) + i)
    return game


@pytest.mark.parametrize(("text", "helper"), FUSED)
def test_the_patterns_are_one_call(text, helper):
    """Fails without the rewrite: one call of the helper, no call of the built-in per item."""
    names = _compiled(text).__code__.co_names
    assert f"B_{helper}" in names
    assert not {"W_can_pay", "B_can_pay", "B_lines_between"} & set(names)


@pytest.mark.parametrize("text", NOT_FUSED)
def test_other_tests_are_left_as_they_were(text):
    assert not {"B_some_payable", "B_some_line_above"} & set(_compiled(text).__code__.co_names)


def test_the_packs_menu_asks_one_call():
    """Cro-Magnon's "can I master a technology?" and "is an opponent above a line?" are one call each."""
    # the pack's functions made now from their source, as Python: the installed wheel's factories have no bytecode
    with ahead.switched_off():
        rules = fresh_ruleset(PACK)
        names = codegen.direct_function(rules, "affordable_technologies", exists.ExistsCompiler, 1, exists=True)
        assert "B_some_payable" in names.__code__.co_names and "W_can_pay" not in names.__code__.co_names
        text = rules.actions["additional_exploration"]["available"]
        assert "B_some_line_above" in exists.compile_condition(rules, "test", text).__code__.co_names


@pytest.mark.parametrize("text", [text for text, _ in FUSED] + NOT_FUSED)
@pytest.mark.parametrize("seed", [0, 3])
def test_the_compiled_patterns_answer_as_before(text, seed):
    """Each text, fused and not, over lists of cards (a list changed between asks: the costs split for it are not read
    again; cards that are none, ids, players, lists), players, jokers and low ends of all sorts, with work enough and
    little (every point where it runs out): the same answer, error and work left, asked twice (the second time from
    the costs split)."""
    game = _game(seed)
    fast, slow = _compiled(text), _compiled(text, fused=False)
    technologies = [card for card, def_id in enumerate(game.rules.instances) if "cost" in game.rules.cards[def_id]]
    changing = technologies[seed : seed + 6]
    card_lists = [
        technologies[:12],
        changing,
        [],
        [technologies[5], None, technologies[7]],
        [technologies[2], "spear", technologies[3]],
        [technologies[1], game.players[0], 10_000],
        [technologies[4], ["spear"]],
        "weapons_row",
        game.players,
    ]
    players = [*game.players, None, "table", "nobody", 3]
    jokers = [["spoils", 3], None, "spoils", ["spoils", 0], [["spoils"], 3], [technologies[0], 1]]
    for cards in card_lists:
        for p, low, j in zip(players, [*game.players[::-1], 7, None], jokers * 2, strict=False):
            values = {"v_cards": cards, "v_p": p, "v_low": low, "v_j": j}
            for work in (10_000, 0, 1, 2, 3, 5, 8, 13, 21, 34):
                results = []
                for function in (fast, slow, fast):
                    function.__globals__.update(values)
                    context = Ctx(game, {}, p, None)
                    results.append(_outcome(lambda: function(context), game, work))  # noqa: B023 -- called at once
                assert results[0] == results[1] == results[2], (text, values, work)
        if cards is changing:  # the same list with other cards: the costs split for the old ones are not read
            changing.reverse()
            changing.append(technologies[-1])


@contextlib.contextmanager
def _as_before():
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codegen.ExpressionCompiler, "_fused_exists", lambda self, *args: None)
        yield


@pytest.mark.parametrize("seed", [1, 4])
def test_games_play_as_before(seed):
    """A 4-player game played with the menu's loops and without them, answer for answer: the same states, logs and
    work left."""
    with _as_before():
        rules_before = ruleset(PACK)
        for name, arity in [("affordable_technologies", 1), ("foundable_sites", 1)]:
            codegen.direct_function(rules_before, name, exists.ExistsCompiler, arity, exists=True)
    rules = ruleset(PACK)
    kinds = play_side_by_side(rules, 4, seed, _as_before, rules_before=rules_before)
    assert kinds["action"] > 50


def test_a_list_of_cards_changed_is_not_read_from_its_old_costs():
    """Fails if `some_payable` reads the costs split for a list that now holds other cards (the same list, changed in
    place: a zone's own list), or charges other work than card by card."""
    table = [("wood", "flint"), ("stone", "stone"), ("wood", "wood", "stone")]
    ready = ({"wood": 1, "flint": 1, "stone": 1}, None, 0, False, costs.split_table(None))

    def ask(cards, work=100):
        context = SimpleNamespace(g=SimpleNamespace(work=work))
        answer = functions.some_payable(context, cards, table, len(table), None, lambda: ready)
        return answer, context.g.work

    cards = [1, 2]
    assert ask(cards) == (False, 95) and ask(cards) == (False, 95)  # the second from the costs split
    cards[1] = 0
    assert ask(cards) == (True, 96) and ask(cards) == (True, 96)
    cards.reverse()
    assert ask(cards) == (True, 98)
    with pytest.raises(ContentError, match="ran out of work"):
        ask([1, 2, 0], work=4)
