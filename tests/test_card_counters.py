"""Numbers kept on one card: counters with `owner: card` (docs/authoring.md, "Numbers on a card").

Every card has its own number (wounds on one human, tokens on one card), copies of a card each their own;
`gain 2 wounds on hit`, `lose 1 wounds on hit`, `set wounds to 0 on hit` change it; `hit.wounds` and a bare
`wounds` inside `where` read it; `max_from` bounds it by one of the card's stats. The state keeps only the
numbers that are not `start`; saves keep them and loading checks them; the log names the card only for the
seats that see it; views show a card's numbers next to it; both execution paths agree.
"""

from __future__ import annotations

import json
import random
import re

import invariants
import pytest
from conftest import REPO, goal_end, tiny_manifest, write_tree
from test_compiled_effects import interpreted

from engine.runtime import session
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.persist import SaveError
from engine.runtime.rules import load
from engine.runtime.terminal import _card_text


def doc_block(heading: str) -> str:
    """The first YAML example under a heading of docs/authoring.md."""
    text = (REPO / "docs" / "authoring.md").read_text(encoding="utf-8")
    section = text[text.index(f"### {heading}\n") :]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


VP = "kind: counter\nid: vp\nname: VP\nowner: player\n---\n"
RULES = VP + doc_block("Numbers on a card") + "---\n" + goal_end("6")


def _pack(tmp_path, rules=RULES):
    return write_tree(tmp_path / "tiny", {"pack.yaml": tiny_manifest(), "rules.yaml": rules})


def _game(tmp_path, rules=RULES, players=2):
    return Game.new(load(_pack(tmp_path, rules)), players, 0)


def _fight(game, pick: int, player="P1"):
    """Take `fight` and hit the `pick`-th warrior offered."""
    game.apply(game.decision.options.index("fight"), player)
    game.apply(pick, player)


def _band(game, player="P1") -> list[int]:
    return list(game.state["zones"][f"band:{player}"])


def test_the_documented_example_lints_clean(tmp_path, lint_json):
    code, found = lint_json(_pack(tmp_path))
    assert code == 0 and found == [], found


def test_each_copy_keeps_its_own_number(tmp_path):
    game = _game(tmp_path)
    first, second = _band(game)
    assert game.rules.instances[first] == game.rules.instances[second]  # two copies of one card
    assert game.state["card_counters"] == {"wounds": {}}  # nothing but the start: nothing kept
    _fight(game, 0)
    assert game.state["card_counters"]["wounds"] == {str(first): 1}
    assert game.card_counter(first, "wounds") == 1 and game.card_counter(second, "wounds") == 0
    assert game.state["counters"]["P1"]["vp"] == 1  # `band(me) where wounds = 0`: the other copy


def _next_fight(game):
    """Play on (ending turns) until P1 may fight again."""
    for _ in range(20):
        decision = game.decision
        if decision.players == ["P1"] and "fight" in decision.options:
            return
        options = decision.options
        game.apply(options.index("end turn") if "end turn" in options else 0, decision.players[0])
    raise AssertionError("P1 never fights again")


def test_set_back_to_start_keeps_nothing(tmp_path):
    game = _game(tmp_path, players=1)
    first, _ = _band(game)
    _fight(game, 0)  # 1 wound
    _next_fight(game)
    _fight(game, _band(game).index(first))  # the second wound: the warrior falls, its wounds cleared
    assert game.state["loc"][first] == "graveyard"
    assert game.state["card_counters"]["wounds"] == {}


def test_a_card_keeps_its_number_when_it_moves(tmp_path):
    rules = RULES.replace("      set wounds to 0 on hit\n", "")
    game = _game(tmp_path, rules, players=1)
    first, _ = _band(game)
    _fight(game, 0)
    _next_fight(game)
    _fight(game, _band(game).index(first))
    assert game.state["loc"][first] == "graveyard"
    assert game.state["card_counters"]["wounds"] == {str(first): 2}


def test_max_from_bounds_the_number_by_the_cards_stat(tmp_path):
    rules = RULES.replace("  gain 1 wounds on hit", "  gain 5 wounds on hit")
    game = _game(tmp_path, rules)
    _fight(game, 0)
    assert game.state["card_counters"]["wounds"] == {}  # 2 (its hearts), then the fall clears it
    rules = RULES.replace("  gain 1 wounds on hit", '  gain 5 wounds on hit\n  log "at {hit.wounds}"')
    game = _game(tmp_path, rules)
    _fight(game, 0)
    assert any("at 2" in line for line in game.log_for("P1"))


def test_lose_stops_at_the_minimum(tmp_path):
    rules = RULES.replace("  gain 1 wounds on hit", "  lose 3 wounds on hit")
    game = _game(tmp_path, rules)
    _fight(game, 0)
    assert game.state["card_counters"]["wounds"] == {}  # min 0 = start: nothing kept


def test_the_log_names_the_card_for_those_who_see_it(tmp_path):
    game = _game(tmp_path)
    _fight(game, 0)
    assert "P1's Warrior gains 1 wounds" in game.log_for("P2")
    hidden = RULES.replace("visibility: public  # the band", "visibility: owner  # the band")
    game = _game(tmp_path, hidden)
    _fight(game, 0)
    assert "P1's Warrior gains 1 wounds" in game.log_for("P1")
    assert "a card of P1 gains 1 wounds" in game.log_for("P2")
    assert "a card of P1 gains 1 wounds" in game.log_for(None)


def test_views_show_a_cards_numbers_next_to_it(tmp_path):
    game = _game(tmp_path)
    _fight(game, 0)
    view = game.view("P2")
    band = view["zones"]["band:P1"]["cards"]
    assert [card.get("counters") for card in band] == [{"wounds": 1}, None]  # never the card's number
    assert _card_text(band[0]) == "Warrior [wounds 1]"  # knap play


def test_saves_keep_the_numbers_and_loading_checks_them(tmp_path):
    game = _game(tmp_path)
    first, _ = _band(game)
    _fight(game, 0)
    loaded = Game.load(game.rules, game.save())
    assert loaded.state["card_counters"] == {"wounds": {str(first): 1}}
    assert loaded.state_hash() == game.state_hash()
    for bad, message in (
        ({"wounds": {"999": 1}}, "not a card number"),
        ({"wounds": {str(first): 7}}, "outside the counter's range"),
        ({"vp": {str(first): 1}}, "not a counter kept on cards"),
    ):
        state = json.loads(game.save())
        state["card_counters"] = bad
        with pytest.raises(SaveError) as caught:
            Game.load(game.rules, json.dumps(state))
        assert message in str(caught.value)


def test_random_games_keep_the_invariants_and_replay(tmp_path):
    rules = load(_pack(tmp_path))
    for seed in range(4):
        game = Game.new(rules, 2, seed, max_rounds=100)
        session.play_randomly(game, random.Random(seed), after=invariants.Watch(game))
        assert game.over
        assert session.replay(rules, session.game_log(game)).state_hash() == game.state_hash()
        for card, value in game.state["card_counters"]["wounds"].items():
            assert 0 < value <= game.rules.card_values("hearts")[int(card)]


def test_both_execution_paths_agree(tmp_path):
    rules = load(_pack(tmp_path))

    def states():
        game = Game.new(rules, 2, 3, max_rounds=20)
        seen = []
        rnd = random.Random(3)
        while not game.over and len(seen) < 200:
            seen.append(json.dumps(game.state, sort_keys=True))
            decision = game.decision
            player = decision.players[0]
            game.apply(rnd.choice(game.legal(player)), player)
        return seen

    with interpreted(rules):
        reference = states()
    assert states() == reference


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("  gain 1 wounds on hit", "  gain 1 wounds", "`wounds` is a number on each card: `gain` needs `on CARD`"),
        ("  gain 1 wounds on hit", "  gain 1 wounds on hit\n  gain 1 vp on hit", "`vp` is not kept on cards"),
        ("hit.wounds >= hit.hearts", "me.wounds >= hit.hearts", "`wounds` is a number on each card"),
        ("hit.wounds >= hit.hearts", "amount(wounds, me) >= hit.hearts", "`wounds` is a number on each card"),
        ("max_from: hearts", "max_from: heart", "cards have no stat `heart`"),
        ("counter: vp", "counter: wounds", "`wounds` is a number on each card; a counter of one number"),
    ],
)
def test_lint_says_where_on_is_missing_or_out_of_place(tmp_path, lint_json, old, new, message):
    assert old in RULES
    code, found = lint_json(_pack(tmp_path, RULES.replace(old, new)))
    assert code == 1 and any(f[4].startswith(message) for f in found), found


def test_a_card_counter_changed_on_no_card_stops_the_game_at_its_line(tmp_path):
    rules = RULES.replace("  gain 1 wounds on hit", "  gain 1 wounds on none")
    game = _game(tmp_path, rules)
    with pytest.raises(ContentError) as caught:
        _fight(game, 0)
    assert caught.value.code == "X107" and "`wounds` is kept on a card" in str(caught.value)


def test_a_start_other_than_0_is_kept_nowhere(tmp_path):
    rules = RULES.replace("min: 0\nmax_from: hearts", "min: 0\nstart: 1\nmax_from: hearts")
    game = _game(tmp_path, rules)
    first, second = _band(game)
    assert game.card_counter(second, "wounds") == 1 and game.state["card_counters"]["wounds"] == {}
    _fight(game, 0)  # 1 + 1 = 2 hearts: the warrior falls, and `set wounds to 0` is kept (0 is not the start)
    assert game.state["card_counters"]["wounds"] == {str(first): 0}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("max_from: hearts", "max_from: hearts\nkeys: [a, b]"),
        ("max_from: hearts", "max_from: hearts\nvisibility: hidden"),
        ("owner: card           # a number on each card", "owner: table"),  # `max_from` is for cards only
    ],
)
def test_the_schema_refuses_what_a_number_on_a_card_cannot_have(tmp_path, lint_json, old, new):
    assert old in RULES
    code, found = lint_json(_pack(tmp_path, RULES.replace(old, new)))
    assert code == 1 and found, found
