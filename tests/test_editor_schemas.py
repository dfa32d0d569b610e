"""What an editor shows: the real yaml-language-server (tools/yls) reading our schemas and content."""

from __future__ import annotations

import pytest
from yls import complete, run_yls

from engine.commands.cli import main
from engine.files import resources

CONTENT = sorted(resources.root("content").rglob("*.yaml"))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    target = tmp_path_factory.mktemp("exported")
    assert main(["schema", "export", str(target)]) == 0
    return target


@pytest.fixture(scope="module")
def unmarked(tmp_path_factory):
    """Copies of the content files without their modeline (so the exported schema applies), same lines."""
    target = tmp_path_factory.mktemp("content")
    copies = []
    for n, path in enumerate(CONTENT):
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        lines[0] = "# (modeline removed)\n"
        copy = target / f"{n:03d}_{path.name}"
        copy.write_text("".join(lines), encoding="utf-8")
        copies.append(copy)
    return copies


BROKEN = """# broken
kind: card
id: axe
name: Axe
type: technology
deck: forest
copies: "two"
colour: red
"""


def test_exported_schema_accepts_every_content_file_and_flags_broken_ones(exported, unmarked, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text(BROKEN)
    result = run_yls(exported / "document.schema.json", [*unmarked, broken])
    assert result["schema_errors"] == []
    for path in unmarked:
        assert result["files"][str(path)] == [], path
    lines = {d["line"] for d in result["files"][str(broken)]}
    assert {7, 8} <= lines


def test_content_files_get_their_modeline_schema_in_the_editor():
    """The repository's own files, opened as they are: the modeline points at the 2020-12 source schemas."""
    schemas = resources.root("schemas")
    manifests = [p for p in CONTENT if p.name == "pack.yaml"]
    others = [p for p in CONTENT if p.name != "pack.yaml"]
    for schema, files in ((schemas / "document.schema.json", others), (schemas / "pack.schema.json", manifests)):
        result = run_yls(schema, files)
        assert result["schema_errors"] == []
        for path in files:
            assert result["files"][str(path)] == [], path


def test_completion_offers_card_properties(exported, tmp_path):
    draft = tmp_path / "new_card.yaml"
    draft.write_text("kind: card\nid: spear\n\n")
    labels = complete(exported / "document.schema.json", draft, line=3, col=1)
    assert {"name", "deck", "copies", "cost", "requires", "effect"} <= set(labels)


GENERATING = """# generates
kind: card
id: card_{n}
name: "{n}"
type: penalty
deck: deck
stats: {value: "{n}"}
back: "{back}"
tags: ["{back}", odd]
generate: [{n: 3, back: forest}, {n: 5, back: river}]
"""

NOT_GENERATING = """# templates without generate
kind: card
id: card_{n}
name: Card
type: penalty
deck: deck
stats: {value: "{n}"}
back: "{back}"
tags: ["{back}"]
"""


def test_a_card_that_generates_cards_is_clean_in_the_editor(exported, tmp_path):
    """docs/authoring.md, "Many cards at once": the editor checks the document as written, so `card_{n}` and
    `"{n}"` must pass where `generate` is given, and be refused where it is not."""
    generating, plain = tmp_path / "generating.yaml", tmp_path / "plain.yaml"
    generating.write_text(GENERATING)
    plain.write_text(NOT_GENERATING)
    result = run_yls(exported / "document.schema.json", [generating, plain])
    assert result["schema_errors"] == []
    assert result["files"][str(generating)] == []
    assert {d["line"] for d in result["files"][str(plain)]} == {3, 7, 8, 9}
