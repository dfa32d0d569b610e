"""`knap lint --fix` and `--diff` (engine/lint/fix.py): only findings with one sure fix are fixed, a file
changes only at the fixed spots (byte for byte, whatever its comments, indentation, styles, documents or
line ends), nothing is written through a link or outside the pack, and a second `--fix` changes nothing."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import jsonschema
import pytest
from conftest import MINIMAL_PACK, MINIMAL_RULES, write_tree
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine import fixes, lint
from engine.commands.cli import main
from engine.content import schema as schema_check
from engine.lint import fix as lint_fix

CARDS = """\
# cards of the demo pack
kind: card
id: stone_axe
name: Stone axe
type: technology
deck: deck
stats: {vp: 1}
---
kind: card
id: spear
name: Spear
type: technology
deck: deck
cost: [stone_axe]
requires: [stone_axe]
tags: [weapons]
stats: {vp: 2}
"""

# comments, a quoted value, odd indentation (5 spaces, a 4-space sequence with its items pushed in), a
# document written as one flow mapping over two lines, and three documents: every fix must leave it alone
AWKWARD = [
    "# yaml-language-server: $schema=../schemas/document.schema.json",
    "# the first card, misspelt",
    "kind: card        # a trailing comment",
    "id: stone_axe",
    'nmae:   "Stone axe"    # misspelt key, quoted value, extra spaces',
    "type: technology",
    "deck: deck",
    "stats:",
    "     vp: 1             # five spaces",
    "---",
    "# a flow document",
    "{kind: card, id: spear, name: Spear, type: technology, deck: deck,",
    " cost: [stone_ax], requires: [stone_axe], stats: {vp: 2}}",
    "---",
    "kind: card",
    "id: club",
    "name: Club",
    "type: technology",
    "deck: deck",
    "tags: weapons",
    "requires:",
    "    -   stone_axe     # odd sequence indentation",
    "stats: {vp: 1}",
    "",
]
# the three intended edits, as text: each old piece occurs once in the file
EDITS = [("nmae:", "name:"), ("[stone_ax]", "[stone_axe]"), ("tags: weapons", "tags: [weapons]")]


def _pack(root: Path, cards: str | bytes) -> Path:
    write_tree(root, {"pack.yaml": MINIMAL_PACK, "rules.yaml": MINIMAL_RULES})
    (root / "cards.yaml").write_bytes(cards.encode() if isinstance(cards, str) else cards)
    return root


def _knap(*args):
    """Run knap in-process (for hypothesis, which cannot use the function-scoped capsys fixture)."""
    return main([str(a) for a in args])


# ------------------------------------------------------------------------------ which findings are fixable
def test_text_output_marks_the_fixable_findings_and_counts_them(tmp_path, knap):
    cards = CARDS.replace("name: Spear", "nmae: Spear").replace("cost: [stone_axe]", "cost: stone_axe, spear")
    pack = _pack(tmp_path / "demo", cards)
    code, out, _ = knap("lint", pack, "--no-cache")
    assert code == 1
    heads = [line for line in out.splitlines() if ": S0" in line]
    assert any("S002 [*] `nmae`" in h for h in heads), out
    assert any("S003 [*] `cost`" in h for h in heads), out
    assert any("S001 the card is missing" in h for h in heads), out  # no sure fix: no mark
    assert "[*] 2 fixable with `knap lint --fix`" in out
    # references are checked once the documents are valid
    (pack / "cards.yaml").write_text(CARDS.replace("requires: [stone_axe]", "requires: [stone_ax]"))
    code, out, _ = knap("lint", pack, "--no-cache")
    assert "G001 [*] the prerequisite `stone_ax`" in out and "[*] 1 fixable" in out


def test_a_tie_or_a_far_name_gives_no_fix(tmp_path, knap):
    """Only one close match is a sure fix: `axe_c` is as close to `axe_a` as to `axe_b`."""
    assert fixes.sole_match("axe_c", {"axe_a", "axe_b"}) is None
    assert fixes.sole_match("axe_x", {"axe_a", "spear"}) == "axe_a"
    assert fixes.sole_match("zzz", {"axe_a"}) is None
    cards = (
        CARDS.replace("stone_axe", "axe_a")
        .replace("id: spear", "id: axe_b")
        .replace("requires: [axe_a]", "requires: [axe_c]")
    )
    pack = _pack(tmp_path / "demo", cards)
    code, out, _ = knap("lint", pack, "--no-cache")
    assert code == 1 and "G001 the prerequisite `axe_c`" in out and "[*]" not in out


def test_a_text_that_is_no_list_of_ids_gets_no_list_fix():
    # the schema of `tags` on a card that does not generate others (with `generate`, a tag may be a "{key}")
    schema = schema_check.inlined("card.schema.json")["allOf"][1]["else"]["properties"]["tags"]
    assert fixes.list_fix(0, ("tags",), "wood", schema)["new"] == ["wood"]
    assert fixes.list_fix(0, ("tags",), "flint, grass", schema)["new"] == ["flint", "grass"]
    assert fixes.list_fix(0, ("tags",), "Wood Pile", schema) is None  # not an id
    assert fixes.list_fix(0, ("tags",), "wood, wood", schema) is None  # the list would be invalid
    assert fixes.list_fix(0, ("tags",), "wood,", schema) is None


# ------------------------------------------------------------------------------ --diff and --fix
def test_diff_prints_the_changes_and_writes_nothing(tmp_path, knap):
    pack = _pack(tmp_path / "demo", CARDS.replace("name: Spear", "nmae: Spear"))
    before = (pack / "cards.yaml").read_bytes()
    code, out, err = knap("lint", pack, "--no-cache", "--diff")
    assert code == 1
    assert out.startswith(f"--- {pack / 'cards.yaml'}\n+++ {pack / 'cards.yaml'}\n"), out
    assert "-nmae: Spear\n+name: Spear\n" in out and out.count("\n+") == 2, out
    assert "Would fix 1 of 2 findings" in err
    assert (pack / "cards.yaml").read_bytes() == before
    code, out, err = knap("lint", pack, "--no-cache", "--diff", "--fix")  # --diff wins, like ruff's
    assert code == 1 and (pack / "cards.yaml").read_bytes() == before
    (pack / "cards.yaml").write_text(CARDS)
    assert knap("lint", pack, "--no-cache", "--diff")[:2] == (0, "")


def test_fix_repairs_lints_again_and_a_second_fix_changes_nothing(tmp_path, knap):
    broken = (
        CARDS.replace("name: Spear", "nmae: Spear")
        .replace("tags: [weapons]", "tags: weapons")
        .replace("id: spear", "id: Spear")
    )  # S005: no sure fix, it remains
    pack = _pack(tmp_path / "demo", broken)
    code, out, err = knap("lint", pack, "--no-cache", "--fix")
    assert code == 1 and "2 fixed, 1 remaining." in err, err
    assert "S005" in out and "[*]" not in out
    fixed = (pack / "cards.yaml").read_bytes()
    assert fixed.decode() == CARDS.replace("id: spear", "id: Spear")
    code, _, err = knap("lint", pack, "--no-cache", "--fix")
    assert code == 1 and "0 fixed, 1 remaining." in err
    assert (pack / "cards.yaml").read_bytes() == fixed
    (pack / "cards.yaml").write_text(fixed.decode().replace("id: Spear", "id: spear"))
    code, _, err = knap("lint", pack, "--no-cache", "--fix")
    assert code == 0 and "0 fixed, 0 remaining." in err


def test_fix_goes_on_until_nothing_more_is_fixable(tmp_path, knap):
    """Ids are checked only in valid documents: fixing `nmae` makes the card valid, and then its misspelt
    prerequisite is found, and fixed in the same `--fix` (as ruff fixes until nothing changes)."""
    pack = _pack(
        tmp_path / "demo",
        CARDS.replace("name: Spear", "nmae: Spear").replace("requires: [stone_axe]", "requires: [stone_ax]"),
    )
    code, _, err = knap("lint", pack, "--no-cache", "--fix")
    assert code == 0 and "2 fixed, 0 remaining." in err, err
    assert (pack / "cards.yaml").read_text() == CARDS


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("bom", ["", "\ufeff"])
def test_an_awkward_file_changes_only_at_the_fixed_spots(tmp_path, knap, newline, bom):
    """A byte diff of before and after is exactly the intended edits, for LF and CRLF, with and without a
    byte-order mark; ruamel.yaml's round trip would reformat this file, so the text splice is written."""
    original = bom + newline.join(AWKWARD)
    expected = original
    for old, new in EDITS:
        assert expected.count(old) == 1
        expected = expected.replace(old, new)
    pack = _pack(tmp_path / "demo", original.encode())
    code, out, err = knap("lint", pack, "--no-cache", "--fix")
    assert "3 fixed, 0 remaining." in err, out + err
    assert code == 0
    assert (pack / "cards.yaml").read_bytes() == expected.encode()


def test_the_round_trip_is_written_when_it_changes_nothing_else(tmp_path):
    """On a plainly written file ruamel.yaml's round trip gives exactly the intended edit and is used; on
    a CRLF file it would rewrite every line end, and the splice is used instead."""
    for newline, method in (("\n", "round-trip"), ("\r\n", "splice")):
        pack = _pack(
            tmp_path / f"demo{len(newline)}", CARDS.replace("name: Spear", "nmae: Spear").replace("\n", newline)
        )
        result = lint.lint([pack])
        plan = lint_fix.plan(result.diagnostics, result.positions.root)
        (file_plan,) = plan.files
        rendered = lint_fix.render(file_plan)
        assert file_plan.method == method, file_plan.why_splice
        assert rendered == CARDS.replace("\n", newline)


def test_fix_works_on_a_warm_cache(tmp_path, knap):
    """The cache keeps each finding's fix; a fix of the same length (`nmae` -> `name`) written at once is
    still seen as a change by the next run."""
    pack = _pack(tmp_path / "demo", CARDS.replace("name: Spear", "nmae: Spear"))
    cache = tmp_path / "cache"
    assert knap("lint", pack, "--cache-dir", cache)[0] == 1
    assert knap("lint", pack, "--cache-dir", cache)[0] == 1  # warm
    code, out, err = knap("lint", pack, "--cache-dir", cache, "--fix")
    assert code == 0 and "1 fixed, 0 remaining." in err, out + err
    assert (pack / "cards.yaml").read_text() == CARDS
    assert knap("lint", pack, "--cache-dir", cache)[0] == 0


# ------------------------------------------------------------------------------ machine-readable output
def test_json_and_sarif_carry_the_fix(tmp_path, knap, monkeypatch):
    from test_sarif import FORMATS, SCHEMA

    _pack(tmp_path / "demo", CARDS.replace("name: Spear", "nmae: Spear"))
    monkeypatch.chdir(tmp_path)
    _code, out, _ = knap("lint", "demo", "--no-cache", "--format", "json")
    (fix,) = [d["fix"] for d in json.loads(out)["diagnostics"] if "fix" in d]
    assert fix["edits"] == [{"line": 11, "col": 1, "end_line": 11, "end_col": 5, "content": "name"}]
    assert (fix["action"], fix["path"], fix["old"], fix["new"]) == ("rename-key", ["nmae"], "nmae", "name")
    _code, out, _ = knap("lint", "demo", "--no-cache", "--format", "sarif")
    log = json.loads(out)
    errors = [
        f"{list(e.path)}: {e.message}"
        for e in jsonschema.Draft4Validator(SCHEMA, format_checker=FORMATS).iter_errors(log)
    ]
    assert not errors, errors
    (result,) = [r for r in log["runs"][0]["results"] if r["ruleId"] == "S002"]
    (change,) = result["fixes"][0]["artifactChanges"]
    assert change["artifactLocation"]["uri"] == "demo/cards.yaml"
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 11, "startColumn": 1, "endLine": 11, "endColumn": 5},
            "insertedContent": {"text": "name"},
        }
    ]


# ------------------------------------------------------------------------------ what is never written
def test_no_fix_is_written_through_a_link(tmp_path, knap):
    """A pack file that is a link (inside the pack or out of it) is never written, and its target keeps
    its bytes; the reason is printed."""
    pack = _pack(tmp_path / "demo", CARDS)
    outside = tmp_path / "outside.yaml"
    outside.write_text(
        CARDS.replace("id: spear", "id: club")
        .replace("name: Spear", "nmae: Club")
        .replace("id: stone_axe", "id: hammer")
    )
    inside = pack / "real" / "more.txt"  # not a pack file itself: only read through the link
    inside.parent.mkdir()
    inside.write_text(
        CARDS.replace("id: spear", "id: pick")
        .replace("name: Spear", "nmae: Pick")
        .replace("id: stone_axe", "id: chisel")
    )
    os.symlink(outside, pack / "linked_out.yaml")
    os.symlink(inside, pack / "linked_in.yaml")
    before = {p: p.read_bytes() for p in (outside, inside)}
    code, _out, err = knap("lint", pack, "--no-cache", "--fix", "--select", "S002")
    assert code == 1
    assert "linked_in.yaml" in err and "never through a link" in err
    assert {p: p.read_bytes() for p in (outside, inside)} == before
    assert os.path.islink(pack / "linked_in.yaml") and os.path.islink(pack / "linked_out.yaml")


def test_a_file_swapped_for_a_link_after_planning_is_not_written(tmp_path, capsys):
    pack = _pack(tmp_path / "demo", CARDS.replace("name: Spear", "nmae: Spear"))
    result = lint.lint([pack])
    plan = lint_fix.plan(result.diagnostics, result.positions.root)
    target = tmp_path / "elsewhere.yaml"
    target.write_bytes((pack / "cards.yaml").read_bytes())
    (pack / "cards.yaml").unlink()
    os.symlink(target, pack / "cards.yaml")
    assert lint_fix.apply(plan.files, result.positions.root) == 0
    assert capsys.readouterr().err.endswith(
        "cards.yaml: not fixed: the file is a link; knap writes only regular files, never through a link\n"
    )
    assert b"nmae" in target.read_bytes()


def test_an_aliased_value_is_not_fixed(tmp_path, knap):
    """Changing an anchored value would change its aliases too: the check of the result refuses it."""
    cards = CARDS.replace("cost: [stone_axe]\nrequires: [stone_axe]", "cost: [&tool stone_ax]\nrequires: [*tool]")
    pack = _pack(tmp_path / "demo", cards)
    code, _out, err = knap("lint", pack, "--no-cache", "--fix")
    assert code == 1 and "0 fixed" in err and "anchored (`&`) or an alias (`*`)" in err
    assert (pack / "cards.yaml").read_text() == cards


# ------------------------------------------------------------------------------ fuzzing
_CARD_PROPERTIES = sorted(schema_check.inlined("card.schema.json")["properties"])
_PLACES = [
    ("key", "name: Spear", "name"),
    ("key", "deck: deck\ncost", "deck"),
    ("key", "tags:", "tags"),
    ("key", "requires:", "requires"),
    ("ref", "cost: [stone_axe]", "stone_axe"),
    ("ref", "requires: [stone_axe]", "stone_axe"),
]
_LETTERS = "abcdefghijklmnopqrstuvwxyz_"


@st.composite
def _misspelling(draw, word: str) -> str:
    at = draw(st.integers(0, len(word) - 1))
    how = draw(st.sampled_from(["drop", "swap", "double", "change", "insert"]))
    letter = draw(st.sampled_from(_LETTERS))
    if how == "drop":
        return word[:at] + word[at + 1 :]
    if how == "swap" and at + 1 < len(word):
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    if how == "double":
        return word[:at] + word[at] + word[at:]
    if how == "insert":
        return word[:at] + letter + word[at:]
    return word[:at] + letter + word[at + 1 :]


@st.composite
def _mutation(draw):
    role, anchor, word = draw(st.sampled_from(_PLACES))
    return role, anchor, word, draw(_misspelling(word)), draw(st.sampled_from(["\n", "\r\n"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_mutation())
def test_fix_restores_a_single_misspelling_exactly(mutation):
    """Misspell one property or reference of a valid pack; when the misspelling has one close match, it
    is the original, and `--fix` gives back the original bytes; a second `--fix` changes nothing."""
    role, anchor, word, wrong, newline = mutation
    names = _CARD_PROPERTIES if role == "key" else ["stone_axe", "spear"]
    assume(wrong != word and wrong not in names and wrong and not wrong[0].isdigit())
    assume(fixes.sole_match(wrong, names) == word)
    original = CARDS.replace("\n", newline)
    broken = original.replace(anchor.replace("\n", newline), anchor.replace(word, wrong, 1).replace("\n", newline), 1)
    assert broken != original
    folder = Path(tempfile.mkdtemp())
    try:
        pack = _pack(folder / "demo", broken.encode())
        assert _knap("lint", pack, "--no-cache", "--fix") == 0
        assert (pack / "cards.yaml").read_bytes() == original.encode()
        assert _knap("lint", pack, "--no-cache", "--fix") == 0
        assert (pack / "cards.yaml").read_bytes() == original.encode()
    finally:
        shutil.rmtree(folder)


def test_a_replacement_that_changes_more_than_the_value_is_refused(tmp_path, monkeypatch):
    """The last guard: the spliced file is parsed again and must hold exactly the fixed documents. A
    replacement text that YAML reads as something else (`yes` is true) is dropped, not written."""
    pack = _pack(tmp_path / "demo", CARDS.replace("name: Spear", "nmae: Spear"))
    monkeypatch.setattr(lint_fix, "_scalar", lambda value, style: "yes")
    result = lint.lint([pack])
    plan = lint_fix.plan(result.diagnostics, result.positions.root)
    assert plan.count == 0 and [why for _, why in plan.skipped] == [
        "the change would alter the file beyond this value (an alias, a merge key or a YAML problem)"
    ]
    assert not any(d.fix for d in result.diagnostics)


def test_a_fix_of_the_same_size_in_the_same_clock_tick_still_looks_changed(tmp_path):
    """The cache trusts size and modification time: a fixed file must not keep both."""
    path = tmp_path / "cards.yaml"
    path.write_text("nmae: x\n")
    before = os.lstat(path)
    path.write_text("name: x\n")
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    lint_fix._touch_if_unchanged(str(path), before)
    assert os.lstat(path).st_mtime_ns != before.st_mtime_ns
