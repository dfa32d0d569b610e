"""Untrusted effects: whatever a lint-clean effect text says, playing it either works or stops with a
content error that names its line — never a Python exception, a hang, or a broken state."""

from __future__ import annotations

import random

import invariants
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.runtime.errors import ContentError
from engine.runtime.game import Game, GameError
from engine.runtime.rules import PackError, load
from engine.runtime.session import play_randomly

PACK = """kind: pack
id: fuzz
name: Fuzz
version: 1.0.0
players: {min: 2, max: 2}
parameters:
  goal: {description: VP to win, default: 5}
"""
WORLD = """kind: zone
id: deck
name: Deck
type: deck
visibility: hidden
shuffled: true
discard: pile
refill_from: pile
---
kind: zone
id: pile
name: Pile
type: pile
visibility: public
---
kind: zone
id: row
name: Row
type: row
visibility: public
slots: 3
refill_from: deck
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
visibility: owner
---
kind: counter
id: vp
name: VP
owner: player
min: 0
---
kind: card
id: gem
name: Gem
type: thing
deck: deck
copies: 6
tags: [shiny]
stats: {worth: 2}
---
kind: card
id: rock
name: Rock
type: thing
deck: deck
copies: 6
stats: {worth: 0}
---
kind: end
id: goal_reached
name: Goal
trigger: me.vp >= goal
then: last_turns_then_trigger_player
result: most
counter: vp
---
kind: action
id: act
name: Act
effect: |
%s
"""

_CARDS = [
    "hand(me)",
    "deck",
    "pile",
    "row",
    "hand(next_player(me))",
    "(hand(me) where tag = shiny)",
    "(pile where worth > 0)",
    "picked",
    "[top(deck)]",
    # expressions of issue 13
    "sort(hand(me), 0 - item.worth)",
    "unique(pile + hand(me))",
    "(if count(pile) > 1 then pile else hand(me))",
]
_NUMS = st.sampled_from(["0", "1", "2", "3", "count(hand(me))", "count(pile)", "(goal - 4)", "-1", "100"])
_SIMPLE = st.one_of(
    st.builds("gain {} vp".format, _NUMS),
    st.builds("lose {} vp".format, _NUMS),
    st.builds("draw {} from deck to hand".format, _NUMS),
    st.builds("draw {} from deck to row at 2".format, _NUMS),
    st.builds("draw {} from deck as picked".format, _NUMS),
    st.builds("choose {} from {} as picked".format, _NUMS, st.sampled_from(_CARDS)),
    st.builds("choose between(0, {}) from {} as picked".format, _NUMS, st.sampled_from(_CARDS)),
    st.builds("move {} to {}".format, st.sampled_from(_CARDS), st.sampled_from(["pile", "hand", "row"])),
    st.builds("discard {}".format, st.sampled_from(_CARDS)),
    st.builds("turn {} to reversed".format, st.sampled_from(_CARDS)),
    st.builds("give {} to next_player(me)".format, st.sampled_from(["hand(me)", "picked"])),
    st.builds("require count({}) > {}".format, st.sampled_from(_CARDS), _NUMS),
    st.just("shuffle pile into deck"),
    st.just("reveal hand(me)"),
    st.just('ask me "Again?" as again'),
    st.just("invite opponents with 1 as helpers"),
    st.just("roll 1 of 6 as picked"),
    st.just("end_turn"),
    st.just("perform act"),
    st.just("stop"),
    # words and expressions of issue 13
    st.builds('choose 1 from {} as picked showing "{{item.name}} worth {{worth}}"'.format, st.sampled_from(_CARDS)),
    st.builds("choose 1 from map({}, [item, item.worth]) as pair".format, st.sampled_from(_CARDS)),
    st.builds('log "{{me}} has {{count(hand(me))}} cards: {{{}}}; {{{{ok}}}}"'.format, st.sampled_from(_CARDS)),
    st.builds("gain sum(map({}, item.worth > 0)) + index_of(players, me) vp".format, st.sampled_from(_CARDS)),
    st.builds('choose_secretly players from {} as picks showing "{{item.name}}"'.format, st.sampled_from(_CARDS)),
)


def _block(depth):
    if depth == 0:
        return st.lists(_SIMPLE, min_size=1, max_size=4)
    compound = st.one_of(
        st.builds(lambda n, body: [f"repeat {n} times:"] + ["    " + b for b in body], _NUMS, _block(depth - 1)),
        st.builds(
            lambda n, body: [f"if count(hand(me)) > {n}:"] + ["    " + b for b in body], _NUMS, _block(depth - 1)
        ),
        st.builds(lambda body: ["for each x in hand(me):"] + ["    " + b for b in body], _block(depth - 1)),
    )
    return st.lists(st.one_of(_SIMPLE.map(lambda s: [s]), compound), min_size=1, max_size=4).map(
        lambda parts: [line for part in parts for line in part]
    )


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(lines=_block(2), seed=st.integers(0, 2**16))
def test_any_lint_clean_effect_plays_or_stops_with_a_content_error(tmp_path_factory, lines, seed):
    root = tmp_path_factory.mktemp("fuzz")
    (root / "pack.yaml").write_text(PACK)
    (root / "world.yaml").write_text(WORLD % "\n".join("  " + line for line in lines))
    try:
        rules = load(root)
    except PackError:
        return  # lint refused it: nothing to play
    game = Game.new(rules, 2, seed)
    try:
        play_randomly(game, random.Random(seed), after=invariants.Watch(game), limit=60)
    except ContentError as exc:
        assert exc.message and rules.describe(exc).startswith(str(root / "world.yaml") + ":")
    except GameError as exc:
        assert exc.code != "X302"  # nobody-can-answer
