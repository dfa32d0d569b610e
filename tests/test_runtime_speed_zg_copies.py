"""copy_state without marshal (helper G, issue 16): the parts of a state that are small maps and lists (the turn, the
stack's frames, the decision pending, the flags) are copied one map and list at a time (copies._copied, compiled:
`dict.copy`, `list.copy`, texts and numbers shared), where a marshal round trip made every map, list and text anew
(some thousand instructions each). The copy must be what marshal's was: equal, of the same types, keys in the same
order, sharing no map or list with the source, and a map or list held in two places (a secret choice's options in its
frame and in the decision pending) one copy held in both, as marshal's references kept it. Oracle: the copy_state of
before, a marshal round trip of the parts, played side by side with the new one (undo snapshots, clones, imagined
deals and undos all copy through it)."""

from __future__ import annotations

import marshal
import random
from operator import itemgetter

import pytest

from engine.content.packs import resolve_target
from engine.runtime import agents, driver, imagine, undo
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.state import copy_state
from tests.lockstep import greedy_choices, play_side_by_side, swapped_in

_SCALARS = frozenset((str, int, bool, float, type(None)))


def old_copy_state(data: dict, shared: tuple = (), skip: tuple = ()) -> dict:
    """The copy_state of before: the zones, `loc`, `orient` and `rng` copied apart, the shared parts kept, and the rest
    in one marshal round trip of a tuple of the parts (a map or list held twice is written once and read back once)."""
    kept = tuple(key for key in data if key not in skip)
    apart = [key for key in kept if key in shared]
    apart += [key for key in kept if key in ("loc", "orient", "rng", "zones") and key not in shared]
    marshalled = [key for key in kept if key not in apart]
    stand_in = marshalled[0] if marshalled else None
    read_keys = tuple(key if key in marshalled else stand_in for key in kept)
    parts = itemgetter(*read_keys)(data) if len(read_keys) > 1 else tuple(map(data.get, read_keys))
    copied = dict(zip(kept, marshal.loads(marshal.dumps(parts)), strict=True))
    for key in kept:
        if key in shared:
            copied[key] = data[key]
        elif key in ("loc", "orient"):
            copied[key] = list(data[key])
        elif key == "rng":
            copied[key] = data[key].copy()
        elif key == "zones":
            copied[key] = {zone: list(cards) for zone, cards in data[key].items()}
    return copied


def same(a, b) -> bool:
    """Equal, of the same types all the way down, in the same order of keys."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if type(a) is list:
        return len(a) == len(b) and all(map(same, a, b))
    return a == b


def held_twice(copied: dict, shared: tuple) -> list:
    """Where the copy holds one map or list in more than one place (its parts but the shared ones): the places of each,
    by the order they are met."""
    places: dict[int, list] = {}

    def walk(value, path):
        if type(value) in (dict, list):
            seen = id(value) in places
            places.setdefault(id(value), []).append(path)
            if seen:
                return
            for key, inner in value.items() if type(value) is dict else enumerate(value):
                walk(inner, (*path, key))

    for key, value in copied.items():
        if key not in shared:
            walk(value, (key,))
    return sorted(paths for paths in places.values() if len(paths) > 1)


def shares_nothing(copied: dict, data: dict, shared: tuple) -> bool:
    """No map or list of the copy (but within its shared parts) is one of the source's."""

    def containers(value, found):
        if type(value) in (dict, list):
            found.append(id(value))
            for inner in value.values() if type(value) is dict else value:
                containers(inner, found)
        return found

    source = {c for key, value in data.items() if key not in shared for c in containers(value, [])}
    return not any(c in source for key, value in copied.items() if key not in shared for c in containers(value, []))


# what the engine copies with: the undo snapshot (driver.start_action), a clone, a bot's clone of its deal, undo.fail
COPIES = [
    (driver._SHARED_BY_SNAPSHOT, driver._LEFT_OUT_OF_SNAPSHOT),
    (("log", "history", "attempt", "params"), ()),
    (imagine._SHARED_BY_COPY, ()),
    (("params",), ()),
]


def check_copies(data: dict) -> None:
    for shared, skip in COPIES:
        copied = copy_state(data, shared, skip)
        expected = old_copy_state(data, shared, skip)
        assert same(copied, expected)
        assert held_twice(copied, shared) == held_twice(expected, shared)
        assert shares_nothing(copied, data, shared)


def test_a_map_or_list_held_twice_is_one_copy():
    """A secret choice's options held in its frame and in the decision pending: the copy holds one list in both places,
    as marshal's did, not two (a change through one is seen through the other, as in the source)."""
    options = [3, 5]
    allowed = {"P1": options}
    data = {
        "stack": [{"code": "x", "wait": {"first": {"P1": [options, [0, 1]]}, "allowed": allowed}}],
        "pending": {"kind": "secret", "options": options, "allowed": allowed},
        "turn": {"used": {"a": 1}},
    }
    copied = copy_state(data)
    assert same(copied, old_copy_state(data))
    assert held_twice(copied, ()) == held_twice(old_copy_state(data), ()) != []
    copied["pending"]["options"].append(7)
    assert copied["stack"][0]["wait"]["first"]["P1"][0] == [3, 5, 7] and options == [3, 5]
    assert copied["stack"][0]["wait"]["allowed"] is copied["pending"]["allowed"]


def test_a_value_marshal_cannot_write_still_raises():
    """A value of no plain kind (a state built by hand) raises marshal's ValueError, as before; a tuple is copied
    by marshal, as before."""
    with pytest.raises(ValueError):
        copy_state({"turn": {"odd": {object()}}})
    with pytest.raises(ValueError):
        old_copy_state({"turn": {"odd": {object()}}})
    data = {"turn": {"pair": ([1], "a")}, "x": True, "y": 1.5}
    assert same(copy_state(data), old_copy_state(data))


PACKS = ["cro-magnon", "neolithibum", "stone-age-mammoth-herd", "paleo-a-new-beginning", "cro-magnon-solo"]


@pytest.mark.parametrize("pack", PACKS)
def test_real_states_copy_as_before(pack):
    """States of seeded games, each decision's: copied with each caller's shared and skipped keys, the copy is the old
    one's, with the same maps and lists held twice; and the undo snapshot inside an action under way too."""
    rules = rules_module.load(resolve_target(pack))
    players = 1 if pack.endswith("solo") else 3
    for seed in range(2):
        g = Game.new(rules, players, seed)
        rnd = random.Random(seed)
        steps = 0
        while not g.over and steps < 200:
            check_copies(g.state)
            if g.state["attempt"] is not None:
                snap = g.state["attempt"]["snap"]
                assert same(copy_state(snap, ("params",)), old_copy_state(snap, ("params",)))
            decision = g.decision
            if decision.is_chance:
                g.apply_chance()
            else:
                player = decision.players[0]
                g.apply(rnd.choice(g.legal(player)), player)
            steps += 1


def _as_before():
    """The copies of before, wherever the engine copies a state."""
    return swapped_in([(module, "copy_state", old_copy_state) for module in (driver, undo, imagine)])


@pytest.mark.parametrize("pack", ["neolithibum", "paleo-a-new-beginning", "stone-age"])
def test_random_games_side_by_side(pack):
    """Random games played with the copies of before and with the new ones: the same state and work after every
    answer (the undo snapshots and undos of impossible actions copy through copy_state)."""
    rules = rules_module.load(resolve_target(pack))
    for seed in range(2):
        play_side_by_side(rules, 3, seed, _as_before, answers=250)


@pytest.mark.parametrize("pack, players", [("cro-magnon", 2), ("neolithibum", 2), ("stone-age-mammoth-herd", 2)])
def test_greedy_choices_as_before(pack, players):
    """Greedy bots choose the same answers with the copies of before (imagined deals, clones of them and their
    rollouts' snapshots all copy through copy_state), and their games end in the same state."""
    rules = rules_module.load(resolve_target(pack))
    found = []
    for as_before in (False, True):
        bots = {f"P{i + 1}": agents.GreedyAgent(seed=i) for i in range(players)}
        game = Game.new(rules, players, 3)
        if as_before:
            with _as_before():
                found.append((greedy_choices(game, bots, 30, []), game.state_hash()))
        else:
            found.append((greedy_choices(game, bots, 30, []), game.state_hash()))
    assert found[0] == found[1]


def test_a_deeply_nested_part_is_copied_without_deep_c_recursion():
    """A save may nest lists far deeper than a game does: past copies._DEEPEST levels the rest goes to marshal, which
    copies it (or stops at its own limit with a ValueError) instead of recursing in C without a limit."""
    from engine.runtime import copies

    nested: list = []
    inner = nested
    for _ in range(copies._DEEPEST * 3):
        inner.append([])
        inner = inner[0]
    copy = copies.copy_state({"env": nested})
    assert copy["env"] == nested and copy["env"] is not nested
    too_deep: list = []
    inner = too_deep
    for _ in range(100_000):
        inner.append([])
        inner = inner[0]
    with pytest.raises(ValueError):
        copies.copy_state({"env": too_deep})
