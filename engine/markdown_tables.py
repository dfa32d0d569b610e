"""Tables of codes for the generated docs (lint rules, runtime errors): one heading and table per group."""

from __future__ import annotations


def grouped_tables(rows, group_of, heading_of, columns: list[str]) -> list[str]:
    """Markdown lines: `rows` (already in order, each a list of cells) under a `## heading` each time
    `group_of(row)` changes; `heading_of(group)` words the heading."""
    out, group = [], None
    for row in rows:
        if group_of(row) != group:
            group = group_of(row)
            out.append(f"\n## {heading_of(group)}\n")
            out.append("| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|")
        out.append("| " + " | ".join(str(cell) for cell in row) + " |")
    return out
