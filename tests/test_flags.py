"""Flags are declared (`kind: flag`; docs/authoring.md, "Flags"): a misspelt flag is an unknown name (D002)
with a "did you mean", a declared flag no effect sets is D009, one set but never read is D010; a flag with
`owner: table` is one for the whole table."""

from __future__ import annotations

import contextlib
import functools
import re
import textwrap

import pytest
from conftest import REPO, goal_end, one_action_rules, tiny_manifest, write_tree
from lowered_code import switched_off
from test_compiled_effects import interpreted

from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.rules import load


def doc_block(heading: str) -> str:
    """The first YAML example under a heading of docs/authoring.md."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index(f"### {heading}\n") :]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


EXAMPLE = doc_block("Flags")  # two flags and the action `settle`
FLAGS, ACTION = EXAMPLE.split("---\nkind: action\n")
EFFECT = textwrap.dedent(ACTION.split("effect: |\n")[1])


def _pack(tmp_path, effect=EFFECT, flags=FLAGS):
    rules = one_action_rules(effect, goal="100", action="limit: once_per_turn", extra=flags)
    return write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules})


def test_the_documented_example_lints_clean(tmp_path, lint_json):
    rules = "kind: counter\nid: vp\nname: VP\nowner: player\n---\n" + goal_end("100") + "---\n" + EXAMPLE
    code, found = lint_json(write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules}))
    assert code == 0 and found == [], found


def _codes(found):
    return [(f[3], f[4]) for f in found]


def test_declared_flags_that_are_set_and_read_lint_clean(tmp_path, lint_json):
    code, found = lint_json(_pack(tmp_path))
    assert code == 0 and found == [], found


def test_a_player_flag_is_each_players_and_a_table_flag_is_everyones(tmp_path):
    game = Game.new(load(_pack(tmp_path)), 2, 0)
    vp = game.state["counters"]
    game.apply(game.decision.options.index("act"), "P1")
    assert vp["P1"]["vp"] == 1  # settled now; winter had not come yet
    assert game.state["flags"]["P1"] == {"settled": True} and game.state["flags"]["table"] == {"winter_came": True}
    game.apply(game.decision.options.index(game.decision.options[-1]), "P1")  # end turn
    game.apply(game.decision.options.index("act"), "P2")
    assert vp["P2"]["vp"] == 11  # P2's own `settled` was not set; the table's `winter_came` was (by P1)


def test_an_undeclared_flag_is_an_unknown_name_with_a_did_you_mean(tmp_path, lint_json):
    effect = "flag setled\nunflag settled\nif flagged(setled, me):\n    gain 1 vp\nflag winter_came\nlog words(flagged(winter_came))"
    code, found = lint_json(_pack(tmp_path, effect))
    assert code == 1
    unknown = [(f[1], f[3], f[4]) for f in found if f[3] == "D002"]
    assert [u[2] for u in unknown] == ["unknown flag `setled`", "unknown flag `setled`"], found


def test_set_names_a_flag_only_when_it_is_declared(tmp_path, lint_json):
    _code, found = lint_json(_pack(tmp_path, EFFECT + "\nset settlde to 1"))
    assert ("D002", "unknown name `settlde`") in _codes(found)


def test_a_flag_never_set_and_one_never_read_are_warnings(tmp_path, lint_json):
    effect = "if flagged(settled, me):\n    gain 1 vp\nflag winter_came"
    _code, found = lint_json(_pack(tmp_path, effect))
    assert _codes(found) == [
        ("D009", "the flag `settled` is never set: no effect of the pack says `flag settled`"),
        ("D010", "the flag `winter_came` is set but never read: no effect tests `flagged(winter_came)`"),
    ], found
    assert [f[:3] for f in found] == [("rules.yaml", 24, 5), ("rules.yaml", 29, 5)]  # at each flag's `id`


def test_flags_of_an_incomplete_pack_are_not_judged(tmp_path, lint_json):
    """A file that does not load may hold the effect that sets or reads a flag: no D009/D010 then."""
    root = _pack(tmp_path, "if flagged(settled, me):\n    gain 1 vp\nflag winter_came")
    (root / "more.yaml").write_text("kind: action\nid: more\nname: [broken\n", encoding="utf-8")
    _code, found = lint_json(root)
    assert [f[3] for f in found] == ["Y001"], found


def test_every_shipped_flag_is_declared(lint_json):
    """The shipped packs lint clean, so every flag they use is declared (D002 otherwise), set and read."""
    code, found = lint_json(REPO / "content")
    assert code == 0 and [f for f in found if f[3] in ("D002", "D009", "D010")] == [], found


def test_the_tables_flag_is_nobodys_in_particular(tmp_path, lint_json):
    code, found = lint_json(_pack(tmp_path, EFFECT + "\nunflag winter_came for me"))
    assert code == 1 and _codes(found) == [("D003", "`winter_came` is the table's flag (`owner: table`), no player's")]


# flags set for a value that is no player (a number, a list): the mistake `gain` makes too
NOT_A_PLAYER = [
    "let who = [me, 3]\nflag settled for who[2]",
    "let who = [me, 3]\nunflag settled for who[2]",
    "let who = [me, [1]]\nflag settled for who[2]",
    "let who = [me, 3]\nset settled to 1 for who[2]",
]


@pytest.mark.parametrize("effect", NOT_A_PLAYER)
@pytest.mark.parametrize("way", ["inlined", "called", "interpreted"])
def test_a_flag_for_a_value_that_is_no_player_is_an_error_not_a_new_holder(tmp_path, effect, way):
    """An attack on the plain state: a flag kept under the number 3 (or any key but a player's or the table's)
    leaves a state with keys that are not text, one no save writes back as it was. Every way of running the effect
    refuses it with the code `gain` gives the same mistake (X106), at the step, and the state keeps its holders."""
    rules = load(_pack(tmp_path, effect))
    called = functools.partial(switched_off, "INLINING")  # every verb step a call of its `run`
    ways = {"inlined": contextlib.nullcontext, "called": called, "interpreted": interpreted}
    with ways[way](rules):
        game = Game.new(rules, 2, 0)
        with pytest.raises(ContentError) as caught:
            game.apply(game.decision.options.index("act"), "P1")
    assert caught.value.code == "X106" and caught.value.offset is not None
    assert sorted(game.state["flags"]) == ["P1", "P2", "table"]


def test_a_flag_for_another_player_is_theirs(tmp_path):
    """`for PLAYER` names whose flag it is (the check above refuses only what is no player)."""
    game = Game.new(load(_pack(tmp_path, "flag settled for next_player(me)")), 2, 0)
    game.apply(game.decision.options.index("act"), "P1")
    assert game.state["flags"]["P2"] == {"settled": True} and game.state["flags"]["P1"] == {}
