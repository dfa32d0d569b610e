"""Check JSON Schemas against YAML files with a *real* yaml-language-server.

Thin Python wrapper around ``tools/yls/check.mjs`` (see ``tools/yls/README.md``), so tests can
assert what an editor using the schema (VS Code YAML extension, Neovim, Helix, ... all run
yaml-language-server) will actually show: diagnostics and autocompletion.

    from yls import run_yls, complete

    res = run_yls(schema_path, [good_yaml, bad_yaml])
    assert res["schema_errors"] == []
    assert res["files"][str(good_yaml)] == []
    labels = complete(schema_path, some_yaml, line=3, col=1)

    # as an editor is configured: the yaml.schemas of a settings file, several documents, buffers
    res = run_editor(".vscode/settings.json", files, workspace=repo, completions=[(f, 9, 1)])
    # the real ajv, strict mode
    res = run_ajv(schema_paths)   # {"files": {path: {"errors": [...]}}}

Lines and columns are 1-based in and out.  The node dependencies are installed on first use
(``npm ci`` in tools/yls); the calling test is skipped only when ``node``/``npm`` are missing.
Anything else that goes wrong (install failure, server crash, timeout) raises, so a broken
harness fails loudly instead of passing silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
YLS_DIR = REPO / "tools" / "yls"
CHECK_SCRIPT = YLS_DIR / "check.mjs"
_STAMP = YLS_DIR / "node_modules" / ".knapper-yls-installed"

PathLike = str | os.PathLike


class YlsError(RuntimeError):
    """The harness itself failed (install, server crash, timeout, bad output)."""


def _skip(reason: str):
    try:
        import pytest
    except ImportError:  # used outside pytest
        raise YlsError(reason) from None
    pytest.skip(reason)


def _tool(name: str) -> str | None:
    return shutil.which(name)


def _lock_digest() -> str:
    lock = YLS_DIR / "package-lock.json"
    src = lock if lock.exists() else YLS_DIR / "package.json"
    return hashlib.sha256(src.read_bytes()).hexdigest()


@contextlib.contextmanager
def _install_lock():
    """Serialise installs across processes (pytest-xdist workers)."""
    path = Path(tempfile.gettempdir()) / f"knapper-yls-{hashlib.sha1(str(YLS_DIR).encode()).hexdigest()[:12]}.lock"
    with open(path, "w") as fh:
        try:
            import fcntl

            fcntl.flock(fh, fcntl.LOCK_EX)
        except ImportError:  # non-POSIX: best effort
            pass
        yield


def ensure_installed() -> str:
    """Make sure tools/yls/node_modules matches the lock file; return the node executable."""
    node, npm = _tool("node"), _tool("npm")
    if not node or not npm:
        _skip("yaml-language-server harness needs node and npm on PATH")
    digest = _lock_digest()
    if _STAMP.exists() and _STAMP.read_text().strip() == digest:
        return node
    with _install_lock():
        if _STAMP.exists() and _STAMP.read_text().strip() == digest:
            return node
        if (YLS_DIR / "package-lock.json").exists():
            cmd = [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"]
        else:
            cmd = [npm, "install", "--no-audit", "--no-fund", "--loglevel=error"]
        proc = subprocess.run(cmd, cwd=YLS_DIR, capture_output=True, text=True, timeout=600, check=False)
        if proc.returncode != 0:
            raise YlsError(
                f"{' '.join(cmd)} failed in {YLS_DIR} (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
            )
        _STAMP.write_text(digest + "\n")
    return node


def _run(args: list[str], timeout: float, settle_ms: int | None = None) -> dict:
    node = ensure_installed()
    cmd = [node, str(CHECK_SCRIPT), "--timeout", str(timeout)]
    if settle_ms is not None:
        cmd += ["--settle", str(settle_ms)]
    cmd += args
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 15, check=False)
    except subprocess.TimeoutExpired as exc:  # check.mjs has its own cap; this is the backstop
        raise YlsError(f"check.mjs did not finish: {' '.join(cmd)}") from exc
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise YlsError(
            f"check.mjs exit {proc.returncode}, no JSON output.\nstdout: {proc.stdout}\nstderr: {proc.stderr}"
        ) from None
    if proc.returncode != 0 or result.get("error"):
        raise YlsError(
            f"check.mjs exit {proc.returncode}: {result.get('error')}\n{json.dumps(result, indent=1)}\nstderr: {proc.stderr}"
        )
    return result


def run_yls(
    schema_path: PathLike,
    yaml_paths: Iterable[PathLike],
    *,
    timeout: float = 60,
    modeline: bool = False,
    settle_ms: int | None = None,
) -> dict:
    """Validate YAML files against a schema with yaml-language-server.

    Returns ``{"files": {str(path): [{"line", "col", "endLine", "endCol", "severity", "code",
    "message", ...}]}, "schema_errors": [...], "associated": {str(path): [schema uris]}, ...}``.
    ``files`` is keyed by ``str(p)`` for each given path.  ``schema_errors`` lists problems with
    the schema itself (meta-validation failures, load failures, files the schema did not get
    associated with); when it is non-empty the server did NOT validate the documents, so callers
    should assert it is empty first.

    Each call starts one server (~1 s) and waits ``settle_ms`` (default 1500) after the last
    diagnostics message, so pass many files in one call rather than one call per file.
    """
    paths = [str(p) for p in yaml_paths]
    if not paths:
        raise ValueError("run_yls needs at least one YAML file")
    args = (["--modeline"] if modeline else []) + [str(schema_path), *paths]
    return _run(args, timeout, settle_ms)


def complete(
    schema_path: PathLike,
    yaml_path: PathLike,
    line: int,
    col: int,
    *,
    timeout: float = 60,
    modeline: bool = False,
    settle_ms: int | None = None,
) -> list[str]:
    """Labels yaml-language-server offers for completion at 1-based ``line``/``col``."""
    args = (["--modeline"] if modeline else []) + [str(schema_path), "--complete", str(yaml_path), str(line), str(col)]
    result = _run(args, timeout, settle_ms)
    if result["schema_errors"]:
        raise YlsError(f"schema problems, completion is disabled by the server: {result['schema_errors']}")
    return result["labels"]


def run_editor(
    settings_path: PathLike,
    yaml_paths: Iterable[PathLike],
    *,
    workspace: PathLike,
    buffers: dict[PathLike, PathLike] | None = None,
    completions: Iterable[tuple[PathLike, int, int]] = (),
    timeout: float = 60,
    settle_ms: int | None = None,
) -> dict:
    """One yaml-language-server session configured like an editor: the ``yaml.schemas`` of a VS Code
    style settings file, relative schema paths resolved against ``workspace``, files opened as they are
    (their modelines included).

    ``buffers`` maps a path (it need not exist; globs match it where it would be) to a file whose text is
    opened there, like an unsaved editor buffer.  Each ``(file, line, col)`` of ``completions`` is
    answered in ``result["completions"]`` in order, as ``{"file", "line", "col", "labels"}``.
    Files are keyed by ``str(path)`` in ``result["files"]``."""
    args = ["--workspace", str(workspace), "--settings", str(settings_path), *(str(p) for p in yaml_paths)]
    for path, source in (buffers or {}).items():
        args += ["--buffer", f"{path}={source}"]
    for path, line, col in completions:
        args += ["--complete", str(path), str(line), str(col)]
    return _run(args, timeout, settle_ms)


def run_ajv(schema_paths: Iterable[PathLike], *, timeout: float = 60) -> dict:
    """Compile schemas with the real ajv in strict mode (``tools/yls/ajv_check.mjs``): ``{"ajv": version,
    "files": {str(path): {"draft", "errors": [...]}}}``; ``errors`` is empty when ``new Ajv({strict: true})``
    (``Ajv2020`` for 2020-12) compiles the schema."""
    node = ensure_installed()
    cmd = [node, str(YLS_DIR / "ajv_check.mjs"), *(str(p) for p in schema_paths)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as exc:
        raise YlsError(f"ajv_check.mjs did not finish: {' '.join(cmd)}") from exc
    try:
        result = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise YlsError(f"ajv_check.mjs exit {proc.returncode}, no JSON output.\nstderr: {proc.stderr}") from None
    if proc.returncode not in (0, 1):
        raise YlsError(f"ajv_check.mjs exit {proc.returncode}: {proc.stderr}")
    return result
