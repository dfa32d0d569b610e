"""A bot's projection and the game's end made cheaper (issue 16), each shortcut held to the way it replaced:

- `scoring.projected_margin` keeps, for the score before the end scoring (read only when the scoring does not finish),
  each owner's number of the score counter read in C by `dict.get` (the plan's endless `repeat`s its other
  arguments), not a copy of every owner's counters; the best other score is read with no `max(default=)`;
- `driver.push_game_end` makes the frames of the game's end itself on the empty stack of a game's end, no `g.push`
  called for each (`g.push` still pushes them onto a stack that is not empty, checking its depth);
- `driver._result` reads each player's score from the counters itself (as `Table.counter` reads it), and works out
  winners and the log line apart (`_decided`): a projection's game (`scores_only`) makes no closure cell of theirs;
- `driver._check_end` reads the numbers of the counters its triggers read by `dict.get` in C
  (`end_checks.trigger_reads`: the endless arguments), not by a `methodcaller` per owner, which CPython 3.11 calls
  by making a bound method and a tuple each time; counters that are no dict are read by their own `get`, as before.

Today's margins are those of before, in place and on a copy, on real games and on a bot's imagined deals of every pack
(`test_margins_are_as_before_in_every_pack`), with an end scoring that stops early too; games played to their end
with the old end of game and end checks are the same, answer for answer (`test_games_end_as_before_in_every_pack`).
"""

from __future__ import annotations

from itertools import repeat
from operator import methodcaller
from pathlib import Path

import pytest
from lockstep import play_side_by_side, swapped_in
from scenario import ruleset
from test_greedy_agent import _sampled_states
from test_runtime_speed_zu_greedy_options import _unfinished

from engine.runtime import driver, end_checks, scoring
from engine.runtime.budget import WORK_BUDGET
from engine.runtime.context import Ctx
from engine.runtime.errors import ContentError, GameError
from engine.runtime.game import Game
from engine.runtime.log_words import unread_log

PACKS = sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "content").iterdir() if (p / "pack.yaml").exists()
)


# ---------------------------------------------------------------- the ways of before, word for word
def _margin_as_before(g, player, *, in_place: bool = False) -> int:
    """scoring.projected_margin before this step, word for word (its plan and `_scores_then` inlined)."""
    counter, fewest, cooperative = g.rules.score_counter, scoring.fewest_win(g.rules), g.rules.cooperative
    state = g.state
    over = state["stage"] == "over"
    scores = (state["result"] or {}).get("scores") if over else None
    if not over and counter:
        players = state["players"]
        counters = state["counters"]
        try:
            then = dict(zip(counters, map(dict.copy, counters.values()), strict=True)) if "table" in counters else None
        except TypeError:
            then = None
        if then is None:
            now = dict(zip(players, map(g.counter, players, repeat(counter, len(players))), strict=True))
        finished = g if in_place else g.clone()
        finished.work = WORK_BUDGET
        finished.scores_only = True
        state = finished.state
        state["stack"], state["pending"], state["attempt"] = [], None, None
        state["ending"] = state["ending"] or {"rule": "projection", "by": None, "queue": []}
        try:
            _push_game_end_as_before(finished)
            finished._advance()
            scores = (state["result"] or {}).get("scores")
        except (ContentError, GameError):
            pass
        scores = scores or (_scores_then_as_before(then, players, counter) if then is not None else now)
    if not scores:
        scores = {p: g.counter(p, counter) for p in g.state["players"]} if counter else scoring.progress(g)
    if fewest:
        scores = {p: -v for p, v in scores.items()}
    mine = scores.get(player, 0)
    if cooperative:
        margin = mine
    else:
        others = scores.copy()
        others.pop(player, None)
        margin = mine - max(others.values(), default=0)
    if over:
        winners = g.state["result"]["winners"]
        margin += scoring.DECIDED if player in winners else -scoring.DECIDED if winners or not scores else 0
    return margin


def _scores_then_as_before(counters: dict, players: list, counter: str) -> dict:
    """scoring._scores_then before this step, word for word."""
    table = counters["table"]
    scores = {}
    for player in players:
        values = counters.get(player)
        scores[player] = values[counter] if values is not None and counter in values else table.get(counter, 0)
    return scores


def _push_game_end_as_before(g) -> None:
    """driver.push_game_end before this step, word for word."""
    me = driver.first_player(g)
    for key in driver.turn_plan(g.rules).game_end:
        g.push(key, me, None, {driver.NOBODY: True})
    g.state["stage"] = "result"


def _result_as_before(g):
    """driver._result before this step, word for word."""
    state = g.state
    ending = state["ending"] or {"rule": "declared", "by": None}
    counter = g.rules.score_counter
    players = state["players"]
    scores = dict(zip(players, map(g.counter, players, repeat(counter, len(players))), strict=True)) if counter else {}
    if g.scores_only:
        turns = state["turn"]["number"]
        state["result"] = {"winners": [], "scores": scores, "reason": ending.get("rule"), "turns": turns}
        state["stage"], state["pending"] = "over", None
        return
    rule = next((r for r in g.rules.ends if r["id"] == ending.get("rule")), {})
    if not rule and counter:
        rule = next((r for r in g.rules.ends if r.get("counter") == counter), {})
    if state.get("declared") is not None:
        winners = state["declared"]
    elif rule.get("result") == "win" and ending.get("by"):
        winners = [ending["by"]]
    elif rule.get("result") == "loss" and ending.get("by"):
        winners = [p for p in state["players"] if p != ending["by"]]
    elif scores:
        out = driver.out_of_play(g)
        contenders = [p for p in state["players"] if p not in out] or state["players"]
        fewest = rule.get("result") == "least"
        best = (min if fewest else max)(scores[p] for p in contenders)
        winners = [p for p in contenders if scores[p] == best]
        if len(winners) > 1:
            winners = driver._tie_broken(g, rule, winners)
    else:
        winners = []
    state["result"] = {
        "winners": winners,
        "scores": scores,
        "reason": ending.get("rule"),
        "turns": state["turn"]["number"],
    }
    state["stage"] = "over"
    state["pending"] = None
    g.log(
        f"The game ends. Winner(s): {', '.join(winners) or 'none'}"
        + (f"; {counter}: " + ", ".join(f"{p} {v}" for p, v in scores.items()) if scores else "")
    )


def _reads_as_before(plan) -> tuple | None:
    """end_checks.trigger_reads before this step: a `methodcaller` getter of each counter read (the plan's counters), and
    None for triggers that count zones (tested at every check before the key held zones' lengths)."""
    reads = plan.trigger_reads if not plan.trigger_zones else None
    return None if reads is None else tuple(methodcaller("get", c, end_checks.ABSENT) for c in reads)


def _check_end_as_before(g, plan=None):
    """driver._check_end before this step, word for word (its getters those of before)."""
    state = g.state
    plan = plan or driver.turn_plan(g.rules)
    reads, quiet = _reads_as_before(plan), None
    if reads is not None and not state.get("out"):
        counters = state["counters"]
        quiet = [*counters]
        for read in reads:
            quiet += map(read, counters.values())
        if quiet == g.ends_quiet:
            return
    triggers_tested_as_before(g, plan, state, quiet)


def triggers_tested_as_before(g, plan, state, quiet):
    """The part of driver._check_end after its quiet key, as it was before helper E's step and helper M's (the same
    in both): each trigger tested for every player in play, the key kept when none holds."""
    triggers = plan.triggers
    if not triggers or state["ending"] is not None or state["stage"] in driver._ENDED:
        return
    current = state["turn"]["player"]
    out = state.get("out") or {}
    seats = g.players_from(current)
    testing = ([p for p in seats if p not in out] or seats) if out else seats
    ctx = Ctx(g, {}, current, None)
    for rule, trigger in triggers:
        for player in testing:
            ctx.me = player
            if trigger(ctx):
                driver._end_triggered(g, rule, player, current, seats, out)
                return
    if quiet is not None and driver._UNCHANGING.issuperset(map(type, quiet)):
        g.ends_quiet = quiet


def _ends_as_before():
    """The game's end and its checks as before (the driver's `_result`, `push_game_end` and `_check_end`)."""
    return swapped_in(
        [
            (driver, "_result", _result_as_before),
            (driver, "push_game_end", _push_game_end_as_before),
            (driver, "_check_end", _check_end_as_before),
        ]
    )


def _both_margins(game, player, **kwargs) -> tuple[int, int]:
    """The margin of today and that of before (the driver's end of game as before), each on a game of its own when in
    place (clones of `game`); the two games ended alike."""
    today, before = (game.clone(), game.clone()) if kwargs.get("in_place") else (game, game)
    margin = scoring.projected_margin(today, player, **kwargs)
    with _ends_as_before():
        expected = _margin_as_before(before, player, **kwargs)
    assert today.state == before.state
    return margin, expected


# ---------------------------------------------------------------- the margins
@pytest.mark.parametrize("pack", PACKS)
def test_margins_are_as_before_in_every_pack(pack):
    """Every player's margin on sampled states of a random game of each pack (over ones included), on a copy and in
    place, and on a bot's imagined deal and its option's copy (`clone(sharing_lists=True)`, the log unread): the same
    numbers as before, the games ended the same."""
    rules = ruleset(pack)
    low, high = rules.players
    compared = 0
    for players in sorted({low, min(max(low, 3), high)}):
        for game in _sampled_states(pack, players, players, 240, 20):
            for player in game.state["players"]:
                assert len(set(_both_margins(game, player))) == 1
                assert len(set(_both_margins(game, player, in_place=True))) == 1
                compared += 2
            if game.over or not game.state["pending"]:
                continue
            deal = game.determinized(game.state["pending"]["by"][0], 3)
            for player in game.state["players"]:
                today, before = deal.clone(sharing_lists=True), deal.clone(sharing_lists=True)
                today.log = before.log = unread_log
                margin = scoring.projected_margin(today, player, in_place=True)
                with _ends_as_before():
                    assert margin == _margin_as_before(before, player, in_place=True)
                assert today.state == before.state
                compared += 1
    assert compared > 10


@pytest.mark.parametrize("error", [ContentError("no", code="X107"), GameError("no", code="X302"), None])
def test_an_unfinished_end_scoring_gives_the_score_of_before(error, monkeypatch):
    """An end scoring that changes the scores, then fails or asks a question: the scores read before it, as before,
    whichever owner holds the counter (a player, the table as the one shared, nobody)."""
    games = _sampled_states("cro-magnon", 3, 1, 120, 30)
    monkeypatch.setattr(Game, "_advance", _unfinished(3, error))
    for game in games:
        game.set_counter("P2", "vp", 4)
        shared, unheld = game.clone(), game.clone()
        del shared.state["counters"]["P1"]["vp"]
        shared.state["counters"]["table"]["vp"] = 7  # (P1's score: the table's)
        del unheld.state["counters"]["P3"]["vp"]  # (P3's score: none, 0)
        del unheld.state["counters"]["P1"]  # (no counters of P1's at all)
        for variant in (game, shared, unheld):
            for player in variant.state["players"]:
                assert len(set(_both_margins(variant, player))) == 1
                assert len(set(_both_margins(variant, player, in_place=True))) == 1


def test_counters_not_kept_in_dicts_are_read_as_before(monkeypatch):
    """A player's counters that are no dict: the scores read before the end scoring through `Table.counter`, as
    before."""
    game = _sampled_states("cro-magnon", 2, 1, 60, 59)[-1]
    monkeypatch.setattr(Game, "_advance", _unfinished(2, ContentError("no", code="X107")))
    odd = game.clone()
    odd.state["counters"]["P2"] = []
    for player in odd.state["players"]:
        assert len(set(_both_margins(odd, player, in_place=True))) == 1


def test_the_plan_reads_the_score_without_copies():
    """The plan holds the score counter and ABSENT repeated without end, read by `dict.get` (not used up by the
    projections that read them: the shortcut is gone if this fails)."""
    game = _sampled_states("cro-magnon", 2, 1, 60, 59)[-1]
    for player in ("P1", "P2", "P1"):
        scoring.projected_margin(game, player)
    counter, _, _, counters, absent = game.rules.__dict__["_margin_plan"]
    assert type(counters) is repeat and type(absent) is repeat
    assert next(counters) == counter == "vp" and next(absent) is end_checks.ABSENT


# ---------------------------------------------------------------- the game's end
def test_the_frames_of_the_games_end_are_those_of_push():
    """On the empty stack of a game's end, `push_game_end` calls no `g.push` (the shortcut is gone if this fails) and
    makes its frames; onto a stack that is not empty, and for more frames than it makes itself, `g.push` pushes them:
    the same frames either way, the depth checked as before."""
    game = _sampled_states("cro-magnon", 2, 1, 60, 59)[-1]
    pushed: list = []

    class _Counted(Game):
        def push(self, *args):
            pushed.append(args)
            return super().push(*args)

    today, before = _Counted(game.rules, game.clone().state), game.clone()
    for g in (today, before):
        g.state["stack"] = []
    driver.push_game_end(today)
    _push_game_end_as_before(before)
    assert not pushed and today.state == before.state and len(today.state["stack"]) == 2
    driver.push_game_end(today)  # (onto a stack that is not empty)
    _push_game_end_as_before(before)
    assert len(pushed) == 2 and today.state == before.state
    plan = driver.turn_plan(game.rules)
    keys = plan.game_end
    try:
        plan.game_end = keys * 40  # more frames than a stack holds: raises as before, at the same frame
        for g in (today, before):
            g.state["stack"] = []
        errors = []
        for push in (driver.push_game_end, _push_game_end_as_before):
            with pytest.raises(ContentError) as raised:
                push(today if push is driver.push_game_end else before)
            errors.append(str(raised.value))
        assert errors[0] == errors[1] and today.state == before.state
    finally:
        plan.game_end = keys


@pytest.mark.parametrize("pack", PACKS)
def test_games_end_as_before_in_every_pack(pack):
    """Random games played to their end (a long one to 400 answers) with the driver's end of game and end checks of
    today and of before, answer for answer: the same states, work, result and log."""
    rules = ruleset(pack)
    low, high = rules.players
    for players, seed in ((low, 1), (min(high, 4), 2)):
        play_side_by_side(rules, players, seed, _ends_as_before, answers=400)


def test_a_real_games_result_is_as_before():
    """A game ended for real (not a projection): its winners, scores and log line as before, ties broken alike."""
    for pack in ("cro-magnon", "stone-age", "paleo", "neolithibum"):
        for game in _sampled_states(pack, 2, 4, 300, 60):
            if game.over:
                continue
            today, before = game.clone(), game.clone()
            for g, ending in ((today, driver._result), (before, _result_as_before)):
                g.state["stack"], g.state["pending"] = [], None
                g.state["stage"] = "result"
                ending(g)
            assert today.state == before.state and today.state["stage"] == "over"


def _key_as_before(key: list | None, reads: tuple) -> list | None:
    """The key of before (the owners, then each counter's numbers of every owner) of a key of today (each owner, then
    their numbers of the counters read: helper E's step makes it in one loop over the owners)."""
    if key is None:
        return None
    step = 1 + len(reads)
    owners = key[::step]
    return owners + [key[i * step + 1 + n] for n in range(len(reads)) for i in range(len(owners))]


def test_end_checks_read_the_counters_as_before():
    """The key `_check_end` keeps of the counters its triggers read holds the owners and numbers of before, read by
    `dict.get`; an owner's counters that are no dict are read by their own `get`, as before (the same key)."""
    rules = ruleset("cro-magnon")
    plan = driver.turn_plan(rules)
    assert plan.trigger_reads == ("vp",)  # (the counters' names: helper E's step reads them in a compiled loop)
    for game in _sampled_states("cro-magnon", 3, 2, 200, 25):
        if game.over:
            continue
        today, before = game.clone(), game.clone()
        today.ends_quiet = before.ends_quiet = None
        driver._check_end(today)
        _check_end_as_before(before)
        assert _key_as_before(today.ends_quiet, plan.trigger_reads) == before.ends_quiet
        assert today.state == before.state

    class _Counters(dict):
        """Counters kept in a map that is not a plain dict: `dict.get` reads it as its own `get` would."""

    game = Game.new(rules, 2, 1)
    today, before = game.clone(), game.clone()
    for g in (today, before):
        g.state["counters"]["P2"] = _Counters(g.state["counters"]["P2"])
    driver._check_end(today)
    _check_end_as_before(before)
    assert _key_as_before(today.ends_quiet, plan.trigger_reads) == before.ends_quiet
    assert today.state == before.state
    for g in (today, before):
        g.ends_quiet = None
        g.state["counters"]["P1"] = {"vp": 1}.items()  # (no dict, and no `get`)
    errors = []
    for g, check in ((today, driver._check_end), (before, _check_end_as_before)):
        with pytest.raises(AttributeError) as raised:
            check(g)
        errors.append(str(raised.value))
    assert errors[0] == errors[1]
