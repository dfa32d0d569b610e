"""copy_state's fast path (issue 16): each part's maps and lists copied one by one (copies._copied), the shared parts,
the flat lists, `rng` and the zones put in place apart. It must give what `plain_copy` gives, key order included, and
share no container with the source but the shared parts."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.content.packs import resolve_target
from engine.runtime import copies as copies_module
from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.state import copy_state, plain_copy

SCALARS = st.one_of(st.integers(), st.text(max_size=4), st.booleans(), st.none())
PLAIN = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
    max_leaves=12,
)
STATE_KEYS = ["format", "pack", "seed", "players", "params", "rng", "zones", "loc", "orient", "counters", "turn"]
STATE_KEYS += ["stack", "pending", "ending", "attempt", "log", "history", "dead", "undone", "steps"]
# the zones' lists, `loc` and `orient` hold numbers and texts only (sliced unchecked, as before this step)
SHAPED = {
    "zones": st.dictionaries(st.text(max_size=3), st.lists(st.integers() | st.none(), max_size=4), max_size=4),
    "loc": st.lists(st.text(max_size=3), max_size=4),
    "orient": st.lists(st.integers(), max_size=4),
}


@st.composite
def states(draw):
    """A state of plain data: some of the state's keys (in any order) and others, each of any plain value (but the
    three of fixed shape); `rng` now a map of numbers, now anything."""
    keys = draw(st.lists(st.sampled_from(STATE_KEYS) | st.text(max_size=5), unique=True, max_size=12))
    rng = st.dictionaries(st.text(max_size=3), st.integers(), max_size=4) | PLAIN
    return {key: draw(SHAPED.get(key, rng if key == "rng" else PLAIN)) for key in keys}


def old_copy_state(data: dict, shared: tuple = (), skip: tuple = ()) -> dict:
    """The oracle: what copy_state gives (plain_copy of each part kept, the shared parts as they are)."""
    return {key: value if key in shared else plain_copy(value) for key, value in data.items() if key not in skip}


def same(a, b) -> bool:
    """Equal, of the same types all the way down, in the same order of keys."""
    if type(a) is not type(b):
        return False
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[key], b[key]) for key in a)
    if type(a) is list:
        return len(a) == len(b) and all(map(same, a, b))
    return a == b


def containers(value, found: list) -> list:
    """Every dict and list in `value`, itself included."""
    if type(value) in (dict, list):
        found.append(value)
        for inner in value.values() if type(value) is dict else value:
            containers(inner, found)
    return found


def shares_nothing(copied: dict, data: dict, shared: tuple) -> bool:
    """No container of the copy (but within its shared parts) is one of the source's."""
    source = {id(c) for key, value in data.items() if key not in shared for c in containers(value, [])}
    own = [c for key, value in copied.items() if key not in shared for c in containers(value, [])]
    return not any(id(c) in source for c in own)


def mutate_all(value) -> None:
    """Change every container in `value` in place."""
    for inner in containers(value, [])[::-1]:
        if type(inner) is dict:
            inner["mutated"] = [1]
        else:
            inner.append({"mutated": 1})


@settings(max_examples=300, deadline=None)
@given(states(), st.data())
def test_copy_state_is_plain_copy(data, draw):
    """Any plain state, any keys shared or skipped: the same as the oracle, key order included; mutating every
    container of the copy leaves the source as it was, and the reverse."""
    keys = list(data) + ["params", "pending", "log", "zones", "rng", "loc"]
    shared = tuple(draw.draw(st.lists(st.sampled_from(keys), unique=True, max_size=3)))
    skip = tuple(draw.draw(st.lists(st.sampled_from(keys), unique=True, max_size=3)))
    expected = old_copy_state(data, shared, skip)
    before = plain_copy(data)
    copied = copy_state(data, shared, skip)
    assert same(copied, expected)
    assert shares_nothing(copied, data, shared + skip)
    for key in copied:
        if key not in shared:
            mutate_all(copied[key])
    assert same(data, before)
    again = copy_state(data, shared, skip)
    for key in data:
        if key not in shared and key not in skip:
            mutate_all(data[key])
    assert same(again, expected)


def test_parts_of_another_shape_still_copied_deeply():
    """The parts copied apart, each in a shape of a state built by hand (a zone not a list, `rng` holding a list,
    `loc` a dict): marshal's copy of them, nothing shared. Fails if a fast path copies them shallowly."""
    data = {
        "format": "x",
        "zones": {"deck": [1, 2], "odd": {"a": [1]}},
        "rng": {"s": [1, 2]},
        "loc": {"0": ["deck"]},
        "orient": [0, 1],
        "counters": {"P1": {"vp": [1]}},
    }
    copied = copy_state(data)
    assert same(copied, old_copy_state(data))
    assert shares_nothing(copied, data, ())
    for state in ({**data, "zones": [[1]]}, {**data, "rng": 3}, {**data, "loc": "deck"}):
        assert same(copy_state(state), old_copy_state(state))


def test_fast_path_copies_lists_and_maps_apart():
    """The fast path copies the flat lists, `rng` and the zones apart from marshal: each is a new container with
    the source's very items, and what marshal copies is a new container with equal items. Fails if the step is
    undone (marshal's copy of the zones would hold new key texts) or a part copied apart is shared."""
    data = {
        "format": "knap-state/2",
        "players": ["P1", "P2"],
        "rng": {"shuffle:deck": 12345678901234567},
        "zones": {"hand:" + "P1": [3, None], "deck": [0, 1, 2]},
        "loc": ["deck", "deck", "deck", "hand:P1"],
        "orient": [0, 0, 0, 1],
        "counters": {"P1": {"vp": 1}, "P2": {"vp": 2}},
        "pending": {"kind": "action", "options": ["a"]},
    }
    copied = copy_state(data, shared=("pending",))
    assert same(copied, old_copy_state(data, ("pending",)))
    assert copied["pending"] is data["pending"]
    for key in ("zones", "rng", "loc", "orient"):
        assert copied[key] is not data[key] and copied[key] == data[key]
    assert all(a is b for a, b in zip(copied["zones"], data["zones"], strict=True))  # the same key texts
    assert all(copied["zones"][zone] is not cards for zone, cards in data["zones"].items())
    assert copied["counters"]["P1"] is not data["counters"]["P1"]


def test_plans_of_few_keys():
    """A state of one key, or whose parts are all copied apart or shared (no itemgetter's tuple to read)."""
    for data, shared in (
        ({"turn": {"used": {}}}, ()),
        ({"loc": ["a"]}, ()),
        ({"params": {}, "loc": []}, ("params",)),
        ({}, ()),
    ):
        copied = copy_state(data, shared)
        assert same(copied, old_copy_state(data, shared))
        assert shares_nothing(copied, data, shared)


def test_plans_are_kept_per_shape():
    """The plan is keyed by the keys, shared and skip: the same state copied with other shared keys is copied
    right, and the plans do not pile up past their bound."""
    data = {"a": [1], "loc": ["x"], "rng": {"s": 1}}
    assert copy_state(data, ("a",))["a"] is data["a"]
    assert copy_state(data)["a"] is not data["a"]
    for n in range(copies_module._MOST_PLANS + 5):
        copy_state({f"k{n}": n})
    assert len(copies_module._COPY_PLANS) <= copies_module._MOST_PLANS


PACKS = ["cro-magnon", "neolithibum", "stone-age-mammoth-herd", "paleo-a-new-beginning", "cro-magnon-solo"]


@pytest.mark.parametrize("pack", PACKS)
def test_real_states_copy_as_plain_copy(pack):
    """Real states of seeded games, sampled along the way: copied as the oracle copies them, with the shared and
    skipped keys of the undo snapshot (driver.start_action), of clone and of undo.fail."""
    rules = rules_module.load(resolve_target(pack))
    players = 1 if pack.endswith("solo") else 3
    for seed in range(2):
        g = Game.new(rules, players, seed)
        rnd = random.Random(seed)
        steps = 0
        while not g.over and steps < 150:
            if steps % 7 == 0:
                data = g.state
                for shared, skip in (
                    (("params", "pending"), ("log", "history", "dead", "undone", "attempt")),
                    (("log", "history", "attempt", "params"), ()),
                    (("params",), ()),
                ):
                    copied = copy_state(data, shared, skip)
                    assert same(copied, old_copy_state(data, shared, skip))
                    assert shares_nothing(copied, data, shared + skip)
            d = g.decision
            if d.is_chance:
                g.apply_chance()
            else:
                player = d.players[0]
                g.apply(rnd.choice(g.legal(player)), player)
            steps += 1


def test_no_marshal_round_trip_for_plain_parts(monkeypatch):
    """The step itself (tests/test_runtime_speed_zg_copies.py holds it to the marshal copy of before): the parts of
    plain maps and lists are copied without marshal, sharing their texts. Fails if the copy goes back to marshal."""
    monkeypatch.setattr(copies_module, "plain_copy", lambda value: pytest.fail(f"marshal copied {value!r}"))
    data = {
        "format": "knap-state/2",
        "params": {"n": 1},
        "rng": {"s": 1},
        "zones": {"deck": [0]},
        "loc": ["deck"],
        "orient": [0],
        "counters": {"P1": {"vp": 1}},
        "pending": None,
    }
    copied = copy_state(data, shared=("params", "pending"))
    assert same(copied, old_copy_state(data, ("params", "pending")))
    assert copied["counters"]["P1"] is not data["counters"]["P1"]
    assert next(iter(copied["counters"])) is next(iter(data["counters"]))  # the key text itself, not a new one
