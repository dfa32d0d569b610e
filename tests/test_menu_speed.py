"""The turn menu at a fraction of its former cost (issue 16), offering exactly the same actions.

An expression of the shape "there is some X" (`count(X) > 0`, `count(X) >= 1`, `count(X) = 0`, `empty(X)`
...) stops at the first X that qualifies, also through a pack function whose body is a `where`, and
through lists of those joined with `+`; everything else is evaluated as before. This holds for every
expression of a pack (menus, end triggers, effects, functions). The menu and `refusal()`'s tuples stay the
same: checked on a small pack written here (hypothesis varies where its cards lie) against the same texts
compiled without the short cut (codegen.py), at every menu of seeded Cro-Magnon games, and by whole seeded
games of every shipped pack played with and without it.
"""

from __future__ import annotations

import random

import pytest
from conftest import MINIMAL_RULES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import dsl
from engine.runtime import codegen, compiler, driver, functions
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load

_PACK = """kind: pack
id: menus
name: Menus
version: 1.0.0
players: {min: 2, max: 2}
"""
_TOOLS = 6
_ROCKS = 4
_RULES = (
    MINIMAL_RULES
    + f"""---
kind: zone
id: pile
name: Pile
type: pile
---
kind: zone
id: stash
name: Stash
type: pile
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 30
then: immediate
result: most
counter: vp
---
kind: end
id: tools_out
name: Tools out
trigger: count(pile where has(card, tool)) >= 1 and me.vp >= 50
then: immediate
result: most
counter: vp
---
kind: card
id: axe
name: Axe
type: technology
deck: deck
copies: {_TOOLS}
tags: [tool]
---
kind: card
id: rock
name: Rock
type: resource
deck: deck
copies: {_ROCKS}
---
kind: function
id: tools_in
params: [place]
body: place where has(card, tool)
---
kind: function
id: tools_of_pile
params: []
body: tools_in(pile)
---
kind: action
id: some_tool
name: Some tool
available: count(pile where has(card, tool)) > 0
effect: gain 1 vp
---
kind: action
id: some_tool_called
name: Some tool, through a function
available: 0 < count(tools_of_pile())
effect: gain 1 vp
---
kind: action
id: no_tool
name: No tool
available: count(tools_in(pile)) = 0
effect: gain 1 vp
---
kind: action
id: tool_and_card
name: A tool and a card in hand
available: count(pile where has(card, tool)) >= 1 and count(hand(me)) != 0
effect: gain 1 vp
---
kind: action
id: at_most_zero
name: Not one rock
available: count(pile where not has(card, tool)) <= 0 or count(pile where has(card, tool)) < 1
effect: gain 1 vp
---
kind: action
id: many_tools
name: Many tools
available: count(pile where has(card, tool)) > 2
effect: gain 1 vp
---
kind: action
id: not_empty
name: Not empty
available: not empty(pile where has(card, tool))
effect: gain 1 vp
---
kind: action
id: joined
name: A tool in hand or on the pile
available: count((hand(me) where has(card, tool)) + tools_in(pile)) > 0
effect: gain 1 vp
---
kind: action
id: in_an_effect
name: Looks in its effect
effect: |
  let found = count(stash where has(card, tool)) > 0
  let none_left = empty(tools_in(stash))
  if found and not none_left:
      gain 1 vp
"""
)
_CHECKED = (
    "some_tool",
    "some_tool_called",
    "no_tool",
    "tool_and_card",
    "at_most_zero",
    "many_tools",
    "not_empty",
    "joined",
)


@pytest.fixture(scope="module")
def counted(tmp_path_factory):
    """The small pack, loaded with `has` counting its calls: how many cards a menu examines; and each
    checked `available` text compiled as any expression was before the short cut (codegen.py)."""
    calls = []
    plain = functions.BUILTINS["has"]

    def has(c, card, tag):
        calls.append(card)
        return plain(c, card, tag)

    root = tmp_path_factory.mktemp("menus") / "demo"
    root.mkdir()
    (root / "pack.yaml").write_text(_PACK, encoding="utf-8")
    (root / "rules.yaml").write_text(_RULES, encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(functions.BUILTINS, "has", has)
        rules = load(root)
        Game.new(rules, 2, 0)
        for action in _CHECKED:  # everything the menu uses is compiled while `has` counts
            driver.refusal(Game.new(rules, 2, 0), action, "P1")
        written = {
            action: codegen.compile_expression(
                rules,
                f"action/{action}/available",
                dsl.parse(rules.actions[action]["available"], dsl.CONDITION)[0],
                frozenset(),
            )
            for action in _CHECKED
        }
    return rules, calls, written


def _with_pile(rules, tools: int, rocks: int, order_seed: int = 0, in_hand: int = 0) -> Game:
    g = Game.new(rules, 2, 0)
    cards = {"axe": [], "rock": []}
    for number, def_id in enumerate(rules.instances):
        cards[def_id].append(number)
    chosen = cards["axe"][:tools] + cards["rock"][:rocks]
    random.Random(order_seed).shuffle(chosen)
    for card in chosen:
        g.move(card, "pile")
    for card in cards["rock"][rocks : rocks + in_hand]:
        g.move(card, "hand:P1")
    return g


def _as_written(written, g, action_id, me) -> bool:
    """The action's `available` text evaluated as every expression was before the short cut."""
    return bool(written[action_id](Ctx(g, {}, me, None)))


@pytest.mark.parametrize("action", ["some_tool", "some_tool_called"])
def test_there_is_some_card_stops_at_the_first_card_that_qualifies(counted, action):
    rules, calls, written = counted
    g = _with_pile(rules, tools=_TOOLS, rocks=0)
    calls.clear()
    assert driver.refusal(g, action, "P1") is None
    assert len(calls) == 1, f"the menu examined {len(calls)} cards to find one tool"
    calls.clear()
    assert _as_written(written, g, action, "P1")
    assert len(calls) == _TOOLS  # the full list, as any other expression builds it


def test_there_is_no_card_also_stops_at_the_first_card_that_qualifies(counted):
    rules, calls, _written = counted
    g = _with_pile(rules, tools=_TOOLS, rocks=0)
    calls.clear()
    assert driver.refusal(g, "no_tool", "P1") == ("available",)
    assert len(calls) == 1


def test_an_end_trigger_asking_is_there_some_card_stops_at_the_first(counted):
    rules, calls, _written = counted
    g = _with_pile(rules, tools=_TOOLS, rocks=0)
    rule = next(r for r in rules.ends if r["id"] == "tools_out")
    calls.clear()
    assert not driver.triggered(g, rule, "P1")
    assert len(calls) == 1


@pytest.mark.parametrize("action", ["not_empty", "joined"])
def test_empty_and_lists_joined_with_plus_stop_at_the_first_card_too(counted, action):
    """`not empty(X)`, and `count(A + B) > 0` where A and B are lists a `where` makes (here one through a
    pack function): A is looked through first, then B, and the search stops at the first tool."""
    rules, calls, written = counted
    g = _with_pile(rules, tools=_TOOLS, rocks=0)
    calls.clear()
    assert driver.refusal(g, action, "P1") is None
    assert len(calls) == 1, f"{len(calls)} cards examined"
    calls.clear()
    assert _as_written(written, g, action, "P1") and len(calls) == _TOOLS


def test_an_effect_asking_is_there_some_card_stops_at_the_first_too(counted):
    """Effects and the functions they call compile with the same short cut as the menu: the action finds a
    tool in the stash (which no menu text looks at) after examining one card for each of its two questions."""
    rules, calls, _written = counted
    g = _with_pile(rules, tools=0, rocks=0)
    tools = [n for n, def_id in enumerate(rules.instances) if def_id == "axe"]
    for card in tools:
        g.move(card, "stash")
    g.rebuild_menu()
    calls.clear()
    g.apply(g.decision.options.index("in_an_effect"), "P1")
    assert g.state["counters"]["P1"]["vp"] == 1
    assert sum(1 for card in calls if g.state["loc"][card] == "stash") == 2, calls


def _plainly_compiled(root):
    """The pack at `root` with every expression compiled as before the short cut (codegen.py), and every pack
    function called through its caller (an environment of names, the depth kept) instead of as a direct
    Python function; the menu's own `available:` and end triggers keep their short cut (driver.py: tested
    above against the plain texts)."""
    from engine.runtime import exists

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(compiler, "compile_expression", codegen.compile_expression)
        patch.setattr(codegen, "direct_function", lambda *args, **kwargs: None)
        patch.setattr(exists, "direct_function", lambda *args, **kwargs: None)
        rules = load(root)
        driver.turn_plan(rules)  # the menu's conditions compiled now, while patched
        return rules


@pytest.mark.parametrize(
    "pack,players,seed",
    [
        ("stone-age", 3, 2),
        ("stone-age-mammoth-herd", 2, 5),
        ("cro-magnon", 3, 1),
        ("neolithibum", 4, 3),
        ("cro-magnon-solo", 1, 4),
    ],
)
def test_whole_games_are_the_same_with_and_without_the_short_cut(pack, players, seed):
    """A seeded random game of each shipped pack, played once with every expression short-cut and its pack
    functions called directly, and once compiled plainly: the same answers lead to the same final state,
    hash for hash."""
    from scenario import ROOT

    from engine.runtime.session import play_randomly

    ends = []
    for rules in (load(ROOT / "content" / pack), _plainly_compiled(ROOT / "content" / pack)):
        game = Game.new(rules, players, seed)
        play_randomly(game, random.Random(seed))
        ends.append((game.history, game.state_hash()))
    assert ends[0] == ends[1]


def test_a_count_compared_with_more_than_zero_still_counts_every_card(counted):
    rules, calls, _written = counted
    g = _with_pile(rules, tools=_TOOLS, rocks=0)
    calls.clear()
    assert driver.refusal(g, "many_tools", "P1") is None
    assert len(calls) == _TOOLS


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(tools=st.integers(0, _TOOLS), rocks=st.integers(0, _ROCKS), order=st.integers(0, 3), in_hand=st.integers(0, 1))
def test_the_short_cut_menu_says_what_the_conditions_say(counted, tools, rocks, order, in_hand):
    rules, _calls, written = counted
    g = _with_pile(rules, tools, rocks, order, in_hand if rocks < _ROCKS else 0)
    for action in _CHECKED:
        refused = driver.refusal(g, action, "P1")
        assert (refused is None) == _as_written(written, g, action, "P1"), action
        assert refused in (None, ("available",))


def _reference_refusal(g, action_id, me):
    """The menu's checks exactly as they were before issue 16, from the pack documents and rules.code."""
    action = g.rules.actions[action_id]
    if action.get("subroutine") or not action.get("effect"):
        return ("hidden",)
    state, turn = g.state, g.state["turn"]
    if action.get("whole_turn") and turn["acted"]:
        return ("whole_turn",)
    limit = action.get("limit", "unlimited")
    if limit == "once_per_turn" and turn["used"].get(action_id):
        return ("limit", limit)
    if limit == "once_per_game" and state["used"][me].get(action_id):
        return ("limit", limit)
    for counter, amount in (action.get("cost") or {}).items():
        have = g.counter(me, counter)
        if have < amount:
            return ("cost", counter, amount, have)
    key = f"action/{action_id}/available"
    if key in g.rules.code and not g.rules.code[key](Ctx(g, {}, me, None)):
        return ("available",)
    return None


@pytest.mark.parametrize("players,seed", [(4, 0), (2, 1)])
def test_every_cromagnon_menu_refuses_exactly_as_before(players, seed):
    from scenario import ruleset

    rules = ruleset("cro-magnon")
    g = Game.new(rules, players, seed)
    rnd = random.Random(seed)
    menus = 0
    while not g.over:
        decision = g.decision
        if decision.kind == "action" and g.state["attempt"] is None:
            me = g.state["turn"]["player"]
            g.held_memo = {}
            for action in rules.actions:
                assert driver.refusal(g, action, me) == _reference_refusal(g, action, me), action
            menus += 1
        if decision.is_chance:
            g.apply_chance()
        else:
            g.apply(rnd.choice(g.legal(decision.players[0])), decision.players[0])
    assert menus > 20


def _cost_payable_as_before(items, counts, joker=None, n=0) -> bool:
    """verbs.cost_payable as it was before issue 16: the oracle for the one-pass version."""
    need: dict = {}
    for item in items:
        need[item] = need.get(item, 0) + 1
    short = sum(max(0, k - counts.get(d, 0)) for d, k in need.items() if d != joker)
    if not joker or not n:
        return short == 0
    spare = counts.get(joker, 0) - need.get(joker, 0)
    return spare >= 0 and short * n <= spare


_IDS = st.sampled_from(["a", "b", "c", "j"])


@settings(max_examples=200, deadline=None)
@given(
    items=st.lists(_IDS, max_size=6),
    counts=st.dictionaries(_IDS, st.integers(0, 4)),
    joker=st.sampled_from([None, "j", "a"]),
    n=st.integers(0, 3),
)
def test_the_one_pass_cost_check_agrees_with_the_old_one(items, counts, joker, n):
    from engine.runtime.verbs import cost_payable

    assert cost_payable(items, counts, joker, n) == _cost_payable_as_before(items, counts, joker, n)
