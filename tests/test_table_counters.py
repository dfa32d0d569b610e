"""Counters of the table (docs/authoring.md, "Counters not everyone may read" and "Reading table counters").

Where a number is expected, a table counter's bare name reads its value (`if round >= 3:`, `min(round, 2)`);
where a counter is expected (`gain 1 round`, `amount(round)`), it names the counter. `table.round` and
`me.round` read it too. Lint and the runtime agree: what lint accepts plays, and what would fail at run time
("expected a number, got 'round'") lint refuses. A table counter may be hidden like a player's.
"""

from __future__ import annotations

import re

from conftest import REPO, goal_end, tiny_manifest, write_tree

from engine.runtime.counter_visibility import HIDDEN
from engine.runtime.game import Game
from engine.runtime.rules import load


def doc_block(heading: str) -> str:
    """The first YAML example under a heading of docs/authoring.md."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index(f"### {heading}\n") :]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


VP = "kind: counter\nid: vp\nname: VP\nowner: player\n"
RULES = "---\n".join(
    [VP, doc_block("Counters not everyone may read"), doc_block("Reading table counters"), goal_end("100")]
)


def _pack(tmp_path, rules=RULES):
    return write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules})


def _turn(game, player):
    game.apply(game.decision.options.index("bet"), player)
    game.apply(len(game.decision.options) - 1, player)  # end turn


def test_the_documented_example_lints_clean(tmp_path, lint_json):
    code, found = lint_json(_pack(tmp_path))
    assert code == 0 and found == [], found


def test_a_bare_table_counter_reads_its_value_in_play(tmp_path):
    game = Game.new(load(_pack(tmp_path)), 1, 0)
    gained, paid = [], []
    for turn in range(1, 5):
        counters = game.state["counters"]
        assert counters["table"]["round"] == turn
        vp, chips = counters["P1"]["vp"], counters["P1"]["chips"]
        _turn(game, "P1")
        gained.append(counters["P1"]["vp"] - vp)
        paid.append(chips - counters["P1"]["chips"])
    assert gained == [1, 2, 2, 2]  # min(round, 2)
    assert paid == [1, 1, 2, 2]  # 2 from round 3 on
    assert game.state["counters"]["table"]["pot"] == 6


def test_table_and_me_fields_and_amount_read_a_table_counter(tmp_path, lint_json):
    rules = RULES.replace(
        "  gain min(round, 2) vp", "  gain min(round, 2) vp\n  set vp to table.round + me.round - amount(round)"
    )
    code, found = lint_json(_pack(tmp_path, rules))
    assert code == 0 and found == [], found
    game = Game.new(load(_pack(tmp_path, rules)), 1, 0)
    _turn(game, "P1")
    _turn(game, "P1")
    assert game.state["counters"]["P1"]["vp"] == 2  # round 2 + 2 - 2


def test_a_bare_table_counter_bound_by_let_is_a_number_and_lint_says_so(tmp_path, lint_json):
    """`let r = round` holds the value: naming a counter with it is refused by lint, not at run time."""
    rules = RULES.replace("  gain min(round, 2) vp", "  let r = round\n  gain 1 r")
    code, found = lint_json(_pack(tmp_path, rules))
    assert code == 1 and [f[3] for f in found] == ["D004"], found


def test_a_players_counter_compared_by_its_bare_name_is_refused_by_lint(tmp_path, lint_json):
    rules = RULES.replace("  if round >= 3:", "  if vp >= 3:")
    code, found = lint_json(_pack(tmp_path, rules))
    assert code == 1 and [f[3] for f in found] == ["D004"], found


def test_table_dot_names_only_table_counters(tmp_path, lint_json):
    rules = RULES.replace("  gain min(round, 2) vp", "  gain table.vp vp\n  gain table.rund vp")
    _code, found = lint_json(_pack(tmp_path, rules))
    assert [(f[3], f[4]) for f in found] == [
        ("D002", "the table has no counter `vp`"),
        ("D002", "the table has no counter `rund`"),
    ], found


def test_public_owner_and_hidden_counters_as_each_seat_sees_them(tmp_path):
    """The three visibilities side by side: `round` (table, public), `chips` (a player's, owner), `pot`
    (table, hidden)."""
    game = Game.new(load(_pack(tmp_path)), 2, 0)
    _turn(game, "P1")
    for seat in ("P1", "P2", None):
        view = game.view(seat)
        assert view["counters"]["table"]["round"] == game.state["counters"]["table"]["round"]
        assert view["counters"]["table"]["pot"] == HIDDEN
        for owner in ("P1", "P2"):
            assert view["counters"][owner]["chips"] == (
                game.state["counters"][owner]["chips"] if owner == seat else HIDDEN
            )
    assert "Pot: some added" in game.view("P2")["log"]
    assert not any("Pot: +" in line for seat in ("P1", "P2") for line in game.view(seat)["log"])


def test_a_pack_whose_zone_is_called_table_keeps_it(tmp_path, lint_json):
    """`table` is the table only where the pack has no id `table` of its own (a zone, say)."""
    zone = "kind: zone\nid: table\nname: Table\ntype: pile\n---\n"
    rules = zone + RULES.replace("  gain min(round, 2) vp", "  gain min(round, 2) vp\n  shuffle table")
    code, found = lint_json(_pack(tmp_path, rules))
    assert code == 0 and found == [], found
    game = Game.new(load(_pack(tmp_path, rules)), 1, 0)
    _turn(game, "P1")
    assert game.state["counters"]["P1"]["vp"] == 1
