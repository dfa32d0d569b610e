"""The greedy bot's look-ahead made cheaper (issue 16), each part held to what it replaced:

- `imagine.determinized` re-deals a zone's hidden cards in runs (a deck in one piece, worked out in C) instead of
  card by card: the imagined game is the very one the card-by-card re-deal made (`_determinized_as_before`, word for
  word from before), at states of every kind of pack (card backs, cards shown or known, an undo snapshot under way);
- `state.copy_state` copies the zones in C and the rest in one marshal round trip: still marshal's deep copy;
- an imagined game whose player is set (`Game.menus_for`, agents.GreedyAgent) does not work out another player's
  menu, where the rollout stops unread: the rollout ends in the same game, and the menu is worked out as before
  wherever it may be empty (a pack whose turns end only when nothing is left to do).
"""

from __future__ import annotations

import random

import pytest
import yaml
from conftest import write_tree
from scenario import ruleset
from test_greedy_agent import _sampled_states
from test_turn_rules import NEVER

from engine.runtime import imagine
from engine.runtime.agents import GreedyAgent
from engine.runtime.game import Game
from engine.runtime.log_words import knows
from engine.runtime.protocol import END_TURN
from engine.runtime.rng import Streams
from engine.runtime.rules import load
from engine.runtime.state import copy_state, plain_copy


def _determinized_as_before(g, player, seed: int):
    """Game.determinized before issue 16's runs, word for word: every card of every zone asked `can_see` and
    `knows`, one by one."""
    copy = g.clone()
    rnd = random.Random(seed)
    state = copy.state
    groups: dict[tuple, list[tuple[str, int]]] = {}
    with_backs = imagine._has_backs(g.rules)
    for key, cards in state["zones"].items():
        for i, card in enumerate(cards):
            if card is not None and not copy.can_see(card, player) and not knows(copy, card, player):
                home: tuple = (copy.card_def(card).get("deck") or "", g.rules.start[card][2])
                if with_backs:
                    home += (copy.card_def(card).get("back") if copy.sees_back(card, player) else imagine._UNSEEN,)
                groups.setdefault(home, []).append((key, i))
    imagined: dict[int, int] = {}
    for slots in groups.values():
        cards = [state["zones"][k][i] for k, i in slots]
        true = cards[:]
        rnd.shuffle(cards)
        for (k, i), card, was in zip(slots, cards, true, strict=True):
            state["zones"][k][i] = card
            state["loc"][card] = k
            if card != was:
                imagined[was] = card
    if imagined and state["attempt"] is not None:
        imagine._redeal_snapshot(state["attempt"], imagined)
    pending = state["pending"]
    if pending is not None and pending.get("answers"):
        for other in [p for p in pending["answers"] if p != player]:
            del pending["answers"][other]
            pending["by"].append(other)
    if pending is not None and pending["kind"] == "secret":
        imagine._forget_earlier_picks(state, pending, player)
    state["rng"] = {name: rnd.getrandbits(64) for name in state["rng"]}
    state["seed"] = rnd.getrandbits(32)
    copy.rng = Streams(state["rng"], state["seed"])
    return copy


def _states(pack, players, seed, answers, every):
    """Copies of every `every`th state of a seeded random game of `answers` answers (a game not over)."""
    return [state for state in _sampled_states(pack, players, seed, answers, every) if not state.over]


@pytest.mark.parametrize(
    "pack, players, every",
    [
        ("cro-magnon", 4, 13),
        ("cro-magnon-solo", 1, 2),
        ("neolithibum", 3, 13),
        ("stone-age", 2, 13),
        ("paleo-a-new-beginning", 2, 7),
    ],
)
def test_the_re_deal_in_runs_is_the_card_by_card_re_deal(pack, players, every):
    """Every player's imagined game, at states across a random game, is the one the card-by-card re-deal made."""
    states = _states(pack, players, 3, 400, every)
    assert len(states) >= 10
    snapshots = hidden = 0
    for game in states:
        snapshots += game.state["attempt"] is not None
        for player in game.state["players"]:
            hidden += sum(count for _, _, _, count in imagine._unseen_runs(game, player))
            for seed in (1, 2):
                assert game.determinized(player, seed).state == _determinized_as_before(game, player, seed).state
    assert hidden > 0 and (snapshots > 0 or pack != "cro-magnon")  # an action under way: its snapshot re-dealt


def test_the_pack_with_card_backs_is_checked_card_by_card():
    """A pack whose cards have backs groups its hidden cards by the back seen too: the runs are single cards."""
    rules = ruleset("paleo-a-new-beginning")
    assert imagine._has_backs(rules)
    game = _states("paleo-a-new-beginning", 2, 3, 60, 59)[-1]
    runs = list(imagine._unseen_runs(game, "P1"))
    assert runs and all(count == 1 for _, _, _, count in runs)


def test_shown_and_known_cards_stay_where_they_are():
    """A card shown to the player, and one whose place they know although they cannot see it (`known`), are
    never re-dealt; the zone that holds them is re-dealt card by card around them, as before."""
    game = _states("cro-magnon", 2, 1, 40, 39)[-1]
    deck = game.state["zones"]["forest"]
    shown, known = deck[0], deck[1]
    game.state["shown"][str(shown)] = ["P1"]
    game.state["known"][str(known)] = ["P1"]
    for seed in range(8):
        imagined = game.determinized("P1", seed)
        assert imagined.state == _determinized_as_before(game, "P1", seed).state
        assert imagined.state["zones"]["forest"][:2] == [shown, known]
    assert game.determinized("P2", 0).state == _determinized_as_before(game, "P2", 0).state


# ---------------------------------------------------------------- the state's copy
def test_zones_and_lists_of_another_shape_are_copied_by_marshal():
    """A state built by hand may hold a zone or `loc` that is not a list: copied deep all the same."""
    state = Game.new(ruleset("cro-magnon"), 2, 0).state
    odd = {**state, "zones": {**state["zones"], "odd": {"cards": [1, 2]}}, "loc": {"0": ["forest"]}}
    copied = copy_state(odd)
    assert copied == plain_copy(odd) and list(copied) == list(odd)
    assert copied["zones"]["odd"] is not odd["zones"]["odd"] and copied["loc"]["0"] is not odd["loc"]["0"]
    assert copy_state({**state, "zones": [[1]]})["zones"] == [[1]]


def test_a_clone_keeps_the_order_of_keys_and_shares_only_the_log_entries():
    game = _states("cro-magnon", 3, 2, 80, 79)[-1]
    copy = game.clone()
    assert list(copy.state) == list(game.state) and copy.state == game.state
    for key in ("log", "history", "zones", "loc", "counters", "turn"):
        assert copy.state[key] is not game.state[key]


# ---------------------------------------------------------------- others' menus, not worked out
def _played_on(game, player, answers, menus_for):
    """A copy of `game`, `menus_for` set, and `answers` (option numbers) given by `player`, then a rollout."""
    copy = game.clone()
    copy.menus_for = menus_for
    for answer in answers:
        copy.apply(answer, player)
    agent = GreedyAgent(7)
    agent._rollout(copy, player)
    return copy, agent.rng.getstate()


def test_a_rollout_ends_in_the_same_game_without_others_menus():
    """At every menu of a random Cro-Magnon game, each option tried and rolled out on a copy that leaves others'
    menus unworked and on one that works them out: the same answers, and the same game but for that last menu."""
    tried = 0
    for game in _states("cro-magnon", 3, 4, 300, 7):
        pending = game.state["pending"]
        if pending["kind"] != "action":
            continue
        me = pending["by"][0]
        for option in game.legal(me):
            lean, lean_rng = _played_on(game, me, [option], me)
            full, full_rng = _played_on(game, me, [option], None)
            assert lean.state["history"] == full.state["history"] and lean_rng == full_rng
            last = lean.state["pending"]
            if last is not None and last["kind"] == "action" and me not in last["by"]:  # another's menu
                assert lean.state["pending"]["options"] == [END_TURN]
                lean.state["pending"], full.state["pending"] = None, None
                tried += 1
            assert lean.state == full.state
            assert lean.projected_margin(me, in_place=True) == full.projected_margin(me, in_place=True)
    assert tried > 20


@pytest.mark.parametrize("end_turn", ["never", "always"])
def test_a_menu_that_may_be_empty_is_worked_out_for_a_look_ahead_too(tmp_path, end_turn):
    """With `end_turn: never` a menu may be empty, and the turn then ends by itself ("P2 has nothing left to do"):
    an imagined game works it out as the real one does and plays on into P1's next turn. With "end turn" always
    on the menu, P2's menu is left unworked."""
    manifest = {"kind": "pack", "id": "turns", "name": "Turns", "version": "1.0.0", "players": {"min": 2, "max": 2}}
    root = write_tree(
        tmp_path / "turns", {"pack.yaml": yaml.safe_dump({**manifest, "end_turn": end_turn}), "rules.yaml": NEVER}
    )
    game = Game.new(load(root), 2, 0)
    game.state["counters"]["P2"]["chips"] = 0  # P2 can do nothing
    bet = game.state["pending"]["options"].index("bet")
    lean, _ = _played_on(game, "P1", [bet, bet], "P1")  # then the rollout ends P1's turn ("always")
    full, _ = _played_on(game, "P1", [bet, bet], None)
    if end_turn == "never":
        assert "P2 has nothing left to do" in lean.view("P1")["log"]
        assert lean.state == full.state
    else:
        assert lean.turn_player == "P2" and lean.state["pending"]["options"] == [END_TURN]
        assert full.state["pending"]["options"] == [END_TURN]  # P2's true menu: no chips, so only "end turn"


def test_a_part_both_copied_apart_and_shared_or_skipped_keeps_its_value():
    """copy_state sets the zones, `loc` and `orient` apart from marshal's copy: a caller naming one of them in
    `shared` or `skip` as well gets it shared or left out, never emptied."""
    data = {"a": [1], "zones": {"x": [1, 2]}, "loc": [3, 4], "orient": [0, 1]}
    copied = copy_state(data, shared=("zones", "loc"), skip=("orient",))
    assert list(copied) == ["a", "zones", "loc"]
    assert copied["zones"] is data["zones"] and copied["loc"] is data["loc"]
    assert copied["a"] == [1] and copied["a"] is not data["a"]
