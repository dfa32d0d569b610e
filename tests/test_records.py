"""runtime.records: what a game's record says besides its outcome (issue 17). The cards each seat drew, took and used
are read from the log's moves and the pack's zones, so the definitions are checked on moves made through the verbs'
own logging in two packs, chosen by what their zones are, never by their names; and on whole games, stalled ones
included."""

from __future__ import annotations

import contextlib
import json

import pytest
from balance_runs import record
from scenario import new_game, ruleset

from engine.runtime.agents import RandomAgent
from engine.runtime.game import Game, Stalled
from engine.runtime.records import GameRecorder, margin
from engine.runtime.session import play_out
from engine.runtime.verbs import _move_logged

PACKS = ["cro-magnon", "neolithibum"]


def _zone(rules, game, *, owner: bool, visibility: str, holding: bool = False) -> str:
    """The first zone of the pack of this kind (a player's, or shared; seen by whom), as P1's key when a player's;
    `holding`: one that holds cards now."""
    for zone_id, zone in rules.zones.items():
        if (zone.get("owner") == "player") != owner or zone.get("visibility", "public") != visibility:
            continue
        key = f"{zone_id}:P1" if owner else zone_id
        if not holding or [c for c in game.state["zones"][key] if c is not None]:
            return key
    raise AssertionError(f"{rules.pack_id} has no {'player' if owner else 'shared'} {visibility} zone")


def _top(game, key: str) -> int:
    return [c for c in game.state["zones"][key] if c is not None][-1]


def _delta(before: dict, after: dict, kind: str, seat: str) -> dict:
    old, new = before[kind][seat], after[kind][seat]
    return {card: new[card] - old.get(card, 0) for card in new if new[card] != old.get(card, 0)}


@pytest.mark.parametrize("pack", PACKS)
def test_drawn_taken_and_used_follow_their_definitions(pack):
    rules = ruleset(pack)
    game = new_game(3, seed=1, pack=pack)
    assert game.state["turn"]["number"] >= 1  # in play: no move below is the setup's
    recorder = GameRecorder(game)
    hidden = _zone(rules, game, owner=False, visibility="hidden", holding=True)
    shared = _zone(rules, game, owner=False, visibility="public")
    hand = _zone(rules, game, owner=True, visibility="owner")
    shown = _zone(rules, game, owner=True, visibility="public")
    ids = rules.instances
    before = recorder.finish(game)

    # from a hidden zone to P1's play area: drawn, not yet taken
    first = _top(game, hidden)
    _move_logged(game, [first], "_drawn:P1", "P1", "draws")
    # ... then kept: taken
    _move_logged(game, [first], hand, "P1", "takes")
    # from a hidden zone straight into P1's hand by P1: drawn and taken
    second = _top(game, hidden)
    _move_logged(game, [second], hand, "P1", "draws")
    # from P1's hand, seen by P1 alone, to P1's zone everyone sees: used (played)
    _move_logged(game, [first], shown, "P1", "moves")
    # from P1's zone to a shared zone: used (spent)
    _move_logged(game, [second], shared, "P1", "discards")
    # into P1's hand by P2's act: neither taken by P1 nor by P2; out of it by P2's act: not P1's use
    third = _top(game, hidden)
    _move_logged(game, [third], hand, "P2", "moves")
    _move_logged(game, [third], shared, "P2", "moves")
    # by nobody's act (a phase outside any turn): drawn only
    fourth = _top(game, hidden)
    _move_logged(game, [fourth], hand, None, "moves")

    after = recorder.finish(game)
    drawn = {ids[first]: 1}
    for card in (second, third, fourth):
        drawn[ids[card]] = drawn.get(ids[card], 0) + 1
    assert _delta(before, after, "drawn", "P1") == drawn
    taken: dict[str, int] = {}
    for card in (first, second):
        taken[ids[card]] = taken.get(ids[card], 0) + 1
    assert _delta(before, after, "taken", "P1") == taken
    assert _delta(before, after, "used", "P1") == taken  # the same two cards, each used once
    for kind in ("drawn", "taken", "used"):
        assert _delta(before, after, kind, "P2") == {} and _delta(before, after, kind, "P3") == {}


def test_a_card_is_named_by_its_id_and_counted_per_seat():
    game = new_game(2, seed=3)
    recorder = GameRecorder(game)
    rules = game.rules
    hidden = _zone(rules, game, owner=False, visibility="hidden", holding=True)
    card = _top(game, hidden)
    _move_logged(game, [card], "hand:P2", "P2", "draws")
    out = recorder.finish(game)
    assert out["drawn"]["P2"][rules.instances[card]] >= 1
    assert all(
        name in rules.cards for kind in ("drawn", "taken", "used") for seat in out[kind].values() for name in seat
    )


def _played(pack: str, players: int, seed: int, **limits) -> tuple[Game, dict]:
    game = Game.new(ruleset(pack), players, seed, **limits)
    recorder = GameRecorder(game)
    with contextlib.suppress(Stalled):  # a game stopped half-way has its record too
        play_out(game, [RandomAgent(seed * 31 + i) for i in range(players)], on_step=recorder.step)
    return game, recorder.finish(game)


@pytest.mark.parametrize(("pack", "players"), [("cro-magnon", 3), ("stone-age", 2)])
def test_a_whole_game_track_margin_and_actions(pack, players):
    game, out = _played(pack, players, seed=11)
    result = game.result
    assert out["first"] == "P1"
    track = out["track"]
    assert track is not None and len(track) == game.state["turn"]["round"]  # one row a round, the last one whole or not
    assert all(len(row) == players for row in track)
    assert track[-1] == [result["scores"][p] for p in game.players]
    assert out["margin"] == margin(result)
    names = _action_names(game)
    for seat in game.players:  # each action taken is a line of the log (an undone one is cut out of both)
        lines = sum(
            1
            for entry in game.state["log"]
            if len(entry) <= 2 and entry[0].startswith(f"{seat}: ") and entry[0][len(seat) + 2 :] in names
        )
        assert sum(out["actions"][seat].values()) == lines
    json.dumps(out)  # plain data


def _action_names(game) -> set[str]:
    return {action.get("name", action_id) for action_id, action in game.rules.actions.items()}


def test_cards_a_seat_keeps_at_the_end_were_taken_or_drawn_by_it():
    """Cro-Magnon: a technology ends in a seat's tableau only by that seat's own act, from a row or a deck."""
    game, out = _played("cro-magnon", 3, seed=5)
    for seat in game.players:
        kept = {game.rules.instances[c] for c in game.state["zones"][f"tableau:{seat}"] if c is not None}
        assert kept and kept <= set(out["taken"][seat])


def test_a_pack_without_a_score_counter_has_no_track_nor_margin():
    game, out = _played("neolithibum", 3, seed=2)
    assert game.rules.score_counter is None
    assert out["track"] is None and out["margin"] is None
    assert set(out) == {"first", "track", "margin", "drawn", "taken", "used", "actions"}


def test_finish_works_on_a_stalled_game():
    game, out = _played("cro-magnon", 2, seed=4, max_answers_per_turn=1)
    assert game.result is None  # stopped in its first turns: no outcome
    assert out["track"] == [[game.counter(p, "vp") for p in game.players]]
    assert out["margin"] is None
    assert set(out["actions"]) == {"P1", "P2"}


def test_finish_works_on_a_game_capped_at_the_round_limit():
    game, out = _played("cro-magnon", 3, seed=8, max_rounds=2)
    assert game.result["reason"] == "turn_limit"
    assert len(out["track"]) == 2


def test_a_record_as_the_run_keeps_it():
    """The record of one game as a run folder's line holds sim._one's outcome, the agents and the recorder's keys."""
    line = record(ruleset("cro-magnon"), 0, 7, 3, ["random"])
    assert {"index", "seed", "winners", "scores", "reason", "turns", "decisions", "agents", "first"} <= set(line)
    assert line["agents"] == ["random"] * 3
    assert json.loads(json.dumps(line)) == line
