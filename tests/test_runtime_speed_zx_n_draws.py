"""Two per-decision costs of a random game cut (issue 16): `session.play_randomly` draws `rnd.randrange(n)` itself, in
compiled code, the way random.py does (`_randbelow_with_getrandbits`), when `rnd` is a plain random.Random; and
`protocol.allowed_for` gives a player's own options of a choice made at once, every option live, by sorting their
own rather than looking at every option. The same numbers, the same answers: checked against random.py and an oracle
copy of the old `allowed_for`, for any size, and over whole Neolithibum games."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import ruleset

from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.protocol import allowed_for
from engine.runtime.session import play_randomly
from engine.runtime.undo import live_options


class _Stub:
    """A game of decisions of `sizes[i]` options, one after another, by one player: what `play_randomly` reads."""

    max_answers_per_turn = None
    _answerable = (None, -1, None, 0, None, ([], {}), -1)  # nothing worked out yet (Game's): `_legal_now` is asked

    def __init__(self, sizes):
        self.sizes = list(sizes)
        self.taken: list[int] = []
        self.state = {"stage": "play" if self.sizes else "over", "pending": {"by": ["a"]}}

    def _legal_now(self, pending, player):
        return range(self.sizes[len(self.taken)])  # (a range: indexed as a list is, of any size)

    def _take(self, player, option):
        self.taken.append(option)
        if len(self.taken) == len(self.sizes):
            self.state["stage"] = "over"


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**64),
    sizes=st.lists(st.one_of(st.integers(1, 300), st.integers(1, 2**62)), min_size=1, max_size=30),
)
def test_the_draws_are_random_py_s(seed, sizes):
    """Every option drawn is `randrange(n)`'s, for every n (small, past the table of bit lengths, huge), and the
    generator is left where random.py leaves it."""
    drawn, expected = random.Random(seed), random.Random(seed)
    stub = _Stub(sizes)
    assert play_randomly(stub, drawn) == len(sizes)
    assert stub.taken == [expected.randrange(n) for n in sizes]
    assert drawn.getstate() == expected.getstate()


def test_random_py_is_not_called_for_a_plain_generator(monkeypatch):
    """The draw is made without random.py's `randrange` (fails before: it was called at each decision)."""

    def refused(self, *args):
        raise AssertionError("randrange called")

    monkeypatch.setattr(random.Random, "randrange", refused)
    stub = _Stub([3, 5, 1, 17])
    play_randomly(stub, random.Random(4))
    assert len(stub.taken) == 4


def test_another_generator_draws_its_own_way():
    """A subclass (its own `randrange`) and an empty decision go through `randrange`, as before."""

    class Fixed(random.Random):
        def randrange(self, *args):
            return 0

    stub = _Stub([5, 9, 2])
    play_randomly(stub, Fixed(1))
    assert stub.taken == [0, 0, 0]
    with pytest.raises(ValueError):
        play_randomly(_Stub([0]), random.Random(1))


def allowed_for_before(pending, player, live):
    """protocol.allowed_for before (the oracle): each option of `live` looked for in the player's own."""
    limits = pending.get("limit")
    if limits is not None:
        limit = limits.get(player)
        if limit is not None:
            live = [o for o in live if o < limit]
    allowed = pending.get("allowed")
    if allowed is not None:
        own = allowed.get(player)
        if own is not None:
            live = list(filter(set(own).__contains__, live))
    return live


@settings(max_examples=300, deadline=None)
@given(data=st.data(), count=st.integers(0, 40))
def test_own_options_as_before(data, count):
    """Any player's own options (unordered, repeated, some past the options) out of any live options."""
    own = data.draw(st.lists(st.integers(-2, count + 2), max_size=12))
    every = list(range(count))
    live = data.draw(st.sampled_from([every, every[::2], every[1:], []]))
    pending = {"options": list(range(count)), "allowed": {"a": own}}
    if data.draw(st.booleans()):
        pending["limit"] = {"a": data.draw(st.integers(0, count + 1))}
    assert allowed_for(pending, "a", live) == allowed_for_before(pending, "a", live)
    assert allowed_for(pending, "b", live) == allowed_for_before(pending, "b", live)


def test_neolithibum_own_options_as_before():
    """Every player's legal answers at every decision of seeded Neolithibum games, as the oracle gives them."""
    rules = ruleset("neolithibum")
    asked = 0
    for seed in range(2):
        game, rnd = Game.new(rules, 4, seed), random.Random(seed)
        while not game.over:
            pending = game.state["pending"]
            live = live_options(game, pending)
            for player in pending["by"]:
                assert allowed_for(pending, player, live) == allowed_for_before(pending, player, live)
                asked += pending.get("allowed") is not None
            session.play_randomly(game, rnd, limit=1)
    assert asked > 100
