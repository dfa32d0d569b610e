"""knap reads and writes only inside its roots, and no cache can change a verdict.

Three promises (docs/security.md):
- the lint cache lives inside the project or in the user's cache folder; a configured `cache-dir` that
  leads out of the project is refused, and the cache never writes into a folder it did not create;
- a file or folder of a pack that is a link leading out of the pack is never read: it is one P009 finding
  at the link, quoting nothing of the target;
- a cache file is believed only if it carries a MAC made with the key kept in the user's cache folder,
  and a cache of the wrong shape is ignored and rebuilt.
"""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from conftest import CARD, MINIMAL_PACK, MINIMAL_RULES, write_tree
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.files import confine
from engine.lint import cache as lint_cache

BROKEN_CARD = CARD + "colour: red\n"  # S002, found by the file checks
SECRET = "API_TOKEN: [hunter2-do-not-print\n"  # broken YAML: lint would quote the line if it read it


@pytest.fixture(autouse=True)
def user_cache(tmp_path, monkeypatch) -> Path:
    """Every test gets its own user cache folder; the real home is never touched. The engine's part of
    the cache key is fixed, so that the verdicts compared here do not depend on edits to the engine."""
    folder = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    monkeypatch.setattr(lint_cache, "engine_key", lambda: "engine-under-test")
    return folder


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    """A project folder (the working folder) with a pack `demo/` holding a card file."""
    root = tmp_path / "project"
    write_tree(root / "demo", {"pack.yaml": MINIMAL_PACK, "rules.yaml": MINIMAL_RULES, "cards.yaml": CARD})
    monkeypatch.chdir(root)
    return root


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"") for p in sorted(folder.rglob("*"))}


# ------------------------------------------------------------------------------ 1. where the cache lives
def test_a_configured_cache_dir_outside_the_project_is_refused(project, tmp_path, knap, user_cache):
    victim = write_tree(tmp_path / "victim", {"README.md": "a neighbouring repository\n", "src/a.py": "x = 1\n"})
    before = _tree(victim)
    (project / "pyproject.toml").write_text('[tool.knap.lint]\ncache-dir = "../victim"\n')
    code, out, err = knap("lint", "demo")
    assert code == 0 and out == ""
    assert _tree(victim) == before, "lint wrote into a folder outside the project"
    refusal = [line for line in err.splitlines() if "cache-dir" in line]
    assert len(refusal) == 1 and "outside the project" in refusal[0] and "pyproject.toml" in refusal[0]
    # the run goes on with the user's cache folder, and the next run is served from it
    assert list((user_cache / "knap").rglob("pack-*.json"))
    assert knap("lint", "demo")[0] == 0


def test_a_configured_cache_dir_that_is_a_link_out_of_the_project_is_refused(project, tmp_path, knap):
    victim = write_tree(tmp_path / "victim", {"README.md": "mine\n"})
    (project / "cache").symlink_to(victim, target_is_directory=True)
    (project / "pyproject.toml").write_text('[tool.knap.lint]\ncache-dir = "cache"\n')
    code, _, err = knap("lint", "demo")
    assert code == 0 and "outside the project" in err
    assert _tree(victim) == {"README.md": b"mine\n"}


def test_the_default_cache_folder_that_is_a_link_out_of_the_project_is_refused(project, tmp_path, knap):
    victim = write_tree(tmp_path / "victim", {"README.md": "mine\n"})
    (project / ".knap_cache").symlink_to(victim, target_is_directory=True)
    code, _, err = knap("lint", "demo")
    assert code == 0 and "outside the project" in err
    assert _tree(victim) == {"README.md": b"mine\n"}


def test_a_configured_cache_dir_inside_the_project_is_relative_to_its_pyproject(project, knap, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.knap.lint]\ncache-dir = "build/lint-cache"\n')
    monkeypatch.chdir(project / "demo")
    code, _, err = knap("lint", ".")
    assert code == 0 and "cache-dir" not in err
    cache = project / "build" / "lint-cache"
    assert list(cache.glob("pack-*.json")) and (cache / ".gitignore").read_text() == "*\n"
    assert "knap" in (cache / "CACHEDIR.TAG").read_text()


@pytest.mark.parametrize("value", ["3", "1979-05-27", '""', '["a"]'])
def test_a_configured_cache_dir_that_is_not_a_folder_name_is_refused(project, knap, user_cache, value):
    (project / "pyproject.toml").write_text(f"[tool.knap.lint]\ncache-dir = {value}\n")
    code, _, err = knap("lint", "demo")
    assert code == 0 and "not a folder name" in err
    assert list((user_cache / "knap").rglob("pack-*.json"))


def test_an_explicit_cache_dir_may_point_anywhere(project, tmp_path, knap):
    elsewhere = tmp_path / "elsewhere" / "knap-cache"
    code, _, err = knap("lint", "demo", "--cache-dir", elsewhere)
    assert code == 0 and "cache" not in err.lower()
    assert list(elsewhere.glob("pack-*.json"))


def test_the_cache_never_writes_into_a_folder_it_did_not_create(project, tmp_path, knap, user_cache):
    existing = write_tree(tmp_path / "existing", {"notes.txt": "keep me\n"})
    code, _, err = knap("lint", "demo", "--cache-dir", existing)
    assert code == 0
    assert _tree(existing) == {"notes.txt": b"keep me\n"}
    (line,) = [line for line in err.splitlines() if "existing" in line]
    assert "not made by knap" in line
    # an empty folder someone made is not knap's either
    empty = tmp_path / "empty"
    empty.mkdir()
    assert knap("lint", "demo", "--cache-dir", empty)[0] == 0
    assert list(empty.iterdir()) == []


def test_a_cache_folder_being_made_is_never_seen_unmarked(project, monkeypatch):
    """Two lint runs at once in a fresh checkout: the second must not find the first one's folder made but not yet
    marked as knap's, and refuse it as someone else's ("not using the folder `.knap_cache`")."""
    folder = project / ".knap_cache"
    seen = []
    write_new = lint_cache._write_new

    def another_run_looks(path, data, mode=0o644):  # what a second run sees at each step of the first's making
        seen.append(lint_cache.owned(folder))
        return write_new(path, data, mode)

    monkeypatch.setattr(lint_cache, "_write_new", another_run_looks)
    lint_cache.Cache(folder).save(project / "demo", "pack", {})
    assert seen and False not in seen
    assert lint_cache.owned(folder) is True and list(folder.glob("pack-*.json"))
    assert [p.name for p in project.iterdir() if p.name.startswith(".knap_cache")] == [".knap_cache"]


def test_a_run_that_loses_the_race_to_make_the_cache_folder_uses_the_winners(project, monkeypatch):
    """The folder did not exist when this run looked, and another knap made it before this run could: this run's
    making gives way (leaving nothing of its own behind) and its entry goes into the other's folder."""
    folder = project / ".knap_cache"
    owned = lint_cache.owned
    looks = []

    def made_meanwhile(path):
        looks.append(path)
        return None if len(looks) == 1 else owned(path)

    monkeypatch.setattr(lint_cache, "owned", made_meanwhile)
    cache = lint_cache.Cache(folder)  # this run's first look: nothing there yet; then the other run makes it
    assert lint_cache._create(folder)
    looks.clear()
    cache.save(project / "demo", "pack", {})
    assert owned(folder) is True and list(folder.glob("pack-*.json"))
    assert [p.name for p in project.iterdir() if p.name.startswith(".knap_cache")] == [".knap_cache"]


def test_a_cache_folder_of_an_older_knap_is_still_used(project, knap):
    """Before CACHEDIR.TAG, knap marked its folder with a `.gitignore` holding `*` only."""
    old = project / ".knap_cache"
    old.mkdir()
    (old / ".gitignore").write_text("*\n")
    code, _, err = knap("lint", "demo")
    assert code == 0 and err.count("\n") == 1  # "All checks passed" only
    assert list(old.glob("pack-*.json"))


# ------------------------------------------------------------------------------ 2. links out of a pack
def _secret(tmp_path) -> Path:
    return write_tree(tmp_path / "private-q7", {".env": SECRET}) / ".env"


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif"])
def test_a_file_linked_out_of_the_pack_is_not_read(project, tmp_path, knap, fmt):
    secret = _secret(tmp_path)
    (project / "demo" / "env.yaml").symlink_to(secret)
    code, out, err = knap("lint", "demo", "--no-cache", "--format", fmt)
    assert code == 1
    assert "hunter2" not in out + err and "API_TOKEN" not in out + err
    assert "private-q7" not in out + err and ".env" not in out + err
    assert "P009" in out and "env.yaml" in out


def test_a_named_file_linked_out_of_the_pack_is_not_read(project, tmp_path, knap):
    """What a pre-commit hook does: it names the changed files."""
    (project / "demo" / "env.yaml").symlink_to(_secret(tmp_path))
    code, out, err = knap("lint", "demo/env.yaml", "--no-cache")
    assert code == 1 and "hunter2" not in out + err and "demo/env.yaml:1:1: P009" in out


def test_a_link_out_of_the_pack_is_not_read_with_the_cache_either(project, tmp_path, knap):
    (project / "demo" / "env.yaml").symlink_to(_secret(tmp_path))
    for _ in range(2):
        code, out, err = knap("lint", "demo")
        assert code == 1 and "hunter2" not in out + err and "P009" in out


def test_a_folder_linked_out_of_the_pack_is_one_finding(project, tmp_path, knap):
    outside = write_tree(tmp_path / "private-q7", {"leak.yaml": SECRET, "more.yaml": SECRET})
    (project / "demo" / "cards").symlink_to(outside, target_is_directory=True)
    code, out, err = knap("lint", "demo", "--no-cache", "--format", "json")
    found = [(d["file"], d["code"]) for d in json.loads(out)["diagnostics"]]
    assert code == 1 and found == [(os.path.join("demo", "cards"), "P009")]
    assert "hunter2" not in out + err and "private-q7" not in out + err


def test_a_yaml_file_outside_any_pack_that_links_out_is_not_quoted(project, tmp_path, knap):
    """A stray YAML file that looks like content gets P001 at line 1, which quotes line 1: not through a link."""
    secret = write_tree(tmp_path / "private-q7", {"creds.yaml": "API_TOKEN: hunter2\nkind: card\n"})
    (project / "stray.yaml").symlink_to(secret / "creds.yaml")
    code, out, err = knap("lint", ".", "--no-cache")
    assert code == 1 and "stray.yaml:1:1: P001" in out
    assert "hunter2" not in out + err and "private-q7" not in out + err


def test_a_link_that_stays_inside_the_pack_is_read(project, knap):
    write_tree(project / "demo", {"notes/card.txt": CARD.replace("axe", "adze")})
    (project / "demo" / "more.yaml").symlink_to(Path("notes") / "card.txt")
    code, out, _ = knap("lint", "demo", "--no-cache", "--format", "json")
    assert code == 0, out


def test_a_pack_linked_into_a_content_folder_is_linted_only_when_named(project, tmp_path, knap):
    """A link in a folder of packs leading out of it is not followed (as when a pack id is looked up): one
    P009 that quotes nothing of the target; the linked pack's own path, named by the user, is linted."""
    elsewhere = write_tree(
        tmp_path / "dev" / "linked",
        {"pack.yaml": MINIMAL_PACK.replace("demo", "linked"), "rules.yaml": MINIMAL_RULES, "cards.yaml": BROKEN_CARD},
    )
    (project / "content").mkdir()
    (project / "content" / "linked").symlink_to(elsewhere, target_is_directory=True)
    code, out, _ = knap("lint", "content", "--no-cache", "--format", "json")
    assert code == 1 and [d["code"] for d in json.loads(out)["diagnostics"]] == ["P009"], out
    assert "dev" not in out
    code, out, _ = knap("lint", "content/linked", "--no-cache", "--format", "json")
    assert code == 1 and [d["code"] for d in json.loads(out)["diagnostics"]] == ["S002"], out


def test_the_reader_refuses_links_out_of_its_root(tmp_path):
    root = write_tree(tmp_path / "pack", {"a.yaml": "a: 1\n", "sub/b.yaml": "b: 1\n"})
    outside = write_tree(tmp_path / "out", {"c.yaml": "c: 1\n"})
    (root / "in.yaml").symlink_to(root / "sub" / "b.yaml")
    (root / "out.yaml").symlink_to(outside / "c.yaml")
    (root / "dir").symlink_to(outside, target_is_directory=True)
    reader = confine.Root(root)
    assert reader.read(str(root / "a.yaml"), 100) == b"a: 1\n"
    assert reader.read(str(root / "in.yaml"), 100) == b"b: 1\n"
    for path in (root / "out.yaml", root / "dir" / "c.yaml", root / "dir"):
        with pytest.raises(confine.LinkOutside):
            reader.read(str(path), 100)
    os.mkfifo(root / "fifo.yaml")
    assert reader.read(str(root / "fifo.yaml"), 100) is None  # a FIFO is not opened for reading


# ------------------------------------------------------------------------------ 3. no cache changes a verdict
def _cache_files(folder: Path, part: str) -> list[Path]:
    return sorted(folder.glob(f"{part}-*.json"))


def _edit(path: Path, change):
    """Change the JSON body of a cache file, keeping whatever header line it has: what a stranger can do."""
    raw = path.read_text(encoding="utf-8")
    header, body = raw.split("\n", 1) if not raw.startswith("{") else ("", raw)
    data = json.loads(body)
    change(data)
    path.write_text((header + "\n" if header else "") + json.dumps(data, separators=(",", ":")), encoding="utf-8")


def _touch(pack: Path):
    for path in pack.rglob("*.yaml"):
        os.utime(path)


def test_a_tampered_verdict_is_not_believed(project, knap):
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    cache = project / "cache"
    code, first, _ = knap("lint", "demo", "--cache-dir", cache)
    assert code == 1 and "S002" in first
    (summary,) = _cache_files(cache, "pack")
    _edit(summary, lambda data: data.update(diagnostics=[]))
    _touch(project / "demo")
    code, out, _ = knap("lint", "demo", "--cache-dir", cache)
    assert (code, out) == (1, first)


def test_tampered_file_results_are_not_believed(project, knap):
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    cache = project / "cache"
    code, first, _ = knap("lint", "demo", "--cache-dir", cache)
    assert code == 1

    def clear(data):
        for entry in data["results"].values():
            entry["result"]["d"] = []

    _edit(_cache_files(cache, "files")[0], clear)
    _edit(_cache_files(cache, "pack")[0], lambda data: data.update(key="stale"))
    code, out, _ = knap("lint", "demo", "--cache-dir", cache)
    assert (code, out) == (1, first)


def test_a_cache_signed_with_another_key_is_ignored(project, knap, tmp_path, monkeypatch):
    """A stranger's cache, made on their machine with their key, claims the broken pack is clean."""
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    cache = project / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "stranger"))
    assert knap("lint", "demo", "--cache-dir", cache)[0] == 1
    root = (project / "demo").resolve()
    forger = lint_cache.Cache(cache)
    forged = forger.load(root, "pack")
    forger.save(root, "pack", {**{k: v for k, v in forged.items() if k != "engine"}, "diagnostics": []})
    assert knap("lint", "demo", "--cache-dir", cache)[0] == 0  # the stranger's own knap believes it
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "me"))
    code, out, _ = knap("lint", "demo", "--cache-dir", cache)
    assert code == 1 and "S002" in out


def test_the_key_is_private_and_outside_the_project(project, knap, user_cache):
    assert knap("lint", "demo")[0] == 0
    (key,) = [p for p in (user_cache / "knap").iterdir() if p.is_file()]
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert not any("key" in p.name for p in (project / ".knap_cache").iterdir())


def test_without_a_place_for_the_key_lint_runs_without_a_cache(project, knap, monkeypatch, tmp_path):
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "not-a-folder"))
    monkeypatch.setenv("HOME", str(tmp_path / "not-a-folder"))
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    for _ in range(2):
        assert knap("lint", "demo")[0] == 1
    assert not (project / ".knap_cache").exists()


def test_a_key_others_can_read_is_not_trusted(project, knap, user_cache):
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    assert knap("lint", "demo")[0] == 1
    (key,) = [p for p in (user_cache / "knap").iterdir() if p.is_file()]
    key.chmod(0o644)
    _edit(_cache_files(project / ".knap_cache", "pack")[0], lambda data: data.update(diagnostics=[]))
    assert knap("lint", "demo")[0] == 1


WRONG_SHAPES = {
    "empty": b"",
    "truncated": None,  # the first half of the real file
    "not json": b"knap-cache\n{{{{",
    "a list": b"[1, 2, 3]",
    "diagnostics are numbers": {"diagnostics": [1, 2, 3]},
    "diagnostics are not a list": {"diagnostics": {"code": "S002"}},
    "a diagnostic with a wrong field": {"diagnostics": [{"code": "S002", "message": 1, "line": "x"}]},
    "stats are a string": {"stats": "many"},
    "files are a list": {"files": [1]},
    "a file entry is a number": {"files": {"demo/cards.yaml": 7}},
    "extends are a number": {"extends": 3},
    "key is a number": {"key": 12},
}


def _signed(cache: Path, root: Path, body: bytes, part: str = "pack"):
    """Write `body` as the cache part of `root`, signed with this machine's key: a shape that only a bug
    could produce, since nobody else can sign."""
    lint_cache.Cache(cache).store(root, part, body)


@pytest.mark.parametrize("signed", [False, True], ids=["unsigned", "signed"])
@pytest.mark.parametrize("shape", list(WRONG_SHAPES))
def test_a_cache_of_the_wrong_shape_is_ignored_and_rebuilt(project, knap, shape, signed):
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    cache = project / "cache"
    code, first, _ = knap("lint", "demo", "--cache-dir", cache)
    assert code == 1
    (summary,) = _cache_files(cache, "pack")
    wrong = WRONG_SHAPES[shape]
    if isinstance(wrong, dict):
        _edit(summary, lambda data: data.update(wrong))
        raw = summary.read_bytes()
        body = raw.split(b"\n", 1)[1] if not raw.startswith(b"{") else raw
    else:
        body = summary.read_bytes()[: len(summary.read_bytes()) // 2] if wrong is None else wrong
        summary.write_bytes(body)
    if signed:
        _signed(cache, (project / "demo").resolve(), body)
    for _ in range(2):  # ignored, then rebuilt: the next run is served from a sound cache
        code, out, err = knap("lint", "demo", "--cache-dir", cache)
        assert (code, out) == (1, first) and "E000" not in out + err


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def _kind(value) -> str:
    return "int" if type(value) is int else type(value).__name__


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_signed_caches_of_the_wrong_shape_never_change_the_verdict(project, knap, data):
    """A value of another type anywhere in a signed summary or file-results part (what only a bug could
    write): never an E000, and the verdict stays, except inside the documents and compiled texts a file
    result carries: their shape is the checks' own business, and a signed entry is this user's own word."""
    write_tree(project / "demo", {"cards.yaml": BROKEN_CARD})
    cache = project / "cache"
    for part in ("pack", "files"):
        for path in _cache_files(cache, part):
            path.unlink()
    code, first, _ = knap("lint", "demo", "--cache-dir", cache)
    assert code == 1
    root = (project / "demo").resolve()
    part = data.draw(st.sampled_from(["pack", "files"]))
    current = lint_cache.Cache(cache).load(root, part)
    assert current, "the run should have left a sound cache"
    where = data.draw(st.sampled_from(list(_paths(current))))
    original = _get(current, where)
    _set(current, where, data.draw(_JSON.filter(lambda new: _kind(new) != _kind(original))))
    if part == "files":  # the verdict is read from the summary while it matches: make the files part count
        summary = lint_cache.Cache(cache).load(root, "pack")
        lint_cache.Cache(cache).save(root, "pack", {**summary, "key": "stale"})
    lint_cache.Cache(cache).store(root, part, json.dumps(current).encode())
    code, out, err = knap("lint", "demo", "--cache-dir", cache)
    assert "E000" not in out + err and "internal error" not in err
    if not _inside_content(where):
        assert (code, out) == (1, first)


def _inside_content(path) -> bool:
    """Whether `path` leads into a document's data or a compiled text of a file result."""
    for at, step in enumerate(path[:-2]):
        if step in ("docs", "texts") and len(path) > at + 2 and path[at + 2] == (1 if step == "docs" else 2):
            return True
    return False


def _get(value, path):
    for step in path:
        value = value[step]
    return value


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "engine":
                yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, prefix + (index,))


def _set(value, path, new):
    if not path:
        value.clear()
        if isinstance(new, dict):
            value.update(new)
        return
    for step in path[:-1]:
        value = value[step]
    value[path[-1]] = new


def test_the_finding_names_the_link_not_where_it_leads(project, tmp_path, knap):
    """The finding names the link, never where it leads."""
    secret = _secret(tmp_path)
    (project / "demo" / "env.yaml").symlink_to(secret)
    _code, out, _ = knap("lint", "demo", "--no-cache")
    assert re.search(r"demo/env\.yaml:1:1: P009 ", out) and "private-q7" not in out
