"""The effect language: parsing, the checks of names, arity and types, error wording, and limits."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import dsl
from engine.dsl.builtins import CONSTANTS, FUNCTIONS, VERBS
from engine.dsl.docs import render_dsl
from engine.lint.docs import render_rules

REPO = Path(__file__).resolve().parent.parent

SYMBOLS = dsl.Symbols(
    ids={
        "vp": "counter",
        "ap": "counter",
        "meals": "counter",
        "forest": "zone",
        "forest_discard": "zone",
        "hand": "zone",
        "tableau": "zone",
        "spoils": "zone",
        "weapons": "tag",
        "axe": "card",
        "wood": "card",
        "explore": "action",
        "encounter": "action",
        "hand_limit": "parameter",
        "settled": "flag",
        "hand_limit_value": "parameter",
        "display": "zone",
        "display_deck": "zone",
    },
    zone_owner={
        "hand": "player",
        "tableau": "player",
        "forest": "table",
        "forest_discard": "table",
        "spoils": "table",
        "display": "table",
        "display_deck": "table",
    },
    counter_owner={"vp": "player", "ap": "player", "meals": "player"},
    functions={"weapons": 1},
    card_stats={"strength", "vp", "hand_limit", "improve_dwelling", "spoils"},
)


# Names the documentation examples take as bound by an earlier statement.
EXAMPLE_LOCALS = {
    "picked": "cards",
    "payment": "cards",
    "loot": "cards",
    "found": "card",
    "used": "card",
    "tech": "card",
    "paid": "cards",
    "returning": "card",
    "helper": "player",
    "rival": "player",
    "river": "zone",
    "faces": "any",
}


def problems(text, mode=dsl.EFFECT, local=None):
    _, found = dsl.parse_and_check(text, mode, SYMBOLS, local)
    return [(p.code, p.offset, p.message, p.hint) for p in found]


def test_a_card_effect_lowers_to_plain_instructions():
    ir, found = dsl.parse_and_check("gain card.vp vp\ndraw 2 from forest to hand as found\n", dsl.EFFECT, SYMBOLS)
    assert found == []
    assert ir == [
        "block",
        0,
        [
            ["verb", 0, "gain", [["field", 10, ["name", 5, "card"], "vp"], ["name", 13, "vp"]], []],
            [
                "verb",
                16,
                "draw",
                [["num", 21, 2]],
                [
                    ["from", 23, ["name", 28, "forest"]],
                    ["to", 35, ["name", 38, "hand"]],
                    ["as", 43, ["name", 46, "found"]],
                ],
            ],
        ],
    ]


def test_blocks_conditions_loops_and_bindings_check_clean():
    text = (
        "choose 1 from [forest, spoils] as terrain\n"
        "if weapons(me) + 1 >= card.strength and not flagged(settled):\n"
        "    for each p in players:\n"
        "        let n = count(tableau(p) where tag = weapons and orientation != reversed)\n"
        "        repeat n times:\n"
        "            gain 1 vp for p  # a comment\n"
        "elif card.vp = 2: stop\n"
        "else:\n"
        "    draw 1 from terrain to hand; lose 1 ap\n"
    )
    assert problems(text) == []


def test_misspelt_verb_suggests_the_nearest():
    assert problems("gian 1 vp") == [("D002", 0, "unknown verb `gian`", "did you mean `gain`?")]


def test_misspelt_name_points_at_it_and_suggests():
    [(code, offset, message, hint)] = problems("gain 1 vpp")
    assert (code, offset, message, hint) == ("D002", 7, "unknown name `vpp`", "did you mean `vp`?")


def test_misspelt_card_field_is_caught():
    [(code, offset, _message, hint)] = problems("gain card.strenght vp")
    assert code == "D002" and offset == 10 and hint == "did you mean `strength`?"


def test_missing_colon_is_explained_in_words():
    [(code, offset, message, hint)] = problems("if card.vp > 1\n    gain 1 vp\n")
    assert code == "D001" and offset == 14
    assert message == "found the end of the line, expected `:`"
    assert "must end with `:`" in hint


def test_stray_indentation_points_at_the_indented_line():
    [(code, offset, message, _)] = problems("gain 1 vp\n    gain 2 vp\n")
    assert code == "D001" and offset == 14 and "indented" in message


def test_unclosed_bracket_gets_a_hint():
    [(code, _, _, hint)] = problems("gain (1 + 2 vp")
    assert code == "D001" and "not closed" in hint


def test_single_quotes_are_explained():
    [(code, offset, _, hint)] = problems("log 'hello'")
    assert code == "D001" and offset == 4 and "double quotes" in hint


def test_arity_and_parts_are_checked_against_the_verb_table():
    assert problems("draw 1 to hand")[0][:3] == ("D003", 0, "`draw` needs a `from` part (source)")
    assert problems("gain 1 vp from forest")[0][:3] == ("D003", 10, "`gain` takes no `from` part")
    assert problems("gain 1 vp 2 3")[0][0] == "D003"
    assert problems("1 = count(hand(me), 1, 2)", dsl.CONDITION)[0][0] == "D003"


def test_types_are_checked():
    assert problems('gain "a" vp')[0][:2] == ("D004", 5)
    assert problems("move axe to 3")[0][0] == "D004"
    assert problems("hand(forest)", dsl.EXPRESSION)[0][0] == "D004"


def test_shared_zones_take_no_player():
    assert problems("count(forest(me))", dsl.EXPRESSION)[0][0] == "D003"


def test_limits_stop_huge_or_deep_texts_before_parsing():
    assert problems("gain 1 vp\n" * 500)[0][0] == "D005"
    assert problems("gain " + "(" * 30 + "1" + ")" * 30 + " vp")[0][0] == "D005"


def test_conditions_and_expressions_may_span_lines():
    assert problems("count(hand(me))\n  > 2", dsl.CONDITION) == []
    assert problems("  \n  weapons(me) >= card.strength", dsl.CONDITION) == []
    ir, _ = dsl.parse("  me.vp >= 3", dsl.CONDITION)
    assert ir[1] == 8  # offsets stay those of the original text


@pytest.mark.parametrize("name", sorted(VERBS))
def test_every_verb_example_is_valid(name):
    assert problems(VERBS[name].example, local=EXAMPLE_LOCALS) == [], VERBS[name].example


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_every_function_example_is_valid(name):
    example = FUNCTIONS[name].example
    mode = dsl.EFFECT if example.split()[0] in VERBS else dsl.EXPRESSION
    assert problems(example, mode, EXAMPLE_LOCALS) == [], example


def test_generated_reference_pages_are_current():
    """docs/dsl.md, docs/lint-rules.md and docs/runtime-errors.md are generated from the code: run
    tools/gen_docs.py after changing engine/dsl/builtins.py, engine/diagnostics.py or
    engine/runtime/error_codes.py."""
    from engine.runtime.error_codes import render_page

    assert (REPO / "docs" / "dsl.md").read_text(encoding="utf-8") == render_dsl()
    assert (REPO / "docs" / "lint-rules.md").read_text(encoding="utf-8") == render_rules()
    assert (REPO / "docs" / "runtime-errors.md").read_text(encoding="utf-8") == render_page()
    page = render_dsl()
    for name in list(VERBS) + list(FUNCTIONS) + list(CONSTANTS):
        assert f"`{name}" in page


_words = st.sampled_from(
    list(VERBS)
    + list(FUNCTIONS)
    + list(CONSTANTS)
    + list(SYMBOLS.ids)
    + [
        "if",
        "else",
        "elif",
        "for",
        "each",
        "in",
        "repeat",
        "times",
        "let",
        "where",
        "and",
        "or",
        "not",
        "from",
        "to",
        "as",
        "then",
        "showing",
        '"a {1} b"',
        '"{item}"',
        '"{{x}}"',
        '"{"',
        '"{ + }"',
        ":",
        "(",
        ")",
        "[",
        "]",
        ",",
        ".",
        "=",
        ">=",
        "+",
        "-",
        "*",
        "/",
        "1",
        "2",
        '"x"',
        "\n",
        "\n    ",
        ";",
        "#",
        "'",
        "$",
        "stop",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_words, max_size=40).map(" ".join))
def test_token_soup_gives_only_problems(text):
    for mode in (dsl.EFFECT, dsl.CONDITION):
        ir, found = dsl.parse_and_check(text, mode, SYMBOLS)
        assert (ir is None) == any(p.code in ("D001", "D005") for p in found)
        for p in found:
            assert p.code in ("D001", "D002", "D003", "D004", "D005", "D006") and 0 <= p.offset <= max(len(text), 1)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_gives_only_problems(text):
    for mode in (dsl.EFFECT, dsl.EXPRESSION):
        _, found = dsl.parse_and_check(text, mode, SYMBOLS)
        for p in found:
            assert p.code.startswith("D") and p.message
