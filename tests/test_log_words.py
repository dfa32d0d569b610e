"""The log is kept as compact facts and worded when read (engine/runtime/log_words.py): every seat must
read exactly the lines the log said when each line was worded as it happened, names only for the seats
that saw a card; a saved log entry anyone may have forged is refused with a clear error.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.runtime import rules as rules_module
from engine.runtime.game import Game
from engine.runtime.log_words import seen_by, worded_log
from engine.runtime.persist import SaveError
from engine.runtime.session import play_randomly

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "log_words"))
import generate

EXPECTED = json.loads(gzip.decompress(generate.EXPECTED.read_bytes()))
CONTENT = HERE.parent / "content"


@cache
def _rules(pack):
    return rules_module.load(CONTENT / pack)


def _first_difference(now: list, then: list) -> str:
    for i, (a, b) in enumerate(zip(now, then, strict=False)):
        if a != b:
            return f"line {i}: {a!r} != recorded {b!r}"
    return f"{len(now)} lines, recorded {len(then)}"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_seat_reads_the_recorded_log(name):
    """Each seat's log (and the spectator's), all through a seeded game and at its end, is the log recorded
    from the code that worded every line as it happened (tests/log_words/generate.py)."""
    pack, players, _, seed = name.split()  # "cro-magnon 3p seed 0"
    expected, rules = EXPECTED[name], _rules(pack)
    assert rules.fingerprint == expected["pack"], (
        f"the pack {pack} changed since its games' logs were recorded, so it plays other games: check that "
        "the log's wording is unchanged on the recorded content, then record again: "
        f"python tests/log_words/generate.py --only {pack}"
    )
    now = generate.read_game(rules, int(players[:-1]), int(seed))
    assert now["public"] == expected["public"], _first_difference(now["public"], expected["public"])
    for seat, own in expected["own"].items():
        assert now["own"][seat] == own, f"{seat} reads its own lines otherwise"
    assert now["checks"] == expected["checks"], "a seat's log read during the game differs from the recorded one"


def _played(pack="cro-magnon", players=3, seed=1, answers=None):
    game = Game.new(_rules(pack), players, seed)
    play_randomly(game, random.Random(seed), limit=answers)
    return game


def test_the_log_is_kept_as_facts_not_words():
    """Moves and counter changes are kept as compact facts, not a line per seat."""
    game = _played(answers=40)
    kinds = {entry[0] for entry in game.state["log"] if len(entry) > 2}
    assert {"move", "count"} <= kinds
    assert all(len(entry) != 2 or isinstance(entry[1], dict) for entry in game.state["log"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    pack=st.sampled_from(["cro-magnon", "neolithibum", "stone-age"]),
    seed=st.integers(0, 10_000),
    answers=st.integers(0, 150),
)
def test_who_sees_a_card_is_what_can_see_says(pack, seed, answers):
    """The mask recorded with each move (`seen_by`) is `can_see` asked of every seat, for every card."""
    game = Game.new(_rules(pack), 3, seed)
    play_randomly(game, random.Random(seed), limit=answers)
    players = game.state["players"]
    for card in range(len(game.state["loc"])):
        mask = seen_by(game, card)
        assert [bool(mask >> i & 1) for i in range(len(players))] == [game.can_see(card, p) for p in players]


def test_an_old_save_with_worded_lines_reads_and_hashes_the_same():
    """A save whose log was worded as it happened (knap before this change) loads; every seat reads the
    same lines and the game has the same fingerprint as the game whose log is kept as facts."""
    game = _played(answers=60)
    old = json.loads(game.save())
    old["log"] = worded_log(game)
    loaded = Game.load(game.rules, json.dumps(old))
    assert loaded.state_hash() == game.state_hash()
    for reader in [*game.state["players"], None]:
        assert loaded.log_for(reader) == game.log_for(reader)


def test_a_log_cut_back_in_place_is_read_again():
    """The worded lines kept between reads notice a log that was cut back and grew again."""
    game = _played(answers=30)
    before = game.log_for("P1")
    del game.state["log"][5:]
    game.state["log"].append(["Something else"])
    assert game.log_for("P1") == before[:5] + ["Something else"]


# ------------------------------------------------------------------------- forged entries in a save
def _save_with(entry_for):
    game = _played(answers=40)
    state = json.loads(game.save())
    index = next(i for i, e in enumerate(state["log"]) if e[0] == entry_for[0])
    state["log"][index] = entry_for[1](state["log"][index])
    return game.rules, state, index


def _set(entry, position, value):
    entry = list(entry)
    entry[position] = value
    return entry


FORGED = {
    "a card the pack lacks": ("move", lambda e: _set(e, 6, [9999]), "/log/{i}/6/0", "there is no card 9999"),
    "a zone the game lacks": ("move", lambda e: _set(e, 4, "nowhere"), "/log/{i}/4", "no such zone"),
    "a mask of absent seats": ("move", lambda e: _set(e, 7, [1 << 9]), "/log/{i}/7/0", "seats"),
    "masks and cards of other lengths": ("move", lambda e: _set(e, 7, e[7] + [1]), "/log/{i}/7", "one for each card"),
    "a verb no move has": ("move", lambda e: _set(e, 3, "steals"), "/log/{i}/3", "steals"),
    "a counter the pack lacks": ("count", lambda e: _set(e, 3, "gold"), "/log/{i}/3", "no such counter"),
    "a counter's owner who is not a seat": ("count", lambda e: _set(e, 2, "P9"), "/log/{i}/2", "not a seat"),
    "an entry of no known kind": ("move", lambda e: ["teleport", 0, "P1"], "/log/{i}/0", "teleport"),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_a_forged_log_entry_is_refused(case):
    kind, forge, where, words = FORGED[case]
    rules, state, index = _save_with((kind, forge))
    with pytest.raises(SaveError) as caught:
        Game.load(rules, json.dumps(state))
    assert caught.value.pointer == where.format(i=index), str(caught.value)
    assert words in caught.value.message, str(caught.value)


_ANY = st.one_of(st.none(), st.booleans(), st.integers(-2, 2**70), st.text(max_size=8))
_SEAT = st.sampled_from(["P1", "P2", "P3", "P9", "table", None])
_ZONE = st.sampled_from(["forest", "river_discard", "hand:P1", "hand:P9", "_removed", "_drawn:P2", "nowhere"])
_MASK = st.integers(-1, 2**66) | st.integers(0, 9)
_FORGED_ENTRIES = st.one_of(
    st.lists(_ANY, max_size=9),
    st.tuples(
        st.just("move"),
        st.integers(-1, 3),
        _SEAT,
        st.sampled_from(["draws", "gives P2", "steals"]),
        _ZONE,
        _ZONE,
        st.lists(st.integers(-1, 150), max_size=3),
        st.lists(_MASK, max_size=3),
    ).map(list),
    st.tuples(
        st.just("count"), st.integers(-1, 3), _SEAT, st.sampled_from(["vp", "ap", "gold"]), st.integers(-5, 5)
    ).map(list),
    st.tuples(
        st.just("together"),
        st.integers(0, 2),
        st.lists(st.tuples(_SEAT, st.text(max_size=5), _MASK).map(list), max_size=3),
    ).map(list),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entry=_FORGED_ENTRIES)
def test_any_forged_log_entry_loads_and_reads_or_is_refused_where_it_is(entry):
    """Whatever a stranger puts in a save's log, the save is refused at that entry (a JSON pointer into
    it, one sentence), or it loads and every seat can read the log: never a Python error."""
    game = _forged_base()
    state = json.loads(game.save())
    state["log"].insert(3, entry)
    try:
        loaded = Game.load(game.rules, json.dumps(state))
    except SaveError as exc:
        assert exc.pointer.startswith("/log/3"), str(exc)
        return
    for reader in [*loaded.state["players"], None]:
        assert len(loaded.log_for(reader)) == len(state["log"])


@cache
def _forged_base():
    return _played(answers=20)
