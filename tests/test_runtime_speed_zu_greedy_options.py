"""The greedy bot's options tried for less (issue 16), each shortcut held to the way it replaced:

- `GreedyAgent.act` works out the imagined deal's legal answers once and takes each option found among them as
  `Game.apply` would once its checks passed (`Game._take`), not through `apply` again for every option's copy;
  an option not legal there still goes through `apply`, which raises as it always has;
- `interpreter.advance` stops at a menu of one option asked of one player with no dead end known (a look-ahead's
  stop at another player's menu, driver._main) without working out its live options: nothing it did with them
  changed anything there;
- `scoring.projected_margin` keeps the counters as they were (each owner's copied in C) instead of reading every
  player's score before the end scoring; the score of before is read from them only when the scoring does not
  finish (`_scores_then`);
- `imagine.determinized` deals a run of one card (a hidden card in a hand) by itself, with no slice taken;
- a game's attributes stay where CPython lays them out for every game (its values in place, no dict of its own):
  `Game._take_tables` (a clone's) and the log's caches (log_words) no longer read a game's `__dict__`, and the
  seats' bits are the layout's (log_words.seat_bits), not one attribute more per game, so that the `log` a bot gives
  its imagined games fits the 29 names CPython lays out (each attribute read of a game in a dict of its own took
  some times as long: greedy -7 % instructions).

The bot of today chooses as the bot playing the ways of before, with the same margins, in seeded games of every
pack (`test_the_bot_chooses_as_before_in_every_pack`).
"""

from __future__ import annotations

import ctypes
import random
import subprocess
import sys
from collections import deque
from itertools import repeat
from pathlib import Path
from typing import ClassVar

import pytest
from lockstep import greedy_choices
from scenario import ruleset
from test_greedy_agent import _sampled_states

from engine.runtime import agents, imagine, interpreter, scoring
from engine.runtime.agents import GreedyAgent
from engine.runtime.budget import WORK_BUDGET
from engine.runtime.driver import push_game_end
from engine.runtime.errors import ContentError, GameError
from engine.runtime.game import Game
from engine.runtime.log_words import lines_for, seat_bits
from engine.runtime.protocol import CHANCE, END_TURN
from engine.runtime.rng import Streams
from engine.runtime.session import play_randomly
from engine.runtime.table import Table

PACKS = sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "content").iterdir() if (p / "pack.yaml").exists()
)


# ---------------------------------------------------------------- the ways of before, word for word
class _GreedyAsBefore(GreedyAgent):
    """GreedyAgent.act before this step, word for word: each option through `Game.apply`."""

    def act(self, view, legal, model=None):
        if model is None or len(legal) == 1:
            return legal[self.rng.randrange(len(legal))]
        me = view["you"]
        totals = [0] * len(legal)
        passes: set | tuple = ()
        for deal in range(self.rollouts):
            imagined = model(deal) if deal else model()
            at_menu = imagined.pending["kind"] == "action"
            if not deal:
                pending = imagined.pending
                acting = pending["kind"] == "action" and sum(imagined.turn["used"].values()) < self.TIED_ACTIONS
                passes = {o for o in legal if pending["options"][o] == END_TURN} if acting else ()
            last = len(legal) - 1
            for number, option in enumerate(legal):
                game = imagined.clone() if number < last else imagined
                game.menus_for = me
                game.log = agents._unread_log
                if number < last and at_menu:
                    game.undo_base = imagined.state
                game.apply(option, me)
                self._rollout(game, me)
                totals[number] += game.projected_margin(me, in_place=True)
        best_value = max(totals)
        best = [option for option, total in zip(legal, totals, strict=True) if total == best_value]
        if len(best) > 1 and passes:
            best = [o for o in best if o not in passes]
        return best[self.rng.randrange(len(best))]


def _margin_as_before(g, player, *, in_place: bool = False) -> int:
    """scoring.projected_margin before this step, word for word (every score read before the end scoring)."""
    plan = g.rules.__dict__.get("_margin_plan") or scoring._margin_plan(g.rules)
    counter, fewest, cooperative = plan[:3]  # (the plan's first three: it holds the score read's repeats after them)
    state = g.state
    over = state["stage"] == "over"
    scores = (state["result"] or {}).get("scores") if over else None
    if not over and counter:
        players = state["players"]
        now = dict(zip(players, map(g.counter, players, repeat(counter, len(players))), strict=True))
        finished = g if in_place else g.clone()
        finished.work = WORK_BUDGET
        finished.scores_only = True
        state = finished.state
        state["stack"], state["pending"], state["attempt"] = [], None, None
        state["ending"] = state["ending"] or {"rule": "projection", "by": None, "queue": []}
        try:
            push_game_end(finished)
            finished._advance()
            scores = (state["result"] or {}).get("scores")
        except (ContentError, GameError):
            pass
        scores = scores or now
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


class _Recorded(Game):
    """A game whose margins (its own and its copies') are recorded, worked out by `margin`."""

    margins: ClassVar[list] = []
    margin = staticmethod(scoring.projected_margin)

    def projected_margin(self, player, *, in_place: bool = False) -> int:
        worked_out = self.margin(self, player, in_place=in_place)
        self.margins.append(worked_out)
        return worked_out


def _greedy_game(pack: str, bot, margins: list, decisions: int, players: int | None = None) -> list:
    """The choices of greedy bots of class `bot` in a seeded game of `pack` (its fewest players, at least 2 where it
    may), every margin worked out recorded in `margins`."""
    rules = ruleset(pack)
    low, high = rules.players
    count = players or max(low, min(2, high))
    game = _Recorded(rules, Game.new(rules, count, 5).state)
    bots = {p: bot(i) for i, p in enumerate(game.state["players"])}
    return greedy_choices(game, bots, decisions, margins)


@pytest.mark.parametrize("pack", PACKS)
def test_the_bot_chooses_as_before_in_every_pack(pack, monkeypatch):
    """Greedy bots of today and greedy bots playing the ways of before (each option through `apply`, every score read
    before the end scoring, the live options of each stop worked out, one-card runs dealt as slices): the same choices
    in a seeded game of each pack, each with the same margins."""
    today: list = []
    monkeypatch.setattr(_Recorded, "margins", today)
    chosen = _greedy_game(pack, GreedyAgent, today, 8)
    before: list = []
    monkeypatch.setattr(_Recorded, "margins", before)
    monkeypatch.setattr(_Recorded, "margin", staticmethod(_margin_as_before))
    monkeypatch.setattr(Game, "_advance", _advance_as_before)
    monkeypatch.setattr(Game, "determinized", _determinized_as_before)
    assert _greedy_game(pack, _GreedyAsBefore, before, 8) == chosen
    assert today == before and today


def test_four_bots_choose_as_before(monkeypatch):
    """The same in a 4-player Cro-Magnon game, longer: more hidden cards in hands, dealt one by one."""
    today: list = []
    monkeypatch.setattr(_Recorded, "margins", today)
    chosen = _greedy_game("cro-magnon", GreedyAgent, today, 60, players=4)
    before: list = []
    monkeypatch.setattr(_Recorded, "margins", before)
    monkeypatch.setattr(_Recorded, "margin", staticmethod(_margin_as_before))
    monkeypatch.setattr(Game, "_advance", _advance_as_before)
    monkeypatch.setattr(Game, "determinized", _determinized_as_before)
    assert _greedy_game("cro-magnon", _GreedyAsBefore, before, 60, players=4) == chosen
    assert today == before


# ---------------------------------------------------------------- each option taken without `apply`
def test_the_options_are_taken_without_apply(monkeypatch):
    """While the bot looks ahead, no imagined game goes through `Game.apply` for an option (the shortcut is gone if
    this fails): the real game's legal answers are the deal's."""
    applied: list = []
    apply = Game.apply

    def counted(game, option, player=None):
        if vars(game).get("log") is agents._unread_log and game.state["pending"]["kind"] == "action":
            applied.append(option)
        return apply(game, option, player)

    game = Game.new(ruleset("cro-magnon"), 3, 2)
    player = game.state["pending"]["by"][0]
    legal = game.legal(player)
    monkeypatch.setattr(Game, "apply", counted)
    GreedyAgent(0).act({"you": player}, legal, lambda deal=0: game.determinized(player, deal))
    assert len(legal) > 1 and applied == []


def test_an_option_not_legal_in_the_deal_raises_as_before():
    """An option that is no legal answer of the imagined deal goes through `apply`: the same error as before."""
    game = next(
        g
        for g in _sampled_states("cro-magnon", 2, 2, 300, 1)
        if not g.over and g.state["pending"]["kind"] != "action" and g.state["pending"]["by"] != [CHANCE]
    )
    player = game.state["pending"]["by"][0]
    legal = [*game.legal(player), 99]  # (not a menu: the bot reads no option's name)
    errors = []
    for bot in (GreedyAgent(0), _GreedyAsBefore(0)):
        with pytest.raises(GameError) as raised:
            bot.act({"you": player}, legal, lambda deal=0: game.determinized(player, deal))
        errors.append((raised.value.code, str(raised.value)))
    assert errors[0] == errors[1] and errors[0][0] == "X204"


def test_a_game_counting_answers_has_each_option_applied(monkeypatch):
    """A model whose games count the answers of a turn (not an imagined game as `clone` makes it): each option goes
    through `apply`, which counts it, as before."""
    counted: list = []
    count = Game._count_answer

    def recorded(game):
        counted.append(game.state["turn"]["number"])
        return count(game)

    game = Game.new(ruleset("cro-magnon"), 2, 2)
    player = game.state["pending"]["by"][0]
    legal = game.legal(player)

    def model(deal=0):
        imagined = game.determinized(player, deal)
        imagined.max_answers_per_turn = 1_000
        return imagined

    monkeypatch.setattr(Game, "_count_answer", recorded)
    GreedyAgent(0).act({"you": player}, legal, model)
    assert counted  # (the copies made by `clone` count nothing: the deal itself, played by the last option, does)


# ---------------------------------------------------------------- a look-ahead's stop at another player's menu
_ADVANCE = interpreter.advance


def _advance_as_before(g):
    """interpreter.advance before this step: the live options of the decision it stops at worked out (a pure cache,
    `Game._live_now`, whose working out is all the step left out)."""
    state = g.state
    _ADVANCE(g)
    pending = state["pending"]
    if pending is not None and state["stage"] != "over":
        g._live_now(pending)


def test_a_stop_at_another_players_menu_works_nothing_out(monkeypatch):
    """A look-ahead's game played to the next player's menu (its one option "end turn", driver._main) stops there
    without working out its live options (the shortcut is gone if this fails); asked later, they are those of
    before."""
    game = Game.new(ruleset("cro-magnon"), 3, 2)
    player = game.state["pending"]["by"][0]
    imagined = game.determinized(player, 0)
    imagined.menus_for = player
    worked_out: list = []
    work_out = Game._work_out_live

    def recorded(g, pending):
        worked_out.append(pending)
        return work_out(g, pending)

    monkeypatch.setattr(Game, "_work_out_live", recorded)
    imagined.apply(imagined.state["pending"]["options"].index(END_TURN), player)
    stop = imagined.state["pending"]
    assert stop["by"] != [player] and stop["options"] == [END_TURN]
    assert all(pending is not stop for pending in worked_out)
    assert imagined.legal(stop["by"][0]) == [0] and imagined.decision.legal == [0]


@pytest.mark.parametrize("pack, players", [("cro-magnon", 3), ("neolithibum", 2), ("stone-age-mammoth-herd", 2)])
def test_menus_of_one_option_are_as_before(pack, players):
    """Across random games, after every answer: the same decision and the same legal answers as the way of before
    (a menu of one option stopped at without its live options worked out, then asked for them)."""
    rules = ruleset(pack)
    for seed in range(2):
        game = Game.new(rules, players, seed)
        rnd = random.Random(seed)
        while not game.over and len(game.state["history"]) < 300:
            decision = game.decision
            if decision.is_chance:
                game.apply_chance()
                continue
            legal = game.legal(decision.players[0])
            before = game.clone()
            before.__class__ = _AdvancedAsBefore
            game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
            before.apply(game.state["history"][-1][1], decision.players[0])
            assert game.state == before.state
            if not game.over:
                assert game.decision.legal == before.decision.legal


class _AdvancedAsBefore(Game):
    _advance = _advance_as_before


# ---------------------------------------------------------------- the score before the end scoring
def test_the_score_before_is_read_only_when_needed(monkeypatch):
    """The margin reads no player's score before the end scoring (the shortcut is gone if this fails)."""
    game = _sampled_states("cro-magnon", 3, 1, 60, 59)[-1]
    reads: list = []
    counter = Table.counter

    def recorded(g, owner, counter_id):
        reads.append(owner)
        return counter(g, owner, counter_id)

    def pushed(g):
        reads.append("end")
        push_game_end(g)

    monkeypatch.setattr(Table, "counter", recorded)
    monkeypatch.setattr(scoring, "push_game_end", pushed)
    scoring.projected_margin(game, "P1", in_place=True)
    assert reads[0] == "end"


def _unfinished(gained: int, error):
    """An end scoring that gains `gained` vp for every player, then raises `error` (or stops at a question)."""

    def advance(g):
        for player in g.state["players"]:
            if type(g.state["counters"].get(player)) is dict:
                g.set_counter(player, "vp", g.counter(player, "vp") + gained)
        if error is not None:
            raise error
        g.state["pending"] = {"kind": "ask", "by": ["P1"], "options": [True, False]}

    return advance


@pytest.mark.parametrize("error", [ContentError("no", code="X107"), GameError("no", code="X302"), None])
def test_an_unfinished_end_scoring_gives_the_score_of_before(error, monkeypatch):
    """An end scoring that changes the scores then fails (or asks a question): the margin is that of the scores before
    it, as before, in place and on a copy."""
    games = _sampled_states("cro-magnon", 3, 1, 120, 30)
    monkeypatch.setattr(Game, "_advance", _unfinished(3, error))
    for game in games:
        game.set_counter("P2", "vp", 4)
        for player in game.state["players"]:
            assert scoring.projected_margin(game, player) == _margin_as_before(game, player)
            today, before = game.clone(), game.clone()
            margin = scoring.projected_margin(today, player, in_place=True)
            assert margin == _margin_as_before(before, player, in_place=True)
            assert today.state == before.state


def test_counters_not_kept_in_dicts_are_read_as_before(monkeypatch):
    """A state built by hand whose counters have no "table" entry, or a player's counters that are no dict: the
    scores are read before the end scoring, as before (the same margin, the same error)."""
    game = _sampled_states("cro-magnon", 2, 1, 60, 59)[-1]
    monkeypatch.setattr(Game, "_advance", _unfinished(2, ContentError("no", code="X107")))
    without_table = game.clone()
    del without_table.state["counters"]["table"]
    assert scoring.projected_margin(without_table.clone(), "P1", in_place=True) == _margin_as_before(
        without_table.clone(), "P1", in_place=True
    )
    odd = game.clone()
    odd.state["counters"]["P2"] = []  # (no dict: reads as no counters of P2's, the table's then)
    assert scoring.projected_margin(odd.clone(), "P1", in_place=True) == _margin_as_before(
        odd.clone(), "P1", in_place=True
    )


# ---------------------------------------------------------------- the imagined deal
def _determinized_as_before(g, player, seed: int):
    """imagine.determinized before this step, word for word: every run dealt as a slice."""
    copy = g.clone()
    rnd = random.Random(seed)
    state = copy.state
    groups: dict[tuple, list[tuple[str, int, int]]] = {}
    for home, key, first, count in imagine._unseen_runs(copy, player):
        runs = groups.get(home)
        if runs is None:
            runs = groups[home] = []
        runs.append((key, first, count))
    zones, loc = state["zones"], state["loc"]
    imagined: dict[int, int] = {}
    for runs in groups.values():
        if len(runs) == 1:
            key, first, count = runs[0]
            cards = zones[key]
            if count == len(cards):
                true = cards[:] if state["attempt"] is not None else None
                imagine.shuffle(rnd, cards)
            else:
                cards = cards[first : first + count]
                true = cards[:] if state["attempt"] is not None else None
                imagine.shuffle(rnd, cards)
                zones[key][first : first + count] = cards
        else:
            cards = []
            for key, first, count in runs:
                cards += zones[key][first : first + count]
            true = cards[:] if state["attempt"] is not None else None
            imagine.shuffle(rnd, cards)
            at = 0
            for key, first, count in runs:
                dealt = cards[at : at + count]
                zones[key][first : first + count] = dealt
                deque(map(loc.__setitem__, dealt, repeat(key, count)), 0)
                at += count
        if true is not None and len(cards) > 1:
            imagined.update(zip(true, cards, strict=True))
    if imagined:
        imagine._redeal_snapshot(state["attempt"], imagined)
    pending = state["pending"]
    if pending is not None and pending.get("answers"):
        for other in [p for p in pending["answers"] if p != player]:
            del pending["answers"][other]
            pending["by"].append(other)
    if pending is not None and pending["kind"] == "secret":
        imagine._forget_earlier_picks(state, pending, player)
    streams = state["rng"]
    state["rng"] = dict(zip(streams, map(rnd.getrandbits, repeat(64, len(streams))), strict=True))
    state["seed"] = rnd.getrandbits(32)
    copy.rng = Streams(state["rng"], state["seed"])
    return copy


@pytest.mark.parametrize("pack, players, every", [("cro-magnon", 4, 7), ("cro-magnon", 3, 11), ("neolithibum", 3, 9)])
def test_the_deal_is_dealt_as_before(pack, players, every):
    """At states across a random game, each player's imagined game is the one of before (its one-card runs dealt as
    slices), its undo snapshot too, and the true game is untouched."""
    dealt = 0
    for game in _sampled_states(pack, players, 3, 400, every):
        if game.over:
            continue
        true = game.clone().state
        for player in game.state["players"]:
            for seed in (0, 5):
                today = game.determinized(player, seed)
                assert today.state == _determinized_as_before(game, player, seed).state
                dealt += any(count == 1 for *_, count in imagine._unseen_runs(game, player))
        assert game.state == true
    assert dealt >= 5


def test_a_one_card_run_is_dealt_by_itself(monkeypatch):
    """In a deal whose hidden hands hold cards of the decks' homes, each card of a run dealt apart is written in `loc`
    once, by itself (a one-card run with no slice taken), the cards of the longer runs one by one in a loop (compiled,
    a third of the cost of a map of `loc.__setitem__` in C: helper G)."""
    game = next(
        g
        for g in _sampled_states("cro-magnon", 4, 3, 400, 7)
        if not g.over and any(count == 1 for *_, count in imagine._unseen_runs(g, "P1"))
    )
    written: list = []

    class _Loc(list):
        def __setitem__(self, place, value):
            written.append(place)
            super().__setitem__(place, value)

    cloned = Game.clone

    def clone_with_loc_counted(g, **sharing):
        copy = cloned(g, **sharing)
        copy.state["loc"] = _Loc(copy.state["loc"])
        return copy

    monkeypatch.setattr(Game, "clone", clone_with_loc_counted)
    runs: dict = {}
    for home, _key, _first, count in imagine._unseen_runs(game, "P1"):
        runs.setdefault(home, []).append(count)
    apart = sum(count for counts in runs.values() if len(counts) > 1 for count in counts)
    assert any(count > 1 for counts in runs.values() if len(counts) > 1 for count in counts)
    game.determinized("P1", 0)
    assert len(written) == apart and len(set(written)) == apart


# ---------------------------------------------------------------- a game's attributes kept in place
def _attributes_in_a_dict(obj) -> bool:
    """Whether CPython 3.11 keeps `obj`'s attributes in a dict of its own (made when anything reads `obj.__dict__`,
    and kept from then on), not in the values its class lays out for all its instances: the pointer to that dict
    lies three words before the object (Objects/object.c, _PyObject_ManagedDictPointer). Reading `vars(obj)` here
    would make the very dict it looks for."""
    return ctypes.c_void_p.from_address(id(obj) - 3 * ctypes.sizeof(ctypes.c_void_p)).value is not None


@pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="reads CPython 3.11's object layout")
def test_playing_cloning_and_logging_keep_a_games_attributes_in_place():
    """A game played, its copies (`clone`, `determinized`, an imagined game given its `log`) and a log read for a
    player (log_words.seat_bits, lines_for) leave every game's attributes where CPython reads them fastest (the
    shortcut is gone if this fails: `_take_tables` read both games' `vars()`, the log's caches `g.__dict__`, an
    imagined game's `log` was one name more than CPython lays out, and each read of an attribute of theirs took
    some times as long)."""
    # in a fresh interpreter: CPython lays out the names any game of the process was ever given, so a test that gives
    # one game a name of its own (as some here do) leaves less room for the games of every later test
    checked = subprocess.run(
        [sys.executable, "-c", f"import {__name__} as t; t._games_laid_out_in_place()"],
        cwd=Path(__file__).parent,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr[-3000:]


def _games_laid_out_in_place():
    """The check of the test above, run in an interpreter of its own."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 3, 4)
    play_randomly(game, random.Random(4), limit=120)
    copies = [game.clone(), game.determinized("P2", 1), game.clone().clone()]
    lines_for(game, "P1")
    seat_bits(copies[0])
    copies[1].log = agents._unread_log  # (a bot's imagined game: one name more, still laid out in place)
    assert not any(map(_attributes_in_a_dict, [game, *copies]))
    assert len(vars(Game.new(rules, 2, 0))) < 29  # (CPython lays out 29 names at most, `log` included)
    copies[2].__dict__  # noqa: B018 -- (read: the check sees the dict it makes)
    assert _attributes_in_a_dict(copies[2])
