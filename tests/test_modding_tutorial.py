"""The modder's tutorial, docs/modding.md, as a reader follows it.

The tutorial builds the variant pack `docs/modding/short-game` step by step; its wrong turns are small
files in `docs/modding/mistakes/<code>-<what>/`, laid out as in the pack. A comment right before a code
block says what the block is (the top of docs/modding.md explains the markers); these tests check each
block against the repository and against what `knap lint` really prints at that point of the tutorial.
Shown paths are as a reader sees them from the repository root: the test lints from a temporary folder
with the same layout, and writes the built-in Cro-Magnon pack's folder as `content/`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine.content import pack_search
from engine.files import resources
from engine.runtime import rules as rules_module
from engine.runtime.game import Game

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "modding.md"
FINISHED = REPO / "docs" / "modding" / "short-game"
MISTAKES = REPO / "docs" / "modding" / "mistakes"
READER_PACK = "docs/modding/short-game"  # where the reader writes it, from the repository root

BLOCK = re.compile(
    r"^<!-- (?P<what>file|end-of|line (?P<line>\d+) of|lint|example)(?:: (?P<arg>\S+))? -->\n"
    r"```[\w-]*\n(?P<body>.*?)^```$",
    re.MULTILINE | re.DOTALL,
)
ANY_MARKER = re.compile(r"^<!-- (file|end-of|line \d+ of|lint|example)\b.*-->$", re.MULTILINE)
HEADER = re.compile(r"^\S+:\d+:\d+: [A-Z]\d{3} .*$", re.MULTILINE)  # `file:line:col: CODE message`


@dataclass(frozen=True)
class Block:
    what: str  # file, end-of, line, lint, example
    arg: str | None  # a repository path, or for `lint` the mistake's folder name (or `clean`)
    line: int | None  # for `line N of`
    body: str
    at: int  # its line in docs/modding.md

    def __str__(self):
        return f"docs/modding.md:{self.at} ({self.what}: {self.arg})"


def _blocks() -> list[Block]:
    text = DOC.read_text(encoding="utf-8")
    found = []
    for match in BLOCK.finditer(text):
        what = "line" if match["line"] else match["what"]
        found.append(
            Block(
                what,
                match["arg"],
                int(match["line"]) if match["line"] else None,
                match["body"],
                text.count("\n", 0, match.start()) + 1,
            )
        )
    return found


BLOCKS = _blocks()
LINTS = [(n, b) for n, b in enumerate(BLOCKS) if b.what == "lint"]


def _same(a: str, b: str) -> bool:
    """Equal texts, a trailing newline aside."""
    return a.rstrip("\n") == b.rstrip("\n")


def _repo_text(path: str) -> str:
    return (REPO / path).read_text(encoding="utf-8")


def _in_pack(path: str) -> str:
    """Where the reader writes a shown file: its path inside the pack."""
    parts = Path(path).parts
    if path.startswith(READER_PACK + "/"):
        return "/".join(parts[3:])
    assert path.startswith("docs/modding/mistakes/") and len(parts) > 4, f"not a tutorial file: {path}"
    return "/".join(parts[4:])


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _follow(tmp_path: Path, until: int | None = None) -> Path:
    """Do what the tutorial says up to block `until`: write each file it shows, add the lines it adds,
    change the lines it changes. Returns the reader's pack (inside `tmp_path`, laid out as the repository)."""
    pack = tmp_path / READER_PACK
    pack.mkdir(parents=True, exist_ok=True)
    for block in BLOCKS[:until]:
        if block.what in ("lint", "example"):
            continue
        target = pack / _in_pack(block.arg)
        target.parent.mkdir(parents=True, exist_ok=True)
        if block.what == "file":
            target.write_text(block.body, encoding="utf-8")
        elif block.what == "end-of":
            target.write_text(target.read_text(encoding="utf-8") + block.body, encoding="utf-8")
        else:
            lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
            assert 1 <= block.line <= len(lines), f"{block}: the reader's file has {len(lines)} lines"
            lines[block.line - 1] = block.body
            target.write_text("".join(lines), encoding="utf-8")
        assert _same(target.read_text(encoding="utf-8"), _repo_text(block.arg)), (
            f"{block}: after this step the reader's {_in_pack(block.arg)} is not {block.arg}"
        )
    return pack


def _normalise(output: str) -> str:
    """The built-in pack's files as a reader sees them from a checkout: `content/...`."""
    for root in {resources.root("content"), resources.root("content").resolve()}:
        output = output.replace(str(root) + os.sep, "content/")
    return output


@pytest.fixture
def lint_reader_pack(knap, tmp_path, monkeypatch):
    """Run `knap lint docs/modding/short-game` from `tmp_path`, as the reader does from the repository
    root; returns (exit code, what it printed, the codes found)."""

    def run():
        monkeypatch.chdir(tmp_path)
        code, out, err = knap("lint", READER_PACK, "--no-cache")
        json_code, json_out, _ = knap("lint", READER_PACK, "--no-cache", "--format", "json")
        assert json_code == code
        return code, _normalise(out + err), {d["code"] for d in json.loads(json_out)["diagnostics"]}

    return run


# ------------------------------------------------------------------------------ the doc and the repository
def test_every_marked_block_is_the_repository_file_it_names():
    """Protects the promise that the tutorial shows real files: a `file:` block is the file byte for byte
    (a trailing newline aside), an `end-of:` block its end, a `line N of:` block its line N; every marker
    is well formed and stands before a block; every YAML block is marked; every mistake file is shown and
    every mistake has its lint output in the doc."""
    text = DOC.read_text(encoding="utf-8")
    assert len(ANY_MARKER.findall(text)) == len(BLOCKS), "a marker is misspelt or not right before a ``` block"
    marked_yaml = sum(1 for b in BLOCKS if b.what != "lint")
    assert text.count("```yaml\n") == marked_yaml, "a ```yaml block has no marker: it would go unchecked"
    shown = set()
    for block in BLOCKS:
        if block.what in ("lint", "example"):
            continue
        assert (REPO / block.arg).is_file(), f"{block}: no such file"
        file_text = _repo_text(block.arg)
        shown.add(block.arg)
        if block.what == "file":
            assert _same(block.body, file_text), f"{block} differs from the file"
        elif block.what == "end-of":
            assert file_text.endswith(block.body), f"{block} is not the end of the file"
        else:
            assert file_text.splitlines(keepends=True)[block.line - 1] == block.body, f"{block} is not that line"
    mistake_files = {p.relative_to(REPO).as_posix() for p in MISTAKES.rglob("*") if p.is_file()}
    assert mistake_files and mistake_files <= shown, f"mistake files the doc does not show: {mistake_files - shown}"
    names = [b.arg for _, b in LINTS if b.arg != "clean"]
    assert sorted(names) == sorted(p.name for p in MISTAKES.iterdir()), "one lint output per mistake folder"


def test_following_the_tutorial_builds_the_finished_pack(tmp_path):
    """Protects the tutorial's end point: doing every step as written gives exactly the files of
    docs/modding/short-game, no more and no fewer, so every file of the finished pack is shown."""
    pack = _follow(tmp_path)
    assert _files(pack) == _files(FINISHED)


@pytest.mark.parametrize("index", [n for n, _ in LINTS], ids=[f"lint{k}-{b.arg}" for k, (_, b) in enumerate(LINTS, 1)])
def test_each_lint_output_is_what_lint_prints_at_that_step(tmp_path, lint_reader_pack, index):
    """Protects every lint output the tutorial shows: at that point of the tutorial, `knap lint` prints
    exactly those lines (file:line:col, code, message, quoted line, caret, hint) and exits 1 with the
    mistake's code, or 0 with nothing to say once the mistake is fixed."""
    block = BLOCKS[index]
    _follow(tmp_path, index)
    code, printed, codes = lint_reader_pack()
    assert _same(printed, block.body), f"{block}: knap lint now prints\n{printed}"
    if block.arg == "clean":
        assert code == 0 and codes == set()
    else:
        assert code == 1 and block.arg.split("-")[0].upper() in codes


@pytest.mark.parametrize("mistake", sorted(p.name for p in MISTAKES.iterdir()))
def test_a_mistake_on_the_finished_pack_is_found_and_the_finished_file_fixes_it(tmp_path, lint_reader_pack, mistake):
    """Protects the mistake files as stand-alone examples: laid over a copy of the finished pack, each
    gives (at least) the findings the tutorial shows for it, at the same line and column, and exit 1;
    putting the finished files back makes the pack clean again."""
    shown = next(b for _, b in LINTS if b.arg == mistake)
    pack = tmp_path / READER_PACK
    shutil.copytree(FINISHED, pack)
    overlay = _files(MISTAKES / mistake)
    for name, data in overlay.items():
        (pack / name).write_bytes(data)
    code, printed, codes = lint_reader_pack()
    assert code == 1 and mistake.split("-")[0].upper() in codes
    assert set(HEADER.findall(shown.body)) <= set(HEADER.findall(printed)), printed
    for name in overlay:
        shutil.copyfile(FINISHED / name, pack / name)
    assert lint_reader_pack() == (0, f"All checks passed ({len(_files(FINISHED))} files).\n", set())


def test_the_finished_pack_lints_clean_from_the_repository():
    """Protects the shipped variant: the real `knap lint` command, run in the repository as the tutorial
    says, finds nothing at all in docs/modding/short-game (no error, no warning)."""
    done = subprocess.run(
        [sys.executable, "-m", "engine.commands.cli", "lint", READER_PACK, "--no-cache", "--format", "json"],
        check=False,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["diagnostics"] == []


# ------------------------------------------------------------------------------ the variant in play
def test_the_variant_overrides_the_numbers_and_deals_the_new_cards():
    """Protects what the variant changes: its parameters are the overridden ones (and Cro-Magnon's are
    untouched), the patched texts say the new numbers, and at the start of a game the 2 Aurochs lie in
    the Plains deck and the Fire-hardened Spear in the Weapons technology deck."""
    variant = rules_module.load(FINISHED)
    base = rules_module.load(pack_search.builtin_pack("cro-magnon"))
    for players, (goal, base_goal) in {2: (20, 30), 3: (16, 24), 4: (14, 22)}.items():
        assert variant.parameters(players)["victory_points"] == goal
        assert variant.parameters(players)["hand_limit"] == 7
        assert base.parameters(players)["victory_points"] == base_goal
        assert base.parameters(players)["hand_limit"] == 5
    assert "down to 7 plus" in next(p for p in variant.phases["turn_end"] if p["id"] == "hand_limit_check")["text"]
    assert variant.functions["hand_limit_of"]["text"].startswith("7 plus")
    assert next(e for e in variant.ends if e["id"] == "victory_point_goal")["text"].startswith("Reaching 20/16/14")
    for players in (2, 3):
        game = Game.new(variant, players, 1)
        where = [game.state["loc"][n] for n, card in enumerate(variant.instances) if card == "aurochs"]
        assert where == ["plains", "plains"]
        where = [game.state["loc"][n] for n, card in enumerate(variant.instances) if card == "fire_hardened_spear"]
        assert where == ["weapons_deck"]
        assert sum(1 for n in game.state["zones"]["plains"] if n is not None) == 21
        assert sum(1 for n in game.state["zones"]["weapons_deck"] if n is not None) == 13


def _sim(knap, tmp_path, pack, players) -> dict:
    out = tmp_path / f"{Path(pack).name}-{players}.json"
    code, _, _ = knap(
        "sim",
        pack,
        "-n",
        "20",
        "--players",
        str(players),
        "--agents",
        "random",
        "--seed",
        "0",
        "--jobs",
        "2",
        "--json",
        out,
    )
    assert code == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_variant_plays_and_its_games_are_shorter(knap, tmp_path):
    """Protects the tutorial's last step: 20 seeded games of random bots at 2 and at 3 players end by the
    victory point goal, none in an error or stalled; and on the same seeds the games are shorter than
    Cro-Magnon's, and by far, so the lower thresholds really are in force (without them, the bigger hand
    and the new cards shorten the games by less than a tenth)."""
    summaries = {players: _sim(knap, tmp_path, FINISHED, players) for players in (2, 3)}
    for players, summary in summaries.items():
        assert summary["pack"] == "short_game" and summary["players"] == players
        assert (summary["played"], summary["errors"]) == (20, 0), summary["error_samples"]
        assert summary["stalled"]["count"] == 0
        assert summary["endings"] == {"victory_point_goal": 20}
    base = _sim(knap, tmp_path, pack_search.builtin_pack("cro-magnon"), 3)
    assert base["played"] == 20 and base["seed"] == summaries[3]["seed"]
    assert summaries[3]["turns"]["mean"] < 0.85 * base["turns"]["mean"], (summaries[3]["turns"], base["turns"])
