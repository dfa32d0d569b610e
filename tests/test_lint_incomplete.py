"""A pack with a YAML error in one file is incomplete: lint reports the error, and nothing that only the
missing documents cause (an id of the broken file used in another file is not "unknown")."""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO

PACKS = REPO / "content"


def _break(path, after: str):
    """Put a YAML syntax error on the first line that starts with `after` after the file's second document
    starts (or in its first one), leaving the rest of the file as it was."""
    lines = path.read_text(encoding="utf-8").split("\n")
    second = next((i for i, line in enumerate(lines) if line.startswith("---")), 0)
    at = next(i for i, line in enumerate(lines) if i > second and line.startswith(after))
    lines[at] = lines[at] + " [unclosed: bracket"
    path.write_text("\n".join(lines), encoding="utf-8")
    return at + 1


BROKEN = [
    ("cro-magnon", "counters.yaml", "name:"),
    ("cro-magnon", "zones.yaml", "name:"),
    ("cro-magnon", "rules/functions.yaml", "body:"),
    ("cro-magnon", "cards/weapons.yaml", "name:"),
    ("cro-magnon", "cards/terrain.yaml", "name:"),
    ("neolithibum", "counters.yaml", "name:"),
    ("neolithibum", "zones.yaml", "name:"),
    ("stone-age", "zones.yaml", "name:"),
    ("cro-magnon", "counters.yaml", "kind:"),  # the error before the id: the document's id is still read
]


@pytest.mark.parametrize(("pack", "file", "after"), BROKEN)
def test_one_yaml_error_is_the_only_finding(tmp_path, lint_json, pack, file, after):
    root = tmp_path / pack
    shutil.copytree(PACKS / pack, root)
    line = _break(root / file, after)
    code, found = lint_json(root)
    assert code == 1
    name = file.rsplit("/", 1)[-1]
    assert [f for f in found if f[0] != name] == [], found
    assert [f[3] for f in found] == ["Y001"], found
    assert found[0][1] in (line, line + 1), found


def test_a_shipped_pack_lints_clean_before_it_is_broken(tmp_path, lint_json):
    root = tmp_path / "cro-magnon"
    shutil.copytree(PACKS / "cro-magnon", root)
    code, found = lint_json(root)
    assert code == 0 and [f for f in found if f[3] != "D008"] == [], found


def test_a_real_mistake_in_another_file_is_still_reported(tmp_path, lint_json):
    """Only what the missing documents may cause is left out: a name no file defines, spelt wrong in another
    file, is still reported when it is of a kind the broken file does not hold."""
    root = tmp_path / "cro-magnon"
    shutil.copytree(PACKS / "cro-magnon", root)
    _break(root / "counters.yaml", "name:")
    turn = root / "rules" / "turn.yaml"
    text = turn.read_text(encoding="utf-8")
    assert "hand_limit_of(" in text
    turn.write_text(text.replace("hand_limit_of(", "hand_limit_off(", 1), encoding="utf-8")
    _code, found = lint_json(root)
    assert sorted(f[3] for f in found) == ["D002", "Y001"], found
