"""Effects lowered to Python (engine/runtime/lowering.py) play exactly as the step interpreter does.

The lowered functions run many steps at once and stop where a verb waits; the frame in the state stays
plain data. Each test compares them with the interpreter (`Game._interpret`, what every frame ran before)
state for state, `state["steps"]` included, or checks a promise of the lowering directly: saves taken
mid-effect continue as the uninterrupted game, content errors name their text and offset, the step
budget stops a loop at the very step, pack functions lend their caller's context and give it back.
"""

from __future__ import annotations

import contextlib
import json
import random
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.runtime import lowering
from engine.runtime.budget import STEP_BUDGET
from engine.runtime.compiler import compile_text
from engine.runtime.errors import ContentError
from engine.runtime.game import Game
from engine.runtime.rules import load

REPO = Path(__file__).resolve().parent.parent
KEY = "action/act/effect"


def make_rules(tmp_path, effect: str, extra: str = ""):
    text = one_action_rules(effect, goal=40, action="limit: once_per_turn", extra=extra)
    root = write_tree(tmp_path / "lowered", {"pack.yaml": tiny_manifest("lowered"), "rules.yaml": text})
    return load(root), root / "rules.yaml"


@contextlib.contextmanager
def interpreted(rules):
    """Every frame runs step by step, as before the lowering (its functions forgotten, none made)."""

    def forget():
        for code in rules.code.values():
            if hasattr(code, "entries"):
                code.entries = None

    original = lowering.entry
    forget()
    lowering.entry = lambda code, pc: None
    try:
        yield
    finally:
        lowering.entry = original
        forget()


def lowered_runs(rules) -> int:
    """How many lowered functions the games so far have made (0: everything was interpreted)."""
    return sum(
        1
        for code in rules.code.values()
        if getattr(code, "entries", None)
        for run in code.entries.values()
        if run is not None
    )


def play(rules, players: int, seed: int, *, decisions: int = 400, reload: bool = False, max_rounds: int = 4):
    """A seeded random game: the full state (JSON, `steps` included) at every decision, and the content
    error that stopped it (its message, text and offset), if any. `reload`: save and load at every decision."""
    rnd = random.Random(seed)
    states, error = [], None
    try:
        game = Game.new(rules, players, seed, max_rounds=max_rounds)
        for _ in range(decisions):
            states.append(json.dumps(game.state, sort_keys=True))
            if game.over:
                break
            if reload:
                game = Game.load(rules, game.save())
            decision = game.decision
            if decision.is_chance:
                game.apply_chance()
                continue
            player = decision.players[0]
            game.apply(rnd.choice(game.legal(player)), player)
    except ContentError as exc:
        error = (exc.message, exc.code_key, exc.offset)
    return states, error


def act(rules) -> Game:
    """A one-player game right after taking `act`."""
    game = Game.new(rules, 1, 0)
    game.apply(game.decision.options.index("act"), "P1")
    return game


def both_ways(rules, players, seed, **kwargs):
    with interpreted(rules):
        reference = play(rules, players, seed, **kwargs)
    return reference, play(rules, players, seed, **kwargs)


# ---------------------------------------------------------------- shipped packs, state for state
@pytest.mark.parametrize(
    "pack, players, decisions", [("cro-magnon", 2, 300), ("neolithibum", 2, 250), ("stone-age", 2, 150)]
)
def test_shipped_packs_play_state_for_state_as_the_interpreter(pack, players, decisions):
    rules = load(REPO / "content" / pack)
    effects = [code for code in rules.code.values() if hasattr(code, "steps")]
    assert all(lowering.entry(code, 0) is not None for code in effects)  # every effect lowers
    reference, lowered = both_ways(rules, players, 1, decisions=decisions, max_rounds=500)
    assert lowered_runs(rules) > 0
    assert reference[1] is None and lowered[1] is None
    assert len(lowered[0]) == len(reference[0])
    for i, (a, b) in enumerate(zip(reference[0], lowered[0], strict=True)):
        assert a == b, f"state {i} differs"


# ---------------------------------------------------------------- saves inside a half-done effect
NESTED = """let total = 0
for each n in [1, 2, 3]:
    repeat 2 times:
        choose 1 from numbers(1, n + 1) as k
        if k > 1:
            gain k vp
            let total = total + k
        elif k = 1:
            roll 1 of 3 as faces
            gain faces[1] vp
        else:
            lose 1 vp
    gain 1 vp
log "done"
"""


def test_an_effect_saved_at_a_decision_inside_nested_loops_continues_as_the_uninterrupted_game(tmp_path):
    rules, _ = make_rules(tmp_path, NESTED)
    with interpreted(rules):
        reference, _ = play(rules, 2, 3)
    resumed, error = play(rules, 2, 3, reload=True)
    assert error is None
    assert lowered_runs(rules) > 1  # run from step 0 and from after a choice or a roll
    assert resumed == reference
    waiting = [json.loads(s) for s in resumed if json.loads(s)["stack"]]
    assert any(f["env"].get("$2", 0) > 0 for s in waiting for f in s["stack"])  # saved mid-loop


# ---------------------------------------------------------------- errors and the step budget
def test_a_content_error_in_a_lowered_block_names_its_text_and_offset(tmp_path):
    effect = "let x = 2\nfor each n in [1, 2]:\n    if n > 0:\n        repeat 70 times:\n            let x = x + x\n"
    rules, file = make_rules(tmp_path, effect)
    reference, lowered = both_ways(rules, 1, 0)
    assert lowered == reference
    message, key, offset = lowered[1]
    assert key == KEY and "too large" in message
    line = next(n for n, text in enumerate(file.read_text().splitlines(), 1) if "let x = x + x" in text)
    column = file.read_text().splitlines()[line - 1].index("x = x + x") + 1  # a `let` is located at its name
    assert rules.describe(ContentError(message, key, offset)).startswith(f"{file}:{line}:{column}: ")


def test_the_step_budget_stops_an_endless_loop_at_the_same_step_as_the_interpreter(tmp_path):
    rules, file = make_rules(tmp_path, "gain 1 vp\nrepeat 1000000 times:\n    gain 0 vp\n    let y = 1\n")
    reference, lowered = both_ways(rules, 1, 0, decisions=3)
    assert lowered == reference
    message, key, offset = lowered[1]
    assert f"more than {STEP_BUDGET} steps" in message and key == KEY
    assert rules.describe(ContentError(message, key, offset)).startswith(f"{file}:")


def test_an_effect_nested_too_deep_to_lower_is_interpreted(tmp_path):
    depth = lowering.MAX_NESTING + 2
    effect = "".join("    " * i + "if me.vp >= 0:\n" for i in range(depth)) + "    " * depth + "gain 2 vp\n"
    rules, _ = make_rules(tmp_path, effect)
    assert lowering.entry(rules.code[KEY], 0) is None
    assert act(rules).state["counters"]["P1"]["vp"] == 2


def test_a_frame_at_a_step_no_function_starts_from_runs_in_the_interpreter(tmp_path):
    rules, _ = make_rules(tmp_path, "gain 1 vp\ngain 2 vp\ngain 4 vp\n")
    code = rules.code[KEY]
    assert lowering.entry(code, 0) is not None and lowering.entry(code, 2) is None
    game = Game.new(rules, 1, 0)
    game.state["pending"] = None
    game.push(KEY, "P1")
    game.state["stack"][-1]["pc"] = 2  # as a save made elsewhere might hold it
    game._run_frame()
    assert game.state["counters"]["P1"]["vp"] == 4 and not game.state["stack"]


# ---------------------------------------------------------------- pack functions
def test_a_pack_function_lends_the_callers_context_and_gives_it_back(tmp_path):
    extra = (
        "kind: function\nid: f\nparams: [a]\nbody: a * 10 + g(a)\n---\n"
        "kind: function\nid: g\nparams: [b]\nbody: b + 1\n"
    )
    rules, _ = make_rules(
        tmp_path,
        "let a = 3\nlet b = f(5) + a + b_of()\ngain b vp\n",
        extra + "---\nkind: function\nid: b_of\nbody: '7'\n",
    )
    assert act(rules).state["counters"]["P1"]["vp"] == 50 + 6 + 3 + 7


def test_functions_calling_each_other_too_deep_stop_at_the_function(tmp_path):
    extra = "kind: function\nid: f\nparams: [n]\nbody: f(n + 1)\n"
    rules, _ = make_rules(tmp_path, "gain f(1) vp\n", extra)
    with pytest.raises(ContentError) as caught:
        act(rules)
    assert caught.value.code == "X104" and caught.value.code_key == "function/f/body"


# ---------------------------------------------------------------- fuzzing: any effect, both ways
_SIMPLE = [
    "gain 1 vp",
    "gain 2 vp",
    "lose 1 vp",
    "let a = a + 1",
    "let b = a * 2 - b",
    "let a = x",
    "choose 1 from [1, 2, 3] as a",
    "choose 1 from numbers(1, a + 1) as b",
    "roll 1 of 2 as r",
    "let a = r[1]",
    "require a < 3",
    "require b != 4",
    'log "hello"',
    "stop",
    'ask me "Go?" as yes',
    "set vp to a",
    # expressions and words (issue 13)
    "let a = if a > 1 then a - 1 else a + 2",
    "let r = map(numbers(1, a + 1), item * 2)",
    "let b = sum(map(r, item > 2)) + index_of(r, 4)",
    "let r = sort(unique(r + [3, 1]), 0 - item)",
    'log "a is {a}, r is {r}, {{braces}}"',
    'choose 1 from map(numbers(1, 3), [item, item * a]) as p showing "{item[1]} for {item[2]}"',
    "choose 1 from [[1, 2], [3, a]] as p",
]
_CONDITIONS = ["a > 1", "b = 2", "me.vp >= 2", "yes", "a = x", "if yes then a > 0 else b > 0"]


def _block(draw, depth: int, indent: int) -> list[str]:
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["simple"] * 3 + (["if", "repeat", "for"] if depth < 3 else [])))
        pad = "    " * indent
        if kind == "simple":
            lines.append(pad + draw(st.sampled_from(_SIMPLE)))
        elif kind == "if":
            lines.append(f"{pad}if {draw(st.sampled_from(_CONDITIONS))}:")
            lines += _block(draw, depth + 1, indent + 1)
            if draw(st.booleans()):
                lines.append(f"{pad}elif {draw(st.sampled_from(_CONDITIONS))}:")
                lines += _block(draw, depth + 1, indent + 1)
            if draw(st.booleans()):
                lines.append(f"{pad}else:")
                lines += _block(draw, depth + 1, indent + 1)
        elif kind == "repeat":
            lines.append(f"{pad}repeat {draw(st.sampled_from(['0', '1', '2', 'a']))} times:")
            lines += _block(draw, depth + 1, indent + 1)
        else:
            lines.append(f"{pad}for each x in {draw(st.sampled_from(['[1, 2]', '[]', 'numbers(1, b)']))}:")
            lines += _block(draw, depth + 1, indent + 1)
    return lines


@st.composite
def effects(draw):
    return "let a = 0\nlet b = 1\nlet r = [1]\nlet yes = true\n" + "\n".join(_block(draw, 0, 0)) + "\n"


PHASE_KEY = "phase/start/effect"
PHASE = "kind: phase\nid: start\nname: Start\nwhen: turn_start\neffect: |\n  gain 0 vp\n"


@pytest.fixture(scope="module")
def fuzz_rules(tmp_path_factory):
    rules, _ = make_rules(tmp_path_factory.mktemp("fuzz"), "gain 1 vp\n", PHASE)
    return rules


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(effect=effects(), where=st.sampled_from([KEY, PHASE_KEY]), seed=st.integers(0, 3), reload=st.booleans())
def test_fuzzed_effects_play_state_for_state_as_the_interpreter(fuzz_rules, effect, where, seed, reload):
    """Any mix of loops, branches, decisions, failures, stops and errors, in an action or in a phase (no
    undo there): the same states at every decision (locals, step counts and frames included), the same error
    at the same spot, with or without saving and loading at every decision."""
    rules = fuzz_rules
    rules.code[KEY] = compile_text(rules, KEY, "gain 1 vp", "effect")
    rules.code[PHASE_KEY] = compile_text(rules, PHASE_KEY, "gain 0 vp", "effect")
    rules.code[where] = compile_text(rules, where, effect, "effect", scope=("x",))  # `x`: bound by loops only
    with interpreted(rules):
        reference = play(rules, 2, seed, decisions=60, max_rounds=3)
    lowered = play(rules, 2, seed, decisions=60, max_rounds=3, reload=reload)
    assert lowered == reference, effect


def test_a_pack_function_called_directly_costs_and_answers_as_through_its_caller(tmp_path):
    """Compiled call sites call a function that cannot reach itself as one Python function (codegen.direct_function):
    the same value and the same work charged as through `pack_function`'s caller, with its environment of
    names; a function that calls itself keeps the caller (and its depth limit)."""
    from engine.runtime import codegen
    from engine.runtime.game import Ctx

    extra = (
        "kind: function\nid: f\nparams: [a]\nbody: a * 10 + g(a)\n---\n"
        "kind: function\nid: g\nparams: [b]\nbody: count(numbers(1, b) where item > 1) + b\n---\n"
        "kind: function\nid: h\nparams: [n]\nbody: 'n <= 0 or h(n - 1)'\n"
    )
    rules, _ = make_rules(tmp_path, "gain f(4) vp\n", extra)
    game = act(rules)
    assert game.state["counters"]["P1"]["vp"] == 40 + 3 + 4
    direct = codegen.direct_function(rules, "f", codegen.ExpressionCompiler, 1)
    assert direct is not None and codegen.direct_function(rules, "h", codegen.ExpressionCompiler, 1) is None
    spent = []
    for call in (direct, codegen.pack_function(rules, "f")):
        game.work = 10_000
        assert call(Ctx(game, {}, "P1", None), "test", 0, 4) == 47
        spent.append(10_000 - game.work)
    assert spent[0] == spent[1] > 0, spent


def test_an_error_in_a_function_called_directly_points_into_its_body(tmp_path):
    extra = "kind: function\nid: ratio\nparams: [a]\nbody: 10 / (a - a)\n"
    rules, _ = make_rules(tmp_path, "gain ratio(3) vp\n", extra)
    with pytest.raises(ContentError) as caught:
        act(rules)
    assert caught.value.code == "X108" and caught.value.code_key == "function/ratio/body"
