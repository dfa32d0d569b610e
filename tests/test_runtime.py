"""The runtime's promises, checked on whole games: invariants after every decision, exact replays,
save/load, views that hide what they must, limits on runaway content, and no game words in engine/."""

from __future__ import annotations

import json
import random
import re

import invariants
import pytest
from conftest import one_action_rules, tiny_manifest
from scenario import ROOT, ruleset

from engine.dsl.builtins import FUNCTIONS, VERBS, implemented
from engine.runtime import functions, session, verbs
from engine.runtime.agents import GreedyAgent, RandomAgent
from engine.runtime.errors import ContentError
from engine.runtime.game import Game, GameError
from engine.runtime.rules import load

GAMES_PER_COUNT = 12  # tools/soak.py plays 2,000 per player count; its figures are in the release notes


def _random_game(rules, players, seed, check_every=True):
    game = Game.new(rules, players, seed)
    session.play_randomly(game, random.Random(seed), after=invariants.Watch(game) if check_every else None)
    return game


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_the_invariants_and_replay_exactly(players):
    rules = ruleset()
    for seed in range(GAMES_PER_COUNT):
        game = _random_game(rules, players, seed)
        result = game.state["result"]
        assert result["reason"] == "victory_point_goal"
        log = json.loads(json.dumps(session.game_log(game)))
        assert session.replay(rules, log).state_hash() == game.state_hash()


def test_same_seed_and_answers_give_the_same_game_byte_for_byte():
    rules = ruleset()
    a, b = _random_game(rules, 3, 7, False), _random_game(rules, 3, 7, False)
    assert a.save() == b.save()
    assert _random_game(rules, 3, 8, False).save() != a.save()


def test_save_load_and_continue_is_the_same_game_as_continuing():
    rules = ruleset()
    game = Game.new(rules, 4, 3)
    rnd = random.Random(3)
    for step in range(400):
        decision = game.decision
        game.apply(rnd.choice(game.legal(decision.players[0])), decision.players[0])
        if step in (50, 51, 130, 399):  # mid-turn, mid-effect and elsewhere
            reloaded = Game.load(rules, game.save())
            twin = game.clone()
            for i in range(60):
                if twin.over:
                    break
                fraction = random.Random(step * 100 + i).random()
                for g in (twin, reloaded):
                    legal = g.legal(g.decision.players[0])
                    g.apply(legal[int(fraction * len(legal))], g.decision.players[0])
            assert twin.state_hash() == reloaded.state_hash()
            assert twin.save() == reloaded.save()


def test_a_game_saved_mid_effect_is_plain_json_with_the_effect_stack():
    rules = ruleset()
    game = Game.new(rules, 2, 1)
    game.apply(game.decision.options.index("explore"), "P1")
    assert game.state["stack"], "choosing a terrain happens inside the Explore effect"
    text = game.save()
    assert json.loads(text)["stack"][0]["code"] == "action/explore/effect"


def test_a_save_refuses_to_continue_with_a_changed_pack(tmp_path):
    import shutil

    copy_root = tmp_path / "cro-magnon"
    shutil.copytree(ROOT / "content" / "cro-magnon", copy_root)
    game = Game.new(load(copy_root), 2, 0)
    text = game.save()
    assert Game.load(load(copy_root), text).state_hash() == game.state_hash()
    actions = copy_root / "rules" / "actions.yaml"
    actions.write_text(actions.read_text().replace("cost: {ap: 2}", "cost: {ap: 1}"))
    with pytest.raises(GameError) as caught:
        Game.load(load(copy_root), text)
    assert caught.value.code == "X414"  # pack-changed


def test_clone_is_independent():
    """A clone shares the log's and history's entries (they never change) but not the lists: playing on
    either leaves the other as it was, to the byte."""
    rules = ruleset()
    game = Game.new(rules, 2, 1)
    session.play_randomly(game, random.Random(1), limit=30)
    before = game.save()
    twin = game.clone()
    assert twin.save() == before
    session.play_randomly(twin, random.Random(2), limit=30)
    assert game.save() == before and len(twin.state["log"]) > len(game.state["log"])
    assert len(twin.state["history"]) == len(game.state["history"]) + 30
    session.play_randomly(game, random.Random(3), limit=5)
    assert twin.state["history"][: len(game.state["history"]) - 5] == game.state["history"][:-5]


def _views_after(rules, players, seed, steps):
    game = Game.new(rules, players, seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        player = game.decision.players[0]
        game.apply(rnd.choice(game.legal(player)), player)
    return game


@pytest.mark.parametrize("seed", range(6))
def test_reshuffling_what_a_player_cannot_see_leaves_their_view_unchanged(seed):
    rules = ruleset()
    game = _views_after(rules, 3, seed, 60 + 37 * seed)
    for player in game.state["players"]:
        before = json.dumps(game.view(player), sort_keys=True)
        changed = 0
        for trial in range(3):
            other = game.determinized(player, trial)
            assert json.dumps(other.view(player), sort_keys=True) == before
            invariants.check(other)
            changed += other.state["zones"] != game.state["zones"]
        assert changed, "re-dealing hidden cards changed nothing: the test would prove nothing"


def test_other_hands_show_counts_only_and_card_numbers_never_appear():
    rules = ruleset()
    game = _views_after(rules, 3, 2, 150)
    view = game.view("P1")
    for key, zone in view["zones"].items():
        if key.startswith("hand:") and key != "hand:P1":
            assert "cards" not in zone
    assert _numbers_outside_counts(view) == []
    # swapping a card of P2's hand with one of P3's hand changes nothing P1 can see
    hand2, hand3 = game.state["zones"]["hand:P2"], game.state["zones"]["hand:P3"]
    assert hand2 and hand3, "the scenario needs cards in both hands"
    swapped = game.clone()
    a, b = swapped.state["zones"]["hand:P2"], swapped.state["zones"]["hand:P3"]
    a[0], b[0] = b[0], a[0]
    swapped.state["loc"][a[0]], swapped.state["loc"][b[0]] = "hand:P2", "hand:P3"
    assert json.dumps(swapped.view("P1"), sort_keys=True) == json.dumps(view, sort_keys=True)


# Where a view may hold a whole number: counts, counters, scores, turns, the option keys, a card's printed stats,
# a zone's order on the table. Anywhere else a number could be a card's number, which would name a hidden card.
_NUMBERS_ALLOWED = (
    ("zones", "*", "count"),
    ("counters", "*", "*"),
    ("turn", "number"),
    ("turn", "round"),
    ("result", "scores", "*"),
    ("result", "turns"),
    ("decision", "options", "*", "key"),
    ("about", "cards", "*", "stats", "*"),
    ("about", "zones", "*", "order"),
)


def _numbers_outside_counts(view, path=()) -> list:
    """The paths of the whole numbers in `view` that are not in a place `_NUMBERS_ALLOWED` names."""
    if isinstance(view, bool):
        return []
    if isinstance(view, int):
        fits = any(
            len(p) == len(path) and all(a in ("*", b) for a, b in zip(p, path, strict=True)) for p in _NUMBERS_ALLOWED
        )
        return [] if fits else [path]
    items = view.items() if isinstance(view, dict) else enumerate(view) if isinstance(view, list) else ()
    return [found for key, value in items for found in _numbers_outside_counts(value, (*path, key))]


def test_the_number_finder_finds_a_card_number_wherever_it_is():
    view = {"zones": {"hand:P1": {"count": 2, "cards": [{"id": "axe", "card": 7}]}}, "turn": {"number": 3}}
    assert _numbers_outside_counts(view) == [("zones", "hand:P1", "cards", 0, "card")]


@pytest.mark.parametrize("pack", ["cro-magnon", "neolithibum", "stone-age-mammoth-herd"])
def test_no_view_of_any_pack_holds_a_card_number(pack):
    """Card numbers are fixed per card: one in a view would tell which hidden card is where."""
    rules = load(ROOT / "content" / pack)
    for seed in (1, 2):
        game, rnd = Game.new(rules, 3, seed), random.Random(seed)
        for step in range(160):
            if game.over:
                break
            if step % 8 == 0:
                for player in game.state["players"]:
                    assert _numbers_outside_counts(game.view(player)) == [], (pack, seed, step, player)
            player = game.decision.players[0]
            game.apply(rnd.choice(game.legal(player)), player)


def test_changing_a_view_changes_nothing_of_the_game():
    """A view is the player's own copy (views.py): a program that edits it must not edit the game."""
    rules = ruleset()
    game = Game.new(rules, 2, 3)
    session.play_randomly(game, random.Random(3))
    assert game.over
    before = json.dumps(game.state, sort_keys=True)
    view = game.view("P1")

    def scribble(value):
        if isinstance(value, dict):
            for key in list(value):
                scribble(value[key])
                value[key] = "scribbled"
            value["new"] = 1
        elif isinstance(value, list):
            for item in value:
                scribble(item)
            value.append("scribbled")

    scribble(view)
    assert json.dumps(game.state, sort_keys=True) == before


def test_logs_are_filtered_per_player():
    rules = ruleset()
    game = _views_after(rules, 2, 4, 80)
    own, other = game.log_for("P1"), game.log_for("P2")
    assert len(own) == len(other)
    private = [(mine, theirs) for mine, theirs in zip(own, other, strict=True) if mine != theirs]
    assert private, "some events read differently for the two players"
    for mine, theirs in private:
        if mine.startswith("P1 draws"):
            assert " a card " in theirs and " a card " not in mine  # P1 sees the name, P2 does not


def test_greedy_agent_plays_from_views_and_beats_random():
    """Greedy (seat 1) beats random in 15 of the 16 seeded 2-player games 0-15 (seed 0 is the loss since
    random play no longer wastes action points on an Improve Dwelling without Spoils); three games here."""
    rules = ruleset()
    for seed in (1, 2, 3):
        game = session.play(rules, 2, seed, [GreedyAgent(seed), RandomAgent(seed)])
        assert game.state["result"]["winners"] == ["P1"]


def test_every_declared_verb_and_function_has_an_implementation():
    assert set(verbs.IMPLEMENTATIONS) == set(VERBS)
    assert set(functions.BUILTINS) == set(FUNCTIONS)
    assert functions.NAME_ARGS == {"sum": (1,), "has": (1,), "flagged": (0,)}  # from the declared `name` params


def test_a_runtime_table_that_differs_from_the_declarations_stops_the_import():
    """dsl/builtins.py is what lint, completion and the docs read: an implementation it does not declare (or a
    declaration nothing implements) must not load, or a game would play what lint never checked."""
    with pytest.raises(ImportError, match="not declared: shout"):
        implemented("verbs", VERBS, {**verbs.IMPLEMENTATIONS, "shout": object})
    with pytest.raises(ImportError, match="declared but not implemented: count"):
        implemented("functions", FUNCTIONS, {k: v for k, v in functions.BUILTINS.items() if k != "count"})
    assert implemented("constants", {"me": 1, "item": 2}, {"me": "c.me"}, elsewhere=("item",)) == {"me": "c.me"}


def test_answers_that_are_not_legal_are_refused():
    game = Game.new(ruleset(), 2, 0)
    with pytest.raises(GameError) as caught:
        game.apply(999, "P1")
    assert caught.value.code == "X204"  # illegal-answer
    with pytest.raises(GameError) as caught:
        game.apply(game.legal("P1")[0], "P2")
    assert caught.value.code == "X203"  # not-your-decision


# ---------------------------------------------------------------- runaway content
def _tiny(make_pack, effect):
    """A one-action pack whose action does `effect` (conftest's `make_pack` writes it)."""
    return load(make_pack({"rules.yaml": one_action_rules(effect)}, manifest=tiny_manifest()))


def _act(game, player="P1"):
    """Choose the tiny pack's one action."""
    game.apply(game.decision.options.index("act"), player)


def test_an_endless_effect_stops_at_the_step_budget(make_pack):
    rules = _tiny(make_pack, 'repeat 100000000 times:\n    log "again"')
    game = Game.new(rules, 1, 0)
    with pytest.raises(ContentError) as caught:
        _act(game)
    assert caught.value.code == "X105"  # endless-effect
    described = rules.describe(caught.value)
    assert described.startswith(str(rules.root / "rules.yaml") + ":19:7: ")  # the `log` line


def test_an_action_performing_itself_stops_at_the_depth_limit(make_pack):
    rules = _tiny(make_pack, "perform act")
    game = Game.new(rules, 1, 0)
    with pytest.raises(ContentError) as caught:
        _act(game)
    assert caught.value.code == "X104"  # too-deep


def test_a_way_through_an_action_that_fails_is_undone_and_not_offered_again(make_pack):
    """docs/runtime.md, "Impossible actions are undone": a failed `require` restores the state from before
    the action, the answer that led there is no longer offered, and an action with no way through left
    leaves the menu."""
    rules = _tiny(make_pack, "gain 1 vp\nchoose 1 from [1, 2, 3] as pick\nrequire pick = 2")
    game = Game.new(rules, 1, 0)
    act = game.decision.options.index("act")  # the menu's key for the action
    game.apply(act, "P1")
    assert game.decision.prompt.startswith("Choose pick") and game.legal("P1") == [0, 1, 2]
    game.apply(0, "P1")  # 1: the require fails
    assert game.state["counters"]["P1"]["vp"] == 0 and game.decision.kind == "action"
    assert act in game.legal("P1")  # 2 is still a way through
    game.apply(act, "P1")
    assert game.legal("P1") == [1, 2]  # 1 is not offered again
    game.apply(2, "P1")  # 3 fails too: only 2 is left ...
    game.apply(act, "P1")  # ... and is answered by the engine
    assert game.state["counters"]["P1"]["vp"] == 1 and game.state["dead"] == []


def test_an_action_with_no_way_through_leaves_the_menu(make_pack):
    rules = _tiny(make_pack, "choose 1 from [1, 2] as pick\nrequire pick = 3")
    game = Game.new(rules, 1, 0)
    act = game.decision.options.index("act")  # the menu's key for the action
    game.apply(act, "P1")
    game.apply(0, "P1")
    game.apply(act, "P1")  # only 2 left: answered at once, fails too
    assert act not in game.legal("P1") and game.legal("P1")


def test_end_turn_ends_the_turn_at_once(make_pack):
    """`end_turn` (docs/dsl.md: "End the current player's turn now"): the rest of the effect does not run."""
    rules = _tiny(make_pack, "end_turn\ngain 1 vp")
    game = Game.new(rules, 2, 0)
    _act(game)
    assert game.state["counters"]["P1"]["vp"] == 0
    assert game.state["turn"]["player"] == "P2" and game.decision.kind == "action"


def test_a_tiny_pack_plays_to_its_end(make_pack):
    rules = _tiny(make_pack, "gain 1 vp")
    game = Game.new(rules, 2, 0)
    for _ in range(3):
        _act(game)
    assert game.over and game.state["result"]["winners"] == ["P1"]


def test_dice_are_chance_decisions_with_probabilities_and_replay(make_pack):
    rules = _tiny(make_pack, "roll 2 of 6 as faces\ngain faces[1] vp")
    game = Game.new(rules, 1, 5)
    _act(game)
    assert game.decision.is_chance and game.decision.probabilities == [1 / 6] * 6
    game.apply_chance()
    game.apply_chance()
    replayed = session.replay(rules, session.game_log(game))
    assert replayed.state_hash() == game.state_hash()


def test_sealed_bids_are_asked_of_everyone_at_once_and_revealed_together(make_pack):
    rules = _tiny(make_pack, "gain 1 vp\ngain 2 vp for next_player(me)\nbid players from vp as bids\ngain bids[1] vp")
    game = Game.new(rules, 2, 0)
    _act(game)
    decision = game.decision
    assert decision.players == ["P1", "P2"] and decision.kind == "bid"
    assert game.legal("P1") == [0, 1] and game.legal("P2") == [0, 1, 2]  # nobody bids more than they hold
    game.apply(2, "P2")
    assert "2" not in json.dumps(game.view("P1")["decision"]) and game.decision.players == ["P1"]
    game.apply(0, "P1")
    assert game.decision.kind == "action" and "Bids revealed: P1 0, P2 2" in game.log_for("P1")
    assert game.state["counters"]["P1"]["vp"] == 1  # bids[1]: P1's own bid, 0


def test_a_bidder_with_nothing_to_bid_bids_0_at_once(make_pack):
    """A simultaneous decision in which a player has one possible answer gives it without asking."""
    rules = _tiny(make_pack, "gain 2 vp for next_player(me)\nbid players from vp as bids\ngain bids[2] vp")
    game = Game.new(rules, 2, 0)
    _act(game)
    assert game.decision.players == ["P2"] and game.decision.kind == "bid"
    game.apply(1, "P2")
    assert game.state["counters"]["P1"]["vp"] == 1 and "Bids revealed: P1 0, P2 1" in game.log_for("P2")


def test_values_a_verb_cannot_use_stop_the_game_at_the_line_not_with_a_traceback(make_pack):
    rules = _tiny(make_pack, "let pair = [1, [2]]\ngain pair[2] vp")
    game = Game.new(rules, 1, 0)
    with pytest.raises(ContentError) as caught:
        _act(game)
    assert rules.describe(caught.value).startswith(str(rules.root / "rules.yaml") + ":19:3: ")  # the `gain` line


def test_texts_in_content_stay_texts_in_the_generated_python(make_pack):
    """Expressions are compiled to Python source (engine/runtime/codegen.py): a text that looks like code
    must come out as the same text, never run."""
    sneaky = "'); raise SystemExit('pwned') #\\n{__import__}"
    written = sneaky.replace("{", "{{").replace("}", "}}")  # braces in a text are doubled (`{...}` is a value)
    effect = f'log "{written}"\nlet x = "{written}"\nrequire x = "{written}"\nlog "x is {{x}}"\ngain 1 vp'
    rules = _tiny(make_pack, effect)
    game = Game.new(rules, 1, 0)
    _act(game)
    assert sneaky in game.log_for("P1") and game.state["counters"]["P1"]["vp"] == 1
    assert f"x is {sneaky}" in game.log_for("P1")  # a value put into a text is text too


def test_numbers_to_choose_from_are_numbers_even_when_bound_by_let(make_pack):
    rules = _tiny(make_pack, "let amounts = numbers(1, 2) + [5]\nchoose 1 from amounts as n\ngain n vp")
    game = Game.new(rules, 1, 0)
    _act(game)
    assert [o["label"] for o in game.view("P1")["decision"]["options"]] == ["1", "2", "5"]
    game.apply(2, "P1")
    assert game.state["counters"]["P1"]["vp"] == 5


def test_engine_knows_no_game():
    words = re.compile(
        r"cro.?magnon|wolf|flint|spoils|settlement|neolith|mammoth|paleo|stone.?age|glutton|clubman"
        r"|civili[sz]ation|tool.?maker|clay.?pit|quarry|\bhut\b",
        re.IGNORECASE,
    )
    for path in (ROOT / "engine").rglob("*"):
        if path.is_file() and path.suffix in (".py", ".lark", ".json", ".md", ".txt", ""):
            assert not words.search(path.read_text(encoding="utf-8", errors="replace")), path


TWO_CARDS = """kind: zone
id: deck
name: Deck
type: deck
---
kind: card
id: axe
name: Axe
type: technology
deck: deck
stats: {vp: 1}
---
kind: card
id: bow
name: Bow
type: technology
deck: deck
stats: {vp: 5}
"""


@pytest.mark.parametrize("number", ["0 - 1", "0 - 2", "2", "7"])
def test_a_number_that_is_no_card_is_an_error_never_another_card(make_pack, number):
    """Card numbers run from 0 to N-1. `(0 - 1).vp` used to read the last card's vp (a Python list index from
    the end): every number outside the range is now an error that names the range."""
    rules = load(
        make_pack({"rules.yaml": one_action_rules(f"gain ({number}).vp vp", extra=TWO_CARDS)}, manifest=tiny_manifest())
    )
    game = Game.new(rules, 1, 0)
    with pytest.raises(ContentError) as caught:
        _act(game)
    assert caught.value.code == "X106" and "numbered 0 to 1" in str(caught.value)
    assert game.state["counters"]["P1"]["vp"] == 0


def test_a_card_number_in_range_still_reads_its_card(make_pack):
    rules = load(
        make_pack(
            {"rules.yaml": one_action_rules("gain (1).vp vp\ngain (0).vp vp", goal="9", extra=TWO_CARDS)},
            manifest=tiny_manifest(),
        )
    )
    game = Game.new(rules, 1, 0)
    _act(game)
    assert game.state["counters"]["P1"]["vp"] == 6


def test_the_table_refuses_a_negative_card_number(make_pack):
    rules = load(make_pack({"rules.yaml": one_action_rules("gain 1 vp", extra=TWO_CARDS)}, manifest=tiny_manifest()))
    game = Game.new(rules, 1, 0)
    assert game.card_def(1)["id"] == "bow"
    for number in (-1, 2):
        with pytest.raises(ContentError) as caught:
            game.card_def(number)
        assert caught.value.code == "X106"
