"""Every document of every content file is checked and completed in an editor.

yaml-language-server applies a `# yaml-language-server: $schema=` modeline to the FIRST document of a
file only. `knap schema editor` writes the `yaml.schemas` setting (schema -> globs), which applies to
every document; the modeline still decides document 1 (same schema). These tests drive the real server
(tools/yls/check.mjs) configured exactly by the settings knap writes.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from yls import run_editor

from engine.commands.cli import main
from engine.files import resources

REPO = Path(__file__).resolve().parent.parent
CONTENT = sorted(resources.root("content").rglob("*.yaml"))
SETTINGS = REPO / ".vscode" / "settings.json"
MULTI = REPO / "content" / "cro-magnon" / "cards" / "weapons.yaml"
OPTIONAL_CARD_PROPERTIES = {"copies", "slot", "effect", "playable", "refs", "replace"}


def _document_starts(lines: list[str]) -> list[int]:
    """0-based index of the first key line of each document."""
    starts, looking = [], True
    for n, line in enumerate(lines):
        if line.rstrip("\n") == "---":
            looking = True
        elif looking and line.strip() and not line.startswith("#"):
            starts.append(n)
            looking = False
    return starts


def _edited_copy(
    source: Path, target: Path, inserts: dict[int, str], provenance_of: int | None = None
) -> dict[int, int]:
    """Copy `source`, inserting a line after the first line of some documents (0-based index -> text) and,
    in document `provenance_of`, setting `provenance: invented` (a value the enum does not allow).
    Returns document index -> 1-based line of the edit in the copy."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = _document_starts(lines) + [len(lines)]
    edits = [(starts[i] + 1, text, True, i) for i, text in inserts.items()]  # (line index, text, insert?, document)
    if provenance_of is not None:
        body = range(starts[provenance_of], starts[provenance_of + 1])
        existing = [n for n in body if lines[n].startswith("provenance:")]
        edits.append(
            (existing[0], "provenance: invented\n", False, provenance_of)
            if existing
            else (starts[provenance_of] + 1, "provenance: invented\n", True, provenance_of)
        )
    edits.sort()
    for position, text, insert, _ in reversed(edits):  # bottom up: the positions above stay valid
        if insert:
            lines.insert(position, text)
        else:
            lines[position] = text
    at = {}
    for k, (position, _, _, document) in enumerate(edits):
        at[document] = position + 1 + sum(insert for _, _, insert, _ in edits[:k])
    target.write_text("".join(lines), encoding="utf-8")
    return at


def test_committed_vscode_settings_are_what_knap_writes(monkeypatch, capsys):
    """`.vscode/settings.json` of this repository is the output of `knap schema editor --schema
    schemas/document.schema.json` (the checkout's own schemas, whether or not Knapper is installed from it)."""
    monkeypatch.chdir(REPO)
    assert main(["schema", "editor", "--print", "vscode", "--schema", "schemas/document.schema.json"]) == 0
    assert json.loads(capsys.readouterr().out) == json.loads(SETTINGS.read_text(encoding="utf-8"))
    assert json.loads(SETTINGS.read_text())["yaml.schemas"] == {
        "./schemas/document.schema.json": ["content/**/*.{yaml,yml}"]
    }


def test_every_document_of_every_content_file_is_checked_and_completed(tmp_path):
    """One server session over every built-in content file (opened as they are, modelines included), with
    the settings knap writes: (a) no diagnostics; (b) in a multi-document file broken in documents 1, 2
    and N, each break is reported at its line; (c) property names complete inside documents 2 and N."""
    docs = len(_document_starts(MULTI.read_text(encoding="utf-8").splitlines(keepends=True)))
    assert docs >= 4
    last = docs - 1
    broken_text, completing_text = tmp_path / "broken.yaml", tmp_path / "completing.yaml"
    broken_lines = _edited_copy(MULTI, broken_text, {0: "shape: round\n", 1: "colour: red\n"}, provenance_of=last)
    completing_lines = _edited_copy(MULTI, completing_text, {1: "\n", last: "\n"})
    assert set(broken_lines) == {0, 1, last} and set(completing_lines) == {1, last}
    # the variants open as unsaved buffers beside the original, where the settings' globs match
    broken = MULTI.with_name("__editor_check_broken.yaml")
    completing = MULTI.with_name("__editor_check_completing.yaml")
    assert not broken.exists() and not completing.exists()

    result = run_editor(
        SETTINGS,
        CONTENT,
        workspace=REPO,
        buffers={broken: broken_text, completing: completing_text},
        completions=[(completing, completing_lines[1], 1), (completing, completing_lines[last], 1)],
    )
    assert result["schema_errors"] == []
    for path in CONTENT:  # (a)
        assert result["files"][str(path)] == [], path
    assert result["files"][str(completing)] == []
    found = {d["line"]: d["message"] for d in result["files"][str(broken)]}  # (b)
    assert set(found) == set(broken_lines.values()), found
    assert "shape" in found[broken_lines[0]] and "colour" in found[broken_lines[1]]
    assert "rulebook" in found[broken_lines[last]]  # the enum's allowed values are listed
    documents = MULTI.read_text(encoding="utf-8").split("\n---\n")
    for answer, index in zip(result["completions"], (1, last), strict=False):  # (c)
        present = {line.split(":")[0] for line in documents[index].splitlines()}
        expected = OPTIONAL_CARD_PROPERTIES - present  # a property already there is not offered again
        assert len(expected) >= 2 and expected <= set(answer["labels"]), (index, answer["labels"])


def test_a_fresh_workspace_gets_every_document_checked(tmp_path, capsys):
    """`knap schema editor --vscode` in a new workspace whose pack folder has awkward characters and whose
    files carry no modeline: the default (built-in) schema, written as an absolute path, covers documents
    1..N; files outside the named folder are left alone."""
    workspace = tmp_path / "work space"
    packs = workspace / "my packs [v2] (draft)"
    (packs / "demo").mkdir(parents=True)
    manifest = packs / "demo" / "pack.yaml"
    manifest.write_text("kind: pack\nid: demo\nname: Demo\nversion: 0.1.0\nplayers: {min: 1, max: 2}\n")
    cards = packs / "demo" / "cards.yaml"
    documents = [
        "kind: card\nid: a\nname: A\ntype: tool\ndeck: d\nsize: 3",  # 1: line 6
        "kind: card\nid: b\nname: B\ntype: tool\ndeck: d\ncolour: red",  # 2: line 13
        "kind: zone\nid: d\nname: D\ntype: pile",  # 3: clean
        "kind: card\nid: c\nname: C\ntype: tool\ndeck: d\nprovenance: invented",
    ]  # N: line 25
    cards.write_text("\n---\n".join(documents) + "\n")
    elsewhere = workspace / "ci.yaml"
    elsewhere.write_text("jobs: {}\n")
    assert main(["schema", "editor", "--vscode", "--root", str(workspace), str(packs)]) == 0
    settings_path = Path(capsys.readouterr().out.strip())
    assert settings_path == workspace / ".vscode" / "settings.json"
    ((schema, globs),) = json.loads(settings_path.read_text())["yaml.schemas"].items()
    assert Path(schema) == resources.root("schemas").resolve() / "document.schema.json"
    assert globs == [r"my{\ ,%20}packs{\ ,%20}{\[,%5B}v2{\],%5D}{\ ,%20}{\(,%28}draft{\),%29}/**/*.{yaml,yml}"]

    result = run_editor(settings_path, [manifest, cards], workspace=workspace)
    assert result["schema_errors"] == []
    assert result["files"][str(manifest)] == []
    assert [d["line"] for d in result["files"][str(cards)]] == [6, 13, 25], result["files"][str(cards)]


# ---------------------------------------------------------------- the command itself (no server)


def test_print_for_neovim_and_helix(tmp_path, capsys):
    (tmp_path / "content").mkdir()
    assert main(["schema", "editor", "--root", str(tmp_path), "--print", "helix"]) == 0
    helix = tomllib.loads(capsys.readouterr().out)
    schemas = helix["language-server"]["yaml-language-server"]["config"]["yaml"]["schemas"]
    assert schemas == {str(resources.root("schemas").resolve() / "document.schema.json"): ["content/**/*.{yaml,yml}"]}
    assert main(["schema", "editor", "--root", str(tmp_path), "--print", "neovim"]) == 0
    lua = capsys.readouterr().out
    assert "vim.lsp.config('yamlls'" in lua and '{ "content/**/*.{yaml,yml}" }' in lua
    assert f'["{resources.root("schemas").resolve() / "document.schema.json"}"]' in lua


def test_vscode_settings_are_merged_not_replaced(tmp_path):
    (tmp_path / "content").mkdir()
    settings = tmp_path / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"editor.tabSize": 2, "yaml.schemas": {"other.json": "*.yml"}}))
    assert main(["schema", "editor", "--vscode", "--root", str(tmp_path)]) == 0
    assert main(["schema", "editor", "--vscode", "--root", str(tmp_path)]) == 0  # idempotent
    written = json.loads(settings.read_text())
    assert written["editor.tabSize"] == 2 and written["yaml.schemas"]["other.json"] == "*.yml"
    assert len(written["yaml.schemas"]) == 2


@pytest.mark.parametrize(
    "text, where",
    [
        ('{\n  // mine\n  "a": 1\n}\n', ":2:3:"),
        ('{"a": 1,}', ":1:9:"),
        ('{"yaml.schemas": ["x"]}', ":1:1:"),
        ("[]", ":1:1:"),
    ],
)
def test_a_settings_file_knap_cannot_keep_intact_is_left_alone(tmp_path, capsys, text, where):
    (tmp_path / "content").mkdir()
    settings = tmp_path / ".vscode" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(text)
    assert main(["schema", "editor", "--vscode", "--root", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"settings.json{where}" in err and "hint:" in err and "Traceback" not in err and "internal" not in err
    assert settings.read_text() == text


@pytest.mark.parametrize(
    "args, says",
    [
        (["--root", "{tmp}/missing"], "is not a folder"),
        (["--root", "{tmp}"], "no `content` folder"),
        (["--root", "{tmp}/inner", "{tmp}"], "is not inside the workspace"),
        (["--root", "{tmp}/inner", "{tmp}/inner/nope"], "is not a folder"),
        (["--root", "{tmp}/inner", "--schema", "{tmp}/none.json", "{tmp}/inner"], "does not exist"),
        (["--vscode", "--print", "helix"], "not allowed with"),
    ],
)
def test_bad_arguments_are_usage_errors(tmp_path, capsys, args, says):
    (tmp_path / "inner").mkdir()
    assert main(["schema", "editor", *(a.format(tmp=tmp_path) for a in args)]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err and "internal" not in err
