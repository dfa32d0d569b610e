"""Secret choices (`choose_secretly`, issue 13): identical cards a chooser can see are one option to them, as
for `choose`; `taking N` has each chooser pick N of their options at once, asked as N small picks, still
secret, and binds a list per player. Both ways of running effects (lowered and interpreted) agree."""

from __future__ import annotations

import json
import random

import pytest
from conftest import write_tree
from test_compiled_effects import interpreted

from engine.runtime.game import Game
from engine.runtime.rules import load

MANIFEST = """kind: pack
id: secret
name: Secret
version: 0.1.0
players: {min: 2, max: 3}
turns: rounds
"""

ZONES = """kind: zone
id: hand
name: Hand
type: hand
owner: player
visibility: owner
---
kind: zone
id: basket
name: Basket
type: pile
owner: player
visibility: public
---
kind: counter
id: vp
name: Points
owner: player
---
kind: end
id: enough
name: Enough points
trigger: me.vp >= 2
then: immediate
result: most
counter: vp
"""


def cards(copies: dict[str, int]) -> str:
    return "\n".join(
        f"---\nkind: card\nid: {card.lower()}\nname: {card}\ntype: food\ndeck: hand\ncopies: {n}\n"
        for card, n in copies.items()
    )


def phase(effect: str) -> str:
    body = "\n".join("  " + line for line in effect.strip().splitlines())
    return f"---\nkind: phase\nid: pick\nname: Everyone picks\nwhen: round_start\neffect: |\n{body}\n"


KEEP = """choose_secretly players from hand(me) taking {amount} as picks with "Which do you keep?"
let n = 0
for each p in players:
    let n = n + 1
    move picks[n] to basket for p
    gain 1 vp for p
"""


def pack(tmp_path, effect: str, copies=None):
    copies = copies or {"Bread": 2, "Cheese": 1, "Plum": 1, "Fig": 2}
    root = write_tree(
        tmp_path / "secret",
        {"pack.yaml": MANIFEST, "rules.yaml": ZONES + cards(copies) + phase(effect)},
    )
    return load(root)


def labels(game, player):
    return [o["label"] for o in game.view(player)["decision"]["options"]]


def test_identical_cards_the_chooser_sees_are_one_option(tmp_path):
    """Two Bread in a hand are one option (as `choose` offers them), not two: the same pick either way."""
    rules = pack(tmp_path, KEEP.format(amount=1))
    game = Game.new(rules, 2, 0)
    assert game.decision.kind == "secret"
    for player in ("P1", "P2"):
        assert sorted(label.split(" (")[0] for label in labels(game, player)) == ["Bread", "Cheese", "Fig", "Plum"]


def test_taking_two_asks_two_small_picks_and_binds_a_list_each(tmp_path):
    rules = pack(tmp_path, KEEP.format(amount=2))
    game = Game.new(rules, 2, 0)
    assert game.decision.prompt == "Which do you keep? (1 of 2)"
    first = {p: labels(game, p) for p in ("P1", "P2")}
    # Bread, Bread, Cheese, Plum, Fig, Fig: the first pick leaves room for the second (the last Fig is not
    # offered first) and the two Bread are one option
    assert all(len(options) == 4 for options in first.values()), first
    game.apply(game.legal("P1")[0], "P1")
    before = json.dumps(game.view("P2")["log"])
    game.apply(game.legal("P2")[-1], "P2")
    # the second round: still secret, nothing told yet
    assert game.decision.kind == "secret" and game.decision.prompt == "Which do you keep? (2 of 2)"
    assert json.dumps(game.view("P2")["log"]) == before
    assert "Chosen together" not in json.dumps(game.view("P1")["log"])
    for player in list(game.decision.players):  # one left with a single option has given it already
        game.apply(game.legal(player)[0], player)
    for player in ("P1", "P2"):
        assert len(game.state["zones"][f"basket:{player}"]) == 2
        assert game.state["counters"][player]["vp"] == 1
    told = [line for line in game.view("P1")["log"] if line.startswith("Chosen together")]
    assert len(told) == 1 and " + " in told[0]
    assert told[0].count("P1") == 1 and told[0].count("P2") == 1
    # the picks are cards that lay in hands: P2's stay "a card" to P1
    assert "P2 a card + a card" in told[0]


def test_taking_between_offers_done_after_the_least(tmp_path):
    rules = pack(tmp_path, KEEP.format(amount="between(1, 2)"))
    game = Game.new(rules, 2, 0)
    assert "done" not in labels(game, "P1")
    for player in ("P1", "P2"):
        game.apply(game.legal(player)[0], player)
    assert "done" in labels(game, "P1")
    done = next(o["key"] for o in game.view("P1")["decision"]["options"] if o["label"] == "done")
    game.apply(done, "P1")
    if game.decision.kind == "secret":
        game.apply(game.legal("P2")[0], "P2")
    assert len(game.state["zones"]["basket:P1"]) == 1
    assert len(game.state["zones"]["basket:P2"]) == 2


def test_a_save_between_the_picks_loads_and_goes_on(tmp_path):
    rules = pack(tmp_path, KEEP.format(amount=2))
    game = Game.new(rules, 3, 1)
    for player in ("P1", "P2", "P3"):
        game.apply(game.legal(player)[0], player)
    loaded = Game.load(rules, game.save())
    for g in (game, loaded):
        for player in list(g.decision.players):
            g.apply(g.legal(player)[-1], player)
    assert loaded.state_hash() == game.state_hash()


def test_an_imagined_game_forgets_the_others_earlier_picks(tmp_path):
    """Between the rounds of picks, what the others picked is still secret: the game an agent imagines for P2
    has P1 pick again from the start."""
    rules = pack(tmp_path, KEEP.format(amount=2))
    game = Game.new(rules, 2, 0)
    for player in ("P1", "P2"):
        game.apply(game.legal(player)[0], player)
    wait = game.state["stack"][-1]["wait"]
    assert wait["picks"]["P1"] and wait["picks"]["P2"]
    imagined = game.determinized("P2", 3)
    seen = imagined.state["stack"][-1]["wait"]
    assert seen["picks"]["P1"] == [] and seen["picks"]["P2"] == wait["picks"]["P2"]
    assert "P1" in imagined.state["pending"]["by"]
    while not any(entry[0] == "together" for entry in imagined.state["log"]):  # it plays on
        player = imagined.decision.players[0]
        imagined.apply(imagined.legal(player)[0], player)
    assert len(imagined.state["zones"]["basket:P1"]) == 2


def random_states(rules, players, seed):
    rnd = random.Random(seed)
    game = Game.new(rules, players, seed, max_rounds=6)
    states = []
    while not game.over and len(states) < 200:
        states.append(json.dumps(game.state, sort_keys=True))
        player = game.decision.players[0]
        game.apply(rnd.choice(game.legal(player)), player)
    return states


@pytest.mark.parametrize("amount", ["2", "between(1, 3)"])
def test_both_ways_of_running_effects_agree(tmp_path, amount):
    effect = KEEP.format(amount=amount).replace("gain 1 vp for p", "move basket(p) to hand for p")
    rules = pack(tmp_path, effect)
    with interpreted(rules):
        reference = random_states(rules, 3, 5)
    assert random_states(rules, 3, 5) == reference
    assert len(reference) > 5


def test_lint_checks_the_amount_taken(tmp_path, lint_json):
    root = write_tree(
        tmp_path / "bad",
        {
            "pack.yaml": MANIFEST,
            "rules.yaml": ZONES + cards({"Bread": 1}) + phase(KEEP.format(amount="hand(me)")),
        },
    )
    _code, found = lint_json(root)
    assert any(code == "D004" and "taking" in message for _f, _l, _c, code, message in found), found


OWN_WORDS = """choose_secretly players from hand(me) as picks with "{me}: keep {first(hand(me)).name}?" showing "{item.name} for {me}"
let n = 0
for each p in players:
    let n = n + 1
    move picks[n] to basket for p
"""


def test_the_question_and_the_labels_are_worked_out_for_each_chooser(tmp_path):
    """A secret choice's question and `showing` labels are worded with `me` the chooser: each reads their own,
    and nobody reads words made from another's hidden hand (the question once named P1's card to P2)."""
    rules = pack(tmp_path, OWN_WORDS, copies={"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1})
    game = Game.new(rules, 2, 0)
    hands = {p: [game.card_label(c, p) for c in game.state["zones"][f"hand:{p}"]] for p in ("P1", "P2")}
    for player in ("P1", "P2"):
        decision = game.view(player)["decision"]
        assert decision["prompt"] == f"{player}: keep {hands[player][0]}?"
        assert sorted(o["label"] for o in decision["options"]) == sorted(f"{n} for {player}" for n in hands[player])
    game.apply(0, "P1")
    waiting = game.view("P1")["decision"]  # P1 has answered and waits for P2: P2's own question is not shown
    assert hands["P2"][0] not in waiting["prompt"]


def test_each_choosers_own_question_survives_a_save(tmp_path):
    rules = pack(tmp_path, OWN_WORDS, copies={"Bread": 1, "Cheese": 1, "Plum": 1, "Fig": 1})
    game = Game.new(rules, 2, 0)
    loaded = Game.load(rules, game.save())
    assert loaded.view("P2")["decision"]["prompt"] == game.view("P2")["decision"]["prompt"] == "P2: keep Bread?"
