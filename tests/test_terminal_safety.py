"""No pack text can drive the terminal: names, log texts and file names carrying escape sequences, C1
controls, bidi overrides and rich markup reach `knap play`, `sim`, `replay`, `lint`, `diff` and `graph`
as inert text (DESIGN §8 "Untrusted input")."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import REPO, write_tree
from hypothesis import given
from hypothesis import strategies as st

from engine import report, safe_text
from engine.diagnostics import Diagnostic

# What must never reach a terminal raw: C0 but tab and newline, DEL, C1, bidi embeddings/overrides/isolates.
_DRIVING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

_MANIFEST = r"""kind: pack
id: evil
name: "Evil \e]0;pwned\a pack"
version: 1.0.0
players: {min: 1, max: 2}
"""
_RULES = r"""kind: counter
id: vp
name: "V\e[31mP\u202e"
owner: player
---
kind: zone
id: pile
name: "Pile \e[2J\u2066"
type: deck
---
kind: zone
id: hand
name: "Hand [bold]x[/bold] \x9b"
type: hand
owner: player
---
kind: card
id: gem
name: "Gem \e]0;title\a\e[2J\u202e :100: [red]"
type: gem
deck: pile
copies: 3
---
kind: end
id: goal
name: Goal
trigger: me.vp >= 2
then: immediate
result: most
counter: vp
---
kind: action
id: act
name: "\e]0;owned\a\e[2JAct \u202eyrrah"
effect: |
  draw 1 from pile to hand
  log "[/dim] oops"
  log "[see rulebook] draw again"
  gain 1 vp
---
kind: action
id: shout
name: "Shout \x85 [/bold]"
effect: "log \"raw \e[2J esc \u202e bidi \x9b1;1H csi\"\nlog \"rules.yaml:100:12 [bold]x\"\n"
"""
_VARIANT = r"""kind: pack
id: evil_variant
name: Evil variant
version: 1.0.0
players: {min: 1, max: 2}
extends: [evil]
remove:
  shout: "gone \e[2J\u202e [/red]"
"""
_VARIANT_RULES = r"""kind: patch
target: gem
changes:
  name: "Jewel \e]0;t\a\u2067 [/x]"
---
kind: action
id: sing
name: "Sing \e[5m\u202d"
effect: |
  log "la"
"""


@pytest.fixture
def evil(tmp_path):
    """The pack `evil` and its variant `evil_variant`, side by side in `tmp_path`."""
    write_tree(tmp_path / "evil", {"pack.yaml": _MANIFEST, "rules.yaml": _RULES})
    write_tree(tmp_path / "evil_variant", {"pack.yaml": _VARIANT, "rules.yaml": _VARIANT_RULES})
    return tmp_path / "evil"


def _clean(text: str):
    found = sorted({f"U+{ord(c):04X}" for c in _DRIVING.findall(text)})
    assert not found, f"raw control characters reach the terminal: {found}\n{text[:3000]}"
    assert "MarkupError" not in text and "Traceback" not in text and "internal error" not in text, text[-2000:]


def _run(*args, stdin="", cwd=REPO):
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")}
    env["COLUMNS"] = "200"
    return subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", *map(str, args)],
        cwd=cwd,
        input=stdin,
        text=True,
        capture_output=True,
        timeout=120,
        env=env,
        encoding="utf-8",
        check=False,
    )


# ------------------------------------------------------------------------------------------- knap play
def test_a_person_sees_pack_text_as_text(evil, tmp_path):
    """Board, hands, options and log lines: no escape sequence, no bidi control, markup printed as written,
    `:100:` not turned into an emoji."""
    result = _run("play", evil, "--human", "1", "--log", tmp_path / "g.json", stdin="2\n1\n" * 4 + "q\n")
    assert result.returncode == 0, result.stderr
    _clean(result.stdout + result.stderr)
    out = result.stdout
    assert "[see rulebook] draw again" in out and "[/dim] oops" in out
    assert "Act yrrah" in out and "Shout  [/bold]" in out  # the options, stripped
    assert "Gem ]0;title[2J :100: [red]" in out  # a card in hand and on the table
    assert "hand [bold]x[/bold]" in out  # a zone as a column title
    assert "raw [2J esc  bidi 1;1H csi" in out and "rules.yaml:100:12 [bold]x" in out


def test_bots_narration_and_the_replayed_log_are_plain(evil, tmp_path, knap, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    log = tmp_path / "bots.json"
    code, out, err = knap("play", evil, "--agents", "random", "--seed", "1", "--log", log)
    assert code == 0, err
    _clean(out + err)
    assert "Winner(s)" in out and "[see rulebook] draw again" in out
    code, out, err = knap("replay", log, "--show")
    assert code == 0, err
    _clean(out + err)
    assert "draws Gem ]0;title[2J :100: [red]" in out


def test_on_a_colour_terminal_only_knap_styles_the_text(evil, tmp_path, knap, monkeypatch):
    """With colours on, the only escape sequences are rich's own colours (SGR), none inside pack text:
    rich does not highlight the numbers of a log line."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    code, out, err = knap("play", evil, "--agents", "random", "--seed", "1", "--log", tmp_path / "g.json")
    assert code == 0, err
    assert "\x1b[" in out  # the colours are on
    _clean(re.sub(r"\x1b\[[0-9;]*m", "", out) + err)
    intact = out.count("draws Gem ]0;title[2J :100: [red] from Pile [2J to")  # one run of text, not recoloured
    assert intact and intact == out.count("draws Gem")


def test_sim_prints_errors_that_quote_content_as_text(evil, knap, monkeypatch):
    """An error sample quoting a position and pack text: `:100:` is no emoji, `[/red]` no markup."""
    from engine.runtime import sim as simulation

    real_run = simulation.run

    def run_with_an_error(*args, **kwargs):
        summary = real_run(*args, **kwargs)
        summary["error_samples"] = [{"seed": 7, "error": "rules.yaml:100:12: [/red] boom \x1b[2J\u202e here"}]
        return summary

    monkeypatch.setattr(simulation, "run", run_with_an_error)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    code, out, err = knap("sim", evil, "-n", "2", "--jobs", "1", "--seed", "3")
    assert code == 0
    _clean(out + err)
    assert "seed 7: rules.yaml:100:12: [/red] boom [2J here" in out


def test_sim_compare_prints_labels_as_text(evil, tmp_path, knap, monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.chdir(tmp_path)
    odd = tmp_path / "x [/b] :100:"
    shutil.copytree(evil, odd / "evil")
    code, out, err = knap("sim", "--compare", "x [/b] :100:/evil", "evil_variant", "-n", "2", "--jobs", "1")
    assert code == 0, err
    _clean(out + err)
    assert "A = x [/b] :100:/evil" in out


# ------------------------------------------------------------------------------------ knap lint and diff
_BIDI_LINE = 'colour: "red\u202e here"\n'


@pytest.fixture
def broken(tmp_path):
    """A pack whose findings quote a raw bidi override (in a source line), an escape sequence (in a
    message about a key) and a file whose name holds an escape sequence."""
    return write_tree(
        tmp_path / "broken",
        {
            "pack.yaml": "kind: pack\nid: broken\nname: Broken\nversion: 1.0.0\nplayers: {min: 1, max: 2}\n",
            "zones.yaml": "kind: zone\nid: spare\nname: Spare\ntype: deck\n" + _BIDI_LINE,
            "keys.yaml": 'kind: zone\nid: other\nname: Other\ntype: deck\n"bad\\e]0;T\\akey\\x9b": 1\n',
            "x\x1b[31m\u202e.yaml": "kind: zone\nid: third\nname: Third\ntype: deck\nnope: 1\n",
        },
    )


def test_lint_text_shows_control_characters_as_escapes(broken, knap):
    code, out, err = knap("lint", broken, "--no-cache")
    assert code == 1
    _clean(out + err)
    assert 'colour: "red\\u202e here"' in out  # the quoted source line
    assert "bad\\x1b]0;T\\x07key\\x9b" in out  # a message quoting a key
    assert "x\\x1b[31m\\u202e.yaml:5:1: S002" in out  # a file name


def test_lint_text_keeps_the_caret_under_the_column():
    line = "ab\u202ecd\x1b[2Jxyz: 1"
    col = line.index("xyz") + 1
    diag = Diagnostic(code="S002", message="m", file="f.yaml", line=1, col=col)
    shown = report.text([diag], lambda _f: [line]).splitlines()
    source, caret = shown[1], shown[2]
    assert source[caret.index("^") :].startswith("xyz")


def test_github_annotations_carry_no_raw_control_characters(broken, knap):
    code, out, _ = knap("lint", broken, "--no-cache", "--format", "github")
    assert code == 1
    _clean(out)
    assert len(out.splitlines()) == 3 and all(line.startswith("::error file=") for line in out.splitlines())


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_and_sarif_are_exact_but_escape_control_characters(broken, knap, fmt):
    code, out, _ = knap("lint", broken, "--no-cache", "--format", fmt)
    assert code == 1
    _clean(out)
    data = json.loads(out)
    if fmt == "json":
        messages = " ".join(d["message"] for d in data["diagnostics"])
        files = {os.path.basename(d["file"]) for d in data["diagnostics"]}
        assert "x\x1b[31m\u202e.yaml" in files
    else:
        messages = " ".join(r["message"]["text"] for r in data["runs"][0]["results"])
    assert "bad\x1b]0;T\x07key\x9b" in messages  # the value is exact


def test_diff_text_is_plain(evil, knap):
    code, out, err = knap("diff", evil.parent / "evil_variant")
    assert code == 0, err
    _clean(out + err)
    assert "gone \\x1b[2J\\u202e [/red]" in out and "Jewel \\x1b]0;t\\x07\\u2067 [/x]" in out
    code, out, _ = knap("diff", evil.parent / "evil_variant", "--format", "json")
    _clean(out)
    assert json.loads(out)["removed"][0]["reason"] == "gone \x1b[2J\u202e [/red]"


@pytest.mark.parametrize("fmt", ["dot", "mermaid"])
def test_graph_labels_are_plain(evil, knap, fmt):
    code, out, err = knap("graph", evil, "--all", "--format", fmt)
    assert code == 0, err
    _clean(out + err)
    assert "Gem" in out


# ------------------------------------------------------------------------------------------ the module
_TRICKY = st.one_of(st.text(), st.text(alphabet="[]\\/ab#@:=\x1b\u202e\x9b\n\t"))


@given(_TRICKY, st.sampled_from(["{}", "[dim]{}[/dim]", "[bold]{} x[/bold]", "{} (3 cards)"]))
def test_plain_and_markup_leave_nothing_that_drives_a_terminal(text, template):
    """Whatever the text, `plain` has no control character and `markup` prints exactly `plain`, alone, inside
    a tag or before more text, without a MarkupError."""
    for lines in (False, True):
        shown = safe_text.plain(text, lines)
        assert not _DRIVING.search(shown)
        assert lines or "\n" not in shown
        recorder = safe_text.console(record=True, file=io.StringIO(), width=80)
        recorder.print(template.format(safe_text.markup(text, lines)), end="", soft_wrap=True)
        if not lines:
            expected = template.replace("[dim]", "").replace("[/dim]", "").replace("[bold]", "")
            expected = expected.replace("[/bold]", "")
            assert recorder.export_text() == expected.format(shown)
    assert json.loads(safe_text.dumps(text)) == text and not _DRIVING.search(safe_text.dumps(text))
    assert not _DRIVING.search(safe_text.visible(text))
