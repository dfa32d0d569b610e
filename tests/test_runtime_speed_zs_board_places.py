"""Stone Age's menus with fewer calls (issue 16): a board game asks the same built-ins of every place and player again
and again. Each fast path is compared with the code it replaces (an oracle copy of the old code here, or the rewrite
turned off): the same answers, errors and work, running out of work at the same point; whole games are checked by
tools/same_games.py.
- `room` of `me`'s zone of an id every player has (a place on the board) answered without places.room;
- `count(SOURCE where item = VALUE)` one call (`_matches` does `_each`'s work too);
- `first(numbers(LOW, HIGH) where LIST[item] = VALUE)` (`_position`) charges its three parts at once when they fit;
- `SOURCE where count(own(item, P)) > 0` (or `= 0`), and the same with the item the player, one call
  (functions.places_held, players_holding); `first(SOURCE where slot(item) = N)` one call (functions.card_in_slot);
- `weight` (compiling) calls itself for lists only."""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import fresh_ruleset, ruleset

from engine import dsl
from engine.runtime import ahead, codegen, exists, functions, places
from engine.runtime.budget import out_of_work, spend
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game

PACK = "stone-age-mammoth-herd"


def _game(seed: int = 1, moves: int = 40, players: int = 4) -> Game:
    """A Stone Age game with cards moved about at random: figures on places, places full, cards in the display."""
    game = Game.new(ruleset(PACK), players, seed)
    rnd = random.Random(seed)
    zones = list(game.state["zones"])
    for _ in range(moves):
        with contextlib.suppress(ContentError):  # a move a place refuses (full): left out
            game.move(rnd.randrange(len(game.state["loc"])), rnd.choice(zones))
    return game


def _outcome(call, game: Game, work: int):
    """(the value or the error: its type, code, text and place, the work charged)."""
    game.work = work
    try:
        value = ("value", call())
    except ContentError as exc:
        return ("content error", exc.code, exc.message, exc.code_key, exc.offset), None
    except Exception as exc:  # noqa: BLE001 -- any other error, compared by kind and text
        return ("error", type(exc), str(exc)), None
    return value, work - game.work


# ---------------------------------------------------------------- room
def _old_room(c, zone):
    """functions._room before `me`'s zone of an id was read first (9d4b622)."""
    g = c.g
    if type(zone) is str:
        zones = g.state["zones"]
        if zone in zones:
            key = zone
        else:
            own = g._own_keys.get(zone)
            key = own.get(c.me) if own is not None else None
            if key is None:
                return places.room(g, g.zone_key(zone, c.me))
        cap = g._capacity.get(key)
        if cap is not None and key not in g._slotted:
            return max(0, cap - sum(map(len, map(zones.__getitem__, g.layout.place[key]))))
        return places.room(g, key)
    return places.room(g, g.zone_key(zone, c.me))


@pytest.mark.parametrize("pack", [PACK, "stone-age", "cro-magnon"])
def test_room_answers_as_before(pack):
    """`room` of every zone id and key and of values that are none, for every player and for `me` no player (the
    table, none, a list): the same answer or error as before, and no work."""
    game = Game.new(ruleset(pack), 3, 2)
    rnd = random.Random(5)
    zones = list(game.state["zones"])
    for _ in range(40):
        with contextlib.suppress(ContentError):
            game.move(rnd.randrange(len(game.state["loc"])), rnd.choice(zones))
    for me in [*game.players, "table", None, [game.players[0]]]:
        context = Ctx(game, {}, me, None)
        for zone in [*zones, *game.rules.zones, None, 3, ["hut"], "no_such_zone"]:
            want = _outcome(lambda: _old_room(context, zone), game, 100)  # noqa: B023 -- called at once
            assert _outcome(lambda: functions._room(context, zone), game, 100) == want, (me, zone)  # noqa: B023


def test_room_of_a_place_without_limit_calls_no_helper(monkeypatch):
    """A place without a capacity (the hunting grounds) is answered without places.room: as many as there are
    cards."""
    game = _game()
    calls = []
    monkeypatch.setattr(functions, "room", lambda g, key: calls.append(key) or places.room(g, key))
    context = Ctx(game, {}, game.players[0], None)
    assert functions._room(context, "hunting_grounds") == len(game.state["loc"])
    assert functions._room(context, "forest") == _old_room(context, "forest")
    assert calls == []


# ---------------------------------------------------------------- _matches, _position
def _old_matches(g, items, value):
    """codegen._matches before it did `_each`'s work (9d4b622): called as `_matches(g, _each(...), VALUE)`."""
    count = sum(1 for item in items if codegen._eq(g, item, value)) if type(value) is list else items.count(value)
    g.work -= count
    if g.work < 0:
        out_of_work()
    return count


def _old_position(g, low, high, items, value, weight, key, at):
    """codegen._position before it charged its parts at once (9d4b622)."""
    if high - low > functions.MAX_NUMBERS:
        raise ValueError(f"numbers({low}, {high}) would hold more than {functions.MAX_NUMBERS} numbers")
    count = high - low + 1
    if count <= 0:
        return None
    g.work -= count
    if g.work < 0:
        out_of_work()
    g.work -= count * weight
    if g.work < 0:
        out_of_work(key, at)
    if type(items) is not list:
        items = g.items_read(items)
    size = len(items)
    g.work -= count * size
    if g.work < 0:
        out_of_work()
    if value is None or type(value) is list:
        found = []
        for number in range(low, high + 1):
            listed = items[number - 1] if 0 < number <= size else None
            if type(listed) is list and type(value) is list:
                spend(g, min(codegen.expanded_size(listed), codegen.expanded_size(value)))
            if listed == value:
                found.append(number)
        matches, first = len(found), found[0] if found else None
    else:
        start, stop = max(low, 1), min(high, size)
        window = items[start - 1 : stop] if start <= stop else []
        matches = window.count(value)
        first = window.index(value) + start if matches else None
    g.work -= matches
    if g.work < 0:
        out_of_work()
    return first


ITEMS = st.one_of(
    st.integers(-2, 6),
    st.none(),
    st.booleans(),
    st.sampled_from(["hut", "forest", "civ_display"]),
    st.lists(st.integers(0, 2), max_size=2),
)
SOURCES = st.one_of(
    st.lists(ITEMS, max_size=8), st.sampled_from(["civ_display", "home:P1", "forest", "hut", None, 3, "no_such_zone"])
)
WORK = st.one_of(st.just(10_000), st.integers(0, 60))


@settings(max_examples=400, deadline=None)
@given(source=SOURCES, value=ITEMS, weight=st.integers(1, 6), work=WORK)
def test_matches_answers_fails_and_charges_as_each_then_matches(source, value, weight, work):
    """`_matches(g, SOURCE, ...)`: what `_old_matches(g, _each(g, SOURCE, ...))` gives, errors and work included."""
    game = _game(moves=10)
    want = _outcome(lambda: _old_matches(game, codegen._each(game, source, weight, "k", 7), value), game, work)
    assert _outcome(lambda: codegen._matches(game, source, weight, "k", 7, value), game, work) == want


@settings(max_examples=400, deadline=None)
@given(
    low=st.one_of(st.integers(-3, 8), st.just(True)),
    high=st.one_of(st.integers(-3, 9), st.just(True), st.just(2_000)),
    items=SOURCES,
    value=ITEMS,
    weight=st.integers(1, 6),
    work=WORK,
)
def test_position_answers_fails_and_charges_as_before(low, high, items, value, weight, work):
    """`_position` with budgets around what it charges: the same answer, the same error at the same part."""
    game = _game(moves=10)
    want = _outcome(lambda: _old_position(game, low, high, items, value, weight, "k", 7), game, work)
    assert _outcome(lambda: codegen._position(game, low, high, items, value, weight, "k", 7), game, work) == want


class _Budget:
    """A game as `_position` reads a list's search: its work alone, each charge counted."""

    def __init__(self, work: int):
        self._work, self.charges = work, 0

    @property
    def work(self) -> int:
        return self._work

    @work.setter
    def work(self, value: int) -> None:
        self._work, self.charges = value, self.charges + 1


def test_position_charges_at_once_when_the_budget_covers_it():
    """The fast path is taken: with work enough, the three parts and the matches are one charge (the old code charged
    four times), the same total."""
    budget = _Budget(1_000)
    assert codegen._position(budget, 1, 4, ["a", "b", "c", "d"], "c", 5, "k", 7) == 3
    assert (budget.work, budget.charges) == (1_000 - 4 * (1 + 5 + 4) - 1, 1)
    budget = _Budget(10)  # too little for all three: each as before, out of work at the `where`
    with pytest.raises(ContentError) as raised:
        codegen._position(budget, 1, 4, ["a", "b", "c", "d"], "c", 5, "k", 7)
    assert (raised.value.code_key, raised.value.offset, budget.charges) == ("k", 7, 2)


def _old_weight(node) -> int:
    """codegen.weight before it skipped the call for a word or number (9d4b622)."""
    if isinstance(node, (list, tuple)):
        return (1 if node and isinstance(node[0], str) else 0) + sum(_old_weight(x) for x in node)
    return 0


NODES = st.recursive(
    st.one_of(st.text(max_size=3), st.integers(-2, 9), st.none(), st.booleans()),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.lists(inner, max_size=5).map(tuple)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(node=NODES)
def test_weight_as_before(node):
    """The size of an expression, which the work charged comes from: the same for any nesting of lists and tuples."""
    assert codegen.weight(node) == _old_weight(node)


def test_weight_of_the_packs_functions_as_before():
    rules = ruleset(PACK)
    for name in rules.functions:
        body = codegen.function_body_ir(rules, name)
        assert codegen.weight(body) == _old_weight(body), name


# ---------------------------------------------------------------- places_held, players_holding, card_in_slot
PLACES = [
    "forest",
    "hut",
    "hunting_grounds",
    "civ_place_1",
    "civ_display",
    "home:P1",
    None,
    3,
    ["hut"],
    "no_such_zone",
]


@settings(max_examples=300, deadline=None)
@given(
    places=st.lists(st.sampled_from(PLACES), max_size=8),
    player=st.sampled_from(["P1", "P2", "P4", None, "table", 2]),
    held=st.booleans(),
    seed=st.integers(0, 5),
    work=WORK,
)
def test_places_held_as_count_own_of_each(places, player, held, seed, work):
    """`places_held(c, PLACES, P, held)`: the comprehension over `count_own` it replaces, for places, rows, zones of the
    table, values that are no zone and players that are none: the same list, error and work."""
    game = _game(seed)
    context = Ctx(game, {}, "P1", None)
    want = _outcome(lambda: [x for x in places if (functions.count_own(context, x, player) > 0) is held], game, work)
    assert _outcome(lambda: functions.places_held(context, places, player, held), game, work) == want


@settings(max_examples=300, deadline=None)
@given(
    players=st.lists(st.sampled_from(["P1", "P2", "P3", "P4", None, 2, ["P1"]]), max_size=6),
    zone=st.sampled_from(PLACES),
    held=st.booleans(),
    seed=st.integers(0, 5),
    work=WORK,
)
def test_players_holding_as_count_own_of_each(players, zone, held, seed, work):
    """`players_holding(c, PLAYERS, ZONE, held)`: the comprehension over `count_own` it replaces."""
    game = _game(seed)
    context = Ctx(game, {}, "P1", None)
    want = _outcome(lambda: [p for p in players if (functions.count_own(context, zone, p) > 0) is held], game, work)
    assert _outcome(lambda: functions.players_holding(context, players, zone, held), game, work) == want


@settings(max_examples=300, deadline=None)
@given(
    cards=st.lists(st.one_of(st.integers(0, 120), st.sampled_from(["hut", True, None, [1]])), max_size=6),
    number=st.one_of(st.integers(-1, 5), st.just(True), st.none()),
    seed=st.integers(0, 5),
    work=WORK,
)
def test_card_in_slot_as_first_of_slots(cards, number, seed, work):
    """`card_in_slot(c, CARDS, N)`: `first(CARDS where slot(item) = N)` as it was, `_slot` called for each card."""
    game = _game(seed)
    context = Ctx(game, {}, "P1", None)
    display = [x for x in game.state["zones"]["civ_display"] if x is not None]
    cards = [x for x in [*cards, *display] if x is not None]  # as `_each` gives them: no gaps
    want = _outcome(
        lambda: functions._first(context, [x for x in cards if functions._slot(context, x) == number]), game, work
    )
    assert _outcome(lambda: functions.card_in_slot(context, cards, number), game, work) == want


# ---------------------------------------------------------------- the compiled expressions
FUSED = [
    ("places where count(own(item, p)) > 0", "places_held"),
    ("places where count(own(item, p)) = 0", "places_held"),
    ("players where count(own(z, item)) > 0", "players_holding"),
    ("count(players where count(own(z, item)) = 0)", "players_holding"),
    ("first(places where slot(item) = n)", "card_in_slot"),
    ("first(civ_display where n = slot(card))", "card_in_slot"),
    ("count(places where item = z)", "_matches"),
]
NOT_FUSED = [
    "places where count(own(item, p)) > 1",  # another number
    "places where count(own(item, item)) > 0",  # the item both
    "places where count(own(item, k)) > 0",  # `k` bound earlier: may fail or change per item
    "first(places where slot(item) = count(k))",
    "first(places where slot(item) > n)",
]
NAMES = ("places", "p", "z", "n")  # a function's parameters: Python variables of the compiled expression


def _compiled(text: str, fused: bool = True):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    compiler = exists.ExistsCompiler(ruleset(PACK), "test/speed_zs", frozenset({"k"}), {n: f"v_{n}" for n in NAMES})
    with pytest.MonkeyPatch.context() as patch:
        if not fused:
            patch.setattr(codegen.ExpressionCompiler, "_held_where", lambda self, node: None)
            patch.setattr(codegen.ExpressionCompiler, "_slot_search", lambda self, args: None)
        return compiler.compile(ir)


@pytest.mark.parametrize(("text", "helper"), FUSED)
def test_the_patterns_are_one_call(text, helper):
    """The rewrite happens: one call of the helper, no comprehension per item."""
    function = _compiled(text)
    assert f"B_{helper}" in function.__code__.co_names or helper in function.__code__.co_names
    assert not any(hasattr(const, "co_name") for const in function.__code__.co_consts)


@pytest.mark.parametrize("text", NOT_FUSED)
def test_other_tests_are_left_as_they_were(text):
    names = _compiled(text).__code__.co_names
    assert not {"B_places_held", "B_players_holding", "B_card_in_slot"} & set(names)


def test_the_packs_menus_are_one_call():
    """Stone Age's places a player stands on, players on a place and the card of a display place are one call each."""
    # the pack's functions made now from their source, as Python: the installed wheel's factories have no bytecode
    with ahead.switched_off():
        rules = fresh_ruleset(PACK)
        for name, helper in [
            ("occupied_places", "B_places_held"),
            ("players_on", "B_players_holding"),
            ("civ_card_at", "B_card_in_slot"),
            ("need", "_matches"),
        ]:
            names = codegen.direct_function(rules, name, exists.ExistsCompiler, 1).__code__.co_names
            assert helper in names, name
            assert "B_count_own" not in names and "B_slot" not in names, name
        assert "_each" not in codegen.direct_function(rules, "need", exists.ExistsCompiler, 1).__code__.co_names


@pytest.mark.parametrize("text", [text for text, _ in FUSED] + NOT_FUSED)
@pytest.mark.parametrize("seed", [0, 3])
def test_the_compiled_patterns_answer_as_before(text, seed):
    """Each text, fused and not, over places, players, numbers and values that are none or no zone, in a game with
    cards moved about, with work enough and little: the same answer, error and work."""
    game = _game(seed)
    fast, slow = _compiled(text), _compiled(text, fused=False)
    place_lists = [
        ["forest", "hut", "hunting_grounds", "civ_place_1", "building_place_2"],
        "civ_display",
        ["civ_display", "forest", None, 3],
        [],
    ]
    for places_value in place_lists:
        for p, z, n in [("P1", "forest", 1), ("P3", "hut", 2), (None, "civ_display", 4), ("P2", 5, None)]:
            values = {"v_places": places_value, "v_p": p, "v_z": z, "v_n": n}
            for work in (10_000, 3, 12):
                results = []
                for function in (fast, slow):
                    function.__globals__.update(values)
                    context = Ctx(game, {"k": "P1"}, "P1", None)
                    results.append(_outcome(lambda: function(context), game, work))  # noqa: B023 -- called at once
                assert results[0] == results[1], (text, values, work)
