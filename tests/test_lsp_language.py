"""What the language server reads under a cursor (engine/lsp/language.py), without a server: where an effect text's
characters are, which words are an id's uses (never prose or comments), and a half-typed document's kind."""

from __future__ import annotations

from engine.content.yamlload import load_text
from engine.lsp import language

CARDS = """\
kind: card
id: axe
name: Axe for the axe fight  # axe in a comment
type: technology
deck: tools
cost: [wood, axe_head]
text: "An axe."
effect: |
  gain 1 axe
  if count(hand(me) where id = axe) > 0:
      log "axe"
provenance: placeholder
reason: the axe is invented
---
kind: card
id: saw
name: Saw
type: technology
deck: tools
requires: [axe]
effect: "gain   card.axe axe"
"""


def _at(text: str, needle: str, nth: int = 0) -> tuple[int, int]:
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    before = text[:offset]
    return before.count("\n"), offset - (before.rfind("\n") + 1)


def test_a_cursor_in_an_effect_text_knows_its_offset_in_the_text():
    loaded = load_text(CARDS, "cards.yaml")
    line, character = _at(CARDS, "count(")
    cursor = language.cursor_at(loaded, line, character + 2)
    assert (cursor.kind, cursor.path, cursor.mode) == ("card", ("effect",), "effect")
    assert cursor.text[cursor.offset - 2 : cursor.offset + 4] == "count("
    line, character = _at(CARDS, "card.axe")
    cursor = language.cursor_at(loaded, line, character + 5)  # in a double-quoted text
    assert cursor.text[cursor.offset :].startswith("axe axe")


def test_a_cursor_on_a_key_or_in_a_reference_field():
    loaded = load_text(CARDS, "cards.yaml")
    line, _ = _at(CARDS, "provenance")
    cursor = language.cursor_at(loaded, line, 2)
    assert cursor.at_key and cursor.path == ()
    line, character = _at(CARDS, "axe_head")
    cursor = language.cursor_at(loaded, line, character + 1)
    assert cursor.path == ("cost", 1) and language.reference_target("card", cursor.path) == ("ref", "card")


def test_an_ids_uses_are_its_definition_references_and_names_in_texts_not_prose_or_comments():
    loaded = load_text(CARDS, "cards.yaml")
    spans = language.occurrences(loaded, "axe", {"axe": "card"})
    lines = CARDS.split("\n")
    found = [(s.line, lines[s.line][: s.start].strip()) for s in spans]
    assert all(lines[s.line][s.start : s.end] == "axe" for s in spans)
    assert found == [
        (1, "id:"),
        (8, "gain 1"),
        (9, "if count(hand(me) where id ="),
        (19, "requires: ["),
        (20, 'effect: "gain   card.axe'),
    ]  # not the name, the comment, the text, the string "axe", the reason, `axe_head` or the field `card.axe`


def test_a_half_typed_document_still_says_its_kind_and_field():
    text = "kind: zone\nid: pile\nvisi\n---\nkind: card\nid: x\neffect: |\n  gai\n"
    cursor = language.guess_cursor(text, 2, 4)
    assert cursor.kind == "zone" and cursor.at_key
    cursor = language.guess_cursor(text, 7, 5)
    assert cursor.kind == "card" and cursor.mode == "effect"


def test_hover_texts_come_from_the_one_registry():
    assert language.builtin_hover("count").startswith("```\ncount(")
    assert "draw" in language.builtin_hover("draw")
    assert language.builtin_hover("no_such_word") is None


# ------------------------------------------------------------------------------ the workspace (engine/lsp/model.py)
def _workspace_copy(tmp_path, monkeypatch):
    import shutil
    from pathlib import Path

    shutil.copytree(Path(__file__).resolve().parents[1] / "content" / "cro-magnon", tmp_path / "cro-magnon")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_files_own_findings_come_before_its_packs_first_full_check(tmp_path, monkeypatch):
    """Opening a file of a large pack: its YAML and schema findings are published at once, not after the
    pack's first full check (which may take seconds)."""
    from engine.lsp.model import Workspace

    root = _workspace_copy(tmp_path, monkeypatch)
    workspace = Workspace([root])
    path = "cro-magnon/zones.yaml"
    text = (root / path).read_text(encoding="utf-8").replace("shuffled: true", "shuffled: maybe", 1)
    workspace.set_text(path, text)
    quick = workspace.quick(path)
    assert quick is not None and [d.code for d in quick] == ["S003"]
    assert [d.code for d in workspace.full([path])[path]] == ["S003"]


def test_the_first_full_check_takes_closed_files_from_lints_cache(tmp_path, monkeypatch):
    """A second server on the same workspace checks no file again: every closed file's result comes from the
    cache the first wrote (their content unchanged), no effect text is parsed again (not even for D008's
    unread fields), and the findings are the same; a file edited on disk since is checked again."""
    from engine import dsl
    from engine.lsp import model

    root = _workspace_copy(tmp_path, monkeypatch)
    checked: list[str] = []
    real = model._check_files

    def recording(paths, *args):
        checked.extend(paths)
        return real(paths, *args)

    monkeypatch.setattr(model, "_check_files", recording)
    path = "cro-magnon/rules/actions.yaml"
    first = model.Workspace([root], model.cache_folder(root)).full([path])
    assert len(checked) == len(first) > 10
    checked.clear()
    parsed: list[str] = []
    real_parse = dsl.parse
    monkeypatch.setattr(dsl, "parse", lambda text, *args: parsed.append(text) or real_parse(text, *args))
    assert model.Workspace([root], model.cache_folder(root)).full([path]) == first
    assert checked == [] and parsed == []
    monkeypatch.setattr(dsl, "parse", real_parse)
    weapons = root / "cro-magnon" / "cards" / "weapons.yaml"
    weapons.write_text(weapons.read_text(encoding="utf-8").replace("cost: [wood, flint]", "cost: [wod, flint]", 1))
    found = model.Workspace([root], model.cache_folder(root)).full([path])
    assert checked == ["cro-magnon/cards/weapons.yaml"]
    assert "R001" in {d.code for d in found["cro-magnon/cards/weapons.yaml"]}


def test_closed_files_checked_in_worker_processes_give_the_same_findings(tmp_path, monkeypatch):
    """On a machine with cores to spare the files no editor holds are checked in worker processes (from a
    fork server: the server's own process runs threads); what they find is what the server's thread finds."""
    from engine.lint import runner
    from engine.lsp import model

    root = _workspace_copy(tmp_path, monkeypatch)
    weapons = root / "cro-magnon" / "cards" / "weapons.yaml"
    weapons.write_text(weapons.read_text(encoding="utf-8").replace("cost: [wood, flint]", "cost: [wod, flint]", 1))
    path = "cro-magnon/zones.yaml"
    alone = model.Workspace([root], None, jobs=1).full([path])
    monkeypatch.setattr(runner, "PARALLEL_FROM", 1)
    assert model.Workspace([root], None, jobs=2).full([path]) == alone
    assert "R001" in {d.code for d in alone["cro-magnon/cards/weapons.yaml"]}


def test_a_backslash_escape_in_a_double_quoted_text_is_not_part_of_the_next_word():
    """In `"gain 1 wood\\nmove ..."` the raw line holds `\\nmove`: hover, definition and completion must see
    `move`, not `nmove` (the escape's letter)."""
    line = '    effect: "gain 1 wood\\nmove card to forest"'
    at = line.index("move")
    assert language.word_at(line, at + 2) == ("move", at, at + 4)
    assert language.word_at(line, at) == ("move", at, at + 4)
    assert language.prefix_at(line, at + 3) == ("mov", " ")
    assert language.word_at(line, line.index("wood") + 1)[0] == "wood"
