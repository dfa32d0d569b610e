"""A flag read held by the table or by `me` (`flagged(settled)`, codegen `_flag_read`) is computed in the lowered
code itself, without calling its expression (lowering `_flag_read`): it cannot raise on a schema-checked state, and
`me`'s is read only when `me` is a player's name (else the expression is called, as before). Any other holder
(`flagged(settled, p)`: a local may hold a list) stays the expression's call. The oracle is the same effect lowered
with every expression called (`lowering.INLINED_EXPRESSIONS` off): the same state, `steps`, log and work."""

from __future__ import annotations

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from lowered_code import act_twice as act
from lowered_code import lowered_sources
from test_runtime_speed_zw_inlined_expressions import called

from engine.runtime import lowering
from engine.runtime.rules import load

FLAGS = """kind: flag
id: settled
name: Settled
---
kind: flag
id: open_season
name: Open season
owner: table
"""

MINE = "bool(g.state['flags'].get(c.me, _EMPTY_MAPPING).get('settled'))"
TABLES = "bool(g.state['flags'].get('table', _EMPTY_MAPPING).get('open_season'))"
LOCALS = "bool(g.state['flags'].get(((E['p'] if 'p' in E else _local('p')) or c.me), _EMPTY_MAPPING).get('settled'))"


def make_rules(tmp_path, effect: str):
    text = one_action_rules(effect, goal=99, extra=FLAGS)
    root = write_tree(tmp_path / "flags", {"pack.yaml": tiny_manifest("flags"), "rules.yaml": text})
    return load(root)


@pytest.mark.parametrize(
    "body, written",
    [
        (MINE, f"({MINE}) if type(c.me) is str else X1(c)"),
        (TABLES, TABLES),
        (f"(not {TABLES})", f"(not {TABLES})"),
        (f"({TABLES} and (not {MINE}))", f"({TABLES} and (not {MINE})) if type(c.me) is str else X1(c)"),
    ],
)
def test_a_flag_read_of_the_table_or_of_me_is_written_into_the_code(body, written):
    assert lowering._inlined(body, "X1(c)") == written


@pytest.mark.parametrize(
    "body",
    [
        LOCALS,  # a local may hold an unhashable value: `get` would raise
        MINE.replace("c.me", "c.card"),
        MINE.replace("_EMPTY_MAPPING", "{}"),
        MINE.replace("'settled'", "c.me"),
        MINE.replace("g.state", "c.g.state"),
        MINE.replace("['flags']", "['counters']"),
        MINE.replace("bool(", "str("),
    ],
)
def test_other_flag_reads_stay_calls(body):
    assert lowering._inlined(body, "X1(c)") is None


EFFECTS = [
    "if not flagged(settled):\n    flag settled\n    gain 1 vp\nif flagged(settled):\n    gain 2 vp",
    (
        "if flagged(open_season):\n    gain 1 vp\nflag open_season\nif flagged(open_season) and not flagged(settled):\n"
        "    gain 3 vp\n    flag settled"
    ),
    "for each p in players:\n    if flagged(settled, p):\n        gain 1 vp for p\nflag settled\nunflag open_season",
    "let s = flagged(settled)\nif s:\n    gain 1 vp\nelse:\n    flag settled",
]


@pytest.mark.parametrize("effect", EFFECTS)
def test_a_flag_read_in_the_code_plays_as_the_called_expression(tmp_path, effect):
    rules = make_rules(tmp_path, effect)
    with called(rules):
        reference = act(rules)
    now = act(rules)
    assert reference[1] is None, reference[1]
    assert now == reference


def test_the_lowered_code_reads_mes_flag_without_calling_its_expression(tmp_path, monkeypatch):
    rules = make_rules(tmp_path, "if not flagged(settled):\n    flag settled\nif flagged(open_season):\n    gain 1 vp")
    source = lowered_sources(rules, monkeypatch)
    assert f"(not {MINE}) if type(c.me) is str else X" in source
    assert TABLES in source
