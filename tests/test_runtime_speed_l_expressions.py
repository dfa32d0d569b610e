"""Compiled expressions with fewer calls (issue 16): comparisons of two whole numbers at once (the helpers `_lt`... and
`_eq` for anything else, each side worked out once), `flagged`, `tag =` and `me.COUNTER` read from the state without a
call, `_each`/`_add`/`_index`/`copies`/`room`/`lines_between` without the calls they made. Each answers, charges its
work and fails as before; whole games are checked by tools/same_games.py."""

from __future__ import annotations

import functools
import itertools

import pytest
from scenario import ruleset

from engine import dsl
from engine.runtime import codegen, exists, functions, places
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game

VALUES = [0, 3, -2, True, False, None, "wood", [1, 2], [1, [2, 3]]]


def _compiled(text: str, names=(), pack: str = "cro-magnon"):
    """The expression `text` compiled as the runtime compiles it, `names` bound earlier (read from the frame's locals)."""
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    return exists.compile_expression(ruleset(pack), "test/speed_l", ir, frozenset(names))


def _outcome(run):
    """What running `run()` gives: its value, or the code of its content error, or the kind of its Python error."""
    try:
        return ("value", run())
    except ContentError as exc:
        return ("content error", exc.code)
    except Exception as exc:  # noqa: BLE001 -- any other error, compared by kind
        return ("error", type(exc))


def _context(pack: str = "cro-magnon", env=None, me=None) -> Ctx:
    game = Game.new(ruleset(pack), 2, 0)
    return Ctx(game, dict(env or {}), game.players[0] if me is None else me, None)


@pytest.mark.parametrize("op", ["<", "<=", ">", ">="])
def test_ordered_comparisons_answer_and_fail_as_the_helpers(op):
    """Two values of every kind, each side a name bound earlier, a number written out or a count: the helper's answer
    (`none` has no order, a yes/no is 0 or 1) or its error."""
    helper = getattr(codegen, codegen._ORDERED[op])
    shapes = {
        f"a {op} b": lambda x, y: helper(x, y),
        f"a {op} 2": lambda x, y: helper(x, 2),
        f"2 {op} b": lambda x, y: helper(2, y),
        f"count(numbers(1, 2)) {op} b": lambda x, y: helper(2, y),
        f"a {op} count(numbers(1, 2))": lambda x, y: helper(x, 2),
        f"count(numbers(1, 2)) {op} 1": lambda x, y: helper(2, 1),
    }
    for text, oracle in shapes.items():
        expression = _compiled(text, ("a", "b"))
        for x, y in itertools.product(VALUES, VALUES):
            context = _context(env={"a": x, "b": y})
            got = _outcome(functools.partial(expression, context))
            assert got == _outcome(functools.partial(oracle, x, y)), (text, x, y)


@pytest.mark.parametrize("op", ["==", "!="])
def test_equality_answers_and_charges_as_the_helper(op):
    """Two lists pay for their comparison (`_eq`); anything else is compared at once, at no cost. The sides are worked
    out by the same helpers in the model (`[a][1]`: `_built`, then `_index`)."""
    word = "=" if op == "==" else "!="

    def place(g, x):
        return codegen._index(g, codegen._built(g, [x], "test", 0), 1)

    shapes = {
        f"a {word} b": lambda g, x, y: (x, y),
        f"[a][1] {word} b": lambda g, x, y: (place(g, x), y),
        f"a {word} [b][1]": lambda g, x, y: (x, place(g, y)),
        f"count(numbers(1, 2)) {word} b": lambda g, x, y: (_counted(g), y),
    }
    for text, sides in shapes.items():
        expression = _compiled(text, ("a", "b"))
        for x, y in itertools.product(VALUES, VALUES):
            context, model = _context(env={"a": x, "b": y}), _context()
            assert context.g.work == model.g.work
            equal = codegen._eq(model.g, *sides(model.g, x, y))
            assert expression(context) == (equal if op == "==" else not equal), (text, x, y)
            assert context.g.work == model.g.work, (text, x, y)


def _counted(g) -> int:
    """`count(numbers(1, 2))` worked out by the built-ins, as the compiled expression works it out."""
    context = Ctx(g, {}, None, None)
    return functions._count(context, functions._numbers(context, 1, 2))


def test_comparisons_inside_a_loops_items_and_a_kept_filter_compile_and_answer():
    """Python refuses `:=` in a comprehension's first iterable (the items of a `where` inside another's source, the
    filter a cache keeps): there the helpers compare, with the same answers."""
    expression = _compiled("count((numbers(1, 5) where item > a) where item < b)", ("a", "b"))
    assert expression(_context(env={"a": 1, "b": 4})) == 2
    context = _context()
    game = context.g
    expression = _compiled("weapons_row where count(weapons_deck) > item + a", ("a",))
    for shift in (0, 1, 50):
        context.env = {"a": shift}
        deck = len(game.state["zones"]["weapons_deck"])
        wanted = [x for x in game.items_read("weapons_row") if deck > x + shift]
        assert expression(context) == wanted


def test_flags_read_without_a_call_answer_as_the_built_in():
    """A player's flag (`me`'s, or a named player's) and a table's flag: set, unset, a value that is not a yes/no."""
    rules = ruleset("neolithibum")
    context = _context("neolithibum", env={"p": None})
    game = context.g
    other = game.players[1]
    mine = _compiled("flagged(collapsed)", pack="neolithibum")
    named = _compiled("flagged(collapsed, p)", ("p",), pack="neolithibum")
    for flags in ({}, {other: {}}, {other: {"collapsed": True}}, {game.players[0]: {"collapsed": 2}}):
        game.state["flags"] = flags
        for player in (None, other, game.players[0]):
            context.env["p"] = player
            assert named(context) is functions._flagged(context, "collapsed", player)
        assert mine(context) is functions._flagged(context, "collapsed")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rules, "table_flags", frozenset({"collapsed"}))
        table = _compiled("flagged(collapsed)", pack="neolithibum")
        assert "'table'" in _source(rules, "flagged(collapsed)")
        for flags in ({}, {"table": {"collapsed": 1}}, {game.players[0]: {"collapsed": True}}):
            game.state["flags"] = flags
            assert table(context) is functions._flagged(context, "collapsed")


def _source(rules, text: str, names=frozenset()) -> str:
    ir, _ = dsl.parse(text, dsl.EXPRESSION)
    return exists.ExistsCompiler(rules, "test/speed_l", names).src(ir)


def test_tags_read_from_the_packs_table_answer_as_the_table():
    """`where tag = T` of card numbers reads the printed tags; any other item (a card id) asks the table, as before."""
    context = _context()
    game = context.g
    count = len(game.rules.instances)
    for test in ("tag = weapons", "tag != weapons"):
        expression = _compiled(f"numbers(0, {count - 1}) where {test}")
        has = [n for n in range(count) if ("weapons" in game.tags_of(n)) == (test == "tag = weapons")]
        assert expression(context) == has
    card_id = next(i for i, card in game.rules.cards.items() if "weapons" in (card.get("tags") or ()))
    assert _compiled(f"[{card_id}, basket] where tag = weapons")(context) == [card_id]
    with pytest.raises(ContentError):  # no card of that number: the table says so, as before
        _compiled(f"[{count}] where tag = weapons")(context)


def test_my_counter_read_without_a_call_answers_as_the_table():
    context = _context()
    game = context.g
    expression = _compiled("me.vp")
    game.set_counter(game.players[0], "vp", 7)
    for me in (*game.players, "table", None, "nobody", 3):
        context.me = me
        expected = functions.field_getter("vp")(game, me)
        assert _outcome(lambda: expression(context)) == ("value", expected), me


def test_each_and_add_read_lists_and_zones_and_charge_as_items_read():
    """A list without gaps and a zone without places are read without Table.items_read; what they give and charge is
    the same, gaps and a row's empty places left out."""
    game = _context().g
    row = "weapons_row"
    game.state["zones"][row][1] = None  # an empty place of the row
    sources = [[1, 2, 3], [1, None, 3], [], "hand:P1", row, "weapons_deck", None, 5]
    for source in sources:
        before = game.work
        assert codegen._each(game, source, 3, "test", 0) == game.items_read(source)
        assert before - game.work == 3 * len(game.items_read(source))
    for a, b in itertools.product(sources, sources):
        before = game.work
        model = [*game.items_read(a), *game.items_read(b)] if not (type(a) is int and type(b) is int) else None
        if a is None or b is None or type(a) is int and type(b) is int:
            continue  # numbers: added as numbers
        assert codegen._add(game, a, b) == model
        assert before - game.work == len(model)


def test_index_reads_a_place_and_charges_the_list():
    game = _context().g
    items = [5, None, 7]
    for place, expected in ((True, 5), (1, 5), (2, None), (3, 7), (0, None), (4, None), (-1, None), ("1", None)):
        before = game.work
        assert codegen._index(game, items, place) == expected
        assert before - game.work == 3


def test_copies_and_room_answer_and_charge_as_before():
    context = _context()
    game = context.g
    for card in game.state["zones"]["forest"][:3]:
        game.move(card, "hand:P1")
    game.state["zones"]["weapons_row"][0] = None
    hand = game.state["zones"]["hand:P1"]
    for zone in [*game.state["zones"], [0, 1, 2]]:
        for card in (0, hand[0], hand[2], "axe", None):
            before = game.work
            read = game.items_read(zone)
            wanted = game.rules.instances[card] if isinstance(card, int) else None
            expected = sum(1 for x in read if game.rules.instances[x] == wanted) if wanted is not None else 0
            assert functions._copies(context, card, zone) == expected
            assert before - game.work == (len(read) if wanted is not None else 0)
    for zone in [*game.state["zones"], *game.rules.zones, "nowhere", ["hand"]]:
        model = _outcome(lambda zone=zone: places.room(game, game.zone_key(zone, context.me)))
        assert _outcome(lambda zone=zone: functions._room(context, zone)) == model, zone


def test_lines_between_counts_lines_in_any_order_as_before():
    """Lines between two players' counters, found by halving a sorted copy of the lines kept under the lines themselves:
    lines out of order, repeated, changed during the game; lines that are not whole numbers are read as before."""
    context = _context()
    game = context.g
    p1, p2 = game.players
    for lines in ([6, 12, 18, 24], [18, 6, 12, 6], [], [5], [3, 9]):
        game.params["track_lines"] = lines
        for a, b in itertools.product(range(0, 27, 3), range(0, 27, 4)):
            game.state["counters"][p1]["vp"], game.state["counters"][p2]["vp"] = a, b
            assert functions._lines_between(context, "vp", p1, p2) == sum(1 for line in lines if a < line <= b)
    game.state["counters"][p1]["vp"], game.state["counters"][p2]["vp"] = 1, 20
    for lines in ([6, None], [6, [12]], [6, "x"]):
        game.params["track_lines"] = lines
        with pytest.raises(TypeError):
            functions._lines_between(context, "vp", p1, p2)
    game.params["track_lines"] = [6, True, 12]  # a yes/no among them: compared as before (True is 1)
    assert functions._lines_between(context, "vp", p1, p2) == 2
