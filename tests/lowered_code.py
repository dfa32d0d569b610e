"""What the tests of lowered code share (tests/test_runtime_speed_y_inlined_verbs.py, zw_inlined_expressions,
zw_loop_rounds, zw_lowered_stops, zx_f_flag_reads, zi_read_expressions, zl_lowered_runs): a one-action pack's lowered functions dropped
so that a switch of lowering.py takes effect, a run with one switch off (the oracle: the code before its step) and on,
what taking `act` leaves (the oracle's and the code's, compared: `act_once`, `act_twice`), and the source the first `act` lowers."""

from __future__ import annotations

import contextlib
import json
import random

from engine.runtime import ahead, lowering
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.session import play_randomly


def forget(rules):
    """Drop every lowered function of `rules`: the next run lowers its effects again, as lowering.py's switches say."""
    for code in rules.code.values():
        if hasattr(code, "entries"):
            code.entries = None


@contextlib.contextmanager
def switched_off(switch: str, rules=None, module=lowering):
    """`module`'s `switch` (lowering.py's `INLINING`, `INLINED_EXPRESSIONS`...; verbs.py's, interpreter.py's) off
    inside: the code before its step. `rules`' lowered functions are dropped on the way in and out, so that each run
    lowers its effects as the switch says."""
    if rules is not None:
        forget(rules)
    setattr(module, switch, False)
    try:
        yield
    finally:
        setattr(module, switch, True)
        if rules is not None:
            forget(rules)


def both_ways(rules, switch: str, run=None):
    """`run(rules)` (`act_twice` unless given) with lowering.py's `switch` off, then on: (the oracle's, the code's)."""
    run = run or act_twice
    with switched_off(switch, rules):
        reference = run(rules)
    return reference, run(rules)


def act_twice(rules, players: int = 2):
    """The state (`repr`, `steps` included) and work left before and after each time the first player takes `act`
    (twice at most), and the error (message, code, text, offset) that stopped it."""
    game = Game.new(rules, players, 0)
    error = None
    seen = []
    try:
        for _ in range(2):
            seen.append((repr(game.state), game.work))
            if game.over or "act" not in game.decision.options:
                break
            game.apply(game.decision.options.index("act"), game.decision.players[0])
        seen.append((repr(game.state), game.work))
    except ContentError as exc:
        error = (exc.message, exc.code, exc.code_key, exc.offset)
    return seen, error


def act_once(rules, players: int = 2, *, work: bool = True):
    """The state after the first player takes `act` (JSON, `steps` included) and the work left (None when not
    `work`), or None and the error (message, code, text, offset) it raised."""
    game = Game.new(rules, players, 0)
    try:
        game.apply(game.decision.options.index("act"), game.decision.players[0])
    except ContentError as exc:
        return None, (exc.message, exc.code, exc.code_key, exc.offset)
    return json.dumps(game.state, sort_keys=True), game.work if work else None


def lowered_sources(rules, monkeypatch) -> str:
    """The Python source of every lowered function the first `act` makes."""
    sources = []
    original = ahead.compiled

    def keep(source, filename):
        sources.append(source)
        return original(source, filename)

    monkeypatch.setattr(ahead, "_TABLE_ON", False)  # (every source compiled now, none made by a factory ahead)
    monkeypatch.setattr(ahead, "compiled", keep)
    forget(rules)
    game = Game.new(rules, 2, 0)
    game.apply(game.decision.options.index("act"), game.decision.players[0])
    return "\n".join(sources)


def every_decision(rules, seed: int, fewest: int = 3, answers: int = 400):
    """The state (JSON, `steps` included) and work left after each answer of a seeded random game of `rules` (at
    least `fewest` players, as the pack allows), and its final hash: a whole pack played both ways, compared."""
    low, high = rules.players
    game = Game.new(rules, min(max(low, fewest), high), seed)
    seen = []
    play_randomly(game, random.Random(seed), limit=answers, after=lambda g: seen.append((json.dumps(g.state), g.work)))
    return seen, game.state_hash()


def assert_same_games(reference, other, pack: str) -> None:
    """Two `every_decision` runs of `pack` (the oracle's, the code's) equal, decision for decision, and in the end."""
    assert len(other[0]) == len(reference[0])
    for i, (a, b) in enumerate(zip(reference[0], other[0], strict=True)):
        assert a == b, f"{pack}: decision {i} differs"
    assert other[1] == reference[1]
