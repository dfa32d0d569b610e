"""The house checks, run with the tests so that `pytest` (the README's command, and CI's) enforces them: ruff's
lint rules and format, mypy on the engine, and the layers of the pipeline (import-linter). Their settings are in
pyproject.toml; docs/architecture.md says what the layers are and why."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
CODE = ["engine", "tests", "tools"]


def _tool(name: str) -> str:
    """The tool installed beside this Python (the `test` extra); missing is a failure, not a skip."""
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"`{name}` is not installed: pip install -e '.[test]'"
    return found


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=600, check=False)


def test_ruff_finds_nothing():
    done = _run(_tool("ruff"), "check", "--no-cache", *CODE)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_code_is_formatted():
    done = _run(_tool("ruff"), "format", "--check", "--no-cache", *CODE)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_mypy_finds_nothing_in_the_engine():
    done = _run(_tool("mypy"), "--no-incremental", "--cache-dir", "/dev/null")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_layers_of_the_pipeline_hold():
    done = _run(_tool("lint-imports"), "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.count("KEPT") >= 3, done.stdout  # every contract was checked


def test_the_layer_check_sees_a_broken_layer(tmp_path):
    """The contract fails on a lower layer importing a higher one (the check is not vacuous)."""
    package = tmp_path / "engine"
    for name in ("commands", "balance", "serve", "lsp", "runtime", "lint", "content", "dsl", "files"):
        (package / name).mkdir(parents=True)
        (package / name / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "content" / "packs.py").write_text("from engine.runtime import game\n")
    (package / "runtime" / "game.py").write_text("")
    for shared in ("diagnostics", "fixes", "report", "safe_text", "suggestions", "markdown_tables"):
        (package / f"{shared}.py").write_text("")
    (tmp_path / "pyproject.toml").write_text((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    done = subprocess.run(
        [_tool("lint-imports"), "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "engine.content.packs -> engine.runtime.game" in done.stdout


def test_the_repository_hooks_run_the_same_checks():
    """`pre-commit install` must run what CI runs: every house check has a hook."""
    import yaml

    config = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [hook["entry"] for repo in config["repos"] for hook in repo["hooks"]]
    for needed in ("ruff check", "ruff format", "mypy", "lint-imports", "knap lint"):
        assert any(entry.startswith(needed) for entry in entries), needed
    done = _run(_tool("pre-commit"), "validate-config", ".pre-commit-config.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
