"""Print diagnostics: text with the quoted line and a caret for people; json, GitHub annotations and
SARIF 2.1.0 for programs. Output is stable: sorted, no timestamps.

Files, messages and source lines may hold any character a stranger's pack holds: the text and GitHub
reports show control and bidi characters as escapes (`\\x1b`, `\\u202e`), json and SARIF keep every value
exact but write those characters as JSON escapes (`safe_text`), so no report can drive a terminal."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote_from_bytes

from engine.diagnostics import RULES, STAGES, Diagnostic, Severity
from engine.safe_text import dumps, visible

from . import __version__

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _source_line(d: Diagnostic, lines_of) -> str:
    if not d.line:
        return ""
    lines = lines_of(d.file)
    return lines[d.line - 1] if 0 < d.line <= len(lines) else ""


def quoted(source: str, line: int, col: int) -> list[str]:
    """The source line, numbered, and a caret under column `col` (no lines for a blank one); a very long
    line is shown around the caret, and what could upset a terminal is escaped (safe_text.visible)."""
    if not source.strip():
        return []
    number = f"{line:>5} | "
    text_line = source.expandtabs(1)
    start = max(0, col - 80) if len(text_line) > 160 else 0  # a very long line: the caret's neighbourhood
    window, prefix = text_line[start : start + 160], "..." if start else ""
    # the caret counts what is shown before it: an escaped character takes several columns
    caret_col = len(prefix) + len(visible(window[: max(col - 1 - start, 0)], lines=False)) + 1
    return [f"{number}{prefix}{visible(window, lines=False)}", " " * len(number) + " " * max(caret_col - 1, 0) + "^"]


def text(diags: list[Diagnostic], lines_of, color: bool = False) -> str:
    out = []
    for d in diags:
        file, message = visible(d.file, lines=False), visible(d.message)
        mark = "[*] " if fixable(d) else ""  # as ruff marks what `--fix` repairs
        head = f"{file}:{d.line}:{d.col}: {d.code} {mark}{message}"
        if color:
            tint = {"error": "\033[31m", "warning": "\033[33m"}.get(d.severity.value, "\033[36m")
            head = f"\033[1m{file}:{d.line}:{d.col}:\033[0m {tint}{d.code}\033[0m {mark}{message}"
        out.append(head)
        out += quoted(_source_line(d, lines_of), d.line, d.col)
        if d.hint:
            out.append(f"      = hint: {visible(d.hint)}")
    errors = sum(1 for d in diags if d.severity == Severity.ERROR)
    warnings = sum(1 for d in diags if d.severity == Severity.WARNING)
    if diags:
        out.append(
            f"Found {len(diags)} problem{'s' if len(diags) != 1 else ''} "
            f"({errors} error{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''})."
        )
        repairable = sum(map(fixable, diags))
        if repairable:
            out.append(f"[*] {repairable} fixable with `knap lint --fix` (`--diff` shows the changes).")
    return "\n".join(out)


def as_json(diags: list[Diagnostic], stats=None, files: int = 0, lines_of=None) -> str:
    payload = {
        "version": 1,
        "tool": "knap",
        "tool_version": __version__,
        "files": files,
        "diagnostics": [_json_entry(d, lines_of) for d in diags],
        "summary": {
            "errors": sum(1 for d in diags if d.severity == Severity.ERROR),
            "warnings": sum(1 for d in diags if d.severity == Severity.WARNING),
            "total": len(diags),
        },
    }
    if stats is not None:
        payload["stats"] = [s.to_json() for s in stats]
    return dumps(payload, indent=2)


def _json_entry(d: Diagnostic, lines_of) -> dict:
    """A finding for programs, with no field that only says "unknown": `source` is the quoted line when
    the finding has one."""
    entry = d.to_json()
    source = _source_line(d, lines_of) if lines_of is not None else d.source
    if source:
        entry["source"] = source
    else:
        entry.pop("source", None)
    return entry


def _escape_property(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def _escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github(diags: list[Diagnostic]) -> str:
    lines = []
    for d in diags:
        level = {"error": "error", "warning": "warning"}.get(d.severity.value, "notice")
        message = visible(d.message + (f" (hint: {d.hint})" if d.hint else ""))
        file = _escape_property(visible(d.file, lines=False))
        lines.append(
            f"::{level} file={file},line={max(d.line, 1)},col={max(d.col, 1)},"
            f"title={_escape_property(d.code)}::{_escape_data(message)}"
        )
    return "\n".join(lines)


def sarif(diags: list[Diagnostic]) -> str:
    used = sorted({d.code for d in diags} | set(RULES))
    index = {code: i for i, code in enumerate(used)}
    rules = []
    for code in used:
        rule = RULES.get(code)
        if rule is None:
            rules.append({"id": code, "name": "internal", "shortDescription": {"text": "Internal error"}})
            continue
        rules.append(
            {
                "id": rule.code,
                "name": rule.name,
                "shortDescription": {"text": rule.summary},
                "fullDescription": {"text": rule.explanation},
                "help": {"text": rule.explanation},
                "defaultConfiguration": {"level": _LEVEL[rule.severity]},
                "properties": {"stage": STAGES[rule.code[0]].split(":")[0]},
            }
        )
    results = []
    for d in diags:
        region = {"startLine": max(d.line, 1), "startColumn": max(d.col, 1)}
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": _LEVEL[d.severity],
            "message": {"text": d.message + (f" Hint: {d.hint}" if d.hint else "")},
            "locations": [{"physicalLocation": {"artifactLocation": _artifact_location(d.file), "region": region}}],
        }
        if fixable(d):
            result["fixes"] = [_sarif_fix(d)]
        results.append(result)
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "knap",
                        "version": __version__,
                        "informationUri": "https://knapper.invalid/docs/lint",
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": _folder_uri(Path.cwd())}},
                "results": results,
            }
        ],
    }
    return dumps(log, indent=2)


def fixable(d: Diagnostic) -> bool:
    """Whether the finding has a fix checked against its file (lint_fix.plan adds its `edits`)."""
    return bool(d.fix and d.fix.get("edits"))


def _sarif_fix(d: Diagnostic) -> dict:
    """A SARIF `fix`: the replaced regions (end column exclusive, as SARIF counts) and the new text."""
    assert d.fix is not None  # the caller asked `fixable(d)`
    replacements = [
        {
            "deletedRegion": {
                "startLine": e["line"],
                "startColumn": e["col"],
                "endLine": e["end_line"],
                "endColumn": e["end_col"],
            },
            "insertedContent": {"text": e["content"]},
        }
        for e in d.fix["edits"]
    ]
    return {
        "description": {"text": d.fix.get("message") or "apply the fix"},
        "artifactChanges": [{"artifactLocation": _artifact_location(d.file), "replacements": replacements}],
    }


def _folder_uri(folder: Path) -> str:
    """A folder as SARIF wants a base URI: absolute `file://`, ending with `/`."""
    uri = folder.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _artifact_location(file: str) -> dict:
    """Where a finding is, as an RFC 3986 URI (SARIF1002, SARIF1004): a percent-encoded path relative to
    `%SRCROOT%` (the working folder) for a file inside it, an absolute `file://` URI for any other."""
    here = Path.cwd()
    path = Path(os.path.normpath(here / file)) if file else here
    try:
        relative = path.relative_to(here).as_posix()
    except ValueError:
        return {"uri": path.as_uri()}
    return {"uri": quote_from_bytes(os.fsencode(relative), safe="/"), "uriBaseId": "%SRCROOT%"}


def explain(code: str) -> str | None:
    rule = RULES.get(code.upper())
    if rule is None:
        return None
    return (
        f"{rule.code} ({rule.name}) — stage: {STAGES[rule.code[0]]}; severity: {rule.severity.value}\n\n"
        f"{rule.summary}\n\n{rule.explanation}\n"
    )


def rules_table() -> str:
    lines = []
    stage = None
    for code, rule in RULES.items():
        if code[0] != stage:
            stage = code[0]
            lines.append(f"\n{STAGES[stage]}")
        lines.append(f"  {code}  {rule.name:<24} {rule.severity.value:<8} {rule.summary}")
    return "\n".join(lines).lstrip("\n")
