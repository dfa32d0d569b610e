"""The greedy bot's look-ahead made cheaper again (issue 16), each shortcut held to the way it replaced:

- `imagine._redeal_snapshot` works out the re-dealt snapshot's `loc` in one loop, the shipped build being compiled
  (`_redeal_snapshot_as_before`, word for word the loop of before, is the oracle), and `determinized` draws the streams' new seeds in C: the same deal;
- `driver.start_action` takes its snapshot from a shared deal (`undo_base`) as a copy less the keys left out, not a
  comprehension: the same keys in the same order, the very same values;
- `scoring.projected_margin` reads the pack once (`_margin_plan`) and ends its game with `driver.push_game_end`,
  not through the driver's stage "game_end"; the frames pushed at the game's end are worked out once per pack
  (`TurnPlan.game_end`), for the real game's end too: the same frames as the loop of before, the same margins;
- a bot's imagined games keep no log line (`agents._unread_log` as their `Table.log`): nothing they play reads it;
- `Table.set_counter` reads a counter's limits from a table worked out once per pack (`table.counter_limits`), not
  from its document at each change: the same change, state and error as the document read (`Table._set_counter`).

The bot playing with all of them chooses as the bot playing the ways of before, with the same margins, in seeded
games of every pack (`test_the_bot_chooses_as_before_in_every_pack`).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

import pytest
from lockstep import greedy_choices
from scenario import ruleset
from test_greedy_agent import _sampled_states
from test_runtime_speed_h_greedy import _determinized_as_before

from engine.runtime import agents, driver, imagine, scoring, table
from engine.runtime.agents import GreedyAgent
from engine.runtime.budget import WORK_BUDGET
from engine.runtime.errors import ContentError, GameError
from engine.runtime.game import Game
from engine.runtime.protocol import END_TURN
from engine.runtime.state import copy_state
from engine.runtime.table import Table

PACKS = sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "content").iterdir() if (p / "pack.yaml").exists()
)


# ---------------------------------------------------------------- the ways of before, word for word
def _redeal_snapshot_as_before(attempt, imagined: dict[int, int]) -> None:
    """imagine._redeal_snapshot before this step, word for word."""
    snap = copy_state(attempt["snap"], shared=("params", "pending"))
    zones, loc, was_at = snap["zones"], snap["loc"], attempt["snap"]["loc"]
    for key in {was_at[card] for card in imagined}:  # the zones that held re-dealt cards; the others stay as copied
        zones[key] = list(map(imagined.get, zones[key], zones[key]))  # an empty place (None) stays empty
    for card, instead in imagined.items():
        loc[instead] = was_at[card]
    attempt["snap"] = snap


def _margin_as_before(g, player, *, in_place: bool = False) -> int:
    """scoring.projected_margin before this step, word for word (its game ended through the driver's stage)."""
    counter = g.rules.score_counter
    over = g.over
    scores = (g.state["result"] or {}).get("scores") if over else None
    if not over and counter:
        now = {p: g.counter(p, counter) for p in g.state["players"]}
        finished = g if in_place else g.clone()
        finished.work = WORK_BUDGET
        finished.scores_only = True  # no winners worked out (driver._result)
        state = finished.state
        state["stack"], state["pending"], state["attempt"] = [], None, None
        state["ending"] = state["ending"] or {"rule": "projection", "by": None, "queue": []}
        state["stage"] = "game_end"
        try:
            finished._advance()  # stops early if the scoring asks a question: the score before it is used
            scores = (finished.state["result"] or {}).get("scores")
        except (ContentError, GameError):
            pass
        scores = scores or now
    if not scores:
        scores = {p: g.counter(p, counter) for p in g.state["players"]} if counter else scoring.progress(g)
    if scoring.fewest_win(g.rules):  # `result: least`: the fewest points are the best, so a margin counts them down
        scores = {p: -v for p, v in scores.items()}
    others = [] if g.rules.cooperative else [v for p, v in scores.items() if p != player]
    margin = scores.get(player, 0) - (max(others) if others else 0)
    if over:  # a game decided by winning or losing (a solo or cooperative end) counts that first
        winners = g.state["result"]["winners"]
        margin += scoring.DECIDED if player in winners else -scoring.DECIDED if winners or not scores else 0
    return margin


def _push_game_end_as_before(g) -> None:
    """driver.step at the stage "game_end" before this step, word for word."""
    state = g.state
    me = driver.first_player(g)
    driver._push_phases(g, ("game_end",), me)
    for scoring_rule in reversed(g.rules.scorings):
        if scoring_rule.get("when", "game_end") == "game_end" and scoring_rule.get("effect"):
            g.push(f"scoring/{scoring_rule['id']}/effect", me, None, {driver.NOBODY: True})
    state["stage"] = "result"


class _AsBefore(Game):
    """A game played the ways of before: its margin as before, and its log kept whatever a bot sets as `log`."""

    projected_margin = _margin_as_before

    @property
    def log(self):
        return Table.log.__get__(self)

    @log.setter
    def log(self, value):
        pass


class _Recorded(Game):
    """A game of today's ways that records every margin its bot works out (on it or on its copies)."""

    margins: ClassVar[list] = []

    def projected_margin(self, player, *, in_place: bool = False) -> int:
        margin = scoring.projected_margin(self, player, in_place=in_place)
        self.margins.append(margin)
        return margin


def _greedy_game(pack: str, cls, margins: list, decisions: int) -> list:
    """The choices of greedy bots in a seeded game of `pack` (its fewest players, at least 2 where it may), the real
    game of class `cls` (its imagined games are too), every margin worked out recorded in `margins`."""
    rules = ruleset(pack)
    low, high = rules.players
    game = cls(rules, Game.new(rules, max(low, min(2, high)), 5).state)
    bots = {p: GreedyAgent(i) for i, p in enumerate(game.state["players"])}
    return greedy_choices(game, bots, decisions, margins)


@pytest.mark.parametrize("pack", PACKS)
def test_the_bot_chooses_as_before_in_every_pack(pack, monkeypatch):
    """Greedy bots of today and greedy bots playing every way of before (their snapshot re-dealt card by card, the
    margin ended through the driver, the game's end pushed by the loop of before, the imagined games' logs kept):
    the same choices in a seeded game of each pack, each with the same margins."""
    today: list = []
    monkeypatch.setattr(_Recorded, "margins", today)
    chosen = _greedy_game(pack, _Recorded, today, 8)
    before: list = []
    monkeypatch.setattr(imagine, "_redeal_snapshot", _redeal_snapshot_as_before)
    monkeypatch.setattr(driver, "push_game_end", _push_game_end_as_before)
    monkeypatch.setattr(_AsBefore, "projected_margin", _recording(before))
    assert _greedy_game(pack, _AsBefore, before, 8) == chosen
    assert today == before and (today or pack in _NO_LOOK_AHEAD)


_NO_LOOK_AHEAD: set = set()  # packs whose first decisions never have two options (none today)


def _recording(margins: list):
    def recorded(g, player, *, in_place: bool = False) -> int:
        margin = _margin_as_before(g, player, in_place=in_place)
        margins.append(margin)
        return margin

    return recorded


# ---------------------------------------------------------------- the re-dealt snapshot
@pytest.mark.parametrize(
    "pack, players, every",
    [("cro-magnon", 4, 5), ("cro-magnon", 2, 3), ("cro-magnon-solo", 1, 2)],
)
def test_the_snapshot_is_re_dealt_as_before(pack, players, every, monkeypatch):
    """At states of a random game with an action under way (the packs that have such states), each player's imagined game (its snapshot re-dealt with
    `loc` made in C) is the one the card-by-card loop of before made, and the true game is untouched."""
    snapshots = 0
    for game in _sampled_states(pack, players, 2, 300, every):
        if game.over or game.state["attempt"] is None:
            continue
        snapshots += 1
        true = copy_state(game.state)
        for player in game.state["players"]:
            for seed in (0, 3):
                today = game.determinized(player, seed).state
                with monkeypatch.context() as patched:
                    patched.setattr(imagine, "_redeal_snapshot", _redeal_snapshot_as_before)
                    assert today == _determinized_as_before(game, player, seed).state
                assert list(today["attempt"]["snap"]) == list(true["attempt"]["snap"])
        assert game.state == true
    assert snapshots >= 3


def test_a_snapshot_whose_loc_is_not_a_list_is_re_dealt_card_by_card():
    """A state built by hand with `loc` as a map: re-dealt by the loop, as before."""
    game = next(g for g in _sampled_states("cro-magnon", 2, 2, 200, 3) if g.state["attempt"] is not None)
    snap = game.state["attempt"]["snap"]
    cards = snap["zones"]["forest"] + snap["zones"]["river"]  # cards trade places across zones: `loc` changes
    imagined = dict(zip(cards, reversed(cards), strict=True))
    by_hand = {**game.state["attempt"], "snap": {**snap, "loc": dict(enumerate(snap["loc"]))}}
    expected, loc = {**by_hand}, by_hand["snap"]["loc"]
    imagine._redeal_snapshot(by_hand, imagined)
    _redeal_snapshot_as_before(expected, imagined)
    assert by_hand["snap"] == expected["snap"] and type(by_hand["snap"]["loc"]) is dict
    assert by_hand["snap"]["loc"] is not loc and by_hand["snap"]["loc"] != loc


def test_a_snapshot_of_many_re_dealt_cards_is_re_dealt_as_before():
    """Many cards of several zones re-dealt in a snapshot: the very snapshot of before (the re-deal ran in C, maps of
    method wrappers, a few bytecodes a zone; compiled, its loop costs a third of them: helper G, issue 16)."""
    game = next(g for g in _sampled_states("cro-magnon", 2, 2, 200, 3) if g.state["attempt"] is not None)
    cards = [card for key in ("forest", "river", "plains", "mountains") for card in game.state["zones"][key]]
    assert len(cards) > 60
    imagined = dict(zip(cards, reversed(cards), strict=True))
    attempt = {**game.state["attempt"]}
    expected = {**attempt}
    _redeal_snapshot_as_before(expected, imagined)
    imagine._redeal_snapshot(attempt, imagined)
    assert attempt["snap"] == expected["snap"]
    assert attempt["snap"]["loc"] is not game.state["attempt"]["snap"]["loc"]


# ---------------------------------------------------------------- the snapshot taken from a shared deal
def _snapshot_as_before(base: dict, pending) -> dict:
    """driver.start_action's snapshot from `undo_base` before this step, word for word."""
    snap = {key: value for key, value in base.items() if key not in driver._LEFT_OUT_OF_SNAPSHOT}
    snap["pending"] = pending
    snap["attempt"] = None
    return snap


@pytest.mark.parametrize("pack, players", [("cro-magnon", 3), ("cro-magnon", 2), ("cro-magnon-solo", 1)])
def test_the_snapshot_of_a_shared_deal_is_as_before(pack, players):
    """At every menu of a random game (of the packs with menus), each action started on a copy offered the deal as its
    snapshot: the snapshot
    has the keys of before in their order, each the very value the comprehension of before kept."""
    started = 0
    for deal in _sampled_states(pack, players, 3, 300, 3):
        pending = deal.state["pending"]
        if deal.over or pending is None or pending["kind"] != "action" or deal.state["attempt"] is not None:
            continue
        player = pending["by"][0]
        for option in deal.legal(player):
            if pending["options"][option] == END_TURN:
                continue
            game = deal.clone()
            game.undo_base = deal.state
            driver.start_action(game, pending["options"][option], pending, option)
            snap = game.state["attempt"]["snap"]
            expected = _snapshot_as_before(deal.state, pending)
            assert list(snap) == list(expected)
            assert all(snap[key] is expected[key] for key in expected)
            started += 1
    assert started >= 5


# ---------------------------------------------------------------- the game's end and the margin
@pytest.mark.parametrize("pack", PACKS)
def test_the_frames_pushed_at_the_game_end_are_those_of_before(pack):
    """`push_game_end` (TurnPlan.game_end) pushes the frames the loop of before pushed, in the same order, each
    with its own env, and moves to the stage "result"."""
    game = Game.new(ruleset(pack), ruleset(pack).players[0], 0)
    today, before = game.clone(), game.clone()
    for g in (today, before):
        g.state["stack"] = []
    driver.push_game_end(today)
    _push_game_end_as_before(before)
    assert today.state["stack"] == before.state["stack"] and today.state["stage"] == before.state["stage"] == "result"
    envs = [frame["env"] for frame in today.state["stack"]]
    assert len({id(env) for env in envs}) == len(envs)


@pytest.mark.parametrize("pack, players", [("cro-magnon", 3), ("cro-magnon-solo", 1), ("neolithibum", 3)])
def test_the_margin_is_the_margin_of_before(pack, players):
    """At states across a random game (to its end), each player's margin, in place and on a copy: that of before."""
    for game in _sampled_states(pack, players, 1, None, 17):
        for player in game.state["players"]:
            assert scoring.projected_margin(game, player) == _margin_as_before(game, player)
            today, before = game.clone(), game.clone()
            assert scoring.projected_margin(today, player, in_place=True) == _margin_as_before(
                before, player, in_place=True
            )
            assert today.state == before.state


def test_a_projection_goes_through_no_stage_of_the_driver(monkeypatch):
    """The projection pushes the game's end itself: `driver.step` runs only for the result (the shortcut is gone
    if it runs at the stage "game_end")."""
    stages: list = []
    step = driver.step

    def counted(g):
        stages.append(g.state["stage"])
        step(g)

    game = _sampled_states("cro-magnon", 2, 1, 60, 59)[-1]
    monkeypatch.setattr("engine.runtime.interpreter.driver_step", counted)
    scoring.projected_margin(game, "P1")
    assert stages == ["result"]
    assert game.rules.__dict__["_margin_plan"][:3] == ("vp", False, False)  # (then the score read's repeats)


# ---------------------------------------------------------------- the imagined games' logs
def _deal_after_act(cls):
    """The imagined deal a bot played its last option on, at the first menu of a seeded Cro-Magnon game of class
    `cls`, the real game's log lines before and after, and the lines the deal logged."""
    rules = ruleset("cro-magnon")
    game = cls(rules, Game.new(rules, 2, 3).state)
    seen: list = []

    def model():
        seen.append(game.determinized(player, 0))
        return seen[-1]

    player = game.state["pending"]["by"][0]
    lines = len(game.state["log"])
    GreedyAgent(0).act({"you": player}, game.legal(player), model)
    texts = [entry[0] for entry in seen[0].state["log"][lines:] if len(entry) <= 2 and isinstance(entry[0], str)]
    return seen[0], lines, len(game.state["log"]), texts


def test_the_imagined_games_keep_no_log_line():
    """The bot's imagined games log nothing through `Table.log` (the lines of an action started, of a new turn), as
    they did before; the real game's log is untouched."""
    deal, lines, after, texts = _deal_after_act(Game)
    assert vars(deal)["log"] is agents._unread_log
    assert after == lines and not any(text.startswith(("P1: ", "Turn ")) for text in texts)
    deal, lines, after, texts = _deal_after_act(_AsBefore)
    assert after == lines and any(text.startswith(("P1: ", "Turn ")) for text in texts)


# ---------------------------------------------------------------- a counter's limits, read once per pack
def _outcome(set_counter, game, *args):
    try:
        return set_counter(game, *args)
    except ContentError as exc:
        return ("error", exc.code, str(exc))


@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum", "stone-age-mammoth-herd", "paleo-a-new-beginning"])
def test_a_counter_is_set_as_its_document_says(pack):
    """Each counter of the pack, of each owner, set to numbers below, within and above its limits, by the limits read
    once (`counter_limits`) and by its document (`Table._set_counter`, the way of before): the same change or error,
    the same state."""
    rules = ruleset(pack)
    game = Game.new(rules, rules.players[0], 0)
    cases = 0
    for counter_id in rules.counters:
        for owner in [*game.state["players"], "table"]:
            for value in (-7, 0, 1, 5, 10**6):
                today, before = game.clone(), game.clone()
                now = _outcome(Table.set_counter, today, owner, counter_id, value)
                assert now == _outcome(Table._set_counter, before, owner, counter_id, value, None)
                assert today.state == before.state
                cases += 1
    assert cases and table.counter_limits(rules) and set(table.counter_limits(rules)) <= set(rules.counters)


def test_a_counter_of_one_number_is_set_without_its_document(monkeypatch):
    """A counter of one number is set from the limits read once: the document is not read (the shortcut is gone if
    this fails), and the game's table is the pack's, shared by its copies."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 2, 0)
    assert game._counter_limits is table.counter_limits(rules) is game.clone()._counter_limits
    monkeypatch.setattr(Table, "_set_counter", None)
    assert game.set_counter("P1", "vp", 3) == 3 and game.state["counters"]["P1"]["vp"] == 3
