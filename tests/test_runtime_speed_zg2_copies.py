"""A clone's copies and the imagined deal's shuffle made cheaper compiled (helper G, issue 16), each held to the code
of before, played side by side:

- `copies._copied` reads a map as a `dict` once its type is checked (its copy and items in C, no `dict.items` call and
  no pair made an item) and tells a text or a number by its type, not by a lookup in `_SCALARS`;
- `copies.copy_state` copies the flat lists, `rng` and the zones of exactly their usual types in C (`_copied_zones`,
  cpdef), and those of a type of their own kind (a list of its own class, a state built by hand) as before;
- `imagine.shuffle` walks the places as a `range` of the list's length (a C number compiled: the list read and written
  there in C) and reads the bits a draw for each place takes from a tuple (`_BITS`).

The copies must be those of before: equal, of the same types, keys in the same order, a map or list held twice one copy
held twice, and the same errors for parts of other shapes; the shuffle the same order and the generator left where it
was left (tests/test_runtime_speed_n_table.py holds it to `random.Random.shuffle` too)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from engine.content.packs import resolve_target
from engine.runtime import agents, copies, driver, imagine, undo
from engine.runtime import rules as rules_module
from engine.runtime.copies import plain_copy
from engine.runtime.game import Game
from tests.lockstep import greedy_choices, swapped_in
from tests.test_runtime_speed_zg_copies import COPIES, held_twice, same, shares_nothing

_SCALARS = frozenset((str, int, bool, float, type(None)))
_DEEPEST = 100


# ---------------------------------------------------------------- the code of before, word for word
def old_copied(value, memo: dict, depth):
    """copies._copied before this step."""
    if depth > _DEEPEST:
        return plain_copy(value)
    kind = type(value)
    if kind is dict:
        source = id(value)
        found = memo.get(source)
        if found is not None:
            return found
        copy = memo[source] = value.copy()
        for key, item in dict.items(value):
            if type(item) not in _SCALARS:
                copy[key] = old_copied(item, memo, depth + 1)
        return copy
    if kind is list:
        source = id(value)
        found = memo.get(source)
        if found is not None:
            return found
        items: list = value
        copy = memo[source] = items.copy()
        for index in range(len(items)):
            item = items[index]
            if type(item) not in _SCALARS:
                copy[index] = old_copied(item, memo, depth + 1)
        return copy
    if kind in _SCALARS:
        return value
    return plain_copy(value)


def old_copy_state(data: dict, shared: tuple = (), skip: tuple = ()) -> dict:
    """copies.copy_state before this step (its plan and `_copy_apart` are today's, unchanged)."""
    keys = tuple(data)
    plan = copies._COPY_PLANS.get((keys, shared, skip))
    if plan is None:
        plan = copies._copy_plan(keys, shared, skip)
    skipped, copied_keys, flat_lists, copies_rng, copies_zones = plan
    copied = data.copy()
    for key in skipped:
        del copied[key]
    memo: dict = {}
    for key in copied_keys:
        value = data[key]
        if type(value) not in _SCALARS:
            copied[key] = old_copied(value, memo, 0)
    try:
        for key in flat_lists:
            copied[key] = list.copy(data[key])
        if copies_rng:
            rng = data["rng"]
            if not _SCALARS.issuperset(map(type, dict.values(rng))):
                raise TypeError
            copied["rng"] = rng.copy()
        if copies_zones:
            zones = data["zones"]
            copied["zones"] = dict(zip(zones, map(list.copy, dict.values(zones)), strict=True))
    except TypeError:
        copies._copy_apart(data, copied, plan)
    return copied


def old_shuffle(rnd: random.Random, cards: list) -> None:
    """imagine.shuffle before this step."""
    bits, count = rnd.getrandbits, len(cards)
    places = tuple(zip(range(count - 1, 0, -1), map(int.bit_length, range(count, 1, -1)), strict=True))
    for i, k in places:
        j = bits(k)
        while j > i:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


def _outcome(copy, *args):
    """What a copy gives: the copy, or the type of the error it raises."""
    try:
        return copy(*args)
    except Exception as error:  # noqa: BLE001 (the very error of before is the point)
        return type(error)


def _check(data: dict, shared: tuple = (), skip: tuple = ()) -> None:
    new, old = _outcome(copies.copy_state, data, shared, skip), _outcome(old_copy_state, data, shared, skip)
    if isinstance(old, type):
        assert new is old
        return
    assert same(new, old) and held_twice(new, shared) == held_twice(old, shared)
    assert shares_nothing(new, data, shared)


# ---------------------------------------------------------------- the copies
@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum", "paleo-a-new-beginning"])
def test_real_states_copy_as_before(pack):
    """Every decision's state of seeded random games (and the undo snapshot of an action under way), copied with each
    caller's shared and skipped keys: the copy of before, with the same maps and lists held twice."""
    rules = rules_module.load(resolve_target(pack))
    for seed in range(2):
        g = Game.new(rules, 3, seed)
        rnd = random.Random(seed)
        for _ in range(150):
            if g.over:
                break
            for shared, skip in COPIES:
                _check(g.state, shared, skip)
            if g.state["attempt"] is not None:
                _check(g.state["attempt"]["snap"], ("params",))
            decision = g.decision
            if decision.is_chance:
                g.apply_chance()
            else:
                player = decision.players[0]
                g.apply(rnd.choice(g.legal(player)), player)


class _Cards(list):
    """A list of a class of its own, where a state built by hand holds one."""


class _Map(dict):
    """A map of a class of its own."""


@pytest.mark.parametrize(
    "part, value",
    [
        ("loc", _Cards(["deck", "hand"])),
        ("loc", ("deck", "hand")),
        ("loc", {"0": "deck"}),
        ("orient", _Cards([0, 1])),
        ("rng", _Map({"s": 5})),
        ("rng", {"s": [1, 2]}),
        ("rng", {"s": 5, "t": 2.5, "u": None, "v": True}),
        ("rng", 3),
        ("zones", {"deck": _Cards([1, 2]), "hand": [3]}),
        ("zones", {"deck": (1, 2)}),
        ("zones", _Map({"deck": [1, 2]})),
        ("zones", [[1]]),
        ("turn", {"odd": {object()}}),
        ("turn", {"pair": ([1], "a"), "x": True, "y": 1.5, "n": None}),
        ("stack", [{"env": {"cards": _Cards([1])}}]),
    ],
)
def test_parts_of_other_shapes_copy_as_before(part, value):
    """A part of a type of its own kind or another shape (a state built by hand): the same copy or the same error as
    before (a list of its own class copied by `list.copy` as ever, not sent to marshal, which cannot write it)."""
    data = {"format": "x", "loc": ["deck"], "orient": [0], "rng": {"s": 1}, "zones": {"deck": [0]}, "turn": {}}
    data[part] = value
    for shared, skip in [((), ()), *COPIES]:
        _check(data, shared, skip)


def test_the_zones_are_copied_in_one_compiled_loop():
    """`copy_state` copies the zones by `_copied_zones`, declared cpdef (copies.pxd): a map of the zones' lists, each a
    new list of the same cards, in the zones' order; None for a zone that is not exactly a list. Fails before: there was
    no `_copied_zones`."""
    zones = {"deck": [3, 1, 2], "hand:P1": [None, 4], "empty": []}
    lists = copies._copied_zones(zones)
    assert list(lists) == list(zones) and lists == zones
    assert all(lists[key] is not zones[key] and type(lists[key]) is list for key in zones)
    assert copies._copied_zones({"deck": _Cards([1])}) is None and copies._copied_zones({"deck": (1,)}) is None
    pxd = (Path(copies.__file__).with_suffix("").parent / "copies.pxd").read_text()
    assert re.search(r"^cpdef _copied_zones\(", pxd, flags=re.MULTILINE)


# ---------------------------------------------------------------- the shuffle
@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 7, 8, 9, 31, 32, 33, 100, 257, 300])
def test_the_shuffle_is_that_of_before_draw_for_draw(size):
    """The same order from the same seed, and the generator left where the shuffle of before left it; the bits of each
    place those of before (`_BITS`: fails before, where there was none)."""
    for seed in range(20):
        mine, theirs = random.Random(seed), random.Random(seed)
        cards, expected = [f"c{n}" for n in range(size)], [f"c{n}" for n in range(size)]
        imagine.shuffle(mine, cards)
        old_shuffle(theirs, expected)
        assert cards == expected
        assert mine.getstate() == theirs.getstate()
    if size:
        assert imagine._BITS[size] == tuple((place + 1).bit_length() for place in range(size))


# ---------------------------------------------------------------- the bots
@pytest.mark.parametrize("pack, players", [("cro-magnon", 2), ("neolithibum", 3)])
def test_greedy_choices_as_before(pack, players):
    """Greedy bots choose the same answers with the copies and the shuffle of before (imagined deals, their clones and
    their rollouts' snapshots all copy through copy_state), and their games end in the same state."""
    rules = rules_module.load(resolve_target(pack))
    found = []
    for as_before in (False, True):
        bots = {f"P{i + 1}": agents.GreedyAgent(seed=i) for i in range(players)}
        game = Game.new(rules, players, 5)
        if as_before:
            swaps = [(module, "copy_state", old_copy_state) for module in (driver, undo, imagine)]
            with swapped_in([*swaps, (imagine, "shuffle", old_shuffle)]):
                found.append((greedy_choices(game, bots, 25, []), game.state_hash()))
        else:
            found.append((greedy_choices(game, bots, 25, []), game.state_hash()))
    assert found[0] == found[1]
