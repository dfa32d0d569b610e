"""`.pre-commit-hooks.yaml` works with the real pre-commit, as another repository of cards would use it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def _pre_commit() -> list[str]:
    found = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    if found is None or not (REPO / ".git").exists():
        pytest.skip("needs pre-commit and a git checkout of Knapper")
    return [found]


def test_hook_reports_a_broken_card_and_passes_a_clean_one(tmp_path):
    command = _pre_commit()
    cards = tmp_path / "cards"
    (cards / "packs" / "demo").mkdir(parents=True)
    (cards / "packs" / "demo" / "pack.yaml").write_text(
        "kind: pack\nid: demo\nname: Demo\nversion: 0.1.0\nplayers: {min: 2, max: 4}\n"
    )
    zone = cards / "packs" / "demo" / "zones.yaml"
    zone.write_text("kind: zone\nid: deck\nname: Deck\ntype: deck\ncolour: red\n")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "KNAPPER_PURE_PYTHON": "1",  # the hook's own install of Knapper lints; built uncompiled, in seconds
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    subprocess.run(["git", "init", "-q"], cwd=cards, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=cards, check=True, env=env)

    def run():
        return subprocess.run(
            [*command, "try-repo", str(REPO), "knap-lint", "--all-files"],
            cwd=cards,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )

    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "zones.yaml:5:1: S002 `colour` is not a property of a zone" in failed.stdout
    zone.write_text("kind: zone\nid: deck\nname: Deck\ntype: deck\n")
    subprocess.run(["git", "add", "-A"], cwd=cards, check=True, env=env)
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr


# ------------------------------------------------------------------------------ the README's hook, verbatim
BASE_MANIFEST = """kind: pack
id: base
name: Base
version: 0.1.0
players: {min: 2, max: 4}
decks:
  deck: {size: 1, composition: {stone: 1}}
"""
VARIANT_DECK = "decks:\n  deck: {size: 2, composition: {antler: 1}}\n"
VARIANT_MANIFEST = "kind: pack\nid: variant\nname: Variant\nversion: 0.1.0\nextends: [base]\n" + VARIANT_DECK
RULES = "kind: zone\nid: deck\nname: Deck\ntype: deck\n"


def _readme_hook() -> str:
    """The YAML block of the README's pre-commit section, as a user would copy it."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("### Use it as a pre-commit hook", 1)[1]
    return re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)


def test_the_readme_hook_refuses_a_commit_that_breaks_a_pack(tmp_path):
    """The README's snippet, written verbatim into a repository of cards (a base pack, a variant adding a
    card to an inherited deck, a CI config): `pre-commit run --all-files` passes; a commit that deletes the
    variant's `decks:` entry is refused (R003 lands in its unchanged card file); a clean one is accepted."""
    command = _pre_commit()
    cards = tmp_path / "cards"
    files = {
        ".pre-commit-config.yaml": _readme_hook(),
        ".github/workflows/ci.yml": "on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n",
        "mkdocs.yml": "site_name: Cards\n",
        "content/base/pack.yaml": BASE_MANIFEST,
        "content/base/rules.yaml": RULES,
        "content/base/cards.yaml": "kind: card\nid: stone\nname: Stone\ntype: resource\ndeck: deck\n",
        "content/variant/pack.yaml": VARIANT_MANIFEST,
        "content/variant/cards.yaml": "kind: card\nid: antler\nname: Antler\ntype: resource\ndeck: deck\n",
    }
    for name, text in files.items():
        (cards / name).parent.mkdir(parents=True, exist_ok=True)
        (cards / name).write_text(text, encoding="utf-8")
    (tmp_path / "gitconfig").write_text("")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "KNAPPER_PURE_PYTHON": "1",  # the hook's own install of Knapper lints; built uncompiled, in seconds
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": str(tmp_path / "gitconfig"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    env.pop("KNAP_PACKS", None)

    def run(*args):
        return subprocess.run(args, cwd=cards, env=env, capture_output=True, text=True, timeout=300, check=False)

    assert run("git", "init", "-q").returncode == 0
    assert run("git", "add", "-A").returncode == 0
    done = run(*command, "run", "--all-files")
    assert done.returncode == 0, done.stdout + done.stderr
    assert run(*command, "install").returncode == 0
    done = run("git", "commit", "-q", "-m", "cards")
    assert done.returncode == 0, done.stdout + done.stderr

    (cards / "content/variant/pack.yaml").write_text(VARIANT_MANIFEST.replace(VARIANT_DECK, ""))
    run("git", "add", "-A")
    refused = run("git", "commit", "-q", "-m", "forget the deck")
    assert refused.returncode != 0, refused.stdout + refused.stderr
    assert "content/variant/cards.yaml:5:7: R003" in refused.stdout + refused.stderr
    assert run("git", "rev-list", "--count", "HEAD").stdout.strip() == "1"

    (cards / "content/variant/pack.yaml").write_text(VARIANT_MANIFEST.replace("name: Variant", "name: Antlers"))
    run("git", "add", "-A")
    accepted = run("git", "commit", "-q", "-m", "rename the variant")
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert run("git", "rev-list", "--count", "HEAD").stdout.strip() == "2"
