"""The runtime's fast paths give what the plain paths give (issue 16): a printed field of a card read from the
pack's table by compiled expressions (codegen.ExpressionCompiler._field_read) reads as the field's getter does,
and the undo snapshot's and clone's copy of the state (state.copy_state) is the deep copy marshal made; a clone
shares the undo snapshot, which no undo changes."""

from __future__ import annotations

import random
import re

import pytest
from scenario import ROOT, ruleset, saved_and_loaded

from engine import dsl
from engine.runtime import codegen, functions
from engine.runtime.errors import ContentError
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly
from engine.runtime.state import APPEND_ONLY, copy_state, plain_copy

PACKS = ("cro-magnon", "neolithibum", "stone-age")
PRINTED = ("id", "name", "type", "deck", "back", "tags", "cost", "requires")


def _fields(rules) -> list[str]:
    """Every printed field and every stat or ref a card of the pack has."""
    stats = {name for card in rules.cards.values() for name in (card.get("stats") or {}) | (card.get("refs") or {})}
    return [*PRINTED, *sorted(stats)]


def _read(rules, game, text):
    ir, problem = dsl.parse(text, dsl.EXPRESSION)
    assert problem is None, problem
    return codegen.compile_expression(rules, "test/field", ir, frozenset())(Ctx(game, {}, "P1", None))


@pytest.mark.parametrize("pack", PACKS)
def test_a_printed_field_read_from_the_table_reads_as_its_getter(pack):
    """Every card number's every printed field and stat, through `map` (the item a Python variable: the table is
    read), is what the field's getter (the path of every other value) says; a list field is a new list each time."""
    rules = ruleset(pack)
    game = Game.new(rules, 2, 0)
    last = len(rules.instances) - 1
    for name in _fields(rules):
        assert functions.static_field_table(rules, name) is not None, name  # the fast path is taken
        got = _read(rules, game, f"map(numbers(0, {last}), item.{name})")
        getter = functions.field_getter(name)
        assert got == [getter(game, n) for n in range(last + 1)], name
    costs = _read(rules, game, f"map(numbers(0, {last}), item.cost)")
    again = _read(rules, game, f"map(numbers(0, {last}), item.cost)")
    assert all(a is not b for a, b in zip(costs, again, strict=True))


def test_a_number_that_is_no_card_still_reads_through_the_getter():
    """Past the last card, or below 0, the table is not read: the getter's error (no other card's field)."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 2, 0)
    past = len(rules.instances)
    for number in (past, -1):
        with pytest.raises(ContentError) as raised:
            _read(rules, game, f"map(numbers({number}, {number}), item.type)")
        with pytest.raises(ContentError) as plain:
            functions.field_getter("type")(game, number)
        assert raised.value.code == plain.value.code


def test_a_field_that_changes_in_play_has_no_table():
    rules = ruleset("cro-magnon")
    assert functions.static_field_table(rules, "orientation") is None
    assert functions.static_field_table(rules, "owner") is None


@pytest.mark.parametrize("pack,players,seed", [("cro-magnon", 4, 3), ("neolithibum", 3, 1), ("stone-age", 2, 2)])
def test_whole_games_are_the_same_with_and_without_the_tables(pack, players, seed):
    """A seeded random game played with the fields read without a call (tables, orientation, `me`'s counters), and
    with every field read through its getter: the same answers, the same final state, hash for hash."""
    ends = []
    for tables in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            if not tables:  # no value is read without a call
                patch.setattr(codegen, "_READ_TWICE", re.compile(r"(?!)"))
            rules = load(ROOT / "content" / pack)
            game = Game.new(rules, players, seed)
            play_randomly(game, random.Random(seed))
        ends.append((game.history, game.state_hash()))
    assert ends[0] == ends[1]


def test_the_state_copy_is_marshals_deep_copy():
    """At every decision of a seeded game (saved and loaded first): the copy equals marshal's, keeps the keys'
    order, and shares no list or mapping with the state, so that changing one never changes the other."""
    game = saved_and_loaded(Game.new(ruleset("cro-magnon"), 3, 5))
    rnd = random.Random(5)
    checked = 0
    while not game.over and checked < 150:
        part = {k: v for k, v in game.state.items() if k not in APPEND_ONLY}
        copied = copy_state(part)
        assert copied == plain_copy(part)
        assert list(copied) == list(part)
        assert not _shared(copied, part)
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
        else:
            legal = game.legal(decision.players[0])
            game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
        checked += 1
    assert checked == 150


def test_an_undone_action_puts_back_the_zones_as_they_were():
    """The snapshot at an action's start is a copy, not the zones themselves: after the action moved cards and
    was undone, the zones and where each card lies are those of before it ("Impossible actions are undone")."""
    game = saved_and_loaded(Game.new(ruleset("cro-magnon"), 2, 0))
    before = plain_copy({k: game.state[k] for k in ("zones", "loc", "orient")})
    game.apply(game.decision.options.index("explore"), "P1")
    assert game.state["attempt"] is not None  # which terrain? (the snapshot is taken)
    for zone in ("forest", "plains"):  # cards move, in place in the zones' lists, as verbs move them
        game.move(game.state["zones"][zone][-1], "hand:P1")
        game.state["orient"][game.state["zones"]["hand:P1"][-1]] = 1
    assert game.state["loc"] != before["loc"]
    game.fail("test")
    assert {k: game.state[k] for k in ("zones", "loc", "orient")} == before


def test_a_clone_shares_the_undo_snapshot_and_an_undo_in_either_leaves_the_other_as_it_was():
    """clone() shares the snapshot taken at the action's start rather than copying it (nothing changes it once
    taken): undoing the action in the clone puts back a copy of it, so the real game, its snapshot, and a second
    undo there are what they were ("Impossible actions are undone")."""
    game = saved_and_loaded(Game.new(ruleset("cro-magnon"), 2, 0))
    before = plain_copy({k: v for k, v in game.state.items() if k not in ("log", "history")})
    game.apply(game.decision.options.index("explore"), "P1")
    snap = game.state["attempt"]["snap"]
    kept = plain_copy(snap)
    copy = game.clone()
    assert copy.state["attempt"]["snap"] is snap
    assert copy.state["attempt"]["path"] == game.state["attempt"]["path"]
    assert copy.state["attempt"]["path"] is not game.state["attempt"]["path"]
    for zone in ("forest", "plains"):
        copy.move(copy.state["zones"][zone][-1], "hand:P1")
    copy.fail("test")
    copy.move(copy.state["zones"]["forest"][-1], "hand:P2")  # the clone goes on from its own copy
    assert game.state["attempt"]["snap"] == kept
    game.fail("test")
    assert {k: game.state[k] for k in before if k not in ("dead", "undone")} == {
        k: v for k, v in before.items() if k not in ("dead", "undone")
    }


def test_the_state_copy_leaves_out_and_shares_what_it_is_told():
    """copy_state's `skip` leaves keys out and `shared` keeps them as they are, the rest in the state's order."""
    state = Game.new(ruleset("cro-magnon"), 2, 0).state
    copied = copy_state(state, shared=("params",), skip=("log", "history", "attempt"))
    assert list(copied) == [k for k in state if k not in ("log", "history", "attempt")]
    assert copied["params"] is state["params"]
    assert copied["zones"] == state["zones"] and copied["zones"] is not state["zones"]
    assert not _shared({k: v for k, v in copied.items() if k != "params"}, state)


def _shared(a, b) -> bool:
    """Whether two plain values share a list or a mapping anywhere."""
    if type(a) in (list, dict) and a is b:
        return True
    if type(a) is dict and type(b) is dict:
        return any(_shared(a[k], b[k]) for k in a if k in b)
    if type(a) is list and type(b) is list:
        return any(_shared(x, y) for x, y in zip(a, b, strict=False))
    return False
