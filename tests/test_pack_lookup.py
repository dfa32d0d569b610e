"""Where pack ids are looked up (engine/content/pack_search.py): `extends` names a pack id, never a path, and
finds it only among the pack roots knap was given; a pack id on the command line is looked up where the
user works (the project's content/, KNAP_PACKS, `[tool.knap] packs`) before the built-in packs; naming one
file of a pack lints the whole pack; YAML files that are not Knapper content are left alone."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import MINIMAL_RULES, write_tree
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from engine.content import packs
from engine.files import resources

SECRET = "topsecret"


def manifest(pack_id: str, extra: str = "", players: str = "players: {min: 2, max: 4}\n") -> str:
    return f"kind: pack\nid: {pack_id}\nname: {pack_id.title()} game\nversion: 0.1.0\n{players}{extra}"


def pack(folder: Path, pack_id: str, extra: str = "", files: dict | None = None, **kwargs) -> Path:
    return write_tree(
        folder, {"pack.yaml": manifest(pack_id, extra, **kwargs), "rules.yaml": MINIMAL_RULES, **(files or {})}
    )


@pytest.fixture
def outside(tmp_path) -> Path:
    """A pack outside every root knap is given, with findings whose text must never be printed."""
    return pack(
        tmp_path / "outside" / "secret_pack",
        f"{SECRET}_pack",
        files={"z.yaml": f"kind: zone\nid: {SECRET}_zone\nname: {SECRET} zone\ntype: deck\ncolour: 1\n"},
    )


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project folder (pyproject.toml, content/) as the working folder; the built-in packs replaced by a
    fake bundled folder holding `classic` and `shared`. KNAP_PACKS unset."""
    home = tmp_path / "project"
    (home / "content").mkdir(parents=True)
    (home / "pyproject.toml").write_text("[project]\nname = 'cards'\n")
    bundled = tmp_path / "site-packages" / "engine" / "_bundled" / "content"
    pack(bundled / "classic", "classic")
    pack(bundled / "shared", "shared")
    real_root = resources.root

    def fake_root(name):
        return bundled if name == "content" else real_root(name)

    monkeypatch.setattr(resources, "root", fake_root)
    monkeypatch.delenv("KNAP_PACKS", raising=False)
    monkeypatch.chdir(home)
    return home


# ------------------------------------------------------------------------------------- extends is confined
@pytest.mark.parametrize(
    "entry",
    [
        "../../outside/secret_pack",
        "{outside}",
        "{outside}/",
        "./secret_pack",
        "secret_pack/../secret_pack",
        "~/secret_pack",
    ],
)
def test_extends_names_a_pack_id_not_a_path(tmp_path, outside, lint_json, knap, entry):
    """A path in `extends` (relative or absolute) is refused at the entry (the schema's S005, with S006
    for a long one); nothing of the pack it points to is read or printed: not its ids, not its findings."""
    entry = entry.format(outside=outside)
    variant = pack(tmp_path / "content" / "variant", "variant", f"extends: ['{entry}']\n")
    code, found = lint_json(variant)
    assert code == 1
    assert {(f, line, c) for f, line, _, c, _ in found} - {("pack.yaml", 6, "S006")} == {("pack.yaml", 6, "S005")}
    for args in (("--no-cache",), ("--no-cache", "--format", "json")):
        code, out, err = knap("lint", variant, *args)
        assert SECRET not in out + err


def test_a_broken_manifest_with_a_missing_base_is_a_finding_not_an_internal_error(tmp_path, lint_json):
    variant = pack(tmp_path / "variant", "variant", "extends: [nowhere_to_be_found]\ncolour: 1\n")
    code, found = lint_json(variant)
    assert code == 1 and [c for *_, c, _ in found] == ["S002"]


def test_extends_does_not_follow_a_link_out_of_the_content_folder(tmp_path, outside, lint_json, knap):
    """A sibling that is a symbolic link to a folder elsewhere is not a sibling."""
    content = tmp_path / "content"
    variant = pack(content / "variant", "variant", "extends: [secret_pack]\n")
    (content / "secret_pack").symlink_to(outside, target_is_directory=True)
    code, out, err = knap("lint", variant, "--no-cache")
    assert code == 1 and "P003" in out and SECRET not in out + err


def test_extends_accepts_an_id_written_with_hyphens(tmp_path, lint_json):
    pack(tmp_path / "base-game", "base_game")
    variant = pack(tmp_path / "variant", "variant", "extends: [base-game]\n")
    (variant / "rules.yaml").unlink()
    assert lint_json(variant) == (0, [])


OUTSIDE_BUILTINS = Path(__file__).resolve().parent / "bad_content" / "r003_wrong_size"  # a pack folder


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    entry=st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=40)
    | st.from_regex(r"[./~]{0,6}[a-z_/-]{0,20}", fullmatch=True)
)
@example(entry="..")
@example(entry="../tests/bad_content/r003_wrong_size")
@example(entry=str(OUTSIDE_BUILTINS))
@example(entry="/")
def test_find_pack_never_leaves_its_roots(tmp_path, entry):
    """Whatever an `extends` entry says, the folder found is a pack folder directly inside the content
    folder of the pack or the built-in packs, never elsewhere."""
    content = tmp_path / "content"
    if not (content / "variant").exists():
        pack(content / "variant", "variant")
    found = packs.find_pack(entry, content / "variant")
    if found is not None:
        assert found.parent in (content.resolve(), resources.root("content").resolve()), found


# ------------------------------------------------------------------------------------------ the lookup
def test_a_pack_of_the_project_is_found_by_id_and_wins_over_a_builtin(project, knap):
    pack(
        project / "content" / "my-pack",
        "my_pack",
        files={"cards.yaml": "kind: zone\nid: x\nname: X\ntype: deck\ncolour: 1\n"},
    )
    code, out, _ = knap("lint", "my-pack", "--no-cache")
    assert code == 1 and "content/my-pack/cards.yaml:5:1: S002" in out
    assert knap("lint", "my_pack", "--no-cache")[0] == 1
    assert knap("lint", "classic", "--no-cache")[0] == 0  # the built-in one
    pack(project / "content" / "classic", "classic", "colour: 1\n")  # a working copy of a built-in pack
    code, out, _ = knap("lint", "classic", "--no-cache")
    assert code == 1 and "content/classic/pack.yaml" in out


def test_the_project_is_the_folder_of_the_nearest_pyproject(project, knap, monkeypatch):
    pack(project / "content" / "mine", "mine")
    deeper = project / "docs" / "deeper"
    deeper.mkdir(parents=True)
    monkeypatch.chdir(deeper)
    assert packs.resolve_target("mine") == (project / "content" / "mine").resolve()
    (project / "pyproject.toml").unlink()
    assert packs.resolve_target("mine") is None  # no pyproject: the working folder is the project
    monkeypatch.chdir(project)
    assert packs.resolve_target("mine") == (project / "content" / "mine").resolve()


def test_knap_packs_and_config_add_folders_of_packs(project, tmp_path, knap, monkeypatch):
    pack(tmp_path / "shelf" / "from-env", "from_env")
    pack(project / "more" / "from-config", "from_config")
    (project / "pyproject.toml").write_text("[project]\nname = 'cards'\n[tool.knap]\npacks = ['more']\n")
    monkeypatch.setenv("KNAP_PACKS", os.pathsep.join([str(tmp_path / "shelf"), ""]))
    assert packs.resolve_target("from-env") == (tmp_path / "shelf" / "from-env").resolve()
    assert packs.resolve_target("from_config") == (project / "more" / "from-config").resolve()
    assert knap("lint", "from-env", "from-config", "--no-cache")[0] == 0


def test_a_search_folder_that_does_not_exist_is_a_usage_error(project, tmp_path, knap, monkeypatch):
    (project / "pyproject.toml").write_text("[project]\nname = 'cards'\n\n[tool.knap]\npacks = ['gone']\n")
    code, _out, err = knap("lint", "classic", "--no-cache")
    assert code == 2 and "pyproject.toml:5:10:" in err and "`gone`" in err and "not a folder" in err
    assert knap("list")[0] == 2
    (project / "pyproject.toml").write_text("[tool.knap]\npacks = 'more'\n")
    code, _, err = knap("lint", "classic", "--no-cache")
    assert code == 2 and "a list of folders" in err
    (project / "pyproject.toml").write_text("[project]\n")
    monkeypatch.setenv("KNAP_PACKS", str(tmp_path / "missing"))
    code, _, err = knap("play", "classic")
    assert code == 2 and "KNAP_PACKS" in err and "missing" in err


def test_an_unknown_pack_id_lists_the_known_ones(project, knap):
    pack(project / "content" / "mine", "mine")
    code, _out, err = knap("lint", "mien", "--no-cache")
    assert code == 2 and "`mien`" in err and "did you mean `mine`?" in err
    assert "classic, mine, shared" in err and "knap list" in err
    for command in (("graph", "mien"), ("diff", "mien"), ("play", "mien"), ("sim", "mien", "-n", "1")):
        code, _, err = knap(*command)
        assert code == 2 and "did you mean `mine`?" in err, command
    code, _, err = knap("lint", "no/such/file.yaml")
    assert code == 2 and "no such file or folder" in err


def test_every_command_that_takes_a_pack_uses_the_lookup(project, knap, monkeypatch):
    """graph, diff, play, sim: a pack of the project, by id, and a variant in the project that extends a
    pack found on KNAP_PACKS."""
    pack(
        project / "shelf" / "base",
        "base",
        files={"cards.yaml": "kind: card\nid: stone\nname: Stone\ntype: resource\ndeck: deck\n"},
    )
    monkeypatch.setenv("KNAP_PACKS", "shelf")
    pack(
        project / "content" / "variant",
        "variant",
        "extends: [base]\n",
        players="",
        files={"cards.yaml": "kind: card\nid: bone\nname: Bone\ntype: resource\ndeck: deck\nrequires: [stone]\n"},
    )
    (project / "content" / "variant" / "rules.yaml").unlink()
    code, out, _ = knap("graph", "variant", "--format", "json")
    assert code == 0 and {"from": "stone", "to": "bone"} in json.loads(out)["edges"]
    code, out, _ = knap("diff", "variant", "--format", "json")
    assert code == 0 and "bone" in out
    from engine.commands import play as play_cli

    rules = play_cli._load_pack("variant")
    assert rules is not None and set(rules.cards) == {"stone", "bone"} and rules.players == (2, 4)


def test_knap_list_shows_every_pack_where_it_comes_from_and_which_wins(project, tmp_path, knap, monkeypatch):
    pack(project / "content" / "classic", "classic")  # shadows the built-in one
    pack(project / "content" / "solo", "solo", "extends: [classic]\n", players="")
    pack(tmp_path / "shelf" / "extra", "extra", players="players: {min: 1, max: 1}\n")
    monkeypatch.setenv("KNAP_PACKS", str(tmp_path / "shelf"))
    code, out, err = knap("list", "--format", "json")
    assert code == 0, err
    rows = [(r["id"], r["from"], r["players"], r["used"]) for r in json.loads(out)["packs"]]
    assert rows == [
        ("classic", "project", [2, 4], True),
        ("solo", "project", [2, 4], True),
        ("extra", "KNAP_PACKS", [1, 1], True),
        ("classic", "built-in", [2, 4], False),
        ("shared", "built-in", [2, 4], True),
    ]
    code, out, _ = knap("list")
    assert code == 0 and "Classic game" in out and "KNAP_PACKS" in out and "hidden by" in out


def test_knap_list_escapes_pack_text(project, knap):
    pack(project / "content" / "odd", "odd")
    manifest_path = project / "content" / "odd" / "pack.yaml"
    manifest_path.write_text(manifest_path.read_text().replace("Odd game", '"[red]Odd\\e[2J\\u0007"'))
    code, out, _ = knap("list")
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "[red]Odd" in out
    manifest_path.write_text(manifest_path.read_text().replace("[red]Odd", "Odd\\u202e\\u0085"))
    code, out, _ = knap("list", "--format", "json")
    assert code == 0 and "\u202e" not in out and "\x85" not in out, out
    assert "Odd\u202e\u0085\x1b[2J\x07" in [row["name"] for row in json.loads(out)["packs"]]  # exact once parsed


# ------------------------------------------------------------------------------- one file means its pack
VARIANT_DECK = "decks:\n  deck: {size: 2, composition: {antler: 1}}\n"


def _base_and_variant(root: Path) -> Path:
    pack(
        root / "base",
        "base",
        "decks:\n  deck: {size: 1, composition: {stone: 1}}\n",
        files={"cards.yaml": "kind: card\nid: stone\nname: Stone\ntype: resource\ndeck: deck\n"},
    )
    variant = pack(
        root / "variant",
        "variant",
        "extends: [base]\n" + VARIANT_DECK,
        files={"cards.yaml": "kind: card\nid: antler\nname: Antler\ntype: resource\ndeck: deck\n"},
    )
    (variant / "rules.yaml").unlink()
    return variant


def test_naming_one_file_reports_the_findings_of_its_whole_pack(tmp_path, lint_json):
    variant = _base_and_variant(tmp_path)
    assert lint_json(variant / "pack.yaml") == (0, [])
    (variant / "pack.yaml").write_text((variant / "pack.yaml").read_text().replace(VARIANT_DECK, ""))
    code, found = lint_json(variant / "pack.yaml")
    assert code == 1 and [(f, c) for f, _, _, c, _ in found] == [("cards.yaml", "R003")]


def test_yaml_that_is_not_knapper_content_is_left_alone(tmp_path, lint_json):
    """P001 only for a file that looks like content: a top-level `kind:` or a modeline naming one of our
    schemas. CI configs and the pre-commit config are not our business, named or found in a folder."""
    write_tree(
        tmp_path,
        {
            ".pre-commit-config.yaml": "repos:\n  - repo: local\n    hooks: []\n",
            "ci.yml": "jobs:\n  test:\n    kind: container\n",
            "mkdocs.yaml": "site_name: Cards\n",
            "stray.yaml": "kind: card\nid: lost\n",
            "typed.yaml": "# yaml-language-server: $schema=../schemas/document.schema.json\nid: lost\n",
        },
    )
    code, found = lint_json(*(tmp_path / n for n in (".pre-commit-config.yaml", "ci.yml", "mkdocs.yaml")))
    assert (code, found) == (0, [])
    code, found = lint_json(tmp_path)
    assert code == 1 and [(f, c) for f, _, _, c, _ in found] == [("stray.yaml", "P001"), ("typed.yaml", "P001")]
    code, found = lint_json(tmp_path / "stray.yaml", tmp_path / "ci.yml")
    assert code == 1 and [(f, c) for f, _, _, c, _ in found] == [("stray.yaml", "P001")]
