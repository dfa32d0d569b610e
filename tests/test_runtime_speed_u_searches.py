"""Searches of a list compiled to one call (issue 16): `first(numbers(LOW, HIGH) where LIST[item] = VALUE)` (the place
of a value in a list) to `_position`, `count(SOURCE where item = VALUE)` to `_matches` and, asked "is there one?", to
`_holds`: no Python step per item. Besides, `a + b` / `a - b` of two whole numbers without the helper's call, `room`
of a place without places.room's call and `me.COUNTER` read by who keeps the counter. Each is compared with the code without it (the rewrite turned off, or the old code kept
here as an oracle): the same answers, errors and work; whole games are checked by tools/same_games.py."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scenario import fresh_ruleset, ruleset

from engine import dsl
from engine.runtime import ahead, codegen, exists, functions, places
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game

NAMES = ("lo", "hi", "xs", "x")  # a function's parameters: Python variables of the compiled expression


def _compiled(text: str, pack: str = "cro-magnon", fast: bool = True):
    """`text` compiled as a pack function's body is (`NAMES` its parameters), with the searches made one call or not."""
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    compiler = exists.ExistsCompiler(ruleset(pack), "test/speed_u", frozenset(), {n: f"v_{n}" for n in NAMES})
    with pytest.MonkeyPatch.context() as patch:
        if not fast:
            patch.setattr(codegen.ExpressionCompiler, "_position_search", lambda self, args: None)
            patch.setattr(codegen.ExpressionCompiler, "membership", lambda self, node: None)
        return compiler.compile(ir)


def _run(expression, game: Game, work: int, **values):
    """(the value or the error's code or kind, the work charged): `values` bound to the parameters."""
    expression.__globals__.update({f"v_{name}": value for name, value in values.items()})
    game.work = work
    try:
        answer = ("value", expression(Ctx(game, {}, game.players[0], None)))
    except ContentError as exc:
        return ("content error", exc.code), None  # the work left after an error is never read
    except Exception as exc:  # noqa: BLE001 -- any other error, compared by kind
        return ("error", type(exc)), None
    return answer, work - game.work


SEARCHES = [
    "first(numbers(lo, hi) where xs[item] = x)",
    "first(numbers(lo, hi) where x = xs[item])",
    "first(numbers(1, hi) where xs[card] = x)",
    "1 + first(numbers(lo, 4) where xs[item] = x)",
    "count(xs where item = x)",
    "count(xs where x = item) > 0",
    "count(xs where item = x) = 0",
    "empty(xs where item = x)",
    "count(numbers(lo, hi) where item = x)",
]
ITEMS = st.one_of(
    st.integers(-2, 6), st.none(), st.sampled_from(["wood", "stone"]), st.lists(st.integers(0, 2), max_size=2)
)
LISTS = st.one_of(st.lists(ITEMS, max_size=7), st.sampled_from(["hand:P1", "deck", None, 3, "no_such_zone"]))


@settings(max_examples=300, deadline=None)
@example(text=SEARCHES[0], low=0, high=0, items=[], value=None, work=10_000)  # a number past the list reads `none`
@example(text=SEARCHES[0], low=-1, high=3, items=[None, 2], value=None, work=10_000)
@example(text=SEARCHES[0], low=1, high=3, items=[[1], [0, 1]], value=[0, 1], work=10_000)  # two lists pay
@example(text=SEARCHES[4], low=1, high=3, items=[[1], [0, 1], [0, 1]], value=[0, 1], work=10_000)
@example(text=SEARCHES[5], low=1, high=3, items=[[1], [0, 1], [0, 1]], value=[0, 1], work=10_000)
@given(
    text=st.sampled_from(SEARCHES),
    low=st.one_of(st.integers(-3, 8), st.just(None), st.just(True)),
    high=st.one_of(st.integers(-3, 9), st.just(2_000)),
    items=LISTS,
    value=ITEMS,
    work=st.one_of(st.just(10_000), st.integers(0, 40)),
)
def test_searches_answer_fail_and_charge_as_before(text, low, high, items, value, work):
    """Every shape of the searches, with bounds of every kind (none, a yes/no, too far apart), lists with gaps, lists
    in them, zones and values that are no list, and little work left: the same as without the rewrite."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    values = {"lo": low, "hi": high, "xs": items, "x": value}
    fast = _run(_compiled(text), game, work, **values)
    assert fast == _run(_compiled(text, fast=False), game, work, **values), (text, values)


@pytest.mark.parametrize("text", SEARCHES)
def test_searches_of_small_lists_answer_and_charge_as_before(text):
    """Every search of a grid of small lists, values and bounds: the same answers and work as without the rewrite."""
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    fast, slow = _compiled(text), _compiled(text, fast=False)
    lists = [[], [2], [2, 3, 2], [None, 2, None], [[0, 1], 2, [0, 1]], ["wood", 2, True], "hand:P1", None]
    for items in lists:
        for value in [2, 1, True, None, "wood", [0, 1], [], 0]:
            for low, high in [(1, 3), (0, 4), (-2, 1), (2, 2), (3, 1)]:
                values = {"lo": low, "hi": high, "xs": items, "x": value}
                assert _run(fast, game, 10_000, **values) == _run(slow, game, 10_000, **values), values


@pytest.mark.parametrize(
    ("text", "helper"),
    [
        ("first(numbers(lo, hi) where xs[item] = x)", "_position"),
        ("count(xs where item = x)", "_matches"),
        ("count(xs where item = x) > 0", "_holds"),
    ],
)
def test_a_search_is_one_call(text, helper):
    """The rewrite happens: the expression calls its helper, and no `_index` or `where` comprehension per item."""
    names = _compiled(text).__code__.co_names
    assert helper in names
    assert "_index" not in names
    assert not any(const for const in _compiled(text).__code__.co_consts if hasattr(const, "co_name"))


def test_a_search_reading_a_value_that_may_fail_is_left_as_it_was():
    """A VALUE that may fail or cost (a name bound earlier, a count) is worked out per item as before: no rewrite."""
    ir, _ = dsl.parse("first(numbers(1, 3) where xs[item] = count(y))", dsl.EXPRESSION)
    compiler = exists.ExistsCompiler(ruleset("cro-magnon"), "test/speed_u", frozenset({"y"}), {"xs": "v_xs"})
    assert "_position" not in compiler.compile(ir).__code__.co_names


def test_the_packs_searches_are_one_call():
    """Stone Age's place searches (`civ_number`, `building_number`...) compile to `_position`."""
    # the pack's functions made now from their source, as Python: the installed wheel's factories have no bytecode
    with ahead.switched_off():
        rules = fresh_ruleset("stone-age-mammoth-herd")
        for name in ("civ_number", "building_number", "divisor", "worth"):
            function = codegen.direct_function(rules, name, exists.ExistsCompiler, 1)
            assert "_position" in function.__code__.co_names, name


@pytest.mark.parametrize("op", ["+", "-"])
def test_sums_and_differences_answer_as_the_helpers(op):
    """`a + b` and `a - b` of values of every kind (numbers, yes/no, none, lists, zones) and of counts: the helper's
    answer, error and work."""
    helper = codegen._add if op == "+" else codegen._sub
    values = [0, 3, -2, True, None, [1, 2], [None, 4], "hand:P1", "wood"]
    shapes = {
        f"lo {op} hi": lambda g, a, b: helper(g, a, b),
        f"lo {op} 2": lambda g, a, b: helper(g, a, 2),
        f"2 {op} hi": lambda g, a, b: helper(g, 2, b),
        f"count(xs) {op} hi": lambda g, a, b: helper(g, 2, b),
        f"count(xs) {op} count(xs)": lambda g, a, b: helper(g, 2, 2),
    }
    game = Game.new(ruleset("cro-magnon"), 2, 0)
    for text, oracle in shapes.items():
        expression = _compiled(text)
        for a in values:
            for b in values:
                got = _run(expression, game, 1_000, lo=a, hi=b, xs=[5, 6])
                before = game.work = 1_000
                try:
                    want = ("value", oracle(game, a, b)), before - game.work
                except ContentError as exc:
                    want = ("content error", exc.code), None
                except Exception as exc:  # noqa: BLE001 -- any other error, compared by kind
                    want = ("error", type(exc)), None
                if text.startswith("count"):
                    want = want if want[1] is None else (want[0], want[1] + 2 * text.count("count"))
                assert got == want, (text, a, b)


def test_a_sum_of_two_whole_numbers_calls_no_helper():
    """`count(xs) + 1` is added at once: no `_add`."""
    assert "_add" not in _compiled("count(xs) + 1").__code__.co_names
    assert "_add" in _compiled("lo + 1").__code__.co_names  # another value: the helper, when it is no number


def _old_room(c, zone):
    """functions._room before it answered a place itself: through places.room."""
    g = c.g
    if type(zone) is str:
        if zone in g.state["zones"]:
            return places.room(g, zone)
        own = g._own_keys.get(zone)
        key = own.get(c.me) if own is not None else None
        if key is not None:
            return places.room(g, key)
    return places.room(g, g.zone_key(zone, c.me))


@pytest.mark.parametrize("pack", ["stone-age-mammoth-herd", "cro-magnon", "neolithibum"])
def test_room_answers_as_before(pack):
    """`room` of every zone id and key of a pack, for every player, with figures placed: the same answers."""
    game = Game.new(ruleset(pack), 3, 1)
    rnd = random.Random(3)
    zones = list(game.state["zones"])
    for _ in range(30):  # cards moved about, places filled
        card = rnd.randrange(len(game.state["loc"]))
        target = rnd.choice(zones)
        with contextlib.suppress(ContentError):  # a move a place refuses (full): left out
            game.move(card, target)
    for me in game.players:
        context = Ctx(game, {}, me, None)
        for zone in [*zones, *game.rules.zones]:
            try:
                want = _old_room(context, zone)
            except (ContentError, LookupError, ValueError) as exc:
                with pytest.raises(type(exc)):
                    functions._room(context, zone)
                continue
            assert functions._room(context, zone) == want, (me, zone)


def test_room_of_a_place_calls_no_helper(monkeypatch):
    """A place with a capacity (Stone Age's hut, a player's key of it) is answered without places.room."""
    game = Game.new(ruleset("stone-age-mammoth-herd"), 2, 0)
    calls = []
    monkeypatch.setattr(functions, "room", lambda g, key: calls.append(key) or places.room(g, key))
    assert functions._room(Ctx(game, {}, game.players[0], None), "hut") == 2
    assert calls == []


def _old_counter_read(g, me, name):
    """`me.NAME` as codegen compiled it before: the counter of a holder of `g.counters_of`, else the field getter."""
    if type(me) is str and me in g.counters_of:
        return g.counter(me, name)
    return functions.field_getter(name)(g, me)


@pytest.mark.parametrize(("pack", "text"), [("cro-magnon", "me.vp"), ("stone-age-mammoth-herd", "me.mammoth_area")])
def test_me_counter_reads_as_before(pack, text):
    """`me.X` of a player's counter and of the table's, for every holder a context may name: a player, the table, a
    card's id, a card number, nothing, a list, a player whose counters were taken away. The same values as before."""
    rules = ruleset(pack)
    name = text.split(".")[1]
    ir, _ = dsl.parse(text, dsl.EXPRESSION)
    expression = exists.compile_expression(rules, "test/me", ir, frozenset())
    game = Game.new(rules, 3, 2)
    kept_by = "table" if rules.counters[name].get("owner") != "player" else game.players[1]
    game.set_counter(kept_by, name, 3)
    for me in [*game.players, "table", next(iter(rules.cards)), 0, 5, None, [1], "nobody"]:
        assert expression(Ctx(game, {}, me, None)) == _old_counter_read(game, me, name), me
    del game.state["counters"][game.players[1]]
    assert expression(Ctx(game, {}, game.players[1], None)) == _old_counter_read(game, game.players[1], name)


@pytest.mark.parametrize(("pack", "text"), [("cro-magnon", "me.vp"), ("stone-age-mammoth-herd", "me.mammoth_area")])
def test_me_counter_of_a_player_or_the_table_calls_no_getter(pack, text, monkeypatch):
    """A player's counter is read from the player's own counters, a table counter from the table's: no Table.counter."""
    ir, _ = dsl.parse(text, dsl.EXPRESSION)
    expression = exists.compile_expression(ruleset(pack), "test/me", ir, frozenset())
    game = Game.new(ruleset(pack), 2, 0)
    calls = []
    monkeypatch.setattr(game, "counter", lambda *args: calls.append(args))
    expression(Ctx(game, {}, game.players[0], None))
    assert calls == []
