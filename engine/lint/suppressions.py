"""Inline suppressions: `# knap: ignore[CODE]` at the end of a line or alone on the line above it, and
`# knap: ignore-file[CODE]` for a whole file. Codes may be prefixes (`S` covers every schema code)."""

from __future__ import annotations

import re
from collections import defaultdict

from engine.diagnostics import RULES, Diagnostic

_SUPPRESS = re.compile(r"#\s*knap:\s*ignore(-file)?(?:\[([A-Za-z0-9, ]*)\])?")


def parse(lines: list[str]):
    """(line -> codes or None for all) and file-wide codes, from `# knap: ignore[CODE]` comments.
    A comment alone on its line covers the next line; at the end of a line it covers that line."""
    per_line: dict[int, set[str] | None] = {}
    whole: set[str] | None = set()
    unknown: list[tuple[int, int, str]] = []
    for number, text in enumerate(lines, start=1):
        if "knap:" not in text:
            continue
        match = _SUPPRESS.search(text)
        if not match:
            continue
        codes = {c.strip().upper() for c in (match.group(2) or "").split(",") if c.strip()} or None
        for code in codes or ():
            if not any(r.startswith(code) for r in RULES):
                unknown.append((number, match.start() + 1, code))
        if match.group(1):
            whole = None if codes is None or whole is None else whole | codes
            continue
        target = number + 1 if text.lstrip().startswith("#") else number
        previous = per_line.get(target, set())
        per_line[target] = None if codes is None or previous is None else previous | codes
    return per_line, whole, unknown


def _covered(code: str, codes: set[str] | None) -> bool:
    return codes is None or any(code.startswith(c) for c in codes)


def apply_suppressions(diags: list[Diagnostic], positions) -> list[Diagnostic]:
    """Drop the findings that a `# knap: ignore` comment covers; `positions` supplies source lines."""
    by_file = defaultdict(list)
    for d in diags:
        by_file[d.file].append(d)
    kept = []
    for file, items in by_file.items():
        lines = positions.source_lines(file)
        if not any("knap:" in line for line in lines):
            kept.extend(items)
            continue
        per_line, whole, _ = parse(lines)
        for d in items:
            if whole is None or (whole and _covered(d.code, whole)):
                continue
            if d.line in per_line and _covered(d.code, per_line[d.line]):
                continue
            kept.append(d)
    return kept
