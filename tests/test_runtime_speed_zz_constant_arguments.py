"""A verb's argument whose expression is one constant (a zone's or an action's name written bare: `to played`,
`perform escape_cowardice`) is read once, when the verb is built (codegen `constant_of`, `VerbStep.argument`),
not called at each run (issue 16). The oracle is the same pack loaded with the switch off (`verbs.CONSTANT_ARGUMENTS`):
every shipped pack plays the same games both ways, state and work equal at every decision."""

from __future__ import annotations

from pathlib import Path

import pytest
from lowered_code import assert_same_games, every_decision, switched_off

from engine.runtime import codegen, verbs
from engine.runtime.rules import load

CONTENT = Path(__file__).resolve().parents[1] / "content"
PACKS = sorted(p.name for p in CONTENT.iterdir() if (p / "pack.yaml").exists())


def constants_called():
    """`VerbStep.argument` as before its step: every expression an argument's function, called at each run."""
    return switched_off("CONSTANT_ARGUMENTS", module=verbs)


def _verbs(rules, key: str, kind):
    return [step[1] for step in rules.code[key].steps if step[0] == "verb" and type(step[1]) is kind]


def test_a_bare_name_is_read_once_when_the_verb_is_built():
    """Neolithibum's `move picks[n] to played for p` and `perform escape_cowardice for p`: the zone and the action
    are values of the verb, and the performed effect's key is worked out once (it fails with the switch off)."""
    rules = load(CONTENT / "neolithibum")
    moves = _verbs(rules, "phase/play_round/effect", verbs.Move)
    assert [(m.to_of, m.to) for m in moves] == [(None, "played")]
    (perform,) = _verbs(rules, "phase/cowardice/effect", verbs.Perform)
    assert (perform.action_of, perform.action) == (None, "escape_cowardice")
    assert perform.effect_key == "action/escape_cowardice/effect"
    with constants_called():
        rules = load(CONTENT / "neolithibum")
    (perform,) = _verbs(rules, "phase/cowardice/effect", verbs.Perform)
    assert perform.action_of is not None and perform.effect_key is None


@pytest.mark.parametrize(
    ("body", "constant"),
    [("'played'", ("played",)), ("True", (True,)), ("None", (None,)), ("7", (7,)), ("-7", None), ("[1, 2]", None)],
)
def test_only_one_plain_constant_is_a_constant(body, constant):
    """A text, a yes or no, nothing, a whole number within the bounds: the same value at every call; a list (a new
    one at each call, which the verb may keep), or anything computed, is not."""
    assert codegen.constant_of(body) == constant
    assert codegen.constant_of(repr(2**80)) is None  # (beyond the bounds: its call raises, as it always did)
    assert codegen.constant_of("c.me") is None and codegen.constant_of("E['p']") is None


@pytest.mark.parametrize("pack", PACKS)
def test_every_pack_plays_the_same_games_with_constants_read_once(pack):
    with constants_called():
        reference = every_decision(load(CONTENT / pack), seed=3, answers=250)
    assert_same_games(reference, every_decision(load(CONTENT / pack), seed=3, answers=250), pack)
