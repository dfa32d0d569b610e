"""`knap schema editor`: associate the document schema with every pack file, for every document.

yaml-language-server (behind the VS Code YAML extension, Neovim's yamlls, Helix) applies a
`# yaml-language-server: $schema=` modeline to the first document of a file only; documents 2..N of a
multi-document file get no checks and no completion. A `yaml.schemas` setting (schema -> globs)
applies to every document, and the modeline still wins for document 1. So knap writes that setting,
pointing at `document.schema.json`, which picks the schema of each document by its `kind`.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.files import jsonload, resources
from engine.files.atomic import WriteError, write_text

SETTINGS_KEY = "yaml.schemas"


class SetupError(Exception):
    """Bad input for the editor set-up; `usage` tells a command-line mistake (exit 2) from a bad file (exit 1)."""

    def __init__(self, message: str, hint: str = "", usage: bool = True):
        super().__init__(message)
        self.hint = hint
        self.usage = usage


def default_schema() -> Path:
    """The built-in document schema: in a checkout, the repository's `schemas/`, as the modelines name it."""
    return resources.root("schemas") / "document.schema.json"


def globs(root: Path, folders: list[Path]) -> list[str]:
    """One glob per folder (its YAML files at any depth), relative to the workspace root.

    The server prefixes each glob with `**/` and matches it against the document URI as the editor
    sends it, percent-encoded, and editors encode differently (VS Code `(` as `%28`, Helix and Neovim
    not); so a character other than a letter, digit, `-`, `.` or `_` matches either form."""
    root = root.resolve()
    out = []
    for folder in folders:
        resolved = folder.resolve()
        if not resolved.is_dir():
            raise SetupError(f"`{folder}` is not a folder", "name the folders that hold your packs")
        if not resolved.is_relative_to(root):
            raise SetupError(
                f"`{folder}` is not inside the workspace `{root}`",
                "run from the workspace folder, or give it with --root",
            )
        relative = resolved.relative_to(root).parts
        prefix = "".join(_either_form(part) + "/" for part in relative)
        out.append(f"{prefix}**/*.{{yaml,yml}}")
    return out


def _either_form(segment: str) -> str:
    """A glob matching the path segment written plainly or percent-encoded, character by character."""
    out = []
    for char in segment:
        if char.isascii() and (char.isalnum() or char in "-._"):
            out.append(char)
        else:
            plain = "\\" + char if char.isascii() else char  # a backslash makes any ASCII character literal
            encoded = "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
            out.append("{" + plain + "," + encoded + "}")
    return "".join(out)


def schema_reference(root: Path, schema: Path, relative: bool) -> str:
    """How the settings name the schema: `./path` from the workspace root (VS Code resolves it there)
    when asked and possible, else an absolute path."""
    schema = schema.resolve()
    if not schema.is_file():
        raise SetupError(f"the schema `{schema}` does not exist", "`knap schema export DIR` writes copies")
    if relative and schema.is_relative_to(root.resolve()):
        return "./" + schema.relative_to(root.resolve()).as_posix()
    return schema.as_posix()


def render(style: str, schema_ref: str, patterns: list[str]) -> str:
    """The settings as one pastes them into the editor's configuration."""
    if style == "vscode":
        return json.dumps({SETTINGS_KEY: {schema_ref: patterns}}, indent=2) + "\n"
    if style == "neovim":
        globs_lua = ", ".join(_lua_string(p) for p in patterns)
        return (
            "-- Knapper: check and complete every document of every pack file (yaml-language-server)\n"
            f"vim.lsp.config('yamlls', {{ settings = {{ yaml = {{ schemas = {{\n"
            f"  [{_lua_string(schema_ref)}] = {{ {globs_lua} }},\n"
            "} } } })\n"
            "vim.lsp.enable('yamlls')\n"
            "-- nvim-lspconfig before Neovim 0.11: require('lspconfig').yamlls.setup({ settings = ... })\n"
        )
    if style == "helix":
        globs_toml = ", ".join(json.dumps(p) for p in patterns)
        return (
            "# Knapper: check and complete every document of every pack file (languages.toml)\n"
            "[language-server.yaml-language-server.config.yaml.schemas]\n"
            f"{json.dumps(schema_ref)} = [{globs_toml}]\n"
        )
    raise ValueError(style)


def _lua_string(text: str) -> str:
    """A double-quoted Lua string (Lua 5.1 has no `\\u` escape, so non-ASCII stays as UTF-8)."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else f"\\{ord(c):03d}" for c in escaped) + '"'


def write_vscode(root: Path, schema_ref: str, patterns: list[str]) -> Path:
    """Merge the association into `.vscode/settings.json`, keeping every other setting (and every other
    schema association). A file that is not plain JSON (VS Code allows comments) is left alone."""
    path = root / ".vscode" / "settings.json"
    settings: dict = {}
    if path.exists():
        try:
            text = path.read_text(encoding="utf-8")
            settings = jsonload.parse(text) if text.strip() else {}
        except (OSError, UnicodeDecodeError) as exc:
            raise SetupError(
                f"cannot read {path}: {exc}", "fix or remove the file, then run again", usage=False
            ) from None
        except jsonload.JsonFileError as exc:
            raise SetupError(
                f"{path}:{exc.line}:{exc.col}: {exc.message}; knap rewrites a settings file only "
                "when it is plain JSON (without comments)",
                "add the lines of `knap schema editor --print vscode` by hand",
                usage=False,
            ) from None
        if not isinstance(settings, dict) or not isinstance(settings.get(SETTINGS_KEY, {}), dict):
            raise SetupError(
                f"{path}:1:1: expected a JSON object whose `{SETTINGS_KEY}` maps schemas to globs",
                "fix or remove the entry, then run again",
                usage=False,
            )
    associations = dict(settings.get(SETTINGS_KEY, {}))
    associations[schema_ref] = patterns
    settings[SETTINGS_KEY] = associations
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, json.dumps(settings, indent=2, ensure_ascii=False) + "\n")
    except (OSError, WriteError) as exc:
        raise SetupError(
            str(exc) if isinstance(exc, WriteError) else f"cannot write {path}: {exc.strerror or exc}",
            "check the folder's permissions",
            usage=False,
        ) from None
    return path
