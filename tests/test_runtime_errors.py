"""Runtime errors carry codes, like lint's: declared once (engine/runtime/error_codes.py), raised by code,
shown by code with a hint, documented in docs/runtime-errors.md. Tests match codes, not wording."""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path

import pytest
from conftest import one_action_rules, tiny_manifest, write_tree

from engine.commands.cli import main
from engine.runtime import persist, session
from engine.runtime.error_codes import ERROR_CODES, GROUPS
from engine.runtime.errors import ContentError, GameError, Stalled
from engine.runtime.game import Game
from engine.runtime.rules import PackError, load

REPO = Path(__file__).resolve().parent.parent
ENGINE = REPO / "engine"
BAD_LOGS = REPO / "tests" / "bad_logs"
TOY = BAD_LOGS / "toy"
CODED = {"ContentError", "GameError", "RecordError", "LogError", "SaveError"}  # take `code=` at each use
FIXED = {"Stalled": Stalled, "PackError": PackError}  # one code, on the class
CODE = re.compile(r"\bX\d{3}\b")


@lru_cache(maxsize=1)
def _sources():
    return [(path, ast.parse(path.read_text(encoding="utf-8"), str(path))) for path in sorted(ENGINE.rglob("*.py"))]


def _text(node) -> str:
    """The literal text of a string or an f-string (its constant parts), else ''."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value for part in node.values if isinstance(part, ast.Constant))
    return ""


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


# ------------------------------------------------------------------------------ (a) the catalogue
def test_every_error_made_in_the_engine_names_a_catalogued_code():
    """Each `ContentError(...)`, `GameError(...)`, `LogError(...)`... built in engine/ (raised, or kept to
    raise later) passes `code="X..."`, a code of the catalogue; generated code does the same."""
    missing = []
    for path, tree in _sources():
        parts = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
        for node in ast.walk(tree):
            if id(node) in parts:  # a piece of an f-string: the whole f-string is read instead
                continue
            if isinstance(node, ast.Call) and _called_name(node) in CODED:
                code = next((k.value for k in node.keywords if k.arg == "code"), None)
                passed_on = isinstance(code, ast.Attribute) and code.attr == "code"  # re-raised as another class
                if not (passed_on or isinstance(code, ast.Constant) and code.value in ERROR_CODES):
                    missing.append(f"{path.relative_to(REPO)}:{node.lineno}")
            elif "raise ContentError(" in _text(node) and not re.search(r"code=['\"]X\d{3}['\"]", _text(node)):
                # Python source the compilers write, raising without a code
                missing.append(f"{path.relative_to(REPO)}:{node.lineno} (generated)")
    assert not missing, "errors without a catalogued code: " + ", ".join(missing)
    for cls in FIXED.values():
        assert cls.code in ERROR_CODES


def test_every_catalogued_code_is_used_and_no_uncatalogued_one_is():
    used = {cls.code for cls in FIXED.values()}
    for path, tree in _sources():
        if path.name == "error_codes.py":
            continue
        for node in ast.walk(tree):
            used |= set(CODE.findall(_text(node)))
    assert used - set(ERROR_CODES) == set(), "codes used but not catalogued"
    assert set(ERROR_CODES) - used == set(), "codes catalogued but never used"


def test_the_catalogue_is_well_formed_and_documented():
    names = [e.name for e in ERROR_CODES.values()]
    assert len(names) == len(set(names))
    for code, entry in ERROR_CODES.items():
        assert re.fullmatch(r"X\d{3}", code) and entry.code == code and code[1] in GROUPS
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", entry.name), entry.name
        assert entry.summary.endswith(".") and entry.hint.strip(), code
    from engine.runtime.error_codes import render_page

    page = (REPO / "docs" / "runtime-errors.md").read_text(encoding="utf-8")
    assert page == render_page(), "docs/runtime-errors.md is stale: run tools/gen_docs.py"
    for code, entry in ERROR_CODES.items():
        assert f"| {code} | {entry.name} |" in page


def test_no_lint_rule_uses_the_runtime_prefix():
    from engine.diagnostics import RULES, STAGES

    assert "X" not in STAGES and not any(code.startswith("X") for code in RULES)


# ------------------------------------------------------------------------------ (b) one scenario per group
@pytest.fixture(scope="module")
def toy():
    return load(TOY)


def _raised(func):
    try:
        func()
    except (ContentError, GameError, PackError) as exc:
        return exc
    raise AssertionError("nothing was raised")


def test_answers_illegal_not_yours_and_nothing_pending(toy):
    game = Game.new(toy, 2, 2)
    player = game.decision.players[0]
    other = next(p for p in game.state["players"] if p != player)
    assert _raised(lambda: game.apply(999, player)).code == "X204"
    assert _raised(lambda: game.apply(0, other)).code == "X203"
    assert _raised(lambda: game.apply_chance()).code == "X201"
    exc = _raised(lambda: game.apply(999, player))
    assert exc.hint == ERROR_CODES["X204"].hint


def test_games_too_many_players(toy):
    assert _raised(lambda: Game.new(toy, 9, 0)).code == "X304"


def test_content_a_budget_and_a_division_by_zero(tmp_path):
    manifest = tiny_manifest("coded")
    deep = write_tree(
        tmp_path / "deep",
        {
            "pack.yaml": manifest,
            "rules.yaml": one_action_rules("let x = 2\nrepeat 40 times:\n    let x = x * x\ngain 1 vp"),
        },
    )
    rules = load(deep)
    game = Game.new(rules, 1, 0)
    exc = _raised(lambda: game.apply(game.decision.options.index("act"), "P1"))
    assert exc.code == "X102"
    assert " X102 " in rules.describe(exc)
    zero = write_tree(
        tmp_path / "zero", {"pack.yaml": manifest, "rules.yaml": one_action_rules("let x = 0\ngain 6 / x vp")}
    )
    rules = load(zero)
    game = Game.new(rules, 1, 0)
    assert _raised(lambda: game.apply(game.decision.options.index("act"), "P1")).code == "X108"


@pytest.mark.parametrize(
    "case, code",
    [("log_option_true.json", "X403"), ("log_option_not_legal.json", "X405"), ("log_option_nan.json", "X401")],
)
def test_records_a_bad_log(toy, case, code):
    def replay():
        data = persist.read(BAD_LOGS / case, persist.LogError)
        session.replay(toy, data)

    assert _raised(replay).code == code


def test_records_a_bad_save(toy):
    load_game = getattr(Game, "from_save", None) or persist.load_game
    data = json.loads((BAD_LOGS / "save_attempt_action_unknown.json").read_text())
    assert _raised(lambda: load_game(toy, data)).code == "X415"
    data = {**data, "pack": "another"}
    assert _raised(lambda: load_game(toy, data)).code == "X413"


def test_packs_a_pack_with_lint_errors(tmp_path):
    root = write_tree(
        tmp_path / "broken",
        {"pack.yaml": tiny_manifest("broken"), "rules.yaml": one_action_rules("gain 1 nothing_like_this")},
    )
    exc = _raised(lambda: load(root))
    assert isinstance(exc, PackError) and exc.code == "X501"


# ------------------------------------------------------------------------------ (c) people see the code
def test_replay_shows_the_code_and_the_hint(capsys):
    code = main(["replay", str(BAD_LOGS / "log_option_not_legal.json"), "--pack", str(TOY)])
    err = capsys.readouterr().err
    assert code == 1
    first, hint = err.strip().splitlines()
    assert re.search(r": X405 the log does not replay", first), err
    assert hint.strip() == f"= hint: {ERROR_CODES['X405'].hint}"


def test_replay_of_a_log_that_ends_elsewhere_says_x406(tmp_path, capsys):
    data = json.loads((BAD_LOGS / "log_option_true.json").read_text())
    data["decisions"][0][1] = 0
    data["final_hash"] = "0" * 64
    path = tmp_path / "log.json"
    path.write_text(json.dumps(data))
    code = main(["replay", str(path), "--pack", str(TOY)])
    err = capsys.readouterr().err
    assert code == 1 and " X406 " in err.splitlines()[0], err


def test_play_of_a_pack_with_errors_shows_x501(tmp_path, capsys):
    root = write_tree(
        tmp_path / "broken",
        {"pack.yaml": tiny_manifest("broken"), "rules.yaml": one_action_rules("gain 1 nothing_like_this")},
    )
    assert main(["play", str(root), "--seed", "1"]) == 1
    assert "X501" in capsys.readouterr().err


def test_sim_json_carries_the_code_of_a_stalled_game(tmp_path, capsys):
    root = write_tree(
        tmp_path / "free",
        {
            "pack.yaml": tiny_manifest("free"),
            "rules.yaml": one_action_rules("gain 1 vp", goal=100_000, action="free: true"),
        },
    )
    out = tmp_path / "summary.json"
    argv = [
        "sim",
        str(root),
        "-n",
        "1",
        "--players",
        "2",
        "--agents",
        "greedy",
        "--jobs",
        "1",
        "--max-answers-per-turn",
        "40",
        "--format",
        "json",
        "--output",
        str(out),
    ]
    assert main(argv) == 0
    summary = json.loads(out.read_text())
    assert [s["code"] for s in summary["stall_samples"]] == ["X301"]
    assert main(argv[:-4]) == 0
    printed = capsys.readouterr().out
    assert "X301" in printed and ERROR_CODES["X301"].hint.split(";")[0][:30] in printed, printed


def test_sim_json_carries_the_code_of_a_game_that_failed(tmp_path, capsys):
    root = write_tree(
        tmp_path / "zero",
        {
            "pack.yaml": tiny_manifest("zero"),
            "rules.yaml": one_action_rules("let x = 2\nrepeat 40 times:\n    let x = x * x\ngain 1 vp"),
        },
    )
    out = tmp_path / "summary.json"
    assert (
        main(
            [
                "sim",
                str(root),
                "-n",
                "1",
                "--players",
                "1",
                "--agents",
                "greedy",
                "--jobs",
                "1",
                "--format",
                "json",
                "--output",
                str(out),
            ]
        )
        == 1
    )
    summary = json.loads(out.read_text())
    assert [s["code"] for s in summary["error_samples"]] == ["X102"]


def test_play_quotes_the_line_a_runtime_error_points_at(tmp_path, capsys):
    """As `knap lint` prints a finding: `file:line:col: CODE message`, the pack's line with a caret under the
    column, then the hint. Here the division inside a function's body (its `/`)."""
    root = write_tree(
        tmp_path / "zero",
        {
            "pack.yaml": tiny_manifest("zero"),
            "rules.yaml": one_action_rules(
                "gain ratio(2) vp", extra="kind: function\nid: ratio\nparams: [a]\nbody: 10 / (a - a)\n"
            ),
        },
    )
    log = tmp_path / "game.json"
    assert main(["play", str(root), "--players", "1", "--seed", "3", "--log", str(log)]) == 1
    err = capsys.readouterr().err.splitlines()
    head = next(i for i, line in enumerate(err) if " X108 division by zero" in line)
    _file, line, col = re.search(r"(\S+rules\.yaml):(\d+):(\d+): X108", err[head]).groups()
    source = (tmp_path / "zero" / "rules.yaml").read_text().splitlines()[int(line) - 1]
    assert source == "body: 10 / (a - a)" and source[int(col) - 1] == "/"
    assert err[head + 1] == f"{int(line):>5} | {source}"
    assert err[head + 2] == " " * (len(f"{int(line):>5} | ") + int(col) - 1) + "^"
    assert err[head + 3].startswith("      = hint: Guard the division")


def test_an_error_a_bot_meets_in_a_game_it_imagines_says_so(tmp_path, capsys):
    """A greedy bot tries its options out in imagined games: a rule failing there is the pack's error all the
    same, but the real game has not reached it, so its log replays only up to the bot's decision. The
    report says whose look-ahead met it (it used to say that the log "shows what happened", and the log held
    no such failure); `knap sim` says the same in its error samples. With random bots the game itself fails
    and its log shows it."""
    root = write_tree(
        tmp_path / "zero",
        {
            "pack.yaml": tiny_manifest("zero"),
            "rules.yaml": one_action_rules(
                "gain ratio(2) vp", extra="kind: function\nid: ratio\nparams: [a]\nbody: 10 / (a - a)\n"
            ),
        },
    )
    log = tmp_path / "game.json"
    assert main(["play", str(root), "--players", "1", "--seed", "3", "--agents", "greedy", "--log", str(log)]) == 1
    err = capsys.readouterr().err
    assert "P1's greedy bot, trying out its options in an imagined game, met: " in err and " X108 " in err
    assert "the error is in a game it imagined" in err
    assert json.loads(log.read_text())["decisions"] == []  # the bot's first decision: nothing answered yet
    assert main(["replay", str(log)]) == 0  # the log replays: the real game never failed
    capsys.readouterr()
    out = tmp_path / "summary.json"
    assert (
        main(
            [
                "sim",
                str(root),
                "-n",
                "1",
                "--players",
                "1",
                "--agents",
                "greedy",
                "--jobs",
                "1",
                "--format",
                "json",
                "--output",
                str(out),
            ]
        )
        == 1
    )
    (sample,) = json.loads(out.read_text())["error_samples"]
    assert sample["code"] == "X108" and sample["error"].startswith("P1's greedy bot, trying out its options")
    capsys.readouterr()
    assert main(["play", str(root), "--players", "1", "--seed", "3", "--agents", "random", "--log", str(log)]) == 1
    err = capsys.readouterr().err
    assert "imagined" not in err and "shows what happened" in err
    assert main(["replay", str(log)]) == 1 and "the game fails at decision" in capsys.readouterr().err
