"""`.pre-commit-hooks.yaml` works with the real pre-commit, as another repository of cards would use it."""
from __future__ import annotations

import os
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
        "kind: pack\nid: demo\nname: Demo\nversion: 0.1.0\nplayers: {min: 2, max: 4}\n")
    zone = cards / "packs" / "demo" / "zones.yaml"
    zone.write_text("kind: zone\nid: deck\nname: Deck\ntype: deck\ncolour: red\n")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"), "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}
    subprocess.run(["git", "init", "-q"], cwd=cards, check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=cards, check=True, env=env)

    def run():
        return subprocess.run([*command, "try-repo", str(REPO), "knap-lint", "--all-files"], cwd=cards, env=env,
                              capture_output=True, text=True, timeout=600)

    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "zones.yaml:5:1: S002 `colour` is not a property of a zone" in failed.stdout
    zone.write_text("kind: zone\nid: deck\nname: Deck\ntype: deck\n")
    subprocess.run(["git", "add", "-A"], cwd=cards, check=True, env=env)
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr
