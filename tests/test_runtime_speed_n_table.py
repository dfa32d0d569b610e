"""The greedy bot's look-ahead and the table made cheaper (issue 16), each part held to what it replaced:

- `imagine.shuffle` is `random.Random.shuffle`, draw for draw: the imagined deal is the very one it was;
- the imagined deal reads the zones a player does not see from the layout (`ZoneLayout.unseen_zones`), once a player,
  and a state whose zones are not the layout's (built by hand) is read zone by zone: the same deal either way;
- an option tried on a copy of the imagined deal keeps the deal itself as its action's undo snapshot
  (`Table.undo_base`, taken by `driver.start_action` for that answer only): the same snapshot, the same undo, and the
  deal is left as it was;
- the rollout answers an imagined game without `Game.apply`'s checks: the same rollout as with them;
- `Table.set_counter` sets a plain number without `_set_one`'s call: the same numbers, changes and errors as before.
"""

from __future__ import annotations

import functools
import random

import pytest
from scenario import ruleset
from test_greedy_agent import _PACK as GATHER_PACK
from test_greedy_agent import _sampled_states
from test_runtime_speed_h_greedy import _determinized_as_before

from engine.runtime import imagine
from engine.runtime.agents import GreedyAgent
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.layout import hidden_by_zone, sight_of
from engine.runtime.protocol import END_TURN
from engine.runtime.rules import load
from engine.runtime.table import Table, _key_in


# ---------------------------------------------------------------- the shuffle
@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 17, 64, 65, 129, 300])
def test_the_shuffle_is_random_shuffle_draw_for_draw(size):
    """The same order from the same seed, and the generator left where random.shuffle leaves it."""
    for seed in range(30):
        mine, theirs = random.Random(seed), random.Random(seed)
        cards, expected = list(range(size)), list(range(size))
        imagine.shuffle(mine, cards)
        theirs.shuffle(expected)
        assert cards == expected
        assert mine.getstate() == theirs.getstate()


# ---------------------------------------------------------------- the zones a player does not see
@pytest.mark.parametrize("pack, players", [("cro-magnon", 4), ("neolithibum", 3), ("stone-age", 2)])
def test_the_layout_names_the_zones_a_player_does_not_see_as_the_documents_do(pack, players):
    game = Game.new(ruleset(pack), players, 0)
    for player in game.state["players"]:
        expected = tuple(
            (key, sight_of(game.rules, key)[0] == imagine.TOP)
            for key in game.state["zones"]
            if hidden_by_zone(sight_of(game.rules, key), player)
        )
        assert expected and game.layout.unseen_zones(player) == expected
        assert game.layout.unseen_zones(player) is game.layout.unseen_zones(player)  # worked out once


def test_a_state_whose_zones_are_in_another_order_is_re_dealt_zone_by_zone():
    """Zones in another order than the layout's (a state built by hand): the runs follow the state's order, and the
    imagined game is the card-by-card re-deal's."""
    game = _sampled_states("cro-magnon", 4, 3, 120, 60)[-1]
    zones = game.state["zones"]
    game.state["zones"] = dict(reversed(zones.items()))
    assert tuple(game.state["zones"]) != game.layout.order
    keys = [key for _, key, _, _ in imagine._unseen_runs(game, "P2")]
    assert keys and keys == sorted(keys, key=list(game.state["zones"]).index)
    for seed in (1, 2):
        assert game.determinized("P2", seed).state == _determinized_as_before(game, "P2", seed).state


# ---------------------------------------------------------------- the undo snapshot of an option tried
def _menus(pack, players, answers):
    """Imagined deals at menus across a random game (with an action under way or not)."""
    deals = []
    for game in _sampled_states(pack, players, 2, answers, every=7):
        pending = game.state["pending"]
        if pending is not None and pending["kind"] == "action" and len(game.legal(pending["by"][0])) > 1:
            deals.append((game.determinized(pending["by"][0], 5), pending["by"][0]))
    return deals


@pytest.mark.parametrize("pack, players", [("cro-magnon", 3), ("cro-magnon", 2)])
def test_an_option_that_keeps_the_deal_as_its_snapshot_is_undone_as_with_a_copy(pack, players):
    """Each action of each menu, tried on a copy of the deal sharing the deal as its snapshot and on a plain copy: the
    same state and snapshot (key order too); undone, the same state again; and the deal itself untouched."""
    deals = _menus(pack, players, 300)
    assert len(deals) >= 5
    tried = 0
    for deal, player in deals:
        before = deal.save()
        for option in deal.legal(player):
            if deal.state["pending"]["options"][option] == END_TURN:
                continue
            shared, copied = deal.clone(), deal.clone()
            shared.undo_base = deal.state
            shared.apply(option, player)
            copied.apply(option, player)
            assert shared.undo_base is None  # taken by the answer that started the action
            assert shared.state == copied.state and list(shared.state) == list(copied.state)
            if shared.state["attempt"] is not None:
                snap, snap_copied = shared.state["attempt"]["snap"], copied.state["attempt"]["snap"]
                assert snap == snap_copied and list(snap) == list(snap_copied)
                shared.fail("tried")
                copied.fail("tried")
                assert shared.state == copied.state and list(shared.state) == list(copied.state)
                tried += 1
            assert deal.save() == before
    assert tried >= 5


def test_the_deal_shared_as_a_snapshot_serves_one_answer_only(make_pack):
    """An answer that starts no action (end turn) takes the shared deal too: the next action keeps a copy of its own
    state, and its undo brings that state back, not the deal's."""
    rules = load(make_pack({"rules.yaml": _GATHER}, manifest=GATHER_PACK))
    game = Game.new(rules, 2, 0)
    deal = game.clone()
    game.undo_base = deal.state
    game.state["counters"]["P2"]["wood"] = 7  # the state moves on from the deal
    game.apply(game.decision.options.index(END_TURN), "P1")
    assert game.undo_base is None
    game.apply(game.decision.options.index("overreach"), "P2")  # gains 1 wood, then fails: undone
    assert "overreach" in game.state["undone"]
    assert game.state["counters"]["P2"]["wood"] == 7
    assert deal.state["counters"]["P2"]["wood"] == 0


# ---------------------------------------------------------------- the rollout without apply's checks
@pytest.mark.parametrize("pack, players", [("cro-magnon", 3), ("neolithibum", 3), ("stone-age", 2)])
def test_the_rollout_without_checks_plays_the_rollout_with_them(pack, players):
    """A game that counts answers (max_answers_per_turn) is answered through Game.legal and Game.apply: the same
    rollout, answer for answer, as the imagined game answered without them."""
    rolled = 0
    for game in _sampled_states(pack, players, 4, 200, every=11):
        pending = game.state["pending"]
        if game.over or pending is None or "chance" in pending["by"]:
            continue
        me = pending["by"][0]
        quick, checked = game.clone(), game.clone()
        checked.max_answers_per_turn = 10**9
        GreedyAgent(3)._rollout(quick, me)
        GreedyAgent(3)._rollout(checked, me)
        assert quick.state["history"] == checked.state["history"]
        assert quick.state_hash() == checked.state_hash()
        rolled += len(quick.state["history"]) > len(game.state["history"])
    assert rolled >= 5


def test_the_bot_chooses_as_before_with_the_deal_as_snapshot():
    """Greedy with the shared snapshot against greedy copying each snapshot (undo_base never set): the same choices."""

    class Copying(GreedyAgent):
        def act(self, view, legal, model=None):
            return super().act(view, legal, model and (lambda *a: _no_base(model(*a))))

    game = Game.new(ruleset("cro-magnon"), 3, 7)
    cheap = {p: GreedyAgent(i) for i, p in enumerate(game.state["players"])}
    plain = {p: Copying(i) for i, p in enumerate(game.state["players"])}
    asked = 0
    while not game.over and asked < 30:
        decision = game.decision
        if decision.is_chance:
            game.apply_chance()
            continue
        player = decision.players[0]
        legal = game.legal(player)
        model = functools.partial(game.determinized, player, len(game.state["history"]))
        option = cheap[player].act({"you": player}, legal, model)
        assert plain[player].act({"you": player}, legal, model) == option
        game.apply(option, player)
        asked += len(legal) > 1
    assert asked == 30


class _NoBase(Game):
    """A game whose undo snapshot is always a copy: the base a bot offers it is dropped."""

    @property
    def undo_base(self):
        return None

    @undo_base.setter
    def undo_base(self, value):
        pass


def _no_base(game):
    game.__class__ = _NoBase
    return game


# ---------------------------------------------------------------- set_counter
def _set_counter_as_before(g, owner, counter_id, value, key=None):
    """Table.set_counter before issue 16's quick path, word for word."""
    spec = g.rules.counters.get(counter_id)
    if spec is None:
        raise ContentError(f"`{counter_id}` is not a counter", code="X107")
    if spec.get("owner") == "card":
        raise ContentError(f"`{counter_id}` is kept on each card: say which with `on CARD`", code="X107")
    if spec.get("owner") != "player":
        owner = "table"
    low, high = spec.get("min"), spec.get("max")
    if low is not None:
        value = max(int(low), value)
    if high is not None:
        value = min(int(high), value)
    held = g.state["counters"][owner]
    values = held.get(counter_id)
    if key is not None:
        word = _key_in(values, counter_id, key, "change it without `at`")
        return Table._set_one(spec, counter_id, values, word, value)
    if isinstance(values, dict):
        return sum([Table._set_one(spec, counter_id, values, word, value) for word in values])
    return Table._set_one(spec, counter_id, held, counter_id, value)


_GATHER = """kind: counter
id: vp
name: Victory points
owner: player
monotonic: true
---
kind: counter
id: wood
name: Wood
owner: player
min: 0
max: 9
---
kind: counter
id: pool
name: Pool
owner: table
min: -2
---
kind: counter
id: progress
name: Progress
owner: player
keys: [red, blue]
---
kind: counter
id: wear
name: Wear
owner: card
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 3
then: immediate
result: most
counter: vp
---
kind: action
id: overreach
name: Overreach
effect: |
  gain 1 wood
  require me.wood > 100
"""


def _outcome(call, *args):
    try:
        return call(*args)
    except ContentError as exc:
        return ("error", str(exc), exc.code)


def test_set_counter_answers_as_before(make_pack):
    """Every kind of counter (plain, monotonic, bounded, the table's, with keys, on cards, none), every owner, values
    across the bounds, with and without a key: the same change, state and error as before."""
    rules = load(make_pack({"rules.yaml": _GATHER}, manifest=GATHER_PACK))
    game = Game.new(rules, 2, 0)
    before = game.clone()
    cases = 0
    for counter in ("vp", "wood", "pool", "progress", "wear", "nothing"):
        for owner in ("P1", "P2", "table"):
            for key in (None, "red", "green", 3):
                for value in (-5, 0, 2, 12):
                    now = _outcome(game.set_counter, owner, counter, value, key)
                    then = _outcome(_set_counter_as_before, before, owner, counter, value, key)
                    assert now == then, (counter, owner, key, value)
                    assert game.state == before.state
                    cases += 1
    assert cases == 6 * 3 * 4 * 4
