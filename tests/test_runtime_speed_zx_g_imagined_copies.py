"""The greedy bot's imagined games copied for less (issue 16), each shortcut held to the way it replaced:

- each option's copy of the imagined deal (`Game.clone(sharing_lists=True)`, agents.GreedyAgent.act) holds the deal's
  zone lists and owners' maps of counters, not copies, and copies each before it changes it, as a state does those its
  undo snapshot shares (`Table.sharing_snapshot`, here the deal's state): the copy plays as a copy of its own would,
  and the deal is left as it was for the next option;
- an owner's map of counters the undo snapshot shares (or an option's copy, its deal) is copied before a number of it
  is set by `dict.copy` when it holds numbers alone, not by marshal's round trip (`Table._own_counters`); a map
  holding a counter with `keys` (a map) is copied deep, as before;
- the imagined undo snapshot (`imagine._redeal_snapshot`) is a copy of the true one's map of parts that shares all but
  `loc` and the lists of the zones that held re-dealt cards, not a deep copy: nothing changes a snapshot, undo.fail
  restores a copy of it; the true snapshot keeps what it held, and an undo in the imagined game brings back the
  imagined cards.

The bot with both chooses as the bot whose every copy was its own, with the same margins
(`test_the_bot_chooses_as_with_copies_of_its_own`).
"""

from __future__ import annotations

import random

import pytest
from lockstep import greedy_choices
from scenario import ruleset
from test_greedy_agent import _sampled_states
from test_runtime_speed_zu_snapshot import _in_an_action

from engine.runtime import agents, imagine, table
from engine.runtime.agents import GreedyAgent
from engine.runtime.game import Game
from engine.runtime.state import APPEND_ONLY, copy_state, plain_copy

# (pack, players, every): packs with menus of actions and with actions under way at decisions, and one in rounds
SAMPLED = [("cro-magnon", 4, 7), ("cro-magnon", 2, 5), ("cro-magnon-solo", 1, 3), ("neolithibum", 3, 9)]


def _parts(state) -> list:
    """The zone lists and owners' maps of counters of a state, as objects: what an option's copy may share."""
    return [*state["zones"].values(), *state["counters"].values()]


def _tried(imagined: Game, player, option, seed: int, *, sharing: bool) -> tuple:
    """One option tried as the bot tries it (agents.GreedyAgent.act): on a copy of the deal, then a rollout, then the
    margin in place; the copy's state after the rollout and the margin."""
    game = imagined.clone(sharing_lists=True) if sharing else imagined.clone()
    game.menus_for = player
    game.log = agents._unread_log
    if imagined.state["pending"]["kind"] == "action":
        game.undo_base = imagined.state
    game.apply(option, player)
    GreedyAgent(seed)._rollout(game, player)
    played = copy_state(game.state, shared=APPEND_ONLY)
    return played, game.projected_margin(player, in_place=True)


@pytest.mark.parametrize("pack, players, every", SAMPLED)
def test_an_option_copy_plays_as_a_copy_of_its_own(pack, players, every):
    """At states across a random game, each option tried on a copy sharing the deal's lists plays to the same state and
    margin as on a copy of its own; the deal keeps every list and map it held, each holding what it held."""
    tried = 0
    for game in _sampled_states(pack, players, 4, 300, every):
        if game.over or game.state["pending"]["by"] == ["$chance"]:
            continue
        player = game.state["pending"]["by"][0]
        imagined = game.determinized(player, 11)
        deal, parts = copy_state(imagined.state), _parts(imagined.state)
        held = [part.copy() for part in parts]
        for number, option in enumerate(game.legal(player)[:4]):
            shared = _tried(imagined, player, option, number, sharing=True)
            assert shared == _tried(imagined, player, option, number, sharing=False)
            tried += 1
        assert imagined.state == deal
        assert all(a is b for a, b in zip(_parts(imagined.state), parts, strict=True))
        assert [part.copy() for part in parts] == held
    assert tried >= 10


def test_an_option_copy_shares_the_deals_lists_until_it_changes_them():
    """The copy holds the deal's very lists and maps, in maps of its own; playing copies those it changes, and only
    those (the shortcut is gone if this fails)."""
    game = next(g for g in _sampled_states("cro-magnon", 4, 2, 200, 9) if g.state["pending"]["kind"] == "action")
    player = game.state["pending"]["by"][0]
    imagined = game.determinized(player, 3)
    copy = imagined.clone(sharing_lists=True)
    assert copy.sharing_snapshot is imagined.state
    assert copy.state["zones"] is not imagined.state["zones"]
    assert copy.state["counters"] is not imagined.state["counters"]
    assert all(a is b for a, b in zip(_parts(copy.state), _parts(imagined.state), strict=True))
    assert imagined.clone().sharing_snapshot is None  # a copy of its own shares nothing
    for option in copy.legal(player):  # the first action carried out (an undone one puts back lists of its own)
        played = imagined.clone(sharing_lists=True)
        played.log = agents._unread_log
        played.apply(option, player)
        if not played.state["undone"]:
            break
    kept = [a is b for a, b in zip(_parts(played.state), _parts(imagined.state), strict=True)]
    assert any(kept) and not all(kept)


def test_an_undo_in_an_option_copy_leaves_the_deal_as_it_was(monkeypatch):
    """An action undone in a copy (undo.fail) puts back lists of the copy's own: the deal keeps what it held, and the
    copy plays on as a copy of its own would."""
    undone = []
    fail = Game.fail

    def recorded(g, why=None):
        undone.append(g.state["attempt"] is not None)
        return fail(g, why)

    monkeypatch.setattr(Game, "fail", recorded)
    rnd = random.Random(2)
    for seed in range(40):
        game = Game.new(ruleset("cro-magnon"), 2, seed)
        for _ in range(rnd.randrange(5, 60)):
            decision = game.decision
            if decision is None:
                break
            if decision.is_chance:
                game.apply_chance()
                continue
            legal = game.legal(decision.players[0])
            game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
        if game.over or game.decision.is_chance:
            continue
        player = game.state["pending"]["by"][0]
        imagined = game.determinized(player, seed)
        deal = copy_state(imagined.state)
        for number, option in enumerate(game.legal(player)):
            assert _tried(imagined, player, option, number, sharing=True) == _tried(
                imagined, player, option, number, sharing=False
            )
        assert imagined.state == deal
        if sum(undone) >= 4:
            break
    assert sum(undone) >= 4


# ---------------------------------------------------------------- an owner's counters copied on write
def test_an_owners_map_of_numbers_is_copied_by_itself(monkeypatch):
    """A map of numbers the snapshot shares is copied in C by itself (fails if marshal copies it); a map holding a map
    (a counter with `keys`) is copied deep, by marshal, as before; the snapshot keeps the maps it held."""
    game = _in_an_action(11)
    state, snap = game.state, game.state["attempt"]["snap"]
    owner = next(p for p in state["players"] if state["counters"][p] is snap["counters"][p])
    marshalled: list = []
    monkeypatch.setattr(table, "plain_copy", lambda data: marshalled.append(data) or plain_copy(data))
    held = state["counters"][owner]
    own = game._own_counters(owner)
    assert own == held and own is not held and state["counters"][owner] is own and snap["counters"][owner] is held
    assert game._own_counters(owner) is own and not marshalled
    keyed = {"progress": {"a": 1, "b": 2}, "vp": 3}
    state["counters"]["table"] = snap["counters"]["table"] = keyed  # (a pack's counter with `keys`, by hand)
    own = game._own_counters("table")
    assert own == keyed and own is not keyed and own["progress"] is not keyed["progress"] and marshalled == [keyed]


# ---------------------------------------------------------------- the re-dealt snapshot
@pytest.mark.parametrize("pack, players, every", [("cro-magnon", 4, 5), ("cro-magnon-solo", 1, 2)])
def test_the_imagined_snapshot_shares_what_the_re_deal_leaves(pack, players, every):
    """The imagined snapshot holds the true one's parts but `loc` and the zones' map, and the lists of the zones not
    re-dealt (the deep copy of before is back if this fails); the true snapshot keeps the very parts it held."""
    snapshots = 0
    for game in _sampled_states(pack, players, 2, 300, every):
        if game.over or game.state["attempt"] is None:
            continue
        true = game.state["attempt"]["snap"]
        parts, held = dict(true), copy_state(true)
        for player in game.state["players"]:
            snap = game.determinized(player, 4).state["attempt"]["snap"]
            if snap is true:  # nothing of it re-dealt
                continue
            snapshots += 1
            assert list(snap) == list(true)
            assert all(snap[key] is true[key] for key in true if key not in ("loc", "zones"))
            assert snap["loc"] is not true["loc"] and snap["zones"] is not true["zones"]
            assert any(snap["zones"][key] is cards for key, cards in true["zones"].items())
        assert dict(true) == parts and all(true[key] is parts[key] for key in true)
        assert true == held
    assert snapshots >= 3


def test_an_undo_in_the_imagined_game_brings_back_the_imagined_cards():
    """An action undone in an imagined game puts back its re-dealt snapshot (a copy), not the true one, and leaves the
    true game as it was."""
    checked = 0
    for game in _sampled_states("cro-magnon", 4, 3, 300, 3):
        if game.over or game.state["attempt"] is None:
            continue
        true = copy_state(game.state)
        player = game.state["pending"]["by"][0]
        imagined = game.determinized(player, 8)
        snap = imagined.state["attempt"]["snap"]
        expected = copy_state(snap)
        imagined.log = agents._unread_log
        imagined.fail("(a test)")
        state = imagined.state
        assert state["loc"] == expected["loc"] and state["zones"] == expected["zones"]
        assert state["loc"] is not snap["loc"]
        assert imagined.state["attempt"] is None and game.state == true
        checked += 1
    assert checked >= 3


# ---------------------------------------------------------------- the bot
def _own_copies(g, *, sharing_lists: bool = False):
    """Game.clone as before this step: every copy its own, whatever is asked."""
    return imagine.clone(g)


def _choices(pack: str, players: int, decisions: int, margins: list) -> list:
    rules = ruleset(pack)
    game = Game.new(rules, players, 7)
    bots = {p: GreedyAgent(i) for i, p in enumerate(game.state["players"])}
    return greedy_choices(game, bots, decisions, margins)


@pytest.mark.parametrize("pack, players", [("cro-magnon", 4), ("cro-magnon-solo", 1), ("neolithibum", 3)])
def test_the_bot_chooses_as_with_copies_of_its_own(pack, players, monkeypatch):
    """Greedy bots whose options' copies share the deal's lists, and greedy bots whose every copy is its own: the
    same choices in a seeded game, each with the same margins."""
    margin = Game.projected_margin

    def recording(margins: list):
        def recorded(g, player, *, in_place: bool = False) -> int:
            worked_out = margin(g, player, in_place=in_place)
            margins.append(worked_out)
            return worked_out

        return recorded

    today: list = []
    monkeypatch.setattr(Game, "projected_margin", recording(today))
    chosen = _choices(pack, players, 30, today)
    before: list = []
    monkeypatch.setattr(Game, "projected_margin", recording(before))
    monkeypatch.setattr(Game, "clone", _own_copies)
    assert _choices(pack, players, 30, before) == chosen
    assert today == before and today


# ---------------------------------------------------------------- the runs of hidden cards
def _unseen_runs_as_before(g, player):
    """imagine._unseen_runs before this step, word for word: a zone scanned for gaps (None) first."""
    state, rules = g.state, g.rules
    placed = {int(card) for card, seen in state["shown"].items() if seen == "all" or (seen and player in seen)}
    placed.update(int(card) for card, seats in (state.get("known") or {}).items() if player in seats)
    (homes, home_numbers), with_backs, zones = imagine._homes(rules), imagine._has_backs(rules), state["zones"]
    if tuple(zones) == g.layout.order:
        hidden = g.layout.unseen_zones(player)
    else:
        sights = [(key, g._sight.get(key) or imagine.sight_of(rules, key)) for key in zones]
        hidden = tuple((key, sight[0] == imagine.TOP) for key, sight in sights if imagine.hidden_by_zone(sight, player))
    for key, top in hidden:
        cards = zones[key]
        end = len(cards) - 1 if top else len(cards)
        if end <= 0:
            continue
        whole = not with_backs and None not in cards and placed.isdisjoint(cards)
        if whole and len(set(map(home_numbers.__getitem__, cards[:end]))) == 1:
            yield homes[cards[0]], key, 0, end
            continue
        for i in range(end):
            card = cards[i]
            if card is not None and card not in placed:
                home = homes[card]
                if with_backs:
                    home += (g.card_def(card).get("back") if g.sees_back(card, player) else imagine._UNSEEN,)
                yield home, key, i, 1


@pytest.mark.parametrize("pack, players, every", SAMPLED)
def test_the_runs_are_those_of_before_gaps_included(pack, players, every):
    """Each player's runs of hidden cards are those of before, in states of a random game and in the same states with
    a gap (an empty place, None) put by hand first, in the middle, then last in each hidden zone of three cards or
    more: a zone with a gap anywhere is read card by card, as before."""
    gaps = 0
    for game in _sampled_states(pack, players, 6, 300, every):
        for player in game.state["players"]:
            assert list(imagine._unseen_runs(game, player)) == list(_unseen_runs_as_before(game, player))
            for at in (0, 1, -1):
                copy = game.clone()
                for key, _ in copy.layout.unseen_zones(player):
                    cards = copy.state["zones"][key]
                    if len(cards) >= 3:
                        cards[at] = None
                        gaps += 1
                assert list(imagine._unseen_runs(copy, player)) == list(_unseen_runs_as_before(copy, player))
    assert gaps >= 10
