"""Two games played side by side, answer for answer: one with the engine as it is, one with its old code swapped in
(the speed tests' oracles, tests/test_runtime_speed_*.py). After every answer both must hold the same state and the
same work left, so a fast path that changes anything a player, a save or a budget could see fails at that answer."""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, contextmanager

from engine.runtime.game import Game

_ABSENT = object()  # an attribute the owner did not hold itself (inherited, or none): deleted again afterwards

# what the wait of a secret choice of one pick each held before 2026-12-05 and holds no more (verbs.ChooseSecretly: its
# one answer each is an option's place, nothing to forget of picks): an oracle older than that still makes them
_ONE_PICK_KEPT_BEFORE = ("limits", "picks", "offer", "first")


def _one_pick_each(wait) -> bool:
    """Whether a frame's wait is a secret choice's of one pick each (no `taking`)."""
    return isinstance(wait, dict) and wait.get("taking") is False and "own" in wait


def as_kept_now(state: dict) -> dict:
    """`state` with the waits of secret choices of one pick each as the engine keeps them now (a copy, where one
    differs): the old oracles' games hold the same state but for what `_ONE_PICK_KEPT_BEFORE` names. Waits are in the
    frames of the stack, and of the state an action's undo would put back (`attempt`'s `snap`)."""

    def frames_now(stack: list) -> list:
        return [
            {**frame, "wait": {k: v for k, v in wait.items() if k not in _ONE_PICK_KEPT_BEFORE}}
            if _one_pick_each(wait := frame.get("wait"))
            else frame
            for frame in stack
        ]

    now = {**state, "stack": frames_now(state["stack"])}
    attempt = state.get("attempt")
    if isinstance(attempt, dict) and isinstance(attempt.get("snap"), dict) and "stack" in attempt["snap"]:
        now["attempt"] = {**attempt, "snap": {**attempt["snap"], "stack": frames_now(attempt["snap"]["stack"])}}
    return now


def kept_before(wait: dict) -> dict:
    """`wait`, a secret choice's, given back what one of one pick each held before 2026-12-05 (`_ONE_PICK_KEPT_BEFORE`)
    when it lacks it, as the old oracles read it: no pick yet, one each, every place offered (the first of an option
    offered twice is the one an answer names: verbs._place_answered), and once asked what was first offered (an old
    `_pending` asks a first round only of a wait without it). Returns the same dict."""
    if _one_pick_each(wait):  # (each on its own: an old `run` made limits and picks, an old `_pending` offers)
        own = wait["own"]
        if "limits" not in wait:
            wait["limits"] = {p: [1, 1] for p in own}
        if "picks" not in wait:
            wait["picks"] = {p: [] for p in own}
        if "offer" not in wait:
            wait["offer"] = {p: list(range(len(keys))) for p, keys in own.items()}
        if "order" in wait and "first" not in wait:  # asked already: an old `_pending` asks no first round again
            wait["first"] = {p: [wait["offer"][p], list(own[p])] for p in wait["order"]}
    return wait


@contextmanager
def swapped_in(patches: Iterable[tuple[object, str, object]]) -> Iterator[None]:
    """Each `(owner, name, value)` set on its owner (a class or a module) for as long as the block runs, and what the
    owner held itself put back after it."""
    swaps = list(patches)
    kept = [(owner, name, vars(owner).get(name, _ABSENT)) for owner, name, _ in swaps]
    for owner, name, value in swaps:
        setattr(owner, name, value)
    try:
        yield
    finally:
        for owner, name, value in reversed(kept):
            if value is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, value)


@contextmanager
def _lowered_apart(rules, lowered: dict, as_before: Callable[[], AbstractContextManager]) -> Iterator[None]:
    """`as_before()` with the rules' lowered functions of the game played as before (`lowered`: code -> them). A
    lowered effect keeps the verb methods it was built with: those lowered inside the block run there alone, and
    those lowered outside it outside, so that each game runs its own code, lowered or step by step."""
    codes = [code for code in rules.code.values() if hasattr(code, "entries")]
    outside = [code.entries for code in codes]
    with as_before():
        for code in codes:
            code.entries = lowered.get(code)
        try:
            yield
        finally:
            for code, entries in zip(codes, outside, strict=True):
                lowered[code] = code.entries
                code.entries = entries


def play_side_by_side(
    rules,
    players: int,
    seed: int,
    as_before: Callable[[], AbstractContextManager],
    *,
    rules_before=None,
    answers: int | None = None,
) -> Counter[str]:
    """A random game (its answers drawn from `seed`) played now and, answer for answer, as before: the game as before
    is made and answered inside `as_before()`, which swaps the old code in (with `rules_before`, rules of its own;
    either way lowered apart from those of the game played now). The same state once set up; after every answer the
    same state (its log included) and the same work left; at the end, both over or neither and the same fingerprint
    (the log's words). Played until the game is over, or `answers` answers. Returns how many decisions of each kind
    were answered."""
    lowered: dict = {}
    rules_before = rules if rules_before is None else rules_before

    def old_code():
        return _lowered_apart(rules_before, lowered, as_before)

    with old_code():
        before = Game.new(rules_before, players, seed)
    now = Game.new(rules, players, seed)
    assert now.state == as_kept_now(before.state)
    rnd = random.Random(seed)
    kinds: Counter[str] = Counter()
    while not now.over and (answers is None or kinds.total() < answers):
        decision = now.decision
        kinds[decision.kind] += 1
        player = decision.players[0]
        legal = now.legal(player)
        option = legal[rnd.randrange(len(legal))]
        now.apply(option, player)
        with old_code():
            before.apply(option, player)
        assert now.state == as_kept_now(before.state)
        assert now.work == before.work
    assert before.over == now.over
    kept, before.state = before.state, as_kept_now(before.state)  # (stopped after `answers`: its waits as kept now)
    try:
        assert now.state_hash() == before.state_hash()
    finally:
        before.state = kept
    return kinds


def greedy_choices(game: Game, bots: dict, decisions: int, margins: list) -> list:
    """The first `decisions` answers of `bots` (by player) in `game`, chance answered by the game's own stream: each
    option with the margins its bot worked out for it, read off `margins` (where the caller's bots record them)."""
    choices: list = []
    while not game.over and len(choices) < decisions:
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        model = functools.partial(game.determinized, player, len(game.state["history"]))
        before = len(margins)
        option = bots[player].act({"you": player}, game.legal(player), model)
        choices.append((option, margins[before:]))
        game.apply(option, player)
    return choices
