"""Work budgets and stalls: content that lints clean but would make the runtime work without end.

Every answer runs under a work budget that counts expression evaluation (pack-function calls, items visited
and built, list comparisons), integers and lists have a size bound, and a turn that goes on for more answers
than `--max-answers-per-turn` is reported as a stall with its seed. Each case below hung `knap sim` or
`knap play` before; each runs in a forked child with a time and memory limit, so a regression fails
instead of hanging the suite.
"""

from __future__ import annotations

import json
import multiprocessing
import random
import re

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.commands.cli import main
from engine.runtime import agents, budget, sim
from engine.runtime.errors import ContentError
from engine.runtime.game import Game, Stalled
from engine.runtime.rules import load
from engine.runtime.session import play_out, play_randomly

try:
    import resource
except ImportError:  # pragma: no cover -- not on POSIX
    resource = None

SECONDS = 20  # generous for 2 slow cores: each case stops in well under 2 s
MEMORY = 2 << 30  # bytes of address space for the child

PACK = tiny_manifest("budget")


def pack(tmp_path, effect: str, *, goal: int = 3, action: str = "limit: once_per_turn", extra: str = ""):
    """A one-action pack (`act` does `effect`); `extra` adds documents. Returns (rules, the rules file)."""
    text = one_action_rules(effect, goal=goal, action=action, extra=extra)
    root = write_tree(tmp_path / "budget", {"pack.yaml": PACK, "rules.yaml": text})
    return load(root), root / "rules.yaml"


def at(file, marker: str, offset: int = 0) -> str:
    """`file:line:col` of the first `marker` in the file (plus `offset` columns)."""
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
        if marker in line:
            return f"{file}:{number}:{line.index(marker) + 1 + offset}"
    raise AssertionError(f"{marker!r} is not in {file}")


def _child(func, conn):  # pragma: no cover -- runs in the forked child
    if resource is not None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))
    try:
        conn.send(("ok", func()))
    except BaseException as exc:  # noqa: BLE001 -- reported to the parent
        conn.send(("raised", f"{type(exc).__name__}: {str(exc)[:500]}"))


def within(func, seconds: float = SECONDS):
    """Run `func` in a forked child with a time and memory limit; its result, or the test fails."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(func, send))
    child.start()
    send.close()
    try:
        if not receive.poll(seconds):
            pytest.fail(f"still running after {seconds} s: the runtime has no bound here")
        kind, value = receive.recv()
    except EOFError:
        pytest.fail("the child died (out of memory?)")
    finally:
        child.kill()
        child.join()
    assert kind == "ok", value
    return value


def first_error(rules, players=1, agent="greedy", answers=5_000):
    """Play a game with bots until it ends or a content error stops it; that error in words (else None)."""

    def run():
        game = Game.new(rules, players, 0)
        seats = [agents.make(agent, i) for i in range(players)]
        try:
            for _ in range(answers):
                if game.over:
                    return None
                decision = game.decision
                if decision.is_chance:
                    game.apply_chance()
                    continue
                player = decision.players[0]
                option = seats[0].act({"you": player}, game.legal(player), lambda p=player: game.determinized(p, 0))
                game.apply(option, player)
        except ContentError as exc:
            return rules.describe(exc)
        return None

    return within(run)


# ---------------------------------------------------------------- expressions that explode
FUNCTION = """kind: function
id: f
params: [n]
body: n <= 0 or count([f(n - 1), f(n - 1)]) > 0
"""


def test_a_function_calling_itself_twice_per_level_runs_out_of_work_at_the_call(tmp_path):
    rules, file = pack(tmp_path, "if f(28):\n    gain 1 vp", extra=FUNCTION)
    error = first_error(rules)
    assert error is not None and " X101 " in error, error
    first = at(file, "f(n - 1)")
    second = first.rsplit(":", 1)[0] + ":" + str(int(first.rsplit(":", 1)[1]) + len("f(n - 1), "))
    assert error.startswith((first + ": ", second + ": ")), error


def test_three_nested_wheres_over_a_thousand_numbers_run_out_of_work(tmp_path):
    rules, file = pack(
        tmp_path,
        # each loop's items from the item around it: no inner loop is the same for every outer item (codegen keeps
        # such a part once per loop: `count(numbers(1, 1000) where ...)` would be worked out once)
        "let n = count(numbers(1, 1000) where count(numbers(item, item + 999) where "
        "count(numbers(item, item + 999) where item > 0) > 0) > 0)\ngain 1 vp",
    )
    error = first_error(rules)
    assert error is not None and " X101 " in error, error
    assert error.startswith(f"{file}:"), error


def test_squaring_a_number_forty_times_is_refused_at_the_product(tmp_path):
    rules, file = pack(tmp_path, "let x = 2\nrepeat 40 times:\n    let x = x * x\ngain 1 vp")
    error = first_error(rules)
    assert error is not None and " X102 " in error, error
    assert error.startswith(at(file, "x * x", 2) + ": "), error  # at the `*`


def test_doubling_a_number_by_addition_is_refused_when_it_is_kept(tmp_path):
    rules, file = pack(tmp_path, "let x = 1\nrepeat 100000 times:\n    let x = x + x\ngain 1 vp")
    error = first_error(rules)
    assert error is not None and " X102 " in error, error
    assert error.startswith(at(file, "let x = x + x", 4) + ": "), error  # at the name it is kept in


def test_a_list_of_itself_twice_is_refused_before_it_explodes_in_a_save(tmp_path):
    """`let l = [l, l]` 60 times shares one list 2^60 times over: logging or saving it would never end."""
    rules, file = pack(tmp_path, "let l = [1]\nrepeat 60 times:\n    let l = [l, l]\nlog l\ngain 1 vp")

    def run():
        game = Game.new(rules, 1, 0)
        try:
            game.apply(game.decision.options.index("act"), "P1")
        except ContentError as exc:
            return rules.describe(exc)
        return len(game.save())

    error = within(run)
    assert isinstance(error, str) and " X103 " in error, error
    assert error.startswith(at(file, "[l, l]", 1) + ": "), error


def test_a_list_built_by_a_function_that_doubles_its_argument_is_refused_in_its_body(tmp_path):
    """No `let` between the doublings: the size is checked where a list is built, not only where it is kept."""
    extra = "kind: function\nid: twice\nparams: [x]\nbody: '[x, x]'\n"
    rules, file = pack(tmp_path, "let l = numbers(1, 1000)\nlog twice(twice(twice(twice(l))))\ngain 1 vp", extra=extra)
    error = first_error(rules)
    assert error is not None and " X103 " in error, error
    assert error.startswith(at(file, "[x, x]", 1) + ": "), error


def test_a_long_list_compared_with_itself_in_nested_wheres_runs_out_of_work(tmp_path):
    rules, _ = pack(
        tmp_path,
        "let a = numbers(1, 1000) + numbers(1, 1000) + numbers(1, 1000)\n"
        "let b = numbers(1, 1000) + numbers(1, 1000) + numbers(1, 1000)\n"
        # the inner list from the outer item: the inner count is not the same for every outer item (codegen would
        # work it out once), and `a = b`, the same for every inner item, is compared once per outer item, as before
        "let n = count(numbers(1, 1000) where count(numbers(item, item + 999) where a = b) > 0)\n"
        "gain 1 vp",
    )
    error = first_error(rules)
    assert error is not None and " X101 " in error, error


def test_a_number_of_4000_digits_made_by_an_effect_is_refused_at_the_product(tmp_path):
    """Lint refuses such a number written out (S006, D005); an effect can still compute one."""
    rules, file = pack(tmp_path, "let x = 1\nrepeat 4000 times:\n    let x = x * 10\ngain x vp")
    error = first_error(rules)
    assert error is not None and " X102 " in error, error
    assert error.startswith(at(file, "x * 10", 2) + ": "), error


def test_sim_of_a_pack_that_computes_a_huge_score_exits_1_with_the_located_error(tmp_path, capsys):
    rules, file = pack(tmp_path, "let x = 1\nrepeat 4000 times:\n    let x = x * 10\ngain x vp")
    code, out, err = within(lambda: (main(["sim", str(rules.root), "-n", "2", "--jobs", "1"]), *capsys.readouterr()))
    assert code == 1 and "internal error" not in err and "Traceback" not in err, err
    assert at(file, "x * 10", 2) in out, out


def test_the_budget_is_per_answer_and_ordinary_games_stay_well_inside_it():
    """The built-in packs, random and greedy bots: no answer comes near the budget (it is reset per answer)."""
    from scenario import ruleset

    rules = ruleset()
    used = []

    def watch(game):
        used.append(budget.WORK_BUDGET - game.work)

    for seed in range(3):
        game = Game.new(rules, 3, seed)
        play_randomly(game, random.Random(seed), after=watch)
        assert game.over
    assert max(used) < budget.WORK_BUDGET // 20, max(used)


def test_bounds_of_values():
    assert budget.bounded_int(2**64) == 2**64 and budget.bounded_int(-(2**64)) == -(2**64)
    with pytest.raises(ContentError):
        budget.bounded_int(2**65)
    shared = [1]
    for _ in range(20):
        shared = [shared, shared]
    with pytest.raises(ContentError):
        budget.check_size(shared)


# ---------------------------------------------------------------- turns that never end
FREE = "free: true"  # no cost, no limit, no `available`: the lint warns (D007), the bots never stop


def test_a_free_action_without_limit_stalls_and_the_game_says_so(tmp_path):
    rules, _ = pack(tmp_path, "gain 1 vp", goal=100_000, action=FREE)

    def run():
        game = Game.new(rules, 2, 5, max_answers_per_turn=300)
        try:
            play_out(game, [agents.make("greedy", 1), agents.make("greedy", 2)])
        except Stalled as exc:
            return str(exc), len(game.state["history"]), game.state["turn"]["number"]
        return None

    message, answers, turn = within(run)
    assert "300 answers" in message and "turn 1" in message, message
    assert answers == 300 and turn == 1


def test_sim_reports_a_stalled_turn_with_its_seed_and_a_log_that_replays(tmp_path, capsys):
    rules, _ = pack(tmp_path, "gain 1 vp", goal=100_000, action=FREE)
    logs, out = tmp_path / "logs", tmp_path / "summary.json"
    argv = [
        "sim",
        str(rules.root),
        "-n",
        "2",
        "--players",
        "2",
        "--agents",
        "greedy",
        "--seed",
        "7",
        "--jobs",
        "1",
        "--max-answers-per-turn",
        "200",
        "--log-dir",
        str(logs),
        "--json",
        str(out),
    ]
    code, printed = within(lambda: (main(argv), capsys.readouterr().out))
    assert code == 0
    summary = json.loads(out.read_text())
    assert summary["stalled"]["count"] == 2 and summary["stalled"]["seeds"] == [7, 8]
    assert summary["errors"] == 0 and summary["played"] == 0
    assert all(s["code"] == "X301" and "200 answers" in s["why"] for s in summary["stall_samples"])
    assert sorted(p.name for p in logs.iterdir()) == ["seed-7.json", "seed-8.json"]
    assert main(["replay", str(logs / "seed-8.json"), "--pack", str(rules.root)]) == 0
    assert "2 game(s) stalled" in printed and "seed 7" in printed


def test_play_reports_a_stalled_turn_with_its_seed_and_exits_1(tmp_path, capsys, monkeypatch):
    rules, _ = pack(tmp_path, "gain 1 vp", goal=100_000, action=FREE)
    monkeypatch.chdir(tmp_path)
    code = within(
        lambda: main(["play", str(rules.root), "--players", "2", "--seed", "3", "--max-answers-per-turn", "150"])
    )
    assert code == 1
    log = json.loads((tmp_path / "knap-game-3.json").read_text())
    assert len(log["decisions"]) == 150 and log["result"] is None


def test_play_stops_a_stalled_turn_by_default(tmp_path, capsys, monkeypatch):
    rules, _ = pack(tmp_path, "gain 1 vp", goal=100_000, action=FREE)
    monkeypatch.chdir(tmp_path)

    def run():
        code = main(["play", str(rules.root), "--players", "2", "--seed", "3"])
        return code, capsys.readouterr().err

    code, err = within(run)
    assert code == 1 and "stalled" in err and "seed 3" in err and "Traceback" not in err, err


def test_the_answer_limit_is_off_unless_asked_so_replays_and_tests_are_unchanged(tmp_path):
    rules, _ = pack(tmp_path, "gain 1 vp", goal=100_000, action=FREE)
    game = Game.new(rules, 1, 0)
    for _ in range(2_000):
        game.apply(game.decision.options.index("act"), "P1")
    assert game.state["counters"]["P1"]["vp"] == 2_000


def test_a_limit_of_answers_counts_chance_answers_too(tmp_path):
    rules, _ = pack(tmp_path, "repeat 1000000 times:\n    roll 1 of 6 as faces", goal=100_000, action=FREE)
    game = Game.new(rules, 1, 0, max_answers_per_turn=50)
    game.apply(game.decision.options.index("act"), "P1")
    with pytest.raises(Stalled) as caught:
        for _ in range(100):
            game.apply_chance()
    assert caught.value.answers == 50 and len(game.state["history"]) == 50


# ---------------------------------------------------------------- errors before the first answer, summaries
def test_a_parameter_that_is_not_a_number_is_a_located_content_error_in_sim_and_play(tmp_path, monkeypatch, capsys):
    """Lint refuses `default: lots`; a pack loaded without lint (or an older lint) must still fail clearly."""
    manifest = PACK + "parameters:\n  target: {default: 3}\n"
    text = one_action_rules("gain 1 vp", goal="target", action="limit: once_per_turn")
    root = write_tree(tmp_path / "budget", {"pack.yaml": manifest, "rules.yaml": text})
    import engine.runtime.rules as rules_module

    real_load = rules_module.load

    def load_with_lots(path):
        rules = real_load(path)
        rules.manifest["parameters"]["target"]["default"] = "lots"
        return rules

    monkeypatch.setattr(rules_module, "load", load_with_lots)
    trigger = at(root / "rules.yaml", ">= target")  # a comparison is located at its operator
    for argv in (["sim", str(root), "-n", "2", "--jobs", "1"], ["play", str(root)]):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 1, (argv, out, err)
        assert "internal error" not in err and "Traceback" not in err
        assert f"{trigger}: X107 expected a number, got 'lots'" in out + err, out + err


def test_the_summary_of_games_with_huge_scores_does_not_crash():
    rules = type(
        "Rules", (), {"pack_id": "x", "score_counter": "vp", "root": "x", "in_rounds": False, "cooperative": False}
    )()
    huge = int("9" * 4000)
    results = [
        {
            "index": i,
            "seed": i,
            "winners": ["P1"],
            "scores": {"P1": huge + i, "P2": 1},
            "reason": "goal",
            "turns": 3,
            "decisions": 9,
        }
        for i in range(3)
    ]
    summary = sim.summarise(rules, results, 2, ["random"], 0)
    json.dumps(summary)  # valid JSON: no float overflow, no inf
    assert summary["seats"][0]["score"]["max"] == huge + 2
    from rich.console import Console

    from engine.commands.play import print_summary

    console = Console(record=True, width=100)
    print_summary(summary, console)
    printed = console.export_text()
    assert "(4000 digits)" in printed and len(printed) < 3000, printed
    differences = sim.differences(rules, results, rules, results, 2, ["random"])
    json.dumps(differences)


# ---------------------------------------------------------------- the lint sees some of it coming
def test_the_lint_warns_about_a_free_action_without_limit(tmp_path, lint_json):
    rules, _file = pack(tmp_path, "gain 1 vp", goal=100, action=FREE)
    code, found = lint_json(rules.root)
    assert code == 1
    assert [(f, c) for f, _, _, c, _ in found] == [("rules.yaml", "D007")], found
    limited, _ = pack(tmp_path / "ok", "gain 1 vp", goal=100, action="limit: once_per_turn")
    assert lint_json(limited.root)[1] == []


@pytest.mark.parametrize(
    "action, effect",
    [
        ("cost: {vp: 1}", "gain 2 vp"),
        ("whole_turn: true", "gain 1 vp"),
        ("limit: once_per_game", "gain 1 vp"),
        ("available: me.vp < 5", "gain 1 vp"),
        ("free: true", "gain 1 vp\nend_turn"),
        ("free: true", "require me.vp < 5\ngain 1 vp"),
        ("free: true", "choose 1 from hand(me) as x\ndiscard x"),
        ("subroutine: true", "gain 1 vp"),
    ],
)
def test_the_lint_is_quiet_about_actions_that_cannot_repeat_for_ever(tmp_path, lint_json, action, effect):
    extra = (
        "kind: zone\nid: hand\nname: Hand\ntype: hand\nowner: player\n---\n"
        "kind: zone\nid: pile\nname: Pile\ntype: pile\n"
    )
    rules, _ = pack(tmp_path, effect, goal=100, action=action, extra=extra)
    # (a subroutine nothing performs is D008, behaviour that never runs: not what this test is about)
    assert [c for *_, c, _ in lint_json(rules.root)[1] if c != "D008"] == []


# ---------------------------------------------------------------- fuzz: growth of any kind stops in time
_GROWTH = {  # statements that make a value grow, each run many times over
    "x": ["let x = x * x", "let x = x + x", "let x = x * 10 + x", "gain x vp", "set vp to x * x"],
    "l": [
        "let l = [l, l]",
        "let l = l + l",
        "let l = l + [l]",
        "let l = [l] + numbers(1, 1000)",
        "log l",
        "log [l, l]",
    ],
    "n": [
        "let n = count(numbers(1, 1000) where count(numbers(1, 1000) where item = n) > 0)",
        "let n = count(numbers(1, 1000) where twice(item) = l)",
    ],
}


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.sampled_from([s for group in _GROWTH.values() for s in group]), min_size=1, max_size=4),
    st.sampled_from([10, 100, 100_000]),
)
def test_fuzzed_growth_stops_within_seconds_with_a_located_error_or_ends(tmp_path_factory, statements, times):
    """Whatever mix of growing statements an action repeats, the answer ends in bounded time: normally, or
    with a content error that names its line (never a hang, a crash or an error without a place)."""
    effect = f"let x = 2\nlet l = [1]\nlet n = 0\nrepeat {times} times:\n"
    effect += "".join(f"    {s}\n" for s in statements) + "gain 1 vp"
    extra = "kind: function\nid: twice\nparams: [x]\nbody: '[x, x]'\n"
    rules, file = pack(tmp_path_factory.mktemp("fuzz"), effect, extra=extra)

    def run():
        game = Game.new(rules, 1, 0)
        try:
            game.apply(game.decision.options.index("act"), "P1")
            return None, len(game.save())
        except ContentError as exc:
            return rules.describe(exc), 0

    error, saved = within(run, seconds=30)
    assert error is None or re.match(re.escape(str(file)) + r":\d+:\d+: ", error), error
    assert saved < 50_000_000
