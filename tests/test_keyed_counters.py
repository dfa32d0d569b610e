"""A number per thing: counters with `keys` (docs/authoring.md, "A number per thing").

`amount(progress, me, 7)` reads one key, `gain/lose 1 progress at k` and `set progress to 0 at k` change one,
`set progress to 0` sets every key; lint refuses `me.progress` and a change without `at`; views show a mapping
key -> number, hidden as other counters are; saves keep it.
"""

from __future__ import annotations

import random
import re

import invariants
import pytest
from conftest import REPO, goal_end, tiny_manifest, write_tree

from engine.runtime import session
from engine.runtime.counter_visibility import HIDDEN
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.rules import load


def doc_block(heading: str) -> str:
    """The first YAML example under a heading of docs/authoring.md."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index(f"### {heading}\n") :]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


VP = "kind: counter\nid: vp\nname: VP\nowner: player\n---\n"
RULES = VP + doc_block("A number per thing") + "---\n" + goal_end("3")


def _pack(tmp_path, rules=RULES):
    return write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules})


def _climb(game, player="P1"):
    game.apply(game.decision.options.index("climb"), player)
    while game.decision.is_chance:
        game.apply_chance()


def test_the_documented_example_lints_clean(tmp_path, lint_json):
    code, found = lint_json(_pack(tmp_path))
    assert code == 0 and found == [], found


def test_a_number_per_key_changes_one_key_at_a_time(tmp_path):
    game = Game.new(load(_pack(tmp_path)), 2, 0)
    progress = game.state["counters"]["P1"]["progress"]
    assert progress == dict.fromkeys([str(k) for k in range(2, 13)], 0)
    _climb(game)
    progress = game.state["counters"]["P1"]["progress"]
    assert sorted(progress.values()) == [0] * 10 + [1]  # one column climbed
    assert game.view("P2")["counters"]["P1"]["progress"] == progress  # a mapping key -> number
    loaded = Game.load(game.rules, game.save())
    assert loaded.state["counters"]["P1"]["progress"] == progress
    assert list(loaded.view("P1")["counters"]["P1"]["progress"]) == [str(k) for k in range(2, 13)]  # in order


def test_random_games_keep_the_invariants(tmp_path):
    rules = load(_pack(tmp_path))
    for seed in range(6):
        game = Game.new(rules, 2, seed)
        session.play_randomly(game, random.Random(seed), after=invariants.Watch(game))
        assert game.over and max(game.state["counters"][p]["vp"] for p in ("P1", "P2")) >= 3
        assert all(0 <= n <= 5 for p in ("P1", "P2") for n in game.state["counters"][p]["progress"].values())


def test_set_without_a_key_sets_every_key_and_a_hidden_one_is_hidden(tmp_path):
    rules = RULES.replace("  let column = dice[1] + dice[2]", "  set progress to 2\n  let column = dice[1] + dice[2]")
    rules = rules.replace("keys: {from: 2, to: 12}", "keys: {from: 2, to: 12}\nvisibility: owner")
    game = Game.new(load(_pack(tmp_path, rules)), 2, 0)
    _climb(game)
    assert sorted(game.state["counters"]["P1"]["progress"].values()) == [2] * 10 + [3]
    assert game.view("P2")["counters"]["P1"]["progress"] == HIDDEN
    assert game.view("P1")["counters"]["P1"]["progress"] == game.state["counters"]["P1"]["progress"]


def test_a_key_the_counter_does_not_have_stops_the_game_at_its_line(tmp_path):
    rules = RULES.replace("  gain 1 progress at column", "  gain 1 progress at column + 20")
    game = Game.new(load(_pack(tmp_path, rules)), 1, 0)
    with pytest.raises(ContentError) as caught:
        _climb(game)
    assert caught.value.code == "X107" and "is not a key of `progress`" in str(caught.value)
    assert "rules.yaml:21:3: X107" in game.rules.describe(caught.value)  # the `gain` line


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "  gain 1 progress at column",
            "  gain 1 progress",
            "`progress` holds a number per key: `gain` needs `at KEY`",
        ),
        ("  gain 1 vp\n", "  gain 1 vp at column\n", "`vp` has no keys, so `gain` takes no `at` part"),
        ("amount(progress, me, column) = 5", "me.progress = 5", "`progress` holds a number per key, not one number"),
        (
            "amount(progress, me, column) = 5",
            "amount(progress, me) = 5",
            "`progress` holds a number per key: read it with `amount(progress, PLAYER, KEY)`",
        ),
        ("counter: vp", "counter: progress", "`progress` holds a number per key; a counter of one number is expected"),
    ],
)
def test_lint_says_where_a_key_is_missing_or_out_of_place(tmp_path, lint_json, old, new, message):
    assert old in RULES
    code, found = lint_json(_pack(tmp_path, RULES.replace(old, new)))
    assert code == 1 and any(f[4].startswith(message) for f in found), found
