"""When a turn may end (pack.yaml `end_turn`, `menu: false`), and the examples of docs/authoring.md's "Turns,
rounds and winners": each lints clean and plays random games."""

from __future__ import annotations

import random
import re

import pytest
import yaml
from conftest import REPO, write_tree

from engine.runtime import session
from engine.runtime.game import Game
from engine.runtime.protocol import END_TURN
from engine.runtime.rules import load


def turn_examples() -> list[tuple[str, dict, str]]:
    """The YAML blocks of docs/authoring.md's "Turns, rounds and winners": (heading, manifest keys, documents)."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    start = text.index("\n## Turns, rounds and winners\n")
    section = text[start : text.index("\n## ", start + 1)]
    found = []
    for heading, body in re.findall(r"\n### (.+?)\n(.*?)(?=\n### |\Z)", section, re.DOTALL):
        for manifest, documents in re.findall(r"<!-- turn example: (.*?) -->\n```yaml\n(.*?)```", body, re.DOTALL):
            found.append((heading, yaml.safe_load(manifest), documents))
    return found


EXAMPLES = turn_examples()


def _pack(tmp_path, manifest: dict, documents: str, name: str = "turns"):
    pack = {"kind": "pack", "id": name, "name": name.title(), "version": "1.0.0", **manifest}
    return write_tree(tmp_path / name, {"pack.yaml": yaml.safe_dump(pack), "rules.yaml": documents})


def example(heading: str, n: int = 0):
    return [(m, d) for h, m, d in EXAMPLES if h == heading][n]


def test_every_section_has_its_example():
    headings = {h for h, _, _ in EXAMPLES}
    assert {"When a turn may end", "Who wins", "Players out of the game", "Turn order and rounds"} <= headings


@pytest.mark.parametrize(
    ("heading", "manifest", "documents"), EXAMPLES, ids=[f"{h}-{i}" for i, (h, _, _) in enumerate(EXAMPLES)]
)
def test_example_lints_clean_and_plays(tmp_path, lint_json, heading, manifest, documents):
    root = _pack(tmp_path, manifest, documents)
    code, findings = lint_json(root)
    assert findings == [] and code == 0, (heading, findings)
    rules = load(root)
    for players in (manifest["players"]["min"], manifest["players"]["max"]):
        for seed in range(3):
            game = Game.new(rules, players, seed, max_rounds=300)
            session.play_randomly(game, random.Random(seed))
            assert game.over and game.result["reason"] != "turn_limit", (heading, players, seed)


# ---------------------------------------------------------------- end_turn
def test_end_turn_condition_keeps_end_turn_off_the_menu_until_it_holds(tmp_path):
    """The first example: a player must play shells until fewer than two are left in hand."""
    rules = load(_pack(tmp_path, *example("When a turn may end")))
    game = Game.new(rules, 2, 0)
    pending = game.state["pending"]
    assert pending["options"] == ["play"] and pending["prompt"] == "Choose an action"
    why = {m["label"]: m["why"] for m in game.view("P1")["decision"]["unavailable"]}
    assert why["end turn"] == "the condition `count(hand(me)) < 2` is not met"
    game.apply(0, "P1")  # 3 -> 2 in hand: still no end
    assert END_TURN not in game.state["pending"]["options"]
    game.apply(0, "P1")  # 1 left: now P1 may end, or play on
    assert game.state["pending"]["options"] == ["play", END_TURN]
    assert "end turn" not in {m["label"] for m in game.view("P1")["decision"]["unavailable"]}


NEVER = """{kind: counter, id: chips, name: Chips, owner: player, start: 2}
---
{kind: counter, id: vp, name: VP, owner: player}
---
kind: action
id: bet
name: Bet a chip
available: me.chips > 0
effect: |
  lose 1 chips
  gain 1 vp
---
{kind: end, id: late, name: Late, trigger: turn_number > 4, then: immediate, result: most, counter: vp}
"""


def test_end_turn_never_ends_the_turn_by_itself_when_nothing_is_left(tmp_path):
    rules = load(_pack(tmp_path, {"players": {"min": 2, "max": 2}, "end_turn": "never"}, NEVER))
    game = Game.new(rules, 2, 0)
    assert game.state["pending"]["options"] == ["bet"]
    why = {m["label"]: m["why"] for m in game.view("P1")["decision"]["unavailable"]}
    assert why["end turn"] == "in this game a turn ends only when nothing is left to do"
    game.apply(0, "P1")
    game.apply(0, "P1")  # no chips left: the turn ends by itself
    assert game.turn_player == "P2"
    assert "P1 has nothing left to do" in game.view("P2")["log"]


DEAD = """{kind: counter, id: vp, name: VP, owner: player}
---
kind: action
id: try
name: Try
effect: |
  choose 1 from [1, 2] as pick
  require pick = 3
---
{kind: end, id: late, name: Late, trigger: turn_number > 4, then: immediate, result: most, counter: vp}
"""


def test_a_menu_without_end_turn_whose_actions_all_fail_ends_the_turn(tmp_path):
    """Without "end turn", a menu whose every action proved impossible would leave nobody an answer."""
    rules = load(_pack(tmp_path, {"players": {"min": 2, "max": 2}, "end_turn": "never"}, DEAD))
    game = Game.new(rules, 2, 0)
    game.apply(0, "P1")
    game.apply(0, "P1")  # 1 fails
    game.apply(0, "P1")  # 2 is left, answered at once: fails too
    assert game.turn_player == "P2" and game.decision.kind == "action"
    assert "P1 has nothing left to do" in game.view("P1")["log"]


def test_without_end_turn_in_the_manifest_the_menu_is_as_before(tmp_path):
    rules = load(_pack(tmp_path, {"players": {"min": 2, "max": 2}}, NEVER))
    game = Game.new(rules, 2, 0)
    assert game.state["pending"]["options"] == ["bet", END_TURN]
    assert game.state["pending"]["prompt"] == "Choose an action, or end your turn"


def test_menu_false_asks_no_menu(tmp_path):
    """The second example: each turn is its turn_start phase; no "action" decision is ever asked."""
    rules = load(_pack(tmp_path, *example("When a turn may end", 1)))
    game = Game.new(rules, 2, 0)
    kinds = set()
    rng = random.Random(0)
    while not game.over:
        decision = game.decision
        kinds.add(decision.kind)
        if decision.is_chance:
            game.apply_chance()
        else:
            game.apply(rng.choice(game.legal(decision.players[0])), decision.players[0])
    assert "action" not in kinds and "ask" in kinds


def test_end_turn_conditions_are_linted_with_their_position(tmp_path, knap):
    manifest = "kind: pack\nid: turns\nname: Turns\nversion: 1.0.0\nplayers: {min: 2, max: 2}\nend_turn: me.chipz > 0\n"
    root = write_tree(tmp_path / "turns", {"pack.yaml": manifest, "rules.yaml": NEVER})
    # --no-cache: no entry written into the .knap_cache of the working folder, the repository, which the
    # test processes share
    code, out, _err = knap("lint", str(root), "--no-cache")
    assert code == 1 and "pack.yaml:6:14: D002" in out and "chipz" in out


@pytest.mark.parametrize("word", ["always", "never"])
def test_end_turn_words_are_not_conditions(tmp_path, lint_json, word):
    root = _pack(tmp_path, {"players": {"min": 2, "max": 2}, "end_turn": word}, NEVER)
    assert lint_json(root) == (0, [])


def test_an_extending_pack_inherits_end_turn(tmp_path):
    _pack(tmp_path, {"players": {"min": 2, "max": 2}, "end_turn": "never"}, NEVER, name="base")
    variant = {"kind": "pack", "id": "variant", "name": "Variant", "version": "1.0.0", "extends": ["base"]}
    root = write_tree(tmp_path / "variant", {"pack.yaml": yaml.safe_dump(variant)})
    game = Game.new(load(root), 2, 0)
    assert game.state["pending"]["options"] == ["bet"]


# ---------------------------------------------------------------- diagnostics at the terminal
ERRING = """{kind: counter, id: vp, name: VP, owner: player}
---
kind: action
id: act
name: Act
effect: |
  gain 1 vp
  gain 1 / 0 vp
---
{kind: end, id: goal, name: Goal, trigger: me.vp >= 3, then: immediate, result: most, counter: vp}
"""


def test_a_position_in_a_path_stays_text_at_the_terminal(tmp_path, knap, monkeypatch):
    """rich read `round.yaml:100:12` as an emoji code (`round.yaml💯12`): diagnostics and pack text that go
    through rich print with emoji codes off."""
    folder = tmp_path / "round.yaml:100:12"
    manifest = {"kind": "pack", "id": "turns", "name": "Turns", "version": "1.0.0", "players": {"min": 1, "max": 2}}
    root = write_tree(folder / "turns", {"pack.yaml": yaml.safe_dump(manifest), "rules.yaml": ERRING})
    monkeypatch.chdir(tmp_path)
    code, out, err = knap("sim", str(root), "--games", "1")
    assert "round.yaml:100:12/turns/rules.yaml:8:10: X108" in out + err and "\U0001f4af" not in out + err
    code, out, err = knap("play", str(root), "--seed", "1")
    assert code != 0 and "round.yaml:100:12/turns/rules.yaml:8:10: X108" in err and "\U0001f4af" not in out + err
