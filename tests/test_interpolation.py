"""Values in texts (issue 13): `"take {card.name} with {pot} chips"` in every quoted text of the effect
language and in an action's `why_not`; `{{` and `}}` are braces; a mistake inside the braces is reported at
its own column, by the parser and by lint."""

from __future__ import annotations

import random

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree

from engine import dsl
from engine.dsl.parsing import TEXT
from engine.runtime.compiler import compile_text
from engine.runtime.context import Ctx
from engine.runtime.game import Game
from engine.runtime.rules import load
from engine.runtime.session import play_randomly

COUNTERS = "kind: counter\nid: pot\nname: Pot\nowner: table\nstart: 7\n---\n"


def make(tmp_path, effect: str, *, action: str = "", extra: str = ""):
    action = "limit: once_per_turn" + (f"\n{action}" if action else "")
    text = one_action_rules(effect, goal=40, action=action, before=COUNTERS.rstrip("-\n") + "\n", extra=extra)
    root = write_tree(tmp_path / "words", {"pack.yaml": tiny_manifest("words"), "rules.yaml": text})
    return root


def act(root, players: int = 1) -> Game:
    game = Game.new(load(root), players, 0)
    game.apply(game.decision.options.index("act"), "P1")
    return game


# ---------------------------------------------------------------- the parser
def test_a_text_with_values_is_words_of_its_parts_at_their_offsets():
    text = 'log "take {card.name} with {pot} chips"'
    ir, problem = dsl.parse(text)
    assert problem is None
    words = ir[2][0][3][0]
    assert words[0] == "call" and words[2] == "words"
    parts = words[3]
    assert [p[0] for p in parts] == ["str", "field", "str", "name", "str"]
    assert parts[0][2] == "take " and parts[2][2] == " with " and parts[4][2] == " chips"
    assert parts[3][1] == text.index("pot")  # the value's own offset in the whole text
    assert parts[1][2][1] == text.index("card.name")


def test_doubled_braces_are_braces_and_a_text_without_values_stays_a_text():
    ir, problem = dsl.parse('log "a {{set}} of }}braces{{"')
    assert problem is None and ir[2][0][3][0] == ["str", 4, "a {set} of }braces{"]


@pytest.mark.parametrize(
    ("text", "marker", "words"),
    [
        ('log "a {card.name"', "{card", "not closed"),
        ('log "a } b"', "}", "closes no"),
        ('log "a {} b"', "{}", "empty"),
        ('log "a {1 +} b"', "} b", "end of the value"),
        ('log "a {me..vp} b"', ".vp", "found `.`"),
        ('ask me "Take {card.name with me}?" as yes', "with", "found"),
    ],
)
def test_a_mistake_inside_braces_is_reported_at_its_column(text, marker, words):
    ir, problem = dsl.parse(text)
    assert ir is None and problem.code == "D001"
    assert problem.offset == text.index(marker), (problem, text[problem.offset :])
    assert words in problem.message


def test_an_unknown_name_inside_braces_is_checked_at_its_column():
    text = 'log "you have {pott} chips"'
    _, problems = dsl.parse_and_check(text, dsl.EFFECT, dsl.Symbols(ids={"pot": "counter"}))
    assert [(p.code, p.offset) for p in problems] == [("D002", text.index("pott"))]
    assert "pot" in problems[0].hint


def test_a_why_not_text_is_a_text_with_values():
    ir, problem = dsl.parse("You need {3 - me.ap} more", TEXT)
    assert problem is None and ir[0] == "call" and ir[3][1][1] == len("You need {3 ")
    _, problem = dsl.parse("You need {3 - } more", TEXT)
    assert problem is not None and problem.offset == len("You need {3 - ")
    assert dsl.parse("No {{braces}} here", TEXT)[0] == ["str", 0, "No {braces} here"]


# ---------------------------------------------------------------- lint: file:line:col, with the caret
def test_lint_points_into_the_braces(tmp_path, lint_json):
    root = make(tmp_path, 'log "you have {me.vp +} points"\nlog "the {pott} chips"')
    code, findings = lint_json(root)
    assert code != 0
    rules_lines = (root / "rules.yaml").read_text().splitlines()
    line = next(i for i, text in enumerate(rules_lines, 1) if "me.vp +" in text)
    assert ("rules.yaml", line, rules_lines[line - 1].index("} points") + 1) in [f[:3] for f in findings]
    # a syntax error stops the text's checks; the second text is checked once the first is fixed
    root = make(tmp_path, 'log "the {pott} chips"')
    code, findings = lint_json(root)
    rules_lines = (root / "rules.yaml").read_text().splitlines()
    line = next(i for i, text in enumerate(rules_lines, 1) if "pott" in text)
    text = rules_lines[line - 1]
    assert [f[:4] for f in findings] == [("rules.yaml", line, text.index("pott") + 1, "D002")]


def test_lint_reports_a_mistake_in_a_why_not(tmp_path, lint_json):
    root = make(tmp_path, "gain 1 vp", action='available: me.vp < 3\nwhy_not: "You have {me.vpp} points"')
    _, findings = lint_json(root)
    text = (root / "rules.yaml").read_text().splitlines()
    line = next(i for i, t in enumerate(text, 1) if "why_not" in t)
    assert [f[:4] for f in findings] == [("rules.yaml", line, text[line - 1].index("vpp") + 1, "D002")]


# ---------------------------------------------------------------- at run time
def test_log_ask_choose_and_oracle_texts_carry_their_values(tmp_path):
    root = make(
        tmp_path,
        'log "the pot holds {pot} chips, {{not}} {me.vp + 2} points; {[1, 2]}"\n'
        'ask me "Take {pot} chips, {me}?" as yes\n'
        'choose 1 from [1, 2] as n with "Pick one of {count([1, 2])}"\n'
        'oracle "Does it land {n} times?" with 50 as landed',
    )
    game = act(root)
    assert "the pot holds 7 chips, {not} 2 points; 1, 2" in game.log_for("P1")
    assert game.view("P1")["decision"]["prompt"] == "Take 7 chips, P1?"
    game.apply(0, "P1")
    assert game.view("P1")["decision"]["prompt"] == "Pick one of 2"
    game.apply(1, "P1")
    assert game.pending["prompt"] == "Does it land 2 times?"
    game.apply_chance()
    assert any(line.startswith("Does it land 2 times? ") for line in game.log_for("P1"))


def test_a_require_reason_and_a_why_not_carry_their_values(tmp_path):
    root = make(
        tmp_path,
        'require me.vp >= pot with "You need {pot - me.vp} more points"\ngain 1 vp',
        extra=(
            "kind: action\nid: wish\nname: Wish\navailable: me.vp > pot\n"
            'why_not: "You have {me.vp} of the {pot + 1} points it needs; {{sorry}}"\neffect: |\n  gain 1 vp\n'
        ),
    )
    game = Game.new(load(root), 1, 0)
    missing = {m["key"]: m["why"] for m in game.view("P1")["decision"]["unavailable"]}
    assert missing["wish"] == "You have 0 of the 8 points it needs; {sorry}"
    game.apply(game.decision.options.index("act"), "P1")  # fails: undone, in the author's words with values
    missing = {m["key"]: m["why"] for m in game.view("P1")["decision"]["unavailable"]}
    assert missing["act"] == "You need 7 more points"


def test_an_invite_offer_carries_its_values(tmp_path):
    root = make(tmp_path, 'invite opponents with "{pot} chips to share" as helpers')
    game = act(root, players=2)
    assert "(offer: 7 chips to share)" in game.view("P2")["decision"]["prompt"]


def test_a_value_in_a_text_is_paid_for_from_the_work_budget(tmp_path):
    rules = load(make(tmp_path, "gain 1 vp"))
    game = Game.new(rules, 1, 0)
    code = compile_text(rules, "t", '"{numbers(1, 1000)}"', "expression")
    game.work = 10_000
    text = code(Ctx(game, {}, "P1", None))
    assert text.startswith("1, 2, 3") and game.work <= 10_000 - 1000 - len(text)


def test_the_shipped_packs_have_no_text_with_braces_that_changed_meaning():
    """No quoted text of the packs shipped before texts held values has a brace (it would now be a value), so
    their logs are unchanged. Packs written since may use values (`{n}` of `generate`, `"{me} takes ..."`)."""
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    quoted = re.compile(r'"[^"\n]*[{}][^"\n]*"')
    older = ("cro-magnon", "cro-magnon-solo", "neolithibum", "stone-age", "stone-age-mammoth-herd")
    for path in (p for pack in older for p in (repo / "content" / pack).rglob("*.yaml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            code = line.split("#")[0]
            if ":" in code and ("{" in code.split(":", 1)[1] and '"' not in code):
                continue  # a YAML flow mapping, not a DSL text
            assert not quoted.search(code), (path, line)


def test_random_games_with_values_in_texts_play_to_the_end(tmp_path):
    root = make(tmp_path, 'log "{me} takes {pot} chips: {if pot > 3 then pot - 3 else 0} over"\ngain 1 vp')
    rules = load(root)
    for seed in range(3):
        game = Game.new(rules, 2, seed)
        play_randomly(game, random.Random(seed), limit=400)
        assert any("takes 7 chips: 4 over" in line for line in game.log_for("P2"))


def test_lint_refuses_a_card_put_into_words_as_its_number():
    symbols = dsl.Symbols(ids={"hand": "zone", "deck": "zone"}, zone_owner={"hand": "player", "deck": "table"})
    text = 'let c = top(deck)\nlog "you drew {c}, {card.name}, {map(hand(me), item.name)} and {hand(me) where true}"'
    _, problems = dsl.parse_and_check(text, dsl.EFFECT, symbols)
    assert [(p.code, p.offset) for p in problems] == [("D004", text.index("c}")), ("D004", text.index("hand(me) w"))]
    assert "card.name" in problems[0].hint
