"""A greedy bot's decision made cheaper again (issue 16), each shortcut held to the way it replaced:

- a bot's imagined games (`log_words.unread_log` as their `Table.log`) keep no entry of a counted change nor of a
  choice either (`log_counted`, `log_choice`): nothing they play reads their log, and a choice's entry read who sees
  each card; a real game keeps the very entries of before (`_log_counted_as_before`, `_log_choice_as_before`);
- the rollout draws each random answer as `random.Random.randrange` draws it, without its two calls;
- `imagine.shuffle` reads its places and their bits from a table worked out once per count of cards.

Greedy bots of today choose as bots playing these ways of before, with the same margins and the same draws, in
seeded games of every pack (`test_the_bot_chooses_as_before_in_every_pack`).
"""

from __future__ import annotations

import copy
import functools
import random
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario import ruleset

from engine.runtime import agents, imagine, log_words, scoring
from engine.runtime.agents import GreedyAgent
from engine.runtime.game import Game
from engine.runtime.log_words import CHOICE, COUNT, cards_named, log_choice, log_counted, seen_by, setup_flag
from engine.runtime.protocol import CHANCE

PACKS = sorted(
    p.name for p in (Path(__file__).resolve().parents[1] / "content").iterdir() if (p / "pack.yaml").exists()
)


# ---------------------------------------------------------------- the ways of before, word for word
def _log_counted_as_before(g, owner, counter: str, change: int) -> None:
    """log_words.log_counted before this step, word for word."""
    g.state["log"].append([COUNT, setup_flag(g), owner, counter, change])


def _log_choice_as_before(g, by, prompt, name, forced, of_cards, chosen, labels, shape) -> None:
    """log_words.log_choice before this step, word for word."""
    cards = cards_named(chosen, len(g.rules.instances)) if of_cards else []
    everyone = (1 << len(g.state["players"])) - 1
    seen, backs = [], []
    for card in cards:
        sight = seen_by(g, card)
        seen.append(sight)
        if sight != everyone and g.card_def(card).get("back") and g.sees_back(card, None):
            backs.append(card)
    if set(map(type, chosen)) <= {int, str}:
        kept = list(chosen)
    else:
        kept = [value if type(value) is int or type(value) is str else copy.deepcopy(value) for value in chosen]
    g.state["log"].append(
        [CHOICE, setup_flag(g), by, prompt, name, forced, of_cards, kept, labels, shape, cards, seen, backs]
    )


def _rollout_as_before(self, game, me):
    """GreedyAgent._rollout before this step, word for word (each answer drawn by `rng.randrange`)."""
    in_rounds, number = game.rules.in_rounds, game.turn_number
    state, rng = game.state, self.rng
    quick = game.max_answers_per_turn is None
    for _ in range(self.rollout_steps):
        pending = state["pending"]
        if pending is None or (in_rounds and state["turn"]["number"] != number):
            return
        players = pending["by"]
        if players == [CHANCE]:
            game.apply_chance()
            continue
        if me not in players and not in_rounds:
            return
        kind = pending["kind"]
        for player in list(players):
            if quick and player in pending["by"] and player != CHANCE:
                options = game._legal_now(pending, player)
                game._take(player, options[rng.randrange(len(options))])
            else:
                options = game.legal(player)
                game.apply(options[rng.randrange(len(options))], player)
            after = pending = state["pending"]
            if after is None or after["kind"] != kind:
                break


def _shuffle_as_before(rnd: random.Random, cards: list) -> None:
    """imagine.shuffle before this step, word for word."""
    bits, count = rnd.getrandbits, len(cards)
    for i, k in zip(range(count - 1, 0, -1), map(int.bit_length, range(count, 1, -1)), strict=True):
        j = bits(k)
        while j > i:
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


# ---------------------------------------------------------------- the bot as a whole
class _Recorded(Game):
    """A game that records every margin its bot works out (on it or on its copies), with the bot's generator then."""

    margins: ClassVar[list] = []

    def projected_margin(self, player, *, in_place: bool = False) -> int:
        margin = scoring.projected_margin(self, player, in_place=in_place)
        self.margins.append(margin)
        return margin


def _greedy_game(pack: str, decisions: int) -> list:
    """The choices of greedy bots in a seeded game of `pack` (its fewest players, at least 2 where it may), each with
    the margins worked out for it, the bot's generator after it and the real game's state and hash."""
    rules = ruleset(pack)
    low, high = rules.players
    game = _Recorded(rules, Game.new(rules, max(low, min(2, high)), 7).state)
    bots = {p: GreedyAgent(i) for i, p in enumerate(game.state["players"])}
    choices: list = []
    while not game.over and len(choices) < decisions:
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        legal = game.legal(player)
        model = functools.partial(game.determinized, player, len(game.state["history"]))
        before = len(_Recorded.margins)
        option = bots[player].act({"you": player}, legal, model)
        game.apply(option, player)
        choices.append((option, _Recorded.margins[before:], bots[player].rng.getstate(), game.save()))
    choices.append(game.state_hash())
    return choices


@pytest.mark.parametrize("pack", PACKS)
def test_the_bot_chooses_as_before_in_every_pack(pack, monkeypatch):
    """Greedy bots of today and greedy bots playing the ways of before (their imagined games keeping every entry,
    their rollouts drawing by `randrange`, the deal shuffled by the loop of before): the same choices with the same
    margins, their generators drawn as far, and the real game's state, log and hash the same, in each pack."""
    monkeypatch.setattr(_Recorded, "margins", [])
    today = _greedy_game(pack, 8)
    monkeypatch.setattr(_Recorded, "margins", [])
    monkeypatch.setattr(log_words, "unread_log", object())  # no game's log is the unread one: every entry kept
    monkeypatch.setattr(GreedyAgent, "_rollout", _rollout_as_before)
    monkeypatch.setattr(imagine, "shuffle", _shuffle_as_before)
    assert _greedy_game(pack, 8) == today
    assert any(margins for _, margins, _, _ in today[:-1])


# ---------------------------------------------------------------- the entries an imagined game keeps
def _games():
    """A Cro-Magnon game at its first menu, and the same game as it were still in its setup."""
    game = Game.new(ruleset("cro-magnon"), 3, 2)
    setup = Game(game.rules, copy.deepcopy(game.state))
    setup.state["turn"]["number"], setup.state["stage"] = 0, "setup"
    assert not game.in_setup() and setup.in_setup()
    return game, setup


def _choices(game) -> list:
    """Choices as verbs.Choose logs them: cards seen by everyone, by some seats, by nobody (with backs or not), a
    list option holding cards, no card at all."""
    everyone = (1 << len(game.state["players"])) - 1
    by_sight: dict = {}
    for card in range(len(game.state["loc"])):
        sight = seen_by(game, card)
        by_sight.setdefault("all" if sight == everyone else "some" if sight else "none", []).append(card)
    assert {"all", "none"} <= set(by_sight)
    cards = [found[:2] for found in by_sight.values()]
    return [*cards, [card for found in cards for card in found], [[cards[0][0], 3], "done"], []]


def test_a_real_game_keeps_the_entries_of_before():
    """In play and in the setup, a counted change and a choice (of cards or not, forced or not) are kept as they
    were: `1 if g.in_setup() else 0` is `setup_flag(g)`."""
    for game in _games():
        for function, oracle in ((log_counted, _log_counted_as_before),):
            function(game, "P1", "food", 2)
            oracle(game, "P1", "food", 2)
            assert game.state["log"][-1] == game.state["log"][-2]
        for chosen in _choices(game):
            for of_cards, forced in ((True, False), (False, True)):
                args = ("P2", "Pick one", "pick", forced, of_cards, chosen, None, None)
                log_choice(game, *args)
                _log_choice_as_before(game, *args)
                assert game.state["log"][-1] == game.state["log"][-2]
                assert game.state["log"][-1][1] == (1 if game.in_setup() else 0)


def test_an_imagined_game_keeps_no_entry_of_a_change_or_a_choice():
    """A game whose `Table.log` is the unread one (a bot's imagined game) keeps neither entry, and reads nobody's
    sight of the chosen cards; the same game with its own log keeps both."""
    for game in _games():
        game.log = log_words.unread_log
        entries = len(game.state["log"])
        log_counted(game, "P1", "food", 2)
        for chosen in _choices(game):
            log_choice(game, "P2", None, "pick", False, True, chosen, None, None)
        assert len(game.state["log"]) == entries
        del game.log
        log_counted(game, "P1", "food", 2)
        log_choice(game, "P2", None, "pick", False, True, _choices(game)[0], None, None)
        assert len(game.state["log"]) == entries + 2


def test_the_bots_imagined_games_have_the_unread_log():
    """The agent marks its imagined games with the very function log_words checks for (its old name kept)."""
    assert agents._unread_log is log_words.unread_log
    assert log_words.unread_log("a line", {"P1": "a line"}) is None


# ---------------------------------------------------------------- the rollout's draws
class _CountingRandom(random.Random):
    """A generator that counts the calls of `randrange`."""

    calls = 0

    def randrange(self, *args, **kwargs):
        self.calls += 1
        return super().randrange(*args, **kwargs)


def test_the_rollout_draws_without_randrange():
    """A bot's decision with two options and more calls `randrange` once (its own pick among the best): its rollouts
    draw their answers from `getrandbits` directly, the very draws `randrange` makes (the bot above chooses as
    before)."""
    rules = ruleset("cro-magnon")
    game = Game.new(rules, 2, 1)
    player = game.state["pending"]["by"][0]
    legal = game.legal(player)
    assert len(legal) > 1
    bot, oracle = GreedyAgent(3), GreedyAgent(3)
    bot.rng, oracle.rng = _CountingRandom(3), _CountingRandom(3)
    model = functools.partial(game.determinized, player, 0)
    chosen = bot.act({"you": player}, legal, model)
    assert bot.rng.calls == 1
    oracle._rollout = functools.partial(_rollout_as_before, oracle)
    assert oracle.act({"you": player}, legal, model) == chosen
    assert oracle.rng.calls > 1 and oracle.rng.getstate() == bot.rng.getstate()


@settings(max_examples=200, deadline=None)
@given(count=st.integers(0, 300), seed=st.integers(0, 2**32))
def test_each_draw_is_randranges(count, seed):
    """The rollout's draw, as written there, picks what `randrange(count)` picks and leaves the generator where it
    leaves it; no options raise randrange's error, with nothing drawn."""
    mine, theirs = random.Random(seed), random.Random(seed)
    bits = mine.getrandbits
    size = count.bit_length()
    try:
        expected = theirs.randrange(count)
    except ValueError:
        expected = None
    try:  # (agents.GreedyAgent._rollout)
        pick = bits(size)
        while pick >= count:
            if not count:
                raise ValueError("empty range for randrange()")
            pick = bits(size)
    except ValueError:
        pick = None
    assert pick == expected and mine.getstate() == theirs.getstate()


# ---------------------------------------------------------------- the shuffle's places
@settings(max_examples=200, deadline=None)
@given(count=st.integers(0, 200), seed=st.integers(0, 2**32))
def test_the_shuffle_is_random_shuffle_draw_for_draw(count, seed):
    """The same order as `random.Random.shuffle` and the loop of before from the same seed, twice (the places worked
    out, then read from the table), the generator left where they leave it."""
    for _ in range(2):
        mine, theirs, before = random.Random(seed), random.Random(seed), random.Random(seed)
        cards, expected, looped = list(range(count)), list(range(count)), list(range(count))
        imagine.shuffle(mine, cards)
        theirs.shuffle(expected)
        _shuffle_as_before(before, looped)
        assert cards == expected == looped
        assert mine.getstate() == theirs.getstate() == before.getstate()


def test_the_shuffles_places_are_worked_out_once_per_count():
    """The bits a draw for each place takes, kept by the count of cards (place i: a card of the i + 1 left; the places
    themselves are a `range` since tests/test_runtime_speed_zg2_copies.py): the second shuffle of as many cards reads
    the very table the first made."""
    imagine.shuffle(random.Random(0), list(range(23)))
    widths = imagine._BITS[23]
    assert widths == tuple((i + 1).bit_length() for i in range(23))
    imagine.shuffle(random.Random(1), list(range(23)))
    assert imagine._BITS[23] is widths
