"""The table's fast reads (layout.py, Table.items_read) answer exactly what the pack's documents say.

Zone facts are looked up in tables built once per pack and seating, and a caller that only reads gets a
zone's own list instead of a copy. Each test here is a game where a wrong sharing would show: tables of
one seating used for another, of a game for its clone or its loaded save, or a zone's own list changed
or kept by the code that got it."""

from __future__ import annotations

import random

import pytest
from conftest import one_action_rules, tiny_manifest
from scenario import ruleset

from engine.runtime import functions, places
from engine.runtime.game import Ctx, Game
from engine.runtime.rules import load

PACKS = ["cro-magnon", "neolithibum", "stone-age"]


# ---------------------------------------------------------------- the answers, from the documents alone
def _zone(rules, key):
    return rules.zones.get(key.split(":")[0], {})


def _keys(game, zone_id):
    if game.rules.zones.get(zone_id, {}).get("owner") == "player":
        return [f"{zone_id}:{p}" for p in game.state["players"]]
    return [zone_id]


def _can_see(game, card, player):
    zone = game.state["loc"][card]
    shown = game.state["shown"].get(str(card))
    if shown == "all" or (shown and player in shown):
        return True
    if zone.startswith("_drawn:"):
        return zone.endswith(f":{player}")
    visibility = _zone(game.rules, zone).get("visibility", "public") if not zone.startswith("_") else "public"
    if visibility == "public":
        return True
    if visibility == "owner":
        return zone.endswith(f":{player}")
    if visibility == "top":
        cards = game.state["zones"][zone]
        return bool(cards) and cards[-1] == card
    return False


def _zone_name(rules, key):
    if key.startswith("_drawn:"):
        return f"{key.split(':')[1]}'s play area"
    if key == "_removed":
        return "out of the game"
    name = _zone(rules, key).get("name") or key.split(":")[0]
    return f"{key.split(':')[1]}'s {name.lower()}" if ":" in key and not key.startswith("_") else name


def _label(game, value):
    if value in game.state["zones"] or value in game.rules.zones:
        return _zone_name(game.rules, value)
    for table in (game.rules.actions, game.rules.cards):
        if value in table:
            return table[value].get("name") or value
    return str(value)


def _room(game, key):
    zone, cards = _zone(game.rules, key), game.state["zones"][key]
    cap = zone.get("capacity")
    if zone.get("type") == "row" and zone.get("slots") and cap is None:
        return cards.count(None)
    if cap is None:
        return len(game.rules.instances)
    together = _keys(game, key.split(":")[0]) if ":" in key else [key]
    held = sum(1 for k in together for x in game.state["zones"].get(k, ()) if x is not None)
    return max(0, int(cap) - held)


def _assert_reads_match_the_documents(game):
    rules, state = game.rules, game.state
    players = state["players"]
    ctx = Ctx(game, {}, players[0], None)
    for key, cards in state["zones"].items():
        present = [x for x in cards if x is not None]
        zone = _zone(rules, key)
        assert game.zone_def(key) == zone, key
        assert game.slotted(key) == (zone.get("type") == "row" and bool(zone.get("slots"))), key
        assert game.zone_name(key) == _zone_name(rules, key), key
        assert game.items_of(key) == present and game.items_of(key) is not cards, key
        assert game.items_read(key) == present, key
        assert functions._count(ctx, key) == len(present), key
        assert places.room(game, key) == _room(game, key), key
        for card in present:
            assert game.owner_of(card) == (key.split(":")[1] if ":" in key else None), key
            assert game.card_def(card) is rules.cards[rules.instances[card]]
            for player in players:
                assert game.can_see(card, player) == _can_see(game, card, player), (key, card, player)
    for word in [*state["zones"], *rules.zones, *rules.actions, *rules.cards, "end_turn", "P1"]:
        assert game.label(word) == _label(game, word), word
    for zone_id in rules.zones:
        assert game.zone_keys(zone_id) == _keys(game, zone_id), zone_id
        assert game.zone_name(zone_id) == _zone_name(rules, zone_id), zone_id
        for player in players + ["P9"]:  # P9: a seat not in this game
            per_player = rules.zones[zone_id].get("owner") == "player"
            assert game.zone_key(zone_id, player) == (f"{zone_id}:{player}" if per_player else zone_id)
            if per_player:
                assert functions._own(ctx, zone_id, player) == f"{zone_id}:{player}"


@pytest.mark.parametrize("pack", PACKS)
def test_every_read_of_the_table_answers_as_the_documents_do_in_every_seating_clone_and_save(pack):
    """The tables are per seating and shared by the pack's games: a 2-player and a 4-player game of one
    ruleset, mid-game, each compared with answers worked out from the documents, as are a clone and a
    loaded save (whose zones come back in another order) after both move on in their own ways."""
    rules = ruleset(pack)
    for players, seed in ((2, 1), (4, 2)):
        game = Game.new(rules, players, seed)
        rnd = random.Random(seed)
        for step in range(160):
            if game.over:
                break
            decision = game.decision
            if decision.is_chance:
                game.apply_chance()
            else:
                game.apply(rnd.choice(game.legal(decision.players[0])), decision.players[0])
            if step % 40 == 39:
                _assert_reads_match_the_documents(game)
                for copy in (game.clone(), Game.load(rules, game.save())):
                    for _ in range(15):
                        if copy.over:
                            break
                        choice = copy.decision
                        if choice.is_chance:
                            copy.apply_chance()
                        else:
                            copy.apply(rnd.choice(copy.legal(choice.players[0])), choice.players[0])
                    _assert_reads_match_the_documents(copy)
        _assert_reads_match_the_documents(game)


# ---------------------------------------------------------------- a zone's own list, read but never kept
_THINGS = """kind: zone
id: pile
name: Pile
type: deck
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
---
kind: card
id: stone
name: Stone
type: thing
deck: pile
copies: 3
effect: |  # knap: ignore[D008] -- the card is only counted
  gain 1 vp
"""


def _acted(make_pack, effect):
    rules = load(
        make_pack({"rules.yaml": one_action_rules(effect, goal=100, before=_THINGS)}, manifest=tiny_manifest())
    )
    game = Game.new(rules, 1, 0)
    game.apply(game.decision.options.index("act"), "P1")
    return game


def test_a_loop_over_a_zone_that_its_body_empties_visits_every_card(make_pack):
    """`for each` keeps its items in the frame: a copy, not the zone's list the moves shrink (which would
    visit every other card)."""
    game = _acted(make_pack, "for each stone in pile:\n  move stone to hand\ngain count(hand(me)) vp")
    assert len(game.state["zones"]["hand:P1"]) == 3 and game.state["zones"]["pile"] == []
    assert game.state["counters"]["P1"]["vp"] == 3


def test_a_list_made_from_a_zone_is_a_new_list_and_the_zone_is_untouched(make_pack):
    """`without` and a `where` read the zone's own list and build new ones: the zone keeps its cards."""
    game = _acted(
        make_pack,
        "let rest = without(pile, top(pile))\nlet kept = pile where item != top(pile)\n"
        "gain count(pile) * 10 + count(rest) + count(kept) vp",
    )
    assert len(game.state["zones"]["pile"]) == 3
    assert game.state["counters"]["P1"]["vp"] == 34
