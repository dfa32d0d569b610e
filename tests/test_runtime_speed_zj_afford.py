"""Cro-Magnon's "can I master a technology?" made cheaper (issue 16), each part held to what it replaced:

- `can_pay` in a loop (functions._can_pay_with) looks the cost up in its joker's table before anything else, and
  with fewer spare jokers than stand for one item compares each item's own cards (`all`) instead of summing
  shortfalls: the same answers, work and errors as before (an oracle copy of the old function below);
- "has it an item?" of a cached `where` (codegen `_cached_where`, exists.py) is a plain `for` loop that returns
  at the first item, as for a `where` that is not cached: the same answers and work as `any(...)` over it;
- `_cached_where` reads every player's zones without a call per zone: the same key, so the same answers.
"""

from __future__ import annotations

import random
from operator import ge, sub
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from python_source import on_python_source
from scenario import ruleset

from engine.runtime import codegen, costs, exists, functions
from engine.runtime.budget import out_of_work
from engine.runtime.context import Ctx
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.session import play_randomly


def _can_pay_with_as_before(c, cost, ready):
    """functions._can_pay_with before this step (b7e372b)."""
    g = c.g
    items = cost if type(cost) in (list, tuple) else list(cost or [])
    g.work -= len(items)
    if g.work < 0:
        out_of_work()
    counts, joker, n, jokers_used, splits = ready
    try:
        kinds, needs, jokers_named = splits[items]
    except KeyError:
        payable = costs.cost_payable(items, counts, joker, n)
        if type(items) is tuple and splits is costs.split_table(joker):
            costs.split_kept(splits, items, joker)
        return payable
    except TypeError:
        return costs.cost_payable(items, counts, joker, n)
    if not jokers_used:
        return all(map(ge, map(counts.get, kinds, costs.ZEROS), needs))
    spare = counts.get(joker, 0) - jokers_named
    return spare >= 0 and sum(map(max, map(sub, needs, map(counts.get, kinds, costs.ZEROS)), costs.ZEROS)) * n <= spare


def _context(work):
    return SimpleNamespace(g=SimpleNamespace(work=work))


def _outcome(can_pay, cost, ready, work):
    """(answer or error, work left) of one ask."""
    c = _context(work)
    try:
        answer = can_pay(c, cost, ready)
    except (ContentError, TypeError) as exc:
        answer = (type(exc), getattr(exc, "code", None))
    return answer, c.g.work


_IDS = ["wood", "stone", "flint", "spoils"]


@given(
    items=st.lists(st.sampled_from([*_IDS, None, ["wood"]]), max_size=6),
    counts=st.dictionaries(st.sampled_from(_IDS), st.integers(0, 7)),
    joker=st.sampled_from([None, "", "spoils", "wood", ("spoils", "x"), ["spoils"]]),
    n=st.integers(-2, 4),
    shape=st.sampled_from(["tuple", "list", "none", "text"]),
    work=st.integers(0, 8),
)
def test_can_pay_with_answers_charges_and_fails_as_before(items, counts, joker, n, shape, work):
    """Asked twice (the second from the joker's table, for a tuple), each ask gives the old answer or error and
    leaves the old work, budget running out included; negative `n` and unhashable items and jokers too."""
    cost = {"tuple": tuple(items), "list": list(items), "none": None, "text": "wood"}[shape]
    ready = (counts, joker, n, bool(joker and n), costs.split_table(joker))
    for _ in range(2):
        assert _outcome(functions._can_pay_with, cost, ready, work) == _outcome(
            _can_pay_with_as_before, cost, ready, work
        )


def test_a_cost_in_the_table_is_answered_before_anything_else(monkeypatch):
    """Fails if the table's lookup stops coming first: a cost seen before never goes the long way."""
    counts = {"wood": 2, "spoils": 1}
    cost = ("wood", "flint", "wood", "spoils", "stone")  # a cost of its own, not seen before in this process
    ready = (counts, "spoils", 3, True, costs.split_table("spoils"))
    assert functions._can_pay_with(_context(10), cost, ready) is False
    assert cost in ready[4]

    def refused(*args):
        raise AssertionError("a cost in the table went the long way")

    monkeypatch.setattr(functions, "_can_pay_unsplit", refused)
    c = _context(10)
    assert functions._can_pay_with(c, cost, ready) is False
    assert c.g.work == 5


@on_python_source  # (the module's `max` swapped: a compiled module calls the builtin)
def test_too_few_jokers_to_stand_for_an_item_sum_no_shortfalls(monkeypatch):
    """Fails if the short cut goes: with fewer spare jokers than `n`, no shortfall is summed (`max` never called),
    and the answer is still cost_payable's."""
    cost = ("wood", "stone", "stone")
    ready_of = {
        jokers: ({"wood": 1, "stone": 2, "spoils": jokers}, "spoils", 3, True, costs.split_table("spoils"))
        for jokers in (0, 2, 3)
    }
    for ready in ready_of.values():
        functions._can_pay_with(_context(10), cost, ready)  # in the table from now on

    def refused(*args):
        raise AssertionError("a shortfall summed")

    monkeypatch.setattr(functions, "max", refused, raising=False)
    for jokers in (0, 2):
        assert functions._can_pay_with(_context(10), cost, ready_of[jokers]) is True
        assert functions._can_pay_with(_context(10), (*cost, "flint"), ready_of[jokers]) is costs.cost_payable(
            (*cost, "flint"), ready_of[jokers][0], "spoils", 3
        )
    with pytest.raises(AssertionError, match="summed"):  # enough jokers for one item: summed as before
        functions._can_pay_with(_context(10), cost, ready_of[3])


class _AnyCompiler(exists.ExistsCompiler):
    """exists.py's compiler as before this step: "has it an item?" of a cached `where` as `any(...)` over it (nor
    as one call of functions.some_payable, a later step: test_runtime_speed_zu_menu_loops.py)."""

    def where_parts(self, node):
        parts = super().where_parts(node)
        for key in [key for key, where in self._wheres.items() if where[3] is None]:
            del self._wheres[key]
        self.exists_calls.clear()
        return parts


def test_has_a_cached_where_an_item_is_a_loop():
    """Fails if the loop goes: the function asked "is your list not empty?" makes no generator."""
    rules = ruleset("cro-magnon")
    for compiler in (exists.ExistsCompiler, _AnyCompiler):
        function = codegen.direct_function(rules, "affordable_technologies", compiler, 1, exists=True)
        names = {const.co_name for const in function.__code__.co_consts if hasattr(const, "co_name")}
        assert ("<genexpr>" in names) is (compiler is _AnyCompiler), names


@pytest.mark.parametrize("seed", [0, 3])
def test_has_a_cached_where_an_item_answers_and_charges_as_any(seed):
    """At every turn menu of seeded games, for every player: the loop's answer and work are `any(...)`'s."""
    rules = ruleset("cro-magnon")
    loop = codegen.direct_function(rules, "affordable_technologies", exists.ExistsCompiler, 1, exists=True)
    as_before = codegen.direct_function(rules, "affordable_technologies", _AnyCompiler, 1, exists=True)
    answers = []

    def check(game):
        if game.over or game.state["stage"] != "main":
            return
        work = game.work
        for player in game.players:
            outcomes = []
            for function in (loop, as_before):
                game.work = 10_000
                outcomes.append((function(Ctx(game, {}, player, None), "test", 0, player), game.work))
            assert outcomes[0] == outcomes[1]
            answers.append(outcomes[0][0])
        game.work = work

    play_randomly(Game.new(rules, 4, seed), random.Random(seed), after=check, limit=300)
    assert True in answers and False in answers


def test_every_players_zones_are_read_without_a_call_each(monkeypatch):
    """Fails if `_cached_where` calls `_held` for each player's zone again; a player's zone not made reads as None
    (the same answer both ways)."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 3, 0)
    held = []
    read = codegen._held
    monkeypatch.setattr(codegen, "_held", lambda cards: held.append(cards) or read(cards))
    cache: dict = {}
    computed = []

    def compute():
        computed.append(1)
        return [len(computed)]

    def ask():
        return codegen._cached_where(game, cache, "t", ("weapons_row",), (), ("tableau",), (), (), compute, "t", 0)

    assert ask() == [1] and ask() == [1] and held == []
    game.move(game.state["zones"]["weapons_row"][0], f"tableau:{game.players[1]}")
    assert ask() == [2] and held == []
    del game.state["zones"][f"tableau:{game.players[2]}"]  # a zone not made: read as None, through `_held`
    assert ask() == [3] and ask() == [3] and len(held) == 6 and None in held
