"""A secret choice offers what it offered before its faster reckoning (verbs.ChooseSecretly: the options each
chooser may pick and their places in the decision, worked out in one pass; identical cards looked for only
among cards of one kind), in random games with identical cards, hidden hands and several picks each. Also the
zone masks of `log_words.seen_by`, kept on each game (`Table.sight_masks`), and `Table.items_read` of rows."""

from __future__ import annotations

import copy
import random
from pathlib import Path

import pytest
from test_runtime_speed_b_secret import verb_of
from test_secret_choice import KEEP, pack

from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.log_words import seat_bits, seen_by
from engine.runtime.protocol import DONE
from engine.runtime.rules import load
from engine.runtime.verbs import labelled


def _offer_before(verb, g, wait, player) -> list[int]:
    """ChooseSecretly._offer before the one-pass reckoning: the oracle."""
    keys, picks, options = wait["own"][player], wait["picks"][player], wait["options"]
    low = wait["limits"][player][0]
    start = picks[-1] + 1 if picks else 0
    still = low - len(picks)
    end = len(keys) - still + 1 if still > 0 else len(keys)
    offer, seen = [], set()
    if verb.of_cards:
        for j in range(start, end):
            value = options[keys[j]]
            if type(value) is int and g.can_see(value, player):
                same = (g.rules.instances[value], g.state["loc"][value], g.state["orient"][value])
                if same in seen:
                    continue
                seen.add(same)
            offer.append(j)
    else:
        offer = list(range(start, end))
    if len(picks) >= low:
        offer.append(-1)
    return offer


def _pending_before(verb, g, c, frame):
    """ChooseSecretly._pending before (what it asks and what it keeps in the wait), less the question's words."""
    wait = frame["wait"]
    options = list(wait["options"])
    allowed, offers, done_key = {}, {}, None
    for player in wait["own"]:
        picks, keys = wait["picks"][player], wait["own"][player]
        if len(picks) >= wait["limits"][player][1] or (picks and picks[-1] < 0):
            continue
        offer = _offer_before(verb, g, wait, player)
        if offer == [-1] or not offer:
            continue
        if -1 in offer and done_key is None:
            done_key = len(options)
            options.append(DONE)
        offers[player] = offer
        allowed[player] = [keys[j] if j >= 0 else done_key for j in offer]
    if not allowed:
        return None
    wait["offer"] = offers
    wait["order"] = list(allowed)
    if "first" not in wait:
        wait["first"] = {p: [offers[p], allowed[p]] for p in allowed}
    pending = {"by": list(allowed), "options": options, "allowed": allowed, "cards": verb.of_cards}
    return labelled(verb, g, c, pending)


def _asked(pending):
    return None if pending is None else {key: pending[key] for key in ("by", "options", "allowed", "cards")}


@pytest.mark.parametrize("amount", ["1", "2", "between(1, 3)"])
@pytest.mark.parametrize("copies", [None, {"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1, "Nut": 1}])
def test_every_secret_pick_is_offered_as_before(tmp_path, amount, copies):
    """At every pick of random games: the same offers, places and options as the reckoning before, from the
    same wait (a pick already answered in the round is in the decision, not yet in the wait)."""
    rules = pack(tmp_path, KEEP.format(amount=amount), copies)
    asked = 0
    for seed in range(6):
        game = Game.new(rules, 2 + seed % 2, seed)
        rnd = random.Random(seed)
        while not game.over:
            decision = game.decision
            if decision.kind == "secret":
                frame = game.state["stack"][-1]
                verb, c = verb_of(game), Ctx(game, frame["env"], frame["me"], frame["card"])
                before, now = copy.deepcopy(frame), copy.deepcopy(frame)
                for kept in (before, now):  # as the round was before it was asked
                    kept["wait"].pop("offer", None)
                    kept["wait"].pop("order", None)
                expected = _asked(_pending_before(verb, game, c, before))
                assert _asked(verb._pending(game, c, now)) == expected
                assert now["wait"] == before["wait"] == frame["wait"]
                asked += 1
            legal = game.legal(decision.players[0])
            game.apply(legal[rnd.randrange(len(legal))], decision.players[0])
    assert asked > 6


def test_each_game_keeps_its_own_zone_masks(tmp_path):
    """A zone's mask is by seat order: a game of another seating never reads another's masks; a copy (the same
    seating) shares its source's (tests/test_runtime_speed_zh_imagined_deal.py)."""
    rules = pack(tmp_path, KEEP.format(amount=1))
    for players in (2, 3, 2):
        game = Game.new(rules, players, 0)
        everyone = (1 << players) - 1
        for card, zone in enumerate(game.state["loc"]):
            mask = sum(bit for seat, bit in seat_bits(game).items() if game.can_see(card, seat))
            assert seen_by(game, card) == mask
            assert game.sight_masks[zone] == (everyone if zone.startswith("basket") else mask)
        assert game.clone().sight_masks is game.sight_masks


def test_a_row_is_read_as_it_is_unless_a_place_is_empty():
    """`items_read` of a row without an empty place is the row's own list (only read); with one, the cards."""
    rules = load(Path(__file__).resolve().parents[1] / "content" / "cro-magnon")
    game = Game.new(rules, 2, 0)
    row = next(key for key in game.state["zones"] if game.slotted(key) and len(game.state["zones"][key]) > 1)
    cards = game.state["zones"][row]
    assert None not in cards and game.items_read(row) is cards
    game.move(cards[0], "_removed")
    assert None in game.state["zones"][row]
    read = game.items_read(row)
    assert read == [x for x in game.state["zones"][row] if x is not None] and read is not game.state["zones"][row]
