"""Shared helpers: run the `knap` command in-process and read its JSON report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.commands.cli import main

pytest.register_assert_rewrite("lockstep")  # its comparisons of two games say what differs, as a test's do

REPO = Path(__file__).resolve().parent.parent


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def tiny_manifest(pack_id: str = "tiny") -> str:
    """The manifest of a small test pack for 1 or 2 players."""
    return f"kind: pack\nid: {pack_id}\nname: {pack_id.title()}\nversion: 1.0.0\nplayers: {{min: 1, max: 2}}\n"


def goal_end(goal="3", counter: str = "vp") -> str:
    """An end rule document: the game ends as soon as a player has `goal` of `counter`; most wins."""
    return (
        f"kind: end\nid: goal\nname: Goal\ntrigger: me.{counter} >= {goal}\nthen: immediate\nresult: most\n"
        f"counter: {counter}\n"
    )


def vp_and_goal(goal="3") -> str:
    """A `vp` counter every player has and the end at `goal` vp (most wins): the scoring of most small packs."""
    return "kind: counter\nid: vp\nname: VP\nowner: player\n---\n" + goal_end(goal)


def one_action_rules(effect: str, *, goal="3", action: str = "", before: str = "", extra: str = "") -> str:
    """The rules of a pack whose one action `act` does `effect`: a `vp` counter and an end at `goal` vp;
    `action` adds lines to the action, `before` and `extra` add documents before and after."""
    body = "\n".join("  " + line for line in effect.splitlines())
    return (
        before
        + ("---\n" if before else "")
        + "kind: counter\nid: vp\nname: VP\nowner: player\n---\n"
        + goal_end(goal)
        + "---\n"
        + "kind: action\nid: act\nname: Act\n"
        + (action + "\n" if action else "")
        + f"effect: |\n{body}\n"
        + (f"---\n{extra}" if extra else "")
    )


# one technology card, for the lint tests
CARD = """kind: card
id: axe
name: Axe
type: technology
deck: deck
stats: {vp: 1}
effect: |  # knap: ignore[D008] -- these small packs have no rule that resolves a card
  gain card.vp vp
"""

MINIMAL_PACK = """kind: pack
id: demo
name: Demo
version: 0.1.0
players: {min: 2, max: 4}
parameters:
  hand_limit: {default: 5}
"""

# a deck and a hand every player has, for the small packs of the tests
DECK_AND_HAND = """kind: zone
id: deck
name: Deck
type: deck
---
kind: zone
id: hand
name: Hand
type: hand
owner: player
"""

MINIMAL_RULES = (
    DECK_AND_HAND
    + """---
kind: counter
id: vp
name: Victory points
owner: player
"""
)


@pytest.fixture(autouse=True, scope="session")
def _own_user_cache_folder(tmp_path_factory):
    """knap keeps its cache key in the user's cache folder (engine/lint/cache.py): tests, and the
    processes they start, use one of their own and never touch the real home."""
    previous = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("user-cache"))
    yield
    if previous is None:
        os.environ.pop("XDG_CACHE_HOME", None)
    else:
        os.environ["XDG_CACHE_HOME"] = previous


@pytest.fixture(autouse=True)
def _runtime_classes_left_as_found():
    """A test that patches the runtime's classes by hand must put back what it found: a classmethod put back as a
    method bound to its class (`Game.new = Game.new`) makes a subclass's `new` build the base class, and the tests
    after it test something else."""
    from engine.runtime.game import Game
    from engine.runtime.table import Table

    found = {cls: dict(vars(cls)) for cls in (Game, Table)}
    yield
    for cls, before in found.items():
        now = vars(cls)
        changed = sorted(name for name in before.keys() | now.keys() if before.get(name) is not now.get(name))
        assert not changed, f"the test left {cls.__name__} changed: {changed}"


@pytest.fixture
def make_pack(tmp_path):
    """Write a pack folder `demo/` (manifest, a deck, a hand, vp) plus the given files; returns its path."""

    def make(files: dict[str, str] | None = None, manifest: str = MINIMAL_PACK) -> Path:
        root = tmp_path / "demo"
        return write_tree(root, {"pack.yaml": manifest, "rules.yaml": MINIMAL_RULES, **(files or {})})

    return make


@pytest.fixture
def knap(capsys):
    """Run `knap ARGS`; returns (exit code, stdout, stderr)."""

    def run(*args: str):
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert "Traceback" not in err and "internal error" not in err, err
        return code, out, err

    return run


def knap_process(*args, stdin: str = "", timeout: float = 600) -> subprocess.CompletedProcess:
    """`knap ARGS` in a process of its own, in the repository, with `stdin` typed at it (a person at the table)."""
    return subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", *(str(a) for a in args)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=REPO,
        check=False,
    )


@pytest.fixture
def lint_json(knap):
    """Lint paths without the cache; returns (exit code, list of (file name, line, col, code, message))."""

    def run(*paths, extra=()):
        code, out, _ = knap("lint", *paths, "--no-cache", "--format", "json", *extra)
        report = json.loads(out)
        return code, [
            (Path(d["file"]).name, d["line"], d["col"], d["code"], d["message"]) for d in report["diagnostics"]
        ]

    return run
