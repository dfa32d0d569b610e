"""The turn's menu made cheaper (issue 16), each part held to what it replaced:

- `driver._on_menu` calls one function made for the plan (`TurnPlan.menu_checks`, `driver._menu_checks`) instead of
  looping over the plan: the same actions, in the same order, with the same checks in the same order, as the loop it
  replaced (an oracle copy below), at every menu of seeded games and for plans of every shape;
- `can_pay` in a loop (functions._can_pay_with) answers a cost seen before from its joker's table of costs split
  (costs.split_table) without calling costs.cost_payable: the same answer and the same work charged as that call.
"""

from __future__ import annotations

import dis
import random
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scenario import ruleset

from engine.runtime import costs, driver, functions
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.session import play_randomly


def _on_menu_as_before(g, plan, me, ctx) -> list[str]:
    """driver._on_menu before its checks were made into one function: the loop over the plan."""
    state = g.state
    turn = state["turn"]
    acted = turn["acted"]
    used_in = {"once_per_turn": turn["used"], "once_per_game": state["used"][me]}
    have = {counter_id: g.counter(me, counter_id) for counter_id in plan.cost_counters}
    options = []
    for action_id, whole_turn, limit, cost, available in plan.on_menu:
        if (whole_turn and acted) or (limit is not None and used_in[limit].get(action_id)):
            continue
        for counter_id, amount in cost:
            if have[counter_id] < amount:
                break
        else:
            if available is None or available(ctx):
                options.append(action_id)
    return options


@pytest.mark.parametrize("seed", [0, 1])
def test_the_menu_is_the_loops_at_every_menu_of_seeded_games(seed):
    rules = ruleset("cro-magnon")
    plan = driver.turn_plan(rules)
    checked = 0

    def check(game):
        nonlocal checked
        if game.state["stage"] != "main" or game.over:
            return
        me = game.turn_player
        ctx = Ctx(game, {}, me, None)
        assert driver._on_menu(game, plan, me, ctx) == _on_menu_as_before(game, plan, me, ctx)
        checked += 1

    play_randomly(Game.new(rules, 4, seed), random.Random(seed), after=check, limit=250)
    assert checked > 100


class _Recorded:
    """An `available` test that answers as told and records that it was asked (the checks' order and laziness)."""

    def __init__(self, name, answer, asked):
        self.name, self.answer, self.asked = name, answer, asked

    def __call__(self, ctx):
        self.asked.append(self.name)
        return self.answer


_NAMES = st.sampled_from(["a", "b'c", 'd"\n', "e\\"])  # names are values of the function, never its text


@given(
    actions=st.lists(
        st.tuples(
            st.booleans(),
            st.sampled_from([None, "once_per_turn", "once_per_game"]),
            st.lists(st.tuples(_NAMES, st.integers(0, 3)), max_size=3),
            st.sampled_from([None, True, False]),
            st.booleans(),
        ),
        max_size=6,
    ),
    acted=st.booleans(),
    have=st.fixed_dictionaries({name: st.integers(0, 3) for name in ["a", "b'c", 'd"\n', "e\\"]}),
)
def test_a_plan_of_any_shape_offers_and_asks_as_the_loop(actions, acted, have):
    """Whole-turn actions, limits used or not, costs of no, one or several counters (a name twice too), tests that
    pass or fail: the same options, and the same `available` tests asked in the same order, as the loop."""
    asked_now: list = []
    asked_before: list = []
    on_menu_now, on_menu_before = [], []
    used_turn, used_game = {}, {}
    for i, (whole_turn, limit, cost, available, used) in enumerate(actions):
        action_id = f"act'{i}\n"
        if used and limit is not None:
            (used_turn if limit == "once_per_turn" else used_game)[action_id] = 1
        now = None if available is None else _Recorded(action_id, available, asked_now)
        before = None if available is None else _Recorded(action_id, available, asked_before)
        on_menu_now.append((action_id, whole_turn, limit, tuple(cost), now))
        on_menu_before.append((action_id, whole_turn, limit, tuple(cost), before))
    game = SimpleNamespace(
        state={"turn": {"acted": acted, "used": used_turn}, "used": {"P1": used_game}},
        counter=lambda me, counter_id: have[counter_id],
    )
    counters = tuple(dict.fromkeys(c for _, _, _, cost, _ in on_menu_now for c, _ in cost))
    plan_now = SimpleNamespace(on_menu=(), cost_counters=counters, menu_checks=driver._menu_checks(tuple(on_menu_now)))
    plan_before = SimpleNamespace(on_menu=tuple(on_menu_before), cost_counters=counters)
    ctx = object()
    assert driver._on_menu(game, plan_now, "P1", ctx) == _on_menu_as_before(game, plan_before, "P1", ctx)
    assert asked_now == asked_before


def test_the_menu_is_one_function_without_a_loop():
    """Fails if `_on_menu` goes back to a loop over the plan: the plan's menu function has none, and `_on_menu`
    answers what it answers."""
    plan = driver.turn_plan(ruleset("cro-magnon"))
    assert "FOR_ITER" not in {instruction.opname for instruction in dis.get_instructions(plan.menu_checks)}
    game = Game.new(ruleset("cro-magnon"), 4, 0)
    me = game.turn_player
    ctx = Ctx(game, {}, me, None)
    menu = SimpleNamespace(on_menu=(), cost_counters=plan.cost_counters, menu_checks=lambda *args: ["told"])
    assert driver._on_menu(game, menu, me, ctx) == ["told"]


def _context(work=1_000):
    return SimpleNamespace(g=SimpleNamespace(work=work))


_IDS = ["wood", "stone", "flint", "spoils"]


@given(
    items=st.lists(st.sampled_from(_IDS), max_size=5),
    counts=st.dictionaries(st.sampled_from(_IDS), st.integers(0, 4)),
    joker=st.sampled_from([None, "", "spoils", "wood", ("spoils", "x")]),
    n=st.integers(0, 3),
    as_tuple=st.booleans(),
)
def test_can_pay_with_is_cost_payable_and_charges_the_same(items, counts, joker, n, as_tuple):
    """Asked twice (the second from the joker's table when the cost is a tuple), the answer is cost_payable's, and
    each ask charges the cost's items as before."""
    cost = tuple(items) if as_tuple else items
    expected = costs.cost_payable(list(items), counts, joker, n)
    ready = (counts, joker, n, bool(joker and n), costs.split_table(joker))
    for _ in range(2):
        c = _context()
        assert functions._can_pay_with(c, cost, ready) is expected
        assert c.g.work == 1_000 - len(items)


def test_can_pay_with_an_unhashable_joker_or_cost_item_answers_as_before():
    """Such a joker or item is never kept in a table: answered, or refused with the same error, as before."""
    counts = {"wood": 2, "spoils": 3}
    unhashable = ["spoils"]
    ready = (counts, unhashable, 0, False, costs.split_table(unhashable))
    assert functions._can_pay_with(_context(), ("wood", "stone"), ready) is costs.cost_payable(
        ("wood", "stone"), counts, unhashable, 0
    )
    for cost, joker, n in ((("wood",), unhashable, 3), ((["wood"],), "spoils", 3)):
        with pytest.raises(TypeError):
            costs.cost_payable(cost, counts, joker, n)
        with pytest.raises(TypeError):
            functions._can_pay_with(_context(), cost, (counts, joker, n, bool(joker and n), costs.split_table(joker)))


def test_a_cost_seen_before_is_answered_without_calling_cost_payable(monkeypatch):
    """Fails if `_can_pay_with` stops reading the joker's table: the second ask of a cost never calls cost_payable."""
    counts = {"wood": 1, "spoils": 3}
    cost = ("wood", "wood", "stone", "spoils")  # a cost of its own, not seen before in this process
    ready = (counts, "spoils", 3, True, costs.split_table("spoils"))
    assert functions._can_pay_with(_context(), cost, ready) is False
    assert costs.split_table("spoils")[cost] == costs._split(cost, "spoils")

    def refused(*args):
        raise AssertionError("cost_payable called for a cost seen before")

    monkeypatch.setattr(functions, "cost_payable", refused)
    assert functions._can_pay_with(_context(), cost, ready) is False
    # two items short, 3 jokers each, and the joker item itself: 7 jokers pay
    assert functions._can_pay_with(_context(), cost, ({**counts, "spoils": 7}, "spoils", 3, True, ready[4])) is True


def test_the_joker_tables_start_again_when_full(monkeypatch):
    monkeypatch.setattr(costs, "_split_tables", {})
    monkeypatch.setattr(costs, "_SPLIT_TABLES_KEPT", 2)
    first = costs.split_table("a")
    assert costs.split_table("a") is first
    costs.split_table("b")
    costs.split_table("c")  # a third joker: the tables start again
    assert costs.split_table("a") is not first
    assert costs.split_table(["x"]) == {} and costs.split_table(["x"]) is not costs.split_table(["x"])
