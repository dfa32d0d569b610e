"""Expressions and option labels (issue 13): `if COND then A else B`, `map`, `unique`, `sort`, `index_of`,
true/false as 1/0, `choose ... showing LABEL`, options that are lists read in words; and the example of
docs/authoring.md ("Words with values, and expressions") linted and played."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
import yaml
from conftest import one_action_rules, tiny_manifest, write_tree
from test_budgets import first_error
from test_compiled_effects import both_ways

from engine import dsl
from engine.runtime.compiler import compile_text
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

REPO = Path(__file__).resolve().parent.parent

CARDS = """kind: zone
id: deck
name: Deck
type: deck
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
visibility: owner
---
kind: zone
id: market
name: Market
type: pile
visibility: public
---
kind: card
id: axe
name: Axe
type: tool
deck: market
copies: 2
stats: {strength: 3}
---
kind: card
id: bow
name: Bow
type: tool
deck: market
stats: {strength: 1}
---
kind: card
id: club
name: Club
type: tool
deck: market
stats: {strength: 3}
---
kind: card
id: secret
name: Secret
type: tool
deck: deck
copies: 2
stats: {strength: 9}
"""


def make(tmp_path, effect: str = "gain 1 vp", name: str = "expr", extra: str = ""):
    text = one_action_rules(effect, goal=40, action="limit: once_per_turn", extra=CARDS + extra)
    return write_tree(tmp_path / name, {"pack.yaml": tiny_manifest(name), "rules.yaml": text})


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    return Game.new(load(make(tmp_path_factory.mktemp("expr"))), 2, 0)


def value(game, text, env=None):
    code = compile_text(game.rules, "test", text, "expression", scope=tuple(env or ()))
    return code(Ctx(game, dict(env or {}), "P1", None))


def names(game, cards):
    return [game.rules.cards[game.rules.instances[c]]["name"] for c in cards]


# ---------------------------------------------------------------- values
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("if 1 > 2 then 5 else 6", 6),
        ("if 2 > 1 then 5 else 6", 5),
        ("1 + if true then 2 else 3", 3),  # the `else` part reaches as far as it can
        ("(if false then 2 else 3) * 2", 6),
        ("if false then 1 else if true then 2 else 3", 2),
        ("map(numbers(1, 4), item * item)", [1, 4, 9, 16]),
        ("map([], item)", []),
        ("map(numbers(1, 3), [item, item + 1])", [[1, 2], [2, 3], [3, 4]]),
        ("map(numbers(1, 2), map(numbers(1, item), item))", [[1], [1, 2]]),
        ("unique([3, 1, 3, 2, 1])", [3, 1, 2]),
        ("unique([[1, 2], [1, 2], [2]])", [[1, 2], [2]]),
        ("sort([3, 1, 2])", [1, 2, 3]),
        ("sort([3, 1, 2], 0 - item)", [3, 2, 1]),
        ('sort(["b", 2, true, "a", 1])', [1, True, 2, "a", "b"]),  # kinds never compared: numbers, then texts
        ("1 + if true then 2 else 3 * 4", 3),
        ("if false then 1 else 2 * 3", 6),
        ("sort(numbers(1, 6), item % 2)", [2, 4, 6, 1, 3, 5]),  # stable: equal keys keep their order
        ("index_of([5, 6, 7], 7)", 3),
        ("index_of([5, 6, 7], 8)", 0),
        ("index_of([], 8)", 0),
        ("true + true + false", 2),
        ("sum(map(numbers(1, 5), item > 2))", 3),
        ("sum([true, true, 1])", 3),
        ("3 * (1 = 1)", 3),
        ("count(numbers(1, 5) where (item > 1) + (item > 3) = 1)", 2),
        ("[none, 5][2]", 5),  # a list keeps its places: a `none` is not dropped before the index is read
        ("[none, 5][1]", None),
        ("[4, none, 6][3]", 6),
    ],
)
def test_expression_values(game, text, expected):
    assert value(game, text) == expected


def test_map_and_sort_over_cards_read_their_fields_as_where_does(game):
    market = game.items_of("market")
    assert value(game, "map(market, item.strength)") == [game.rules.card_values("strength")[c] for c in market]
    assert value(game, "map(market, strength)") == value(game, "map(market, item.strength)")  # bare field names
    ordered = value(game, "sort(market, item.strength)")
    assert names(game, ordered)[0] == "Bow" and sorted(ordered) == sorted(market)
    strongest_first = names(game, value(game, "sort(market, 0 - strength)"))
    assert strongest_first[-1] == "Bow"
    # stable: the three of strength 3 keep the market's order
    threes = [c for c in market if game.rules.card_values("strength")[c] == 3]
    assert value(game, "sort(market, 0 - strength)")[:3] == threes
    assert value(game, "unique(map(market, item.id))") == list(dict.fromkeys(game.rules.instances[c] for c in market))
    assert value(game, "index_of(players, me)") == game.players_from(game.turn_player).index("P1") + 1
    assert value(game, "sum(map(players, item.vp >= 0))") == 2


def test_a_let_bound_list_in_a_map(game):
    assert value(game, "map(xs, item + n)", {"xs": [1, 2], "n": 10}) == [11, 12]


# ---------------------------------------------------------------- lint
SYMBOLS = dsl.Symbols(
    ids={"vp": "counter", "hand": "zone", "market": "zone", "axe": "card"},
    zone_owner={"hand": "player", "market": "table"},
    counter_owner={"vp": "player"},
    card_stats={"strength"},
)


@pytest.mark.parametrize(
    "text",
    [
        "let n = if empty(hand(me)) then 0 else 1",
        "gain sum(map(players, item.vp >= 5)) vp",
        "gain true + 1 vp",
        "let best = first(sort(market, 0 - item.strength))\nmove best to hand",
        "let order = sort(players, item.vp)\nfor each p in order:\n    gain index_of(order, p) vp for p",
        "for each c in unique(map(market, item)):\n    move c to hand",
        'choose 1 from market as pick showing "{item.name} ({strength})"',
        "choose 1 from map(market, [item, item.strength]) as pick",
        'choose_secretly players from hand(me) as picks showing "{item.name}"',
        "if if true then false else true:\n    gain 1 vp",
    ],
)
def test_lint_accepts(text):
    ir, problems = dsl.parse_and_check(text, dsl.EFFECT, SYMBOLS)
    assert ir is not None and problems == [], problems


@pytest.mark.parametrize(
    ("text", "marker", "code"),
    [
        ("let n = map(market, item.strenght)", "strenght", "D002"),
        ("let n = map(players, item.vpp)", "vpp", "D002"),
        ("let n = item", "item", "D002"),
        ("let n = sort(market, item.strength) + item", "item\n", "D002"),
        ("let n = if 1 then 2", "\n", "D001"),
        ('choose 1 from market as pick showing "{item.nam}"', "nam", "D002"),
        ("choose 1 from market as pick showing 3 and", "\n", "D001"),
        ("let n = if true then 1 else", "\n", "D001"),
        ("let n = index_of(market)", "index_of", "D003"),
        ("let n = map(market)", "map", "D003"),
    ],
)
def test_lint_refuses(text, marker, code):
    text += "\n"
    _, problems = dsl.parse_and_check(text, dsl.EFFECT, SYMBOLS)
    assert problems and problems[0].code == code, problems
    want = text.index(marker) if marker != "\n" else len(text.rstrip())
    assert problems[0].offset in (want, want - 1), (problems[0], text[problems[0].offset :])


# ---------------------------------------------------------------- both ways, and the work budget
def test_new_forms_play_the_same_lowered_and_interpreted(tmp_path):
    effect = (
        "let xs = map(numbers(1, 4), item * 3)\n"
        "let ys = sort(unique(xs + [6, 1]), 0 - item)\n"
        'choose 1 from map(ys, [item, index_of(ys, item)]) as p showing "{item[1]} at {item[2]}"\n'
        "let n = if p[1] > 5 then p[2] else 0 - p[2]\n"
        'log "picked {p[1]}, so {n}"\n'
        "gain sum(map(players, item.vp >= 1)) + (n > 0) vp"
    )
    root = write_tree(
        tmp_path / "both",
        {
            "pack.yaml": tiny_manifest("both"),
            "rules.yaml": one_action_rules(effect, goal=6, action="limit: once_per_turn"),
        },
    )
    rules = load(root)
    for seed in range(3):
        reference, lowered = both_ways(rules, 2, seed, decisions=80)
        assert reference == lowered
        assert reference[1] is None and len(reference[0]) > 3


@pytest.mark.parametrize(
    "text",
    [
        "let n = map(numbers(1, 1000), count(map(numbers(1, 1000), map(numbers(1, 1000), item))))",
        "let n = sort(numbers(1, 1000), count(sort(numbers(1, 1000), count(numbers(1, 1000) where item > 0))))",
        "let n = count(unique(map(numbers(1, 1000), unique(map(numbers(1, 1000), numbers(1, 1000))))))",
        "repeat 1000 times:\n    let n = index_of(map(numbers(1, 1000), [item, numbers(1, 1000)]), 0)",
    ],
)
def test_huge_maps_and_sorts_run_out_of_work_instead_of_hanging(tmp_path, text):
    root = write_tree(
        tmp_path / "huge",
        {
            "pack.yaml": tiny_manifest("huge"),
            "rules.yaml": one_action_rules(text + "\ngain 1 vp", action="limit: once_per_turn"),
        },
    )
    error = first_error(load(root))
    assert error is not None and (" X101 " in error or " X103 " in error or " X105 " in error), error
    assert error.startswith(str(root / "rules.yaml") + ":"), error


# ---------------------------------------------------------------- option labels
def decision(game, player="P1"):
    return game.view(player)["decision"]


def take_act(game):
    game.apply(game.decision.options.index("act"), game.decision.players[0])


def test_showing_labels_each_option(tmp_path):
    root = make(
        tmp_path, 'choose 1 from market as pick showing "{item.name} of strength {strength}"\nmove pick to hand'
    )
    game = Game.new(load(root), 2, 0)
    take_act(game)
    labels = [o["label"] for o in decision(game)["options"]]
    assert sorted(labels) == ["Axe of strength 3", "Bow of strength 1", "Club of strength 3"]
    game.apply(labels.index("Bow of strength 1"), "P1")
    assert any(line.endswith("chooses pick: Bow of strength 1") for line in game.log_for("P2")), game.log_for("P2")


def test_a_label_never_names_a_card_the_chooser_cannot_see(tmp_path):
    root = make(tmp_path, 'choose 1 from deck as pick showing "{item.name}!"\nmove pick to hand')
    game = Game.new(load(root), 2, 0)
    take_act(game)
    labels = [o["label"] for o in decision(game)["options"]]
    assert labels and all("Secret" not in label for label in labels), labels


def test_options_that_are_lists_read_in_words_never_card_numbers(tmp_path):
    root = make(tmp_path, "choose 1 from map(market, [item, item.strength + 1]) as deal\nmove deal[1] to hand")
    game = Game.new(load(root), 2, 0)
    take_act(game)
    labels = [o["label"] for o in decision(game)["options"]]
    assert sorted(labels) == ["Axe + 4", "Axe + 4", "Bow + 2", "Club + 4"], labels
    game.apply(labels.index("Bow + 2"), "P1")
    assert any("Bow + 2" in line for line in game.log_for("P2"))
    assert not any(re.search(r"chooses deal: \d", line) for line in game.log_for("P2"))


def test_a_list_option_written_out_keeps_its_numbers_and_names_its_cards(tmp_path):
    root = make(tmp_path, "let top = first(market)\nchoose 1 from [[top, 2], [top, 5]] as deal\ngain deal[2] vp")
    game = Game.new(load(root), 2, 0)
    take_act(game)
    first_card = names(game, [game.items_of("market")[0]])[0]
    assert [o["label"] for o in decision(game)["options"]] == [f"{first_card} + 2", f"{first_card} + 5"]


def test_a_secret_choice_shows_labels_and_list_options_in_words(tmp_path):
    root = make(
        tmp_path,
        'choose_secretly players from map(market, [item, item.strength]) as picks showing "{item[1].name}, {item[2]}"',
    )
    game = Game.new(load(root), 2, 0)
    take_act(game)
    labels = sorted(o["label"] for o in decision(game, "P1")["options"])
    assert labels == ["Axe, 3", "Axe, 3", "Bow, 1", "Club, 3"], labels
    root = make(tmp_path, "choose_secretly players from map(market, [item, item.strength]) as picks", name="plain")
    game = Game.new(load(root), 2, 0)
    take_act(game)
    labels = sorted(o["label"] for o in decision(game, "P2")["options"])
    assert labels == ["Axe + 3", "Axe + 3", "Bow + 1", "Club + 3"], labels
    for player in ("P1", "P2"):
        game.apply(0, player)
    together = [line for line in game.log_for("P1") if "P1" in line and "P2" in line and "+" in line]
    assert together and not re.search(r"P[12] \d", together[-1]), game.log_for("P1")


# ---------------------------------------------------------------- the example of docs/authoring.md
def authoring_example() -> tuple[dict, str]:
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    start = text.index("\n## Words with values, and expressions\n")
    section = text[start : text.index("\n## ", start + 1)]
    manifest, documents = re.findall(r"<!-- example pack: (.*?) -->\n```yaml\n(.*?)```", section, re.DOTALL)[0]
    return yaml.safe_load(manifest), documents


def test_the_authoring_example_lints_clean_and_plays(tmp_path, lint_json):
    manifest, documents = authoring_example()
    pack = {"kind": "pack", "id": "fruit", "name": "Fruit", "version": "1.0.0", **manifest}
    root = write_tree(tmp_path / "fruit", {"pack.yaml": yaml.safe_dump(pack), "rules.yaml": documents})
    code, findings = lint_json(root)
    assert findings == [] and code == 0
    rules = load(root)
    game = Game.new(rules, 2, 0)
    game.apply(game.decision.options.index("buy"), "P1")
    labels = [o["label"] for o in decision(game)["options"]]
    assert labels == ["Apple for 1 coins", "Fig for 2 coins", "Melon for 3 coins"]
    assert decision(game)["prompt"] == "What do you buy, P1?"
    game.apply(labels.index("Fig for 2 coins"), "P1")
    assert "P1 buys a Fig and has 1 kinds of fruit" in game.log_for("P2")
    game.apply(game.decision.options.index("sell"), "P1")
    assert "P1 sells a Fig for 1 and ranks 1 of 2; 0 at 3 or more" in game.log_for("P2")
    for players in (2, 3):
        for seed in range(2):
            game = Game.new(rules, players, seed, max_rounds=200)
            play_randomly(game, random.Random(seed))
            assert game.over and game.state["result"]["reason"] != "turn_limit"


@pytest.mark.parametrize(
    ("options", "labels"),
    [
        ("map(numbers(1, 3), item * 2)", ["2", "4", "6"]),
        ("sort(map(market, item.strength))", ["1", "3", "3", "3"]),
        ("unique(map(market, item.strength))", None),
        ("if true then numbers(2, 3) else [1]", ["2", "3"]),
    ],
)
def test_options_made_of_numbers_read_as_numbers_not_cards(tmp_path, options, labels):
    root = make(tmp_path, f"choose 1 from {options} as n\ngain n vp")
    game = Game.new(load(root), 2, 0)
    take_act(game)
    shown = [o["label"] for o in decision(game)["options"]]
    assert all(label.isdigit() for label in shown), shown
    if labels is not None:
        assert shown == labels


def test_lint_knows_what_sort_unique_and_map_make():
    """`for each` over them binds cards or players, whose fields lint then checks."""
    text = (
        "for each c in unique(market):\n    let a = c.strenght\n"
        "for each p in sort(players, item.vp):\n    let b = p.vpp\n"
        "for each q in map(players, item):\n    let d = q.vpq\n"
    )
    _, problems = dsl.parse_and_check(text, dsl.EFFECT, SYMBOLS)
    assert [(p.code, text[p.offset : p.offset + 8]) for p in problems] == [
        ("D002", "strenght"),
        ("D002", "vpp\nfor "),
        ("D002", "vpq\n"),
    ]


NUMBER_FUNCTIONS = """---
kind: function
id: evens
params: [high]
body: numbers(1, high) where item % 2 = 0
---
kind: function
id: some_evens
body: evens(6) + [1]
"""


@pytest.mark.parametrize("options", ["evens(6)", "some_evens()"])
def test_options_from_a_pack_function_that_makes_numbers_read_as_numbers(tmp_path, options):
    """A pack function whose body makes plain numbers (through other functions too) offers numbers, not the
    "face-down card #13" its numbers once read as."""
    game = Game.new(load(make(tmp_path, f"choose 1 from {options} as n\ngain n vp", extra=NUMBER_FUNCTIONS)), 2, 0)
    take_act(game)
    shown = [o["label"] for o in decision(game)["options"]]
    assert sorted(shown) == sorted(["2", "4", "6"] + (["1"] if options == "some_evens()" else []))
