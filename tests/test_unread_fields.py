"""Behaviour written where no rule reads it (lint D008, engine/lint/unread_fields.py), log lines that show values
(`words`), and the S003 hint for a list written as one text (issue 11).

A card's `effect` runs only when a rule resolves the card: a technology with an effect was mastered in 8
games and its effect never happened, with no warning. Lint now says so at the field, and stays silent
whenever a `resolve` may reach the card (it reports only what certainly never runs).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from conftest import write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import lint
from engine.content import schema as schema_check
from engine.lint import unread_fields
from engine.runtime import rules as rules_module
from engine.runtime import session
from engine.runtime.game import Game

REPO = Path(__file__).resolve().parent.parent


def _lint(*roots):
    return lint.lint([Path(r) for r in roots], None).diagnostics


def _d008(diagnostics):
    return sorted((Path(d.file).name, d.line, d.col, d.message) for d in diagnostics if d.code == "D008")


# -------------------------------------------------------------------------------------- the case
VARIANT = """kind: pack
id: fire_mastery
name: Cro-Magnon with a technology that acts
version: 0.1.0
extends: [cro_magnon]
players: {min: 2, max: 4}
"""

FIRE = """kind: card
id: fire_making
name: Fire Making
type: technology
deck: daily_life_deck
cost: [wood, flint]
stats: {vp: 1}
effect: |
  gain 2 vp
provenance: placeholder
reason: a test card
"""


def test_a_technology_effect_no_rule_resolves_is_reported_at_the_field(tmp_path):
    """The issue: a new technology with an effect, in a variant of Cro-Magnon (which resolves no card)."""
    write_tree(tmp_path / "fire-mastery", {"pack.yaml": VARIANT, "cards.yaml": FIRE})
    diagnostics = _lint(REPO / "content" / "cro-magnon", tmp_path / "fire-mastery")
    found = [d for d in diagnostics if d.code == "D008"]
    assert [(Path(d.file).name, d.line, d.col) for d in found] == [("cards.yaml", 8, 1)]
    assert found[0].message == (
        "the `effect` of technology `fire_making` never runs: no rule of the pack "
        "resolves the effect of technology cards"
    )
    assert "resolve" in found[0].hint and found[0].severity.value == "warning"


def test_the_builtin_packs_and_the_modding_tutorial_have_no_unread_behaviour():
    """No false positive where it matters most: every pack shipped and the tutorial's packs."""
    assert _d008(_lint(REPO / "content", REPO / "docs" / "modding")) == []


def test_the_bad_content_case_is_found_by_the_cli(knap):
    code, out, err = knap("lint", REPO / "tests" / "bad_content" / "d008_effect_never_runs", "--no-cache")
    assert code == 1 and out.count("D008") == 3, out + err


# -------------------------------------------------------------------------------------- which cards a resolve reaches
def _docs(*rules: str, cards=(("fire", "technology", ()), ("storm", "event", ("weather",)))):
    docs = [
        {
            "kind": "card",
            "id": card_id,
            "name": card_id,
            "type": type_,
            "deck": "deck",
            "tags": list(tags),
            "effect": "gain 1 vp\n",
        }
        for card_id, type_, tags in cards
    ]
    docs += [{"kind": "action", "id": f"rule{n}", "name": "A rule", "effect": text} for n, text in enumerate(rules)]
    return docs


def _never_run(*rules: str, **kwargs) -> list[str]:
    return sorted(f.document["id"] for f in unread_fields.unread(_docs(*rules, **kwargs)))


@pytest.mark.parametrize(
    "rules, unread",
    [
        ((), ["fire", "storm"]),  # no resolve at all
        (("draw 1 from deck as drawn\nresolve drawn where type = event\n",), ["fire"]),
        (("resolve hand(me) where type = event or type = technology\n",), []),
        (("resolve hand(me) where tag = weather\n",), ["fire"]),
        (("resolve hand(me) where id = fire and count(hand(me)) > 1\n",), ["storm"]),
        # followed through the names a text binds: choose ... from ... as, let, for each
        (("choose 1 from hand(me) where type = technology as tech\nresolve tech\n",), ["storm"]),
        (("let events = hand(me) where type = event\nfor each e in events:\n    resolve e\n",), ["fire"]),
        (("let picked = first(hand(me) where type = event)\nresolve [picked]\n",), ["fire"]),
        # anything else may be any card: silent
        (("resolve card\n",), []),
        (("draw 1 from deck as drawn\nresolve drawn\n",), []),
        (("let x = hand(me) where type = event\nlet x = hand(me)\nresolve x\n",), []),  # bound twice: either
        (("resolve hand(me) where type = kind\n",), []),  # `kind` is no type of the pack's cards
        (("resolve (",), []),  # does not parse: may say anything
    ],
)
def test_a_resolve_reaches_the_cards_its_text_narrows_it_to(rules, unread):
    assert _never_run(*rules) == unread


def test_a_name_bound_from_itself_does_not_loop():
    assert _never_run("let x = hand(me)\nlet x = x where type = event\nresolve x\n") == []


def test_a_resolve_in_another_pack_text_kind_counts_too():
    """Resolves are looked for in every DSL text of the pack: a phase, a card's own effect."""
    docs = _docs()
    docs[1]["effect"] = "resolve hand(me) where type = technology\n"  # the event resolves technologies
    assert sorted(f.document["id"] for f in unread_fields.unread(docs)) == ["storm"]


# -------------------------------------------------------------------------------------- subroutines, playable
@pytest.mark.parametrize(
    "performer, unread",
    [
        ("gain 1 vp\n", ["helper"]),
        ("perform helper\n", []),
        ("let which = helper\nperform which\n", []),  # worked out at play: may be any action
    ],
)
def test_a_subroutine_no_rule_performs_is_reported(performer, unread):
    docs = [
        {"kind": "action", "id": "helper", "name": "Helper", "subroutine": True, "effect": "gain 1 vp\n"},
        {"kind": "action", "id": "main", "name": "Main", "effect": performer},
    ]
    assert [f.document["id"] for f in unread_fields.unread(docs)] == unread


def test_playable_is_reported_and_the_runtime_never_reads_it(make_pack):
    """`playable` is in the schema and completed by editors, but no verb or rule reads it: the runtime compiles
    it, as it does every field the schema marks, and never runs it. Lint says so at the field."""
    card = (
        FIRE.replace("deck: daily_life_deck", "deck: deck")
        .replace("cost: [wood, flint]\n", "")
        .replace("effect: |\n  gain 2 vp\n", "playable: count(hand(me)) > 0\n")
    )
    pack = make_pack({"cards.yaml": card})
    assert _d008(_lint(pack)) == [
        (
            "cards.yaml",
            7,
            1,
            (
                "the `playable` of technology `fire_making` is never read: "
                "no rule or verb of knap uses a card's `playable`"
            ),
        )
    ]
    rules = rules_module.load(pack)
    assert "card/fire_making/playable" in rules.code  # compiled as the schema marks it, so its errors show at load
    game = Game.new(rules, 2, 0)
    runs = []
    rules.code["card/fire_making/playable"] = lambda c: runs.append(c) or True
    session.play_randomly(game, random.Random(0), limit=200)
    assert runs == []  # ... and nothing runs it, as lint says


def test_the_runtime_compiles_exactly_the_fields_the_schemas_mark_as_dsl():
    """One list of behaviour fields: the schemas' `x-dsl` marks, read by lint and by the runtime alike."""
    from engine.runtime.compiler import behaviour_fields

    for kind in ("action", "function", "phase", "end", "scoring", "card"):
        marked = {path[0] for path, role, _ in schema_check.field_roles(kind) if role == "dsl"}
        assert {field for field, _ in behaviour_fields(kind)} == marked, kind
    assert ("playable", "condition") in behaviour_fields("card") and ("body", "expression") in behaviour_fields(
        "function"
    )


def test_every_behaviour_field_of_a_card_says_what_reads_it():
    """A new x-dsl field of the card schema must be declared in unread_fields with what runs it; `effect` is
    what `resolve` runs (the runtime compiles it as `card/ID/effect`)."""
    dsl_fields = {path[0] for path, role, _ in schema_check.field_roles("card") if role == "dsl"}
    assert dsl_fields == set(unread_fields.CARD_FIELD_READERS)
    assert unread_fields.CARD_FIELD_READERS["effect"] == "resolve"


def test_resolve_is_the_only_runtime_code_that_runs_a_cards_effect():
    """D008 trusts that only the `resolve` verb runs a card's compiled effect (`card/ID/effect`): a new verb
    or rule doing it must be declared in unread_fields, or lint would call its cards' effects dead."""
    import re

    from python_source import source_of

    from engine.runtime import verbs

    runners = []
    for path in sorted((REPO / "engine" / "runtime").glob("*.py")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if re.search(r"""f["']card/\{""", line):
                runners.append(line.strip())
    assert runners and all(line in source_of(verbs.Resolve) for line in runners), runners


def test_a_resolved_card_effect_runs_and_an_unresolved_one_does_not(make_pack):
    """What D008 promises, at play: with no `resolve`, the effect of a card taken into hand never happens;
    `resolve` makes it happen."""
    manifest = "kind: pack\nid: demo\nname: Demo\nversion: 0.1.0\nplayers: {min: 2, max: 2}\n"
    card = "kind: card\nid: boon\nname: Boon\ntype: gift\ndeck: deck\ncopies: 4\neffect: |\n  gain 5 vp\n"
    end = "kind: end\nid: goal\nname: Goal\ntrigger: me.vp >= 100\nthen: immediate\nresult: most\ncounter: vp\n"
    for effect, gained in (
        ("draw 1 from deck to hand(me)", 0),
        ("draw 1 from deck to hand(me) as got\n  resolve got", 5),
    ):
        action = f"kind: action\nid: take\nname: Take\nlimit: once_per_turn\neffect: |\n  {effect}\n"
        pack = make_pack({"cards.yaml": card, "more.yaml": action + "---\n" + end}, manifest=manifest)
        reported = bool(_d008(_lint(pack)))
        game = Game.new(rules_module.load(pack), 2, 0)
        game.apply(game.state["pending"]["options"].index("take"))  # P1 takes a Boon into hand
        assert game.rules.instances[game.state["zones"]["hand:P1"][-1]] == "boon"
        assert game.state["counters"]["P1"]["vp"] == gained
        assert reported == (gained == 0)


# -------------------------------------------------------------------------------------- S003: a list written as one text
@pytest.mark.parametrize(
    "written, hint",
    [
        ("flint, grass", "write a list: [flint, grass]"),
        ("flint", "write a list: [flint]"),
        ("Flint, Grass", "write a list: [Flint, Grass]"),  # no sure fix (not ids), still the hint
    ],
)
def test_a_text_where_a_list_is_expected_hints_at_the_list(written, hint):
    card = {"kind": "card", "id": "axe", "name": "Axe", "type": "technology", "deck": "deck", "cost": written}
    found = schema_check.validate(card, "cards.yaml", 0)
    assert [(d.code, d.path, d.hint) for d in found] == [("S003", ("cost",), hint)]


def test_the_list_hint_comes_with_the_data_of_its_fix():
    """`knap lint --fix` rewrites the text as the list: the finding carries the path and the items."""
    card = {"kind": "card", "id": "axe", "name": "Axe", "type": "technology", "deck": "deck", "cost": "flint, grass"}
    (found,) = schema_check.validate(card, "cards.yaml", 0)
    assert found.fix["path"] == ["cost"] and found.fix["new"] == ["flint", "grass"] and found.fix["doc"] == 0


# -------------------------------------------------------------------------------------- log lines that show values
def test_words_makes_one_log_line_of_values(make_pack):
    """`words(...)` (declared in dsl_builtins, documented in docs/dsl.md): numbers as digits, players and ids
    by their names, lists joined with commas; the pack lints clean and the line reaches the log."""
    manifest = "kind: pack\nid: demo\nname: Demo\nversion: 0.1.0\nplayers: {min: 2, max: 2}\n"
    action = (
        "kind: action\nid: tell\nname: Tell\nlimit: once_per_turn\neffect: |\n"
        "  let strength = 2 + 3\n"
        '  log words("Hunt: strength ", strength, " (", [me] + opponents, ") vs ", 4, ": ", strength >= 4)\n'
        "---\nkind: end\nid: goal\nname: Goal\ntrigger: me.vp >= 100\nthen: immediate\nresult: most\n"
        "counter: vp\n"
    )
    pack = make_pack({"more.yaml": action}, manifest=manifest)
    assert [d for d in _lint(pack) if d.severity.value == "error"] == []
    game = Game.new(rules_module.load(pack), 2, 0)
    game.apply(game.state["pending"]["options"].index("tell"))
    assert ["Hunt: strength 5 (P1, P2) vs 4: yes"] in game.state["log"]


# -------------------------------------------------------------------------------------- fuzz: never a false positive
_VALUES = ("alpha", "beta", "red", "blue", "c0", "c1", "c2")
_atoms = st.builds(
    lambda field, op, value: f"{field} {op} {value}",
    st.sampled_from(("type", "tag", "id")),
    st.sampled_from(("=", "!=")),
    st.sampled_from(_VALUES),
)
_conditions = st.recursive(
    _atoms,
    lambda inner: st.one_of(
        st.builds(lambda a, b: f"({a}) and ({b})", inner, inner),
        st.builds(lambda a, b: f"({a}) or ({b})", inner, inner),
        st.builds(lambda a: f"not ({a})", inner),
    ),
    max_leaves=4,
)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    types=st.lists(st.sampled_from(("alpha", "beta")), min_size=3, max_size=3),
    tags=st.lists(st.lists(st.sampled_from(("red", "blue")), unique=True, max_size=2), min_size=3, max_size=3),
    condition=_conditions,
)
def test_a_card_whose_effect_runs_at_play_is_never_reported(make_pack, types, tags, condition):
    """Soundness against the runtime: whatever `where` a `resolve` is narrowed by, every card whose effect
    the game actually runs (seen in the VP it gains: card i gives 2**i) is absent from D008's findings."""
    manifest = "kind: pack\nid: demo\nname: Demo\nversion: 0.1.0\nplayers: {min: 2, max: 2}\n"
    cards = "---\n".join(
        f"kind: card\nid: c{i}\nname: C{i}\ntype: {types[i]}\ndeck: deck\ntags: {tags[i]}\n"
        f"effect: |\n  gain {2**i} vp\n"
        for i in range(3)
    )
    cards += "".join(
        f"---\nkind: card\nid: {name}\nname: N\ntype: {type_}\ndeck: deck\ntags: [{tag}]\n"
        for name, type_, tag in (("na", "alpha", "red"), ("nb", "beta", "blue"))
    )  # every word known
    rules = (
        f"kind: action\nid: go\nname: Go\nlimit: once_per_turn\neffect: |\n  resolve deck where {condition}\n"
        "---\nkind: end\nid: goal\nname: Goal\ntrigger: me.vp >= 100\nthen: immediate\nresult: most\n"
        "counter: vp\n"
    )
    pack = make_pack({"cards.yaml": cards, "more.yaml": rules}, manifest=manifest)
    ruleset = rules_module.load(pack)
    game = Game.new(ruleset, 2, 0)
    game.apply(game.state["pending"]["options"].index("go"))
    gained = game.state["counters"]["P1"]["vp"]
    ran = {f"c{i}" for i in range(3) if gained & 2**i}
    reported = _reported(pack)
    assert not ran & reported, (condition, ran, reported)


def _reported(pack) -> set[str]:
    """The cards D008 reports in a pack folder (by id, read from the finding's message)."""
    return {d.message.split("`")[3] for d in _lint(pack) if d.code == "D008"}
