"""`knap diff`: what a variant changes against the packs it extends.

The comparison is between the two effective packs (compose.py), by id and field, so it says what
the game you play differs in, however the variant wrote it (replaced, patched, removed or added).
"""

from __future__ import annotations

import json

from engine.content.compose import Effective
from engine.safe_text import visible

_VALUE_KEYS = ("default", "by_player_count")


def _flat(data, prefix=()) -> dict[tuple, object]:
    """Leaves of nested mappings by path; lists and texts are leaves."""
    if isinstance(data, dict) and data:
        out = {}
        for key, value in data.items():
            out.update(_flat(value, prefix + (key,)))
        return out
    return {prefix: data}


def _field_changes(old: dict, new: dict, skip=()) -> dict[str, dict]:
    before, after = _flat(old), _flat(new)
    changes = {}
    for path in sorted(set(before) | set(after), key=lambda p: [str(x) for x in p]):
        if path and path[0] in skip:
            continue
        if before.get(path, _MISSING) != after.get(path, _MISSING):
            entry = {}
            if path in before:
                entry["from"] = before[path]
            if path in after:
                entry["to"] = after[path]
            changes[".".join(str(p) for p in path)] = entry
    return changes


_MISSING = object()


def _parameter_value(spec):
    """What a parameter is worth: its default alone, or its table by player count (with the default)."""
    if not isinstance(spec, dict):
        return spec
    if "by_player_count" not in spec:
        return spec.get("default")
    return {k: spec[k] for k in _VALUE_KEYS if k in spec}


def diff(base: Effective, variant: Effective, own_files: set[str], removals: dict) -> dict:
    """The changes from `base` to `variant` as plain data (the JSON `knap diff` writes)."""
    old, new = base.by_id(), variant.by_id()
    where_new = {data["id"]: (file, index) for file, index, data in variant.documents}
    where_old = {data["id"]: (file, index) for file, index, data in base.documents}
    out: dict = {"pack": variant.pack_id, "base": variant.bases}
    if base.manifest.get("players") != variant.manifest.get("players"):
        out["players"] = {"from": base.manifest.get("players"), "to": variant.manifest.get("players")}
    if base.manifest.get("turns", "players") != variant.manifest.get("turns", "players"):
        out["turns"] = {"from": base.manifest.get("turns", "players"), "to": variant.manifest.get("turns", "players")}
    old_params, new_params = base.manifest.get("parameters") or {}, variant.manifest.get("parameters") or {}
    params = {}
    for name in sorted(set(old_params) | set(new_params)):
        before, after = _parameter_value(old_params.get(name)), _parameter_value(new_params.get(name))
        if name not in old_params:
            params[name] = {"to": after}
        elif name not in new_params:
            params[name] = {"from": before}
        elif before != after:
            params[name] = {"from": before, "to": after}
    if params:
        out["parameters"] = params
    old_decks, new_decks = base.manifest.get("decks") or {}, variant.manifest.get("decks") or {}
    decks = {
        name: {k: v for k, v in (("from", old_decks.get(name)), ("to", new_decks.get(name))) if v is not None}
        for name in sorted(set(old_decks) | set(new_decks))
        if old_decks.get(name) != new_decks.get(name)
    }
    if decks:
        out["decks"] = decks
    out["removed"] = [
        {"id": i, "kind": old[i]["kind"], "name": old[i].get("name", i), "reason": removals.get(i, "")}
        for i in old
        if i not in new
    ]
    out["changed"] = []
    for doc_id, data in new.items():
        if doc_id not in old or old[doc_id] == data:
            continue
        how = "replaced" if where_new[doc_id] != where_old[doc_id] else "patched"
        layers = variant.layers.get(where_new[doc_id], [])
        by = (
            where_new[doc_id][0]
            if how == "replaced"
            else next((layer.file for layer in layers if layer.file in own_files), where_new[doc_id][0])
        )
        out["changed"].append(
            {
                "id": doc_id,
                "kind": data["kind"],
                "name": data.get("name", doc_id),
                "how": how,
                "file": by,
                "fields": _field_changes(old[doc_id], data),
            }
        )
    out["added"] = [
        {"id": i, "kind": data["kind"], "name": data.get("name", i), "file": where_new[i][0]}
        for i, data in new.items()
        if i not in old
    ]
    return out


def differences(old, new, path: str = "") -> list[tuple[str, object, object]]:
    """The parts of two values that differ, as (key path, old, new): mappings are followed key by key and
    lists of the same length item by item (`steps[1].size`); anything else that differs is one change,
    a missing side being `_MISSING`. Equal parts are left out."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in list(old) + [k for k in new if k not in old]:
            found += differences(old.get(key, _MISSING), new.get(key, _MISSING), f"{path}.{key}" if path else str(key))
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            change
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for change in differences(a, b, f"{path}[{i}]")
        ]
    return [(path, old, new)]


def _shown(value) -> str:
    """A value in full, as JSON (a one-line text as itself): what changed is never cut off."""
    if value is _MISSING:
        return "(none)"
    if isinstance(value, str) and "\n" not in value:
        return value
    return json.dumps(value, ensure_ascii=False)


def _changes(name: str, entry: dict, indent: str, full: bool) -> list[str]:
    """One line per part that differs (`name.key: old -> new`), or the whole values with `full`."""
    before, after = entry.get("from", _MISSING), entry.get("to", _MISSING)
    if full or before is _MISSING or after is _MISSING:
        return [f"{indent}{name}: {_shown(before)} -> {_shown(after)}"]
    return [
        f"{indent}{name}{'' if not path or path.startswith('[') else '.'}{path}: {_shown(a)} -> {_shown(b)}"
        for path, a, b in differences(before, after)
    ]


def _players(spec) -> str:
    if not isinstance(spec, dict):
        return "(none)"
    low, high = spec.get("min"), spec.get("max")
    return f"{low}" if low == high else f"{low} to {high}"


def text(report: dict, full: bool = False) -> str:
    """The report in words, one change per line: the key paths that differ, each old -> new in full (with
    `full`, whole old and new values). A control or bidi character of the packs is shown as an escape
    (`\\x1b`, `\\u202e`), a newline in a value as `\\x0a`, so no value drives the terminal or fakes a line."""
    lines = [f"`{report['pack']}` against {', '.join(f'`{b}`' for b in report['base']) or 'nothing'}:"]
    if "players" in report:
        lines.append(f"players: {_players(report['players'].get('from'))} -> {_players(report['players'].get('to'))}")
    if "turns" in report:
        lines.append(f"turns: {report['turns']['from']} -> {report['turns']['to']}")
    for title, key in (("parameters", "parameters"), ("decks", "decks")):
        if report.get(key):
            lines.append(f"{title}:")
            lines += [line for name, entry in report[key].items() for line in _changes(name, entry, "  ", full)]
    if report["removed"]:
        lines.append(f"removed ({len(report['removed'])}):")
        lines += [f"  {r['kind']} {r['id']}" + (f": {r['reason']}" if r["reason"] else "") for r in report["removed"]]
    if report["changed"]:
        lines.append(f"changed ({len(report['changed'])}):")
        for c in report["changed"]:
            lines.append(f"  {c['kind']} {c['id']} ({c['how']} in {c['file']}):")
            lines += [line for path, entry in c["fields"].items() for line in _changes(path, entry, "    ", full)]
    if report["added"]:
        lines.append(f"added ({len(report['added'])}):")
        lines += [f'  {a["kind"]} {a["id"]} "{a["name"]}" ({a["file"]})' for a in report["added"]]
    if len(lines) == 1:
        lines.append("no changes")
    return "\n".join(visible(line, lines=False) for line in lines) + "\n"
