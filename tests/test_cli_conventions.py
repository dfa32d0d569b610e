"""Command-line conventions (issue 11): one vocabulary across commands with the old spellings kept as
deprecated aliases, help that describes every option and command with its default, `-V`, shell completion,
`knap diff` that shows what differs, piped `knap sim` output that is whole and compact, and lint's
`--exit-zero`, empty-folder warning and JSON without empty fields."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CARD
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import __version__
from engine.commands.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
TOY = REPO / "tests" / "bad_logs" / "toy"  # a two-player pack whose games take milliseconds


# ------------------------------------------------------------------------------------------ help
def _parsers(parser: argparse.ArgumentParser, path=("knap",)):
    """Every parser of the tree with its command path, and the help line its parent lists it with."""
    yield path, parser, None
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            listed = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                for found in _parsers(child, path + (name,)):
                    yield found if found[0] != path + (name,) else (found[0], found[1], listed.get(name))


def test_every_command_has_a_description_and_every_option_help():
    """Walks the whole parser tree: a command without a description (or without a line in its parent's
    list), or an option without help, fails — except the deprecated aliases, which are hidden on purpose."""
    from engine.commands.options import DeprecatedAlias

    missing = []
    for path, parser, listed in _parsers(build_parser()):
        name = " ".join(path)
        if not (parser.description or "").strip():
            missing.append(f"{name}: no description")
        if len(path) > 1 and not (listed or "").strip():
            missing.append(f"{name}: no help line in `{' '.join(path[:-1])} -h`")
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if isinstance(action, DeprecatedAlias):
                assert action.help == argparse.SUPPRESS
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}: no help")
    assert not missing, "\n".join(missing)


def test_help_shows_every_default_and_never_none(knap):
    for command in (
        ("sim",),
        ("play",),
        ("lint",),
        ("graph",),
        ("diff",),
        ("list",),
        ("replay",),
        ("schema", "export"),
        ("completion",),
    ):
        with pytest.raises(SystemExit):
            build_parser().parse_args([*command, "-h"])
    code, out, _ = knap("sim", "-h")
    assert code == 0
    flat = " ".join(out.split())
    for shown in (
        "-n GAMES, --games GAMES how many games to play (default: 100)",
        "(default: random)",
        "(default: 500)",
        "(default: text)",
    ):
        assert shown in flat, shown
    for command in ("sim", "play", "lint", "graph", "diff", "list", "replay"):
        out = knap(command, "-h")[1]
        assert "default: None" not in out and "default: False" not in out and "default: []" not in out
    assert "(default: dot)" in " ".join(knap("graph", "-h")[1].split())


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(knap, flag):
    code, out, _ = knap(flag)
    assert code == 0 and out == f"knap {__version__}\n"


# ------------------------------------------------------------------------------------------ vocabulary
def test_play_takes_agents_by_seat_and_refuses_an_unknown_one(knap, tmp_path):
    log = tmp_path / "g.json"
    code, _, err = knap("play", TOY, "--agents", "random,greedy", "--seed", "2", "--log", log)
    assert code == 0, err
    assert json.loads(log.read_text())["agents"] == ["random", "greedy"]
    code, _, err = knap("play", TOY, "--agents", "greedy", "--seed", "2", "--log", log)
    assert code == 0 and json.loads(log.read_text())["agents"] == ["greedy", "greedy"]
    code, _, err = knap("play", TOY, "--agents", "smart", "--log", log)
    assert code == 2 and "unknown agent `smart`; agents: random, greedy" in err


def test_old_spellings_still_work_and_name_the_new_one(knap, tmp_path):
    """`--bots`, `--logs` and `--json` keep working for scripts; each says its new spelling in one line."""
    log = tmp_path / "g.json"
    code, _, err = knap("play", TOY, "--bots", "random", "--seed", "2", "--log", log)
    assert code == 0 and json.loads(log.read_text())["agents"] == ["random", "random"]
    assert "knap: `--bots` is deprecated; use `--agents`" in err
    summary, logs = tmp_path / "s.json", tmp_path / "logs"
    code, out, err = knap("sim", TOY, "-n", "2", "-j", "1", "--max-rounds", "1", "--logs", logs, "--json", summary)
    assert code == 0, err
    assert "toy: 2 of 2 games played" in out  # `--json FILE` also prints the table, as before
    assert json.loads(summary.read_text())["games"] == 2 and sorted(p.name for p in logs.iterdir())
    assert "knap: `--logs` is deprecated; use `--log-dir`" in err
    assert "knap: `--json FILE` is deprecated; use `--format json --output FILE`" in err
    assert len([line for line in err.splitlines() if "deprecated" in line]) == 2


def test_sim_new_spellings(knap, tmp_path):
    code, out, _ = knap("sim", TOY, "-n", "3", "-j", "1", "--format", "json")
    assert code == 0 and json.loads(out)["played"] == 3
    target, logs = tmp_path / "s.json", tmp_path / "logs"
    code, out, err = knap(
        "sim", TOY, "-n", "2", "-j", "1", "--max-rounds", "1", "--format", "json", "--output", target, "--log-dir", logs
    )
    assert code == 0 and out == "" and "deprecated" not in err
    assert json.loads(target.read_text())["stalled"]["count"] == 2 and len(list(logs.iterdir())) == 2
    code, out, _ = knap("sim", TOY, "-n", "2", "-j", "1", "--output", target)
    assert code == 0 and out == "" and target.read_text().startswith("toy: 2 of 2 games played")
    code, out, _ = knap("sim", "--compare", TOY, TOY, "-n", "2", "-j", "1", "--format", "json")
    assert code == 0 and set(json.loads(out)) == {"a", "b", "differences"}


@pytest.mark.parametrize("command", [("list",), ("graph", "cro-magnon"), ("diff", "cro-magnon-solo")])
def test_machine_output_goes_to_output_file(knap, tmp_path, command):
    target = tmp_path / "out.json"
    code, out, _ = knap(*command, "--format", "json", "--output", target)
    assert code == 0 and out == "" and json.loads(target.read_text())


# ------------------------------------------------------------------------------------------ sim output
def test_piped_sim_output_cuts_no_cell(knap, monkeypatch):
    """A pipe is no terminal: the tables are as wide as they need, whatever COLUMNS says."""
    monkeypatch.setenv("COLUMNS", "40")
    code, out, _ = knap("sim", TOY, "-n", "20", "-j", "1", "--agents", "random,greedy")
    assert code == 0
    assert "…" not in out
    assert len(re.findall(r"\b\d+\.\d–\d+\.\d\b", out)) >= 4  # both seats and both agents, whole


def test_progress_only_on_a_terminal_or_when_asked(knap):
    code, _, err = knap("sim", TOY, "-n", "4", "-j", "1")
    assert code == 0 and "games" not in err  # stderr is no terminal here
    code, _, err = knap("sim", TOY, "-n", "4", "-j", "1", "--progress")
    assert code == 0 and "toy, 2 players: 4/4 games" in err
    code, _, err = knap("sim", "--compare", TOY, TOY, "-n", "2", "-j", "1", "--progress")
    assert code == 0 and re.search("^A: .*toy, 2 players: 2/2 games$", err, re.MULTILINE)
    assert re.search("^B: .*toy, 2 players: 2/2 games$", err, re.MULTILINE)


def test_final_scores_are_a_compact_summary():
    """Sixty distinct scores: quartiles and a histogram of at most 8 bins, not sixty `value: count` pairs."""
    from engine.commands.play import score_lines

    distribution = {str(value): value % 3 + 1 for value in range(100, 160)}
    lines = score_lines(distribution)
    assert lines[0] == "Final scores (120 values): min 100, quartiles 114 / 129 / 144, max 159"
    assert 2 <= len(lines) <= 9
    assert all(len(line) <= 60 for line in lines[1:])
    assert sum(int(line.split()[-1]) for line in lines[1:]) == 120
    assert score_lines({"3": 5}) == ["Final scores (5 values): all 3"]


# ------------------------------------------------------------------------------------------ diff
BASE = """kind: pack
id: base
name: Base
version: 0.1.0
players: {min: 2, max: 4}
decks:
  plains: {size: 19, composition: {grass: 12, clay: 6, sabre_toothed_tiger: 1}}
"""
VARIANT = (
    BASE.replace("id: base", "id: variant\nextends: [base]")
    .replace("name: Base", "name: Variant")
    .replace("size: 19", "size: 21")
    .replace("grass: 12", "grass: 14")
)
RULES = """kind: zone
id: plains
name: Plains
type: deck
---
kind: counter
id: vp
name: Victory points
owner: player
"""
CARDS = "".join(
    f"""---
kind: card
id: {card}
name: {card.title()}
type: resource
deck: plains
copies: {copies}
"""
    for card, copies in (("grass", 12), ("clay", 6), ("sabre_toothed_tiger", 1))
)
LONG = "a description long enough to be cut off by the old report, which kept sixty characters"


def _variant(tmp_path) -> Path:
    files = {
        "base/pack.yaml": BASE,
        "base/rules.yaml": RULES,
        "base/cards.yaml": CARDS.lstrip("-\n"),
        "variant/pack.yaml": VARIANT,
        "variant/cards.yaml": f"kind: patch\ntarget: grass\nchanges:\n  copies: 14\n  text: {LONG}\n"
        "text: More grass.\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path / "variant"


def test_diff_shows_the_key_paths_that_differ_in_full(knap, tmp_path):
    root = _variant(tmp_path)
    code, out, err = knap("diff", root)
    assert code == 0, err
    assert "..." not in out and "…" not in out
    assert "  plains.size: 19 -> 21\n" in out and "  plains.composition.grass: 12 -> 14\n" in out
    assert "clay" not in out  # what did not change is not repeated
    assert f"    text: (none) -> {LONG}\n" in out
    code, out, _ = knap("diff", root, "--full")
    assert code == 0
    assert (
        '  plains: {"size": 19, "composition": {"grass": 12, "clay": 6, "sabre_toothed_tiger": 1}} -> '
        '{"size": 21, "composition": {"grass": 14, "clay": 6, "sabre_toothed_tiger": 1}}\n'
    ) in out
    report = json.loads(knap("diff", root, "--format", "json")[1])
    assert report["decks"]["plains"]["to"] == {
        "size": 21,
        "composition": {"grass": 14, "clay": 6, "sabre_toothed_tiger": 1},
    }


def test_diff_descends_into_lists_of_the_same_length():
    from engine.commands.diff import differences

    old = {"steps": [{"size": 1, "name": "a"}, {"size": 2, "name": "b"}], "tags": ["x"]}
    new = {"steps": [{"size": 1, "name": "a"}, {"size": 3, "name": "b"}], "tags": ["x", "y"]}
    assert differences(old, new) == [("steps[1].size", 2, 3), ("tags", ["x"], ["x", "y"])]


# ------------------------------------------------------------------------------------------ lint
def test_lint_exit_zero_reports_findings_and_exits_0(make_pack, knap):
    pack = make_pack({"cards.yaml": CARD.replace("gain card.vp vp", "gain card.vp vpp")})
    code, out, _ = knap("lint", pack, "--no-cache", "--exit-zero")
    assert code == 0 and "D002" in out
    assert knap("lint", pack, "--no-cache")[0] == 1


def test_lint_of_an_empty_folder_warns(knap, tmp_path):
    code, out, err = knap("lint", tmp_path, "--no-cache")
    assert code == 0 and out == ""
    assert "All checks passed" not in err
    assert err.startswith("knap: warning: no pack files found in") and "nothing was checked" in err
    code, out, err = knap("lint", tmp_path, "--no-cache", "--format", "json")
    assert json.loads(out)["files"] == 0 and "no pack files found" in err


def test_lint_json_has_no_empty_fields(make_pack, knap):
    pack = make_pack({"cards.yaml": CARD.replace("gain card.vp vp", "gain card.vp vpp")})
    _code, out, _ = knap("lint", pack, "--no-cache", "--format", "json", "--select", "D002")
    [found] = json.loads(out)["diagnostics"]
    assert "end_col" not in found
    assert found["source"] == "  gain card.vp vpp"
    assert (found["line"], found["col"]) == (8, 16)


# ------------------------------------------------------------------------------------------ completion
def test_completion_scripts(knap):
    for shell in ("bash", "zsh", "fish"):
        code, out, _ = knap("completion", shell)
        assert code == 0 and "lint" in out and "--bots" not in out and "-l bots" not in out, shell
        assert ("-l format" if shell == "fish" else "--format") in out
    code, _, err = knap("completion", "tcsh")
    assert code == 2 and "bash" in err


def _complete(script: str, line: str) -> list[str]:
    """What bash offers for the words of `line` (the last one being completed)."""
    words = line.split(" ")
    program = (
        f"{script}\nCOMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}; "
        f"COMP_LINE={line!r}; COMP_POINT=${{#COMP_LINE}}; _knap_complete knap; printf '%s\\n' \"${{COMPREPLY[@]}}\""
    )
    done = subprocess.run(["bash", "--norc", "-c", program], capture_output=True, text=True, timeout=20, check=False)
    assert done.returncode == 0, done.stderr
    return sorted(filter(None, done.stdout.splitlines()))


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_completion_completes_commands_options_and_choices(knap):
    script = knap("completion", "bash")[1]
    assert subprocess.run(["bash", "-n"], input=script, text=True, check=False).returncode == 0
    assert _complete(script, "knap li") == ["lint", "list"]
    assert _complete(script, "knap lint --for") == ["--format"]
    assert _complete(script, "knap lint --format ") == ["github", "json", "sarif", "text"]
    assert _complete(script, "knap schema ") == ["editor", "export"]
    assert "--agents" in _complete(script, "knap play --")
    assert "--bots" not in _complete(script, "knap play --")
    assert _complete(script, "knap completion ") == ["bash", "fish", "zsh"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="no fish")
def test_fish_completion_loads(knap):
    script = knap("completion", "fish")[1]
    done = subprocess.run(
        ["fish", "-c", f"{script}\ncomplete -C 'knap li'"], capture_output=True, text=True, timeout=20, check=False
    )
    assert {line.split("\t")[0] for line in done.stdout.splitlines()} == {"lint", "list"}


def test_knap_module_runs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "-V"], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert done.stdout == f"knap {__version__}\n"


# ------------------------------------------------------------------------------------------ diff, fuzzed
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text("abc", min_size=1, max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=100, deadline=None)
@given(_VALUES, _VALUES)
def test_diff_finds_a_difference_exactly_when_values_differ_and_shows_each_in_full(old, new):
    from engine.commands.diff import _MISSING, _shown, differences, text
    from engine.safe_text import visible

    found = differences(old, new)
    assert (found == []) == (old == new)
    assert all(a != b for _, a, b in found)
    report = {
        "pack": "v",
        "base": ["b"],
        "parameters": {"p": {"from": old, "to": new}},
        "removed": [],
        "changed": [],
        "added": [],
    }
    if found:
        shown = text(report)
        for path, a, b in found:  # each part that differs, old and new, whole (escaped as the terminal shows it)
            assert f"p{'' if not path or path[0] == '[' else '.'}{path}: " in shown
            assert all(visible(_shown(v), lines=False) in shown for v in (a, b) if v is not _MISSING)
